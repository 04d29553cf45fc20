/* src/route/live.h
 *
 * Per-switch forwarding views during control-plane convergence
 * (route/live.c), over the FIB (route/fib.h).
 */
#ifndef FABSIM_ROUTE_LIVE_H
#define FABSIM_ROUTE_LIVE_H

#include "net/net.h"
#include "route/fib.h"

#include <stdbool.h>
#include <stdint.h>

/* Per-switch forwarding views during control-plane convergence (route/live.c).
 * Policies that support a distributed control plane (ecmp, spray) put one
 * first in their route_state. */
struct route_live {
    struct route_fib *old; /* the FIB before the last change */
    uint8_t *stale;        /* per switch index: forwards with the old FIB */
    /* A stale switch still drops its own ports from the old sets once they
     * have been down this long (hardware ECMP pruning, ctrl/bgp.c); NEVER =
     * not at all. */
    uint64_t prune_ps;
    uint32_t *scratch; /* the pruned set handed out (one node's degree) */
};
void route_live_init(struct route_live *lv, const struct net *n);
/* Does switch index s forward with its old view? No switch does before the
 * first change (old is NULL until route_live_snapshot, which alone sets
 * stale): that test reads the line the caller has, not the per-switch
 * array (a cold line per hop at 8,192 hosts). */
static inline bool route_live_stale(const struct route_live *lv, uint32_t s) {
    return lv->old && lv->stale[s];
}
void route_live_fini(struct route_live *lv);
/* Keeps the current FIB as every switch's view; call before route_fib_build. */
void route_live_snapshot(struct net *n);
/* Candidate ports at switch `sw` for `host` as that switch currently sees them. */
uint32_t route_live_get(const struct net *n, uint32_t sw, uint32_t host, const uint32_t **ports);
/* route_live_get for switch node `sw` and destination host node `dst`,
 * inline for the forwarding path (the switch index read only once a
 * control-plane change made some switch stale). */
static inline __attribute__((always_inline)) uint32_t
route_live_get_node(const struct net *n, uint32_t sw, uint32_t dst, const uint32_t **ports) {
    const struct route_live *lv = n->route_state;
    if (__builtin_expect(lv->old != NULL, 0) && route_live_stale(lv, n->nodes[sw].index))
        return route_live_get(n, sw, n->nodes[dst].index, ports);
    return route_fib_lookup_node(n->fib, n, sw, dst, ports);
}
/* Does switch `sw`'s old view differ from the new FIB? */
bool route_live_differs(const struct net *n, uint32_t sw);

#endif /* FABSIM_ROUTE_LIVE_H */

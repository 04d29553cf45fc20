/* src/route/live.c
 *
 * Per-switch forwarding views while a distributed control plane converges
 * (ctrl/bgp.c). After a link changes state the global FIB is recomputed at
 * once, but each switch keeps forwarding with the sets it had before until
 * the news has reached it and it has processed it. ECMP and spray read their
 * candidate ports through route_live_get; the state is the first member of
 * their route_state.
 */
#include "route/live.h"

#include "core/mem.h"
#include "net/params.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

void route_live_init(struct route_live *lv, const struct net *n) {
    memset(lv, 0, sizeof *lv);
    lv->stale = fs_xcalloc(n->nswitches + 1, 1);
    uint32_t deg = 1;
    for (uint32_t v = 0; v < n->nnodes; v++)
        if (n->nodes[v].nports > deg) deg = n->nodes[v].nports;
    lv->scratch = fs_xcalloc(deg, sizeof *lv->scratch);
    lv->prune_ps = n->sc && n->sc->fabric.control_plane.kind == CP_BGP
                       ? n->sc->fabric.control_plane.port_down_ps
                       : SIM_TIME_NEVER;
}

void route_live_fini(struct route_live *lv) {
    route_fib_free(lv->old);
    free(lv->stale);
    free(lv->scratch);
    memset(lv, 0, sizeof *lv);
}

void route_live_snapshot(struct net *n) {
    struct route_live *lv = n->route_state;
    bool any_stale = false;
    for (uint32_t s = 0; s < n->nswitches; s++)
        any_stale |= lv->stale[s] != 0;
    /* A change during convergence: switches still stale keep the older view
     * (and route_fib_build frees the current one). */
    if (!any_stale || !lv->old) {
        route_fib_free(lv->old);
        lv->old = n->fib;
        n->fib = NULL;
    }
    memset(lv->stale, 1, n->nswitches);
}

/* A switch still converging: its old view, minus its own ports that went
 * down long enough ago to have left its ECMP groups in hardware (ctrl/bgp.c). */
__attribute__((noinline)) static uint32_t live_get_stale(const struct net *n, uint32_t sw,
                                                         uint32_t host, const uint32_t **ports) {
    const struct route_live *lv = n->route_state;
    uint32_t c = route_fib_lookup(lv->old, n, sw, host, ports), k = 0;
    if (lv->prune_ps == SIM_TIME_NEVER) return c;
    const uint32_t *old = *ports;
    sim_time_ps now = n->sim->now_ps;
    bool pruned = false;
    for (uint32_t i = 0; i < c && !pruned; i++) {
        const struct port *p = &n->ports[old[i]];
        pruned = !p->up && p->down_ps + lv->prune_ps <= now;
    }
    if (!pruned) return c;
    for (uint32_t i = 0; i < c; i++) {
        const struct port *p = &n->ports[old[i]];
        if (p->up || p->down_ps + lv->prune_ps > now) lv->scratch[k++] = old[i];
    }
    *ports = lv->scratch;
    return k;
}

uint32_t route_live_get(const struct net *n, uint32_t sw, uint32_t host, const uint32_t **ports) {
    const struct route_live *lv = n->route_state;
    if (__builtin_expect(lv->stale[n->nodes[sw].index], 0))
        return live_get_stale(n, sw, host, ports);
    return route_fib_lookup(n->fib, n, sw, host, ports);
}

bool route_live_differs(const struct net *n, uint32_t sw) {
    const struct route_live *lv = n->route_state;
    for (uint32_t h = 0; h < n->nhosts; h++) {
        const uint32_t *a, *b;
        uint32_t ca = route_fib_lookup(lv->old, n, sw, h, &a);
        uint32_t cb = route_fib_lookup(n->fib, n, sw, h, &b);
        if (ca != cb || memcmp(a, b, ca * sizeof *a) != 0) return true;
    }
    return false;
}

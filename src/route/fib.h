/* src/route/fib.h
 *
 * The forwarding information base (route/fib.c): for every switch and
 * destination host, the minimal output ports over live links, which every
 * routing policy chooses from, and its lookups (inline: the forwarding
 * path's). Knows no policy; route/live.h and the policies build on it.
 */
#ifndef FABSIM_ROUTE_FIB_H
#define FABSIM_ROUTE_FIB_H

#include "net/net.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Minimal output ports per (switch, destination host) over live links, stored
 * by destination group (route/fib.c): the set for switch index s and host h
 * is sets[e + 1 .. e + 1 + sets[e]) with e = grp[s * ngroups +
 * host_group[h]], or the host's own links at s when e is ROUTE_FIB_DIRECT. */
#define ROUTE_FIB_DIRECT UINT32_MAX
struct route_fib {
    uint32_t nswitches, ngroups, nsets;
    uint32_t *host_group;          /* host index -> group */
    uint32_t *grp;                 /* [switch index * ngroups + group] -> set position */
    uint32_t *set_off, *set_ports; /* interned candidate sets while building (then freed) */
    uint32_t *sets;                /* the sets packed: count, then its ports (ECMP groups) */
    uint32_t *direct_off, *direct; /* per host: its live links' switch-side ports, ascending */
    uint32_t *direct_sw;           /* [i]: ports[direct[i]].node (no port read per lookup) */
    uint32_t *node_group;          /* node id -> host_group of a host node (0 for a switch):
                                      a packet's dst picks its group in one load */
    size_t *node_row;              /* node id -> a switch's grp row (index * ngroups) */
    uint32_t *node_direct;         /* node id -> a single-switch host's set in direct_pack,
                                      UINT32_MAX otherwise (searched: route_fib_direct) */
    uint32_t *direct_pack;         /* those sets: count, then the switch-side ports */
};

/* Does every switch-switch link join two tiers (so that valley-free,
 * n->fib_updown, is defined)? */
bool route_layered(const struct net *n);
/* BFS over live links from every destination group; replaces n->fib. */
void route_fib_build(struct net *n);
void route_fib_free(struct route_fib *f);
/* Candidate ports for (switch node, destination host): returns the count. */
uint32_t route_fib_get(const struct net *n, uint32_t sw, uint32_t host, const uint32_t **ports);
/* The host's own links at its attachment switch `sw` (ROUTE_FIB_DIRECT). */
static inline uint32_t route_fib_direct(const struct route_fib *f, const struct net *n, uint32_t sw,
                                        uint32_t host, const uint32_t **ports) {
    (void)n;
    uint32_t a = f->direct_off[host], b = f->direct_off[host + 1];
    while (a < b && f->direct_sw[a] != sw)
        a++;
    uint32_t e = a;
    while (e < b && f->direct_sw[e] == sw)
        e++;
    *ports = f->direct + a;
    return e - a;
}
static inline uint32_t route_fib_lookup(const struct route_fib *f, const struct net *n, uint32_t sw,
                                        uint32_t host, const uint32_t **ports) {
    uint32_t e = f->grp[(size_t)n->nodes[sw].index * f->ngroups + f->host_group[host]];
    if (e == ROUTE_FIB_DIRECT) return route_fib_direct(f, n, sw, host, ports);
    *ports = f->sets + e + 1;
    return f->sets[e];
}

/* route_fib_lookup for switch node `sw` and destination host node `dst` (a
 * packet's dst): the forwarding path's form, the row by node id (no switch
 * index read and multiplied). */
static inline __attribute__((always_inline)) uint32_t
route_fib_lookup_node(const struct route_fib *f, const struct net *n, uint32_t sw, uint32_t dst,
                      const uint32_t **ports) {
    uint32_t e = f->grp[f->node_row[sw] + f->node_group[dst]];
    if (e == ROUTE_FIB_DIRECT) {
        uint32_t d = f->node_direct[dst];
        if (__builtin_expect(d != UINT32_MAX, 1)) {
            *ports = f->direct_pack + d + 1;
            return f->direct_pack[d];
        }
        return route_fib_direct(f, n, sw, n->nodes[dst].index, ports);
    }
    *ports = f->sets + e + 1;
    return f->sets[e];
}

#endif /* FABSIM_ROUTE_FIB_H */

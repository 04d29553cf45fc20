/* src/route/route.h
 *
 * Forwarding as a policy table: static linear forwarding tables (filled by the
 * subnet manager, or by the shortest-path default), adaptive, ECMP, spray.
 * route_fib_build computes, for every switch and destination host, the set of
 * minimal output ports from the graph (BFS), which every policy chooses from.
 */
#ifndef FABSIM_ROUTE_ROUTE_H
#define FABSIM_ROUTE_ROUTE_H

#include "net/net.h"

#include <stdbool.h>
#include <stdint.h>

struct packet;
struct diag;

/* Parameters: config/ fills them from the scenario (docs/scenario.md); the
 * module reads them and never includes config/. */
enum routing_kind { ROUTING_STATIC, ROUTING_ADAPTIVE, ROUTING_ECMP, ROUTING_SPRAY };
enum routing_engine { ENGINE_MINHOP, ENGINE_UPDN, ENGINE_FTREE, ENGINE_FILE };

struct route_ops {
    const char *name;
    /* Fills the policy's tables once the topology and the FIB are built. */
    int (*init)(struct net *n, struct diag *d);
    void (*fini)(struct net *n);
    /* Output port at switch node `sw` for packet `p` (NET_NONE: no route, drop). */
    uint32_t (*select)(struct net *n, uint32_t sw, const struct packet *p);
    /* Links changed state (up/down): recompute what depends on it. */
    void (*on_topology_change)(struct net *n);
    /* Optional cache warm-up for a packet that will reach switch `sw` a few
     * events from now (net/warm.h): `warm` prefetches the table entry select
     * would read; `guess` (that line fetched by now) returns the port select
     * would choose, or NET_NONE when it cannot tell cheaply. Both read only:
     * a hint may be wrong (the tables may change before the packet is
     * forwarded), never harmful. NULL for policies whose choice reads more
     * than one table line (adaptive: queue depths; spray: its RNG). */
    void (*warm)(const struct net *n, uint32_t sw, const struct packet *p);
    uint32_t (*guess)(const struct net *n, uint32_t sw, const struct packet *p);
};

/* Minimal output ports per (switch, destination host) over live links, stored
 * by destination group (route/fib.c): the set for switch index s and host h
 * is set_ports[set_off[e] .. set_off[e + 1]) with e = grp[s * ngroups +
 * host_group[h]], or the host's own links at s when e is ROUTE_FIB_DIRECT. */
#define ROUTE_FIB_DIRECT UINT32_MAX
struct route_fib {
    uint32_t nswitches, ngroups, nsets;
    uint32_t *host_group;          /* host index -> group */
    uint32_t *grp;                 /* [switch index * ngroups + group] -> set id */
    uint32_t *set_off, *set_ports; /* interned candidate sets (ECMP groups) */
    uint32_t *direct_off, *direct; /* per host: its live links' switch-side ports, ascending */
    uint32_t *direct_sw;           /* [i]: ports[direct[i]].node (no port read per lookup) */
    uint32_t *node_group;          /* node id -> host_group of a host node (0 for a switch):
                                      a packet's dst picks its group in one load */
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
    *ports = f->set_ports + f->set_off[e];
    return f->set_off[e + 1] - f->set_off[e];
}

/* route_fib_lookup for switch node `sw` of switch index `s` and destination
 * host node `dst` (a packet's dst): the forwarding path's form. */
static inline uint32_t route_fib_lookup_node(const struct route_fib *f, const struct net *n,
                                             uint32_t sw, uint32_t s, uint32_t dst,
                                             const uint32_t **ports) {
    uint32_t e = f->grp[(size_t)s * f->ngroups + f->node_group[dst]];
    if (e == ROUTE_FIB_DIRECT) return route_fib_direct(f, n, sw, n->nodes[dst].index, ports);
    uint32_t a = f->set_off[e];
    *ports = f->set_ports + a;
    return f->set_off[e + 1] - a;
}

const struct route_ops *route_select(const struct net *n, struct diag *d);

extern const struct route_ops route_static_ops;
extern const struct route_ops route_adaptive_ops; /* route/adaptive.c */
extern const struct route_ops route_ecmp_ops;
extern const struct route_ops route_spray_ops;

/* `p`'s flow digest mixed with switch `sw`'s seed (route/ecmp.c). */
uint32_t ecmp_hash(const struct net *n, uint32_t sw, const struct packet *p);

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
void route_live_fini(struct route_live *lv);
/* Keeps the current FIB as every switch's view; call before route_fib_build. */
void route_live_snapshot(struct net *n);
/* Candidate ports at switch `sw` for `host` as that switch currently sees them. */
uint32_t route_live_get(const struct net *n, uint32_t sw, uint32_t host, const uint32_t **ports);
/* route_live_get for switch node `sw` of switch index `s` and destination
 * host node `dst`, inline for the forwarding path. */
static inline uint32_t route_live_get_node(const struct net *n, uint32_t sw, uint32_t s,
                                           uint32_t dst, const uint32_t **ports) {
    const struct route_live *lv = n->route_state;
    if (__builtin_expect(lv->stale[s], 0)) return route_live_get(n, sw, n->nodes[dst].index, ports);
    return route_fib_lookup_node(n->fib, n, sw, s, dst, ports);
}
/* Does switch `sw`'s old view differ from the new FIB? */
bool route_live_differs(const struct net *n, uint32_t sw);

#endif /* FABSIM_ROUTE_ROUTE_H */

/* src/route/route.h
 *
 * Forwarding as a policy table: static linear forwarding tables (filled by the
 * subnet manager, or by the shortest-path default), adaptive, ECMP, spray.
 * route_fib_build computes, for every switch and destination host, the set of
 * minimal output ports from the graph (BFS), which every policy chooses from
 * (route/fib.h); route/live.h keeps each switch's view while a control plane
 * converges. Both are included here for the forwarding path's callers.
 */
#ifndef FABSIM_ROUTE_ROUTE_H
#define FABSIM_ROUTE_ROUTE_H

#include "net/net.h"
#include "route/fib.h"
#include "route/live.h"
#include "route/route_params.h" /* enum routing_kind, routing_engine */

#include <stdbool.h>
#include <stdint.h>

struct packet;
struct diag;

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
    /* ROUTE_FAST_*: the inline paths net/ may take instead of select, warm
     * and guess (model/model.c copies it to net.route_fast), 0 = none. */
    uint8_t fast;
};

/* route_ops.fast: route_state is a struct ecmp_state and route/ecmp-inl.h's
 * select, warm and guess give the table's results (route_ecmp_ops). A
 * capability, not the table's address, so that net/ names no policy. */
#define ROUTE_FAST_ECMP 1u

const struct route_ops *route_select(const struct net *n, struct diag *d);

extern const struct route_ops route_static_ops;
extern const struct route_ops route_adaptive_ops; /* route/adaptive.c */
extern const struct route_ops route_ecmp_ops;
extern const struct route_ops route_spray_ops;

/* `p`'s flow digest mixed with switch `sw`'s seed (route/ecmp.c). */
uint32_t ecmp_hash(const struct net *n, uint32_t sw, const struct packet *p);

#endif /* FABSIM_ROUTE_ROUTE_H */

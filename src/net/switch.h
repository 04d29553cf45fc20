/* src/net/switch.h
 *
 * An output-queued switch: a packet that arrives is routed (route_ops),
 * admitted into the egress buffer (flowctl_ops) or dropped, and queued on its
 * output port. The port-to-port pipeline latency is part of the link's
 * delivery delay (port.deliver_ps), so it costs no event. Inline: only the
 * link arrival (net/port.c) calls it, once per switch hop.
 */
#ifndef FABSIM_NET_SWITCH_H
#define FABSIM_NET_SWITCH_H

#include "cc/cc.h"
#include "flowctl/flowctl.h"
#include "flowctl/pfc-inl.h"
#include "net/net.h"
#include "net/port.h"
#include "net/trim.h"
#include "route/ecmp-inl.h"
#include "route/route.h"

#include <stdint.h>

/* port.c, the only includer, defines it as its inline enqueue. */
#ifndef SWITCH_ENQUEUE
#define SWITCH_ENQUEUE(n, port, pt, cls, id, p) port_enqueue(n, port, cls, id)
#endif

/* p = pkt(id), from the link arrival that has it. */
static inline __attribute__((always_inline)) void
switch_rx(struct net *n, uint32_t sw, uint32_t in_port, uint32_t id, struct packet *p) {
    _Static_assert(PKT_PAUSE == PKT_CREDIT + 1 && PKT_INNET == PKT_CREDIT + 2,
                   "the types a switch does not route, one range test");
    if (__builtin_expect((unsigned)p->type - PKT_CREDIT <= PKT_INNET - PKT_CREDIT, 0)) {
        if (p->type == PKT_INNET) { /* in-network reduction's: its registered handler consumes it */
            n->type_ops[PKT_INNET]->switch_rx(n, sw, in_port, id);
            return;
        }
        if (n->fc->on_ctrl) n->fc->on_ctrl(n, in_port, p); /* PKT_CREDIT, PKT_PAUSE */
        pkt_free(&n->pool, id);
        return;
    }
    /* ECMP (the RoCE fabrics' policy) inline, the others through route_ops */
    uint32_t out =
        n->route_fast & ROUTE_FAST_ECMP ? ecmp_select_inline(n, sw, p) : n->route->select(n, sw, p);
    if (out == NET_NONE || !n->ports[out].up) {
        if (n->fc->on_discard) n->fc->on_discard(n, in_port, p);
        /* no route: lost where it arrived; routed into a dead link: lost there */
        port_drop(n, out == NET_NONE ? in_port : out, id);
        return;
    }
    struct port *opt = &n->ports[out];
    p->in_port = in_port;
    if (p->flags & PKT_F_STRICT) {
        /* Strict priority, not PFC-enabled (docs/sources.md A12): served before
         * the data classes and never paused; CNPs (and trimmed headers) are
         * small frames, so their buffer use is not accounted. */
        port_enqueue_ctrl(n, out, id);
        return;
    }
    if (__builtin_expect(n->sw_hooks, 0) && n->trim_bytes != 0 && p->type == PKT_DATA &&
        opt->cls[p->prio % NET_NCLASS].bytes + p->wire_bytes > net_trim_bytes(n, out)) {
        trim_packet(n, out, id); /* UET: the header goes on at strict priority */
        return;
    }
    if (!(n->fc_fast & FLOWCTL_FAST_PFC ? pfc_admit_fast(n, in_port, out, p)
                                        : n->fc->admit(n, in_port, out, p))) {
        port_drop(n, out, id);
        return;
    }
    if (__builtin_expect(n->sw_hooks, 0) && n->cc->on_enqueue)
        n->cc->on_enqueue(n, sw, out, p); /* ECN marking at the egress queue */
    SWITCH_ENQUEUE(n, out, opt, p->prio, id, p);
}

#endif /* FABSIM_NET_SWITCH_H */

/* src/net/warm.h
 *
 * The network model's cache warm-up for the event loop (core/sim_loop.h):
 * prefetches for the packet events about to run, so that their cold lines
 * arrive while earlier events run. Hints only: nothing here writes, so no
 * result can depend on it.
 *
 * A link arrival reads its port's line 0 (the wire's head packet, the far
 * end), then that packet, then (at a switch) the forwarding table entry
 * for the packet's destination, then the output port's lines; a transmitter
 * wake reads its port's lines 0-2 (transmitter, class queues, control
 * queue), then the head packet of the queue it serves; at a NIC, a wake
 * pulls from the NIC's first active QP (its message's range is in it), an
 * arrival reads the QP the packet is for. Each is a load that depends on
 * the one before, so the warm-up is a pipeline over the events
 * that follow in the bucket: stage k works on the event k + 1 places ahead
 * and reads only what stage k + 1 fetched for it one event earlier. Events
 * of other kinds (timers, message posts) are rare and left alone. Measured
 * in docs/performance.md "Cache warm-up".
 */
#ifndef FABSIM_NET_WARM_H
#define FABSIM_NET_WARM_H

#include "core/evq.h"
#include "flowctl/pfc-inl.h"
#include "net/net.h"
#include "net/packet.h"
#include "route/ecmp-inl.h"
#include "route/route.h"

#define NET_WARM_INLINE static inline __attribute__((always_inline))

static inline void net_warm_lines(const struct port *pt) {
    const char *l = (const char *)pt;
    __builtin_prefetch(l);
    __builtin_prefetch(l + 64);
    __builtin_prefetch(l + 128);
}

/* The port an event names, for the packet events; NULL for other kinds. */
NET_WARM_INLINE const struct port *net_warm_port_of(const struct net *n, const struct event *e) {
    return e->kind <= NET_EV_PORT_WAKE ? &n->ports[e->arg] : NULL;
}

/* Stage: the lines of the port the event names (a wake reads three, an
 * arrival the first). */
NET_WARM_INLINE void net_warm_port(const struct net *n, const struct event *e) {
    const struct port *pt = net_warm_port_of(n, e);
    if (!pt) return;
    if (e->kind == NET_EV_PORT_WAKE)
        net_warm_lines(pt);
    else
        __builtin_prefetch(pt);
}

/* Stage (the port's lines fetched): the packets the event will touch, the
 * wire's head for an arrival; for a wake each non-empty queue's head (usually
 * one class) and the wire's tail, which the next transmission is linked to. */
NET_WARM_INLINE void net_warm_packet(const struct net *n, const struct event *e) {
    const struct port *pt = net_warm_port_of(n, e);
    if (!pt) return;
    const struct packet *base = n->pool.base;
    if (e->kind == NET_EV_LINK_ARRIVE) {
        if (pt->fly_head != PKT_NONE) __builtin_prefetch(&base[pt->fly_head]);
        return;
    }
    if (pt->ctrl.head != PKT_NONE) __builtin_prefetch(&base[pt->ctrl.head]);
    for (unsigned m = pt->cls_mask & PORT_MASK_CLS; m; m &= m - 1)
        __builtin_prefetch(&base[pt->cls[__builtin_ctz(m)].head]);
    if (pt->fly_tail != PKT_NONE) __builtin_prefetch(&base[pt->fly_tail]);
    if (pt->is_host) __builtin_prefetch(&n->nics[n->nodes[pt->node].index]); /* it pulls */
}

/* The QP a wake at a NIC's port will pull from first (its ring's head; the
 * NIC fetched one stage before), or NULL. */
NET_WARM_INLINE const struct qp *net_warm_pulled(const struct net *n, const struct event *e) {
    if (e->kind != NET_EV_PORT_WAKE || !n->ports[e->arg].is_host) return NULL;
    uint32_t qp = n->nics[n->nodes[n->ports[e->arg].node].index].rr_head;
    return qp != NET_NONE ? &n->qps[qp] : NULL;
}

/* The packet an arrival at a NIC delivers, or NULL. */
NET_WARM_INLINE const struct packet *net_warm_delivered(const struct net *n,
                                                        const struct event *e) {
    if (e->kind != NET_EV_LINK_ARRIVE) return NULL;
    const struct port *pt = &n->ports[e->arg];
    if (pt->peer_is_switch || pt->fly_head == PKT_NONE) return NULL;
    return &n->pool.base[pt->fly_head];
}

/* The packet an arrival at a switch will forward, or NULL. */
NET_WARM_INLINE const struct packet *net_warm_forwarded(const struct net *n,
                                                        const struct event *e) {
    if (e->kind != NET_EV_LINK_ARRIVE) return NULL;
    const struct port *pt = &n->ports[e->arg];
    if (!pt->peer_is_switch || pt->fly_head == PKT_NONE) return NULL;
    return &n->pool.base[pt->fly_head];
}

/* The forwarding entry switch `sw` will read for `p` (route_ops.warm;
 * ECMP's inline, route/ecmp-inl.h). */
NET_WARM_INLINE void net_warm_route(const struct net *n, uint32_t sw, const struct packet *p) {
    if (n->route_fast & ROUTE_FAST_ECMP)
        ecmp_warm_inline(n, sw, p);
    else if (n->route->warm)
        n->route->warm(n, sw, p);
}

/* Stage (the packets fetched): the tables the event will read: at a switch
 * its forwarding entry and, under PFC, the ingress priority group an arrival
 * is admitted to or a departure released from; at a NIC the QP an arrival
 * is for, or the QP a wake pulls from. */
NET_WARM_INLINE void net_warm_tables(const struct net *n, const struct event *e) {
    bool pfc = n->fc_fast & FLOWCTL_FAST_PFC;
    const struct packet *p = net_warm_forwarded(n, e);
    if (p) {
        const struct port *pt =
            &n->ports[e->arg]; /* the switch from its line: not the far port's */
        uint32_t in_port = pt->peer;
        net_warm_route(n, pt->peer_node, p);
        if (pfc) __builtin_prefetch(pfc_pg(n->fc_state, in_port, p->prio));
        return;
    }
    if ((p = net_warm_delivered(n, e)) != NULL && p->type != PKT_PAUSE && p->type != PKT_CREDIT &&
        p->qp < n->nqps) { /* its QP (both sides' fields) */
        __builtin_prefetch(&n->qps[p->qp]);
        __builtin_prefetch((const char *)&n->qps[p->qp] + 64);
        return;
    }
    const struct qp *q = net_warm_pulled(n, e);
    if (q) {
        __builtin_prefetch(q);
        return;
    }
    const struct port *pt = net_warm_port_of(n, e);
    if (!pfc || !pt || e->kind != NET_EV_PORT_WAKE || pt->is_host ||
        !(pt->cls_mask & PORT_MASK_CLS))
        return;
    p = &n->pool.base[pt->cls[__builtin_ctz(pt->cls_mask & PORT_MASK_CLS)].head];
    if (p->in_port != NET_NONE) __builtin_prefetch(pfc_pg(n->fc_state, p->in_port, p->prio));
}

/* Stage (the forwarding entry fetched): the output port's lines. (A NIC
 * pulling reads its QP's line only: the message's PSN range is in it.) */
NET_WARM_INLINE void net_warm_output(const struct net *n, const struct event *e) {
    const struct packet *p = net_warm_forwarded(n, e);
    if (!p) return;
    uint32_t sw = n->ports[e->arg].peer_node;
    uint32_t out =
        n->route_fast & ROUTE_FAST_ECMP ? ecmp_guess_inline(n, sw, p) : n->route->guess(n, sw, p);
    if (out != NET_NONE) net_warm_lines(&n->ports[out]);
}

/* The warm-up that pays at this size (docs/performance.md "Cache warm-up"):
 * none while the ports fit in a core's L2 (2 MiB here: 128 hosts run at
 * 187-203 ns per link-hop with or without, and the prefetches cost 3 % more
 * instructions), then ports and packets, and from 4 MiB of ports (3,456
 * hosts and up) also the switches' tables and output ports where the
 * routing policy can say which: below that the output port is mostly still
 * cached and those two stages cost more than they save (1,024 hosts: ~5 %
 * faster without them; docs/performance.md "ECMP inline, the warm-up by
 * size"). n->warm forces a mode (tests). Both event loops ask (model/model.c,
 * par/par.c). */
#define NET_WARM_MIN_PORT_BYTES (1u << 20)
#define NET_WARM_MIN_ROUTED_PORT_BYTES (4u << 20)

static inline enum net_warm_mode net_warm_mode(const struct net *n) {
    enum net_warm_mode w = (enum net_warm_mode)n->warm;
    if (w == NET_WARM_AUTO) {
        uint64_t bytes = (uint64_t)n->nports * sizeof *n->ports;
        w = bytes < NET_WARM_MIN_PORT_BYTES          ? NET_WARM_OFF
            : bytes < NET_WARM_MIN_ROUTED_PORT_BYTES ? NET_WARM_PORTS
                                                     : NET_WARM_ROUTED;
    }
    if (w == NET_WARM_ROUTED && !(n->route->warm && n->route->guess)) w = NET_WARM_PORTS;
    return w;
}

static inline uint32_t net_warm_min(uint32_t a, uint32_t b) {
    return a < b ? a : b;
}

/* Stage (the packet fetched): the forwarding entry an arrival at a switch
 * will read (route_ops.warm; ECMP's inline), nothing else. */
NET_WARM_INLINE void net_warm_fib(const struct net *n, const struct event *e) {
    const struct packet *p = net_warm_forwarded(n, e);
    if (p) net_warm_route(n, n->ports[e->arg].peer_node, p);
}

/* Ports, packets and forwarding entries: every routing policy (the entry
 * where route_ops has `warm`). Before an event, with next[0..) the events
 * after it in the bucket: the port of next[3], the packet of next[2], the
 * forwarding entry of next[1], each stage reading what the one before
 * fetched one event earlier; the output port is left to the handler (at
 * 1,024 hosts fetching it too, through route_ops.guess, cost more than it
 * saved: docs/performance.md "ECMP inline, the warm-up by size"). At a
 * bucket's start the pipeline is filled stage by stage. */
NET_WARM_INLINE void net_warm(const void *model, const struct event *next, uint32_t ahead,
                              bool start) {
    const struct net *n = model;
    if (start) {
        for (uint32_t i = 0; i < net_warm_min(ahead, 4); i++)
            net_warm_port(n, &next[i]);
        for (uint32_t i = 0; i < net_warm_min(ahead, 3); i++)
            net_warm_packet(n, &next[i]);
        for (uint32_t i = 0; i < net_warm_min(ahead, 2); i++)
            net_warm_fib(n, &next[i]);
        return;
    }
    if (ahead > 3) net_warm_port(n, &next[3]);
    if (ahead > 2) net_warm_packet(n, &next[2]);
    if (ahead > 1) net_warm_fib(n, &next[1]);
}

/* Also the switch's tables and the output port: policies with route_ops
 * warm and guess. Before an event: the port of next[3], the packets of
 * next[2], the tables of next[1], the output port of next[0], each stage
 * reading what the one before fetched one event earlier. At a bucket's
 * start the pipeline is filled stage by stage, so that each stage's loads
 * for the first events overlap instead of each event's chain of misses
 * coming in turn. */
NET_WARM_INLINE void net_warm_routed(const void *model, const struct event *next, uint32_t ahead,
                                     bool start) {
    const struct net *n = model;
    if (start) {
        uint32_t m = net_warm_min(ahead, 4);
        for (uint32_t i = 0; i < m; i++)
            net_warm_port(n, &next[i]);
        for (uint32_t i = 0; i < net_warm_min(m, 3); i++)
            net_warm_packet(n, &next[i]);
        for (uint32_t i = 0; i < net_warm_min(m, 2); i++)
            net_warm_tables(n, &next[i]);
        if (m > 0) net_warm_output(n, &next[0]);
        return;
    }
    if (ahead > 3) net_warm_port(n, &next[3]);
    if (ahead > 2) net_warm_packet(n, &next[2]);
    if (ahead > 1) net_warm_tables(n, &next[1]);
    if (ahead > 0) net_warm_output(n, &next[0]);
}

#endif /* FABSIM_NET_WARM_H */

/* src/net/nic_warm.h
 *
 * The NIC's part of the event loop's cache warm-up (net/warm.h): what a
 * host's packet events will read in nic.c, fetched ahead in stages, each
 * reading only what the stage before fetched one event earlier. Hints only:
 * nothing here writes, so no result can depend on it.
 *
 * A host's transmitter wake with its queues empty pulls from the NIC
 * (nic_pull): the NIC's ring of active QPs (struct nic), its head QP, that
 * QP's current message. A packet arriving at a host (nic_rx) reads its QP
 * (the receiver's fields for data, the sender's for an ACK) and, for an
 * ACK, the oldest unacknowledged message (ack_upto). Each is a load that
 * depends on the one before: stage 1 needs the port's line 0, stage 2 what
 * stage 1 fetched (and the arrival's packet), stage 3 what stage 2 fetched.
 * Not wired yet: net/warm.h's routed pipeline would call nic_warm_1 with
 * its packet stage, nic_warm_2 with its tables stage and nic_warm_3 with
 * its output stage (docs/performance.md "Crowded buckets": 1.6-2.4 % less
 * CPU on the 1,024-rank AllReduce).
 */
#ifndef FABSIM_NET_NIC_WARM_H
#define FABSIM_NET_NIC_WARM_H

#include "core/evq.h"
#include "net/net.h"
#include "net/packet.h"

#define NIC_WARM_INLINE static inline __attribute__((always_inline))

/* The NIC a packet event will run at: the port's owner for a wake, the far
 * end for an arrival; NULL when that is a switch (or for other events). */
NIC_WARM_INLINE const struct nic *nic_warm_nic_of(const struct net *n, const struct event *e) {
    if (e->kind > NET_EV_PORT_WAKE) return NULL;
    const struct port *pt = &n->ports[e->arg];
    if (e->kind == NET_EV_PORT_WAKE) return pt->is_host ? &n->nics[n->nodes[pt->node].index] : NULL;
    if (pt->peer_is_switch) return NULL;
    return &n->nics[n->nodes[pt->peer_node].index];
}

/* A QP's 120 bytes span two lines. */
NIC_WARM_INLINE void nic_warm_qp_lines(const struct net *n, uint32_t qp) {
    const char *l = (const char *)&n->qps[qp];
    __builtin_prefetch(l);
    __builtin_prefetch(l + sizeof(struct qp) - 1);
}

/* The QP the event will read: the NIC's head QP for a wake, the arriving
 * packet's for an arrival (the packet fetched); NET_NONE if none. */
NIC_WARM_INLINE uint32_t nic_warm_qp_of(const struct net *n, const struct event *e,
                                        const struct nic *c) {
    if (e->kind == NET_EV_PORT_WAKE) return c->rr_head;
    const struct port *pt = &n->ports[e->arg];
    if (pt->fly_head == PKT_NONE) return NET_NONE;
    const struct packet *p = &n->pool.base[pt->fly_head];
    return p->type == PKT_DATA || p->type == PKT_ACK || p->type == PKT_NAK ? p->qp : NET_NONE;
}

/* Stage 1 (the port's line 0 fetched): the NIC. */
NIC_WARM_INLINE void nic_warm_1(const struct net *n, const struct event *e) {
    const struct nic *c = nic_warm_nic_of(n, e);
    if (c) __builtin_prefetch(c);
}

/* Stage 2 (the NIC and the arrival's packet fetched): the QP's lines. */
NIC_WARM_INLINE void nic_warm_2(const struct net *n, const struct event *e) {
    const struct nic *c = nic_warm_nic_of(n, e);
    if (!c) return;
    uint32_t qp = nic_warm_qp_of(n, e, c);
    if (qp != NET_NONE) nic_warm_qp_lines(n, qp);
}

/* Stage 3 (the QP fetched): the message the sender reads, the one being
 * sent for a wake, the oldest unacknowledged for an ACK. */
NIC_WARM_INLINE void nic_warm_3(const struct net *n, const struct event *e) {
    const struct nic *c = nic_warm_nic_of(n, e);
    if (!c) return;
    uint32_t qp = nic_warm_qp_of(n, e, c);
    if (qp == NET_NONE) return;
    const struct qp *q = &n->qps[qp];
    uint32_t m = e->kind == NET_EV_PORT_WAKE ? q->cur_msg : q->una_msg;
    if (m == NET_NONE) return;
    if (e->kind != NET_EV_PORT_WAKE &&
        n->pool.base[n->ports[e->arg].fly_head].type == PKT_DATA) /* the receiver: no message */
        return;
    __builtin_prefetch(&n->msgs[m]);
}

#endif /* FABSIM_NET_NIC_WARM_H */

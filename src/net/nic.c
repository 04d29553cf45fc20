#include "net/nic.h"

#include "cc/cc.h"
#include "net/params.h"
#include "core/diag.h"
#include "core/mem.h"
#include "flowctl/flowctl.h"
#include "flowctl/pfc-inl.h"
#include "net/net.h"
#include "net/port.h"
#include "net/reorder.h"
#include "xport/xport.h"

#include <string.h>

void nic_init(struct net *n) {
    free(n->nics);
    n->nics = fs_xcalloc(n->nhosts, sizeof *n->nics);
    for (uint32_t h = 0; h < n->nhosts; h++) {
        struct nic *c = &n->nics[h];
        c->node = n->host_node[h];
        c->rr_head = c->rr_tail = NET_NONE;
        c->wake_at_ps = SIM_TIME_NEVER;
        c->timer_at_ps = SIM_TIME_NEVER;
        c->qp_head = NET_NONE;
        c->held_head = c->held_tail = PKT_NONE;
    }
}

uint32_t nic_port(const struct net *n, uint32_t node) {
    return n->nodes[node].first_port;
}

/* A GPU endpoint (topo: gpus_per_host > 1) has its NIC on port 0 and its
 * NVLink on port 1: traffic to a GPU of the same host takes the NVLink. */
uint32_t nic_port_to(const struct net *n, uint32_t node, uint32_t dst) {
    const struct node *a = &n->nodes[node];
    if (a->nports < 2) return a->first_port;
    const struct node *b = &n->nodes[dst];
    uint32_t nvs = n->ports[n->ports[a->first_port + 1].peer].node;
    if (b->kind == NODE_HOST && b->nports > 1 &&
        n->ports[n->ports[b->first_port + 1].peer].node == nvs)
        return a->first_port + 1;
    return a->first_port;
}

static struct nic *nic_of(struct net *n, uint32_t node) {
    return &n->nics[n->nodes[node].index];
}

static void ring_push(struct net *n, struct nic *c, uint32_t qp) {
    n->qps[qp].rr_next = NET_NONE;
    if (c->rr_tail == NET_NONE)
        c->rr_head = qp;
    else
        n->qps[c->rr_tail].rr_next = qp;
    c->rr_tail = qp;
}

static uint32_t ring_pop(struct net *n, struct nic *c) {
    uint32_t qp = c->rr_head;
    if (qp == NET_NONE) return qp;
    c->rr_head = n->qps[qp].rr_next;
    if (c->rr_head == NET_NONE) c->rr_tail = NET_NONE;
    return qp;
}

static bool sr_pending(struct net *n, const struct qp *q, uint32_t qp);

void nic_activate(struct net *n, uint32_t qp) {
    struct qp *q = &n->qps[qp];
    if (!q->active && (q->next_psn < q->posted_pkts || sr_pending(n, q, qp))) {
        q->active = 1;
        ring_push(n, nic_of(n, q->src), qp);
    }
    port_kick(n, nic_port_to(n, q->src, q->dst));
}

/* The message that `psn` falls in, searching from the oldest unacknowledged. */
static uint32_t seek_msg(struct net *n, const struct qp *q, uint32_t psn) {
    uint32_t m = q->una_msg;
    while (m != NET_NONE && n->msgs[m].first_psn + n->msgs[m].npkts <= psn)
        m = n->msgs[m].next;
    return m;
}

/* The QP's retransmission timeout: the one `timeout` of rto iba and fixed;
 * with rto adaptive its own time_base x 2^rto_exp, capped by `timeout` (the
 * QP's ack_timeout caps every range: sources.md A12). */
static sim_time_ps rto_of(const struct net *n, const struct qp *q) {
    if (!n->rto_adaptive) return n->rto_ps;
    uint64_t base = n->sc->fabric.transport.adp.time_base_ps;
    uint32_t g = q->rto_exp < 40 ? q->rto_exp : 40;
    return base << g < n->rto_ps && base << g >> g == base ? base << g : n->rto_ps;
}

/* Retransmission timers are nearly always re-armed by an ACK before they
 * expire, so they stay off the event queue (DESIGN.md "Speed"): a NIC keeps
 * one pending event, at or before its QPs' earliest deadline. With one
 * timeout for every QP a new deadline (now + rto) is never earlier than a
 * pending one and needs no event of its own; adaptive timeouts differ per
 * QP, so a deadline before the pending event gets an earlier event (the
 * later one is then stale: nic_on_qp_timer skips it). */
static void timer_cover(struct net *n, const struct qp *q) {
    struct nic *c = nic_of(n, q->src);
    if (q->rto_deadline_ps < c->timer_at_ps) {
        c->timer_at_ps = q->rto_deadline_ps;
        sim_at(n->sim, q->rto_deadline_ps, q->src + 1, NET_EV_QP_TIMER, q->src, 0);
    }
}

static void arm_timer(struct net *n, uint32_t qp) {
    struct qp *q = &n->qps[qp];
    q->rto_deadline_ps = n->sim->now_ps + rto_of(n, q);
    timer_cover(n, q);
}

/* Adaptive retransmission after a timeout without progress (sources.md A12):
 * the first timeout leaves the random initial value (used once) for the
 * range, entering at that value if it lies in the range, else at its low
 * bound; the entry value serves range_retries timeouts, then each timeout
 * doubles it up to the range's top. */
static void adp_on_timeout(const struct adp_params *a, struct qp *q) {
    uint32_t hi = a->range_low + a->range_size;
    if (!(q->rto_uses & QP_RTO_IN_RANGE)) {
        q->rto_uses = QP_RTO_IN_RANGE;
        if (q->rto_exp < a->range_low || q->rto_exp > hi) q->rto_exp = (uint8_t)a->range_low;
        return;
    }
    uint8_t uses = (uint8_t)(q->rto_uses & ~QP_RTO_IN_RANGE);
    if (uses < 0x7f) uses++;
    q->rto_uses = (uint8_t)(QP_RTO_IN_RANGE | uses);
    if (uses >= a->range_retries && q->rto_exp < hi) q->rto_exp++;
}

/* ...and after forward progress: dec_mode halves, quarters or resets the
 * timeout, never below the range's low bound. */
static void adp_on_progress(const struct adp_params *a, struct qp *q) {
    if (!(q->rto_uses & QP_RTO_IN_RANGE)) return;
    uint32_t g = q->rto_exp, step = a->dec == ADP_DEC_HALVE ? 1 : a->dec == ADP_DEC_QUARTER ? 2 : g;
    g = g >= a->range_low + step ? g - step : a->range_low;
    q->rto_exp = (uint8_t)g;
    q->rto_uses = QP_RTO_IN_RANGE;
}

/* Selective repeat (sources.md A12, IRN): per QP, the holes the receiver
 * NAKed that the sender has still to resend, a small ring of PSN ranges
 * (merged into the last one when full), and on the receiving side the
 * highest PSN seen + 1, so that each hole is NAKed once. */
#define SR_RANGES 6
/* With per-packet SACKs (n->sack, UET) every trimmed packet is its own
 * range: the ring holds more of them before it merges. */
#define SR_RANGES_SACK 64
#define SR_CAP(n) ((n)->sack ? SR_RANGES_SACK : SR_RANGES)
struct sr_qp {
    uint32_t rcv_hi;    /* receiver: one past the highest PSN arrived */
    uint32_t head, len; /* sender: ring of ranges [a, b) to resend */
    /* go-back-N out-of-order receiver (rx_hole_*): the PSN of the oldest
     * hole, when it became the oldest, the QP's pending hole-timer event
     * (0 = none) */
    uint32_t hole_psn;
    uint8_t hole_open;
    sim_time_ps hole_ps, hole_timer_ps;
    struct {
        uint32_t a, b;
    } r[SR_RANGES_SACK];
};

static struct sr_qp *sr_of(struct net *n, uint32_t qp) {
    if (qp >= n->sr_cap) {
        size_t old = n->sr_cap;
        fs_grow(&n->sr_state, &n->sr_cap, (size_t)n->nqps > (size_t)qp + 1 ? n->nqps : qp + 1,
                sizeof(struct sr_qp));
        memset((struct sr_qp *)n->sr_state + old, 0, (n->sr_cap - old) * sizeof(struct sr_qp));
    }
    return (struct sr_qp *)n->sr_state + qp;
}

static void sr_add(struct net *n, uint32_t qp, uint32_t a, uint32_t b) {
    struct sr_qp *s = sr_of(n, qp);
    if (a >= b) return;
    uint32_t cap = SR_CAP(n);
    if (s->len == cap) { /* full: the newest range grows to cover this one */
        uint32_t last = (s->head + s->len - 1) % cap;
        if (b > s->r[last].b) s->r[last].b = b;
        return;
    }
    uint32_t i = (s->head + s->len++) % cap;
    s->r[i].a = a;
    s->r[i].b = b;
}

/* The next hole PSN to resend, skipping what an ACK has covered since; NET_NONE if none. */
static uint32_t sr_next(struct net *n, const struct qp *q, uint32_t qp) {
    if (qp >= n->sr_cap) return NET_NONE;
    struct sr_qp *s = (struct sr_qp *)n->sr_state + qp;
    while (s->len) {
        if (s->r[s->head].a < q->una) s->r[s->head].a = q->una;
        if (s->r[s->head].a < s->r[s->head].b && s->r[s->head].a < q->max_sent_psn)
            return s->r[s->head].a;
        s->head = (s->head + 1) % SR_CAP(n);
        s->len--;
    }
    return NET_NONE;
}

/* The next PSN to resend: the transport's own per-packet set when it keeps
 * one (UET: NAKs of sprayed packets arrive in any PSN order, which a ring
 * of ranges merged when full would lose, xport.h next_resend), else the
 * ring of NAKed ranges. */
static uint32_t resend_next(struct net *n, const struct qp *q, uint32_t qp) {
    if (n->xp && n->xp->next_resend) return n->xp->next_resend(n, qp);
    return sr_next(n, q, qp);
}

static bool sr_pending(struct net *n, const struct qp *q, uint32_t qp) {
    return n->selective && resend_next(n, q, qp) != NET_NONE;
}

static void schedule_nic_wake(struct net *n, struct nic *c, sim_time_ps at) {
    if (c->wake_at_ps <= at) return;
    c->wake_at_ps = at;
    sim_at(n->sim, at, c->node + 1, NET_EV_NIC_WAKE, c->node, 0);
}

uint32_t nic_pull(struct net *n, uint32_t node, uint32_t port) {
    struct nic *c = nic_of(n, node);
    sim_time_ps now = n->sim->now_ps, wake = SIM_TIME_NEVER;
    uint32_t qp;
    /* Visit each active QP at most once: QPs that may not send yet (rate
     * limited) go to the back of the ring with their time noted. */
    uint32_t limit = UINT32_MAX;
    while ((qp = ring_pop(n, c)) != NET_NONE) {
        struct qp *q = &n->qps[qp];
        /* selective repeat: NAKed holes go before new data */
        uint32_t hole = n->selective ? resend_next(n, q, qp) : NET_NONE;
        if ((q->next_psn >= q->posted_pkts && hole == NET_NONE) || q->error) {
            q->active = 0;
            continue;
        }
        if (limit == UINT32_MAX)
            limit = qp;
        else if (qp == limit) {
            ring_push(n, c, qp); /* went round once */
            break;
        }
        if (n->nodes[node].nports > 1 && nic_port_to(n, node, q->dst) != port) {
            ring_push(n, c, qp); /* leaves through the other port */
            continue;
        }
        sim_time_ps t = n->cc->send_time(n, qp);
        if (t > now) {
            if (t < wake) wake = t;
            ring_push(n, c, qp);
            continue;
        }
        /* the message's PSN range and last payload from the QP's line (net_qp_set_cur) */
        uint32_t psn = q->next_psn, msg = q->cur_msg;
        bool first = psn == q->cur_first_psn, last = psn + 1 == q->cur_end_psn;
        uint32_t payload = last ? q->cur_last_bytes : n->mtu_bytes;
        if (hole != NET_NONE) { /* a resent hole: its own message */
            psn = hole;
            msg = seek_msg(n, q, psn);
            const struct msg *m = &n->msgs[msg];
            first = psn == m->first_psn;
            last = psn + 1 == m->first_psn + m->npkts;
            payload = last ? (uint32_t)(m->size_bytes - (uint64_t)(m->npkts - 1) * n->mtu_bytes)
                           : n->mtu_bytes;
        }
        uint32_t wire = net_data_wire_bytes(n, payload, first);
        uint32_t vl = n->sl2vl[q->prio & 15];
        if ((n->ports[port].fc_hold >> vl & 1u) && !n->fc->can_send(n, port, vl, wire)) {
            /* blocked by link-level flow control: a credit or resume kicks us */
            ring_push(n, c, qp);
            break;
        }
        uint32_t id = pkt_alloc(&n->pool);
        struct packet *p = pkt(&n->pool, id);
        bool retx = psn < q->max_sent_psn;
        /* one store per field, the rest zero (as ctrl_new) */
        *p = (struct packet){
            .next = PKT_NONE,
            .qp = qp,
            .src = q->src,
            .dst = q->dst,
            .psn = psn,
            .payload_bytes = payload,
            .wire_bytes = wire,
            .in_port = NET_NONE,
            .sent_ps = now,
            .aux = msg,
            .flow_hash = q->flow_hash[0],
            .type = PKT_DATA,
            .prio = (uint8_t)vl,
            .flags = (uint16_t)((first ? PKT_F_FIRST : 0) | (last ? PKT_F_LAST : 0) | PKT_F_ECT |
                                (retx ? PKT_F_RETX : 0)),
        };
        if (retx) n->c.retransmitted_packets++;
        if (hole != NET_NONE) {
            if (!(n->xp && n->xp->next_resend)) { /* the transport's set: on_tx_data */
                struct sr_qp *sr = sr_of(n, qp);
                sr->r[sr->head].a++;
            }
        } else {
            q->next_psn++;
            if (q->next_psn > q->max_sent_psn) q->max_sent_psn = q->next_psn;
            if (last) net_qp_set_cur(n, q, n->msgs[q->cur_msg].next);
        }
        if (q->next_psn < q->posted_pkts || sr_pending(n, q, qp))
            ring_push(n, c, qp);
        else
            q->active = 0;
        if (q->rto_deadline_ps == SIM_TIME_NEVER) {
            arm_timer(n, qp);
            if (q->una == p->psn) q->progress_ps = now; /* nothing was outstanding */
        } else if (hole == q->una && n->xp && n->xp->next_resend) {
            /* Per-packet timers (UET PDS; htsim startRTO from the oldest
             * outstanding send time): the oldest packet, NAKed and resent
             * just now, is waited for from now. A QP timer kept from the last
             * cumulative ACK fired on a packet trimmed again and again, each
             * time NAKed and resent, and went back N for nothing. */
            arm_timer(n, qp);
        }
        n->c.packets_sent++;
        n->pkts_in_flight++;
        if (n->xp) n->xp->on_tx_data(n, qp, p); /* entropy (xport/uet.c) */
        if (n->cc->on_sent) n->cc->on_sent(n, qp, p);
        return id;
    }
    if (wake != SIM_TIME_NEVER) schedule_nic_wake(n, c, wake);
    return PKT_NONE;
}

static inline __attribute__((always_inline)) uint32_t
ctrl_new(struct net *n, uint32_t node, uint32_t qp, uint8_t type, uint32_t aux) {
    const struct qp *q = &n->qps[qp];
    uint32_t id = pkt_alloc(&n->pool);
    bool back = node == q->dst; /* the receiver answers its sender */
    /* one store per field, the rest zero (what a memset and the field
     * stores did); an ACK's size inline, the others' from net.c */
    *pkt(&n->pool, id) = (struct packet){
        .qp = qp,
        .src = node,
        .dst = back ? q->src : q->dst,
        .wire_bytes =
            type == PKT_ACK ? net_ack_wire_bytes(n) : net_ctrl_wire_bytes(n, (enum pkt_type)type),
        .in_port = NET_NONE,
        .sent_ps = n->sim->now_ps,
        .aux = aux,
        .flow_hash = q->flow_hash[back ? 1 : 0],
        .type = type,
        .prio = n->sl2vl[q->prio & 15],
    };
    return id;
}

static inline __attribute__((always_inline)) void ctrl_send(struct net *n, uint32_t node,
                                                            uint32_t id) {
    struct packet *p = pkt(&n->pool, id);
    uint8_t type = p->type;
    n->c.packets_sent++;
    n->pkts_in_flight++;
    if (n->sack) {
        /* UET: ACKs, NAKs and credit grants in the strict-priority class
         * (docs/sources.md U3: htsim sends control packets and trimmed
         * headers at high priority), delay samples free of data queues. */
        p->flags |= PKT_F_CNP_CLASS;
        port_enqueue_ctrl(n, nic_port_to(n, node, p->dst), id);
        return;
    }
    const struct dcqcn_params *dp = &n->sc->fabric.dcqcn;
    if (type == PKT_CNP && dp->cnp_class == DCQCN_CNP_STRICT && n->sc->fabric.kind == FABRIC_ROCE) {
        /* CNPs on their own strict-priority class, not PFC-enabled
         * (cnp_802p_prio 6, cnp_dscp 48: docs/sources.md A6, A12). */
        p->flags |= PKT_F_CNP_CLASS;
        p->prio = (uint8_t)dp->cnp_802p_prio;
        port_enqueue_ctrl(n, nic_port_to(n, node, p->dst), id);
        return;
    }
    /* one port (the common NIC): no call to choose it */
    const struct node *a = &n->nodes[node];
    port_enqueue(n, a->nports < 2 ? a->first_port : nic_port_to(n, node, p->dst), p->prio, id);
}

void nic_send_ctrl(struct net *n, uint32_t node, uint32_t qp, uint8_t type, uint32_t aux) {
    ctrl_send(n, node, ctrl_new(n, node, qp, type, aux));
}

void nic_send_ctrl_via(struct net *n, uint32_t node, uint32_t qp, uint8_t type, uint32_t aux,
                       uint32_t flow_hash) {
    uint32_t id = ctrl_new(n, node, qp, type, aux);
    pkt(&n->pool, id)->flow_hash = flow_hash;
    ctrl_send(n, node, id);
}

static void msg_acked(struct net *n, uint32_t mid) {
    struct msg *m = &n->msgs[mid];
    m->acked_ps = n->sim->now_ps;
    if (m->flow >= 0) {
        struct flow_row *f = &n->flows[m->flow];
        if (m->recv_ps > f->end_ps) f->end_ps = m->recv_ps;
        f->msgs_left--;
    }
    if (n->on_msg_done) n->on_msg_done(n, mid);
    /* received before it was acknowledged (RC: the receiver ACKs what it
     * took), so every hook has seen it: the slot can go */
    net_msg_release(n, mid);
    net_work_done(n);
}

/* Cumulative acknowledgement of every PSN below `a`. */
static inline __attribute__((always_inline)) void ack_upto(struct net *n, uint32_t qp, uint32_t a) {
    struct qp *q = &n->qps[qp];
    if (a <= q->una) return;
    q->una = a;
    /* Forward progress resets the retry counter (IBA 9.7.6.1.3); a span
     * without progress that needed a timeout is the QP's stall. */
    if (q->retries) {
        sim_time_ps span = n->sim->now_ps - q->progress_ps;
        if (span > q->stall_max_ps) {
            q->stall_max_ps = span;
            q->stall_from_ps = q->progress_ps;
        }
        q->retries = 0;
    }
    if (n->rto_adaptive) adp_on_progress(&n->sc->fabric.transport.adp, q);
    q->progress_ps = n->sim->now_ps;
    while (q->una_msg != NET_NONE && q->una_end_psn <= a) {
        uint32_t mid = q->una_msg;
        net_qp_set_una(n, q, n->msgs[mid].next);
        msg_acked(n, mid);
    }
    if (q->next_psn < a) { /* acknowledged beyond what we were about to resend */
        q->next_psn = a;
        net_qp_set_cur(n, q, seek_msg(n, q, a));
    }
    if (q->una >= q->max_sent_psn) {
        q->rto_deadline_ps = SIM_TIME_NEVER;
    } else {
        q->rto_deadline_ps = n->sim->now_ps + rto_of(n, q);
        if (n->rto_adaptive) timer_cover(n, q);
    }
}

/* Go back to `psn` (go-back-N), or to its message's first packet (go-back-0). */
static void go_back(struct net *n, uint32_t qp, uint32_t psn) {
    struct qp *q = &n->qps[qp];
    uint32_t m = seek_msg(n, q, psn);
    if (m == NET_NONE) return;
    if (n->go_back_0) psn = n->msgs[m].first_psn;
    if (psn < q->next_psn) {
        q->next_psn = psn;
        net_qp_set_cur(n, q, m);
    }
    nic_activate(n, qp);
}

/* A selective-repeat NAK names the hole [a, b): aux = a, psn = b. It acknowledges
 * nothing (an earlier hole may still be open); cumulative ACKs go as usual. */
static void nak_hole(struct net *n, uint32_t node, uint32_t qp, uint32_t a, uint32_t b) {
    uint32_t id = ctrl_new(n, node, qp, PKT_NAK, a);
    pkt(&n->pool, id)->psn = b;
    ctrl_send(n, node, id);
}

/* A per-packet SACK or NAK takes a path of its data packet's entropy (UET:
 * the reply carries the EV back), so that replies spray too and a path the
 * sender moves off is left by both directions. */
static uint32_t sack_hash(const struct packet *d) {
    return (uint32_t)flow_fmix64((uint64_t)d->flow_hash ^ 0xa5a5a5a5a5a5a5a5ull);
}

/* Acknowledges data packet `d` with cumulative `cum`: a plain ACK, or with
 * n->sack the per-packet SACK whose fields packet.h describes (PKT_ACK_ECHO). */
static void ack_data(struct net *n, uint32_t node, const struct packet *d, uint32_t cum) {
    if (!n->sack) {
        nic_send_ctrl(n, node, d->qp, PKT_ACK, cum);
        return;
    }
    uint32_t id = ctrl_new(n, node, d->qp, PKT_ACK, cum);
    struct packet *a = pkt(&n->pool, id);
    a->flow_hash = sack_hash(d);
    a->psn = d->psn;
    a->sent_ps = d->sent_ps;
    a->payload_bytes = PKT_ACK_ECHO(0, d->wire_bytes);
    a->flags |= d->flags & PKT_F_ECN_CE;
    ctrl_send(n, node, id);
}

/* A trimmed header arrived (net/trim.c): NAK it at once for a fast
 * retransmission without a timeout. Selective repeat NAKs its PSN alone;
 * go-back-N NAKs the expected PSN, once. The NAK echoes the
 * header's send time and original size and carries PKT_F_TRIMMED. */
static void rx_trimmed(struct net *n, uint32_t node, struct packet *p) {
    struct qp *q = &n->qps[p->qp];
    if (p->psn < q->expect_psn) { /* a copy of what already arrived */
        ack_data(n, node, p, q->expect_psn);
        return;
    }
    uint32_t a = p->psn, b = p->psn + 1;
    if (!n->selective) {
        /* one NAK per gap, but a resent head trimmed again needs another */
        if (q->nak_sent && p->psn != q->expect_psn) {
            ack_data(n, node, p, q->expect_psn); /* discarded: tell the window */
            return;
        }
        q->nak_sent = 1;
        a = q->expect_psn;
    }
    n->c.trim_naks++;
    uint32_t id = ctrl_new(n, node, p->qp, PKT_NAK, a);
    struct packet *k = pkt(&n->pool, id);
    k->flow_hash = sack_hash(p);
    k->psn = b;
    k->sent_ps = p->sent_ps;
    k->payload_bytes =
        PKT_ACK_ECHO(0, net_data_wire_bytes(n, p->payload_bytes, p->flags & PKT_F_FIRST));
    k->flags |= PKT_F_TRIMMED;
    if (p->flags & PKT_F_TRIM_LAST) k->flags |= PKT_F_LAST; /* trimmed at the last hop */
    ctrl_send(n, node, id);
}

/* The QP's out-of-order bitmap: bit i = PSN expect_psn + 1 + i arrived
 * (a window that slides with expect_psn, stored as a ring indexed by PSN). */
static uint64_t *ooo_bits(struct net *n, uint32_t qp) {
    size_t words = n->ooo_window / 64, need = (size_t)n->nqps * words;
    if (need > n->ooo_cap) {
        size_t old = n->ooo_cap;
        fs_grow((void **)&n->ooo_bits, &n->ooo_cap, need, sizeof *n->ooo_bits);
        memset(n->ooo_bits + old, 0, (n->ooo_cap - old) * sizeof *n->ooo_bits);
    }
    return n->ooo_bits + (size_t)qp * words;
}

static bool ooo_test_clear(uint64_t *b, uint32_t w, uint32_t psn) {
    uint32_t i = psn % w;
    bool set = (b[i / 64] >> (i % 64)) & 1;
    b[i / 64] &= ~(1ull << (i % 64));
    return set;
}

/* The hole timer of a go-back-N out-of-order receiver (docs/sources.md A11,
 * docs/model.md "Adaptive routing"): ConnectX places early packets and, for
 * the PSNs missing before them, arms a timer; a hole that has not filled when
 * it expires is NAKed (a sequence-error NAK: the sender goes back to it), one
 * that fills stops it, and a hole that moves on (its first PSN arrived, later
 * ones still missing) restarts it. Reordering alone never NAKs unless a path
 * is reorder_timeout slower than another; a PSN lost in flight is resent after
 * that timeout instead of the RC ACK timeout. One pending event per QP at
 * most, at or before the open hole's deadline (the handler re-arms). */
/* fabric.reorder_timeout: auto is NIC_REORDER_DRAINS times the time a
 * switch port's buffer takes to drain at the link rate. Two paths' delays
 * differ by at most what their queues hold, so a timer of several drains
 * outlasts reordering (docs/model.md; measured skews were up to about one
 * drain) while it stays far below the ACK timeout. */
#define NIC_REORDER_DRAINS 4
static sim_time_ps reorder_timeout(const struct net *n) {
    const struct fabric_params *f = &n->sc->fabric;
    if (f->reorder_timeout_ps) return f->reorder_timeout_ps;
    double drain_ps = (double)f->buffer_bytes * 8.0 * 1e12 / (double)f->link_bps;
    return (sim_time_ps)(NIC_REORDER_DRAINS * drain_ps + 0.5);
}

static void rx_hole_arm(struct net *n, uint32_t qp, struct sr_qp *sr) {
    if (sr->hole_timer_ps) return; /* pending, no later than hole_ps + T */
    sr->hole_timer_ps = sr->hole_ps + reorder_timeout(n);
    sim_at(n->sim, sr->hole_timer_ps, n->qps[qp].dst + 1, NET_EV_QP_TIMER, qp, 1);
}

/* After packet `psn` of `qp` was taken (placed early, or the expected one
 * with the expected PSN advanced past it and what followed): open, move or
 * close the hole. */
static void rx_hole_update(struct net *n, uint32_t qp, uint32_t psn) {
    struct sr_qp *sr = sr_of(n, qp);
    const struct qp *q = &n->qps[qp];
    if (psn + 1 > sr->rcv_hi) sr->rcv_hi = psn + 1;
    if (sr->rcv_hi <= q->expect_psn) { /* nothing missing */
        sr->hole_open = 0;
        return;
    }
    if (sr->hole_open && sr->hole_psn == q->expect_psn) return; /* the same hole */
    sr->hole_open = 1;
    sr->hole_psn = q->expect_psn;
    sr->hole_ps = n->sim->now_ps;
    rx_hole_arm(n, qp, sr);
}

/* The hole timer of `qp` fired (NET_EV_QP_TIMER with aux 1, at the receiver). */
static void rx_hole_timer(struct net *n, uint32_t qp) {
    struct sr_qp *sr = sr_of(n, qp);
    struct qp *q = &n->qps[qp];
    sr->hole_timer_ps = 0;
    if (!sr->hole_open || q->expect_psn != sr->hole_psn) return;
    if (n->sim->now_ps < sr->hole_ps + reorder_timeout(n)) {
        rx_hole_arm(n, qp, sr); /* the hole moved on since this event was set */
        return;
    }
    /* one NAK outstanding per QP (IBA 9.7.5.1): a lost NAK or resend is the
     * sender's ACK timeout's to recover */
    if (q->nak_sent) return;
    q->nak_sent = 1;
    n->c.ooo_naks++;
    nic_send_ctrl(n, q->dst, qp, PKT_NAK, q->expect_psn);
}

/* Adaptive routing delivers out of order (docs/sources.md A10: "per-packet ->
 * out-of-order delivery handled by NIC"): keep PSNs within the window beyond
 * the expected one, advance over them when the gap fills, ACK cumulatively.
 * A PSN beyond the window is treated as loss (go-back-N NAK). */
static void rx_data_ooo(struct net *n, uint32_t node, struct packet *p) {
    struct qp *q = &n->qps[p->qp];
    uint32_t W = n->ooo_window;
    uint64_t *b = ooo_bits(n, p->qp);
    bool hole_timer = !n->selective && n->sc->fabric.reorder_timeout_ps != SIM_TIME_NEVER;
    if (p->psn < q->expect_psn) {
        ack_data(n, node, p, q->expect_psn); /* duplicate */
        return;
    }
    /* the message's PSN range is what completes it below (on several ranks
     * numbered apart from the posting: coll.c launch) */
    FS_DASSERT(p->psn - n->msgs[p->aux].first_psn < n->msgs[p->aux].npkts,
               "PSN %u outside its message %u's range (first %u, %u packets)", p->psn, p->aux,
               n->msgs[p->aux].first_psn, n->msgs[p->aux].npkts);
    if (n->selective && !n->sack) {
        /* IRN-style: a packet beyond the highest seen reveals the hole
         * before it; NAK that hole once, with its end in the NAK's psn.
         * With per-packet SACKs (UET) packets sprayed over paths arrive out
         * of order without loss: only a trim is NAKed, a real loss waits
         * for the retransmission timer (docs/model.md "Ultra Ethernet"). */
        struct sr_qp *sr = sr_of(n, p->qp);
        uint32_t from = sr->rcv_hi > q->expect_psn ? sr->rcv_hi : q->expect_psn;
        /* beyond the window the packet itself is discarded: part of the hole */
        uint32_t to = p->psn + (p->psn >= q->expect_psn + W);
        if (to > from) nak_hole(n, node, p->qp, from, to);
        if (p->psn + 1 > sr->rcv_hi) sr->rcv_hi = p->psn + 1;
    }
    if (p->psn >= q->expect_psn + W) {
        if (!q->nak_sent && !n->selective) {
            q->nak_sent = 1;
            nic_send_ctrl(n, node, p->qp, PKT_NAK, q->expect_psn);
        }
        if (n->sack) ack_data(n, node, p, q->expect_psn);
        return; /* beyond the window: discarded */
    }
    if (p->psn > q->expect_psn) {
        uint32_t i = p->psn % W;
        if (!((b[i / 64] >> (i % 64)) & 1)) {
            b[i / 64] |= 1ull << (i % 64);
            n->c.bytes_delivered += p->payload_bytes;
            uint64_t depth = (uint64_t)(p->psn - q->expect_psn) * n->mtu_bytes;
            if (depth > n->c.reorder_max_bytes) n->c.reorder_max_bytes = depth;
        }
        if (n->sack) ack_data(n, node, p, q->expect_psn); /* placed: SACK it */
        if (hole_timer) rx_hole_update(n, p->qp, p->psn);
        return;
    }
    /* the expected one: advance over it and whatever arrived beyond it */
    n->c.bytes_delivered += p->payload_bytes;
    uint32_t from = q->expect_psn;
    q->expect_psn++;
    q->since_ack++;
    while (ooo_test_clear(b, W, q->expect_psn)) {
        q->expect_psn++;
        q->since_ack++;
    }
    q->nak_sent = 0;
    if (hole_timer) rx_hole_update(n, p->qp, p->psn);
    bool done_msg = false;
    for (uint32_t m = p->aux; m != NET_NONE;) {
        struct msg *mm = &n->msgs[m];
        if (mm->first_psn + mm->npkts > q->expect_psn || mm->first_psn + mm->npkts <= from) break;
        mm->recv_ps = n->sim->now_ps;
        done_msg = true;
        uint32_t next = mm->next;
        if (n->on_msg_recv) n->on_msg_recv(n, m);
        m = next;
    }
    if (q->since_ack >= n->ack_every || done_msg || n->sack) {
        q->since_ack = 0;
        ack_data(n, node, p, q->expect_psn);
    }
}

/* In-order delivery of one data packet's payload (also called by the
 * reorder buffer, net/reorder.c, when held packets become in order). */
static inline __attribute__((always_inline)) void deliver(struct net *n, uint32_t node, uint32_t qp,
                                                          uint32_t payload_bytes, uint16_t flags,
                                                          uint32_t msg) {
    struct qp *q = &n->qps[qp];
    q->expect_psn++;
    q->nak_sent = 0;
    q->since_ack++;
    n->c.bytes_delivered += payload_bytes;
    bool last = flags & PKT_F_LAST;
    if (last) {
        struct msg *m = &n->msgs[msg];
        FS_ASSERT(!m->freed, "message %u received after its slot was released", msg);
        m->recv_ps = n->sim->now_ps;
        if (n->on_msg_recv) n->on_msg_recv(n, msg);
    }
    if ((q->since_ack >= n->ack_every || last) && !n->sack) { /* sack: rx_data ACKs */
        q->since_ack = 0;
        ctrl_send(n, node,
                  ctrl_new(n, node, qp, PKT_ACK, q->expect_psn)); /* nic_send_ctrl inline */
    }
}

/* deliver's body for the reorder buffer; rx_data has it inline */
void nic_deliver(struct net *n, uint32_t node, uint32_t qp, uint32_t payload_bytes, uint16_t flags,
                 uint32_t msg) {
    deliver(n, node, qp, payload_bytes, flags, msg);
}

static void rx_data(struct net *n, uint32_t node, struct packet *p) {
    struct qp *q = &n->qps[p->qp];
    if (n->cc->on_rx_data) n->cc->on_rx_data(n, p->qp, p);
    if (p->flags & PKT_F_TRIMMED) {
        rx_trimmed(n, node, p);
        return;
    }
    if (n->ooo_window) {
        rx_data_ooo(n, node, p);
        return;
    }
    if (p->psn == q->expect_psn) {
        deliver(n, node, p->qp, p->payload_bytes, p->flags, p->aux); /* nic_deliver inline */
        if (n->reorder_state) nic_reorder_release(n, node, p->qp); /* early packets now in order */
        if (n->sack) ack_data(n, node, p, q->expect_psn);
    } else if (p->psn > q->expect_psn) {
        if (n->reorder_state && nic_reorder_hold(n, node, p))
            return; /* held in the reorder buffer (net/reorder.c) */
        if (!q->nak_sent) {
            q->nak_sent = 1;
            nic_send_ctrl(n, node, p->qp, PKT_NAK, q->expect_psn);
        }
        /* per-packet SACK: the sender's window learns the packet left the network */
        if (n->sack) ack_data(n, node, p, q->expect_psn);
    } else {
        ack_data(n, node, p, q->expect_psn); /* duplicate */
    }
}

static inline __attribute__((always_inline)) void nic_consume(struct net *n, uint32_t node,
                                                              uint32_t port, uint32_t id);

void nic_rx(struct net *n, uint32_t node, uint32_t port, uint32_t id, struct packet *p) {
    if (p->type == PKT_CREDIT || p->type == PKT_PAUSE) {
        if (n->fc->on_ctrl) n->fc->on_ctrl(n, port, p);
        pkt_free(&n->pool, id);
        return;
    }
    if (p->flags & PKT_F_STRICT) {
        /* The NIC's congestion-control hardware takes the CNP whether or not
         * the host drains its receive queues; no PFC class holds it (nor a
         * trimmed header, nor a UET ACK). */
        nic_consume(n, node, port, id);
        return;
    }
    if (n->nodes[node].stalled && n->fc->lossless) {
        /* A lossless NIC that stops draining keeps what fits in its receive
         * buffer and stops freeing space: back-pressure, not drops (credits
         * never overfill it; PFC can, when headroom is short or its
         * watchdog gave up pausing). */
        if (!n->fc->admit(n, port, NET_NONE, p)) {
            port_drop(n, n->ports[port].peer, id);
            return;
        }
        struct nic *c = nic_of(n, node);
        p->next = PKT_NONE;
        p->in_port = port;
        if (c->held_tail == PKT_NONE)
            c->held_head = id;
        else
            pkt(&n->pool, c->held_tail)->next = id;
        c->held_tail = id;
        return;
    }
    /* admit first: a stalled host's NIC still fills its receive buffer (PFC) */
    if (!(n->fc_fast & FLOWCTL_FAST_PFC ? pfc_admit_nic_fast(n, port, p)
                                        : n->fc->admit(n, port, NET_NONE, p)) ||
        n->nodes[node].stalled) {
        port_drop(n, n->ports[port].peer, id);
        return;
    }
    nic_consume(n, node, port, id);
}

void nic_unstall(struct net *n, uint32_t node) {
    struct nic *c = nic_of(n, node);
    while (c->held_head != PKT_NONE && !n->nodes[node].stalled) {
        uint32_t id = c->held_head;
        struct packet *p = pkt(&n->pool, id);
        c->held_head = p->next;
        if (c->held_head == PKT_NONE) c->held_tail = PKT_NONE;
        nic_consume(n, node, p->in_port, id);
    }
    port_kick(n, nic_port(n, node));
}

static inline __attribute__((always_inline)) void nic_consume(struct net *n, uint32_t node,
                                                              uint32_t port, uint32_t id) {
    struct packet *p = pkt(&n->pool, id);
    n->c.packets_delivered++;
    n->pkts_in_flight--;
    switch (p->type) {
    case PKT_DATA:
        rx_data(n, node, p);
        break;
    case PKT_ACK:
        if (n->qps[p->qp].error) break;
        if (n->cc->on_feedback) n->cc->on_feedback(n, p->qp, p);
        if (n->xp) n->xp->on_feedback(n, p->qp, p);
        ack_upto(n, p->qp, p->aux);
        if (n->cc->on_ack) n->cc->on_ack(n, p->qp, p);
        break;
    case PKT_PULL:
        if (!n->qps[p->qp].error && n->cc->on_feedback) n->cc->on_feedback(n, p->qp, p);
        break;
    case PKT_NAK:
        if (n->qps[p->qp].error) break;
        if (n->cc->on_feedback) n->cc->on_feedback(n, p->qp, p);
        if (n->xp) n->xp->on_feedback(n, p->qp, p);
        if (n->selective) { /* resend the hole [aux, psn) alone */
            if (!(n->xp && n->xp->next_resend)) sr_add(n, p->qp, p->aux, p->psn);
            nic_activate(n, p->qp);
            break;
        }
        ack_upto(n, p->qp, p->aux);
        go_back(n, p->qp, p->aux);
        break;
    case PKT_INNET: /* what it means is its registered handler's (net_type_ops) */
        n->type_ops[PKT_INNET]->host_rx(n, node, port, id);
        break;
    case PKT_CNP:
        if (n->cc->on_cnp) n->cc->on_cnp(n, p->qp);
        break;
    default:
        break;
    }
    if (n->fc_fast & FLOWCTL_FAST_PFC)
        pfc_release_nic_fast(n, port, p);
    else if (n->fc->on_release && !(p->flags & PKT_F_STRICT))
        n->fc->on_release(n, port, p);
    pkt_free(&n->pool, id);
    if (n->work_pending == 0) net_check_idle(n);
}

/* A message that will never complete: its QP is in error. */
void nic_msg_failed(struct net *n, uint32_t mid) {
    struct msg *m = &n->msgs[mid];
    if (m->failed) return;
    m->failed = 1;
    if (m->flow >= 0) n->flows[m->flow].failed++;
    if (n->on_msg_failed) n->on_msg_failed(n, mid);
    net_work_done(n);
}

void nic_qp_error(struct net *n, uint32_t qp) {
    struct qp *q = &n->qps[qp];
    if (q->error) return;
    q->error = 1;
    q->rto_deadline_ps = SIM_TIME_NEVER;
    fs_grow((void **)&n->qp_errs, &n->qp_errs_cap, n->nqp_errs + 1, sizeof *n->qp_errs);
    struct qp_err_row *r = &n->qp_errs[n->nqp_errs++];
    memset(r, 0, sizeof *r);
    r->qp = qp;
    r->src = q->src;
    r->dst = q->dst;
    r->psn = q->una;
    r->retries = q->retries;
    r->at_ps = n->sim->now_ps;
    /* The span without progress that ended in the error is a stall too
     * (results.json jobs[].stalled_ns): from the last progress to now. */
    if (n->sim->now_ps - q->progress_ps > q->stall_max_ps) {
        q->stall_max_ps = n->sim->now_ps - q->progress_ps;
        q->stall_from_ps = q->progress_ps;
    }
    /* Every posted message not yet acknowledged completes in error (the
     * first with RETRY_EXC_ERR, the rest flushed); so does any posted later. */
    uint32_t m = q->una_msg;
    net_qp_set_una(n, q, NET_NONE);
    net_qp_set_cur(n, q, NET_NONE);
    q->una = q->next_psn = q->max_sent_psn = q->posted_pkts;
    while (m != NET_NONE) {
        uint32_t next = n->msgs[m].next;
        r->msgs_failed++;
        nic_msg_failed(n, m);
        m = next;
    }
}

void nic_on_msg_post(struct sim *s, const struct event *e) {
    net_msg_post_now(s->model, e->arg);
}

void nic_on_qp_timer(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    if (e->aux == 1) { /* a receiver's hole timer: arg = QP */
        rx_hole_timer(n, e->arg);
        return;
    }
    struct nic *c = nic_of(n, e->arg);
    if (e->time_ps != c->timer_at_ps) return; /* superseded by an earlier one (timer_cover) */
    c->timer_at_ps = SIM_TIME_NEVER;
    sim_time_ps next = SIM_TIME_NEVER;
    for (uint32_t qp = c->qp_head; qp != NET_NONE; qp = n->qps[qp].nic_next) {
        struct qp *q = &n->qps[qp];
        if (q->rto_deadline_ps == SIM_TIME_NEVER) continue;
        if (q->rto_deadline_ps <= s->now_ps) {
            /* Timed out with packets outstanding: after retry_cnt retries
             * without progress the QP goes to error (IBA 9.7.6.1.3,
             * IBV_WC_RETRY_EXC_ERR); else resend from the oldest
             * unacknowledged PSN, once per timeout. */
            /* Adaptive: the QP errors once it has made no progress for
             * ack_timeout x retry_cnt (the profile's qp_total_timeout,
             * sources.md A12), however many shorter timeouts that took. */
            bool exhausted = n->rto_adaptive
                                 ? s->now_ps - q->progress_ps >= n->rto_ps * n->retry_cnt
                                 : !n->rto_fixed && q->retries >= n->retry_cnt;
            if (exhausted) {
                nic_qp_error(n, qp);
                continue;
            }
            q->retries = q->retries < UINT8_MAX ? q->retries + 1 : UINT8_MAX;
            q->retries_total++;
            n->c.timeouts++;
            if (n->xp && n->xp->on_timeout) n->xp->on_timeout(n, qp); /* path feedback */
            if (n->rto_adaptive) adp_on_timeout(&n->sc->fabric.transport.adp, q);
            q->rto_deadline_ps = s->now_ps + rto_of(n, q);
            if (n->selective) sr_of(n, qp)->len = 0; /* go back N covers the holes */
            go_back(n, qp, q->una);
        }
        if (q->rto_deadline_ps < next) next = q->rto_deadline_ps;
    }
    if (next != SIM_TIME_NEVER && next < c->timer_at_ps) {
        c->timer_at_ps = next;
        sim_at(s, next, e->arg + 1, NET_EV_QP_TIMER, e->arg, 0);
    }
}

void nic_on_wake(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct nic *c = nic_of(n, e->arg);
    if (c->wake_at_ps == e->time_ps) c->wake_at_ps = SIM_TIME_NEVER;
    for (uint32_t i = 0; i < n->nodes[e->arg].nports; i++)
        port_kick(n, n->nodes[e->arg].first_port + i);
}

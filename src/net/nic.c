#include "net/nic.h"

#include "cc/cc.h"
#include "core/diag.h"
#include "core/mem.h"
#include "flowctl/flowctl.h"
#include "net/net.h"
#include "net/port.h"

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
    }
}

uint32_t nic_port(const struct net *n, uint32_t node) { return n->nodes[node].first_port; }

static struct nic *nic_of(struct net *n, uint32_t node) { return &n->nics[n->nodes[node].index]; }

int nic_has_work(const struct net *n, uint32_t node) {
    return n->nics[n->nodes[node].index].rr_head != NET_NONE;
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
    if (qp == NET_NONE)
        return qp;
    c->rr_head = n->qps[qp].rr_next;
    if (c->rr_head == NET_NONE)
        c->rr_tail = NET_NONE;
    return qp;
}

void nic_activate(struct net *n, uint32_t qp) {
    struct qp *q = &n->qps[qp];
    if (!q->active && q->next_psn < q->posted_pkts) {
        q->active = 1;
        ring_push(n, nic_of(n, q->src), qp);
    }
    port_kick(n, nic_port(n, q->src));
}

/* The message that `psn` falls in, searching from the oldest unacknowledged. */
static uint32_t seek_msg(struct net *n, const struct qp *q, uint32_t psn) {
    uint32_t m = q->una_msg;
    while (m != NET_NONE && n->msgs[m].first_psn + n->msgs[m].npkts <= psn)
        m = n->msgs[m].next;
    return m;
}

/* Retransmission timers are nearly always re-armed by an ACK before they
 * expire, so they stay off the event queue (DESIGN.md "Speed"): a NIC keeps
 * one pending event, at or before its QPs' earliest deadline. A new deadline
 * is now + rto, never earlier than any pending one, so it needs no event of
 * its own when the NIC already has one. */
static void arm_timer(struct net *n, uint32_t qp) {
    struct qp *q = &n->qps[qp];
    q->rto_deadline_ps = n->sim->now_ps + n->rto_ps;
    struct nic *c = nic_of(n, q->src);
    if (c->timer_at_ps == SIM_TIME_NEVER) {
        c->timer_at_ps = q->rto_deadline_ps;
        sim_at(n->sim, q->rto_deadline_ps, q->src + 1, NET_EV_QP_TIMER, q->src, 0);
    }
}

static void schedule_nic_wake(struct net *n, struct nic *c, sim_time_ps at) {
    if (c->wake_at_ps <= at)
        return;
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
        if (q->next_psn >= q->posted_pkts) {
            q->active = 0;
            continue;
        }
        if (limit == UINT32_MAX)
            limit = qp;
        else if (qp == limit) {
            ring_push(n, c, qp); /* went round once */
            break;
        }
        sim_time_ps t = n->cc->send_time(n, qp);
        if (t > now) {
            if (t < wake)
                wake = t;
            ring_push(n, c, qp);
            continue;
        }
        const struct msg *m = &n->msgs[q->cur_msg];
        uint32_t off = q->next_psn - m->first_psn;
        uint64_t left = m->size_bytes - (uint64_t)off * n->mtu_bytes;
        uint32_t payload = left < n->mtu_bytes ? (uint32_t)left : n->mtu_bytes;
        bool first = off == 0, last = off + 1 == m->npkts;
        uint32_t wire = net_data_wire_bytes(n, payload, first);
        if (!n->fc->can_send(n, port, q->prio, wire)) {
            /* blocked by link-level flow control: a credit or resume kicks us */
            ring_push(n, c, qp);
            break;
        }
        uint32_t id = pkt_alloc(&n->pool);
        struct packet *p = pkt(&n->pool, id);
        memset(p, 0, sizeof *p);
        p->next = PKT_NONE;
        p->type = PKT_DATA;
        p->qp = qp;
        p->src = q->src;
        p->dst = q->dst;
        p->psn = q->next_psn;
        p->payload_bytes = payload;
        p->wire_bytes = wire;
        p->aux = q->cur_msg;
        p->entropy = q->entropy;
        p->prio = q->prio;
        p->sent_ps = now;
        p->in_port = NET_NONE;
        p->flags = (uint8_t)((first ? PKT_F_FIRST : 0) | (last ? PKT_F_LAST : 0) | PKT_F_ECT);
        if (q->next_psn < q->max_sent_psn) {
            p->flags |= PKT_F_RETX;
            n->c.retransmitted_packets++;
        }
        q->next_psn++;
        if (q->next_psn > q->max_sent_psn)
            q->max_sent_psn = q->next_psn;
        if (last)
            q->cur_msg = m->next;
        if (q->next_psn < q->posted_pkts)
            ring_push(n, c, qp);
        else
            q->active = 0;
        if (q->rto_deadline_ps == SIM_TIME_NEVER)
            arm_timer(n, qp);
        n->c.packets_sent++;
        n->pkts_in_flight++;
        if (n->cc->on_sent)
            n->cc->on_sent(n, qp, p);
        return id;
    }
    if (wake != SIM_TIME_NEVER)
        schedule_nic_wake(n, c, wake);
    return PKT_NONE;
}

void nic_send_ctrl(struct net *n, uint32_t node, uint32_t qp, uint8_t type, uint32_t aux) {
    const struct qp *q = &n->qps[qp];
    uint32_t id = pkt_alloc(&n->pool);
    struct packet *p = pkt(&n->pool, id);
    memset(p, 0, sizeof *p);
    p->type = type;
    p->qp = qp;
    p->src = node;
    p->dst = node == q->dst ? q->src : q->dst;
    p->aux = aux;
    p->entropy = q->entropy;
    p->prio = q->prio;
    p->wire_bytes = net_ctrl_wire_bytes(n, (enum pkt_type)type);
    p->sent_ps = n->sim->now_ps;
    p->in_port = NET_NONE;
    n->c.packets_sent++;
    n->pkts_in_flight++;
    port_enqueue(n, nic_port(n, node), p->prio, id);
}

static void msg_acked(struct net *n, uint32_t mid) {
    struct msg *m = &n->msgs[mid];
    m->acked_ps = n->sim->now_ps;
    if (m->flow >= 0) {
        struct flow_row *f = &n->flows[m->flow];
        if (m->recv_ps > f->end_ps)
            f->end_ps = m->recv_ps;
        f->msgs_left--;
    }
    if (n->on_msg_done)
        n->on_msg_done(n, mid);
    net_work_done(n);
}

/* Cumulative acknowledgement of every PSN below `a`. */
static void ack_upto(struct net *n, uint32_t qp, uint32_t a) {
    struct qp *q = &n->qps[qp];
    if (a <= q->una)
        return;
    q->una = a;
    while (q->una_msg != NET_NONE &&
           n->msgs[q->una_msg].first_psn + n->msgs[q->una_msg].npkts <= a) {
        uint32_t mid = q->una_msg;
        q->una_msg = n->msgs[mid].next;
        msg_acked(n, mid);
    }
    if (q->next_psn < a) { /* acknowledged beyond what we were about to resend */
        q->next_psn = a;
        q->cur_msg = seek_msg(n, q, a);
    }
    if (q->una >= q->max_sent_psn)
        q->rto_deadline_ps = SIM_TIME_NEVER;
    else
        q->rto_deadline_ps = n->sim->now_ps + n->rto_ps;
}

/* Go back to `psn` (go-back-N), or to its message's first packet (go-back-0). */
static void go_back(struct net *n, uint32_t qp, uint32_t psn) {
    struct qp *q = &n->qps[qp];
    uint32_t m = seek_msg(n, q, psn);
    if (m == NET_NONE)
        return;
    if (n->go_back_0)
        psn = n->msgs[m].first_psn;
    if (psn < q->next_psn) {
        q->next_psn = psn;
        q->cur_msg = m;
    }
    nic_activate(n, qp);
}

static void rx_data(struct net *n, uint32_t node, struct packet *p) {
    struct qp *q = &n->qps[p->qp];
    if (n->cc->on_rx_data)
        n->cc->on_rx_data(n, p->qp, p);
    if (p->psn == q->expect_psn) {
        q->expect_psn++;
        q->nak_sent = 0;
        q->since_ack++;
        n->c.bytes_delivered += p->payload_bytes;
        bool last = p->flags & PKT_F_LAST;
        if (last) {
            struct msg *m = &n->msgs[p->aux];
            m->recv_ps = n->sim->now_ps;
            if (n->on_msg_recv)
                n->on_msg_recv(n, p->aux);
        }
        if (q->since_ack >= n->ack_every || last) {
            q->since_ack = 0;
            nic_send_ctrl(n, node, p->qp, PKT_ACK, q->expect_psn);
        }
    } else if (p->psn > q->expect_psn) {
        if (!q->nak_sent) {
            q->nak_sent = 1;
            nic_send_ctrl(n, node, p->qp, PKT_NAK, q->expect_psn);
        }
    } else {
        nic_send_ctrl(n, node, p->qp, PKT_ACK, q->expect_psn); /* duplicate */
    }
}

void nic_rx(struct net *n, uint32_t node, uint32_t port, uint32_t id) {
    struct packet *p = pkt(&n->pool, id);
    if (p->type == PKT_CREDIT || p->type == PKT_PAUSE) {
        if (n->fc->on_ctrl)
            n->fc->on_ctrl(n, port, p);
        pkt_free(&n->pool, id);
        return;
    }
    if (n->nodes[node].stalled || !n->fc->admit(n, port, NET_NONE, p)) {
        port_drop(n, n->ports[port].peer, id);
        return;
    }
    n->c.packets_delivered++;
    n->pkts_in_flight--;
    switch (p->type) {
    case PKT_DATA:
        rx_data(n, node, p);
        break;
    case PKT_ACK:
        ack_upto(n, p->qp, p->aux);
        break;
    case PKT_NAK:
        ack_upto(n, p->qp, p->aux);
        go_back(n, p->qp, p->aux);
        break;
    case PKT_CNP:
        if (n->cc->on_cnp)
            n->cc->on_cnp(n, p->qp);
        break;
    default:
        break;
    }
    if (n->fc->on_release)
        n->fc->on_release(n, port, p);
    pkt_free(&n->pool, id);
    if (n->work_pending == 0)
        net_check_idle(n);
}

void nic_on_msg_post(struct sim *s, const struct event *e) { net_msg_post_now(s->model, e->arg); }

void nic_on_qp_timer(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct nic *c = nic_of(n, e->arg);
    c->timer_at_ps = SIM_TIME_NEVER;
    sim_time_ps next = SIM_TIME_NEVER;
    for (uint32_t qp = c->qp_head; qp != NET_NONE; qp = n->qps[qp].nic_next) {
        struct qp *q = &n->qps[qp];
        if (q->rto_deadline_ps == SIM_TIME_NEVER)
            continue;
        if (q->rto_deadline_ps <= s->now_ps) {
            /* Timed out with packets outstanding: resend from the oldest
             * unacknowledged. */
            q->rto_deadline_ps = s->now_ps + n->rto_ps;
            go_back(n, qp, q->una);
        }
        if (q->rto_deadline_ps < next)
            next = q->rto_deadline_ps;
    }
    if (next != SIM_TIME_NEVER && next < c->timer_at_ps) {
        c->timer_at_ps = next;
        sim_at(s, next, e->arg + 1, NET_EV_QP_TIMER, e->arg, 0);
    }
}

void nic_on_wake(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct nic *c = nic_of(n, e->arg);
    if (c->wake_at_ps == e->time_ps)
        c->wake_at_ps = SIM_TIME_NEVER;
    port_kick(n, nic_port(n, e->arg));
}

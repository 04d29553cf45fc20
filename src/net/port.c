/* src/net/port.c
 *
 * The per-hop engine. A packet costs two events per hop at most: its arrival
 * at the far end, and a transmitter wake when something waits behind it.
 */
#include "net/port.h"

#include "cc/cc.h"
#include "net/dist.h"
#include "core/diag.h"
#include "flowctl/flowctl.h"
#include "flowctl/pfc-inl.h"
#include "link/retry.h"
#include "net/net.h"
#include "net/nic.h"
#include "net/trace.h"

#include <math.h>

/* `bytes` join (q_add) or leave (q_sub) the waiting bytes at `now`: the
 * queue integral's running sum (port_q_area). */
static inline void q_add(struct port *pt, sim_time_ps now, uint32_t bytes) {
    pt->q_bytes += bytes;
    pt->q_area_sub += (unsigned __int128)bytes * now;
}

static inline void q_sub(struct port *pt, sim_time_ps now, uint32_t bytes) {
    pt->q_bytes -= bytes;
    pt->q_area_sub -= (unsigned __int128)bytes * now;
}

static inline void pq_push(struct pkt_pool *pp, struct pq *q, uint32_t id, struct packet *p,
                           uint32_t bytes) {
    p->next = PKT_NONE;
    if (q->tail == PKT_NONE)
        q->head = id;
    else
        pkt(pp, q->tail)->next = id;
    q->tail = id;
    q->bytes += bytes;
}

static inline uint32_t pq_pop(struct pkt_pool *pp, struct pq *q) {
    uint32_t id = q->head;
    struct packet *p = pkt(pp, id);
    q->head = p->next;
    if (q->head == PKT_NONE) q->tail = PKT_NONE;
    q->bytes -= p->wire_bytes;
    return id;
}

/* pt = &n->ports[port] in these inline steps: the caller's, passed down */
static inline void schedule_wake(struct net *n, uint32_t port, struct port *pt, sim_time_ps at) {
    if (pt->wake_at_ps <= at) return; /* one already pending, no later than needed */
    pt->wake_at_ps = at;
    sim_at(n->sim, at, pt->node + 1, NET_EV_PORT_WAKE, port, 0);
}

void port_enqueue_ctrl(struct net *n, uint32_t port, uint32_t id) {
    struct port *pt = &n->ports[port];
    struct packet *p = pkt(&n->pool, id);
    pq_push(&n->pool, &pt->ctrl, id, p, p->wire_bytes);
    pt->cls_mask |= PORT_MASK_CTRL;
    port_kick(n, port);
}

/* A cut link of a split run (net/dist.h): kept out of line so the common
 * path of start_tx stays as it was. */
static __attribute__((noinline, cold)) void port_out_remote(struct net *n, uint32_t port,
                                                            uint32_t id) {
    n->dist->out(n, port, id);
}

/* p = pkt(id) and now = the clock, from the caller (the hop's path passes
 * them down). */
static inline __attribute__((always_inline)) void start_tx(struct net *n, uint32_t port,
                                                           struct port *pt, uint32_t id,
                                                           struct packet *p, sim_time_ps now) {
    sim_time_ps ser;
    if (pt->ps_per_byte) { /* port_busy_ps() derives the busy time from tx_bytes */
        ser = (sim_time_ps)p->wire_bytes * pt->ps_per_byte;
    } else {
        ser = time_serialise_ps(p->wire_bytes, pt->rate_bps);
        pt->busy_frac_ps += ser;
    }
    trace_tx(n, port, p, now);
    sim_time_ps prev_end = pt->busy_until_ps; /* when the wire's tail finished serialising */
    sim_time_ps end = now + ser;
    pt->busy_until_ps = end;
    pt->tx_bytes += p->wire_bytes;
    pt->tx_packets++;
    /* store and forward from the last bit; a cut-through port (rare) from
     * the first: a branch, not a select on every hop */
    p->t_ps = (__builtin_expect(pt->cut_through, 0) ? now : end) + pt->deliver_ps;
    p->next = PKT_NONE;
    if (pt->remote) { /* a cut link of a parallel run: the packet leaves this rank */
        port_out_remote(n, port, id);
        return;
    }
    if (pt->fly_tail == PKT_NONE) {
        pt->fly_head = id;
        net_arrive_at(n, port, p->t_ps);
    } else {
        struct packet *t = pkt(&n->pool, pt->fly_tail);
        t->next = id;
        /* The tail is the packet this port started last, so, store and
         * forward, it arrives deliver_ps after its last bit left: only
         * stores to its line, no load that waits for it (a cold line per
         * hop at 1,024 hosts). A cut-through port reads it. */
        FS_DASSERT(pt->cut_through || prev_end + pt->deliver_ps == t->t_ps,
                   "port %u: wire tail arrives at %llu, not %llu", port,
                   (unsigned long long)t->t_ps, (unsigned long long)(prev_end + pt->deliver_ps));
        uint64_t dt = __builtin_expect(pt->cut_through, 0) ? p->t_ps - t->t_ps : end - prev_end;
        t->next_dt_ps = dt < PKT_DT_FAR ? (uint32_t)dt : PKT_DT_FAR;
    }
    pt->fly_tail = id;
}

/* `p` leaves a switch's buffer: the flow-control policy frees its space at
 * the ingress port it came through. */
static inline void release_sw(struct net *n, const struct packet *p) {
    if (n->fc_fast & FLOWCTL_FAST_PFC)
        pfc_release_fast(n, p->in_port, p);
    else if (n->fc->on_release)
        n->fc->on_release(n, p->in_port, p);
}

/* ...from any port: a NIC's packets, and those a switch makes (innet), hold none. */
static inline void release_in(struct net *n, const struct port *pt, const struct packet *p) {
    if (pt->is_host || p->in_port == NET_NONE) return; /* innet makes some */
    release_sw(n, p);
}

/* Starts `id` on the wire; wakes at its end only if something will want the
 * wire. empty: the caller saw no waiting bytes and no control frame (only a
 * hook could queue one; the ingress release before it queues at most one
 * frame, which port_kick starts at once on the free transmitter); sw: `port`
 * is a switch's (no NIC behind it). */
static inline __attribute__((always_inline)) void send(struct net *n, uint32_t port,
                                                       struct port *pt, uint32_t id,
                                                       struct packet *p, sim_time_ps now,
                                                       bool empty, bool sw) {
    bool hooks = __builtin_expect(n->tx_hooks, 0);
    if (hooks) {
        if (n->fc->on_send) n->fc->on_send(n, port, p);
        if (n->cc->on_tx) n->cc->on_tx(n, port, p); /* per-hop telemetry (HPCC) */
        if (n->lr) n->lr->on_send(n, port, p);
    }
    start_tx(n, port, pt, id, p, now);
    bool more = (!empty || hooks) && pt->cls_mask; /* waiting bytes or a control frame */
    if (more || (!sw && pt->is_host && nic_has_work(n, pt->node)))
        schedule_wake(n, port, pt, pt->busy_until_ps);
}

static inline __attribute__((always_inline)) void kick(struct net *n, uint32_t port,
                                                       struct port *pt, sim_time_ps now) {
    if (!pt->up) return;
    if (pt->busy_until_ps > now) {
        schedule_wake(n, port, pt, pt->busy_until_ps);
        return;
    }
    uint32_t id = PKT_NONE;
    if (pt->cls_mask & PORT_MASK_CTRL) {
        id = pq_pop(&n->pool, &pt->ctrl);
        if (pt->ctrl.head == PKT_NONE) pt->cls_mask &= (uint8_t)~PORT_MASK_CTRL;
        start_tx(n, port, pt, id, pkt(&n->pool, id), now);
        schedule_wake(n, port, pt, pt->busy_until_ps);
        return;
    }
    if (n->lr) { /* link-level retry: a replay goes before anything new */
        id = n->lr->pull(n, port);
        if (id != PKT_NONE) {
            start_tx(n, port, pt, id, pkt(&n->pool, id), now);
            schedule_wake(n, port, pt, pt->busy_until_ps);
            return;
        }
    }
    const struct flowctl_ops *fc = n->fc;
    /* One class waiting (the common case) needs no round robin; with VL
     * arbitration (credit.c) the flow-control policy says where to start. */
    uint32_t mask = pt->cls_mask, c = NET_NCLASS; /* the control queue is empty here */
    FS_DASSERT(!(mask & PORT_MASK_CTRL), "port %u: a control frame waits", port);
    if (mask & (mask - 1)) {
        uint32_t first = fc->arbitrate ? fc->arbitrate(n, port) : pt->rr;
        for (uint32_t k = 0; k < NET_NCLASS; k++) {
            uint32_t cc = (first + k) % NET_NCLASS;
            if (!(mask >> cc & 1u)) continue;
            if ((pt->fc_hold >> cc & 1u) &&
                !fc->can_send(n, port, cc, pkt(&n->pool, pt->cls[cc].head)->wire_bytes))
                continue;
            c = cc;
            break;
        }
    } else if (mask) {
        uint32_t cc = (uint32_t)__builtin_ctz(mask);
        if (!(pt->fc_hold >> cc & 1u) ||
            fc->can_send(n, port, cc, pkt(&n->pool, pt->cls[cc].head)->wire_bytes))
            c = cc;
    }
    struct packet *p;
    if (c < NET_NCLASS) {
        struct pq *q = &pt->cls[c];
        pt->rr = (uint8_t)((c + 1) % NET_NCLASS);
        id = pq_pop(&n->pool, q);
        if (q->head == PKT_NONE) pt->cls_mask = (uint8_t)(mask & ~(1u << c));
        p = pkt(&n->pool, id);
        q_sub(pt, now, p->wire_bytes);
        release_in(n, pt, p);
    } else {
        if (!pt->is_host || (id = nic_pull(n, pt->node, port)) == PKT_NONE) return;
        p = pkt(&n->pool, id);
    }
    send(n, port, pt, id, p, now, false, false);
}

void port_kick(struct net *n, uint32_t port) {
    kick(n, port, &n->ports[port], n->sim->now_ps);
}

/* sw: the switch's receive path (switch.h), which routed `id` in through a
 * port (in_port set) to a switch port: the release needs no test of either. */
static inline __attribute__((always_inline)) void enqueue(struct net *n, uint32_t port,
                                                          struct port *pt, uint32_t cls,
                                                          uint32_t id, struct packet *p, bool sw) {
    sim_time_ps now = n->sim->now_ps;
    /* sw: switch_rx dropped what was routed into a dead link, so `up` is known */
    if (pt->cls_mask == 0 && pt->busy_until_ps <= now && (sw || pt->up) &&
        !(pt->fc_hold >> cls & 1u) && !n->lr) {
        /* Nothing waits and the transmitter is free: the packet would be
         * queued and taken at once (port_kick). Do what that does to the
         * port without the queue: the integral (joins and leaves at once:
         * adds nothing), the maximum with this packet counted, the round
         * robin. */
        FS_DASSERT(pt->q_bytes == 0, "port %u: empty classes hold %llu bytes", port,
                   (unsigned long long)pt->q_bytes);
        if (p->wire_bytes > pt->q_max) pt->q_max = p->wire_bytes;
        pt->rr = (uint8_t)((cls + 1) % NET_NCLASS);
        FS_DASSERT(!sw || (!pt->is_host && p->in_port != NET_NONE), "port %u: switch release",
                   port);
        if (sw)
            release_sw(n, p);
        else
            release_in(n, pt, p);
        send(n, port, pt, id, p, now, true, sw);
        return;
    }
    struct pq *q = &pt->cls[cls];
    pq_push(&n->pool, q, id, p, p->wire_bytes);
    pt->cls_mask |= (uint8_t)(1u << cls);
    q_add(pt, now, p->wire_bytes);
    if (pt->q_bytes > pt->q_max) pt->q_max = pt->q_bytes;
    if (pt->busy_until_ps > now && (sw || pt->up)) { /* port_kick's first step, without the call */
        schedule_wake(n, port, pt, pt->busy_until_ps);
        return;
    }
    port_kick(n, port);
}

void port_enqueue(struct net *n, uint32_t port, uint32_t cls, uint32_t id) {
    enqueue(n, port, &n->ports[port], cls, id, pkt(&n->pool, id), false);
}

/* The switch's receive path (inline below, in the link arrival) queues with
 * the enqueue above inlined too: no second frame per switch hop. */
#define SWITCH_ENQUEUE(n, port, pt, cls, id, p) enqueue(n, port, pt, cls, id, p, true)
#include "net/switch.h"

void port_on_wake(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct port *pt = &n->ports[e->arg];
    if (pt->wake_at_ps == e->time_ps) pt->wake_at_ps = SIM_TIME_NEVER;
    kick(n, e->arg, pt, s->now_ps);
}

/* Does link `port` lose packet `p` (docs/model.md "Failures")? A bit error
 * anywhere in its wire bytes fails the receiver's CRC check: probability
 * 1 - (1 - ber)^bits; a gray link drops a fixed fraction. Link-level frames
 * are spared: IB flow-control packets carry absolute counts (a lost one is
 * repaired by the next) and the model's credits are incremental. */
static bool port_loses(struct net *n, uint32_t port, const struct packet *p) {
    struct link_loss *l = &n->loss[port];
    if (l->drop > 0 && (l->drop >= 1.0 || rng_uniform(&l->rng) < l->drop)) {
        if (l->errors) { /* corrupted on the wire: the far port counts it */
            n->port_fail[port].corrupted++;
            n->c.corrupted++;
        } else
            n->c.gray_dropped++;
        return true;
    }
    if (l->ber > 0) {
        double pr = -expm1(8.0 * p->wire_bytes * log1p(-l->ber));
        if (rng_uniform(&l->rng) < pr) {
            n->port_fail[port].corrupted++;
            n->c.corrupted++;
            return true;
        }
    }
    return false;
}

bool port_link_loses(struct net *n, uint32_t port, const struct packet *p) {
    const struct link_loss *l = n->loss ? &n->loss[port] : NULL;
    return l && (l->ber > 0 || l->drop > 0) && port_loses(n, port, p);
}

bool port_link_loss_unseen(const struct net *n, uint32_t port) {
    const struct link_loss *l = n->loss ? &n->loss[port] : NULL;
    return l && l->drop > 0 && !l->errors && l->ber == 0;
}

/* Arrival over a link with bit errors or a gray failure: lost at the
 * receiver (bad ICRC/FCS, or the gray link), or delivered as usual. */
__attribute__((noinline)) static void arrive_lossy(struct net *n, uint32_t port, uint32_t id) {
    const struct port *pt = &n->ports[port];
    struct packet *p = pkt(&n->pool, id);
    const struct link_loss *l = n->loss ? &n->loss[port] : NULL;
    bool frame = p->type != PKT_CREDIT && p->type != PKT_PAUSE;
    /* A frame link-level retry protects had its fate drawn when it started
     * (port_link_loses); the retry layer takes what it discards or replays. */
    bool prot = n->lr && frame && (p->flags & PKT_F_LLR);
    bool lost = !prot && l && (l->ber > 0 || l->drop > 0) && frame && port_loses(n, port, p);
    if (n->lr && frame && n->lr->on_arrive(n, port, id, lost)) return;
    if (lost) {
        /* it held the transmitter's credits on its way in: give them back */
        if (n->fc->on_discard) n->fc->on_discard(n, pt->peer, p);
        port_drop(n, port, id);
        return;
    }
    if (pt->peer_is_switch)
        switch_rx(n, pt->peer_node, pt->peer, id, p);
    else
        nic_rx(n, pt->peer_node, pt->peer, id, p);
}

void port_on_arrive(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    uint32_t port = e->arg;
    struct port *pt = &n->ports[port];
    /* A cut (port_set_up) empties the wire and bumps fly_gen: an event of
     * the current generation always finds its packet at the head. */
    if (e->aux != pt->fly_gen) return; /* the link was cut after this was scheduled */
    uint32_t id = pt->fly_head;
    FS_DASSERT(id != PKT_NONE, "port %u: an arrival of generation %u on an empty wire", port,
               (unsigned)pt->fly_gen);
    struct packet *p = pkt(&n->pool, id);
    FS_DASSERT(p->t_ps == s->now_ps, "link head arrives at %llu, now %llu",
               (unsigned long long)p->t_ps, (unsigned long long)s->now_ps);
    pt->fly_head = p->next;
    if (pt->fly_head == PKT_NONE) {
        pt->fly_tail = PKT_NONE;
    } else {
        /* the next packet's time from this one: no cache miss on it until it arrives */
        sim_time_ps t = p->next_dt_ps != PKT_DT_FAR ? p->t_ps + p->next_dt_ps
                                                    : pkt(&n->pool, pt->fly_head)->t_ps;
        FS_DASSERT(t == pkt(&n->pool, pt->fly_head)->t_ps, "next arrival %llu",
                   (unsigned long long)t);
        net_arrive_at(n, port, t);
    }
    if (__builtin_expect(n->rx_hooks, 0)) { /* bit errors, gray, LLR */
        arrive_lossy(n, port, id);          /* a tail call: the common path keeps no frame */
        return;
    }
    if (pt->peer_is_switch)
        switch_rx(n, pt->peer_node, pt->peer, id, p);
    else
        nic_rx(n, pt->peer_node, pt->peer, id, p);
}

void port_drop(struct net *n, uint32_t port, uint32_t id) {
    struct packet *p = pkt(&n->pool, id);
    if (p->type != PKT_CREDIT && p->type != PKT_PAUSE) {
        n->c.packets_dropped++;
        n->pkts_in_flight--;
    }
    if (port != NET_NONE) n->ports[port].drops++;
    pkt_free(&n->pool, id);
    if (n->work_pending == 0) net_check_idle(n);
}

void port_flush_class(struct net *n, uint32_t port, uint32_t cls) {
    struct port *pt = &n->ports[port];
    bool sw = n->nodes[pt->node].kind == NODE_SWITCH;
    while (pt->cls[cls].head != PKT_NONE) {
        uint32_t id = pq_pop(&n->pool, &pt->cls[cls]);
        struct packet *p = pkt(&n->pool, id);
        q_sub(pt, n->sim->now_ps, p->wire_bytes);
        if (sw && n->fc->on_release) n->fc->on_release(n, p->in_port, p);
        port_drop(n, port, id);
    }
    pt->cls_mask &= (uint8_t) ~(1u << cls);
}

void port_set_up(struct net *n, uint32_t port, bool up) {
    struct port *pt = &n->ports[port];
    if (pt->up == up) return;
    pt->up = up;
    pt->down_ps = up ? SIM_TIME_NEVER : n->sim->now_ps;
    if (up) {
        if (n->fc->on_link_up) n->fc->on_link_up(n, port);
        port_kick(n, port);
        return;
    }
    /* What is on the wire is lost, and what link-level retry held for it... */
    if (n->lr && n->lr->on_down) n->lr->on_down(n, port);
    for (uint32_t id = pt->fly_head; id != PKT_NONE;) {
        uint32_t next = pkt(&n->pool, id)->next;
        port_drop(n, port, id);
        id = next;
    }
    pt->fly_head = pt->fly_tail = PKT_NONE;
    pt->fly_gen++;
    /* ...and so is what waits for this link. */
    bool sw = n->nodes[pt->node].kind == NODE_SWITCH;
    for (int c = 0; c < NET_NCLASS; c++) {
        while (pt->cls[c].head != PKT_NONE) {
            uint32_t id = pq_pop(&n->pool, &pt->cls[c]);
            struct packet *p = pkt(&n->pool, id);
            q_sub(pt, n->sim->now_ps, p->wire_bytes);
            if (sw && n->fc->on_release) n->fc->on_release(n, p->in_port, p);
            port_drop(n, port, id);
        }
    }
    while (pt->ctrl.head != PKT_NONE)
        port_drop(n, port, pq_pop(&n->pool, &pt->ctrl));
    pt->cls_mask = 0;
}

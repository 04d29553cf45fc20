/* src/cc/nscc.c
 *
 * Ultra Ethernet congestion control (UEC 1.0 spec 3.6.x, docs/sources.md U1,
 * U2; the UEC reference simulator htsim uec.cpp, U3, read for its
 * parameters and semantics): NSCC, a sender window driven by delay and ECN;
 * RCCC, credits the receiver grants; or both at once (a packet needs window
 * and credit). One table, three kinds (congestion_control nscc, rccc,
 * nscc+rccc).
 *
 * NSCC. Every ACK (a per-packet SACK, net/nic.c) echoes its packet's send
 * time and CE mark. The RTT sample less the QP's base RTT (the smallest RTT
 * seen, starting from the network's unloaded RTT) is the queueing delay; an
 * EWMA of it (delay_alpha) is avg_delay. The ACK falls in one of four cases:
 *   no CE, delay >= target:  fair increase, inc += FI x acked bytes;
 *   no CE, delay <  target:  proportional increase, inc += alpha x acked x
 *                            (target - delay); below 1 us of delay for a
 *                            window's worth of bytes, fast increase
 *                            cwnd += fi_scale x acked at once;
 *   CE,    delay >= target:  multiplicative decrease, at most once per base
 *                            RTT: cwnd x= max(1 - gamma (avg - target)/avg, 0.5);
 *   CE,    delay <  target:  no change: the path, not the flow, is congested;
 *                            the transport moves the entropy (xport/uet.c).
 * Increases are applied every 8 MTUs acknowledged or every base RTT (the
 * "fulfill adjustment", cwnd += inc / cwnd, plus eta once per RTT). A NAK of
 * a trimmed packet removes its bytes from the window; quick adapt sets the
 * window to what was achieved in the last RTT when losses or a delay above
 * 4 x target show it far too large. Parameters scale with the BDP from the
 * reference 100 Gb/s x 12 us (htsim initNsccParams).
 *
 * RCCC. The receiving NIC keeps a ring of QPs that asked for credit (their
 * data carries PKT_F_PULL_REQ, or was trimmed) and, paced at 0.99 of its
 * link rate, sends one PULL of `rccc.credit` bytes to the next of them
 * (htsim UecPullPacer); a QP is skipped while its granted but unreceived
 * bytes reach MaxWnd (written off after two RTTs without its data: grants
 * or data lost on a dead path). A sender starts with MaxWnd of speculative credit,
 * which its first ACK or PULL cancels; from then on it sends only what it
 * was granted. The receiver's link is never granted more than its rate:
 * an incast's last-hop queue is capped by the speculative first window.
 */
#include "cc/cc.h"

#include "core/mem.h"
#include "core/rng.h"
#include "core/time.h"
#include "net/net.h"
#include "net/nic.h"
#include "net/packet.h"
#include "net/params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NSCC_RNG_STREAM 0x4e534343u /* "NSCC": ECN marking per switch */
/* htsim initNsccParams: the reference network the constants are tuned for. */
#define REF_RTT_PS 12000000.0               /* 12 us */
#define REF_BDP_BYTES (12e-6 * 100e9 / 8.0) /* 100 Gb/s x 12 us = 150 kB */
#define MAX_WND_BDP 1.5                     /* htsim initNscc: setMaxWnd(1.5 x BDP) */
#define FAST_INC_DELAY_PS 1000000u          /* htsim fast_increase: delay < 1 us */
#define PULL_RATE 0.99                      /* htsim UecPullPacer(linkspeed, 0.99, ...) */

struct nscc_qp {
    /* sender */
    double cwnd, inc, avg_delay;
    int64_t inflight, credit;
    sim_time_ps base_rtt_ps, last_dec_ps, last_adjust_ps, qa_end_ps;
    uint64_t achieved, received, fi_count, to_ignore, ignored;
    uint64_t cases[NSCC_NCASES];
    uint32_t seen_retries;
    uint8_t init, increase, trigger_qa, speculating;
    /* receiver (RCCC) */
    uint8_t want, in_ring;
    uint32_t ring_next;
    int64_t granted, recvd;
    sim_time_ps last_rx_ps; /* the QP's last data arrival */
};

struct nscc_rx { /* per receiving host: the pull pacer */
    uint32_t head, tail;
    uint8_t busy;
};

struct nscc_state {
    struct nscc_qp *q;
    size_t cap;
    struct nscc_rx *rx; /* by host index */
    struct rng *sw_rng; /* per switch index: ECN marking */
    bool nscc, rccc;
    double rtt_ps, target_ps, bdp, maxwnd, minwnd, alpha, fi, eta, fi_scale, qa_thresh_ps;
    double adjust_bytes;
    uint64_t credit_bytes, pull_gap_ps;
};

/* Network RTT unloaded (htsim calculate_rtt): twice the diameter's
 * propagation and switch latency, plus one data and one ACK serialisation
 * per link of the diameter. The diameter is host - leaf ... top tier - ...
 * leaf - host: twice the highest switch level in links. */
static double network_rtt_ps(const struct net *n) {
    const struct fabric_params *f = &n->sc->fabric;
    uint32_t top = 1;
    for (uint32_t v = 0; v < n->nnodes; v++)
        if (n->nodes[v].kind == NODE_SWITCH && n->nodes[v].level > top) top = n->nodes[v].level;
    double links = 2.0 * top;
    double data =
        (double)time_serialise_ps(net_data_wire_bytes(n, n->mtu_bytes, false), f->link_bps);
    double ack = (double)time_serialise_ps(net_ctrl_wire_bytes(n, PKT_ACK), f->link_bps);
    return 2.0 * links * (double)(f->propagation_ps + f->switch_latency_ps) + links * (data + ack);
}

void nscc_derived(const struct net *n, uint64_t *base_rtt_ps, uint64_t *target_ps,
                  double *max_wnd_bytes) {
    const struct fabric_params *f = &n->sc->fabric;
    double rtt = f->nscc.base_rtt_ps ? (double)f->nscc.base_rtt_ps : network_rtt_ps(n);
    double target = f->nscc.target_qdelay_ps ? (double)f->nscc.target_qdelay_ps
                    : f->uet.trimming        ? 0.75 * rtt
                                             : rtt;
    if (base_rtt_ps) *base_rtt_ps = (uint64_t)rtt;
    if (target_ps) *target_ps = (uint64_t)target;
    if (max_wnd_bytes) *max_wnd_bytes = MAX_WND_BDP * rtt * (double)f->link_bps / 8e12;
}

static struct nscc_qp *qp_of(struct net *n, uint32_t qp) {
    struct nscc_state *st = n->cc_state;
    if (qp >= st->cap) {
        size_t old = st->cap;
        fs_grow((void **)&st->q, &st->cap, (size_t)qp + 1 > n->nqps ? (size_t)qp + 1 : n->nqps,
                sizeof *st->q);
        memset(st->q + old, 0, (st->cap - old) * sizeof *st->q);
    }
    struct nscc_qp *u = &st->q[qp];
    if (!u->init) {
        u->init = 1;
        u->cwnd = st->maxwnd;
        u->base_rtt_ps = (sim_time_ps)st->rtt_ps;
        u->credit = (int64_t)st->maxwnd;
        u->speculating = 1;
        u->last_adjust_ps = n->sim->now_ps;
        u->ring_next = NET_NONE;
    }
    return u;
}

static void bounds(const struct nscc_state *st, struct nscc_qp *u) {
    if (u->cwnd < st->minwnd) u->cwnd = st->minwnd;
    if (u->cwnd > st->maxwnd) u->cwnd = st->maxwnd;
}

/* EWMA of the queueing delay (htsim update_delay): a sample above target
 * without a CE mark counts as a quarter of the base RTT (the queue is not
 * this flow's), one above 5 base RTTs with weight 0.0125. */
static void update_delay(const struct nscc_state *st, const struct nscc_params *p,
                         struct nscc_qp *u, double delay, bool ce) {
    if (!ce && delay > st->target_ps)
        u->avg_delay =
            p->delay_alpha * (double)u->base_rtt_ps * 0.25 + (1 - p->delay_alpha) * u->avg_delay;
    else if (delay > 5.0 * (double)u->base_rtt_ps)
        u->avg_delay = 0.0125 * delay + (1 - 0.0125) * u->avg_delay;
    else
        u->avg_delay = p->delay_alpha * delay + (1 - p->delay_alpha) * u->avg_delay;
}

/* Quick adapt (htsim quick_adapt): true if it acted or the ACK is to be ignored. */
static bool quick_adapt(struct net *n, struct nscc_qp *u, bool loss, bool ce, double delay) {
    const struct nscc_state *st = n->cc_state;
    const struct nscc_params *p = &n->sc->fabric.nscc;
    if (!p->quick_adapt) return false;
    sim_time_ps now = n->sim->now_ps;
    bool done = false;
    if (u->ignored < u->to_ignore && ce) {
        done = true;
    } else if (now > u->qa_end_ps) {
        if (u->qa_end_ps && (u->trigger_qa || loss || delay > st->qa_thresh_ps) &&
            (double)u->achieved < st->maxwnd / (double)(1u << p->qa_gate)) {
            u->cwnd = fmax((double)u->achieved, st->minwnd);
            u->to_ignore = u->inflight > 0 ? (uint64_t)u->inflight : 0;
            u->ignored = 0;
            u->trigger_qa = 0;
            u->cases[NSCC_QA]++;
            done = true;
        }
        u->achieved = 0;
        u->qa_end_ps = now + u->base_rtt_ps + (sim_time_ps)st->target_ps;
    }
    if (done) {
        u->inc = 0;
        u->received = 0;
    }
    return done;
}

/* One ACK's window update: the four cases, then the periodic fulfilment. */
static void on_ack_window(struct net *n, struct nscc_qp *u, bool ce, double delay, double acked) {
    const struct nscc_state *st = n->cc_state;
    const struct nscc_params *p = &n->sc->fabric.nscc;
    sim_time_ps now = n->sim->now_ps;
    if (quick_adapt(n, u, false, ce, delay)) return;
    if (!ce && delay >= st->target_ps) {
        u->cases[NSCC_FAIR]++;
        u->inc += st->fi * acked;
    } else if (!ce) {
        u->cases[NSCC_PROP]++;
        bool fast = false;
        if (delay < FAST_INC_DELAY_PS) { /* fast increase */
            u->fi_count += (uint64_t)acked;
            if ((double)u->fi_count > u->cwnd || u->increase) {
                u->cwnd += acked * st->fi_scale;
                u->cases[NSCC_FAST]++;
                u->increase = 1;
                fast = true;
            }
        } else {
            u->fi_count = 0;
        }
        if (!fast) {
            u->increase = 0;
            u->inc += st->alpha * acked * (st->target_ps - delay);
        }
    } else if (delay >= st->target_ps) {
        u->cases[NSCC_MD]++;
        u->increase = 0;
        u->fi_count = 0;
        if (u->avg_delay > st->target_ps && now - u->last_dec_ps > u->base_rtt_ps) {
            u->cwnd *= fmax(1.0 - p->gamma * (u->avg_delay - st->target_ps) / u->avg_delay, 0.5);
            u->last_dec_ps = now;
        }
    } else {
        u->cases[NSCC_SWITCH]++; /* CE at low delay: keep the window, switch path */
    }
    bounds(st, u);
    if ((double)u->received > st->adjust_bytes ||
        now - u->last_adjust_ps > (sim_time_ps)st->rtt_ps) {
        u->cwnd += u->inc / u->cwnd;
        if (now - u->last_adjust_ps >= (sim_time_ps)st->rtt_ps) {
            u->cwnd += st->eta;
            u->last_adjust_ps = now;
        }
        u->inc = 0;
        u->received = 0;
    }
    bounds(st, u);
}

static void stop_speculating(struct nscc_qp *u) {
    if (!u->speculating) return;
    u->speculating = 0;
    if (u->credit > 0) u->credit = 0;
}

static void nscc_on_ack(struct net *n, uint32_t qp, const struct packet *p) {
    struct nscc_state *st = n->cc_state;
    struct nscc_qp *u = qp_of(n, qp);
    const struct qp *q = &n->qps[qp];
    if (p->type == PKT_PULL) {
        stop_speculating(u);
        u->credit += p->aux;
        if ((double)u->credit > st->maxwnd) u->credit = (int64_t)st->maxwnd;
        nic_activate(n, qp);
        return;
    }
    if (p->type == PKT_NAK && !(p->flags & PKT_F_TRIMMED)) return; /* a hole: no CC signal */
    if (st->rccc) stop_speculating(u);
    int64_t wire = PKT_ACK_WIRE(p->payload_bytes);
    u->inflight = u->inflight > wire ? u->inflight - wire : 0;
    if (p->type == PKT_ACK && p->aux >= q->max_sent_psn) u->inflight = 0; /* all acknowledged */
    if (st->nscc && p->type == PKT_NAK) {
        /* htsim updateCwndOnNack_NSCC: the trim says the queue reached its
         * threshold; the delay average sees a network RTT of queueing. */
        u->ignored += (uint64_t)wire;
        u->cases[NSCC_NAK]++;
        update_delay(st, &n->sc->fabric.nscc, u, st->rtt_ps, true);
        u->trigger_qa = 1;
        /* a trim at the receiver's own link is RCCC's to handle (htsim
         * updateCwndOnNack_NSCC: no decrease for a last-hop trim under RCCC) */
        bool last_hop = p->flags & PKT_F_LAST;
        if (!quick_adapt(n, u, true, true, 0) && (!st->rccc || !last_hop)) {
            u->cwnd -= (double)wire;
            bounds(st, u);
        }
    } else if (st->nscc) {
        bool ce = p->flags & PKT_F_ECN_CE;
        sim_time_ps raw = n->sim->now_ps - p->sent_ps;
        if (raw < u->base_rtt_ps) u->base_rtt_ps = raw;
        double delay = u->avg_delay;
        if (raw >= u->base_rtt_ps) {
            delay = (double)(raw - u->base_rtt_ps);
            update_delay(st, &n->sc->fabric.nscc, u, delay, ce);
        }
        u->achieved += (uint64_t)wire;
        u->received += (uint64_t)wire;
        u->ignored += (uint64_t)wire;
        on_ack_window(n, u, ce, delay, (double)wire);
    }
    nic_activate(n, qp);
}

static sim_time_ps nscc_send_time(struct net *n, uint32_t qp) {
    struct nscc_state *st = n->cc_state;
    struct nscc_qp *u = qp_of(n, qp);
    const struct qp *q = &n->qps[qp];
    if (q->retries_total != u->seen_retries) {
        /* A retransmission timeout: what was in flight is deemed lost (htsim
         * rtxTimerExpired), and RCCC lets one packet go without a grant. */
        u->seen_retries = q->retries_total;
        u->inflight = 0;
        if (u->credit < (int64_t)st->minwnd) u->credit = (int64_t)st->minwnd;
    }
    if (st->rccc && u->credit <= 0) {
        /* An idle QP (nothing in flight) with new data and no credit sends
         * one packet, which asks for credit (htsim's RTS). */
        if (q->una < q->max_sent_psn || u->inflight > 0) return SIM_TIME_NEVER;
        u->credit = (int64_t)st->minwnd;
    }
    if (st->nscc && (double)u->inflight + st->minwnd > u->cwnd) return SIM_TIME_NEVER;
    return n->sim->now_ps;
}

static void nscc_on_sent(struct net *n, uint32_t qp, const struct packet *p) {
    struct nscc_qp *u = qp_of(n, qp);
    u->inflight += p->wire_bytes;
    u->credit -= p->wire_bytes;
}

/* RCCC receiver ----------------------------------------------------------- */

static void pacer_arm(struct net *n, uint32_t node, sim_time_ps at) {
    struct nscc_state *st = n->cc_state;
    st->rx[n->nodes[node].index].busy = 1;
    sim_at(n->sim, at, node + 1, NET_EV_CC, node, 0);
}

static void nscc_on_rx_data(struct net *n, uint32_t qp, const struct packet *p) {
    struct nscc_state *st = n->cc_state;
    if (!st->rccc || p->type != PKT_DATA) return;
    struct nscc_qp *u = qp_of(n, qp);
    u->recvd += net_data_wire_bytes(n, p->payload_bytes, p->flags & PKT_F_FIRST);
    u->last_rx_ps = n->sim->now_ps;
    /* a trimmed packet will be resent: its sender needs credit for it */
    u->want = (p->flags & (PKT_F_PULL_REQ | PKT_F_TRIMMED)) != 0;
    if (!u->want || u->in_ring) return;
    uint32_t node = n->qps[qp].dst;
    struct nscc_rx *r = &st->rx[n->nodes[node].index];
    u->in_ring = 1;
    u->ring_next = NET_NONE;
    if (r->tail == NET_NONE)
        r->head = qp;
    else
        st->q[r->tail].ring_next = qp;
    r->tail = qp;
    if (!r->busy) pacer_arm(n, node, n->sim->now_ps);
}

/* The pacer of receiving node e->arg: one grant to the next QP that wants
 * credit and has less than MaxWnd granted and not yet received. */
static void on_pacer(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct nscc_state *st = n->cc_state;
    uint32_t node = e->arg;
    struct nscc_rx *r = &st->rx[n->nodes[node].index];
    r->busy = 0;
    uint32_t len = 0;
    for (uint32_t qp = r->head; qp != NET_NONE; qp = st->q[qp].ring_next)
        len++;
    for (uint32_t k = 0; k < len; k++) {
        uint32_t qp = r->head;
        struct nscc_qp *u = &st->q[qp];
        r->head = u->ring_next;
        if (r->head == NET_NONE) r->tail = NET_NONE;
        u->ring_next = NET_NONE;
        /* the sender's request is stale once all it posted is acknowledged */
        if (!u->want || n->qps[qp].error || n->qps[qp].una >= n->qps[qp].posted_pkts) {
            u->in_ring = 0;
            continue;
        }
        /* back at the tail either way */
        if (r->tail == NET_NONE)
            r->head = qp;
        else
            st->q[r->tail].ring_next = qp;
        r->tail = qp;
        if ((double)(u->granted - u->recvd) >= st->maxwnd) {
            /* Granted bytes that never came back (lost data, lost PULLs)
             * would hold the QP at its cap for ever: after two network RTTs
             * without an arrival from it, they are written off. */
            if (s->now_ps - u->last_rx_ps <= 2 * (sim_time_ps)st->rtt_ps) continue;
            u->granted = u->recvd;
        }
        u->granted += (int64_t)st->credit_bytes;
        n->c.credit_grants++;
        n->c.credit_bytes += st->credit_bytes;
        /* each grant on its own path, so that a dead one delays a grant,
         * not all of them (the QP's reverse digest mixed with the count) */
        uint32_t h = n->qps[qp].flow_hash[1] ^ (uint32_t)flow_fmix64(n->c.credit_grants);
        nic_send_ctrl_via(n, node, qp, PKT_PULL, (uint32_t)st->credit_bytes, h);
        pacer_arm(n, node, s->now_ps + st->pull_gap_ps);
        return;
    }
    if (r->head != NET_NONE) pacer_arm(n, node, s->now_ps + st->pull_gap_ps); /* all at their cap */
}

/* ECN marking at the switches (RED per egress class, fabric.ecn; UET
 * defaults from the trimming threshold, config/scenario_uet.c). */
static void nscc_on_enqueue(struct net *n, uint32_t sw, uint32_t out_port, struct packet *p) {
    if (p->type != PKT_DATA || !(p->flags & PKT_F_ECT) || (p->flags & PKT_F_ECN_CE)) return;
    struct nscc_state *st = n->cc_state;
    const struct ecn_params *e = &n->sc->fabric.ecn;
    uint64_t q = n->ports[out_port].cls[p->prio % NET_NCLASS].bytes;
    if (q <= e->kmin_bytes) return;
    if (q <= e->kmax_bytes) {
        double prob = e->pmax * (double)(q - e->kmin_bytes) /
                      (double)(e->kmax_bytes > e->kmin_bytes ? e->kmax_bytes - e->kmin_bytes : 1);
        if (rng_uniform(&st->sw_rng[n->nodes[sw].index]) >= prob) return;
    }
    p->flags |= PKT_F_ECN_CE;
    n->c.ecn_marked++;
    if (!n->c.first_mark_ps) n->c.first_mark_ps = n->sim->now_ps;
}

static int nscc_init(struct net *n, struct diag *d) {
    (void)d;
    const struct fabric_params *f = &n->sc->fabric;
    struct nscc_state *st = fs_xcalloc(1, sizeof *st);
    n->cc_state = st;
    enum cc_kind k = f->congestion_control;
    st->nscc = k == CC_NSCC || k == CC_NSCC_RCCC;
    st->rccc = k == CC_RCCC || k == CC_NSCC_RCCC;
    uint64_t rtt, target;
    nscc_derived(n, &rtt, &target, &st->maxwnd);
    st->rtt_ps = (double)rtt;
    st->target_ps = (double)target;
    st->bdp = st->maxwnd / MAX_WND_BDP;
    st->minwnd = (double)net_data_wire_bytes(n, n->mtu_bytes, false); /* htsim _min_cwnd = _mtu */
    double a = st->bdp / REF_BDP_BYTES, b = st->target_ps / REF_RTT_PS, mss = n->mtu_bytes;
    st->alpha = 4.0 * mss * a * b / st->target_ps; /* per byte acked per ps below target */
    st->fi = 5.0 * mss * a;
    st->eta = 0.15 * mss * a;
    st->fi_scale = 0.25 * a;
    st->qa_thresh_ps = 4.0 * st->target_ps;
    st->adjust_bytes = 8.0 * st->minwnd;
    st->credit_bytes = f->rccc.credit_bytes ? f->rccc.credit_bytes : 4 * (uint64_t)st->minwnd;
    st->pull_gap_ps =
        (uint64_t)((double)time_serialise_ps(st->credit_bytes, f->link_bps) / PULL_RATE);
    st->rx = fs_xcalloc(n->nhosts + 1, sizeof *st->rx);
    for (uint32_t h = 0; h <= n->nhosts; h++)
        st->rx[h].head = st->rx[h].tail = NET_NONE;
    st->sw_rng = net_switch_rngs(n, NSCC_RNG_STREAM);
    sim_register(n->sim, NET_EV_CC, on_pacer);
    return 0;
}

static void nscc_fini(struct net *n) {
    struct nscc_state *st = n->cc_state;
    if (!st) return;
    free(st->q);
    free(st->rx);
    free(st->sw_rng);
    free(st);
    n->cc_state = NULL;
}

double nscc_cwnd_bytes(struct net *n, uint32_t qp) {
    return qp_of(n, qp)->cwnd;
}

uint64_t nscc_cases(struct net *n, uint32_t qp, int which) {
    return which >= 0 && which < NSCC_NCASES ? qp_of(n, qp)->cases[which] : 0;
}

const struct cc_ops cc_nscc_ops = {
    .name = "nscc",
    .init = nscc_init,
    .fini = nscc_fini,
    .send_time = nscc_send_time,
    .on_sent = nscc_on_sent,
    .on_rx_data = nscc_on_rx_data,
    .on_enqueue = nscc_on_enqueue,
    .on_feedback = nscc_on_ack,
};

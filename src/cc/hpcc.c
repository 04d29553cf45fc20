/* src/cc/hpcc.c
 *
 * HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019;
 * docs/sources.md A7) in its three places:
 *  - switches: in-band telemetry. Every switch egress port that starts a data
 *    packet on the wire appends one hop record: the bytes its queues hold
 *    (qlen, after the packet left them), the bytes it has transmitted
 *    (tx_bytes, this packet not counted), the time and the link's rate, as
 *    the authors' ns-3 SwitchNode::SwitchNotifyDequeue does, up to 5 hops
 *    (IntHeader::maxHop).
 *  - receiver NIC: the ACK it sends for a QP carries the hop records of the
 *    latest data packet of that QP it received (the INT echo).
 *  - sender NIC, per ACK: for each hop, txRate = d(tx_bytes) / d(ts) since the
 *    previous ACK's record and u_i = min(qlen, qlen') / (B_i T) + txRate / B_i;
 *    U is the largest u_i, smoothed as U = (1 - tau/T) U + (tau/T) u with tau
 *    that hop's interval (at most T). The window law (the paper's
 *    Algorithm 1): if U >= eta or incStage >= maxStage, W = Wc / (U / eta) +
 *    W_AI, else W = Wc + W_AI; R = W / T paces the QP and W bounds the bytes
 *    in flight. The reference window Wc and incStage are updated once per RTT
 *    (the first ACK beyond the PSN sent when Wc was last set); other ACKs
 *    compute W from the same Wc (the paper's "fast reaction").
 * The hop records do not fit the 64-byte packet, so they live beside it in a
 * table indexed by packet id, grown with the pool (never per packet).
 */
#include "cc/cc.h"

#include "core/mem.h"
#include "net/net.h"
#include "net/nic.h"
#include "net/params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HPCC_MAX_HOP 5 /* ns-3 IntHeader::maxHop (docs/sources.md A7) */

struct int_hop {
    uint64_t ts_ps;
    uint64_t tx_bytes;
    uint64_t rate_bps;
    uint32_t qlen_bytes;
    uint32_t port; /* which egress stamped it: a sprayed packet's hop i may be another port */
};

struct int_rec {
    uint32_t nhop; /* hops stamped; above HPCC_MAX_HOP: the path was too long */
    uint32_t pad;
    struct int_hop hop[HPCC_MAX_HOP];
};

struct hq {
    double rate_bps; /* R: the pacing rate (W / T) */
    double ref_bps;  /* Wc / T: the reference, updated once per RTT */
    double u;        /* smoothed normalised inflight U */
    sim_time_ps next_send_ps;
    sim_time_ps rtt_ps;   /* T: configured, or the smallest RTT sample */
    sim_time_ps probe_ps; /* send time of the RTT probe packet */
    uint32_t probe_psn;
    uint32_t last_update_psn; /* Wc is next updated by an ACK beyond this */
    uint32_t inc_stage;
    uint8_t init, probing, have_ref, pad;
    struct int_rec prev; /* sender: the hop records of the previous ACK */
    struct int_rec rx;   /* receiver: the latest data packet's records (echoed) */
};

struct hpcc_state {
    struct hq *q;
    size_t nq;
    struct int_rec *pk; /* per packet id */
    size_t npk;
};

static double line_bps(const struct net *n, uint32_t qp) {
    return (double)n->ports[nic_port(n, n->qps[qp].src)].rate_bps;
}

static struct hq *hq_of(struct net *n, uint32_t qp) {
    struct hpcc_state *st = n->cc_state;
    if (qp >= st->nq) fs_grow((void **)&st->q, &st->nq, (size_t)qp + 1, sizeof *st->q);
    struct hq *h = &st->q[qp];
    if (!h->init) {
        h->init = 1;
        h->rate_bps = h->ref_bps = line_bps(n, qp); /* W_init = B x T */
        h->u = 1.0;                                 /* as the artifact's RdmaQueuePair starts it */
        h->rtt_ps = n->sc->fabric.hpcc.base_rtt_ps;
    }
    return h;
}

static struct int_rec *rec_of(struct net *n, const struct packet *p) {
    struct hpcc_state *st = n->cc_state;
    size_t id = (size_t)(p - n->pool.base);
    if (id >= st->npk) fs_grow((void **)&st->pk, &st->npk, id + 1, sizeof *st->pk);
    return &st->pk[id];
}

static double rate_ai_bps(const struct net *n, uint32_t qp) {
    const struct hpcc_params *hp = &n->sc->fabric.hpcc;
    if (hp->rate_ai_bps) return (double)hp->rate_ai_bps;
    /* the artifact's run.py: RATE_AI = 10 Mb/s x bw / 25 Gb/s */
    return 10e6 * line_bps(n, qp) / 25e9;
}

static sim_time_ps hpcc_send_time(struct net *n, uint32_t qp) {
    struct hq *h = hq_of(n, qp);
    const struct qp *q = &n->qps[qp];
    if (h->rtt_ps) {
        /* W = R x T bounds the bytes in flight */
        double w = h->rate_bps * (double)h->rtt_ps / 8e12;
        double inflight = (double)(q->next_psn - q->una) * n->mtu_bytes;
        if (q->next_psn > q->una && inflight >= w) return SIM_TIME_NEVER; /* an ACK reopens it */
    }
    return h->next_send_ps > n->sim->now_ps ? h->next_send_ps : n->sim->now_ps;
}

static void hpcc_on_sent(struct net *n, uint32_t qp, const struct packet *p) {
    struct hq *h = hq_of(n, qp);
    sim_time_ps now = n->sim->now_ps;
    h->next_send_ps = now + (sim_time_ps)((double)p->wire_bytes * 8e12 / h->rate_bps);
    rec_of(n, p)->nhop = 0; /* a fresh INT header */
    if (!n->sc->fabric.hpcc.base_rtt_ps && !h->probing && !(p->flags & PKT_F_RETX)) {
        h->probing = 1;
        h->probe_psn = p->psn;
        h->probe_ps = now;
    }
}

static void hpcc_on_rx_data(struct net *n, uint32_t qp, const struct packet *p) {
    hq_of(n, qp)->rx = *rec_of(n, p);
}

static void hpcc_on_tx(struct net *n, uint32_t port, struct packet *p) {
    const struct port *pt = &n->ports[port];
    if (pt->is_host) {
        /* the receiver's ACK carries the QP's latest hop records */
        if (p->type == PKT_ACK && n->qps[p->qp].dst == pt->node)
            *rec_of(n, p) = hq_of(n, p->qp)->rx;
        return;
    }
    if (p->type != PKT_DATA) return;
    struct int_rec *r = rec_of(n, p);
    if (r->nhop < HPCC_MAX_HOP) {
        struct int_hop *h = &r->hop[r->nhop];
        h->ts_ps = n->sim->now_ps;
        h->tx_bytes = pt->tx_bytes;
        h->qlen_bytes = pt->q_bytes < UINT32_MAX ? (uint32_t)pt->q_bytes : UINT32_MAX;
        h->rate_bps = pt->rate_bps;
        h->port = port;
    }
    if (r->nhop <= HPCC_MAX_HOP) r->nhop++;
}

/* The paper's MeasureInflight and ComputeWind on one ACK's hop records;
 * `update` sets the reference (once per RTT). */
static void react(struct net *n, uint32_t qp, struct hq *h, const struct int_rec *r, bool update) {
    const struct hpcc_params *hp = &n->sc->fabric.hpcc;
    double T = (double)h->rtt_ps;
    double U = 0;
    uint64_t dt = 0;
    bool any = false;
    for (uint32_t i = 0; i < r->nhop; i++) {
        const struct int_hop *a = &r->hop[i], *b = &h->prev.hop[i];
        /* the same record again, or another port (a sprayed path): no rate */
        if (a->port != b->port || a->ts_ps <= b->ts_ps || a->tx_bytes < b->tx_bytes) continue;
        uint64_t tau = a->ts_ps - b->ts_ps;
        double tx_bps = (double)(a->tx_bytes - b->tx_bytes) * 8e12 / (double)tau;
        uint32_t qlen = a->qlen_bytes < b->qlen_bytes ? a->qlen_bytes : b->qlen_bytes;
        double u = tx_bps / (double)a->rate_bps + (double)qlen * 8e12 / ((double)a->rate_bps * T);
        if (u > U) {
            U = u;
            dt = tau;
        }
        any = true;
    }
    if (!any) return;
    if ((double)dt > T) dt = h->rtt_ps;
    h->u = (h->u * (T - (double)dt) + U * (double)dt) / T;
    double c = h->u / hp->eta, rate;
    uint32_t stage;
    if (c >= 1 || h->inc_stage >= hp->max_stage) {
        rate = h->ref_bps / c + rate_ai_bps(n, qp);
        stage = 0;
    } else {
        rate = h->ref_bps + rate_ai_bps(n, qp);
        stage = h->inc_stage + 1;
    }
    double lo = (double)hp->min_rate_bps, hi = line_bps(n, qp);
    rate = rate < lo ? lo : rate > hi ? hi : rate;
    h->rate_bps = rate;
    if (update) {
        h->ref_bps = rate;
        h->inc_stage = stage;
    }
}

static void hpcc_on_ack(struct net *n, uint32_t qp, const struct packet *p) {
    struct hq *h = hq_of(n, qp);
    const struct qp *q = &n->qps[qp];
    sim_time_ps now = n->sim->now_ps;
    if (h->probing && p->aux > h->probe_psn) { /* an RTT sample: T is the smallest */
        h->probing = 0;
        sim_time_ps s = now - h->probe_ps;
        if (!h->rtt_ps || s < h->rtt_ps) h->rtt_ps = s;
    }
    const struct int_rec *r = rec_of(n, p);
    if (r->nhop > HPCC_MAX_HOP || !h->rtt_ps) {
        nic_activate(n, qp);
        return;
    }
    if (!h->have_ref) { /* the first ACK: records to compare the next with */
        h->have_ref = 1;
        h->last_update_psn = q->next_psn;
    } else if (r->nhop == h->prev.nhop) {
        bool update = p->aux > h->last_update_psn;
        react(n, qp, h, r, update);
        if (update) h->last_update_psn = q->next_psn;
    }
    h->prev = *r;
    nic_activate(n, qp); /* the window may have opened */
}

static int hpcc_init(struct net *n, struct diag *d) {
    (void)d;
    n->cc_state = fs_xcalloc(1, sizeof(struct hpcc_state));
    return 0;
}

static void hpcc_fini(struct net *n) {
    struct hpcc_state *st = n->cc_state;
    if (!st) return;
    free(st->q);
    free(st->pk);
    free(st);
    n->cc_state = NULL;
}

double hpcc_rate_bps(struct net *n, uint32_t qp) {
    return hq_of(n, qp)->rate_bps;
}

double hpcc_window_bytes(struct net *n, uint32_t qp) {
    const struct hq *h = hq_of(n, qp);
    return h->rate_bps * (double)h->rtt_ps / 8e12;
}

void hpcc_defaults(struct hpcc_params *hp) {
    /* docs/sources.md A7: eta 95 %, maxStage 5 (paper s5), W_AI from the
     * artifact's RATE_AI (run.py), MIN_RATE 1000 Mb/s (run.py). */
    memset(hp, 0, sizeof *hp);
    hp->eta = 0.95;
    hp->max_stage = 5;
    hp->min_rate_bps = 1000ull * 1000 * 1000;
}

const struct cc_ops cc_hpcc_ops = {
    .name = "hpcc",
    .init = hpcc_init,
    .fini = hpcc_fini,
    .send_time = hpcc_send_time,
    .on_sent = hpcc_on_sent,
    .on_rx_data = hpcc_on_rx_data,
    .on_tx = hpcc_on_tx,
    .on_ack = hpcc_on_ack,
};

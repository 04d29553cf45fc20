/* src/cc/dctcp.c
 *
 * DCTCP (Alizadeh et al., "Data Center TCP", SIGCOMM 2010) on an RDMA NIC,
 * as the HPCC artifact runs it (alibaba-edu/High-Precision-Congestion-Control
 * `rdma-hw.cc` HandleAckDctcp, run.py `--cc dctcp`; docs/sources.md A7):
 *  - switches mark CE on data packets from the egress queue of their class
 *    with fabric.ecn (DCTCP's step: kmin = kmax = K, pmax 1);
 *  - the receiver's next ACK carries ECN-echo (PKT_F_ECE) when a CE-marked
 *    data packet of the QP arrived since its last ACK;
 *  - the sender keeps alpha, the fraction of marked ACKs per window
 *    (alpha = (1 - g) alpha + g F, once per RTT: the first ACK beyond the
 *    PSN sent at the last update), cuts its rate once per window on an echo
 *    (R = R (1 - alpha/2), then CWR until the PSN sent at the cut is
 *    acknowledged), and adds `rate_ai` per RTT outside CWR. The rate paces
 *    the QP and R x T bounds its bytes in flight (the artifact's VAR_WIN).
 * T is each QP's smallest measured RTT unless `base_rtt` is given.
 */
#include "cc/cc.h"

#include "core/mem.h"
#include "core/rng.h"
#include "net/net.h"
#include "net/nic.h"
#include "net/params.h"

#include <stdlib.h>
#include <string.h>

#define DCTCP_RNG_STREAM 0x44435450u /* "DCTP" */

struct tq {
    double rate_bps, alpha;
    sim_time_ps next_send_ps;
    sim_time_ps rtt_ps, probe_ps;
    uint32_t probe_psn;
    uint32_t last_update_psn; /* alpha is next updated by an ACK beyond this */
    uint32_t high_psn;        /* CWR ends when an ACK passes this */
    uint32_t ecn_acks, batch; /* echoed ACKs in the window, and the window in packets */
    uint8_t init, probing, started, cwr;
    uint8_t rx_ce; /* receiver: a CE packet arrived since its last ACK */
    uint8_t pad[3];
};

struct dctcp_state {
    struct tq *q;
    size_t nq;
    struct rng *sw_rng; /* per switch index */
};

static double line_bps(const struct net *n, uint32_t qp) {
    return (double)n->ports[nic_port(n, n->qps[qp].src)].rate_bps;
}

static struct tq *tq_of(struct net *n, uint32_t qp) {
    struct dctcp_state *st = n->cc_state;
    if (qp >= st->nq) fs_grow((void **)&st->q, &st->nq, (size_t)qp + 1, sizeof *st->q);
    struct tq *t = &st->q[qp];
    if (!t->init) {
        t->init = 1;
        t->rate_bps = line_bps(n, qp);
        t->alpha = 1.0; /* as the artifact's RdmaQueuePair starts it */
        t->rtt_ps = n->sc->fabric.dctcp.base_rtt_ps;
    }
    return t;
}

static sim_time_ps dctcp_send_time(struct net *n, uint32_t qp) {
    struct tq *t = tq_of(n, qp);
    const struct qp *q = &n->qps[qp];
    if (t->rtt_ps && q->next_psn > q->una) {
        double w = t->rate_bps * (double)t->rtt_ps / 8e12;
        if ((double)(q->next_psn - q->una) * n->mtu_bytes >= w) return SIM_TIME_NEVER;
    }
    return t->next_send_ps > n->sim->now_ps ? t->next_send_ps : n->sim->now_ps;
}

static void dctcp_on_sent(struct net *n, uint32_t qp, const struct packet *p) {
    struct tq *t = tq_of(n, qp);
    sim_time_ps now = n->sim->now_ps;
    t->next_send_ps = now + (sim_time_ps)((double)p->wire_bytes * 8e12 / t->rate_bps);
    if (!n->sc->fabric.dctcp.base_rtt_ps && !t->probing && !(p->flags & PKT_F_RETX)) {
        t->probing = 1;
        t->probe_psn = p->psn;
        t->probe_ps = now;
    }
}

static void dctcp_on_rx_data(struct net *n, uint32_t qp, const struct packet *p) {
    if (p->flags & PKT_F_ECN_CE) tq_of(n, qp)->rx_ce = 1;
}

static void dctcp_on_tx(struct net *n, uint32_t port, struct packet *p) {
    const struct port *pt = &n->ports[port];
    if (!pt->is_host || p->type != PKT_ACK || n->qps[p->qp].dst != pt->node) return;
    struct tq *t = tq_of(n, p->qp);
    if (t->rx_ce) p->flags |= PKT_F_ECE;
    t->rx_ce = 0;
}

/* RED/ECN per egress queue (traffic class), as cc/dcqcn.c's CP. */
static void dctcp_on_enqueue(struct net *n, uint32_t sw, uint32_t out_port, struct packet *p) {
    if (p->type != PKT_DATA || !(p->flags & PKT_F_ECT) || (p->flags & PKT_F_ECN_CE)) return;
    const struct ecn_params *e = &n->sc->fabric.ecn;
    uint64_t q = n->ports[out_port].cls[p->prio % NET_NCLASS].bytes;
    if (q <= e->kmin_bytes) return;
    if (q <= e->kmax_bytes) {
        double prob = e->pmax * (double)(q - e->kmin_bytes) /
                      (double)(e->kmax_bytes > e->kmin_bytes ? e->kmax_bytes - e->kmin_bytes : 1);
        struct dctcp_state *st = n->cc_state;
        if (rng_uniform(&st->sw_rng[n->nodes[sw].index]) >= prob) return;
    }
    p->flags |= PKT_F_ECN_CE;
    n->c.ecn_marked++;
    if (!n->c.first_mark_ps) n->c.first_mark_ps = n->sim->now_ps;
}

static void dctcp_on_ack(struct net *n, uint32_t qp, const struct packet *p) {
    struct tq *t = tq_of(n, qp);
    const struct dctcp_params *dp = &n->sc->fabric.dctcp;
    const struct qp *q = &n->qps[qp];
    sim_time_ps now = n->sim->now_ps;
    uint32_t ack = p->aux;
    if (t->probing && ack > t->probe_psn) {
        t->probing = 0;
        sim_time_ps s = now - t->probe_ps;
        if (!t->rtt_ps || s < t->rtt_ps) t->rtt_ps = s;
    }
    bool ece = p->flags & PKT_F_ECE, new_batch = false;
    t->ecn_acks += ece;
    if (!t->started || ack > t->last_update_psn) {
        new_batch = true;
        if (!t->started) {
            t->started = 1;
            t->batch = q->next_psn + 1;
        } else {
            double frac = (double)t->ecn_acks / (double)t->batch;
            t->alpha = (1 - dp->g) * t->alpha + dp->g * (frac < 1 ? frac : 1);
            t->batch = q->next_psn - ack + 1;
        }
        t->last_update_psn = q->next_psn;
        t->ecn_acks = 0;
    }
    if (t->cwr && ack > t->high_psn) t->cwr = 0;
    double lo = (double)dp->min_rate_bps, hi = line_bps(n, qp);
    if (ece && !t->cwr) {
        t->rate_bps *= 1 - t->alpha / 2;
        if (t->rate_bps < lo) t->rate_bps = lo;
        t->cwr = 1;
        t->high_psn = q->next_psn;
    }
    if (!t->cwr && new_batch && t->rtt_ps) {
        double ai = dp->rate_ai_bps
                        ? (double)dp->rate_ai_bps
                        : (double)(n->mtu_bytes + n->overhead_bytes) * 8e12 / (double)t->rtt_ps;
        t->rate_bps = t->rate_bps + ai < hi ? t->rate_bps + ai : hi;
    }
    nic_activate(n, qp); /* the window may have opened */
}

static int dctcp_init(struct net *n, struct diag *d) {
    (void)d;
    struct dctcp_state *st = fs_xcalloc(1, sizeof *st);
    n->cc_state = st;
    st->sw_rng = net_switch_rngs(n, DCTCP_RNG_STREAM);
    return 0;
}

static void dctcp_fini(struct net *n) {
    struct dctcp_state *st = n->cc_state;
    if (!st) return;
    free(st->q);
    free(st->sw_rng);
    free(st);
    n->cc_state = NULL;
}

double dctcp_rate_bps(struct net *n, uint32_t qp) {
    return tq_of(n, qp)->rate_bps;
}

double dctcp_alpha(struct net *n, uint32_t qp) {
    return tq_of(n, qp)->alpha;
}

const struct cc_ops cc_dctcp_ops = {
    .name = "dctcp",
    .init = dctcp_init,
    .fini = dctcp_fini,
    .send_time = dctcp_send_time,
    .on_sent = dctcp_on_sent,
    .on_rx_data = dctcp_on_rx_data,
    .on_enqueue = dctcp_on_enqueue,
    .on_tx = dctcp_on_tx,
    .on_ack = dctcp_on_ack,
};

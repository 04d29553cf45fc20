/* src/cc/ibcc.c
 *
 * InfiniBand congestion control (IBA vol. 1 Annex A10) as OpenSM's
 * congestion-control manager configures it (docs/sources.md A12, docs/model.md):
 *  - switch: a port whose VL queue is past the threshold, and that could
 *    send (it is the root of the congestion, not a victim waiting for
 *    credits), sets FECN on one eligible data packet in every
 *    marking_rate + 1; packets below packet_size are never marked;
 *  - destination HCA: every FECN-marked packet is answered with a BECN to
 *    the source QP (a congestion notification on the QP's VL);
 *  - source HCA: each BECN raises the QP's CCTI by ccti_increase (up to
 *    ccti_limit); a timer lowers it by one every ccti_timer down to ccti_min;
 *    the Congestion Control Table maps CCTI to an injection delay added after
 *    each packet the QP sends (entry i = i x cct_step: a linear table).
 * The threshold's 0..15 scale is the manager's "aggressiveness"; the model
 * marks above (16 - threshold) / 16 of the VL's input buffer (15: 1/16).
 * QPs without BECNs cost nothing: their timer runs only while CCTI > min.
 */
#include "cc/cc.h"

#include "net/params.h"
#include "core/mem.h"
#include "core/time.h"
#include "flowctl/flowctl.h"
#include "net/net.h"
#include "net/nic.h"

#include <stdlib.h>
#include <string.h>

/* How long after its last wait for credits a port still counts as a victim
 * (no marking): a few packet times at 400 G (fabsim's choice). */
#define VICTIM_PS (2 * PS_PER_US)

struct iq {
    sim_time_ps next_send_ps;
    uint16_t ccti;
    uint8_t timer_on;
    uint8_t pad[5];
};

struct ibcc_state {
    struct iq *q;
    size_t nq;
    sim_time_ps timer_ps, step_ps; /* ccti_timer and cct_step, `auto` resolved */
    uint16_t *mark_cnt;            /* per (port, VL): eligible packets since the last mark */
    uint64_t *stall_seen;          /* per port: credit_stall_ps when last looked at */
    sim_time_ps *stall_at;         /* per port: when it last grew (a credit wait ended) */
    uint64_t threshold_bytes;      /* VL queue depth above which a port marks */
};

static struct iq *iq_of(struct net *n, uint32_t qp) {
    struct ibcc_state *st = n->cc_state;
    if (qp >= st->nq) /* QPs are made by the workload after init: grow (amortised) */
        fs_grow((void **)&st->q, &st->nq, (size_t)qp + 1, sizeof *st->q);
    return &st->q[qp];
}

static void arm(struct net *n, uint32_t qp, struct iq *q) {
    q->timer_on = 1;
    const struct ibcc_state *st = n->cc_state;
    sim_at(n->sim, n->sim->now_ps + st->timer_ps, n->qps[qp].src + 1, NET_EV_CC, qp, 0);
}

static void on_timer(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    const struct ibcc_params *p = &n->sc->fabric.ibcc;
    struct iq *q = iq_of(n, e->arg);
    q->timer_on = 0;
    if (q->ccti > p->ccti_min) q->ccti--;
    if (q->ccti > p->ccti_min) arm(n, e->arg, q);
}

static sim_time_ps ibcc_send_time(struct net *n, uint32_t qp) {
    const struct ibcc_state *st = n->cc_state;
    if (qp >= st->nq) return n->sim->now_ps;
    return st->q[qp].next_send_ps;
}

static void ibcc_on_sent(struct net *n, uint32_t qp, const struct packet *p) {
    struct iq *q = iq_of(n, qp);
    sim_time_ps now = n->sim->now_ps;
    if (!q->ccti) {
        q->next_send_ps = now;
        return;
    }
    /* The injection delay counts from the end of this packet's serialisation. */
    const struct port *pt = &n->ports[nic_port_to(n, n->qps[qp].src, n->qps[qp].dst)];
    q->next_send_ps = now + time_serialise_ps(p->wire_bytes, pt->rate_bps) +
                      (sim_time_ps)q->ccti * ((const struct ibcc_state *)n->cc_state)->step_ps;
}

/* Destination HCA: a FECN asks for a BECN back to the source. */
static void ibcc_on_rx_data(struct net *n, uint32_t qp, const struct packet *p) {
    if (!(p->flags & PKT_F_ECN_CE)) return;
    n->c.cnps++;
    nic_send_ctrl(n, n->qps[qp].dst, qp, PKT_CNP, 0);
}

static void ibcc_on_becn(struct net *n, uint32_t qp) {
    const struct ibcc_params *p = &n->sc->fabric.ibcc;
    struct iq *q = iq_of(n, qp);
    uint32_t c = q->ccti + p->ccti_increase;
    q->ccti = (uint16_t)(c > p->ccti_limit ? p->ccti_limit : c);
    if (q->ccti > p->ccti_min && !q->timer_on) arm(n, qp, q);
}

static void ibcc_on_enqueue(struct net *n, uint32_t sw, uint32_t out_port, struct packet *p) {
    (void)sw;
    if (p->type != PKT_DATA || (p->flags & PKT_F_ECN_CE)) return;
    const struct ibcc_params *ip = &n->sc->fabric.ibcc;
    struct ibcc_state *st = n->cc_state;
    if (!ip->threshold || p->wire_bytes < ip->packet_size_bytes) return;
    uint32_t vl = p->prio % NET_NCLASS;
    if (n->ports[out_port].cls[vl].bytes <= st->threshold_bytes) return;
    /* A port waiting for credits is a victim of congestion further on, not
     * its root: it does not mark (the manager's victim mask is clear). It
     * counts as one while it waits, and for a while after each wait ended. */
    if (!n->fc->can_send(n, out_port, vl, p->wire_bytes)) return;
    const struct port *pt = &n->ports[out_port];
    sim_time_ps now = n->sim->now_ps;
    if (pt->credit_stall_ps != st->stall_seen[out_port]) {
        st->stall_seen[out_port] = pt->credit_stall_ps;
        st->stall_at[out_port] = now;
    }
    if (st->stall_at[out_port] != SIM_TIME_NEVER && now - st->stall_at[out_port] < VICTIM_PS)
        return;
    uint16_t *cnt = &st->mark_cnt[(size_t)out_port * NET_NCLASS + vl];
    if (*cnt < ip->marking_rate) {
        (*cnt)++;
        return;
    }
    *cnt = 0;
    p->flags |= PKT_F_ECN_CE; /* FECN */
    n->c.ecn_marked++;
    if (!n->c.first_mark_ps) n->c.first_mark_ps = n->sim->now_ps;
}

static int ibcc_init(struct net *n, struct diag *d) {
    (void)d;
    const struct fabric_params *f = &n->sc->fabric;
    struct ibcc_state *st = fs_xcalloc(1, sizeof *st);
    n->cc_state = st;
    st->mark_cnt = fs_xcalloc((size_t)n->nports * NET_NCLASS + 1, sizeof *st->mark_cnt);
    st->stall_seen = fs_xcalloc(n->nports + 1, sizeof *st->stall_seen);
    st->stall_at = fs_xcalloc(n->nports + 1, sizeof *st->stall_at);
    for (uint32_t i = 0; i <= n->nports; i++)
        st->stall_at[i] = SIM_TIME_NEVER;
    uint32_t vls = f->ib.vls ? f->ib.vls : 1;
    uint64_t vlbuf = f->ib.vl_buffer_bytes ? f->ib.vl_buffer_bytes : f->buffer_bytes / vls;
    st->threshold_bytes = vlbuf * (16u - (f->ibcc.threshold ? f->ibcc.threshold : 15u)) / 16u;
    /* `auto`: the CC manager sizes the CCTI timer and the CCT from the number
     * of hosts (num_hosts 0 = the subnet's), by a formula it does not
     * publish. fabsim's stand-in: one N:1 incast sender gets a BECN every
     * (marking_rate + 1) x N MTU times, so a timer of half that lets its
     * CCTI climb; and the table reaches the N:1 share (an inter-packet delay
     * of about N MTU times) near CCTI 8 (docs/model.md, C). */
    sim_time_ps mtu_ps =
        time_serialise_ps(net_data_wire_bytes(n, f->mtu_bytes, false), f->link_bps);
    uint64_t hosts = n->nhosts > 2 ? n->nhosts : 2;
    st->timer_ps = f->ibcc.ccti_timer_ps;
    if (!st->timer_ps) {
        const sim_time_ps unit = 1024 * PS_PER_NS; /* IBA: CCTI_Timer in 1.024 us units */
        sim_time_ps t = (f->ibcc.marking_rate + 1ull) * mtu_ps * hosts / 2;
        st->timer_ps = (t + unit - 1) / unit * unit;
    }
    st->step_ps = f->ibcc.cct_step_ps;
    if (!st->step_ps) st->step_ps = mtu_ps * (hosts >= 8 ? hosts / 8 : 1);
    sim_register(n->sim, NET_EV_CC, on_timer);
    return 0;
}

static void ibcc_fini(struct net *n) {
    struct ibcc_state *st = n->cc_state;
    if (!st) return;
    free(st->q);
    free(st->mark_cnt);
    free(st->stall_seen);
    free(st->stall_at);
    free(st);
    n->cc_state = NULL;
}

uint32_t ibcc_ccti(struct net *n, uint32_t qp) {
    return iq_of(n, qp)->ccti;
}

const struct cc_ops cc_ibcc_ops = {
    .name = "ibcc",
    .init = ibcc_init,
    .fini = ibcc_fini,
    .send_time = ibcc_send_time,
    .on_sent = ibcc_on_sent,
    .on_rx_data = ibcc_on_rx_data,
    .on_cnp = ibcc_on_becn,
    .on_enqueue = ibcc_on_enqueue,
};

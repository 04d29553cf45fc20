/* src/cc/timely.c
 *
 * TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the
 * Datacenter", SIGCOMM 2015; docs/sources.md A7b): a sender-side, rate-based
 * control driven by the RTT of each completed segment, no switch support.
 *  - The QP sends segments of `segment` bytes back to back at line rate and
 *    paces segment starts at the current rate: the next segment may start
 *    segment_wire x 8 / rate after this one started (the paper's software
 *    pacer, 16-64 KB segments).
 *  - A segment's completion (the ACK beyond its last PSN) gives one RTT
 *    sample: completion - the segment's first send - its serialisation at
 *    line rate (the paper's RTT excludes the segment's own transmission).
 *  - Per sample (the paper's Algorithm 1): new_rtt_diff = rtt - prev_rtt;
 *    rtt_diff = (1 - alpha) rtt_diff + alpha new_rtt_diff; gradient =
 *    rtt_diff / min_rtt. rtt < t_low: rate += delta; rtt > t_high: rate *=
 *    1 - beta (1 - t_high / rtt); gradient <= 0: rate += N delta, N = 5 once
 *    the gradient has been <= 0 for hai_n completions in a row (HAI), else 1;
 *    gradient > 0: rate *= 1 - beta gradient. One decrease keeps at least
 *    max_decrease of the rate (the authors' code: half); the rate stays in
 *    [min_rate, line rate].
 * Parameters default to the authors' published code and the paper's
 * thresholds (10 G; docs/sources.md A7b). No events of
 * its own: everything happens in the send and ACK paths.
 */
#include "cc/cc.h"

#include "core/mem.h"
#include "net/net.h"
#include "net/nic.h"
#include "net/params.h"

#include <stdlib.h>
#include <string.h>

/* Segments of one QP in flight whose completion is awaited; beyond this many
 * a segment goes unsampled (its completion gives no RTT). 16 x 16 KB = 256 KB
 * in flight per QP, 210 us of RTT at 10 G: more only while a queue of several
 * hundred KB builds at the start, when the samples taken already cut. */
#define TIMELY_SEGS 16

struct tseg {
    sim_time_ps first_ps; /* the segment's first packet left the NIC */
    uint32_t last_psn;    /* ACK beyond this completes it */
    uint32_t wire_bytes;
};

struct tm {
    double rate_bps;
    double rtt_diff_ps; /* EWMA of successive RTT differences */
    sim_time_ps prev_rtt_ps;
    sim_time_ps next_send_ps;
    sim_time_ps seg_start_ps; /* first packet of the segment being sent */
    uint64_t seg_payload;     /* payload bytes of it so far */
    uint32_t seg_wire;
    uint32_t last_seg_wire; /* wire bytes of the last finished segment (its pacing gap) */
    uint32_t neg_count;     /* completions in a row with gradient <= 0 */
    uint64_t samples;
    struct tseg ring[TIMELY_SEGS];
    uint8_t head, len; /* ring of segments awaiting completion, oldest at head */
    uint8_t init, in_seg;
};

struct timely_state {
    struct tm *q;
    size_t nq;
};

static double line_bps(const struct net *n, uint32_t qp) {
    return (double)n->ports[nic_port(n, n->qps[qp].src)].rate_bps;
}

static struct tm *tm_of(struct net *n, uint32_t qp) {
    struct timely_state *st = n->cc_state;
    if (qp >= st->nq) fs_grow((void **)&st->q, &st->nq, (size_t)qp + 1, sizeof *st->q);
    struct tm *t = &st->q[qp];
    if (!t->init) {
        t->init = 1;
        t->rate_bps = line_bps(n, qp); /* a new flow starts at line rate */
    }
    return t;
}

static sim_time_ps timely_send_time(struct net *n, uint32_t qp) {
    struct tm *t = tm_of(n, qp);
    return t->next_send_ps > n->sim->now_ps ? t->next_send_ps : n->sim->now_ps;
}

/* When the next segment may start at the current rate (the pacer's gap is
 * the finished segment's wire bytes at `rate`). */
static sim_time_ps next_segment_ps(const struct tm *t, uint32_t seg_wire) {
    return t->seg_start_ps + (sim_time_ps)((double)seg_wire * 8e12 / t->rate_bps);
}

static void timely_on_sent(struct net *n, uint32_t qp, const struct packet *p) {
    struct tm *t = tm_of(n, qp);
    sim_time_ps now = n->sim->now_ps;
    if (!t->in_seg) {
        t->in_seg = 1;
        t->seg_start_ps = now;
        t->seg_payload = 0;
        t->seg_wire = 0;
    }
    t->seg_payload += p->payload_bytes;
    t->seg_wire += p->wire_bytes;
    t->next_send_ps = now; /* inside a segment: back to back */
    if (t->seg_payload < n->sc->fabric.timely.segment_bytes &&
        !(p->flags & PKT_F_LAST && n->qps[qp].next_psn >= n->qps[qp].posted_pkts))
        return;
    /* The segment ends here (full, or the QP has nothing more posted). */
    t->in_seg = 0;
    if (t->len < TIMELY_SEGS) {
        struct tseg *s = &t->ring[(t->head + t->len) % TIMELY_SEGS];
        s->first_ps = t->seg_start_ps;
        s->last_psn = p->psn;
        s->wire_bytes = t->seg_wire;
        t->len++;
    }
    t->next_send_ps = next_segment_ps(t, t->seg_wire);
    t->last_seg_wire = t->seg_wire;
}

/* Algorithm 1 on one RTT sample (ps). */
static void update_rate(struct net *n, uint32_t qp, struct tm *t, double rtt) {
    const struct timely_params *tp = &n->sc->fabric.timely;
    if (!t->samples++) t->prev_rtt_ps = (sim_time_ps)rtt;
    double new_diff = rtt - (double)t->prev_rtt_ps;
    t->prev_rtt_ps = (sim_time_ps)rtt;
    t->rtt_diff_ps = (1.0 - tp->alpha) * t->rtt_diff_ps + tp->alpha * new_diff;
    double gradient = t->rtt_diff_ps / (double)tp->min_rtt_ps;
    double r = t->rate_bps, delta = (double)tp->delta_bps;
    if (rtt < (double)tp->t_low_ps) {
        r += delta;
    } else if (rtt > (double)tp->t_high_ps) {
        r *= 1.0 - tp->beta * (1.0 - (double)tp->t_high_ps / rtt);
        t->neg_count = 0;
    } else if (gradient <= 0) {
        t->neg_count++;
        r += (t->neg_count >= tp->hai_n ? 5.0 : 1.0) * delta;
    } else {
        r *= 1.0 - tp->beta * gradient;
        t->neg_count = 0;
    }
    double floor_r = t->rate_bps * tp->max_decrease;
    if (r < floor_r) r = floor_r;
    double hi = line_bps(n, qp), lo = (double)tp->min_rate_bps;
    if (r > hi) r = hi;
    if (r < lo) r = lo;
    t->rate_bps = r;
}

static void timely_on_ack(struct net *n, uint32_t qp, const struct packet *p) {
    struct tm *t = tm_of(n, qp);
    sim_time_ps now = n->sim->now_ps;
    uint32_t ack = p->aux; /* next expected PSN */
    bool changed = false;
    double line = line_bps(n, qp);
    while (t->len && ack > t->ring[t->head].last_psn) {
        const struct tseg *s = &t->ring[t->head];
        double rtt = (double)(now - s->first_ps) - (double)s->wire_bytes * 8e12 / line;
        if (rtt < 0) rtt = 0;
        update_rate(n, qp, t, rtt);
        t->head = (uint8_t)((t->head + 1) % TIMELY_SEGS);
        t->len--;
        changed = true;
    }
    if (!changed) return;
    /* A gap granted at the old rate follows the new one (a pacer computing
     * the next start from the current rate). */
    if (!t->in_seg && t->next_send_ps > now) {
        sim_time_ps at = next_segment_ps(t, t->last_seg_wire);
        t->next_send_ps = at > now ? at : now;
        nic_activate(n, qp);
    }
}

static int timely_init(struct net *n, struct diag *d) {
    (void)d;
    n->cc_state = fs_xcalloc(1, sizeof(struct timely_state));
    return 0;
}

static void timely_fini(struct net *n) {
    struct timely_state *st = n->cc_state;
    if (!st) return;
    free(st->q);
    free(st);
    n->cc_state = NULL;
}

double timely_rate_bps(struct net *n, uint32_t qp) {
    return tm_of(n, qp)->rate_bps;
}

uint64_t timely_samples(struct net *n, uint32_t qp) {
    return tm_of(n, qp)->samples;
}

void timely_defaults(struct timely_params *tp) {
    /* docs/sources.md A7b. The authors' published code (Mittal,
     * timely-code-snippet.cc): EWMA weight 0.02, beta 0.8, T_low 50 us, HAI
     * after 5, delta 10 Mb/s at 10 G, a decrease keeps at least half. The
     * paper's T_high 500 us and D_minRTT 20 us as the HPCC artifact carries
     * them (rdma-hw.cc; the authors' code recommends T_high 1 ms). The
     * artifact's alpha 0.875 weighs each new RTT difference almost alone: at
     * 10 G ten flows' 16 KB bursts then make the gradient noisy enough to halve
     * the rates, and the link runs at 0.81 (0.997 with 0.02; docs/model.md).
     * Segments: the paper's range is 16-64 KB; 16 KB, because two senders'
     * 64 KB bursts at 10 G queue 52 us behind each other, above T_low
     * (measured: two flows fill 70 % of the link with 64 KB, 97 % with 16 KB). */
    memset(tp, 0, sizeof *tp);
    tp->alpha = 0.02;
    tp->beta = 0.8;
    tp->t_low_ps = 50 * PS_PER_US;
    tp->t_high_ps = 500 * PS_PER_US;
    tp->min_rtt_ps = 20 * PS_PER_US;
    tp->delta_bps = 10 * 1000 * 1000;
    tp->hai_n = 5;
    tp->segment_bytes = 16 * 1024;
    tp->max_decrease = 0.5;
    tp->min_rate_bps = 10 * 1000 * 1000;
}

const struct cc_ops cc_timely_ops = {
    .name = "timely",
    .init = timely_init,
    .fini = timely_fini,
    .send_time = timely_send_time,
    .on_sent = timely_on_sent,
    .on_ack = timely_on_ack,
};

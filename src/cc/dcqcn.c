/* src/cc/dcqcn.c
 *
 * DCQCN (Zhu et al., SIGCOMM 2015), in the three roles of docs/sources.md A6:
 *  - CP, the switch: RED-like ECN marking when a packet joins an egress queue
 *    holding q bytes: never below Kmin, probability rising linearly to Pmax at
 *    Kmax, always above (per-switch seeded RNG; docs/sources.md A5 thresholds).
 *  - NP, the receiving NIC: a CE-marked data packet makes it send a CNP to the
 *    sender's QP, at most one per cnp_interval per QP.
 *  - RP, the sending NIC: per-QP current rate R_C, target R_T, alpha. On CNPs
 *    (checked every rate_reduce_period): R_T = R_C, R_C *= 1 - alpha/2. Alpha
 *    is an EWMA with gain g updated every alpha_period (towards 1 when a CNP
 *    came in the period, towards 0 otherwise). Rate increases come from a
 *    timer (period T) and a byte counter (every B bytes sent): the first F
 *    are fast recovery (R_C = (R_T + R_C) / 2), then additive (R_T += R_AI)
 *    and, when both counters are past F, hyper increase (R_T += R_HAI).
 *    The rate limiter spaces the QP's packets at R_C (cc->send_time).
 * Timers run only while a QP is below line rate, so uncongested QPs cost no
 * events. The alpha timer costs none at all: its ticks (every alpha_period,
 * 1 us on ConnectX) are applied when alpha is next read or written (a CNP, a
 * decrease check, the stop at line rate), in the order the events would have
 * run (alpha_ticks), with the same arithmetic, so the results are the same
 * as with one event per tick (about half of a RoCE failure run's events).
 * Defaults are ConnectX firmware values; dcqcn_preset_paper gives the
 * paper's (docs/sources.md A6 table).
 */
#include "cc/cc.h"

#include "net/params.h"
#include "core/mem.h"
#include "core/rng.h"
#include "net/net.h"
#include "net/nic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DCQCN_RNG_STREAM 0x45434eu /* "ECN" */

enum { TM_DECREASE = 1, TM_INCREASE = 2 }; /* 0 was the alpha timer, now virtual */

struct dq {
    double rc_bps, rt_bps, alpha;
    sim_time_ps next_send_ps;
    sim_time_ps last_sent_ps;   /* when the limiter last let a packet go (of last_wire bytes) */
    sim_time_ps last_cnp_ps;    /* NP: last CNP sent for this QP (receiver side) */
    sim_time_ps alpha_at_ps;    /* last alpha update (decay while idle) */
    sim_time_ps inc_at_ps;      /* next timer-driven increase */
    sim_time_ps alpha_next_ps;  /* next (virtual) alpha tick while active */
    sim_time_ps inc_sched_ps;   /* when the pending TM_INCREASE event was scheduled */
    uint64_t bytes_since;       /* byte counter */
    uint32_t t_stage, b_stage;  /* increase events (timer, bytes) since the last decrease */
    uint16_t gen;               /* bumped when timers stop: stale events die */
    uint8_t cnp_alpha, cnp_dec; /* a CNP arrived since the last alpha / decrease step */
    uint8_t active;             /* below line rate or reacting: timers running */
    uint8_t seen_cnp;           /* a CNP ever arrived (rate_to_set_on_first_cnp applies once) */
    uint8_t inc_after_alpha;    /* ... after the alpha tick due at that instant (tie order) */
    uint8_t pad[1];
    uint32_t last_wire; /* wire bytes of that packet */
};

struct dcqcn_state {
    struct dq *q;
    size_t nq;
    uint64_t byte_reset;         /* byte counter in bytes (byte_counter x its unit); 0 = off */
    struct rng *sw_rng;          /* per switch index */
    sim_time_ps *np_last_cnp_ps; /* per node: the last CNP its port sent (cnp_pacing port) */
};

static struct dq *dq_of(struct net *n, uint32_t qp) {
    struct dcqcn_state *st = n->cc_state;
    if (qp >= st->nq) {
        /* QPs are made by the workload after init: grow (amortised, not per packet). */
        size_t old = st->nq;
        fs_grow((void **)&st->q, &st->nq, (size_t)qp + 1, sizeof *st->q); /* zeroed */
        for (size_t i = old; i < st->nq; i++) {
            st->q[i].rc_bps = st->q[i].rt_bps = -1; /* line rate, set on first use */
            st->q[i].alpha = n->sc->fabric.dcqcn.initial_alpha;
            st->q[i].last_cnp_ps = SIM_TIME_NEVER;
        }
    }
    struct dq *d = &st->q[qp];
    if (d->rc_bps < 0)
        d->rc_bps = d->rt_bps = (double)n->ports[nic_port(n, n->qps[qp].src)].rate_bps;
    return d;
}

static double line_bps(const struct net *n, uint32_t qp) {
    return (double)n->ports[nic_port(n, n->qps[qp].src)].rate_bps;
}

/* The alpha timer's ticks at alpha_next_ps, alpha_next_ps + P, ... before
 * `now` (and the one at `now` too when `incl`: that tick's event would have
 * run before the event being handled). Each tick is the EWMA step the timer
 * event made: alpha = (1 - g) alpha + g if a CNP came in the period. */
static void alpha_ticks(const struct dcqcn_params *p, struct dq *d, sim_time_ps now, bool incl) {
    sim_time_ps P = p->alpha_period_ps;
    if (!d->active || !P) return;
    while (d->alpha_next_ps < now || (incl && d->alpha_next_ps == now)) {
        if (d->alpha == 0.0 && !d->cnp_alpha) { /* decayed to zero: it stays there */
            sim_time_ps last = incl ? now : now - 1;
            sim_time_ps k = (last - d->alpha_next_ps) / P;
            d->alpha_at_ps = d->alpha_next_ps + k * P;
            d->alpha_next_ps = d->alpha_at_ps + P;
            break;
        }
        d->alpha = (1.0 - p->g) * d->alpha + (d->cnp_alpha ? p->g : 0.0);
        d->cnp_alpha = 0;
        d->alpha_at_ps = d->alpha_next_ps;
        d->alpha_next_ps += P;
    }
}

/* Whether the alpha tick due at `now` (its event scheduled at now - P)
 * would run before an event of the same host scheduled at `sched`
 * (`after_alpha`: scheduled at that same instant after the tick due then). */
static bool tick_before(const struct dcqcn_params *p, const struct dq *d, sim_time_ps now,
                        sim_time_ps sched, bool after_alpha) {
    if (!d->active || d->alpha_next_ps != now) return false;
    sim_time_ps tick_sched = now - p->alpha_period_ps;
    return tick_sched < sched || (tick_sched == sched && after_alpha);
}

/* A CNP (or a send) handled in a packet arrival: the arrival event belongs to
 * the node at the other end of the NIC's link, the alpha tick to the host;
 * at equal times the lower entity runs first (core/evq.h). */
static bool tick_before_arrival(const struct net *n, uint32_t qp) {
    uint32_t src = n->qps[qp].src;
    return src < n->ports[nic_port(n, src)].peer_node;
}

static void timer(struct net *n, uint32_t qp, uint32_t kind, sim_time_ps at) {
    const struct dq *d = &((struct dcqcn_state *)n->cc_state)->q[qp];
    sim_at(n->sim, at, n->qps[qp].src + 1, NET_EV_CC, qp,
           (uint16_t)(kind | ((uint32_t)(d->gen & 0x3fffu) << 2)));
}

/* In hyper increase (both stages past F) the authors' ns3-rdma halves the
 * timer and the byte counter (docs/sources.md A12); ConnectX keeps them. */
static bool hyper(const struct dcqcn_params *p, const struct dq *d) {
    uint32_t lo = d->t_stage < d->b_stage ? d->t_stage : d->b_stage;
    return lo > p->fast_recovery_steps;
}

static sim_time_ps timer_period(const struct dcqcn_params *p, const struct dq *d) {
    return p->hyper_stage_scaling && hyper(p, d) ? p->timer_ps / 2 : p->timer_ps;
}

/* A cut, as the ConnectX firmware does it at a rate_reduce_monitor_period
 * boundary with a CNP pending (docs/sources.md A6, A12; Google isekai's model of
 * it): the target R_T follows R_C only if clamp_tgt_rate is set, or the byte
 * counter raised the rate since the last cut, or (clamp_tgt_rate_after_time_inc)
 * the timer did; a burst of cuts with no increase between them keeps the
 * target from before the burst, so recovery returns there. The cut is
 * R_C * alpha * 2^10 / 2^rpg_gd (rpg_gd 11: alpha/2), at most what
 * rpg_min_dec_fac allows (50: at most half). */
static void decrease(struct net *n, uint32_t qp, struct dq *d) {
    const struct dcqcn_params *p = &n->sc->fabric.dcqcn;
    bool clamp = p->clamp_tgt_rate || d->b_stage > 0 || (p->clamp_after_time_inc && d->t_stage > 0);
    if (clamp) d->rt_bps = d->rc_bps;
    double cut = d->alpha * 1024.0 / (double)(1ull << (p->rpg_gd < 63 ? p->rpg_gd : 63));
    double most = 1.0 - (double)p->min_dec_fac_pct / 100.0;
    if (cut > most) cut = most;
    d->rc_bps *= 1.0 - cut;
    if (d->rc_bps < (double)p->min_rate_bps) d->rc_bps = (double)p->min_rate_bps;
    d->t_stage = d->b_stage = 0;
    d->bytes_since = 0;
    d->inc_at_ps = n->sim->now_ps + p->timer_ps;
    (void)qp;
}

/* One rate-increase event (timer or byte counter). The stage counters count
 * the events before this one (isekai, ns3-rdma): the first F are fast
 * recovery (R_T kept, R_C halfway to it), then additive (R_T += R_AI) while
 * either counter is at F or beyond, hyper (R_T += R_HAI) once both are past
 * F; ns3-rdma scales hyper steps by (stage - F + 1). */
static void increase(struct net *n, uint32_t qp, struct dq *d, bool by_timer, bool tick_first) {
    const struct dcqcn_params *p = &n->sc->fabric.dcqcn;
    uint32_t t = d->t_stage, b = n->cc_state && ((struct dcqcn_state *)n->cc_state)->byte_reset
                                     ? d->b_stage
                                     : d->t_stage;
    uint32_t hi = t > b ? t : b, lo = t < b ? t : b, F = p->fast_recovery_steps;
    if (lo > F) {
        double k = p->hyper_stage_scaling ? (double)(lo - F + 1) : 1.0;
        d->rt_bps += k * (double)p->rhai_bps; /* hyper increase */
    } else if (hi >= F) {
        d->rt_bps += (double)p->rai_bps; /* additive increase */
    }                                    /* else fast recovery: towards the rate before the cut */
    if (by_timer)
        d->t_stage++;
    else
        d->b_stage++;
    double line = line_bps(n, qp);
    if (d->rt_bps > line) d->rt_bps = line;
    d->rc_bps = (d->rt_bps + d->rc_bps) / 2.0;
    /* The limiter paces at the current rate (a token bucket filling at R_C):
     * a gap granted at a lower rate shrinks to the packet's time at the new
     * one. Without this, a packet sent at min_rate (1 Mb/s: 33 ms for 4 KB)
     * held its QP for 33 ms after the rate had recovered. */
    if (d->next_send_ps > n->sim->now_ps) {
        sim_time_ps at =
            d->last_sent_ps + (sim_time_ps)((double)d->last_wire * 8.0 * 1e12 / d->rc_bps);
        if (at < n->sim->now_ps) at = n->sim->now_ps;
        if (at < d->next_send_ps) {
            d->next_send_ps = at;
            if (by_timer)
                nic_activate(n, qp); /* wake the NIC earlier (the byte counter runs
                                        inside the NIC's own send) */
        }
    }
    if (line - d->rc_bps < 1e-6 * line && !d->cnp_dec) {
        /* Back at line rate with no cut pending: stop the timers until the
         * next CNP (the firmware's keep running, at line rate: same rates). */
        d->rc_bps = d->rt_bps = line;
        alpha_ticks(p, d, n->sim->now_ps, tick_first); /* the ticks that ran before the stop */
        d->active = 0;
        d->gen++;
    }
}

/* Schedules the increase timer at `at`, noting when (tick order: `after`,
 * the alpha tick due now, if any, ran before this). */
static void arm_increase(struct net *n, uint32_t qp, struct dq *d, sim_time_ps at, bool after) {
    d->inc_sched_ps = n->sim->now_ps;
    d->inc_after_alpha = after;
    timer(n, qp, TM_INCREASE, at);
}

static void on_timer(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    uint32_t qp = e->arg, kind = e->aux & 3u;
    struct dq *d = dq_of(n, qp);
    if (!d->active || (d->gen & 0x3fffu) != (e->aux >> 2)) return;
    const struct dcqcn_params *p = &n->sc->fabric.dcqcn;
    switch (kind) {
    case TM_DECREASE:
        /* Scheduled at now - rate_reduce_period, the alpha tick at now -
         * alpha_period (both from start_timers, alpha first): the tick at
         * now runs first unless its period is the shorter. */
        alpha_ticks(p, d, s->now_ps, p->alpha_period_ps >= p->rate_reduce_period_ps);
        if (d->cnp_dec) decrease(n, qp, d);
        d->cnp_dec = 0;
        timer(n, qp, TM_DECREASE, s->now_ps + p->rate_reduce_period_ps);
        break;
    case TM_INCREASE: {
        bool first = tick_before(p, d, s->now_ps, d->inc_sched_ps, d->inc_after_alpha);
        if (s->now_ps < d->inc_at_ps) { /* reset by a decrease: lazy re-arm */
            arm_increase(n, qp, d, d->inc_at_ps, first);
            break;
        }
        increase(n, qp, d, true, first);
        d->inc_at_ps = s->now_ps + timer_period(p, d);
        if (d->active) arm_increase(n, qp, d, d->inc_at_ps, first);
        break;
    }
    default:
        break;
    }
}

static void start_timers(struct net *n, uint32_t qp, struct dq *d, sim_time_ps now) {
    const struct dcqcn_params *p = &n->sc->fabric.dcqcn;
    d->active = 1;
    d->alpha_at_ps = now;
    if (!d->inc_at_ps || d->inc_at_ps < now) d->inc_at_ps = now + p->timer_ps;
    d->alpha_next_ps = now + p->alpha_period_ps; /* scheduled first, then: */
    timer(n, qp, TM_DECREASE, now + p->rate_reduce_period_ps);
    arm_increase(n, qp, d, d->inc_at_ps, true);
}

static void dcqcn_on_cnp(struct net *n, uint32_t qp) {
    struct dq *d = dq_of(n, qp);
    const struct dcqcn_params *p = &n->sc->fabric.dcqcn;
    sim_time_ps now = n->sim->now_ps;
    alpha_ticks(p, d, now, tick_before_arrival(n, qp)); /* the periods before this CNP */
    d->cnp_alpha = d->cnp_dec = 1;
    if (d->active) return; /* the decrease check acts at its next period */
    if (!d->seen_cnp && !p->cut_on_first_cnp) {
        /* The first CNP a QP ever gets allocates its rate limiter at
         * rate_to_set_on_first_cnp (0: the port's speed) with alpha at
         * initial_alpha_value, and cuts nothing yet (docs/sources.md A6, A12). */
        d->seen_cnp = 1;
        d->alpha = p->initial_alpha;
        double line = line_bps(n, qp);
        double r = p->rate_on_first_cnp_bps ? (double)p->rate_on_first_cnp_bps : line;
        d->rc_bps = d->rt_bps = r < line ? r : line;
        d->cnp_alpha = d->cnp_dec = 0;
        d->t_stage = d->b_stage = 0;
        d->bytes_since = 0;
        d->inc_at_ps = now + p->timer_ps;
        start_timers(n, qp, d, now);
        return;
    }
    if (!d->seen_cnp) {
        d->seen_cnp = 1;
        d->alpha = p->initial_alpha;
        d->alpha_at_ps = now;
    }
    /* A CNP after the QP had recovered to line rate (timers stopped): alpha
     * decayed meanwhile; the firmware's timers, still running, would cut at
     * the next decrease period: cut now. */
    if (d->alpha_at_ps && p->alpha_period_ps) {
        double periods = (double)(now - d->alpha_at_ps) / (double)p->alpha_period_ps;
        d->alpha *= pow(1.0 - p->g, periods);
    }
    d->alpha = (1.0 - p->g) * d->alpha + p->g;
    d->cnp_alpha = 0;
    decrease(n, qp, d);
    d->cnp_dec = 0;
    start_timers(n, qp, d, now);
}

static sim_time_ps dcqcn_send_time(struct net *n, uint32_t qp) {
    const struct dcqcn_state *st = n->cc_state;
    if (qp >= st->nq) return n->sim->now_ps;
    return st->q[qp].next_send_ps;
}

static void dcqcn_on_sent(struct net *n, uint32_t qp, const struct packet *p) {
    struct dq *d = dq_of(n, qp);
    sim_time_ps now = n->sim->now_ps;
    if (!d->active) {
        d->next_send_ps = now;
        return;
    }
    /* Rate limiter: the next packet may start when this one would have
     * finished at R_C. */
    d->next_send_ps = now + (sim_time_ps)((double)p->wire_bytes * 8.0 * 1e12 / d->rc_bps);
    d->last_sent_ps = now;
    d->last_wire = p->wire_bytes;
    const struct dcqcn_state *st = n->cc_state;
    uint64_t B = st->byte_reset;
    if (B) {
        const struct dcqcn_params *dp = &n->sc->fabric.dcqcn;
        if (dp->hyper_stage_scaling && hyper(dp, d)) B /= 2;
        d->bytes_since += p->wire_bytes;
        if (d->bytes_since >= B) {
            d->bytes_since -= B;
            increase(n, qp, d, false, tick_before_arrival(n, qp));
        }
    }
}

/* NP: a CE-marked packet makes the receiving NIC send a CNP unless one left
 * less than min_time_between_cnps ago: from the same port (ConnectX: the
 * field is "minimum time between sending cnps from the port", mstflint's
 * register text, docs/sources.md A12), so the QPs marked into one receiver
 * share one CNP every interval; or, with cnp_pacing qp, for the same QP (the
 * DCQCN paper's per-flow NP). */
static void dcqcn_on_rx_data(struct net *n, uint32_t qp, const struct packet *p) {
    if (!(p->flags & PKT_F_ECN_CE)) return;
    struct dcqcn_state *st = n->cc_state;
    const struct dcqcn_params *dp = &n->sc->fabric.dcqcn;
    sim_time_ps now = n->sim->now_ps;
    sim_time_ps *last = dp->cnp_pacing == DCQCN_PACE_PORT ? &st->np_last_cnp_ps[n->qps[qp].dst]
                                                          : &dq_of(n, qp)->last_cnp_ps;
    if (*last != SIM_TIME_NEVER && now - *last < dp->cnp_interval_ps) return;
    *last = now;
    n->c.cnps++;
    nic_send_ctrl(n, n->qps[qp].dst, qp, PKT_CNP, 0);
}

static void dcqcn_on_enqueue(struct net *n, uint32_t sw, uint32_t out_port, struct packet *p) {
    if (p->type != PKT_DATA || !(p->flags & PKT_F_ECT) || (p->flags & PKT_F_ECN_CE)) return;
    const struct ecn_params *e = &n->sc->fabric.ecn;
    /* RED/ECN per egress queue (traffic class), as switches configure it
     * (docs/sources.md A5): another class's backlog does not mark this one. */
    uint64_t q = n->ports[out_port].cls[p->prio % NET_NCLASS].bytes;
    if (q <= e->kmin_bytes) return;
    if (q <= e->kmax_bytes) {
        double prob = e->pmax * (double)(q - e->kmin_bytes) /
                      (double)(e->kmax_bytes > e->kmin_bytes ? e->kmax_bytes - e->kmin_bytes : 1);
        struct dcqcn_state *st = n->cc_state;
        if (rng_uniform(&st->sw_rng[n->nodes[sw].index]) >= prob) return;
    }
    p->flags |= PKT_F_ECN_CE;
    n->c.ecn_marked++;
    if (!n->c.first_mark_ps) n->c.first_mark_ps = n->sim->now_ps;
}

static int dcqcn_init(struct net *n, struct diag *d) {
    (void)d;
    struct dcqcn_state *st = fs_xcalloc(1, sizeof *st);
    n->cc_state = st;
    const struct dcqcn_params *dp = &n->sc->fabric.dcqcn;
    st->byte_reset = dp->byte_counter_bytes * (dp->byte_counter_unit == DCQCN_64B ? 64u : 1u);
    st->sw_rng = net_switch_rngs(n, DCQCN_RNG_STREAM);
    st->np_last_cnp_ps = fs_xcalloc(n->nnodes ? n->nnodes : 1, sizeof *st->np_last_cnp_ps);
    for (uint32_t i = 0; i < n->nnodes; i++)
        st->np_last_cnp_ps[i] = SIM_TIME_NEVER;
    sim_register(n->sim, NET_EV_CC, on_timer);
    return 0;
}

static void dcqcn_fini(struct net *n) {
    struct dcqcn_state *st = n->cc_state;
    if (!st) return;
    free(st->q);
    free(st->sw_rng);
    free(st->np_last_cnp_ps);
    free(st);
    n->cc_state = NULL;
}

double dcqcn_rate_bps(struct net *n, uint32_t qp) {
    return dq_of(n, qp)->rc_bps;
}

double dcqcn_target_bps(struct net *n, uint32_t qp) {
    return dq_of(n, qp)->rt_bps;
}

void dcqcn_preset_connectx(struct dcqcn_params *dp) {
    /* docs/sources.md A6 "NVIDIA ConnectX default" column, A12 (mlxconfig dump). */
    memset(dp, 0, sizeof *dp);
    dp->preset = DCQCN_PRESET_CONNECTX;
    dp->g = 5.0 / 1024;
    dp->alpha_period_ps = 1 * PS_PER_US;
    dp->rate_reduce_period_ps = 4 * PS_PER_US;
    dp->timer_ps = 300 * PS_PER_US;
    dp->byte_counter_bytes = 32767;
    dp->byte_counter_unit = DCQCN_BYTES;
    dp->fast_recovery_steps = 1;
    dp->rai_bps = 5 * 1000 * 1000;
    dp->rhai_bps = 50 * 1000 * 1000;
    dp->cnp_interval_ps = 4 * PS_PER_US;
    dp->cnp_pacing = DCQCN_PACE_PORT;
    dp->min_rate_bps = 1000 * 1000;
    dp->rate_on_first_cnp_bps = 0;
    dp->initial_alpha = 1023.0 / 1024;
    dp->min_dec_fac_pct = 50;
    dp->rpg_gd = 11;
    dp->clamp_tgt_rate = false;
    dp->clamp_after_time_inc = true;
    dp->hyper_stage_scaling = false;
    dp->cut_on_first_cnp = false;
    dp->cnp_class = DCQCN_CNP_STRICT;
    dp->cnp_802p_prio = 6;
    dp->cnp_dscp = 48;
}

void dcqcn_preset_paper(struct dcqcn_params *dp, struct ecn_params *ep) {
    /* docs/sources.md A6 "DCQCN paper (40 G)" column and A5 row; R_HAI is not fixed
     * in the paper: 200 Mb/s as in SPEC.md's example. The RP as the authors'
     * simulator runs it (bobzhuyb/ns3-rdma, docs/sources.md A12): alpha starts at
     * 0.5, the target is clamped on every cut, every CNP cuts, hyper increase
     * grows with the stage with the timer and byte counter halved. */
    dcqcn_preset_connectx(dp);
    dp->preset = DCQCN_PRESET_PAPER;
    dp->initial_alpha = 0.5;
    dp->clamp_tgt_rate = true;
    dp->hyper_stage_scaling = true;
    dp->cut_on_first_cnp = true;
    dp->g = 1.0 / 256;
    dp->alpha_period_ps = 55 * PS_PER_US;
    dp->rate_reduce_period_ps = 50 * PS_PER_US;
    dp->timer_ps = 55 * PS_PER_US;
    dp->byte_counter_bytes = 10 * 1000 * 1000;
    dp->fast_recovery_steps = 5;
    dp->rai_bps = 40 * 1000 * 1000;
    dp->rhai_bps = 200 * 1000 * 1000;
    dp->cnp_interval_ps = 50 * PS_PER_US;
    dp->cnp_pacing = DCQCN_PACE_QP;
    dp->min_rate_bps = 1000 * 1000;
    if (ep) {
        ep->kmin_bytes = 5 * 1000;
        ep->kmax_bytes = 200 * 1000;
        ep->pmax = 0.01;
    }
}

const struct cc_ops cc_dcqcn_ops = {
    .name = "dcqcn",
    .init = dcqcn_init,
    .fini = dcqcn_fini,
    .send_time = dcqcn_send_time,
    .on_sent = dcqcn_on_sent,
    .on_rx_data = dcqcn_on_rx_data,
    .on_cnp = dcqcn_on_cnp,
    .on_enqueue = dcqcn_on_enqueue,
};

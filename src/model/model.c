#include "model/model.h"

#include "model/part.h"

#include "cc/cc.h"
#include "core/diag.h"
#include "core/mem.h"
#include "core/sig.h"
#include "core/sim_loop.h"
#include "ctrl/ctrl.h"
#include "net/deadlock.h"
#include "net/hoq.h"
#include "flowctl/flowctl.h"
#include "link/retry.h"
#include "net/nic.h"
#include "net/params.h"
#include "net/port.h"
#include "net/reorder.h"
#include "net/stuck.h"
#include "net/warm.h"
#include "net/dist.h"
#include "route/route.h"
#include "net/trace.h"
#include "core/wall.h"
#include "topo/topo.h"
#include "workload/workload.h"
#include "xport/xport.h"

#include <string.h>

/* Scenario events (SPEC.md `events:`), resolved to ports/nodes at build. */
/* Deadlock look interval: a port that sent nothing for this long while
 * holding packets is stuck. 100 us is far above any queueing delay at 100+
 * Gb/s with MiB buffers, and short against the 1 s run cap. */
#define DEADLOCK_CHECK_PS (100 * PS_PER_US)

struct sc_ev_state {
    uint32_t port[2]; /* link events: the directions affected (NET_NONE if one) */
    uint32_t node;    /* host_stall */
    uint32_t cp_row;  /* link_down, link_gray: its control_plane row; link_flap: the first */
};

/* Second-stage scenario events (NET_EV_SCENARIO aux): a gray link found by
 * the control plane; a link_flap's next phase (aux = EV_AUX_FLAP + phase). */
enum { EV_AUX_GRAY_FOUND = 1, EV_AUX_FLAP = 2 };

static void set_link(struct net *n, const struct sc_ev_state *st, bool up, uint8_t cause) {
    for (int i = 0; i < 2; i++)
        if (st->port[i] != NET_NONE) {
            port_set_up(n, st->port[i], up);
            trace_link(n, st->port[i], up);
        }
    if (n->route->on_topology_change) n->route->on_topology_change(n);
    n->ctrl_cause = cause;
    if (n->ctrl && n->ctrl->on_link_change)
        for (int i = 0; i < 2; i++)
            if (st->port[i] != NET_NONE) n->ctrl->on_link_change(n, st->port[i], up);
    n->ctrl_cause = CTRL_CAUSE_PORT;
}

static uint64_t link_drops(const struct net *n, const struct sc_ev_state *st);

/* Per-link loss state, allocated at the first link that needs it. */
static struct link_loss *link_loss_of(struct net *n, uint32_t port) {
    if (!n->loss) {
        n->loss = fs_xcalloc(n->nports + 1, sizeof *n->loss);
        n->rx_hooks = true;
        for (uint32_t p = 0; p < n->nports; p++) /* one stream per link direction */
            rng_seed(&n->loss[p].rng, n->sc->seed, p, 0x4c4f5353u /* "LOSS" */);
    }
    return &n->loss[port];
}

static void set_loss(struct net *n, uint32_t port, double ber, double drop, int errors) {
    struct link_loss *l = link_loss_of(n, port);
    if (ber >= 0) l->ber = ber;
    if (drop >= 0) l->drop = drop;
    if (errors >= 0) l->errors = errors != 0;
}

/* Does a probe cross gray link `port` (losing `drop` of what it carries)?
 * Drawn from the link's own liveness stream (not the packets' loss stream,
 * so the data path's losses are those of a run without the probe). */
static bool probe_lost(struct rng *r, double drop) {
    return drop >= 1.0 || rng_uniform(r) < drop;
}

/* When the control plane notices gray link `port` (docs/model.md
 * "Failures: what notices a gray link"), and by what; NEVER when nothing
 * does before the run's cap.
 * - Ethernet (bgp): BFD (RFC 5880) or, without it, the BGP keepalives (RFC
 *   4271): a probe every detect/detect_mult; the session goes down when
 *   detect_mult probes in a row are lost, each with probability `drop`. A
 *   link that drops everything is found `detect` after the failure.
 * - InfiniBand (sm): no trap (the ports stay Active). The switch's fast
 *   recovery from unhealthy links (Quantum firmware BER monitor; off unless
 *   unhealthy_ps is set) takes the port down `unhealthy_ps` after the
 *   errors begin, when the losses are errors it counts. Otherwise the SM's
 *   periodic sweep (sources.md A10: 10 s) probes the port with an SMP that
 *   crosses the link; the probe fails when all 1 + smp_retries tries are
 *   lost (drop^(1 + retries)), after (1 + retries) x smp_timeout, and the
 *   SM then takes the link out. */
static sim_time_ps gray_found_at(const struct net *n, const struct sc_event *ev, uint32_t port,
                                 uint8_t *by) {
    const struct control_plane_params *cp = &n->sc->fabric.control_plane;
    sim_time_ps now = n->sim->now_ps, cap = n->sim->stop_ps;
    *by = CP_DET_NONE;
    if (!n->ctrl || ev->drop <= 0) return SIM_TIME_NEVER;
    struct rng r;
    rng_seed(&r, n->sc->seed, port, 0x4c495645u /* "LIVE" */);
    if (cp->kind == CP_BGP) {
        uint32_t mult = cp->detect_mult ? cp->detect_mult : 3, run = 0;
        sim_time_ps iv = cp->detect_ps / mult;
        if (iv == 0) return SIM_TIME_NEVER;
        if (ev->drop >= 1.0) {
            *by = CP_DET_LIVENESS;
            return now + cp->detect_ps;
        }
        for (sim_time_ps t = now + iv; t <= cap; t += iv) {
            run = probe_lost(&r, ev->drop) ? run + 1 : 0;
            if (run == mult) {
                *by = CP_DET_LIVENESS;
                return t;
            }
        }
        return SIM_TIME_NEVER;
    }
    sim_time_ps found = SIM_TIME_NEVER;
    if (ev->errors && cp->unhealthy_ps) {
        found = now + cp->unhealthy_ps;
        *by = CP_DET_UNHEALTHY;
    }
    sim_time_ps iv = cp->sweep_interval_ps ? cp->sweep_interval_ps : 10 * PS_PER_S;
    uint32_t tries = 1 + cp->smp_retries;
    double p_fail = 1;
    for (uint32_t k = 0; k < tries; k++)
        p_fail *= ev->drop;
    sim_time_ps give_up = (sim_time_ps)tries * cp->smp_timeout_ps;
    for (sim_time_ps t = (now / iv + 1) * iv; t <= cap && t + give_up < found; t += iv)
        if (p_fail >= 1.0 || rng_uniform(&r) < p_fail) {
            *by = CP_DET_SWEEP;
            return t + give_up;
        }
    return found;
}

static void cp_row_open(struct net *n, uint32_t row, uint8_t kind, uint32_t port) {
    struct cp_row *r = &n->cp_rows[row];
    memset(r, 0, sizeof *r);
    r->event = kind;
    r->port = port;
    r->at_ps = n->sim->now_ps;
    r->rerouted_ps = r->local_rerouted_ps = r->up_ps = r->detected_ps = SIM_TIME_NEVER;
}

static void link_down_now(struct net *n, struct sc_ev_state *st, uint32_t row, uint8_t kind) {
    cp_row_open(n, row, kind, st->port[0]);
    /* Several ranks (par/): a window boundary; each holds some of the drops. */
    n->cp_rows[row].drops_at_start = net_sum_u64(n, link_drops(n, st));
    set_link(n, st, false, CTRL_CAUSE_PORT);
}

/* The latest row of link `port` that is still down: link_up closes it. */
static void cp_row_up(struct net *n, const struct sc_ev_state *st) {
    for (uint32_t i = n->ncp_rows; i-- > 0;) {
        struct cp_row *r = &n->cp_rows[i];
        if ((r->port == st->port[0] || r->port == n->ports[st->port[0]].peer) &&
            r->up_ps == SIM_TIME_NEVER && r->at_ps <= n->sim->now_ps) {
            r->up_ps = n->sim->now_ps;
            return;
        }
    }
}

static uint64_t link_drops(const struct net *n, const struct sc_ev_state *st) {
    uint64_t d = 0;
    for (int i = 0; i < 2; i++)
        if (st->port[i] != NET_NONE) d += n->ports[st->port[i]].drops;
    return d;
}

static void on_scenario_event(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct sc_ev_state *evs = n->ev_state; /* see model_build */
    uint32_t idx = e->arg & 0x7fffffffu;
    bool second = e->arg >> 31; /* end of a host stall */
    const struct sc_event *ev = &n->sc->events[idx];
    struct sc_ev_state *st = &evs[idx];
    n->sc_events_left--;
    switch (ev->kind) {
    case EV_LINK_DOWN:
        link_down_now(n, st, st->cp_row, EV_LINK_DOWN);
        break;
    case EV_LINK_UP:
        cp_row_up(n, st);
        set_link(n, st, true, CTRL_CAUSE_PORT);
        break;
    case EV_HOST_STALL:
        n->nodes[st->node].stalled = second ? 0 : 1;
        /* Several ranks (par/pevents.c): every rank keeps the flag, the
         * host's own rank holds what its NIC kept and drains it. */
        if (second && net_mine(n, st->node)) nic_unstall(n, st->node);
        break;
    case EV_LINK_GRAY:
        if (e->aux == EV_AUX_GRAY_FOUND) {
            /* Found: the switches take the link out of service (BFD down ->
             * BGP session down; the SM disables the port). */
            n->cp_rows[st->cp_row].detected_ps = s->now_ps;
            /* the switch's own monitor takes the port down: a port-down to
             * the SM (trap) and to SHIELD alike */
            set_link(n, st, false,
                     n->cp_rows[st->cp_row].detected_by == CP_DET_UNHEALTHY ? CTRL_CAUSE_PORT
                                                                            : CTRL_CAUSE_GRAY);
            break;
        }
        cp_row_open(n, st->cp_row, EV_LINK_GRAY, st->port[0]);
        n->cp_rows[st->cp_row].drops_at_start = net_sum_u64(n, link_drops(n, st));
        for (int i = 0; i < 2; i++)
            if (st->port[i] != NET_NONE) set_loss(n, st->port[i], -1, ev->drop, ev->errors);
        sim_time_ps t = gray_found_at(n, ev, st->port[0], &n->cp_rows[st->cp_row].detected_by);
        if (t != SIM_TIME_NEVER) {
            sim_at(s, t, 0, NET_EV_SCENARIO, idx, EV_AUX_GRAY_FOUND);
            net_scheduled(n, t);
            n->sc_events_left++; /* net/stuck.c: the detection may still reroute */
        }
        break;
    case EV_LINK_FLAP: {
        uint32_t phase = e->aux >= EV_AUX_FLAP ? e->aux - EV_AUX_FLAP : 0;
        if (phase % 2 == 0)
            link_down_now(n, st, st->cp_row + phase / 2, EV_LINK_FLAP);
        else {
            cp_row_up(n, st);
            set_link(n, st, true, CTRL_CAUSE_PORT);
        }
        if (phase + 1 < 2 * ev->count) {
            sim_time_ps at = s->now_ps + (phase % 2 == 0 ? ev->down_ps : ev->up_ps);
            sim_at(s, at, 0, NET_EV_SCENARIO, idx,
                   (uint16_t)(EV_AUX_FLAP + phase + 1)); /* count <= 10000 */
            net_scheduled(n, at);
            n->sc_events_left++;
        }
        break;
    }
    case EV_LINK_BER:
        for (int i = 0; i < 2; i++)
            if (st->port[i] != NET_NONE) set_loss(n, st->port[i], ev->ber, -1, -1);
        break;
    }
}

static int build_events(struct model *m, struct diag *d) {
    struct net *n = &m->net;
    const struct model_params *sc = m->sc;
    struct sc_ev_state *evs = fs_xcalloc(sc->nevents + 1, sizeof *evs);
    n->ev_state = evs;
    size_t rows = sc->nevents + 1;
    for (size_t i = 0; i < sc->nevents; i++)
        if (sc->events[i].kind == EV_LINK_FLAP) rows += sc->events[i].count;
    n->cp_rows = fs_xcalloc(rows, sizeof *n->cp_rows);
    for (size_t i = 0; i < sc->nevents; i++) {
        const struct sc_event *ev = &sc->events[i];
        struct sc_ev_state *st = &evs[i];
        st->port[0] = st->port[1] = st->node = NET_NONE;
        if (ev->kind == EV_HOST_STALL) {
            st->node = net_node_by_name(n, ev->target);
            if (st->node == NET_NONE || n->nodes[st->node].kind != NODE_HOST)
                return diag_set(d, sc->file, ev->pos, FS_EINVAL,
                                "unknown host '%s' in host_stall; hosts are h0..h%u", ev->target,
                                n->nhosts - 1);
            sim_at(&m->sim, ev->at_ps, 0, NET_EV_SCENARIO, (uint32_t)i, 0);
            sim_at(&m->sim, ev->at_ps + ev->for_ps, 0, NET_EV_SCENARIO, (uint32_t)i | 0x80000000u,
                   0);
            n->sc_events_left += 2;
            continue;
        }
        bool directed = false;
        uint32_t p = net_link_by_name(n, ev->target, &directed);
        if (p == NET_NONE)
            return diag_set(d, sc->file, ev->pos, FS_EINVAL,
                            "unknown link '%s'; a link is named by its two ends, e.g. "
                            "'leaf0-spine1', one direction 'leaf0->spine1', a parallel link "
                            "'leaf0-spine1#1'",
                            ev->target);
        st->port[0] = p;
        if (!directed) st->port[1] = n->ports[p].peer;
        /* Rows in time order of their events are filled when they happen;
         * the row is reserved (and its link and time known) now. */
        uint32_t nrows = ev->kind == EV_LINK_DOWN || ev->kind == EV_LINK_GRAY ? 1
                         : ev->kind == EV_LINK_FLAP                           ? ev->count
                                                                              : 0;
        st->cp_row = n->ncp_rows;
        for (uint32_t k = 0; k < nrows; k++) {
            struct cp_row *r = &n->cp_rows[n->ncp_rows++];
            r->event = (uint8_t)ev->kind;
            r->port = p;
            r->at_ps = ev->at_ps + (uint64_t)k * (ev->down_ps + ev->up_ps);
            r->rerouted_ps = r->local_rerouted_ps = r->up_ps = r->detected_ps = SIM_TIME_NEVER;
        }
        sim_at(&m->sim, ev->at_ps, 0, NET_EV_SCENARIO, (uint32_t)i, 0);
        n->sc_events_left++;
    }
    return 0;
}

#ifdef FABSIM_DEBUG
/* DESIGN.md rule 4, in debug and `make check` builds: after every event,
 * every packet a NIC sent is delivered, dropped or still in the network (so
 * in the pool), and no port holds a negative or impossible queue. */
static void check_conservation(struct sim *s, void *arg) {
    (void)arg;
    const struct net *n = s->model;
    FS_ASSERT(n->c.packets_sent ==
                  n->c.packets_delivered + n->c.packets_dropped + n->pkts_in_flight,
              "sent %llu != delivered %llu + dropped %llu + in flight %llu",
              (unsigned long long)n->c.packets_sent, (unsigned long long)n->c.packets_delivered,
              (unsigned long long)n->c.packets_dropped, (unsigned long long)n->pkts_in_flight);
    FS_ASSERT(n->pkts_in_flight <= n->pool.in_use, "in flight %llu > packets in the pool %llu",
              (unsigned long long)n->pkts_in_flight, (unsigned long long)n->pool.in_use);
}
#endif

int model_build_params(struct model *m, const struct model_params *params, struct diag *d) {
    return model_build_part(m, params, 0, 1, d);
}

int model_build_part(struct model *m, const struct model_params *params, uint32_t rank,
                     uint32_t nranks, struct diag *d) {
    memset(m, 0, sizeof *m);
    m->params = *params;
    const struct model_params *sc = m->sc = &m->params;
    struct net *n = &m->net;
    net_init(n, &m->sim);
    n->sc = sc;
    int rc = topo_build(n, sc, d);
    if (rc) return rc;
    n->part_rank = 0;
    n->part_ranks = 1;
    if (nranks > 1) { /* known before the tables that are kept per rank are made */
        n->part_owner = fs_xcalloc(n->nnodes + 1, sizeof *n->part_owner);
        part_build(n, nranks, n->part_owner);
        n->part_rank = rank;
        n->part_ranks = nranks;
    }
    sim_init(&m->sim, n->nnodes + 1);
    m->sim.model = n;
    m->sim.stop_ps = sc->stop_ps ? sc->stop_ps : MODEL_STOP_CAP_PS;
    sim_register(&m->sim, NET_EV_LINK_ARRIVE, port_on_arrive);
    sim_register(&m->sim, NET_EV_PORT_WAKE, port_on_wake);
    sim_register(&m->sim, NET_EV_MSG_POST, nic_on_msg_post);
    sim_register(&m->sim, NET_EV_QP_TIMER, nic_on_qp_timer);
    sim_register(&m->sim, NET_EV_NIC_WAKE, nic_on_wake);
    sim_register(&m->sim, NET_EV_SAMPLE, sampler_on_event);
    sim_register(&m->sim, NET_EV_SCENARIO, on_scenario_event);
    sim_register(&m->sim, NET_EV_GEN, workload_on_gen);
    sim_register(&m->sim, NET_EV_DEADLOCK, deadlock_on_event);
    sim_register(&m->sim, NET_EV_STUCK, stuck_on_event);

    const struct fabric_params *f = &sc->fabric;
    n->mtu_bytes = f->mtu_bytes;
    n->overhead_bytes = f->overhead_bytes;
    n->ack_every = f->transport.ack_every ? f->transport.ack_every : 1;
    n->switch_latency_ps = f->switch_latency_ps;
    n->buffer_bytes = f->buffer_bytes;
    n->rto_ps = f->transport.timeout_ps;
    n->retry_cnt = f->transport.retry_cnt;
    n->rto_fixed = f->transport.rto == RTO_FIXED;
    n->rto_adaptive = f->transport.rto == RTO_ADAPTIVE;
    n->go_back_0 = f->transport.retransmit == RETX_GO_BACK_0;
    n->selective = f->transport.retransmit == RETX_SELECTIVE;
    /* Receivers that place out-of-order packets keep a per-QP PSN window
     * (net/nic.c rx_data_ooo): selective repeat, and a sprayed fabric whose
     * NICs place directly (out_of_order: placement); adaptive routing sets
     * the same window in its init (route/adaptive.c). */
    if (n->selective || (f->routing == ROUTING_SPRAY && f->out_of_order == OOO_PLACEMENT)) {
        uint32_t w = f->reorder_window_pkts ? f->reorder_window_pkts : NET_OOO_WINDOW_DEFAULT;
        n->ooo_window = (w + 63) / 64 * 64;
    }

    if (!(n->fc = flowctl_select(n, d)) || !(n->route = route_select(n, d)) ||
        !(n->cc = cc_select(n, d)))
        return FS_ENOTSUP;
    /* Ultra Ethernet (xport/uet.c): per-packet entropy, per-packet SACKs,
     * trimming switches when fabric.uet.trimming (docs/model.md). */
    n->xp = xport_select(n);
    if (n->xp) {
        n->sack = true;
        if (f->uet.trimming)
            n->trim_bytes = f->uet.trim_bytes ? f->uet.trim_bytes : f->buffer_bytes;
    }
    n->port_fail = fs_xcalloc(n->nports + 1, sizeof *n->port_fail);
    nic_init(n);
    nic_reorder_init(n);
    /* The FIB (every switch's minimal ports per destination group) is what
     * ECMP, spraying, adaptive routing, BGP and SHIELD read, and what static
     * routing derives its LFT from without a subnet manager; with one and
     * without SHIELD nothing reads it (the SM computes its own routes). */
    n->ctrl = ctrl_select(n, d);
    if (!(n->route == &route_static_ops && n->ctrl == &ctrl_sm_ops && !f->control_plane.shield))
        route_fib_build(n);
    if (d->msg[0]) return FS_ENOTSUP;
    if (n->ctrl && n->ctrl->init && (rc = n->ctrl->init(n, d))) return rc;
    if (n->fc->init && (rc = n->fc->init(n, d))) return rc;
    n->lr = link_retry_select(n);
    if (n->lr && n->lr->init && (rc = n->lr->init(n, d))) return rc;
    if (n->route->init && (rc = n->route->init(n, d))) return rc;
    if (n->cc->init && (rc = n->cc->init(n, d))) return rc;
    if (n->xp && n->xp->init && (rc = n->xp->init(n, d))) return rc;
    n->tx_hooks = n->fc->on_send || n->cc->on_tx || n->lr;
    n->rx_hooks = n->loss != NULL || n->lr != NULL;
    n->fc_fast = n->fc->fast;
    n->route_fast = n->route->fast;
    n->sw_hooks = n->trim_bytes != 0 || n->cc->on_enqueue;
    if ((rc = build_events(m, d))) return rc;
    if (f->ber > 0) /* fabric.ber: every link; link_ber events override from their time */
        for (uint32_t p = 0; p < n->nports; p++)
            set_loss(n, p, f->ber, -1, -1);
    if ((rc = workload_build(n, d))) return rc;
    sampler_init(&m->sampler, n, sc->output.sample_ps);
    if (n->part_owner) { /* links.csv rows: each rank samples its own ports */
        uint32_t *mine = fs_xmalloc(((size_t)n->nports + 1) * sizeof *mine), k = 0;
        for (uint32_t p = 0; p < n->nports; p++)
            if (n->part_owner[n->ports[p].node] == n->part_rank) mine[k++] = p;
        sampler_restrict(&m->sampler, mine, k);
        free(mine);
    }
    n->sampler = &m->sampler;
    sim_at(&m->sim, m->sampler.interval_ps, 0, NET_EV_SAMPLE, 0, 0);
#ifdef FABSIM_DEBUG
    m->sim.after_event = check_conservation; /* a test may install its own */
#endif
    hoq_start(n); /* InfiniBand: HOQ lifetime discards (before the deadlock watch) */
    /* Only lossless fabrics can deadlock; a lossy one drops instead. */
    if (sc->fabric.flow_control != FLOWCTL_NONE)
        deadlock_start(n, f->deadlock_timeout_ps ? f->deadlock_timeout_ps : DEADLOCK_CHECK_PS);
    stuck_start(n);
    return 0;
}

/* Every 2^16 events (a few ms of wall time): a SIGINT/SIGTERM ends the run
 * (core/sig.h); every 16th time, the progress line. */
#define TICK_EVENTS (1u << 16)

static void tick(struct sim *s, void *arg) {
    void **a = arg;
    struct model *m = a[1];
    if (sig_pending()) {
        m->interrupted = sig_pending();
        sim_stop(s);
        return;
    }
    if (a[0] && (s->events_run / TICK_EVENTS) % 16 == 0)
        ((model_progress_fn)a[0])((const struct model *)a[1], a[2]);
}

/* The event loop with the cache warm-up that pays at this size (net/warm.h). */
static void run_events(struct model *m, void *targ) {
    enum net_warm_mode w = net_warm_mode(&m->net);
    if (w == NET_WARM_OFF)
        sim_run_warm(&m->sim, tick, targ, TICK_EVENTS, NULL);
    else if (w == NET_WARM_PORTS)
        sim_run_warm(&m->sim, tick, targ, TICK_EVENTS, net_warm);
    else
        sim_run_warm(&m->sim, tick, targ, TICK_EVENTS, net_warm_routed);
}

void model_run(struct model *m, model_progress_fn progress, void *arg) {
    double t0 = wall_now_s();
    void *targ[3] = {(void *)progress, m, arg};
    /* In the event loop a signal is a request to stop (tick polls it);
     * elsewhere it exits at once (core/sig.h). */
    enum sig_mode prev = sig_set_mode(SIG_MODE_FLAG);
    if (sig_pending()) /* arrived while building */
        m->interrupted = sig_pending();
    else
        run_events(m, targ);
    sig_set_mode(prev);
    struct net *n = &m->net;
    /* The time the model reached: the last event run. */
    sampler_take(&m->sampler, n, m->sim.now_ps);
    model_finish(m);
    m->wall_s = wall_now_s() - t0;
}

void model_finish(struct model *m) {
    struct net *n = &m->net;
    /* A deadlock the PFC watchdog broke leaves the work done: completed, and
     * the deadlock stays reported (net/deadlock.c). */
    m->completed = n->work_pending == 0 && n->nqp_errs == 0; /* an aborted job did not finish */
    workload_finish(n);
    for (uint32_t i = 0; i < n->ncp_rows; i++) {
        struct cp_row *r = &n->cp_rows[i];
        uint64_t d = 0;
        d += n->ports[r->port].drops + n->ports[n->ports[r->port].peer].drops;
        r->packets_lost = d - r->drops_at_start;
    }
    trace_end(n);
    /* No failure counted (every port_fail increment has its counter in
     * n->c): the table is all zeros, which results.json reads NULL as;
     * reading the untouched table made it resident (1.5 MB at k = 32). */
    if (!n->c.corrupted && !n->c.hoq_discards && !n->c.llr_nacks && !n->c.llr_replays) {
        free(n->port_fail);
        n->port_fail = NULL;
    }
}

void model_fini(struct model *m) {
    struct net *n = &m->net;
    if (n->fc && n->fc->fini) n->fc->fini(n);
    if (n->lr && n->lr->fini) n->lr->fini(n);
    if (n->route && n->route->fini) n->route->fini(n);
    if (n->cc && n->cc->fini) n->cc->fini(n);
    if (n->xp && n->xp->fini) n->xp->fini(n);
    workload_fini(n);
    deadlock_fini(n);
    hoq_fini(n);
    stuck_fini(n);
    nic_reorder_fini(n);
    if (n->dist) n->dist->fini(n);
    if (n->ctrl && n->ctrl->fini) n->ctrl->fini(n);
    free(n->ev_state);
    n->ev_state = NULL;
    sampler_fini(&m->sampler);
    /* The FIB is route/'s, built here (route_fib_build above): freed here too. */
    route_fib_free(n->fib);
    n->fib = NULL;
    free(n->lft_row);
    free(n->part_owner);
    net_fini(n);
    if (m->sim.entity_seq) sim_fini(&m->sim);
}

double model_progress(const struct model *m) {
    const struct net *n = &m->net;
    /* Bytes delivered of those posted so far plus those the collectives'
     * schedules will still post (a ring posts each step only when the one
     * before arrives: posted alone said 99 % for most of the run, issue 34);
     * moves steadily even when all messages finish together (an all-to-all);
     * messages done otherwise. */
    uint64_t ahead =
        n->bytes_planned > n->bytes_planned_posted ? n->bytes_planned - n->bytes_planned_posted : 0;
    if (n->bytes_posted + ahead)
        return (double)n->c.bytes_delivered / (double)(n->bytes_posted + ahead);
    return n->work_total ? 1.0 - (double)n->work_pending / (double)n->work_total : 1.0;
}

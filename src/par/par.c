/* src/par/par.c
 *
 * The conservative windowed engine (par/par.h). A window is [tmin, tmin + L)
 * where tmin is the earliest pending event of all ranks and L the lookahead,
 * the smallest delay of a cut link (a packet's arrival is at least the link's
 * deliver_ps after its transmission starts): nothing sent inside a window can
 * arrive inside it, so every rank runs its window alone, then one exchange
 * (an allgather of a small status with the byte counts, and an alltoallv of
 * the packets) starts the next window. A deadlock check, which looks at every
 * port at one instant, is a window boundary: it runs first in its window on
 * every rank, with its own collectives (par_or_bytes, par_gather_edges).
 *
 * Ending exactly where one process ends. One process stops at the event after
 * which no work is pending and no packet is in flight (net_check_idle); the
 * events after it (timers, credit flushes) must not run here either. Each
 * rank's share of that sum (its messages not yet acknowledged, the packets
 * inside its part; a packet on a cut link counts on the sender until the
 * exchange) only falls to zero at its own events, and the whole sum, once
 * zero, stays zero. So a rank whose share is zero holds before its next event
 * in the window; the status allgather then says whether the sum is zero (the
 * run ends at K*, the latest event at which some share fell to zero, and
 * every rank runs its events up to K*) or not (the held ranks run on to the
 * window's end, and the window has a second round).
 */
#include "par/par.h"

#include "net/params.h"
#include "core/diag.h"
#include "core/mem.h"
#include "core/sim_loop.h"
#include "net/deadlock.h"
#include "net/dist.h"
#include "model/model.h"
#include "net/net.h"
#include "net/hoq.h"
#include "net/stuck.h"
#include "net/warm.h"
#include "model/part.h"
#include "par/pcoll.h"
#include "par/pevents.h"
#include "par/pmerge.h"
#include "par/ptrace.h"
#include "core/jw.h"
#include "model/sampler.h"
#include "core/wall.h"
#include "workload/workload.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The status every rank gives at a window's end (u64 words), then one byte
 * count per destination rank. */
enum {
    ST_CONTRIB,
    ST_TRANSIT,
    ST_ZT,
    ST_ZO,
    ST_NEXT,
    ST_OUTMIN,
    ST_HELD,
    ST_EVENTS,
    ST_NREC, /* bytes of collective records (par/pcoll.c) */
    ST_WORDS
};

static bool counted(const struct packet *p) {
    return p->type != PKT_CREDIT && p->type != PKT_PAUSE;
}

void par_out(struct net *n, uint32_t port, uint32_t id) {
    struct par *P = n->par;
    struct packet *p = pkt(&n->pool, id);
    struct par_box *b = &P->out[P->owner[n->ports[port].peer_node]];
    if (b->len == b->cap) fs_grow((void **)&b->v, &b->cap, b->len + 1, sizeof *b->v);
    struct packet *r = &b->v[b->len++]; /* 64 bytes a packet: the port in `next` */
    *r = *p;
    r->next = port;
    if (p->t_ps < P->out_min_ps) P->out_min_ps = p->t_ps;
    if (counted(p)) {
        n->pkts_in_flight--;
        P->transit++;
    }
    pkt_free(&n->pool, id);
}

/* A packet from another rank joins its link's wire FIFO, as start_tx would
 * have put it there. It must arrive after the window it was sent in. */
static void deliver(struct net *n, const struct packet *in) {
    struct par *P = n->par;
    uint32_t port = in->next;
    FS_ASSERT(port < n->nports, "a packet from another rank on port %u", port);
    struct port *pt = &n->ports[port];
    FS_ASSERT(in->t_ps >= P->wend_ps,
              "causality: a packet on cut link %u arrives at %llu ps, inside the window that "
              "ended at %llu ps (lookahead %llu ps > the link's delay)",
              port, (unsigned long long)in->t_ps, (unsigned long long)P->wend_ps,
              (unsigned long long)P->lookahead_ps);
    uint32_t id = pkt_alloc(&n->pool);
    struct packet *p = pkt(&n->pool, id);
    *p = *in;
    p->next = PKT_NONE;
    if (pt->fly_tail == PKT_NONE) {
        pt->fly_head = id;
        net_arrive_at(n, port, p->t_ps);
    } else {
        struct packet *t = pkt(&n->pool, pt->fly_tail); /* as start_tx links it */
        t->next = id;
        uint64_t dt = p->t_ps - t->t_ps;
        t->next_dt_ps = dt < PKT_DT_FAR ? (uint32_t)dt : PKT_DT_FAR;
    }
    pt->fly_tail = id;
    if (counted(p)) n->pkts_in_flight++;
}

/* Which rank runs an event (events of the replicated build that belong to
 * another rank are dropped); -1: a kind not supported on several ranks. */
static int event_rank(const struct net *n, const struct par *P, const struct event *e) {
    uint32_t ent = event_entity(e);
    /* Control planes (SM sweeps and pushes, BGP updates) and scenario events
     * are deterministic functions of the topology and the failure times:
     * every rank runs them, on its replica of the routing state. */
    if (e->kind == NET_EV_CTRL || e->kind == NET_EV_SCENARIO) return P->comm.rank;
    if (ent == 0) {
        switch (e->kind) {
        case NET_EV_SAMPLE:
        case NET_EV_DEADLOCK:
        case NET_EV_STUCK:
        case NET_EV_HOQ:
            return P->comm.rank; /* every rank: samples its ports, checks together */
        case NET_EV_MSG_POST:
            return P->owner[n->qps[n->msgs[e->arg].qp].src];
        default:
            return -1;
        }
    }
    if (e->kind == NET_EV_LINK_ARRIVE) return P->owner[n->ports[e->arg].peer_node];
    return P->owner[ent - 1];
}

static const char *kind_name(uint16_t kind) {
    switch (kind) {
    case NET_EV_SCENARIO:
        return "scenario events (link failures, host stalls)";
    case NET_EV_CTRL:
        return "control-plane events (subnet manager, BGP)";
    case NET_EV_COLL:
        return "collectives";
    default:
        return "this event kind";
    }
}

static int par_ranks(const struct net *n) {
    return n->par->comm.size;
}

uint32_t par_allgather_u32(struct net *n, const uint32_t *v, uint32_t len, uint32_t **out);
void par_lft_full(struct net *n);

/* What the packet layer calls through n->dist (net/dist.h). */
static const struct net_dist_ops par_dist_ops = {
    .out = par_out,
    .sum_u64 = par_sum_u64,
    .min_u64 = par_min_u64,
    .or_bytes = par_or_bytes,
    .gather_edges = par_gather_edges,
    .gather_stuck = par_gather_stuck,
    .refuse = par_refuse,
    .scheduled = par_sc_scheduled,
    .mine = par_mine,
    .ranks = par_ranks,
    .allgather_u32 = par_allgather_u32,
    .lft_full = par_lft_full,
    .write_json = par_write_json,
    .fini = par_fini,
};

int par_setup(struct model *m, const struct comm *c, sim_time_ps lookahead_ps, struct diag *d) {
    struct net *n = &m->net;
    const struct model_params *sc = m->sc;
    struct sim *s = &m->sim;
    int R = c->size;
    uint32_t pregen = 0; /* Poisson messages reserved (ids at the end of the table) */
    if (R > 1) {
        for (size_t i = 0; i < sc->nworkload; i++) {
            enum wl_kind k = sc->workload[i].kind;
            bool coll = k == WL_ALLREDUCE || k == WL_ALLGATHER || k == WL_REDUCESCATTER ||
                        k == WL_BROADCAST || k == WL_TRAINING || k == WL_NCCL_TESTS ||
                        k == WL_CHAKRA || k == WL_MOE || k == WL_INFERENCE; /* par/pcoll.c */
            if (k != WL_FLOWS && k != WL_PERMUTATION && k != WL_INCAST && k != WL_ALLTOALL &&
                k != WL_POISSON && !coll) /* every kind runs: a new one must say so here */
                return diag_set(d, sc->file, sc->workload[i].pos, FS_ENOTSUP,
                                "not yet supported with N>1 ranks: workload kind %d (run it on "
                                "one process)",
                                (int)k);
        }
        /* HPCC's INT hop records live beside each packet on its rank
         * (cc/hpcc.c): par_out ships the packet, not its records. */
        if (sc->fabric.congestion_control == CC_HPCC)
            return diag_set(d, sc->file, (struct srcpos){0}, FS_ENOTSUP,
                            "not yet supported with N>1 ranks: congestion_control hpcc (its INT "
                            "records do not cross ranks; run it on one process)");
        /* Link-level retry keeps each link's replay state with its
         * transmitter and parks frames at its receiver: both ends must be on
         * one rank. */
        if (n->lr)
            return diag_set(d, sc->file, (struct srcpos){0}, FS_ENOTSUP,
                            "not yet supported with N>1 ranks: fabric.link_retry: llr (run it "
                            "on one process)");
        /* Poisson sources make messages as they run, on their sender's
         * rank: their records are reserved here, alike on every rank, so a
         * packet's message id means the same message everywhere. */
        pregen = workload_pregen(n, s->stop_ps);
        /* An out-of-order receiver (adaptive routing) finds message bounds
         * from the sender's posting (msg.first_psn, msg.next), which only the
         * sending rank does. A collective's receiving rank numbers the
         * messages itself (coll.c launch); the workloads' messages, posted
         * from the build, leave one message per connection as all it can take. */
        if (n->ooo_window && !pcoll_held(n)) {
            uint8_t *seen = fs_xcalloc(n->nqps + 1, 1);
            bool several = false;
            for (uint32_t i = 0; i < n->nmsgs && !several; i++)
                several = seen[n->msgs[i].qp]++ > 0;
            free(seen);
            if (several)
                return diag_set(d, sc->file, (struct srcpos){0}, FS_ENOTSUP,
                                "not yet supported with N>1 ranks: adaptive routing with "
                                "several messages on one connection (run it on one process)");
        }
        /* the work: messages, the jobs' holds, each Poisson source's hold
         * until its end (the reserved messages are not work yet) */
        if (n->work_pending != n->nmsgs - pregen + pcoll_held(n) + workload_gens(n))
            return diag_set(d, sc->file, (struct srcpos){0}, FS_ENOTSUP,
                            "not yet supported with N>1 ranks: work other than messages "
                            "(run it on one process)");
    }
    /* merge() takes each message from its sender's rank and its receive
     * time from the receiver's, by id: the messages made before the run are
     * never recycled; the collectives' are, on every rank at once
     * (pcoll_msg_release), and nothing reads them after the run */
    if (R > 1 && !pcoll_held(n)) n->msg_keep = true;
    struct par *P = fs_xcalloc(1, sizeof *P);
    n->par = P;
    n->dist = &par_dist_ops;
    P->comm = *c;
    /* The build made the partition (model_build_part) and kept some tables
     * for this rank's nodes only; a model built for one process (tests) is
     * partitioned here and keeps them all. */
    if (n->part_owner) {
        FS_ASSERT(n->part_ranks == (uint32_t)R && n->part_rank == (uint32_t)c->rank,
                  "model built for rank %u of %u, run as rank %d of %d", n->part_rank,
                  n->part_ranks, c->rank, R);
        P->owner = n->part_owner;
    } else {
        P->owner = P->owner_own = fs_xcalloc(n->nnodes + 1, sizeof *P->owner);
        part_build(n, (uint32_t)R, P->owner_own);
    }
    P->out = fs_xcalloc((size_t)R, sizeof *P->out);
    P->events = fs_xcalloc((size_t)R, sizeof *P->events);
    P->sync = fs_xcalloc((size_t)R, sizeof *P->sync);
    P->work_cpu = fs_xcalloc((size_t)R, sizeof *P->work_cpu);
    P->nodes = fs_xcalloc((size_t)R, sizeof *P->nodes);
    P->hosts = fs_xcalloc((size_t)R, sizeof *P->hosts);
    for (uint32_t v = 0; v < n->nnodes; v++) {
        P->nodes[P->owner[v]]++;
        if (n->nodes[v].kind == NODE_HOST) P->hosts[P->owner[v]]++;
    }
    P->min_cut_ps = SIM_TIME_NEVER;
    for (uint32_t p = 0; p < n->nports; p++) {
        struct port *pt = &n->ports[p];
        pt->remote = P->owner[pt->node] != P->owner[pt->peer_node];
        if (!pt->remote) continue;
        P->ncut++;
        if (pt->deliver_ps < P->min_cut_ps) P->min_cut_ps = pt->deliver_ps;
    }
    P->lookahead_ps = lookahead_ps ? lookahead_ps : P->min_cut_ps;
    P->forced = lookahead_ps != 0;
    if (pcoll_held(n)) { /* collectives: windows no longer than their post overhead */
        sim_time_ps la;
        int rc = pcoll_setup(n, &la, d);
        if (rc) return rc;
        if (!lookahead_ps && la < P->lookahead_ps) P->lookahead_ps = la;
        if (P->lookahead_ps == 0)
            return diag_set(d, sc->file, (struct srcpos){0}, FS_ENOTSUP,
                            "not yet supported with N>1 ranks: collectives with no post overhead");
    }
    if (P->ncut && P->lookahead_ps == 0)
        return diag_set(d, sc->file, (struct srcpos){0}, FS_ENOTSUP,
                        "not yet supported with N>1 ranks: a cut link with no delay");
    /* Keep this rank's events: pop them all, re-queue ours in order. */
    struct event *keep = NULL;
    size_t nkeep = 0, cap = 0;
    struct event e;
    int bad = -1;
    while (!calq_pop(&s->q, &e)) {
        if (P->coll && e.kind == NET_EV_COLL && event_entity(&e) == 0) {
            pcoll_sched(n, e, NET_NONE); /* a job's start: every rank's */
            continue;
        }
        int r = event_rank(n, P, &e);
        if (r < 0 && R > 1) bad = e.kind;
        if (e.kind == NET_EV_SCENARIO) pev_add(P, e.time_ps);
        if (r != c->rank && R > 1) continue;
        fs_grow((void **)&keep, &cap, nkeep + 1, sizeof *keep);
        keep[nkeep++] = e;
    }
    calq_fini(&s->q);
    calq_init(&s->q);
    for (size_t i = 0; i < nkeep; i++)
        calq_push(&s->q, keep[i]);
    free(keep);
    if (bad >= 0)
        return diag_set(d, sc->file, (struct srcpos){0}, FS_ENOTSUP,
                        "not yet supported with N>1 ranks: %s (run it on one process)",
                        kind_name((uint16_t)bad));
    /* This rank's share of the work: the messages its hosts send, and the
     * Poisson sources they hold. */
    uint64_t mine = 0;
    for (uint32_t i = 0; i < n->nmsgs - pregen; i++)
        if (P->owner[n->qps[n->msgs[i].qp].src] == c->rank) mine++;
    for (uint32_t i = 0; R > 1 && i < workload_gens(n); i++)
        if (P->owner[workload_gen_src(n, i)] == c->rank) mine++;
    if (R > 1) n->work_pending = mine + pcoll_held(n); /* jobs' holds: every rank's */
    /* The conservation check after every event (debug builds) sums over the
     * whole network; one rank holds a part. The merged counters are checked
     * at the end instead. */
    s->after_event = NULL;
    P->nwarn0 = n->nwarnings;
    if (R > 1 && !n->part_owner) { /* links.csv rows: each rank samples its own ports */
        uint32_t *mine_p = fs_xcalloc(n->nports + 1, sizeof *mine_p), k = 0;
        for (uint32_t p = 0; p < n->nports; p++)
            if (P->owner[n->ports[p].node] == c->rank) mine_p[k++] = p;
        sampler_restrict(&m->sampler, mine_p, k);
        free(mine_p);
    }
    return 0;
}

void par_fini(struct net *n) {
    struct par *P = n->par;
    if (!P) return;
    for (int r = 0; r < P->comm.size; r++)
        free(P->out[r].v);
    free(P->out);
    free(P->owner_own);
    free(P->events);
    free(P->sync);
    free(P->work_cpu);
    free(P->nodes);
    free(P->hosts);
    pcoll_fini(n);
    free(P->sc.t);
    free(P->wkeys.v);
    free(P->qkeys.v);
    free(P);
    n->par = NULL;
    n->dist = NULL;
}

/* This rank's own share: with collectives (par/pcoll.c), plus its pending
 * SHARP starts and aggregations, minus the jobs' holds (every rank's: counted
 * once, in par_run). */
static inline uint64_t share(const struct net *n) {
    return (uint64_t)((int64_t)(n->work_pending + n->ctrl_pending + n->pkts_in_flight) +
                      n->par->coll_adj);
}

void par_refuse(struct net *n, const char *what) {
    n->par->refused = what;
    sim_stop(n->sim);
}

static inline bool key_le(uint64_t t, uint64_t o, uint64_t kt, uint64_t ko) {
    return t < kt || (t == kt && o <= ko);
}

struct zero_key {
    uint64_t t, o; /* the event after which this rank's share last fell to zero */
};

/* Kinds every rank runs (the control plane, scenario events): with the
 * events of entity 0 (samples, checks, posts, the engine's timers) they go
 * through exec, which counts a replicated event once and keeps its rows
 * once. Everything else is a node's event, run by its rank alone. */
#define SHARED_KINDS ((1u << NET_EV_CTRL) | (1u << NET_EV_SCENARIO))

static inline __attribute__((always_inline)) void exec(struct sim *s, const struct event *e) {
    struct par *P = ((struct net *)s->model)->par;
    s->now_ps = e->time_ps;
    s->stopped = false;
    if (e->kind == NET_EV_SCENARIO) pev_pop(P, e->time_ps);
    P->cur_t = e->time_ps;
    P->cur_o = e->order;
    P->cur_links = 0;
    struct net *n = s->model;
    uint32_t w0 = n->nwarnings, q0 = n->nqp_errs;
    uint64_t t = e->time_ps, o = e->order;
    uint16_t kind = e->kind;
    s->handlers[e->kind](s, e);
    /* Samples and deadlock checks run on every rank; one process ran them
     * once; a SHARP start (NET_EV_COLL of entity 0) is its member's rank's. */
    bool replicated = ((SHARED_KINDS >> kind) & 1) ||
                      ((o >> 32) == 0 && kind != NET_EV_MSG_POST && kind != NET_EV_COLL);
    if (__builtin_expect(n->nwarnings != w0 || n->nqp_errs != q0, 0))
        pmerge_tag(n, t, o, w0, q0, replicated);
    s->events_run += !replicated || P->comm.rank == 0;
}

/* Runs this rank's events before `wend`; unless `cleared`, holds (returns 1)
 * before an event when the rank's share is zero. A node's event (the
 * packets' events: all but a few) takes the lean path, as sim_run runs it:
 * no bookkeeping but the share's fall to zero and a look at the row
 * counts; the rest, and every event under --pcap/--trace (their records
 * want the event's key), go through exec. `coll` says whether collectives
 * run (their records want the event's order, and the share their
 * adjustment, P->coll_adj, 0 without them), `warm` which cache warm-up:
 * constants, one copy of the loop for each pair (run_window). */
static inline __attribute__((always_inline)) int run_window_(struct sim *s, struct net *n,
                                                             sim_time_ps wend, bool cleared,
                                                             struct zero_key *z, const bool coll,
                                                             sim_warm_fn warm) {
    struct par *P = n->par;
    struct calq *q = &s->q;
    const struct event *e;
    uint64_t prev = share(n), ran = 0;
    uint32_t w0 = n->nwarnings, q0 = n->nqp_errs;
    uint32_t lean = P->tr ? 0 : ~(uint32_t)SHARED_KINDS; /* kinds that may take it */
    int held = 0;
    if (prev == 0 && !cleared) goto hold;
    /* Taken by pointer (valid while its handler runs: pushes never move it),
     * the next event of the current bucket inline, and the events after it
     * in the bucket warmed, as sim_run_warm does (core/sim_loop.h). */
    for (;;) {
        if (__builtin_expect(q->next < q->lim, 1)) {
            e = q->next;
            if (e->time_ps >= wend) break;
            q->next++;
            if (warm) warm(n, q->next, (uint32_t)(q->lim - q->next), false);
        } else {
            e = calq_take_before_slow(q, wend);
            if (!e) break;
            /* a bucket just reached: nothing of it warmed yet */
            if (warm && e == q->now && q->next < q->lim)
                warm(n, q->next, (uint32_t)(q->lim - q->next), true);
        }
        sim_time_ps t = e->time_ps;
        uint64_t o = e->order;
        if (__builtin_expect(((lean >> e->kind) & 1) && (o >> 32) != 0, 1)) {
            s->now_ps = t;
            if (coll) P->cur_o = o; /* collectives' records (par/pcoll.c) */
            s->handlers[e->kind](s, e);
            ran++;
            if (__builtin_expect(n->nwarnings != w0 || n->nqp_errs != q0, 0)) {
                pmerge_tag(n, t, o, w0, q0, false);
                w0 = n->nwarnings;
                q0 = n->nqp_errs;
            }
        } else {
            exec(s, e);
            w0 = n->nwarnings;
            q0 = n->nqp_errs;
        }
        int64_t c = (int64_t)(n->work_pending + n->ctrl_pending + n->pkts_in_flight); /* share */
        if (coll) c += P->coll_adj;
        if (__builtin_expect(c == 0, 0)) {
            if (prev != 0) {
                z->t = t;
                z->o = o;
            }
            prev = 0;
            if (!cleared) goto hold;
        } else {
            prev = (uint64_t)c;
        }
    }
    s->events_run += ran;
    return 0;
hold: /* before the next event of the window, if there is one */
    s->events_run += ran;
    if ((e = calq_take_before(q, wend))) {
        calq_push(q, *e);
        held = 1;
    }
    return held;
}

/* The cache warm-up one process would use (net/warm.h net_warm_mode): every
 * rank holds every port, so the same size rule. */
static int run_window(struct sim *s, struct net *n, sim_time_ps wend, bool cleared,
                      struct zero_key *z) {
    enum net_warm_mode w = net_warm_mode(n);
    if (n->par->coll)
        return w == NET_WARM_OFF     ? run_window_(s, n, wend, cleared, z, true, NULL)
               : w == NET_WARM_PORTS ? run_window_(s, n, wend, cleared, z, true, net_warm)
                                     : run_window_(s, n, wend, cleared, z, true, net_warm_routed);
    return w == NET_WARM_OFF     ? run_window_(s, n, wend, cleared, z, false, NULL)
           : w == NET_WARM_PORTS ? run_window_(s, n, wend, cleared, z, false, net_warm)
                                 : run_window_(s, n, wend, cleared, z, false, net_warm_routed);
}

static void run_to_key(struct sim *s, uint64_t kt, uint64_t ko) {
    struct event e;
    while (!calq_pop_before(&s->q, kt + 1, &e)) {
        if (!key_le(e.time_ps, e.order, kt, ko)) {
            calq_push(&s->q, e);
            return;
        }
        exec(s, &e);
    }
}

/* A deadlock or stuck check at tmin runs first in its window, on every rank
 * (with the scenario-wide events before it at that instant): 1 if it stopped
 * the run. */
static int run_prefix(struct sim *s, sim_time_ps tmin) {
    struct event e;
    while (!calq_pop_before(&s->q, tmin + 1, &e)) {
        if (event_entity(&e) != 0) {
            calq_push(&s->q, e);
            return 0;
        }
        exec(s, &e);
        if ((e.kind == NET_EV_DEADLOCK || e.kind == NET_EV_STUCK) && s->stopped) return 1;
    }
    return 0;
}

static sim_time_ps add_sat(sim_time_ps a, sim_time_ps b) {
    return a > SIM_TIME_NEVER - b ? SIM_TIME_NEVER : a + b;
}

/* Counters are summed, but for the firsts (the earliest nonzero) and the
 * reorder high-water mark (the largest): a new counter in struct
 * net_counters is summed unless listed here. */
static void merge_counters(struct net_counters *a, const struct net_counters *b) {
    _Static_assert(sizeof *a % sizeof(uint64_t) == 0, "net_counters: 64-bit fields");
    uint64_t *x = (uint64_t *)a;
    const uint64_t *y = (const uint64_t *)b;
    const size_t firsts[] = {offsetof(struct net_counters, first_pause_ps),
                             offsetof(struct net_counters, first_mark_ps),
                             offsetof(struct net_counters, first_hoq_ps)};
    for (size_t i = 0; i < sizeof *a / sizeof *x; i++) {
        size_t off = i * sizeof *x;
        bool first = false;
        for (size_t k = 0; k < sizeof firsts / sizeof firsts[0]; k++)
            first = first || off == firsts[k];
        if (first) {
            if (y[i] && (!x[i] || y[i] < x[i])) x[i] = y[i];
        } else if (off == offsetof(struct net_counters, reorder_max_bytes)) {
            if (y[i] > x[i]) x[i] = y[i];
        } else {
            x[i] += y[i];
        }
    }
}

struct qp_retry {
    uint64_t retries, max_ps, from_ps;
    uint64_t rto_ps; /* the pending retransmission deadline (results' incomplete_reason) */
};

struct par_hdr {
    uint64_t events, done_ps, work, inflight;
    uint64_t pre_made; /* reserved Poisson messages this rank made (workload_pregen) */
    double sync_s, work_cpu_s;
    struct net_counters c;
};

/* A rank's part of the results, in the order rank 0 reads it back: only
 * what rank 0 takes from that rank (its own ports, their sampler rows, the
 * messages and flows its hosts send, the receive times of those they
 * receive), plus the per-port counters every rank adds to (drops, failure
 * counters). So rank 0 holds about one copy of the results, not one per
 * rank. */
struct blob {
    char *v;
    size_t len, cap;
};

static void put(struct blob *b, const void *p, size_t len) {
    if (b->len + len > b->cap) fs_grow((void **)&b->v, &b->cap, b->len + len, 1);
    memcpy(b->v + b->len, p, len);
    b->len += len;
}

static const char *take(const char **at, size_t len) {
    const char *p = *at;
    *at += len;
    return p;
}

int par_csv_rank(const struct net *n) {
    return n->par->csv_rank;
}

/* The links.csv rows go to the rank that writes links.csv (par_csv_rank):
 * each port's from its owner (several ranks: each sampled its own ports). */
static void merge_rows(struct net *n, struct sampler *sp) {
    struct par *P = n->par;
    int R = P->comm.size, me = P->comm.rank, W = P->csv_rank;
    size_t need = 0;
    for (uint32_t p = 0; p < sp->nports; p++) /* several ranks: the sampler has its own ports */
        if (sp->port_of || P->owner[n->ports[p].node] == me) need += sizeof *sp->rows;
    need *= sp->n;
    struct blob b = {fs_xmalloc(need + 1), 0, need + 1};
    for (uint32_t row = 0; row < sp->n; row++)
        for (uint32_t p = 0; p < sp->nports; p++)
            if (sp->port_of || P->owner[n->ports[p].node] == me)
                put(&b, &sp->rows[(size_t)row * sp->nports + p], sizeof *sp->rows);
    FS_ASSERT(b.len == need, "rows blob %zu bytes, counted %zu", b.len, need);
    uint64_t *sizes = fs_xcalloc((size_t)R, sizeof *sizes);
    char *all = pmerge_gather(P, W, b.v, b.len, sizes);
    free(b.v);
    if (me == W) {
        if (sp->port_of) sampler_expand(sp, n->nports);
        const char **at = fs_xcalloc((size_t)R, sizeof *at);
        size_t off = 0;
        for (int r = 0; r < R; r++) {
            at[r] = all + off;
            off += sizes[r];
        }
        for (uint32_t row = 0; row < sp->n; row++)
            for (uint32_t p = 0; p < sp->nports; p++)
                memcpy(&sp->rows[(size_t)row * sp->nports + p],
                       take(&at[P->owner[n->ports[p].node]], sizeof *sp->rows), sizeof *sp->rows);
        off = 0;
        for (int r = 0; r < R; r++) {
            FS_ASSERT(at[r] == all + off + sizes[r], "rank %d gave %llu bytes of rows, read %td", r,
                      (unsigned long long)sizes[r], at[r] - (all + off));
            off += sizes[r];
        }
        free(at);
    }
    free(all);
    free(sizes);
}

/* The merge goes in rounds of at most this many bytes (all ranks' parts
 * together): rank 0 then holds one round's parts at a time, not a copy of
 * every rank's ports, messages and flows (16 MB of the 8,192-host IB
 * bench's 2-rank merge). A round is two collectives (~50 us here). */
#define MERGE_ROUND_BYTES ((size_t)256 << 10)

/* One round: every rank's blob gathered on rank 0, read back rank by rank. */
struct mround {
    struct par *P;
    struct blob b;
    uint64_t *sizes;
    char *all;
    const char **at;
};

static void mround_gather(struct mround *r) {
    struct par *P = r->P;
    int R = P->comm.size;
    if (!r->sizes) {
        r->sizes = fs_xcalloc((size_t)R, sizeof *r->sizes);
        r->at = fs_xcalloc((size_t)R, sizeof *r->at);
    }
    r->all = pmerge_gather(P, 0, r->b.v ? r->b.v : "", r->b.len, r->sizes);
    size_t off = 0;
    for (int k = 0; P->comm.rank == 0 && k < R; k++) {
        r->at[k] = r->all + off;
        off += r->sizes[k];
    }
}

/* After rank 0 read the round: every rank's part read to its end. */
static void mround_end(struct mround *r) {
    struct par *P = r->P;
    size_t off = 0;
    for (int k = 0; P->comm.rank == 0 && k < P->comm.size; k++) {
        FS_ASSERT(r->at[k] == r->all + off + r->sizes[k],
                  "rank %d gave %llu bytes of results, read %td", k,
                  (unsigned long long)r->sizes[k], r->at[k] - (r->all + off));
        off += r->sizes[k];
    }
    free(r->all);
    r->all = NULL;
    r->b.len = 0;
}

/* Did a rank count a failure in its n->port_fail (every increment there
 * has its counter in struct net_counters)? */
static bool fail_counted(const struct net_counters *c) {
    return c->corrupted || c->hoq_discards || c->llr_nacks || c->llr_replays;
}

/* Items per round when each takes up to `item` bytes over all ranks. */
static uint32_t per_round(size_t item) {
    size_t k = MERGE_ROUND_BYTES / (item ? item : 1);
    return k ? (k < UINT32_MAX ? (uint32_t)k : UINT32_MAX) : 1;
}

static uint32_t min_u32(uint32_t a, uint32_t b) {
    return a < b ? a : b;
}

/* Rank 0 takes every entity's state from the rank that owns it. */
static void merge(struct model *m, double work_cpu_s) {
    struct net *n = &m->net;
    struct par *P = n->par;
    struct sampler *sp = &m->sampler;
    int R = P->comm.size, me = P->comm.rank;
    bool root = me == 0;
    uint32_t ncc = sp->cc_rows ? (n->nqps < SAMPLER_CC_QPS ? n->nqps : SAMPLER_CC_QPS) : 0;
    struct mround r = {.P = P};
    bool my_fails = fail_counted(&n->c), *fails = fs_xcalloc((size_t)R, sizeof *fails);
    /* The headers: events, counters, what is still pending. */
    struct par_hdr h = {
        m->sim.events_run,       n->done_ps, n->work_pending, n->pkts_in_flight + P->transit,
        workload_pregen_made(n), P->sync_s,  work_cpu_s,      n->c};
    put(&r.b, &h, sizeof h);
    mround_gather(&r);
    if (root) {
        memset(&n->c, 0, sizeof n->c);
        m->sim.events_run = n->done_ps = n->work_pending = n->pkts_in_flight = 0;
        for (int k = 0; k < R; k++) {
            struct par_hdr hr;
            memcpy(&hr, take(&r.at[k], sizeof hr), sizeof hr);
            P->events[k] = hr.events;
            P->sync[k] = hr.sync_s;
            P->work_cpu[k] = hr.work_cpu_s;
            m->sim.events_run += hr.events;
            P->pre_made += hr.pre_made;
            if (hr.done_ps > n->done_ps) n->done_ps = hr.done_ps;
            n->work_pending += hr.work;
            n->pkts_in_flight += hr.inflight;
            merge_counters(&n->c, &hr.c);
            fails[k] = fail_counted(&hr.c);
        }
    }
    mround_end(&r);
    /* Ports: each from its owner; a NIC counts a packet it drops on its
     * link's sending port (nic.c), a bit error where the packet is lost:
     * drops and failure counters summed, every copy began at 0. A rank
     * whose counters say it counted no failure sends no port_fail rows:
     * reading the untouched table alone made 1.5 MB of it resident (k = 32). */

    _Static_assert(sizeof(struct port_fail) == 4 * sizeof(uint64_t), "port_fail: sum each field");
    uint32_t step =
        per_round((size_t)R * (sizeof n->ports->drops + sizeof *n->port_fail) + sizeof *n->ports);
    for (uint32_t p0 = 0; p0 < n->nports; p0 += step) {
        uint32_t p1 = min_u32(n->nports, p0 + step);
        for (uint32_t p = p0; p < p1; p++) {
            put(&r.b, &n->ports[p].drops, sizeof n->ports[p].drops);
            if (my_fails) put(&r.b, &n->port_fail[p], sizeof *n->port_fail);
            if (P->owner[n->ports[p].node] == me) put(&r.b, &n->ports[p], sizeof *n->ports);
        }
        mround_gather(&r);
        for (uint32_t p = p0; root && p < p1; p++) {
            uint64_t drops = 0;
            struct port_fail sum = {0};
            int own = P->owner[n->ports[p].node];
            for (int k = 0; k < R; k++) {
                uint64_t d;
                struct port_fail pf = {0};
                memcpy(&d, take(&r.at[k], sizeof d), sizeof d);
                if (fails[k]) memcpy(&pf, take(&r.at[k], sizeof pf), sizeof pf);
                drops += d;
                sum.corrupted += pf.corrupted;
                sum.hoq_discards += pf.hoq_discards;
                sum.llr_nacks += pf.llr_nacks;
                sum.llr_replays += pf.llr_replays;
                if (k == own)
                    memcpy(&n->ports[p], take(&r.at[k], sizeof *n->ports), sizeof *n->ports);
            }
            n->ports[p].drops = drops;
            /* all zero (mostly): left untouched, as its pages */
            if (sum.corrupted | sum.hoq_discards | sum.llr_nacks | sum.llr_replays)
                n->port_fail[p] = sum;
        }
        mround_end(&r);
    }
    /* Messages from the sender's rank, the receive time from the
     * receiver's (the same rank: right after the message). */
    step = per_round(sizeof *n->msgs + sizeof n->msgs->recv_ps);
    for (uint32_t i0 = 0; i0 < n->nmsgs; i0 += step) {
        uint32_t i1 = min_u32(n->nmsgs, i0 + step);
        for (uint32_t i = i0; i < i1; i++) {
            const struct qp *q = &n->qps[n->msgs[i].qp];
            if (P->owner[q->src] == me) put(&r.b, &n->msgs[i], sizeof *n->msgs);
            if (P->owner[q->dst] == me) put(&r.b, &n->msgs[i].recv_ps, sizeof n->msgs[i].recv_ps);
        }
        mround_gather(&r);
        for (uint32_t i = i0; root && i < i1; i++) {
            const struct qp *q = &n->qps[n->msgs[i].qp];
            int src = P->owner[q->src], dst = P->owner[q->dst];
            memcpy(&n->msgs[i], take(&r.at[src], sizeof *n->msgs), sizeof *n->msgs);
            memcpy(&n->msgs[i].recv_ps, take(&r.at[dst], sizeof n->msgs[i].recv_ps),
                   sizeof n->msgs[i].recv_ps);
        }
        mround_end(&r);
    }
    step = per_round(sizeof *n->flows);
    for (uint32_t f0 = 0; f0 < n->nflows; f0 += step) {
        uint32_t f1 = min_u32(n->nflows, f0 + step);
        for (uint32_t f = f0; f < f1; f++)
            if (P->owner[n->host_node[n->flows[f].src]] == me)
                put(&r.b, &n->flows[f], sizeof *n->flows);
        mround_gather(&r);
        for (uint32_t f = f0; root && f < f1; f++)
            memcpy(&n->flows[f],
                   take(&r.at[P->owner[n->host_node[n->flows[f].src]]], sizeof *n->flows),
                   sizeof *n->flows);
        mround_end(&r);
    }
    /* results.json jobs[]: a QP's retries and stalls, its sender's */
    step = per_round(sizeof(struct qp_retry));
    for (uint32_t q0 = 0; q0 < n->nqps; q0 += step) {
        uint32_t q1 = min_u32(n->nqps, q0 + step);
        for (uint32_t q = q0; q < q1; q++)
            if (P->owner[n->qps[q].src] == me) {
                struct qp_retry qr = {n->qps[q].retries_total, n->qps[q].stall_max_ps,
                                      n->qps[q].stall_from_ps, n->qps[q].rto_deadline_ps};
                put(&r.b, &qr, sizeof qr);
            }
        mround_gather(&r);
        for (uint32_t q = q0; root && q < q1; q++) {
            struct qp_retry qr;
            memcpy(&qr, take(&r.at[P->owner[n->qps[q].src]], sizeof qr), sizeof qr);
            n->qps[q].retries_total = (uint32_t)qr.retries;
            n->qps[q].stall_max_ps = qr.max_ps;
            n->qps[q].stall_from_ps = qr.from_ps;
            n->qps[q].rto_deadline_ps = qr.rto_ps;
        }
        mround_end(&r);
    }
    /* DCQCN's rate of a QP is its sender's (results.json cc_rates): at most
     * SAMPLER_CC_QPS x 4 B a sample row. */
    for (uint32_t row = 0; row < sp->n; row++)
        for (uint32_t q = 0; q < ncc; q++)
            if (P->owner[n->qps[q].src] == me)
                put(&r.b, &sp->cc_rows[(size_t)row * SAMPLER_CC_QPS + q], sizeof *sp->cc_rows);
    mround_gather(&r);
    for (uint32_t row = 0; root && row < sp->n; row++)
        for (uint32_t q = 0; q < ncc; q++) {
            size_t k = (size_t)row * SAMPLER_CC_QPS + q;
            memcpy(&sp->cc_rows[k], take(&r.at[P->owner[n->qps[q].src]], sizeof *sp->cc_rows),
                   sizeof *sp->cc_rows);
        }
    mround_end(&r);
    free(fails);
    free(r.b.v);
    free(r.sizes);
    free(r.at);
    /* links.csv's rows: on several ranks the writer gathers them as it
     * writes (par/pwrite.c); --trace reads them on rank 0, which writes. */
    P->csv_rank = R > 1 && !P->tr ? R - 1 : 0;
    if (R > 1 && P->tr) merge_rows(n, sp);
    if (!root) return;
    /* A flow's end is its acknowledged messages' last byte at the receiver
     * (nic.c msg_acked), known on the receiving rank. */
    for (uint32_t i = 0; i < n->nmsgs; i++) {
        const struct msg *mm = &n->msgs[i];
        if (mm->flow < 0 || !mm->acked_ps) continue;
        struct flow_row *f = &n->flows[mm->flow];
        if (mm->recv_ps > f->end_ps) f->end_ps = mm->recv_ps;
    }
    FS_ASSERT(n->c.packets_sent ==
                  n->c.packets_delivered + n->c.packets_dropped + n->pkts_in_flight,
              "merged: sent %llu != delivered %llu + dropped %llu + in flight %llu",
              (unsigned long long)n->c.packets_sent, (unsigned long long)n->c.packets_delivered,
              (unsigned long long)n->c.packets_dropped, (unsigned long long)n->pkts_in_flight);
}

int par_run(struct model *m) {
    struct sim *s = &m->sim;
    struct net *n = &m->net;
    struct par *P = n->par;
    int R = P->comm.size, me = P->comm.rank;
    size_t W = ST_WORDS + (size_t)R;
    uint64_t *st = fs_xcalloc(W, sizeof *st), *all = fs_xcalloc(W * (size_t)R, sizeof *all);
    size_t *scount = fs_xcalloc((size_t)R, sizeof *scount);
    size_t *rcount = fs_xcalloc((size_t)R, sizeof *rcount);
    struct packet *sbuf = NULL, *rbuf = NULL;
    size_t scap = 0, rcap = 0;
    struct zero_key z = {0, 0};
    double cpu0 = wall_cpu_s(), sync_t0 = 0;
    P->out_min_ps = SIM_TIME_NEVER;
    sim_time_ps next = calq_peek_time(&s->q);
    sim_time_ps cn = P->coll ? pcoll_next_ps(n) : SIM_TIME_NEVER;
    if (cn < next) next = cn;
    uint64_t *nexts = fs_xcalloc((size_t)R, sizeof *nexts);
    P->comm.ops->allgather(P->comm.ctx, &next, sizeof next, nexts);
    sim_time_ps tmin = SIM_TIME_NEVER;
    for (int r = 0; r < R; r++)
        if (nexts[r] < tmin) tmin = nexts[r];
    free(nexts);
    while (tmin != SIM_TIME_NEVER && tmin <= s->stop_ps) {
        P->windows++;
        sim_time_ps dl = deadlock_next_ps(n), stk = stuck_next_ps(n), sce = pev_next(P);
        sim_time_ps hq = hoq_next_ps(n);
        if ((dl == tmin || stk == tmin || sce == tmin || hq == tmin) && run_prefix(s, tmin)) {
            P->dl_stop = true;
            break;
        }
        /* The checks and events at tmin ran: their next times bound this
         * window too (with no cut link, nothing else would). */
        dl = deadlock_next_ps(n);
        stk = stuck_next_ps(n);
        sce = pev_next(P);
        hq = hoq_next_ps(n);
        sim_time_ps wend =
            add_sat(tmin, P->ncut || P->forced || P->coll ? P->lookahead_ps : SIM_TIME_NEVER);
        if (hq > tmin && hq < wend) wend = hq;
        if (dl > tmin && dl < wend) wend = dl;
        if (stk > tmin && stk < wend) wend = stk;
        if (sce > tmin && sce < wend) wend = sce;
        if (wend > s->stop_ps) wend = s->stop_ps + 1;
        P->wend_ps = wend;
        bool cleared = false, final = false;
        uint64_t ev0 = s->events_run, most = 0;
        for (;;) {
            int held = run_window(s, n, wend, cleared, &z);
            memset(st, 0, W * sizeof *st);
            st[ST_CONTRIB] = share(n);
            st[ST_TRANSIT] = P->transit;
            st[ST_ZT] = z.t;
            st[ST_ZO] = z.o;
            st[ST_NEXT] = calq_peek_time(&s->q);
            st[ST_OUTMIN] = P->out_min_ps;
            st[ST_HELD] = (uint64_t)held;
            st[ST_EVENTS] = s->events_run - ev0;
            st[ST_NREC] = P->coll ? pcoll_rec_bytes(n) : 0;
            for (int r = 0; r < R; r++)
                st[ST_WORDS + r] = P->out[r].len * sizeof(struct packet);
            /* From here to the end of the packets' exchange (or to a
             * second round's run) the rank is in the window's collectives:
             * wall clock only (vDSO, ~30 ns). The process's CPU clock is a
             * system call, 0.4-1.6 us: two a window were most of a short
             * window's cost (docs/performance.md "Per-window cost"). */
            double t0 = wall_now_s();
            P->comm.ops->allgather(P->comm.ctx, st, W * sizeof *st, all);
            uint64_t sum = 0, anyheld = 0, kt = 0, ko = 0;
            if (P->coll) {
                /* every record of the window is known after its first round
                 * (pcoll.c): every rank applies them, then the jobs' holds
                 * and the messages they made count in the sum */
                uint64_t zt = 0, zo = 0;
                sum += pcoll_replay(n, all + ST_NREC, W, wend, &zt, &zo) + pcoll_held(n);
                if (!key_le(zt, zo, kt, ko)) {
                    kt = zt;
                    ko = zo;
                }
            }
            for (int r = 0; r < R; r++) {
                const uint64_t *a = all + (size_t)r * W;
                sum += a[ST_CONTRIB] + a[ST_TRANSIT];
                anyheld += a[ST_HELD];
                if (a[ST_EVENTS] > most) most = a[ST_EVENTS];
                if (!key_le(a[ST_ZT], a[ST_ZO], kt, ko)) {
                    kt = a[ST_ZT];
                    ko = a[ST_ZO];
                }
            }
            if (sum == 0 || anyheld) { /* the run ends, or a second round */
                P->sync_s += wall_now_s() - t0;
            } else {
                sync_t0 = t0; /* closed after the exchange */
            }
            if (sum == 0) {
                P->crit_events += most;
                run_to_key(s, kt, ko);
                final = true;
                break;
            }
            if (!anyheld) {
                P->crit_events += most;
                break;
            }
            cleared = true;
            P->rounds++;
        }
        if (final) break;
        /* Exchange the packets of the cut links. */
        size_t ns = 0, nr = 0;
        bool crossed = false; /* any packet between any two ranks: every rank knows */
        tmin = SIM_TIME_NEVER;
        for (int r = 0; r < R; r++) {
            const uint64_t *a = all + (size_t)r * W;
            for (int d = 0; d < R; d++)
                crossed = crossed || a[ST_WORDS + d];
            scount[r] = P->out[r].len * sizeof(struct packet);
            rcount[r] = a[ST_WORDS + me];
            ns += P->out[r].len;
            nr += rcount[r] / sizeof(struct packet);
            if (a[ST_NEXT] < tmin) tmin = a[ST_NEXT];
            if (a[ST_OUTMIN] < tmin) tmin = a[ST_OUTMIN];
        }
        sim_time_ps cnext = P->coll ? pcoll_next_ps(n) : SIM_TIME_NEVER;
        if (cnext < tmin) tmin = cnext;
        if (R > 1 && crossed) {
            /* The blocks go back to back in rank order: one box alone (two
             * ranks: always) is sent from where it is, several are copied
             * together first. */
            const struct packet *send = NULL;
            int boxes = 0;
            for (int r = 0; r < R; r++)
                if (P->out[r].len) {
                    send = P->out[r].v;
                    boxes++;
                }
            if (boxes > 1) {
                fs_grow((void **)&sbuf, &scap, ns + 1, sizeof *sbuf);
                size_t k = 0;
                for (int r = 0; r < R; r++) {
                    if (P->out[r].len) memcpy(sbuf + k, P->out[r].v, P->out[r].len * sizeof *sbuf);
                    k += P->out[r].len;
                }
                send = sbuf;
            }
            if (!send) { /* nothing to send: any buffer but the receiving one */
                fs_grow((void **)&sbuf, &scap, 1, sizeof *sbuf);
                send = sbuf;
            }
            fs_grow((void **)&rbuf, &rcap, nr + 1, sizeof *rbuf);
            P->comm.ops->alltoallv(P->comm.ctx, send, scount, rbuf, rcount);
            P->sync_s += wall_now_s() - sync_t0;
            for (int r = 0; r < R; r++)
                P->out[r].len = 0;
            for (size_t i = 0; i < nr; i++)
                deliver(n, &rbuf[i]);
            P->msgs += ns;
            P->msg_bytes += ns * sizeof *rbuf;
        } else {
            P->sync_s += wall_now_s() - sync_t0;
        }
        P->transit = 0;
        P->out_min_ps = SIM_TIME_NEVER;
    }
    /* The time reached: the last event any rank ran. */
    sim_time_ps now = s->now_ps, *nows = fs_xcalloc((size_t)R, sizeof *nows);
    P->comm.ops->allgather(P->comm.ctx, &now, sizeof now, nows);
    for (int r = 0; r < R; r++)
        if (nows[r] > now) now = nows[r];
    if (P->coll && pcoll_last_ps(n) > now) now = pcoll_last_ps(n);
    s->now_ps = now;
    free(nows);
    sampler_take(&m->sampler, n, now);
    int rc = P->refused ? FS_ENOTSUP : 0;
    if (!rc) {
        /* Warnings and QP errors (rows on the ranks that met them). */
        pmerge_rows(n);
        /* Work: the CPU outside the collectives. Open MPI's shared-memory
         * transport polls while it waits, so their wall time is CPU time
         * (with more ranks than cores a waiting rank yields: less). */
        double work = wall_cpu_s() - cpu0 - P->sync_s;
        merge(m, work > 0 ? work : 0);
        if (P->tr && par_trace_finish(n)) {
            P->refused = "--pcap or --trace holding more than --pcap-max plus --trace-max "
                         "records on one rank";
            rc = FS_ENOTSUP;
        } else {
            model_finish(m);
        }
    }
    free(st);
    free(all);
    free(scount);
    free(rcount);
    free(sbuf);
    free(rbuf);
    return rc;
}

/* ---- deadlock checks across ranks ---- */

void par_or_bytes(struct net *n, uint8_t *b, size_t len) {
    struct par *P = n->par;
    int R = P->comm.size;
    uint8_t *all = fs_xmalloc(len * (size_t)R + 1);
    P->comm.ops->allgather(P->comm.ctx, b, len, all);
    for (int r = 0; r < R; r++)
        for (size_t i = 0; i < len; i++)
            b[i] |= all[(size_t)r * len + i];
    free(all);
}

uint64_t par_min_u64(struct net *n, uint64_t v) {
    struct par *P = n->par;
    int R = P->comm.size;
    uint64_t *all = fs_xcalloc((size_t)R, sizeof *all), min = v;
    P->comm.ops->allgather(P->comm.ctx, &v, sizeof v, all);
    for (int r = 0; r < R; r++)
        if (all[r] < min) min = all[r];
    free(all);
    return min;
}

uint64_t par_sum_u64(struct net *n, uint64_t v) {
    struct par *P = n->par;
    int R = P->comm.size;
    uint64_t *all = fs_xcalloc((size_t)R, sizeof *all), sum = 0;
    P->comm.ops->allgather(P->comm.ctx, &v, sizeof v, all);
    for (int r = 0; r < R; r++)
        sum += all[r];
    free(all);
    return sum;
}

struct edge {
    uint32_t q, up, rank, idx;
};

static int edge_cmp(const void *a, const void *b) {
    const struct edge *x = a, *y = b;
    if (x->q != y->q) return x->q < y->q ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

uint32_t par_gather_edges(struct net *n, uint32_t **eu, uint32_t **eq, uint32_t nedges) {
    struct par *P = n->par;
    int R = P->comm.size;
    uint64_t *counts = fs_xcalloc((size_t)R, sizeof *counts), mine = nedges;
    P->comm.ops->allgather(P->comm.ctx, &mine, sizeof mine, counts);
    size_t total = 0;
    for (int r = 0; r < R; r++)
        total += counts[r];
    struct edge *send = fs_xcalloc(nedges + 1, sizeof *send);
    for (uint32_t i = 0; i < nedges; i++)
        send[i] = (struct edge){(*eq)[i], (*eu)[i], (uint32_t)P->comm.rank, i};
    struct edge *recv = fs_xcalloc(total + 1, sizeof *recv);
    size_t *sc = fs_xcalloc((size_t)R, sizeof *sc), *rc = fs_xcalloc((size_t)R, sizeof *rc);
    for (int r = 0; r < R; r++) {
        sc[r] = nedges * sizeof *send;
        rc[r] = counts[r] * sizeof *recv;
    }
    /* Everyone sends its list to everyone: alltoallv wants one block per
     * destination, back to back. */
    struct edge *rep = fs_xcalloc((size_t)nedges * (size_t)R + 1, sizeof *rep);
    for (int r = 0; r < R; r++)
        if (nedges) memcpy(rep + (size_t)r * nedges, send, nedges * sizeof *send);
    P->comm.ops->alltoallv(P->comm.ctx, rep, sc, recv, rc);
    /* One process lists edges by stuck port q, then in q's queue order: q's
     * owner listed them in that order. */
    qsort(recv, total, sizeof *recv, edge_cmp);
    *eu = fs_xrealloc(*eu, (total + 1) * sizeof **eu);
    *eq = fs_xrealloc(*eq, (total + 1) * sizeof **eq);
    for (size_t i = 0; i < total; i++) {
        (*eu)[i] = recv[i].up;
        (*eq)[i] = recv[i].q;
    }
    free(rep);
    free(send);
    free(recv);
    free(sc);
    free(rc);
    free(counts);
    return (uint32_t)total;
}

uint32_t par_allgather_u32(struct net *n, const uint32_t *v, uint32_t len, uint32_t **out) {
    struct par *P = n->par;
    int R = P->comm.size;
    uint64_t *counts = fs_xcalloc((size_t)R, sizeof *counts), mine = len;
    P->comm.ops->allgather(P->comm.ctx, &mine, sizeof mine, counts);
    size_t total = 0;
    size_t *sc = fs_xcalloc((size_t)R, sizeof *sc), *rc = fs_xcalloc((size_t)R, sizeof *rc);
    for (int r = 0; r < R; r++) {
        total += counts[r];
        sc[r] = (size_t)len * sizeof *v;
        rc[r] = counts[r] * sizeof *v;
    }
    /* one block per destination, back to back: R copies of the list */
    uint32_t *rep = fs_xmalloc((size_t)len * (size_t)R * sizeof *rep + 1);
    for (int r = 0; r < R; r++)
        if (len) memcpy(rep + (size_t)r * len, v, len * sizeof *v);
    *out = fs_xmalloc(total * sizeof **out + 1);
    P->comm.ops->alltoallv(P->comm.ctx, rep, sc, *out, rc);
    free(rep);
    free(sc);
    free(rc);
    free(counts);
    return (uint32_t)total;
}

/* Every rank held the LFT rows of its own switches (ctrl/sm.c); now every
 * row, sent by its owner to each other rank in turn (one pair at a time: no
 * buffer larger than one rank's rows). Rare: a stuck run's diagnosis. */
void par_lft_full(struct net *n) {
    struct par *P = n->par;
    if (!n->lft_row) return; /* the same on every rank: the SM's mode is */
    int R = P->comm.size, me = P->comm.rank;
    uint32_t S = n->nswitches, H = n->nhosts;
    uint32_t *sw = fs_xmalloc(((size_t)S + 1) * sizeof *sw); /* switch index -> node */
    for (uint32_t v = 0; v < n->nnodes; v++)
        if (n->nodes[v].kind == NODE_SWITCH) sw[n->nodes[v].index] = v;
    size_t row = (size_t)H * sizeof *n->lft;
    uint16_t *full = fs_xmalloc((size_t)S * row + 1);
    uint32_t *nrows = fs_xcalloc((size_t)R, sizeof *nrows);
    for (uint32_t x = 0; x < S; x++) {
        nrows[P->owner[sw[x]]]++;
        if (n->lft_row[x] != NET_NONE)
            memcpy(full + (size_t)x * H, n->lft + (size_t)n->lft_row[x] * H, row);
    }
    size_t *sc = fs_xcalloc((size_t)R, sizeof *sc), *rc = fs_xcalloc((size_t)R, sizeof *rc);
    uint16_t *buf = NULL;
    for (int r = 0; r < R; r++)
        for (int d = 0; d < R; d++) {
            if (d == r) continue;
            memset(sc, 0, (size_t)R * sizeof *sc);
            memset(rc, 0, (size_t)R * sizeof *rc);
            size_t bytes = nrows[r] * row;
            if (me == r) sc[d] = bytes;
            if (me == d) {
                rc[r] = bytes;
                buf = fs_xmalloc(bytes + 1);
            }
            char dummy = 0;
            P->comm.ops->alltoallv(P->comm.ctx, me == r ? (const void *)n->lft : &dummy, sc,
                                   me == d ? (void *)buf : &dummy, rc);
            if (me != d) continue;
            uint32_t k = 0;
            for (uint32_t x = 0; x < S; x++)
                if (P->owner[sw[x]] == r) memcpy(full + (size_t)x * H, buf + (size_t)k++ * H, row);
            free(buf);
            buf = NULL;
        }
    free(sc);
    free(rc);
    free(nrows);
    free(sw);
    free(n->lft);
    n->lft = full;
    free(n->lft_row);
    n->lft_row = NULL;
}

/* ---- reporting ---- */

void par_print(const struct model *m, FILE *f, bool verbose) {
    const struct net *n = &m->net;
    const struct par *P = n->par;
    if (!P) return;
    fprintf(f, "  parallel: %d ranks, %u cut links (directed), lookahead %.3f ns\n", P->comm.size,
            P->ncut, P->ncut ? (double)P->lookahead_ps / 1000.0 : 0.0);
    for (int r = 0; r < P->comm.size; r++) {
        fprintf(f, "    rank %d: %u nodes (%u hosts)", r, P->nodes[r], P->hosts[r]);
        if (verbose) {
            fprintf(f, ":");
            uint32_t shown = 0;
            for (uint32_t v = 0; v < n->nnodes; v++)
                if (P->owner[v] == r && n->nodes[v].kind == NODE_SWITCH) {
                    fprintf(f, " %s", n->names[v]);
                    shown++;
                }
            if (!shown) fprintf(f, " (no switches)");
        }
        fprintf(f, "\n");
    }
}

void par_write_json(const struct net *n, struct jw *w) {
    const struct par *P = n->par;
    if (!P) return;
    jw_key(w, "parallel");
    jw_obj(w);
    jw_ku64(w, "ranks", (uint64_t)P->comm.size);
    jw_ku64(w, "cut_links", P->ncut);
    jw_knum(w, "lookahead_ns", P->ncut ? (double)P->lookahead_ps / 1000.0 : 0.0);
    jw_ku64(w, "windows", P->windows);
    jw_ku64(w, "second_rounds", P->rounds);
    jw_ku64(w, "messages", P->msgs);
    jw_ku64(w, "message_bytes", P->msg_bytes);
    jw_ku64(w, "critical_events", P->crit_events);
    /* the message table's size against the messages of the run: the
     * collectives' slots are recycled on every rank (pcoll_msg_release) */
    jw_ku64(w, "message_records", n->nmsgs);
    /* a Poisson source's messages are made on its sender's rank only */
    jw_ku64(w, "messages_posted", n->msgs_total - workload_pregen_made(n) + P->pre_made);
    jw_key(w, "ranks_detail");
    jw_arr(w);
    for (int r = 0; r < P->comm.size; r++) {
        jw_obj_compact(w);
        jw_ku64(w, "rank", (uint64_t)r);
        jw_ku64(w, "nodes", P->nodes[r]);
        jw_ku64(w, "hosts", P->hosts[r]);
        jw_ku64(w, "events", P->events[r]);
        jw_knum(w, "sync_wall_s", P->sync[r]);
        jw_knum(w, "work_cpu_s", P->work_cpu[r]);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_obj_end(w);
}

/* ---- one rank, no library ---- */

static void self_allgather(void *ctx, const void *in, size_t bytes, void *out) {
    (void)ctx;
    if (bytes) memmove(out, in, bytes);
}

static void self_alltoallv(void *ctx, const void *in, const size_t *scount, void *out,
                           const size_t *rcount) {
    (void)ctx;
    (void)rcount;
    if (scount[0]) memmove(out, in, scount[0]);
}

static const struct comm_ops SELF_OPS = {self_allgather, self_alltoallv};

void par_comm_self(struct comm *c) {
    c->rank = 0;
    c->size = 1;
    c->ops = &SELF_OPS;
    c->ctx = NULL;
}

/* src/par/pcoll.c
 *
 * Collectives on several ranks (par/pcoll.h, docs/parallel.md).
 *
 * What crosses hosts without a packet in a collective: a transfer's receive
 * (at the receiver) unblocks the next step at another host (a ring's next
 * member, a tree's parent, the NCCL_STEPS slot at the sender), join points
 * gather several hosts' receives, a call's end starts the next call, SHARP's
 * run ends when every member has its result. All of it is the engine's state
 * (coll/coll.c, innet/innet.c), which every rank holds and runs identically:
 * the transitions are driven by records (a receive, a member's whole SHARP
 * result) made on the rank where they happen, exchanged at the window's end,
 * and applied by every rank in the order one process applies them, the
 * engine's timers (host reduce, compute, a call's start) merged in by their
 * keys (coll.c keys them by its own counter, which every rank advances
 * alike). Whatever a transition does to the network happens at least the
 * post overhead later (coll.c: a message is posted `overhead` after what
 * unblocked it, a SHARP member starts `overhead` after its join): the window
 * is no longer than that, so it lands in a later window, on the acting node's
 * rank. A transition that would act inside the window it was made for
 * aborts the run (FS_ASSERT, as a packet would).
 *
 * Ending. A job holds the run until its last call ends; the hold is every
 * rank's (work_pending counts it on each), so the engine (par.c) counts it
 * once and keeps it out of a rank's own share, and the key at which the last
 * hold ends is a candidate for the run's last event like a rank's own zero.
 * A rank whose own share is zero has no packet inside its part, no message
 * unacknowledged and no SHARP start or aggregation pending (those count in its
 * share, P->coll_adj: they send packets without a message), so nothing it runs
 * in the window's second round can make a record: every record of a window is
 * known after its first round (checked when applied).
 */
#include "par/pcoll.h"

#include "coll/coll_int.h"
#include "core/diag.h"
#include "core/mem.h"
#include "core/sim.h"
#include "innet/innet.h"
#include "net/net.h"
#include "par/par.h"
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

struct pcoll_rec_s {
    uint64_t t, o; /* the event that made it */
    uint32_t sub;  /* its place among that event's records */
    uint32_t kind, a, b, c;
};

struct pcoll {
    struct event *heap; /* the engine's own timers, every rank's */
    size_t nheap, capheap;
    struct pcoll_rec_s *rec; /* this rank's records of the window */
    size_t nrec, caprec;
    uint64_t last_t, last_o;
    uint32_t sub;
    sim_time_ps last_ps;     /* the latest replayed item */
    sim_time_ps act_min;     /* the earliest action scheduled since the last window began */
    uint64_t local;          /* SHARP starts and aggregations pending on this rank */
    uint64_t done_t, done_o; /* the last record or timer applied */
    uint32_t msgs_built;     /* messages made before the run: never recycled */
};

static void adj(struct net *n);

static bool ev_lt(const struct event *a, const struct event *b) {
    return a->time_ps < b->time_ps || (a->time_ps == b->time_ps && a->order < b->order);
}

static void heap_push(struct pcoll *C, struct event e) {
    fs_grow((void **)&C->heap, &C->capheap, C->nheap + 1, sizeof *C->heap);
    size_t i = C->nheap++;
    while (i && ev_lt(&e, &C->heap[(i - 1) / 2])) {
        C->heap[i] = C->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    C->heap[i] = e;
}

static struct event heap_pop(struct pcoll *C) {
    struct event top = C->heap[0], last = C->heap[--C->nheap];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const struct event *mv = &last;
        if (l < C->nheap && ev_lt(&C->heap[l], mv)) m = l, mv = &C->heap[l];
        if (r < C->nheap && ev_lt(&C->heap[r], mv)) m = r;
        if (m == i) break;
        C->heap[i] = C->heap[m];
        i = m;
    }
    if (C->nheap) C->heap[i] = last;
    return top;
}

void pcoll_record(struct net *n, uint32_t kind, uint32_t a, uint32_t b, uint32_t c) {
    struct par *P = n->par;
    struct pcoll *C = P->coll;
    uint64_t t = n->sim->now_ps, o = P->cur_o;
    if (t != C->last_t || o != C->last_o) C->sub = 0;
    C->last_t = t;
    C->last_o = o;
    fs_grow((void **)&C->rec, &C->caprec, C->nrec + 1, sizeof *C->rec);
    C->rec[C->nrec++] = (struct pcoll_rec_s){t, o, C->sub++, kind, a, b, c};
}

void pcoll_refuse(struct net *n, const char *what) {
    par_refuse(n, what);
}

bool pcoll_mine(const struct net *n, uint32_t node) {
    return n->par->owner[node] == n->par->comm.rank;
}

void pcoll_sched(struct net *n, struct event e, uint32_t node) {
    struct par *P = n->par;
    if (node == NET_NONE) {
        heap_push(P->coll, e);
        return;
    }
    struct pcoll *C = P->coll;
    if (e.time_ps < C->act_min) C->act_min = e.time_ps; /* on some rank: the next window */
    if (P->owner[node] != P->comm.rank) {
        /* another rank's node acts; a message is its sender's rank's work */
        if (e.kind == NET_EV_MSG_POST) n->work_pending--;
        return;
    }
    if (e.kind == NET_EV_COLL) { /* a SHARP member's start */
        C->local++;
        adj(n);
    }
    FS_ASSERT(e.time_ps >= P->wend_ps,
              "causality: a collective acts at %llu ps, inside the window that ends at %llu ps "
              "(lookahead %llu ps > the post overhead)",
              (unsigned long long)e.time_ps, (unsigned long long)P->wend_ps,
              (unsigned long long)P->lookahead_ps);
    calq_push(&n->sim->q, e);
}

static void innet_record_done(struct net *n, uint32_t sess, uint32_t run, uint32_t i) {
    pcoll_record(n, PCOLL_INNET, sess, run, i);
}

/* What in-network reduction calls on a split run (innet/innet.h). */
static const struct innet_dist_ops pcoll_innet_ops = {
    .local_add = pcoll_local_add,
    .record_done = innet_record_done,
};

static void coll_record_recv(struct net *n, uint32_t msg) {
    pcoll_record(n, PCOLL_RECV, msg, 0, 0);
}
static void coll_record_failed(struct net *n, uint32_t msg) {
    pcoll_record(n, PCOLL_FAILED, msg, 0, 0);
}

/* What the collectives' engine calls on a split run (coll/coll.h). */
static const struct coll_dist_ops pcoll_coll_ops = {
    .sched = pcoll_sched,
    .mine = pcoll_mine,
    .refuse = pcoll_refuse,
    .record_recv = coll_record_recv,
    .record_failed = coll_record_failed,
    .local_done = pcoll_local_done,
};

int pcoll_setup(struct net *n, sim_time_ps *lookahead_ps, struct diag *d) {
    struct par *P = n->par;
    struct coll_state *cs = n->coll_state;
    (void)d;
    P->coll = fs_xcalloc(1, sizeof *P->coll);
    P->coll->act_min = SIM_TIME_NEVER;
    P->coll->msgs_built = n->nmsgs;
    /* A message's slot is freed at the window's end, in the records' order,
     * on every rank at once (one process frees it as soon as it is
     * acknowledged). On one rank too: freed at once, a slot acknowledged
     * late in a window would be reused by a message the replay makes for an
     * earlier record before its own receive record is applied (its
     * transfer index overwritten: a call that never ends, seen with windows
     * longer than a receive-to-ACK delay). */
    n->on_msg_release = pcoll_msg_release;
    innet_set_dist(n, &pcoll_innet_ops);
    coll_set_dist(n, &pcoll_coll_ops);
    /* The least delay between a transition and what it does to the network:
     * a message's post overhead (LL and LL128 post for less than Simple) or
     * a SHARP member's start (the whole overhead and its copy). A job whose
     * protocol is set posts with it or with Simple (SHARP, NVLS and
     * halving-doubling calls: algo_proto), which costs the most: its own
     * overhead bounds it. */
    sim_time_ps la = SIM_TIME_NEVER;
    for (uint32_t i = 0; cs && i < cs->njobs; i++) {
        const struct job *j = &cs->jobs[i];
        const struct wl_entry *w = j->w;
        if (w->protocol == PROTO_AUTO && (w->kind == WL_ALLREDUCE || w->kind == WL_ALLGATHER ||
                                          w->kind == WL_REDUCESCATTER || w->kind == WL_BROADCAST)) {
            /* `auto` picks per call size (algo_proto), and a plain
             * collective's sizes are all known: only those calls' protocols
             * (a 64 MiB ring posts with Simple, never LL). Training buckets,
             * nccl_tests sweeps and Chakra traces take any of the three. */
            size_t ns = w->sizes && w->nsizes ? w->nsizes : 1;
            for (size_t k = 0; k < ns; k++) {
                uint64_t bytes = w->sizes && w->nsizes ? w->sizes[k] : w->size_bytes;
                uint8_t p = algo_proto(n, j, (int)w->kind, j->algo, bytes);
                uint64_t v = coll_proto_overhead_ps(p, j->overhead_ps);
                if (v < la) la = v;
            }
            continue;
        }
        for (int p = 0; p < 3; p++) {
            if (w->protocol != PROTO_AUTO && p != (int)w->protocol) continue;
            uint64_t v = coll_proto_overhead_ps(p, j->overhead_ps);
            if (v < la) la = v;
        }
    }
    *lookahead_ps = la;
    adj(n);
    return 0;
}

void pcoll_fini(struct net *n) {
    struct pcoll *C = n->par->coll;
    if (!C) return;
    free(C->heap);
    free(C->rec);
    free(C);
    n->par->coll = NULL;
}

/* par.c's share() adds P->coll_adj: kept here, where local and held change. */
static void adj(struct net *n) {
    n->par->coll_adj = (int64_t)n->par->coll->local - (int64_t)pcoll_held(n);
}

void pcoll_msg_release(struct net *n, uint32_t id) {
    if (id < n->par->coll->msgs_built) return;
    /* the sender's QP forgets it now, as on one process: a message posted
     * on the QP before the window's end is not linked after it */
    struct qp *q = &n->qps[n->msgs[id].qp];
    if (q->msg_tail == id) q->msg_tail = NET_NONE;
    pcoll_record(n, PCOLL_FREE, id, 0, 0);
}

void pcoll_local_add(struct net *n) {
    n->par->coll->local++;
    adj(n);
}

void pcoll_local_done(struct net *n) {
    n->par->coll->local--;
    adj(n);
}

uint32_t pcoll_held(const struct net *n) {
    const struct coll_state *cs = n->coll_state;
    return cs ? cs->held : 0;
}

sim_time_ps pcoll_next_ps(struct net *n) {
    struct pcoll *C = n->par->coll;
    if (!C) return SIM_TIME_NEVER;
    sim_time_ps t = C->nheap ? C->heap[0].time_ps : SIM_TIME_NEVER;
    if (C->act_min < t) t = C->act_min;
    C->act_min = SIM_TIME_NEVER;
    return t;
}

uint64_t pcoll_rec_bytes(const struct net *n) {
    const struct pcoll *C = n->par->coll;
    return C ? C->nrec * sizeof *C->rec : 0;
}

sim_time_ps pcoll_last_ps(const struct net *n) {
    const struct pcoll *C = n->par->coll;
    return C ? C->last_ps : 0;
}

static int rec_cmp(const void *x, const void *y) {
    const struct pcoll_rec_s *a = x, *b = y;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    if (a->o != b->o) return a->o < b->o ? -1 : 1;
    return a->sub < b->sub ? -1 : a->sub > b->sub;
}

static void merge2(const struct pcoll_rec_s *x, size_t nx, const struct pcoll_rec_s *y, size_t ny,
                   struct pcoll_rec_s *out) {
    size_t i = 0, j = 0, k = 0;
    while (i < nx && j < ny)
        out[k++] = rec_cmp(&y[j], &x[i]) < 0 ? y[j++] : x[i++];
    while (i < nx)
        out[k++] = x[i++];
    while (j < ny)
        out[k++] = y[j++];
}

/* Each rank's records come in its own event order: nb sorted runs (bounds
 * b[0..nb], b[nb] = n), merged pairwise, O(n log R) where a sort of them all
 * cost a 1,024-rank AllReduce's ranks ~0.6 G instructions each. A run out of
 * order (it must not be: see the top of this file) falls back to qsort.
 * Returns the sorted array (a, or the buffer that replaced it). */
static struct pcoll_rec_s *sort_runs(struct pcoll_rec_s *a, size_t n, size_t *b, int nb) {
    for (int r = 0; r < nb; r++)
        for (size_t i = b[r] + 1; i < b[r + 1]; i++)
            if (rec_cmp(&a[i - 1], &a[i]) > 0) {
                qsort(a, n, sizeof *a, rec_cmp);
                return a;
            }
    struct pcoll_rec_s *t = fs_xmalloc(n * sizeof *t + 1);
    while (nb > 1) {
        int m = 0;
        for (int r = 0; r < nb; r += 2) {
            if (r + 1 < nb)
                merge2(a + b[r], b[r + 1] - b[r], a + b[r + 1], b[r + 2] - b[r + 1], t + b[r]);
            else
                memcpy(t + b[r], a + b[r], (b[r + 1] - b[r]) * sizeof *a);
            b[m++] = b[r];
        }
        b[m] = n;
        nb = m;
        struct pcoll_rec_s *x = a;
        a = t;
        t = x;
    }
    free(t);
    return a;
}

uint64_t pcoll_replay(struct net *n, const uint64_t *rec_bytes, size_t stride, sim_time_ps wend,
                      uint64_t *zt, uint64_t *zo) {
    struct par *P = n->par;
    struct pcoll *C = P->coll;
    struct sim *s = n->sim;
    int R = P->comm.size;
    size_t total = 0, mine = C->nrec * sizeof *C->rec;
    for (int r = 0; r < R; r++)
        total += rec_bytes[(size_t)r * stride];
    struct pcoll_rec_s *all = NULL;
    size_t nall = total / sizeof *all;
    if (total) {
        /* every rank's records to every rank */
        size_t *sc = fs_xcalloc((size_t)R, sizeof *sc), *rc = fs_xcalloc((size_t)R, sizeof *rc);
        char *rep = fs_xmalloc(mine * (size_t)R + 1);
        for (int r = 0; r < R; r++) {
            sc[r] = mine;
            rc[r] = rec_bytes[(size_t)r * stride];
            if (mine) memcpy(rep + (size_t)r * mine, C->rec, mine);
        }
        all = fs_xmalloc(total);
        P->comm.ops->alltoallv(P->comm.ctx, rep, sc, all, rc);
        free(rep);
        size_t *b = fs_xmalloc(((size_t)R + 1) * sizeof *b);
        b[0] = 0;
        for (int r = 0; r < R; r++)
            b[r + 1] = b[r] + rc[r] / sizeof *all;
        all = sort_runs(all, nall, b, R);
        free(b);
        free(sc);
        free(rc);
    }
    C->nrec = 0;
    uint64_t before = n->msgs_total;
    sim_time_ps now = s->now_ps;
    size_t i = 0;
    for (;;) {
        bool hv = C->nheap && C->heap[0].time_ps < wend;
        bool rv = i < nall;
        if (!hv && !rv) break;
        uint32_t held = pcoll_held(n);
        uint64_t t, o;
        if (rv && (!hv || all[i].t < C->heap[0].time_ps ||
                   (all[i].t == C->heap[0].time_ps && all[i].o < C->heap[0].order))) {
            const struct pcoll_rec_s *r = &all[i++];
            t = r->t;
            o = r->o;
            s->now_ps = t;
            if (r->kind == PCOLL_RECV)
                coll_recv_apply(n, r->a);
            else if (r->kind == PCOLL_FAILED)
                coll_failed_apply(n, r->a);
            else if (r->kind == PCOLL_FREE)
                net_msg_free(n, r->a);
            else
                innet_member_done(n, r->a, r->b, r->c);
        } else {
            struct event e = heap_pop(C);
            t = e.time_ps;
            o = e.order;
            s->now_ps = t;
            s->handlers[e.kind](s, &e);
            s->events_run += P->comm.rank == 0; /* one event of one process */
        }
        /* a record made after later ones were applied (a second round's)
         * would be applied out of order: every record of a window must be
         * known after its first round (see the top of this file) */
        FS_ASSERT(t > C->done_t || (t == C->done_t && o >= C->done_o),
                  "collective record at %llu ps applied after one at %llu ps",
                  (unsigned long long)t, (unsigned long long)C->done_t);
        C->done_t = t;
        C->done_o = o;
        if (t > C->last_ps) C->last_ps = t;
        if (held && !pcoll_held(n)) {
            *zt = t;
            *zo = o;
        }
    }
    s->now_ps = now;
    s->stopped = false;
    adj(n);
    free(all);
    return n->msgs_total - before;
}

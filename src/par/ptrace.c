/* src/par/ptrace.c
 *
 * --pcap and --trace on several ranks (docs/parallel.md): the same files,
 * byte for byte, as one process writes. The sinks (stats/pcap.c,
 * stats/ctrace.c) are opened on rank 0 only; while the run goes, every rank
 * records the trace hooks its own events call (a packet starting on a port,
 * a port blocked or released, a link going down or up) with the key of the
 * event that called them: (time, entity, counter) as in core/evq.h, the same
 * on every rank, then the call's place within its event. After the results
 * are merged, rank 0 gathers the records, sorts them by that key (the order
 * one process calls the hooks in) and replays them into its sinks, which
 * then write their end (flows, control plane, counters) from the merged
 * model as usual. A hook of an event every rank runs (a link going down) is
 * taken from rank 0.
 *
 * Memory: a record is 128 bytes, kept until the end; a rank that records more
 * than its budget (--pcap-max plus --trace-max, the most the files can hold
 * in the common case) stops recording, and the files are not written
 * (par_trace_finish says so): not yet on several ranks, run it on one.
 */
#include "par/ptrace.h"

#include "core/mem.h"
#include "net/net.h"
#include "net/packet.h"
#include "par/par.h"
#include "par/pmerge.h"
#include "stats/trace.h"

#include <stdlib.h>
#include <string.h>

enum { REC_TX, REC_BLOCK, REC_LINK };

struct ptrec {
    uint64_t t, o;     /* the event's key */
    uint32_t lk;       /* link hooks the event called before this (the same on every rank) */
    uint32_t seq;      /* the call's place in this rank's list */
    uint8_t kind, why; /* REC_*, enum trace_block */
    uint8_t up, pad;
    uint32_t port, cls, rank;
    uint64_t now_ps, from_ps, to_ps;
    struct packet p;
};

_Static_assert(sizeof(struct ptrec) == 128, "a record: 64 bytes and the packet");

struct ptrace {
    const struct trace_sink_ops *ops; /* rank 0: the real sinks */
    void *ctx;
    struct ptrec *v;
    size_t len, cap, budget;
    bool over;
};

static struct ptrec *add(const struct net *n, uint8_t kind) {
    struct par *P = n->par;
    struct ptrace *tr = P->tr;
    if (tr->len >= tr->budget) {
        tr->over = true;
        return NULL;
    }
    if (tr->len == tr->cap) fs_grow((void **)&tr->v, &tr->cap, tr->len + 1, sizeof *tr->v);
    struct ptrec *r = &tr->v[tr->len];
    memset(r, 0, sizeof *r);
    r->t = P->cur_t;
    r->o = P->cur_o;
    r->lk = P->cur_links;
    r->rank = (uint32_t)P->comm.rank;
    r->seq = (uint32_t)tr->len++;
    r->kind = kind;
    return r;
}

static void rec_tx(void *ctx, const struct net *n, uint32_t port, const struct packet *p,
                   uint64_t now_ps) {
    (void)ctx;
    struct ptrec *r = add(n, REC_TX);
    if (!r) return;
    r->port = port;
    r->now_ps = now_ps;
    r->p = *p;
}

static void rec_block(void *ctx, const struct net *n, uint32_t port, uint32_t cls,
                      enum trace_block why, uint64_t from_ps, uint64_t to_ps) {
    (void)ctx;
    if (!par_mine(n, n->ports[port].node)) return;
    struct ptrec *r = add(n, REC_BLOCK);
    if (!r) return;
    r->port = port;
    r->cls = cls;
    r->why = (uint8_t)why;
    r->from_ps = from_ps;
    r->to_ps = to_ps;
}

static void rec_link(void *ctx, const struct net *n, uint32_t port, bool up, uint64_t now_ps) {
    (void)ctx;
    /* Every rank runs the event and calls this for both directions: each
     * keeps its own ports' (the sequential order within the event is that
     * of the calls, counted alike on every rank). */
    bool mine = par_mine(n, n->ports[port].node);
    struct ptrec *r = mine ? add(n, REC_LINK) : NULL;
    n->par->cur_links++;
    if (!r) return;
    r->port = port;
    r->up = up;
    r->now_ps = now_ps;
}

static const struct trace_sink_ops rec_ops = {
    .on_tx = rec_tx, .on_block = rec_block, .on_link = rec_link, .on_end = NULL};

void par_trace_start(struct net *n, uint64_t budget) {
    struct par *P = n->par;
    struct ptrace *tr = fs_xcalloc(1, sizeof *tr);
    tr->ops = n->trace;
    tr->ctx = n->trace_ctx;
    tr->budget = budget;
    P->tr = tr;
    n->trace = &rec_ops;
    n->trace_ctx = tr;
}

static int rec_cmp(const void *a, const void *b) {
    const struct ptrec *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->o != y->o) return x->o < y->o ? -1 : 1;
    /* an event's calls: between two link hooks, on one rank, in its order */
    if (x->lk != y->lk) return x->lk < y->lk ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int par_trace_finish(struct net *n) {
    struct par *P = n->par;
    struct ptrace *tr = P->tr;
    if (!tr) return 0;
    int R = P->comm.size;
    n->trace = tr->ops;
    n->trace_ctx = tr->ctx;
    int over = par_sum_u64(n, tr->over) != 0;
    uint64_t *sizes = fs_xcalloc((size_t)R, sizeof *sizes);
    struct ptrec *all = over ? NULL : pmerge_gather(P, 0, tr->v, tr->len * sizeof *tr->v, sizes);
    if (all) {
        size_t cnt = 0;
        for (int r = 0; r < R; r++)
            cnt += sizes[r] / sizeof *all;
        qsort(all, cnt, sizeof *all, rec_cmp);
        for (size_t i = 0; i < cnt; i++) {
            const struct ptrec *r = &all[i];
            if (r->kind == REC_TX)
                trace_tx(n, r->port, &r->p, r->now_ps);
            else if (r->kind == REC_BLOCK)
                trace_block(n, r->port, r->cls, (enum trace_block)r->why, r->from_ps, r->to_ps);
            else if (n->trace && n->trace->on_link)
                n->trace->on_link(n->trace_ctx, n, r->port, r->up, r->now_ps);
        }
    }
    free(all);
    free(sizes);
    free(tr->v);
    free(tr);
    P->tr = NULL;
    return over;
}

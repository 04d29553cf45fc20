/* src/par/pmerge.c
 *
 * Rows appended at run time, merged in the sequential order (par/pmerge.h).
 * One process appends a warning or a QP error row while it runs an event, so
 * its rows are in event order: (time, order) of the event (core/evq.h, the
 * same key on every rank), then the order within the event. Each rank tags
 * its rows with the key of the event that appended them (pmerge_tag, after
 * every event: two compares); rank 0 sorts the gathered rows by (key, rank,
 * index) — rows of one event are all on its rank — and that is the order
 * one process has. Rows of an event every rank runs (the control plane's,
 * scenario events) are taken from rank 0 alone.
 */
#include "par/pmerge.h"

#include "core/diag.h"
#include "core/evq.h"
#include "core/mem.h"
#include "net/net.h"
#include "net/stuck.h"
#include "par/par.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static void keys_add(struct par_keys *k, struct par_key key, size_t n) {
    fs_grow((void **)&k->v, &k->cap, k->len + n + 1, sizeof *k->v);
    for (size_t i = 0; i < n; i++)
        k->v[k->len++] = key;
}

void pmerge_tag(struct net *n, uint64_t t, uint64_t o, uint32_t w0, uint32_t q0, bool replicated) {
    struct par *P = n->par;
    struct par_key key = {t, o};
    if (n->nwarnings > w0) {
        if (replicated && P->comm.rank != 0) {
            n->nwarnings = w0; /* rank 0 keeps them */
        } else {
            keys_add(&P->wkeys, key, n->nwarnings - w0);
        }
    }
    if (n->nqp_errs > q0) keys_add(&P->qkeys, key, n->nqp_errs - q0);
}

void *pmerge_allgatherv(struct par *P, const void *in, uint64_t bytes, uint64_t *sizes) {
    int R = P->comm.size;
    P->comm.ops->allgather(P->comm.ctx, &bytes, sizeof bytes, sizes);
    size_t *sc = fs_xcalloc((size_t)R, sizeof *sc), *rc = fs_xcalloc((size_t)R, sizeof *rc);
    uint64_t total = 0;
    for (int r = 0; r < R; r++) {
        sc[r] = bytes;
        rc[r] = sizes[r];
        total += sizes[r];
    }
    char *rep = fs_xmalloc(bytes * (uint64_t)R + 1), *out = fs_xmalloc(total + 1);
    for (int r = 0; r < R; r++)
        if (bytes) memcpy(rep + (uint64_t)r * bytes, in, bytes);
    P->comm.ops->alltoallv(P->comm.ctx, rep, sc, out, rc);
    free(rep);
    free(sc);
    free(rc);
    return out;
}

void *pmerge_gather(struct par *P, int root, const void *in, uint64_t bytes, uint64_t *sizes) {
    int R = P->comm.size;
    P->comm.ops->allgather(P->comm.ctx, &bytes, sizeof bytes, sizes);
    size_t *sc = fs_xcalloc((size_t)R, sizeof *sc), *rc = fs_xcalloc((size_t)R, sizeof *rc);
    sc[root] = bytes;
    uint64_t total = 0;
    if (P->comm.rank == root)
        for (int r = 0; r < R; r++) {
            rc[r] = sizes[r];
            total += sizes[r];
        }
    char *out = P->comm.rank == root ? fs_xmalloc(total + 1) : NULL, dummy;
    P->comm.ops->alltoallv(P->comm.ctx, in, sc, out ? out : &dummy, rc);
    free(sc);
    free(rc);
    return out;
}

struct sortkey {
    struct par_key k;
    uint32_t rank, idx;
};

static int sortkey_cmp(const void *a, const void *b) {
    const struct sortkey *x = a, *y = b;
    if (x->k.t != y->k.t) return x->k.t < y->k.t ? -1 : 1;
    if (x->k.o != y->k.o) return x->k.o < y->k.o ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Gathers `n` rows of `size` bytes with their keys from every rank; returns
 * on every rank the rows of all, sorted, and their count. */
static void *merge_keyed(struct par *P, const void *rows, const struct par_key *keys, uint32_t n,
                         size_t size, uint32_t *total) {
    int R = P->comm.size;
    size_t one = size + sizeof(struct par_key);
    char *blob = fs_xmalloc(n * one + 1);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(blob + i * one, &keys[i], sizeof keys[i]);
        memcpy(blob + i * one + sizeof keys[i], (const char *)rows + i * size, size);
    }
    uint64_t *sizes = fs_xcalloc((size_t)R, sizeof *sizes);
    char *all = pmerge_allgatherv(P, blob, n * one, sizes);
    free(blob);
    size_t cnt = 0;
    for (int r = 0; r < R; r++)
        cnt += sizes[r] / one;
    struct sortkey *sk = fs_xcalloc(cnt + 1, sizeof *sk);
    size_t k = 0, off = 0;
    for (int r = 0; r < R; r++) {
        for (uint32_t i = 0; i < sizes[r] / one; i++, k++) {
            memcpy(&sk[k].k, all + off + i * one, sizeof sk[k].k);
            sk[k].rank = (uint32_t)r;
            sk[k].idx = (uint32_t)(off / one + i); /* position in `all` */
        }
        off += sizes[r];
    }
    qsort(sk, cnt, sizeof *sk, sortkey_cmp);
    char *out = fs_xmalloc(cnt * size + 1);
    for (size_t i = 0; i < cnt; i++)
        memcpy(out + i * size, all + (size_t)sk[i].idx * one + sizeof(struct par_key), size);
    free(sk);
    free(all);
    free(sizes);
    *total = (uint32_t)cnt;
    return out;
}

void pmerge_rows(struct net *n) {
    struct par *P = n->par;
    /* Warnings: the build's (every rank has them) then the run's. */
    FS_ASSERT(n->nwarnings - P->nwarn0 == P->wkeys.len, "warnings %u - %u, keys %zu", n->nwarnings,
              P->nwarn0, P->wkeys.len);
    FS_ASSERT(n->nqp_errs == P->qkeys.len, "qp errors %u, keys %zu", n->nqp_errs, P->qkeys.len);
    uint32_t nw = 0, nq = 0;
    char(*w)[160] = merge_keyed(P, n->warnings + P->nwarn0, P->wkeys.v, (uint32_t)P->wkeys.len,
                                sizeof *n->warnings, &nw);
    struct qp_err_row *q =
        merge_keyed(P, n->qp_errs, P->qkeys.v, n->nqp_errs, sizeof *n->qp_errs, &nq);
    n->warnings = fs_xrealloc(n->warnings, (P->nwarn0 + nw + 1) * sizeof *n->warnings);
    if (nw) memcpy(n->warnings + P->nwarn0, w, nw * sizeof *n->warnings);
    n->nwarnings = P->nwarn0 + nw;
    free(n->qp_errs);
    n->qp_errs = q;
    n->nqp_errs = nq;
    n->qp_errs_cap = nq;
    free(w);
}

static int flow_cmp(const void *a, const void *b) {
    const struct stuck_flow *x = a, *y = b;
    return x->qp < y->qp ? -1 : x->qp > y->qp;
}

void par_gather_stuck(struct net *n, struct stuck_info *si) {
    struct par *P = n->par;
    int R = P->comm.size;
    uint64_t nw = par_sum_u64(n, si->nwaiting), *sizes = fs_xcalloc((size_t)R, sizeof *sizes);
    /* Each rank's first STUCK_MAX_LISTED in QP order hold the first of all. */
    struct stuck_flow *all =
        pmerge_allgatherv(P, si->flows, si->nlisted * sizeof *si->flows, sizes);
    size_t cnt = 0;
    for (int r = 0; r < R; r++)
        cnt += sizes[r] / sizeof *all;
    qsort(all, cnt, sizeof *all, flow_cmp);
    memset(si, 0, sizeof *si);
    si->nwaiting = (uint32_t)nw;
    si->nlisted = cnt < STUCK_MAX_LISTED ? (uint32_t)cnt : STUCK_MAX_LISTED;
    if (si->nlisted) memcpy(si->flows, all, si->nlisted * sizeof *all);
    if (si->nlisted) snprintf(si->reason, sizeof si->reason, "%s", si->flows[0].on);
    free(all);
    free(sizes);
}

/* src/par/pwrite.c
 *
 * Writing a parallel run's results on two ranks at once (par/par.h,
 * par_write_dir): rank 0 writes results.json while the last rank
 * (par_csv_rank), which holds the merged links.csv rows (par.c merge_rows),
 * writes links.csv — the two take about the same time (1.2 % and 1.1 % of
 * bench/fat_tree_perm_1024's instructions), so the run's serial tail halves.
 * As in one process (stats/results.c results_write_dir), each file goes to a
 * temporary file and they are renamed into place only when both are
 * complete, links.csv first: the ranks agree (two allgathers of a status)
 * before each rename, so a failed write on either leaves neither file
 * changed.
 */
#include "par/par.h"

#include "par/pmerge.h"

#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"
#include "model/model.h"
#include "stats/results.h"
#include "model/sampler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every rank gives its status (0 or an errno); the first nonzero one in rank
 * order, or 0. */
static int agree(const struct par *P, int mine) {
    int R = P->comm.size, *all = fs_xcalloc((size_t)R, sizeof *all), first = 0;
    P->comm.ops->allgather(P->comm.ctx, &mine, sizeof mine, all);
    for (int r = 0; r < R && !first; r++)
        first = all[r];
    free(all);
    return first;
}

/* links.csv's rows go to its writer in rounds of at most this many bytes
 * (every rank's part together; whole rows, or pieces of one row when a row
 * is larger): the writer holds one round's samples, not every port's series
 * (16 B a link a sample: 50 MB for 64 samples of the k = 32 fat tree's
 * 49,152 links). A round is two collectives (~50 us here). */
#define CSV_ROUND_BYTES ((size_t)256 << 10)

/* The first of `k` ascending ports at or after port p. */
static uint32_t lower_bound(const uint32_t *v, uint32_t k, uint32_t p) {
    uint32_t lo = 0, hi = k;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Every rank: rounds of samples (rows i0..i1, ports p0..p1), each rank's
 * own ports' (its sampler's, ascending: sampler_restrict) gathered on the
 * writer W, which puts them in port order and writes them to `f` (NULL:
 * discarded, as on every other rank and when W's file could not be
 * opened). */
static void csv_stream(const struct model *m, FILE *f) {
    const struct net *n = &m->net;
    struct par *P = n->par;
    const struct sampler *sp = &m->sampler;
    int R = P->comm.size, me = P->comm.rank, W = par_csv_rank(n);
    uint32_t np = n->nports, k = sp->nports;
    FS_ASSERT(sp->port_of, "links.csv in rounds from a sampler of every port");
    size_t seg = CSV_ROUND_BYTES / sizeof *sp->rows; /* samples a round */
    uint32_t prows = 1, pports = np;                 /* a round: prows rows of pports ports */
    if (np <= seg)
        prows = (uint32_t)(seg / (np ? np : 1));
    else
        pports = (uint32_t)seg;
    struct sampler_csv c;
    bool out = me == W && f;
    struct sample *mine = fs_xmalloc(seg * sizeof *mine + sizeof *mine);
    uint64_t *sizes = fs_xcalloc((size_t)R, sizeof *sizes);
    const struct sample **at = fs_xcalloc((size_t)R, sizeof *at);
    if (out) sampler_csv_open(&c, sp, n, f);
    for (uint32_t i0 = 0; i0 < sp->n; i0 += prows) {
        uint32_t i1 = i0 + prows < sp->n ? i0 + prows : sp->n;
        for (uint32_t p0 = 0; p0 < np; p0 += pports) {
            uint32_t p1 = p0 + pports < np ? p0 + pports : np;
            /* this rank's samples of ports p0..p1 in rows i0..i1 (the
             * writer reads its own where they are) */
            uint32_t lo = lower_bound(sp->port_of, k, p0), hi = lower_bound(sp->port_of, k, p1);
            size_t len = 0;
            for (uint32_t i = i0; i < i1 && me != W; i++)
                for (uint32_t j = lo; j < hi; j++)
                    mine[len++] = sp->rows[(size_t)i * k + j];
            char *all = pmerge_gather(P, W, mine, len * sizeof *mine, sizes);
            if (out) {
                size_t off = 0;
                for (int r = 0; r < R; r++) {
                    at[r] = (const struct sample *)(const void *)(all + off);
                    off += sizes[r];
                }
                for (uint32_t i = i0; i < i1; i++) {
                    sampler_csv_row(&c, i);
                    const struct sample *own = &sp->rows[(size_t)i * k + lo];
                    for (uint32_t p = p0; p < p1; p++) {
                        int r = P->owner[n->ports[p].node];
                        sampler_csv_line(&c, p, r == W ? own++ : at[r]++);
                    }
                }
                off = 0;
                for (int r = 0; r < R; r++) {
                    off += sizes[r];
                    FS_ASSERT(r == W || (const char *)at[r] == all + off,
                              "rank %d gave %llu bytes of rows", r, (unsigned long long)sizes[r]);
                }
            }
            free(all);
        }
    }
    if (out) sampler_csv_close(&c); /* a write error: fs_out_close's */
    free(mine);
    free(sizes);
    free(at);
}

int par_write_dir(const struct model *m, const char *dir, struct diag *d) {
    const struct net *n = &m->net;
    const struct par *P = n->par;
    int me = P->comm.rank, W = par_csv_rank(n);
    if (W == 0) {
        int rc = me == 0 ? results_write_dir(m, dir, d) : 0;
        agree(P, 0); /* every rank calls the same collectives */
        agree(P, 0);
        return rc;
    }
    bool json = me == 0, csv = me == W;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, json ? "results.json" : "links.csv");
    struct fs_out o = {0};
    int err = 0, rc = 0;
    if ((json || csv) && results_mkdirs(dir)) {
        err = errno;
        rc = diag_set(d, dir, (struct srcpos){0, 0}, FS_EINVAL, "cannot create output folder: %s",
                      strerror(err));
    } else if ((json || csv) && fs_out_open(&o, path)) {
        err = errno;
        rc = diag_set(d, path, (struct srcpos){0, 0}, FS_EINTERNAL, "cannot write: %s",
                      strerror(err));
    }
    /* links.csv first, every rank sending its rows as the writer goes;
     * then rank 0 writes results.json (while the writer formats the last
     * round). */
    csv_stream(m, csv && !rc ? o.f : NULL);
    if ((json || csv) && !rc) {
        if (json) results_write_json(m, o.f);
        if (fs_out_close(&o)) {
            err = errno;
            rc = diag_set(d, path, (struct srcpos){0, 0}, FS_EINTERNAL, "write failed: %s",
                          strerror(err));
        }
    }
    /* Both closed: links.csv renamed first, then results.json. */
    int first = agree(P, err ? err : 0);
    if (csv && !rc) {
        if (first) {
            fs_out_abort(&o);
        } else if (fs_out_commit(&o)) {
            err = errno;
            rc = diag_set(d, path, (struct srcpos){0, 0}, FS_EINTERNAL, "write failed: %s",
                          strerror(err));
        }
    }
    int second = agree(P, csv ? err : 0);
    if (json && !rc) {
        if (first || second) {
            fs_out_abort(&o);
        } else if (fs_out_commit(&o)) {
            err = errno;
            rc = diag_set(d, path, (struct srcpos){0, 0}, FS_EINTERNAL, "write failed: %s",
                          strerror(err));
        }
    }
    return rc;
}

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
    } else if (json || csv) {
        if (json)
            results_write_json(m, o.f);
        else
            sampler_write_csv(&m->sampler, n, o.f);
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

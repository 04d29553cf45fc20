/* src/coll/training.c
 *
 * Data-parallel training steps (kind: training), the way PyTorch DDP overlaps
 * communication with the backward pass: per iteration every rank computes
 * the forward pass (`forward`), then the backward pass in gradient buckets of
 * `bucket` bytes (DDP bucket_cap_mb = 25 MiB by default), the last layers'
 * bucket first; a bucket's AllReduce is launched as soon as its gradients
 * are computed, the AllReduces of one rank run in bucket order (one NCCL
 * stream), and the iteration ends when the last bucket is reduced on every
 * rank (the optimizer step is not modelled). Compute time is a fixed delay
 * per rank, split over buckets by size. Reported per iteration: step time,
 * compute time, and the communication not hidden behind compute
 * (exposed = step - compute).
 */
#include "coll/coll.h"
#include "coll/coll_int.h"
#include "core/diag.h"
#include "core/mem.h"
#include "innet/innet.h"
#include "net/net.h"
#include "core/jw.h"

#include <stdlib.h>
#include <string.h>

#define TRAIN_BUCKET_DEFAULT (25u << 20) /* PyTorch DDP bucket_cap_mb = 25 */
#define TRAIN_ITERS_DEFAULT 3u

int training_add(struct net *n, struct job *j, struct diag *d) {
    const struct wl_entry *w = j->w;
    if (!w->size_bytes)
        return diag_set(d, n->sc->file, w->pos, FS_EINVAL,
                        "training needs `size`: the gradient bytes per iteration");
    return 0;
}

void training_start(struct net *n, struct job *j) {
    struct coll_state *cs = n->coll_state;
    const struct wl_entry *w = j->w;
    uint32_t opi = coll_op_new(n, j->id);
    struct op *o = &cs->ops[opi];
    j->cur_op = opi;
    j->iter_start_ps = n->sim->now_ps;
    uint64_t S = w->size_bytes, B = w->bucket_bytes ? w->bucket_bytes : TRAIN_BUCKET_DEFAULT;
    uint32_t nb = (uint32_t)((S + B - 1) / B), m = j->nranks;
    uint32_t *last = fs_xmalloc(m * sizeof *last), *ar = fs_xmalloc(m * sizeof *ar);
    uint32_t *pre = fs_xmalloc(m * sizeof *pre), *post = fs_xmalloc(m * sizeof *post);
    for (uint32_t i = 0; i < m; i++) {
        last[i] = coll_compute_xfer(o, i, COMP_FORWARD, w->forward_ps);
        ar[i] = NET_NONE;
    }
    for (uint32_t b = 0; b < nb; b++) {
        uint64_t bytes = b + 1 < nb ? B : S - (uint64_t)b * B;
        uint64_t bw = (uint64_t)((double)w->backward_ps * (double)bytes / (double)S);
        for (uint32_t i = 0; i < m; i++) {
            uint32_t c = coll_compute_xfer(o, i, COMP_BACKWARD, bw);
            op_dep(o, last[i], c);
            last[i] = c;
            pre[i] = op_xfer(o, XF_VIRTUAL, NET_NONE, 0);
            op_dep(o, c, pre[i]);
            op_dep(o, ar[i], pre[i]); /* stream order */
        }
        coll_build(n, j, o, WL_ALLREDUCE, j->algo, bytes, pre, post);
        memcpy(ar, post, m * sizeof *ar);
    }
    free(last);
    free(ar);
    free(pre);
    free(post);
    uint32_t iters = w->iterations ? w->iterations : TRAIN_ITERS_DEFAULT;
    coll_plan(n, j, o, iters - 1 - j->iter);
    coll_op_launch(n, opi);
}

void training_op_done(struct net *n, struct job *j, struct op *o) {
    (void)o;
    struct coll_state *cs = n->coll_state;
    const struct wl_entry *w = j->w;
    size_t cap = cs->captrain;
    fs_grow((void **)&cs->train, &cap, cs->ntrain + 1, sizeof *cs->train);
    cs->captrain = (uint32_t)cap;
    struct train_row *r = &cs->train[cs->ntrain++];
    r->job = j->id;
    r->iteration = j->iter;
    r->start_ps = j->iter_start_ps;
    r->end_ps = n->sim->now_ps;
    r->compute_ps = w->forward_ps + w->backward_ps;
    uint64_t step = r->end_ps - r->start_ps;
    r->exposed_ps = step > r->compute_ps ? step - r->compute_ps : 0;
    uint32_t iters = w->iterations ? w->iterations : TRAIN_ITERS_DEFAULT;
    if (++j->iter < iters) {
        training_start(n, j);
        return;
    }
    coll_job_release(n, j);
}

void coll_write_training(const struct net *n, struct jw *w) {
    const struct coll_state *cs = n->coll_state;
    jw_key(w, "training");
    jw_arr(w);
    for (uint32_t i = 0; cs && i < cs->ntrain; i++) {
        const struct train_row *r = &cs->train[i];
        double step = time_ps_to_ns(r->end_ps - r->start_ps);
        jw_obj_compact(w);
        jw_ku64(w, "job", r->job);
        jw_ku64(w, "iteration", r->iteration);
        jw_knum(w, "start_ns", time_ps_to_ns(r->start_ps));
        jw_knum(w, "step_ns", step);
        jw_knum(w, "compute_ns", time_ps_to_ns(r->compute_ps));
        jw_knum(w, "exposed_comm_ns", time_ps_to_ns(r->exposed_ps));
        jw_knum(w, "exposed_share", step > 0 ? time_ps_to_ns(r->exposed_ps) / step : 0.0);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* src/coll/moe.c
 *
 * Mixture-of-experts training steps (kind: moe), run by the collective
 * engine. The job's m ranks are laid out as Megatron-LM lays out TP, EP and
 * DP (docs/sources.md M): rank i has tensor-parallel index i % tp and
 * data-parallel index q = i / tp; the ranks of one TP index form expert-
 * parallel groups of `ep` consecutive q, each holding every expert once
 * (experts / ep per rank). Per iteration, each layer forward:
 *   attention (compute) -> [TP AllReduce of the activations] -> dispatch
 *   all-to-all (tokens to their experts) -> expert FFN (compute, scaled by
 *   the tokens the rank's experts got) -> combine all-to-all (back to the
 *   tokens' ranks) -> [TP AllReduce]
 * then each layer backward, last layer first, with the same traffic (the
 * combine's gradient first, along the dispatch's direction, then the
 * dispatch's gradient) and twice the compute (backward = 2 x forward
 * FLOPs, docs/sources.md M), after which the layer's dense gradients
 * (size / layers) are AllReduced over the ranks of its TP index, in layer
 * order on one stream, overlapping the earlier layers' backward as DDP does
 * (coll/training.c). The all-to-alls are NCCL's grouped send/recv
 * (coll/a2a.c, a2av_build) with per-pair sizes from the routing:
 *
 * Routing. Every rank routes tokens x top_k token-slots; expert e gets the
 * share p_e, the layer's busiest expert h (drawn from the seed per layer)
 * p_h = imbalance / experts and the others the rest evenly, counts by
 * largest remainder. Rank s then sends rank d of its group the slots of d's
 * experts, times hidden x dtype_bytes bytes; its own experts' slots stay
 * local. With imbalance 1 each rank sends tokens x top_k x bytes/token x
 * (experts - local) / experts and receives as much; with one expert per
 * rank the busiest expert's rank receives `imbalance` times the mean.
 */
#include "coll/coll.h"

#include "coll/coll_int.h"
#include "core/diag.h"
#include "core/jw.h"
#include "core/mem.h"
#include "core/rng.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

/* Defaults (docs/sources.md M): Mixtral 8x7B (32 layers, 8 experts, top-2,
 * hidden 4096), bf16, one 4096-token sequence per rank and iteration. */
#define MOE_LAYERS_DEFAULT 32u
#define MOE_EXPERTS_DEFAULT 8u
#define MOE_TOPK_DEFAULT 2u
#define MOE_HIDDEN_DEFAULT 4096u
#define MOE_DTYPE_DEFAULT 2u
#define MOE_TOKENS_DEFAULT 4096u
#define MOE_ITERS_DEFAULT 1u
#define MOE_BWD 2u /* backward compute / forward compute */
#define MOE_STREAM 0x4d4f0000u

/* Time marks per layer and pass (coll_marks_new). */
enum { MK_LSTART, MK_DSTART, MK_DEND, MK_CSTART, MK_CEND, MK_LEND, MK_N };

struct moe_layer {  /* routing of one layer, the same every iteration */
    uint32_t hot;   /* the busiest expert */
    uint64_t *mat;  /* [ep * ep]: dispatch bytes from group position s to d */
    uint64_t *matT; /* combine: the transpose */
    uint64_t *tok;  /* [ep]: token-slots position d's experts process */
};

struct moe_iter {
    uint32_t iteration, marks;
    sim_time_ps start_ps, end_ps;
};

struct moe_job {
    uint32_t job, widx;
    uint32_t m, L, E, k, ep, tp, local;
    uint64_t tokens, tb; /* token-slots per rank: tokens x k; bytes per token */
    double f;
    struct job *epj, *tpj, *dpj; /* communicators; dpj NULL when tp = 1 (the job's own) */
    uint32_t nepj, ntpj, ndpj;
    struct moe_layer *layer;
    uint32_t iter, iters;
    sim_time_ps iter_start_ps;
    uint32_t marks;
    struct moe_iter *it;
    size_t nit, capit;
};

struct moe_state {
    struct moe_job *j;
    uint32_t nj;
};

static struct moe_job *mj_of(struct net *n, uint32_t job) {
    struct moe_state *ms = ((struct coll_state *)n->coll_state)->moe;
    for (uint32_t i = 0; ms && i < ms->nj; i++)
        if (ms->j[i].job == job) return &ms->j[i];
    FS_ASSERT(0, "moe: job %u has no state", job);
    return NULL;
}

/* Slots per expert: `total` split by share p (hot expert h: f / E, the
 * others alike), largest remainder, ties to the lower index. */
static void route(uint64_t total, uint32_t E, uint32_t h, double f, uint64_t *cnt) {
    double *frac = fs_xmalloc(E * sizeof *frac);
    uint64_t given = 0;
    for (uint32_t e = 0; e < E; e++) {
        double p = E == 1 ? 1.0 : e == h ? f / E : (E - f) / ((double)E * (E - 1));
        double x = (double)total * p;
        cnt[e] = (uint64_t)x;
        frac[e] = x - (double)cnt[e];
        given += cnt[e];
    }
    while (given < total) {
        uint32_t best = 0;
        for (uint32_t e = 1; e < E; e++)
            if (frac[e] > frac[best]) best = e;
        cnt[best]++;
        frac[best] = -1.0;
        given++;
    }
    free(frac);
}

int moe_add(struct net *n, struct job *j, struct diag *d) {
    const struct wl_entry *w = j->w;
    const struct model_params *sc = n->sc;
    if (j->algo == ALGO_SHARP || j->algo == ALGO_NVLS || j->algo == ALGO_HIERARCHICAL)
        return diag_set(d, sc->file, w->pos, FS_ENOTSUP,
                        "moe with algorithm %s is not yet supported; use ring, tree or "
                        "halving_doubling",
                        j->algo == ALGO_SHARP  ? "sharp"
                        : j->algo == ALGO_NVLS ? "nvls"
                                               : "hierarchical");
    uint32_t m = j->nranks, tp = w->tp ? w->tp : 1;
    uint32_t E = w->experts ? w->experts : MOE_EXPERTS_DEFAULT;
    if (m % tp)
        return diag_set(d, sc->file, w->pos, FS_EINVAL,
                        "moe: tp %u does not divide the job's %u ranks", tp, m);
    uint32_t ep = w->ep ? w->ep : m / tp;
    if ((m / tp) % ep)
        return diag_set(d, sc->file, w->pos, FS_EINVAL,
                        "moe: ep %u does not divide the %u ranks of each tensor-parallel index "
                        "(%u ranks / tp %u)",
                        ep, m / tp, m, tp);
    if (E % ep)
        return diag_set(d, sc->file, w->pos, FS_EINVAL,
                        "moe: %u experts do not spread evenly over an expert-parallel group of "
                        "%u ranks; experts must be a multiple of ep",
                        E, ep);
    struct coll_state *cs = n->coll_state;
    if (!cs->moe) cs->moe = fs_xcalloc(1, sizeof *cs->moe);
    struct moe_state *ms = cs->moe;
    ms->j = fs_xrealloc(ms->j, (ms->nj + 1) * sizeof *ms->j);
    struct moe_job *mj = &ms->j[ms->nj++];
    memset(mj, 0, sizeof *mj);
    mj->job = j->id;
    mj->widx = (uint32_t)j->widx;
    mj->m = m;
    mj->tp = tp;
    mj->ep = ep;
    mj->E = E;
    mj->k = w->top_k ? w->top_k : MOE_TOPK_DEFAULT;
    mj->local = E / ep;
    mj->L = w->layers ? w->layers : MOE_LAYERS_DEFAULT;
    mj->tokens = w->tokens ? w->tokens : MOE_TOKENS_DEFAULT;
    mj->tb = (uint64_t)(w->hidden ? w->hidden : MOE_HIDDEN_DEFAULT) *
             (w->dtype_bytes ? w->dtype_bytes : MOE_DTYPE_DEFAULT);
    mj->f = w->imbalance >= 1.0 ? w->imbalance : 1.0;
    mj->iters = w->iterations ? w->iterations : MOE_ITERS_DEFAULT;
    if (mj->k > E || mj->f > (double)E / mj->k)
        return diag_set(d, sc->file, w->pos, FS_EINVAL,
                        "moe: top_k %u of %u experts with imbalance %g; top_k must be at most "
                        "experts and imbalance at most experts / top_k = %g (an expert gets at "
                        "most one slot of each token)",
                        mj->k, E, mj->f, (double)E / mj->k);
    /* communicators */
    uint32_t dp = m / tp, *r = fs_xmalloc(m * sizeof *r), stream = MOE_STREAM + j->id * 4096u;
    mj->nepj = tp * (dp / ep);
    mj->epj = fs_xcalloc(mj->nepj, sizeof *mj->epj);
    for (uint32_t g = 0; g < mj->nepj; g++) {
        uint32_t t = g % tp, q0 = g / tp * ep;
        for (uint32_t p = 0; p < ep; p++)
            r[p] = j->ranks[(q0 + p) * tp + t];
        coll_job_sub(n, j, &mj->epj[g], r, ep, stream++);
    }
    if (tp > 1) {
        mj->ntpj = dp;
        mj->tpj = fs_xcalloc(dp, sizeof *mj->tpj);
        for (uint32_t q = 0; q < dp; q++)
            coll_job_sub(n, j, &mj->tpj[q], j->ranks + (size_t)q * tp, tp, stream++);
        mj->ndpj = tp;
        mj->dpj = fs_xcalloc(tp, sizeof *mj->dpj);
        for (uint32_t t = 0; t < tp; t++) {
            for (uint32_t q = 0; q < dp; q++)
                r[q] = j->ranks[q * tp + t];
            coll_job_sub(n, j, &mj->dpj[t], r, dp, stream++);
        }
    }
    free(r);
    /* routing per layer */
    struct rng g;
    rng_seed(&g, sc->seed, 0, MOE_STREAM + 0xfff + j->id * 4096u);
    uint64_t *cnt = fs_xmalloc(E * sizeof *cnt);
    mj->layer = fs_xcalloc(mj->L, sizeof *mj->layer);
    for (uint32_t l = 0; l < mj->L; l++) {
        struct moe_layer *ly = &mj->layer[l];
        ly->hot = (uint32_t)rng_below(&g, E);
        route(mj->tokens * mj->k, E, ly->hot, mj->f, cnt);
        ly->tok = fs_xcalloc(ep, sizeof *ly->tok);
        ly->mat = fs_xcalloc((size_t)ep * ep, sizeof *ly->mat);
        ly->matT = fs_xcalloc((size_t)ep * ep, sizeof *ly->matT);
        for (uint32_t e = 0; e < E; e++) /* every source routes alike */
            ly->tok[e / mj->local] += cnt[e];
        for (uint32_t s = 0; s < ep; s++)
            for (uint32_t dd = 0; dd < ep; dd++)
                if (s != dd) {
                    ly->mat[(size_t)s * ep + dd] = ly->tok[dd] * mj->tb;
                    ly->matT[(size_t)dd * ep + s] = ly->tok[dd] * mj->tb;
                }
        for (uint32_t dd = 0; dd < ep; dd++)
            ly->tok[dd] *= ep; /* from each of the ep sources, itself included */
    }
    free(cnt);
    return 0;
}

/* The ranks' TP AllReduce of the layer's activations (tp > 1), after last[]. */
static void tp_allreduce(struct net *n, struct moe_job *mj, struct op *o, uint32_t *last) {
    if (mj->tp < 2) return;
    uint32_t tp = mj->tp, *post = fs_xmalloc(tp * sizeof *post);
    for (uint32_t q = 0; q < mj->ntpj; q++) {
        struct job *t = &mj->tpj[q];
        coll_build(n, t, o, WL_ALLREDUCE, t->algo, mj->tokens * mj->tb, last + (size_t)q * tp,
                   post);
        memcpy(last + (size_t)q * tp, post, tp * sizeof *post);
    }
    free(post);
}

/* An all-to-all in every EP group with `mat` (or its transpose), after
 * last[], between marks `start` (first rank in) and `end` (last rank out). */
static void a2a(struct net *n, struct moe_job *mj, struct op *o, uint32_t *last, bool transpose,
                const struct moe_layer *ly, uint32_t start, uint32_t end) {
    uint32_t ep = mj->ep, tp = mj->tp;
    uint32_t *pre = fs_xmalloc(ep * sizeof *pre), *post = fs_xmalloc(ep * sizeof *post);
    for (uint32_t g = 0; g < mj->nepj; g++) {
        uint32_t t = g % tp, q0 = g / tp * ep;
        for (uint32_t p = 0; p < ep; p++) {
            pre[p] = coll_mark_xfer(o, XS_MARK_FIRST, start);
            op_dep(o, last[(q0 + p) * tp + t], pre[p]);
        }
        a2av_build(n, &mj->epj[g], o, transpose ? ly->matT : ly->mat, pre, post);
        for (uint32_t p = 0; p < ep; p++) {
            uint32_t x = coll_mark_xfer(o, XS_MARK_LAST, end);
            op_dep(o, post[p], x);
            last[(q0 + p) * tp + t] = x;
        }
    }
    free(pre);
    free(post);
}

/* Compute of `ps` on every rank after last[] (none when 0); expert FFNs
 * scale by the token-slots the rank's experts got. */
static void compute(struct moe_job *mj, struct op *o, uint32_t *last, uint8_t label, uint64_t ps,
                    const struct moe_layer *ly) {
    if (!ps) return;
    for (uint32_t i = 0; i < mj->m; i++) {
        uint64_t t = ps;
        if (ly) {
            uint32_t p = (i / mj->tp) % mj->ep;
            t = (uint64_t)((double)ps * (double)ly->tok[p] / (double)(mj->tokens * mj->k) + 0.5);
        }
        uint32_t c = coll_compute_xfer(o, i, label, t);
        op_dep(o, last[i], c);
        last[i] = c;
    }
}

static void marks_around(struct moe_job *mj, struct op *o, uint32_t *last, uint8_t stamp,
                         uint32_t id) {
    for (uint32_t i = 0; i < mj->m; i++) {
        uint32_t x = coll_mark_xfer(o, stamp, id);
        op_dep(o, last[i], x);
        last[i] = x;
    }
}

void moe_start(struct net *n, struct job *j) {
    struct coll_state *cs = n->coll_state;
    struct moe_job *mj = mj_of(n, j->id);
    const struct wl_entry *w = j->w;
    uint32_t opi = coll_op_new(n, j->id);
    struct op *o = &cs->ops[opi];
    j->cur_op = opi;
    mj->iter_start_ps = n->sim->now_ps;
    mj->marks = coll_marks_new(n, 2 * mj->L * MK_N);
    uint32_t m = mj->m, L = mj->L, tp = mj->tp, dp = m / tp;
    uint32_t *last = fs_xmalloc(m * sizeof *last), *ar = fs_xmalloc(m * sizeof *ar);
    uint32_t *pre = fs_xmalloc(m * sizeof *pre), *post = fs_xmalloc(m * sizeof *post);
    for (uint32_t i = 0; i < m; i++)
        last[i] = ar[i] = NET_NONE;
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t s = 0; s < L; s++) {
            uint32_t l = pass ? L - 1 - s : s, mk = mj->marks + (pass * L + l) * MK_N;
            uint64_t x = pass ? MOE_BWD : 1;
            const struct moe_layer *ly = &mj->layer[l];
            marks_around(mj, o, last, XS_MARK_FIRST, mk + MK_LSTART);
            if (!pass) compute(mj, o, last, COMP_DENSE, w->attention_ps, NULL);
            tp_allreduce(n, mj, o, last);
            /* forward: dispatch then combine; backward: the combine's
             * gradient (dispatch direction) then the dispatch's */
            a2a(n, mj, o, last, false, ly, mk + (pass ? MK_CSTART : MK_DSTART),
                mk + (pass ? MK_CEND : MK_DEND));
            compute(mj, o, last, COMP_EXPERT, w->expert_ps * x, ly);
            a2a(n, mj, o, last, true, ly, mk + (pass ? MK_DSTART : MK_CSTART),
                mk + (pass ? MK_DEND : MK_CEND));
            tp_allreduce(n, mj, o, last);
            if (pass) compute(mj, o, last, COMP_DENSE, w->attention_ps * x, NULL);
            marks_around(mj, o, last, XS_MARK_LAST, mk + MK_LEND);
            if (!pass || !w->size_bytes) continue;
            /* the layer's dense gradients, on the gradient stream */
            uint64_t bytes = w->size_bytes * (s + 1) / L - w->size_bytes * s / L;
            if (!bytes) continue;
            for (uint32_t i = 0; i < m; i++) {
                pre[i] = op_xfer(o, XF_VIRTUAL, NET_NONE, 0);
                op_dep(o, last[i], pre[i]);
                op_dep(o, ar[i], pre[i]);
            }
            if (tp == 1) {
                coll_build(n, j, o, WL_ALLREDUCE, j->algo, bytes, pre, post);
                memcpy(ar, post, m * sizeof *ar);
                continue;
            }
            uint32_t *pp = fs_xmalloc(dp * sizeof *pp), *qq = fs_xmalloc(dp * sizeof *qq);
            for (uint32_t t = 0; t < tp; t++) {
                for (uint32_t q = 0; q < dp; q++)
                    pp[q] = pre[q * tp + t];
                coll_build(n, &mj->dpj[t], o, WL_ALLREDUCE, mj->dpj[t].algo, bytes, pp, qq);
                for (uint32_t q = 0; q < dp; q++)
                    ar[q * tp + t] = qq[q];
            }
            free(pp);
            free(qq);
        }
    free(last);
    free(ar);
    free(pre);
    free(post);
    coll_plan(n, j, o, mj->iters - 1 - mj->iter);
    coll_op_launch(n, opi);
}

void moe_op_done(struct net *n, struct job *j, struct op *o) {
    (void)o;
    struct moe_job *mj = mj_of(n, j->id);
    fs_grow((void **)&mj->it, &mj->capit, mj->nit + 1, sizeof *mj->it);
    mj->it[mj->nit++] = (struct moe_iter){mj->iter, mj->marks, mj->iter_start_ps, n->sim->now_ps};
    if (++mj->iter < mj->iters) {
        moe_start(n, j);
        return;
    }
    coll_job_release(n, j);
}

void coll_write_moe(const struct net *n, struct jw *w) {
    const struct coll_state *cs = n->coll_state;
    const struct moe_state *ms = cs ? cs->moe : NULL;
    if (!ms || !ms->nj) return; /* absent: results of other kinds stay as they were */
    jw_key(w, "moe");
    jw_arr(w);
    for (uint32_t k = 0; k < ms->nj; k++) {
        const struct moe_job *mj = &ms->j[k];
        jw_obj(w);
        jw_ku64(w, "job", mj->job);
        jw_ku64(w, "entry", mj->widx);
        jw_ku64(w, "ranks", mj->m);
        jw_ku64(w, "experts", mj->E);
        jw_ku64(w, "top_k", mj->k);
        jw_ku64(w, "ep", mj->ep);
        jw_ku64(w, "tp", mj->tp);
        jw_ku64(w, "layers", mj->L);
        jw_ku64(w, "tokens", mj->tokens);
        jw_ku64(w, "token_bytes", mj->tb);
        jw_knum(w, "imbalance", mj->f);
        jw_key(w, "iterations");
        jw_arr(w);
        for (size_t i = 0; i < mj->nit; i++) {
            const struct moe_iter *it = &mj->it[i];
            jw_obj_compact(w);
            jw_ku64(w, "iteration", it->iteration);
            jw_knum(w, "start_ns", time_ps_to_ns(it->start_ps));
            coll_jw_span(w, "step_ns", it->start_ps, it->end_ps);
            jw_obj_end(w);
        }
        jw_arr_end(w);
        /* per layer and pass of each finished iteration */
        jw_key(w, "per_layer");
        jw_arr(w);
        for (size_t i = 0; i < mj->nit; i++)
            for (uint32_t pass = 0; pass < 2; pass++)
                for (uint32_t l = 0; l < mj->L; l++) {
                    const struct moe_layer *ly = &mj->layer[l];
                    uint32_t mk = mj->it[i].marks + (pass * mj->L + l) * MK_N;
                    sim_time_ps t[MK_N];
                    for (uint32_t q = 0; q < MK_N; q++)
                        t[q] = coll_mark(n, mk + q);
                    uint64_t mx = 0, sum = 0;
                    for (uint32_t p = 0; p < mj->ep; p++) { /* received over the network */
                        uint64_t b = (ly->tok[p] / mj->ep) * (mj->ep - 1) * mj->tb;
                        mx = b > mx ? b : mx;
                        sum += b;
                    }
                    uint64_t smax = 0, ssum = 0; /* sent over the network per rank */
                    for (uint32_t s = 0; s < mj->ep; s++) {
                        uint64_t b = 0;
                        for (uint32_t p = 0; p < mj->ep; p++)
                            b += ly->mat[(size_t)s * mj->ep + p];
                        smax = b > smax ? b : smax;
                        ssum += b;
                    }
                    jw_obj_compact(w);
                    jw_ku64(w, "iteration", mj->it[i].iteration);
                    jw_ku64(w, "layer", l);
                    jw_kstr(w, "pass", pass ? "backward" : "forward");
                    jw_knum(w, "start_ns",
                            t[MK_LSTART] == SIM_TIME_NEVER ? 0 : time_ps_to_ns(t[MK_LSTART]));
                    coll_jw_span(w, "layer_ns", t[MK_LSTART], t[MK_LEND]);
                    coll_jw_span(w, "dispatch_ns", t[MK_DSTART], t[MK_DEND]);
                    coll_jw_span(w, "combine_ns", t[MK_CSTART], t[MK_CEND]);
                    jw_ku64(w, "hot_expert", ly->hot);
                    jw_ku64(w, "sent_bytes_max", smax);
                    jw_knum(w, "sent_bytes_mean", (double)ssum / mj->ep);
                    jw_ku64(w, "recv_bytes_max", mx);
                    jw_knum(w, "recv_bytes_mean", (double)sum / mj->ep);
                    jw_obj_end(w);
                }
        jw_arr_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

void moe_fini(struct net *n) {
    struct coll_state *cs = n->coll_state;
    struct moe_state *ms = cs ? cs->moe : NULL;
    if (!ms) return;
    for (uint32_t k = 0; k < ms->nj; k++) {
        struct moe_job *mj = &ms->j[k];
        for (uint32_t g = 0; g < mj->nepj; g++)
            coll_job_sub_free(&mj->epj[g]);
        for (uint32_t g = 0; g < mj->ntpj; g++)
            coll_job_sub_free(&mj->tpj[g]);
        for (uint32_t g = 0; g < mj->ndpj; g++)
            coll_job_sub_free(&mj->dpj[g]);
        free(mj->epj);
        free(mj->tpj);
        free(mj->dpj);
        for (uint32_t l = 0; mj->layer && l < mj->L; l++) {
            free(mj->layer[l].mat);
            free(mj->layer[l].matT);
            free(mj->layer[l].tok);
        }
        free(mj->layer);
        free(mj->it);
    }
    free(ms->j);
    free(ms);
    cs->moe = NULL;
}

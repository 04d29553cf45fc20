/* src/coll/infer.c
 *
 * Disaggregated LLM inference (kind: inference), run by the collective
 * engine as DistServe, Splitwise and Mooncake split it (docs/sources.md M):
 * the job's first `prefill_hosts` ranks run prefill, the others decode.
 * Request r arrives at t_r (Poisson arrivals with mean `interval`, drawn
 * from the seed, or one every `interval`), goes to prefill host r mod P and
 * decode host r mod D, and:
 *  - waits for its prefill host (one prompt at a time: prefill is
 *    compute-bound and runs alone), computes the prompt (`prefill`);
 *  - sends its KV cache to the decode host, layer by layer as those systems
 *    do (one message per layer on the pair's queue pair): 2 (K and V) x
 *    kv_heads x head_dim x dtype_bytes x prompt_tokens bytes per layer;
 *  - once the whole cache is there (the first token can be produced: time
 *    to first token), runs `output_tokens` decode steps (`decode` each),
 *    each sending `decode_bytes` back to the request's prefill host, the
 *    front end that streams the token to the user.
 * Decode hosts batch their requests (continuous batching): one request's
 * steps do not wait for another's. Rows per request: queueing, prefill,
 * KV-cache transfer, TTFT, time per output token.
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

/* Defaults (docs/sources.md M): Llama-3-70B (80 layers, 8 KV heads of 128,
 * hidden 8192), bf16; prompts and outputs of Splitwise's conversation
 * trace (median ~1020 prompt and ~129 output tokens). */
#define INF_LAYERS_DEFAULT 80u
#define INF_KV_HEADS_DEFAULT 8u
#define INF_HEAD_DIM_DEFAULT 128u
#define INF_HIDDEN_DEFAULT 8192u
#define INF_DTYPE_DEFAULT 2u
#define INF_PROMPT_DEFAULT 1024u
#define INF_OUTPUT_DEFAULT 128u
#define INF_REQUESTS_DEFAULT 8u
#define INF_STREAM 0x494e0000u

enum { MK_PSTART, MK_PDONE, MK_KV, MK_DONE, MK_N };

struct inf_req {
    uint32_t prefill, decode; /* rank indices */
    sim_time_ps arrival_ps;   /* from the job's start */
};

struct inf_job {
    uint32_t job, widx;
    uint32_t P, D, L, out, nreq;
    uint64_t kv_layer_bytes, step_bytes;
    sim_time_ps start_ps;
    uint32_t marks;
    bool started, done;
    struct inf_req *req;
    const uint32_t *ranks; /* the job's node ids */
};

struct infer_state {
    struct inf_job *j;
    uint32_t nj;
};

static struct inf_job *ij_of(struct net *n, uint32_t job) {
    struct infer_state *is = ((struct coll_state *)n->coll_state)->infer;
    for (uint32_t i = 0; is && i < is->nj; i++)
        if (is->j[i].job == job) return &is->j[i];
    FS_ASSERT(0, "inference: job %u has no state", job);
    return NULL;
}

int infer_add(struct net *n, struct job *j, struct diag *d) {
    const struct wl_entry *w = j->w;
    const struct model_params *sc = n->sc;
    uint32_t m = j->nranks, P = w->prefill_hosts ? w->prefill_hosts : m / 2;
    if (P < 1 || P >= m)
        return diag_set(d, sc->file, w->pos, FS_EINVAL,
                        "inference: prefill_hosts %u of the job's %u ranks leaves no %s host", P, m,
                        P < 1 ? "prefill" : "decode");
    struct coll_state *cs = n->coll_state;
    if (!cs->infer) cs->infer = fs_xcalloc(1, sizeof *cs->infer);
    struct infer_state *is = cs->infer;
    is->j = fs_xrealloc(is->j, (is->nj + 1) * sizeof *is->j);
    struct inf_job *ij = &is->j[is->nj++];
    memset(ij, 0, sizeof *ij);
    ij->job = j->id;
    ij->widx = (uint32_t)j->widx;
    ij->P = P;
    ij->D = m - P;
    ij->L = w->layers ? w->layers : INF_LAYERS_DEFAULT;
    ij->out = w->output_tokens ? w->output_tokens : INF_OUTPUT_DEFAULT;
    ij->nreq = w->requests ? w->requests : INF_REQUESTS_DEFAULT;
    uint64_t eb = w->dtype_bytes ? w->dtype_bytes : INF_DTYPE_DEFAULT;
    ij->kv_layer_bytes = 2 * (uint64_t)(w->kv_heads ? w->kv_heads : INF_KV_HEADS_DEFAULT) *
                         (w->head_dim ? w->head_dim : INF_HEAD_DIM_DEFAULT) * eb *
                         (w->prompt_tokens ? w->prompt_tokens : INF_PROMPT_DEFAULT);
    ij->step_bytes = w->decode_bytes ? w->decode_bytes
                                     : (uint64_t)(w->hidden ? w->hidden : INF_HIDDEN_DEFAULT) * eb;
    ij->ranks = j->ranks;
    ij->req = fs_xcalloc(ij->nreq, sizeof *ij->req);
    struct rng g;
    rng_seed(&g, sc->seed, 0, INF_STREAM + j->id);
    double t = 0;
    for (uint32_t r = 0; r < ij->nreq; r++) {
        if (r) /* the gap before request r */
            t += w->arrival == ARRIVAL_FIXED ? (double)w->interval_ps
                                             : rng_exponential(&g, (double)w->interval_ps);
        ij->req[r] = (struct inf_req){r % P, P + r % ij->D, (sim_time_ps)(t + 0.5)};
    }
    return 0;
}

void infer_start(struct net *n, struct job *j) {
    struct coll_state *cs = n->coll_state;
    struct inf_job *ij = ij_of(n, j->id);
    const struct wl_entry *w = j->w;
    uint32_t opi = coll_op_new(n, j->id);
    struct op *o = &cs->ops[opi];
    j->cur_op = opi;
    ij->start_ps = n->sim->now_ps;
    ij->marks = coll_marks_new(n, ij->nreq * MK_N);
    ij->started = true;
    uint32_t *busy = fs_xmalloc(ij->P * sizeof *busy); /* each prefill host's last prompt */
    for (uint32_t p = 0; p < ij->P; p++)
        busy[p] = NET_NONE;
    for (uint32_t r = 0; r < ij->nreq; r++) {
        const struct inf_req *q = &ij->req[r];
        uint32_t mk = ij->marks + r * MK_N;
        uint32_t arrive = q->arrival_ps ? op_xfer(o, XF_DELAY, NET_NONE, q->arrival_ps) : NET_NONE;
        uint32_t x = coll_mark_xfer(o, XS_MARK_FIRST, mk + MK_PSTART);
        op_dep(o, arrive, x);
        op_dep(o, busy[q->prefill], x);
        if (w->prefill_ps) {
            uint32_t c = coll_compute_xfer(o, q->prefill, COMP_PREFILL, w->prefill_ps);
            op_dep(o, x, c);
            x = c;
        }
        uint32_t pd = coll_mark_xfer(o, XS_MARK_FIRST, mk + MK_PDONE);
        op_dep(o, x, pd);
        busy[q->prefill] = pd;
        /* the KV cache, layer by layer, on the pair's queue pair */
        uint32_t kv = coll_mark_xfer(o, XS_MARK_LAST, mk + MK_KV);
        uint32_t qkv = job_qp(n, j, 0, q->prefill, q->decode);
        for (uint32_t l = 0; l < ij->L; l++) {
            uint32_t msg = op_xfer(o, XF_MSG, qkv, ij->kv_layer_bytes);
            op_dep(o, pd, msg);
            op_dep(o, msg, kv);
        }
        /* decode steps, each streaming its token back to the front end */
        uint32_t back = job_qp(n, j, 1, q->decode, q->prefill), prev = kv;
        for (uint32_t s = 0; s < ij->out; s++) {
            uint32_t step = prev;
            if (w->decode_ps) {
                step = coll_compute_xfer(o, q->decode, COMP_DECODE, w->decode_ps);
                op_dep(o, prev, step);
            }
            uint32_t msg = op_xfer(o, XF_MSG, back, ij->step_bytes);
            op_dep(o, step, msg);
            uint32_t dn = coll_mark_xfer(o, XS_MARK_LAST, mk + MK_DONE);
            op_dep(o, msg, dn);
            prev = step;
        }
    }
    free(busy);
    coll_plan(n, j, o, 0);
    coll_op_launch(n, opi);
}

void infer_op_done(struct net *n, struct job *j, struct op *o) {
    (void)o;
    ij_of(n, j->id)->done = true;
    coll_job_release(n, j);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Mark i of request r (SIM_TIME_NEVER: not reached, or not started). */
static sim_time_ps mark(const struct net *n, const struct inf_job *ij, uint32_t r, uint32_t i) {
    return ij->started ? coll_mark(n, ij->marks + r * MK_N + i) : SIM_TIME_NEVER;
}

void coll_write_inference(const struct net *n, struct jw *w) {
    const struct coll_state *cs = n->coll_state;
    const struct infer_state *is = cs ? cs->infer : NULL;
    if (!is || !is->nj) return; /* absent: results of other kinds stay as they were */
    jw_key(w, "inference");
    jw_arr(w);
    for (uint32_t k = 0; k < is->nj; k++) {
        const struct inf_job *ij = &is->j[k];
        const struct wl_entry *we = &n->sc->workload[ij->widx];
        jw_obj(w);
        jw_ku64(w, "job", ij->job);
        jw_ku64(w, "entry", ij->widx);
        jw_ku64(w, "prefill_hosts", ij->P);
        jw_ku64(w, "decode_hosts", ij->D);
        jw_ku64(w, "requests", ij->nreq);
        jw_kstr(w, "arrival", we->arrival == ARRIVAL_FIXED ? "fixed" : "poisson");
        jw_knum(w, "offered_rps", we->interval_ps ? 1e12 / (double)we->interval_ps : 0.0);
        jw_ku64(w, "kv_bytes", ij->kv_layer_bytes * ij->L);
        jw_ku64(w, "kv_layer_bytes", ij->kv_layer_bytes);
        jw_ku64(w, "decode_bytes", ij->step_bytes);
        jw_ku64(w, "output_tokens", ij->out);
        /* TTFT percentiles over the requests that got their first token */
        uint64_t *tt = fs_xmalloc((ij->nreq + 1) * sizeof *tt);
        uint32_t nt = 0;
        double sum = 0;
        for (uint32_t r = 0; r < ij->nreq; r++) {
            sim_time_ps kv = mark(n, ij, r, MK_KV);
            sim_time_ps at = ij->start_ps + ij->req[r].arrival_ps;
            if (kv == SIM_TIME_NEVER || kv < at) continue;
            tt[nt++] = kv - at;
            sum += (double)(kv - at);
        }
        qsort(tt, nt, sizeof *tt, cmp_u64);
        jw_ku64(w, "completed_first_token", nt);
        jw_key(w, "ttft_mean_ns");
        if (nt)
            jw_num(w, sum / nt / 1000.0);
        else
            jw_null(w);
        jw_key(w, "ttft_p50_ns");
        if (nt)
            jw_num(w, time_ps_to_ns(tt[(nt - 1) / 2]));
        else
            jw_null(w);
        jw_key(w, "ttft_p99_ns");
        if (nt)
            jw_num(w, time_ps_to_ns(tt[(uint32_t)((nt - 1) * 0.99 + 0.5)]));
        else
            jw_null(w);
        free(tt);
        jw_key(w, "requests_detail");
        jw_arr(w);
        for (uint32_t r = 0; r < ij->nreq; r++) {
            const struct inf_req *q = &ij->req[r];
            sim_time_ps t[MK_N], at = ij->start_ps + q->arrival_ps;
            for (uint32_t i = 0; i < MK_N; i++)
                t[i] = mark(n, ij, r, i);
            jw_obj_compact(w);
            jw_ku64(w, "request", r);
            jw_kstr(w, "prefill_host", n->names[ij->ranks[q->prefill]]);
            jw_kstr(w, "decode_host", n->names[ij->ranks[q->decode]]);
            jw_knum(w, "arrival_ns", time_ps_to_ns(at));
            coll_jw_span(w, "queue_ns", at, t[MK_PSTART]);
            coll_jw_span(w, "prefill_ns", t[MK_PSTART], t[MK_PDONE]);
            coll_jw_span(w, "kv_transfer_ns", t[MK_PDONE], t[MK_KV]);
            coll_jw_span(w, "ttft_ns", at, t[MK_KV]);
            jw_key(w, "tpot_ns");
            if (t[MK_DONE] != SIM_TIME_NEVER && t[MK_KV] != SIM_TIME_NEVER && ij->out)
                jw_num(w, time_ps_to_ns(t[MK_DONE] - t[MK_KV]) / ij->out);
            else
                jw_null(w);
            coll_jw_span(w, "e2e_ns", at, t[MK_DONE]);
            jw_obj_end(w);
        }
        jw_arr_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

void infer_fini(struct net *n) {
    struct coll_state *cs = n->coll_state;
    struct infer_state *is = cs ? cs->infer : NULL;
    if (!is) return;
    for (uint32_t k = 0; k < is->nj; k++)
        free(is->j[k].req);
    free(is->j);
    free(is);
    cs->infer = NULL;
}

/* src/coll/table.c
 *
 * The table nccl-tests prints (all_reduce_perf & co.), so that users read
 * fabsim's collectives the way they read their cluster's: one row per size,
 * time in us, algbw and busbw in GB/s (nccl-tests doc/PERFORMANCE.md).
 * Collective entries: out-of-place columns only, rows average the repeats
 * and concurrent jobs of the same entry and size. nccl_tests entries
 * (docs/inputs.md): the out-of-place and in-place columns, each the mean of
 * its `iters` calls (simulated one after the other, as nccl-tests runs them;
 * the model moves the same bytes either way), also in results.json.
 */
#include "coll/coll.h"

#include "coll/coll_int.h"
#include "net/params.h"
#include "core/mem.h"
#include "net/net.h"
#include "core/jw.h"

#include <stdlib.h>
#include <string.h>

static const char *opname(int op) {
    switch (op) {
    case WL_ALLREDUCE:
        return "all_reduce";
    case WL_ALLGATHER:
        return "all_gather";
    case WL_REDUCESCATTER:
        return "reduce_scatter";
    case WL_BROADCAST:
        return "broadcast";
    case WL_ALLTOALL:
        return "alltoall";
    default:
        return "?";
    }
}

static double busfactor(int op, uint32_t n) {
    if (op == WL_ALLREDUCE) return 2.0 * (n - 1) / n;
    if (op == WL_ALLGATHER || op == WL_REDUCESCATTER || op == WL_ALLTOALL)
        return (double)(n - 1) / n;
    return 1.0;
}

static void nccl_tests_tables(const struct net *n, FILE *f);

void coll_print_table(const struct net *n, FILE *f) {
    nccl_tests_tables(n, f);
    const struct coll_state *cs = n->coll_state;
    if (!cs || !n->ncoll_rows) return;
    const struct model_params *sc = n->sc;
    for (size_t wi = 0; wi < sc->nworkload; wi++) {
        const struct wl_entry *w = &sc->workload[wi];
        if (w->kind < WL_ALLREDUCE || w->kind > WL_BROADCAST) continue;
        uint32_t ranks = 0, jobs = 0, algo = 0;
        bool fb = false;
        for (uint32_t k = 0; k < cs->njobs; k++)
            if (cs->jobs[k].widx == wi) {
                ranks = cs->jobs[k].nranks;
                algo = cs->jobs[k].algo;
                fb |= cs->jobs[k].fallback;
                jobs++;
            }
        static const char *const an[] = {"ring", "tree", "halving_doubling", "sharp",
                                         "nvls", "auto", "hierarchical"};
        fprintf(f, "# %s: %u rank(s)%s, algorithm %s%s\n", opname(w->kind), ranks,
                jobs > 1 ? " per job" : "", an[algo], fb ? " (SHARP fallback)" : "");
        if (w->protocol == PROTO_AUTO)
            fprintf(f, "# protocol auto: per size in results.json collectives[].protocol\n");
        if (jobs > 1)
            fprintf(f,
                    "# %u concurrent jobs; time = mean over jobs and repeats (max in "
                    "results.json)\n",
                    jobs);
        fprintf(f, "#\n");
        fprintf(f, "#                                                              "
                   "out-of-place\n");
        fprintf(f, "#       size         count      type   redop    root     time   algbw   "
                   "busbw #wrong\n");
        fprintf(f, "#        (B)    (elements)                               (us)  (GB/s)  "
                   "(GB/s)       \n");
        bool red = w->kind == WL_ALLREDUCE || w->kind == WL_REDUCESCATTER;
        size_t nsizes = w->sizes && w->nsizes ? w->nsizes : 1;
        double bsum = 0;
        uint32_t bcnt = 0;
        for (size_t si = 0; si < nsizes; si++) {
            uint64_t size = w->sizes && w->nsizes ? w->sizes[si] : w->size_bytes;
            double tsum = 0;
            uint32_t cnt = 0;
            /* rows of this entry and size: jobs of this entry, in job order */
            for (uint32_t r = 0; r < n->ncoll_rows; r++) {
                const struct coll_row *row = &n->coll_rows[r];
                if (row->job >= cs->njobs || cs->jobs[row->job].widx != wi ||
                    row->size_bytes != size || row->end_ps == SIM_TIME_NEVER)
                    continue;
                tsum += (double)(row->end_ps - row->start_ps) / 1e6; /* us */
                cnt++;
            }
            if (!cnt) {
                fprintf(f, "%12llu  %12llu  %8s  %6s  %6i  %7s  %6s  %6s  %5s\n",
                        (unsigned long long)size, (unsigned long long)(size / 4), "float",
                        red ? "sum" : "none", w->kind == WL_BROADCAST ? 0 : -1, "-", "-", "-",
                        "N/A");
                continue;
            }
            double t = tsum / cnt;
            double algbw = (double)size / 1e3 / t; /* B/us -> GB/s */
            double busbw = algbw * busfactor(w->kind, ranks);
            bsum += busbw;
            bcnt++;
            char ts[32];
            if (t < 1e4)
                snprintf(ts, sizeof ts, "%7.2f", t);
            else if (t < 1e6)
                snprintf(ts, sizeof ts, "%7.1f", t);
            else
                snprintf(ts, sizeof ts, "%7.0f", t);
            fprintf(f, "%12llu  %12llu  %8s  %6s  %6i  %7s  %6.2f  %6.2f  %5d\n",
                    (unsigned long long)size, (unsigned long long)(size / 4), "float",
                    red ? "sum" : "none", w->kind == WL_BROADCAST ? 0 : -1, ts, algbw, busbw, 0);
        }
        fprintf(f, "# Out of bounds values : 0 OK\n");
        fprintf(f, "# Avg bus bandwidth    : %g \n#\n", bcnt ? bsum / bcnt : 0.0);
    }
}

/* ---- nccl_tests entries ---- */

struct nt_row {
    uint64_t size_bytes, count;
    double t_us[2]; /* out-of-place, in-place: mean over iters and jobs; < 0 = not run */
};

/* The rows of entry wi: its jobs' calls in order are `warmup` calls, then
 * per size `iters` out-of-place and `iters` in-place ones (config/scenario_workload.c). */
static struct nt_row *nt_rows(const struct net *n, size_t wi, uint32_t *nrows, uint32_t *ranks) {
    const struct coll_state *cs = n->coll_state;
    const struct wl_entry *w = &n->sc->workload[wi];
    uint32_t it = w->iters ? w->iters : 1;
    uint32_t ns = (uint32_t)((w->nsizes - w->warmup) / (2 * it));
    struct nt_row *rows = fs_xcalloc(ns ? ns : 1, sizeof *rows);
    double *sum = fs_xcalloc(2 * (size_t)(ns ? ns : 1), sizeof *sum);
    uint32_t *cnt = fs_xcalloc(2 * (size_t)(ns ? ns : 1), sizeof *cnt);
    *ranks = 0;
    for (uint32_t k = 0; k < cs->njobs; k++) {
        if (cs->jobs[k].widx != wi) continue;
        *ranks = cs->jobs[k].nranks;
        uint32_t call = 0;
        for (uint32_t r = 0; r < n->ncoll_rows; r++) {
            const struct coll_row *row = &n->coll_rows[r];
            if (row->job != k) continue;
            uint32_t c = call++;
            if (c < w->warmup) continue;
            c -= w->warmup;
            uint32_t si = c / (2 * it), place = (c % (2 * it)) / it;
            if (si >= ns) continue;
            rows[si].size_bytes = row->size_bytes;
            if (row->end_ps == SIM_TIME_NEVER) continue;
            sum[2 * si + place] += (double)(row->end_ps - row->start_ps) / 1e6;
            cnt[2 * si + place]++;
        }
    }
    int op = coll_kind(w);
    uint32_t div = op == WL_ALLGATHER || op == WL_REDUCESCATTER || op == WL_ALLTOALL ? *ranks : 1;
    for (uint32_t si = 0; si < ns; si++) {
        if (!rows[si].size_bytes) rows[si].size_bytes = w->sizes[w->warmup + si * 2 * it];
        rows[si].count = rows[si].size_bytes / 4 / (div ? div : 1);
        for (uint32_t p = 0; p < 2; p++)
            rows[si].t_us[p] = cnt[2 * si + p] ? sum[2 * si + p] / cnt[2 * si + p] : -1.0;
    }
    free(sum);
    free(cnt);
    *nrows = ns;
    return rows;
}

static const char *nt_redop(int op) {
    return op == WL_ALLREDUCE || op == WL_REDUCESCATTER ? "sum" : "none";
}

/* One half of a row: time, algbw, busbw, #wrong as nccl-tests 2.13 prints
 * them (common.cu: "  %7s  %6.2f  %6.2f  %5g"). #wrong is 0: the transport
 * delivers every byte of a call that completed (payload contents are not
 * modelled, so there is nothing else to check); a call that did not
 * complete shows "-" and N/A. */
static void nt_cols(FILE *f, double t, uint64_t size, double bf) {
    if (t < 0) {
        fprintf(f, "  %7s  %6s  %6s  %5s", "-", "-", "-", "N/A");
        return;
    }
    char ts[32]; /* nccl-tests common.cu: %7.0f from 10 ms, %7.1f from 100 us */
    snprintf(ts, sizeof ts, t >= 1e4 ? "%7.0f" : t >= 100 ? "%7.1f" : "%7.2f", t);
    double algbw = t > 0 ? (double)size / 1e3 / t : 0.0;
    fprintf(f, "  %7s  %6.2f  %6.2f  %5d", ts, algbw, algbw * bf, 0);
}

/* nccl-tests' preamble (common.cu 2.13: "# nThread ... graph: %d", "#",
 * "# Using devices", one "#  Rank" line per rank): one thread and one GPU
 * per process, as under mpirun; each rank's host and GPU index stand for
 * the hostname and CUDA device. Scripts that find the table by this block
 * find it here. */
static void nt_preamble(const struct net *n, const struct wl_entry *w, const struct job *j,
                        FILE *f) {
    bool factor = w->step_factor > 1;
    fprintf(f,
            "# nThread 1 nGpus 1 minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %u "
            "iters: %u agg iters: 1 validation: 1 graph: 0\n",
            (unsigned long long)w->min_bytes, (unsigned long long)w->max_bytes,
            (unsigned long long)(factor ? w->step_factor : w->step_bytes),
            factor ? "factor" : "bytes", w->warmup, w->iters);
    fprintf(f, "#\n# Using devices\n");
    char dev[64];
    snprintf(dev, sizeof dev, "fabsim %s %s",
             n->sc->fabric.kind == FABRIC_UET    ? "UltraEthernet"
             : n->sc->fabric.kind == FABRIC_ROCE ? "RoCEv2"
                                                 : "InfiniBand",
             "model");
    uint32_t shown = j && j->nranks > 512 ? 512 : j ? j->nranks : 0;
    for (uint32_t r = 0; r < shown; r++) {
        char host[24];
        snprintf(host, sizeof host, "%s", n->names[j->ranks[r]]);
        char *g = strstr(host, ".g");
        unsigned gpu = g ? (unsigned)strtoul(g + 2, NULL, 10) : 0;
        if (g) *g = 0;
        fprintf(f, "#  Rank %2u Group %2d Pid %6d on %10s device %2u [0x%02x] %s\n", r, 0, 0, host,
                gpu, 0, dev);
    }
    if (j && shown < j->nranks) fprintf(f, "#  ... %u more ranks\n", j->nranks - shown);
}

static void nccl_tests_tables(const struct net *n, FILE *f) {
    const struct coll_state *cs = n->coll_state;
    const struct model_params *sc = n->sc;
    for (size_t wi = 0; cs && wi < sc->nworkload; wi++) {
        const struct wl_entry *w = &sc->workload[wi];
        if (w->kind != WL_NCCL_TESTS) continue;
        uint32_t nrows, ranks;
        struct nt_row *rows = nt_rows(n, wi, &nrows, &ranks);
        int op = coll_kind(w);
        uint32_t algo = 0, jobs = 0;
        const struct job *first = NULL;
        for (uint32_t k = 0; k < cs->njobs; k++)
            if (cs->jobs[k].widx == wi) {
                algo = cs->jobs[k].algo;
                if (!first) first = &cs->jobs[k];
                jobs++;
            }
        static const char *const an[] = {"ring", "tree", "halving_doubling", "sharp",
                                         "nvls", "auto", "hierarchical"};
        fprintf(f, "# nccl-tests %s_perf -b %llu -e %llu %s%llu -n %u -w %u: %u rank(s)%s, %s%s\n",
                opname(op), (unsigned long long)w->min_bytes, (unsigned long long)w->max_bytes,
                w->step_factor > 1 ? "-f " : "-i ",
                (unsigned long long)(w->step_factor > 1 ? w->step_factor : w->step_bytes), w->iters,
                w->warmup, ranks, jobs > 1 ? " per job" : "",
                op == WL_ALLTOALL ? "send/recv to every peer" : "algorithm ",
                op == WL_ALLTOALL ? "" : an[algo]);
        if (w->protocol == PROTO_AUTO)
            fprintf(f, "# protocol auto: per size in results.json collectives[].protocol\n");
        nt_preamble(n, w, first, f);
        fprintf(f, "#\n");
        /* nccl-tests 2.13 common.cu: "%6s %6s" puts #wrong's last character
         * over the last digit of "%5g" (busbw, two spaces, five wide). */
        fprintf(f, "# %10s  %12s  %8s  %6s  %6s", "", "", "", "", "");
        fprintf(f, "           out-of-place                       in-place          \n");
        fprintf(f, "# %10s  %12s  %8s  %6s  %6s", "size", "count", "type", "redop", "root");
        fprintf(f, "  %7s  %6s  %6s %6s", "time", "algbw", "busbw", "#wrong");
        fprintf(f, "  %7s  %6s  %6s %6s\n", "time", "algbw", "busbw", "#wrong");
        fprintf(f, "# %10s  %12s  %8s  %6s  %6s", "(B)", "(elements)", "", "", "");
        fprintf(f, "  %7s  %6s  %6s  %5s", "(us)", "(GB/s)", "(GB/s)", "");
        fprintf(f, "  %7s  %6s  %6s  %5s\n", "(us)", "(GB/s)", "(GB/s)", "");
        double bf = busfactor(op, ranks), bsum = 0;
        uint32_t bcnt = 0;
        for (uint32_t i = 0; i < nrows; i++) {
            const struct nt_row *r = &rows[i];
            fprintf(f, "%12llu  %12llu  %8s  %6s  %6i", (unsigned long long)r->size_bytes,
                    (unsigned long long)r->count, "float", nt_redop(op),
                    op == WL_BROADCAST ? 0 : -1);
            for (int p = 0; p < 2; p++) {
                nt_cols(f, r->t_us[p], r->size_bytes, bf);
                if (r->t_us[p] > 0) {
                    bsum += (double)r->size_bytes / 1e3 / r->t_us[p] * bf;
                    bcnt++;
                }
            }
            fputc('\n', f);
        }
        fprintf(f, "# Out of bounds values : 0 OK\n");
        fprintf(f, "# Avg bus bandwidth    : %g \n#\n", bcnt ? bsum / bcnt : 0.0);
        free(rows);
    }
}

void coll_write_nccl_tests(const struct net *n, struct jw *jw) {
    const struct coll_state *cs = n->coll_state;
    const struct model_params *sc = n->sc;
    jw_key(jw, "nccl_tests");
    jw_arr(jw);
    for (size_t wi = 0; cs && wi < sc->nworkload; wi++) {
        const struct wl_entry *w = &sc->workload[wi];
        if (w->kind != WL_NCCL_TESTS) continue;
        uint32_t nrows, ranks;
        struct nt_row *rows = nt_rows(n, wi, &nrows, &ranks);
        int op = coll_kind(w);
        double bf = busfactor(op, ranks);
        for (uint32_t i = 0; i < nrows; i++) {
            const struct nt_row *r = &rows[i];
            jw_obj_compact(jw);
            jw_ku64(jw, "entry", wi);
            jw_kstr(jw, "op", opname(op));
            jw_ku64(jw, "ranks", ranks);
            jw_ku64(jw, "size", r->size_bytes);
            jw_ku64(jw, "count", r->count);
            jw_kstr(jw, "type", "float");
            jw_kstr(jw, "redop", nt_redop(op));
            jw_knum(jw, "root", op == WL_BROADCAST ? 0 : -1);
            static const char *const pl[] = {"out_of_place", "in_place"};
            for (int p = 0; p < 2; p++) {
                jw_key(jw, pl[p]);
                jw_obj_compact(jw);
                double t = r->t_us[p];
                if (t < 0) {
                    jw_key(jw, "time_us");
                    jw_null(jw);
                } else {
                    double algbw = t > 0 ? (double)r->size_bytes / 1e3 / t : 0.0;
                    jw_knum(jw, "time_us", t);
                    jw_knum(jw, "algbw_GBps", algbw);
                    jw_knum(jw, "busbw_GBps", algbw * bf);
                }
                jw_key(jw, "wrong");
                jw_null(jw); /* payload bytes are not modelled: nothing to check */
                jw_obj_end(jw);
            }
            jw_obj_end(jw);
        }
        free(rows);
    }
    jw_arr_end(jw);
}

const char *coll_points(const struct net *n, struct coll_point **pts, size_t *npts,
                        uint32_t *ranks) {
    const struct coll_state *cs = n->coll_state;
    const struct model_params *sc = n->sc;
    *pts = NULL;
    *npts = 0;
    *ranks = 0;
    for (size_t wi = 0; cs && wi < sc->nworkload; wi++) {
        const struct wl_entry *w = &sc->workload[wi];
        if (w->kind != WL_NCCL_TESTS) continue;
        uint32_t nrows;
        struct nt_row *rows = nt_rows(n, wi, &nrows, ranks);
        int op = coll_kind(w);
        double bf = busfactor(op, *ranks);
        *pts = fs_xcalloc(nrows ? nrows : 1, sizeof **pts);
        for (uint32_t i = 0; i < nrows; i++) {
            double t = rows[i].t_us[0];
            (*pts)[i] = (struct coll_point){rows[i].size_bytes, t,
                                            t > 0 ? (double)rows[i].size_bytes / 1e3 / t * bf : 0};
        }
        *npts = nrows;
        free(rows);
        return opname(op);
    }
    for (size_t wi = 0; cs && wi < sc->nworkload; wi++) {
        const struct wl_entry *w = &sc->workload[wi];
        if (w->kind < WL_ALLREDUCE || w->kind > WL_BROADCAST) continue;
        for (uint32_t k = 0; k < cs->njobs; k++)
            if (cs->jobs[k].widx == wi) *ranks = cs->jobs[k].nranks;
        size_t ns = w->sizes && w->nsizes ? w->nsizes : 1;
        *pts = fs_xcalloc(ns, sizeof **pts);
        for (size_t si = 0; si < ns; si++) {
            uint64_t size = w->sizes && w->nsizes ? w->sizes[si] : w->size_bytes;
            double tsum = 0;
            uint32_t cnt = 0;
            for (uint32_t r = 0; r < n->ncoll_rows; r++) {
                const struct coll_row *row = &n->coll_rows[r];
                if (row->job >= cs->njobs || cs->jobs[row->job].widx != wi ||
                    row->size_bytes != size || row->end_ps == SIM_TIME_NEVER)
                    continue;
                tsum += (double)(row->end_ps - row->start_ps) / 1e6;
                cnt++;
            }
            double t = cnt ? tsum / cnt : -1.0;
            (*pts)[si] = (struct coll_point){
                size, t, t > 0 ? (double)size / 1e3 / t * busfactor(w->kind, *ranks) : 0};
        }
        *npts = ns;
        return opname(w->kind);
    }
    return NULL;
}

/* src/coll/table.c
 *
 * The table nccl-tests prints (all_reduce_perf & co.), so that users read
 * fabsim's collectives the way they read their cluster's: one row per size,
 * out-of-place columns only (there is no in-place distinction in a model),
 * time in us, algbw and busbw in GB/s (nccl-tests doc/PERFORMANCE.md).
 * Rows average the repeats and concurrent jobs of the same entry and size.
 */
#include "coll/coll.h"

#include "coll/coll_int.h"
#include "config/scenario.h"
#include "net/net.h"

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
    default:
        return "?";
    }
}

static double busfactor(int op, uint32_t n) {
    if (op == WL_ALLREDUCE) return 2.0 * (n - 1) / n;
    if (op == WL_ALLGATHER || op == WL_REDUCESCATTER) return (double)(n - 1) / n;
    return 1.0;
}

void coll_print_table(const struct net *n, FILE *f) {
    const struct coll_state *cs = n->coll_state;
    if (!cs || !n->ncoll_rows) return;
    const struct scenario *sc = n->sc;
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
            fprintf(f, "%12llu  %12llu  %8s  %6s  %6i  %7s  %6.2f  %6.2f  %5s\n",
                    (unsigned long long)size, (unsigned long long)(size / 4), "float",
                    red ? "sum" : "none", w->kind == WL_BROADCAST ? 0 : -1, ts, algbw, busbw,
                    "N/A");
        }
        fprintf(f, "# Out of bounds values : 0 OK\n");
        fprintf(f, "# Avg bus bandwidth    : %g \n#\n", bcnt ? bsum / bcnt : 0.0);
    }
}

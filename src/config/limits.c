#include "config/limits.h"

#include "config/scenario.h"
#include "core/diag.h"

static uint64_t mul_sat(uint64_t a, uint64_t b) {
    return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static uint64_t entry_ranks(const struct scenario *sc, const struct wl_entry *w) {
    uint64_t H = scenario_host_count(&sc->topo);
    uint64_t G = sc->topo.gpus_per_host > 1 ? sc->topo.gpus_per_host : 1;
    uint64_t r = w->ranks_all ? (w->ranks_gpus ? H * G : H) : w->nranks;
    return mul_sat(r, w->jobs ? w->jobs : 1);
}

uint64_t scenario_entry_flows(const struct scenario *sc, const struct wl_entry *w) {
    uint64_t H = scenario_host_count(&sc->topo);
    uint64_t q =
        sc->fabric.transport.qps_per_connection > 1 ? sc->fabric.transport.qps_per_connection : 1;
    switch (w->kind) {
    case WL_FLOWS:
        return mul_sat(w->nflows, q);
    case WL_PERMUTATION:
        return mul_sat(H, q);
    case WL_INCAST:
    case WL_POISSON:
        return mul_sat(w->nsenders, q);
    case WL_ALLTOALL:
        return mul_sat(mul_sat(H, H ? H - 1 : 0), q);
    default: /* collectives: a QP each way per rank and channel */
        return mul_sat(mul_sat(entry_ranks(sc, w), 2), w->channels ? w->channels : 2);
    }
}

int scenario_check_limits(const struct scenario *sc, struct diag *d) {
    if (sc->nevents > SC_MAX_EVENTS)
        return diag_set(d, sc->file, sc->events[SC_MAX_EVENTS].pos, FS_EINVAL,
                        "events: %zu events; at most %llu in a scenario (limit SC_MAX_EVENTS, "
                        "docs/outputs.md \"Limits\")",
                        sc->nevents, (unsigned long long)SC_MAX_EVENTS);
    uint64_t total = 0;
    for (size_t i = 0; i < sc->nworkload; i++) {
        const struct wl_entry *w = &sc->workload[i];
        if (w->kind >= WL_ALLREDUCE && entry_ranks(sc, w) > SC_MAX_RANKS)
            return diag_set(d, sc->file, w->pos, FS_EINVAL,
                            "workload.%zu: %llu ranks (ranks x jobs); at most %llu per entry "
                            "(limit SC_MAX_RANKS, docs/outputs.md \"Limits\")",
                            i, (unsigned long long)entry_ranks(sc, w),
                            (unsigned long long)SC_MAX_RANKS);
        uint64_t f = scenario_entry_flows(sc, w);
        total = f > UINT64_MAX - total ? UINT64_MAX : total + f;
        if (total > SC_MAX_FLOWS)
            return diag_set(d, sc->file, w->pos, FS_EINVAL,
                            "workload.%zu: the workload expands to more than %llu flows here "
                            "(this entry: %llu); at most %llu flows in a scenario, all entries "
                            "together (limit SC_MAX_FLOWS, docs/outputs.md \"Limits\")",
                            i, (unsigned long long)SC_MAX_FLOWS, (unsigned long long)f,
                            (unsigned long long)SC_MAX_FLOWS);
    }
    return 0;
}

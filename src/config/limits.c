#include "config/limits.h"

#include "config/scenario.h"
#include "core/diag.h"
#include "workload/workload.h"

static uint64_t entry_ranks(const struct scenario *sc, const struct wl_entry *w) {
    return workload_entry_ranks(&sc->topo, w);
}

uint64_t scenario_entry_flows(const struct scenario *sc, const struct wl_entry *w) {
    return workload_entry_flows(&sc->topo, sc->fabric.transport.qps_per_connection, w);
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

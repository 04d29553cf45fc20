#include "config/limits.h"

#include "config/scenario.h"
#include "coll/coll.h"
#include "core/diag.h"
#include "core/units.h"
#include "workload/workload.h"

static uint64_t entry_ranks(const struct scenario *sc, const struct wl_entry *w) {
    return workload_entry_ranks(&sc->topo, w);
}

uint64_t scenario_entry_flows(const struct scenario *sc, const struct wl_entry *w) {
    return workload_entry_flows(&sc->topo, sc->fabric.transport.qps_per_connection, w);
}

/* The largest bytes of one call of collective entry `w`: its size, the
 * largest of its sizes, or nccl_tests' max_bytes; training's whole gradient
 * (its buckets are one schedule). */
static uint64_t entry_call_bytes(const struct wl_entry *w) {
    uint64_t b = w->size_bytes;
    for (size_t i = 0; w->sizes && i < w->nsizes; i++)
        b = w->sizes[i] > b ? w->sizes[i] : b;
    if (w->kind == WL_NCCL_TESTS && w->max_bytes > b) b = w->max_bytes;
    return b;
}

/* A collective entry's call must fit the schedule's transfer ids
 * (COLL_MAX_TRANSFERS); the message gives the largest size that runs. */
static int check_call_bytes(const struct scenario *sc, const struct wl_entry *w, size_t i,
                            struct diag *d) {
    if (w->kind < WL_ALLREDUCE || w->kind == WL_CHAKRA || w->kind == WL_INFERENCE) return 0;
    uint64_t jobs = w->jobs ? w->jobs : 1, m = entry_ranks(sc, w) / jobs;
    int op = w->kind == WL_NCCL_TESTS ? (int)w->nccl_op
             : w->kind == WL_MOE      ? WL_ALLREDUCE /* its dense gradients */
                                      : (int)w->kind;
    uint64_t max = coll_max_call_bytes(op, m, w->channels, w->slice_bytes, w->protocol);
    uint64_t b = entry_call_bytes(w);
    if (b <= max) return 0;
    char have[32], most[32];
    units_fmt_size(b, have, sizeof have);
    units_fmt_size(max, most, sizeof most);
    return diag_set(d, sc->file, w->pos, FS_EINVAL,
                    "workload.%zu: size %s is too large for one collective call of %llu ranks "
                    "(more than %llu transfers of a slice); the largest size that runs here is "
                    "%lluB (%s) (limit COLL_MAX_TRANSFERS, docs/outputs.md \"Limits\")",
                    i, have, (unsigned long long)m, (unsigned long long)COLL_MAX_TRANSFERS,
                    (unsigned long long)max, most);
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
        int rc = check_call_bytes(sc, w, i, d);
        if (rc) return rc;
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

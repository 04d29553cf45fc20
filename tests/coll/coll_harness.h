/* tests/coll/coll_harness.h: hand-filled scenarios for the collective tests. */
#include "coll/coll.h"
#include "config/scenario.h"
#include "core/units.h"
#include "model/model.h"
#include "workload/workload.h"

#include <string.h>

#define GBPS(x) ((uint64_t)(x)*1000000000ULL)

static inline void sc_base(struct scenario *sc, struct wl_entry *w) {
    memset(sc, 0, sizeof *sc);
    memset(w, 0, sizeof *w);
    sc->file = "test.yaml";
    sc->name = "coll";
    sc->seed = 1;
    sc->fabric.kind = FABRIC_INFINIBAND;
    sc->fabric.link_bps = GBPS(400);
    sc->fabric.mtu_bytes = 4096;
    sc->fabric.overhead_bytes = 26; /* docs/sources.md A1 */
    sc->fabric.propagation_ps = 25000;
    sc->fabric.switch_latency_ps = 200000;
    sc->fabric.buffer_bytes = 64u << 20; /* large: flow_control none must not drop */
    sc->fabric.flow_control = FLOWCTL_NONE;
    sc->fabric.routing = ROUTING_STATIC;
    sc->fabric.congestion_control = CC_NONE;
    sc->fabric.transport.timeout_ps = 100 * PS_PER_US * 10;
    /* a fixed fast RTO, retried for ever: what these tests mean (docs/model.md) */
    sc->fabric.transport.rto = RTO_FIXED;
    sc->fabric.transport.ack_every = 1;
    sc->topo.kind = TOPO_LEAF_SPINE;
    sc->topo.leaves = 4;
    sc->topo.spines = 4;
    sc->topo.hosts_per_leaf = 4;
    sc->topo.uplinks_per_spine = 1;
    sc->topo.gpus_per_host = 1;
    sc->topo.nvlink_bps = GBPS(3600);
    w->kind = WL_ALLREDUCE;
    w->pos = (struct srcpos){10, 5};
    w->size_bytes = 64u << 20;
    w->ranks_all = true;
    w->algorithm = ALGO_RING;
    w->jobs = 1;
    w->repeat = 1;
    /* one 1 us cost per step (the scenario key step_overhead), so that the
     * mechanism tests compare with their analytic bounds; tests of NCCL's
     * per-protocol, per-hop costs (test_proto.c) set 0 = auto */
    w->step_overhead_ps = PS_PER_US;
    sc->workload = w;
    sc->nworkload = 1;
}

/* Runs; returns 0 or the build error. */
static inline int run(struct model *m, const struct scenario *sc, struct diag *d) {
    memset(d, 0, sizeof *d);
    int rc = model_build(m, sc, d);
    if (rc) return rc;
    model_run(m, NULL, NULL);
    return 0;
}

static inline double row_time_us(const struct model *m, uint32_t i) {
    const struct coll_row *r = &m->net.coll_rows[i];
    return (double)(r->end_ps - r->start_ps) / 1e6;
}

/* busbw in Gbit/s, the NCCL way (stats/results.c writes the same). */
static inline double row_busbw_gbps(const struct model *m, uint32_t i) {
    const struct coll_row *r = &m->net.coll_rows[i];
    double algbw = (double)r->size_bytes * 8.0 / (row_time_us(m, i) * 1e3);
    double n = r->ranks;
    double f = r->op == WL_ALLREDUCE                                  ? 2 * (n - 1) / n
               : (r->op == WL_ALLGATHER || r->op == WL_REDUCESCATTER) ? (n - 1) / n
                                                                      : 1.0;
    return algbw * f;
}

/* tests/ib/ib_common.h
 *
 * Hand-filled InfiniBand scenarios for the ib tests (the YAML loader is not
 * needed: the model is driven in-process through libfabsim.a).
 */
#ifndef FABSIM_TESTS_IB_COMMON_H
#define FABSIM_TESTS_IB_COMMON_H

#include "config/scenario.h"
#include "core/units.h"
#include "model/model.h"

#include <string.h>

/* The loader provides it once it lands; until then the tests need it. */
__attribute__((weak)) uint32_t scenario_host_count(const struct topo_params *t) {
    (void)t;
    return 0;
}

/* An NDR InfiniBand fabric (docs/sources.md A1/A2): 400 Gb/s, MTU 4096, 26 B
 * overhead, 2 m cables (10 ns), 200 ns switch latency, credits. */
static inline void ib_scenario(struct scenario *sc) {
    memset(sc, 0, sizeof *sc);
    sc->file = "test";
    sc->name = "ib";
    sc->seed = 1;
    struct fabric_params *f = &sc->fabric;
    f->kind = FABRIC_INFINIBAND;
    f->link_bps = 400000000000ULL;
    f->mtu_bytes = 4096;
    f->overhead_bytes = 26;
    f->propagation_ps = 10000;
    f->switch_latency_ps = 200000;
    f->buffer_bytes = 256 * 1024;
    f->flow_control = FLOWCTL_CREDIT;
    f->routing = ROUTING_STATIC;
    f->routing_engine = ENGINE_MINHOP;
    f->transport.timeout_ps = 100000000000ULL; /* 100 ms: a lossless fabric never needs it */
    f->transport.rto = RTO_FIXED;              /* fixed, retried for ever (docs/model.md) */
    f->transport.ack_every = 1;
    f->control_plane.kind = CP_SM;
    f->control_plane.detect_ps = 1000000000ULL; /* 1 ms */
    sc->topo.gpus_per_host = 1;
}

static inline void ib_single_switch(struct scenario *sc, uint32_t hosts) {
    sc->topo.kind = TOPO_SINGLE_SWITCH;
    sc->topo.hosts = hosts;
}

static inline void ib_leaf_spine(struct scenario *sc, uint32_t leaves, uint32_t spines,
                                 uint32_t per_leaf) {
    sc->topo.kind = TOPO_LEAF_SPINE;
    sc->topo.leaves = leaves;
    sc->topo.spines = spines;
    sc->topo.hosts_per_leaf = per_leaf;
    sc->topo.uplinks_per_spine = 1;
}

static inline void ib_fat_tree(struct scenario *sc, uint32_t k) {
    sc->topo.kind = TOPO_FAT_TREE;
    sc->topo.k = k;
}

static inline void ib_ring(struct scenario *sc, uint32_t sw, uint32_t per) {
    sc->topo.kind = TOPO_RING;
    sc->topo.ring_switches = sw;
    sc->topo.ring_hosts_per_switch = per;
}

#endif /* FABSIM_TESTS_IB_COMMON_H */

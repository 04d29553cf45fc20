/* tests/roce/roce_common.h
 *
 * A RoCEv2 scenario filled by hand for the RoCE tests (the YAML loader is
 * tested on its own): 400 Gb/s, MTU 4096 with 82 B of headers (docs/sources.md A1),
 * 5 m cables, PFC with the SPEC.md example thresholds, ConnectX DCQCN
 * defaults (docs/sources.md A6) and ECN at the Onyx defaults (A5).
 */
#ifndef FABSIM_TESTS_ROCE_COMMON_H
#define FABSIM_TESTS_ROCE_COMMON_H

#include "cc/cc.h"
#include "config/scenario.h"
#include "core/time.h"
#include "model/model.h"
#include "net/net.h"
#include "workload/workload.h"

#include <stdlib.h>
#include <string.h>

#define KIB 1024ULL
#define GBPS 1000000000ULL

static inline void roce_scenario(struct scenario *sc) {
    memset(sc, 0, sizeof *sc);
    sc->file = "test";
    sc->name = "roce";
    sc->seed = 1;
    struct fabric_params *f = &sc->fabric;
    f->kind = FABRIC_ROCE;
    f->link_bps = 400 * GBPS;
    f->mtu_bytes = 4096;
    f->overhead_bytes = 82;
    f->cable_mm = 5000;
    f->propagation_ps = 25 * PS_PER_NS;
    f->switch_latency_ps = 500 * PS_PER_NS;
    f->buffer_bytes = 1024 * KIB;
    f->flow_control = FLOWCTL_PFC;
    f->routing = ROUTING_STATIC;
    f->congestion_control = CC_NONE;
    f->pfc.xoff_bytes = 200 * KIB;
    f->pfc.xon_bytes = 150 * KIB;
    f->pfc.headroom_auto = true;
    f->pfc.alpha_shift = 3;
    f->pfc.resume_offset_bytes = 3 * 1000;
    f->ecn.kmin_bytes = 150 * 1000;
    f->ecn.kmax_bytes = 1500 * 1000;
    f->ecn.pmax = 0.2;
    dcqcn_preset_connectx(&f->dcqcn);
    f->transport.retransmit = RETX_GO_BACK_N;
    f->transport.timeout_ps = 100 * PS_PER_US;
    /* a fixed fast RTO retried for ever (NIC firmware fast retransmission,
     * docs/model.md): what the lossy-fabric tests mean */
    f->transport.rto = RTO_FIXED;
    f->transport.ack_every = 1;
    f->transport.qps_per_connection = 1;
    f->reorder_buffer_bytes = 256 * KIB;
    f->control_plane.kind = CP_BGP;
    f->control_plane.detect_ps = 150 * PS_PER_MS; /* BFD 3 x 50 ms (docs/sources.md A10) */
    f->control_plane.proc_ps = 1 * PS_PER_MS;
    f->control_plane.mrai_ps = 0;
    sc->topo.kind = TOPO_SINGLE_SWITCH;
    sc->topo.hosts = 17;
    sc->topo.gpus_per_host = 1;
}

/* A permutation (`pattern`, `shift` for PERM_SHIFT) of `size` bytes per host
 * as the scenario's one workload entry. */
static inline void roce_permutation(struct scenario *sc, struct wl_entry *w,
                                    enum perm_pattern pattern, uint32_t shift, uint64_t size) {
    memset(w, 0, sizeof *w);
    w->kind = WL_PERMUTATION;
    w->pattern = pattern;
    w->shift = shift;
    w->size_bytes = size;
    sc->workload = w;
    sc->nworkload = 1;
}

/* An incast of `nsenders` (h1..) into h0, `size` bytes each. */
static inline void roce_incast(struct scenario *sc, struct wl_entry *w, uint32_t *senders,
                               uint32_t nsenders, uint64_t size) {
    memset(w, 0, sizeof *w);
    w->kind = WL_INCAST;
    for (uint32_t i = 0; i < nsenders; i++)
        senders[i] = i + 1;
    w->senders = senders;
    w->nsenders = nsenders;
    w->receiver = 0;
    w->size_bytes = size;
    sc->workload = w;
    sc->nworkload = 1;
}

static inline double flow_gbps(const struct net *n, uint32_t f) {
    const struct flow_row *r = &n->flows[f];
    return (double)r->size_bytes * 8.0 / (double)(r->end_ps - r->start_ps) * 1e3;
}

#endif /* FABSIM_TESTS_ROCE_COMMON_H */

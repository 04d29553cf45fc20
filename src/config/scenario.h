/* src/config/scenario.h
 *
 * The validated scenario: plain structs with every unit converted (bytes, ps,
 * bit/s), every default resolved from fabric.kind (domain.md), and every name
 * that the topology can check already checked. Built by config/scenario.c from
 * a YAML file; read (never written) by the model. Strings kept here are only
 * those the model resolves against the built topology (link names in events).
 */
#ifndef FABSIM_CONFIG_SCENARIO_H
#define FABSIM_CONFIG_SCENARIO_H

#include "core/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fabric_kind { FABRIC_INFINIBAND, FABRIC_ROCE };
enum flowctl_kind { FLOWCTL_CREDIT, FLOWCTL_PFC, FLOWCTL_NONE };
enum routing_kind { ROUTING_STATIC, ROUTING_ADAPTIVE, ROUTING_ECMP, ROUTING_SPRAY };
enum routing_engine { ENGINE_MINHOP, ENGINE_UPDN, ENGINE_FTREE, ENGINE_FILE };
enum cc_kind { CC_NONE, CC_DCQCN };
enum retransmit_kind { RETX_GO_BACK_N, RETX_GO_BACK_0 };
enum cp_kind { CP_SM, CP_BGP };
enum topo_kind { TOPO_SINGLE_SWITCH, TOPO_LEAF_SPINE, TOPO_FAT_TREE, TOPO_RING, TOPO_RAIL_OPTIMIZED };

enum wl_kind {
    WL_FLOWS,
    WL_PERMUTATION,
    WL_INCAST,
    WL_ALLTOALL,
    WL_POISSON,
    WL_ALLREDUCE,
    WL_ALLGATHER,
    WL_REDUCESCATTER,
    WL_BROADCAST,
};
enum perm_pattern { PERM_SHIFT, PERM_RANDOM };
enum coll_algo { ALGO_RING, ALGO_TREE, ALGO_HALVING_DOUBLING, ALGO_SHARP, ALGO_NVLS, ALGO_AUTO };
enum ev_kind { EV_LINK_DOWN, EV_LINK_UP, EV_HOST_STALL };

struct pfc_params {
    uint64_t xoff_bytes, xon_bytes;
    uint64_t headroom_bytes; /* valid when !headroom_auto */
    bool headroom_auto;      /* domain.md A4 formula */
    uint64_t watchdog_ps;
};

struct ecn_params {
    uint64_t kmin_bytes, kmax_bytes;
    double pmax;
};

struct dcqcn_params {
    double g;
    uint64_t alpha_period_ps;
    uint64_t rate_reduce_period_ps;
    uint64_t timer_ps;
    uint64_t byte_counter_bytes;
    uint32_t fast_recovery_steps;
    uint64_t rai_bps, rhai_bps;
    uint64_t cnp_interval_ps;
    uint64_t min_rate_bps;
};

struct transport_params {
    enum retransmit_kind retransmit;
    uint64_t timeout_ps;
    uint32_t ack_every; /* ACK after this many in-order packets (and on a message's last) */
};

struct control_plane_params {
    enum cp_kind kind;
    uint64_t detect_ps;
};

struct fabric_params {
    enum fabric_kind kind;
    uint64_t link_bps;
    uint32_t mtu_bytes;         /* payload bytes per packet */
    uint32_t overhead_bytes;    /* per-packet wire overhead: IB 26, RoCEv2 82 (domain.md A1) */
    uint64_t cable_mm;          /* cable length; propagation = 5 ns/m */
    uint64_t propagation_ps;    /* resolved: from `propagation:` or cable */
    uint64_t switch_latency_ps; /* port to port, unloaded */
    uint64_t buffer_bytes;      /* per switch port */
    enum flowctl_kind flow_control;
    enum routing_kind routing;
    enum routing_engine routing_engine;
    char *lft_file; /* routing_engine: file */
    enum cc_kind congestion_control;
    struct pfc_params pfc;
    struct ecn_params ecn;
    struct dcqcn_params dcqcn;
    struct transport_params transport;
    uint64_t reorder_buffer_bytes;
    bool sharp;
    struct control_plane_params control_plane;
};

struct topo_params {
    enum topo_kind kind;
    /* leaf_spine */
    uint32_t leaves, spines, hosts_per_leaf, uplinks_per_spine;
    /* fat_tree */
    uint32_t k;
    /* ring */
    uint32_t ring_switches, ring_hosts_per_switch;
    /* single_switch */
    uint32_t hosts;
    /* rail_optimized: hosts, gpus_per_host (= leaves), spines */
    uint32_t gpus_per_host;
    uint64_t nvlink_bps;
};

struct wl_flow {
    uint32_t src, dst; /* host indices */
    uint64_t size_bytes;
    uint64_t start_ps;
};

struct wl_entry {
    enum wl_kind kind;
    struct srcpos pos; /* of the entry, for errors found later */
    uint64_t start_ps;
    uint64_t size_bytes; /* permutation, incast, alltoall, collectives (first of sizes) */
    /* flows */
    struct wl_flow *flows;
    size_t nflows;
    /* permutation */
    enum perm_pattern pattern;
    uint32_t shift;
    /* incast and poisson: explicit senders, or a count (first hosts other than receiver) */
    uint32_t *senders;
    size_t nsenders;
    uint32_t receiver;
    /* poisson */
    double load;                /* fraction of the receiver link */
    uint64_t packet_bytes;      /* fixed size, or the mean when exponential */
    bool exponential;
    uint64_t duration_ps;
    /* collectives */
    uint64_t *sizes; /* `size: [..]` sweeps; nsizes >= 1 */
    size_t nsizes;
    uint32_t *ranks; /* host indices; NULL with ranks_all */
    size_t nranks;
    bool ranks_all, ranks_gpus;
    /* ranks[] holds GPU ids (host * gpus_per_host + gpu, written hN.gM) instead
     * of host indices; only when topo.gpus_per_host > 1. */
    bool ranks_are_gpu_ids;
    enum coll_algo algorithm;
    uint32_t jobs, repeat;
};

struct sc_event {
    uint64_t at_ps;
    enum ev_kind kind;
    char *target; /* link name (link_down/up) or host name (host_stall) */
    uint64_t for_ps;
    struct srcpos pos;
};

struct output_params {
    uint64_t sample_ps; /* links.csv interval; 0 = automatic (at most ~1000 rows per link) */
};

struct scenario {
    char *file; /* path it was read from, for errors */
    char *name;
    uint64_t seed;
    uint64_t stop_ps; /* 0 = until the workload completes */
    struct fabric_params fabric;
    struct topo_params topo;
    struct wl_entry *workload;
    size_t nworkload;
    struct sc_event *events;
    size_t nevents;
    struct output_params output;
};

/* Default stop cap when `stop` is not given (SPEC.md). */
#define SCENARIO_STOP_CAP_PS 1000000000000ULL

/* Number of hosts the topology parameters describe. */
uint32_t scenario_host_count(const struct topo_params *t);

/* Loads and validates `path`, applying `nsets` overrides "dotted.key=value"
 * (SPEC.md --set) before validation. Returns 0, or a negative FS_E* with `d`
 * filled. On success the caller owns `sc` and frees it with scenario_fini. */
int scenario_load(struct scenario *sc, const char *path, const char *const *sets, size_t nsets,
                  struct diag *d);
/* Same from a string (tests); `name_for_errors` stands in for the file name. */
int scenario_load_string(struct scenario *sc, const char *text, const char *name_for_errors,
                         const char *const *sets, size_t nsets, struct diag *d);
void scenario_fini(struct scenario *sc);

/* Writes the resolved scenario with every default as YAML (validate --explain). */
void scenario_explain(const struct scenario *sc, FILE *f);

#endif /* FABSIM_CONFIG_SCENARIO_H */

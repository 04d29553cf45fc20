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
enum cc_kind { CC_NONE, CC_DCQCN, CC_IBCC };
/* Ethernet switch buffers: per-port partitions, or one pool per switch with
 * dynamic thresholds (domain.md A3; docs/model.md "Switch buffers"). */
enum buffer_sharing { BUFFER_STATIC, BUFFER_SHARED };
enum retransmit_kind { RETX_GO_BACK_N, RETX_GO_BACK_0 };
/* iba: `timeout` per retry, `retry_cnt` retries, then the QP errors (IBA
 * 9.7.6); fixed: resend every `timeout`, forever (firmware fast retransmit). */
enum rto_mode { RTO_IBA, RTO_FIXED };
enum cp_kind { CP_SM, CP_BGP };
enum dcqcn_preset { DCQCN_PRESET_CONNECTX, DCQCN_PRESET_PAPER };
/* What one unit of dcqcn.byte_counter (ConnectX rpg_byte_reset) is: disputed,
 * bytes per mstflint, 64-byte units per Google's isekai (domain.md A12). */
enum dcqcn_byte_unit { DCQCN_BYTES, DCQCN_64B };
enum dcqcn_cnp_class { DCQCN_CNP_STRICT, DCQCN_CNP_DATA };
enum topo_kind {
    TOPO_SINGLE_SWITCH,
    TOPO_LEAF_SPINE,
    TOPO_FAT_TREE,
    TOPO_RING,
    TOPO_RAIL_OPTIMIZED,
    TOPO_FILE /* a user's own fabric from a file (topo/tfile.h, docs/inputs.md) */
};

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
    WL_TRAINING,   /* data-parallel training steps (coll/training.c) */
    WL_NCCL_TESTS, /* an nccl-tests size sweep of one collective (coll/table.c) */
    WL_CHAKRA,     /* Chakra execution traces, one file per rank (workload/chakra.c) */
};
enum perm_pattern { PERM_SHIFT, PERM_RANDOM };
enum coll_algo {
    ALGO_RING,
    ALGO_TREE,
    ALGO_HALVING_DOUBLING,
    ALGO_SHARP,
    ALGO_NVLS,
    ALGO_AUTO,
    ALGO_HIERARCHICAL, /* multi-GPU hosts: NVLink RS, per-rail AllReduce, NVLink AG */
};
/* NCCL protocols (domain.md B); PROTO_AUTO: the fastest by fabsim's own
 * per-step cost and wire overhead (coll/algos.c proto_pick) */
enum coll_proto { PROTO_SIMPLE, PROTO_LL, PROTO_LL128, PROTO_AUTO };
enum ev_kind { EV_LINK_DOWN, EV_LINK_UP, EV_HOST_STALL, EV_LINK_GRAY, EV_LINK_FLAP, EV_LINK_BER };

struct pfc_params {
    uint64_t xoff_bytes, xon_bytes;
    uint64_t headroom_bytes; /* valid when !headroom_auto */
    bool headroom_auto;      /* domain.md A4 formula */
    uint64_t watchdog_ps;    /* 0 = off */
    /* Shared-buffer dynamic threshold (domain.md A3) instead of static xoff/xon:
     * XOFF when an ingress queue holds more than (B - headroom - shared used) >>
     * alpha_shift, XON when resume_offset below that again. */
    bool dynamic;
    uint32_t alpha_shift;         /* 3 = alpha 1/8 (ConWeave, domain.md A3) */
    uint64_t resume_offset_bytes; /* 3 KB (HPCC switch-mmu.cc, domain.md A3) */
};

struct ecn_params {
    uint64_t kmin_bytes, kmax_bytes;
    double pmax;
};

struct dcqcn_params {
    enum dcqcn_preset preset; /* which defaults the other keys take (config/ only) */
    double g;
    uint64_t alpha_period_ps;
    uint64_t rate_reduce_period_ps;
    uint64_t timer_ps;
    uint64_t byte_counter_bytes; /* rpg_byte_reset as given, in byte_counter_unit; 0 = off */
    enum dcqcn_byte_unit byte_counter_unit;
    uint32_t fast_recovery_steps;
    uint64_t rai_bps, rhai_bps;
    uint64_t cnp_interval_ps; /* NP: min_time_between_cnps */
    uint64_t min_rate_bps;
    /* ConnectX RP semantics (domain.md A6, A12) */
    uint64_t rate_on_first_cnp_bps; /* rate_to_set_on_first_cnp; 0 = line rate */
    double initial_alpha;           /* initial_alpha_value / 1024 */
    uint32_t min_dec_fac_pct;       /* rpg_min_dec_fac: a cut keeps at least this % of R_C */
    uint32_t rpg_gd;                /* cut = R_C * alpha * 2^10 / 2^rpg_gd (11: alpha/2) */
    bool clamp_tgt_rate;            /* every cut sets R_T = R_C */
    bool clamp_after_time_inc;      /* ...also after a timer-driven increase */
    bool hyper_stage_scaling;       /* ns3-rdma: R_HAI x (stage - F + 1), T/2 and B/2 */
    bool cut_on_first_cnp;          /* the paper's RP: the first CNP cuts like any other */
    /* NP: the class CNPs travel in (domain.md A12): their own strict-priority,
     * non-PFC class (cnp_802p_prio / cnp_dscp), or the data's class. */
    enum dcqcn_cnp_class cnp_class;
    uint32_t cnp_802p_prio, cnp_dscp;
};

/* InfiniBand congestion control (IBA vol. 1 Annex A10; cc/ibcc.c): what
 * OpenSM's congestion-control manager writes into the switches' and HCAs'
 * CC attributes (domain.md A12, docs/model.md). */
struct ibcc_params {
    uint32_t threshold;    /* 0 = no marking .. 15 = most aggressive (SwitchCongestionSetting) */
    uint32_t marking_rate; /* mean number of packets between FECN marks */
    uint64_t packet_size_bytes; /* smaller packets are never marked */
    uint32_t ccti_increase;     /* CCTI += this per BECN */
    uint32_t ccti_limit;        /* last CCT index */
    uint32_t ccti_min;          /* CCTI floor */
    uint64_t ccti_timer_ps;     /* CCTI -= 1 per period */
    uint64_t cct_step_ps;       /* CCT entry i = i x this of injection delay per packet */
};

struct transport_params {
    enum retransmit_kind retransmit;
    uint64_t timeout_ps;
    uint32_t timeout_exp; /* IBA exponent the timeout was given as (4.096 us x 2^N); 0 = a time */
    uint32_t retry_cnt;   /* IBA retry_cnt, 0..7 (domain.md A12) */
    enum rto_mode rto;
    uint32_t ack_every; /* ACK after this many in-order packets (and on a message's last) */
    uint32_t qps_per_connection; /* messages striped over this many QPs (domain.md A11, B); 0 = 1 */
};

struct control_plane_params {
    enum cp_kind kind;
    uint64_t detect_ps;
    /* subnet manager (ctrl/sm.c); 0 = default (docs/scenario.md, domain.md A10b) */
    uint64_t smp_ps;          /* time per SMP of a sweep or LFT push */
    uint64_t sweep_fixed_ps;  /* fixed cost of a heavy sweep (phase barriers) */
    bool shield;              /* SHIELD/FLFR switch-local fast reroute */
    uint64_t shield_delay_ps; /* port-down to local reroute */
    /* bgp: per-hop route processing and advertisement interval (MRAI) */
    uint64_t proc_ps, mrai_ps;
    /* bgp: a down port leaves its switch's ECMP groups this long after the
     * link dropped (hardware); fast-external-fallover withdraws at once */
    uint64_t port_down_ps;
    bool fast_fallover;
    /* sm: periodic light sweep (finds gray links no trap reports) */
    uint64_t sweep_interval_ps;
};

/* InfiniBand link layer (flowctl/credit.c); 0 = default (docs/scenario.md). */
struct ib_vlarb_entry {
    uint8_t vl, weight; /* weight in 64-byte units (IBA VLArb table entry) */
};

struct ib_params {
    uint32_t vls;                 /* data VLs in use, 1..4 */
    uint64_t vl_buffer_bytes;     /* input buffer per VL per switch port */
    uint64_t nic_buffer_bytes;    /* NIC receive buffer per VL */
    uint32_t credit_batch_blocks; /* return credits once this many 64 B blocks are free */
    uint64_t credit_flush_ps;     /* ...or at the latest this long after the first */
    uint8_t sl2vl[16];
    bool sl2vl_set; /* false: SL mod vls */
    struct ib_vlarb_entry vlarb_high[16], vlarb_low[16];
    uint8_t nvlarb_high, nvlarb_low; /* 0 entries in low: every VL weight 255 */
    uint32_t high_limit;             /* LimitOfHighPriority, 4 KB units; 255 = unlimited */
};

struct fabric_params {
    enum fabric_kind kind;
    uint64_t link_bps;
    uint32_t mtu_bytes;         /* payload bytes per packet */
    uint32_t overhead_bytes;    /* per-packet wire overhead: IB 26, RoCEv2 82 (domain.md A1) */
    uint64_t cable_mm;          /* cable length; propagation = 5 ns/m */
    uint64_t propagation_ps;    /* resolved: from `propagation:` or cable */
    uint64_t switch_latency_ps; /* port to port, unloaded */
    bool cut_through;           /* switches forward a packet once its header is in */
    uint64_t buffer_bytes;      /* per switch port */
    enum buffer_sharing buffer_sharing;
    uint64_t switch_buffer_bytes; /* shared pool per switch; 0 = buffer x ports */
    enum flowctl_kind flow_control;
    enum routing_kind routing;
    enum routing_engine routing_engine;
    char *lft_file; /* routing_engine: file */
    enum cc_kind congestion_control;
    struct pfc_params pfc;
    struct ecn_params ecn;
    struct dcqcn_params dcqcn;
    struct ibcc_params ibcc;
    struct transport_params transport;
    uint64_t reorder_buffer_bytes;
    bool ecmp_same_seed; /* every switch hashes with the same seed (polarisation) */
    bool sharp;
    struct srcpos sharp_pos;        /* of `sharp:`, for the RoCE error */
    uint32_t sharp_jobs_per_switch; /* concurrently active streaming trees; 0 = 2 (A9) */
    uint64_t sharp_buffer_bytes;    /* aggregation buffer per tree per switch; 0 = default */
    uint64_t sharp_latency_ps;      /* per tree switch, to aggregate a chunk; 0 = none */
    struct control_plane_params control_plane;
    struct ib_params ib;
    uint64_t deadlock_timeout_ps; /* deadlock detector interval; 0 = default 100 us */
    double ber; /* bit error rate of every link, 0 = none (docs/model.md "Failures") */
    /* InfiniBand head-of-queue lifetime of switch ports towards switches and
     * towards CAs (SIM_TIME_NEVER = infinite; 0 = not set: off), and the VL
     * stall count (domain.md A12, net/hoq.c). */
    uint64_t hoq_lifetime_ps, leaf_hoq_lifetime_ps;
    uint32_t hoq_exp, leaf_hoq_exp; /* the exponents they were given as; 0 = a time */
    uint32_t vl_stall_count;
    uint32_t reorder_window_pkts; /* adaptive routing: NIC out-of-order window; 0 = default */
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
    /* file: the path (resolved against the scenario's folder), its format
     * (enum tfile_format), link rates from the file (or all fabric.link),
     * and the fabric read from it when the scenario was loaded */
    char *file_path;
    int file_format;
    bool file_rates;
    struct topo_file *file;
    /* NVLink calibration (docs/validation.md): the share of the NVLink rate
     * NCCL's kernels get, and the NVSwitch's NVLS reduction throughput */
    double nvlink_efficiency; /* (0, 1] */
    uint64_t nvls_rate_bps;   /* reduced bytes per second per NVSwitch; 0 = unlimited */
};

struct topo_file;

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
    double load;           /* fraction of the receiver link */
    uint64_t packet_bytes; /* fixed size, or the mean when exponential */
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
    uint32_t priority;         /* Ethernet priority / IB SL of the entry's QPs, 0..NET_NCLASS-1 */
    uint32_t channels;         /* NCCL channels (rings / tree pairs); 0 = 2 */
    enum coll_proto protocol;  /* 0 = simple (hand-filled scenarios); files: auto */
    uint64_t slice_bytes;      /* pipelining unit; 0 = NCCL_BUFFSIZE / NCCL_STEPS = 512 KiB */
    uint64_t step_overhead_ps; /* host cost to post one step; 0 = 1 us (domain.md B) */
    uint64_t host_rate_bps;    /* host reduce/copy rate of the payload; 0 = not modelled */
    /* training (kind: training): `size` is the gradient bytes per iteration */
    uint32_t iterations; /* 0 = 3 */
    uint64_t forward_ps, backward_ps;
    uint64_t bucket_bytes; /* 0 = 25 MiB (PyTorch DDP bucket_cap_mb) */
    /* nccl_tests: the collective and the nccl-tests flags -b -e -f -i -n -w.
     * Config expands them into sizes[] (warmup calls at max_bytes, then per
     * size `iters` out-of-place and `iters` in-place calls), repeat 1. */
    enum wl_kind nccl_op; /* WL_ALLREDUCE, WL_ALLGATHER, WL_REDUCESCATTER, WL_BROADCAST */
    uint64_t min_bytes, max_bytes, step_bytes;
    uint32_t step_factor, iters, warmup;
    /* chakra: the trace folder (resolved against the scenario's folder) */
    char *path;
};

struct sc_event {
    uint64_t at_ps;
    enum ev_kind kind;
    char *target; /* link name (link_down/up/gray/flap/ber) or host name (host_stall) */
    uint64_t for_ps;
    struct srcpos pos;
    double drop;             /* link_gray: fraction of packets dropped (1 = all) */
    double ber;              /* link_ber: the link's bit error rate from `at` on */
    uint64_t down_ps, up_ps; /* link_flap: each cycle down this long, then up this long */
    uint32_t count;          /* link_flap: cycles */
};

struct output_params {
    uint64_t sample_ps; /* links.csv interval; 0 = automatic (32-64 rows per link) */
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
/* The scenario language as a JSON Schema (draft-07) from the same tables
 * (`fabsim schema`; config/jsonschema.c). */
void scenario_json_schema(FILE *f);

#endif /* FABSIM_CONFIG_SCENARIO_H */

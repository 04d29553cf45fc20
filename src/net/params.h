/* src/net/params.h
 *
 * What one run of the model reads: the fabric's own parameters (each
 * mechanism's struct comes from its plain-data *_params.h or its header-only
 * policy table, none of them a module that calls net/ back), the scheduled
 * events and the output interval. config/ fills them from a scenario file
 * (config -> model, never the reverse: no file of the model includes config/).
 */
#ifndef FABSIM_NET_PARAMS_H
#define FABSIM_NET_PARAMS_H

#include "cc/cc.h"
#include "core/diag.h"
#include "ctrl/ctrl_params.h"
#include "flowctl/credit_params.h"
#include "flowctl/flowctl.h"
#include "link/retry.h"
#include "route/route_params.h"
#include "topo/topo_params.h"
#include "xport/xport.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wl_entry;
/* coll/coll_int.h names struct jw and had it from here by way of
 * route/route.h -> net/net.h -> net/stuck.h, which this no longer includes;
 * the declaration belongs in coll_int.h (left to coll/'s owner). */
struct jw;

/* uet: Ultra Ethernet (UEC 1.0): Ethernet with the UET transport (xport/uet.c) */
enum fabric_kind { FABRIC_INFINIBAND, FABRIC_ROCE, FABRIC_UET };
/* Ethernet switch buffers: per-port partitions, or one pool per switch with
 * dynamic thresholds (docs/sources.md A3; docs/model.md "Switch buffers"). */
enum buffer_sharing { BUFFER_STATIC, BUFFER_SHARED };
/* go_back_n / go_back_0: the receiver discards what is not next (IBA
 * 9.7.5); selective_repeat: it places out-of-order packets and NAKs each new
 * hole, the sender resends only the holes (IRN, SIGCOMM'18; ConnectX
 * ROCE_ACCL selective_repeat: sources.md A12). */
enum retransmit_kind { RETX_GO_BACK_N, RETX_GO_BACK_0, RETX_SELECTIVE };
/* iba: `timeout` per retry, `retry_cnt` retries, then the QP errors (IBA
 * 9.7.6); fixed: resend every `timeout`, forever (firmware fast retransmit);
 * adaptive: ConnectX adaptive retransmission (struct adp_params). */
enum rto_mode { RTO_IBA, RTO_FIXED, RTO_ADAPTIVE };
/* What forward progress does to an adaptive QP's timeout: halve it, quarter
 * it, or reset it to the range's low bound (profile dec_mode). */
enum adp_dec { ADP_DEC_HALVE, ADP_DEC_QUARTER, ADP_DEC_RESET };

/* NVIDIA ConnectX adaptive retransmission profile (sources.md A12, "Adaptive
 * Retransmission: Parameters Control"), one timeout range. Timeouts are
 * time_base x 2^g; g is an exponent. */
struct adp_params {
    uint64_t time_base_ps;          /* power of two times 1 us, >= 4 us (firmware minimum) */
    uint32_t init_low, init_range;  /* initial g: uniform in [init_low, init_low + init_range) */
    uint32_t range_low, range_size; /* after the first timeout: g in [range_low, low + size] */
    uint32_t range_retries;         /* timeout_retry_num: uses of the entry value before doubling */
    enum adp_dec dec;
};

struct transport_params {
    enum retransmit_kind retransmit;
    uint64_t timeout_ps;
    uint32_t timeout_exp; /* IBA exponent the timeout was given as (4.096 us x 2^N); 0 = a time */
    uint32_t retry_cnt;   /* IBA retry_cnt, 0..7 (docs/sources.md A12) */
    enum rto_mode rto;
    uint32_t ack_every; /* ACK after this many in-order packets (and on a message's last) */
    uint32_t qps_per_connection; /* messages striped over this many QPs (docs/sources.md A11, B); 0
                                    = 1 */
    struct adp_params adp;       /* rto: adaptive */
};

/* What a receiving NIC does with a packet beyond the next expected PSN when
 * the fabric sprays (routing: spray): place it in memory and track it in a
 * per-QP window (ConnectX-5+ out-of-order data placement, BlueField-3
 * SuperNIC under Spectrum-X), NAK and discard it (plain RC, IBA 9.7.5.1.2),
 * or hold it in an on-NIC reorder buffer of reorder_buffer bytes. */
enum ooo_mode { OOO_PLACEMENT, OOO_DISCARD, OOO_BUFFER };

struct fabric_params {
    enum fabric_kind kind;
    uint64_t link_bps;
    uint32_t mtu_bytes;      /* payload bytes per packet */
    uint32_t overhead_bytes; /* per-packet wire overhead: IB 26, RoCEv2 82 (docs/sources.md A1) */
    uint64_t cable_mm;       /* cable length; propagation = 5 ns/m */
    uint64_t propagation_ps; /* resolved: from `propagation:` or cable */
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
    /* Ethernet link layer: flow_control: cbfc (flowctl/cbfc.c), link-level
     * retry of corrupted frames (link/llr.c). */
    struct cbfc_params cbfc;
    struct llr_params llr;
    enum link_retry_kind link_retry;
    struct ecn_params ecn;
    struct dcqcn_params dcqcn;
    struct ibcc_params ibcc;
    struct hpcc_params hpcc;
    struct dctcp_params dctcp;
    struct timely_params timely;
    struct nscc_params nscc;
    struct rccc_params rccc;
    struct transport_params transport;
    struct uet_params uet;         /* fabric.kind uet: delivery, entropy, trimming */
    enum ooo_mode out_of_order;    /* routing: spray */
    uint64_t reorder_buffer_bytes; /* out_of_order: buffer */
    bool ecmp_same_seed;           /* every switch hashes with the same seed (polarisation) */
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
     * stall count (docs/sources.md A12, net/hoq.c). */
    uint64_t hoq_lifetime_ps, leaf_hoq_lifetime_ps;
    uint32_t hoq_exp, leaf_hoq_exp; /* the exponents they were given as; 0 = a time */
    uint32_t vl_stall_count;
    uint32_t reorder_window_pkts; /* adaptive routing: NIC out-of-order window; 0 = default */
    /* out-of-order receiver with go-back-N: a PSN hole still open this long
     * after it opened is NAKed (net/nic.c); 0 = auto, SIM_TIME_NEVER = off */
    uint64_t reorder_timeout_ps;
};

enum ev_kind { EV_LINK_DOWN, EV_LINK_UP, EV_HOST_STALL, EV_LINK_GRAY, EV_LINK_FLAP, EV_LINK_BER };

struct sc_event {
    uint64_t at_ps;
    enum ev_kind kind;
    char *target; /* link name (link_down/up/gray/flap/ber) or host name (host_stall) */
    uint64_t for_ps;
    struct srcpos pos;
    double drop;             /* link_gray: fraction of packets dropped (1 = all) */
    bool errors;             /* link_gray: the losses are CRC errors the far port counts */
    double ber;              /* link_ber: the link's bit error rate from `at` on */
    uint64_t down_ps, up_ps; /* link_flap: each cycle down this long, then up this long */
    uint32_t count;          /* link_flap: cycles */
};

struct output_params {
    uint64_t sample_ps; /* links.csv interval; 0 = automatic (32-64 rows per link) */
};

/* Default stop cap when `stop` is not given (SPEC.md). */
#define MODEL_STOP_CAP_PS 1000000000000ULL

/* Everything one run reads; model/model.c keeps a copy (struct model.params)
 * and every module reaches it as n->sc. config/scenario_model.c fills it from
 * a loaded scenario (scenario_model_params); its strings and arrays are the
 * scenario's, which outlives the model. */
struct model_params {
    const char *file; /* the scenario file, for errors */
    const char *name;
    uint64_t seed;
    uint64_t stop_ps; /* 0 = until the workload completes (MODEL_STOP_CAP_PS) */
    struct fabric_params fabric;
    struct topo_params topo;
    const struct wl_entry *workload;
    size_t nworkload;
    const struct sc_event *events;
    size_t nevents;
    struct output_params output;
};

#endif /* FABSIM_NET_PARAMS_H */

/* src/cc/cc.h
 *
 * End-to-end congestion control at the NIC as a policy table: `none` (line
 * rate), `dcqcn` (RoCE), `hpcc` (RoCE with in-band telemetry), `dctcp`
 * (ECN-echo in ACKs), `timely` (RTT gradient) and `ibcc` (InfiniBand
 * FECN/BECN). Keeps its own per-QP state in net->cc_state.
 */
#ifndef FABSIM_CC_CC_H
#define FABSIM_CC_CC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/time.h"

struct net;
struct packet;
struct diag;

/* Parameters: config/ fills them from the scenario (docs/scenario.md); the
 * module reads them and never includes config/. */
/* nscc, rccc and nscc+rccc are Ultra Ethernet's (cc/nscc.c): the sender's
 * window, the receiver's credits, or both at once (a packet needs window and
 * credit). */
enum cc_kind {
    CC_NONE,
    CC_DCQCN,
    CC_IBCC,
    CC_HPCC,
    CC_DCTCP,
    CC_NSCC,
    CC_RCCC,
    CC_NSCC_RCCC,
    CC_TIMELY /* RoCE, RTT gradient (cc/timely.c) */
};
enum dcqcn_preset { DCQCN_PRESET_CONNECTX, DCQCN_PRESET_PAPER };
/* What one unit of dcqcn.byte_counter (ConnectX rpg_byte_reset) is: not settled,
 * bytes per mstflint, 64-byte units per Google's isekai (docs/sources.md A12). */
enum dcqcn_byte_unit { DCQCN_BYTES, DCQCN_64B };
enum dcqcn_cnp_class { DCQCN_CNP_STRICT, DCQCN_CNP_DATA };
/* What min_time_between_cnps spaces: the CNPs a receiving port sends (mstflint's
 * field text: "from the port"), or each QP's (the DCQCN paper's per-flow NP). */
enum dcqcn_cnp_pacing { DCQCN_PACE_PORT, DCQCN_PACE_QP };

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
    uint64_t cnp_interval_ps;         /* NP: min_time_between_cnps */
    enum dcqcn_cnp_pacing cnp_pacing; /* ...per receiving port or per QP */
    uint64_t min_rate_bps;
    /* ConnectX RP semantics (docs/sources.md A6, A12) */
    uint64_t rate_on_first_cnp_bps; /* rate_to_set_on_first_cnp; 0 = line rate */
    double initial_alpha;           /* initial_alpha_value / 1024 */
    uint32_t min_dec_fac_pct;       /* rpg_min_dec_fac: a cut keeps at least this % of R_C */
    uint32_t rpg_gd;                /* cut = R_C * alpha * 2^10 / 2^rpg_gd (11: alpha/2) */
    bool clamp_tgt_rate;            /* every cut sets R_T = R_C */
    bool clamp_after_time_inc;      /* ...also after a timer-driven increase */
    bool hyper_stage_scaling;       /* ns3-rdma: R_HAI x (stage - F + 1), T/2 and B/2 */
    bool cut_on_first_cnp;          /* the paper's RP: the first CNP cuts like any other */
    /* NP: the class CNPs travel in (docs/sources.md A12): their own strict-priority,
     * non-PFC class (cnp_802p_prio / cnp_dscp), or the data's class. */
    enum dcqcn_cnp_class cnp_class;
    uint32_t cnp_802p_prio, cnp_dscp;
};

/* InfiniBand congestion control (IBA vol. 1 Annex A10; cc/ibcc.c): what
 * OpenSM's congestion-control manager writes into the switches' and HCAs'
 * CC attributes (docs/sources.md A12, docs/model.md). */
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

/* HPCC (Li et al., SIGCOMM 2019; cc/hpcc.c, docs/sources.md A7): the window
 * law's parameters as the paper and its ns-3 artifact set them. */
struct hpcc_params {
    double eta;            /* target utilisation (paper: 95 %) */
    uint32_t max_stage;    /* additive steps before a multiplicative update (paper: 5) */
    uint64_t rate_ai_bps;  /* W_AI / T as a rate; 0 = the artifact's 10 Mb/s x link/25 G */
    uint64_t base_rtt_ps;  /* T; 0 = each QP's smallest measured RTT */
    uint64_t min_rate_bps; /* floor of the rate (artifact MIN_RATE) */
};

/* DCTCP (Alizadeh et al. SIGCOMM 2010) on RDMA as the HPCC artifact runs it
 * (cc/dctcp.c, docs/sources.md A7): marking from fabric.ecn. */
struct dctcp_params {
    double g;              /* alpha's gain per RTT (paper: 1/16) */
    uint64_t rate_ai_bps;  /* additive increase per RTT; 0 = one MTU per RTT (MTU x 8 / T) */
    uint64_t base_rtt_ps;  /* T; 0 = each QP's smallest measured RTT */
    uint64_t min_rate_bps; /* floor of the rate */
};

/* TIMELY (Mittal et al. SIGCOMM 2015; cc/timely.c, docs/sources.md A7b): the
 * paper's rate law on per-segment RTTs. */
struct timely_params {
    double alpha;           /* EWMA weight of a new RTT difference (0.875) */
    double beta;            /* multiplicative decrement (0.8) */
    uint64_t t_low_ps;      /* below: additive increase whatever the gradient (50 us) */
    uint64_t t_high_ps;     /* above: decrease by 1 - beta (1 - t_high / rtt) (500 us) */
    uint64_t min_rtt_ps;    /* D_minRTT normalising the gradient (20 us) */
    uint64_t delta_bps;     /* additive step delta (10 Mb/s at 10 G) */
    uint32_t hai_n;         /* completions of gradient <= 0 in a row before 5 x delta */
    uint64_t segment_bytes; /* pacing unit and RTT sample (16-64 KB; 64 KB) */
    double max_decrease;    /* one decrease keeps at least this share of the rate (0.5) */
    uint64_t min_rate_bps;  /* floor of the rate */
};

/* UET NSCC (UEC 1.0 spec 3.6.x; UEC htsim uec.cpp initNsccParams: docs/sources.md
 * U2, U3). 0 in a time field means "derived" (docs/model.md "Ultra Ethernet"). */
struct nscc_params {
    uint64_t base_rtt_ps;      /* network RTT; 0 = from the topology's diameter */
    uint64_t target_qdelay_ps; /* 0 = 0.75 x base_rtt with trimming, else base_rtt */
    double gamma;              /* multiplicative decrease strength (0.8) */
    double delay_alpha;        /* EWMA weight of a delay sample (0.0125) */
    uint32_t qa_gate;          /* quick adapt when achieved < MaxWnd >> qa_gate (3) */
    bool quick_adapt;
};

/* UET RCCC (UEC 1.0 spec 3.6.x receiver credit; htsim UecSink pull pacer,
 * docs/sources.md U2, U3): the receiver grants `credit_bytes` per grant, paced
 * so that grants sum to its link rate; a sender starts with MaxWnd of
 * speculative credit. */
struct rccc_params {
    uint64_t credit_bytes; /* per PULL; 0 = one MTU packet on the wire */
};

struct cc_ops {
    const char *name;
    int (*init)(struct net *n, struct diag *d);
    void (*fini)(struct net *n);
    /* Earliest time QP `qp` may put its next packet on the wire. */
    sim_time_ps (*send_time)(struct net *n, uint32_t qp);
    /* QP `qp` sent a data packet (rate limiter accounting). */
    void (*on_sent)(struct net *n, uint32_t qp, const struct packet *p);
    /* Receiver side: a data packet of `qp` arrived (ECN echo, CNP generation). */
    void (*on_rx_data)(struct net *n, uint32_t qp, const struct packet *p);
    /* Sender side: a CNP for `qp` arrived. */
    void (*on_cnp)(struct net *n, uint32_t qp);
    /* Switch `sw` queues `p` on egress `out_port` (ECN marking; may be NULL). */
    void (*on_enqueue)(struct net *n, uint32_t sw, uint32_t out_port, struct packet *p);
    /* Port `port` (switch or NIC) starts `p` on the wire: its queue no longer
     * holds it, its tx_bytes do not count it yet (per-hop telemetry; may be
     * NULL). Frames of the strict control queue (CNPs in their own class,
     * pauses, credits) do not pass here. */
    void (*on_tx)(struct net *n, uint32_t port, struct packet *p);
    /* Sender side: an ACK for `qp` arrived, after the transport took it (may be NULL). */
    void (*on_ack)(struct net *n, uint32_t qp, const struct packet *p);
    /* Sender side, optional: an ACK, a NAK or a credit grant of `qp` arrived,
     * before the transport applies it (window CCs that read what it
     * acknowledges: NSCC, RCCC). */
    void (*on_feedback)(struct net *n, uint32_t qp, const struct packet *p);
};

const struct cc_ops *cc_select(const struct net *n, struct diag *d);

extern const struct cc_ops cc_none_ops;
extern const struct cc_ops cc_dcqcn_ops;
extern const struct cc_ops cc_ibcc_ops;
extern const struct cc_ops cc_hpcc_ops;
extern const struct cc_ops cc_dctcp_ops;
extern const struct cc_ops cc_nscc_ops; /* nscc, rccc and nscc+rccc (cc/nscc.c) */
extern const struct cc_ops cc_timely_ops;

/* The DCQCN paper's parameters (Zhu et al. SIGCOMM'15, 40 G; docs/sources.md A5,
 * A6, V3) for `dcqcn: {preset: paper}`; defaults are ConnectX values. */
void dcqcn_preset_paper(struct dcqcn_params *dp, struct ecn_params *ep);
/* The ConnectX firmware defaults (docs/sources.md A6, A12): what `dcqcn: {}` gives. */
void dcqcn_preset_connectx(struct dcqcn_params *dp);
/* DCQCN's current rate R_C of `qp` (tests, reports). */
double dcqcn_rate_bps(struct net *n, uint32_t qp);
/* InfiniBand CC: the CCTI of `qp` (tests, traces). */
uint32_t ibcc_ccti(struct net *n, uint32_t qp);
/* HPCC's rate R = W / T of `qp`, and its window W in bytes (tests, reports). */
double hpcc_rate_bps(struct net *n, uint32_t qp);
double hpcc_window_bytes(struct net *n, uint32_t qp);
/* The defaults of fabric.hpcc (docs/sources.md A7). */
void hpcc_defaults(struct hpcc_params *hp);
/* DCTCP's rate and alpha of `qp` (tests). */
double dctcp_rate_bps(struct net *n, uint32_t qp);
double dctcp_alpha(struct net *n, uint32_t qp);
/* TIMELY's rate of `qp` and the RTT samples it has taken (tests). */
double timely_rate_bps(struct net *n, uint32_t qp);
uint64_t timely_samples(struct net *n, uint32_t qp);
/* The defaults of fabric.timely (docs/sources.md A7b). */
void timely_defaults(struct timely_params *tp);
/* DCQCN's target rate R_T of `qp` (tests). */
double dcqcn_target_bps(struct net *n, uint32_t qp);

/* NSCC: the window of `qp` in bytes, and how often each of the law's cases
 * ran for it (tests): [0] fair increase, [1] proportional increase, [2]
 * multiplicative decrease, [3] ECN with low delay (no change: switch path),
 * [4] fast increase, [5] quick adapt, [6] NAK decrease. */
enum { NSCC_FAIR, NSCC_PROP, NSCC_MD, NSCC_SWITCH, NSCC_FAST, NSCC_QA, NSCC_NAK, NSCC_NCASES };
double nscc_cwnd_bytes(struct net *n, uint32_t qp);
uint64_t nscc_cases(struct net *n, uint32_t qp, int which);
/* The derived parameters NSCC runs with (tests, docs): base RTT, target delay, MaxWnd. */
void nscc_derived(const struct net *n, uint64_t *base_rtt_ps, uint64_t *target_ps,
                  double *max_wnd_bytes);

#endif /* FABSIM_CC_CC_H */

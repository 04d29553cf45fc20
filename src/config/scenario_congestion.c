/* src/config/scenario_congestion.c
 *
 * The scenario's lossless and congestion-control keys as schema tables:
 * fabric.pfc (802.1Qbb), fabric.ecn, fabric.dcqcn (RoCE) and fabric.ibcc
 * (InfiniBand CC), one row per key with its default and source (how to add a key:
 * config/scenario.c).
 */
#include "config/scenario.h"

#include "config/scenario_int.h"
#include "cc/cc.h"
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>

static const char *const PRESET_NAMES[] = {"connectx", "paper", NULL};
static const char *const BYTE_UNIT_NAMES[] = {"bytes", "64B", NULL};
static const char *const CNP_CLASS_NAMES[] = {"strict", "data", NULL};
static const char *const CNP_PACING_NAMES[] = {"port", "qp", NULL};

/* fabric.pfc, .ecn, .dcqcn, .ibcc ----------------------------------------- */

static int headroom_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct pfc_params *p = obj;
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        p->headroom_auto = true;
        p->headroom_bytes = 0;
        return 0;
    }
    p->headroom_auto = false;
    return schema_number(c, SCHEMA_SIZE, n, 0, 0, &p->headroom_bytes);
}

static void headroom_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct pfc_params *p = obj;
    if (p->headroom_auto)
        fputs("auto", f);
    else
        print_size(f, p->headroom_bytes);
}

static int pfc_check(struct schema_ctx *c, const struct yaml_node *map,
                     const struct yaml_node *here, void *obj) {
    const struct pfc_params *p = obj;
    if (p->xon_bytes > p->xoff_bytes) {
        char on[48], off[48];
        schema_fmt(SCHEMA_SIZE, p->xon_bytes, on, sizeof on);
        schema_fmt(SCHEMA_SIZE, p->xoff_bytes, off, sizeof off);
        return schema_fail(c, at(map, here, "xon"), FS_EINVAL,
                           "xon (%s) is above xoff (%s); a paused queue resumes when it drains "
                           "below xon, so xon must not exceed xoff",
                           on, off);
    }
    return 0;
}

#define PFC(f) offsetof(struct pfc_params, f)
static const struct schema_key PFC_KEYS[] = {
    {KEY("xoff", SCHEMA_SIZE, PFC(xoff_bytes), "200KiB", NULL, "SPEC.md example")},
    {KEY("xon", SCHEMA_SIZE, PFC(xon_bytes), "150KiB", NULL, "SPEC.md example")},
    {KEY("headroom", SCHEMA_CUSTOM, 0, "auto", NULL, "docs/sources.md A4 headroom formula"),
     .parse = headroom_parse, .print = headroom_print},
    {KEY("watchdog", SCHEMA_TIME, PFC(watchdog_ps), "100ms", NULL,
         "docs/sources.md A4: NIC PFC watchdog default 100 ms; 0 = off")},
    {KEY("dynamic", SCHEMA_BOOL, PFC(dynamic), "false", NULL,
         "docs/scenario.md: static xoff/xon unless asked (docs/sources.md A3 dynamic threshold)")},
    {KEY("alpha_shift", SCHEMA_U32, PFC(alpha_shift), "3", NULL,
         "docs/sources.md A3: alpha 1/8 (ConWeave)"),
     .max = 30},
    {KEY("resume_offset", SCHEMA_SIZE, PFC(resume_offset_bytes), "3KB", NULL,
         "docs/sources.md A3: resume offset 3 KB (HPCC switch-mmu.cc)")},
};
const struct schema_table SCHEMA_PFC = {TABLE("pfc", PFC_KEYS), .check = pfc_check};

static int ecn_check(struct schema_ctx *c, const struct yaml_node *map,
                     const struct yaml_node *here, void *obj) {
    const struct ecn_params *e = obj;
    if (e->kmin_bytes > e->kmax_bytes) {
        char lo[48], hi[48];
        schema_fmt(SCHEMA_SIZE, e->kmin_bytes, lo, sizeof lo);
        schema_fmt(SCHEMA_SIZE, e->kmax_bytes, hi, sizeof hi);
        return schema_fail(c, at(map, here, "kmin"), FS_EINVAL,
                           "kmin (%s) is above kmax (%s); marking ramps up from kmin to kmax", lo,
                           hi);
    }
    return 0;
}

#define ECN(f) offsetof(struct ecn_params, f)
static const struct schema_key ECN_KEYS[] = {
    {KEY("kmin", SCHEMA_SIZE, ECN(kmin_bytes), "150KiB", NULL,
         "docs/sources.md A5: NVIDIA Onyx/Cumulus RoCE default")},
    {KEY("kmax", SCHEMA_SIZE, ECN(kmax_bytes), "1500KiB", NULL,
         "docs/sources.md A5: NVIDIA Onyx/Cumulus RoCE default")},
    {KEY("pmax", SCHEMA_FRACTION, ECN(pmax), "0.2", NULL,
         "SPEC.md example; HPCC (docs/sources.md A5)")},
};
const struct schema_table SCHEMA_ECN = {TABLE("ecn", ECN_KEYS), .check = ecn_check};

static int dcqcn_check(struct schema_ctx *c, const struct yaml_node *map,
                       const struct yaml_node *here, void *obj) {
    (void)here, (void)obj;
    if (yaml_map_get(map, "cnp_interval") && yaml_map_get(map, "min_time_between_cnps"))
        return schema_fail(c, key_node(map, "min_time_between_cnps"), FS_EINVAL,
                           "give either cnp_interval or min_time_between_cnps (the firmware's "
                           "name for it), not both");
    return 0;
}

static int dcqcn_mode(const void *obj) {
    return ((const struct dcqcn_params *)obj)->preset;
}

/* NVIDIA ConnectX firmware defaults (docs/sources.md A6); `preset: paper` takes
 * the DCQCN paper's column instead (the def_alt column here, equal to
 * dcqcn_preset_paper() in cc/dcqcn.c; its ECN part is applied in
 * fabric_check). Keys given with the preset override it. */
#define DCQ(f) offsetof(struct dcqcn_params, f)
static const struct schema_key DCQCN_KEYS[] = {
    {KEY("preset", SCHEMA_ENUM, DCQ(preset), "connectx", NULL,
         "docs/sources.md A6: ConnectX firmware values; paper = the DCQCN paper's (A5, A6, V3)"),
     .flags = SCHEMA_SELECTOR, .names = PRESET_NAMES},
    {KEY("g", SCHEMA_FRACTION_POS, DCQ(g), "0.0048828125", "0.00390625",
         "docs/sources.md A6: dce_tcp_g 1019 -> (1024 - 1019) / 1024; paper 1/256")},
    {KEY("alpha_period", SCHEMA_TIME, DCQ(alpha_period_ps), "1us", "55us",
         "docs/sources.md A6: dce_tcp_rtt; paper 55 us"),
     .min = 1},
    {KEY("rate_reduce_period", SCHEMA_TIME, DCQ(rate_reduce_period_ps), "4us", "50us",
         "docs/sources.md A6: rate_reduce_monitor_period; paper 50 us"),
     .min = 1},
    {KEY("timer", SCHEMA_TIME, DCQ(timer_ps), "300us", "55us",
         "docs/sources.md A6: rpg_time_reset; paper 55 us"),
     .min = 1},
    /* rpg_byte_reset 32767, on (docs/sources.md A12); what its unit is is
     * not settled, so byte_counter_unit says it (bytes: mstflint; 64B: isekai). */
    {KEY("byte_counter", SCHEMA_SIZE, DCQ(byte_counter_bytes), "32767B", "10MB",
         "docs/sources.md A6, A12: rpg_byte_reset 32767 (0 = off); paper 10 MB")},
    {KEY("byte_counter_unit", SCHEMA_ENUM, DCQ(byte_counter_unit), "bytes", "bytes",
         "docs/sources.md A12: bytes per mstflint; 64B = Google isekai's reading (x 64)"),
     .names = BYTE_UNIT_NAMES},
    {KEY("fast_recovery_steps", SCHEMA_U32, DCQ(fast_recovery_steps), "1", "5",
         "docs/sources.md A6: rpg_threshold; paper 5")},
    {KEY("rai", SCHEMA_RATE, DCQ(rai_bps), "5Mbps", "40Mbps",
         "docs/sources.md A6: rpg_ai_rate; paper 40 Mb/s")},
    {KEY("rhai", SCHEMA_RATE, DCQ(rhai_bps), "50Mbps", "200Mbps",
         "docs/sources.md A6: rpg_hai_rate; paper: not fixed, 200 Mb/s as SPEC.md")},
    {KEY("cnp_interval", SCHEMA_TIME, DCQ(cnp_interval_ps), "4us", "50us",
         "docs/sources.md A6: min_time_between_cnps; paper 50 us")},
    {KEY("cnp_pacing", SCHEMA_ENUM, DCQ(cnp_pacing), "port", "qp",
         "docs/sources.md A12: mstflint min_time_between_cnps 'between sending cnps from the "
         "port'; "
         "paper: per flow"),
     .names = CNP_PACING_NAMES},
    {KEY("min_rate", SCHEMA_RATE, DCQ(min_rate_bps), "1Mbps", NULL,
         "docs/sources.md A6: rpg_min_rate"),
     .min = 1},
    /* The firmware's name for cnp_interval. */
    {KEY("min_time_between_cnps", SCHEMA_TIME, DCQ(cnp_interval_ps), NULL, NULL,
         "ConnectX name of cnp_interval"),
     .flags = SCHEMA_ALIAS},
    {KEY("clamp_tgt_rate", SCHEMA_BOOL, DCQ(clamp_tgt_rate), "false", "true",
         "docs/sources.md A12: ConnectX clamp_tgt_rate 0; paper (ns3-rdma) clamps on every cut")},
    {KEY("clamp_tgt_rate_after_time_inc", SCHEMA_BOOL, DCQ(clamp_after_time_inc), "true", "true",
         "docs/sources.md A12: ConnectX clamp_tgt_rate_after_time_inc 1")},
    {KEY("rate_to_set_on_first_cnp", SCHEMA_RATE, DCQ(rate_on_first_cnp_bps), "0", "0",
         "docs/sources.md A6: rate_to_set_on_first_cnp 0 = the port's speed")},
    {KEY("cut_on_first_cnp", SCHEMA_BOOL, DCQ(cut_on_first_cnp), "false", "true",
         "docs/sources.md A12: ConnectX allocates the limiter on the first CNP; the paper's RP "
         "cuts")},
    {KEY("initial_alpha_value", SCHEMA_FRACTION, DCQ(initial_alpha), "0.9990234375", "0.5",
         "docs/sources.md A6: initial_alpha_value 1023/1024; A12: ns3-rdma starts at 0.5")},
    {KEY("rpg_min_dec_fac", SCHEMA_U32, DCQ(min_dec_fac_pct), "50", "50",
         "docs/sources.md A6: rpg_min_dec_fac 50 % (a cut keeps at least half of R_C)"),
     .max = 100},
    {KEY("rpg_gd", SCHEMA_U32, DCQ(rpg_gd), "11", "11",
         "docs/sources.md A6: rpg_gd 11 (cut alpha * 2^10 / 2^11 = alpha/2)"),
     .min = 1, .max = 40},
    {KEY("cnp_class", SCHEMA_ENUM, DCQ(cnp_class), "strict", "strict",
         "docs/sources.md A12: CNPs in their own strict-priority class, not PFC-enabled; data = "
         "share the data priority (a misconfiguration)"),
     .names = CNP_CLASS_NAMES},
    {KEY("cnp_802p_prio", SCHEMA_U32, DCQ(cnp_802p_prio), "6", "6",
         "docs/sources.md A6: ConnectX cnp_802p_prio 6"),
     .max = 7},
    {KEY("cnp_dscp", SCHEMA_U32, DCQ(cnp_dscp), "48", "48",
         "docs/sources.md A6: ConnectX cnp_dscp 48"),
     .max = 63},
    {KEY("hyper_stage_scaling", SCHEMA_BOOL, DCQ(hyper_stage_scaling), "false", "true",
         "docs/sources.md A12: ns3-rdma R_HAI x (stage - F + 1), T/2 and B/2 in hyper stage")},
};
const struct schema_table SCHEMA_DCQCN = {
    TABLE("dcqcn", DCQCN_KEYS),  .mode_of = dcqcn_mode,      .check = dcqcn_check,
    .mode_what = "dcqcn preset", .mode_names = PRESET_NAMES, .alt_modes = M(DCQCN_PRESET_PAPER),
};

int scenario_auto_time(struct schema_ctx *c, const struct yaml_node *n, uint64_t *out) {
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        *out = 0;
        return 0;
    }
    return schema_number(c, SCHEMA_TIME, n, 1, 0, out);
}

void scenario_auto_time_print(FILE *f, uint64_t v) {
    char buf[48];
    if (!v) {
        fputs("auto", f);
        return;
    }
    schema_fmt(SCHEMA_TIME, v, buf, sizeof buf);
    fputs(buf, f);
}

static int ccti_timer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return scenario_auto_time(c, n, &((struct ibcc_params *)obj)->ccti_timer_ps);
}
static void ccti_timer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    scenario_auto_time_print(f, ((const struct ibcc_params *)obj)->ccti_timer_ps);
}
static int cct_step_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return scenario_auto_time(c, n, &((struct ibcc_params *)obj)->cct_step_ps);
}
static void cct_step_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    scenario_auto_time_print(f, ((const struct ibcc_params *)obj)->cct_step_ps);
}

/* fabric.ibcc: Mellanox's CC manager defaults where published (MLNX_OFED
 * user manual, "Congestion Control Manager": threshold 0xf, marking_rate 0xa,
 * packet_size 0x200, ccti_increase 1, ccti_min 0); the CCT and CCTI timer it
 * computes from the fabric size are not published: fabsim's choice (C). */
#define IBC(f) offsetof(struct ibcc_params, f)
static const struct schema_key IBCC_KEYS[] = {
    {KEY("threshold", SCHEMA_U32, IBC(threshold), "15", NULL,
         "MLNX_OFED CC manager: threshold 0xf (marks above 1/16 of the VL buffer: docs/model.md)"),
     .max = 15},
    {KEY("marking_rate", SCHEMA_U32, IBC(marking_rate), "10", NULL,
         "MLNX_OFED CC manager: marking_rate 0xa (packets between FECN marks)"),
     .max = 0xffff},
    {KEY("packet_size", SCHEMA_SIZE, IBC(packet_size_bytes), "512B", NULL,
         "MLNX_OFED CC manager: packet_size 0x200 bytes")},
    {KEY("ccti_increase", SCHEMA_U32, IBC(ccti_increase), "1", NULL,
         "MLNX_OFED CC manager: ccti_increase 1"),
     .min = 1, .max = 255},
    {KEY("ccti_limit", SCHEMA_U32, IBC(ccti_limit), "127", NULL,
         "IBA A10 CCT of 128 entries (OpenSM cc_cct examples)"),
     .min = 1, .max = 16383},
    {KEY("ccti_min", SCHEMA_U32, IBC(ccti_min), "0", NULL, "MLNX_OFED CC manager: ccti_min 0"),
     .max = 16383},
    {KEY("ccti_timer", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/model.md: auto = (marking_rate + 1) x MTU time x hosts/2, in 1.024 us units (the "
         "CC manager computes it from the host count; its formula is not published, C)"),
     .parse = ccti_timer_parse, .print = ccti_timer_print},
    {KEY("cct_step", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/model.md: auto = MTU time x hosts/8 per CCT entry (linear table; the CC "
         "manager's is not published, C)"),
     .parse = cct_step_parse, .print = cct_step_print},
};
const struct schema_table SCHEMA_IBCC = {TABLE("ibcc", IBCC_KEYS)};

/* fabric.hpcc: HPCC's window law as the paper sets it (Li et al. SIGCOMM 2019
 * s5: eta 95 %, maxStage 5) and its ns-3 artifact's run.py (RATE_AI 10 Mb/s
 * x link / 25 G, MIN_RATE 1000 Mb/s); docs/sources.md A7. */
#define HPC(f) offsetof(struct hpcc_params, f)
static const struct schema_key HPCC_KEYS[] = {
    {KEY("eta", SCHEMA_FRACTION_POS, HPC(eta), "0.95", NULL,
         "docs/sources.md A7: HPCC paper s5, eta = 95 % (run.py U_TARGET 0.95)")},
    {KEY("max_stage", SCHEMA_U32, HPC(max_stage), "5", NULL,
         "docs/sources.md A7: HPCC paper s5, maxStage = 5"),
     .max = 1000},
    {KEY("rate_ai", SCHEMA_RATE, HPC(rate_ai_bps), "0", NULL,
         "docs/sources.md A7: W_AI / T; 0 = the artifact's RATE_AI, 10 Mb/s x link / 25 Gb/s "
         "(160 Mb/s at 400 G)")},
    {KEY("base_rtt", SCHEMA_TIME, HPC(base_rtt_ps), "0", NULL,
         "docs/sources.md A7: T; 0 = each QP's smallest measured RTT (the artifact uses the "
         "fabric's largest unloaded RTT)")},
    {KEY("min_rate", SCHEMA_RATE, HPC(min_rate_bps), "1Gbps", NULL,
         "docs/sources.md A7: run.py MIN_RATE 1000 Mb/s"),
     .min = 1},
};
const struct schema_table SCHEMA_HPCC = {TABLE("hpcc", HPCC_KEYS)};

/* fabric.dctcp: DCTCP on RDMA as the HPCC artifact runs it (docs/sources.md
 * A7): g 1/16 (the DCTCP paper's, run.py EWMA_GAIN 0.0625), one MTU per RTT of
 * additive increase (run.py's DCTCP_RATE_AI 615 Mb/s is that at 13 us, 1 KB). */
#define DCT(f) offsetof(struct dctcp_params, f)
static const struct schema_key DCTCP_KEYS[] = {
    {KEY("g", SCHEMA_FRACTION_POS, DCT(g), "0.0625", NULL,
         "docs/sources.md A7: DCTCP paper g = 1/16 (run.py EWMA_GAIN 0.0625)")},
    {KEY("rate_ai", SCHEMA_RATE, DCT(rate_ai_bps), "0", NULL,
         "docs/sources.md A7: 0 = one MTU per RTT (run.py DCTCP_RATE_AI 615 Mb/s = 1 KB per "
         "13 us)")},
    {KEY("base_rtt", SCHEMA_TIME, DCT(base_rtt_ps), "0", NULL,
         "docs/sources.md A7: T for the window R x T; 0 = each QP's smallest measured RTT")},
    {KEY("min_rate", SCHEMA_RATE, DCT(min_rate_bps), "1Gbps", NULL,
         "docs/sources.md A7: run.py MIN_RATE 1000 Mb/s"),
     .min = 1},
};
const struct schema_table SCHEMA_DCTCP = {TABLE("dctcp", DCTCP_KEYS)};

/* fabric.timely: TIMELY (Mittal et al., SIGCOMM 2015): the authors' code
 * (timely-code-snippet.cc: alpha 0.02, beta 0.8, T_low 50 us, delta 10 Mb/s
 * for 10 G, HAI after 5 completions, a decrease capped at half) and the
 * paper's T_high 500 us and minRTT 20 us as the HPCC artifact carries them
 * (rdma-hw.cc): docs/sources.md A7b. */
#define TML(f) offsetof(struct timely_params, f)
static int timely_check(struct schema_ctx *c, const struct yaml_node *map,
                        const struct yaml_node *here, void *obj) {
    const struct timely_params *t = obj;
    if (t->t_low_ps > t->t_high_ps)
        return schema_fail(c, at(map, here, "t_low"), FS_EINVAL,
                           "t_low is above t_high; TIMELY increases below t_low and decreases "
                           "above t_high");
    return 0;
}
static const struct schema_key TIMELY_KEYS[] = {
    {KEY("alpha", SCHEMA_FRACTION_POS, TML(alpha), "0.02", NULL,
         "docs/sources.md A7b: EWMA weight of a new RTT difference (the authors' code; the HPCC "
         "artifact's 0.875 leaves the gradient unfiltered)")},
    {KEY("beta", SCHEMA_FRACTION_POS, TML(beta), "0.8", NULL,
         "docs/sources.md A7b: multiplicative decrement (paper; artifact TimelyBeta; authors' "
         "code decreaseFactor)")},
    {KEY("t_low", SCHEMA_TIME, TML(t_low_ps), "50us", NULL,
         "docs/sources.md A7b: paper T_low (artifact TimelyTLow; authors' code: 50 us with 64 KB "
         "segments, 0 with per-packet pacing)")},
    {KEY("t_high", SCHEMA_TIME, TML(t_high_ps), "500us", NULL,
         "docs/sources.md A7b: paper T_high (artifact TimelyTHigh; authors' code 1 ms)"),
     .min = 1},
    {KEY("min_rtt", SCHEMA_TIME, TML(min_rtt_ps), "20us", NULL,
         "docs/sources.md A7b: D_minRTT, the gradient's normaliser (artifact TimelyMinRtt)"),
     .min = 1},
    {KEY("delta", SCHEMA_RATE, TML(delta_bps), "10Mbps", NULL,
         "docs/sources.md A7b: additive step (authors' code: 10 Mb/s for 10 Gb/s line rate)")},
    {KEY("hai_n", SCHEMA_U32, TML(hai_n), "5", NULL,
         "docs/sources.md A7b: completions with gradient <= 0 in a row before 5 x delta "
         "(paper HAI; authors' code HAI_Thresh)")},
    {KEY("segment", SCHEMA_SIZE, TML(segment_bytes), "16KiB", NULL,
         "docs/sources.md A7b: the paced unit and RTT sample, 16-64 KB in the paper; 16 KB: two "
         "64 KB bursts at 10 G queue 52 us, above T_low (C)"),
     .min = 1},
    {KEY("max_decrease", SCHEMA_FRACTION, TML(max_decrease), "0.5", NULL,
         "docs/sources.md A7b: one decrease keeps at least this share (authors' code: 0.5)")},
    {KEY("min_rate", SCHEMA_RATE, TML(min_rate_bps), "10Mbps", NULL,
         "docs/sources.md A7b: authors' code: optional; fabsim: one delta (C)"),
     .min = 1},
};
const struct schema_table SCHEMA_TIMELY = {TABLE("timely", TIMELY_KEYS), .check = timely_check};

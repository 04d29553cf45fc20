/* src/config/scenario.c
 *
 * The scenario schema of SPEC.md as tables, one row per key, with every
 * default and its source; the rules that tie keys together; the loader.
 *
 * How to add a key:
 *  1. Add the field to its struct in config/scenario.h, unit in the name.
 *  2. Add one row to the table of the mapping it belongs to (FABRIC_KEYS,
 *     PFC_KEYS, TOPO_KEYS, WORKLOAD_KEYS, ...):
 *       {KEY("name", SCHEMA_TIME, FAB(field_ps), "IB default", "RoCE default",
 *            "domain.md A6: where the default comes from"), .min = 1},
 *     Defaults are spelled as in a scenario file and read by the same code
 *     (NULL def_alt = same in every mode). SCHEMA_REQUIRED when there is no
 *     sensible default; `.only` when the key belongs to some kinds.
 *  3. A value that is not one scalar of a schema type: SCHEMA_CUSTOM with a
 *     parse and a print function (see senders, ranks below).
 *  4. A rule between keys goes in the table's check function.
 *  5. A string or array field: free it in scenario_fini.
 * Unknown-key messages, "did you mean", --set and explain follow the tables.
 */
#include "config/scenario.h"

#include "config/limits.h"

#include "config/schema.h"
#include "config/yaml.h"
#include "cc/cc.h"
#include "core/mem.h"
#include "net/net.h"
#include "topo/tfile.h"

#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define M(x) (1u << (x))
#define TABLE(w, k) .what = w, .keys = k, .nkeys = N(k)
#define KEY(n, t, o, d, alt, src)                                                                  \
    .name = n, .type = t, .off = o, .def = d, .def_alt = alt, .source = src

/* SCHEMA_ENUM stores through an int lvalue. */
_Static_assert(sizeof(enum fabric_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum topo_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum wl_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum coll_algo) == sizeof(int), "enum size");
_Static_assert(sizeof(enum dcqcn_preset) == sizeof(int), "enum size");
_Static_assert(sizeof(enum coll_proto) == sizeof(int), "enum size");

/* Propagation in fibre and copper, 5 ns/m = 5 ps/mm (SPEC.md, domain.md A2). */
#define PROPAGATION_PS_PER_MM 5u
/* Largest fabric fabsim builds: hosts, and links between two switch tiers. */
#define MAX_HOSTS (1u << 20)
#define MAX_TIER_LINKS (1ull << 24)

static const char *const FABRIC_KINDS[] = {"infiniband", "roce", NULL};
static const char *const FLOWCTL_NAMES[] = {"credit", "pfc", "none", NULL};
static const char *const ROUTING_NAMES[] = {"static", "adaptive", "ecmp", "spray", NULL};
static const char *const ENGINE_NAMES[] = {"minhop", "updn", "ftree", "file", NULL};
static const char *const CC_NAMES[] = {"none", "dcqcn", "ibcc", NULL};
static const char *const RETX_NAMES[] = {"go_back_n", "go_back_0", NULL};
static const char *const CP_NAMES[] = {"sm", "bgp", NULL};
static const char *const PRESET_NAMES[] = {"connectx", "paper", NULL};
static const char *const BYTE_UNIT_NAMES[] = {"bytes", "64B", NULL};
static const char *const CNP_CLASS_NAMES[] = {"strict", "data", NULL};
static const char *const SHARING_NAMES[] = {"static", "shared", NULL};
static const char *const TOPO_NAMES[] = {"single_switch",  "leaf_spine", "fat_tree", "ring",
                                         "rail_optimized", "file",       NULL};
static const char *const WL_NAMES[] = {
    "flows",         "permutation", "incast",   "alltoall",   "poisson", "allreduce", "allgather",
    "reducescatter", "broadcast",   "training", "nccl_tests", "chakra",  NULL};
static const char *const PERM_NAMES[] = {"shift", "random", NULL};
static const char *const ALGO_NAMES[] = {"ring", "tree", "halving_doubling", "sharp",
                                         "nvls", "auto", "hierarchical",     NULL};
static const char *const EV_NAMES[] = {"link_down", "link_up",  "host_stall", "link_gray",
                                       "link_flap", "link_ber", NULL};
static const char *const PROTO_NAMES[] = {"simple", "ll", "ll128", "auto", NULL};

#define WL_COLL (M(WL_ALLREDUCE) | M(WL_ALLGATHER) | M(WL_REDUCESCATTER) | M(WL_BROADCAST))
/* Entries the collective engine runs (coll/): collectives, training, and the
 * user's own workloads (docs/inputs.md): nccl-tests sweeps, Chakra traces. */
#define WL_INPUTS (M(WL_NCCL_TESTS) | M(WL_CHAKRA))
#define WL_ENGINE (WL_COLL | M(WL_TRAINING) | WL_INPUTS)

uint32_t scenario_host_count(const struct topo_params *t) {
    return topo_host_count(t);
}

/* The value under `key`, or the mapping itself (or `here`) to blame. */
static const struct yaml_node *at(const struct yaml_node *map, const struct yaml_node *here,
                                  const char *key) {
    const struct yaml_node *v = yaml_map_get(map, key);
    return v ? v : map ? map : here;
}

static const struct yaml_node *key_node(const struct yaml_node *map, const char *key) {
    for (size_t i = 0; map && map->type == YAML_MAP && i < map->npairs; i++)
        if (map->pairs[i].key->type == YAML_SCALAR && !strcmp(map->pairs[i].key->text, key))
            return map->pairs[i].key;
    return NULL;
}

static void print_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void print_size(FILE *f, uint64_t v) {
    char buf[48];
    schema_fmt(SCHEMA_SIZE, v, buf, sizeof buf);
    fputs(buf, f);
}

/* output ------------------------------------------------------------------ */

#define OUT(f) offsetof(struct output_params, f)
static const struct schema_key OUTPUT_KEYS[] = {
    {KEY("sample", SCHEMA_TIME, OUT(sample_ps), "0", NULL,
         "fabsim: 0 = automatic, 1 us doubling, 32-64 links.csv rows per link")},
};
static const struct schema_table OUTPUT = {TABLE("output", OUTPUT_KEYS)};

/* fabric.pfc, .ecn, .dcqcn, .transport, .control_plane -------------------- */

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
    {KEY("headroom", SCHEMA_CUSTOM, 0, "auto", NULL, "domain.md A4 headroom formula"),
     .parse = headroom_parse, .print = headroom_print},
    {KEY("watchdog", SCHEMA_TIME, PFC(watchdog_ps), "100ms", NULL,
         "domain.md A4: NIC PFC watchdog default 100 ms; 0 = off")},
    {KEY("dynamic", SCHEMA_BOOL, PFC(dynamic), "false", NULL,
         "docs/scenario.md: static xoff/xon unless asked (domain.md A3 dynamic threshold)")},
    {KEY("alpha_shift", SCHEMA_U32, PFC(alpha_shift), "3", NULL,
         "domain.md A3: alpha 1/8 (ConWeave)"),
     .max = 30},
    {KEY("resume_offset", SCHEMA_SIZE, PFC(resume_offset_bytes), "3KB", NULL,
         "domain.md A3: resume offset 3 KB (HPCC switch-mmu.cc)")},
};
static const struct schema_table PFC_TABLE = {TABLE("pfc", PFC_KEYS), .check = pfc_check};

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
         "domain.md A5: NVIDIA Onyx/Cumulus RoCE default")},
    {KEY("kmax", SCHEMA_SIZE, ECN(kmax_bytes), "1500KiB", NULL,
         "domain.md A5: NVIDIA Onyx/Cumulus RoCE default")},
    {KEY("pmax", SCHEMA_FRACTION, ECN(pmax), "0.2", NULL, "SPEC.md example; HPCC (domain.md A5)")},
};
static const struct schema_table ECN_TABLE = {TABLE("ecn", ECN_KEYS), .check = ecn_check};

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

/* NVIDIA ConnectX firmware defaults (domain.md A6); `preset: paper` takes
 * the DCQCN paper's column instead (the def_alt column here, equal to
 * dcqcn_preset_paper() in cc/dcqcn.c; its ECN part is applied in
 * fabric_check). Keys given with the preset override it. */
#define DCQ(f) offsetof(struct dcqcn_params, f)
static const struct schema_key DCQCN_KEYS[] = {
    {KEY("preset", SCHEMA_ENUM, DCQ(preset), "connectx", NULL,
         "domain.md A6: ConnectX firmware values; paper = the DCQCN paper's (A5, A6, V3)"),
     .flags = SCHEMA_SELECTOR, .names = PRESET_NAMES},
    {KEY("g", SCHEMA_FRACTION_POS, DCQ(g), "0.0048828125", "0.00390625",
         "domain.md A6: dce_tcp_g 1019 -> (1024 - 1019) / 1024; paper 1/256")},
    {KEY("alpha_period", SCHEMA_TIME, DCQ(alpha_period_ps), "1us", "55us",
         "domain.md A6: dce_tcp_rtt; paper 55 us"),
     .min = 1},
    {KEY("rate_reduce_period", SCHEMA_TIME, DCQ(rate_reduce_period_ps), "4us", "50us",
         "domain.md A6: rate_reduce_monitor_period; paper 50 us"),
     .min = 1},
    {KEY("timer", SCHEMA_TIME, DCQ(timer_ps), "300us", "55us",
         "domain.md A6: rpg_time_reset; paper 55 us"),
     .min = 1},
    /* rpg_byte_reset 32767, on (domain.md A12); what its unit is is
     * disputed, so byte_counter_unit says it (bytes: mstflint; 64B: isekai). */
    {KEY("byte_counter", SCHEMA_SIZE, DCQ(byte_counter_bytes), "32767B", "10MB",
         "domain.md A6, A12: rpg_byte_reset 32767 (0 = off); paper 10 MB")},
    {KEY("byte_counter_unit", SCHEMA_ENUM, DCQ(byte_counter_unit), "bytes", "bytes",
         "domain.md A12: bytes per mstflint; 64B = Google isekai's reading (x 64)"),
     .names = BYTE_UNIT_NAMES},
    {KEY("fast_recovery_steps", SCHEMA_U32, DCQ(fast_recovery_steps), "1", "5",
         "domain.md A6: rpg_threshold; paper 5")},
    {KEY("rai", SCHEMA_RATE, DCQ(rai_bps), "5Mbps", "40Mbps",
         "domain.md A6: rpg_ai_rate; paper 40 Mb/s")},
    {KEY("rhai", SCHEMA_RATE, DCQ(rhai_bps), "50Mbps", "200Mbps",
         "domain.md A6: rpg_hai_rate; paper: not fixed, 200 Mb/s as SPEC.md")},
    {KEY("cnp_interval", SCHEMA_TIME, DCQ(cnp_interval_ps), "4us", "50us",
         "domain.md A6: min_time_between_cnps; paper 50 us")},
    {KEY("min_rate", SCHEMA_RATE, DCQ(min_rate_bps), "1Mbps", NULL, "domain.md A6: rpg_min_rate"),
     .min = 1},
    /* The firmware's name for cnp_interval. */
    {KEY("min_time_between_cnps", SCHEMA_TIME, DCQ(cnp_interval_ps), NULL, NULL,
         "ConnectX name of cnp_interval"),
     .flags = SCHEMA_ALIAS},
    {KEY("clamp_tgt_rate", SCHEMA_BOOL, DCQ(clamp_tgt_rate), "false", "true",
         "domain.md A12: ConnectX clamp_tgt_rate 0; paper (ns3-rdma) clamps on every cut")},
    {KEY("clamp_tgt_rate_after_time_inc", SCHEMA_BOOL, DCQ(clamp_after_time_inc), "true", "true",
         "domain.md A12: ConnectX clamp_tgt_rate_after_time_inc 1")},
    {KEY("rate_to_set_on_first_cnp", SCHEMA_RATE, DCQ(rate_on_first_cnp_bps), "0", "0",
         "domain.md A6: rate_to_set_on_first_cnp 0 = the port's speed")},
    {KEY("cut_on_first_cnp", SCHEMA_BOOL, DCQ(cut_on_first_cnp), "false", "true",
         "domain.md A12: ConnectX allocates the limiter on the first CNP; the paper's RP cuts")},
    {KEY("initial_alpha_value", SCHEMA_FRACTION, DCQ(initial_alpha), "0.9990234375", "0.5",
         "domain.md A6: initial_alpha_value 1023/1024; A12: ns3-rdma starts at 0.5")},
    {KEY("rpg_min_dec_fac", SCHEMA_U32, DCQ(min_dec_fac_pct), "50", "50",
         "domain.md A6: rpg_min_dec_fac 50 % (a cut keeps at least half of R_C)"),
     .max = 100},
    {KEY("rpg_gd", SCHEMA_U32, DCQ(rpg_gd), "11", "11",
         "domain.md A6: rpg_gd 11 (cut alpha * 2^10 / 2^11 = alpha/2)"),
     .min = 1, .max = 40},
    {KEY("cnp_class", SCHEMA_ENUM, DCQ(cnp_class), "strict", "strict",
         "domain.md A12: CNPs in their own strict-priority class, not PFC-enabled; data = "
         "share the data priority (a misconfiguration)"),
     .names = CNP_CLASS_NAMES},
    {KEY("cnp_802p_prio", SCHEMA_U32, DCQ(cnp_802p_prio), "6", "6",
         "domain.md A6: ConnectX cnp_802p_prio 6"),
     .max = 7},
    {KEY("cnp_dscp", SCHEMA_U32, DCQ(cnp_dscp), "48", "48", "domain.md A6: ConnectX cnp_dscp 48"),
     .max = 63},
    {KEY("hyper_stage_scaling", SCHEMA_BOOL, DCQ(hyper_stage_scaling), "false", "true",
         "domain.md A12: ns3-rdma R_HAI x (stage - F + 1), T/2 and B/2 in hyper stage")},
};
static const struct schema_table DCQCN_TABLE = {
    TABLE("dcqcn", DCQCN_KEYS),  .mode_of = dcqcn_mode,      .check = dcqcn_check,
    .mode_what = "dcqcn preset", .mode_names = PRESET_NAMES, .alt_modes = M(DCQCN_PRESET_PAPER),
};

/* `auto` (0: the model derives it from the fabric) or a time. */
static int auto_time(struct schema_ctx *c, const struct yaml_node *n, uint64_t *out) {
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        *out = 0;
        return 0;
    }
    return schema_number(c, SCHEMA_TIME, n, 1, 0, out);
}

static void auto_time_print(FILE *f, uint64_t v) {
    char buf[48];
    if (!v) {
        fputs("auto", f);
        return;
    }
    schema_fmt(SCHEMA_TIME, v, buf, sizeof buf);
    fputs(buf, f);
}

static int ccti_timer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return auto_time(c, n, &((struct ibcc_params *)obj)->ccti_timer_ps);
}
static void ccti_timer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    auto_time_print(f, ((const struct ibcc_params *)obj)->ccti_timer_ps);
}
static int cct_step_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return auto_time(c, n, &((struct ibcc_params *)obj)->cct_step_ps);
}
static void cct_step_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    auto_time_print(f, ((const struct ibcc_params *)obj)->cct_step_ps);
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
static const struct schema_table IBCC_TABLE = {TABLE("ibcc", IBCC_KEYS)};

/* An InfiniBand time field: a time ("100us") or a bare integer N, the IBA
 * exponent (4.096 us x 2^N: local ACK timeout, HOQ lifetime; IBA vol. 1
 * 9.7.6.1.3, 18.2.5.4).
 * `inf_from`: exponents from there on mean "never" (0 = none do). *exp is
 * the exponent given, 0 for a time. */
#define IBA_TIME_UNIT_PS 4096000ull
static int iba_time(struct schema_ctx *c, const struct yaml_node *n, uint32_t inf_from,
                    uint64_t *ps, uint32_t *exp) {
    const char *s;
    int rc = schema_text(c, n, "a time such as 100us or an IBA exponent such as 20", &s);
    if (rc) return rc;
    bool digits = s[0] != 0;
    for (const char *p = s; *p; p++)
        digits &= *p >= '0' && *p <= '9';
    if (!digits) {
        *exp = 0;
        return schema_number(c, SCHEMA_TIME, n, 1, 0, ps);
    }
    uint64_t v = strtoull(s, NULL, 10);
    if (v < 1 || v > 31)
        return schema_fail(c, n, FS_ERANGE,
                           "%.32s is not an IBA time exponent; allowed 1..31 (4.096 us x 2^N: "
                           "14 = 67 ms, 18 = 1.07 s, 20 = 4.29 s) or a time such as 100us",
                           s);
    *exp = (uint32_t)v;
    *ps = inf_from && v >= inf_from ? SIM_TIME_NEVER : IBA_TIME_UNIT_PS << v;
    return 0;
}

static void iba_time_print(FILE *f, uint64_t ps, uint32_t exp) {
    if (exp) {
        fprintf(f, "%u", exp);
        return;
    }
    char buf[48];
    schema_fmt(SCHEMA_TIME, ps, buf, sizeof buf);
    fputs(buf, f);
}

static int timeout_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct transport_params *t = obj;
    return iba_time(c, n, 0, &t->timeout_ps, &t->timeout_exp);
}
static void timeout_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct transport_params *t = obj;
    iba_time_print(f, t->timeout_ps, t->timeout_exp);
}

static const char *const RTO_NAMES[] = {"iba", "fixed", NULL};

#define TRA(f) offsetof(struct transport_params, f)
static const struct schema_key TRANSPORT_KEYS[] = {
    {KEY("retransmit", SCHEMA_ENUM, TRA(retransmit), "go_back_n", NULL, "SPEC.md example"),
     .names = RETX_NAMES},
    {KEY("timeout", SCHEMA_CUSTOM, 0, "20", NULL,
         "domain.md A10, A12: NCCL_IB_TIMEOUT 20 = 4.096 us x 2^20 = 4.29 s per retry"),
     .parse = timeout_parse, .print = timeout_print},
    {KEY("retry_cnt", SCHEMA_U32, TRA(retry_cnt), "7", NULL,
         "domain.md A10, A12: NCCL_IB_RETRY_CNT 7 (IBA: 3 bits)"),
     .max = 7},
    {KEY("rto", SCHEMA_ENUM, TRA(rto), "iba", NULL,
         "domain.md A12: IBA local ACK timeout and retry count; fixed = NIC firmware fast "
         "retransmission (docs/model.md)"),
     .names = RTO_NAMES},
    {KEY("ack_every", SCHEMA_U32, TRA(ack_every), "1", NULL, "SPEC.md example"), .min = 1,
     .max = 1u << 16},
    {KEY("qps_per_connection", SCHEMA_U32, TRA(qps_per_connection), "1", NULL,
         "domain.md B: NCCL_IB_QPS_PER_CONNECTION default 1"),
     .min = 1, .max = 1024},
};
static const struct schema_table TRANSPORT_TABLE = {TABLE("transport", TRANSPORT_KEYS)};

static int cp_mode(const void *obj) {
    return ((const struct control_plane_params *)obj)->kind;
}

/* The kind follows the fabric (sm for InfiniBand, bgp for RoCE); detect
 * follows the kind. */
#define CPL(f) offsetof(struct control_plane_params, f)
static const struct schema_key CP_KEYS[] = {
    {KEY("kind", SCHEMA_ENUM, CPL(kind), "sm", "bgp", "SPEC.md: sm for infiniband, bgp for roce"),
     .flags = SCHEMA_SELECTOR, .names = CP_NAMES},
    {KEY("detect", SCHEMA_TIME, CPL(detect_ps), "1us", "9s",
         "SPEC.md example (sm trap); domain.md A10: BGP hold timer 9 s, the "
         "aggressive data-center timers 3/9 s (bgp; BFD: set 150ms)")},
    {KEY("smp_time", SCHEMA_TIME, CPL(smp_ps), "23600ns", NULL,
         "docs/model.md: fitted to domain.md A10b (OpenSM under ibsim)"),
     .min = 1, .only = M(CP_SM)},
    {KEY("sweep_fixed", SCHEMA_TIME, CPL(sweep_fixed_ps), "18500us", NULL,
         "docs/model.md: fitted to domain.md A10b (OpenSM under ibsim)"),
     .min = 1, .only = M(CP_SM)},
    {KEY("shield", SCHEMA_BOOL, CPL(shield), "false", NULL,
         "docs/scenario.md: SHIELD off unless asked (domain.md A10)"),
     .only = M(CP_SM)},
    {KEY("shield_delay", SCHEMA_TIME, CPL(shield_delay_ps), "10us", NULL,
         "domain.md A10 (SHIELD 5000x faster) vs A10b (C)"),
     .min = 1, .only = M(CP_SM)},
    {KEY("proc", SCHEMA_TIME, CPL(proc_ps), "1ms", NULL, "docs/scenario.md: not in domain.md (C)"),
     .only = M(CP_BGP)},
    {KEY("mrai", SCHEMA_TIME, CPL(mrai_ps), "0", NULL, "docs/scenario.md: not in domain.md (C)"),
     .only = M(CP_BGP)},
    {KEY("port_down_delay", SCHEMA_TIME, CPL(port_down_ps), "100us", NULL,
         "domain.md A12: hardware drops a down port from its ECMP groups in us-ms; link "
         "debounce off by default (Cisco Nexus, Dell) (C)"),
     .only = M(CP_BGP)},
    {KEY("fast_fallover", SCHEMA_BOOL, CPL(fast_fallover), "true", NULL,
         "domain.md A12: eBGP fast-external-fallover on by default (Cisco IOS, Dell OS10)"),
     .only = M(CP_BGP)},
    {KEY("sweep_interval", SCHEMA_TIME, CPL(sweep_interval_ps), "10s", NULL,
         "domain.md A10: OSM_DEFAULT_SWEEP_INTERVAL_SECS 10"),
     .min = 1, .only = M(CP_SM)},
};
static const struct schema_table CP_TABLE = {
    TABLE("control_plane", CP_KEYS), .mode_of = cp_mode,     .mode_what = "control_plane kind",
    .mode_names = CP_NAMES,          .alt_modes = M(CP_BGP),
};

/* fabric ------------------------------------------------------------------ */

static int fabric_mode(const void *obj) {
    return ((const struct fabric_params *)obj)->kind;
}

static bool cable_shown(const void *obj) {
    const struct fabric_params *f = obj;
    return f->propagation_ps == f->cable_mm * PROPAGATION_PS_PER_MM;
}
static bool propagation_shown(const void *obj) {
    return !cable_shown(obj);
}
static bool lft_file_shown(const void *obj) {
    return ((const struct fabric_params *)obj)->lft_file != NULL;
}

/* InfiniBand link layer (flowctl/credit.c): fabric.vls ... vlarb_high_limit.
 * 0 in these fields means "the model's default", so `auto` and empty tables
 * store 0. */

/* `auto` (0: the model derives it) or a size. */
static int auto_size(struct schema_ctx *c, const struct yaml_node *n, uint64_t *out) {
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        *out = 0;
        return 0;
    }
    return schema_number(c, SCHEMA_SIZE, n, 1, 0, out);
}

static void auto_size_print(FILE *f, uint64_t v);
static int switch_buffer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return auto_size(c, n, &((struct fabric_params *)obj)->switch_buffer_bytes);
}
static void switch_buffer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    auto_size_print(f, ((const struct fabric_params *)obj)->switch_buffer_bytes);
}

static void auto_size_print(FILE *f, uint64_t v) {
    if (v)
        print_size(f, v);
    else
        fputs("auto", f);
}

static int vl_buffer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return auto_size(c, n, &((struct fabric_params *)obj)->ib.vl_buffer_bytes);
}
static void vl_buffer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    auto_size_print(f, ((const struct fabric_params *)obj)->ib.vl_buffer_bytes);
}
static int nic_buffer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return auto_size(c, n, &((struct fabric_params *)obj)->ib.nic_buffer_bytes);
}
static void nic_buffer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    auto_size_print(f, ((const struct fabric_params *)obj)->ib.nic_buffer_bytes);
}

#define IB_SLS 16 /* service levels (IBA) */

/* `sl2vl`: `auto` (SL mod vls) or the VL of SL 0, 1, ... (up to 16; SLs
 * not listed take SL mod vls). `vls` is read before this key. */
static int sl2vl_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct ib_params *ib = &((struct fabric_params *)obj)->ib;
    uint32_t vls = ib->vls ? ib->vls : NET_NCLASS;
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        ib->sl2vl_set = false;
        memset(ib->sl2vl, 0, sizeof ib->sl2vl);
        return 0;
    }
    if (!n || n->type != YAML_SEQ)
        return schema_fail(c, n, FS_EINVAL,
                           "expected auto or a list of VLs indexed by SL such as [0, 1, 0, 1], "
                           "got %s",
                           yaml_describe(n));
    if (n->nitems == 0 || n->nitems > IB_SLS)
        return schema_fail(c, n, FS_EINVAL,
                           "an SL-to-VL table has 1 to %d entries (SL 0..%d), got %zu", IB_SLS,
                           IB_SLS - 1, n->nitems);
    for (size_t i = 0; i < IB_SLS; i++) {
        uint64_t v = i % vls;
        if (i < n->nitems) {
            int rc = schema_number(c, SCHEMA_U32, n->items[i], 0, UINT32_MAX, &v);
            if (rc) return rc;
            if (v >= vls)
                return schema_fail(c, n->items[i], FS_ERANGE,
                                   "SL %zu maps to VL %llu, but only VLs 0..%u are in use "
                                   "(fabric.vls: %u)",
                                   i, (unsigned long long)v, vls - 1, vls);
        }
        ib->sl2vl[i] = (uint8_t)v;
    }
    ib->sl2vl_set = true;
    return 0;
}

static void sl2vl_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct ib_params *ib = &((const struct fabric_params *)obj)->ib;
    if (!ib->sl2vl_set) {
        fputs("auto", f);
        return;
    }
    fputc('[', f);
    for (int i = 0; i < IB_SLS; i++)
        fprintf(f, "%s%u", i ? ", " : "", ib->sl2vl[i]);
    fputc(']', f);
}

/* One VLArb table entry, read through a table of its own. */
struct vlarb_item {
    uint32_t vl, weight;
};
#define VLA(f) offsetof(struct vlarb_item, f)
static const struct schema_key VLARB_ITEM_KEYS[] = {
    {KEY("vl", SCHEMA_U32, VLA(vl), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .max = NET_NCLASS - 1},
    {KEY("weight", SCHEMA_U32, VLA(weight), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .max = 255},
};
static const struct schema_table VLARB_ITEM = {TABLE("VLArb entry", VLARB_ITEM_KEYS), .flow = true};

/* `vlarb_high` / `vlarb_low`: up to 16 entries {vl, weight} (IBA VLArb;
 * weight in 64 B units, 0 = entry skipped). [] = the model's default: no
 * high-priority table; a low table of every VL in use with weight 255. */
static int vlarb_parse(struct schema_ctx *c, const struct yaml_node *n, struct ib_params *ib,
                       struct ib_vlarb_entry *t, uint8_t *count) {
    uint32_t vls = ib->vls ? ib->vls : NET_NCLASS;
    *count = 0;
    memset(t, 0, IB_SLS * sizeof *t);
    if (!n || yaml_is_null(n)) return 0;
    if (n->type != YAML_SEQ)
        return schema_fail(c, n, FS_EINVAL,
                           "expected a list of entries such as [{vl: 0, weight: 64}], got %s",
                           yaml_describe(n));
    if (n->nitems > IB_SLS)
        return schema_fail(c, n, FS_EINVAL, "a VLArb table has at most %d entries here, got %zu",
                           IB_SLS, n->nitems);
    for (size_t i = 0; i < n->nitems; i++) {
        struct vlarb_item it = {0, 0};
        char idx[24];
        snprintf(idx, sizeof idx, ".%zu", i);
        size_t old = strlen(c->path);
        snprintf(c->path + old, sizeof c->path - old, "%s", idx);
        int rc = schema_read(c, &VLARB_ITEM, n->items[i], &it, false, n->items[i]);
        if (!rc && it.vl >= vls) {
            const struct yaml_node *v = yaml_map_get(n->items[i], "vl");
            rc = schema_fail(c, v ? v : n->items[i], FS_ERANGE,
                             "VL %u is not in use; fabric.vls is %u (VLs 0..%u)", it.vl, vls,
                             vls - 1);
        }
        c->path[old] = 0;
        if (rc) return rc;
        t[i] = (struct ib_vlarb_entry){(uint8_t)it.vl, (uint8_t)it.weight};
    }
    *count = (uint8_t)n->nitems;
    return 0;
}

static void vlarb_print(FILE *f, const struct ib_vlarb_entry *t, uint8_t count) {
    fputc('[', f);
    for (uint8_t i = 0; i < count; i++)
        fprintf(f, "%s{vl: %u, weight: %u}", i ? ", " : "", t[i].vl, t[i].weight);
    fputc(']', f);
}

static int vlarb_high_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct ib_params *ib = &((struct fabric_params *)obj)->ib;
    return vlarb_parse(c, n, ib, ib->vlarb_high, &ib->nvlarb_high);
}
static void vlarb_high_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct ib_params *ib = &((const struct fabric_params *)obj)->ib;
    vlarb_print(f, ib->vlarb_high, ib->nvlarb_high);
}
static int vlarb_low_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct ib_params *ib = &((struct fabric_params *)obj)->ib;
    return vlarb_parse(c, n, ib, ib->vlarb_low, &ib->nvlarb_low);
}
static void vlarb_low_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct ib_params *ib = &((const struct fabric_params *)obj)->ib;
    vlarb_print(f, ib->vlarb_low, ib->nvlarb_low);
}

/* The credit buffers the model will use (flowctl/credit.c) must each hold
 * one MTU packet; said here with the key's position. */
static int ib_check(struct schema_ctx *c, const struct yaml_node *map, const struct yaml_node *here,
                    struct fabric_params *f) {
    if (f->kind != FABRIC_INFINIBAND || f->flow_control != FLOWCTL_CREDIT) return 0;
    const struct ib_params *ib = &f->ib;
    uint64_t vlbuf = ib->vl_buffer_bytes ? ib->vl_buffer_bytes : f->buffer_bytes / ib->vls;
    uint64_t nicbuf = ib->nic_buffer_bytes ? ib->nic_buffer_bytes : vlbuf;
    uint64_t pkt = ((uint64_t)f->mtu_bytes + f->overhead_bytes + 63) / 64 * 64;
    const char *key = NULL;
    uint64_t have = 0;
    if (vlbuf < pkt) {
        key = ib->vl_buffer_bytes ? "vl_buffer" : "buffer";
        have = vlbuf;
    } else if (nicbuf < pkt) {
        key = ib->nic_buffer_bytes ? "nic_buffer" : "vl_buffer";
        have = nicbuf;
    }
    if (!key) return 0;
    char b[48];
    schema_fmt(SCHEMA_SIZE, have, b, sizeof b);
    return schema_fail(c, at(map, here, key), FS_EINVAL,
                       "a credit buffer of %s per VL cannot hold one packet (mtu %u + %u bytes of "
                       "headers, in 64 B credits: %llu B); raise vl_buffer / nic_buffer or "
                       "buffer, or lower vls",
                       b, f->mtu_bytes, f->overhead_bytes, (unsigned long long)pkt);
}

/* `dcqcn: {preset: paper}` also takes the paper's ECN marking (domain.md A5,
 * dcqcn_preset_paper); ecn keys given explicitly win. */
static int preset_ecn(struct schema_ctx *c, const struct yaml_node *map,
                      const struct yaml_node *here, struct fabric_params *f) {
    if (f->dcqcn.preset != DCQCN_PRESET_PAPER) return 0;
    struct dcqcn_params dp;
    struct ecn_params ep;
    dcqcn_preset_paper(&dp, &ep);
    const struct yaml_node *ecn = yaml_map_get(map, "ecn");
    if (!yaml_map_get(ecn, "kmin")) f->ecn.kmin_bytes = ep.kmin_bytes;
    if (!yaml_map_get(ecn, "kmax")) f->ecn.kmax_bytes = ep.kmax_bytes;
    if (!yaml_map_get(ecn, "pmax")) f->ecn.pmax = ep.pmax;
    if (f->ecn.kmin_bytes > f->ecn.kmax_bytes) {
        char lo[48], hi[48];
        schema_fmt(SCHEMA_SIZE, f->ecn.kmin_bytes, lo, sizeof lo);
        schema_fmt(SCHEMA_SIZE, f->ecn.kmax_bytes, hi, sizeof hi);
        const struct yaml_node *k = yaml_map_get(ecn, "kmin");
        if (!k) k = yaml_map_get(ecn, "kmax");
        return schema_fail(c, k ? k : at(map, here, "dcqcn"), FS_EINVAL,
                           "ecn.kmin (%s) is above ecn.kmax (%s) with dcqcn preset paper "
                           "(kmin 5KB, kmax 200KB unless given)",
                           lo, hi);
    }
    return 0;
}

static int fabric_check(struct schema_ctx *c, const struct yaml_node *map,
                        const struct yaml_node *here, void *obj) {
    struct fabric_params *f = obj;
    /* Position of `sharp:`, for the model's "SHARP needs InfiniBand" error. */
    const struct yaml_node *sharp = key_node(map, "sharp");
    f->sharp_pos = sharp ? sharp->pos : (struct srcpos){0, 0};
    /* Path MTUs of InfiniBand; RoCE uses the same sizes (domain.md A1). */
    static const uint32_t MTUS[] = {256, 512, 1024, 2048, 4096};
    bool mtu_ok = false;
    for (size_t i = 0; i < N(MTUS); i++)
        mtu_ok |= f->mtu_bytes == MTUS[i];
    if (!mtu_ok)
        return schema_fail(c, at(map, here, "mtu"), FS_EINVAL,
                           "mtu %u is not an InfiniBand path MTU; allowed: 256, 512, 1024, 2048, "
                           "4096 (domain.md A1; RoCE uses the same payload sizes)",
                           f->mtu_bytes);
    /* Wire bytes per packet besides payload (domain.md A1): IB LRH + BTH +
     * ICRC + VCRC; RoCEv2 Ethernet + IPv4 + UDP + BTH + ICRC + FCS + preamble
     * and gap. Fixed by the kind, whatever the MTU. */
    f->overhead_bytes = f->kind == FABRIC_INFINIBAND ? 26 : 82;

    if (f->propagation_ps) {
        const struct yaml_node *cable = yaml_map_get(map, "cable");
        if (cable)
            return schema_fail(c, at(map, here, "propagation"), FS_EINVAL,
                               "give either cable (a length, propagation 5 ns/m) or propagation "
                               "(a time), not both");
        f->cable_mm = f->propagation_ps / PROPAGATION_PS_PER_MM;
    } else {
        f->propagation_ps = f->cable_mm * PROPAGATION_PS_PER_MM;
    }

    if (f->routing_engine == ENGINE_FILE && !f->lft_file)
        return schema_fail(c, at(map, here, "routing_engine"), FS_EINVAL,
                           "routing_engine: file needs fabric.lft_file: PATH (an OpenSM LFT "
                           "dump, domain.md A10b)");
    if (f->routing_engine != ENGINE_FILE && f->lft_file)
        return schema_fail(c, at(map, here, "lft_file"), FS_EINVAL,
                           "lft_file is only read with routing_engine: file (routing_engine is "
                           "%s)",
                           ENGINE_NAMES[f->routing_engine]);

    if (f->buffer_bytes < (uint64_t)f->mtu_bytes + f->overhead_bytes) {
        char b[48];
        schema_fmt(SCHEMA_SIZE, f->buffer_bytes, b, sizeof b);
        return schema_fail(c, at(map, here, "buffer"), FS_EINVAL,
                           "buffer %s per port cannot hold one packet (mtu %u + %u bytes of "
                           "headers)",
                           b, f->mtu_bytes, f->overhead_bytes);
    }
    if (f->congestion_control == CC_IBCC && f->kind != FABRIC_INFINIBAND)
        return schema_fail(c, at(map, here, "congestion_control"), FS_EINVAL,
                           "congestion_control: ibcc is InfiniBand congestion control (FECN/BECN, "
                           "IBA Annex A10); with fabric.kind roce use dcqcn or none");
    int rc = ib_check(c, map, here, f);
    return rc ? rc : preset_ecn(c, map, here, f);
}

static int hoq_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct fabric_params *f = obj;
    return iba_time(c, n, 20, &f->hoq_lifetime_ps, &f->hoq_exp);
}
static void hoq_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct fabric_params *p = obj;
    iba_time_print(f, p->hoq_lifetime_ps, p->hoq_exp);
}
static int leaf_hoq_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct fabric_params *f = obj;
    return iba_time(c, n, 20, &f->leaf_hoq_lifetime_ps, &f->leaf_hoq_exp);
}
static void leaf_hoq_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct fabric_params *p = obj;
    iba_time_print(f, p->leaf_hoq_lifetime_ps, p->leaf_hoq_exp);
}

#define FAB(f) offsetof(struct fabric_params, f)
static const struct schema_key FABRIC_KEYS[] = {
    {KEY("kind", SCHEMA_ENUM, FAB(kind), "infiniband", NULL, "SPEC.md: infiniband is the default"),
     .flags = SCHEMA_SELECTOR, .names = FABRIC_KINDS},
    {KEY("link", SCHEMA_RATE, FAB(link_bps), "400Gbps", NULL,
         "domain.md A1: NDR / 400GbE data rate"),
     .min = 1},
    {KEY("mtu", SCHEMA_U32, FAB(mtu_bytes), "4096", NULL, "domain.md A1: typical AI-fabric MTU"),
     .min = 256, .max = 4096},
    {KEY("cable", SCHEMA_LENGTH, FAB(cable_mm), "5m", NULL, "SPEC.md example"), .min = 1,
     .max = 100000000, .show = cable_shown},
    {KEY("propagation", SCHEMA_TIME, FAB(propagation_ps), NULL, NULL, "derived from cable"),
     .min = 1, .max = 1000000000000ull, .show = propagation_shown},
    {KEY("switch_latency", SCHEMA_TIME, FAB(switch_latency_ps), "200ns", "300ns",
         "SPEC.md example, domain.md A2 (C, sweep 130-350 ns); A3 (C, sweep 0.3-1 us)")},
    {KEY("cut_through", SCHEMA_BOOL, FAB(cut_through), "false", NULL,
         "docs/model.md (Switch): store-and-forward unless asked; Quantum and Spectrum forward "
         "cut-through (domain.md A2, A3)")},
    {KEY("buffer", SCHEMA_SIZE, FAB(buffer_bytes), "1MiB", "2MiB",
         "SPEC.md example (A2: unpublished); A3: ~128 MB shared over 64 ports")},
    {KEY("buffer_sharing", SCHEMA_ENUM, FAB(buffer_sharing), "static", "static",
         "docs/model.md (Switch buffers): static keeps the SPEC.md per-port thresholds; shared = "
         "Spectrum/Tomahawk pool with dynamic thresholds (domain.md A3)"),
     .names = SHARING_NAMES, .only = M(FABRIC_ROCE)},
    {KEY("switch_buffer", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/model.md (Switch buffers): auto = buffer x ports (the same total as static)"),
     .only = M(FABRIC_ROCE), .parse = switch_buffer_parse, .print = switch_buffer_print},
    {KEY("flow_control", SCHEMA_ENUM, FAB(flow_control), "credit", "pfc",
         "domain.md A2 credits; A4 PFC"),
     .names = FLOWCTL_NAMES},
    {KEY("routing", SCHEMA_ENUM, FAB(routing), "static", "ecmp",
         "SPEC.md; domain.md A10 (SM LFTs), A11 (ECMP)"),
     .names = ROUTING_NAMES},
    {KEY("routing_engine", SCHEMA_ENUM, FAB(routing_engine), "ftree", NULL,
         "domain.md A10: OpenSM/UFM fat-tree engine"),
     .names = ENGINE_NAMES},
    {KEY("lft_file", SCHEMA_STRING, FAB(lft_file), NULL, NULL, "used by routing_engine: file"),
     .show = lft_file_shown},
    {KEY("congestion_control", SCHEMA_ENUM, FAB(congestion_control), "none", "dcqcn",
         "SPEC.md; domain.md A6"),
     .names = CC_NAMES},
    {KEY("pfc", SCHEMA_MAP, FAB(pfc), NULL, NULL, NULL), .sub = &PFC_TABLE},
    {KEY("ecn", SCHEMA_MAP, FAB(ecn), NULL, NULL, NULL), .sub = &ECN_TABLE},
    {KEY("dcqcn", SCHEMA_MAP, FAB(dcqcn), NULL, NULL, NULL), .sub = &DCQCN_TABLE},
    {KEY("ibcc", SCHEMA_MAP, FAB(ibcc), NULL, NULL, NULL), .sub = &IBCC_TABLE,
     .only = M(FABRIC_INFINIBAND)},
    {KEY("transport", SCHEMA_MAP, FAB(transport), NULL, NULL, NULL), .sub = &TRANSPORT_TABLE},
    {KEY("reorder_buffer", SCHEMA_SIZE, FAB(reorder_buffer_bytes), "256KiB", NULL,
         "SPEC.md example")},
    {KEY("ecmp_same_seed", SCHEMA_BOOL, FAB(ecmp_same_seed), "false", NULL,
         "docs/scenario.md: a hash key per switch unless asked (domain.md A11)")},
    {KEY("sharp", SCHEMA_BOOL, FAB(sharp), "false", NULL, "SPEC.md example")},
    {KEY("sharp_jobs_per_switch", SCHEMA_U32, FAB(sharp_jobs_per_switch), "2", NULL,
         "domain.md A9: NVIDIA HPC-X NCCL-RDMA-SHARP plugin, at most 2 streaming "
         "aggregation flows per switch (Quantum HDR: 1)"),
     .min = 1, .max = 511},
    {KEY("sharp_buffer", SCHEMA_SIZE, FAB(sharp_buffer_bytes), "256KiB", NULL,
         "docs/model.md: not published (C)"),
     .min = 1},
    {KEY("sharp_latency", SCHEMA_TIME, FAB(sharp_latency_ps), "0", NULL,
         "docs/model.md: not published for Quantum (domain.md A9); 0.89us calibrates "
         "Switch-IB 2 to V12")},
    {KEY("control_plane", SCHEMA_MAP, FAB(control_plane), NULL, NULL, NULL), .sub = &CP_TABLE},
    {KEY("deadlock_timeout", SCHEMA_TIME, FAB(deadlock_timeout_ps), "100us", NULL,
         "docs/model.md: detector interval (net/deadlock.c)"),
     .min = 1},
    {KEY("reorder_window", SCHEMA_U32, FAB(reorder_window_pkts), "1024", NULL,
         "domain.md A10: ConnectX depth not published (C); 1024 PSNs"),
     .min = 1, .max = 1u << 20},
    /* InfiniBand link layer */
    {KEY("vls", SCHEMA_U32, FAB(ib.vls), "4", NULL, "domain.md A2: ConnectX NUM_OF_VL = 4"),
     .min = 1, .max = NET_NCLASS, .only = M(FABRIC_INFINIBAND)},
    {KEY("vl_buffer", SCHEMA_CUSTOM, 0, "auto", NULL,
         "domain.md A2: not published; auto = buffer / vls"),
     .only = M(FABRIC_INFINIBAND), .parse = vl_buffer_parse, .print = vl_buffer_print},
    {KEY("nic_buffer", SCHEMA_CUSTOM, 0, "auto", NULL, "auto = vl_buffer"),
     .only = M(FABRIC_INFINIBAND), .parse = nic_buffer_parse, .print = nic_buffer_print},
    {KEY("credit_batch", SCHEMA_U32, FAB(ib.credit_batch_blocks), "1", NULL,
         "docs/scenario.md: a credit update per packet"),
     .min = 1, .max = 1u << 16, .only = M(FABRIC_INFINIBAND)},
    {KEY("credit_flush", SCHEMA_TIME, FAB(ib.credit_flush_ps), "1us", NULL,
         "docs/scenario.md (C); used when credit_batch > 1"),
     .min = 1, .only = M(FABRIC_INFINIBAND)},
    {KEY("sl2vl", SCHEMA_CUSTOM, 0, "auto", NULL, "auto = SL mod vls (OpenSM without QoS)"),
     .only = M(FABRIC_INFINIBAND), .parse = sl2vl_parse, .print = sl2vl_print},
    {KEY("vlarb_high", SCHEMA_CUSTOM, 0, NULL, NULL, "domain.md A2: [] = no high table"),
     .only = M(FABRIC_INFINIBAND), .parse = vlarb_high_parse, .print = vlarb_high_print},
    {KEY("vlarb_low", SCHEMA_CUSTOM, 0, NULL, NULL,
         "domain.md A2: [] = every VL in use, weight 255"),
     .only = M(FABRIC_INFINIBAND), .parse = vlarb_low_parse, .print = vlarb_low_print},
    {KEY("vlarb_high_limit", SCHEMA_U32, FAB(ib.high_limit), "255", NULL,
         "domain.md A2: LimitOfHighPriority, 255 = unlimited"),
     .min = 1, .max = 255, .only = M(FABRIC_INFINIBAND)},
    /* Failures (docs/model.md "Failures") */
    {KEY("ber", SCHEMA_FRACTION, FAB(ber), "0", NULL,
         "docs/model.md: no bit errors unless asked (IBA requires BER <= 1e-12)")},
    {KEY("hoq_lifetime", SCHEMA_CUSTOM, 0, "18", NULL,
         "domain.md A12: OpenSM head_of_queue_lifetime 0x12 (1.07 s); 20+ = infinite"),
     .only = M(FABRIC_INFINIBAND), .parse = hoq_parse, .print = hoq_print},
    {KEY("leaf_hoq_lifetime", SCHEMA_CUSTOM, 0, "16", NULL,
         "domain.md A12: OpenSM leaf_head_of_queue_lifetime 0x10 (268 ms, towards CAs)"),
     .only = M(FABRIC_INFINIBAND), .parse = leaf_hoq_parse, .print = leaf_hoq_print},
    {KEY("vl_stall_count", SCHEMA_U32, FAB(vl_stall_count), "7", NULL,
         "domain.md A12: OpenSM vl_stall_count 7, leaf_vl_stall_count 7"),
     .min = 1, .max = 7, .only = M(FABRIC_INFINIBAND)},
};
static const struct schema_table FABRIC = {
    TABLE("fabric", FABRIC_KEYS), .mode_of = fabric_mode,      .mode_what = "fabric kind",
    .mode_names = FABRIC_KINDS,   .alt_modes = M(FABRIC_ROCE), .check = fabric_check,
};

/* topology ---------------------------------------------------------------- */

/* Each parameter is a row of the flat table and of its kind's nested block
 * (`fat_tree: {k: 8}`), so both spellings read the same field. Defaults:
 * SPEC.md example (leaf_spine 4/4/4/1) and the brief's sizes for the other
 * kinds; rail_optimized takes the def_alt column. */
#define TOP(f) offsetof(struct topo_params, f)
#define K_LEAVES                                                                                   \
    {                                                                                              \
        KEY("leaves", SCHEMA_U32, TOP(leaves), "4", NULL, "SPEC.md example"),                      \
            .min = 1, .max = MAX_HOSTS, .only = M(TOPO_LEAF_SPINE)                                 \
    }
#define K_SPINES                                                                                   \
    {                                                                                              \
        KEY("spines", SCHEMA_U32, TOP(spines), "4", "8", "SPEC.md example"),                       \
            .min = 1, .max = MAX_HOSTS, .only = M(TOPO_LEAF_SPINE) | M(TOPO_RAIL_OPTIMIZED)        \
    }
#define K_HOSTS_PER_LEAF                                                                           \
    {                                                                                              \
        KEY("hosts_per_leaf", SCHEMA_U32, TOP(hosts_per_leaf), "4", NULL, "SPEC.md example"),      \
            .min = 1, .max = MAX_HOSTS, .only = M(TOPO_LEAF_SPINE)                                 \
    }
#define K_UPLINKS                                                                                  \
    {                                                                                              \
        KEY("uplinks_per_spine", SCHEMA_U32, TOP(uplinks_per_spine), "1", NULL,                    \
            "SPEC.md example"),                                                                    \
            .min = 1, .max = 1024, .only = M(TOPO_LEAF_SPINE) | M(TOPO_RAIL_OPTIMIZED)             \
    }
#define K_K                                                                                        \
    {                                                                                              \
        KEY("k", SCHEMA_U32, TOP(k), "8", NULL, "SPEC.md example (fat_tree: {k: 8})"),             \
            .min = 2, .max = 1024, .only = M(TOPO_FAT_TREE)                                        \
    }
#define K_SWITCHES                                                                                 \
    {                                                                                              \
        KEY("switches", SCHEMA_U32, TOP(ring_switches), "5", NULL, "SPEC.md example"),             \
            .min = 3, .max = MAX_HOSTS, .only = M(TOPO_RING)                                       \
    }
#define K_HOSTS_PER_SWITCH                                                                         \
    {                                                                                              \
        KEY("hosts_per_switch", SCHEMA_U32, TOP(ring_hosts_per_switch), "1", NULL,                 \
            "SPEC.md example"),                                                                    \
            .min = 1, .max = MAX_HOSTS, .only = M(TOPO_RING)                                       \
    }
#define K_HOSTS                                                                                    \
    {                                                                                              \
        KEY("hosts", SCHEMA_U32, TOP(hosts), "8", "16", "SPEC.md examples"),                       \
            .min = 1, .max = MAX_HOSTS, .only = M(TOPO_SINGLE_SWITCH) | M(TOPO_RAIL_OPTIMIZED)     \
    }
#define K_GPUS                                                                                     \
    {                                                                                              \
        KEY("gpus_per_host", SCHEMA_U32, TOP(gpus_per_host), "1", "8",                             \
            "SPEC.md; domain.md A8: 8 GPUs per HGX node"),                                         \
            .min = 1, .max = 1024                                                                  \
    }

static const struct schema_key SS_BLOCK_KEYS[] = {K_HOSTS, K_GPUS};
static const struct schema_key LS_BLOCK_KEYS[] = {K_LEAVES, K_SPINES, K_HOSTS_PER_LEAF, K_UPLINKS,
                                                  K_GPUS};
static const struct schema_key FT_BLOCK_KEYS[] = {K_K, K_GPUS};
static const struct schema_key RING_BLOCK_KEYS[] = {K_SWITCHES, K_HOSTS_PER_SWITCH, K_GPUS};
static const struct schema_key RAIL_BLOCK_KEYS[] = {K_HOSTS, K_GPUS, K_SPINES, K_UPLINKS};
static const struct schema_table SS_BLOCK = {TABLE("single_switch", SS_BLOCK_KEYS),
                                             .no_defaults = true};
static const struct schema_table LS_BLOCK = {TABLE("leaf_spine", LS_BLOCK_KEYS),
                                             .no_defaults = true};
static const struct schema_table FT_BLOCK = {TABLE("fat_tree", FT_BLOCK_KEYS), .no_defaults = true};
static const struct schema_table RING_BLOCK = {TABLE("ring", RING_BLOCK_KEYS), .no_defaults = true};
static const struct schema_table RAIL_BLOCK = {TABLE("rail_optimized", RAIL_BLOCK_KEYS),
                                               .no_defaults = true};

static int topo_mode(const void *obj) {
    return ((const struct topo_params *)obj)->kind;
}

/* topology kind: file (docs/inputs.md): the fabric is read here, when the
 * scenario is loaded, because the workload's host names need its size. */
static const char *const TFILE_FORMATS[] = {"auto", "yaml", "ibnetdiscover", "ibsim", NULL};
static const char *const TFILE_RATES[] = {"fabric", "file", NULL};
_Static_assert(TFILE_AUTO == 0 && TFILE_YAML == 1 && TFILE_IBNETDISCOVER == 2 && TFILE_IBSIM == 3,
               "TFILE_FORMATS order");

static char *path_near(const char *scenario_file, const char *p);

static int topo_path_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct topo_params *t = obj;
    const char *s;
    int rc = schema_text(c, n, "a topology file", &s);
    if (rc) return rc;
    if (!s[0]) return schema_fail(c, n, FS_EINVAL, "must not be empty");
    free(t->file_path);
    t->file_path = path_near(c->file, s);
    return 0;
}

static void topo_path_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_string(f, ((const struct topo_params *)obj)->file_path);
}

static int topo_rates_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct topo_params *t = obj;
    const char *s;
    int rc = schema_text(c, n, "file or fabric", &s);
    if (rc) return rc;
    if (strcmp(s, "file") && strcmp(s, "fabric"))
        return schema_fail(c, n, FS_EINVAL,
                           "'%.40s': rates are 'file' (each link's own, "
                           "fabric.link where the file gives none) or 'fabric' (every link at "
                           "fabric.link)",
                           s);
    t->file_rates = !strcmp(s, "file");
    return 0;
}

static void topo_rates_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    fputs(TFILE_RATES[((const struct topo_params *)obj)->file_rates], f);
}

static int topo_file_check(struct schema_ctx *c, const struct yaml_node *map,
                           const struct yaml_node *here, struct topo_params *t) {
    const struct yaml_node *pn = yaml_map_get(map, "path");
    if (t->file) return 0;
    t->file = fs_xcalloc(1, sizeof *t->file);
    int rc = tfile_read(t->file, t->file_path, (enum tfile_format)t->file_format, c->d);
    if (rc) {
        free(t->file);
        t->file = NULL;
        /* the file's own file:line error stays; say where it was named */
        (void)pn, (void)here;
        return rc;
    }
    const struct yaml_node *g = yaml_map_get(map, "gpus_per_host");
    if (g && t->gpus_per_host != t->file->gpus)
        return schema_fail(c, g, FS_EINVAL,
                           "gpus_per_host is %u but the hosts of %s have gpus: %u; leave "
                           "gpus_per_host out with kind: file",
                           t->gpus_per_host, t->file_path, t->file->gpus);
    t->gpus_per_host = t->file->gpus;
    return 0;
}

/* Without `kind`, a nested block (`ring: {...}`) names the kind. */
static int topo_infer(struct schema_ctx *c, const struct yaml_node *map,
                      const struct yaml_node *here, void *obj) {
    (void)here;
    struct topo_params *t = obj;
    int kind = -1;
    for (int k = 0; TOPO_NAMES[k]; k++) {
        const struct yaml_node *key = key_node(map, TOPO_NAMES[k]);
        if (!key) continue;
        if (kind >= 0)
            return schema_fail(c, key, FS_EINVAL,
                               "both '%s:' and '%s:' blocks; a topology has one kind",
                               TOPO_NAMES[kind], TOPO_NAMES[k]);
        kind = k;
    }
    if (kind < 0) return 0;
    t->kind = (enum topo_kind)kind;
    return 1;
}

static int topo_check(struct schema_ctx *c, const struct yaml_node *map,
                      const struct yaml_node *here, void *obj) {
    if (((struct topo_params *)obj)->kind == TOPO_FILE) {
        int rc = topo_file_check(c, map, here, obj);
        if (rc) return rc;
    }
    const struct topo_params *t = obj;
    const struct yaml_node *block = yaml_map_get(map, TOPO_NAMES[t->kind]);
    for (size_t i = 0; block && block->type == YAML_MAP && i < block->npairs; i++) {
        const struct yaml_node *k = block->pairs[i].key;
        if (k->type == YAML_SCALAR && yaml_map_get(map, k->text))
            return schema_fail(c, k, FS_EINVAL,
                               "'%s' is given twice: directly under topology and in its '%s:' "
                               "block",
                               k->text, TOPO_NAMES[t->kind]);
    }
    const struct yaml_node *kpos = yaml_map_get(block, "k");
    if (t->kind == TOPO_FAT_TREE && t->k % 2)
        return schema_fail(c, kpos ? kpos : at(map, here, "k"), FS_EINVAL,
                           "k must be even, got %u: a k-ary fat tree splits each switch's k "
                           "ports into k/2 down and k/2 up",
                           t->k);
    uint32_t hosts = scenario_host_count(t);
    if (hosts > MAX_HOSTS)
        return schema_fail(
            c, here, FS_ERANGE, "this %s has %u%s hosts; at most %u (1<<20) are supported",
            TOPO_NAMES[t->kind], hosts, hosts == UINT32_MAX ? " or more" : "", MAX_HOSTS);
    uint64_t tier = t->kind == TOPO_LEAF_SPINE
                        ? (uint64_t)t->leaves * t->spines * t->uplinks_per_spine
                    : t->kind == TOPO_RAIL_OPTIMIZED
                        ? (uint64_t)t->gpus_per_host * t->spines * t->uplinks_per_spine
                        : 0;
    if (tier > MAX_TIER_LINKS)
        return schema_fail(
            c, here, FS_ERANGE, "this %s has %llu leaf-spine links; at most %llu are supported",
            TOPO_NAMES[t->kind], (unsigned long long)tier, (unsigned long long)MAX_TIER_LINKS);
    return 0;
}

static const struct schema_key TOPO_KEYS[] = {
    {KEY("kind", SCHEMA_ENUM, TOP(kind), "leaf_spine", NULL, "SPEC.md example"),
     .flags = SCHEMA_SELECTOR, .names = TOPO_NAMES},
    K_LEAVES,
    K_SPINES,
    K_HOSTS_PER_LEAF,
    K_UPLINKS,
    K_K,
    K_SWITCHES,
    K_HOSTS_PER_SWITCH,
    K_HOSTS,
    K_GPUS,
    {KEY("nvlink", SCHEMA_RATE, TOP(nvlink_bps), "3600Gbps", NULL,
         "domain.md A8: NVLink 4, 450 GB/s per direction per GPU"),
     .min = 1},
    {KEY("path", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(TOPO_FILE), .parse = topo_path_parse, .print = topo_path_print},
    {KEY("format", SCHEMA_ENUM, TOP(file_format), "auto", NULL,
         "docs/inputs.md: by the file's name and content"),
     .only = M(TOPO_FILE), .names = TFILE_FORMATS},
    {KEY("rates", SCHEMA_CUSTOM, 0, "file", NULL, "docs/inputs.md: each link's rate from the file"),
     .only = M(TOPO_FILE), .parse = topo_rates_parse, .print = topo_rates_print},
    {KEY("nvlink_efficiency", SCHEMA_FRACTION_POS, TOP(nvlink_efficiency), "0.83", NULL,
         "docs/validation.md: NCCL gets ~370 of 450 GB/s (protocol overhead ~20%; "
         "nccl-tests issue 212, nccl issue 2140)")},
    {KEY("nvls_rate", SCHEMA_RATE, TOP(nvls_rate_bps), "2200Gbps", NULL,
         "docs/validation.md: NVSwitch NVLS reduction, algbw ~275 GB/s on 8xH100 "
         "(nccl-tests issue 212, nccl issue 2140)")},
    {KEY("single_switch", SCHEMA_MAP, 0, NULL, NULL, NULL), .flags = SCHEMA_ALIAS,
     .only = M(TOPO_SINGLE_SWITCH), .sub = &SS_BLOCK},
    {KEY("leaf_spine", SCHEMA_MAP, 0, NULL, NULL, NULL), .flags = SCHEMA_ALIAS,
     .only = M(TOPO_LEAF_SPINE), .sub = &LS_BLOCK},
    {KEY("fat_tree", SCHEMA_MAP, 0, NULL, NULL, NULL), .flags = SCHEMA_ALIAS,
     .only = M(TOPO_FAT_TREE), .sub = &FT_BLOCK},
    {KEY("ring", SCHEMA_MAP, 0, NULL, NULL, NULL), .flags = SCHEMA_ALIAS, .only = M(TOPO_RING),
     .sub = &RING_BLOCK},
    {KEY("rail_optimized", SCHEMA_MAP, 0, NULL, NULL, NULL), .flags = SCHEMA_ALIAS,
     .only = M(TOPO_RAIL_OPTIMIZED), .sub = &RAIL_BLOCK},
};
static const struct schema_table TOPOLOGY = {
    TABLE("topology", TOPO_KEYS),
    .mode_of = topo_mode,
    .mode_what = "topology kind",
    .mode_names = TOPO_NAMES,
    .alt_modes = M(TOPO_RAIL_OPTIMIZED),
    .infer = topo_infer,
    .check = topo_check,
};

/* workload: flows --------------------------------------------------------- */

static int flow_check(struct schema_ctx *c, const struct yaml_node *map,
                      const struct yaml_node *here, void *obj) {
    const struct wl_flow *f = obj;
    if (f->src == f->dst)
        return schema_fail(c, at(map, here, "dst"), FS_EINVAL,
                           "src and dst are both h%u; a flow needs two different hosts", f->src);
    return 0;
}

#define FLO(f) offsetof(struct wl_flow, f)
static const struct schema_key FLOW_KEYS[] = {
    {KEY("src", SCHEMA_HOST, FLO(src), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED},
    {KEY("dst", SCHEMA_HOST, FLO(dst), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED},
    {KEY("size", SCHEMA_SIZE, FLO(size_bytes), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .min = 1},
    {KEY("start", SCHEMA_TIME, FLO(start_ps), "0", NULL,
         "SPEC.md: time 0 unless `start` (relative to the entry's start)")},
};
static const struct schema_table FLOW_TABLE = {TABLE("flow", FLOW_KEYS), .check = flow_check,
                                               .flow = true};

/* workload entries -------------------------------------------------------- */

static bool is_coll(enum wl_kind k) {
    return (WL_COLL >> k) & 1u;
}

/* `size`: one size, or for collectives also a list of sizes (a sweep). */
static int wl_size_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    if (n && n->type == YAML_SEQ) {
        if (!is_coll(w->kind))
            return schema_fail(c, n, FS_EINVAL,
                               "a list of sizes is only for collectives (allreduce, allgather, "
                               "reducescatter, broadcast); give one size");
        if (n->nitems == 0) return schema_fail(c, n, FS_EINVAL, "the list of sizes is empty");
        w->sizes = fs_xcalloc(n->nitems, sizeof *w->sizes);
        w->nsizes = n->nitems;
        for (size_t i = 0; i < n->nitems; i++) {
            int rc = schema_number(c, SCHEMA_SIZE, n->items[i], 1, 0, &w->sizes[i]);
            if (rc) return rc;
        }
        w->size_bytes = w->sizes[0];
        return 0;
    }
    int rc = schema_number(c, SCHEMA_SIZE, n, 1, 0, &w->size_bytes);
    if (!rc && is_coll(w->kind)) {
        w->sizes = fs_xcalloc(1, sizeof *w->sizes);
        w->sizes[0] = w->size_bytes;
        w->nsizes = 1;
    }
    return rc;
}

static void wl_size_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct wl_entry *w = obj;
    if (w->nsizes <= 1) {
        print_size(f, w->size_bytes);
        return;
    }
    fputc('[', f);
    for (size_t i = 0; i < w->nsizes; i++) {
        if (i) fputs(", ", f);
        print_size(f, w->sizes[i]);
    }
    fputc(']', f);
}

/* `senders`: a list of hosts, or a count resolved in wl_check once the
 * receiver is known (kept meanwhile as nsenders with senders == NULL). */
static int senders_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    if (n && n->type == YAML_SEQ) {
        if (n->nitems == 0) return schema_fail(c, n, FS_EINVAL, "the list of senders is empty");
        w->senders = fs_xcalloc(n->nitems, sizeof *w->senders);
        w->nsenders = n->nitems;
        for (size_t i = 0; i < n->nitems; i++) {
            bool gpu;
            int rc = schema_host(c, n->items[i], false, &w->senders[i], &gpu);
            if (rc) return rc;
        }
        return 0;
    }
    if (n && n->type == YAML_MAP)
        return schema_fail(c, n, FS_EINVAL,
                           "expected a list of hosts such as [h1, h2] or a count, got a mapping");
    uint64_t count;
    int rc = schema_number(c, SCHEMA_U32, n, 1, MAX_HOSTS, &count);
    if (!rc) w->nsenders = (size_t)count;
    return rc;
}

/* The first `count` hosts other than the receiver: what a count means. */
static bool senders_are_first(const struct wl_entry *w) {
    uint32_t h = 0;
    for (size_t i = 0; i < w->nsenders; i++, h++) {
        if (h == w->receiver) h++;
        if (w->senders[i] != h) return false;
    }
    return true;
}

static void senders_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct wl_entry *w = obj;
    if (senders_are_first(w)) {
        fprintf(f, "%zu", w->nsenders);
        return;
    }
    fputc('[', f);
    for (size_t i = 0; i < w->nsenders; i++)
        fprintf(f, "%sh%u", i ? ", " : "", w->senders[i]);
    fputc(']', f);
}

static int packet_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    w->exponential = false;
    return schema_number(c, SCHEMA_SIZE, n, 1, 0, &w->packet_bytes);
}

static int mean_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    if (w->packet_bytes)
        return schema_fail(c, n, FS_EINVAL,
                           "give 'packet' (fixed size) or 'mean' (exponential sizes), not both");
    w->exponential = true;
    return schema_number(c, SCHEMA_SIZE, n, 1, 0, &w->packet_bytes);
}

static void packet_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_size(f, ((const struct wl_entry *)obj)->packet_bytes);
}
static bool packet_shown(const void *obj) {
    return !((const struct wl_entry *)obj)->exponential;
}
static bool mean_shown(const void *obj) {
    return ((const struct wl_entry *)obj)->exponential;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* `ranks`: all | gpus | [h0, h1, ...] | [h0.g0, h0.g1, ...]. */
static int ranks_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    w->ranks_all = w->ranks_gpus = false;
    if (n && n->type == YAML_SCALAR && !yaml_is_null(n)) {
        if (!strcmp(n->text, "all"))
            w->ranks_all = true;
        else if (!strcmp(n->text, "gpus"))
            w->ranks_gpus = true;
        else
            return schema_fail(c, n, FS_EINVAL,
                               "expected all, gpus or a list of hosts such as [h0, h1], got "
                               "'%.64s'",
                               n->text);
        return 0;
    }
    if (!n || n->type != YAML_SEQ)
        return schema_fail(c, n, FS_EINVAL,
                           "expected all, gpus or a list of hosts such as [h0, h1], got %s",
                           yaml_describe(n));
    if (n->nitems < 2)
        return schema_fail(c, n, FS_EINVAL, "a collective needs at least 2 ranks, got %zu",
                           n->nitems);
    w->ranks = fs_xcalloc(n->nitems, sizeof *w->ranks);
    w->nranks = n->nitems;
    for (size_t i = 0; i < n->nitems; i++) {
        bool gpu;
        int rc = schema_host(c, n->items[i], true, &w->ranks[i], &gpu);
        if (rc) return rc;
        if (i == 0)
            w->ranks_are_gpu_ids = gpu;
        else if (gpu != w->ranks_are_gpu_ids)
            return schema_fail(c, n->items[i], FS_EINVAL,
                               "mixes host and GPU names; list only hosts (h1) or only GPUs "
                               "(h1.g0)");
    }
    /* Sort a copy to find a repeated rank in O(n log n). */
    uint32_t *sorted = fs_xmalloc(n->nitems * sizeof *sorted);
    memcpy(sorted, w->ranks, n->nitems * sizeof *sorted);
    qsort(sorted, n->nitems, sizeof *sorted, cmp_u32);
    size_t dup = SIZE_MAX;
    for (size_t i = 1; i < n->nitems && dup == SIZE_MAX; i++)
        if (sorted[i] == sorted[i - 1]) dup = i;
    uint32_t value = dup != SIZE_MAX ? sorted[dup] : 0;
    free(sorted);
    if (dup != SIZE_MAX) {
        bool seen = false;
        for (size_t i = 0; i < n->nitems; i++) {
            if (w->ranks[i] != value) continue;
            if (seen)
                return schema_fail(c, n->items[i], FS_EINVAL,
                                   "'%.64s' is listed twice; a rank joins a communicator once",
                                   n->items[i]->text);
            seen = true;
        }
    }
    return 0;
}

static void ranks_print(FILE *f, const void *obj, const struct scenario *sc) {
    const struct wl_entry *w = obj;
    if (w->ranks_all) {
        fputs("all", f);
        return;
    }
    if (w->ranks_gpus) {
        fputs("gpus", f);
        return;
    }
    uint32_t g = sc->topo.gpus_per_host ? sc->topo.gpus_per_host : 1;
    fputc('[', f);
    for (size_t i = 0; i < w->nranks; i++) {
        fputs(i ? ", " : "", f);
        if (w->ranks_are_gpu_ids)
            fprintf(f, "h%u.g%u", w->ranks[i] / g, w->ranks[i] % g);
        else
            fprintf(f, "h%u", w->ranks[i]);
    }
    fputc(']', f);
}

static int wl_mode(const void *obj) {
    return ((const struct wl_entry *)obj)->kind;
}

/* workload: the user's own (docs/inputs.md) ------------------------------- */

/* nccl-tests binaries by their op name (all_reduce_perf ...) and the
 * collective each one calls. alltoall_perf runs point-to-point exchanges. */
static const char *const NCCL_OPS[] = {"all_reduce", "all_gather", "reduce_scatter",
                                       "broadcast",  "alltoall",   NULL};
static const enum wl_kind NCCL_OP_KINDS[] = {WL_ALLREDUCE, WL_ALLGATHER, WL_REDUCESCATTER,
                                             WL_BROADCAST, WL_ALLTOALL};

static int nccl_op_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    const char *s;
    int rc = schema_text(c, n, "an nccl-tests op such as all_reduce", &s);
    if (rc) return rc;
    for (size_t i = 0; NCCL_OPS[i]; i++)
        if (!strcmp(s, NCCL_OPS[i])) {
            w->nccl_op = NCCL_OP_KINDS[i];
            return 0;
        }
    char hint[96] = "";
    schema_suggest(hint, sizeof hint, s, NCCL_OPS, N(NCCL_OPS) - 1);
    return schema_fail(c, n, FS_EINVAL,
                       "'%.64s' is not an nccl-tests op; allowed: all_reduce, all_gather, "
                       "reduce_scatter, broadcast, alltoall%s",
                       s, hint);
}

static void nccl_op_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct wl_entry *w = obj;
    for (size_t i = 0; NCCL_OPS[i]; i++)
        if (NCCL_OP_KINDS[i] == w->nccl_op) fputs(NCCL_OPS[i], f);
}

/* nccl-tests sizes: a number with K, M or G means KiB, MiB, GiB (nccl-tests
 * parsesize multiplies by 1024); anything else is a fabsim size (8MiB, 1GB). */
static int nccl_size(struct schema_ctx *c, const struct yaml_node *n, uint64_t *out) {
    if (n && n->type == YAML_SCALAR && n->text[0] >= '0' && n->text[0] <= '9') {
        size_t len = strlen(n->text);
        char u = n->text[len - 1];
        const char *bin = u == 'K' ? "KiB" : u == 'M' ? "MiB" : u == 'G' ? "GiB" : NULL;
        if (bin && len < 40) {
            char buf[48];
            snprintf(buf, sizeof buf, "%.*s%s", (int)(len - 1), n->text, bin);
            struct yaml_node tmp = *n;
            tmp.text = buf;
            tmp.len = strlen(buf);
            return schema_number(c, SCHEMA_SIZE, &tmp, 1, 0, out);
        }
    }
    return schema_number(c, SCHEMA_SIZE, n, 1, 0, out);
}
static int nt_min_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return nccl_size(c, n, &((struct wl_entry *)obj)->min_bytes);
}
static int nt_max_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return nccl_size(c, n, &((struct wl_entry *)obj)->max_bytes);
}
static int nt_step_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return nccl_size(c, n, &((struct wl_entry *)obj)->step_bytes);
}
static void nt_min_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_size(f, ((const struct wl_entry *)obj)->min_bytes);
}
static void nt_max_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_size(f, ((const struct wl_entry *)obj)->max_bytes);
}
static void nt_step_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_size(f, ((const struct wl_entry *)obj)->step_bytes);
}

/* A path in the scenario is relative to the scenario file's folder; kept
 * absolute when it exists, so that `validate --explain` prints a path that
 * reads back from anywhere. */
static char *path_near(const char *scenario_file, const char *p) {
    const char *slash = strrchr(scenario_file, '/');
    char *r;
    if (p[0] == '/' || !slash) {
        r = fs_xstrdup(p);
    } else {
        size_t dl = (size_t)(slash - scenario_file) + 1, pl = strlen(p);
        r = fs_xmalloc(dl + pl + 1);
        memcpy(r, scenario_file, dl);
        memcpy(r + dl, p, pl + 1);
    }
    char *abs = realpath(r, NULL);
    if (!abs) return r;
    free(r);
    return abs;
}

static int wl_path_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    const char *s;
    int rc = schema_text(c, n, "a folder of Chakra trace files", &s);
    if (rc) return rc;
    if (!s[0]) return schema_fail(c, n, FS_EINVAL, "must not be empty");
    free(w->path);
    w->path = path_near(c->file, s);
    return 0;
}

static void wl_path_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_string(f, ((const struct wl_entry *)obj)->path);
}

/* The nccl-tests sweep: sizes min, min*step (or min+step_bytes), ... up to
 * max (nccl-tests common.cu: the same loop), each a whole number of floats.
 * Expanded into the job's call sequence: `warmup` calls at max, then per
 * size `iters` out-of-place and `iters` in-place calls. */
#define NCCL_MAX_CALLS (1u << 20)
static int nccl_tests_check(struct schema_ctx *c, const struct yaml_node *map,
                            const struct yaml_node *here, struct wl_entry *w) {
    if (w->min_bytes > w->max_bytes)
        return schema_fail(c, at(map, here, "max"), FS_EINVAL,
                           "max (%llu B) is below min (%llu B); nccl-tests -e must be >= -b",
                           (unsigned long long)w->max_bytes, (unsigned long long)w->min_bytes);
    uint64_t nsizes = 0;
    for (uint64_t s = w->min_bytes; s <= w->max_bytes;) {
        nsizes++;
        uint64_t next = w->step_factor > 1 ? s * w->step_factor : s + w->step_bytes;
        if (next <= s || nsizes > 4096) break;
        s = next;
    }
    uint64_t calls = w->warmup + nsizes * 2 * w->iters;
    if (nsizes > 4096 || calls > NCCL_MAX_CALLS)
        return schema_fail(c, here, FS_ERANGE,
                           "this sweep makes %llu sizes and %llu calls; at most 4096 sizes and "
                           "%u calls (raise step or lower iters)",
                           (unsigned long long)nsizes, (unsigned long long)calls, NCCL_MAX_CALLS);
    free(w->sizes);
    w->sizes = fs_xcalloc((size_t)calls, sizeof *w->sizes);
    w->nsizes = (size_t)calls;
    size_t k = 0;
    uint64_t maxf = w->max_bytes / 4 * 4;
    for (uint32_t i = 0; i < w->warmup; i++)
        w->sizes[k++] = maxf ? maxf : 4;
    for (uint64_t s = w->min_bytes, i = 0; i < nsizes; i++) {
        uint64_t f = s / 4 * 4; /* whole floats (nccl-tests -d float) */
        for (uint32_t r = 0; r < 2 * w->iters; r++)
            w->sizes[k++] = f ? f : 4;
        s = w->step_factor > 1 ? s * w->step_factor : s + w->step_bytes;
    }
    w->size_bytes = w->sizes[0];
    w->repeat = 1;
    return 0;
}

static int inputs_check(struct schema_ctx *c, const struct yaml_node *map,
                        const struct yaml_node *here, struct wl_entry *w) {
    if (w->kind == WL_NCCL_TESTS) return nccl_tests_check(c, map, here, w);
    if (w->jobs > 1)
        return schema_fail(c, at(map, here, "jobs"), FS_EINVAL,
                           "a Chakra trace is one job (its ranks are the trace files); jobs: 1");
    return 0;
}

static int wl_check(struct schema_ctx *c, const struct yaml_node *map, const struct yaml_node *here,
                    void *obj) {
    struct wl_entry *w = obj;
    if ((WL_INPUTS >> w->kind) & 1u) return inputs_check(c, map, here, w);
    uint32_t hosts = scenario_host_count(&c->sc->topo);
    if (w->kind == WL_PERMUTATION && w->pattern == PERM_SHIFT && w->shift % hosts == 0)
        return schema_fail(c, at(map, here, "shift"), FS_EINVAL,
                           "shift %u sends every host to itself on this %u-host fabric; use a "
                           "shift that is not a multiple of %u",
                           w->shift, hosts, hosts);
    if (w->kind == WL_INCAST || w->kind == WL_POISSON) {
        const struct yaml_node *sn = yaml_map_get(map, "senders");
        if (!w->senders) {
            if (w->nsenders > (size_t)hosts - 1)
                return schema_fail(c, sn ? sn : here, FS_EINVAL,
                                   "%zu senders asked for, but this fabric has only %u hosts "
                                   "besides the receiver h%u",
                                   w->nsenders, hosts - 1, w->receiver);
            w->senders = fs_xcalloc(w->nsenders, sizeof *w->senders);
            uint32_t h = 0;
            for (size_t i = 0; i < w->nsenders; i++, h++) {
                if (h == w->receiver) h++;
                w->senders[i] = h;
            }
        }
        for (size_t i = 0; i < w->nsenders; i++) {
            if (w->senders[i] != w->receiver) continue;
            const struct yaml_node *item =
                sn && sn->type == YAML_SEQ && i < sn->nitems ? sn->items[i] : sn;
            return schema_fail(c, item ? item : here, FS_EINVAL,
                               "the receiver h%u is also listed as a sender", w->receiver);
        }
    }
    if (w->kind == WL_POISSON && !w->packet_bytes)
        return schema_fail(c, here, FS_EINVAL,
                           "missing 'packet' (fixed packet size) or 'mean' (exponential sizes) "
                           "in this poisson entry");
    return 0;
}

#define WLE(f) offsetof(struct wl_entry, f)

/* docs/inputs.md: nccl-tests flags -b -e -f -i -n -w, with nccl-tests'
 * defaults except iters and warmup (a model has no noise to average). */
#define INPUT_KEYS                                                                                 \
    {KEY("op", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,                      \
     .only = M(WL_NCCL_TESTS), .parse = nccl_op_parse, .print = nccl_op_print},                    \
        {KEY("min", SCHEMA_CUSTOM, 0, "32MiB", NULL, "nccl-tests -b default 32M"),                 \
         .only = M(WL_NCCL_TESTS), .parse = nt_min_parse, .print = nt_min_print},                  \
        {KEY("max", SCHEMA_CUSTOM, 0, "32MiB", NULL, "nccl-tests -e default 32M"),                 \
         .only = M(WL_NCCL_TESTS), .parse = nt_max_parse, .print = nt_max_print},                  \
        {KEY("step", SCHEMA_U32, WLE(step_factor), "1", NULL,                                      \
             "nccl-tests -f default 1 (then sizes grow by step_bytes)"),                           \
         .min = 1, .max = 1024, .only = M(WL_NCCL_TESTS)},                                         \
        {KEY("step_bytes", SCHEMA_CUSTOM, 0, "1MiB", NULL, "nccl-tests -i default 1M"),            \
         .only = M(WL_NCCL_TESTS), .parse = nt_step_parse, .print = nt_step_print},                \
        {KEY("iters", SCHEMA_U32, WLE(iters), "1", NULL,                                           \
             "docs/inputs.md: 1 (nccl-tests -n 20 averages noise a model does not have)"),         \
         .min = 1, .max = 1000, .only = M(WL_NCCL_TESTS)},                                         \
        {KEY("warmup", SCHEMA_U32, WLE(warmup), "0", NULL,                                         \
             "docs/inputs.md: 0 (nccl-tests -w 5 warms caches a model does not have)"),            \
         .max = 1000, .only = M(WL_NCCL_TESTS)},                                                   \
    {                                                                                              \
        KEY("path", SCHEMA_CUSTOM, 0, NULL, NULL, NULL),                                           \
            .flags = SCHEMA_REQUIRED, .only = M(WL_CHAKRA), .parse = wl_path_parse,                \
            .print = wl_path_print                                                                 \
    }
#define SIZED (M(WL_PERMUTATION) | M(WL_INCAST) | M(WL_ALLTOALL) | WL_COLL | M(WL_TRAINING))
static const struct schema_key WORKLOAD_KEYS[] = {
    {KEY("kind", SCHEMA_ENUM, WLE(kind), NULL, NULL, NULL),
     .flags = SCHEMA_SELECTOR | SCHEMA_REQUIRED, .names = WL_NAMES},
    {KEY("start", SCHEMA_TIME, WLE(start_ps), "0", NULL, "SPEC.md: all start at time 0")},
    {KEY("size", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED, .only = SIZED,
     .parse = wl_size_parse, .print = wl_size_print},
    {KEY("flows", SCHEMA_LIST, WLE(flows), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(WL_FLOWS), .sub = &FLOW_TABLE, .off_n = WLE(nflows),
     .elem_size = sizeof(struct wl_flow)},
    {KEY("pattern", SCHEMA_ENUM, WLE(pattern), "shift", NULL, "SPEC.md example"),
     .only = M(WL_PERMUTATION), .names = PERM_NAMES},
    {KEY("shift", SCHEMA_U32, WLE(shift), "4", NULL, "SPEC.md example"), .min = 1,
     .only = M(WL_PERMUTATION)},
    {KEY("senders", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(WL_INCAST) | M(WL_POISSON), .parse = senders_parse, .print = senders_print},
    {KEY("receiver", SCHEMA_HOST, WLE(receiver), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(WL_INCAST) | M(WL_POISSON)},
    {KEY("load", SCHEMA_FRACTION_POS, WLE(load), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(WL_POISSON)},
    {KEY("packet", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .only = M(WL_POISSON),
     .parse = packet_parse, .print = packet_print, .show = packet_shown},
    {KEY("mean", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .only = M(WL_POISSON), .parse = mean_parse,
     .print = packet_print, .show = mean_shown},
    {KEY("duration", SCHEMA_TIME, WLE(duration_ps), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .min = 1, .only = M(WL_POISSON)},
    {KEY("priority", SCHEMA_U32, WLE(priority), "0", NULL,
         "docs/scenario.md: one traffic class unless asked"),
     .max = NET_NCLASS - 1},
    {KEY("ranks", SCHEMA_CUSTOM, 0, "all", NULL, "SPEC.md example"), .only = WL_ENGINE,
     .parse = ranks_parse, .print = ranks_print},
    {KEY("algorithm", SCHEMA_ENUM, WLE(algorithm), "ring", NULL, "SPEC.md example"),
     .only = WL_COLL | WL_INPUTS, .names = ALGO_NAMES},
    {KEY("jobs", SCHEMA_U32, WLE(jobs), "1", NULL, "SPEC.md example"), .min = 1, .max = 1u << 16,
     .only = WL_ENGINE},
    {KEY("repeat", SCHEMA_U32, WLE(repeat), "1", NULL, "SPEC.md example"), .min = 1,
     .max = 1u << 20, .only = WL_COLL},
    {KEY("channels", SCHEMA_U32, WLE(channels), "2", NULL,
         "docs/model.md: NCCL's usual 2 channels per NIC"),
     .min = 1, .max = 64, .only = WL_ENGINE},
    {KEY("protocol", SCHEMA_ENUM, WLE(protocol), "auto", NULL,
         "domain.md B: NCCL picks LL / LL128 / Simple per size (NCCL_PROTO unset)"),
     .only = WL_ENGINE, .names = PROTO_NAMES},
    {KEY("slice", SCHEMA_SIZE, WLE(slice_bytes), "512KiB", NULL,
         "domain.md B: NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8"),
     .min = 1, .only = WL_ENGINE},
    {KEY("step_overhead", SCHEMA_TIME, WLE(step_overhead_ps), "1us", NULL,
         "domain.md B: NCCL net post overhead"),
     .min = 1, .only = WL_ENGINE},
    {KEY("host_rate", SCHEMA_RATE, WLE(host_rate_bps), "0", NULL,
         "docs/model.md: 0 = GPU reduces in the copy kernel (NCCL); MPI hosts: calibrated "
         "to domain.md V12"),
     .only = WL_ENGINE},
    {KEY("iterations", SCHEMA_U32, WLE(iterations), "3", "1",
         "docs/scenario.md; chakra: one pass over the trace (docs/inputs.md)"),
     .min = 1, .max = 1u << 20, .only = M(WL_TRAINING) | M(WL_CHAKRA)},
    {KEY("forward", SCHEMA_TIME, WLE(forward_ps), "0", NULL,
         "docs/scenario.md: 0 = no compute (communication only)"),
     .only = M(WL_TRAINING)},
    {KEY("backward", SCHEMA_TIME, WLE(backward_ps), "0", NULL,
         "docs/scenario.md: 0 = no compute (communication only)"),
     .only = M(WL_TRAINING)},
    {KEY("bucket", SCHEMA_SIZE, WLE(bucket_bytes), "25MiB", NULL,
         "docs/model.md: PyTorch DDP bucket_cap_mb = 25"),
     .min = 1, .only = M(WL_TRAINING)},
    INPUT_KEYS};
static const struct schema_table WORKLOAD = {
    TABLE("workload entry", WORKLOAD_KEYS),
    .mode_of = wl_mode,
    .mode_what = "workload kind",
    .mode_names = WL_NAMES,
    .check = wl_check,
    .has_pos = true,
    .pos_off = WLE(pos),
    .alt_modes = M(WL_CHAKRA),
};

/* events ------------------------------------------------------------------ */

/* A link is named by its ends ("leaf1-spine2", "leaf1->spine2#1"); the
 * model resolves the name against the built topology, so only its form is
 * checked here. */
static int link_target_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct sc_event *e = obj;
    const char *s;
    int rc = schema_text(c, n, "a link name such as leaf1-spine2", &s);
    if (rc) return rc;
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p <= ' ')
            return schema_fail(c, n, FS_EINVAL,
                               "'%.64s' is not a link name; links are named by their ends, such "
                               "as leaf1-spine2",
                               s);
    if (!s[0] || !strchr(s, '-'))
        return schema_fail(c, n, FS_EINVAL,
                           "'%.64s' is not a link name; links are named by their ends, such as "
                           "leaf1-spine2",
                           s);
    free(e->target);
    e->target = fs_xstrdup(s);
    return 0;
}

static int host_target_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct sc_event *e = obj;
    uint32_t h;
    bool gpu;
    int rc = schema_host(c, n, false, &h, &gpu);
    if (rc) return rc;
    char buf[16];
    snprintf(buf, sizeof buf, "h%u", h);
    free(e->target);
    e->target = fs_xstrdup(buf);
    return 0;
}

static void target_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_string(f, ((const struct sc_event *)obj)->target);
}

static int ev_mode(const void *obj) {
    return ((const struct sc_event *)obj)->kind;
}

/* The action key present (exactly one) is the event's kind. */
static int ev_infer(struct schema_ctx *c, const struct yaml_node *map, const struct yaml_node *here,
                    void *obj) {
    struct sc_event *e = obj;
    int kind = -1;
    for (int k = 0; EV_NAMES[k]; k++) {
        const struct yaml_node *key = key_node(map, EV_NAMES[k]);
        if (!key) continue;
        if (kind >= 0)
            return schema_fail(c, key, FS_EINVAL,
                               "an event does one thing; it has both '%s' and '%s'", EV_NAMES[kind],
                               EV_NAMES[k]);
        kind = k;
    }
    if (kind < 0)
        return schema_fail(c, here, FS_EINVAL,
                           "an event needs one of: link_down, link_up, host_stall, link_gray, "
                           "link_flap, link_ber");
    e->kind = (enum ev_kind)kind;
    return 1;
}

#define EVT(f) offsetof(struct sc_event, f)
static const struct schema_key EVENT_KEYS[] = {
    {KEY("at", SCHEMA_TIME, EVT(at_ps), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED},
    {KEY("link_down", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_LINK_DOWN), .parse = link_target_parse, .print = target_print},
    {KEY("link_up", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_LINK_UP), .parse = link_target_parse, .print = target_print},
    {KEY("host_stall", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_HOST_STALL), .parse = host_target_parse, .print = target_print},
    {KEY("for", SCHEMA_TIME, EVT(for_ps), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED, .min = 1,
     .only = M(EV_HOST_STALL)},
    {KEY("link_gray", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_LINK_GRAY), .parse = link_target_parse, .print = target_print},
    {KEY("drop", SCHEMA_FRACTION_POS, EVT(drop), "1", NULL,
         "docs/scenario.md: a gray link drops every packet unless given"),
     .only = M(EV_LINK_GRAY)},
    {KEY("link_flap", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_LINK_FLAP), .parse = link_target_parse, .print = target_print},
    {KEY("down", SCHEMA_TIME, EVT(down_ps), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED, .min = 1,
     .only = M(EV_LINK_FLAP)},
    {KEY("up", SCHEMA_TIME, EVT(up_ps), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED, .min = 1,
     .only = M(EV_LINK_FLAP)},
    {KEY("count", SCHEMA_U32, EVT(count), "1", NULL, "docs/scenario.md: one down/up cycle"),
     .min = 1, .max = 10000, .only = M(EV_LINK_FLAP)},
    {KEY("link_ber", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_LINK_BER), .parse = link_target_parse, .print = target_print},
    {KEY("ber", SCHEMA_FRACTION, EVT(ber), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(EV_LINK_BER)},
};
static const struct schema_table EVENTS = {
    TABLE("event", EVENT_KEYS),
    .mode_of = ev_mode,
    .mode_what = "event kind",
    .mode_names = EV_NAMES,
    .infer = ev_infer,
    .flow = true,
    .has_pos = true,
    .pos_off = EVT(pos),
};

/* the scenario ------------------------------------------------------------ */

/* The name becomes a folder under out/, so it must be one path component. */
static int name_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct scenario *sc = obj;
    const char *s;
    int rc = schema_text(c, n, "a name such as incast-ib", &s);
    if (rc) return rc;
    bool ok = s[0] && strcmp(s, ".") && strcmp(s, "..") && strlen(s) <= 200;
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == '/' || *p == '\\' || *p == 0x7f) ok = false;
    if (!ok)
        return schema_fail(c, n, FS_EINVAL,
                           "'%.64s' cannot be a name: it names the output folder, so it must be "
                           "1-200 characters without '/', '\\' or control characters",
                           s);
    free(sc->name);
    sc->name = fs_xstrdup(s);
    return 0;
}

static void name_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_string(f, ((const struct scenario *)obj)->name);
}

/* SPEC.md: the name defaults to the file's name without .yaml or .yml. */
static int scenario_check(struct schema_ctx *c, const struct yaml_node *map,
                          const struct yaml_node *here, void *obj) {
    (void)map, (void)here;
    struct scenario *sc = obj;
    if (sc->name) return 0;
    const char *base = strrchr(c->file, '/');
    base = base ? base + 1 : c->file;
    size_t len = strlen(base);
    if (len > 5 && !strcmp(base + len - 5, ".yaml"))
        len -= 5;
    else if (len > 4 && !strcmp(base + len - 4, ".yml"))
        len -= 4;
    /* "...yaml" would name the folder ".." (the working directory's parent
     * under out/, the working directory itself with -o out/..). */
    if (len == 0 || (len <= 2 && !strncmp(base, "..", len))) {
        sc->name = fs_xstrdup("scenario");
        return 0;
    }
    sc->name = fs_xmalloc(len + 1);
    memcpy(sc->name, base, len);
    sc->name[len] = 0;
    return 0;
}

#define SCN(f) offsetof(struct scenario, f)
static const struct schema_key SCENARIO_KEYS[] = {
    {KEY("name", SCHEMA_CUSTOM, 0, NULL, NULL, "SPEC.md: the file name without .yaml"),
     .parse = name_parse, .print = name_print},
    {KEY("seed", SCHEMA_U64, SCN(seed), "1", NULL, "SPEC.md example")},
    {KEY("stop", SCHEMA_TIME, SCN(stop_ps), "0", NULL,
         "SPEC.md: 0 = until the workload completes (capped at 1 s)")},
    {KEY("fabric", SCHEMA_MAP, SCN(fabric), NULL, NULL, NULL), .sub = &FABRIC},
    {KEY("topology", SCHEMA_MAP, SCN(topo), NULL, NULL, NULL), .sub = &TOPOLOGY},
    {KEY("workload", SCHEMA_LIST, SCN(workload), NULL, NULL, "SPEC.md: no traffic"),
     .sub = &WORKLOAD, .off_n = SCN(nworkload), .elem_size = sizeof(struct wl_entry)},
    {KEY("events", SCHEMA_LIST, SCN(events), NULL, NULL, "none"), .sub = &EVENTS,
     .off_n = SCN(nevents), .elem_size = sizeof(struct sc_event)},
    {KEY("output", SCHEMA_MAP, SCN(output), NULL, NULL, NULL), .sub = &OUTPUT},
};
const struct schema_table SCHEMA_SCENARIO = {TABLE("scenario", SCENARIO_KEYS),
                                             .check = scenario_check};

/* loading ----------------------------------------------------------------- */

static int load(struct scenario *sc, struct yaml_doc *doc, const char *const *sets, size_t nsets,
                struct diag *d) {
    int rc = 0;
    if (!doc->root || yaml_is_null(doc->root))
        rc = diag_set(d, sc->file, (struct srcpos){1, 1}, FS_EINVAL,
                      "empty scenario file; expected a mapping with at least one key such as "
                      "'topology:' or 'workload:' (write '{}' to take every default)");
    for (size_t i = 0; !rc && i < nsets; i++)
        rc = yaml_set(doc, sets[i], (unsigned)(i + 1), d);
    if (!rc && doc->root->type != YAML_MAP)
        rc = diag_set(d, doc->root->file, doc->root->pos, FS_EINVAL,
                      "a scenario is a mapping of keys (name, seed, stop, fabric, topology, "
                      "workload, events, output), got %s",
                      yaml_describe(doc->root));
    if (!rc) {
        struct schema_ctx c;
        memset(&c, 0, sizeof c);
        c.d = d;
        c.sc = sc;
        c.file = sc->file;
        rc = schema_read(&c, &SCHEMA_SCENARIO, doc->root, sc, false, doc->root);
    }
    if (!rc) rc = scenario_check_limits(sc, d); /* config/limits.h */
    yaml_doc_fini(doc);
    if (rc) scenario_fini(sc);
    return rc;
}

int scenario_load(struct scenario *sc, const char *path, const char *const *sets, size_t nsets,
                  struct diag *d) {
    memset(sc, 0, sizeof *sc);
    if (d) memset(d, 0, sizeof *d);
    struct yaml_doc doc;
    int rc = yaml_load_file(&doc, path, d);
    if (rc) return rc;
    sc->file = fs_xstrdup(path);
    return load(sc, &doc, sets, nsets, d);
}

int scenario_load_string(struct scenario *sc, const char *text, const char *name_for_errors,
                         const char *const *sets, size_t nsets, struct diag *d) {
    memset(sc, 0, sizeof *sc);
    if (d) memset(d, 0, sizeof *d);
    const char *name = name_for_errors ? name_for_errors : "<string>";
    struct yaml_doc doc;
    int rc = yaml_load_string(&doc, text ? text : "", text ? strlen(text) : 0, name, d);
    if (rc) return rc;
    sc->file = fs_xstrdup(name);
    return load(sc, &doc, sets, nsets, d);
}

void scenario_fini(struct scenario *sc) {
    for (size_t i = 0; i < sc->nworkload; i++) {
        struct wl_entry *w = &sc->workload[i];
        free(w->flows);
        free(w->senders);
        free(w->sizes);
        free(w->ranks);
        free(w->path);
    }
    free(sc->workload);
    for (size_t i = 0; i < sc->nevents; i++)
        free(sc->events[i].target);
    free(sc->events);
    free(sc->fabric.lft_file);
    free(sc->topo.file_path);
    if (sc->topo.file) tfile_free(sc->topo.file);
    free(sc->topo.file);
    free(sc->name);
    free(sc->file);
    memset(sc, 0, sizeof *sc);
}

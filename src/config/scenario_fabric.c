/* src/config/scenario_fabric.c
 *
 * The scenario's `fabric:` mapping as schema tables: link, switch and
 * buffer keys, the IB link layer (VLs, credits, VLArb, HOQ lifetimes),
 * fabric.transport and fabric.control_plane, and the rules that tie them
 * together; its pfc/ecn/dcqcn/ibcc tables are in scenario_congestion.c
 * (how to add a key: config/scenario.c).
 */
#include "config/scenario.h"

#include "config/scenario_int.h"
#include "cc/cc.h"
#include "core/mem.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

/* Propagation in fibre and copper, 5 ns/m = 5 ps/mm (SPEC.md, docs/sources.md A2). */
#define PROPAGATION_PS_PER_MM 5u

static const char *const FABRIC_KINDS[] = {"infiniband", "roce", "uet", NULL};
static const char *const FLOWCTL_NAMES[] = {"credit", "pfc", "none", "cbfc", NULL};
static const char *const LINK_RETRY_NAMES[] = {"none", "llr", NULL};
static const char *const ROUTING_NAMES[] = {"static", "adaptive", "ecmp", "spray", NULL};
static const char *const ENGINE_NAMES[] = {"minhop", "updn", "ftree", "file", NULL};
static const char *const CC_NAMES[] = {"none", "dcqcn", "ibcc",      "hpcc",   "dctcp",
                                       "nscc", "rccc",  "nscc+rccc", "timely", NULL};
static const char *const RETX_NAMES[] = {"go_back_n", "go_back_0", "selective_repeat", NULL};
static const char *const CP_NAMES[] = {"sm", "bgp", NULL};
static const char *const SHARING_NAMES[] = {"static", "shared", NULL};

/* fabric.transport, .control_plane ---------------------------------------- */

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

static const char *const RTO_NAMES[] = {"iba", "fixed", "adaptive", NULL};
static const char *const ADP_DEC_NAMES[] = {"halve", "quarter", "reset", NULL};
static const char *const OOO_NAMES[] = {"placement", "discard", "buffer", NULL};

/* The profile's timeouts are time_base x 2^g; time_base is a power of two
 * (in microseconds, the profile's time_unit) of at least the firmware's
 * minimum, 4 us (sources.md A12). */
#define ADP_BASE_MIN_PS 4000000ull
static int adp_check(struct schema_ctx *c, const struct yaml_node *map,
                     const struct yaml_node *here, void *obj) {
    const struct adp_params *a = obj;
    uint64_t us = a->time_base_ps / 1000000ull;
    if (a->time_base_ps % 1000000ull || (us & (us - 1)))
        return schema_fail(c, at(map, here, "time_base"), FS_EINVAL,
                           "time_base must be a power of two microseconds (4us, 8us, 16us, ...): "
                           "the adaptive retransmission profile's time_base (sources.md A12)");
    if (a->init_low + a->init_range - 1 > 40 || a->range_low + a->range_size > 40)
        return schema_fail(c, at(map, here, "range_size"), FS_ERANGE,
                           "timeouts beyond time_base x 2^40; exponents are at most 40");
    return 0;
}

#define ADP(f) offsetof(struct adp_params, f)
static const struct schema_key ADP_KEYS[] = {
    {KEY("time_base", SCHEMA_TIME, ADP(time_base_ps), "4us", NULL,
         "docs/sources.md A12: ConnectX firmware minimum base timeout 4 us "
         "(adp_retx_base_timeout_min "
         "0xFA0 ns); profile #0's own base is not published (C)"),
     .min = ADP_BASE_MIN_PS},
    {KEY("init_low", SCHEMA_U32, ADP(init_low), "5", NULL,
         "docs/sources.md A12: initial timeout random in [low, low + range - 1] (documented); "
         "profile #0's values are not published (C): 5 = 128 us at 4 us base"),
     .max = 40},
    {KEY("init_range", SCHEMA_U32, ADP(init_range), "2", NULL,
         "docs/sources.md A12 (C): 2 exponents, 128 or 256 us"),
     .min = 1, .max = 16},
    {KEY("range_low", SCHEMA_U32, ADP(range_low), "5", NULL,
         "docs/sources.md A12 (C): one timeout range from 128 us"),
     .max = 40},
    {KEY("range_size", SCHEMA_U32, ADP(range_size), "5", NULL,
         "docs/sources.md A12 (C): up to 2^5 x 128 us = 4.1 ms, capped by transport.timeout"),
     .max = 40},
    {KEY("retries", SCHEMA_U32, ADP(range_retries), "2", NULL,
         "docs/sources.md A12: timeout_retry_num, uses of the range's entry value before doubling "
         "(C)"),
     .min = 1, .max = 127},
    {KEY("dec", SCHEMA_ENUM, ADP(dec), "halve", NULL,
         "docs/sources.md A12: dec_mode on forward progress, halve/quarter/reset (C)"),
     .names = ADP_DEC_NAMES},
};
static const struct schema_table ADP_TABLE = {TABLE("adaptive", ADP_KEYS), .check = adp_check};

#define TRA(f) offsetof(struct transport_params, f)
static const struct schema_key TRANSPORT_KEYS[] = {
    {KEY("retransmit", SCHEMA_ENUM, TRA(retransmit), "go_back_n", NULL,
         "SPEC.md example; IBA 9.7.5 (go-back-N); ConnectX ROCE_ACCL selective_repeat_forced_en "
         "0 (docs/sources.md A12)"),
     .names = RETX_NAMES},
    {KEY("timeout", SCHEMA_CUSTOM, 0, "20", NULL,
         "docs/sources.md A10, A12: NCCL_IB_TIMEOUT 20 = 4.096 us x 2^20 = 4.29 s per retry"),
     .parse = timeout_parse, .print = timeout_print},
    {KEY("retry_cnt", SCHEMA_U32, TRA(retry_cnt), "7", NULL,
         "docs/sources.md A10, A12: NCCL_IB_RETRY_CNT 7 (IBA: 3 bits)"),
     .max = 7},
    {KEY("rto", SCHEMA_ENUM, TRA(rto), "iba", "adaptive",
         "docs/sources.md A12: IBA local ACK timeout and retry count (InfiniBand); ConnectX "
         "adaptive "
         "retransmission, on in RoCE firmware (roce_adp_retrans_en = 1); fixed = a fixed timer "
         "retried for ever (docs/model.md)"),
     .names = RTO_NAMES},
    {KEY("adaptive", SCHEMA_MAP, TRA(adp), NULL, NULL, NULL), .sub = &ADP_TABLE},
    {KEY("ack_every", SCHEMA_U32, TRA(ack_every), "1", NULL, "SPEC.md example"), .min = 1,
     .max = 1u << 16},
    {KEY("qps_per_connection", SCHEMA_U32, TRA(qps_per_connection), "1", NULL,
         "docs/sources.md B: NCCL_IB_QPS_PER_CONNECTION default 1"),
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
         "SPEC.md example (sm trap); docs/sources.md A10: BGP hold timer 9 s, the "
         "aggressive data-center timers 3/9 s (bgp; BFD: set 150ms)")},
    {KEY("smp_time", SCHEMA_TIME, CPL(smp_ps), "23600ns", NULL,
         "docs/model.md: fitted to docs/sources.md A10b (OpenSM under ibsim)"),
     .min = 1, .only = M(CP_SM)},
    {KEY("sweep_fixed", SCHEMA_TIME, CPL(sweep_fixed_ps), "18500us", NULL,
         "docs/model.md: fitted to docs/sources.md A10b (OpenSM under ibsim)"),
     .min = 1, .only = M(CP_SM)},
    {KEY("shield", SCHEMA_BOOL, CPL(shield), "false", NULL,
         "docs/sources.md A10: upstream OpenSM has no SHIELD; NVIDIA's SM ships shield_mode on"),
     .only = M(CP_SM)},
    {KEY("shield_delay", SCHEMA_TIME, CPL(shield_delay_ps), "10us", NULL,
         "docs/sources.md A10: a vendor claim (SHIELD '5000x faster' than the SM, B) read "
         "against A10b's 42-92 ms; no measurement (C)"),
     .min = 1, .only = M(CP_SM)},
    {KEY("proc", SCHEMA_TIME, CPL(proc_ps), "1ms", NULL,
         "docs/scenario.md: not in docs/sources.md (C)"),
     .only = M(CP_BGP)},
    {KEY("mrai", SCHEMA_TIME, CPL(mrai_ps), "0", NULL,
         "docs/sources.md A10: FRRouting (SONiC) default MRAI 0"),
     .only = M(CP_BGP)},
    {KEY("port_down_delay", SCHEMA_TIME, CPL(port_down_ps), "100us", NULL,
         "docs/sources.md A12: vendor references say a down port leaves its ECMP groups in "
         "hardware in us-ms; link debounce off by default (Cisco Nexus, Dell); no "
         "measurement (C)"),
     .only = M(CP_BGP)},
    {KEY("fast_fallover", SCHEMA_BOOL, CPL(fast_fallover), "true", NULL,
         "docs/sources.md A12: eBGP fast-external-fallover on by default (Cisco IOS, Dell OS10)"),
     .only = M(CP_BGP)},
    {KEY("sweep_interval", SCHEMA_TIME, CPL(sweep_interval_ps), "10s", NULL,
         "docs/sources.md A10: OSM_DEFAULT_SWEEP_INTERVAL_SECS 10"),
     .min = 1, .only = M(CP_SM)},
    {KEY("smp_timeout", SCHEMA_TIME, CPL(smp_timeout_ps), "200ms", NULL,
         "docs/sources.md A10: OpenSM transaction_timeout 200 ms (osm_base.h)"),
     .min = 1, .only = M(CP_SM)},
    {KEY("smp_retries", SCHEMA_U32, CPL(smp_retries), "3", NULL,
         "docs/sources.md A10: OpenSM OSM_DEFAULT_RETRY_COUNT 3 (osm_vendor_ibumad.h)"),
     .max = 100, .only = M(CP_SM)},
    {KEY("unhealthy_down", SCHEMA_TIME, CPL(unhealthy_ps), "0", NULL,
         "docs/sources.md A10: Quantum fast recovery from unhealthy links exists; its "
         "window is not published, so off unless set (C)"),
     .only = M(CP_SM)},
    {KEY("detect_mult", SCHEMA_U32, CPL(detect_mult), "3", NULL,
         "docs/sources.md A10: BFD detect multiplier 3 (typical configuration); BGP hold = "
         "3 x keepalive (RFC 4271 suggests 90 s / 30 s)"),
     .min = 1, .max = 1000, .only = M(CP_BGP)},
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
/* The Ethernet link-layer blocks are explained where they act (kept out of
 * the explanation of other fabrics, whose text stays as it was). */
static bool cbfc_shown(const void *obj) {
    return ((const struct fabric_params *)obj)->flow_control == FLOWCTL_CBFC;
}
static bool llr_shown(const void *obj) {
    return ((const struct fabric_params *)obj)->link_retry == LINK_RETRY_LLR;
}
static bool lft_file_shown(const void *obj) {
    return ((const struct fabric_params *)obj)->lft_file != NULL;
}

/* InfiniBand link layer (flowctl/credit.c): fabric.vls ... vlarb_high_limit.
 * 0 in these fields means "the model's default", so `auto` and empty tables
 * store 0. */

/* `auto` (0: the model derives it) or a size. */
int scenario_auto_size(struct schema_ctx *c, const struct yaml_node *n, uint64_t *out) {
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        *out = 0;
        return 0;
    }
    return schema_number(c, SCHEMA_SIZE, n, 1, 0, out);
}

static int switch_buffer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return scenario_auto_size(c, n, &((struct fabric_params *)obj)->switch_buffer_bytes);
}
static void switch_buffer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    scenario_auto_size_print(f, ((const struct fabric_params *)obj)->switch_buffer_bytes);
}

void scenario_auto_size_print(FILE *f, uint64_t v) {
    if (v)
        print_size(f, v);
    else
        fputs("auto", f);
}

static int vl_buffer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return scenario_auto_size(c, n, &((struct fabric_params *)obj)->ib.vl_buffer_bytes);
}
static void vl_buffer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    scenario_auto_size_print(f, ((const struct fabric_params *)obj)->ib.vl_buffer_bytes);
}
static int nic_buffer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return scenario_auto_size(c, n, &((struct fabric_params *)obj)->ib.nic_buffer_bytes);
}
static void nic_buffer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    scenario_auto_size_print(f, ((const struct fabric_params *)obj)->ib.nic_buffer_bytes);
}

/* `reorder_timeout`: auto (stored as 0, resolved by net/nic.c from the
 * buffer and link rate), off (SIM_TIME_NEVER: only the ACK timeout), or a time. */
static int reorder_timeout_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    uint64_t *ps = &((struct fabric_params *)obj)->reorder_timeout_ps;
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        *ps = 0;
        return 0;
    }
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "off")) {
        *ps = SIM_TIME_NEVER;
        return 0;
    }
    return schema_number(c, SCHEMA_TIME, n, 1, 0, ps);
}
static void reorder_timeout_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    uint64_t ps = ((const struct fabric_params *)obj)->reorder_timeout_ps;
    char buf[48];
    if (!ps || ps == SIM_TIME_NEVER) {
        fputs(ps ? "off" : "auto", f);
        return;
    }
    schema_fmt(SCHEMA_TIME, ps, buf, sizeof buf);
    fputs(buf, f);
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

/* fabric.credit_refresh: `auto` (0: 65,536 symbol times at each link's
 * rate, flowctl/credit.c) or a time. */
static int credit_refresh_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return scenario_auto_time(c, n, &((struct fabric_params *)obj)->ib.credit_refresh_ps);
}
static void credit_refresh_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    scenario_auto_time_print(f, ((const struct fabric_params *)obj)->ib.credit_refresh_ps);
}

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

/* `dcqcn: {preset: paper}` also takes the paper's ECN marking (docs/sources.md A5,
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

/* CBFC and LLR are Ethernet link-layer options (UEC 1.0): any fabric kind but
 * InfiniBand. CBFC partitions each port's buffer per class, so not with a
 * shared pool; its buffer per class must hold one frame. */
static int ethernet_link_check(struct schema_ctx *c, const struct yaml_node *map,
                               const struct yaml_node *here, struct fabric_params *f) {
    bool ib = f->kind == FABRIC_INFINIBAND;
    if (ib && f->flow_control == FLOWCTL_CBFC)
        return schema_fail(c, at(map, here, "flow_control"), FS_EINVAL,
                           "flow_control: cbfc is Ethernet credit-based flow control (Ultra "
                           "Ethernet); with fabric.kind infiniband use credit (allowed for "
                           "infiniband: credit, none)");
    if (ib && f->flow_control == FLOWCTL_PFC)
        return schema_fail(c, at(map, here, "flow_control"), FS_EINVAL,
                           "flow_control: pfc is Ethernet's priority flow control (802.1Qbb); "
                           "fabric.kind infiniband allows credit or none");
    if (!ib && f->flow_control == FLOWCTL_CREDIT)
        return schema_fail(c, at(map, here, "flow_control"), FS_EINVAL,
                           "flow_control: credit is InfiniBand's link-level flow control (IBA "
                           "7.9); an Ethernet fabric (kind %s) allows pfc, cbfc (credit-based, "
                           "Ultra Ethernet) or none",
                           FABRIC_KINDS[f->kind]);
    if (ib && f->link_retry == LINK_RETRY_LLR)
        return schema_fail(c, at(map, here, "link_retry"), FS_EINVAL,
                           "link_retry: llr is Ethernet link-level retry (Ultra Ethernet, IEEE "
                           "802.3dj); fabric.kind infiniband allows link_retry: none");
    if (yaml_map_get(map, "cbfc") && f->flow_control != FLOWCTL_CBFC)
        return schema_fail(c, at(map, here, "cbfc"), FS_EINVAL,
                           "cbfc: settings are read only with flow_control: cbfc (flow_control "
                           "is %s)",
                           FLOWCTL_NAMES[f->flow_control]);
    if (yaml_map_get(map, "llr") && f->link_retry != LINK_RETRY_LLR)
        return schema_fail(c, at(map, here, "llr"), FS_EINVAL,
                           "llr: settings are read only with link_retry: llr (link_retry is "
                           "none)");
    if (f->flow_control != FLOWCTL_CBFC) return 0;
    if (f->buffer_sharing == BUFFER_SHARED)
        return schema_fail(c, at(map, here, "buffer_sharing"), FS_EINVAL,
                           "flow_control: cbfc advertises a fixed buffer per port and class; "
                           "use buffer_sharing: static (allowed with cbfc: static)");
    uint32_t unit = f->cbfc.credit_unit_bytes ? f->cbfc.credit_unit_bytes : 64;
    uint64_t cls =
        f->cbfc.class_buffer_bytes ? f->cbfc.class_buffer_bytes : f->buffer_bytes / NET_NCLASS;
    uint64_t nic = f->cbfc.nic_buffer_bytes ? f->cbfc.nic_buffer_bytes : cls;
    /* In the buffer: the frame without preamble and gap (20 B), plus the
     * packet overhead (flowctl/cbfc.c). */
    int64_t po = f->cbfc.packet_overhead_set ? f->cbfc.packet_overhead_bytes : -4;
    uint64_t stored = (uint64_t)((int64_t)f->mtu_bytes + f->overhead_bytes + 16 - 20 + po);
    uint64_t pkt = (stored + unit - 1) / unit * unit;
    if (cls >= pkt && nic >= pkt) return 0;
    const struct yaml_node *cb = yaml_map_get(map, "cbfc");
    const char *key = cls < pkt ? (f->cbfc.class_buffer_bytes ? "class_buffer" : NULL)
                                : (f->cbfc.nic_buffer_bytes ? "nic_buffer" : "class_buffer");
    char b[48];
    schema_fmt(SCHEMA_SIZE, cls < pkt ? cls : nic, b, sizeof b);
    return schema_fail(c, key && cb ? at(cb, cb, key) : at(map, here, "buffer"), FS_EINVAL,
                       "a CBFC buffer of %s per class cannot hold one frame (%llu bytes "
                       "stored, in %u B credits: %llu B); raise cbfc.class_buffer or buffer",
                       b, (unsigned long long)stored, unit, (unsigned long long)pkt);
}

static int fabric_check(struct schema_ctx *c, const struct yaml_node *map,
                        const struct yaml_node *here, void *obj) {
    struct fabric_params *f = obj;
    /* Position of `sharp:`, for the model's "SHARP needs InfiniBand" error. */
    const struct yaml_node *sharp = key_node(map, "sharp");
    f->sharp_pos = sharp ? sharp->pos : (struct srcpos){0, 0};
    /* Path MTUs of InfiniBand; RoCE uses the same sizes (docs/sources.md A1). */
    static const uint32_t MTUS[] = {256, 512, 1024, 2048, 4096};
    bool mtu_ok = false;
    for (size_t i = 0; i < N(MTUS); i++)
        mtu_ok |= f->mtu_bytes == MTUS[i];
    if (!mtu_ok)
        return schema_fail(c, at(map, here, "mtu"), FS_EINVAL,
                           "mtu %u is not an InfiniBand path MTU; allowed: 256, 512, 1024, 2048, "
                           "4096 (docs/sources.md A1; RoCE uses the same payload sizes)",
                           f->mtu_bytes);
    /* Wire bytes per packet besides payload (docs/sources.md A1): IB LRH + BTH +
     * ICRC + VCRC; RoCEv2 Ethernet + IPv4 + UDP + BTH + ICRC + FCS + preamble
     * and gap. Fixed by the kind, whatever the MTU. */
    f->overhead_bytes = f->kind == FABRIC_INFINIBAND ? 26 : 82;
    int urc = scenario_uet_defaults(c, map, here, f);
    if (urc) return urc;

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
                           "dump, docs/sources.md A10b)");
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
    if (f->congestion_control == CC_HPCC && f->kind != FABRIC_ROCE)
        return schema_fail(c, at(map, here, "congestion_control"), FS_EINVAL,
                           "congestion_control: hpcc runs on RoCE NICs and INT switches (HPCC, "
                           "SIGCOMM 2019); with fabric.kind infiniband use ibcc or none");
    if (f->congestion_control == CC_DCTCP && f->kind != FABRIC_ROCE)
        return schema_fail(c, at(map, here, "congestion_control"), FS_EINVAL,
                           "congestion_control: dctcp needs ECN marking at Ethernet switches "
                           "(DCTCP, SIGCOMM 2010); with fabric.kind infiniband use ibcc or none");
    if (f->congestion_control == CC_TIMELY && f->kind != FABRIC_ROCE)
        return schema_fail(c, at(map, here, "congestion_control"), FS_EINVAL,
                           "congestion_control: timely is a RoCE NIC's rate control on RTTs "
                           "(TIMELY, SIGCOMM 2015); with fabric.kind infiniband use ibcc or none");
    if ((f->congestion_control == CC_NSCC || f->congestion_control == CC_RCCC ||
         f->congestion_control == CC_NSCC_RCCC) &&
        f->kind != FABRIC_UET)
        return schema_fail(c, at(map, here, "congestion_control"), FS_EINVAL,
                           "congestion_control: %s is Ultra Ethernet's (UEC 1.0, docs/sources.md "
                           "U1); it needs fabric.kind: uet",
                           CC_NAMES[f->congestion_control]);
    if (f->kind == FABRIC_UET && f->congestion_control == CC_IBCC)
        return schema_fail(c, at(map, here, "congestion_control"), FS_EINVAL,
                           "congestion_control: ibcc is InfiniBand's; with fabric.kind uet use "
                           "nscc, rccc, nscc+rccc or none");
    int rc = ib_check(c, map, here, f);
    if (!rc) rc = ethernet_link_check(c, map, here, f);
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
         "docs/sources.md A1: NDR / 400GbE data rate"),
     .min = 1},
    {KEY("mtu", SCHEMA_U32, FAB(mtu_bytes), "4096", NULL,
         "docs/sources.md A1: typical AI-fabric MTU"),
     .min = 256, .max = 4096},
    {KEY("cable", SCHEMA_LENGTH, FAB(cable_mm), "5m", NULL, "SPEC.md example"), .min = 1,
     .max = 100000000, .show = cable_shown},
    {KEY("propagation", SCHEMA_TIME, FAB(propagation_ps), NULL, NULL, "derived from cable"),
     .min = 1, .max = 1000000000000ull, .show = propagation_shown},
    {KEY("switch_latency", SCHEMA_TIME, FAB(switch_latency_ps), "200ns", "300ns",
         "SPEC.md example, docs/sources.md A2 (C, sweep 130-350 ns); A3 (C, sweep 0.3-1 us)")},
    {KEY("cut_through", SCHEMA_BOOL, FAB(cut_through), "false", NULL,
         "docs/model.md (Switch): store-and-forward unless asked; Quantum and Spectrum forward "
         "cut-through (docs/sources.md A2, A3)")},
    {KEY("buffer", SCHEMA_SIZE, FAB(buffer_bytes), "1MiB", "2MiB",
         "SPEC.md example (A2: unpublished); A3: ~128 MB shared over 64 ports")},
    {KEY("buffer_sharing", SCHEMA_ENUM, FAB(buffer_sharing), "static", "static",
         "docs/model.md (Switch buffers): static keeps the SPEC.md per-port thresholds; shared = "
         "Spectrum/Tomahawk pool with dynamic thresholds (docs/sources.md A3)"),
     .names = SHARING_NAMES, .only = M(FABRIC_ROCE) | M(FABRIC_UET)},
    {KEY("switch_buffer", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/model.md (Switch buffers): auto = buffer x ports (the same total as static)"),
     .only = M(FABRIC_ROCE) | M(FABRIC_UET), .parse = switch_buffer_parse,
     .print = switch_buffer_print},
    {KEY("flow_control", SCHEMA_ENUM, FAB(flow_control), "credit", "pfc",
         "docs/sources.md A2 credits; A4 PFC"),
     .names = FLOWCTL_NAMES},
    {KEY("routing", SCHEMA_ENUM, FAB(routing), "static", "ecmp",
         "SPEC.md; docs/sources.md A10 (SM LFTs), A11 (ECMP)"),
     .names = ROUTING_NAMES},
    {KEY("routing_engine", SCHEMA_ENUM, FAB(routing_engine), "ftree", NULL,
         "docs/sources.md A10: OpenSM/UFM fat-tree engine"),
     .names = ENGINE_NAMES},
    {KEY("lft_file", SCHEMA_STRING, FAB(lft_file), NULL, NULL, "used by routing_engine: file"),
     .show = lft_file_shown},
    {KEY("congestion_control", SCHEMA_ENUM, FAB(congestion_control), "none", "dcqcn",
         "SPEC.md; docs/sources.md A6 (dcqcn), A7 (hpcc, dctcp), A7b (timely)"),
     .names = CC_NAMES},
    {KEY("pfc", SCHEMA_MAP, FAB(pfc), NULL, NULL, NULL), .sub = &SCHEMA_PFC},
    {KEY("cbfc", SCHEMA_MAP, FAB(cbfc), NULL, NULL, NULL), .sub = &SCHEMA_CBFC, .show = cbfc_shown},
    {KEY("link_retry", SCHEMA_ENUM, FAB(link_retry), "none", NULL,
         "docs/model.md (Ethernet link layer: LLR): only when asked (docs/sources.md A16)"),
     .names = LINK_RETRY_NAMES, .show = llr_shown},
    {KEY("llr", SCHEMA_MAP, FAB(llr), NULL, NULL, NULL), .sub = &SCHEMA_LLR, .show = llr_shown},
    {KEY("ecn", SCHEMA_MAP, FAB(ecn), NULL, NULL, NULL), .sub = &SCHEMA_ECN},
    {KEY("dcqcn", SCHEMA_MAP, FAB(dcqcn), NULL, NULL, NULL), .sub = &SCHEMA_DCQCN},
    {KEY("ibcc", SCHEMA_MAP, FAB(ibcc), NULL, NULL, NULL), .sub = &SCHEMA_IBCC,
     .only = M(FABRIC_INFINIBAND)},
    {KEY("hpcc", SCHEMA_MAP, FAB(hpcc), NULL, NULL, NULL), .sub = &SCHEMA_HPCC,
     .only = M(FABRIC_ROCE)},
    {KEY("dctcp", SCHEMA_MAP, FAB(dctcp), NULL, NULL, NULL), .sub = &SCHEMA_DCTCP,
     .only = M(FABRIC_ROCE)},
    {KEY("timely", SCHEMA_MAP, FAB(timely), NULL, NULL, NULL), .sub = &SCHEMA_TIMELY,
     .only = M(FABRIC_ROCE)},
    {KEY("transport", SCHEMA_MAP, FAB(transport), NULL, NULL, NULL), .sub = &TRANSPORT_TABLE},
    /* Ultra Ethernet (config/scenario_uet.c) */
    {KEY("uet", SCHEMA_MAP, FAB(uet), NULL, NULL, NULL), .sub = &SCHEMA_UET, .only = M(FABRIC_UET)},
    {KEY("nscc", SCHEMA_MAP, FAB(nscc), NULL, NULL, NULL), .sub = &SCHEMA_NSCC,
     .only = M(FABRIC_UET)},
    {KEY("rccc", SCHEMA_MAP, FAB(rccc), NULL, NULL, NULL), .sub = &SCHEMA_RCCC,
     .only = M(FABRIC_UET)},
    {KEY("out_of_order", SCHEMA_ENUM, FAB(out_of_order), "placement", NULL,
         "docs/sources.md A11: ConnectX-5+ out-of-order data placement, BlueField-3 SuperNIC under "
         "Spectrum-X; discard = plain RC (NAK-sequence); buffer = reorder_buffer"),
     .names = OOO_NAMES},
    {KEY("reorder_buffer", SCHEMA_SIZE, FAB(reorder_buffer_bytes), "256KiB", NULL,
         "SPEC.md example (C): no shipped NIC documents an on-chip reorder buffer; used only "
         "with out_of_order: buffer")},
    {KEY("ecmp_same_seed", SCHEMA_BOOL, FAB(ecmp_same_seed), "false", NULL,
         "docs/scenario.md: a hash key per switch unless asked (docs/sources.md A11)")},
    {KEY("sharp", SCHEMA_BOOL, FAB(sharp), "false", NULL, "SPEC.md example")},
    {KEY("sharp_jobs_per_switch", SCHEMA_U32, FAB(sharp_jobs_per_switch), "2", NULL,
         "docs/sources.md A9: NVIDIA HPC-X NCCL-RDMA-SHARP plugin, at most 2 streaming "
         "aggregation flows per switch (Quantum HDR: 1)"),
     .min = 1, .max = 511},
    {KEY("sharp_buffer", SCHEMA_SIZE, FAB(sharp_buffer_bytes), "256KiB", NULL,
         "docs/model.md: not published (C)"),
     .min = 1},
    {KEY("sharp_latency", SCHEMA_TIME, FAB(sharp_latency_ps), "0", NULL,
         "docs/model.md: not published for Quantum (docs/sources.md A9); 0.89us calibrates "
         "Switch-IB 2 to V12")},
    {KEY("control_plane", SCHEMA_MAP, FAB(control_plane), NULL, NULL, NULL), .sub = &CP_TABLE},
    {KEY("deadlock_timeout", SCHEMA_TIME, FAB(deadlock_timeout_ps), "100us", NULL,
         "docs/model.md: detector interval (net/deadlock.c)"),
     .min = 1},
    {KEY("reorder_window", SCHEMA_U32, FAB(reorder_window_pkts), "1024", NULL,
         "docs/sources.md A10: ConnectX depth not published (C); 1024 PSNs"),
     .min = 1, .max = 1u << 20},
    {KEY("reorder_timeout", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/sources.md A11: ConnectX NAKs a hole its timer finds open; the value is not "
         "published (C): auto = 4 drains of a switch port's buffer at the link rate"),
     .parse = reorder_timeout_parse, .print = reorder_timeout_print},
    /* InfiniBand link layer */
    {KEY("vls", SCHEMA_U32, FAB(ib.vls), "4", NULL, "docs/sources.md A2: ConnectX NUM_OF_VL = 4"),
     .min = 1, .max = NET_NCLASS, .only = M(FABRIC_INFINIBAND)},
    {KEY("vl_buffer", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/sources.md A2: not published; auto = buffer / vls"),
     .only = M(FABRIC_INFINIBAND), .parse = vl_buffer_parse, .print = vl_buffer_print},
    {KEY("nic_buffer", SCHEMA_CUSTOM, 0, "auto", NULL, "auto = vl_buffer"),
     .only = M(FABRIC_INFINIBAND), .parse = nic_buffer_parse, .print = nic_buffer_print},
    {KEY("credit_interval", SCHEMA_TIME, FAB(ib.credit_interval_ps), "256ns", NULL,
         "docs/sources.md A2 (C): Mellanox IB OMNeT++ model credMinTime 0.256 us (4x); "
         "the IBA sets no minimum"),
     .min = 1, .max = PS_PER_S, .only = M(FABRIC_INFINIBAND)},
    {KEY("credit_refresh", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/sources.md A2: IBA vol. 1 7.9.4, at least every 65,536 symbol times per VL; "
         "auto = that at each link's rate (5.24 us at 400 Gb/s)"),
     .only = M(FABRIC_INFINIBAND), .parse = credit_refresh_parse, .print = credit_refresh_print},
    {KEY("sl2vl", SCHEMA_CUSTOM, 0, "auto", NULL, "auto = SL mod vls (OpenSM without QoS)"),
     .only = M(FABRIC_INFINIBAND), .parse = sl2vl_parse, .print = sl2vl_print},
    {KEY("vlarb_high", SCHEMA_CUSTOM, 0, NULL, NULL, "docs/sources.md A2: [] = no high table"),
     .only = M(FABRIC_INFINIBAND), .parse = vlarb_high_parse, .print = vlarb_high_print},
    {KEY("vlarb_low", SCHEMA_CUSTOM, 0, NULL, NULL,
         "docs/sources.md A2: [] = every VL in use, weight 255"),
     .only = M(FABRIC_INFINIBAND), .parse = vlarb_low_parse, .print = vlarb_low_print},
    {KEY("vlarb_high_limit", SCHEMA_U32, FAB(ib.high_limit), "255", NULL,
         "docs/sources.md A2: LimitOfHighPriority, 255 = unlimited"),
     .min = 1, .max = 255, .only = M(FABRIC_INFINIBAND)},
    /* Failures (docs/model.md "Failures") */
    {KEY("ber", SCHEMA_FRACTION, FAB(ber), "0", NULL,
         "docs/model.md: no bit errors unless asked (IBA requires BER <= 1e-12)")},
    {KEY("hoq_lifetime", SCHEMA_CUSTOM, 0, "18", NULL,
         "docs/sources.md A12: OpenSM head_of_queue_lifetime 0x12 (1.07 s); 20+ = infinite"),
     .only = M(FABRIC_INFINIBAND), .parse = hoq_parse, .print = hoq_print},
    {KEY("leaf_hoq_lifetime", SCHEMA_CUSTOM, 0, "16", NULL,
         "docs/sources.md A12: OpenSM leaf_head_of_queue_lifetime 0x10 (268 ms, towards CAs)"),
     .only = M(FABRIC_INFINIBAND), .parse = leaf_hoq_parse, .print = leaf_hoq_print},
    {KEY("vl_stall_count", SCHEMA_U32, FAB(vl_stall_count), "7", NULL,
         "docs/sources.md A12: OpenSM vl_stall_count 7, leaf_vl_stall_count 7"),
     .min = 1, .max = 7, .only = M(FABRIC_INFINIBAND)},
};
const struct schema_table SCHEMA_FABRIC = {
    TABLE("fabric", FABRIC_KEYS),
    .mode_of = fabric_mode,
    .mode_what = "fabric kind",
    .mode_names = FABRIC_KINDS,
    .alt_modes = M(FABRIC_ROCE) | M(FABRIC_UET),
    .check = fabric_check,
};

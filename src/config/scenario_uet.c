/* src/config/scenario_uet.c
 *
 * Ultra Ethernet (fabric.kind: uet): the fabric.uet, fabric.nscc and
 * fabric.rccc tables, and the defaults a UET fabric takes for the keys it
 * shares with RoCE (flow_control none, congestion_control nscc, selective
 * retransmission, a fixed retransmission timer, ECN thresholds from the
 * trimming threshold) when the scenario does not give them. Each default
 * cites docs/sources.md U1-U4 (UEC 1.0, the UEC htsim reference simulator).
 */
#include "config/scenario_int.h"

#include "cc/cc.h"
#include "net/params.h"

#include <stddef.h>

static const char *const DELIVERY_NAMES[] = {"rud", "rod", NULL};

static int trim_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct uet_params *u = obj;
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        u->trim_bytes = 0;
        return 0;
    }
    return schema_number(c, SCHEMA_SIZE, n, 1, 0, &u->trim_bytes);
}
static void trim_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct uet_params *u = obj;
    if (!u->trim_bytes) {
        fputs("auto", f);
        return;
    }
    char b[48];
    schema_fmt(SCHEMA_SIZE, u->trim_bytes, b, sizeof b);
    fputs(b, f);
}

static int uet_check(struct schema_ctx *c, const struct yaml_node *map,
                     const struct yaml_node *here, void *obj) {
    const struct uet_params *u = obj;
    if (u->entropies & (u->entropies - 1))
        return schema_fail(c, at(map, here, "entropies"), FS_EINVAL,
                           "entropies %u is not a power of 2 (1, 2, 4 ... 256): a QP sprays "
                           "over entropy values masked to that many paths (docs/sources.md U3)",
                           u->entropies);
    return 0;
}

#define UET(f) offsetof(struct uet_params, f)
static const struct schema_key UET_KEYS[] = {
    {KEY("delivery", SCHEMA_ENUM, UET(delivery), "rud", NULL,
         "docs/sources.md U1: UEC 1.0 PDS, RUD for AI collectives (ROD ordered, one path)"),
     .names = DELIVERY_NAMES},
    {KEY("entropies", SCHEMA_U32, UET(entropies), "64", NULL,
         "docs/sources.md U3: htsim main_uec.cpp path_entropy_size 64"),
     .min = 1, .max = 256},
    {KEY("trimming", SCHEMA_BOOL, UET(trimming), "true", NULL,
         "docs/sources.md U1, U3: UEC packet trimming; htsim trims unless -disable_trim")},
    {KEY("trim_threshold", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/sources.md U3: htsim trims when the queue is full; auto = buffer"),
     .parse = trim_parse, .print = trim_print},
    {KEY("ecn_penalty", SCHEMA_U32, UET(ecn_penalty), "1", NULL,
         "docs/sources.md U3: htsim UecMpBitmap, PATH_ECN penalty 1"),
     .max = 15},
    {KEY("nack_penalty", SCHEMA_U32, UET(nack_penalty), "4", NULL,
         "docs/sources.md U3: htsim UecMpBitmap, PATH_NACK penalty 4"),
     .max = 15},
};
const struct schema_table SCHEMA_UET = {TABLE("uet", UET_KEYS), .check = uet_check};

#define NSC(f) offsetof(struct nscc_params, f)
static const struct schema_key NSCC_KEYS[] = {
    {KEY("base_rtt", SCHEMA_TIME, NSC(base_rtt_ps), "0", NULL,
         "docs/sources.md U3: htsim network_max_unloaded_rtt from the diameter; 0 = derived")},
    {KEY("target_qdelay", SCHEMA_TIME, NSC(target_qdelay_ps), "0", NULL,
         "docs/sources.md U3: htsim initNsccParams, 0.75 x base_rtt with trimming; 0 = derived")},
    {KEY("gamma", SCHEMA_FRACTION_POS, NSC(gamma), "0.8", NULL,
         "docs/sources.md U3: htsim initNsccParams _gamma 0.8")},
    {KEY("delay_alpha", SCHEMA_FRACTION_POS, NSC(delay_alpha), "0.0125", NULL,
         "docs/sources.md U3: htsim initNsccParams _delay_alpha 0.0125")},
    {KEY("qa_gate", SCHEMA_U32, NSC(qa_gate), "3", NULL,
         "docs/sources.md U3: htsim initNsccParams _qa_gate 3 (achieved < MaxWnd / 8)"),
     .max = 16},
    {KEY("quick_adapt", SCHEMA_BOOL, NSC(quick_adapt), "true", NULL,
         "docs/sources.md U2, U3: quick adapt on (htsim _disable_quick_adapt false)")},
};
const struct schema_table SCHEMA_NSCC = {TABLE("nscc", NSCC_KEYS)};

static int credit_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct rccc_params *r = obj;
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        r->credit_bytes = 0;
        return 0;
    }
    return schema_number(c, SCHEMA_SIZE, n, 64, 1ull << 30, &r->credit_bytes);
}
static void credit_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct rccc_params *r = obj;
    if (!r->credit_bytes) {
        fputs("auto", f);
        return;
    }
    char b[48];
    schema_fmt(SCHEMA_SIZE, r->credit_bytes, b, sizeof b);
    fputs(b, f);
}

static const struct schema_key RCCC_KEYS[] = {
    {KEY("credit", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/sources.md U3: htsim UecSink _mtus_per_pull 4; auto = 4 MTU packets per grant"),
     .parse = credit_parse, .print = credit_print},
};
const struct schema_table SCHEMA_RCCC = {TABLE("rccc", RCCC_KEYS)};

/* Defaults of a UET fabric for keys it shares with RoCE: applied after the
 * fabric table is read, to the keys the scenario does not spell out. */
int scenario_uet_defaults(struct schema_ctx *c, const struct yaml_node *map,
                          const struct yaml_node *here, struct fabric_params *f) {
    (void)c, (void)here;
    if (f->kind != FABRIC_UET) return 0;
    /* Lossy Ethernet with trimming (docs/sources.md U1, U3): no PFC. */
    if (!yaml_map_get(map, "flow_control")) f->flow_control = FLOWCTL_NONE;
    /* Sender-based NSCC is the reference simulator's default (U3 main_uec.cpp
     * sender_driven = true). */
    if (!yaml_map_get(map, "congestion_control")) f->congestion_control = CC_NSCC;
    /* Per-packet entropy hashed by every switch's ECMP (U1): routing ecmp. */
    if (!yaml_map_get(map, "routing")) f->routing = ROUTING_ECMP;
    const struct yaml_node *tr = yaml_map_get(map, "transport");
    if (!yaml_map_get(tr, "retransmit"))
        f->transport.retransmit = f->uet.delivery == UET_RUD ? RETX_SELECTIVE : RETX_GO_BACK_N;
    /* htsim: a retransmission timer of at least 100 us (DEFAULT_UEC_RTO_MIN),
     * retried without limit (U3). */
    if (!yaml_map_get(tr, "rto")) f->transport.rto = RTO_FIXED;
    if (!yaml_map_get(tr, "timeout")) {
        f->transport.timeout_ps = 100000000ull;
        f->transport.timeout_exp = 0;
    }
    /* ECN marking from 20 % to 80 % of the queue (U3: main_uec.cpp ecn_low,
     * ecn_high), of the trimming threshold; a mark probability of 1 at kmax. */
    const struct yaml_node *ecn = yaml_map_get(map, "ecn");
    uint64_t q = f->uet.trim_bytes ? f->uet.trim_bytes : f->buffer_bytes;
    if (!yaml_map_get(ecn, "kmin")) f->ecn.kmin_bytes = q / 5;
    if (!yaml_map_get(ecn, "kmax")) f->ecn.kmax_bytes = q * 4 / 5;
    if (!yaml_map_get(ecn, "pmax")) f->ecn.pmax = 1.0;
    if (f->ecn.kmin_bytes > f->ecn.kmax_bytes) f->ecn.kmin_bytes = f->ecn.kmax_bytes;
    return 0;
}

/* src/config/scenario_link.c
 *
 * The Ethernet link-layer options of `fabric:` as schema tables: `cbfc:`
 * (credit-based flow control, flowctl/cbfc.c) and `llr:` (link-level retry,
 * link/llr.c), and the rules that tie them to the fabric kind (how to add a
 * key: config/scenario.c). Each default cites docs/sources.md A15 / A16.
 */
#include "config/scenario.h"

#include "config/scenario_int.h"
#include "net/params.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int class_buffer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return scenario_auto_size(c, n, &((struct cbfc_params *)obj)->class_buffer_bytes);
}
static void class_buffer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    scenario_auto_size_print(f, ((const struct cbfc_params *)obj)->class_buffer_bytes);
}
static int cbfc_nic_buffer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return scenario_auto_size(c, n, &((struct cbfc_params *)obj)->nic_buffer_bytes);
}
static void cbfc_nic_buffer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    scenario_auto_size_print(f, ((const struct cbfc_params *)obj)->nic_buffer_bytes);
}
static int replay_buffer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return scenario_auto_size(c, n, &((struct llr_params *)obj)->replay_buffer_bytes);
}
static void replay_buffer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    scenario_auto_size_print(f, ((const struct llr_params *)obj)->replay_buffer_bytes);
}

/* packet_overhead: a whole number of bytes, -16..127 (UE spec 1.0.3 Table
 * 5-14's range as the OTG model gives it). */
static int packet_overhead_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct cbfc_params *cb = obj;
    const char *s;
    int rc = schema_text(c, n, "a whole number of bytes such as -4", &s);
    if (rc) return rc;
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < -16 || v > 127)
        return schema_fail(c, n, FS_ERANGE,
                           "packet_overhead '%.32s': allowed a whole number of bytes from -16 to "
                           "127 (bytes a frame takes in the receiver's buffer beyond its length; "
                           "-4 = FCS stripped)",
                           s);
    cb->packet_overhead_bytes = (int32_t)v;
    cb->packet_overhead_set = true;
    return 0;
}
static void packet_overhead_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct cbfc_params *cb = obj;
    fprintf(f, "%d", cb->packet_overhead_set ? (int)cb->packet_overhead_bytes : -4);
}

/* update_credits: `auto` (0: one MTU frame's credits) or 1..65536. */
static int update_credits_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct cbfc_params *cb = obj;
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        cb->update_credits = 0;
        return 0;
    }
    uint64_t v;
    int rc = schema_number(c, SCHEMA_U32, n, 1, 1u << 16, &v);
    if (rc) return rc;
    cb->update_credits = (uint32_t)v;
    return 0;
}
static void update_credits_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct cbfc_params *cb = obj;
    if (cb->update_credits)
        fprintf(f, "%u", cb->update_credits);
    else
        fputs("auto", f);
}

#define CB(f) offsetof(struct cbfc_params, f)
static const struct schema_key CBFC_KEYS[] = {
    {KEY("credit_unit", SCHEMA_U32, CB(credit_unit_bytes), "64", NULL,
         "docs/sources.md A15: cell size, UE spec 1.0.3 Table 5-14 (OTG model default 64, "
         "32..2048)"),
     .min = 32, .max = 2048},
    {.name = "packet_overhead",
     .type = SCHEMA_CUSTOM,
     .def = "-4",
     .source = "docs/sources.md A15: UE spec 1.0.3 Table 5-14 (OTG model default -4: FCS "
               "stripped)",
     .parse = packet_overhead_parse,
     .print = packet_overhead_print},
    {.name = "class_buffer",
     .type = SCHEMA_CUSTOM,
     .def = "auto",
     .source = "docs/sources.md A15: auto = fabric.buffer / 4 classes",
     .parse = class_buffer_parse,
     .print = class_buffer_print},
    {.name = "nic_buffer",
     .type = SCHEMA_CUSTOM,
     .def = "auto",
     .source = "auto = class_buffer",
     .parse = cbfc_nic_buffer_parse,
     .print = cbfc_nic_buffer_print},
    {.name = "update_credits",
     .type = SCHEMA_CUSTOM,
     .def = "auto",
     .source = "docs/sources.md A15 (C): auto = the credits of one MTU frame",
     .parse = update_credits_parse,
     .print = update_credits_print},
    {KEY("update_interval", SCHEMA_TIME, CB(update_interval_ps), "1us", NULL,
         "docs/sources.md A15 (C): the longest a freed credit waits for its update")},
};
const struct schema_table SCHEMA_CBFC = {TABLE("cbfc", CBFC_KEYS)};

#define LL(f) offsetof(struct llr_params, f)
static const struct schema_key LLR_KEYS[] = {
    {.name = "replay_buffer",
     .type = SCHEMA_CUSTOM,
     .def = "auto",
     .source = "docs/sources.md A16: auto = 2 x (line rate x link round trip + a frame + "
               "ack_spacing)",
     .parse = replay_buffer_parse,
     .print = replay_buffer_print},
    {KEY("replay_frames", SCHEMA_U32, LL(replay_frames), "2047", NULL,
         "docs/sources.md A16: outstanding_seq_max, UE spec 1.0.3 Table 5-9 (OTG model default; "
         "spec maximum 524288)"),
     .min = 1, .max = 524288},
    {KEY("replay_timer", SCHEMA_TIME, LL(replay_timer_ps), "65535ns", NULL,
         "docs/sources.md A16: replay_timer_max, UE spec 1.0.3 Table 5-9 (OTG model default)"),
     .min = 1},
    {KEY("max_replays", SCHEMA_U32, LL(max_replays), "255", NULL,
         "docs/sources.md A16: replay_count_max, UE spec 1.0.3 Table 5-9 (OTG model default; "
         "255 = no maximum)"),
     .min = 1, .max = 255},
    {KEY("ack_spacing", SCHEMA_SIZE, LL(ack_spacing_bytes), "2KiB", NULL,
         "docs/sources.md A16: SAI CTLOS_TARGET_SPACING default 2048")},
};
const struct schema_table SCHEMA_LLR = {TABLE("llr", LLR_KEYS)};

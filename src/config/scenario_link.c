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
#include <string.h>

/* A size or `auto` (0). */
static int size_or_auto(struct schema_ctx *c, const struct yaml_node *n, uint64_t *out) {
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        *out = 0;
        return 0;
    }
    return schema_number(c, SCHEMA_SIZE, n, 1, 0, out);
}

static void size_or_auto_print(FILE *f, uint64_t v) {
    if (v)
        print_size(f, v);
    else
        fputs("auto", f);
}

static int class_buffer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return size_or_auto(c, n, &((struct cbfc_params *)obj)->class_buffer_bytes);
}
static void class_buffer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    size_or_auto_print(f, ((const struct cbfc_params *)obj)->class_buffer_bytes);
}
static int cbfc_nic_buffer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return size_or_auto(c, n, &((struct cbfc_params *)obj)->nic_buffer_bytes);
}
static void cbfc_nic_buffer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    size_or_auto_print(f, ((const struct cbfc_params *)obj)->nic_buffer_bytes);
}
static int replay_buffer_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return size_or_auto(c, n, &((struct llr_params *)obj)->replay_buffer_bytes);
}
static void replay_buffer_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    size_or_auto_print(f, ((const struct llr_params *)obj)->replay_buffer_bytes);
}

#define CB(f) offsetof(struct cbfc_params, f)
static const struct schema_key CBFC_KEYS[] = {
    {KEY("credit_unit", SCHEMA_U32, CB(credit_unit_bytes), "64", NULL,
         "docs/sources.md A15 (C): bytes per credit; UEC 1.0 lets the link configure it"),
     .min = 8, .max = 4096},
    {.name = "class_buffer", .type = SCHEMA_CUSTOM, .def = "auto",
     .source = "docs/sources.md A15: auto = fabric.buffer / 4 classes",
     .parse = class_buffer_parse, .print = class_buffer_print},
    {.name = "nic_buffer", .type = SCHEMA_CUSTOM, .def = "auto",
     .source = "auto = class_buffer", .parse = cbfc_nic_buffer_parse,
     .print = cbfc_nic_buffer_print},
    {KEY("update_credits", SCHEMA_U32, CB(update_credits), "1", NULL,
         "docs/sources.md A15 (C): a credit update per release, as IB's default"),
     .min = 1, .max = 1u << 16},
    {KEY("update_interval", SCHEMA_TIME, CB(update_interval_ps), "1us", NULL,
         "docs/sources.md A15 (C); used when update_credits > 1")},
};
const struct schema_table SCHEMA_CBFC = {TABLE("cbfc", CBFC_KEYS)};

#define LL(f) offsetof(struct llr_params, f)
static const struct schema_key LLR_KEYS[] = {
    {.name = "replay_buffer", .type = SCHEMA_CUSTOM, .def = "auto",
     .source = "docs/sources.md A16: auto = 2 x (line rate x link round trip + a frame + "
               "ack_spacing)",
     .parse = replay_buffer_parse, .print = replay_buffer_print},
    {KEY("replay_frames", SCHEMA_U32, LL(replay_frames), "1000", NULL,
         "docs/sources.md A16: SAI LLR profile OUTSTANDING_FRAMES_MAX in the SONiC test plan"),
     .min = 1},
    {KEY("replay_timer", SCHEMA_TIME, LL(replay_timer_ps), "1us", NULL,
         "docs/sources.md A16 (C): a frame lost unseen with nothing after it")},
    {KEY("max_replays", SCHEMA_U32, LL(max_replays), "3", NULL,
         "docs/sources.md A16 (C): replays of one frame before LLR gives up"),
     .min = 1, .max = 255},
    {KEY("ack_spacing", SCHEMA_SIZE, LL(ack_spacing_bytes), "2048B", NULL,
         "docs/sources.md A16: SAI CTLOS_TARGET_SPACING default 2048")},
};
const struct schema_table SCHEMA_LLR = {TABLE("llr", LLR_KEYS)};

/* src/config/jsonschema.c
 *
 * `fabsim schema`: the scenario language as a JSON Schema (draft-07),
 * generated from the same tables that read scenario files (config/schema.h),
 * so that a YAML language server completes and checks keys. Every key has
 * its type (units as a pattern, enums as their spellings, ranges), its
 * default and source in the description, and the modes it belongs to. A
 * table whose selector key picks a mode (workload kind, topology kind,
 * fabric kind ...) gets one draft-07 `if`/`then` per mode: the keys that
 * mode requires, and every key of other modes refused, as fabsim refuses
 * them ("key 'flows' is not used by workload kind 'incast'").
 */
#include "config/scenario.h"
#include "config/schema.h"
#include "core/units.h"
#include "core/jw.h"
#include "stats/results.h"

#include <inttypes.h>
#include <string.h>

/* A quantity: a number with a unit (a bare 0 always; a bare integer for
 * sizes, which are bytes), as units.c reads it. */
static void quantity(struct jw *w, enum units_kind kind) {
    const char *names[16];
    size_t n = units_names(kind, names, 16);
    char pat[256] = "^\\s*\\+?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*(";
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(pat);
        snprintf(pat + l, sizeof pat - l, "%s%s", i ? "|" : "", names[i]);
    }
    size_t l = strlen(pat);
    snprintf(pat + l, sizeof pat - l, ")%s\\s*$|^\\s*0+\\s*$", kind == UNITS_SIZE ? "?" : "");
    jw_key(w, "type");
    jw_arr_compact(w);
    jw_str(w, "string");
    jw_str(w, "integer");
    jw_arr_end(w);
    jw_kstr(w, "pattern", pat);
    jw_key(w, "minimum");
    jw_u64(w, 0);
}

static void type_array(struct jw *w, const char *a, const char *b) {
    jw_key(w, "type");
    jw_arr_compact(w);
    jw_str(w, a);
    jw_str(w, b);
    jw_arr_end(w);
}

static void table(struct jw *w, const struct schema_table *t, int depth);

/* The modes a key belongs to, as "only when <what> is a, b". */
static void modes_text(const struct schema_table *t, const struct schema_key *k, char *buf,
                       size_t len) {
    buf[0] = 0;
    if (!k->only || !t->mode_names) return;
    size_t off = (size_t)snprintf(buf, len, " Only when %s is ", t->mode_what ? t->mode_what : "");
    bool first = true;
    for (unsigned m = 0; m < 32 && t->mode_names[m] && off < len; m++)
        if (k->only & (1u << m)) {
            off +=
                (size_t)snprintf(buf + off, len - off, "%s%s", first ? "" : ", ", t->mode_names[m]);
            first = false;
        }
    if (off < len) snprintf(buf + off, len - off, ".");
}

static void key(struct jw *w, const struct schema_table *t, const struct schema_key *k, int depth) {
    jw_key(w, k->name);
    jw_obj(w);
    char desc[1024], modes[300];
    modes_text(t, k, modes, sizeof modes);
    size_t off = 0;
    if (k->def)
        off += (size_t)snprintf(desc + off, sizeof desc - off, "Default: %s%s%s%s.", k->def,
                                k->def_alt ? " (" : "", k->def_alt ? k->def_alt : "",
                                k->def_alt ? " in the alternative mode)" : "");
    else if (k->flags & SCHEMA_REQUIRED)
        off += (size_t)snprintf(desc + off, sizeof desc - off, "Required.");
    if (k->source && off < sizeof desc) {
        char src[512];
        schema_source_text(k->source, src, sizeof src);
        off +=
            (size_t)snprintf(desc + off, sizeof desc - off, "%sSource: %s.", off ? " " : "", src);
    }
    if (off < sizeof desc) snprintf(desc + off, sizeof desc - off, "%s", modes);
    if (desc[0]) jw_kstr(w, "description", desc[0] == ' ' ? desc + 1 : desc);
    uint64_t max = k->max;
    switch (k->type) {
    case SCHEMA_SIZE:
        quantity(w, UNITS_SIZE);
        break;
    case SCHEMA_TIME:
        quantity(w, UNITS_TIME);
        break;
    case SCHEMA_RATE:
        quantity(w, UNITS_RATE);
        break;
    case SCHEMA_LENGTH:
        quantity(w, UNITS_LENGTH);
        break;
    case SCHEMA_U32:
    case SCHEMA_U64:
        jw_kstr(w, "type", "integer");
        jw_ku64(w, "minimum", k->min);
        if (!max) max = k->type == SCHEMA_U32 ? UINT32_MAX : UINT64_MAX;
        jw_ku64(w, "maximum", max);
        if (k->def && k->def[strspn(k->def, "0123456789")] == 0) {
            jw_key(w, "default");
            jw_raw(w, k->def);
        }
        break;
    case SCHEMA_FRACTION:
    case SCHEMA_FRACTION_POS:
        jw_kstr(w, "type", "number");
        jw_knum(w, k->type == SCHEMA_FRACTION ? "minimum" : "exclusiveMinimum", 0);
        jw_knum(w, "maximum", 1);
        break;
    case SCHEMA_BOOL:
        jw_kstr(w, "type", "boolean");
        if (k->def && (!strcmp(k->def, "true") || !strcmp(k->def, "false")))
            jw_kbool(w, "default", !strcmp(k->def, "true"));
        break;
    case SCHEMA_ENUM:
        jw_key(w, "enum");
        jw_arr_compact(w);
        for (size_t i = 0; k->names && k->names[i]; i++)
            jw_str(w, k->names[i]);
        jw_arr_end(w);
        if (k->def) jw_kstr(w, "default", k->def);
        break;
    case SCHEMA_HOST:
        jw_kstr(w, "type", "string");
        jw_kstr(w, "pattern", "^h[0-9]+$");
        break;
    case SCHEMA_STRING:
        jw_kstr(w, "type", "string");
        jw_key(w, "minLength");
        jw_u64(w, 1);
        break;
    case SCHEMA_MAP:
        table(w, k->sub, depth + 1);
        break;
    case SCHEMA_LIST:
        type_array(w, "array", "null");
        jw_key(w, "items");
        jw_obj(w);
        table(w, k->sub, depth + 1);
        jw_obj_end(w);
        break;
    case SCHEMA_CUSTOM: /* read by its own parser: any YAML value */
        if (k->def) jw_kstr(w, "default", k->def);
        break;
    }
    jw_obj_end(w);
}

static bool in_mode(const struct schema_key *k, unsigned m) {
    return !k->only || ((k->only >> m) & 1u);
}

/* The per-mode rules of a table with a selector whose spellings are the
 * mode names: `allOf` of one `if` (the selector has this value) / `then`
 * (the mode's required keys; the other modes' keys false) per mode. With
 * the selector absent, fabsim takes its default mode, unless the table
 * infers the mode from other keys (topology: `k` means fat_tree); the
 * default mode's `if` then holds without the key, the others need it. */
static void modes(struct jw *w, const struct schema_table *t) {
    const struct schema_key *sel = NULL;
    for (size_t i = 0; i < t->nkeys; i++)
        if (t->keys[i].flags & SCHEMA_SELECTOR) sel = &t->keys[i];
    if (!sel || sel->type != SCHEMA_ENUM || !t->mode_names || sel->names != t->mode_names) return;
    bool any_rule = false;
    for (size_t i = 0; i < t->nkeys; i++)
        any_rule |= t->keys[i].only != 0;
    if (!any_rule) return;
    jw_key(w, "allOf");
    jw_arr(w);
    for (unsigned m = 0; m < 32 && t->mode_names[m]; m++) {
        const char *name = t->mode_names[m];
        bool dflt =
            !t->infer && !(sel->flags & SCHEMA_REQUIRED) && sel->def && !strcmp(sel->def, name);
        jw_obj(w);
        jw_key(w, "if");
        jw_obj(w);
        jw_key(w, "properties");
        jw_obj(w);
        jw_key(w, sel->name);
        jw_obj(w);
        jw_kstr(w, "const", name);
        jw_obj_end(w);
        jw_obj_end(w);
        if (!dflt) {
            jw_key(w, "required");
            jw_arr_compact(w);
            jw_str(w, sel->name);
            jw_arr_end(w);
        }
        jw_obj_end(w);
        jw_key(w, "then");
        jw_obj(w);
        char title[128];
        snprintf(title, sizeof title, "%s %s", t->what, name);
        jw_kstr(w, "title", title);
        jw_key(w, "properties");
        jw_obj(w);
        for (size_t i = 0; i < t->nkeys; i++)
            if (!in_mode(&t->keys[i], m)) {
                jw_key(w, t->keys[i].name);
                jw_bool(w, false);
            }
        jw_obj_end(w);
        bool any = false;
        for (size_t i = 0; i < t->nkeys; i++) {
            const struct schema_key *k = &t->keys[i];
            if (!(k->flags & SCHEMA_REQUIRED) || !k->only || !in_mode(k, m)) continue;
            if (!any) {
                jw_key(w, "required");
                jw_arr_compact(w);
                any = true;
            }
            jw_str(w, k->name);
        }
        if (any) jw_arr_end(w);
        jw_obj_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* An object with one property per key; unknown keys are errors (as in
 * fabsim), and an absent or null mapping takes every default. */
static void table(struct jw *w, const struct schema_table *t, int depth) {
    if (depth) {
        type_array(w, "object", "null");
        if (t->what) jw_kstr(w, "title", t->what);
    } else {
        jw_kstr(w, "type", "object");
        jw_kstr(w, "title", "fabsim scenario");
    }
    if (depth > 12) return; /* the tables are a tree; this only guards a mistake */
    jw_key(w, "properties");
    jw_obj(w);
    for (size_t i = 0; i < t->nkeys; i++)
        key(w, t, &t->keys[i], depth);
    jw_obj_end(w);
    jw_key(w, "additionalProperties");
    jw_bool(w, false);
    bool any = false;
    for (size_t i = 0; i < t->nkeys; i++) {
        const struct schema_key *k = &t->keys[i];
        if (!(k->flags & SCHEMA_REQUIRED) || k->only) continue;
        if (!any) {
            jw_key(w, "required");
            jw_arr_compact(w);
            any = true;
        }
        jw_str(w, k->name);
    }
    if (any) jw_arr_end(w);
    modes(w, t);
}

void scenario_json_schema(FILE *f) {
    struct jw w;
    jw_init(&w, f);
    jw_obj(&w);
    jw_kstr(&w, "$schema", "http://json-schema.org/draft-07/schema#");
    jw_kstr(&w, "$comment",
            "Generated by `fabsim schema` (fabsim " FABSIM_VERSION
            ") from the tables that read scenario files.");
    table(&w, &SCHEMA_SCENARIO, 0);
    jw_obj_end(&w);
    jw_end(&w);
}

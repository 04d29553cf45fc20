/* src/config/explain.c
 *
 * scenario_explain (fabsim validate --explain): writes a resolved scenario
 * back as YAML through the same schema tables that read it, so every key
 * appears with its value and unit, values still at their default name the
 * default's source, and the output loads back into the same scenario.
 */
#include "config/scenario.h"
#include "config/scenario_int.h"

#include "config/schema.h"

#include <stdlib.h>
#include <string.h>

/* Formats a plain-typed value; false for strings and custom keys, which
 * print themselves. */
static bool format(const struct schema_key *k, const void *obj, char *buf, size_t len) {
    const char *field = (const char *)obj + k->off;
    switch (k->type) {
    case SCHEMA_SIZE:
    case SCHEMA_TIME:
    case SCHEMA_RATE:
    case SCHEMA_LENGTH:
    case SCHEMA_U64: {
        uint64_t v;
        memcpy(&v, field, sizeof v);
        schema_fmt(k->type, v, buf, len);
        return true;
    }
    case SCHEMA_U32:
    case SCHEMA_HOST: {
        uint32_t v;
        memcpy(&v, field, sizeof v);
        if (k->type == SCHEMA_HOST)
            snprintf(buf, len, "h%u", v);
        else
            schema_fmt(k->type, v, buf, len);
        return true;
    }
    case SCHEMA_FRACTION:
    case SCHEMA_FRACTION_POS: {
        double v;
        memcpy(&v, field, sizeof v);
        schema_fmt_double(v, buf, len);
        return true;
    }
    case SCHEMA_BOOL:
        snprintf(buf, len, "%s", *(const bool *)field ? "true" : "false");
        return true;
    case SCHEMA_ENUM: {
        int v;
        memcpy(&v, field, sizeof v);
        snprintf(buf, len, "%s", k->names[v]);
        return true;
    }
    default:
        return false;
    }
}

static bool shown(const struct schema_key *k, int mode, const void *obj) {
    if (k->flags & SCHEMA_ALIAS) return false;
    if (k->only && mode >= 0 && !((k->only >> mode) & 1u)) return false;
    return !k->show || k->show(obj);
}

void schema_source_text(const char *src, char *buf, size_t len) {
    size_t o = 0;
    for (const char *p = src; *p && o + 1 < len;) {
        /* the public SPEC.md as the project's copy, docs/spec.md */
        if (!strncmp(p, "SPEC.md", 7)) {
            o += (size_t)snprintf(buf + o, len - o, "docs/spec.md");
            if (o >= len) o = len - 1;
            p += 7;
        } else {
            buf[o++] = *p++;
        }
    }
    buf[o < len ? o : len - 1] = 0;
}

static void put_source(FILE *f, const char *src) {
    char buf[512];
    schema_source_text(src, buf, sizeof buf);
    fputs(buf, f);
}

static void scalar(FILE *f, const struct schema_key *k, const void *obj, bool alt,
                   const struct scenario *sc, bool comment) {
    char buf[64];
    if (format(k, obj, buf, sizeof buf)) {
        fputs(buf, f);
        const char *def = alt && k->def_alt ? k->def_alt : k->def;
        if (comment && def && k->source && !strcmp(buf, def)) {
            fputs("  # default: ", f);
            put_source(f, k->source);
        }
    } else if (k->type == SCHEMA_STRING) {
        const char *s = *(char *const *)((const char *)obj + k->off);
        print_string(f, s ? s : "");
    } else {
        /* a custom value: print it aside to say whether it is the default */
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (!m) {
            k->print(f, obj, sc);
            return;
        }
        k->print(m, obj, sc);
        fclose(m);
        fputs(text, f);
        const char *def = alt && k->def_alt ? k->def_alt : k->def;
        if (comment && def && k->source && !strcmp(text, def))
            fprintf(f, "  # default: %s", k->source);
        free(text);
    }
}

static int table_mode(const struct schema_table *t, const void *obj, bool *alt) {
    int mode = t->mode_of ? t->mode_of(obj) : -1;
    if (t->mode_of) *alt = mode >= 0 && ((t->alt_modes >> mode) & 1u);
    return mode;
}

static void flow_table(FILE *f, const struct schema_table *t, const void *obj, bool alt,
                       const struct scenario *sc) {
    int mode = table_mode(t, obj, &alt);
    bool first = true;
    fputc('{', f);
    for (size_t i = 0; i < t->nkeys; i++) {
        const struct schema_key *k = &t->keys[i];
        if (!shown(k, mode, obj)) continue;
        fprintf(f, "%s%s: ", first ? "" : ", ", k->name);
        scalar(f, k, obj, alt, sc, false);
        first = false;
    }
    fputc('}', f);
}

/* Block style at `indent`; with `dash` the first line opens a list item. */
static void block_table(FILE *f, const struct schema_table *t, const void *obj, int indent,
                        bool dash, bool alt, const struct scenario *sc) {
    int mode = table_mode(t, obj, &alt);
    for (size_t i = 0; i < t->nkeys; i++) {
        const struct schema_key *k = &t->keys[i];
        if (!shown(k, mode, obj)) continue;
        if (dash)
            fprintf(f, "%*s- %s:", indent - 2, "", k->name);
        else
            fprintf(f, "%*s%s:", indent, "", k->name);
        dash = false;
        const char *field = (const char *)obj + k->off;
        if (k->type == SCHEMA_MAP) {
            fputc('\n', f);
            block_table(f, k->sub, field, indent + 2, false, alt, sc);
        } else if (k->type == SCHEMA_LIST) {
            char *const *arr = (char *const *)field;
            size_t n = *(const size_t *)((const char *)obj + k->off_n);
            if (n == 0) {
                fputs(" []\n", f);
                continue;
            }
            fputc('\n', f);
            for (size_t j = 0; j < n; j++) {
                const char *item = *arr + j * k->elem_size;
                if (k->sub->flow) {
                    fprintf(f, "%*s- ", indent + 2, "");
                    flow_table(f, k->sub, item, alt, sc);
                    fputc('\n', f);
                } else {
                    block_table(f, k->sub, item, indent + 4, true, alt, sc);
                }
            }
        } else {
            fputc(' ', f);
            scalar(f, k, obj, alt, sc, true);
            fputc('\n', f);
        }
    }
}

void scenario_explain(const struct scenario *sc, FILE *f) {
    fputs("# The resolved scenario: every key with its value. Values still at their\n"
          "# default say where the default comes from (docs/sources.md, docs/spec.md).\n",
          f);
    block_table(f, &SCHEMA_SCENARIO, sc, 0, false, false, sc);
}

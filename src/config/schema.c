/* src/config/schema.c
 *
 * Reads YAML trees through the schema tables of config/schema.h: type checks
 * and unit conversion of scalars, defaults, unknown and duplicate keys (with
 * a "did you mean"), required keys, and keys that belong to another mode.
 * Knows no scenario key by name; those live in config/scenario*.c.
 */
#include "config/schema.h"
#include "core/strdist.h"

#include "config/yaml.h"
#include "core/mem.h"
#include "core/units.h"
#include "topo/topo.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

/* Tables are small; this bounds the per-call bookkeeping arrays. */
#define MAX_KEYS 64

int schema_fail(struct schema_ctx *c, const struct yaml_node *n, int code, const char *fmt, ...) {
    char msg[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *file = n && n->file ? n->file : c->file;
    struct srcpos pos = n ? n->pos : (struct srcpos){0, 0};
    if (c->path[0]) return diag_set(c->d, file, pos, code, "%s: %s", c->path, msg);
    return diag_set(c->d, file, pos, code, "%s", msg);
}

static size_t path_push(struct schema_ctx *c, const char *name) {
    size_t old = strlen(c->path);
    snprintf(c->path + old, sizeof c->path - old, "%s%s", old ? "." : "", name);
    return old;
}

static void path_pop(struct schema_ctx *c, size_t old) {
    c->path[old] = 0;
}

int schema_text(struct schema_ctx *c, const struct yaml_node *n, const char *expected,
                const char **text) {
    if (!n || yaml_is_null(n) || n->type != YAML_SCALAR)
        return schema_fail(c, n, FS_EINVAL, "expected %s, got %s", expected, yaml_describe(n));
    *text = n->text;
    return 0;
}

void schema_suggest(char *buf, size_t len, const char *word, const char *const *cands,
                    size_t ncands) {
    buf[0] = 0;
    size_t best = SIZE_MAX, wl = strlen(word);
    const char *pick = NULL;
    for (size_t i = 0; i < ncands; i++) {
        size_t dist = str_osa_distance(word, cands[i], true);
        size_t cl = strlen(cands[i]), ml = cl > wl ? cl : wl;
        /* close enough to be a typo, and not a wholesale replacement */
        if (dist <= 3 && dist <= (ml + 2) / 3 && dist < wl && dist < best) {
            best = dist;
            pick = cands[i];
        }
    }
    if (pick) snprintf(buf, len, "; did you mean '%s'?", pick); /* callers add " allowed: ..." */
}

static void join(char *buf, size_t len, const char *const *words, size_t n) {
    size_t off = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && off + 1 < len; i++) {
        int w = snprintf(buf + off, len - off, "%s%s", i ? ", " : "", words[i]);
        if (w < 0) break;
        off += (size_t)w;
    }
}

/* Formatting -------------------------------------------------------------- */

struct unit {
    const char *name;
    uint64_t mult;
};

static const struct unit SIZE_BIN[] = {{"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1024}};
static const struct unit SIZE_DEC[] = {{"GB", 1000000000ull}, {"MB", 1000000}, {"KB", 1000}};
static const struct unit TIME_U[] = {
    {"s", 1000000000000ull}, {"ms", 1000000000ull}, {"us", 1000000}, {"ns", 1000}, {"ps", 1}};
static const struct unit RATE_U[] = {{"Tbps", 1000000000000ull},
                                     {"Gbps", 1000000000ull},
                                     {"Mbps", 1000000},
                                     {"Kbps", 1000},
                                     {"bps", 1}};
static const struct unit LEN_U[] = {{"m", 1000}, {"cm", 10}, {"mm", 1}};

static bool fmt_units(uint64_t v, const struct unit *u, size_t n, char *buf, size_t len) {
    for (size_t i = 0; i < n; i++) {
        if (v % u[i].mult == 0) {
            snprintf(buf, len, "%llu%s", (unsigned long long)(v / u[i].mult), u[i].name);
            return true;
        }
    }
    return false;
}

void schema_fmt(enum schema_type type, uint64_t v, char *buf, size_t len) {
    if (v == 0 && type != SCHEMA_U32 && type != SCHEMA_U64) {
        snprintf(buf, len, "0");
        return;
    }
    switch (type) {
    case SCHEMA_SIZE:
        if (!fmt_units(v, SIZE_BIN, 3, buf, len) && !fmt_units(v, SIZE_DEC, 3, buf, len))
            snprintf(buf, len, "%lluB", (unsigned long long)v);
        return;
    case SCHEMA_TIME:
        fmt_units(v, TIME_U, 5, buf, len);
        return;
    case SCHEMA_RATE:
        fmt_units(v, RATE_U, 5, buf, len);
        return;
    case SCHEMA_LENGTH:
        fmt_units(v, LEN_U, 3, buf, len);
        return;
    default:
        snprintf(buf, len, "%llu", (unsigned long long)v);
        return;
    }
}

void schema_fmt_double(double v, char *buf, size_t len) {
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

/* Scalars ----------------------------------------------------------------- */

static const char *expected_of(enum schema_type type) {
    switch (type) {
    case SCHEMA_SIZE:
        return "a size such as 4MiB (B KiB MiB GiB KB MB GB)";
    case SCHEMA_TIME:
        return "a time such as 100us (ps ns us ms s)";
    case SCHEMA_RATE:
        return "a rate such as 400Gbps (Mbps Gbps Tbps GBps)";
    case SCHEMA_LENGTH:
        return "a length such as 5m (mm cm m km)";
    case SCHEMA_FRACTION:
    case SCHEMA_FRACTION_POS:
        return "a number such as 0.5";
    case SCHEMA_BOOL:
        return "true or false";
    default:
        return "a whole number";
    }
}

int schema_number(struct schema_ctx *c, enum schema_type type, const struct yaml_node *n,
                  uint64_t min, uint64_t max, uint64_t *out) {
    const char *s;
    int rc = schema_text(c, n, expected_of(type), &s);
    if (rc) return rc;
    char why[256];
    uint64_t v = 0;
    switch (type) {
    case SCHEMA_SIZE:
        rc = units_parse_size(s, &v, why, sizeof why);
        break;
    case SCHEMA_TIME:
        rc = units_parse_time(s, &v, why, sizeof why);
        break;
    case SCHEMA_RATE:
        rc = units_parse_rate(s, &v, why, sizeof why);
        break;
    case SCHEMA_LENGTH:
        rc = units_parse_length(s, &v, why, sizeof why);
        break;
    default: {
        /* strtoull alone would accept " -1" (as a huge value) and "12abc". */
        if (s[0] == '-') {
            rc = FS_ERANGE;
            snprintf(why, sizeof why, "must not be negative, got '%.64s'", s);
        } else if (!isdigit((unsigned char)s[0])) {
            rc = FS_EINVAL;
            snprintf(why, sizeof why, "expected a whole number, got '%.64s'", s);
        } else {
            char *end;
            errno = 0;
            unsigned long long x = strtoull(s, &end, 10);
            if (*end) {
                rc = FS_EINVAL;
                snprintf(why, sizeof why, "expected a whole number, got '%.64s'", s);
            } else if (errno == ERANGE) {
                x = UINT64_MAX; /* reported by the range check below */
                if (type == SCHEMA_U64 && !max) {
                    rc = FS_ERANGE;
                    snprintf(why, sizeof why, "'%.64s' is too large; must be at most %llu", s,
                             (unsigned long long)UINT64_MAX);
                }
            }
            v = x;
        }
        break;
    }
    }
    if (rc) return schema_fail(c, n, rc, "%s", why);
    uint64_t hi = max ? max : type == SCHEMA_U32 ? UINT32_MAX : UINT64_MAX;
    if (v < min || v > hi) {
        char lo[40], up[40];
        schema_fmt(type, min, lo, sizeof lo);
        schema_fmt(type, hi, up, sizeof up);
        if (v < min)
            return schema_fail(c, n, FS_ERANGE, "'%.64s' is too small; must be at least %s", s, lo);
        return schema_fail(c, n, FS_ERANGE, "'%.64s' is too large; must be at most %s", s, up);
    }
    *out = v;
    return 0;
}

/* A decimal fraction; strtod's hex, inf and nan spellings are refused. */
static int read_fraction(struct schema_ctx *c, const struct yaml_node *n, bool open0, double *out) {
    const char *s;
    int rc = schema_text(c, n, expected_of(SCHEMA_FRACTION), &s);
    if (rc) return rc;
    bool digit = false, ok = s[0] != 0;
    for (const char *p = s; *p; p++) {
        if (isdigit((unsigned char)*p))
            digit = true;
        else if (!strchr(".eE+-", *p))
            ok = false;
    }
    char *end = NULL;
    double v = ok && digit ? strtod(s, &end) : 0;
    if (!ok || !digit || *end || !isfinite(v))
        return schema_fail(c, n, FS_EINVAL, "expected a number such as 0.5, got '%.64s'", s);
    if (v < 0 || v > 1 || (open0 && v == 0))
        return schema_fail(c, n, FS_ERANGE, "%.64s is outside %s", s,
                           open0 ? "(0, 1]: more than 0 and at most 1" : "[0, 1]");
    *out = v;
    return 0;
}

static int read_bool(struct schema_ctx *c, const struct yaml_node *n, bool *out) {
    const char *s;
    int rc = schema_text(c, n, "true or false", &s);
    if (rc) return rc;
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
        *out = true;
    else if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
        *out = false;
    else
        return schema_fail(c, n, FS_EINVAL, "expected true or false, got '%.64s'", s);
    return 0;
}

static int read_enum(struct schema_ctx *c, const struct yaml_node *n, const char *const *names,
                     int *out) {
    size_t count = 0;
    while (names[count])
        count++;
    char allowed[256], sug[128];
    join(allowed, sizeof allowed, names, count);
    char expected[300];
    snprintf(expected, sizeof expected, "one of: %s", allowed);
    const char *s;
    int rc = schema_text(c, n, expected, &s);
    if (rc) return rc;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (int)i;
            return 0;
        }
    }
    schema_suggest(sug, sizeof sug, s, names, count);
    return schema_fail(c, n, FS_EINVAL, "unknown value '%.64s'%s%s allowed: %s", s, sug,
                       sug[0] ? "" : ";", allowed);
}

/* Hosts ------------------------------------------------------------------- */

/* Reads "N" from digits (no sign, no leading zeros); false if not that form. */
static bool read_index(const char *s, size_t len, uint64_t *out) {
    if (len == 0 || len > 9 || (s[0] == '0' && len > 1)) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i])) return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

int schema_host(struct schema_ctx *c, const struct yaml_node *n, bool gpu_ok, uint32_t *out,
                bool *is_gpu) {
    const char *s;
    int rc = schema_text(c, n, "a host name such as h0", &s);
    if (rc) return rc;
    const struct topo_params *t = c->topo;
    uint32_t hosts = topo_host_count(t);
    const char *dot = strchr(s, '.');
    size_t hl = dot ? (size_t)(dot - s) : strlen(s);
    uint64_t h = 0, g = 0;
    bool gpu_form = dot && dot[1] == 'g' && read_index(dot + 2, strlen(dot + 2), &g);
    if (s[0] != 'h' || !read_index(s + 1, hl - 1, &h) || (dot && !gpu_form))
        return schema_fail(c, n, FS_EINVAL, "'%.64s' is not a host name; hosts are h0..h%u%s", s,
                           hosts - 1, gpu_ok ? ", GPUs h0.g0.." : "");
    if (h >= hosts)
        return schema_fail(c, n, FS_EINVAL,
                           "unknown host '%.64s'; this fabric has %u hosts (h0..h%u)", s, hosts,
                           hosts - 1);
    *is_gpu = gpu_form;
    if (gpu_form) {
        if (!gpu_ok)
            return schema_fail(c, n, FS_EINVAL,
                               "'%.64s' names a GPU; a host name (h0..h%u) is "
                               "needed here",
                               s, hosts - 1);
        if (t->gpus_per_host <= 1)
            return schema_fail(c, n, FS_EINVAL,
                               "'%.64s' names a GPU, but topology.gpus_per_host is "
                               "1; use host names h0..h%u",
                               s, hosts - 1);
        if (g >= t->gpus_per_host)
            return schema_fail(c, n, FS_EINVAL,
                               "unknown GPU '%.64s'; each host has %u GPUs "
                               "(g0..g%u)",
                               s, t->gpus_per_host, t->gpus_per_host - 1);
        *out = (uint32_t)(h * t->gpus_per_host + g);
        return 0;
    }
    *out = (uint32_t)h;
    return 0;
}

/* The engine -------------------------------------------------------------- */

static bool in_mode(const struct schema_key *k, int mode) {
    return !k->only || mode < 0 || ((k->only >> mode) & 1u);
}

static int read_key(struct schema_ctx *c, const struct schema_key *k, const struct yaml_node *n,
                    void *obj, bool alt);

static int read_list(struct schema_ctx *c, const struct schema_key *k, const struct yaml_node *n,
                     void *obj, bool alt) {
    void **arr = (void **)((char *)obj + k->off);
    size_t *count = (size_t *)((char *)obj + k->off_n);
    if (!n || yaml_is_null(n)) return 0;
    if (n->type != YAML_SEQ)
        return schema_fail(c, n, FS_EINVAL, "expected a list ('- item' lines or [a, b]), got %s",
                           yaml_describe(n));
    if (n->nitems == 0) return 0;
    /* YAML aliases can repeat a list many times over: bound the expansion
     * before allocating (SC_MAX_LIST_ITEMS, one of config/limits.h's limits). */
    c->items_read += n->nitems;
    if (c->items_read > SC_MAX_LIST_ITEMS)
        return schema_fail(c, n, FS_EINVAL,
                           "the scenario expands to more than %llu list items (YAML aliases "
                           "repeating lists?); limit SC_MAX_LIST_ITEMS, docs/outputs.md \"Limits\"",
                           (unsigned long long)SC_MAX_LIST_ITEMS);
    *arr = fs_xcalloc(n->nitems, k->elem_size);
    *count = n->nitems;
    for (size_t i = 0; i < n->nitems; i++) {
        char idx[24];
        snprintf(idx, sizeof idx, "%zu", i);
        void *elem = (char *)*arr + i * k->elem_size;
        if (k->sub->has_pos) *(struct srcpos *)((char *)elem + k->sub->pos_off) = n->items[i]->pos;
        size_t old = path_push(c, idx);
        int rc = schema_read(c, k->sub, n->items[i], elem, alt, n->items[i]);
        path_pop(c, old);
        if (rc) return rc;
    }
    return 0;
}

static int read_key(struct schema_ctx *c, const struct schema_key *k, const struct yaml_node *n,
                    void *obj, bool alt) {
    void *field = (char *)obj + k->off;
    int rc;
    switch (k->type) {
    case SCHEMA_SIZE:
    case SCHEMA_TIME:
    case SCHEMA_RATE:
    case SCHEMA_LENGTH:
    case SCHEMA_U64: {
        uint64_t v;
        rc = schema_number(c, k->type, n, k->min, k->max, &v);
        if (!rc) *(uint64_t *)field = v;
        return rc;
    }
    case SCHEMA_U32: {
        uint64_t v;
        rc = schema_number(c, k->type, n, k->min, k->max, &v);
        if (!rc) *(uint32_t *)field = (uint32_t)v;
        return rc;
    }
    case SCHEMA_FRACTION:
    case SCHEMA_FRACTION_POS:
        return read_fraction(c, n, k->type == SCHEMA_FRACTION_POS, (double *)field);
    case SCHEMA_BOOL:
        return read_bool(c, n, (bool *)field);
    case SCHEMA_ENUM:
        return read_enum(c, n, k->names, (int *)field);
    case SCHEMA_HOST: {
        uint32_t h;
        bool gpu;
        rc = schema_host(c, n, false, &h, &gpu);
        if (!rc) *(uint32_t *)field = h;
        return rc;
    }
    case SCHEMA_STRING: {
        const char *s;
        rc = schema_text(c, n, "a string", &s);
        if (rc) return rc;
        if (!s[0]) return schema_fail(c, n, FS_EINVAL, "must not be empty");
        free(*(char **)field);
        *(char **)field = fs_xstrdup(s);
        return 0;
    }
    case SCHEMA_MAP:
        return schema_read(c, k->sub, n, field, alt, n);
    case SCHEMA_LIST:
        return read_list(c, k, n, obj, alt);
    case SCHEMA_CUSTOM:
        return k->parse(c, n, obj);
    }
    return FS_EINTERNAL;
}

/* Applies a key's default: its text goes through the same reader as a
 * scenario file would, so defaults are spelled (and checked) like input. */
static int read_default(struct schema_ctx *c, const struct schema_key *k, void *obj, bool alt,
                        const struct yaml_node *where) {
    const char *text = alt && k->def_alt ? k->def_alt : k->def;
    if (!text) {
        if (k->type == SCHEMA_MAP)
            return schema_read(c, k->sub, NULL, (char *)obj + k->off, alt, where);
        return 0;
    }
    struct yaml_node synth;
    memset(&synth, 0, sizeof synth);
    synth.type = YAML_SCALAR;
    synth.file = "<default>";
    synth.text = (char *)text;
    synth.len = strlen(text);
    int rc = read_key(c, k, &synth, obj, alt);
    FS_ASSERT(rc == 0, "default '%s' of key '%s' does not read back: %s", text, k->name,
              c->d ? c->d->msg : "");
    return rc;
}

/* Keys a later model replaced: their own message, not "unknown key". */
static const struct {
    const char *table, *key, *why;
} RETIRED[] = {
    {"fabric", "credit_batch",
     "fabric.credit_batch was retired: InfiniBand flow-control packets are now sent per VL when "
     "credits change, no more often than fabric.credit_interval, and refreshed every "
     "fabric.credit_refresh, as IBA sends them (docs/scenario.md); use credit_interval"},
    {"fabric", "credit_flush",
     "fabric.credit_flush was retired: InfiniBand flow-control packets are now sent per VL when "
     "credits change, no more often than fabric.credit_interval, and refreshed every "
     "fabric.credit_refresh, as IBA sends them (docs/scenario.md); use credit_interval"},
};

static int unknown_key(struct schema_ctx *c, const struct schema_table *t, int mode,
                       const struct yaml_node *key) {
    for (size_t i = 0; i < sizeof RETIRED / sizeof RETIRED[0]; i++)
        if (t->what && !strcmp(t->what, RETIRED[i].table) && !strcmp(key->text, RETIRED[i].key))
            return schema_fail(c, key, FS_EINVAL, "%s", RETIRED[i].why);
    const char *cands[MAX_KEYS];
    size_t n = 0;
    for (size_t i = 0; i < t->nkeys; i++)
        if (in_mode(&t->keys[i], mode)) cands[n++] = t->keys[i].name;
    char allowed[512], sug[128];
    join(allowed, sizeof allowed, cands, n);
    schema_suggest(sug, sizeof sug, key->text, cands, n);
    return schema_fail(c, key, FS_EINVAL, "unknown key '%.64s'%s%s allowed: %s", key->text, sug,
                       sug[0] ? "" : ";", allowed);
}

static int wrong_mode(struct schema_ctx *c, const struct schema_table *t, int mode,
                      const struct schema_key *k, const struct yaml_node *key) {
    const char *modes[32];
    size_t n = 0;
    for (int m = 0; m < 32 && t->mode_names && t->mode_names[m]; m++)
        if ((k->only >> m) & 1u) modes[n++] = t->mode_names[m];
    char list[256];
    join(list, sizeof list, modes, n);
    return schema_fail(c, key, FS_EINVAL, "key '%s' is not used by %s '%s'; it belongs to: %s",
                       k->name, t->mode_what, t->mode_names[mode], list);
}

int schema_read(struct schema_ctx *c, const struct schema_table *t, const struct yaml_node *map,
                void *obj, bool alt, const struct yaml_node *where) {
    FS_ASSERT(t->nkeys <= MAX_KEYS, "table %s has %zu keys", t->what, t->nkeys);
    if (map && yaml_is_null(map)) map = NULL;
    if (map && map->type != YAML_MAP)
        return schema_fail(c, map, FS_EINVAL, "expected a mapping of %s keys (key: value), got %s",
                           t->what, yaml_describe(map));
    const struct yaml_node *here = map ? map : where;
    int rc = 0;

    /* 1. The selector (fabric.kind, topology.kind ...) sets the mode, which
     *    decides the default column and which keys belong. */
    int sel = -1;
    for (size_t i = 0; i < t->nkeys; i++)
        if (t->keys[i].flags & SCHEMA_SELECTOR) sel = (int)i;
    const struct yaml_node *selnode = sel >= 0 ? yaml_map_get(map, t->keys[sel].name) : NULL;
    if (selnode) {
        size_t old = path_push(c, t->keys[sel].name);
        rc = read_key(c, &t->keys[sel], selnode, obj, alt);
        path_pop(c, old);
    } else {
        int inferred = t->infer ? t->infer(c, map, here, obj) : 0;
        if (inferred < 0) return inferred;
        if (!inferred && sel >= 0) {
            if (t->keys[sel].flags & SCHEMA_REQUIRED)
                return schema_fail(c, here, FS_EINVAL, "missing required key '%s' in this %s",
                                   t->keys[sel].name, t->what);
            rc = read_default(c, &t->keys[sel], obj, alt, here);
        }
    }
    if (rc) return rc;
    int mode = t->mode_of ? t->mode_of(obj) : -1;
    if (t->mode_of) alt = mode >= 0 && ((t->alt_modes >> mode) & 1u);

    /* 2. Every key given must be known, once, and belong to the mode. */
    const struct yaml_node *keys[MAX_KEYS] = {0}, *vals[MAX_KEYS] = {0};
    for (size_t p = 0; map && p < map->npairs; p++) {
        const struct yaml_node *key = map->pairs[p].key;
        if (key->type != YAML_SCALAR || yaml_is_null(key))
            return schema_fail(c, key, FS_EINVAL, "a key must be a plain word, got %s",
                               yaml_describe(key));
        size_t i = 0;
        while (i < t->nkeys && strcmp(t->keys[i].name, key->text) != 0)
            i++;
        if (i == t->nkeys) return unknown_key(c, t, mode, key);
        if (keys[i]) {
            if (keys[i]->file == key->file)
                return schema_fail(c, key, FS_EINVAL,
                                   "duplicate key '%s' (first given at line %u, column %u)",
                                   key->text, keys[i]->pos.line, keys[i]->pos.col);
            return schema_fail(c, key, FS_EINVAL, "duplicate key '%s'", key->text);
        }
        if (!in_mode(&t->keys[i], mode)) return wrong_mode(c, t, mode, &t->keys[i], key);
        keys[i] = key;
        vals[i] = map->pairs[p].val;
    }

    /* 3. Each key in table order: its value, or its default. */
    for (size_t i = 0; i < t->nkeys; i++) {
        const struct schema_key *k = &t->keys[i];
        if ((int)i == sel) continue;
        if (vals[i]) {
            size_t old = path_push(c, k->name);
            rc = read_key(c, k, vals[i], obj, alt);
            path_pop(c, old);
        } else if ((k->flags & SCHEMA_REQUIRED) && in_mode(k, mode)) {
            if (mode >= 0 && t->mode_names)
                return schema_fail(c, here, FS_EINVAL, "missing required key '%s' in this %s (%s)",
                                   k->name, t->what, t->mode_names[mode]);
            return schema_fail(c, here, FS_EINVAL, "missing required key '%s' in this %s", k->name,
                               t->what);
        } else if (!t->no_defaults && in_mode(k, mode)) {
            size_t old = path_push(c, k->name);
            rc = read_default(c, k, obj, alt, here);
            path_pop(c, old);
        }
        if (rc) return rc;
    }

    /* 4. Rules that tie keys together. */
    return t->check ? t->check(c, map, here, obj) : 0;
}

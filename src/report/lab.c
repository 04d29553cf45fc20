/* src/report/lab.c
 *
 * lab.yaml: parsing with file:line:col errors, and the generic evaluation
 * of a lab's metrics, findings and verdict from its runs' results. The
 * format is documented in docs/labs/README.md; nothing here knows any
 * particular lab.
 */
#include "report/lab.h"

#include "config/yaml.h"
#include "core/mem.h"
#include "report/jread.h"
#include "core/jw.h"

#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const chart_types[] = {
    "counters",
    "timelines",
    "timelines_pair",
    "throughput",
    "busbw",
    "busbw_ranks",
    "jobs",
    "spine_time",
    "spine_bytes",
    "offered_load",
    "balls_into_bins",
    "topology_load",
    "deadlock",
    "fct",
    "dcqcn_rate",
    "bom",
    "moe",
    "inference",
};

const char *lab_sub_name(enum lab_sub v) {
    switch (v) {
    case LAB_SUB_HOLDS:
        return "holds";
    case LAB_SUB_CONDITIONS:
        return "holds under conditions";
    case LAB_SUB_NOT:
        return "does not hold here";
    default:
        return "not decided";
    }
}

const char *lab_verdict_name(enum lab_verdict v) {
    switch (v) {
    case LAB_HOLDS:
        return "holds";
    case LAB_NUANCE:
        return "holds with a nuance";
    case LAB_NOT:
        return "does not hold here";
    default:
        return "not decided";
    }
}

static int err_at(struct diag *d, const char *file, const struct yaml_node *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int err_at(struct diag *d, const char *file, const struct yaml_node *n, const char *fmt,
                  ...) {
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return diag_set(d, file, n ? n->pos : (struct srcpos){0, 0}, FS_EINVAL, "%s", msg);
}

/* The text of a scalar, or an error naming what was expected. */
static int scalar(struct diag *d, const char *file, const struct yaml_node *n, const char *what,
                  char **out) {
    if (!n || n->type != YAML_SCALAR)
        return err_at(d, file, n, "%s: expected text, got %s", what, yaml_describe(n));
    free(*out);
    *out = fs_xstrdup(n->text);
    return 0;
}

static int check_keys(struct diag *d, const char *file, const struct yaml_node *map,
                      const char *what, const char *const *allowed) {
    if (!map || map->type != YAML_MAP)
        return err_at(d, file, map, "%s: expected a mapping, got %s", what, yaml_describe(map));
    for (size_t i = 0; i < map->npairs; i++) {
        const char *k = map->pairs[i].key->text ? map->pairs[i].key->text : "";
        bool ok = false;
        for (const char *const *a = allowed; *a; a++)
            ok = ok || !strcmp(*a, k);
        for (size_t j = 0; ok && j < i; j++)
            if (map->pairs[j].key->text && !strcmp(map->pairs[j].key->text, k))
                return err_at(d, file, map->pairs[i].key, "%s: '%s' given twice", what, k);
        if (!ok) {
            char list[400] = "";
            size_t l = 0;
            for (const char *const *a = allowed; *a && l < sizeof list - 1; a++)
                l += (size_t)snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", *a);
            return err_at(d, file, map->pairs[i].key, "%s: unknown key '%s' (allowed: %s)", what, k,
                          list);
        }
    }
    return 0;
}

static int parse_expr(struct diag *d, const char *file, const struct yaml_node *n,
                      enum expr_ctx ctx, struct expr *e, const char *what) {
    char *src = NULL;
    int rc = scalar(d, file, n, what, &src);
    if (rc) return rc;
    char msg[600];
    unsigned col = 0;
    rc = expr_parse(e, src, ctx, &col, msg, sizeof msg);
    free(src);
    if (!rc) return 0;
    struct srcpos p = n->pos;
    if (!strchr(n->text, '\n')) p.col += col;
    return diag_set(d, file, p, FS_EINVAL, "%s: %s", what, msg);
}

static int metric_index(const struct lab_def *L, const char *name) {
    for (size_t i = 0; i < L->nm; i++)
        if (!strcmp(L->m[i].name, name)) return (int)i;
    return -1;
}

/* Resolves the names of a lab expression to metric indices (only metrics
 * defined before `limit`, so that derived metrics cannot loop). */
static int bind(struct diag *d, const char *file, const struct yaml_node *n,
                const struct lab_def *L, struct expr *e, size_t limit, const char *what) {
    for (size_t i = 0; i < e->len; i++) {
        struct expr_node *x = &e->n[i];
        if (x->op != EXPR_NAME) continue;
        int k = metric_index(L, x->text);
        if (k < 0 || (size_t)k >= limit) {
            struct srcpos p = n->pos;
            if (!strchr(n->text, '\n')) p.col += x->col;
            return diag_set(d, file, p, FS_EINVAL,
                            "%s: '%s' is not a metric of this lab%s (metrics are defined under "
                            "`metrics:`; a derived metric may use only those above it)",
                            what, x->text, k >= 0 ? " yet" : "");
        }
        x->metric = k;
    }
    return 0;
}

/* Every {name} of a template must be a metric. */
static int check_template(struct diag *d, const char *file, const struct yaml_node *n,
                          const struct lab_def *L, const char *what) {
    for (const char *p = n->text; (p = strchr(p, '{'));) {
        const char *e = strchr(p, '}');
        if (!e) return diag_set(d, file, n->pos, FS_EINVAL, "%s: '{' without its '}'", what);
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(e - p - 1), p + 1);
        if (metric_index(L, name) < 0) {
            struct srcpos pos = n->pos;
            if (!strchr(n->text, '\n')) pos.col += (unsigned)(p - n->text);
            return diag_set(d, file, pos, FS_EINVAL, "%s: {%s} is not a metric of this lab", what,
                            name);
        }
        p = e + 1;
    }
    return 0;
}

/* `set: [KEY=VALUE, ...]` of a run or a reading (`what` names it in messages). */
static int parse_sets(struct diag *d, const char *file, const struct yaml_node *s, const char *what,
                      char ***sets, size_t *nsets) {
    if (s->type != YAML_SEQ)
        return err_at(d, file, s, "%s: set: expected a list of KEY=VALUE, got %s", what,
                      yaml_describe(s));
    char wset[64];
    snprintf(wset, sizeof wset, "%s: set", what);
    *sets = fs_xcalloc(s->nitems + 1, sizeof **sets);
    for (size_t k = 0; k < s->nitems; k++) {
        char *v = NULL;
        int rc = scalar(d, file, s->items[k], wset, &v);
        if (rc) return rc;
        (*sets)[(*nsets)++] = v;
        if (!strchr(v, '=') || v[0] == '=')
            return err_at(d, file, s->items[k], "%s: '%s' is not KEY=VALUE", wset, v);
    }
    return 0;
}

static int parse_runs(struct lab_def *L, const char *file, const struct yaml_node *n,
                      struct diag *d) {
    static const char *const keys[] = {"id", "file", "label", "set", NULL};
    if (n->type != YAML_SEQ)
        return err_at(d, file, n, "runs: expected a list, got %s", yaml_describe(n));
    L->runs = fs_xcalloc(n->nitems + 1, sizeof *L->runs);
    for (size_t i = 0; i < n->nitems; i++) {
        const struct yaml_node *r = n->items[i];
        int rc = check_keys(d, file, r, "runs item", keys);
        struct lab_run *run = &L->runs[L->nruns++];
        if (!rc) rc = scalar(d, file, yaml_map_get(r, "id"), "runs item: id", &run->id);
        if (!rc) rc = scalar(d, file, yaml_map_get(r, "file"), "runs item: file", &run->file);
        if (!rc && yaml_map_get(r, "label"))
            rc = scalar(d, file, yaml_map_get(r, "label"), "runs item: label", &run->label);
        if (rc) return rc;
        for (size_t k = 0; k + 1 < L->nruns; k++)
            if (!strcmp(L->runs[k].id, run->id))
                return err_at(d, file, yaml_map_get(r, "id"), "runs: id '%s' given twice", run->id);
        const struct yaml_node *s = yaml_map_get(r, "set");
        if (!s) continue;
        if ((rc = parse_sets(d, file, s, "runs item", &run->sets, &run->nsets))) return rc;
    }
    return 0;
}

/* readings: [{id, set: [KEY=VALUE, ...], why}] */
static int parse_readings(struct lab_def *L, const char *file, const struct yaml_node *n,
                          struct diag *d) {
    static const char *const keys[] = {"id", "set", "why", NULL};
    if (n->type != YAML_SEQ)
        return err_at(d, file, n, "readings: expected a list of {id, set, why}, got %s",
                      yaml_describe(n));
    L->readings = fs_xcalloc(n->nitems + 1, sizeof *L->readings);
    for (size_t i = 0; i < n->nitems; i++) {
        const struct yaml_node *r = n->items[i];
        int rc = check_keys(d, file, r, "readings item", keys);
        if (rc) return rc;
        struct lab_reading *rd = &L->readings[L->nreadings++];
        rd->pos = r->pos;
        const struct yaml_node *s = yaml_map_get(r, "set");
        if (!yaml_map_get(r, "id") || !s || !yaml_map_get(r, "why"))
            return err_at(d, file, r,
                          "readings item: needs `id:`, `set:` (a list of KEY=VALUE) and `why:` "
                          "(the default's source and why this value is a reading of it)");
        if ((rc = scalar(d, file, yaml_map_get(r, "id"), "readings item: id", &rd->id)) ||
            (rc = scalar(d, file, yaml_map_get(r, "why"), "readings item: why", &rd->why)))
            return rc;
        if (!rd->id[0] ||
            strspn(rd->id, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != strlen(rd->id) ||
            rd->id[0] == '.')
            return err_at(d, file, yaml_map_get(r, "id"),
                          "readings item: id '%s': use letters, digits, '-', '_' and '.' (it "
                          "names a folder)",
                          rd->id);
        for (size_t k = 0; k + 1 < L->nreadings; k++)
            if (!strcmp(L->readings[k].id, rd->id))
                return err_at(d, file, yaml_map_get(r, "id"), "readings: id '%s' given twice",
                              rd->id);
        if ((rc = parse_sets(d, file, s, "readings item", &rd->sets, &rd->nsets))) return rc;
        if (!rd->nsets)
            return err_at(d, file, s,
                          "readings item: set: expected a list of KEY=VALUE, got an "
                          "empty list");
    }
    return 0;
}

static int parse_metrics(struct lab_def *L, const char *file, const struct yaml_node *n,
                         struct diag *d) {
    static const char *const keys[] = {"run", "value", "unit", "digits", "missing",
                                       "inf", "yes",   "no",   NULL};
    if (n->type != YAML_MAP)
        return err_at(d, file, n, "metrics: expected a mapping of name: {run, value, unit}, got %s",
                      yaml_describe(n));
    L->m = fs_xcalloc(n->npairs + 1, sizeof *L->m);
    for (size_t i = 0; i < n->npairs; i++) {
        const struct yaml_node *k = n->pairs[i].key, *v = n->pairs[i].val;
        struct lab_metric *m = &L->m[L->nm];
        m->digits = -1;
        m->e.root = -1;
        if (!k->text || !*k->text ||
            strspn(k->text, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(k->text))
            return err_at(d, file, k, "metrics: name '%s' must be lower-case letters, digits, _",
                          k->text ? k->text : "");
        if (metric_index(L, k->text) >= 0)
            return err_at(d, file, k, "metrics: '%s' defined twice", k->text);
        int rc = check_keys(d, file, v, "metric", keys);
        if (rc) return rc;
        m->name = fs_xstrdup(k->text);
        L->nm++;
        const struct yaml_node *run = yaml_map_get(v, "run"), *val = yaml_map_get(v, "value");
        if (run && (rc = scalar(d, file, run, "metric: run", &m->run))) return rc;
        if (!val) return err_at(d, file, v, "metric '%s': needs `value:` (an expression)", m->name);
        rc = parse_expr(d, file, val, m->run ? EXPR_CTX_RUN : EXPR_CTX_LAB, &m->e, "metric value");
        if (!rc && !m->run) rc = bind(d, file, val, L, &m->e, L->nm - 1, "metric value");
        if (!rc && yaml_map_get(v, "unit"))
            rc = scalar(d, file, yaml_map_get(v, "unit"), "metric: unit", &m->unit);
        if (!rc && yaml_map_get(v, "missing"))
            rc = scalar(d, file, yaml_map_get(v, "missing"), "metric: missing", &m->missing);
        if (!rc && yaml_map_get(v, "inf"))
            rc = scalar(d, file, yaml_map_get(v, "inf"), "metric: inf", &m->inf);
        if (!rc && yaml_map_get(v, "yes"))
            rc = scalar(d, file, yaml_map_get(v, "yes"), "metric: yes", &m->yes);
        if (!rc && yaml_map_get(v, "no"))
            rc = scalar(d, file, yaml_map_get(v, "no"), "metric: no", &m->no);
        const struct yaml_node *dg = yaml_map_get(v, "digits");
        if (!rc && dg) {
            char *end = NULL;
            long x = dg->type == YAML_SCALAR ? strtol(dg->text, &end, 10) : -1;
            if (!end || *end || x < 0 || x > 6)
                return err_at(d, file, dg, "metric: digits: expected 0 to 6");
            m->digits = (int)x;
        }
        if (rc) return rc;
    }
    return 0;
}

/* Writes a YAML node as JSON (scalars that read as numbers as numbers). */
static void node_json(struct jw *w, const struct yaml_node *n) {
    if (n->type == YAML_SCALAR) {
        char *end;
        double v = strtod(n->text, &end);
        if (!n->quoted && *n->text && !*end && isfinite(v))
            jw_num(w, v);
        else if (!n->quoted && (!strcmp(n->text, "true") || !strcmp(n->text, "false")))
            jw_bool(w, n->text[0] == 't');
        else
            jw_str(w, n->text);
    } else if (n->type == YAML_SEQ) {
        jw_arr_compact(w);
        for (size_t i = 0; i < n->nitems; i++)
            node_json(w, n->items[i]);
        jw_arr_end(w);
    } else {
        jw_obj_compact(w);
        for (size_t i = 0; i < n->npairs; i++) {
            jw_key(w, n->pairs[i].key->text ? n->pairs[i].key->text : "");
            node_json(w, n->pairs[i].val);
        }
        jw_obj_end(w);
    }
}

static int parse_charts(struct lab_def *L, const char *file, const struct yaml_node *n,
                        struct diag *d) {
    static const char *const keys[] = {"type", "title", "runs", "metrics", "dst",
                                       "link", "tier",  "log",  NULL};
    if (n->type != YAML_SEQ)
        return err_at(d, file, n, "charts: expected a list, got %s", yaml_describe(n));
    L->charts = fs_xcalloc(n->nitems + 1, sizeof *L->charts);
    for (size_t i = 0; i < n->nitems; i++) {
        const struct yaml_node *c = n->items[i];
        struct lab_chart *ch = &L->charts[L->ncharts++];
        int rc = check_keys(d, file, c, "chart", keys);
        if (!rc) rc = scalar(d, file, yaml_map_get(c, "type"), "chart: type", &ch->type);
        if (rc) return rc;
        bool known = false;
        char list[400] = "";
        size_t l = 0;
        for (size_t k = 0; k < sizeof chart_types / sizeof chart_types[0]; k++) {
            known = known || !strcmp(chart_types[k], ch->type);
            l += (size_t)snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", chart_types[k]);
        }
        if (!known)
            return err_at(d, file, yaml_map_get(c, "type"),
                          "chart: unknown type '%s' (allowed: %s)", ch->type, list);
        if (yaml_map_get(c, "title") &&
            (rc = scalar(d, file, yaml_map_get(c, "title"), "chart: title", &ch->title)))
            return rc;
        if (!ch->title) ch->title = fs_xstrdup(ch->type);
        const struct yaml_node *runs = yaml_map_get(c, "runs");
        if (runs) {
            if (runs->type == YAML_SCALAR) {
                ch->runs = fs_xcalloc(1, sizeof *ch->runs);
                ch->runs[ch->nruns++] = fs_xstrdup(runs->text);
            } else if (runs->type == YAML_SEQ) {
                ch->runs = fs_xcalloc(runs->nitems + 1, sizeof *ch->runs);
                for (size_t k = 0; k < runs->nitems; k++) {
                    char *v = NULL;
                    if ((rc = scalar(d, file, runs->items[k], "chart: runs", &v))) return rc;
                    ch->runs[ch->nruns++] = v;
                }
            } else {
                return err_at(d, file, runs, "chart: runs: expected a run id, a pattern or a list");
            }
        }
        const struct yaml_node *ms = yaml_map_get(c, "metrics");
        if (ms) { /* counters: label: expression over each run's results */
            if (ms->type != YAML_MAP)
                return err_at(d, file, ms, "chart: metrics: expected a mapping label: expression");
            ch->mnames = fs_xcalloc(ms->npairs + 1, sizeof *ch->mnames);
            ch->mexpr = fs_xcalloc(ms->npairs + 1, sizeof *ch->mexpr);
            for (size_t k = 0; k < ms->npairs; k++) {
                ch->mnames[ch->nm] =
                    fs_xstrdup(ms->pairs[k].key->text ? ms->pairs[k].key->text : "");
                ch->nm++;
                if ((rc = parse_expr(d, file, ms->pairs[k].val, EXPR_CTX_RUN, &ch->mexpr[k],
                                     "chart metric")))
                    return rc;
            }
        } else if (!strcmp(ch->type, "counters")) {
            return err_at(d, file, c,
                          "chart: a counters chart needs `metrics:` (label: expression)");
        }
        char *buf = NULL;
        size_t blen = 0;
        FILE *f = open_memstream(&buf, &blen);
        struct jw w;
        jw_init(&w, f);
        jw_obj_compact(&w);
        for (size_t k = 0; k < c->npairs; k++) {
            const char *key = c->pairs[k].key->text;
            if (!strcmp(key, "runs") || !strcmp(key, "metrics") || !strcmp(key, "type") ||
                !strcmp(key, "title"))
                continue;
            jw_key(&w, key);
            node_json(&w, c->pairs[k].val);
        }
        jw_obj_end(&w);
        fclose(f);
        ch->json = buf;
    }
    return 0;
}

static int parse_verdict(struct lab_def *L, const char *file, const struct yaml_node *n,
                         struct diag *d) {
    static const char *const keys[] = {"holds", "nuance", "says", NULL};
    static const char *const says_keys[] = {"holds", "nuance", "not", NULL};
    int rc = check_keys(d, file, n, "verdict", keys);
    if (rc) return rc;
    const struct yaml_node *h = yaml_map_get(n, "holds"), *nu = yaml_map_get(n, "nuance"),
                           *says = yaml_map_get(n, "says");
    if (!h) return err_at(d, file, n, "verdict: needs `holds:` (an expression over the metrics)");
    if ((rc = parse_expr(d, file, h, EXPR_CTX_LAB, &L->holds, "verdict: holds")) ||
        (rc = bind(d, file, h, L, &L->holds, L->nm, "verdict: holds")))
        return rc;
    if (nu) {
        L->has_nuance = true;
        if ((rc = parse_expr(d, file, nu, EXPR_CTX_LAB, &L->nuance, "verdict: nuance")) ||
            (rc = bind(d, file, nu, L, &L->nuance, L->nm, "verdict: nuance")))
            return rc;
    }
    if (!says) return err_at(d, file, n, "verdict: needs `says:` with holds, nuance and not texts");
    if ((rc = check_keys(d, file, says, "verdict: says", says_keys))) return rc;
    static const enum lab_verdict v[] = {LAB_HOLDS, LAB_NUANCE, LAB_NOT};
    for (size_t i = 0; i < 3; i++) {
        const struct yaml_node *t = yaml_map_get(says, says_keys[i]);
        if (!t) {
            if (v[i] == LAB_NUANCE && !nu) continue;
            return err_at(d, file, says, "verdict: says: needs `%s:`", says_keys[i]);
        }
        if ((rc = scalar(d, file, t, "verdict: says", &L->says[v[i]])) ||
            (rc = check_template(d, file, t, L, "verdict: says")))
            return rc;
    }
    return 0;
}

/* claims: [{id, claim, holds, conditions?, says: {holds, conditions?, not}}] */
static int parse_claims(struct lab_def *L, const char *file, const struct yaml_node *n,
                        struct diag *d) {
    static const char *const keys[] = {"id", "claim", "holds", "conditions", "says", NULL};
    static const char *const says_keys[] = {"holds", "conditions", "not", NULL};
    if (n->type != YAML_SEQ || !n->nitems)
        return err_at(d, file, n,
                      "claims: expected a list of {id, claim, holds, conditions, says}, got %s",
                      yaml_describe(n));
    L->claims = fs_xcalloc(n->nitems + 1, sizeof *L->claims);
    for (size_t i = 0; i < n->nitems; i++) {
        const struct yaml_node *c = n->items[i];
        struct lab_claim *lc = &L->claims[L->nclaims++];
        lc->holds.root = lc->conditions.root = -1;
        int rc = check_keys(d, file, c, "claim", keys);
        if (rc) return rc;
        const struct yaml_node *h = yaml_map_get(c, "holds"), *co = yaml_map_get(c, "conditions"),
                               *says = yaml_map_get(c, "says");
        if (!yaml_map_get(c, "id") || !yaml_map_get(c, "claim") || !h || !says)
            return err_at(d, file, c, "claims: each needs `id:`, `claim:`, `holds:` and `says:`");
        if ((rc = scalar(d, file, yaml_map_get(c, "id"), "claims: id", &lc->id)) ||
            (rc = scalar(d, file, yaml_map_get(c, "claim"), "claims: claim", &lc->text)) ||
            (rc = parse_expr(d, file, h, EXPR_CTX_LAB, &lc->holds, "claims: holds")) ||
            (rc = bind(d, file, h, L, &lc->holds, L->nm, "claims: holds")))
            return rc;
        for (size_t k = 0; k + 1 < L->nclaims; k++)
            if (!strcmp(L->claims[k].id, lc->id))
                return err_at(d, file, c, "claims: id '%s' given twice", lc->id);
        if (co) {
            lc->has_conditions = true;
            if ((rc = parse_expr(d, file, co, EXPR_CTX_LAB, &lc->conditions,
                                 "claims: conditions")) ||
                (rc = bind(d, file, co, L, &lc->conditions, L->nm, "claims: conditions")))
                return rc;
        }
        if ((rc = check_keys(d, file, says, "claims: says", says_keys))) return rc;
        static const enum lab_sub v[] = {LAB_SUB_HOLDS, LAB_SUB_CONDITIONS, LAB_SUB_NOT};
        for (size_t k = 0; k < 3; k++) {
            const struct yaml_node *t = yaml_map_get(says, says_keys[k]);
            if (!t) {
                if (v[k] == LAB_SUB_CONDITIONS && !co) continue;
                return err_at(d, file, says, "claims: says: needs `%s:`", says_keys[k]);
            }
            if (v[k] == LAB_SUB_CONDITIONS && !co)
                return err_at(d, file, t, "claims: says: `conditions:` needs a `conditions:` rule");
            if ((rc = scalar(d, file, t, "claims: says", &lc->says[v[k]])) ||
                (rc = check_template(d, file, t, L, "claims: says")))
                return rc;
        }
    }
    return 0;
}

int lab_load(struct lab_def *L, const char *path, struct diag *d) {
    static const char *const keys[] = {"title",   "claim",    "claim_source", "runs",
                                       "metrics", "claims",   "findings",     "verdict",
                                       "charts",  "readings", "next",         NULL};
    static const char *const fkeys[] = {"title", "text", NULL};
    memset(L, 0, sizeof *L);
    L->holds.root = L->nuance.root = -1;
    L->path = fs_xstrdup(path);
    struct yaml_doc doc;
    int rc = yaml_load_file(&doc, path, d);
    if (rc) return rc;
    const struct yaml_node *root = doc.root;
    const char *file = path;
    if (!root) {
        rc = diag_set(d, file, (struct srcpos){1, 1}, FS_EINVAL,
                      "empty lab.yaml (needs title, claim, metrics, findings, verdict)");
        goto out;
    }
    if ((rc = check_keys(d, file, root, "lab.yaml", keys))) goto out;
    /* Sections are checked in order, so the first error is the first problem. */
    static const char *const need[] = {"title", "claim", "metrics"};
    for (size_t i = 0; i < 3; i++)
        if (!yaml_map_get(root, need[i])) {
            rc = err_at(d, file, root, "lab.yaml: needs `%s:`", need[i]);
            goto out;
        }
    if ((rc = scalar(d, file, yaml_map_get(root, "title"), "title", &L->title)) ||
        (rc = scalar(d, file, yaml_map_get(root, "claim"), "claim", &L->claim)))
        goto out;
    if (yaml_map_get(root, "claim_source") &&
        (rc =
             scalar(d, file, yaml_map_get(root, "claim_source"), "claim_source", &L->claim_source)))
        goto out;
    if (yaml_map_get(root, "next") &&
        (rc = scalar(d, file, yaml_map_get(root, "next"), "next", &L->next)))
        goto out;
    if (yaml_map_get(root, "runs") && (rc = parse_runs(L, file, yaml_map_get(root, "runs"), d)))
        goto out;
    if ((rc = parse_metrics(L, file, yaml_map_get(root, "metrics"), d))) goto out;
    const struct yaml_node *fs = yaml_map_get(root, "findings"), *cl = yaml_map_get(root, "claims");
    if (cl && yaml_map_get(root, "verdict")) {
        rc = err_at(d, file, yaml_map_get(root, "verdict"),
                    "lab.yaml: with `claims:` the verdict is derived from the claims' verdicts; "
                    "remove `verdict:`");
        goto out;
    }
    if (!fs || (!cl && !yaml_map_get(root, "verdict"))) {
        rc = err_at(d, file, root, "lab.yaml: needs `%s:`",
                    fs ? "verdict: (or claims:)" : "findings");
        goto out;
    }
    if (cl && (rc = parse_claims(L, file, cl, d))) goto out;
    if (fs->type != YAML_SEQ) {
        rc = err_at(d, file, fs, "findings: expected a list of {title, text}, got %s",
                    yaml_describe(fs));
        goto out;
    }
    L->f = fs_xcalloc(fs->nitems + 1, sizeof *L->f);
    for (size_t i = 0; i < fs->nitems; i++) {
        const struct yaml_node *f = fs->items[i];
        struct lab_finding *lf = &L->f[L->nf++];
        if ((rc = check_keys(d, file, f, "finding", fkeys)) ||
            (rc = scalar(d, file, yaml_map_get(f, "title"), "finding: title", &lf->title)) ||
            (rc = scalar(d, file, yaml_map_get(f, "text"), "finding: text", &lf->text)) ||
            (rc = check_template(d, file, yaml_map_get(f, "text"), L, "finding: text")))
            goto out;
    }
    if (!cl && (rc = parse_verdict(L, file, yaml_map_get(root, "verdict"), d))) goto out;
    if (yaml_map_get(root, "charts") &&
        (rc = parse_charts(L, file, yaml_map_get(root, "charts"), d)))
        goto out;
    if (yaml_map_get(root, "readings") &&
        (rc = parse_readings(L, file, yaml_map_get(root, "readings"), d)))
        goto out;
out:
    yaml_doc_fini(&doc);
    return rc;
}

int lab_check_runs(const struct lab_def *L, char *const *ids, size_t n, struct diag *d) {
    for (size_t i = 0; i < L->nm; i++) {
        if (!L->m[i].run) continue;
        bool ok = false;
        for (size_t k = 0; k < n && !ok; k++)
            ok = !strcmp(ids[k], L->m[i].run);
        if (!ok) {
            char list[500] = "";
            size_t l = 0;
            for (size_t k = 0; k < n && l < sizeof list - 1; k++)
                l += (size_t)snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", ids[k]);
            return diag_set(d, L->path, (struct srcpos){0, 0}, FS_EINVAL,
                            "metric '%s' reads run '%s', which is not a run of this lab (runs: %s)",
                            L->m[i].name, L->m[i].run, list);
        }
    }
    return 0;
}

void lab_fini(struct lab_def *L) {
    for (size_t i = 0; i < L->nruns; i++) {
        for (size_t k = 0; k < L->runs[i].nsets; k++)
            free(L->runs[i].sets[k]);
        free(L->runs[i].sets), free(L->runs[i].id), free(L->runs[i].file), free(L->runs[i].label);
    }
    for (size_t i = 0; i < L->nm; i++) {
        struct lab_metric *m = &L->m[i];
        free(m->name), free(m->run), free(m->unit), free(m->missing), free(m->inf);
        free(m->yes), free(m->no);
        expr_fini(&m->e);
    }
    for (size_t i = 0; i < L->nf; i++)
        free(L->f[i].title), free(L->f[i].text);
    for (size_t i = 0; i < L->ncharts; i++) {
        struct lab_chart *c = &L->charts[i];
        for (size_t k = 0; k < c->nruns; k++)
            free(c->runs[k]);
        for (size_t k = 0; k < c->nm; k++)
            free(c->mnames[k]), expr_fini(&c->mexpr[k]);
        free(c->runs), free(c->mnames), free(c->mexpr), free(c->type), free(c->title),
            free(c->json);
    }
    expr_fini(&L->holds);
    expr_fini(&L->nuance);
    for (int i = 0; i < 4; i++)
        free(L->says[i]);
    for (size_t i = 0; i < L->nclaims; i++) {
        struct lab_claim *c = &L->claims[i];
        free(c->id), free(c->text);
        expr_fini(&c->holds), expr_fini(&c->conditions);
        for (int k = 0; k < 4; k++)
            free(c->says[k]);
    }
    free(L->claims);
    for (size_t i = 0; i < L->nreadings; i++) {
        struct lab_reading *r = &L->readings[i];
        for (size_t k = 0; k < r->nsets; k++)
            free(r->sets[k]);
        free(r->sets), free(r->id), free(r->why);
    }
    free(L->readings);
    free(L->runs), free(L->m), free(L->f), free(L->charts);
    free(L->path), free(L->title), free(L->claim), free(L->claim_source), free(L->next);
    memset(L, 0, sizeof *L);
}

void lab_format(const struct lab_metric *m, double v, const char *why, char *buf, size_t len) {
    if (isnan(v)) {
        snprintf(buf, len, "%s", why ? why : m->missing ? m->missing : "n/a");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, len, "%s", m->inf ? m->inf : v > 0 ? "never" : "-inf");
        return;
    }
    if (m->yes && v == 1) {
        snprintf(buf, len, "%s", m->yes);
        return;
    }
    if (m->no && v == 0) {
        snprintf(buf, len, "%s", m->no);
        return;
    }
    int dg = m->digits;
    if (dg < 0) {
        double a = fabs(v);
        dg = fabs(v - round(v)) < 1e-9 || a >= 100 ? 0 : a >= 10 ? 1 : 2;
    }
    if (m->unit && *m->unit)
        snprintf(buf, len, "%.*f %s", dg, v, m->unit);
    else
        snprintf(buf, len, "%.*f", dg, v);
}

/* The template with every {name} replaced by its metric's formatted value.
 * *all_known: false when one of them had no value. */
static char *fill(const struct lab_def *L, const struct lab_eval *ev, const char *tmpl,
                  bool *all_known) {
    char *out = NULL;
    size_t olen = 0;
    FILE *f = open_memstream(&out, &olen);
    if (all_known) *all_known = true;
    for (const char *p = tmpl; *p; p++) {
        const char *e = *p == '{' ? strchr(p, '}') : NULL;
        if (!e) {
            fputc(*p, f);
            continue;
        }
        char name[128], val[160];
        snprintf(name, sizeof name, "%.*s", (int)(e - p - 1), p + 1);
        int k = metric_index(L, name);
        if (k < 0) {
            fputc(*p, f);
            continue;
        }
        lab_format(&L->m[k], ev->values[k], ev->why[k], val, sizeof val);
        if (isnan(ev->values[k]) && all_known) *all_known = false;
        fputs(val, f);
        p = e;
    }
    fclose(f);
    return out;
}

void lab_eval(const struct lab_def *L, lab_find_fn find, void *ctx, struct lab_eval *out) {
    memset(out, 0, sizeof *out);
    out->values = fs_xcalloc(L->nm + 1, sizeof *out->values);
    out->why = fs_xcalloc(L->nm + 1, sizeof *out->why);
    for (size_t i = 0; i < L->nm; i++) {
        const struct lab_metric *m = &L->m[i];
        if (!m->run) {
            out->values[i] = expr_eval_lab(&m->e, out->values);
            continue;
        }
        const char *status = NULL;
        const struct jv *res = find(ctx, m->run, &status);
        if (!res) {
            out->values[i] = NAN;
            out->why[i] = fs_xstrdup(!status                            ? "not run"
                                     : !strcmp(status, "not_available") ? "not yet available"
                                                                        : "failed");
            continue;
        }
        out->values[i] = expr_eval_run(&m->e, res);
    }
    /* A derived metric over a metric without a value says why too. */
    for (size_t i = 0; i < L->nm; i++) {
        if (L->m[i].run || !isnan(out->values[i])) continue;
        for (size_t k = 0; k < L->m[i].e.len; k++) {
            const struct expr_node *x = &L->m[i].e.n[k];
            if (x->op == EXPR_NAME && x->metric >= 0 && out->why[x->metric]) {
                out->why[i] = fs_xstrdup(out->why[x->metric]);
                break;
            }
        }
    }
    out->findings = fs_xcalloc(L->nf + 1, sizeof *out->findings);
    out->available = fs_xcalloc(L->nf + 1, sizeof *out->available);
    for (size_t i = 0; i < L->nf; i++)
        out->findings[i] = fill(L, out, L->f[i].text, &out->available[i]);
    lab_decide(L, out);
}

/* Names the metrics of `rules` that have no value: "a (not run), b (...)". */
static char *missing_metrics(const struct lab_def *L, const struct lab_eval *out,
                             const struct expr *const *rules, int nrules) {
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);
    int listed = 0;
    for (int r = 0; r < nrules; r++)
        for (size_t k = 0; k < rules[r]->len; k++) {
            const struct expr_node *x = &rules[r]->n[k];
            if (x->op != EXPR_NAME || x->metric < 0 || !isnan(out->values[x->metric])) continue;
            const struct lab_metric *m = &L->m[x->metric];
            fflush(f);
            if (strstr(buf ? buf : "", m->name) && listed) continue;
            fprintf(f, "%s%s (%s)", listed++ ? ", " : "", m->name,
                    out->why[x->metric] ? out->why[x->metric] : "no value");
        }
    fclose(f);
    return buf;
}

/* The claims' verdicts, then the lab's derived from them. */
static void decide_claims(const struct lab_def *L, struct lab_eval *out) {
    out->sub = fs_xcalloc(L->nclaims + 1, sizeof *out->sub);
    out->sub_text = fs_xcalloc(L->nclaims + 1, sizeof *out->sub_text);
    size_t counts[4] = {0};
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);
    for (size_t i = 0; i < L->nclaims; i++) {
        const struct lab_claim *c = &L->claims[i];
        double h = expr_eval_lab(&c->holds, out->values);
        double co = c->has_conditions ? expr_eval_lab(&c->conditions, out->values) : 0;
        enum lab_sub v = LAB_SUB_UNDECIDED;
        char t[1400];
        if (isnan(h) || isnan(co)) {
            const struct expr *rules[2] = {&c->holds, &c->conditions};
            char *miss = missing_metrics(L, out, rules, c->has_conditions ? 2 : 1);
            snprintf(t, sizeof t, "not decided: no value for %s",
                     miss && *miss ? miss : "the rule");
            free(miss);
            out->sub_text[i] = fs_xstrdup(t);
        } else if (h != 0 && co != 0) {
            out->sub_text[i] = fs_xstrdup(
                "not decided: the rules overlap (`holds` and `conditions` are both true)");
        } else {
            v = h != 0 ? LAB_SUB_HOLDS : co != 0 ? LAB_SUB_CONDITIONS : LAB_SUB_NOT;
            out->sub_text[i] = fill(L, out, c->says[v], NULL);
        }
        out->sub[i] = v;
        counts[v]++;
        fprintf(f, "%s%s: %s.", i ? " " : "", c->id, lab_sub_name(v));
    }
    fclose(f);
    out->verdict = counts[LAB_SUB_UNDECIDED]             ? LAB_UNDECIDED
                   : counts[LAB_SUB_HOLDS] == L->nclaims ? LAB_HOLDS
                   : counts[LAB_SUB_NOT] == L->nclaims   ? LAB_NOT
                                                         : LAB_NUANCE;
    out->verdict_text = buf;
}

void lab_decide(const struct lab_def *L, struct lab_eval *out) {
    free(out->verdict_text), free(out->undecided);
    out->verdict_text = out->undecided = NULL;
    if (out->sub_text)
        for (size_t i = 0; i < L->nclaims; i++)
            free(out->sub_text[i]);
    free(out->sub), free(out->sub_text);
    out->sub = NULL;
    out->sub_text = NULL;
    if (L->nclaims) {
        decide_claims(L, out);
        return;
    }
    double h = expr_eval_lab(&L->holds, out->values);
    double n = L->has_nuance ? expr_eval_lab(&L->nuance, out->values) : 0;
    if (isnan(h) || (h != 0 && isnan(n)))
        out->verdict = LAB_UNDECIDED;
    else
        out->verdict = h == 0 ? LAB_NOT : n != 0 ? LAB_NUANCE : LAB_HOLDS;
    if (out->verdict != LAB_UNDECIDED) {
        out->verdict_text = fill(L, out, L->says[out->verdict], NULL);
    } else {
        /* Name the metrics of the rule that have no value. */
        const struct expr *rules[2] = {&L->holds, &L->nuance};
        char *buf = missing_metrics(L, out, rules, 2);
        out->undecided = buf;
        char t[1200];
        snprintf(t, sizeof t, "not decided: no value for %s", buf && *buf ? buf : "the rule");
        out->verdict_text = fs_xstrdup(t);
    }
}

void lab_eval_fini(const struct lab_def *L, struct lab_eval *ev) {
    for (size_t i = 0; ev->why && i < L->nm; i++)
        free(ev->why[i]);
    for (size_t i = 0; ev->findings && i < L->nf; i++)
        free(ev->findings[i]);
    free(ev->values), free(ev->why), free(ev->findings), free(ev->available);
    free(ev->verdict_text), free(ev->undecided);
    for (size_t i = 0; ev->sub_text && i < L->nclaims; i++)
        free(ev->sub_text[i]);
    free(ev->sub), free(ev->sub_text);
    memset(ev, 0, sizeof *ev);
}

bool lab_run_matches(const char *pattern, const char *id) {
    return !fnmatch(pattern, id, 0);
}

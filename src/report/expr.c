/* src/report/expr.c
 *
 * Parser (recursive descent into a node array) and evaluator of lab.yaml's
 * expressions, plus the functions a metric may call on one run's results.
 * Every function returns NaN when the run lacks what it needs, so that a
 * lab's verdict is "not decided" rather than wrong.
 */
#include "report/expr.h"

#include "core/diag.h"
#include "core/mem.h"
#include "report/jread.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- functions of a run's results -------------------------------------- */

struct fn {
    const char *name;
    int min_args, max_args;
    enum expr_ctx ctx;
};

static const struct fn fns[] = {
    {"done_us", 0, 0, EXPR_CTX_RUN},
    {"fct_us", 1, 2, EXPR_CTX_RUN},
    {"link", 2, 2, EXPR_CTX_RUN},
    {"link_max", 1, 2, EXPR_CTX_RUN},
    {"link_min", 1, 2, EXPR_CTX_RUN},
    {"link_mean", 1, 2, EXPR_CTX_RUN},
    {"link_sum", 1, 2, EXPR_CTX_RUN},
    {"busbw", 0, 1, EXPR_CTX_RUN},
    {"flows", 0, 1, EXPR_CTX_RUN},
    {"flows_done", 0, 1, EXPR_CTX_RUN},
    {"cp", 1, 1, EXPR_CTX_RUN},
    {"reroute_us", 0, 0, EXPR_CTX_RUN},
    {"local_reroute_us", 0, 0, EXPR_CTX_RUN},
    {"uplinks_used", 0, 0, EXPR_CTX_RUN},
    {"bins_used", 0, 0, EXPR_CTX_RUN},
    {"offered_max_pct", 0, 0, EXPR_CTX_RUN},
    {"spine_unused_pct", 0, 0, EXPR_CTX_RUN},
    {"bins_unused_pct", 0, 0, EXPR_CTX_RUN},
    {"min", 2, 2, EXPR_CTX_LAB},
    {"max", 2, 2, EXPR_CTX_LAB},
    {"abs", 1, 1, EXPR_CTX_LAB},
    {"min", 2, 2, EXPR_CTX_RUN},
    {"max", 2, 2, EXPR_CTX_RUN},
    {"abs", 1, 1, EXPR_CTX_RUN},
};

const char *expr_functions(enum expr_ctx ctx) {
    return ctx == EXPR_CTX_RUN
               ? "done_us(), fct_us(DST) or fct_us(SRC, DST), link(NAME, FIELD), "
                 "link_max|link_min|link_mean|link_sum(FIELD[, TIER]), busbw([SIZE]), "
                 "flows([EXCEPT_HOST]), flows_done([EXCEPT_HOST]), cp(FIELD), reroute_us(), "
                 "local_reroute_us(), uplinks_used(), bins_used(), offered_max_pct(), "
                 "spine_unused_pct(), bins_unused_pct(), min, max, abs"
               : "min(A, B), max(A, B), abs(A)";
}

double expr_done_us(const struct jv *res) {
    if (!res || !jv_bool_at(res, "summary.completed", false)) return NAN;
    double d = jv_num_at(res, "summary.done_ns", -1);
    if (d < 0) d = jv_num_at(res, "summary.sim_time_ns", NAN);
    return d / 1000.0;
}

/* A dotted path where a number part indexes an array ("control_plane.0.at_ns").
 * Booleans read as 1/0; anything else (null, missing, text) as NaN. */
static double path_num(const struct jv *v, const char *path) {
    v = jv_path(v, path);
    if (!v) return NAN;
    if (v->type == JV_NUM) return v->num;
    if (v->type == JV_BOOL) return v->b ? 1 : 0;
    return NAN;
}

static const struct jv *rows(const struct jv *res, const char *key) {
    const struct jv *a = jv_get(res, key);
    return a && a->type == JV_ARR ? a : NULL;
}

static bool is_uplink(const struct jv *l) {
    return !strncmp(jv_str_at(l, "from", ""), "leaf", 4) &&
           !strncmp(jv_str_at(l, "to", ""), "spine", 5);
}

/* One flow's bytes on the wire: the median of the non-empty host->leaf links
 * (every lab workload that asks sends one flow or ring QP per host). */
static double flow_unit_bytes(const struct jv *res) {
    const struct jv *ls = rows(res, "links");
    double *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; ls && i < ls->n; i++) {
        if (strcmp(jv_str_at(ls->items[i], "tier", ""), "host-leaf")) continue;
        if (strncmp(jv_str_at(ls->items[i], "to", ""), "leaf", 4)) continue;
        double b = jv_num_at(ls->items[i], "bytes", 0);
        if (b <= 0) continue;
        fs_grow((void **)&v, &cap, n + 1, sizeof *v);
        v[n++] = b;
    }
    double m = NAN;
    if (n) {
        for (size_t i = 1; i < n; i++) /* insertion sort: tens of hosts */
            for (size_t k = i; k && v[k - 1] > v[k]; k--) {
                double t = v[k];
                v[k] = v[k - 1];
                v[k - 1] = t;
            }
        m = v[n / 2];
    }
    free(v);
    return m;
}

/* Flows on each leaf-spine link = its bytes over one flow's bytes (ECMP
 * keeps a flow on one path, so bytes count the flows hashed there; a flow
 * whose messages took different paths counts by its share of bytes).
 * Offered load = flows x one flow's line rate over the link's rate: two
 * colliding flows of the host rate offer 200 %. Host and spine links run at
 * the same rate in every lab topology. mode 0: max offered %, 1: unused % of
 * the spine capacity (1 - mean(min(offered, 100 %))). */
static double offered(const struct jv *res, int mode) {
    const struct jv *ls = rows(res, "links");
    double unit = flow_unit_bytes(res);
    if (!ls || !(unit > 0)) return NAN;
    double mx = 0, used = 0;
    size_t n = 0;
    for (size_t i = 0; i < ls->n; i++) {
        if (strcmp(jv_str_at(ls->items[i], "tier", ""), "leaf-spine")) continue;
        double flows = jv_num_at(ls->items[i], "bytes", 0) / unit;
        mx = fmax(mx, 100.0 * flows);
        used += fmin(flows, 1.0);
        n++;
    }
    if (!n) return NAN;
    return mode == 0 ? mx : 100.0 * (1.0 - used / (double)n);
}

/* Leaves' uplink count n and the most cross-leaf flows any leaf sends, k. */
static bool bins_nk(const struct jv *res, double *n, double *k) {
    const struct jv *ls = rows(res, "links"), *fl = rows(res, "flows");
    if (!ls) return false;
    size_t up = 0, leaves = 0;
    char last[64] = "";
    for (size_t i = 0; i < ls->n; i++) {
        if (!is_uplink(ls->items[i])) continue;
        const char *from = jv_str_at(ls->items[i], "from", "");
        if (strcmp(from, last)) snprintf(last, sizeof last, "%s", from), leaves++;
        up++;
    }
    if (!up || !leaves) return false;
    *n = (double)up / (double)leaves;
    /* k: flows leaving each leaf (a host's leaf is the "to" of its uplink). */
    double best = 0;
    for (size_t li = 0; li < ls->n; li++) {
        const struct jv *l = ls->items[li];
        if (!is_uplink(l)) continue;
        const char *leaf = jv_str_at(l, "from", "");
        if (li && is_uplink(ls->items[li - 1]) &&
            !strcmp(jv_str_at(ls->items[li - 1], "from", ""), leaf))
            continue;
        double cnt = 0;
        for (size_t f = 0; fl && f < fl->n; f++) {
            const char *src = jv_str_at(fl->items[f], "src", ""),
                       *dst = jv_str_at(fl->items[f], "dst", "");
            const char *sl = NULL, *dl = NULL;
            for (size_t h = 0; h < ls->n; h++) {
                const struct jv *hl = ls->items[h];
                if (strcmp(jv_str_at(hl, "tier", ""), "host-leaf")) continue;
                if (!strcmp(jv_str_at(hl, "from", ""), src)) sl = jv_str_at(hl, "to", "");
                if (!strcmp(jv_str_at(hl, "from", ""), dst)) dl = jv_str_at(hl, "to", "");
            }
            if (sl && dl && !strcmp(sl, leaf) && strcmp(dl, leaf)) cnt++;
        }
        best = fmax(best, cnt);
    }
    if (best == 0) { /* collectives: one ring QP per host leaves each leaf */
        for (size_t h = 0; h < ls->n; h++) {
            const struct jv *hl = ls->items[h];
            if (!strcmp(jv_str_at(hl, "tier", ""), "host-leaf") &&
                !strncmp(jv_str_at(hl, "from", ""), "h", 1) && jv_num_at(hl, "bytes", 0) > 0 &&
                !strcmp(jv_str_at(hl, "to", ""), jv_str_at(ls->items[0], "to", "")))
                best++;
        }
    }
    *k = best;
    return true;
}

static double link_agg(const struct jv *res, const char *field, const char *tier, int mode) {
    const struct jv *ls = rows(res, "links");
    if (!ls) return NAN;
    double acc = mode == 1 ? INFINITY : 0;
    size_t n = 0;
    for (size_t i = 0; i < ls->n; i++) {
        if (tier && *tier && strcmp(jv_str_at(ls->items[i], "tier", ""), tier)) continue;
        double v = jv_num_at(ls->items[i], field, NAN);
        if (isnan(v)) return NAN;
        acc = mode == 0 ? fmax(acc, v) : mode == 1 ? fmin(acc, v) : acc + v;
        n++;
    }
    if (!n) return NAN;
    return mode == 2 ? acc / (double)n : acc; /* 2 mean, 3 sum */
}

static double call_run(const char *name, const struct jv *res, const double *a, char *const *s,
                       int nargs) {
    if (!res) return NAN;
    if (!strcmp(name, "done_us")) return expr_done_us(res);
    if (!strcmp(name, "fct_us")) {
        const struct jv *fl = rows(res, "flows");
        const char *src = nargs == 2 ? s[0] : NULL, *dst = nargs == 2 ? s[1] : s[0];
        for (size_t i = 0; fl && dst && i < fl->n; i++) {
            if (strcmp(jv_str_at(fl->items[i], "dst", ""), dst)) continue;
            if (src && strcmp(jv_str_at(fl->items[i], "src", ""), src)) continue;
            double f = jv_num_at(fl->items[i], "fct_ns", -1);
            return f < 0 ? INFINITY : f / 1000.0; /* null: never finished */
        }
        return NAN;
    }
    if (!strcmp(name, "link")) {
        const struct jv *ls = rows(res, "links");
        for (size_t i = 0; ls && s[0] && s[1] && i < ls->n; i++)
            if (!strcmp(jv_str_at(ls->items[i], "name", ""), s[0]))
                return jv_num_at(ls->items[i], s[1], NAN);
        return NAN;
    }
    int agg = !strcmp(name, "link_max")    ? 0
              : !strcmp(name, "link_min")  ? 1
              : !strcmp(name, "link_mean") ? 2
              : !strcmp(name, "link_sum")  ? 3
                                           : -1;
    if (agg >= 0) return s[0] ? link_agg(res, s[0], nargs > 1 ? s[1] : NULL, agg) : NAN;
    if (!strcmp(name, "busbw")) { /* mean over jobs at SIZE, or at the largest size */
        const struct jv *c = rows(res, "collectives");
        double size = nargs ? a[0] : -1, sum = 0;
        size_t n = 0;
        for (size_t i = 0; nargs == 0 && c && i < c->n; i++)
            size = fmax(size, jv_num_at(c->items[i], "size", 0));
        for (size_t i = 0; c && i < c->n; i++) {
            if (jv_num_at(c->items[i], "size", -2) != size) continue;
            double b = jv_num_at(c->items[i], "busbw_gbps", NAN);
            if (isnan(b)) return NAN;
            sum += b, n++;
        }
        return n ? sum / (double)n : NAN;
    }
    if (!strcmp(name, "flows") || !strcmp(name, "flows_done")) {
        const struct jv *fl = rows(res, "flows");
        bool done = !strcmp(name, "flows_done");
        double n = 0;
        for (size_t i = 0; fl && i < fl->n; i++) {
            if (nargs && s[0] &&
                (!strcmp(jv_str_at(fl->items[i], "src", ""), s[0]) ||
                 !strcmp(jv_str_at(fl->items[i], "dst", ""), s[0])))
                continue;
            n += !done || jv_num_at(fl->items[i], "fct_ns", -1) >= 0;
        }
        return n;
    }
    const struct jv *cp = rows(res, "control_plane");
    const struct jv *row = cp && cp->n ? cp->items[0] : NULL;
    if (!strcmp(name, "cp")) return row && s[0] ? path_num(row, s[0]) : NAN;
    if (!strcmp(name, "reroute_us") || !strcmp(name, "local_reroute_us")) {
        if (!row) return NAN;
        double at = jv_num_at(row, "at_ns", NAN);
        double re = jv_num_at(row, name[0] == 'r' ? "rerouted_at_ns" : "local_reroute_at_ns", -1);
        return re < 0 ? INFINITY : (re - at) / 1000.0;
    }
    if (!strcmp(name, "uplinks_used")) { /* carrying at least half a flow's bytes */
        const struct jv *ls = rows(res, "links"), *fl = rows(res, "flows");
        double size = fl && fl->n ? jv_num_at(fl->items[0], "size", NAN) : flow_unit_bytes(res);
        size_t up = 0, used = 0;
        for (size_t i = 0; ls && i < ls->n; i++) {
            if (!is_uplink(ls->items[i])) continue;
            up++;
            used += jv_num_at(ls->items[i], "bytes", 0) >= size / 2;
        }
        return up && size > 0 ? (double)used / (double)up : NAN;
    }
    if (!strcmp(name, "bins_used") || !strcmp(name, "bins_unused_pct")) {
        double n, k;
        if (!bins_nk(res, &n, &k)) return NAN;
        double unused = pow(1.0 - 1.0 / n, k); /* balls into bins: P(bin empty) */
        return !strcmp(name, "bins_used") ? 1.0 - unused : 100.0 * unused;
    }
    if (!strcmp(name, "offered_max_pct")) return offered(res, 0);
    if (!strcmp(name, "spine_unused_pct")) return offered(res, 1);
    return NAN;
}

/* ---- parser -------------------------------------------------------------- */

struct ps {
    struct expr *e;
    const char *src, *p;
    enum expr_ctx ctx;
    char *err;
    size_t errlen;
    unsigned err_col;
    int depth; /* nesting of parse_unary: parentheses, unary operators, calls */
    bool failed;
};

static int node(struct ps *s, enum expr_op op, unsigned col) {
    fs_grow((void **)&s->e->n, &s->e->cap, s->e->len + 1, sizeof *s->e->n);
    struct expr_node *n = &s->e->n[s->e->len];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->col = col;
    n->metric = -1;
    for (int i = 0; i < EXPR_MAX_ARGS; i++)
        n->kid[i] = -1;
    return (int)s->e->len++;
}

static int fail(struct ps *s, const char *fmt, const char *what) {
    if (!s->failed) {
        s->failed = true;
        s->err_col = (unsigned)(s->p - s->src);
        snprintf(s->err, s->errlen, fmt, what);
    }
    return -1;
}

static void ws(struct ps *s) {
    while (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')
        s->p++;
}

static bool eat(struct ps *s, const char *tok) {
    ws(s);
    size_t l = strlen(tok);
    if (strncmp(s->p, tok, l)) return false;
    /* "<" must not eat the start of "<=", "!" not of "!=". */
    if (l == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!' || tok[0] == '=') &&
        s->p[1] == '=')
        return false;
    s->p += l;
    return true;
}

static int parse_or(struct ps *s);
static int parse_nested(struct ps *s);

static int bin(struct ps *s, enum expr_op op, int a, int b, unsigned col) {
    if (a < 0 || b < 0) return -1;
    int n = node(s, op, col);
    s->e->n[n].kid[0] = a;
    s->e->n[n].kid[1] = b;
    s->e->n[n].nkids = 2;
    return n;
}

static int parse_primary(struct ps *s) {
    ws(s);
    unsigned col = (unsigned)(s->p - s->src);
    if (eat(s, "(")) {
        if (s->depth >= EXPR_MAX_DEPTH) {
            s->p--; /* the message, at the column of this '(' */
            return parse_nested(s);
        }
        s->depth++;
        int n = parse_or(s);
        s->depth--;
        if (n >= 0 && !eat(s, ")")) return fail(s, "expected ')'%s", "");
        return n;
    }
    if (*s->p == '"' || *s->p == '\'') {
        char q = *s->p++;
        const char *b = s->p;
        while (*s->p && *s->p != q)
            s->p++;
        if (!*s->p) return fail(s, "unterminated string%s", "");
        int n = node(s, EXPR_STR, col);
        s->e->n[n].text = fs_xmalloc((size_t)(s->p - b) + 1);
        memcpy(s->e->n[n].text, b, (size_t)(s->p - b));
        s->e->n[n].text[s->p - b] = 0;
        s->p++;
        return n;
    }
    if (isdigit((unsigned char)*s->p) || *s->p == '.') {
        char *end;
        double v = strtod(s->p, &end);
        if (end == s->p) return fail(s, "expected a number%s", "");
        s->p = end;
        int n = node(s, EXPR_NUM, col);
        s->e->n[n].num = v;
        return n;
    }
    if (isalpha((unsigned char)*s->p) || *s->p == '_') {
        const char *b = s->p;
        while (isalnum((unsigned char)*s->p) || *s->p == '_' || *s->p == '.')
            s->p++;
        size_t l = (size_t)(s->p - b);
        char *name = fs_xmalloc(l + 1);
        memcpy(name, b, l);
        name[l] = 0;
        if (!strcmp(name, "inf")) {
            free(name);
            int n = node(s, EXPR_NUM, col);
            s->e->n[n].num = INFINITY;
            return n;
        }
        ws(s);
        if (*s->p != '(') {
            int n = node(s, EXPR_NAME, col);
            s->e->n[n].text = name;
            return n;
        }
        s->p++;
        const struct fn *f = NULL;
        for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
            if (!strcmp(fns[i].name, name) && fns[i].ctx == s->ctx) f = &fns[i];
        if (!f) {
            s->p = b;
            char msg[64];
            snprintf(msg, sizeof msg, "%.40s", name);
            free(name);
            fail(s, "unknown function '%s'", msg);
            if (s->err && strlen(s->err) + 20 < s->errlen)
                snprintf(s->err + strlen(s->err), s->errlen - strlen(s->err), "; allowed: %s",
                         expr_functions(s->ctx));
            return -1;
        }
        int n = node(s, EXPR_CALL, col);
        s->e->n[n].text = name;
        int k = 0;
        if (!eat(s, ")")) {
            do {
                if (k == EXPR_MAX_ARGS) return fail(s, "too many arguments to %s()", f->name);
                if (s->depth >= EXPR_MAX_DEPTH) return parse_nested(s); /* the message */
                s->depth++;
                int a = parse_or(s);
                s->depth--;
                if (a < 0) return -1;
                s->e->n[n].kid[k++] = a;
            } while (eat(s, ","));
            if (!eat(s, ")")) return fail(s, "expected ',' or ')' in the call of %s()", f->name);
        }
        s->e->n[n].nkids = k;
        if (k < f->min_args || k > f->max_args) {
            s->p = b;
            return fail(s, "wrong number of arguments to %s(); allowed: see docs/labs/README.md",
                        f->name);
        }
        return n;
    }
    if (!*s->p) return fail(s, "expression ends too early%s", "");
    return fail(s, "unexpected '%.1s' (expected a number, a name, a call or '(')", s->p);
}

static int parse_unary(struct ps *s);

/* parse_unary with the nesting bounded (EXPR_MAX_DEPTH): every level of
 * parentheses, unary operator or call argument passes here once. */
static int parse_nested(struct ps *s) {
    if (s->depth >= EXPR_MAX_DEPTH) {
        char what[32];
        snprintf(what, sizeof what, "%d", EXPR_MAX_DEPTH);
        return fail(s,
                    "nested too deeply (parentheses, unary '-' or '!', calls); allowed: at "
                    "most %s levels",
                    what);
    }
    s->depth++;
    int n = parse_unary(s);
    s->depth--;
    return n;
}

static int parse_unary(struct ps *s) {
    ws(s);
    unsigned col = (unsigned)(s->p - s->src);
    enum expr_op op;
    if (eat(s, "-"))
        op = EXPR_NEG;
    else if (eat(s, "!"))
        op = EXPR_NOT;
    else
        return parse_primary(s);
    int a = parse_nested(s);
    if (a < 0) return -1;
    int n = node(s, op, col);
    s->e->n[n].kid[0] = a;
    s->e->n[n].nkids = 1;
    return n;
}

static int parse_mul(struct ps *s) {
    int a = parse_unary(s);
    for (;;) {
        unsigned col = (unsigned)(s->p - s->src);
        if (eat(s, "*"))
            a = bin(s, EXPR_MUL, a, parse_unary(s), col);
        else if (eat(s, "/"))
            a = bin(s, EXPR_DIV, a, parse_unary(s), col);
        else
            return a;
    }
}

static int parse_add(struct ps *s) {
    int a = parse_mul(s);
    for (;;) {
        unsigned col = (unsigned)(s->p - s->src);
        if (eat(s, "+"))
            a = bin(s, EXPR_ADD, a, parse_mul(s), col);
        else if (eat(s, "-"))
            a = bin(s, EXPR_SUB, a, parse_mul(s), col);
        else
            return a;
    }
}

static int parse_cmp(struct ps *s) {
    int a = parse_add(s);
    static const struct {
        const char *tok;
        enum expr_op op;
    } ops[] = {{"<=", EXPR_LE}, {">=", EXPR_GE}, {"==", EXPR_EQ},
               {"!=", EXPR_NE}, {"<", EXPR_LT},  {">", EXPR_GT}};
    unsigned col = (unsigned)(s->p - s->src);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (eat(s, ops[i].tok)) return bin(s, ops[i].op, a, parse_add(s), col);
    return a;
}

static int parse_and(struct ps *s) {
    int a = parse_cmp(s);
    for (;;) {
        unsigned col = (unsigned)(s->p - s->src);
        if (!eat(s, "&&")) return a;
        a = bin(s, EXPR_AND, a, parse_cmp(s), col);
    }
}

static int parse_or(struct ps *s) {
    int a = parse_and(s);
    for (;;) {
        unsigned col = (unsigned)(s->p - s->src);
        if (!eat(s, "||")) return a;
        a = bin(s, EXPR_OR, a, parse_and(s), col);
    }
}

int expr_parse(struct expr *e, const char *src, enum expr_ctx ctx, unsigned *err_col, char *err,
               size_t errlen) {
    memset(e, 0, sizeof *e);
    e->root = -1;
    struct ps s = {.e = e, .src = src, .p = src, .ctx = ctx, .err = err, .errlen = errlen};
    size_t len = strlen(src);
    if (len > EXPR_MAX_LEN) {
        char what[64];
        snprintf(what, sizeof what, "%zu bytes; allowed: at most %d", len, EXPR_MAX_LEN);
        fail(&s, "too long (%s)", what);
        *err_col = 0;
        return FS_EINVAL;
    }
    int root = parse_or(&s);
    ws(&s);
    if (root >= 0 && *s.p) fail(&s, "unexpected '%.1s' after the expression", s.p);
    if (s.failed || root < 0) {
        if (!s.failed) fail(&s, "not an expression%s", "");
        *err_col = s.err_col;
        expr_fini(e);
        return FS_EINVAL;
    }
    e->root = root;
    return 0;
}

void expr_fini(struct expr *e) {
    for (size_t i = 0; i < e->len; i++)
        free(e->n[i].text);
    free(e->n);
    memset(e, 0, sizeof *e);
    e->root = -1;
}

/* ---- evaluation ------------------------------------------------------------ */

static double truth(double v) {
    return isnan(v) ? NAN : v != 0;
}

static double eval(const struct expr *e, int i, const struct jv *res, const double *metrics) {
    const struct expr_node *n = &e->n[i];
    double a = 0, b = 0;
    switch (n->op) {
    case EXPR_NUM:
        return n->num;
    case EXPR_STR:
        return NAN; /* only as a function's argument */
    case EXPR_NAME:
        if (metrics) return n->metric >= 0 ? metrics[n->metric] : NAN;
        return res ? path_num(res, n->text) : NAN;
    case EXPR_CALL: {
        double args[EXPR_MAX_ARGS];
        char *strs[EXPR_MAX_ARGS] = {0};
        for (int k = 0; k < n->nkids; k++) {
            const struct expr_node *kn = &e->n[n->kid[k]];
            strs[k] = kn->op == EXPR_STR ? kn->text : NULL;
            args[k] = eval(e, n->kid[k], res, metrics);
        }
        if (!strcmp(n->text, "min"))
            return isnan(args[0]) || isnan(args[1]) ? NAN : fmin(args[0], args[1]);
        if (!strcmp(n->text, "max"))
            return isnan(args[0]) || isnan(args[1]) ? NAN : fmax(args[0], args[1]);
        if (!strcmp(n->text, "abs")) return fabs(args[0]);
        return call_run(n->text, res, args, strs, n->nkids);
    }
    default:
        break;
    }
    a = eval(e, n->kid[0], res, metrics);
    if (n->op == EXPR_NEG) return -a;
    if (n->op == EXPR_NOT) return isnan(a) ? NAN : a == 0;
    b = eval(e, n->kid[1], res, metrics);
    /* false && x is false and true || x is true even when x has no value. */
    if (n->op == EXPR_AND) return truth(a) == 0 || truth(b) == 0 ? 0 : isnan(a + b) ? NAN : 1;
    if (n->op == EXPR_OR) return truth(a) == 1 || truth(b) == 1 ? 1 : isnan(a + b) ? NAN : 0;
    if (isnan(a) || isnan(b)) return NAN;
    switch (n->op) {
    case EXPR_ADD:
        return a + b;
    case EXPR_SUB:
        return a - b;
    case EXPR_MUL:
        return a * b;
    case EXPR_DIV:
        return b == 0 ? (a == 0 ? NAN : a > 0 ? INFINITY : -INFINITY) : a / b;
    case EXPR_LT:
        return a < b;
    case EXPR_LE:
        return a <= b;
    case EXPR_GT:
        return a > b;
    case EXPR_GE:
        return a >= b;
    case EXPR_EQ:
        return a == b;
    case EXPR_NE:
        return a != b;
    default:
        return NAN;
    }
}

double expr_eval_run(const struct expr *e, const struct jv *res) {
    return e->root < 0 || !res ? NAN : eval(e, e->root, res, NULL);
}

double expr_eval_lab(const struct expr *e, const double *metrics) {
    static const double none = NAN;
    return e->root < 0 ? NAN : eval(e, e->root, NULL, metrics ? metrics : &none);
}

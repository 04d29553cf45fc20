/* src/coll/nccllog.c
 *
 * Reads the table nccl-tests prints (NVIDIA/nccl-tests src/common.cu 2.13:
 * "%12li  %12li  %8s  %6s  %6s" then per place "  %7s  %6.2f  %6.2f  %5g";
 * 2.10 had no root column) out of a log that may hold anything else, and
 * compares it with fabsim's own numbers or fits alpha and beta to it.
 */
#include "coll/nccllog.h"

#include "coll/coll.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"
#include "core/jw.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 24

/* Splits `line` in place at blanks; returns the count (at most MAX_TOKENS). */
static int tokens(char *line, char **tok) {
    int n = 0;
    for (char *p = strtok(line, " \t\r"); p && n < MAX_TOKENS; p = strtok(NULL, " \t\r"))
        tok[n++] = p;
    return n;
}

static bool is_uint(const char *s) {
    if (!*s) return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return false;
    return true;
}

static bool num(const char *s, double *v) {
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return *s && !*end && !errno && isfinite(*v);
}

/* "all_reduce_perf" anywhere in a comment line gives the op. */
static void find_op(const char *line, char *op, size_t cap) {
    const char *p = strstr(line, "_perf");
    if (!p || op[0]) return;
    const char *b = p;
    while (b > line && ((b[-1] >= 'a' && b[-1] <= 'z') || b[-1] == '_'))
        b--;
    size_t len = (size_t)(p - b);
    if (!len || len >= cap) return;
    memcpy(op, b, len);
    op[len] = 0;
}

/* A data row's halves: time algbw busbw wrong. false when not numbers. */
static bool half(char **t, struct nccl_log_row *r, int place) {
    double time, alg, bus, wrong;
    if (!num(t[0], &time) || !num(t[1], &alg) || !num(t[2], &bus)) return false;
    if (strcmp(t[3], "N/A") && !num(t[3], &wrong)) return false;
    r->time_us[place] = time;
    r->algbw_GBps[place] = alg;
    r->busbw_GBps[place] = bus;
    return true;
}

int nccl_log_read(struct nccl_log *l, const char *path, struct diag *d) {
    memset(l, 0, sizeof *l);
    size_t len;
    char *text = fs_read_file(path, &len);
    if (!text)
        return diag_set(d, path, (struct srcpos){0, 0}, FS_ENOENT, "cannot read: %s",
                        strerror(errno));
    l->path = fs_xstrdup(path);
    size_t cap = 0;
    unsigned lineno = 0;
    for (char *line = text, *next; line && *line; line = next) {
        lineno++;
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        char *tag = strstr(line, "<stdout>:"); /* mpirun --tag-output */
        if (tag) line = tag + 9;
        while (*line == ' ' || *line == '\t')
            line++;
        if (*line == '#') {
            find_op(line, l->op, sizeof l->op);
            unsigned th, g;
            if (sscanf(line, "# nThread %u nGpus %u", &th, &g) == 2) l->ngpus = g;
            if (!strncmp(line, "#  Rank ", 8)) l->nranks++;
            continue;
        }
        char *t[MAX_TOKENS];
        int nt = tokens(line, t);
        if (nt < 8 || !is_uint(t[0]) || !is_uint(t[1])) continue;
        /* size count type redop [root] time algbw busbw wrong [time algbw busbw wrong] */
        int at = nt == 13 || nt == 9 ? 5 : nt == 12 || nt == 8 ? 4 : -1;
        if (at < 0) continue;
        struct nccl_log_row r = {
            strtoull(t[0], NULL, 10), strtoull(t[1], NULL, 10), {-1, -1}, {0, 0}, {0, 0}};
        if (!half(t + at, &r, 0))
            return nccl_log_fini(l), free(text),
                   diag_set(d, path, (struct srcpos){lineno, 1}, FS_EINVAL,
                            "a row of size %s whose time, algbw, busbw, #wrong are not numbers",
                            t[0]);
        if (nt - at == 8 && !half(t + at + 4, &r, 1)) r.time_us[1] = -1;
        if (l->nrows == cap) {
            cap = cap ? 2 * cap : 32;
            l->rows = fs_xrealloc(l->rows, cap * sizeof *l->rows);
        }
        l->rows[l->nrows++] = r;
    }
    free(text);
    if (!l->nrows) {
        nccl_log_fini(l);
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                        "no nccl-tests rows (size count type redop root time algbw busbw "
                        "#wrong ...)");
    }
    return 0;
}

void nccl_log_fini(struct nccl_log *l) {
    free(l->path);
    free(l->rows);
    memset(l, 0, sizeof *l);
}

double nccl_busfactor(const char *op, uint32_t n) {
    if (!n) return 1.0;
    if (!strcmp(op, "all_reduce")) return 2.0 * (n - 1) / n;
    if (!strcmp(op, "all_gather") || !strcmp(op, "reduce_scatter") || !strcmp(op, "alltoall"))
        return (double)(n - 1) / n;
    return 1.0;
}

/* fabsim's point of `size`, or NULL. */
static const struct coll_point *point(const struct coll_point *p, size_t np, uint64_t size) {
    for (size_t i = 0; i < np; i++)
        if (p[i].size_bytes == size) return &p[i];
    return NULL;
}

/* The log's busbw of a row, from its time rather than its two printed
 * decimals (0.01 GB/s at 512 B is a factor of 2 off): size / time x the
 * bus factor of the log's op and ranks, or fabsim's when the log does not
 * say. */
static double meas_busbw(const struct nccl_log *l, const struct nccl_log_row *r, const char *op,
                         uint32_t ranks) {
    double t = r->time_us[0];
    if (t <= 0) return r->busbw_GBps[0];
    return (double)r->size_bytes / 1e3 / t *
           nccl_busfactor(l->op[0] ? l->op
                          : op     ? op
                                   : "all_reduce",
                          l->nranks ? l->nranks : ranks);
}

void nccl_log_print_against(const struct nccl_log *l, const struct net *n, FILE *f) {
    struct coll_point *p;
    size_t np;
    uint32_t ranks;
    const char *op = coll_points(n, &p, &np, &ranks);
    fprintf(f, "# against %s: %s%s, %u rank(s)%s; fabsim: %s, %u rank(s)\n", l->path,
            l->op[0] ? l->op : "(op not named)", l->op[0] ? "_perf" : "", l->nranks,
            l->nranks ? "" : " listed", op ? op : "no collective", ranks);
    if (op && l->op[0] && strcmp(op, l->op))
        fprintf(f, "# warning: the log is %s_perf, fabsim ran %s\n", l->op, op);
    if (l->nranks && ranks && l->nranks != ranks)
        fprintf(f, "# warning: the log lists %u ranks, fabsim ran %u\n", l->nranks, ranks);
    fprintf(f, "# %10s  %12s  %12s  %7s  %7s  %14s\n", "size", "fabsim busbw", "meas. busbw",
            "ratio", "fabsim", "measured time");
    fprintf(f, "# %10s  %12s  %12s  %7s  %7s  %14s\n", "(B)", "(GB/s)", "(GB/s)", "", "(us)",
            "(us)");
    double lsum = 0;
    unsigned lcnt = 0;
    for (size_t i = 0; i < l->nrows; i++) {
        const struct nccl_log_row *r = &l->rows[i];
        const struct coll_point *q = point(p, np, r->size_bytes);
        if (!q) continue;
        char fb[16] = "-", ra[16] = "-", ft[16] = "-";
        double mb = meas_busbw(l, r, op, ranks);
        if (q->time_us > 0) {
            snprintf(fb, sizeof fb, "%.3g", q->busbw_GBps);
            snprintf(ft, sizeof ft, "%.2f", q->time_us);
            if (mb > 0) {
                double x = q->busbw_GBps / mb;
                snprintf(ra, sizeof ra, "%.3f", x);
                lsum += log(x);
                lcnt++;
            }
        }
        fprintf(f, "%12llu  %12s  %12.3g  %7s  %7s  %14.2f\n", (unsigned long long)r->size_bytes,
                fb, mb, ra, ft, r->time_us[0]);
    }
    if (lcnt)
        fprintf(f, "# %u sizes in both; geometric mean ratio fabsim / measured: %.3f\n", lcnt,
                exp(lsum / lcnt));
    else
        fprintf(f, "# no size in both (fabsim ran %zu, the log has %zu)\n", np, l->nrows);
    free(p);
}

void nccl_log_write_json(const struct nccl_log *l, const struct net *n, struct jw *w) {
    struct coll_point *p;
    size_t np;
    uint32_t ranks;
    const char *op = coll_points(n, &p, &np, &ranks);
    jw_key(w, "against");
    jw_obj(w);
    jw_kstr(w, "file", l->path);
    jw_key(w, "op");
    if (l->op[0])
        jw_str(w, l->op);
    else
        jw_null(w);
    jw_ku64(w, "ranks", l->nranks);
    jw_key(w, "fabsim_op");
    if (op)
        jw_str(w, op);
    else
        jw_null(w);
    jw_ku64(w, "fabsim_ranks", ranks);
    jw_key(w, "rows");
    jw_arr(w);
    for (size_t i = 0; i < l->nrows; i++) {
        const struct nccl_log_row *r = &l->rows[i];
        const struct coll_point *q = point(p, np, r->size_bytes);
        jw_obj_compact(w);
        jw_ku64(w, "size", r->size_bytes);
        jw_knum(w, "measured_time_us", r->time_us[0]);
        double mb = meas_busbw(l, r, op, ranks);
        jw_knum(w, "measured_busbw_GBps", mb);
        bool ok = q && q->time_us > 0;
        jw_key(w, "fabsim_time_us");
        if (ok)
            jw_num(w, q->time_us);
        else
            jw_null(w);
        jw_key(w, "fabsim_busbw_GBps");
        if (ok)
            jw_num(w, q->busbw_GBps);
        else
            jw_null(w);
        jw_key(w, "ratio");
        if (ok && mb > 0)
            jw_num(w, q->busbw_GBps / mb);
        else
            jw_null(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_obj_end(w);
    free(p);
}

int nccl_log_fit(const struct nccl_log *l, uint32_t nranks, struct nccl_fit *fit) {
    memset(fit, 0, sizeof *fit);
    /* Weighted least squares of t = a + b S with weights 1/t^2. */
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < l->nrows; i++) {
        double t = l->rows[i].time_us[0], s = (double)l->rows[i].size_bytes;
        if (t <= 0) continue;
        double wt = 1.0 / (t * t);
        sw += wt, sx += wt * s, sy += wt * t, sxx += wt * s * s, sxy += wt * s * t;
        fit->nused++;
    }
    if (fit->nused < 2) return -1;
    double det = sw * sxx - sx * sx;
    if (det <= 0) return -1;
    double b = (sw * sxy - sx * sy) / det, a = (sy - b * sx) / sw;
    if (a < 0) { /* refit through the origin-free slope: latency cannot be negative */
        a = 0;
        b = sxy / sxx;
    }
    fit->alpha_us = a;
    fit->algbw_GBps = b > 0 ? 1.0 / (b * 1e3) : 0; /* us per byte -> GB/s */
    fit->busbw_GBps = fit->algbw_GBps * nccl_busfactor(l->op[0] ? l->op : "all_reduce", nranks);
    for (size_t i = 0; i < l->nrows; i++) {
        double t = l->rows[i].time_us[0], s = (double)l->rows[i].size_bytes;
        if (t <= 0) continue;
        double e = fabs(a + b * s - t) / t;
        if (e > fit->max_rel_err) fit->max_rel_err = e;
    }
    return 0;
}

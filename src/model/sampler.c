#include "model/sampler.h"

#include "cc/cc.h"
#include "core/diag.h"
#include "core/mem.h"
#include "flowctl/flowctl.h"
#include "net/net.h"
#include "core/jw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sampler_init(struct sampler *sp, const struct net *n, sim_time_ps interval_ps) {
    memset(sp, 0, sizeof *sp);
    sp->automatic = interval_ps == 0;
    sp->interval_ps = interval_ps ? interval_ps : SAMPLER_AUTO_START_PS;
    sp->nports = n->nports;
    sp->cap = SAMPLER_AUTO_ROWS;
    sp->rows = fs_xcalloc((size_t)sp->cap * (sp->nports ? sp->nports : 1), sizeof *sp->rows);
    sp->last_bytes = fs_xcalloc(sp->nports + 1, sizeof *sp->last_bytes);
    sp->last_busy = fs_xcalloc(sp->nports + 1, sizeof *sp->last_busy);
    sp->last_paused = fs_xcalloc(sp->nports + 1, sizeof *sp->last_paused);
    if (n->cc == &cc_dcqcn_ops)
        sp->cc_rows = fs_xcalloc((size_t)sp->cap * SAMPLER_CC_QPS, sizeof *sp->cc_rows);
}

static void alloc_ports(struct sampler *sp, uint32_t nports) {
    free(sp->rows);
    free(sp->last_bytes);
    free(sp->last_busy);
    free(sp->last_paused);
    sp->nports = nports;
    sp->rows = fs_xcalloc((size_t)sp->cap * (nports ? nports : 1), sizeof *sp->rows);
    sp->last_bytes = fs_xcalloc(nports + 1, sizeof *sp->last_bytes);
    sp->last_busy = fs_xcalloc(nports + 1, sizeof *sp->last_busy);
    sp->last_paused = fs_xcalloc(nports + 1, sizeof *sp->last_paused);
}

void sampler_restrict(struct sampler *sp, const uint32_t *ports, uint32_t n) {
    FS_ASSERT(sp->n == 0, "sampler_restrict after %u samples", sp->n);
    alloc_ports(sp, n);
    free(sp->port_of);
    sp->port_of = fs_xmalloc(((size_t)n + 1) * sizeof *sp->port_of);
    if (n) memcpy(sp->port_of, ports, n * sizeof *ports);
}

void sampler_expand(struct sampler *sp, uint32_t nports) {
    alloc_ports(sp, nports);
    free(sp->port_of);
    sp->port_of = NULL;
}

void sampler_fini(struct sampler *sp) {
    free(sp->port_of);
    free(sp->rows);
    free(sp->last_bytes);
    free(sp->last_busy);
    free(sp->last_paused);
    free(sp->cc_rows);
    memset(sp, 0, sizeof *sp);
}

static uint32_t clamp32(uint64_t v) {
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Halves the table: sample pairs merge, the interval doubles. */
static void merge_pairs(struct sampler *sp) {
    uint32_t P = sp->nports;
    for (uint32_t i = 0; i < sp->n / 2; i++) {
        struct sample *a = &sp->rows[(size_t)(2 * i) * P], *b = &sp->rows[(size_t)(2 * i + 1) * P];
        struct sample *o = &sp->rows[(size_t)i * P];
        for (uint32_t p = 0; p < P; p++) {
            struct sample m;
            m.bytes = clamp32((uint64_t)a[p].bytes + b[p].bytes);
            m.busy_ns = clamp32((uint64_t)a[p].busy_ns + b[p].busy_ns);
            m.paused_ns = clamp32((uint64_t)a[p].paused_ns + b[p].paused_ns);
            m.q_bytes = a[p].q_bytes > b[p].q_bytes ? a[p].q_bytes : b[p].q_bytes;
            o[p] = m;
        }
    }
    for (uint32_t i = 0; sp->cc_rows && i < sp->n / 2; i++)
        memcpy(&sp->cc_rows[(size_t)i * SAMPLER_CC_QPS],
               &sp->cc_rows[(size_t)(2 * i + 1) * SAMPLER_CC_QPS],
               SAMPLER_CC_QPS * sizeof *sp->cc_rows);
    sp->n /= 2;
    sp->interval_ps *= 2;
}

void sampler_take(struct sampler *sp, struct net *n, sim_time_ps now) {
    if (now <= sp->last_ps && sp->n > 0) return;
    if (sp->n == sp->cap) {
        sp->cap *= 2;
        sp->rows = fs_xrealloc(sp->rows, (size_t)sp->cap * sp->nports * sizeof *sp->rows);
        if (sp->cc_rows)
            sp->cc_rows =
                fs_xrealloc(sp->cc_rows, (size_t)sp->cap * SAMPLER_CC_QPS * sizeof *sp->cc_rows);
    }
    if (sp->cc_rows) {
        float *cr = &sp->cc_rows[(size_t)sp->n * SAMPLER_CC_QPS];
        uint32_t nq = n->nqps < SAMPLER_CC_QPS ? n->nqps : SAMPLER_CC_QPS;
        for (uint32_t q = 0; q < SAMPLER_CC_QPS; q++)
            cr[q] = q < nq ? (float)(dcqcn_rate_bps(n, q) / 1e9) : -1.0f;
        if (nq > sp->cc_nqps) sp->cc_nqps = nq;
    }
    struct sample *row = &sp->rows[(size_t)sp->n * sp->nports];
    uint64_t (*ongoing)(const struct net *, uint32_t) = n->fc ? n->fc->ongoing_ps : NULL;
    for (uint32_t p = 0; p < sp->nports; p++) {
        uint32_t port = sp->port_of ? sp->port_of[p] : p;
        const struct port *pt = &n->ports[port];
        /* no pause holds the port: nothing ongoing (flowctl.h) */
        uint64_t paused =
            pt->paused_ps + pt->credit_stall_ps + (ongoing && pt->fc_hold ? ongoing(n, port) : 0);
        uint64_t busy = port_busy_ps(pt);
        row[p].bytes = clamp32(pt->tx_bytes - sp->last_bytes[p]);
        row[p].busy_ns = clamp32((busy - sp->last_busy[p]) / 1000);
        /* whole ns of the running total, differenced: the rows of a link sum
         * to its results.json paused_ns + credit_stall_ns (floored once) */
        row[p].paused_ns = clamp32(paused / 1000 - sp->last_paused[p] / 1000);
        row[p].q_bytes = clamp32(pt->q_bytes);
        sp->last_bytes[p] = pt->tx_bytes;
        sp->last_busy[p] = busy;
        sp->last_paused[p] = paused;
    }
    sp->n++;
    sp->last_ps = now;
}

void sampler_on_event(struct sim *s, const struct event *e) {
    (void)e;
    struct net *n = s->model;
    struct sampler *sp = n->sampler;
    sampler_take(sp, n, s->now_ps);
    /* Full in automatic mode: merge pairs so the next sample, one new
     * (doubled) interval from now, lines up with the merged ones. */
    if (sp->automatic && sp->n >= SAMPLER_AUTO_ROWS && sp->n % 2 == 0) merge_pairs(sp);
    /* Several ranks (par/): each counts only its share; the run stops where
     * one process would, before any sample the sum would have refused. */
    if (n->par || n->work_pending > 0 || n->ctrl_pending > 0 || n->pkts_in_flight > 0)
        sim_at(s, s->now_ps + sp->interval_ps, 0, NET_EV_SAMPLE, 0, 0);
}

/* u in [0, 1] as printf's "%.4f" would print it: four decimals of the
 * exact binary value, ties to even. The scaled value is within an ulp of
 * u x 10^4, so wherever its fraction is not within 1e-6 of one half the
 * rounding is the same; there (and anywhere out of range) printf decides. */
static char *put_frac4(char *o, double u) {
    double x = u * 10000.0, fl = floor(x);
    if (!(x >= 0.0 && x <= 10000.0) || fabs(x - fl - 0.5) < 1e-6)
        return o + snprintf(o, 32, "%.4f", u);
    uint32_t k = (uint32_t)fl + (x - fl > 0.5);
    *o++ = (char)('0' + k / 10000);
    *o++ = '.';
    k %= 10000;
    o[3] = (char)('0' + k % 10), k /= 10;
    o[2] = (char)('0' + k % 10), k /= 10;
    o[1] = (char)('0' + k % 10), k /= 10;
    o[0] = (char)('0' + k);
    return o + 4;
}

/* links.csv: integers and utilisations formatted by hand into a buffer
 * (printf per row was 15 % of a 128-host run, issue 13), the link's name
 * from its nodes' (net_port_name's format: a table of them was 3 MB at
 * 49,152 links). Byte-identical to the printf output it replaces. */
enum { CSV_BUF = 1 << 16, CSV_ROW_MAX = 2 * 24 + 3 + 10 + 4 * 12 + 40 };

int sampler_csv_open(struct sampler_csv *c, const struct sampler *sp, const struct net *n,
                     FILE *f) {
    memset(c, 0, sizeof *c);
    c->sp = sp;
    c->n = n;
    c->f = f;
    fprintf(f, "time_ns,link,bytes,utilization,queue_bytes,paused_ns\n");
    c->buf = fs_xmalloc(CSV_BUF);
    c->o = c->buf;
    return ferror(f) ? -1 : 0;
}

void sampler_csv_row(struct sampler_csv *c, uint32_t i) {
    const struct sampler *sp = c->sp;
    double iv_ns = (double)sp->interval_ps / 1000.0;
    double t_ns = iv_ns * (i + 1);
    c->span_ns = iv_ns;
    if (i + 1 == sp->n && sp->last_ps < sp->interval_ps * (uint64_t)(i + 1)) {
        t_ns = (double)sp->last_ps / 1000.0; /* the last, partial interval */
        c->span_ns = t_ns - iv_ns * i;
    }
    c->tl = snprintf(c->t, sizeof c->t, "%.0f,", t_ns);
}

static char *put_name(char *o, const char *s) {
    size_t l = strnlen(s, 24);
    memcpy(o, s, l);
    return o + l;
}

void sampler_csv_line(struct sampler_csv *c, uint32_t p, const struct sample *sm) {
    if (c->o - c->buf > CSV_BUF - CSV_ROW_MAX - c->tl) {
        fwrite(c->buf, 1, (size_t)(c->o - c->buf), c->f);
        c->o = c->buf;
    }
    char *o = c->o;
    const struct net *n = c->n;
    const struct port *pt = &n->ports[p];
    double u = c->span_ns > 0 ? sm->busy_ns / c->span_ns : 0.0;
    if (u > 1.0) u = 1.0;
    memcpy(o, c->t, (size_t)c->tl);
    o += c->tl;
    o = put_name(o, n->names[pt->node]); /* net_port_name: "%s->%s", "#%u" if parallel */
    *o++ = '-';
    *o++ = '>';
    o = put_name(o, n->names[n->ports[pt->peer].node]);
    if (pt->parallel) {
        *o++ = '#';
        o = jw_fmt_u64(o, pt->parallel);
    }
    *o++ = ',';
    o = jw_fmt_u64(o, sm->bytes);
    *o++ = ',';
    o = put_frac4(o, u);
    *o++ = ',';
    o = jw_fmt_u64(o, sm->q_bytes);
    *o++ = ',';
    o = jw_fmt_u64(o, sm->paused_ns);
    *o++ = '\n';
    c->o = o;
}

int sampler_csv_close(struct sampler_csv *c) {
    fwrite(c->buf, 1, (size_t)(c->o - c->buf), c->f);
    free(c->buf);
    int rc = ferror(c->f) ? -1 : 0;
    memset(c, 0, sizeof *c);
    return rc;
}

int sampler_write_csv(const struct sampler *sp, const struct net *n, FILE *f) {
    FS_ASSERT(!sp->port_of, "links.csv from a sampler of %u ports of %u", sp->nports, n->nports);
    struct sampler_csv c;
    sampler_csv_open(&c, sp, n, f);
    for (uint32_t i = 0; i < sp->n; i++) {
        sampler_csv_row(&c, i);
        const struct sample *row = &sp->rows[(size_t)i * sp->nports];
        for (uint32_t p = 0; p < sp->nports; p++)
            sampler_csv_line(&c, p, &row[p]);
    }
    return sampler_csv_close(&c);
}

void sampler_write_cc_rates(const struct sampler *sp, const struct net *n, struct jw *w) {
    jw_arr(w);
    double iv_ns = (double)sp->interval_ps / 1000.0;
    for (uint32_t q = 0; sp->cc_rows && q < sp->cc_nqps; q++) {
        jw_obj_compact(w);
        jw_ku64(w, "qp", q);
        jw_kstr(w, "src", n->names[n->qps[q].src]);
        jw_kstr(w, "dst", n->names[n->qps[q].dst]);
        jw_key(w, "t_ns");
        jw_arr_compact(w);
        for (uint32_t i = 0; i < sp->n; i++)
            if (sp->cc_rows[(size_t)i * SAMPLER_CC_QPS + q] >= 0)
                jw_num(w, i + 1 == sp->n && sp->last_ps < sp->interval_ps * (uint64_t)(i + 1)
                              ? (double)sp->last_ps / 1000.0
                              : iv_ns * (i + 1));
        jw_arr_end(w);
        jw_key(w, "gbps");
        jw_arr_compact(w);
        for (uint32_t i = 0; i < sp->n; i++) {
            float v = sp->cc_rows[(size_t)i * SAMPLER_CC_QPS + q];
            if (v >= 0) jw_num(w, round((double)v * 1000.0) / 1000.0);
        }
        jw_arr_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

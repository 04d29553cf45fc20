#include "stats/sampler.h"

#include "core/mem.h"
#include "net/net.h"

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
}

void sampler_fini(struct sampler *sp) {
    free(sp->rows);
    free(sp->last_bytes);
    free(sp->last_busy);
    free(sp->last_paused);
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
    sp->n /= 2;
    sp->interval_ps *= 2;
}

void sampler_take(struct sampler *sp, const struct net *n, sim_time_ps now) {
    if (now <= sp->last_ps && sp->n > 0) return;
    if (sp->n == sp->cap) {
        sp->cap *= 2;
        sp->rows = fs_xrealloc(sp->rows, (size_t)sp->cap * sp->nports * sizeof *sp->rows);
    }
    struct sample *row = &sp->rows[(size_t)sp->n * sp->nports];
    for (uint32_t p = 0; p < sp->nports; p++) {
        const struct port *pt = &n->ports[p];
        uint64_t paused = pt->paused_ps + pt->credit_stall_ps;
        row[p].bytes = clamp32(pt->tx_bytes - sp->last_bytes[p]);
        row[p].busy_ns = clamp32((pt->busy_ps - sp->last_busy[p]) / 1000);
        row[p].paused_ns = clamp32((paused - sp->last_paused[p]) / 1000);
        row[p].q_bytes = clamp32(pt->q_bytes);
        sp->last_bytes[p] = pt->tx_bytes;
        sp->last_busy[p] = pt->busy_ps;
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
    if (n->par || n->work_pending > 0 || n->pkts_in_flight > 0)
        sim_at(s, s->now_ps + sp->interval_ps, 0, NET_EV_SAMPLE, 0, 0);
}

int sampler_write_csv(const struct sampler *sp, const struct net *n, FILE *f) {
    fprintf(f, "time_ns,link,bytes,utilization,queue_bytes,paused_ns\n");
    char name[64];
    double iv_ns = (double)sp->interval_ps / 1000.0;
    for (uint32_t i = 0; i < sp->n; i++) {
        const struct sample *row = &sp->rows[(size_t)i * sp->nports];
        double t_ns = iv_ns * (i + 1), span_ns = iv_ns;
        if (i + 1 == sp->n && sp->last_ps < sp->interval_ps * (uint64_t)(i + 1)) {
            t_ns = (double)sp->last_ps / 1000.0; /* the last, partial interval */
            span_ns = t_ns - iv_ns * i;
        }
        for (uint32_t p = 0; p < sp->nports; p++) {
            net_port_name(n, p, name, sizeof name);
            double u = span_ns > 0 ? row[p].busy_ns / span_ns : 0.0;
            if (u > 1.0) u = 1.0;
            fprintf(f, "%.0f,%s,%u,%.4f,%u,%u\n", t_ns, name, row[p].bytes, u, row[p].q_bytes,
                    row[p].paused_ns);
        }
    }
    return ferror(f) ? -1 : 0;
}

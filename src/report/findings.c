/* src/report/findings.c
 *
 * The report's headline findings, computed from the runs' numbers (never
 * typed in). Each finding names the scenarios it reads; a scenario that did
 * not run (mechanism not built yet) turns its clause into "not yet
 * available" instead of a number. The scenario ids are the lab files' names
 * under scenarios/labs/<lab>/ without their "NN-" ordering prefix.
 */
#include "report/report.h"

#include "core/mem.h"
#include "report/jread.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fb {
    const char *lab;
    char text[1024];
    size_t len;
    int parts;
    char missing[512];
    size_t mlen;
};

static const struct report_scn *find(const struct report *r, const char *lab, const char *id) {
    for (size_t i = 0; i < r->nlabs; i++) {
        if (strcmp(r->labs[i].id, lab)) continue;
        for (size_t k = 0; k < r->labs[i].nscn; k++)
            if (!strcmp(r->labs[i].scn[k].id, id)) return &r->labs[i].scn[k];
    }
    return NULL;
}

static bool lab_present(const struct report *r, const char *lab) {
    for (size_t i = 0; i < r->nlabs; i++)
        if (!strcmp(r->labs[i].id, lab)) return true;
    return false;
}

/* The run of lab/id when it ran; otherwise notes it as missing in `b`. */
static const struct jv *need(const struct report *r, struct fb *b, const char *id,
                             const char *what) {
    const struct report_scn *s = find(r, b->lab, id);
    if (s && s->res && !strcmp(s->status, REPORT_OK)) return s->res;
    if (b->mlen < sizeof b->missing - 1)
        b->mlen += (size_t)snprintf(b->missing + b->mlen, sizeof b->missing - b->mlen, "%s%s",
                                    b->mlen ? "; " : "", what);
    if (b->mlen >= sizeof b->missing) b->mlen = sizeof b->missing - 1;
    return NULL;
}

static void add(struct fb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct fb *b, const char *fmt, ...) {
    if (b->len >= sizeof b->text - 1) return;
    if (b->parts++) b->len += (size_t)snprintf(b->text + b->len, sizeof b->text - b->len, "; ");
    va_list ap;
    va_start(ap, fmt);
    if (b->len < sizeof b->text - 1)
        b->len += (size_t)vsnprintf(b->text + b->len, sizeof b->text - b->len, fmt, ap);
    va_end(ap);
    if (b->len >= sizeof b->text) b->len = sizeof b->text - 1;
}

static void finish(struct report *r, struct fb *b, const char *title) {
    size_t cap = r->nfindings; /* no capacity kept: grows by one, as before */
    fs_grow((void **)&r->findings, &cap, r->nfindings + 1, sizeof *r->findings);
    struct report_finding *f = &r->findings[r->nfindings++];
    memset(f, 0, sizeof *f);
    snprintf(f->lab, sizeof f->lab, "%s", b->lab);
    f->available = b->parts > 0;
    if (!b->parts)
        snprintf(f->text, sizeof f->text, "%s: not yet available (needs %s)", title, b->missing);
    else if (b->mlen)
        snprintf(f->text, sizeof f->text, "%s: %s (not yet available: %s)", title, b->text,
                 b->missing);
    else
        snprintf(f->text, sizeof f->text, "%s: %s", title, b->text);
}

static double num(const struct jv *res, const char *path) {
    return jv_num_at(res, path, 0.0);
}

/* Completion time in microseconds, or -1 when the workload did not finish. */
static double done_us(const struct jv *res) {
    if (!jv_bool_at(res, "summary.completed", false)) return -1;
    double d = jv_num_at(res, "summary.done_ns", -1);
    if (d < 0) d = num(res, "summary.sim_time_ns");
    return d / 1000.0;
}

/* "12.3 us" below a millisecond, "42.1 ms" above. */
static void fmt_dur(char *buf, size_t len, double ns) {
    if (ns < 1e6)
        snprintf(buf, len, "%.1f us", ns / 1e3);
    else
        snprintf(buf, len, "%.1f ms", ns / 1e6);
}

static void fmt_done(char *buf, size_t len, const struct jv *res) {
    double us = done_us(res);
    char t[32];
    if (jv_bool_at(res, "summary.deadlock.detected", false)) {
        fmt_dur(t, sizeof t, jv_num_at(res, "summary.deadlock.at_ns", 0));
        snprintf(buf, len, "DEADLOCK at %s", t);
    } else if (us < 0) {
        fmt_dur(t, sizeof t, num(res, "summary.sim_time_ns"));
        snprintf(buf, len, "not finished by %s", t);
    } else {
        fmt_dur(t, sizeof t, us * 1000.0);
        snprintf(buf, len, "done in %s", t);
    }
}

static double max_link(const struct jv *res, const char *field, const char *tier) {
    const struct jv *links = jv_get(res, "links");
    double m = 0;
    for (size_t i = 0; links && i < links->n; i++) {
        if (tier && strcmp(jv_str_at(links->items[i], "tier", ""), tier)) continue;
        double v = jv_num_at(links->items[i], field, 0);
        if (v > m) m = v;
    }
    return m;
}

static double mean_link(const struct jv *res, const char *field, const char *tier) {
    const struct jv *links = jv_get(res, "links");
    double s = 0;
    size_t n = 0;
    for (size_t i = 0; links && i < links->n; i++) {
        if (tier && strcmp(jv_str_at(links->items[i], "tier", ""), tier)) continue;
        s += jv_num_at(links->items[i], field, 0);
        n++;
    }
    return n ? s / (double)n : 0;
}

/* busbw (Gbit/s) of the largest message among the collectives rows, averaged over jobs. */
static double busbw_largest(const struct jv *res, double *size_out) {
    const struct jv *c = jv_get(res, "collectives");
    double big = -1, sum = 0;
    size_t n = 0;
    for (size_t i = 0; c && i < c->n; i++) {
        double sz = jv_num_at(c->items[i], "size", 0);
        if (sz > big) big = sz, sum = 0, n = 0;
        if (sz == big) sum += jv_num_at(c->items[i], "busbw_gbps", 0), n++;
    }
    if (size_out) *size_out = big;
    return n ? sum / (double)n : -1;
}

/* FCT (us) of the first flow to `dst`, or -1. */
static double flow_fct_to(const struct jv *res, const char *dst) {
    const struct jv *fl = jv_get(res, "flows");
    for (size_t i = 0; fl && i < fl->n; i++)
        if (!strcmp(jv_str_at(fl->items[i], "dst", ""), dst)) {
            double f = jv_num_at(fl->items[i], "fct_ns", -1);
            return f < 0 ? -1 : f / 1000.0;
        }
    return -1;
}

static void drops_clause(struct fb *b, const char *label, const struct jv *res) {
    char done[64];
    fmt_done(done, sizeof done, res);
    double pauses = num(res, "summary.pause_frames");
    if (pauses > 0)
        add(b, "%s: %.0f drops, %.0f retransmissions, %.0f pause frames, %s", label,
            num(res, "summary.packets_dropped"), num(res, "summary.retransmitted_packets"), pauses,
            done);
    else
        add(b, "%s: %.0f drops, %.0f retransmissions, %s", label,
            num(res, "summary.packets_dropped"), num(res, "summary.retransmitted_packets"), done);
}

static void lossless(struct report *r) {
    static const char *const ids[][2] = {
        {"incast-ib-credit", "IB credits"},
        {"incast-roce-pfc", "RoCE PFC (auto headroom)"},
        {"incast-roce-pfc-small-headroom", "RoCE PFC, too little headroom"},
        {"incast-roce-lossy", "lossy RoCE"},
    };
    struct fb b = {.lab = "lossless"};
    for (size_t i = 0; i < 4; i++) {
        const struct jv *res = need(r, &b, ids[i][0], ids[i][1]);
        if (res) drops_clause(&b, ids[i][1], res);
    }
    finish(r, &b, "Incast 7 to 1");

    static const char *const a2a[][2] = {
        {"alltoall-ib-credit", "IB credits"},
        {"alltoall-roce-pfc", "RoCE PFC"},
        {"alltoall-roce-lossy", "lossy RoCE"},
    };
    struct fb c = {.lab = "lossless"};
    for (size_t i = 0; i < 3; i++) {
        const struct jv *res = need(r, &c, a2a[i][0], a2a[i][1]);
        if (res) drops_clause(&c, a2a[i][1], res);
    }
    finish(r, &c, "All-to-all");

    static const char *const vic[][2] = {
        {"victim-ib-credit", "IB credits"},
        {"victim-roce-pfc", "RoCE PFC"},
        {"victim-roce-lossy", "lossy RoCE"},
    };
    struct fb v = {.lab = "lossless"};
    for (size_t i = 0; i < 3; i++) {
        const struct jv *res = need(r, &v, vic[i][0], vic[i][1]);
        if (!res) continue;
        double fct = flow_fct_to(res, "h1");
        if (fct < 0)
            add(&v, "%s: victim flow not finished", vic[i][1]);
        else
            add(&v, "%s: victim flow FCT %.1f us (%.0f us paused on links)", vic[i][1], fct,
                num(res, "summary.paused_ns_total") / 1000.0);
    }
    finish(r, &v, "Victim flow h7 to h1 next to an incast into h0");

    static const char *const dl[][2] = {
        {"deadlock-ring-pfc-minhop", "RoCE PFC, shortest-path routes"},
        {"deadlock-ring-ib-minhop", "IB credits, min-hop routes"},
        {"deadlock-ring-ib-updn", "IB credits, SM up/down routes"},
    };
    struct fb d = {.lab = "lossless"};
    for (size_t i = 0; i < 3; i++) {
        const struct jv *res = need(r, &d, dl[i][0], dl[i][1]);
        if (!res) continue;
        if (jv_bool_at(res, "summary.deadlock.detected", false)) {
            const struct jv *cyc = jv_path(res, "summary.deadlock.cycle");
            add(&d, "%s: DEADLOCK at %.1f us, cycle of %zu ports", dl[i][1],
                num(res, "summary.deadlock.at_ns") / 1000.0, cyc ? cyc->n : 0);
        } else {
            char done[64];
            fmt_done(done, sizeof done, res);
            add(&d, "%s: no deadlock, %s", dl[i][1], done);
        }
    }
    finish(r, &d, "Ring of 5 switches, each host sending 2 hops clockwise");
}

static void cc_clause(struct fb *b, const char *label, const struct jv *res) {
    char done[64];
    fmt_done(done, sizeof done, res);
    char order[96] = "";
    double fp = jv_num_at(res, "summary.first_pause_ns", -1);
    double fm = jv_num_at(res, "summary.first_ecn_mark_ns", -1);
    if (fp >= 0 && fm >= 0)
        snprintf(order, sizeof order, ", first %s at %.1f us, first %s at %.1f us",
                 fp < fm ? "PAUSE" : "ECN mark", (fp < fm ? fp : fm) / 1e3,
                 fp < fm ? "ECN mark" : "PAUSE", (fp < fm ? fm : fp) / 1e3);
    add(b, "%s: %.0f pause frames, %.0f ECN marks, %.0f CNPs, max queue %.0f KiB%s, %s", label,
        num(res, "summary.pause_frames"), num(res, "summary.ecn_marked"), num(res, "summary.cnps"),
        max_link(res, "max_queue_bytes", NULL) / 1024.0, order, done);
}

static void ecn_dcqcn(struct report *r) {
    static const char *const ids[][2] = {
        {"incast-pfc-only", "PFC only"},
        {"incast-dcqcn-default", "DCQCN firmware defaults"},
        {"incast-dcqcn-paper", "DCQCN paper parameters"},
        {"incast-ecn-misconfigured", "ECN kmin above PFC xoff"},
    };
    struct fb b = {.lab = "ecn_dcqcn"};
    for (size_t i = 0; i < 4; i++) {
        const struct jv *res = need(r, &b, ids[i][0], ids[i][1]);
        if (res) cc_clause(&b, ids[i][1], res);
    }
    finish(r, &b, "Incast under PFC and DCQCN");

    static const char *const st[][2] = {
        {"pause-storm-no-watchdog", "no watchdog"},
        {"pause-storm-watchdog", "PFC watchdog"},
    };
    struct fb s = {.lab = "ecn_dcqcn"};
    for (size_t i = 0; i < 2; i++) {
        const struct jv *res = need(r, &s, st[i][0], st[i][1]);
        if (!res) continue;
        char done[64];
        fmt_done(done, sizeof done, res);
        /* Victims: the flows that neither start nor end at the stalled h3. */
        const struct jv *fl = jv_get(res, "flows");
        int victims = 0, finished = 0;
        for (size_t k = 0; fl && k < fl->n; k++) {
            if (!strcmp(jv_str_at(fl->items[k], "src", ""), "h3") ||
                !strcmp(jv_str_at(fl->items[k], "dst", ""), "h3"))
                continue;
            victims++;
            finished += jv_num_at(fl->items[k], "fct_ns", -1) >= 0;
        }
        add(&s,
            "%s: %d of %d flows not involving h3 finished, %.0f us paused in total over all "
            "links, %.0f drops",
            st[i][1], finished, victims, num(res, "summary.paused_ns_total") / 1000.0,
            num(res, "summary.packets_dropped"));
        (void)done;
    }
    finish(r, &s, "Pause storm from a stalled host");
}

static void sharp(struct report *r) {
    static const char *const ids[][2] = {
        {"allreduce-ring-8", "ring"},
        {"allreduce-tree-8", "tree"},
        {"allreduce-sharp-8", "SHARP"},
    };
    struct fb b = {.lab = "sharp"};
    for (size_t i = 0; i < 3; i++) {
        const struct jv *res = need(r, &b, ids[i][0], ids[i][1]);
        if (!res) continue;
        double size;
        double bw = busbw_largest(res, &size);
        if (bw < 0)
            add(&b, "%s: no collective finished", ids[i][1]);
        else
            add(&b, "%s %.1f Gb/s", ids[i][1], bw);
    }
    finish(r, &b, "AllReduce busbw on 8 nodes at the largest size");

    static const char *const nv[][2] = {
        {"node-ring-nvlink", "ring over NVLink"},
        {"node-nvls", "NVLS"},
    };
    struct fb n = {.lab = "sharp"};
    for (size_t i = 0; i < 2; i++) {
        const struct jv *res = need(r, &n, nv[i][0], nv[i][1]);
        if (!res) continue;
        double bw = busbw_largest(res, NULL);
        if (bw < 0)
            add(&n, "%s: no collective finished", nv[i][1]);
        else
            add(&n, "%s %.1f Gb/s", nv[i][1], bw);
    }
    finish(r, &n, "AllReduce inside one 8-GPU node, busbw");
}

static void subnet_manager(struct report *r) {
    static const char *const ids[][2] = {
        {"failure-ib-shield", "IB SHIELD"},
        {"failure-ib-sm", "IB subnet manager"},
        {"failure-roce-bgp-bfd", "BGP with BFD"},
        {"failure-roce-bgp-no-bfd", "BGP, hold timer only"},
    };
    struct fb b = {.lab = "subnet_manager"};
    for (size_t i = 0; i < 4; i++) {
        const struct jv *res = need(r, &b, ids[i][0], ids[i][1]);
        if (!res) continue;
        const struct jv *cp = jv_get(res, "control_plane");
        const struct jv *row = cp && cp->n ? cp->items[0] : NULL;
        char done[64], took[32];
        fmt_done(done, sizeof done, res);
        if (!row) {
            add(&b, "%s: no failure recorded, %s", ids[i][1], done);
            continue;
        }
        double at = jv_num_at(row, "at_ns", 0), re = jv_num_at(row, "rerouted_at_ns", -1);
        if (re < 0) {
            fmt_dur(took, sizeof took, num(res, "summary.sim_time_ns") - at);
            add(&b, "%s: not rerouted in the %s after the failure (%.0f packets lost), %s",
                ids[i][1], took, jv_num_at(row, "packets_lost", 0), done);
        } else {
            fmt_dur(took, sizeof took, re - at);
            double local = jv_num_at(row, "local_reroute_at_ns", -1);
            if (local >= 0) {
                char fast[32];
                fmt_dur(fast, sizeof fast, local - at);
                add(&b,
                    "%s: switch-local reroute %s after the failure, SM reroute after %s; %.0f "
                    "packets "
                    "lost, %s",
                    ids[i][1], fast, took, jv_num_at(row, "packets_lost", 0), done);
            } else {
                add(&b, "%s: rerouted %s after the failure, %.0f packets lost, %s", ids[i][1], took,
                    jv_num_at(row, "packets_lost", 0), done);
            }
        }
    }
    finish(r, &b, "Link failure under steady traffic: time to reroute");
}

static void load_balancing(struct report *r) {
    static const char *const ids[][2] = {
        {"jobs-ib-static", "IB static routes"},
        {"jobs-roce-ecmp", "ECMP"},
        {"jobs-ib-adaptive", "IB adaptive"},
        {"jobs-roce-spray", "packet spray"},
    };
    struct fb b = {.lab = "load_balancing"};
    for (size_t i = 0; i < 4; i++) {
        const struct jv *res = need(r, &b, ids[i][0], ids[i][1]);
        if (!res) continue;
        char done[64];
        fmt_done(done, sizeof done, res);
        double mx = max_link(res, "bytes", "leaf-spine"),
               mn = mean_link(res, "bytes", "leaf-spine");
        add(&b, "%s: busiest spine link carries %.2fx the mean, %s", ids[i][1],
            mn > 0 ? mx / mn : 0.0, done);
    }
    finish(r, &b, "4 concurrent AllReduce jobs on a leaf-spine");

    /* Balls into bins: k flows per leaf hashed onto n uplinks use on average
     * 1-(1-1/n)^k of them. Measured: uplinks (leafX->spineY) carrying at least
     * half a flow's bytes, averaged over the leaves. */
    struct fb s = {.lab = "load_balancing"};
    static const int ks[] = {1, 2, 4, 8, 16};
    for (size_t i = 0; i < 5; i++) {
        char id[32], what[32];
        snprintf(id, sizeof id, "ecmp-k%d", ks[i]);
        snprintf(what, sizeof what, "ECMP k=%d", ks[i]);
        const struct jv *res = need(r, &s, id, what);
        if (!res) continue;
        const struct jv *fl = jv_get(res, "flows"), *links = jv_get(res, "links");
        double fsize = fl && fl->n ? jv_num_at(fl->items[0], "size", 0) : 0;
        size_t up = 0, used = 0, leaves = 0;
        char last_leaf[64] = "";
        for (size_t l = 0; links && l < links->n; l++) {
            const char *from = jv_str_at(links->items[l], "from", "");
            const char *to = jv_str_at(links->items[l], "to", "");
            if (strncmp(from, "leaf", 4) || strncmp(to, "spine", 5)) continue;
            if (strcmp(from, last_leaf)) {
                snprintf(last_leaf, sizeof last_leaf, "%s", from);
                leaves++;
            }
            up++;
            if (jv_num_at(links->items[l], "bytes", 0) >= fsize / 2) used++;
        }
        if (!up || !leaves) continue;
        double n = (double)up / (double)leaves;
        add(&s, "k/n=%g: %.0f%% of uplinks used (theory %.0f%%)", ks[i] / n,
            100.0 * (double)used / (double)up, 100.0 * (1.0 - pow(1.0 - 1.0 / n, ks[i])));
    }
    finish(r, &s, "ECMP flows per uplink vs balls-into-bins");
}

static void counterarguments(struct report *r) {
    static const char *const ids[][2] = {
        {"alltoall-ib", "InfiniBand (credits, adaptive routing)"},
        {"alltoall-roce-tuned", "tuned RoCE (PFC, DCQCN, spray)"},
    };
    struct fb b = {.lab = "counterarguments"};
    for (size_t i = 0; i < 2; i++) {
        const struct jv *res = need(r, &b, ids[i][0], ids[i][1]);
        if (!res) continue;
        char done[64];
        fmt_done(done, sizeof done, res);
        add(&b, "%s: %s, %.0f drops, %.0f pause frames", ids[i][1], done,
            num(res, "summary.packets_dropped"), num(res, "summary.pause_frames"));
    }
    finish(r, &b, "Tuned RoCE vs InfiniBand, all-to-all");

    static const char *const nn[][2] = {
        {"tenants-shared-priority", "one shared priority"},
        {"tenants-separate-priorities", "separate priorities"},
    };
    struct fb n = {.lab = "counterarguments"};
    for (size_t i = 0; i < 2; i++) {
        const struct jv *res = need(r, &n, nn[i][0], nn[i][1]);
        if (!res) continue;
        double fct = flow_fct_to(res, "h1");
        if (fct < 0)
            add(&n, "%s: tenant A's flow not finished", nn[i][1]);
        else
            add(&n, "%s: tenant A's flow FCT %.1f us", nn[i][1], fct);
    }
    finish(r, &n, "Noisy neighbour (tenant B's incast next to tenant A)");
}

void report_compute_findings(struct report *r) {
    free(r->findings);
    r->findings = NULL;
    r->nfindings = 0;
    if (lab_present(r, "lossless")) lossless(r);
    if (lab_present(r, "ecn_dcqcn")) ecn_dcqcn(r);
    if (lab_present(r, "sharp")) sharp(r);
    if (lab_present(r, "subnet_manager")) subnet_manager(r);
    if (lab_present(r, "load_balancing")) load_balancing(r);
    if (lab_present(r, "counterarguments")) counterarguments(r);
}

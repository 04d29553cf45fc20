/* src/stats/ctrace.c
 *
 * The Chrome trace sink (Trace Event Format: "X" complete events, "i"
 * instants, "C" counters, "M" names). Ids: pid = node id + 1 (hosts, then
 * switches), plus a "fabric" process (link events, reconvergence, deadlock)
 * and a "collectives" process (one thread per job). Within a node's process,
 * tid = 1 + port x (NET_NCLASS + 1) + class for PFC pauses of that egress
 * class, class NET_NCLASS for credit stalls; flows and collective transfers
 * go on lanes (tid CTRACE_TID_FLOW + k, CTRACE_TID_XFER + k) so that slices
 * on one thread never overlap, lanes being handed out greedily by start time.
 * Each received message gets a "recv" slice on its receiver (lanes
 * CTRACE_TID_RECV + k) and a flow arrow (cat "msg", id = message id) from
 * its sender's slice; a collective's transfer posted because another was
 * received gets an arrow (cat "dep", id = nmsgs + its message id) from that
 * receive to its xfer slice. Compute the engine runs (Chakra COMP_NODEs,
 * training's forward and backward, MoE's experts, inference's prefill and
 * decode) goes on the rank's node, lanes CTRACE_TID_COMP + k ("compute k").
 *
 * Timestamps are microseconds written exactly ("%llu.%06llu" of picoseconds)
 * so the file is byte-identical across runs and platforms. Pauses, stalls
 * and link events stream during the run; the rest (flows, collectives,
 * transfers, reconvergence, deadlock, counters) is written from the model's
 * final rows at the end, in that order. Once max_events events are written
 * the rest is counted in otherData.dropped_events. Names ("M") are not
 * counted: there are at most a few per node, port and lane.
 */
#include "stats/ctrace.h"

#include "net/params.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"
#include "net/net.h"
#include "stats/results.h"
#include "model/sampler.h"
#include "stats/trace.h"
#include "coll/coll.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NSLOT (NET_NCLASS + 1)
#define CTRACE_TID_FLOW 1000000000u
#define CTRACE_TID_XFER 2000000000u
#define CTRACE_TID_RECV 1500000000u
#define CTRACE_TID_COMP 500000000u
enum { TID_LINKS = 1, TID_CTRL = 2, TID_DEADLOCK = 3 };

static uint32_t pid_fabric(const struct ctrace_sink *s) {
    return s->nnodes + 1;
}
static uint32_t pid_coll(const struct ctrace_sink *s) {
    return s->nnodes + 2;
}

/* Exact microseconds from picoseconds. */
static void kts(struct jw *w, const char *k, uint64_t ps) {
    char b[48];
    snprintf(b, sizeof b, "%llu.%06llu", (unsigned long long)(ps / 1000000u),
             (unsigned long long)(ps % 1000000u));
    jw_key(w, k);
    jw_raw(w, b);
}

static void name_meta(struct ctrace_sink *s, const char *what, uint32_t pid, uint32_t tid,
                      const char *name) {
    struct jw *w = &s->w;
    jw_obj_compact(w);
    jw_kstr(w, "ph", "M");
    jw_kstr(w, "name", what);
    jw_ku64(w, "pid", pid);
    if (tid) jw_ku64(w, "tid", tid);
    jw_key(w, "args");
    jw_obj_compact(w);
    jw_kstr(w, "name", name);
    jw_obj_end(w);
    jw_obj_end(w);
}

static void sort_meta(struct ctrace_sink *s, uint32_t pid, int64_t index) {
    struct jw *w = &s->w;
    jw_obj_compact(w);
    jw_kstr(w, "ph", "M");
    jw_kstr(w, "name", "process_sort_index");
    jw_ku64(w, "pid", pid);
    jw_key(w, "args");
    jw_obj_compact(w);
    jw_key(w, "sort_index");
    jw_i64(w, index);
    jw_obj_end(w);
    jw_obj_end(w);
}

/* Opens an event object (the caller adds dur/args and closes it), or
 * returns false when the cap is reached. */
static bool ev(struct ctrace_sink *s, const char *ph, const char *name, const char *cat,
               uint32_t pid, uint32_t tid, uint64_t ts_ps) {
    if (s->written >= s->max_events) {
        s->dropped++;
        return false;
    }
    s->written++;
    struct jw *w = &s->w;
    jw_obj_compact(w);
    jw_kstr(w, "ph", ph);
    jw_kstr(w, "name", name);
    if (cat) jw_kstr(w, "cat", cat);
    jw_ku64(w, "pid", pid);
    jw_ku64(w, "tid", tid);
    kts(w, "ts", ts_ps);
    return true;
}

static void slot_name(struct ctrace_sink *s, const struct net *n, uint32_t slot) {
    if (s->named[slot]) return;
    s->named[slot] = 1;
    uint32_t port = slot / NSLOT, cls = slot % NSLOT;
    char pn[64], b[96];
    net_port_name(n, port, pn, sizeof pn);
    if (cls == NET_NCLASS)
        snprintf(b, sizeof b, "%s credits", pn);
    else
        snprintf(b, sizeof b, "%s prio %u", pn, cls);
    name_meta(s, "thread_name", n->ports[port].node + 1, 1 + slot, b);
}

/* One pause (or stall) slice on its port's thread. */
static void block_slice(struct ctrace_sink *s, const struct net *n, uint32_t slot, uint64_t from,
                        uint64_t to, bool open) {
    uint32_t port = slot / NSLOT, cls = slot % NSLOT;
    bool credit = cls == NET_NCLASS;
    slot_name(s, n, slot);
    if (!ev(s, "X", credit ? "credit stall" : "PFC pause", credit ? "credit" : "pfc",
            n->ports[port].node + 1, 1 + slot, from))
        return;
    kts(&s->w, "dur", to - from);
    if (open) {
        jw_key(&s->w, "args");
        jw_obj_compact(&s->w);
        jw_kbool(&s->w, "open_at_end", true);
        jw_obj_end(&s->w);
    }
    jw_obj_end(&s->w);
}

static void on_block(void *ctx, const struct net *n, uint32_t port, uint32_t cls,
                     enum trace_block why, uint64_t from_ps, uint64_t to_ps) {
    struct ctrace_sink *s = ctx;
    (void)why; /* implied by the class slot */
    uint32_t slot = port * NSLOT + (cls > NET_NCLASS ? NET_NCLASS : cls);
    if (to_ps == SIM_TIME_NEVER) {
        s->open_ps[slot] = from_ps;
        return;
    }
    s->open_ps[slot] = SIM_TIME_NEVER;
    if (to_ps > from_ps) block_slice(s, n, slot, from_ps, to_ps, false);
}

static void on_link(void *ctx, const struct net *n, uint32_t port, bool up, uint64_t now_ps) {
    struct ctrace_sink *s = ctx;
    char pn[64];
    net_port_name(n, port, pn, sizeof pn);
    if (!ev(s, "i", up ? "link_up" : "link_down", "link", pid_fabric(s), TID_LINKS, now_ps)) return;
    jw_kstr(&s->w, "s", "g");
    jw_key(&s->w, "args");
    jw_obj_compact(&s->w);
    jw_kstr(&s->w, "link", pn);
    jw_obj_end(&s->w);
    jw_obj_end(&s->w);
}

/* ---- end of run: the model's rows ---- */

struct tkey {
    uint64_t t;
    uint32_t id;
};

static int tkey_cmp(const void *a, const void *b) {
    const struct tkey *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The first lane of `node` free at `start` (a new one if none), ending at `end`. */
static uint32_t lane_take(struct ctrace_sink *s, uint32_t node, uint64_t start, uint64_t end,
                          uint32_t tid_base, const char *what) {
    struct ctrace_lanes *l = &s->lanes[node];
    for (uint32_t k = 0; k < l->n; k++)
        if (l->end_ps[k] <= start) {
            l->end_ps[k] = end;
            return k;
        }
    size_t cap = l->cap;
    fs_grow((void **)&l->end_ps, &cap, l->n + 1, sizeof *l->end_ps);
    l->cap = (uint32_t)cap;
    l->end_ps[l->n] = end;
    char b[48];
    snprintf(b, sizeof b, "%s %u", what, l->n);
    name_meta(s, "thread_name", node + 1, tid_base + l->n, b);
    return l->n++;
}

static void lanes_reset(struct ctrace_sink *s) {
    for (uint32_t i = 0; i < s->nnodes; i++)
        s->lanes[i].n = 0;
}

static void write_deadlock(struct ctrace_sink *s, const struct net *n) {
    if (!n->deadlock.detected) return;
    if (!ev(s, "i", "deadlock", "deadlock", pid_fabric(s), TID_DEADLOCK, n->deadlock.at_ps)) return;
    struct jw *w = &s->w;
    jw_kstr(w, "s", "g");
    jw_key(w, "args");
    jw_obj_compact(w);
    jw_key(w, "cycle");
    jw_arr_compact(w);
    char pn[64];
    for (uint32_t i = 0; i < n->deadlock.ncycle; i++) {
        net_port_name(n, n->deadlock.cycle[i], pn, sizeof pn);
        jw_str(w, pn);
    }
    jw_arr_end(w);
    jw_obj_end(w);
    jw_obj_end(w);
}

static void write_control_plane(struct ctrace_sink *s, const struct net *n) {
    char pn[64];
    for (uint32_t i = 0; i < n->ncp_rows; i++) {
        const struct cp_row *r = &n->cp_rows[i];
        if (r->rerouted_ps == SIM_TIME_NEVER || r->rerouted_ps < r->at_ps) continue;
        if (!ev(s, "X", "reconvergence", "control_plane", pid_fabric(s), TID_CTRL, r->at_ps))
            return;
        struct jw *w = &s->w;
        kts(w, "dur", r->rerouted_ps - r->at_ps);
        net_port_name(n, r->port, pn, sizeof pn);
        jw_key(w, "args");
        jw_obj_compact(w);
        jw_kstr(w, "link", pn);
        jw_ku64(w, "packets_lost", r->packets_lost);
        jw_obj_end(w);
        jw_obj_end(w);
    }
}

static void write_collectives(struct ctrace_sink *s, const struct net *n, uint64_t now) {
    uint32_t named_jobs = 0;
    for (uint32_t i = 0; i < n->ncoll_rows; i++) {
        const struct coll_row *r = &n->coll_rows[i];
        while (named_jobs <= r->job) {
            char b[32];
            snprintf(b, sizeof b, "job %u", named_jobs);
            name_meta(s, "thread_name", pid_coll(s), named_jobs + 1, b);
            named_jobs++;
        }
        bool done = r->end_ps != SIM_TIME_NEVER;
        uint64_t end = done ? r->end_ps : now;
        if (!ev(s, "X", coll_op_name(r->op), "collective", pid_coll(s), r->job + 1, r->start_ps))
            return;
        struct jw *w = &s->w;
        kts(w, "dur", end - r->start_ps);
        jw_key(w, "args");
        jw_obj_compact(w);
        jw_ku64(w, "row", i);
        jw_ku64(w, "size", r->size_bytes);
        jw_ku64(w, "ranks", r->ranks);
        jw_kstr(w, "algorithm", coll_algo_name(r->algorithm));
        if (!done) jw_kbool(w, "open_at_end", true);
        jw_obj_end(w);
        jw_obj_end(w);
    }
}

/* Flows (flane[flow]: the lane written on, UINT32_MAX: none, for the
 * arrows of write_recvs). */
static void write_flows(struct ctrace_sink *s, const struct net *n, uint64_t now, uint32_t *flane) {
    struct tkey *k = fs_xmalloc((n->nflows + 1) * sizeof *k);
    uint32_t nk = 0;
    for (uint32_t i = 0; i < n->nflows; i++)
        if (n->flows[i].start_ps != SIM_TIME_NEVER)
            k[nk++] = (struct tkey){n->flows[i].start_ps, i};
    qsort(k, nk, sizeof *k, tkey_cmp);
    lanes_reset(s);
    char b[32];
    for (uint32_t j = 0; j < nk; j++) {
        const struct flow_row *f = &n->flows[k[j].id];
        bool done = f->msgs_left == 0;
        uint64_t end = done ? f->end_ps : now;
        uint32_t node = n->host_node[f->src];
        uint32_t lane = lane_take(s, node, f->start_ps, end, CTRACE_TID_FLOW, "flows");
        snprintf(b, sizeof b, "flow %u", k[j].id);
        if (!ev(s, "X", b, "flow", node + 1, CTRACE_TID_FLOW + lane, f->start_ps)) break;
        flane[k[j].id] = lane;
        struct jw *w = &s->w;
        kts(w, "dur", end - f->start_ps);
        jw_key(w, "args");
        jw_obj_compact(w);
        jw_ku64(w, "id", k[j].id);
        jw_kstr(w, "dst", n->names[n->host_node[f->dst]]);
        jw_ku64(w, "size", f->size_bytes);
        jw_kbool(w, "done", done);
        jw_obj_end(w);
        jw_obj_end(w);
    }
    free(k);
}

/* Collective transfers: messages of no flow row, posted by an owner. The
 * lane each went on is kept in xlane[msg] (UINT32_MAX: not written) for the
 * flow arrows of write_recvs. */
static void write_xfers(struct ctrace_sink *s, const struct net *n, uint64_t now, uint32_t *xlane) {
    struct tkey *k = fs_xmalloc((n->nmsgs + 1) * sizeof *k);
    uint32_t nk = 0;
    for (uint32_t i = 0; i < n->nmsgs; i++) {
        const struct msg *m = &n->msgs[i];
        if (m->flow >= 0 || m->post_ps == SIM_TIME_NEVER || m->post_ps > now) continue;
        k[nk++] = (struct tkey){m->post_ps, i};
    }
    qsort(k, nk, sizeof *k, tkey_cmp);
    lanes_reset(s);
    for (uint32_t j = 0; j < nk; j++) {
        const struct msg *m = &n->msgs[k[j].id];
        bool done = m->recv_ps != 0;
        uint64_t end = done ? m->recv_ps : now;
        const struct qp *q = &n->qps[m->qp];
        uint32_t lane = lane_take(s, q->src, m->post_ps, end, CTRACE_TID_XFER, "transfers");
        if (!ev(s, "X", "xfer", "coll", q->src + 1, CTRACE_TID_XFER + lane, m->post_ps)) break;
        xlane[k[j].id] = lane;
        struct jw *w = &s->w;
        kts(w, "dur", end - m->post_ps);
        jw_key(w, "args");
        jw_obj_compact(w);
        jw_ku64(w, "msg", k[j].id);
        if (m->owner != NET_NONE) jw_ku64(w, "op", m->owner);
        jw_ku64(w, "qp", m->qp);
        jw_kstr(w, "dst", n->names[q->dst]);
        jw_ku64(w, "size", m->size_bytes);
        if (!done) jw_kbool(w, "open_at_end", true);
        jw_obj_end(w);
        jw_obj_end(w);
    }
    free(k);
}

/* One flow event (Trace Event Format "s" / "f", cat and name `cat`, id
 * unique over the file): Perfetto and chrome://tracing draw an arrow from
 * the slice enclosing the "s" to the slice enclosing the "f" ("bp": "e"). */
static bool flow_ev(struct ctrace_sink *s, const char *ph, const char *cat, uint32_t pid,
                    uint32_t tid, uint64_t ts_ps, uint64_t id, uint32_t msg) {
    if (!ev(s, ph, cat, cat, pid, tid, ts_ps)) return false;
    jw_ku64(&s->w, "id", id);
    if (ph[0] == 'f') jw_kstr(&s->w, "bp", "e");
    if (msg != NET_NONE) { /* the message of the slice it binds to */
        jw_key(&s->w, "args");
        jw_obj_compact(&s->w);
        jw_ku64(&s->w, "msg", msg);
        jw_obj_end(&s->w);
    }
    jw_obj_end(&s->w);
    return true;
}

/* The sender's slice of message m: its flow's (flows) or its own xfer
 * slice; false when it was not written. */
static bool send_tid(const struct net *n, const struct msg *m, uint32_t id, const uint32_t *xlane,
                     const uint32_t *flane, uint32_t *tid) {
    if (m->flow >= 0) {
        const struct flow_row *f = &n->flows[m->flow];
        if (flane[m->flow] == UINT32_MAX || m->post_ps < f->start_ps ||
            (f->msgs_left == 0 && m->post_ps > f->end_ps))
            return false;
        *tid = CTRACE_TID_FLOW + flane[m->flow];
        return true;
    }
    if (xlane[id] == UINT32_MAX) return false;
    *tid = CTRACE_TID_XFER + xlane[id];
    return true;
}

/* The receiving side of each received message whose sender's slice was
 * written (a collective transfer by write_xfers, or a message of a flow): a
 * "recv" slice on the receiver (lanes "receives k"), from the post to the
 * last byte, and a flow arrow from the sender's slice (at the post) to it
 * (1 ps before the last byte, inside the slice). rlane[msg]: the lane of its
 * recv slice (UINT32_MAX: none), for write_deps. */
static void write_recvs(struct ctrace_sink *s, const struct net *n, const uint32_t *xlane,
                        const uint32_t *flane, uint32_t *rlane) {
    struct tkey *k = fs_xmalloc((n->nmsgs + 1) * sizeof *k);
    uint32_t nk = 0, tid;
    for (uint32_t i = 0; i < n->nmsgs; i++)
        if (n->msgs[i].recv_ps > n->msgs[i].post_ps && !n->msgs[i].freed &&
            n->msgs[i].post_ps != SIM_TIME_NEVER && send_tid(n, &n->msgs[i], i, xlane, flane, &tid))
            k[nk++] = (struct tkey){n->msgs[i].post_ps, i};
    qsort(k, nk, sizeof *k, tkey_cmp);
    lanes_reset(s);
    for (uint32_t j = 0; j < nk; j++) {
        uint32_t id = k[j].id;
        const struct msg *m = &n->msgs[id];
        const struct qp *q = &n->qps[m->qp];
        uint32_t lane = lane_take(s, q->dst, m->post_ps, m->recv_ps, CTRACE_TID_RECV, "receives");
        if (!ev(s, "X", "recv", "coll", q->dst + 1, CTRACE_TID_RECV + lane, m->post_ps)) break;
        struct jw *w = &s->w;
        kts(w, "dur", m->recv_ps - m->post_ps);
        jw_key(w, "args");
        jw_obj_compact(w);
        jw_ku64(w, "msg", id);
        jw_kstr(w, "src", n->names[q->src]);
        jw_ku64(w, "size", m->size_bytes);
        if (m->flow >= 0) jw_ku64(w, "flow", (uint64_t)m->flow);
        jw_obj_end(w);
        jw_obj_end(w);
        rlane[id] = lane;
        send_tid(n, m, id, xlane, flane, &tid);
        if (!flow_ev(s, "s", "msg", q->src + 1, tid, m->post_ps, id, NET_NONE)) break;
        if (!flow_ev(s, "f", "msg", q->dst + 1, CTRACE_TID_RECV + lane, m->recv_ps - 1, id,
                     NET_NONE))
            break;
    }
    free(k);
}

/* Collective step dependencies: a transfer the engine posted because a
 * message was received (coll_msg_cause) gets an arrow from the end of that
 * message's recv slice to the start of its own xfer slice, args.msg naming
 * the message of the slice each end binds to. In message order. */
static void write_deps(struct ctrace_sink *s, const struct net *n, const uint32_t *xlane,
                       const uint32_t *rlane) {
    for (uint32_t b = 0; b < n->nmsgs; b++) {
        uint32_t a = coll_msg_cause(n, b);
        if (a == NET_NONE || a >= n->nmsgs || xlane[b] == UINT32_MAX || rlane[a] == UINT32_MAX)
            continue;
        const struct msg *ma = &n->msgs[a], *mb = &n->msgs[b];
        if (mb->post_ps < ma->recv_ps) continue; /* not a consequence (cannot happen) */
        uint64_t id = (uint64_t)n->nmsgs + b;
        if (!flow_ev(s, "s", "dep", n->qps[ma->qp].dst + 1, CTRACE_TID_RECV + rlane[a],
                     ma->recv_ps - 1, id, a))
            return;
        if (!flow_ev(s, "f", "dep", n->qps[mb->qp].src + 1, CTRACE_TID_XFER + xlane[b], mb->post_ps,
                     id, b))
            return;
    }
}

/* Compute the collective engine ran (coll_compute_rows): a slice named as
 * the work (a Chakra node's name) on the rank's node, lanes "compute k". */
static void write_compute(struct ctrace_sink *s, const struct net *n) {
    size_t nc;
    const struct coll_compute *c = coll_compute_rows(n, &nc);
    if (!nc) return;
    struct tkey *k = fs_xmalloc((nc + 1) * sizeof *k);
    for (size_t i = 0; i < nc; i++)
        k[i] = (struct tkey){c[i].start_ps, (uint32_t)i};
    qsort(k, nc, sizeof *k, tkey_cmp);
    lanes_reset(s);
    for (size_t j = 0; j < nc; j++) {
        const struct coll_compute *r = &c[k[j].id];
        uint32_t lane =
            lane_take(s, r->node, r->start_ps, r->start_ps + r->dur_ps, CTRACE_TID_COMP, "compute");
        if (!ev(s, "X", r->name, "compute", r->node + 1, CTRACE_TID_COMP + lane, r->start_ps))
            break;
        kts(&s->w, "dur", r->dur_ps);
        jw_obj_end(&s->w);
    }
    free(k);
}

/* Per-link utilisation and queue from the sampler (links.csv's rows), for
 * links that carried anything. */
static void write_counters(struct ctrace_sink *s, const struct net *n) {
    const struct sampler *sp = n->sampler;
    if (!sp || !sp->n) return;
    char pn[64];
    for (uint32_t p = 0; p < sp->nports; p++) {
        bool any = false;
        for (uint32_t i = 0; i < sp->n && !any; i++) {
            const struct sample *r = &sp->rows[(size_t)i * sp->nports + p];
            any = r->bytes || r->q_bytes;
        }
        if (!any) continue;
        net_port_name(n, p, pn, sizeof pn);
        for (uint32_t i = 0; i < sp->n; i++) {
            const struct sample *r = &sp->rows[(size_t)i * sp->nports + p];
            uint64_t t = sp->interval_ps * (i + 1), span = sp->interval_ps;
            if (i + 1 == sp->n && sp->last_ps < t) {
                t = sp->last_ps; /* the last, partial interval */
                span = t - sp->interval_ps * i;
            }
            double u = span ? (double)r->busy_ns * 1000.0 / (double)span : 0.0;
            if (u > 1.0) u = 1.0;
            /* a counter sample holds from its ts on: the interval's start */
            if (!ev(s, "C", pn, "link", n->ports[p].node + 1, 0, t - span)) return;
            struct jw *w = &s->w;
            jw_key(w, "args");
            jw_obj_compact(w);
            jw_knum(w, "utilization", (double)(uint64_t)(u * 10000.0 + 0.5) / 10000.0);
            jw_ku64(w, "queue_bytes", r->q_bytes);
            jw_obj_end(w);
            jw_obj_end(w);
        }
    }
}

static void on_end(void *ctx, const struct net *n, uint64_t now_ps) {
    struct ctrace_sink *s = ctx;
    if (s->ended) return;
    s->ended = true;
    write_deadlock(s, n);
    write_control_plane(s, n);
    write_collectives(s, n, now_ps);
    size_t nl = ((size_t)n->nmsgs > n->nflows ? n->nmsgs : n->nflows) + 1;
    uint32_t *xlane = fs_xmalloc(nl * sizeof *xlane), *flane = fs_xmalloc(nl * sizeof *flane),
             *rlane = fs_xmalloc(nl * sizeof *rlane);
    memset(xlane, 0xff, nl * sizeof *xlane);
    memset(flane, 0xff, nl * sizeof *flane);
    memset(rlane, 0xff, nl * sizeof *rlane);
    write_flows(s, n, now_ps, flane);
    for (uint32_t slot = 0; slot < s->nslots; slot++)
        if (s->open_ps[slot] != SIM_TIME_NEVER && now_ps > s->open_ps[slot])
            block_slice(s, n, slot, s->open_ps[slot], now_ps, true);
    write_xfers(s, n, now_ps, xlane);
    write_recvs(s, n, xlane, flane, rlane);
    write_deps(s, n, xlane, rlane);
    free(xlane);
    free(flane);
    free(rlane);
    write_compute(s, n);
    write_counters(s, n);
}

static const struct trace_sink_ops ctrace_ops = {
    .on_block = on_block, .on_link = on_link, .on_end = on_end};

int ctrace_sink_open(struct ctrace_sink *s, struct net *n, const char *path, uint64_t max_events,
                     struct diag *d) {
    memset(s, 0, sizeof *s);
    if (fs_out_open(&s->out, path)) /* core/file.h: atomic, write errors checked */
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINTERNAL, "cannot write: %s",
                        strerror(errno));
    s->f = s->out.f;
    s->max_events = max_events ? max_events : CTRACE_MAX_EVENTS_DEFAULT;
    s->nnodes = n->nnodes;
    /* write_xfers lists every transfer at the end, by message id: keep every
     * message's record (64 B each) instead of recycling slots */
    n->msg_keep = true;
    s->nslots = n->nports * NSLOT;
    s->open_ps = fs_xmalloc((s->nslots + 1) * sizeof *s->open_ps);
    for (uint32_t i = 0; i < s->nslots; i++)
        s->open_ps[i] = SIM_TIME_NEVER;
    s->named = fs_xcalloc(s->nslots + 1, 1);
    s->lanes = fs_xcalloc(n->nnodes + 1, sizeof *s->lanes);
    struct jw *w = &s->w;
    jw_init(w, s->f);
    jw_obj(w);
    jw_key(w, "traceEvents");
    jw_arr(w);
    /* Processes: the fabric and collectives first, then switches top tier
     * first, then hosts. */
    name_meta(s, "process_name", pid_fabric(s), 0, "fabric");
    sort_meta(s, pid_fabric(s), -2);
    name_meta(s, "thread_name", pid_fabric(s), TID_LINKS, "links");
    name_meta(s, "thread_name", pid_fabric(s), TID_CTRL, "control plane");
    name_meta(s, "thread_name", pid_fabric(s), TID_DEADLOCK, "deadlock");
    name_meta(s, "process_name", pid_coll(s), 0, "collectives");
    sort_meta(s, pid_coll(s), -1);
    for (uint32_t v = 0; v < n->nnodes; v++) {
        const struct node *nd = &n->nodes[v];
        name_meta(s, "process_name", v + 1, 0, n->names[v]);
        int64_t idx = nd->kind == NODE_SWITCH ? (int64_t)(16 - nd->level) * 1000000 + v
                                              : (int64_t)100000000 + v;
        sort_meta(s, v + 1, idx);
    }
    trace_attach(n, &ctrace_ops, s);
    return 0;
}

int ctrace_sink_close(struct ctrace_sink *s, struct net *n) {
    trace_detach(n, s);
    int rc = 0;
    if (s->f) {
        struct jw *w = &s->w;
        jw_arr_end(w);
        jw_kstr(w, "displayTimeUnit", "ns");
        jw_key(w, "otherData");
        jw_obj(w);
        jw_kstr(w, "generator", "fabsim " FABSIM_VERSION);
        jw_kstr(w, "scenario", n->sc ? n->sc->name : "");
        jw_ku64(w, "events", s->written);
        jw_ku64(w, "max_events", s->max_events);
        jw_ku64(w, "dropped_events", s->dropped);
        jw_obj_end(w);
        jw_obj_end(w);
        jw_end(w);
        rc = fs_out_commit(&s->out);
        s->f = NULL;
    }
    for (uint32_t i = 0; i < s->nnodes; i++)
        free(s->lanes[i].end_ps);
    free(s->lanes);
    free(s->open_ps);
    free(s->named);
    s->lanes = NULL;
    s->open_ps = NULL;
    s->named = NULL;
    return rc;
}

void ctrace_sink_abort(struct ctrace_sink *s, struct net *n) {
    if (s->f) {
        fs_out_abort(&s->out);
        s->f = NULL;
    }
    ctrace_sink_close(s, n); /* detaches, frees; no file left */
}

/* src/coll/coll.c
 *
 * The collective engine: jobs (communicators), the dependency graph of one
 * collective call, and its execution on the transport. A transfer is posted
 * `overhead` after its last dependency is done (the host's cost to notice a
 * completed receive and post the next RDMA write: NCCL's proxy thread; net
 * post overhead 1 us, docs/sources.md B) and is done when its last byte reaches
 * the receiver (n->on_msg_recv). A job runs its sizes one after the other,
 * each `repeat` times, back to back, as nccl-tests does.
 */
#include "coll/coll.h"

#include "coll/coll_int.h"
#include "net/params.h"
#include "core/diag.h"
#include "core/mem.h"
#include "innet/innet.h"
#include "net/net.h"
#include "core/jw.h"
#include "core/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* NCCL Simple protocol: NCCL_BUFFSIZE 4 MiB in NCCL_STEPS = 8 slots per
 * connection (docs/sources.md B): a 512 KiB pipelining unit. */
#define COLL_SLICE_DEFAULT (4u << 20) / 8u
/* NCCL builds several channels (rings, tree pairs); 2 per NIC is its usual
 * choice on one-NIC-per-GPU IB systems (docs/sources.md B; conf. B). */
#define COLL_CHANNELS_DEFAULT 2u
/* Net post overhead 1 us (docs/sources.md B, Intel hosts). */
#define COLL_OVERHEAD_DEFAULT_PS (1 * PS_PER_US)

enum { COLL_EV_START = 0, COLL_EV_TIMER = 1 }; /* INNET_EV_TIMER: innet/innet.h */
enum { STREAM_COLL_ENTROPY = 7 };

uint64_t coll_max_call_bytes(int opkind, uint64_t nranks, uint32_t channels, uint64_t slice_bytes,
                             enum coll_proto proto) {
    uint64_t m = nranks, nch = channels ? channels : COLL_CHANNELS_DEFAULT;
    uint64_t slice = slice_bytes ? slice_bytes : COLL_SLICE_DEFAULT;
    if (proto == PROTO_LL && slice > (32u << 10)) slice = 32u << 10; /* algos.c PROTO_LL_SLICE */
    if (m < 2) return UINT64_MAX;
    /* Ring steps per call: AllReduce (and training's) reduce-scatter then
     * all-gather, the others one pass; a tree or the hierarchical schedule
     * sends no more per slice. Per channel the call is nsteps x m x
     * ceil(bytes / (nch x m x slice)) transfers, at most
     * nsteps x (bytes / slice + nch x m). */
    uint64_t nsteps = (opkind == WL_ALLREDUCE || opkind == WL_TRAINING ? 2 : 1) * (m - 1);
    if (m > COLL_MAX_TRANSFERS || nsteps * nch * m >= COLL_MAX_TRANSFERS) return 0;
    uint64_t slices = (COLL_MAX_TRANSFERS - nsteps * nch * m) / nsteps;
    return slices > UINT64_MAX / slice ? UINT64_MAX : slices * slice;
}

static struct coll_state *cs_get(struct net *n) {
    if (!n->coll_state) {
        struct coll_state *cs = fs_xcalloc(1, sizeof(struct coll_state));
        cs->cause = NET_NONE;
        n->coll_state = cs;
    }
    return n->coll_state;
}

void coll_set_dist(struct net *n, const struct coll_dist_ops *ops) {
    cs_get(n)->dist = ops;
}

/* ---- graph building ---- */

uint32_t op_xfer(struct op *o, uint8_t kind, uint32_t qp, uint64_t bytes) {
    size_t cap = o->capx;
    fs_grow((void **)&o->x, &cap, o->nx + 1, sizeof *o->x);
    o->capx = (uint32_t)cap;
    struct xfer *x = &o->x[o->nx];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->qp = qp;
    x->bytes = bytes;
    return o->nx++;
}

void op_dep(struct op *o, uint32_t before, uint32_t after) {
    if (before == NET_NONE || after == NET_NONE) return;
    size_t cap = o->cape;
    fs_grow((void **)&o->ef, &cap, o->ne + 1, sizeof *o->ef);
    cap = o->cape;
    fs_grow((void **)&o->et, &cap, o->ne + 1, sizeof *o->et);
    o->cape = (uint32_t)cap;
    o->ef[o->ne] = before;
    o->et[o->ne] = after;
    o->ne++;
    if (!(after & XF_RING_BIT)) o->x[after].ndeps++; /* a ring segment counts its own */
}

void op_ring(struct op *o, uint32_t m, uint32_t ns, uint32_t nsteps, uint32_t nreduce, uint64_t seg,
             const uint32_t *qp, const uint32_t *pre, uint32_t *post) {
    uint64_t total = (uint64_t)nsteps * ns * m;
    FS_ASSERT(m >= 2 && total > 0 && (uint64_t)o->nvx + total < XF_RING_BIT,
              "ring segment of %llu transfers", (unsigned long long)total);
    size_t cap = o->capsegs;
    fs_grow((void **)&o->segs, &cap, o->nsegs + 1, sizeof *o->segs);
    o->capsegs = (uint32_t)cap;
    uint32_t si = o->nsegs++;
    struct ring_seg *r = &o->segs[si];
    memset(r, 0, sizeof *r);
    r->pos = o->nx;
    r->vbase = o->nvx;
    r->m = m;
    r->ns = ns;
    r->nsteps = nsteps;
    r->nreduce = nreduce;
    r->seg = seg;
    r->qp = fs_xmalloc(m * sizeof *r->qp);
    memcpy(r->qp, qp, m * sizeof *r->qp);
    r->post = fs_xmalloc(m * sizeof *r->post);
    r->pre_wait = fs_xcalloc(m, sizeof *r->pre_wait);
    r->done = fs_xcalloc((size_t)((total + 63) / 64), sizeof *r->done);
    r->used = fs_xcalloc((size_t)((total + 63) / 64), sizeof *r->used);
    r->went = fs_xcalloc((size_t)((total + 63) / 64), sizeof *r->went);
    r->chunk = RING_CHUNK_STEPS;
    r->win = NCCL_STEPS;
    r->consume = 1;
    o->nvx += (uint32_t)total;
    /* the stored graph's edges pre[i] -> member i's transfers, one each */
    for (uint32_t i = 0; pre && i < m; i++) {
        if (pre[i] == NET_NONE) continue;
        o->segs[si].pre_wait[i] = 1;
        cap = o->cappe;
        fs_grow((void **)&o->pe, &cap, o->npe + 1, sizeof *o->pe);
        o->cappe = (uint32_t)cap;
        o->pe[o->npe].seg = si;
        o->pe[o->npe].member = i;
        op_dep(o, pre[i], XF_RING_BIT | o->npe++);
    }
    /* member i's join point waits for its pre and all it receives */
    for (uint32_t i = 0; i < m; i++) {
        uint32_t v = op_xfer(o, XF_VIRTUAL, NET_NONE, 0);
        if (pre) op_dep(o, pre[i], v);
        o->x[v].ndeps += nsteps * ns;
        o->segs[si].post[i] = v;
        post[i] = v;
    }
}

void op_ring_relay(struct op *o, const uint32_t *relay) {
    struct ring_seg *r = &o->segs[o->nsegs - 1];
    uint64_t total = (uint64_t)r->nsteps * r->ns * r->m;
    r->relay = fs_xmalloc(r->m * sizeof *r->relay);
    memcpy(r->relay, relay, r->m * sizeof *r->relay);
    r->hop = fs_xcalloc((size_t)((total + 63) / 64), sizeof *r->hop);
}

void op_free(struct op *o) {
    free(o->x);
    free(o->out);
    free(o->ef);
    free(o->et);
    for (uint32_t i = 0; i < o->nsegs; i++) {
        free(o->segs[i].qp);
        free(o->segs[i].post);
        free(o->segs[i].pre_wait);
        free(o->segs[i].used);
        free(o->segs[i].went);
        free(o->segs[i].done);
        free(o->segs[i].relay);
        free(o->segs[i].hop);
    }
    free(o->segs);
    free(o->pe);
    o->x = NULL;
    o->out = o->ef = o->et = NULL;
    o->segs = NULL;
    o->pe = NULL;
    o->nsegs = o->npe = 0;
}

void coll_test_stored_rings(struct net *n, bool on) {
    cs_get(n)->stored_rings = on;
}

void coll_test_ring_on_arrival(struct net *n, bool on) {
    cs_get(n)->ring_on_arrival = on;
}

void coll_test_ring_nccl_slices(struct net *n, bool on) {
    cs_get(n)->ring_nccl_slices = on;
}

/* The ring segment of ring transfer v (without XF_RING_BIT). */
static struct ring_seg *seg_of(const struct op *o, uint32_t v) {
    uint32_t lo = 0, hi = o->nsegs; /* last segment with vbase <= v */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (o->segs[mid].vbase <= v)
            lo = mid;
        else
            hi = mid;
    }
    return &o->segs[lo];
}

static bool seg_bit(const struct ring_seg *r, uint64_t l) {
    return (r->done[l / 64] >> (l % 64)) & 1;
}

static bool seg_hop(const struct ring_seg *r, uint64_t l) {
    return (r->hop[l / 64] >> (l % 64)) & 1;
}

static bool seg_used(const struct ring_seg *r, uint64_t l) {
    return (r->used[l / 64] >> (l % 64)) & 1;
}

/* A ring segment's transfers of one member in NCCL's loop order (runRing):
 * loop L moves slices [L * chunk, L * chunk + c) of every step (c = chunk
 * but for a short last loop), step by step. ring_ks: (step k, slice s) of
 * position seq; ring_seq the inverse. chunk >= ns is step-major order. */
static void ring_ks(const struct ring_seg *r, uint32_t seq, uint32_t *k, uint32_t *s) {
    uint32_t C = r->chunk < r->ns ? r->chunk : r->ns, L = seq / (C * r->nsteps);
    uint32_t c = r->ns - L * C < C ? r->ns - L * C : C, q = seq - L * C * r->nsteps;
    *k = q / c;
    *s = L * C + q % c;
}

static uint32_t ring_seq(const struct ring_seg *r, uint32_t k, uint32_t s) {
    uint32_t C = r->chunk < r->ns ? r->chunk : r->ns, L = s / C;
    uint32_t c = r->ns - L * C < C ? r->ns - L * C : C;
    return L * C * r->nsteps + k * c + (s - L * C);
}

static bool seg_went(const struct ring_seg *r, uint64_t l) {
    return (r->went[l / 64] >> (l % 64)) & 1;
}

/* Ring transfer (seq, i) may go: not gone yet, its member's pre and its
 * previous step from the member before are done, and its slot NCCL_STEPS
 * sends back is free: consumed by the receiver (NCCL's head pointer,
 * r->consume) or, tests only, arrived. Under NCCL's flow control the
 * member also runs its loop in program order (one GPU kernel, runRing):
 * its transfer before has gone, and a loop's first send waits for the
 * previous loop's final receive (the member before's last-step slices). */
static bool seg_ready(const struct ring_seg *r, uint32_t seq, uint32_t i) {
    uint32_t m = r->m, k, s, im = (i + m - 1) % m;
    if (r->pre_wait[i] || seg_went(r, (uint64_t)seq * m + i)) return false;
    ring_ks(r, seq, &k, &s);
    if (k > 0 && !seg_bit(r, (uint64_t)ring_seq(r, k - 1, s) * m + im)) return false;
    if (seq >= r->win) {
        uint64_t l = (uint64_t)(seq - r->win) * m + i;
        if (!(r->consume ? seg_used(r, l) : seg_bit(r, l))) return false;
    }
    if (!r->consume || seq == 0) return true;
    if (!seg_went(r, (uint64_t)(seq - 1) * m + i)) return false;
    uint32_t C = r->chunk < r->ns ? r->chunk : r->ns;
    if (k == 0 && s % C == 0) /* the final receive of the (full) loop before */
        for (uint32_t p = s - C; p < s; p++)
            if (!seg_bit(r, (uint64_t)ring_seq(r, r->nsteps - 1, p) * m + im)) return false;
    return true;
}

static uint64_t part64(uint64_t total, uint64_t i, uint64_t k) {
    return total * (i + 1) / k - total * i / k;
}

/* Transfer xi of o: stored, or a ring transfer written into *tmp. */
static const struct xfer *xfer_at(const struct op *o, uint32_t xi, struct xfer *tmp) {
    if (!(xi & XF_RING_BIT)) return &o->x[xi];
    uint32_t v = xi & ~XF_RING_BIT;
    const struct ring_seg *r = seg_of(o, v);
    uint32_t l = v - r->vbase, seq = l / r->m, i = l % r->m, k, s;
    ring_ks(r, seq, &k, &s);
    memset(tmp, 0, sizeof *tmp);
    tmp->kind = XF_MSG;
    tmp->qp = r->qp[i];
    if (r->relay && r->relay[i] != NET_NONE && seg_hop(r, l))
        tmp->qp = r->relay[i]; /* PXN: the network hop from the relaying GPU */
    tmp->bytes = part64(r->seg, s, r->ns);
    tmp->reduce = k < r->nreduce;
    tmp->proto = r->proto;
    return tmp;
}

/* Ring transfer xi's state under PXN: 0 not relayed, 1 relayed and on its
 * NVLink hop (or not launched), 2 relayed and on its network hop. */
static int relay_state(const struct op *o, uint32_t xi) {
    if (!(xi & XF_RING_BIT)) return 0;
    uint32_t v = xi & ~XF_RING_BIT;
    const struct ring_seg *r = seg_of(o, v);
    uint32_t l = v - r->vbase;
    if (!r->relay || r->relay[l % r->m] == NET_NONE) return 0;
    return 1 + seg_hop(r, l);
}

/* The wire bytes op o will post: its stored messages and its ring
 * segments' (m members x nsteps steps x the slices of seg bytes). */
static uint64_t op_wire_bytes(const struct op *o) {
    uint64_t b = 0;
    for (uint32_t i = 0; i < o->nx; i++)
        if (o->x[i].kind == XF_MSG) b += coll_proto_wire_bytes(o->x[i].proto, o->x[i].bytes);
    for (uint32_t s = 0; s < o->nsegs; s++) {
        const struct ring_seg *r = &o->segs[s];
        uint64_t step = 0;
        for (uint32_t k = 0; k < r->ns; k++)
            step += coll_proto_wire_bytes(r->proto, part64(r->seg, k, r->ns));
        uint32_t hops = r->m;
        for (uint32_t i = 0; r->relay && i < r->m; i++)
            hops += r->relay[i] != NET_NONE; /* PXN: NVLink, then the network */
        b += step * hops * r->nsteps;
    }
    return b;
}

void coll_plan(struct net *n, struct job *j, const struct op *o, double later) {
    uint64_t ob = op_wire_bytes(o);
    j->plan_started += ob;
    uint64_t share = j->plan_started + (uint64_t)((double)ob * later);
    n->bytes_planned = n->bytes_planned - j->plan_share + share;
    j->plan_share = share;
}

static void op_finish_graph(struct op *o) {
    for (uint32_t i = 0; i < o->ne; i++)
        o->x[o->ef[i]].nout++;
    uint32_t off = 0;
    for (uint32_t i = 0; i < o->nx; i++) {
        o->x[i].out_off = off;
        off += o->x[i].nout;
        o->x[i].nout = 0;
    }
    o->out = fs_xmalloc((o->ne ? o->ne : 1) * sizeof *o->out);
    for (uint32_t i = 0; i < o->ne; i++) {
        struct xfer *x = &o->x[o->ef[i]];
        o->out[x->out_off + x->nout++] = o->et[i];
    }
    free(o->ef);
    free(o->et);
    o->ef = o->et = NULL;
    o->left = o->nx + o->nvx;
}

static uint64_t mix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static uint32_t qps_per_conn(const struct net *n) {
    uint32_t q = n->sc->fabric.transport.qps_per_connection;
    return q ? q : 1;
}

/* The RC queue pairs of one (channel, src, dst) connection, kept for the
 * job's lifetime (NCCL_IB_QPS_PER_CONNECTION, default 1, docs/sources.md B);
 * returns the first one's id. */
uint32_t job_qp(struct net *n, struct job *j, uint32_t ch, uint32_t src, uint32_t dst) {
    uint64_t key = ((uint64_t)ch << 42) | ((uint64_t)src << 21) | dst;
    if (!j->qcap) {
        j->qcap = 64;
        j->qkey = fs_xmalloc(j->qcap * sizeof *j->qkey);
        j->qval = fs_xmalloc(j->qcap * sizeof *j->qval);
        memset(j->qkey, 0xff, j->qcap * sizeof *j->qkey);
    }
    uint32_t mask = j->qcap - 1, h = (uint32_t)mix64(key) & mask;
    while (j->qkey[h] != UINT64_MAX) {
        if (j->qkey[h] == key) return j->qval[h];
        h = (h + 1) & mask;
    }
    /* transport.qps_per_connection QPs with consecutive ids, each with its
     * own RoCEv2 UDP source port (entropy 49152..65535, what ECMP hashes);
     * launch() puts each message on the next one (NCCL_IB_QPS_PER_CONNECTION,
     * messages round robin over the QPs: NCCL_IB_SPLIT_DATA_ON_QPS=0, the
     * default of recent NCCL, conf. B; docs/sources.md B, A11 Meta) */
    uint32_t nq = qps_per_conn(n), qp = NET_NONE;
    for (uint32_t k = 0; k < nq; k++) {
        uint32_t q = net_qp_new(n, j->ranks[src], j->ranks[dst], (uint8_t)j->w->priority);
        net_qp_set_entropy(n, q, (uint16_t)(49152 + rng_below(&j->ent, 16384)));
        if (k == 0) qp = q;
    }
    j->qkey[h] = key;
    j->qval[h] = qp;
    /* grow at half load (counted as keys go in: the count was a scan of the
     * table per new connection, quadratic in connections) */
    if (++j->qused * 2 > j->qcap) {
        uint64_t *ok = j->qkey;
        uint32_t *ov = j->qval, oc = j->qcap;
        j->qcap *= 2;
        j->qkey = fs_xmalloc(j->qcap * sizeof *j->qkey);
        j->qval = fs_xmalloc(j->qcap * sizeof *j->qval);
        memset(j->qkey, 0xff, j->qcap * sizeof *j->qkey);
        for (uint32_t i = 0; i < oc; i++) {
            if (ok[i] == UINT64_MAX) continue;
            uint32_t g = (uint32_t)mix64(ok[i]) & (j->qcap - 1);
            while (j->qkey[g] != UINT64_MAX)
                g = (g + 1) & (j->qcap - 1);
            j->qkey[g] = ok[i];
            j->qval[g] = ov[i];
        }
        free(ok);
        free(ov);
    }
    return qp;
}

/* ---- execution ---- */

static void xfer_done(struct net *n, uint32_t opi, uint32_t xi);

/* The host (server) of an endpoint node: GPUs h3.g0..h3.g7 share host 3. */
static uint32_t host_of(const struct net *n, uint32_t node) {
    uint32_t g = n->sc->topo.gpus_per_host > 1 ? n->sc->topo.gpus_per_host : 1;
    return n->nodes[node].index / g;
}

/* Host time to reduce or copy `bytes` at the job's host rate (0: none). */
static sim_time_ps host_ps(const struct job *j, uint64_t bytes) {
    if (!j->host_rate_bps) return 0;
    return (sim_time_ps)((double)bytes * 8.0 * 1e12 / (double)j->host_rate_bps + 0.5);
}

/* The events the engine schedules while it runs are keyed by its own
 * counter (entity 0, top bit set), not by entity 0's: a parallel run
 * (par/pcoll.c) replays the engine on every rank at its windows' ends, in
 * the order one process runs it, and so gives every such event the key one
 * process gives it. `node`: the node that acts (a message's sender, a SHARP
 * member), NET_NONE for the engine's own timers. */
static void coll_sched(struct net *n, sim_time_ps at_ps, uint16_t kind, uint32_t arg, uint16_t aux,
                       uint32_t node) {
    struct coll_state *cs = n->coll_state;
    struct event e = {at_ps, 0x80000000u | (cs->seq++ & 0x7fffffffu), arg, kind, aux};
    if (cs->dist)
        cs->dist->sched(n, e, node);
    else
        calq_push(&n->sim->q, e);
}

/* Transfer xi of op opi: after dt, done (done) or started (in-network: run
 * `run` of the member's session). */
static void timer_at(struct net *n, uint32_t opi, uint32_t xi, sim_time_ps dt, bool done,
                     uint32_t run, uint32_t node) {
    struct coll_state *cs = n->coll_state;
    uint32_t t = NET_NONE;
    /* several ranks: another rank's SHARP start holds no slot here (its
     * event is that rank's); slot numbers are each rank's own */
    if (!cs->dist || done || cs->dist->mine(n, node)) {
        if (cs->timer_free) { /* a slot whose timer has run (coll_on_event) */
            t = cs->timer_free - 1;
            cs->timer_free = cs->timers[t].op;
        } else {
            size_t cap = cs->captimers;
            fs_grow((void **)&cs->timers, &cap, cs->ntimers + 1, sizeof *cs->timers);
            cs->captimers = (uint32_t)cap;
            t = cs->ntimers++;
        }
        cs->timers[t].op = opi;
        cs->timers[t].x = xi;
        cs->timers[t].done = done;
        cs->timers[t].run = run;
        cs->timers[t].cause = cs->cause;
    }
    coll_sched(n, n->sim->now_ps + dt, NET_EV_COLL, t, COLL_EV_TIMER, done ? NET_NONE : node);
}

/* A compute delay starts now (XS_COMPUTE, a trace sink attached). */
static void compute_record(struct net *n, const struct job *j, const struct xfer *x) {
    static const char *const names[COMP_NLABELS] = {
        "compute", "forward", "backward", "expert FFN", "attention+dense", "prefill", "decode"};
    struct coll_state *cs = n->coll_state;
    fs_grow((void **)&cs->comp, &cs->capcomp, cs->ncomp + 1, sizeof *cs->comp);
    struct coll_compute *c = &cs->comp[cs->ncomp++];
    c->start_ps = n->sim->now_ps;
    c->dur_ps = x->bytes;
    if (j->w->kind == WL_CHAKRA) {
        chakra_compute_label(n, j, x->qp, &c->node, &c->name);
    } else {
        c->node = j->ranks[x->qp];
        c->name = names[x->proto < COMP_NLABELS ? x->proto : 0];
    }
}

uint32_t coll_compute_xfer(struct op *o, uint32_t rank, uint8_t label, uint64_t ps) {
    uint32_t x = op_xfer(o, XF_DELAY, rank, ps);
    o->x[x].stamp = XS_COMPUTE;
    o->x[x].proto = label;
    return x;
}

uint32_t coll_marks_new(struct net *n, uint32_t count) {
    struct coll_state *cs = n->coll_state;
    size_t base = cs->nmarks;
    fs_grow((void **)&cs->marks, &cs->capmarks, base + count, sizeof *cs->marks);
    for (uint32_t i = 0; i < count; i++)
        cs->marks[base + i] = SIM_TIME_NEVER;
    cs->nmarks = base + count;
    FS_ASSERT(cs->nmarks < NET_NONE, "coll: %zu time marks", cs->nmarks);
    return (uint32_t)base;
}

sim_time_ps coll_mark(const struct net *n, uint32_t id) {
    const struct coll_state *cs = n->coll_state;
    return cs->marks[id];
}

uint32_t coll_mark_xfer(struct op *o, uint8_t stamp, uint32_t id) {
    uint32_t x = op_xfer(o, XF_VIRTUAL, id, 0);
    o->x[x].stamp = stamp;
    return x;
}

void coll_job_sub(struct net *n, const struct job *j, struct job *sub, const uint32_t *ranks,
                  uint32_t m, uint32_t stream) {
    *sub = *j;
    sub->nranks = m;
    sub->ranks = fs_xmalloc((m ? m : 1) * sizeof *sub->ranks);
    memcpy(sub->ranks, ranks, m * sizeof *ranks);
    sub->qkey = NULL;
    sub->qval = NULL;
    sub->qcap = sub->qused = 0;
    sub->sess = NET_NONE;
    sub->rail_sess = NULL;
    sub->nnodes = sub->gpus = 0;
    uint32_t last = UINT32_MAX, cnt = 0;
    for (uint32_t i = 0; i < m; i++) { /* as coll_add counts them */
        uint32_t h = host_of(n, ranks[i]);
        bool seen = false;
        for (uint32_t k = 0; k < i && !seen; k++)
            seen = host_of(n, ranks[k]) == h;
        if (!seen) sub->nnodes++;
        cnt = h == last ? cnt + 1 : 1;
        last = h;
        if (cnt > sub->gpus) sub->gpus = cnt;
    }
    rng_seed(&sub->ent, n->sc->seed, 0, stream);
}

void coll_job_sub_free(struct job *sub) {
    free(sub->ranks);
    free(sub->qkey);
    free(sub->qval);
    sub->ranks = NULL;
    sub->qkey = NULL;
    sub->qval = NULL;
}

const struct coll_compute *coll_compute_rows(const struct net *n, size_t *count) {
    const struct coll_state *cs = n->coll_state;
    *count = cs ? cs->ncomp : 0;
    return cs ? cs->comp : NULL;
}

uint32_t coll_msg_cause(const struct net *n, uint32_t msg) {
    const struct coll_state *cs = n->coll_state;
    return cs && msg < cs->msg_cause_cap ? cs->msg_cause[msg] : NET_NONE;
}

static void launch(struct net *n, uint32_t opi, uint32_t xi) {
    struct coll_state *cs = n->coll_state;
    struct op *o = &cs->ops[opi];
    struct job *j = &cs->jobs[o->job];
    if (j->aborted_ps != SIM_TIME_NEVER) return; /* the communicator is gone */
    struct xfer tmp;
    const struct xfer *x = xfer_at(o, xi, &tmp);
    switch (x->kind) {
    case XF_MSG: {
        sim_time_ps now = n->sim->now_ps;
        uint32_t qp = x->qp, nq = qps_per_conn(n);
        if (nq > 1) { /* the connection's next QP, round robin */
            size_t old = cs->qp_rr_cap;
            fs_grow((void **)&cs->qp_rr, &cs->qp_rr_cap, n->nqps, sizeof *cs->qp_rr);
            if (cs->qp_rr_cap > old)
                memset(cs->qp_rr + old, 0, (cs->qp_rr_cap - old) * sizeof *cs->qp_rr);
            qp += cs->qp_rr[x->qp]++ % nq;
        }
        /* the protocol's flag bytes ride on the wire; its post cost, by
         * protocol and by hop: NVLink inside a host, or the network */
        const struct qp *q = &n->qps[x->qp];
        uint64_t ovh = relay_state(o, xi) == 2
                           ? coll_relay_ps(j, x->proto, now, cs->relay_from_ps)
                           : coll_step_ps(j, x->proto, host_of(n, q->src) == host_of(n, q->dst));
        uint32_t mid =
            net_msg_new(n, qp, coll_proto_wire_bytes(x->proto, x->bytes), SIM_TIME_NEVER, -1, opi);
        n->bytes_planned_posted += n->msgs[mid].size_bytes;
        n->msgs[mid].post_ps = now + ovh;
        size_t old = cs->msg_x_cap;
        fs_grow((void **)&cs->msg_x, &cs->msg_x_cap, n->nmsgs, sizeof *cs->msg_x);
        if (cs->msg_x_cap > old)
            memset(cs->msg_x + old, 0xff, (cs->msg_x_cap - old) * sizeof *cs->msg_x);
        cs->msg_x[mid] = xi;
        if (n->trace) { /* the Chrome trace's dependency arrows */
            old = cs->msg_cause_cap;
            fs_grow((void **)&cs->msg_cause, &cs->msg_cause_cap, n->nmsgs, sizeof *cs->msg_cause);
            if (cs->msg_cause_cap > old)
                memset(cs->msg_cause + old, 0xff, (cs->msg_cause_cap - old) * sizeof(uint32_t));
            cs->msg_cause[mid] = cs->cause;
        }
        if (!ovh)
            net_msg_post_now(n, mid);
        else
            coll_sched(n, now + ovh, NET_EV_MSG_POST, mid, 0, n->qps[qp].src);
        /* Several ranks, out-of-order delivery (adaptive routing, spray):
         * the receiver finds where messages end from their PSN ranges, which
         * the posting gives on the sender's rank. The receiver's rank numbers
         * the message now, in launch order, which is the QP's posting order:
         * a connection's messages are posted `ovh` after their launch, and a
         * job's calls, each with one protocol, run one after another. */
        if (cs->dist && n->ooo_window) {
            /* Every rank keeps each QP's latest post (the engine runs alike
             * everywhere, so all stop at the same launch): a post scheduled
             * before an earlier launch's (calls of two protocols at once on
             * one connection) would be numbered out of order. */
            size_t had = cs->qp_post_cap;
            fs_grow((void **)&cs->qp_post, &cs->qp_post_cap, n->nqps, sizeof *cs->qp_post);
            if (cs->qp_post_cap > had)
                memset(cs->qp_post + had, 0, (cs->qp_post_cap - had) * sizeof *cs->qp_post);
            if (cs->qp_post[qp] > now + ovh) {
                cs->dist->refuse(n, "adaptive routing with a connection's messages posted out of "
                                    "launch order (collectives of different protocols at once)");
                break;
            }
            cs->qp_post[qp] = now + ovh;
            if (!cs->dist->mine(n, n->qps[qp].src) && cs->dist->mine(n, n->qps[qp].dst))
                net_msg_number(n, mid);
        }
        break;
    }
    case XF_VIRTUAL:
        xfer_done(n, opi, xi);
        break;
    case XF_INNET: {
        /* the host's post overhead, and its copy of the data into the
         * library's send buffers (host_rate), first */
        sim_time_ps dt = j->overhead_ps + host_ps(j, x->bytes);
        uint32_t member, sess = coll_xfer_sess(j, x->qp, &member);
        uint32_t run = innet_join(n, sess, member, x->bytes, opi, xi);
        if (!dt)
            innet_send(n, sess, run, member);
        else
            timer_at(n, opi, xi, dt, false, run, innet_member_node(n, sess, member));
        break;
    }
    case XF_DELAY: {
        if (x->stamp == XS_COMPUTE && n->trace) compute_record(n, j, x);
        /* what follows a compute delay is posted because of it, not of the
         * receive that started it */
        uint32_t cause = cs->cause;
        cs->cause = NET_NONE;
        timer_at(n, opi, xi, x->bytes, true, NET_NONE, NET_NONE);
        cs->cause = cause;
        break;
    }
    }
}

static void job_next(struct net *n, struct job *j);

void coll_build(struct net *n, struct job *j, struct op *o, int opkind, enum coll_algo a,
                uint64_t bytes, const uint32_t *pre, uint32_t *post) {
    /* NCCL's per-call latency (baseLat; NVLS and CollNet: their whole
     * latency, hwLat NVLS / CollNet) before each rank's first step */
    uint64_t base = opkind == WL_ALLTOALL ? 0 : coll_base_ps(j, algo_proto(n, j, opkind, a, bytes));
    uint32_t *pb = NULL;
    if (base) {
        pb = fs_xmalloc(j->nranks * sizeof *pb);
        for (uint32_t i = 0; i < j->nranks; i++) {
            pb[i] = op_xfer(o, XF_DELAY, NET_NONE, base);
            if (pre) op_dep(o, pre[i], pb[i]);
        }
        pre = pb;
    }
    if (opkind == WL_ALLTOALL)
        a2a_build(n, j, o, bytes, pre, post);
    else
        algo_build(n, j, o, opkind, a, bytes, pre, post);
    free(pb);
}

uint32_t coll_xfer_sess(const struct job *j, uint32_t qp, uint32_t *member) {
    if (!j->rail_sess) {
        *member = qp;
        return j->sess;
    }
    *member = qp & 0xffffu;
    return j->rail_sess[qp >> 16];
}

void coll_job_close_innet(struct net *n, struct job *j) {
    if (j->sess != NET_NONE) innet_close(n, j->sess);
    j->sess = NET_NONE;
    if (j->rail_sess)
        for (uint32_t g = 0; g < j->gpus; g++)
            innet_close(n, j->rail_sess[g]);
    free(j->rail_sess);
    j->rail_sess = NULL;
}

static void op_done(struct net *n, uint32_t opi) {
    struct coll_state *cs = n->coll_state;
    struct op *o = &cs->ops[opi];
    struct job *j = &cs->jobs[o->job];
    o->done = true;
    if (o->row != NET_NONE) n->coll_rows[o->row].end_ps = n->sim->now_ps;
    op_free(o);
    if (j->w->kind == WL_TRAINING)
        training_op_done(n, j, o);
    else if (j->w->kind == WL_CHAKRA)
        chakra_op_done(n, j, o);
    else if (j->w->kind == WL_MOE)
        moe_op_done(n, j, o);
    else if (j->w->kind == WL_INFERENCE)
        infer_op_done(n, j, o);
    else
        job_next(n, j);
}

/* Launches ring transfer (seq, i) of segment si if it is ready. Under
 * NCCL's flow control (r->consume) a launch can make two more ready: the
 * member's next transfer (program order) and, past the first step, the
 * slot of the slice it forwards (consumed: that slice's sender gets its
 * slot back for the transfer NCCL_STEPS on). Those are tried in turn from
 * a work stack (a chain can go round the ring; no recursion). */
static void ring_try(struct net *n, uint32_t opi, uint32_t si, uint32_t seq, uint32_t i) {
    struct coll_state *cs = n->coll_state;
    size_t sp = 0;
    fs_grow((void **)&cs->rstack, &cs->rstack_cap, 1, sizeof *cs->rstack);
    cs->rstack[sp++] = (uint64_t)seq << 32 | i;
    while (sp) {
        uint64_t e = cs->rstack[--sp];
        seq = (uint32_t)(e >> 32), i = (uint32_t)e;
        struct ring_seg *r = &cs->ops[opi].segs[si];
        uint32_t m = r->m, T = r->nsteps * r->ns, k, s;
        if (seq >= T || !seg_ready(r, seq, i)) continue;
        uint64_t l = (uint64_t)seq * m + i;
        r->went[l / 64] |= 1ull << (l % 64);
        launch(n, opi, XF_RING_BIT | (r->vbase + (uint32_t)l));
        r = &cs->ops[opi].segs[si];
        if (!r->consume) continue;
        ring_ks(r, seq, &k, &s);
        fs_grow((void **)&cs->rstack, &cs->rstack_cap, sp + 2, sizeof *cs->rstack);
        if (k > 0) { /* consumes (k - 1, s) of the member before */
            uint32_t p = ring_seq(r, k - 1, s), pi = (i + m - 1) % m;
            uint64_t lp = (uint64_t)p * m + pi;
            r->used[lp / 64] |= 1ull << (lp % 64);
            cs->rstack[sp++] = (uint64_t)(p + r->win) << 32 | pi;
        }
        cs->rstack[sp++] = (uint64_t)(seq + 1) << 32 | i; /* tried first */
    }
}

/* Ring transfer v (without XF_RING_BIT) of op opi is done: launches what
 * it unblocks in the stored graph's order (its next step at the next
 * member; its slot NCCL_STEPS on, by id, if the arrival frees it: the last
 * step's, which the receiver only copies out, or every step's in the tests'
 * step-major schedule) and pushes its receiver's join point when that is
 * ready. */
static void ring_done(struct net *n, uint32_t opi, uint32_t v, size_t *sp) {
    struct coll_state *cs = n->coll_state;
    struct op *o = &cs->ops[opi];
    uint32_t si = (uint32_t)(seg_of(o, v) - o->segs);
    struct ring_seg *r = &o->segs[si];
    uint32_t m = r->m, l = v - r->vbase, seq = l / m, i = l % m, T = r->nsteps * r->ns, k, s;
    r->done[l / 64] |= 1ull << (l % 64);
    ring_ks(r, seq, &k, &s);
    bool last = k + 1 == r->nsteps;
    if (last) r->used[l / 64] |= 1ull << (l % 64); /* the final receive copies it out */
    uint32_t t[3][2], nt = 0, nx = last ? 0 : ring_seq(r, k + 1, s); /* (seq, member) in id order */
    bool a = !last, b = seq + r->win < T && (last || !r->consume);
    uint64_t ida = (uint64_t)nx * m + (i + 1) % m, idb = (uint64_t)(seq + r->win) * m + i;
    if (a && (!b || ida < idb)) {
        t[nt][0] = nx, t[nt++][1] = (i + 1) % m;
        a = false;
    }
    if (b) t[nt][0] = seq + r->win, t[nt++][1] = i;
    if (a) t[nt][0] = nx, t[nt++][1] = (i + 1) % m;
    if (last && r->consume) { /* the receiver's next loop may start */
        uint32_t C = r->chunk < r->ns ? r->chunk : r->ns, s1 = (s / C + 1) * C;
        if (s1 < r->ns) t[nt][0] = ring_seq(r, 0, s1), t[nt++][1] = (i + 1) % m;
    }
    uint32_t post = r->post[(i + 1) % m];
    for (uint32_t q = 0; q < nt; q++)
        ring_try(n, opi, si, t[q][0], t[q][1]);
    o = &cs->ops[opi];
    if (--o->x[post].ndeps) return;
    if (o->x[post].kind == XF_VIRTUAL) {
        fs_grow((void **)&cs->stack, &cs->stack_cap, *sp + 1, sizeof *cs->stack);
        cs->stack[(*sp)++] = post;
    } else {
        launch(n, opi, post);
    }
}

/* Pre transfers done: edges out[from .. from + cnt) into one ring segment
 * (members in increasing order); launches the members' first slots that
 * are now ready, in id order. */
static void ring_pre_done(struct net *n, uint32_t opi, uint32_t from, uint32_t cnt) {
    struct coll_state *cs = n->coll_state;
    struct op *o = &cs->ops[opi];
    uint32_t si = o->pe[o->out[from] & ~XF_RING_BIT].seg;
    struct ring_seg *r = &o->segs[si];
    for (uint32_t k = 0; k < cnt; k++)
        r->pre_wait[o->pe[o->out[from + k] & ~XF_RING_BIT].member] = 0;
    uint32_t T = r->nsteps * r->ns, lim = T < r->win ? T : r->win;
    for (uint32_t seq = 0; seq < lim; seq++)
        for (uint32_t k = 0; k < cnt; k++) {
            o = &cs->ops[opi];
            r = &o->segs[si];
            uint32_t i = o->pe[o->out[from + k] & ~XF_RING_BIT].member;
            ring_try(n, opi, si, seq, i);
        }
}

/* Marks xi done and launches what it unblocks (iteratively: chains of
 * join points must not recurse deeply). */
static void xfer_done(struct net *n, uint32_t opi, uint32_t xi) {
    struct coll_state *cs = n->coll_state;
    if (cs->jobs[cs->ops[opi].job].aborted_ps != SIM_TIME_NEVER) return;
    size_t sp = 0;
    fs_grow((void **)&cs->stack, &cs->stack_cap, 1, sizeof *cs->stack);
    cs->stack[sp++] = xi;
    while (sp) {
        struct op *o = &cs->ops[opi];
        uint32_t v = cs->stack[--sp];
        o->left--;
        if (v & XF_RING_BIT) {
            ring_done(n, opi, v & ~XF_RING_BIT, &sp);
            continue;
        }
        struct xfer *x = &o->x[v];
        if (x->stamp == XS_ROW_START || x->stamp == XS_ROW_END) chakra_stamp(n, x->qp, x->stamp);
        if (x->stamp == XS_MARK_LAST ||
            (x->stamp == XS_MARK_FIRST && cs->marks[x->qp] == SIM_TIME_NEVER))
            cs->marks[x->qp] = n->sim->now_ps;
        for (uint32_t k = 0; k < x->nout; k++) {
            uint32_t d = o->out[x->out_off + k];
            if (d & XF_RING_BIT) { /* the run of edges into one ring segment */
                uint32_t c = 1, sg = o->pe[d & ~XF_RING_BIT].seg;
                while (k + c < x->nout && (o->out[x->out_off + k + c] & XF_RING_BIT) &&
                       o->pe[o->out[x->out_off + k + c] & ~XF_RING_BIT].seg == sg)
                    c++;
                ring_pre_done(n, opi, x->out_off + k, c);
                o = &cs->ops[opi];
                x = &o->x[v];
                k += c - 1;
                continue;
            }
            if (--o->x[d].ndeps) continue;
            if (o->x[d].kind == XF_VIRTUAL) {
                fs_grow((void **)&cs->stack, &cs->stack_cap, sp + 1, sizeof *cs->stack);
                cs->stack[sp++] = d;
            } else {
                launch(n, opi, d);
            }
        }
    }
    if (cs->ops[opi].left == 0) op_done(n, opi);
}

void coll_innet_done(struct net *n, uint32_t op, uint32_t xfer) {
    struct coll_state *cs = n->coll_state;
    const struct job *j = &cs->jobs[cs->ops[op].job];
    sim_time_ps dt = host_ps(j, cs->ops[op].x[xfer].bytes); /* copy the result out */
    if (dt)
        timer_at(n, op, xfer, dt, true, NET_NONE, NET_NONE);
    else
        xfer_done(n, op, xfer);
}

void coll_recv_apply(struct net *n, uint32_t mid) {
    struct coll_state *cs = n->coll_state;
    uint32_t xi = cs->msg_x[mid];
    cs->msg_x[mid] = NET_NONE;
    uint32_t opi = n->msgs[mid].owner;
    const struct job *j = &cs->jobs[cs->ops[opi].job];
    if (relay_state(&cs->ops[opi], xi) == 1) {
        /* PXN: the send's NVLink hop reached the relaying GPU, whose NIC
         * sends it on (nothing is reduced or consumed there) */
        if (j->aborted_ps != SIM_TIME_NEVER) return;
        struct op *o = &cs->ops[opi];
        uint32_t v = xi & ~XF_RING_BIT;
        struct ring_seg *r = seg_of(o, v);
        uint32_t l = v - r->vbase;
        r->hop[l / 64] |= 1ull << (l % 64);
        cs->cause = mid;
        cs->relay_from_ps = n->msgs[mid].post_ps;
        launch(n, opi, xi);
        cs->cause = NET_NONE;
        return;
    }
    sim_time_ps dt = 0;
    if (j->host_rate_bps) { /* (a ring transfer is rebuilt: only when needed) */
        struct xfer tmp;
        const struct xfer *x = xfer_at(&cs->ops[opi], xi, &tmp);
        dt = x->reduce ? host_ps(j, x->bytes) : 0;
    }
    cs->cause = mid; /* what this receive posts (coll_msg_cause) */
    if (dt)          /* the receiver reduces the block before anything uses it */
        timer_at(n, opi, xi, dt, true, NET_NONE, NET_NONE);
    else
        xfer_done(n, opi, xi);
    cs->cause = NET_NONE;
}

static void on_recv(struct net *n, uint32_t mid) {
    struct coll_state *cs = n->coll_state;
    if (mid < cs->msg_x_cap && cs->msg_x[mid] != NET_NONE) {
        /* several ranks: recorded here, applied by every rank (par/pcoll.c) */
        if (cs->dist)
            cs->dist->record_recv(n, mid);
        else
            coll_recv_apply(n, mid);
    }
    if (cs->prev_recv) cs->prev_recv(n, mid);
}

void coll_job_release(struct net *n, struct job *j) {
    if (j->released) return;
    j->released = true;
    ((struct coll_state *)n->coll_state)->held--;
    coll_job_close_innet(n, j);
    net_work_done(n);
}

/* One of the job's QPs went to error (retries exhausted): NCCL reports the
 * failed work completion and aborts the communicator (docs/sources.md A12). The
 * job posts nothing more; what its other QPs still carry drains. */
void coll_failed_apply(struct net *n, uint32_t mid) {
    struct coll_state *cs = n->coll_state;
    if (mid < cs->msg_x_cap) cs->msg_x[mid] = NET_NONE;
    struct job *j = &cs->jobs[cs->ops[n->msgs[mid].owner].job];
    if (j->aborted_ps == SIM_TIME_NEVER) {
        j->aborted_ps = n->sim->now_ps;
        coll_job_release(n, j);
    }
}

static void on_failed(struct net *n, uint32_t mid) {
    struct coll_state *cs = n->coll_state;
    /* Any collective message, even one whose data already arrived (msg_x
     * cleared at the receive, its ACK lost): the sender's work request still
     * completes with RETRY_EXC_ERR and NCCL aborts the communicator
     * (docs/sources.md A12). Only collectives set an owner (net_msg_new). */
    if (n->msgs[mid].owner != NET_NONE && n->msgs[mid].owner < cs->nops) {
        if (cs->dist) /* the abort is every rank's */
            cs->dist->record_failed(n, mid);
        else
            coll_failed_apply(n, mid);
    }
    if (cs->prev_failed) cs->prev_failed(n, mid);
}

uint32_t coll_op_new(struct net *n, uint32_t job) {
    struct coll_state *cs = n->coll_state;
    size_t cap = cs->capops;
    fs_grow((void **)&cs->ops, &cap, cs->nops + 1, sizeof *cs->ops);
    cs->capops = (uint32_t)cap;
    struct op *o = &cs->ops[cs->nops];
    memset(o, 0, sizeof *o);
    o->job = job;
    o->row = NET_NONE;
    return cs->nops++;
}

void coll_op_launch(struct net *n, uint32_t opi) {
    struct coll_state *cs = n->coll_state;
    struct op *o = &cs->ops[opi];
    op_finish_graph(o);
    cs->xfers_stored += o->nx;
    if (o->nx + o->nvx == 0) {
        op_done(n, opi);
        return;
    }
    /* roots in the stored graph's id order: a ring segment's transfers
     * came before the transfers created after it */
    size_t nr = o->nx;
    for (uint32_t s = 0; s < o->nsegs; s++) {
        const struct ring_seg *r = &o->segs[s];
        nr += (size_t)NCCL_STEPS * r->m;
    }
    uint32_t nroots = 0, si = 0;
    uint32_t *roots = fs_xmalloc(nr * sizeof *roots);
    for (uint32_t i = 0; i <= o->nx; i++) {
        for (; si < o->nsegs && o->segs[si].pos <= i; si++) {
            const struct ring_seg *r = &o->segs[si];
            uint32_t T = r->nsteps * r->ns, lim = T < r->win ? T : r->win, ks, ss;
            for (uint32_t seq = 0; seq < lim; seq++) {
                ring_ks(r, seq, &ks, &ss);
                for (uint32_t k = 0; k < r->m && ks == 0; k++)
                    if (!r->pre_wait[k])
                        roots[nroots++] = XF_RING_BIT | (r->vbase + seq * r->m + k);
            }
        }
        if (i < o->nx && o->x[i].ndeps == 0) roots[nroots++] = i;
    }
    for (uint32_t i = 0; i < nroots; i++) {
        if (cs->ops[opi].done) break;
        if (roots[i] & XF_RING_BIT) {
            const struct op *ro = &cs->ops[opi];
            uint32_t v = roots[i] & ~XF_RING_BIT, rs = (uint32_t)(seg_of(ro, v) - ro->segs);
            uint32_t l = v - ro->segs[rs].vbase;
            ring_try(n, opi, rs, l / ro->segs[rs].m, l % ro->segs[rs].m);
        } else if (cs->ops[opi].x[roots[i]].kind == XF_VIRTUAL) {
            xfer_done(n, opi, roots[i]);
        } else {
            launch(n, opi, roots[i]);
        }
    }
    free(roots);
}

static void job_start_op(struct net *n, struct job *j) {
    struct coll_state *cs = n->coll_state;
    uint32_t opi = coll_op_new(n, j->id);
    struct op *o = &cs->ops[opi];
    uint64_t bytes = j->w->sizes && j->w->nsizes ? j->w->sizes[j->size_i] : j->w->size_bytes;
    int kind = coll_kind(j->w);
    /* nccl-tests moves whole floats per rank for gather/scatter/alltoall
     * (count / nranks elements each: *GetCollByteCount) */
    if (j->w->kind == WL_NCCL_TESTS &&
        (kind == WL_ALLGATHER || kind == WL_REDUCESCATTER || kind == WL_ALLTOALL)) {
        uint64_t unit = 4ull * j->nranks;
        bytes = bytes / unit ? bytes / unit * unit : unit;
    }
    /* results row */
    n->coll_rows = fs_xrealloc(n->coll_rows, (n->ncoll_rows + 1) * sizeof *n->coll_rows);
    struct coll_row *r = &n->coll_rows[n->ncoll_rows];
    memset(r, 0, sizeof *r);
    r->job = j->id;
    r->op = (uint8_t)kind;
    r->algorithm = (uint8_t)j->algo;
    r->fallback = j->fallback;
    r->proto = algo_proto(n, j, kind, j->algo, bytes);
    r->ranks = j->nranks;
    r->size_bytes = bytes;
    r->start_ps = n->sim->now_ps;
    r->end_ps = SIM_TIME_NEVER;
    o->row = n->ncoll_rows++;
    j->cur_op = opi;
    uint32_t *post = fs_xmalloc(j->nranks * sizeof *post);
    coll_build(n, j, o, kind, j->algo, bytes, NULL, post);
    free(post);
    /* the calls to come: the sizes after this one, each `repeat` times */
    size_t nsizes = j->w->sizes && j->w->nsizes ? j->w->nsizes : 1;
    uint32_t repeat = j->w->repeat ? j->w->repeat : 1;
    double later = repeat - 1 - j->rep;
    for (size_t k = j->size_i + 1; k < nsizes && bytes; k++)
        later += (double)repeat * (double)j->w->sizes[k] / (double)bytes;
    coll_plan(n, j, o, later);
    coll_op_launch(n, opi);
}

static void job_next(struct net *n, struct job *j) {
    size_t nsizes = j->w->sizes && j->w->nsizes ? j->w->nsizes : 1;
    uint32_t repeat = j->w->repeat ? j->w->repeat : 1;
    if (++j->rep >= repeat) {
        j->rep = 0;
        j->size_i++;
    }
    if (j->size_i >= nsizes) {
        coll_job_release(n, j); /* the job's hold (coll_add) */
        return;
    }
    job_start_op(n, j);
}

void coll_on_event(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct coll_state *cs = n->coll_state;
    /* several ranks: a SHARP start or aggregation of this rank is done */
    if (cs->dist &&
        (e->aux == INNET_EV_TIMER || (e->aux == COLL_EV_TIMER && !cs->timers[e->arg].done)))
        cs->dist->local_done(n);
    if (e->aux == COLL_EV_TIMER) {
        uint32_t opi = cs->timers[e->arg].op, xi = cs->timers[e->arg].x;
        bool done = cs->timers[e->arg].done;
        cs->timers[e->arg].op = cs->timer_free; /* the slot is free again */
        cs->timer_free = e->arg + 1;
        struct op *o = &cs->ops[opi];
        if (cs->jobs[o->job].aborted_ps != SIM_TIME_NEVER) return;
        if (!done) {
            uint32_t member, sess = coll_xfer_sess(&cs->jobs[o->job], o->x[xi].qp, &member);
            innet_send(n, sess, cs->timers[e->arg].run, member);
        } else {
            cs->cause = cs->timers[e->arg].cause;
            xfer_done(n, opi, xi);
            cs->cause = NET_NONE;
        }
        return;
    }
    if (e->aux == INNET_EV_TIMER) {
        innet_on_timer(n, e->arg);
        return;
    }
    struct job *j = &cs->jobs[e->arg];
    if (j->w->kind == WL_TRAINING)
        training_start(n, j);
    else if (j->w->kind == WL_CHAKRA)
        chakra_start(n, j);
    else if (j->w->kind == WL_MOE)
        moe_start(n, j);
    else if (j->w->kind == WL_INFERENCE)
        infer_start(n, j);
    else
        job_start_op(n, j);
}

/* ---- setup ---- */

static bool is_pow2(uint32_t v) {
    return v && !(v & (v - 1));
}

static const char *op_str(int k) {
    switch (k) {
    case WL_ALLREDUCE:
        return "allreduce";
    case WL_ALLGATHER:
        return "allgather";
    case WL_REDUCESCATTER:
        return "reducescatter";
    case WL_BROADCAST:
        return "broadcast";
    case WL_TRAINING:
        return "training";
    case WL_MOE:
        return "moe";
    case WL_INFERENCE:
        return "inference";
    default:
        return "?";
    }
}

/* Resolves `auto` with NCCL's model, and checks what the algorithm needs. */
static int resolve_algo(struct net *n, struct job *j, struct diag *d) {
    const struct model_params *sc = n->sc;
    const struct wl_entry *w = j->w;
    enum coll_algo a = w->algorithm;
    int kind = w->kind == WL_TRAINING || w->kind == WL_CHAKRA || w->kind == WL_MOE ||
                       w->kind == WL_INFERENCE
                   ? WL_ALLREDUCE
                   : coll_kind(w);
    bool want_sharp =
        a == ALGO_SHARP || (sc->fabric.sharp && a == ALGO_AUTO && kind == WL_ALLREDUCE);
    if ((a == ALGO_SHARP || sc->fabric.sharp) && sc->fabric.kind != FABRIC_INFINIBAND) {
        struct srcpos pos = a == ALGO_SHARP ? w->pos : sc->fabric.sharp_pos;
        return diag_set(
            d, sc->file, pos, FS_EINVAL,
            "SHARP in-network aggregation needs an InfiniBand fabric (Quantum "
            "switches); fabric.kind is Ethernet (roce, uet): use algorithm: ring | tree | "
            "halving_doubling, or fabric.kind: infiniband");
    }
    if (a == ALGO_AUTO) {
        uint64_t bytes = w->sizes && w->nsizes ? w->sizes[0] : w->size_bytes;
        enum coll_algo cand[] = {ALGO_RING, ALGO_TREE, ALGO_SHARP, ALGO_NVLS};
        double best = INFINITY;
        a = ALGO_RING;
        for (size_t i = 0; i < sizeof cand / sizeof *cand; i++) {
            if (cand[i] == ALGO_SHARP && !want_sharp) continue;
            if (cand[i] == ALGO_NVLS && !(j->nnodes == 1 && j->gpus > 1)) continue;
            double t = coll_nccl_time_us(kind, cand[i], bytes, j->nranks, j->nnodes,
                                         sc->fabric.link_bps, sc->topo.nvlink_bps);
            if (t < best) {
                best = t;
                a = cand[i];
            }
        }
        /* NCCL's ring and tree on multi-GPU hosts are node-aware (algos.c
         * node_ring_order, node_tree_parent) */
    }
    bool ar = kind == WL_ALLREDUCE;
    const char *bad = NULL;
    if (a == ALGO_TREE && !(ar || kind == WL_BROADCAST))
        bad = "tree serves allreduce and broadcast";
    else if (a == ALGO_HALVING_DOUBLING && kind == WL_BROADCAST)
        bad = "halving_doubling serves allreduce, allgather and reducescatter";
    else if (a == ALGO_HALVING_DOUBLING && !ar && !is_pow2(j->nranks))
        bad = "halving_doubling allgather/reducescatter needs a power-of-two rank count";
    else if ((a == ALGO_SHARP || a == ALGO_NVLS || a == ALGO_HIERARCHICAL) && !ar)
        bad = "sharp, nvls and hierarchical serve allreduce only";
    else if (a == ALGO_NVLS && !(j->nnodes == 1 && j->gpus > 1))
        bad = "nvls reduces inside one host's NVSwitch: its ranks must be GPUs of one host "
              "(topology.gpus_per_host > 1)";
    else if (a == ALGO_HIERARCHICAL && (j->gpus < 2 || j->nranks != j->gpus * j->nnodes))
        bad = "hierarchical needs every GPU of each host in the job (gpus_per_host > 1)";
    if (bad)
        return diag_set(d, sc->file, w->pos, FS_EINVAL, "%s %s: %s", op_str(kind),
                        coll_algo_name(a), bad);
    j->algo = a;
    j->sess = NET_NONE;
    if (a == ALGO_HALVING_DOUBLING) j->nccl_costs = false; /* MPI's, not NCCL's */
    /* channels: auto — NCCL's two per NIC; a node-aware ring has one NIC per
     * GPU (nccl issue 320's DGX A100 listing: channels 0-1 on one NIC, 2-3 on
     * the next, ...) */
    if ((a == ALGO_RING || (a == ALGO_TREE && kind == WL_ALLREDUCE)) && !w->channels &&
        algo_node_aware(j))
        j->channels = 2 * j->gpus < COLL_MAX_CHANNELS ? 2 * j->gpus : COLL_MAX_CHANNELS;
    if (a == ALGO_SHARP || a == ALGO_NVLS) innet_on_done(n, coll_innet_done);
    if (a == ALGO_SHARP && j->gpus > 1 && j->nnodes > 1 && j->nranks == j->gpus * j->nnodes) {
        /* NCCL's CollNet on multi-GPU hosts: reduce-scatter inside the host
         * over NVLink, SHARP AllReduce of each shard across the hosts on
         * its rail (one streaming aggregation flow per HCA rail, HPC-X
         * NCCL-RDMA-SHARP plugin docs, docs/sources.md A9), all-gather inside */
        j->rail_sess = fs_xmalloc(j->gpus * sizeof *j->rail_sess);
        uint32_t *mem = fs_xmalloc(j->nnodes * sizeof *mem);
        bool ok = true;
        for (uint32_t g = 0; g < j->gpus; g++) {
            for (uint32_t h = 0; h < j->nnodes; h++)
                mem[h] = j->ranks[h * j->gpus + g];
            j->rail_sess[g] =
                ok ? innet_sharp_open(n, mem, j->nnodes, j->id * j->gpus + g) : NET_NONE;
            ok = ok && j->rail_sess[g] != NET_NONE;
        }
        free(mem);
        if (!ok) { /* close what opened; NCCL runs without CollNet */
            for (uint32_t g = 0; g < j->gpus && j->rail_sess[g] != NET_NONE; g++)
                innet_close(n, j->rail_sess[g]);
            free(j->rail_sess);
            j->rail_sess = NULL;
            j->algo = ALGO_HIERARCHICAL;
            j->fallback = true;
            net_warn(n,
                     "job %u: no SHARP streaming tree available on some rail (%u per switch); "
                     "ran as hierarchical ring",
                     j->id, n->sc->fabric.sharp_jobs_per_switch);
        }
    } else if (a == ALGO_SHARP) {
        j->sess = innet_sharp_open(n, j->ranks, j->nranks, j->id);
        if (j->sess == NET_NONE) {
            /* no streaming tree left on some switch: NCCL runs without CollNet */
            j->algo = ALGO_RING;
            j->fallback = true;
            net_warn(n, "job %u: no SHARP streaming tree available (one per switch); ran as ring",
                     j->id);
        }
    } else if (a == ALGO_NVLS) {
        j->sess = innet_nvls_open(n, j->ranks, j->nranks);
    }
    return 0;
}

int coll_add(struct net *n, const struct wl_entry *w, size_t idx, struct diag *d) {
    struct coll_state *cs = cs_get(n);
    const struct model_params *sc = n->sc;
    if (n->on_msg_recv != on_recv) {
        cs->prev_recv = n->on_msg_recv;
        n->on_msg_recv = on_recv;
    }
    if (n->on_msg_failed != on_failed) {
        cs->prev_failed = n->on_msg_failed;
        n->on_msg_failed = on_failed;
    }
    /* the communicators' ranks */
    uint32_t nr;
    uint32_t *all;
    if (w->ranks && w->nranks) {
        nr = (uint32_t)w->nranks;
        all = fs_xmalloc(nr * sizeof *all);
        for (uint32_t i = 0; i < nr; i++) {
            if (w->ranks[i] >= n->nhosts) {
                free(all);
                return diag_set(d, sc->file, w->pos, FS_EINVAL,
                                "rank h%u does not exist: the topology has %u endpoints",
                                w->ranks[i], n->nhosts);
            }
            all[i] = n->host_node[w->ranks[i]];
        }
    } else {
        nr = n->nhosts;
        all = fs_xmalloc(nr * sizeof *all);
        for (uint32_t i = 0; i < nr; i++)
            all[i] = n->host_node[i];
    }
    uint32_t jobs = w->jobs ? w->jobs : 1;
    if (nr / jobs < 2) {
        free(all);
        return diag_set(d, sc->file, w->pos, FS_EINVAL,
                        "%u job(s) over %u ranks leave fewer than 2 ranks per job", jobs, nr);
    }
    for (uint32_t jj = 0; jj < jobs; jj++) {
        cs->jobs = fs_xrealloc(cs->jobs, (cs->njobs + 1) * sizeof *cs->jobs);
        struct job *j = &cs->jobs[cs->njobs];
        memset(j, 0, sizeof *j);
        j->aborted_ps = SIM_TIME_NEVER;
        j->w = w;
        j->widx = idx;
        j->id = cs->njobs;
        /* Job jj takes every jobs-th rank (jj, jj+jobs, ...): on a leaf-spine
         * fabric every job then spans the leaves and shares the spines. */
        j->nranks = nr / jobs;
        j->ranks = fs_xmalloc(j->nranks * sizeof *j->ranks);
        for (uint32_t k = 0; k < j->nranks; k++)
            j->ranks[k] = all[jj + k * jobs];
        /* hosts and GPUs per host among the ranks */
        uint32_t last = UINT32_MAX, cnt = 0;
        j->gpus = 0;
        for (uint32_t i = 0; i < j->nranks; i++) {
            uint32_t h = host_of(n, j->ranks[i]);
            bool seen = false;
            for (uint32_t k = 0; k < i && !seen; k++)
                seen = host_of(n, j->ranks[k]) == h;
            if (!seen) j->nnodes++;
            if (h == last)
                cnt++;
            else
                cnt = 1;
            last = h;
            if (cnt > j->gpus) j->gpus = cnt;
        }
        j->channels = w->channels ? w->channels : COLL_CHANNELS_DEFAULT;
        j->slice_bytes = w->slice_bytes ? w->slice_bytes : COLL_SLICE_DEFAULT;
        j->overhead_ps = w->step_overhead_ps ? w->step_overhead_ps : COLL_OVERHEAD_DEFAULT_PS;
        /* NCCL's per-step costs unless the scenario prices a step itself */
        j->nccl_costs = !w->step_overhead_ps;
        /* 0: the reduction is not on the critical path (NCCL reduces in the
         * GPU copy kernel at memory speed); MPI on hosts: docs/model.md */
        j->host_rate_bps = w->host_rate_bps;
        rng_seed(&j->ent, sc->seed, 0, STREAM_COLL_ENTROPY + 16 * (idx * 64 + jj));
        cs->njobs++;
        int rc = resolve_algo(n, j, d);
        if (!rc && w->kind == WL_TRAINING) rc = training_add(n, j, d);
        if (!rc && w->kind == WL_CHAKRA) rc = chakra_add(n, j, d);
        if (!rc && w->kind == WL_MOE) rc = moe_add(n, j, d);
        if (!rc && w->kind == WL_INFERENCE) rc = infer_add(n, j, d);
        if (rc) {
            free(all);
            return rc;
        }
        net_work_add(n); /* held until the job's last call ends */
        cs->held++;
        sim_at(n->sim, w->start_ps, 0, NET_EV_COLL, j->id, COLL_EV_START);
    }
    free(all);
    sim_register(n->sim, NET_EV_COLL, coll_on_event);
    return 0;
}

void coll_fini(struct net *n) {
    struct coll_state *cs = n->coll_state;
    if (!cs) return;
    innet_fini(n);
    chakra_fini(n);
    moe_fini(n);
    infer_fini(n);
    for (uint32_t i = 0; i < cs->njobs; i++) {
        free(cs->jobs[i].ranks);
        free(cs->jobs[i].rail_sess);
        free(cs->jobs[i].qkey);
        free(cs->jobs[i].qval);
    }
    for (uint32_t i = 0; i < cs->nops; i++)
        op_free(&cs->ops[i]);
    free(cs->jobs);
    free(cs->ops);
    free(cs->msg_x);
    free(cs->qp_rr);
    free(cs->qp_post);
    free(cs->timers);
    free(cs->stack);
    free(cs->rstack);
    free(cs->train);
    free(cs->msg_cause);
    free(cs->comp);
    free(cs->marks);
    free(cs);
    n->coll_state = NULL;
}

/* How long link trouble kept the QP from progress, for the exponent-18
 * counterfactual: from its last progress before the stall to the repair of
 * the failure that caused it (the control_plane row of the latest failure
 * before its first timeout: local reroute, reroute or link up, whichever
 * came first). Without such a row, the stall itself. */
static sim_time_ps qp_outage_ps(const struct net *n, sim_time_ps from, sim_time_ps stall) {
    sim_time_ps best = SIM_TIME_NEVER;
    const struct cp_row *row = NULL;
    for (uint32_t i = 0; i < n->ncp_rows; i++) {
        const struct cp_row *r = &n->cp_rows[i];
        if (r->at_ps <= from + n->rto_ps && (!row || r->at_ps >= row->at_ps)) row = r;
    }
    if (row) {
        sim_time_ps t[3] = {row->local_rerouted_ps, row->rerouted_ps, row->up_ps};
        for (int k = 0; k < 3; k++)
            if (t[k] < best) best = t[k];
    }
    if (best == SIM_TIME_NEVER || best < from) return stall;
    return best - from;
}

/* NCCL's older default NCCL_IB_TIMEOUT 18 (docs/sources.md A10, A12). */
#define COLL_OLD_TIMEOUT_PS (4096000ull << 18)

void coll_write_jobs(const struct net *n, struct jw *w) {
    const struct coll_state *cs = n->coll_state;
    jw_key(w, "jobs");
    jw_arr(w);
    for (uint32_t i = 0; cs && i < cs->njobs; i++) {
        const struct job *j = &cs->jobs[i];
        uint64_t retries = 0;
        sim_time_ps stall = 0, outage = 0;
        for (uint32_t k = 0; k < j->qcap; k++) {
            if (j->qkey[k] == UINT64_MAX) continue;
            const struct qp *q = &n->qps[j->qval[k]];
            retries += q->retries_total;
            if (q->stall_max_ps > stall) stall = q->stall_max_ps;
            if (q->stall_max_ps) {
                sim_time_ps o = qp_outage_ps(n, q->stall_from_ps, q->stall_max_ps);
                if (o > outage) outage = o;
            }
            /* Still waiting on its timer when the run stopped: stalled so far. */
            if (!q->error && q->retries && q->rto_deadline_ps != SIM_TIME_NEVER) {
                sim_time_ps now_stall = n->sim->now_ps - q->progress_ps;
                if (now_stall > stall) stall = now_stall;
                /* a reroute does not repair a QP whose end lost its link */
                sim_time_ps o = net_node_attached(n, q->src) && net_node_attached(n, q->dst)
                                    ? qp_outage_ps(n, q->progress_ps, now_stall)
                                    : now_stall;
                if (o > outage) outage = o;
            }
        }
        bool aborted = j->aborted_ps != SIM_TIME_NEVER;
        jw_obj_compact(w);
        jw_ku64(w, "job", j->id);
        jw_kstr(w, "kind", op_str(j->w->kind));
        jw_ku64(w, "ranks", j->nranks);
        jw_key(w, "aborted_at_ns");
        if (aborted)
            jw_num(w, time_ps_to_ns(j->aborted_ps));
        else
            jw_null(w);
        jw_knum(w, "stalled_ns", time_ps_to_ns(stall));
        jw_ku64(w, "retries", retries);
        /* Survives iff the outage ends before its last retry: retry_cnt x timeout. */
        jw_kbool(w, "would_abort_timeout_18",
                 aborted || (stall && outage > (uint64_t)n->retry_cnt * COLL_OLD_TIMEOUT_PS));
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

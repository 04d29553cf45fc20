#include "workload/workload.h"

#include "coll/coll.h"

#include "core/diag.h"
#include "core/mem.h"
#include "core/rng.h"
#include "net/net.h"
#include "net/params.h"
#include "topo/topo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An open-loop Poisson source: one QP from a sender to the receiver, messages
 * of fixed or exponential size at exponential inter-arrival times. */
struct gen {
    uint32_t qp;
    int32_t flow;
    struct rng rng;
    double mean_gap_ps;
    double size_bytes; /* fixed size, or the mean */
    int exponential;
    uint64_t end_ps;
    uint64_t first_ps; /* the first arrival */
    /* several ranks (workload_pregen): its messages reserved before the run,
     * ids [m0, m0 + nm), the next one to make is m0 + k */
    bool pre;
    uint32_t m0, nm, k;
};

/* An all-to-all is also reported as a collective (SPEC.md): its row spans
 * its flows, from the entry's start to the last flow's end. */
struct a2a {
    uint32_t row, first_flow, nflows;
};

struct wl_state {
    struct gen *gens;
    uint32_t ngens;
    struct a2a *a2a;
    uint32_t na2a;
};

/* RNG stream ids, so workload entries never share a stream. */
enum { STREAM_PERMUTATION = 1, STREAM_POISSON = 2, STREAM_QP_ENTROPY = 3 };

/* `prio`: the entry's `priority` (Ethernet priority / IB SL). */
static uint32_t new_qp(struct net *n, uint32_t src_host, uint32_t dst_host, uint8_t prio,
                       struct rng *ent) {
    uint32_t qp = net_qp_new(n, n->host_node[src_host], n->host_node[dst_host], prio);
    /* RoCEv2 UDP source port: per-QP entropy in the dynamic range 49152..65535 */
    net_qp_set_entropy(n, qp, (uint16_t)(49152 + rng_below(ent, 16384)));
    return qp;
}

static void one_flow(struct net *n, uint32_t src, uint32_t dst, uint64_t size, uint64_t start,
                     uint8_t prio, struct rng *ent) {
    /* QP scaling (transport.qps_per_connection, NCCL_IB_QPS_PER_CONNECTION;
     * Meta's RoCE fabric, docs/sources.md A11/B): the flow is striped over several
     * QPs, each with its own UDP source port, so ECMP sees more entropy. */
    uint32_t nq = n->sc->fabric.transport.qps_per_connection;
    if (nq <= 1 || size < nq) {
        uint32_t qp = new_qp(n, src, dst, prio, ent);
        int32_t f = (int32_t)net_flow_new(n, src, dst);
        net_msg_new(n, qp, size, start, f, NET_NONE);
        return;
    }
    int32_t f = (int32_t)net_flow_new(n, src, dst);
    for (uint32_t i = 0; i < nq; i++) {
        uint32_t qp = new_qp(n, src, dst, prio, ent);
        uint64_t part = size / nq + (i < size % nq ? 1 : 0);
        net_msg_new(n, qp, part, start, f, NET_NONE);
    }
}

static void shuffle(uint32_t *a, uint32_t len, struct rng *r) {
    for (uint32_t i = len; i > 1; i--) {
        uint32_t j = (uint32_t)rng_below(r, i);
        uint32_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* A random permutation with no fixed point (every host sends to another):
 * shuffle, then rotate any fixed points away (Sattolo-free, unbiased enough
 * for traffic and deterministic for a seed). */
static void derangement(uint32_t *to, uint32_t H, struct rng *r) {
    for (uint32_t i = 0; i < H; i++)
        to[i] = i;
    shuffle(to, H, r);
    for (uint32_t i = 0; i < H; i++)
        if (to[i] == i) {
            uint32_t j = (i + 1) % H;
            uint32_t t = to[i];
            to[i] = to[j];
            to[j] = t;
        }
}

static int add_poisson(struct net *n, struct wl_state *ws, const struct wl_entry *w, size_t idx) {
    const struct model_params *sc = n->sc;
    uint32_t count = (uint32_t)w->nsenders;
    double wire =
        (double)w->packet_bytes + ceil((double)w->packet_bytes / n->mtu_bytes) * n->overhead_bytes;
    /* Aggregate arrival rate that loads the receiver link to `load` on the
     * wire (so that rho is the link utilisation M/D/1 speaks of). */
    double rate_pkts_per_ps = w->load * (double)sc->fabric.link_bps / (8.0 * wire) / 1e12;
    for (uint32_t s = 0; s < count; s++) {
        ws->gens = fs_xrealloc(ws->gens, (ws->ngens + 1) * sizeof *ws->gens);
        struct gen *g = &ws->gens[ws->ngens];
        uint32_t src = w->senders[s];
        struct rng ent;
        rng_seed(&ent, sc->seed, n->host_node[src] + 1, STREAM_QP_ENTROPY + 16 * idx);
        g->qp = new_qp(n, src, w->receiver, (uint8_t)w->priority, &ent);
        g->flow = (int32_t)net_flow_new(n, src, w->receiver);
        rng_seed(&g->rng, sc->seed, n->host_node[src] + 1, STREAM_POISSON + 16 * idx);
        g->mean_gap_ps = 1.0 / (rate_pkts_per_ps / count);
        g->size_bytes = (double)w->packet_bytes;
        g->exponential = w->exponential;
        g->end_ps = w->start_ps + w->duration_ps;
        g->pre = false;
        g->m0 = g->nm = g->k = 0;
        net_work_add(n);
        uint64_t first = w->start_ps + (uint64_t)llround(rng_exponential(&g->rng, g->mean_gap_ps));
        g->first_ps = first;
        sim_at(n->sim, first, n->host_node[src] + 1, NET_EV_GEN, ws->ngens, 0);
        ws->ngens++;
    }
    return 0;
}

/* A message's size: fixed, or exponential with the source's mean. */
static uint64_t gen_size(const struct gen *g, struct rng *r) {
    uint64_t size = (uint64_t)g->size_bytes;
    if (g->exponential) {
        size = (uint64_t)llround(rng_exponential(r, g->size_bytes));
        if (size == 0) size = 1;
    }
    return size;
}

void workload_on_gen(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct wl_state *ws = n->wl_state;
    struct gen *g = &ws->gens[e->arg];
    if (s->now_ps >= g->end_ps) {
        net_work_done(n);
        return;
    }
    uint64_t size = gen_size(g, &g->rng);
    uint32_t m;
    if (g->pre) { /* reserved alike on every rank: made now, here */
        FS_ASSERT(g->k < g->nm && n->msgs[g->m0 + g->k].size_bytes == size,
                  "poisson source %u: arrival %u at %llu ps not reserved", e->arg, g->k,
                  (unsigned long long)s->now_ps);
        m = g->m0 + g->k++;
        net_msg_activate(n, m);
    } else
        m = net_msg_new(n, g->qp, size, SIM_TIME_NEVER, g->flow, NET_NONE);
    net_msg_post_now(n, m);
    uint64_t next = s->now_ps + (uint64_t)llround(rng_exponential(&g->rng, g->mean_gap_ps));
    sim_at(s, next, event_entity(e), NET_EV_GEN, e->arg, 0);
}

uint32_t workload_pregen(struct net *n, sim_time_ps until_ps) {
    struct wl_state *ws = n->wl_state;
    uint32_t made = 0;
    for (uint32_t i = 0; ws && i < ws->ngens; i++) {
        struct gen *g = &ws->gens[i];
        /* the source's own stream, copied: the arrivals its events will draw */
        struct rng r = g->rng;
        g->pre = true;
        g->m0 = n->nmsgs;
        g->nm = g->k = 0;
        for (uint64_t t = g->first_ps; t < g->end_ps && t <= until_ps;) {
            uint64_t size = gen_size(g, &r);
            uint32_t id = net_msg_reserve(n, g->qp, size, g->flow, NET_NONE);
            FS_ASSERT(id == g->m0 + g->nm, "reserved message %u out of sequence", id);
            g->nm++;
            t += (uint64_t)llround(rng_exponential(&r, g->mean_gap_ps));
        }
        made += g->nm;
    }
    return made;
}

uint64_t workload_pregen_made(const struct net *n) {
    const struct wl_state *ws = n->wl_state;
    uint64_t k = 0;
    for (uint32_t i = 0; ws && i < ws->ngens; i++)
        k += ws->gens[i].k;
    return k;
}

uint32_t workload_gens(const struct net *n) {
    const struct wl_state *ws = n->wl_state;
    return ws ? ws->ngens : 0;
}

uint32_t workload_gen_src(const struct net *n, uint32_t i) {
    const struct wl_state *ws = n->wl_state;
    return n->qps[ws->gens[i].qp].src;
}

/* nccl-tests' alltoall size is what one rank sends in all, `size` to each
 * of the n ranks (itself included), so busbw = algbw (n-1)/n is what each
 * rank put on the network per second. */
static void add_alltoall_row(struct net *n, struct wl_state *ws, const struct wl_entry *w) {
    n->coll_rows = fs_xrealloc(n->coll_rows, (n->ncoll_rows + 1) * sizeof *n->coll_rows);
    struct coll_row *r = &n->coll_rows[n->ncoll_rows];
    memset(r, 0, sizeof *r);
    r->job = n->ncoll_rows;
    r->op = WL_ALLTOALL;
    r->algorithm = ALGO_RING; /* reported as "direct" by results.c */
    r->ranks = n->nhosts;
    r->size_bytes = w->size_bytes * n->nhosts;
    r->start_ps = w->start_ps;
    r->end_ps = SIM_TIME_NEVER;
    ws->a2a = fs_xrealloc(ws->a2a, (ws->na2a + 1) * sizeof *ws->a2a);
    ws->a2a[ws->na2a++] = (struct a2a){n->ncoll_rows++, n->nflows, n->nhosts * (n->nhosts - 1)};
}

void workload_finish(struct net *n) {
    struct wl_state *ws = n->wl_state;
    for (uint32_t i = 0; ws && i < ws->na2a; i++) {
        const struct a2a *a = &ws->a2a[i];
        sim_time_ps end = 0;
        bool done = true;
        for (uint32_t f = a->first_flow; f < a->first_flow + a->nflows; f++) {
            done = done && n->flows[f].msgs_left == 0;
            if (n->flows[f].end_ps > end) end = n->flows[f].end_ps;
        }
        n->coll_rows[a->row].end_ps = done ? end : SIM_TIME_NEVER;
    }
}

int workload_build(struct net *n, struct diag *d) {
    const struct model_params *sc = n->sc;
    struct wl_state *ws = fs_xcalloc(1, sizeof *ws);
    n->wl_state = ws;
    uint32_t H = n->nhosts;
    for (size_t i = 0; i < sc->nworkload; i++) {
        const struct wl_entry *w = &sc->workload[i];
        struct rng ent;
        rng_seed(&ent, sc->seed, 0, STREAM_QP_ENTROPY + 16 * i);
        uint8_t prio = (uint8_t)w->priority;
        switch (w->kind) {
        case WL_FLOWS:
            for (size_t f = 0; f < w->nflows; f++)
                one_flow(n, w->flows[f].src, w->flows[f].dst, w->flows[f].size_bytes,
                         w->start_ps + w->flows[f].start_ps, prio, &ent);
            break;
        case WL_PERMUTATION: {
            if (H < 2)
                return diag_set(d, sc->file, w->pos, FS_EINVAL,
                                "a permutation needs at least 2 hosts; the topology has %u", H);
            uint32_t *to = fs_xmalloc(H * sizeof *to);
            if (w->pattern == PERM_SHIFT) {
                if (w->shift % H == 0) {
                    free(to);
                    return diag_set(d, sc->file, w->pos, FS_EINVAL,
                                    "permutation shift %u maps every host onto itself on %u "
                                    "hosts; use a shift that is not a multiple of %u",
                                    w->shift, H, H);
                }
                for (uint32_t h = 0; h < H; h++)
                    to[h] = (h + w->shift) % H;
            } else {
                struct rng r;
                rng_seed(&r, sc->seed, 0, STREAM_PERMUTATION + 16 * i);
                derangement(to, H, &r);
            }
            for (uint32_t h = 0; h < H; h++)
                one_flow(n, h, to[h], w->size_bytes, w->start_ps, prio, &ent);
            free(to);
            break;
        }
        case WL_INCAST:
            for (size_t s = 0; s < w->nsenders; s++)
                one_flow(n, w->senders[s], w->receiver, w->size_bytes, w->start_ps, prio, &ent);
            break;
        case WL_ALLTOALL:
            add_alltoall_row(n, ws, w);
            for (uint32_t a = 0; a < H; a++)
                for (uint32_t b = 0; b < H; b++)
                    if (a != b) one_flow(n, a, b, w->size_bytes, w->start_ps, prio, &ent);
            break;
        case WL_POISSON:
            add_poisson(n, ws, w, i);
            break;
        case WL_ALLREDUCE:
        case WL_ALLGATHER:
        case WL_REDUCESCATTER:
        case WL_BROADCAST:
        case WL_TRAINING:
        case WL_NCCL_TESTS:
        case WL_CHAKRA:
        case WL_MOE:
        case WL_INFERENCE: {
            int rc = coll_add(n, w, i, d);
            if (rc) return rc;
            break;
        }
        }
    }
    return 0;
}

void workload_fini(struct net *n) {
    coll_fini(n);
    struct wl_state *ws = n->wl_state;
    if (!ws) return;
    free(ws->gens);
    free(ws->a2a);
    free(ws);
    n->wl_state = NULL;
}

static uint64_t mul_sat(uint64_t a, uint64_t b) {
    return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

uint64_t workload_entry_ranks(const struct topo_params *t, const struct wl_entry *w) {
    uint64_t H = topo_host_count(t);
    uint64_t G = t->gpus_per_host > 1 ? t->gpus_per_host : 1;
    uint64_t r = w->ranks_all ? (w->ranks_gpus ? H * G : H) : w->nranks;
    return mul_sat(r, w->jobs ? w->jobs : 1);
}

uint64_t workload_entry_flows(const struct topo_params *t, uint32_t qps_per_connection,
                              const struct wl_entry *w) {
    uint64_t H = topo_host_count(t);
    uint64_t q = qps_per_connection > 1 ? qps_per_connection : 1;
    switch (w->kind) {
    case WL_FLOWS:
        return mul_sat(w->nflows, q);
    case WL_PERMUTATION:
        return mul_sat(H, q);
    case WL_INCAST:
    case WL_POISSON:
        return mul_sat(w->nsenders, q);
    case WL_ALLTOALL:
        return mul_sat(mul_sat(H, H ? H - 1 : 0), q);
    default: /* collectives: a QP each way per rank and channel */
        return mul_sat(mul_sat(workload_entry_ranks(t, w), 2), w->channels ? w->channels : 2);
    }
}

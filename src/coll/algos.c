/* src/coll/algos.c
 *
 * Collective algorithms as dependency graphs of point-to-point transfers,
 * cut the way NCCL cuts its buffers: the data is split over `channels`
 * (each with its own connections), each channel's share into slices of
 * `slice_bytes` (NCCL_BUFFSIZE / NCCL_STEPS, docs/sources.md B); at most
 * NCCL_STEPS = 8 slices of one connection are in flight (the receiver's
 * buffer slots), and a slice moves on as soon as it arrived (pipelining).
 * Rings run NCCL's loop and free a slot when the receiver consumed it
 * (coll.c ring_try, coll_int.h RING_CHUNK_STEPS; docs/model.md "Chunking
 * as NCCL does").
 *
 * ring AllReduce: reduce-scatter then all-gather around the ring, 2(n-1)
 *   steps of S/n per rank (Patarasuk & Yuan); AllGather/ReduceScatter n-1.
 * tree AllReduce: NCCL's double binary tree (ncclGetBtree / ncclGetDtree):
 *   even channels use tree 0, odd channels the mirrored (or shifted) tree 1,
 *   so every rank is a leaf in one of them; chunks are reduced up and
 *   broadcast down, pipelined, a receive slot freed when the step is
 *   consumed (tree_allreduce_deps). On multi-GPU hosts the tree is between hosts
 *   and a chain over NVLink inside each (node_tree_parent).
 * halving_doubling: Rabenseifner's reduce-scatter by recursive halving and
 *   all-gather by recursive doubling; ranks beyond the largest power of two
 *   fold their data into a partner first and get the result back at the end.
 *   An AllReduce below 10000 bytes runs recursive doubling instead (log2 n
 *   exchanges of the whole buffer), as MPI does for small messages (Open MPI
 *   coll/tuned ompi_coll_tuned_allreduce_intra_dec_fixed: recursive doubling
 *   below intermediate_message = 10000 B; MPICH likewise below 2 KiB).
 * Transfers the receiver must reduce (reduce-scatter steps, tree up, folds)
 * are flagged: with a host reduction rate (host_rate) they count as received
 * only once reduced.
 * ring on multi-GPU hosts (the job holds every GPU of H > 1 hosts of G > 1
 *   GPUs, one NIC each): NCCL's node-aware ring. Each channel is one ring
 *   through every GPU; a host's GPUs follow each other over NVLink and the
 *   ring crosses to the next host once, rail to rail (node_ring_order).
 * hierarchical (multi-GPU hosts): reduce-scatter inside each host over
 *   NVLink, AllReduce per rail (GPU g of every host) over the network,
 *   all-gather inside each host.
 * sharp / nvls: one in-network transfer per rank (innet/).
 */
#include "coll/coll.h"
#include "coll/coll_int.h"
#include "core/diag.h"
#include "core/mem.h"
#include "net/net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Open MPI coll/tuned: recursive doubling below 10000 B (see above). */
#define HD_RD_BELOW_BYTES 10000u

struct ctx {
    struct net *n;
    struct job *j;
    struct op *o;
    uint64_t slice; /* NCCL's step: buffer / NCCL_STEPS (LL: its data per step) */
    uint8_t proto;
};

static uint64_t cdiv(uint64_t a, uint64_t b) {
    return (a + b - 1) / b;
}
static uint64_t part(uint64_t total, uint64_t i, uint64_t k) {
    return total * (i + 1) / k - total * i / k;
}

static uint32_t vnode(struct ctx *c) {
    return op_xfer(c->o, XF_VIRTUAL, NET_NONE, 0);
}

/* ---- NCCL protocols (docs/sources.md B) ----
 * LL sends 8-byte lines of 4 data + 4 flag bytes (2x the data on the wire),
 * LL128 128-byte lines of 120 data + 8 flag bytes, Simple the data alone.
 * LL and LL128 carry their flags with the data, so a step needs no separate
 * completion signal: NCCL's tuning.cc prices a network ring step at hwLat
 * NET LL 2.7, LL128 4.0, Simple 14 us; fabsim scales its per-step post cost
 * (step_overhead, the Simple cost) by the same ratios. The LL buffer holds
 * 32 KiB of data per step (NCCL_LL_LINES_PER_THREAD 8 x 512 threads x 16 B
 * lines / 2), which caps its pipelining unit. */
#define PROTO_LL_SLICE (32u << 10)

uint64_t coll_proto_wire_bytes(int proto, uint64_t bytes) {
    if (proto == PROTO_LL) return 2 * bytes;
    if (proto == PROTO_LL128) return cdiv(bytes * 128, 120);
    return bytes;
}

uint64_t coll_proto_overhead_ps(int proto, uint64_t simple_ps) {
    if (proto == PROTO_LL) return simple_ps * 27 / 140;    /* 2.7 / 14 */
    if (proto == PROTO_LL128) return simple_ps * 40 / 140; /* 4.0 / 14 */
    return simple_ps;
}

/* NCCL's per-step latencies (tuning.cc hwLat, ns; docs/sources.md B, sources.md
 * B): [ring, tree][NVLink, network][LL, LL128, Simple], and the per-call
 * baseLat [ring, tree][LL, LL128, Simple]. NCCL prices a collective at
 * baseLat + intra-node steps x hwLat NVLINK + inter-node steps x hwLat NET
 * and these constants are its fit to its own small-size measurements; fabsim
 * pays them where NCCL's time goes (a GPU noticing a step's data, the proxy
 * posting the next one), on top of the simulated wire, which is 0.2-1 us of
 * what NCCL's constants cover (docs/model.md "Protocols"). */
static const uint32_t NCCL_HWLAT_NS[2][2][3] = {
    {{600, 1900, 3400}, {2700, 4000, 14000}}, /* ring: NVLink, network */
    {{600, 1250, 4000}, {5000, 8500, 14000}}, /* tree: NVLink, network */
};
static const uint32_t NCCL_BASELAT_NS[2][3] = {{6600, 14000, 8400}, {6800, 14000, 8400}};

static int proto_index(int proto) {
    return proto == PROTO_LL ? 0 : proto == PROTO_LL128 ? 1 : 2;
}

uint64_t coll_step_ps(const struct job *j, int proto, bool nvlink) {
    if (!j->nccl_costs) return coll_proto_overhead_ps(proto, j->overhead_ps);
    return (uint64_t)NCCL_HWLAT_NS[j->algo == ALGO_TREE][nvlink ? 0 : 1][proto_index(proto)] *
           1000u;
}

/* A PXN send (the node-aware ring leaving a host, coll.c) is one network
 * step in NCCL's model (tuning.cc counts it among the inter-node steps):
 * the sending GPU's kernel copies the slice into the relaying GPU's buffer
 * over NVLink, where a direct send copies it into its own (an SM-bound copy
 * either way, which the network step's cost covers), and the relaying
 * GPU's proxy posts it. So the network hop is posted one network step after
 * the send began (its NVLink hop was posted one NVLink step after that), or
 * one post overhead (step_overhead scaled by protocol: the least a
 * transition waits, par/pcoll.c) after the NVLink hop arrived if that is
 * later; the NVLink hop's bytes load the NVLink ports. With a flat
 * step_overhead both hops are posts and pay it. first_post_ps: when the
 * NVLink hop was posted. */
uint64_t coll_relay_ps(const struct job *j, int proto, sim_time_ps now_ps,
                       sim_time_ps first_post_ps) {
    uint64_t net = coll_step_ps(j, proto, false), nvl = coll_step_ps(j, proto, true),
             post = coll_proto_overhead_ps(proto, j->overhead_ps);
    sim_time_ps at = net > nvl ? first_post_ps + (net - nvl) : 0;
    return at > now_ps + post ? at - now_ps : post;
}

/* NVLS and CollNet have no baseLat; their latency is one hwLat per call:
 * NVLS 25 us (NVLink), CollNet Direct 31 us (network) (docs/sources.md B). */
#define NCCL_NVLS_LAT_NS 25000u
#define NCCL_COLLNET_LAT_NS 31000u

uint64_t coll_base_ps(const struct job *j, int proto) {
    if (!j->nccl_costs) return 0;
    if (j->algo == ALGO_NVLS) return NCCL_NVLS_LAT_NS * 1000ull;
    if (j->algo == ALGO_SHARP) return NCCL_COLLNET_LAT_NS * 1000ull;
    return (uint64_t)NCCL_BASELAT_NS[j->algo == ALGO_TREE][proto_index(proto)] * 1000u;
}

/* The protocol of a call of `bytes` with algorithm a: the scenario's, or
 * (auto) the one with the least alpha-beta time, as NCCL picks by its own
 * model (tuning.cc): the call's base cost + its steps, NVLink and network
 * ones, at the protocol's per-step cost + the bytes a rank puts on the wire,
 * with the protocol's flag bytes, at the link rate. The costs are the ones
 * the simulation then pays (coll_step_ps), so the choice matches what it
 * does. SHARP and NVLS are Simple only in NCCL (CollNet, NVLS);
 * halving_doubling models MPI, which has no LL protocols. */
uint8_t algo_proto(const struct net *n, const struct job *j, int opkind, enum coll_algo a,
                   uint64_t bytes) {
    if (a == ALGO_SHARP || a == ALGO_NVLS || a == ALGO_HALVING_DOUBLING) return PROTO_SIMPLE;
    if (j->w->protocol != PROTO_AUTO) return (uint8_t)j->w->protocol;
    const struct model_params *sc = n->sc;
    double m = j->nranks > 1 ? j->nranks : 2, N = j->nnodes ? j->nnodes : 1, steps, inter, traffic;
    if (a == ALGO_TREE) { /* up and down: the chain inside hosts, the tree between */
        inter = 2 * ceil(log2(N));
        steps = inter + 2 * (m / N - 1);
        traffic = 2.0 * (double)bytes;
    } else if (opkind == WL_BROADCAST) { /* chain */
        steps = m - 1;
        inter = N - 1;
        traffic = (double)bytes;
    } else if (opkind == WL_ALLREDUCE) { /* ring, hierarchical */
        steps = 2 * (m - 1);
        inter = 2 * (N - 1);
        traffic = 2 * (m - 1) / m * (double)bytes;
    } else {
        steps = m - 1;
        inter = N - 1;
        traffic = (m - 1) / m * (double)bytes;
    }
    if (j->gpus <= 1) inter = steps; /* one rank per host: every step crosses the network */
    double bps = (double)sc->fabric.link_bps;
    if (j->nnodes == 1 && j->gpus > 1) {
        double e = sc->topo.nvlink_efficiency > 0 ? sc->topo.nvlink_efficiency : 1.0;
        bps = (double)sc->topo.nvlink_bps * e;
    }
    /* A step of several slices pays its cost once in the chain of steps:
     * the slices behind the first overlap it (up to NCCL_STEPS in flight) */
    double per_step = (double)bytes / (j->channels ? j->channels : 1);
    if (a != ALGO_TREE && opkind != WL_BROADCAST) per_step /= m;
    uint8_t best = PROTO_SIMPLE;
    double tbest = INFINITY;
    const uint8_t order[] = {PROTO_LL, PROTO_LL128, PROTO_SIMPLE};
    for (size_t i = 0; i < sizeof order; i++) {
        double slice = (double)(order[i] == PROTO_LL && j->slice_bytes > PROTO_LL_SLICE
                                    ? PROTO_LL_SLICE
                                    : j->slice_bytes),
               ns = fmin(fmax(ceil(per_step / slice), 1), NCCL_STEPS);
        double t = (double)coll_base_ps(j, order[i]) +
                   ((steps - inter) * (double)coll_step_ps(j, order[i], true) +
                    inter * (double)coll_step_ps(j, order[i], false)) /
                       ns +
                   (double)coll_proto_wire_bytes(order[i], (uint64_t)traffic) * 8e12 / bps;
        if (t < tbest) {
            tbest = t;
            best = order[i];
        }
    }
    return best;
}

/* `nsteps` ring steps among members mem[0..m) (rank indices) on channel ch,
 * `seg` bytes per member and step. via: NULL, or [m] the rank member i's
 * sends are relayed through (PXN; NET_NONE: sent directly). */
static void ring_steps(struct ctx *c, const uint32_t *mem, const uint32_t *via, uint32_t m,
                       uint32_t ch, uint32_t nsteps, uint32_t nreduce, uint64_t seg,
                       const uint32_t *pre, uint32_t *post) {
    struct op *o = c->o;
    if (m < 2 || nsteps == 0) {
        for (uint32_t i = 0; i < m; i++)
            post[i] = pre ? pre[i] : NET_NONE;
        return;
    }
    uint32_t ns = seg > c->slice ? (uint32_t)cdiv(seg, c->slice) : 1;
    uint32_t *qp = fs_xmalloc(m * sizeof *qp);
    uint32_t *relay = via ? fs_xmalloc(m * sizeof *relay) : NULL;
    for (uint32_t i = 0; i < m; i++) {
        bool pxn = via && via[i] != NET_NONE;
        qp[i] = job_qp(c->n, c->j, ch, mem[i], pxn ? via[i] : mem[(i + 1) % m]);
        if (via) relay[i] = pxn ? job_qp(c->n, c->j, ch, via[i], mem[(i + 1) % m]) : NET_NONE;
    }
    const struct coll_state *cs = c->n->coll_state;
    FS_ASSERT(!relay || !cs->stored_rings, "PXN relays in a stored ring (tests only)");
    if (!cs->stored_rings) { /* generated as they run (coll.c) */
        /* NCCL's loop (coll_int.h RING_CHUNK_STEPS): Simple moves a chunk
         * of 4 slots per rank and step in a loop; a message is one slot,
         * NCCL_STEPS of them in flight. LL and LL128 move one slot per step
         * and loop, but forward every 8- or 128-byte line as it arrives (its
         * flag travels with it): a step is cut through, where a message here
         * is stored and forwarded, so they keep 4 slots per step and loop,
         * which pipeline as the lines do */
        uint32_t chunk = RING_CHUNK_STEPS, win = NCCL_STEPS;
        if (c->proto == PROTO_SIMPLE && cs->ring_nccl_slices) {
            /* tests only: as NCCL's proxy sends them, a message per slice
             * of 2 slots: each loop's chunk (up to 4 slots per rank and
             * step; a short last loop cuts its remainder over the ranks,
             * runRing's chunkCount) in 2 slices of at least 1/32 of 2 slots
             * (prims_simple.h sliceSize), 4 slices in flight; the slices
             * share the bytes evenly (docs/model.md "Chunking as NCCL
             * does": with NCCL's per-step costs on every message this
             * needs item 3's calibration first) */
            uint64_t cmax = RING_CHUNK_STEPS * c->slice, smin = RING_SLICE_STEPS * c->slice / 32;
            uint64_t loops = cdiv(seg, cmax), per = cdiv(seg, loops);
            chunk = per > smin ? 2 : 1;
            ns = (uint32_t)(loops * chunk);
            win = NCCL_STEPS / RING_SLICE_STEPS;
        }
        op_ring(o, m, ns, nsteps, nreduce, seg, qp, pre, post);
        if (relay) op_ring_relay(o, relay);
        free(relay);
        struct ring_seg *r = &o->segs[o->nsegs - 1];
        r->chunk = chunk;
        r->win = win;
        if (cs->ring_on_arrival) { /* tests only: the schedule stored rings have */
            r->chunk = ns;
            r->consume = 0;
        }
        free(qp);
        return;
    }
    /* tests only: the step-major schedule with slots freed on arrival
     * (coll_test_ring_on_arrival) as stored transfers and edges */
    uint32_t base = o->nx;
    for (uint32_t k = 0; k < nsteps; k++)
        for (uint32_t s = 0; s < ns; s++)
            for (uint32_t i = 0; i < m; i++) {
                uint32_t x = op_xfer(o, XF_MSG, qp[i], part(seg, s, ns));
                o->x[x].reduce = k < nreduce; /* after op_xfer: it may move o->x */
            }
#define RID(k, s, i) (base + (((k)*ns + (s)) * m + (i)))
    for (uint32_t k = 0; k < nsteps; k++)
        for (uint32_t s = 0; s < ns; s++)
            for (uint32_t i = 0; i < m; i++) {
                uint32_t id = RID(k, s, i);
                if (pre) op_dep(o, pre[i], id);
                if (k > 0) op_dep(o, RID(k - 1, s, (i + m - 1) % m), id);
                uint32_t seq = k * ns + s;
                if (seq >= NCCL_STEPS) {
                    uint32_t e = seq - NCCL_STEPS;
                    op_dep(o, RID(e / ns, e % ns, i), id);
                }
            }
    for (uint32_t i = 0; i < m; i++) {
        uint32_t v = vnode(c);
        if (pre) op_dep(o, pre[i], v);
        for (uint32_t k = 0; k < nsteps; k++)
            for (uint32_t s = 0; s < ns; s++)
                op_dep(o, RID(k, s, (i + m - 1) % m), v);
        post[i] = v;
    }
#undef RID
    free(qp);
}

/* ---- NCCL's ring on multi-GPU hosts ----
 * NCCL builds its rings from the node's topology (graph/search.cc): on a
 * host with one NIC per GPU each channel's ring enters the host from NIC n
 * at its GPU, visits every GPU of the host over NVLink, and leaves through
 * the same NIC n ("NET n -> GPU a -> .. -> GPU x -> NET n", search.cc's
 * pattern list): the search first asks for the same rail in and out
 * (crossNic 0, ncclTopoSearchCheckNet) and raises the GPU-to-NIC path type
 * up to PXN before it would allow another NIC (ncclTopoCompute), so the
 * last GPU x reaches NIC n over NVLink through GPU a, whose proxy sends it
 * (PXN, NCCL >= 2.12). The channels found, one per NIC, are duplicated
 * (ncclTopoDupChannels): two channels per NIC (nccl issue 320's listings on
 * DGX A100; COLL_CHANNELS_DEFAULT). Every network hop stays on one rail.
 * fabsim: channel ch enters every host at GPU r = ch mod G, visits r + 1,
 * .., r + G - 1 and the last one's send is relayed through GPU r (coll.c
 * op_ring_relay: an NVLink hop, then GPU r's NIC). With the workload's
 * `pxn: false` (NCCL_PXN_DISABLE=1) no GPU reaches another's NIC and NCCL
 * crosses rails (crossNic 2: channels in pairs); fabsim's ring then enters
 * host h at GPU r(h) and leaves from GPU r(h+1), whose own NIC is on the
 * next host's entry rail, r alternating between rails b and b + 1 (b + 2
 * closes an odd number of hosts). docs/model.md "Algorithms",
 * docs/validation.md G4, G6. */
bool algo_node_aware(const struct job *j) {
    return j->gpus > 1 && j->nnodes > 1 && j->nranks == j->gpus * j->nnodes;
}

/* Without PXN: the GPU (rail) channel base b enters host h at. */
static uint32_t node_ring_rail(uint32_t b, uint32_t G, uint32_t H, uint32_t h) {
    h %= H;
    if (H % 2 && G > 2 && h == H - 1) return (b + 2) % G;
    return (b + h % 2) % G; /* G = 2, H odd: the ring's last hop changes rail */
}

/* Channel ch's ring as rank indices (rank h * G + g is GPU g of host h);
 * with PXN, via[k]: the rank member k's send is relayed through, or
 * NET_NONE (without PXN via is not written). */
static void node_ring_order(const struct job *j, uint32_t ch, uint32_t *mem, uint32_t *via) {
    uint32_t G = j->gpus, H = j->nnodes, b = ch % G, k = 0;
    for (uint32_t h = 0; h < H; h++) {
        if (j->w->pxn) { /* in and out on rail b */
            for (uint32_t t = 0; t < G; t++) {
                via[k] = t + 1 == G ? h * G + b : NET_NONE;
                mem[k++] = h * G + (b + t) % G;
            }
            continue;
        }
        uint32_t in = node_ring_rail(b, G, H, h), out = node_ring_rail(b, G, H, h + 1);
        mem[k++] = h * G + in;
        for (uint32_t g = 0; g < G; g++)
            if (g != in && g != out) mem[k++] = h * G + g;
        if (out != in) mem[k++] = h * G + out;
    }
}

/* NCCL's binary tree (ncclGetBtree): parent of rank r among n, -1 for root 0. */
static int btree_parent(int r, int n) {
    if (r == 0) return -1;
    int bit = 1;
    while (!(bit & r))
        bit <<= 1;
    int up = (r ^ bit) | (bit << 1);
    if (up >= n) up = r ^ bit;
    return up;
}

/* ncclGetDtree: tree 1 mirrors tree 0 for an even count, shifts it by one for odd. */
static int dtree_parent(int t, int r, int n) {
    if (t == 0) return btree_parent(r, n);
    if (n % 2 == 0) {
        int p = btree_parent(n - 1 - r, n);
        return p < 0 ? -1 : n - 1 - p;
    }
    int p = btree_parent((r - 1 + n) % n, n);
    return p < 0 ? -1 : (p + 1) % n;
}

/* NCCL's tree on multi-GPU hosts (algo_node_aware's jobs): a chain through
 * the host's GPUs over NVLink, and the double binary tree (ncclGetDtree)
 * between hosts, whose hops go from the head GPU of one host to the head
 * GPU of another — the same GPU index, one rail. Channel ch uses tree ch % 2
 * and heads on rail (ch / 2) % G, so that 2G channels spread the network
 * hops evenly over the NICs, as the node-aware ring does. The chain runs
 * head, head + 1, ... (mod G): each GPU's parent is the one before it. */
static int node_tree_parent(const struct job *j, uint32_t ch, uint32_t i) {
    uint32_t G = j->gpus, H = j->nnodes, h = i / G, g = i % G, r = (ch / 2) % G;
    uint32_t k = (g + G - r) % G; /* place in the host's chain */
    if (k > 0) return (int)(h * G + (r + k - 1) % G);
    int p = dtree_parent((int)(ch % 2), (int)h, (int)H);
    return p < 0 ? -1 : (int)((uint32_t)p * G + r);
}

/* The dependencies of a tree AllReduce as NCCL's runTreeSplit and its net
 * transport have them. Every connection has NCCL_STEPS slots on each side:
 * the sender's GPU writes step s into its send buffer once its send of step
 * s - NCCL_STEPS has completed, and the proxy puts step s on the wire once
 * the receiver's proxy has posted the receive for it, i.e. once the
 * receiving GPU has consumed step s - NCCL_STEPS (a receive slot is freed
 * when the primitive that reads it is done, not when the data arrived).
 * A rank's reduce-up step s (recvReduceSend, J) runs when its children's
 * step s has arrived and consumes it; its broadcast-down step s
 * (recvCopySend, D) runs when step s came from the parent (at the root: the
 * reduced step; the root's recvReduceCopySend consumes its children's step
 * there) and writes it for both children at once. Each runs its steps in
 * order. up0/dn0: transfer s * m + i is rank i's send up / the send down to
 * rank i (the root's are join points). */
static void tree_allreduce_deps(struct ctx *c, uint32_t m, uint32_t ns, uint32_t root,
                                const int *par, uint32_t up0, uint32_t dn0, const uint32_t *pre) {
    struct op *o = c->o;
    /* children as lists: first[i], then next[k] (NET_NONE ends) */
    uint32_t *first = fs_xmalloc(2 * m * sizeof *first), *next = first + m;
    for (uint32_t i = 0; i < m; i++)
        first[i] = next[i] = NET_NONE;
    for (uint32_t i = m; i-- > 0;)
        if (i != root) {
            next[i] = first[par[i]];
            first[par[i]] = i;
        }
    uint32_t J0 = o->nx; /* J0 + s * m + i: rank i's reduce-up step s has run */
    for (uint32_t k = 0; k < ns * m; k++)
        vnode(c);
    uint32_t D0 = o->nx; /* D0 + s * m + i: rank i's broadcast-down step s has run */
    for (uint32_t k = 0; k < ns * m; k++)
        vnode(c);
    const uint32_t W = NCCL_STEPS;
    for (uint32_t s = 0; s < ns; s++)
        for (uint32_t i = 0; i < m; i++) {
            uint32_t u = up0 + s * m + i, d = dn0 + s * m + i, J = J0 + s * m + i,
                     D = D0 + s * m + i;
            if (pre) op_dep(o, pre[i], J);
            if (s > 0) op_dep(o, J - m, J);
            op_dep(o, J, u);
            if (i != root && s >= W) {
                uint32_t p = (uint32_t)par[i];
                op_dep(o, u - W * m, J);                               /* own send slot */
                op_dep(o, (p == root ? D0 : J0) + (s - W) * m + p, u); /* parent's slot */
            }
            if (i == root) op_dep(o, u, d); /* the root's result: its reduced step */
            if (first[i] == NET_NONE) continue;
            op_dep(o, i == root ? u : d, D);
            if (s > 0) op_dep(o, D - m, D);
            for (uint32_t k = first[i]; k != NET_NONE; k = next[k]) {
                uint32_t dk = dn0 + s * m + k;
                op_dep(o, D, dk);
                if (s < W) continue;
                op_dep(o, dk - W * m, D);                                      /* own send slot */
                if (first[k] != NET_NONE) op_dep(o, D0 + (s - W) * m + k, dk); /* child's slot */
            }
        }
    for (uint32_t s = 0; s < ns; s++)
        for (uint32_t i = 0; i < m; i++)
            if (i != root) op_dep(o, up0 + s * m + i, J0 + s * m + (uint32_t)par[i]);
    free(first);
}

static void tree_chan(struct ctx *c, uint32_t m, uint32_t ch, uint64_t bytes, bool reduce,
                      const uint32_t *pre, uint32_t *post) {
    struct op *o = c->o;
    int t = (int)(ch % 2);
    uint32_t ns = bytes > c->slice ? (uint32_t)cdiv(bytes, c->slice) : 1;
    int *par = fs_xmalloc(m * sizeof *par);
    uint32_t root = 0;
    /* node-aware for AllReduce (a Broadcast's tree is rooted at rank 0) */
    bool node = reduce && algo_node_aware(c->j);
    for (uint32_t i = 0; i < m; i++) {
        par[i] = node ? node_tree_parent(c->j, ch, i) : dtree_parent(t, (int)i, (int)m);
        if (par[i] < 0) root = i;
    }
    uint32_t up0 = o->nx;
    if (reduce)
        for (uint32_t s = 0; s < ns; s++)
            for (uint32_t i = 0; i < m; i++) {
                uint32_t x = op_xfer(
                    o, XF_MSG, i == root ? NET_NONE : job_qp(c->n, c->j, ch, i, (uint32_t)par[i]),
                    part(bytes, s, ns));
                o->x[x].reduce = 1;
            }
    uint32_t dn0 = o->nx;
    for (uint32_t s = 0; s < ns; s++)
        for (uint32_t i = 0; i < m; i++)
            op_xfer(o, XF_MSG, i == root ? NET_NONE : job_qp(c->n, c->j, ch, (uint32_t)par[i], i),
                    part(bytes, s, ns));
    /* the root's slots are placeholders: make them join points */
    for (uint32_t s = 0; s < ns; s++) {
        if (reduce) o->x[up0 + s * m + root].kind = XF_VIRTUAL;
        o->x[dn0 + s * m + root].kind = XF_VIRTUAL;
    }
    if (reduce) {
        tree_allreduce_deps(c, m, ns, root, par, up0, dn0, pre);
    } else {
        for (uint32_t s = 0; s < ns; s++)
            for (uint32_t i = 0; i < m; i++) {
                uint32_t d = dn0 + s * m + i;
                if (i == root) {
                    op_dep(o, pre ? pre[i] : NET_NONE, d);
                    continue;
                }
                op_dep(o, dn0 + s * m + (uint32_t)par[i], d);
                if (s >= NCCL_STEPS) op_dep(o, dn0 + (s - NCCL_STEPS) * m + i, d);
            }
    }
    for (uint32_t i = 0; i < m; i++) {
        uint32_t v = vnode(c);
        if (pre) op_dep(o, pre[i], v);
        for (uint32_t s = 0; s < ns; s++)
            op_dep(o, dn0 + s * m + i, v);
        post[i] = v;
    }
    free(par);
}

static uint32_t floor_pow2(uint32_t v) {
    uint32_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

/* Rabenseifner on one channel: rs/ag select the halves; rd: recursive
 * doubling instead (whole buffer every step, reduced on receipt). */
static void hd_chan(struct ctx *c, uint32_t m, uint32_t ch, uint64_t bytes, bool rs, bool ag,
                    bool rd, const uint32_t *pre, uint32_t *post) {
    struct op *o = c->o;
    struct net *n = c->n;
    uint32_t p2 = floor_pow2(m), L = 0;
    while ((1u << L) < p2)
        L++;
    uint32_t *st = fs_xmalloc(m * sizeof *st);
    for (uint32_t i = 0; i < m; i++)
        st[i] = pre ? pre[i] : NET_NONE;
    /* fold the extra ranks into their partners */
    for (uint32_t i = p2; i < m; i++) {
        uint32_t x = op_xfer(o, XF_MSG, job_qp(n, c->j, ch, i, i - p2), bytes);
        o->x[x].reduce = rs || rd;
        op_dep(o, st[i], x);
        uint32_t v = vnode(c);
        op_dep(o, st[i - p2], v);
        op_dep(o, x, v);
        st[i - p2] = v;
    }
    uint32_t *x = fs_xmalloc(p2 * sizeof *x);
    for (int phase = 0; phase < 2; phase++) {
        if (rd ? phase == 1 : (phase == 0 && !rs) || (phase == 1 && !ag)) continue;
        for (uint32_t k = 0; k < L; k++) {
            uint32_t d = phase == 0 && !rd ? p2 >> (k + 1) : 1u << k;
            uint64_t b = rd           ? bytes
                         : phase == 0 ? cdiv(bytes, 1ull << (k + 1))
                                      : cdiv(bytes, p2) << k;
            for (uint32_t i = 0; i < p2; i++) {
                x[i] = op_xfer(o, XF_MSG, job_qp(n, c->j, ch, i, i ^ d), b);
                o->x[x[i]].reduce = phase == 0;
                op_dep(o, st[i], x[i]);
            }
            for (uint32_t i = 0; i < p2; i++) {
                uint32_t v = vnode(c);
                op_dep(o, st[i], v);
                op_dep(o, x[i ^ d], v);
                st[i] = v;
            }
        }
    }
    /* give the result back to the folded ranks */
    for (uint32_t i = p2; i < m; i++) {
        uint32_t y = op_xfer(o, XF_MSG, job_qp(n, c->j, ch, i - p2, i), bytes);
        op_dep(o, st[i - p2], y);
        uint32_t v = vnode(c);
        op_dep(o, st[i], v);
        op_dep(o, y, v);
        st[i] = v;
    }
    memcpy(post, st, m * sizeof *post);
    free(x);
    free(st);
}

/* Broadcast from rank 0 down a chain (NCCL's ring broadcast), pipelined. */
static void chain_chan(struct ctx *c, uint32_t m, uint32_t ch, uint64_t bytes, const uint32_t *pre,
                       uint32_t *post) {
    struct op *o = c->o;
    uint32_t ns = bytes > c->slice ? (uint32_t)cdiv(bytes, c->slice) : 1;
    uint32_t base = o->nx;
    for (uint32_t s = 0; s < ns; s++)
        for (uint32_t i = 0; i + 1 < m; i++)
            op_xfer(o, XF_MSG, job_qp(c->n, c->j, ch, i, i + 1), part(bytes, s, ns));
#define CID(s, i) (base + (s) * (m - 1) + (i))
    for (uint32_t s = 0; s < ns; s++)
        for (uint32_t i = 0; i + 1 < m; i++) {
            if (pre) op_dep(o, pre[i], CID(s, i));
            if (i > 0) op_dep(o, CID(s, i - 1), CID(s, i));
            if (s >= NCCL_STEPS) op_dep(o, CID(s - NCCL_STEPS, i), CID(s, i));
        }
    for (uint32_t i = 0; i < m; i++) {
        uint32_t v = vnode(c);
        if (pre) op_dep(o, pre[i], v);
        if (i > 0)
            for (uint32_t s = 0; s < ns; s++)
                op_dep(o, CID(s, i - 1), v);
        post[i] = v;
    }
#undef CID
}

static void hier_chan(struct ctx *c, uint32_t ch, uint64_t bytes, const uint32_t *pre,
                      uint32_t *post) {
    struct job *j = c->j;
    uint32_t G = j->gpus, H = j->nnodes, m = j->nranks;
    uint32_t *mem = fs_xmalloc((G > H ? G : H) * sizeof *mem);
    uint32_t *a = fs_xmalloc(m * sizeof *a), *b = fs_xmalloc(m * sizeof *b);
    uint32_t *pa = fs_xmalloc((G > H ? G : H) * sizeof *pa),
             *pb = fs_xmalloc((G > H ? G : H) * sizeof *pb);
    uint64_t shard = cdiv(bytes, G);
    /* 1: reduce-scatter inside each host (NVLink) */
    for (uint32_t h = 0; h < H; h++) {
        for (uint32_t g = 0; g < G; g++) {
            mem[g] = h * G + g;
            pa[g] = pre ? pre[h * G + g] : NET_NONE;
        }
        ring_steps(c, mem, NULL, G, ch, G - 1, G - 1, shard, pa, pb);
        for (uint32_t g = 0; g < G; g++)
            a[h * G + g] = pb[g];
    }
    /* 2: AllReduce of each shard across hosts, one ring per rail, or with
     * SHARP (j->rail_sess) one in-network reduction per rail: H consecutive
     * member transfers of the whole shard (innet/ matches them by position) */
    for (uint32_t g = 0; g < G && j->rail_sess; g++)
        for (uint32_t h = 0; h < H; h++) {
            uint32_t x = op_xfer(c->o, XF_INNET, g << 16 | h, shard);
            op_dep(c->o, a[h * G + g], x);
            b[h * G + g] = x;
        }
    for (uint32_t g = 0; g < G && !j->rail_sess; g++) {
        for (uint32_t h = 0; h < H; h++) {
            mem[h] = h * G + g;
            pa[h] = a[h * G + g];
        }
        ring_steps(c, mem, NULL, H, ch, 2 * (H - 1), H - 1, cdiv(shard, H), pa, pb);
        for (uint32_t h = 0; h < H; h++)
            b[h * G + g] = pb[h];
    }
    /* 3: all-gather inside each host */
    for (uint32_t h = 0; h < H; h++) {
        for (uint32_t g = 0; g < G; g++) {
            mem[g] = h * G + g;
            pa[g] = b[h * G + g];
        }
        ring_steps(c, mem, NULL, G, ch, G - 1, 0, shard, pa, pb);
        for (uint32_t g = 0; g < G; g++)
            post[h * G + g] = pb[g];
    }
    free(mem);
    free(a);
    free(b);
    free(pa);
    free(pb);
}

/* The hierarchical schedule cut into pieces of HIER_PIECE_SLICES slices per
 * rank and NVLink step, all posted at once: a piece's phases queue on the
 * same connections in piece order, so piece k crosses the network while
 * piece k+1 is reduced inside the hosts (NCCL pipelines its node-aware ring
 * and CollNet chunk by chunk the same way; docs/validation.md rows G4, G6). */
#define HIER_PIECE_SLICES 1u
static void hier_pipelined(struct ctx *c, uint32_t ch, uint64_t bytes, const uint32_t *pre,
                           uint32_t *post) {
    uint32_t m = c->j->nranks;
    uint64_t piece = (uint64_t)HIER_PIECE_SLICES * c->slice * c->j->gpus;
    uint32_t k = bytes > piece ? (uint32_t)cdiv(bytes, piece) : 1;
    if (k == 1) {
        hier_chan(c, ch, bytes, pre, post);
        return;
    }
    uint32_t *pc = fs_xmalloc(m * sizeof *pc);
    for (uint32_t i = 0; i < m; i++) {
        post[i] = vnode(c);
        if (pre) op_dep(c->o, pre[i], post[i]);
    }
    for (uint32_t p = 0; p < k; p++) {
        hier_chan(c, ch, part(bytes, p, k), pre, pc);
        for (uint32_t i = 0; i < m; i++)
            op_dep(c->o, pc[i], post[i]);
    }
    free(pc);
}

void algo_build(struct net *n, struct job *j, struct op *o, int opkind, enum coll_algo a,
                uint64_t bytes, const uint32_t *pre, uint32_t *post) {
    uint8_t proto = algo_proto(n, j, opkind, a, bytes);
    uint64_t slice = j->slice_bytes;
    if (proto == PROTO_LL && slice > PROTO_LL_SLICE) slice = PROTO_LL_SLICE;
    struct ctx c = {n, j, o, slice, proto};
    uint32_t m = j->nranks, first = o->nx, firstseg = o->nsegs;
    if ((a == ALGO_SHARP && !j->rail_sess) || a == ALGO_NVLS) {
        for (uint32_t i = 0; i < m; i++) {
            uint32_t x = op_xfer(o, XF_INNET, i, bytes);
            if (pre) op_dep(o, pre[i], x);
            post[i] = x;
        }
        return;
    }
    uint32_t *mem = fs_xmalloc(m * sizeof *mem), *pc = fs_xmalloc(m * sizeof *pc),
             *via = fs_xmalloc(m * sizeof *via);
    for (uint32_t i = 0; i < m; i++) {
        mem[i] = i;
        post[i] = vnode(&c);
        if (pre) op_dep(o, pre[i], post[i]);
    }
    uint32_t nch = j->channels;
    for (uint32_t ch = 0; ch < nch; ch++) {
        uint64_t sc = part(bytes, ch, nch);
        switch (a) {
        case ALGO_TREE:
            tree_chan(&c, m, ch, sc, opkind == WL_ALLREDUCE, pre, pc);
            break;
        case ALGO_HALVING_DOUBLING:
            hd_chan(&c, m, ch, sc, opkind != WL_ALLGATHER, opkind != WL_REDUCESCATTER,
                    opkind == WL_ALLREDUCE && bytes < HD_RD_BELOW_BYTES, pre, pc);
            break;
        case ALGO_HIERARCHICAL:
        case ALGO_SHARP: /* multi-GPU hosts: NVLink + SHARP per rail (rail_sess) */
            hier_pipelined(&c, ch, sc, pre, pc);
            break;
        default:
            if (opkind == WL_BROADCAST) {
                chain_chan(&c, m, ch, sc, pre, pc);
                break;
            }
            bool node = algo_node_aware(j);
            if (node) node_ring_order(j, ch, mem, via);
            ring_steps(&c, mem, node && j->w->pxn ? via : NULL, m, ch,
                       opkind == WL_ALLREDUCE ? 2 * (m - 1) : m - 1,
                       opkind == WL_ALLGATHER ? 0 : m - 1, cdiv(sc, m), pre, pc);
            break;
        }
        for (uint32_t i = 0; i < m; i++)
            op_dep(o, pc[i], post[i]);
    }
    for (uint32_t i = first; i < o->nx; i++)
        if (o->x[i].kind == XF_MSG) o->x[i].proto = proto;
    for (uint32_t i = firstseg; i < o->nsegs; i++)
        o->segs[i].proto = proto;
    free(mem);
    free(pc);
    free(via);
}

/* ---- NCCL's alpha-beta model (tuning.cc, Simple protocol; docs/sources.md B) ---- */

double coll_nccl_time_us(int op, int algo, uint64_t bytes, uint32_t nranks, uint32_t nnodes,
                         uint64_t bw_bps, uint64_t nvlink_bps) {
    const double base_simple = 8.4;              /* baseLat Tree/Ring, Simple */
    const double net_ring = 14, net_tree = 14;   /* hwLat NET Simple */
    const double nvl_ring = 3.4, nvl_tree = 4.0; /* hwLat NVLINK Simple */
    const double net_collnet = 31, nvls_lat = 25, nvls_net = 18;
    double B = (double)bw_bps / 8e9; /* GB/s per rank (busBw of the NIC) */
    double S = (double)bytes;
    uint32_t n = nranks, N = nnodes ? nnodes : 1, ppn = n / N;
    double lat, algbw;
    switch (algo) {
    case ALGO_RING: {
        double nsteps = op == WL_ALLREDUCE ? 2.0 * (n - 1) : (double)(n - 1);
        double ninter = op == WL_ALLREDUCE ? 2.0 * (N - 1) : (double)(N - 1);
        lat = base_simple + (nsteps - ninter) * nvl_ring + ninter * net_ring;
        algbw = B * n / nsteps;
        break;
    }
    case ALGO_TREE:
        if (op != WL_ALLREDUCE) return INFINITY;
        lat = base_simple + 2.0 * ((ppn - 1) * nvl_tree + log2((double)N) * net_tree);
        algbw = B * 0.92 * 0.5;
        /* One GPU per host: NCCL's tree graph has pattern TREE ("all NIC
         * traffic going to/from the same GPU", graph.h; search.cc forces it
         * when a node has one GPU) and tuning.cc takes a further 0.85 off
         * the tree's bandwidth (comm->maxTreePattern == TREE, NCCL >= 2.18.3). */
        if (ppn == 1) algbw *= 0.85;
        break;
    case ALGO_SHARP: /* CollNet Direct: each rank sends S, receives S */
        if (op != WL_ALLREDUCE) return INFINITY;
        lat = base_simple + 2.0 * ((ppn > 1 ? 1 : 0) * nvl_tree + 0.4 * (ppn - 1)) + net_collnet;
        algbw = B;
        break;
    case ALGO_NVLS:
        if (op != WL_ALLREDUCE || !nvlink_bps) return INFINITY;
        lat = nvls_lat + (N > 1 ? nvls_net : 0);
        algbw = (double)nvlink_bps / 8e9 * 0.85; /* nvlsEfficiency Hopper */
        break;
    default:
        return INFINITY;
    }
    return lat + S / (1000.0 * algbw);
}

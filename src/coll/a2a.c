/* src/coll/a2a.c
 *
 * AllToAll in the collective engine (nccl-tests alltoall_perf, Chakra
 * ALL_TO_ALL) as NCCL runs it: NCCL has no alltoall algorithm of its own;
 * it is a group of send/recv pairs (NCCL docs, "Point-to-point
 * communication"), which NCCL runs in its p2p schedule (init.cc
 * ncclP2pSchedule, NCCL 2.28; a2a_order below): node by node, so that the
 * peers of one round sit on one node and PXN spreads their data over that
 * node's NICs, a few peers at a time, each peer's data over NCCL_NCHANNELS_PER_NET_PEER
 * (2) channels in chunks of NCCL_P2P_NET_CHUNKSIZE (128 KiB), at most
 * NCCL_STEPS (8) chunks of a connection in flight. The rank's own block
 * stays local.
 *
 * PXN (NCCL >= 2.12, on by default: NCCL_PXN_DISABLE=0): on hosts with one
 * NIC per GPU, a send to a GPU of another host whose NIC is on another rail
 * goes over NVLink to the local GPU on the destination's rail first, and
 * leaves through that GPU's NIC, so every network transfer stays on one
 * rail (no spine crossing, no N:1 incast at the receiving NIC). The relay's
 * network send of a chunk waits for the chunk's NVLink hop.
 */
#include "coll/coll_int.h"
#include "core/mem.h"
#include "net/net.h"

#include <stdlib.h>

/* NCCL defaults (sources.md B, conf. B): channels per network peer, the
 * network p2p chunk, and how many peers a rank works on at once (32 p2p
 * channels / 2 per peer). */
#define A2A_CH_PER_PEER 2u
#define A2A_CHUNK (128u << 10)
#define A2A_PEERS_AT_ONCE 16u

/* Part i of k of `total`: the parts differ by at most 1 and sum to total. */
static uint64_t part(uint64_t total, uint64_t i, uint64_t k) {
    return total * (i + 1) / k - total * i / k;
}

static uint32_t pow2_up(uint32_t v) {
    uint32_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

static uint32_t gcd32(uint32_t a, uint32_t b) {
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* NCCL's p2p schedule (init.cc ncclP2pSchedule, NCCL 2.28.7, read at
 * 5067397c): the ranks are cut into groups of NCCL_P2P_SCHEDULE_GROUP_SIZE
 * (NCCL_MAX_DEV_WORK_P2P_PER_BATCH = 8) local ranks of one node (the gcd
 * with the node's GPU count where it does not divide it; one group per node
 * on a single node); round (group delta, delta) sends to local rank (local
 * + delta) mod groupSize of group (group + group delta), the group deltas in
 * the quadratic order (x^2 + x) / 2 mod pow2Up(nGroups) with those >=
 * nGroups left out (0, 1, 3, 6, 2, 7, 5, 4 for 8). order[k], k = 0 .. m-1:
 * the peer rank s sends to in round k (order[0] = s). Ranks are node-major
 * (rank h * G + g is GPU g of node h); G = 1: one rank per node. */
static void a2a_order(uint32_t m, uint32_t G, uint32_t s, uint32_t *order) {
    uint32_t H = m / G, gs = gcd32(H > 1 ? 8 : G, G);
    uint32_t nG = m / gs, P = pow2_up(nG), group = s / gs, local = s % gs, k = 0;
    uint32_t round = 0, delta = 0;
    do {
        if (delta < nG) {
            uint32_t sg = (group + delta) % nG;
            for (uint32_t d = 0; d < gs; d++)
                order[k++] = sg * gs + (local + d) % gs;
        }
        round++;
        delta = (delta + round) & (P - 1);
    } while (round != P);
}

/* The connection id of a relayed hop: its own QPs per original source (NCCL
 * keeps a PXN connection per peer pair). */
static uint32_t pxn_channel(uint32_t ch, uint32_t src) {
    return ch | (src + 1) << 8;
}

/* The all-to-all of a2a_build (mat NULL: every rank sends bytes/m to every
 * rank) or a2av_build (mat[s * m + d] bytes from rank s to rank d). */
static void build(struct net *n, struct job *j, struct op *o, uint64_t bytes, const uint64_t *mat,
                  const uint32_t *pre, uint32_t *post) {
    uint32_t m = j->nranks, G = j->gpus;
    /* PXN applies where every host has all its GPUs in the job, one NIC each */
    bool pxn = j->w->pxn && algo_node_aware(j);
    for (uint32_t i = 0; i < m; i++) {
        post[i] = op_xfer(o, XF_VIRTUAL, NET_NONE, 0);
        if (pre) op_dep(o, pre[i], post[i]);
    }
    /* per rank and round: a join point done when the round's sends are */
    uint32_t *round_done = fs_xmalloc((size_t)m * m * sizeof *round_done);
    uint32_t *order = fs_xmalloc((size_t)m * sizeof *order);
    /* NCCL's node-aware schedule where every host's GPUs are all in the
     * job, and one rank per host; otherwise (some GPUs of a host) the flat
     * schedule of one node, round d to rank + d */
    bool node = algo_node_aware(j), grouped = node || G <= 1;
    for (uint32_t s = 0; s < m; s++) {
        if (grouped) a2a_order(m, node ? G : 1, s, order);
        for (uint32_t d = 1; d < m; d++) {
            uint32_t v = op_xfer(o, XF_VIRTUAL, NET_NONE, 0);
            round_done[s * m + d] = v;
            if (pre) op_dep(o, pre[s], v);
            op_dep(o, v, post[s]); /* the sends complete the rank's part */
            /* at most A2A_PEERS_AT_ONCE peers at once: round d starts when
             * round d - A2A_PEERS_AT_ONCE has sent everything */
            uint32_t gate = d > A2A_PEERS_AT_ONCE ? round_done[s * m + d - A2A_PEERS_AT_ONCE]
                                                  : (pre ? pre[s] : NET_NONE);
            uint32_t dst = grouped ? order[d] : (s + d) % m;
            uint64_t block = mat ? mat[(size_t)s * m + dst] : part(bytes, dst, m);
            bool relay = pxn && s / G != dst / G && s % G != dst % G;
            uint32_t r = relay ? s / G * G + dst % G : s; /* the GPU on dst's rail */
            for (uint32_t ch = 0; ch < A2A_CH_PER_PEER; ch++) {
                uint64_t b = part(block, ch, A2A_CH_PER_PEER);
                uint32_t nc = b ? (uint32_t)((b + A2A_CHUNK - 1) / A2A_CHUNK) : 0;
                uint32_t q1 = job_qp(n, j, ch, s, relay ? r : dst),
                         q2 = relay ? job_qp(n, j, pxn_channel(ch, s % G), r, dst) : NET_NONE;
                uint32_t base1 = o->nx;
                for (uint32_t k = 0; k < nc; k++) {
                    uint32_t x = op_xfer(o, XF_MSG, q1, part(b, k, nc));
                    op_dep(o, gate, x);
                    if (k >= NCCL_STEPS) op_dep(o, base1 + (k - NCCL_STEPS) * (relay ? 2 : 1), x);
                    uint32_t last = x;
                    if (relay) { /* the relay forwards the chunk on its rail */
                        uint32_t y = op_xfer(o, XF_MSG, q2, part(b, k, nc));
                        op_dep(o, x, y);
                        if (k >= NCCL_STEPS) op_dep(o, base1 + (k - NCCL_STEPS) * 2 + 1, y);
                        last = y;
                    }
                    op_dep(o, last, v);
                    op_dep(o, last, post[dst]);
                }
            }
        }
    }
    free(order);
    free(round_done);
}

void a2a_build(struct net *n, struct job *j, struct op *o, uint64_t bytes, const uint32_t *pre,
               uint32_t *post) {
    build(n, j, o, bytes, NULL, pre, post);
}

void a2av_build(struct net *n, struct job *j, struct op *o, const uint64_t *mat,
                const uint32_t *pre, uint32_t *post) {
    build(n, j, o, 0, mat, pre, post);
}

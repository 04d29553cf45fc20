/* src/model/part.c
 *
 * Splits the topology over ranks along its structure. Units that must stay
 * on one rank are joined first: a host with the switch it hangs from (a
 * multi-GPU host's GPUs with their NVSwitch, never with their rail leaves),
 * and switches below the top tier with their neighbours below the top tier
 * (a fat tree's pod: edges and aggregations; a leaf-spine's leaf with its
 * hosts). The top tier (spines, cores) is cut: its switches are spread over
 * the ranks one by one. Units go to ranks in node order, in contiguous runs of
 * about equal weight (hosts and switches), so that neighbouring pods share a
 * rank and the cut links are the top tier's links. A ring (one tier, switch to
 * switch) is cut between its switches.
 */
#include "model/part.h"

#include "core/mem.h"
#include "net/net.h"

#include <stdlib.h>

static uint32_t find(uint32_t *up, uint32_t a) {
    while (up[a] != a) {
        up[a] = up[up[a]];
        a = up[a];
    }
    return a;
}

static void join(uint32_t *up, uint32_t a, uint32_t b) {
    a = find(up, a);
    b = find(up, b);
    if (a == b) return;
    if (a < b)
        up[b] = a;
    else
        up[a] = b;
}

/* The switch a host belongs with: its NVSwitch when it has one, else the
 * switch on its first port. */
static uint32_t anchor(const struct net *n, uint32_t host) {
    const struct node *h = &n->nodes[host];
    uint32_t first = NET_NONE;
    for (uint32_t i = 0; i < h->nports; i++) {
        uint32_t peer = n->ports[n->ports[h->first_port + i].peer].node;
        if (n->nodes[peer].kind != NODE_SWITCH) continue;
        if (n->nodes[peer].role == ROLE_NVSWITCH) return peer;
        if (first == NET_NONE) first = peer;
    }
    return first;
}

void part_build(const struct net *n, uint32_t nranks, uint16_t *owner) {
    uint32_t N = n->nnodes;
    uint32_t *up = fs_xmalloc((N + 1) * sizeof *up);
    for (uint32_t i = 0; i < N; i++)
        up[i] = i;
    /* The top tier: the highest level among fabric switches, when there are
     * at least two levels of them; a one-tier fabric (single switch, ring)
     * has none and is cut between switches instead. */
    uint8_t lo = 255, hi = 0;
    for (uint32_t i = 0; i < N; i++) {
        const struct node *v = &n->nodes[i];
        if (v->kind != NODE_SWITCH || v->role == ROLE_NVSWITCH) continue;
        if (v->level < lo) lo = v->level;
        if (v->level > hi) hi = v->level;
    }
    uint8_t top = hi > lo ? hi : 255;
    for (uint32_t i = 0; i < N; i++) {
        const struct node *v = &n->nodes[i];
        if (v->kind == NODE_HOST) {
            uint32_t a = anchor(n, i);
            if (a != NET_NONE) join(up, i, a);
            continue;
        }
        if (v->role == ROLE_NVSWITCH || v->level >= top) continue;
        if (top == 255) continue; /* one tier: each switch a unit */
        for (uint32_t k = 0; k < v->nports; k++) {
            uint32_t peer = n->ports[n->ports[v->first_port + k].peer].node;
            const struct node *w = &n->nodes[peer];
            if (w->kind == NODE_SWITCH && w->role != ROLE_NVSWITCH && w->level < top)
                join(up, i, peer);
        }
    }
    /* Weights per unit (at its root, the smallest node id of the unit). */
    uint32_t *w = fs_xcalloc(N + 1, sizeof *w);
    uint64_t total = 0;
    uint32_t ntop = 0;
    for (uint32_t i = 0; i < N; i++) {
        const struct node *v = &n->nodes[i];
        if (v->kind == NODE_SWITCH && v->role != ROLE_NVSWITCH && v->level >= top) {
            ntop++;
            continue;
        }
        uint32_t wt = v->kind == NODE_HOST ? 2 : 1;
        w[find(up, i)] += wt;
        total += wt;
    }
    /* Contiguous runs of units: a unit goes to the rank its weight's middle
     * falls in. */
    uint64_t before = 0;
    for (uint32_t i = 0; i < N; i++) {
        if (find(up, i) != i || w[i] == 0) continue;
        uint64_t mid2 = 2 * before + w[i];
        uint32_t r = total ? (uint32_t)(mid2 * nranks / (2 * total)) : 0;
        owner[i] = (uint16_t)(r < nranks ? r : nranks - 1);
        before += w[i];
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < N; i++) {
        const struct node *v = &n->nodes[i];
        if (v->kind == NODE_SWITCH && v->role != ROLE_NVSWITCH && v->level >= top) {
            owner[i] = (uint16_t)((uint64_t)k * nranks / (ntop ? ntop : 1));
            k++;
        } else {
            owner[i] = owner[find(up, i)];
        }
    }
    free(w);
    free(up);
}

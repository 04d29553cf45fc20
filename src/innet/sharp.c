/* src/innet/sharp.c
 *
 * SHARP streaming aggregation trees (docs/sources.md A9), built at setup the way
 * the aggregation manager does from the fabric: a spanning tree rooted at a
 * top-tier switch, reaching every member's leaf switch by shortest up-links.
 * Resources are finite: a switch takes part in at most `sharp_jobs_per_switch`
 * active streaming trees (2 for NCCL per the HPC-X docs; Quantum HDR: one;
 * docs/sources.md A9), the subnet holds at
 * most 63 streaming trees (Quantum), and every tree switch gives the job an
 * aggregation buffer (`sharp_buffer`, per tree per switch) which bounds the
 * chunks a member may have outstanding. A job that finds no tree runs ring.
 */
#include "net/params.h"
#include "core/mem.h"
#include "innet/innet.h"
#include "innet/innet_int.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

#define SHARP_SUBNET_TREES 63 /* Quantum: 63 SAT trees per subnet (docs/sources.md A9) */
/* Aggregation buffer per tree per switch: not published (docs/sources.md A9 gives
 * none; conf. C). 256 KiB covers the bandwidth-delay product of a 3-tier
 * 400 G fabric (~1.5 us round trip x 50 GB/s = 75 KB) with room to spare. */
#define SHARP_BUFFER_DEFAULT (256u << 10)

static void sharp_release(struct net *n, struct innet_sess *s) {
    struct innet_state *st = innet_get(n);
    for (uint32_t t = 0; t < s->nt; t++)
        st->active[n->nodes[s->t[t].sw].index]--;
    st->ntrees--;
    s->release = NULL;
}

uint32_t innet_sharp_open(struct net *n, const uint32_t *members, uint32_t m, uint32_t job) {
    struct innet_state *st = innet_get(n);
    const struct fabric_params *f = &n->sc->fabric;
    /* NCCL over SHARP: at most 2 streaming aggregation flows per switch
     * (NVIDIA HPC-X NCCL-RDMA-SHARP plugin docs; Quantum HDR: 1; docs/sources.md A9) */
    uint32_t limit = f->sharp_jobs_per_switch ? f->sharp_jobs_per_switch : 2;
    if (!st->active) st->active = fs_xcalloc(n->nswitches, sizeof *st->active);
    if (st->ntrees >= SHARP_SUBNET_TREES) return NET_NONE;
    /* root: a top-tier switch with a free streaming tree, spread over jobs */
    uint8_t top = 0;
    uint32_t ntop = 0;
    for (uint32_t v = 0; v < n->nnodes; v++)
        if (n->nodes[v].kind == NODE_SWITCH && n->nodes[v].role != ROLE_NVSWITCH &&
            n->nodes[v].level > top)
            top = n->nodes[v].level;
    uint32_t *cand = fs_xmalloc(n->nnodes * sizeof *cand);
    for (uint32_t v = 0; v < n->nnodes; v++)
        if (n->nodes[v].kind == NODE_SWITCH && n->nodes[v].role != ROLE_NVSWITCH &&
            n->nodes[v].level == top)
            cand[ntop++] = v;
    uint32_t root = NET_NONE;
    for (uint32_t k = 0; k < ntop && root == NET_NONE; k++) {
        uint32_t v = cand[(job + k) % ntop];
        if (st->active[n->nodes[v].index] < limit) root = v;
    }
    free(cand);
    if (root == NET_NONE) return NET_NONE;
    /* distances from the root over switch-switch links */
    uint32_t *dist = fs_xmalloc(n->nnodes * sizeof *dist), *q = fs_xmalloc(n->nnodes * sizeof *q);
    for (uint32_t v = 0; v < n->nnodes; v++)
        dist[v] = UINT32_MAX;
    uint32_t qh = 0, qt = 0;
    dist[root] = 0;
    q[qt++] = root;
    while (qh < qt) {
        uint32_t v = q[qh++];
        const struct node *nd = &n->nodes[v];
        for (uint32_t i = 0; i < nd->nports; i++) {
            uint32_t w = n->ports[n->ports[nd->first_port + i].peer].node;
            if (n->nodes[w].kind == NODE_SWITCH && dist[w] == UINT32_MAX) {
                dist[w] = dist[v] + 1;
                q[qt++] = w;
            }
        }
    }
    uint32_t sid = innet_session_new(n);
    struct innet_sess *s = &st->sess[sid];
    s->members = fs_xmalloc(m * sizeof *s->members);
    s->up_port = fs_xmalloc(m * sizeof *s->up_port);
    s->m = m;
    bool ok = true;
    for (uint32_t i = 0; i < m && ok; i++) {
        uint32_t up = n->nodes[members[i]].first_port; /* the NIC (port 0) */
        uint32_t leaf = n->ports[n->ports[up].peer].node;
        s->members[i] = members[i];
        s->up_port[i] = up;
        if (dist[leaf] == UINT32_MAX) {
            ok = false;
            break;
        }
        uint32_t t = innet_tnode(n, s, leaf);
        innet_add_child(s, t, n->ports[up].peer);
        for (uint32_t v = leaf; v != root;) {
            uint32_t tv = innet_tnode(n, s, v);
            if (s->t[tv].parent_port != NET_NONE) break;
            const struct node *nd = &n->nodes[v];
            uint32_t cnt = 0, pick = NET_NONE;
            for (uint32_t k = 0; k < nd->nports; k++) {
                uint32_t w = n->ports[n->ports[nd->first_port + k].peer].node;
                if (n->nodes[w].kind == NODE_SWITCH && dist[w] + 1 == dist[v]) cnt++;
            }
            uint32_t want = cnt ? job % cnt : 0;
            for (uint32_t k = 0, c = 0; k < nd->nports && pick == NET_NONE; k++) {
                uint32_t w = n->ports[n->ports[nd->first_port + k].peer].node;
                if (n->nodes[w].kind == NODE_SWITCH && dist[w] + 1 == dist[v] && c++ == want)
                    pick = nd->first_port + k;
            }
            if (pick == NET_NONE) {
                ok = false;
                break;
            }
            uint32_t w = n->ports[n->ports[pick].peer].node;
            s->t[tv].parent_port = pick;
            uint32_t tw = innet_tnode(n, s, w);
            innet_add_child(s, tw, n->ports[pick].peer);
            v = w;
        }
    }
    free(dist);
    free(q);
    for (uint32_t t = 0; t < s->nt && ok; t++)
        ok = st->active[n->nodes[s->t[t].sw].index] < limit;
    if (!ok) return NET_NONE; /* the session stays unused */
    for (uint32_t t = 0; t < s->nt; t++)
        st->active[n->nodes[s->t[t].sw].index]++;
    st->ntrees++;
    s->release = sharp_release;
    uint64_t buf = f->sharp_buffer_bytes ? f->sharp_buffer_bytes : SHARP_BUFFER_DEFAULT;
    s->window = (uint32_t)(buf / n->mtu_bytes);
    s->agg_ps = f->sharp_latency_ps;
    if (s->window == 0) s->window = 1;
    return sid;
}

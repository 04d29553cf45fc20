/* src/route/fib.c
 *
 * The forwarding information base: for every switch and destination host, the
 * output ports that lie on a shortest path over live links (hosts do not
 * forward). Every routing policy picks from these sets; the subnet manager's
 * engines may fill their own tables instead.
 *
 * Stored by destination group, not per (switch, host): hosts attached to the
 * same set of switches (the hosts of one leaf, edge or rail switch) have the
 * same shortest paths at every other switch, because every path to them ends
 * through one of those switches. One BFS per group gives every switch's
 * candidate set for the whole group; the only per-host state is at the
 * attachment switches themselves, where the route is the host's own link(s)
 * (FIB_DIRECT). Candidate sets are interned: a switch's uplink set is stored
 * once and shared by index by every group that uses it, as an ASIC's ECMP
 * group table is. Memory O(switches x groups + hosts), build O(groups x
 * links), instead of O(switches x hosts) for both (issue 13: 2.6 GB at 8,192
 * hosts before). Port order within a set is the switch's port order, as it
 * always was, so ECMP buckets and results are unchanged.
 */
#include "route/fib.h"

#include "core/intern.h"
#include "core/mem.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

#define FIB_SET_EMPTY 0u /* interned first: no route */

static bool live(const struct net *n, const struct port *p) {
    return p->up && n->ports[p->peer].up;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void route_fib_free(struct route_fib *f) {
    if (!f) return;
    free(f->host_group);
    free(f->node_group);
    free(f->node_row);
    free(f->node_direct);
    free(f->direct_pack);
    free(f->grp);
    free(f->sets);
    free(f->direct_off);
    free(f->direct);
    free(f->direct_sw);
    free(f);
}

/* Valley-free distances to host `src` (n->fib_updown, RFC 7938: a path goes
 * up, then down, never down-up-down): dd[v] = hops from v to src going only
 * down, ud[v] = hops of the shortest up*-down* path (returned in dist). */
static void updown_dist(const struct net *n, uint32_t src, uint32_t *dist, uint32_t *dd,
                        uint32_t *queue) {
    uint32_t V = n->nnodes, maxlvl = 0, qh = 0, qt = 0;
    for (uint32_t v = 0; v < V; v++) {
        dist[v] = dd[v] = UINT32_MAX;
        if (n->nodes[v].level > maxlvl) maxlvl = n->nodes[v].level;
    }
    dd[src] = dist[src] = 0;
    queue[qt++] = src;
    while (qh < qt) { /* upwards from src: who reaches it going only down */
        uint32_t v = queue[qh++];
        const struct node *nd = &n->nodes[v];
        for (uint32_t i = 0; i < nd->nports; i++) {
            const struct port *p = &n->ports[nd->first_port + i];
            uint32_t w = n->ports[p->peer].node;
            if (!live(n, p) || n->nodes[w].kind != NODE_SWITCH) continue;
            if (n->nodes[w].level != nd->level + 1 || dd[w] != UINT32_MAX) continue;
            dd[w] = dd[v] + 1;
            queue[qt++] = w;
        }
    }
    for (uint32_t lvl = maxlvl + 1; lvl-- > 1;) /* from the top tier down */
        for (uint32_t v = 0; v < V; v++) {
            const struct node *nd = &n->nodes[v];
            if (nd->kind != NODE_SWITCH || nd->level != lvl) continue;
            uint32_t best = dd[v];
            for (uint32_t i = 0; i < nd->nports; i++) {
                const struct port *p = &n->ports[nd->first_port + i];
                uint32_t u = n->ports[p->peer].node;
                if (live(n, p) && n->nodes[u].level == lvl + 1 && dist[u] != UINT32_MAX &&
                    dist[u] + 1 < best)
                    best = dist[u] + 1;
            }
            dist[v] = best;
        }
}

/* Is the hop v -> w on a shortest (valley-free when updown) path? */
static bool fib_hop(const struct net *n, uint32_t v, uint32_t w, const uint32_t *dist,
                    const uint32_t *dd) {
    if (!n->fib_updown) return dist[w] + 1 == dist[v];
    uint32_t lv = n->nodes[v].level, lw = n->nodes[w].level;
    if (lw + 1 == lv) return dd[w] != UINT32_MAX && dd[w] + 1 == dist[v];   /* down */
    return lw == lv + 1 && dist[w] != UINT32_MAX && dist[w] + 1 == dist[v]; /* up */
}

void route_fib_build(struct net *n) {
    uint32_t S = n->nswitches, H = n->nhosts, V = n->nnodes;
    route_fib_free(n->fib);
    struct route_fib *f = n->fib = fs_xcalloc(1, sizeof *f);
    f->nswitches = S;

    /* Each host's live switch-side ports, ascending: a switch's ports are
     * contiguous, so this is also grouped by attachment switch. */
    f->direct_off = fs_xcalloc((size_t)H + 1, sizeof *f->direct_off);
    size_t dcap = 0;
    for (uint32_t h = 0; h < H; h++) {
        const struct node *nd = &n->nodes[n->host_node[h]];
        uint32_t at = f->direct_off[h];
        for (uint32_t i = 0; i < nd->nports; i++) {
            const struct port *p = &n->ports[nd->first_port + i];
            if (!live(n, p) || n->nodes[n->ports[p->peer].node].kind != NODE_SWITCH) continue;
            fs_grow((void **)&f->direct, &dcap, (size_t)at + 1, sizeof *f->direct);
            f->direct[at++] = p->peer;
        }
        /* A host whose every link is down has no entries (and f->direct may
         * still be NULL): qsort must not see a null base. */
        if (at > f->direct_off[h])
            qsort(f->direct + f->direct_off[h], at - f->direct_off[h], sizeof *f->direct, cmp_u32);
        f->direct_off[h + 1] = at;
    }

    /* Groups: hosts with the same set of attachment switches, numbered in
     * order of their first host. The signature is the host's sorted list of
     * distinct attachment switch nodes. */
    f->host_group = fs_xmalloc(((size_t)H + 1) * sizeof *f->host_group);
    uint32_t *rep = fs_xmalloc(((size_t)H + 1) * sizeof *rep); /* group -> first host */
    size_t nslots = 16;
    while (nslots < (size_t)H * 2)
        nslots *= 2;
    uint32_t *slot = fs_xcalloc(nslots, sizeof *slot); /* group + 1 */
    uint32_t *sig = fs_xmalloc(((size_t)f->direct_off[H] + 1) * sizeof *sig);
    uint32_t *sig_len = fs_xmalloc(((size_t)H + 1) * sizeof *sig_len);
    for (uint32_t h = 0; h < H; h++) {
        uint32_t *s = sig + f->direct_off[h], c = 0;
        for (uint32_t i = f->direct_off[h]; i < f->direct_off[h + 1]; i++) {
            uint32_t w = n->ports[f->direct[i]].node;
            if (!c || s[c - 1] != w) s[c++] = w;
        }
        sig_len[h] = c;
        size_t i = intern_hash(s, c) & (nslots - 1);
        for (; slot[i]; i = (i + 1) & (nslots - 1)) {
            uint32_t r = rep[slot[i] - 1];
            if (sig_len[r] == c && memcmp(sig + f->direct_off[r], s, c * sizeof *s) == 0) break;
        }
        if (!slot[i]) {
            rep[f->ngroups] = h;
            slot[i] = ++f->ngroups;
        }
        f->host_group[h] = slot[i] - 1;
    }
    free(slot);
    f->node_group = fs_xcalloc((size_t)V + 1, sizeof *f->node_group);
    for (uint32_t h = 0; h < H; h++)
        f->node_group[n->host_node[h]] = f->host_group[h];
    /* a switch node's grp row by node id: a hop reads it where it read the
     * node's switch index and multiplied */
    f->node_row = fs_xcalloc((size_t)V + 1, sizeof *f->node_row);
    for (uint32_t v = 0; v < V; v++)
        if (n->nodes[v].kind == NODE_SWITCH)
            f->node_row[v] = (size_t)n->nodes[v].index * f->ngroups;
    f->direct_sw = fs_xmalloc(((size_t)f->direct_off[H] + 1) * sizeof *f->direct_sw);
    for (uint32_t i = 0; i < f->direct_off[H]; i++)
        f->direct_sw[i] = n->ports[f->direct[i]].node;
    /* A host whose live links all reach one switch (every host of a fat
     * tree): its direct set packed as count then ports, by node id, so that
     * the last switch hop reads it with no search of the host's links. At a
     * ROUTE_FIB_DIRECT entry the switch is one of the group's attachment
     * switches, which for such a host is that one switch: the same ports,
     * in the same order, as route_fib_direct. */
    f->node_direct = fs_xmalloc(((size_t)V + 1) * sizeof *f->node_direct);
    for (uint32_t v = 0; v <= V; v++)
        f->node_direct[v] = UINT32_MAX;
    f->direct_pack = fs_xmalloc(((size_t)H + f->direct_off[H] + 1) * sizeof *f->direct_pack);
    for (uint32_t h = 0, k = 0; h < H; h++) {
        uint32_t a = f->direct_off[h], b = f->direct_off[h + 1], i = a;
        while (i < b && f->direct_sw[i] == f->direct_sw[a])
            i++;
        if (a == b || i < b) continue; /* no live link, or several switches: searched */
        f->node_direct[n->host_node[h]] = k;
        f->direct_pack[k++] = b - a;
        memcpy(f->direct_pack + k, f->direct + a, (b - a) * sizeof *f->direct_pack);
        k += b - a;
    }

    /* One BFS per group, from its first host. */
    uint32_t G = f->ngroups;
    f->grp = fs_xaligned_huge(((size_t)S * G + 1) * sizeof *f->grp); /* read at random per hop */
    struct intern in;
    intern_init(&in, &f->nsets, &f->set_off, &f->set_ports);
    intern_add(&in, NULL, 0); /* FIB_SET_EMPTY */
    uint32_t *dist = fs_xmalloc(((size_t)V + 1) * sizeof *dist);
    uint32_t *queue = fs_xmalloc(((size_t)V + 1) * sizeof *queue);
    uint32_t *dd = n->fib_updown ? fs_xmalloc(((size_t)V + 1) * sizeof *dd) : NULL;
    uint32_t *cand = fs_xmalloc(((size_t)n->nports + 1) * sizeof *cand);
    /* Each node's live links (port, far node) in port order, and which nodes
     * are switches, packed: the searches below read these instead of the
     * port structs (a cache line each), which dominated the build at k=48. */
    uint32_t *aoff = fs_xmalloc(((size_t)V + 1) * sizeof *aoff);
    uint32_t *aport = fs_xmalloc(((size_t)n->nports + 1) * sizeof *aport);
    uint32_t *anbr = fs_xmalloc(((size_t)n->nports + 1) * sizeof *anbr);
    uint8_t *is_sw = fs_xmalloc((size_t)V + 1);
    uint32_t na = 0;
    for (uint32_t v = 0; v < V; v++) {
        const struct node *nd = &n->nodes[v];
        aoff[v] = na;
        is_sw[v] = nd->kind == NODE_SWITCH;
        for (uint32_t i = 0; i < nd->nports; i++) {
            const struct port *p = &n->ports[nd->first_port + i];
            if (!live(n, p)) continue;
            aport[na] = nd->first_port + i;
            anbr[na++] = n->ports[p->peer].node;
        }
    }
    aoff[V] = na;
    for (uint32_t g = 0; g < G; g++) {
        uint32_t h = rep[g];
        uint32_t src = n->host_node[h], qh = 0, qt = 0;
        if (n->fib_updown) updown_dist(n, src, dist, dd, queue);
        for (uint32_t v = 0; v < V && !n->fib_updown; v++)
            dist[v] = UINT32_MAX;
        dist[src] = 0;
        if (!n->fib_updown) queue[qt++] = src;
        while (qh < qt) {
            uint32_t v = queue[qh++];
            if (!is_sw[v] && v != src) continue; /* hosts do not forward */
            for (uint32_t e = aoff[v]; e < aoff[v + 1]; e++) {
                uint32_t w = anbr[e];
                if (dist[w] == UINT32_MAX) {
                    dist[w] = dist[v] + 1;
                    queue[qt++] = w;
                }
            }
        }
        for (uint32_t v = 0; v < V; v++) {
            const struct node *nd = &n->nodes[v];
            if (nd->kind != NODE_SWITCH) continue;
            uint32_t *e = &f->grp[(size_t)nd->index * G + g];
            if (dist[v] == UINT32_MAX) {
                *e = FIB_SET_EMPTY;
                continue;
            }
            if (dist[v] == 1) { /* an attachment switch: the host's own links */
                *e = ROUTE_FIB_DIRECT;
                continue;
            }
            uint32_t c = 0;
            for (uint32_t a = aoff[v]; a < aoff[v + 1]; a++)
                if (is_sw[anbr[a]] && fib_hop(n, v, anbr[a], dist, dd)) cand[c++] = aport[a];
            *e = intern_add(&in, cand, c);
        }
    }
    intern_fini(&in);
    /* Each set packed as its count then its ports (sets[e], sets + e + 1),
     * grp naming its position: a lookup reads the count beside the ports
     * instead of two offsets first, one dependent load fewer per switch hop
     * (docs/performance.md "Per-hop cost at scale"). The empty set, id 0,
     * lands at position 0: FIB_SET_EMPTY stays what it was. */
    uint32_t *pos = fs_xmalloc(((size_t)f->nsets + 1) * sizeof *pos);
    f->sets = fs_xmalloc(((size_t)f->nsets + f->set_off[f->nsets] + 1) * sizeof *f->sets);
    uint32_t k = 0;
    for (uint32_t id = 0; id < f->nsets; id++) {
        uint32_t a = f->set_off[id], c = f->set_off[id + 1] - a;
        pos[id] = k;
        f->sets[k++] = c;
        if (c) memcpy(f->sets + k, f->set_ports + a, c * sizeof *f->sets);
        k += c;
    }
    for (size_t i = 0; i < (size_t)S * G; i++)
        if (f->grp[i] != ROUTE_FIB_DIRECT) f->grp[i] = pos[f->grp[i]];
    free(pos);
    free(f->set_off);
    free(f->set_ports);
    f->set_off = f->set_ports = NULL;
    free(aoff);
    free(aport);
    free(anbr);
    free(is_sw);
    free(dd);
    free(cand);
    free(queue);
    free(dist);
    free(sig);
    free(sig_len);
    free(rep);
}

uint32_t route_fib_get(const struct net *n, uint32_t sw, uint32_t host, const uint32_t **ports) {
    return route_fib_lookup(n->fib, n, sw, host, ports);
}

/* Up and down need tiers: a link between two switches of one tier (the
 * ring) leaves plain shortest paths. */
bool route_layered(const struct net *n) {
    for (uint32_t p = 0; p < n->nports; p++) {
        const struct port *pt = &n->ports[p];
        uint32_t a = pt->node, b = n->ports[pt->peer].node;
        if (n->nodes[a].kind == NODE_SWITCH && n->nodes[b].kind == NODE_SWITCH &&
            n->nodes[a].level == n->nodes[b].level)
            return false;
    }
    return true;
}

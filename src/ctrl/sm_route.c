/* src/ctrl/sm_route.c
 *
 * The subnet manager's routing engines (OpenSM names, docs/sources.md A10) over the
 * links that are up, and the channel dependency graph (CDG) check.
 *
 *  minhop  For each destination LID in order, each switch takes, among its
 *          min-hop ports, the one that carries the fewest destinations so far
 *          (OpenSM's osm_ucast_mgr port balancing); ties to the lowest port.
 *  updn    Up*\/down*: ranks are BFS distances from the roots, which are, as
 *          OpenSM's auto-detection finds them, the switches of the top tier
 *          (the highest level); on a flat fabric (ring) the lowest switch.
 *          A hop u->w is "up" when w has a lower (rank, id) than u. A route
 *          never goes up after going down: a switch that reaches the
 *          destination going only down does so; others go up to the closest
 *          such switch. Balanced like minhop among equals. Deadlock-free.
 *  ftree   Fat-tree routing that spreads destinations over the uplinks
 *          (d-mod-k, Zahavi et al. as OpenSM's ftree does): at a switch of
 *          level L the destination with host index d leaves by up-port
 *          (d / D_L) mod (#up-ports), D_1 = 1, D_{L+1} = D_L x up-ports at
 *          L. Shift permutations are then contention-free on full fat trees
 *          and leaf-spine fabrics.
 *  file    The LFTs of an opensm-lfts.dump (sm_dump.c).
 *
 * Routes to switch LIDs (management traffic, the dump) are min-hop.
 *
 * Cost (issue 34): the searches run once per destination group (hosts on the
 * same switches), over the switches alone, and the candidate sets they give
 * are interned; the per-LID work is the choice among a set, kept per LID
 * because the balancing counts carry from one LID to the next. The CDG
 * check deduplicates as it goes (a bit per dependency). k = 32 (8,192 hosts):
 * 1.5 CPU-s and 166 MB to build against 15 CPU-s and 1.7 GB. The LFTs and
 * the verdicts are those of the per-LID code they replace, which
 * tests/ib/test_sm_equiv.c keeps as its oracle.
 */
#include "ctrl/sm_route.h"

#include "net/params.h"
#include "core/diag.h"
#include "core/intern.h"
#include "core/mem.h"
#include "ctrl/sm_dump.h"
#include "ctrl/sm_state.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

#define INF UINT32_MAX

static inline bool live(const struct net *n, uint32_t p) {
    return n->ports[p].up && n->ports[n->ports[p].peer].up;
}

static inline uint32_t far_node(const struct net *n, uint32_t p) {
    return n->ports[n->ports[p].peer].node;
}

/* Least-used candidate (OpenSM balancing); counts it for host targets. */
static uint32_t pick_balanced(const uint32_t *cand, uint32_t nc, uint32_t *use, bool count) {
    if (!nc) return NET_NONE;
    uint32_t best = cand[0];
    for (uint32_t i = 1; i < nc; i++)
        if (use[cand[i]] < use[best]) best = cand[i];
    if (count) use[best]++;
    return best;
}

struct rt {
    struct net *n;
    struct sm *sm;
    uint32_t *dist, *queue, *use, *cand;
    uint32_t *rank, *dd, *eff, *order; /* updn */
    uint64_t *div;                     /* ftree: per level */
};

/* (rank, id) order: smaller is "higher" in the up/down orientation. */
static inline uint64_t key(const struct rt *r, uint32_t v) {
    return ((uint64_t)r->rank[v] << 32) | v;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void updn_ranks(struct rt *r) {
    struct net *n = r->n;
    uint32_t maxlvl = 0, nmax = 0;
    for (uint32_t s = 0; s < r->sm->S; s++)
        if (n->nodes[r->sm->sw_node[s]].level > maxlvl) maxlvl = n->nodes[r->sm->sw_node[s]].level;
    for (uint32_t v = 0; v < n->nnodes; v++)
        r->rank[v] = INF;
    uint32_t qh = 0, qt = 0;
    for (uint32_t s = 0; s < r->sm->S; s++)
        if (n->nodes[r->sm->sw_node[s]].level == maxlvl) nmax++;
    bool flat = nmax == r->sm->S && r->sm->S > 1;
    for (uint32_t s = 0; s < r->sm->S; s++) {
        uint32_t v = r->sm->sw_node[s];
        if (n->nodes[v].level == maxlvl && (!flat || qt == 0)) {
            r->rank[v] = 0;
            r->queue[qt++] = v;
        }
    }
    while (qh < qt) {
        uint32_t w = r->queue[qh++];
        const struct node *nd = &n->nodes[w];
        for (uint32_t i = 0; i < nd->nports; i++) {
            uint32_t p = nd->first_port + i;
            uint32_t v = far_node(n, p);
            if (!live(n, p) || n->nodes[v].kind != NODE_SWITCH || r->rank[v] != INF) continue;
            r->rank[v] = r->rank[w] + 1;
            r->queue[qt++] = v;
        }
    }
    /* hosts (and unreachable switches) sort below everything */
    for (uint32_t v = 0; v < n->nnodes; v++)
        if (r->rank[v] == INF) r->rank[v] = INF - 1;
    uint64_t *keys = fs_xmalloc((r->sm->S + 1) * sizeof *keys);
    for (uint32_t s = 0; s < r->sm->S; s++)
        keys[s] = key(r, r->sm->sw_node[s]);
    qsort(keys, r->sm->S, sizeof *keys, cmp_u64);
    for (uint32_t s = 0; s < r->sm->S; s++)
        r->order[s] = (uint32_t)keys[s];
    free(keys);
}

/* Up/down distances to host node t: dd = going only down, eff = up then down. */
static void updn_dist(struct rt *r, uint32_t t) {
    struct net *n = r->n;
    for (uint32_t v = 0; v < n->nnodes; v++)
        r->dd[v] = r->eff[v] = INF;
    uint32_t qh = 0, qt = 0;
    r->dd[t] = 0;
    r->queue[qt++] = t;
    while (qh < qt) {
        uint32_t w = r->queue[qh++];
        const struct node *nd = &n->nodes[w];
        for (uint32_t i = 0; i < nd->nports; i++) {
            uint32_t p = nd->first_port + i;
            uint32_t v = far_node(n, p);
            if (!live(n, p) || n->nodes[v].kind != NODE_SWITCH || r->dd[v] != INF) continue;
            if (key(r, w) > key(r, v)) { /* v -> w is a down hop */
                r->dd[v] = r->dd[w] + 1;
                r->queue[qt++] = v;
            }
        }
    }
    for (uint32_t k = 0; k < r->sm->S; k++) {
        uint32_t v = r->order[k];
        if (r->dd[v] != INF) {
            r->eff[v] = r->dd[v];
            continue;
        }
        const struct node *nd = &n->nodes[v];
        for (uint32_t i = 0; i < nd->nports; i++) {
            uint32_t p = nd->first_port + i;
            uint32_t w = far_node(n, p);
            if (live(n, p) && n->nodes[w].kind == NODE_SWITCH && key(r, w) < key(r, v) &&
                r->eff[w] != INF && r->eff[w] + 1 < r->eff[v])
                r->eff[v] = r->eff[w] + 1;
        }
    }
}

static void updn_cands(struct rt *r, uint32_t v, uint32_t t, uint32_t *nc) {
    const struct net *n = r->n;
    const struct node *nd = &n->nodes[v];
    *nc = 0;
    if (r->eff[v] == INF) return;
    bool down = r->dd[v] != INF;
    for (uint32_t i = 0; i < nd->nports; i++) {
        uint32_t p = nd->first_port + i;
        if (!live(n, p)) continue;
        uint32_t w = far_node(n, p);
        if (n->nodes[w].kind != NODE_SWITCH && w != t) continue;
        if (down ? key(r, w) > key(r, v) && r->dd[w] + 1 == r->dd[v]
                 : key(r, w) < key(r, v) && r->eff[w] != INF && r->eff[w] + 1 == r->eff[v])
            r->cand[(*nc)++] = p;
    }
}

static void ftree_divisors(struct rt *r) {
    struct net *n = r->n;
    uint32_t up[256] = {0};
    bool seen[256] = {0};
    for (uint32_t s = 0; s < r->sm->S; s++) {
        uint32_t v = r->sm->sw_node[s];
        uint8_t L = n->nodes[v].level;
        if (seen[L]) continue;
        seen[L] = true;
        const struct node *nd = &n->nodes[v];
        for (uint32_t i = 0; i < nd->nports; i++)
            if (n->nodes[far_node(n, nd->first_port + i)].level > L) up[L]++;
    }
    r->div[0] = r->div[1] = 1;
    for (uint32_t L = 2; L < 256; L++)
        r->div[L] = r->div[L - 1] * (up[L - 1] ? up[L - 1] : 1);
}

static uint32_t ftree_pick(struct rt *r, uint32_t v, uint32_t d, const uint32_t *cand,
                           uint32_t nc) {
    const struct net *n = r->n;
    uint32_t L = n->nodes[v].level, nup = 0;
    uint32_t ups[256], downs[256], ndown = 0;
    for (uint32_t i = 0; i < nc && i < 256; i++) {
        if (n->nodes[far_node(n, cand[i])].level > L)
            ups[nup++] = cand[i];
        else
            downs[ndown++] = cand[i];
    }
    uint64_t k = d / r->div[L];
    return nup ? ups[k % nup] : ndown ? downs[k % ndown] : NET_NONE;
}

/* The live switch-to-switch links by switch index, in port order: min-hop
 * searches run over the switches alone (hosts do not forward). */
struct swgraph {
    uint32_t *off, *port, *nbr;
};

static void swgraph_build(const struct net *n, const struct sm *sm, struct swgraph *g) {
    uint32_t S = sm->S, m = 0;
    g->off = fs_xmalloc(((size_t)S + 1) * sizeof *g->off);
    for (uint32_t s = 0; s < S; s++) {
        const struct node *nd = &n->nodes[sm->sw_node[s]];
        for (uint32_t i = 0; i < nd->nports; i++)
            m += live(n, nd->first_port + i) &&
                 n->nodes[far_node(n, nd->first_port + i)].kind == NODE_SWITCH;
    }
    g->port = fs_xmalloc(((size_t)m + 1) * sizeof *g->port);
    g->nbr = fs_xmalloc(((size_t)m + 1) * sizeof *g->nbr);
    m = 0;
    for (uint32_t s = 0; s < S; s++) {
        g->off[s] = m;
        const struct node *nd = &n->nodes[sm->sw_node[s]];
        for (uint32_t i = 0; i < nd->nports; i++) {
            uint32_t p = nd->first_port + i, w = far_node(n, p);
            if (!live(n, p) || n->nodes[w].kind != NODE_SWITCH) continue;
            g->port[m] = p;
            g->nbr[m++] = n->nodes[w].index;
        }
    }
    g->off[S] = m;
}

static void swgraph_free(struct swgraph *g) {
    free(g->off);
    free(g->port);
    free(g->nbr);
}

/* Hop distances by switch index from the seeds (at distance d0). */
static void sw_bfs(const struct swgraph *g, uint32_t S, const uint32_t *seed, uint32_t nseed,
                   uint32_t d0, uint32_t *dist, uint32_t *queue) {
    for (uint32_t s = 0; s < S; s++)
        dist[s] = INF;
    uint32_t qh = 0, qt = 0;
    for (uint32_t i = 0; i < nseed; i++)
        if (dist[seed[i]] == INF) {
            dist[seed[i]] = d0;
            queue[qt++] = seed[i];
        }
    while (qh < qt) {
        uint32_t s = queue[qh++];
        for (uint32_t e = g->off[s]; e < g->off[s + 1]; e++)
            if (dist[g->nbr[e]] == INF) {
                dist[g->nbr[e]] = dist[s] + 1;
                queue[qt++] = g->nbr[e];
            }
    }
}

/* Min-hop candidates of switch s: its links one hop closer. */
static uint32_t sw_cands(const struct swgraph *g, uint32_t s, const uint32_t *dist,
                         uint32_t *cand) {
    uint32_t nc = 0;
    if (dist[s] == INF) return 0;
    for (uint32_t e = g->off[s]; e < g->off[s + 1]; e++)
        if (dist[g->nbr[e]] + 1 == dist[s]) cand[nc++] = g->port[e];
    return nc;
}

/* Destination groups (as route/fib.c's): hosts with the same set of
 * attachment switches have the same distances at every switch, so the same
 * candidate ports everywhere but at the attachment switches themselves, where
 * the candidates are the host's own links. For updn only the attachments
 * reached by a down hop count (a switch of the roots' unreachable part sorts
 * by id against the host). One BFS per group instead of one per LID. */
struct groups {
    uint32_t G;
    uint32_t *of;  /* host -> group */
    uint32_t *rep; /* group -> first host */
};

static void groups_build(struct rt *r, bool updn, struct groups *gr) {
    const struct net *n = r->n;
    uint32_t H = r->sm->H;
    gr->of = fs_xmalloc(((size_t)H + 1) * sizeof *gr->of);
    gr->rep = fs_xmalloc(((size_t)H + 1) * sizeof *gr->rep);
    gr->G = 0;
    size_t nslots = 16;
    while (nslots < (size_t)H * 2)
        nslots *= 2;
    uint32_t *slot = fs_xcalloc(nslots, sizeof *slot); /* group + 1 */
    uint32_t *sig_off = fs_xcalloc((size_t)H + 2, sizeof *sig_off);
    uint32_t *sig = NULL;
    size_t sig_cap = 0;
    for (uint32_t h = 0; h < H; h++) {
        uint32_t t = n->host_node[h];
        const struct node *nd = &n->nodes[t];
        uint32_t at = sig_off[h];
        for (uint32_t i = 0; i < nd->nports; i++) {
            uint32_t p = nd->first_port + i, w = far_node(n, p);
            if (!live(n, p) || n->nodes[w].kind != NODE_SWITCH) continue;
            if (updn && key(r, t) <= key(r, w)) continue;
            uint32_t j = at;
            while (j > sig_off[h] && sig[j - 1] > w) /* insertion: few ports */
                j--;
            if (j > sig_off[h] && sig[j - 1] == w) continue;
            fs_grow((void **)&sig, &sig_cap, (size_t)at + 1, sizeof *sig);
            memmove(sig + j + 1, sig + j, (at - j) * sizeof *sig);
            sig[j] = w;
            at++;
        }
        sig_off[h + 1] = at;
        uint32_t c = at - sig_off[h];
        const uint32_t *sg = sig ? sig + sig_off[h] : NULL;
        size_t i = intern_hash(sg, c) & (nslots - 1);
        for (; slot[i]; i = (i + 1) & (nslots - 1)) {
            uint32_t o = gr->rep[slot[i] - 1];
            if (sig_off[o + 1] - sig_off[o] == c &&
                (!c || !memcmp(sig + sig_off[o], sg, c * sizeof *sg)))
                break;
        }
        if (!slot[i]) {
            gr->rep[gr->G] = h;
            slot[i] = ++gr->G;
        }
        gr->of[h] = slot[i] - 1;
    }
    free(slot);
    free(sig_off);
    free(sig);
}

/* Candidate sets, interned: a set is stored once and named by id. */
#define SET_DIRECT UINT32_MAX /* at an attachment switch: the host's own links */

struct sets {
    uint32_t n, *off, *ports; /* core/intern.h */
};

/* The live ports of switch node v to host node t, in port order. */
static uint32_t direct_cands(const struct net *n, uint32_t v, uint32_t t, uint32_t *cand) {
    const struct node *nd = &n->nodes[v];
    uint32_t nc = 0;
    for (uint32_t i = 0; i < nd->nports; i++) {
        uint32_t p = nd->first_port + i;
        if (live(n, p) && far_node(n, p) == t) cand[nc++] = p;
    }
    return nc;
}

/* Per group g and switch s, the interned id of the candidate set (or
 * SET_DIRECT) in gset[g * S + s], as the per-LID engines would find it. */
static uint32_t *group_sets(struct rt *r, int engine, const struct groups *gr,
                            const struct swgraph *sg, struct sets *st) {
    const struct net *n = r->n;
    uint32_t S = r->sm->S;
    uint32_t *gset = fs_xmalloc(((size_t)gr->G * S + 1) * sizeof *gset);
    uint32_t *seed = fs_xmalloc(((size_t)n->nports + 1) * sizeof *seed);
    struct intern in;
    intern_init(&in, &st->n, &st->off, &st->ports);
    for (uint32_t g = 0; g < gr->G; g++) {
        uint32_t t = n->host_node[gr->rep[g]];
        if (engine == ENGINE_UPDN) {
            updn_dist(r, t);
        } else { /* distance 1 at the attachment switches */
            const struct node *nd = &n->nodes[t];
            uint32_t ns = 0;
            for (uint32_t i = 0; i < nd->nports; i++) {
                uint32_t p = nd->first_port + i, w = far_node(n, p);
                if (live(n, p) && n->nodes[w].kind == NODE_SWITCH) seed[ns++] = n->nodes[w].index;
            }
            sw_bfs(sg, S, seed, ns, 1, r->dist, r->queue);
        }
        for (uint32_t s = 0; s < S; s++) {
            uint32_t v = r->sm->sw_node[s], nc = 0;
            if (engine == ENGINE_UPDN) {
                if (r->dd[v] == 1) {
                    gset[(size_t)g * S + s] = SET_DIRECT;
                    continue;
                }
                updn_cands(r, v, t, &nc);
            } else {
                if (r->dist[s] == 1) {
                    gset[(size_t)g * S + s] = SET_DIRECT;
                    continue;
                }
                nc = sw_cands(sg, s, r->dist, r->cand);
            }
            gset[(size_t)g * S + s] = intern_add(&in, r->cand, nc);
        }
    }
    intern_fini(&in);
    free(seed);
    return gset;
}

/* ftree: each set's ports reordered up-links first (stably), with their
 * count and the switch's level, so a pick is one division and an index. */
static void ftree_split(const struct net *n, struct sets *st, uint32_t *nup, uint8_t *lvl) {
    uint32_t *tmp = fs_xmalloc(((size_t)st->off[st->n] + 1) * sizeof *tmp);
    for (uint32_t id = 0; id < st->n; id++) {
        uint32_t *p = st->ports + st->off[id], c = st->off[id + 1] - st->off[id], k = 0;
        nup[id] = lvl[id] = 0;
        if (!c) continue;
        uint8_t L = n->nodes[n->ports[p[0]].node].level;
        lvl[id] = L;
        for (uint32_t i = 0; i < c && i < 256; i++)
            if (n->nodes[far_node(n, p[i])].level > L) tmp[k++] = p[i];
        nup[id] = k;
        for (uint32_t i = 0; i < c && i < 256; i++)
            if (n->nodes[far_node(n, p[i])].level <= L) tmp[k++] = p[i];
        memcpy(p, tmp, k * sizeof *p);
        st->off[id + 1] = st->off[id] + k; /* beyond 256 candidates: ignored, as before */
    }
    free(tmp);
}

/* The tables are rows per switch, the choices come per LID: they are
 * gathered for LID_CHUNK LIDs and written a run of LIDs per switch, not one
 * cache line per entry (k=48: 80 M entries). buf[(lid % LID_CHUNK) * S + s]. */
#define LID_CHUNK 64u

static void chunk_flush(struct sm *sm, const uint32_t *buf, uint32_t lid) {
    if (lid % LID_CHUNK != LID_CHUNK - 1 && lid != sm->nlids - 1) return;
    uint32_t lo = lid - lid % LID_CHUNK, S = sm->S;
    if (lo == 0) lo = 1;
    for (uint32_t s = 0; s < S; s++) {
        uint8_t *row = sm->next + (size_t)s * sm->nlids;
        for (uint32_t l = lo; l <= lid; l++)
            row[l] = sm_lft_byte(sm, s, buf[(l % LID_CHUNK) * S + s]);
    }
}

/* LIDs in order, switches in order, as OpenSM's ucast manager: the port
 * balancing counts carry from one LID to the next, so the candidate sets
 * come per group but the choices are made per LID. */
int sm_route_compute(struct net *n, struct sm *sm, int engine, struct diag *d) {
    if (engine == ENGINE_FILE) return sm_dump_read(n, sm, n->sc->fabric.lft_file, d);
    uint32_t V = n->nnodes, S = sm->S;
    struct rt r = {.n = n, .sm = sm};
    r.dist = fs_xmalloc((V + 1) * sizeof *r.dist);
    r.queue = fs_xmalloc((V + 1) * sizeof *r.queue);
    r.use = fs_xcalloc(n->nports + 1, sizeof *r.use);
    r.cand = fs_xmalloc((n->nports + 1) * sizeof *r.cand);
    if (engine == ENGINE_UPDN) {
        r.rank = fs_xmalloc((V + 1) * sizeof *r.rank);
        r.dd = fs_xmalloc((V + 1) * sizeof *r.dd);
        r.eff = fs_xmalloc((V + 1) * sizeof *r.eff);
        r.order = fs_xmalloc((S + 1) * sizeof *r.order);
        updn_ranks(&r);
    }
    if (engine == ENGINE_FTREE) {
        r.div = fs_xcalloc(256, sizeof *r.div);
        ftree_divisors(&r);
    }
    struct groups gr;
    struct sets st = {0};
    struct swgraph sg;
    swgraph_build(n, sm, &sg);
    groups_build(&r, engine == ENGINE_UPDN, &gr);
    uint32_t *gset = group_sets(&r, engine, &gr, &sg, &st);
    uint32_t *nup = NULL;
    uint8_t *lvl = NULL;
    if (engine == ENGINE_FTREE) {
        nup = fs_xmalloc(((size_t)st.n + 1) * sizeof *nup);
        lvl = fs_xmalloc((size_t)st.n + 1);
        ftree_split(n, &st, nup, lvl);
    }
    uint32_t *direct = fs_xmalloc((n->nports + 1) * sizeof *direct);
    uint32_t *buf = fs_xmalloc((size_t)LID_CHUNK * S * sizeof *buf + 1);
    for (uint32_t lid = 1; lid <= sm->H; lid++) {
        uint32_t t = n->host_node[lid - 1];
        const uint32_t *row = gset + (size_t)gr.of[lid - 1] * S;
        for (uint32_t s = 0; s < S; s++) {
            uint32_t v = sm->sw_node[s], nc, out, id = row[s];
            if (id == SET_DIRECT) {
                nc = direct_cands(n, v, t, direct);
                out = engine == ENGINE_FTREE ? ftree_pick(&r, v, lid - 1, direct, nc)
                                             : pick_balanced(direct, nc, r.use, true);
            } else if (engine == ENGINE_FTREE) {
                const uint32_t *c = st.ports + st.off[id];
                nc = st.off[id + 1] - st.off[id];
                uint64_t k = (uint64_t)(lid - 1) / r.div[lvl[id]];
                out = !nc ? NET_NONE : nup[id] ? c[k % nup[id]] : c[k % nc];
            } else {
                out =
                    pick_balanced(st.ports + st.off[id], st.off[id + 1] - st.off[id], r.use, true);
            }
            buf[(lid % LID_CHUNK) * S + s] = out;
        }
        chunk_flush(sm, buf, lid);
    }
    /* Switch LIDs: min-hop, not counted in the balancing. */
    for (uint32_t lid = sm->H + 1; lid < sm->nlids; lid++) {
        uint32_t ts = lid - 1 - sm->H;
        sw_bfs(&sg, S, &ts, 1, 0, r.dist, r.queue);
        for (uint32_t s = 0; s < S; s++) {
            uint32_t out;
            if (s == ts) {
                out = SM_PORT_SELF;
            } else {
                uint32_t nc = sw_cands(&sg, s, r.dist, r.cand);
                out = pick_balanced(r.cand, nc, r.use, false);
            }
            buf[(lid % LID_CHUNK) * S + s] = out;
        }
        chunk_flush(sm, buf, lid);
    }
    free(buf);
    free(nup);
    free(lvl);
    swgraph_free(&sg);
    free(direct);
    free(gset);
    free(st.off);
    free(st.ports);
    free(gr.of);
    free(gr.rep);
    free(r.dist);
    free(r.queue);
    free(r.use);
    free(r.cand);
    free(r.rank);
    free(r.dd);
    free(r.eff);
    free(r.order);
    free(r.div);
    return 0;
}

/* ---- channel dependency graph ---- */

/* The channel dependency graph of the host-to-host routes: an edge c -> o
 * when some route leaves by o after arriving on channel c. Deduplicated as
 * it is built: the edges out of a channel into switch v are a bit per port
 * of v. The channels out of the hosts (a host's first port) are walked by
 * their edge switch instead of by every source: their edges are the ports
 * that edge switch's table names for any destination but the host itself
 * (a count per port), and the rest of a route is fixed by (channel,
 * destination), so a destination is walked once per edge switch, not once
 * per source. The depth-first search then visits each channel's targets in
 * ascending port order, as the sorted edge list it replaces did, so the
 * verdict and the reported cycle are the same. */
struct cdg {
    const struct net *n;
    const struct sm *sm;
    uint32_t *woff;  /* [P + 1]: first 64-bit word of channel c's bits */
    uint64_t *bits;  /* bit j of c: c -> port j of the switch c leads to */
    uint32_t *cnt;   /* [P]: host destinations an edge switch sends by port p */
    uint32_t *srcof; /* [P]: host whose first port is c, or NET_NONE */
};

static inline bool out_valid(uint32_t out) {
    return out != NET_NONE && out != SM_PORT_SELF;
}

/* The next target of channel u from local port index *j on, or NET_NONE. */
static uint32_t cdg_next(const struct cdg *g, uint32_t u, uint32_t *j) {
    const struct net *n = g->n;
    uint32_t v = far_node(n, u);
    if (n->nodes[v].kind != NODE_SWITCH) return NET_NONE;
    const struct node *nd = &n->nodes[v];
    uint32_t a = g->srcof[u];
    if (a != NET_NONE) {
        uint32_t self = sm_lft_port(g->sm, nd->index,
                                    g->sm->next[(size_t)nd->index * g->sm->nlids + sm_host_lid(a)]);
        for (; *j < nd->nports; (*j)++) {
            uint32_t p = nd->first_port + *j;
            if (g->cnt[p] > (uint32_t)(self == p)) return nd->first_port + (*j)++;
        }
        return NET_NONE;
    }
    const uint64_t *w = g->bits + g->woff[u];
    for (; *j < nd->nports; (*j)++)
        if (w[*j >> 6] >> (*j & 63) & 1) return nd->first_port + (*j)++;
    return NET_NONE;
}

bool sm_cdg_check(struct net *n, struct sm *sm) {
    uint32_t P = n->nports;
    struct cdg g = {.n = n, .sm = sm};
    g.woff = fs_xmalloc(((size_t)P + 1) * sizeof *g.woff);
    g.woff[0] = 0;
    for (uint32_t c = 0; c < P; c++) {
        uint32_t v = far_node(n, c);
        uint32_t nb = n->nodes[v].kind == NODE_SWITCH ? n->nodes[v].nports : 0;
        g.woff[c + 1] = g.woff[c] + (nb + 63) / 64;
    }
    g.bits = fs_xcalloc((size_t)g.woff[P] + 1, sizeof *g.bits);
    g.cnt = fs_xcalloc((size_t)P + 1, sizeof *g.cnt);
    g.srcof = fs_xmalloc(((size_t)P + 1) * sizeof *g.srcof);
    for (uint32_t c = 0; c < P; c++)
        g.srcof[c] = NET_NONE;
    /* The edge switches: where the hosts' first ports lead, with how many
     * sources each has and one of them. */
    uint32_t *nsrc = fs_xcalloc((size_t)sm->S + 1, sizeof *nsrc);
    uint32_t *one = fs_xmalloc(((size_t)sm->S + 1) * sizeof *one);
    uint32_t *edge = fs_xmalloc(((size_t)sm->S + 1) * sizeof *edge), nedge = 0;
    for (uint32_t a = 0; a < sm->H; a++) {
        uint32_t c = n->nodes[n->host_node[a]].first_port, v = far_node(n, c);
        if (n->nodes[v].kind != NODE_SWITCH) continue;
        uint32_t e = n->nodes[v].index;
        g.srcof[c] = a;
        if (!nsrc[e]++) {
            one[e] = a;
            edge[nedge++] = e;
        }
    }
    for (uint32_t i = 0; i < nedge; i++) {
        const uint8_t *row = sm->next + (size_t)edge[i] * sm->nlids;
        for (uint32_t b = 0; b < sm->H; b++) {
            uint32_t p = sm_lft_port(sm, edge[i], row[sm_host_lid(b)]);
            if (out_valid(p)) g.cnt[p]++;
        }
    }
    /* The walks read, per channel, the switch it leads to (or NET_NONE) and
     * that switch's first port, packed; and the table column of a chunk of
     * destinations, transposed, instead of one cache line per entry. */
    uint32_t *fsw = fs_xmalloc(((size_t)P + 1) * sizeof *fsw);
    for (uint32_t c = 0; c < P; c++) {
        uint32_t v = far_node(n, c);
        fsw[c] = n->nodes[v].kind == NODE_SWITCH ? n->nodes[v].index : NET_NONE;
    }
    uint32_t *sfp = fs_xmalloc(((size_t)sm->S + 1) * sizeof *sfp);
    for (uint32_t x = 0; x < sm->S; x++)
        sfp[x] = n->nodes[sm->sw_node[x]].first_port;
    uint32_t *col = fs_xmalloc((size_t)LID_CHUNK * sm->S * sizeof *col + 1);
    uint32_t *stamp = fs_xcalloc((size_t)P + 1, sizeof *stamp);
    for (uint32_t b0 = 0; b0 < sm->H; b0 += LID_CHUNK) {
        uint32_t nb = sm->H - b0 < LID_CHUNK ? sm->H - b0 : LID_CHUNK;
        for (uint32_t x = 0; x < sm->S; x++) {
            const uint8_t *row = sm->next + (size_t)x * sm->nlids + sm_host_lid(b0);
            for (uint32_t k = 0; k < nb; k++)
                col[(size_t)k * sm->S + x] = sm_lft_port(sm, x, row[k]);
        }
        for (uint32_t b = b0; b < b0 + nb; b++) {
            const uint32_t *out_of = col + (size_t)(b - b0) * sm->S; /* switch -> port */
            for (uint32_t i = 0; i < nedge; i++) {
                uint32_t e = edge[i];
                if (nsrc[e] == 1 && one[e] == b) continue; /* no source but b itself */
                uint32_t c = out_of[e];
                if (!out_valid(c)) continue;
                uint32_t x = fsw[c];
                for (uint32_t hops = 1; hops <= n->nnodes && x != NET_NONE; hops++) {
                    if (stamp[c] == b + 1) break;
                    stamp[c] = b + 1;
                    uint32_t out = out_of[x];
                    if (!out_valid(out)) break;
                    uint32_t j = out - sfp[x];
                    g.bits[g.woff[c] + (j >> 6)] |= 1ull << (j & 63);
                    c = out;
                    x = fsw[out];
                }
            }
        }
    }
    free(fsw);
    free(sfp);
    free(col);
    free(stamp);
    free(nsrc);
    free(one);
    free(edge);
    uint8_t *color = fs_xcalloc(P + 1, 1);
    uint32_t *next = fs_xcalloc(P + 1, sizeof *next),
             *parent = fs_xmalloc((P + 1) * sizeof *parent);
    uint32_t *stack = fs_xmalloc((P + 1) * sizeof *stack);
    bool cyclic = false;
    free(sm->cdg_cycle);
    sm->cdg_cycle = NULL;
    sm->ncdg_cycle = 0;
    for (uint32_t s = 0; s < P && !cyclic; s++) {
        if (color[s]) continue;
        uint32_t sp = 0;
        stack[sp++] = s;
        color[s] = 1;
        next[s] = 0;
        parent[s] = NET_NONE;
        while (sp && !cyclic) {
            uint32_t u = stack[sp - 1];
            uint32_t w = cdg_next(&g, u, &next[u]);
            if (w != NET_NONE) {
                if (!color[w]) {
                    color[w] = 1;
                    parent[w] = u;
                    next[w] = 0;
                    stack[sp++] = w;
                } else if (color[w] == 1) {
                    uint32_t len = 1;
                    for (uint32_t x = u; x != w; x = parent[x])
                        len++;
                    sm->cdg_cycle = fs_xmalloc(len * sizeof *sm->cdg_cycle);
                    sm->ncdg_cycle = len;
                    uint32_t i = len;
                    for (uint32_t x = u; x != w; x = parent[x])
                        sm->cdg_cycle[--i] = x;
                    sm->cdg_cycle[--i] = w;
                    cyclic = true;
                }
            } else {
                color[u] = 2;
                sp--;
            }
        }
    }
    free(g.woff);
    free(g.bits);
    free(g.cnt);
    free(g.srcof);
    free(color);
    free(next);
    free(parent);
    free(stack);
    return !cyclic;
}

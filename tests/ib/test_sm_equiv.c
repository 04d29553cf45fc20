/* tests/ib/test_sm_equiv.c
 *
 * The subnet manager's routing engines and CDG check (ctrl/sm_route.c)
 * against the implementation they replaced (issue 34): one search of the
 * fabric per LID, and every dependency edge appended, sorted and
 * deduplicated. That code is kept below, unchanged but for its names, as the
 * oracle. Every topology kind, every engine, on the whole fabric and after
 * random link failures (the re-sweep's case, unreachable parts included):
 * the LFTs must be identical entry for entry, the verdict and the reported
 * cycle too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ib_common.h"

#include "core/diag.h"
#include "core/mem.h"
#include "ctrl/sm.h"
#include "ctrl/sm_route.h"
#include "ctrl/sm_state.h"
#include "net/net.h"
#include "net/params.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- the reference: src/ctrl/sm_route.c before issue 34 ---- */

#define INF UINT32_MAX

static inline bool live(const struct net *n, uint32_t p) {
    return n->ports[p].up && n->ports[n->ports[p].peer].up;
}

static inline uint32_t far_node(const struct net *n, uint32_t p) {
    return n->ports[n->ports[p].peer].node;
}

/* Hop distance of every node to `t` over live links; only switches forward. */
static void bfs_to(const struct net *n, uint32_t t, uint32_t *dist, uint32_t *queue) {
    for (uint32_t v = 0; v < n->nnodes; v++)
        dist[v] = INF;
    uint32_t qh = 0, qt = 0;
    dist[t] = 0;
    queue[qt++] = t;
    while (qh < qt) {
        uint32_t w = queue[qh++];
        if (n->nodes[w].kind == NODE_HOST && w != t) continue;
        const struct node *nd = &n->nodes[w];
        for (uint32_t i = 0; i < nd->nports; i++) {
            uint32_t p = nd->first_port + i;
            if (!live(n, p)) continue;
            uint32_t v = far_node(n, p);
            if (dist[v] == INF) {
                dist[v] = dist[w] + 1;
                queue[qt++] = v;
            }
        }
    }
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

static void minhop_cands(struct rt *r, uint32_t v, uint32_t t, uint32_t *nc) {
    const struct net *n = r->n;
    const struct node *nd = &n->nodes[v];
    *nc = 0;
    for (uint32_t i = 0; i < nd->nports; i++) {
        uint32_t p = nd->first_port + i;
        if (!live(n, p)) continue;
        uint32_t w = far_node(n, p);
        if (r->dist[w] != INF && r->dist[w] + 1 == r->dist[v] &&
            (n->nodes[w].kind == NODE_SWITCH || w == t))
            r->cand[(*nc)++] = p;
    }
}

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

static uint32_t ftree_pick(struct rt *r, uint32_t v, uint32_t d, uint32_t nc) {
    const struct net *n = r->n;
    uint32_t L = n->nodes[v].level, nup = 0;
    uint32_t ups[256], downs[256], ndown = 0;
    for (uint32_t i = 0; i < nc && i < 256; i++) {
        if (n->nodes[far_node(n, r->cand[i])].level > L)
            ups[nup++] = r->cand[i];
        else
            downs[ndown++] = r->cand[i];
    }
    uint64_t k = d / r->div[L];
    return nup ? ups[k % nup] : ndown ? downs[k % ndown] : NET_NONE;
}

static int ref_route_compute(struct net *n, struct sm *sm, int engine, uint32_t *next) {
    uint32_t V = n->nnodes;
    struct rt r = {.n = n, .sm = sm};
    r.dist = fs_xmalloc((V + 1) * sizeof *r.dist);
    r.queue = fs_xmalloc((V + 1) * sizeof *r.queue);
    r.use = fs_xcalloc(n->nports + 1, sizeof *r.use);
    r.cand = fs_xmalloc((n->nports + 1) * sizeof *r.cand);
    if (engine == ENGINE_UPDN) {
        r.rank = fs_xmalloc((V + 1) * sizeof *r.rank);
        r.dd = fs_xmalloc((V + 1) * sizeof *r.dd);
        r.eff = fs_xmalloc((V + 1) * sizeof *r.eff);
        r.order = fs_xmalloc((sm->S + 1) * sizeof *r.order);
        updn_ranks(&r);
    }
    if (engine == ENGINE_FTREE) {
        r.div = fs_xcalloc(256, sizeof *r.div);
        ftree_divisors(&r);
    }
    for (uint32_t lid = 1; lid < sm->nlids; lid++) {
        bool host = lid <= sm->H;
        uint32_t t = host ? n->host_node[lid - 1] : sm->sw_node[lid - 1 - sm->H];
        bfs_to(n, t, r.dist, r.queue);
        if (host && engine == ENGINE_UPDN) updn_dist(&r, t);
        for (uint32_t s = 0; s < sm->S; s++) {
            uint32_t v = sm->sw_node[s], nc = 0, out;
            if (v == t) {
                out = SM_PORT_SELF;
            } else if (host && engine == ENGINE_UPDN) {
                updn_cands(&r, v, t, &nc);
                out = pick_balanced(r.cand, nc, r.use, true);
            } else if (host && engine == ENGINE_FTREE) {
                minhop_cands(&r, v, t, &nc);
                out = ftree_pick(&r, v, lid - 1, nc);
            } else {
                minhop_cands(&r, v, t, &nc);
                out = pick_balanced(r.cand, nc, r.use, host);
            }
            next[(size_t)s * sm->nlids + lid] = out;
        }
    }
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

static bool ref_cdg_check(struct net *n, struct sm *sm, uint32_t **cycle, uint32_t *ncycle) {
    uint32_t P = n->nports;
    size_t cap = 1024, ne = 0;
    uint64_t *e = fs_xmalloc(cap * sizeof *e);
    /* The rest of a route is fixed by (channel, destination): once a channel
     * was walked towards b, every source reaching it adds nothing new. */
    uint32_t *stamp = fs_xcalloc(P + 1, sizeof *stamp);
    for (uint32_t b = 0; b < sm->H; b++)
        for (uint32_t a = 0; a < sm->H; a++) {
            if (a == b) continue;
            uint32_t c = n->nodes[n->host_node[a]].first_port;
            uint32_t v = far_node(n, c);
            for (uint32_t hops = 0; hops <= n->nnodes && n->nodes[v].kind == NODE_SWITCH; hops++) {
                if (stamp[c] == b + 1) break;
                stamp[c] = b + 1;
                uint32_t out =
                    sm_lft_port(sm, n->nodes[v].index,
                                sm->next[(size_t)n->nodes[v].index * sm->nlids + sm_host_lid(b)]);
                if (out == NET_NONE || out == SM_PORT_SELF) break;
                fs_grow((void **)&e, &cap, ne + 1, sizeof *e);
                e[ne++] = ((uint64_t)c << 32) | out;
                c = out;
                v = far_node(n, out);
            }
        }
    free(stamp);
    qsort(e, ne, sizeof *e, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (!k || e[i] != e[k - 1]) e[k++] = e[i];
    ne = k;
    uint32_t *off = fs_xcalloc(P + 2, sizeof *off);
    for (size_t i = 0; i < ne; i++)
        off[(e[i] >> 32) + 1]++;
    for (uint32_t p = 0; p < P; p++)
        off[p + 1] += off[p];
    /* edges are sorted by source: the targets are in order already */
    uint8_t *color = fs_xcalloc(P + 1, 1);
    uint32_t *next = fs_xcalloc(P + 1, sizeof *next),
             *parent = fs_xmalloc((P + 1) * sizeof *parent);
    uint32_t *stack = fs_xmalloc((P + 1) * sizeof *stack);
    bool cyclic = false;
    *cycle = NULL;
    *ncycle = 0;
    for (uint32_t s = 0; s < P && !cyclic; s++) {
        if (color[s]) continue;
        uint32_t sp = 0;
        stack[sp++] = s;
        color[s] = 1;
        next[s] = off[s];
        parent[s] = NET_NONE;
        while (sp && !cyclic) {
            uint32_t u = stack[sp - 1];
            if (next[u] < off[u + 1]) {
                uint32_t w = (uint32_t)e[next[u]++];
                if (!color[w]) {
                    color[w] = 1;
                    parent[w] = u;
                    next[w] = off[w];
                    stack[sp++] = w;
                } else if (color[w] == 1) {
                    uint32_t len = 1;
                    for (uint32_t x = u; x != w; x = parent[x])
                        len++;
                    *cycle = fs_xmalloc(len * sizeof **cycle);
                    *ncycle = len;
                    uint32_t i = len;
                    for (uint32_t x = u; x != w; x = parent[x])
                        (*cycle)[--i] = x;
                    (*cycle)[--i] = w;
                    cyclic = true;
                }
            } else {
                color[u] = 2;
                sp--;
            }
        }
    }
    free(e);
    free(off);
    free(color);
    free(next);
    free(parent);
    free(stack);
    return !cyclic;
}

/* ---- the comparison ---- */

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* Routes and the CDG of the model's SM for `engine`, new against reference. */
static void compare(struct net *n, struct sm *sm, int engine, const char *what) {
    size_t cells = (size_t)sm->S * sm->nlids + 1;
    uint32_t *ref = fs_xmalloc(cells * sizeof *ref);
    if (!sm->next) sm->next = fs_xmalloc(cells); /* freed by the SM after its build */
    for (size_t i = 0; i < cells; i++) {
        ref[i] = NET_NONE;
        sm->next[i] = SM_LFT_NONE;
    }
    struct diag d = {0};
    assert_int_equal(sm_route_compute(n, sm, engine, &d), 0);
    ref_route_compute(n, sm, engine, ref);
    size_t diff = 0;
    for (uint32_t s = 0; s < sm->S; s++)
        for (uint32_t l = 0; l < sm->nlids; l++)
            diff += ref[(size_t)s * sm->nlids + l] !=
                    sm_lft_port(sm, s, sm->next[(size_t)s * sm->nlids + l]);
    if (diff) printf("%s engine %d: %zu LFT entries differ\n", what, engine, diff);
    assert_int_equal(diff, 0);
    /* both checks read the computed tables (sm->next) */
    uint32_t *cyc, ncyc;
    bool want = ref_cdg_check(n, sm, &cyc, &ncyc);
    bool got = sm_cdg_check(n, sm);
    assert_int_equal(got, want);
    assert_int_equal(sm->ncdg_cycle, ncyc);
    for (uint32_t i = 0; i < ncyc; i++)
        assert_int_equal(sm->cdg_cycle[i], cyc[i]);
    free(cyc);
    free(ref);
}

static void set_link(struct net *n, uint32_t p, bool up) {
    n->ports[p].up = up;
    n->ports[n->ports[p].peer].up = up;
}

static void check_topology(struct scenario *sc, const char *what) {
    int engines[] = {ENGINE_MINHOP, ENGINE_UPDN, ENGINE_FTREE};
    uint32_t cyclic = 0;
    for (int e = 0; e < 3; e++) {
        struct model m;
        struct diag d = {0};
        sc->fabric.routing_engine = engines[e];
        assert_int_equal(model_build(&m, sc, &d), 0);
        struct net *n = &m.net;
        struct sm *sm = sm_of(n);
        compare(n, sm, engines[e], what);
        cyclic += !sm->cdg_acyclic;
        /* Failures: 1, 2, 4 and 8 links down at random (switch-switch and
         * host links alike), the routes recomputed over what is left. */
        uint64_t seed = 0x34 + (uint64_t)e;
        for (uint32_t k = 1; k <= 8; k *= 2) {
            uint32_t *down = fs_xmalloc(k * sizeof *down);
            for (uint32_t i = 0; i < k; i++) {
                down[i] = (uint32_t)(lcg(&seed) % n->nports);
                set_link(n, down[i], false);
            }
            compare(n, sm, engines[e], what);
            cyclic += !sm->cdg_acyclic;
            for (uint32_t i = 0; i < k; i++)
                set_link(n, down[i], true);
            free(down);
        }
        model_fini(&m);
    }
    printf("%s: identical (%u cyclic CDGs among 15 routings)\n", what, cyclic);
}

static void test_equivalence(void **state) {
    (void)state;
    struct scenario sc;
    ib_scenario(&sc);
    ib_single_switch(&sc, 6);
    check_topology(&sc, "single_switch 6");
    ib_scenario(&sc);
    ib_leaf_spine(&sc, 4, 3, 3);
    sc.topo.uplinks_per_spine = 2;
    check_topology(&sc, "leaf_spine 4x3, 2 uplinks");
    ib_scenario(&sc);
    ib_leaf_spine(&sc, 8, 8, 8);
    check_topology(&sc, "leaf_spine 8x8x8");
    for (uint32_t k = 4; k <= 8; k += 2) {
        char name[32];
        snprintf(name, sizeof name, "fat_tree k=%u", k);
        ib_scenario(&sc);
        ib_fat_tree(&sc, k);
        check_topology(&sc, name);
    }
    ib_scenario(&sc);
    ib_ring(&sc, 5, 2);
    check_topology(&sc, "ring 5x2");
    ib_scenario(&sc);
    ib_ring(&sc, 6, 1);
    check_topology(&sc, "ring 6x1");
    ib_scenario(&sc);
    sc.topo.kind = TOPO_RAIL_OPTIMIZED;
    sc.topo.hosts = 4;
    sc.topo.gpus_per_host = 4;
    sc.topo.spines = 2;
    check_topology(&sc, "rail_optimized 4x4");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equivalence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

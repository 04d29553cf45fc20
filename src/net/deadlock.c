#include "net/deadlock.h"

#include "net/params.h"
#include "core/mem.h"
#include "net/hoq.h"
#include "net/net.h"
#include "net/dist.h"

#include <stdlib.h>
#include <string.h>

struct dl_state {
    sim_time_ps interval_ps;
    /* PFC watchdog interval (0 = off) and when the current run of looks that
     * found a cycle began (NEVER = the last look found none). */
    sim_time_ps watchdog_ps, cycle_since_ps;
    uint64_t *last_tx; /* tx_packets per port at the previous look */
    uint8_t *stuck, *color;
    uint32_t *adj_off, *adj, *parent, *stack;
    sim_time_ps next_ps; /* the pending look (a window boundary in parallel runs) */
};

void deadlock_start(struct net *n, sim_time_ps interval_ps) {
    if (!interval_ps) return;
    struct dl_state *st = fs_xcalloc(1, sizeof *st);
    st->interval_ps = interval_ps;
    if (n->sc->fabric.flow_control == FLOWCTL_PFC) st->watchdog_ps = n->sc->fabric.pfc.watchdog_ps;
    /* Credits: the HOQ lifetime discards what waits too long (net/hoq.c),
     * which ends a credit deadlock as the PFC watchdog ends a PFC one. */
    if (n->sc->fabric.flow_control == FLOWCTL_CREDIT) st->watchdog_ps = hoq_max_lifetime(n);
    st->cycle_since_ps = SIM_TIME_NEVER;
    st->last_tx = fs_xcalloc(n->nports + 1, sizeof *st->last_tx);
    st->stuck = fs_xcalloc(n->nports + 1, 1);
    st->color = fs_xcalloc(n->nports + 1, 1);
    st->adj_off = fs_xcalloc(n->nports + 2, sizeof *st->adj_off);
    st->parent = fs_xcalloc(n->nports + 1, sizeof *st->parent);
    st->stack = fs_xcalloc(n->nports + 1, sizeof *st->stack);
    n->deadlock_state = st;
    st->next_ps = n->sim->now_ps + interval_ps;
    sim_at(n->sim, st->next_ps, 0, NET_EV_DEADLOCK, 0, 0);
}

void deadlock_fini(struct net *n) {
    struct dl_state *st = n->deadlock_state;
    if (!st) return;
    free(st->last_tx);
    free(st->stuck);
    free(st->color);
    free(st->adj_off);
    free(st->adj);
    free(st->parent);
    free(st->stack);
    free(st);
    n->deadlock_state = NULL;
}

/* Calls fn(upstream port) for every port whose packets wait in port q. */
static uint32_t waiters(struct net *n, uint32_t q, uint32_t *out, uint32_t cap) {
    const struct port *pt = &n->ports[q];
    uint32_t cnt = 0;
    for (int c = 0; c < NET_NCLASS; c++)
        for (uint32_t id = pt->cls[c].head; id != PKT_NONE; id = pkt(&n->pool, id)->next) {
            uint32_t in = pkt(&n->pool, id)->in_port;
            if (in == NET_NONE) continue;
            uint32_t up = n->ports[in].peer;
            bool seen = false;
            for (uint32_t k = 0; k < cnt && !seen; k++)
                seen = out[k] == up;
            if (!seen && cnt < cap) out[cnt++] = up;
        }
    return cnt;
}

int deadlock_check(struct net *n) {
    struct dl_state *st = n->deadlock_state;
    uint32_t P = n->nports;
    for (uint32_t p = 0; p < P; p++) {
        const struct port *pt = &n->ports[p];
        st->stuck[p] = pt->up && pt->q_bytes > 0 && pt->tx_packets == st->last_tx[p] &&
                       n->nodes[pt->node].kind == NODE_SWITCH;
        st->last_tx[p] = pt->tx_packets;
    }
    /* Several ranks: each knows its own ports; the look is global. */
    net_or_bytes(n, st->stuck, P);
    /* Edges up -> q ("up waits for q"), both stuck. Stored as q's list of
     * waiters; the DFS walks from a port to the ports it waits on, so invert. */
    uint32_t *tmp = fs_xmalloc((P + 1) * sizeof *tmp);
    uint32_t nedges = 0;
    uint32_t *eu = NULL, *eq = NULL;
    size_t ecap = 0, ecap2 = 0;
    for (uint32_t q = 0; q < P; q++) {
        if (!st->stuck[q]) continue;
        uint32_t k = waiters(n, q, tmp, P);
        for (uint32_t i = 0; i < k; i++)
            if (st->stuck[tmp[i]]) {
                fs_grow((void **)&eu, &ecap, nedges + 1, sizeof *eu);
                fs_grow((void **)&eq, &ecap2, nedges + 1, sizeof *eq);
                eu[nedges] = tmp[i];
                eq[nedges] = q;
                nedges++;
            }
    }
    if (n->dist) nedges = n->dist->gather_edges(n, &eu, &eq, nedges);
    memset(st->adj_off, 0, (P + 2) * sizeof *st->adj_off);
    for (uint32_t e = 0; e < nedges; e++)
        st->adj_off[eu[e] + 2]++;
    for (uint32_t p = 0; p < P; p++)
        st->adj_off[p + 2] += st->adj_off[p + 1];
    free(st->adj);
    st->adj = fs_xmalloc((nedges + 1) * sizeof *st->adj);
    for (uint32_t e = 0; e < nedges; e++)
        st->adj[st->adj_off[eu[e] + 1]++] = eq[e];
    free(eu);
    free(eq);
    /* Iterative DFS for a back edge (white 0, grey 1, black 2). */
    memset(st->color, 0, P);
    int found = 0;
    for (uint32_t s = 0; s < P && !found; s++) {
        if (!st->stuck[s] || st->color[s]) continue;
        uint32_t sp = 0;
        st->stack[sp++] = s;
        st->color[s] = 1;
        tmp[s] = st->adj_off[s]; /* next edge to try */
        st->parent[s] = NET_NONE;
        while (sp && !found) {
            uint32_t u = st->stack[sp - 1];
            if (tmp[u] < st->adj_off[u + 1]) {
                uint32_t v = st->adj[tmp[u]++];
                if (st->color[v] == 0) {
                    st->color[v] = 1;
                    st->parent[v] = u;
                    tmp[v] = st->adj_off[v];
                    st->stack[sp++] = v;
                } else if (st->color[v] == 1) {
                    /* cycle v -> ... -> u -> v */
                    uint32_t len = 1;
                    for (uint32_t w = u; w != v; w = st->parent[w])
                        len++;
                    free(n->deadlock.cycle); /* a later look names the cycle again */
                    n->deadlock.cycle = fs_xmalloc(len * sizeof *n->deadlock.cycle);
                    n->deadlock.ncycle = len;
                    uint32_t i = len;
                    for (uint32_t w = u; w != v; w = st->parent[w])
                        n->deadlock.cycle[--i] = w;
                    n->deadlock.cycle[--i] = v;
                    found = 1;
                }
            } else {
                st->color[u] = 2;
                sp--;
            }
        }
    }
    free(tmp);
    if (found && !n->deadlock.detected) {
        n->deadlock.detected = true;
        n->deadlock.at_ps = n->sim->now_ps;
    }
    return found;
}

void deadlock_on_event(struct sim *s, const struct event *e) {
    (void)e;
    struct net *n = s->model;
    struct dl_state *st = n->deadlock_state;
    if (deadlock_check(n)) {
        /* Without a watchdog nothing can break the cycle: stop. A PFC
         * watchdog drops a queue paused for its interval and ignores pauses
         * for as long (flowctl/pfc.c), which frees the cycle: keep running
         * (the deadlock stays reported, with its first time) and stop only
         * when cycles have been found on every look for longer than the
         * watchdog plus one look, i.e. the watchdog did not break it. */
        if (st->cycle_since_ps == SIM_TIME_NEVER) st->cycle_since_ps = s->now_ps;
        if (!st->watchdog_ps ||
            s->now_ps - st->cycle_since_ps > st->watchdog_ps + st->interval_ps) {
            sim_stop(s);
            return;
        }
    } else {
        st->cycle_since_ps = SIM_TIME_NEVER;
    }
    st->next_ps = SIM_TIME_NEVER;
    if (net_sum_u64(n, n->work_pending + n->ctrl_pending) > 0) {
        st->next_ps = s->now_ps + st->interval_ps;
        sim_at(s, st->next_ps, 0, NET_EV_DEADLOCK, 0, 0);
    }
}

sim_time_ps deadlock_next_ps(const struct net *n) {
    const struct dl_state *st = n->deadlock_state;
    return st ? st->next_ps : SIM_TIME_NEVER;
}

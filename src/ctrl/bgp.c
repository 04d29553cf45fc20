/* src/ctrl/bgp.c
 *
 * A BGP-style distributed control plane for RoCEv2 fabrics (claim 3, Ethernet
 * side). When a link changes state, the switches at its ends notice only after
 * `control_plane.detect` (default the 9 s hold timer; BFD: 3 x 50 ms = 150 ms;
 * domain.md A10), recompute (`proc`), and advertise the withdrawal; each
 * further switch whose best paths change learns it one hop later, after the
 * advertisement interval (`mrai`), the link's propagation and its own
 * processing. Until a switch has converged it forwards with its old next-hop
 * sets, so what it hashes onto the dead link (or to a neighbour that lost its
 * route) is lost. The converged state is the shortest-path FIB on the live
 * links (route_fib_build), applied switch by switch through route/live.c.
 * cp_rows[].rerouted_ps is when the last switch converged.
 *
 * Left out: path hunting and MRAI batching of several updates, BGP sessions
 * themselves (the hold timer is just the detection delay), route flap damping.
 */
#include "ctrl/ctrl.h"

#include "config/scenario.h"
#include "core/diag.h"
#include "core/mem.h"
#include "net/net.h"
#include "route/route.h"

#include <stdlib.h>

struct bgp_state {
    uint32_t *dist, *queue; /* per node: hops from the failed link's switches */
    uint32_t pending;       /* switches not yet converged */
    uint32_t cp_row;        /* row being timed, NET_NONE if none */
    uint16_t gen;
    sim_time_ps last_ps;
    uint32_t last_port;
};

static void on_converge(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct bgp_state *st = n->ctrl_state;
    if (e->aux != st->gen) return;
    struct route_live *lv = n->route_state;
    uint32_t idx = n->nodes[e->arg].index;
    if (!lv->stale[idx]) return;
    lv->stale[idx] = 0;
    if (--st->pending == 0 && st->cp_row != NET_NONE) {
        n->cp_rows[st->cp_row].rerouted_ps = s->now_ps;
        st->cp_row = NET_NONE;
    }
}

static void bgp_on_link_change(struct net *n, uint32_t port, bool up) {
    struct bgp_state *st = n->ctrl_state;
    const struct control_plane_params *cp = &n->sc->fabric.control_plane;
    sim_time_ps now = n->sim->now_ps;
    if (now == st->last_ps && n->ports[port].peer == st->last_port)
        return; /* the other direction of the same link */
    st->last_ps = now;
    st->last_port = port;
    st->gen++;
    route_live_snapshot(n);
    route_fib_build(n);
    /* Which row of results.json's control_plane this change closes. */
    st->cp_row = NET_NONE;
    for (uint32_t i = 0; i < n->ncp_rows; i++) {
        const struct cp_row *r = &n->cp_rows[i];
        if (!up && r->at_ps == now && (r->port == port || r->port == n->ports[port].peer))
            st->cp_row = i;
    }
    /* Hop distance of every switch from the link's switch ends. */
    uint32_t qh = 0, qt = 0;
    for (uint32_t v = 0; v < n->nnodes; v++)
        st->dist[v] = UINT32_MAX;
    uint32_t ends[2] = {n->ports[port].node, n->ports[n->ports[port].peer].node};
    for (int i = 0; i < 2; i++)
        if (n->nodes[ends[i]].kind == NODE_SWITCH && st->dist[ends[i]] == UINT32_MAX) {
            st->dist[ends[i]] = 0;
            st->queue[qt++] = ends[i];
        }
    while (qh < qt) {
        uint32_t v = st->queue[qh++];
        const struct node *nd = &n->nodes[v];
        for (uint32_t i = 0; i < nd->nports; i++) {
            const struct port *p = &n->ports[nd->first_port + i];
            uint32_t w = n->ports[p->peer].node;
            if (p->up && n->nodes[w].kind == NODE_SWITCH && st->dist[w] == UINT32_MAX) {
                st->dist[w] = st->dist[v] + 1;
                st->queue[qt++] = w;
            }
        }
    }
    struct route_live *lv = n->route_state;
    st->pending = 0;
    sim_time_ps prop = n->sc->fabric.propagation_ps, latest = now;
    for (uint32_t v = 0; v < n->nnodes; v++) {
        if (n->nodes[v].kind != NODE_SWITCH) continue;
        if (!route_live_differs(n, v)) {
            lv->stale[n->nodes[v].index] = 0; /* nothing to learn */
            continue;
        }
        uint64_t hops = st->dist[v] == UINT32_MAX ? 0 : st->dist[v];
        sim_time_ps t =
            now + cp->detect_ps + cp->proc_ps + hops * (cp->mrai_ps + prop + cp->proc_ps);
        st->pending++;
        if (t > latest) latest = t;
        sim_at(n->sim, t, v + 1, NET_EV_CTRL, v, st->gen);
    }
    if (st->pending == 0 && st->cp_row != NET_NONE) n->cp_rows[st->cp_row].rerouted_ps = now;
    if (latest > n->ctrl_busy_until_ps) n->ctrl_busy_until_ps = latest; /* net/stuck.c */
}

static int bgp_init(struct net *n, struct diag *d) {
    (void)d;
    struct bgp_state *st = fs_xcalloc(1, sizeof *st);
    st->dist = fs_xcalloc(n->nnodes + 1, sizeof *st->dist);
    st->queue = fs_xcalloc(n->nnodes + 1, sizeof *st->queue);
    st->cp_row = NET_NONE;
    st->last_ps = SIM_TIME_NEVER;
    n->ctrl_state = st;
    sim_register(n->sim, NET_EV_CTRL, on_converge);
    return 0;
}

static void bgp_fini(struct net *n) {
    struct bgp_state *st = n->ctrl_state;
    if (!st) return;
    free(st->dist);
    free(st->queue);
    free(st);
    n->ctrl_state = NULL;
}

const struct ctrl_ops ctrl_bgp_ops = {
    .name = "bgp",
    .init = bgp_init,
    .fini = bgp_fini,
    .on_link_change = bgp_on_link_change,
};

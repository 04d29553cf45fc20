/* src/ctrl/bgp.c
 *
 * A BGP-style distributed control plane for RoCEv2 fabrics (claim 3, Ethernet
 * side), as RFC 7938 runs it in a Clos: eBGP on every link, one AS per leaf,
 * the spines of a tier sharing one (docs/sources.md A12).
 *
 * Port down (link_down, a flap's down phase): each of the two switches on
 * the link drops the port from its ECMP groups in hardware
 * `control_plane.port_down_delay` after the link went down (docs/sources.md A12:
 * us-ms). With fast-external-fallover (default on) the eBGP session resets at
 * once and the switch withdraws what it can no longer reach after `proc`;
 * without it the session waits for the hold timer (`detect`). Each further
 * switch whose best paths change learns it one hop later: the advertisement
 * interval (`mrai`), the link's propagation and its own processing.
 *
 * Gray failure (link_gray: the link stays up but loses packets): nothing in
 * hardware notices; BFD or the hold timer (`detect`, model.c) finds it, the
 * session goes down and the withdrawal spreads as above from then on.
 *
 * Until a switch has converged it forwards with its old next-hop sets (minus
 * its own ports pruned in hardware), so what it hashes onto the dead link, or
 * to a neighbour that lost its route, is lost. The converged state is the
 * valley-free shortest-path FIB on the live links (route/fib.c with
 * n->fib_updown): AS-path loop prevention
 * keeps a spine from routing down-up-down through another leaf (RFC 7938
 * section 5.2), so a spine cut from a leaf withdraws that leaf's prefixes
 * instead of detouring. Convergence holds the run open (results.json
 * control_plane[].rerouted_at_ns, `converged`).
 *
 * Left out: path hunting and MRAI batching of several updates, BGP session
 * set-up after a link comes back (taken as `proc`), route flap damping.
 */
#include "ctrl/ctrl.h"

#include "net/params.h"
#include "core/diag.h"
#include "core/mem.h"
#include "net/net.h"
#include "route/route.h"

#include <stdlib.h>
#include <string.h>

struct bgp_state {
    uint32_t *dist, *queue; /* per node: hops from the changed link's switches */
    uint32_t pending;       /* switches not yet converged */
    uint16_t gen;
    bool held;    /* holds the run open (net_ctrl_hold) while switches converge */
    bool layered; /* every switch-switch link joins two tiers: up/down is defined */
    sim_time_ps last_ps, changed_ps;
    uint32_t last_port;
};

/* Every change converged: close the control_plane rows it answers (every
 * row up to the last change that is not a gray failure still unnoticed). */
static void converged(struct net *n, struct bgp_state *st) {
    sim_time_ps now = n->sim->now_ps;
    for (uint32_t i = 0; i < n->ncp_rows; i++) {
        struct cp_row *r = &n->cp_rows[i];
        if (r->rerouted_ps != SIM_TIME_NEVER || r->at_ps > st->changed_ps) continue;
        if (r->event == EV_LINK_GRAY && r->detected_ps == SIM_TIME_NEVER) continue;
        r->rerouted_ps = now;
    }
    if (st->held) {
        st->held = false;
        net_ctrl_release(n);
    }
}

static void on_converge(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct bgp_state *st = n->ctrl_state;
    if (e->aux != st->gen) return;
    struct route_live *lv = n->route_state;
    uint32_t idx = n->nodes[e->arg].index;
    if (!lv->stale[idx]) return;
    lv->stale[idx] = 0;
    if (--st->pending == 0) converged(n, st);
}

static void bgp_on_link_change(struct net *n, uint32_t port, bool up) {
    struct bgp_state *st = n->ctrl_state;
    const struct control_plane_params *cp = &n->sc->fabric.control_plane;
    sim_time_ps now = n->sim->now_ps;
    if (now == st->last_ps && n->ports[port].peer == st->last_port)
        return; /* the other direction of the same link */
    st->last_ps = st->changed_ps = now;
    st->last_port = port;
    st->gen++;
    route_live_snapshot(n);
    n->fib_updown = st->layered; /* valley-free (route/fib.c) */
    route_fib_build(n);
    /* When the switches at the link's ends act: a port that went down is
     * pruned in hardware, and its session resets at once (fast fallover) or
     * at the hold timer; a gray link found by BFD / the hold timer, and a link
     * that came back, start with the session change itself. */
    sim_time_ps start = now + cp->proc_ps;
    if (!up && n->ctrl_cause == CTRL_CAUSE_PORT) {
        for (uint32_t i = 0; i < n->ncp_rows; i++) {
            struct cp_row *r = &n->cp_rows[i];
            if (r->at_ps == now && (r->port == port || r->port == n->ports[port].peer) &&
                r->local_rerouted_ps == SIM_TIME_NEVER)
                r->local_rerouted_ps = now + cp->port_down_ps;
        }
        start = (cp->fast_fallover ? now + cp->port_down_ps : now + cp->detect_ps) + cp->proc_ps;
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
        sim_time_ps t = start + hops * (cp->mrai_ps + prop + cp->proc_ps);
        if (t > latest) latest = t;
        st->pending++;
        sim_at(n->sim, t, v + 1, NET_EV_CTRL, v, st->gen);
    }
    if (st->pending == 0) {
        converged(n, st);
    } else if (!st->held) {
        st->held = true; /* the run goes on until every switch converged */
        net_ctrl_hold(n);
    }
    if (latest > n->ctrl_busy_until_ps) n->ctrl_busy_until_ps = latest; /* net/stuck.c */
}

static int bgp_init(struct net *n, struct diag *d) {
    (void)d;
    struct bgp_state *st = fs_xcalloc(1, sizeof *st);
    st->dist = fs_xcalloc(n->nnodes + 1, sizeof *st->dist);
    st->queue = fs_xcalloc(n->nnodes + 1, sizeof *st->queue);
    st->last_ps = SIM_TIME_NEVER;
    st->layered = route_layered(n);
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

/* src/route/live.c
 *
 * Per-switch forwarding views while a distributed control plane converges
 * (ctrl/bgp.c). After a link changes state the global FIB is recomputed at
 * once, but each switch keeps forwarding with the sets it had before until
 * the news has reached it and it has processed it. ECMP and spray read their
 * candidate ports through route_live_get; the state is the first member of
 * their route_state.
 */
#include "route/route.h"

#include "core/mem.h"
#include "config/scenario.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

void route_live_init(struct route_live *lv, const struct net *n) {
    memset(lv, 0, sizeof *lv);
    lv->stale = fs_xcalloc(n->nswitches + 1, 1);
    uint32_t deg = 1;
    for (uint32_t v = 0; v < n->nnodes; v++)
        if (n->nodes[v].nports > deg) deg = n->nodes[v].nports;
    lv->scratch = fs_xcalloc(deg, sizeof *lv->scratch);
    lv->prune_ps = n->sc && n->sc->fabric.control_plane.kind == CP_BGP
                       ? n->sc->fabric.control_plane.port_down_ps
                       : SIM_TIME_NEVER;
}

void route_live_fini(struct route_live *lv) {
    free(lv->old_off);
    free(lv->old_ports);
    free(lv->stale);
    free(lv->scratch);
    memset(lv, 0, sizeof *lv);
}

void route_live_snapshot(struct net *n) {
    struct route_live *lv = n->route_state;
    size_t keys = (size_t)n->nswitches * n->nhosts + 1;
    bool any_stale = false;
    for (uint32_t s = 0; s < n->nswitches; s++)
        any_stale |= lv->stale[s] != 0;
    /* A change during convergence: switches still stale keep the older view. */
    if (!any_stale || !lv->old_off) {
        free(lv->old_off);
        free(lv->old_ports);
        lv->old_off = fs_xmalloc(keys * sizeof *lv->old_off);
        memcpy(lv->old_off, n->fib_off, keys * sizeof *lv->old_off);
        size_t len = n->fib_off[keys - 1];
        lv->old_ports = fs_xmalloc((len + 1) * sizeof *lv->old_ports);
        memcpy(lv->old_ports, n->fib_ports, len * sizeof *lv->old_ports);
    }
    memset(lv->stale, 1, n->nswitches);
}

uint32_t route_live_get(const struct net *n, uint32_t sw, uint32_t host, const uint32_t **ports) {
    const struct route_live *lv = n->route_state;
    uint32_t s = n->nodes[sw].index;
    if (!lv->stale[s]) return route_fib_get(n, sw, host, ports);
    size_t key = (size_t)s * n->nhosts + host;
    const uint32_t *old = lv->old_ports + lv->old_off[key];
    uint32_t c = lv->old_off[key + 1] - lv->old_off[key], k = 0;
    *ports = old;
    if (lv->prune_ps == SIM_TIME_NEVER) return c;
    /* Its own ports that went down leave the ECMP group in hardware. */
    sim_time_ps now = n->sim->now_ps;
    bool pruned = false;
    for (uint32_t i = 0; i < c && !pruned; i++) {
        const struct port *p = &n->ports[old[i]];
        pruned = !p->up && p->down_ps + lv->prune_ps <= now;
    }
    if (!pruned) return c;
    for (uint32_t i = 0; i < c; i++) {
        const struct port *p = &n->ports[old[i]];
        if (p->up || p->down_ps + lv->prune_ps > now) lv->scratch[k++] = old[i];
    }
    *ports = lv->scratch;
    return k;
}

bool route_live_differs(const struct net *n, uint32_t sw) {
    const struct route_live *lv = n->route_state;
    uint32_t s = n->nodes[sw].index;
    for (uint32_t h = 0; h < n->nhosts; h++) {
        size_t key = (size_t)s * n->nhosts + h;
        uint32_t a = lv->old_off[key + 1] - lv->old_off[key];
        uint32_t b = n->fib_off[key + 1] - n->fib_off[key];
        if (a != b || memcmp(lv->old_ports + lv->old_off[key], n->fib_ports + n->fib_off[key],
                             a * sizeof *lv->old_ports) != 0)
            return true;
    }
    return false;
}

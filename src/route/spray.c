/* src/route/spray.c
 *
 * Per-packet spraying, Spectrum-X style (docs/sources.md A11): each switch sends
 * every packet to the least-loaded of its equal-cost next hops (fewest bytes
 * waiting in the egress queue; ties broken round robin per switch). Packets
 * of one QP take different paths and arrive out of order; the receiving NIC's
 * reorder buffer (net/reorder.c, fabric.reorder_buffer) puts them back.
 */
#include "route/route.h"

#include "core/mem.h"
#include "net/net.h"

#include <stdlib.h>

struct spray_state {
    struct route_live live; /* first: see route/live.c */
    uint32_t *rr;           /* per switch: tie-break rotation */
};

static int spray_init(struct net *n, struct diag *d) {
    (void)d;
    struct spray_state *st = fs_xcalloc(1, sizeof *st);
    n->route_state = st;
    route_live_init(&st->live, n);
    st->rr = fs_xcalloc(n->nswitches + 1, sizeof *st->rr);
    return 0;
}

static void spray_fini(struct net *n) {
    struct spray_state *st = n->route_state;
    if (!st) return;
    route_live_fini(&st->live);
    free(st->rr);
    free(st);
    n->route_state = NULL;
}

static uint32_t spray_select(struct net *n, uint32_t sw, const struct packet *p) {
    struct spray_state *st = n->route_state;
    const uint32_t *ports;
    uint32_t c = route_live_get(n, sw, n->nodes[p->dst].index, &ports);
    if (c <= 1) return c ? ports[0] : NET_NONE;
    uint32_t s = n->nodes[sw].index, start = st->rr[s]++ % c, best = NET_NONE;
    uint64_t best_q = UINT64_MAX;
    sim_time_ps now = n->sim->now_ps;
    for (uint32_t k = 0; k < c; k++) {
        uint32_t port = ports[(start + k) % c];
        const struct port *pt = &n->ports[port];
        if (!pt->up) continue;
        /* Load = waiting bytes plus one packet if the transmitter is busy. */
        uint64_t q = pt->q_bytes + (pt->busy_until_ps > now ? n->mtu_bytes : 0);
        if (q < best_q) {
            best_q = q;
            best = port;
        }
    }
    return best != NET_NONE ? best : ports[start];
}

const struct route_ops route_spray_ops = {
    .name = "spray",
    .init = spray_init,
    .fini = spray_fini,
    .select = spray_select,
};

/* src/route/adaptive.c
 *
 * InfiniBand adaptive routing (docs/sources.md A10: the switch "selects output port
 * by port load/queue among an AR group (TREE: all min-hop ports)"), per
 * packet: among the minimal output ports that are up, the one with the fewest
 * bytes waiting; ties are broken by a per-switch RNG stream seeded from the
 * scenario seed, so runs repeat exactly. Packets of one QP may then arrive out
 * of order: the receiving NIC keeps a window of PSNs (net/nic.c, n->ooo_window)
 * and acknowledges cumulatively; a hole that stays open for
 * fabric.reorder_timeout is NAKed (net/nic.c rx_hole_*), and go-back-N
 * resends from it.
 *
 * Left out: ARN/FRN notifications between switches, AR groups other than
 * TREE (LAG, DF_PLUS), and any per-flow stickiness.
 */
#include "net/params.h"
#include "core/mem.h"
#include "core/rng.h"
#include "net/net.h"
#include "route/route.h"

#include <stdlib.h>

struct ar_state {
    struct rng *rng; /* per switch index */
};

static int ar_init(struct net *n, struct diag *d) {
    (void)d;
    struct ar_state *st = fs_xcalloc(1, sizeof *st);
    st->rng = fs_xcalloc(n->nswitches + 1, sizeof *st->rng);
    for (uint32_t v = 0; v < n->nnodes; v++)
        if (n->nodes[v].kind == NODE_SWITCH)
            rng_seed(&st->rng[n->nodes[v].index], n->sc->seed, v + 1, 7);
    n->route_state = st;
    uint32_t w = n->sc->fabric.reorder_window_pkts ? n->sc->fabric.reorder_window_pkts
                                                   : NET_OOO_WINDOW_DEFAULT;
    n->ooo_window = (w + 63) / 64 * 64;
    return 0;
}

static void ar_fini(struct net *n) {
    struct ar_state *st = n->route_state;
    if (!st) return;
    free(st->rng);
    free(st);
    n->route_state = NULL;
}

static uint32_t ar_select(struct net *n, uint32_t sw, const struct packet *p) {
    struct ar_state *st = n->route_state;
    const uint32_t *ports;
    uint32_t c = route_fib_get(n, sw, n->nodes[p->dst].index, &ports);
    uint32_t best = NET_NONE, ties = 0;
    uint64_t best_q = UINT64_MAX;
    for (uint32_t i = 0; i < c; i++) {
        const struct port *pt = &n->ports[ports[i]];
        if (!pt->up) continue;
        uint64_t q = pt->q_bytes;
        if (q < best_q) {
            best_q = q;
            best = ports[i];
            ties = 1;
        } else if (q == best_q) {
            /* reservoir choice among equals: uniform without a second pass */
            ties++;
            if (rng_below(&st->rng[n->nodes[sw].index], ties) == 0) best = ports[i];
        }
    }
    return best;
}

const struct route_ops route_adaptive_ops = {
    .name = "adaptive",
    .init = ar_init,
    .fini = ar_fini,
    .select = ar_select,
};

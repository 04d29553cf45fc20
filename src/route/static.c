/* src/route/static.c
 *
 * Static forwarding: one output port per (switch, destination), as in an
 * InfiniBand linear forwarding table. Until the subnet manager's routing
 * engines fill the table (ctrl/), it is derived from the shortest-path sets:
 * destination d takes candidate d mod count, which spreads destinations over
 * equal-cost uplinks the way OpenSM's minhop balancing does on a regular tree.
 */
#include "net/params.h"
#include "core/diag.h"
#include "core/mem.h"
#include "net/net.h"
#include "route/route.h"

#include <stdlib.h>

static void lft_from_fib(struct net *n) {
    free(n->lft);
    n->lft = fs_xmalloc(((size_t)n->nswitches * n->nhosts + 1) * sizeof *n->lft);
    for (uint32_t v = 0; v < n->nnodes; v++) {
        if (n->nodes[v].kind != NODE_SWITCH) continue;
        FS_ASSERT(n->nodes[v].nports < UINT16_MAX, "switch of %u ports", n->nodes[v].nports);
        for (uint32_t h = 0; h < n->nhosts; h++) {
            const uint32_t *ports;
            uint32_t c = route_fib_get(n, v, h, &ports);
            net_lft_set(n, n->nodes[v].index, v, h, c ? ports[h % c] : NET_NONE);
        }
    }
}

static int static_init(struct net *n, struct diag *d) {
    (void)d;
    if (!n->lft) lft_from_fib(n);
    return 0;
}

static uint32_t static_select(struct net *n, uint32_t sw, const struct packet *p) {
    return net_lft_get(n, n->nodes[sw].index, sw, n->nodes[p->dst].index);
}

/* route_ops.warm / guess: the LFT entry, then the entry itself. */
static void static_warm(const struct net *n, uint32_t sw, const struct packet *p) {
    __builtin_prefetch(net_lft_entry(n, n->nodes[sw].index, n->nodes[p->dst].index));
}
static uint32_t static_guess(const struct net *n, uint32_t sw, const struct packet *p) {
    return net_lft_get(n, n->nodes[sw].index, sw, n->nodes[p->dst].index);
}

const struct route_ops route_static_ops = {
    .name = "static",
    .init = static_init,
    .select = static_select,
    .warm = static_warm,
    .guess = static_guess,
};

const struct route_ops *route_select(const struct net *n, struct diag *d) {
    (void)d;
    switch (n->sc->fabric.routing) {
    case ROUTING_STATIC:
        return &route_static_ops;
    case ROUTING_ADAPTIVE:
        return &route_adaptive_ops;
    case ROUTING_ECMP:
        return &route_ecmp_ops;
    case ROUTING_SPRAY:
        return &route_spray_ops;
    }
    return NULL;
}

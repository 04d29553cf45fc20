/* src/route/ecmp-inl.h
 *
 * ECMP's choice (route/ecmp.c), inline: the forwarding path (net/switch.h)
 * and the event loop's warm-up (net/warm.h) call these directly when the
 * policy in force says it has them (n->route_fast & ROUTE_FAST_ECMP: it is
 * route_ecmp_ops), instead of through route_ops' pointers (an indirect
 * call, a frame and the state's loads again per switch hop;
 * docs/performance.md "ECMP inline, the warm-up by size"). Header-only over
 * the FIB and the live views (route/fib.h, route/live.h), calling nothing of
 * ecmp.c: net/ inlines it without depending on the policy module
 * (docs/architecture.md, tools/layers.py).
 */
#ifndef FABSIM_ROUTE_ECMP_INL_H
#define FABSIM_ROUTE_ECMP_INL_H

#include "net/packet.h"
#include "route/route.h"

struct ecmp_state {
    struct route_live live; /* first: ctrl/bgp.c reaches it via route_state */
    uint32_t *seed;         /* per switch node (by node id): its hash seed */
};

/* 32-bit finaliser of MurmurHash3 (Appleby, public domain). */
static inline uint32_t ecmp_mix(uint32_t h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* route_ops.select: the output port at switch node `sw` for `p`. */
static inline __attribute__((always_inline)) uint32_t
ecmp_select_inline(const struct net *n, uint32_t sw, const struct packet *p) {
    const struct ecmp_state *st = n->route_state;
    const uint32_t *ports;
    uint32_t c = route_live_get_node(n, sw, p->dst, &ports);
    if (c == 0) return NET_NONE;
    if (c == 1) return ports[0];
    /* Bucket from the hash's high bits (multiply-shift, no modulo bias). */
    return ports[(uint32_t)(((uint64_t)ecmp_mix(p->flow_hash ^ st->seed[sw]) * c) >> 32)];
}

/* route_ops.warm: the FIB line ecmp_select will read (none while the
 * switch forwards with its old view: that path is rare and slow anyway). */
static inline void ecmp_warm_inline(const struct net *n, uint32_t sw, const struct packet *p) {
    const struct route_live *lv = n->route_state;
    const struct route_fib *f = n->fib;
    if (lv->old && route_live_stale(lv, n->nodes[sw].index)) return;
    __builtin_prefetch(&f->grp[f->node_row[sw] + f->node_group[p->dst]]);
}

/* route_ops.guess: ecmp_select without the stale view's pruning (which
 * writes a scratch set). */
static inline uint32_t ecmp_guess_inline(const struct net *n, uint32_t sw, const struct packet *p) {
    const struct ecmp_state *st = n->route_state;
    const uint32_t *ports;
    if (st->live.old && route_live_stale(&st->live, n->nodes[sw].index)) return NET_NONE;
    uint32_t c = route_fib_lookup_node(n->fib, n, sw, p->dst, &ports);
    if (c <= 1) return c ? ports[0] : NET_NONE;
    return ports[(uint32_t)(((uint64_t)ecmp_mix(p->flow_hash ^ st->seed[sw]) * c) >> 32)];
}

#endif /* FABSIM_ROUTE_ECMP_INL_H */

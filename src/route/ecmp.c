/* src/route/ecmp.c
 *
 * Equal-cost multi-path forwarding as Ethernet switches do it for RoCEv2:
 * every switch hashes the packet's 5-tuple (source and destination IP =
 * node ids, UDP source port = the QP's entropy, UDP destination port 4791,
 * protocol 17; domain.md A1) and takes that bucket among its equal-cost
 * next hops (route_live_get: the FIB as this switch currently sees it). All
 * packets of a QP hash alike, so a flow keeps its path and two flows that
 * collide stay collided (domain.md A11, V10).
 *
 * The hash is Toeplitz (the RSS hash of NICs and of many switch ASICs) with a
 * 136-bit key per switch drawn from the seeded RNG. Distinct keys make the
 * tiers' choices independent; `fabric.ecmp_same_seed` gives every switch the
 * same key, and a flow that one tier sent to bucket b is sent to bucket b
 * again by the next: hash polarisation.
 */
#include "route/route.h"

#include "config/scenario.h"
#include "core/mem.h"
#include "core/rng.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

#define ECMP_TUPLE_BYTES 13 /* src IP 4, dst IP 4, src port 2, dst port 2, proto 1 */
#define ECMP_KEY_BYTES 20   /* Toeplitz: input bits + 32, rounded up */
#define ROCE_UDP_PORT 4791  /* RoCEv2 (domain.md A1) */
#define IPPROTO_UDP_NUM 17
#define ECMP_RNG_STREAM 0x45434d50u /* "ECMP" */

struct ecmp_state {
    struct route_live live; /* first: ctrl/bgp.c reaches it via route_state */
    uint32_t *tail;         /* per switch: the constant tail's contribution (dst port, proto) */
    uint32_t *tab;          /* per switch: [2 * ECMP_TUPLE_BYTES][16] Toeplitz contributions
                               of each input nibble (1.6 KiB per switch: 256-entry byte tables
                               would cost 13 KiB per switch, most of a host's memory budget) */
};

/* Toeplitz contribution of nibble value v at input nibble position j. */
static uint32_t toeplitz_nibble(const uint8_t *key, uint32_t j, uint32_t v) {
    uint32_t r = 0;
    for (uint32_t b = 0; b < 4; b++) {
        if (!(v & (0x8u >> b))) continue;
        uint32_t bit = j * 4 + b, k = bit / 8, sh = bit % 8;
        uint64_t w = ((uint64_t)key[k] << 32) | ((uint64_t)key[k + 1] << 24) |
                     ((uint64_t)key[k + 2] << 16) | ((uint64_t)key[k + 3] << 8) | key[k + 4];
        r ^= (uint32_t)(w >> (8 - sh));
    }
    return r;
}

static void fill_table(uint32_t *tab, const uint8_t *key) {
    for (uint32_t j = 0; j < 2 * ECMP_TUPLE_BYTES; j++)
        for (uint32_t v = 0; v < 16; v++)
            tab[j * 16 + v] = toeplitz_nibble(key, j, v);
}

static int ecmp_init(struct net *n, struct diag *d) {
    (void)d;
    struct ecmp_state *st = fs_xcalloc(1, sizeof *st);
    n->route_state = st;
    route_live_init(&st->live, n);
    size_t per = (size_t)ECMP_TUPLE_BYTES * 2 * 16;
    st->tab = fs_xmalloc(((size_t)n->nswitches + 1) * per * sizeof *st->tab);
    st->tail = fs_xmalloc(((size_t)n->nswitches + 1) * sizeof *st->tail);
    for (uint32_t s = 0; s < n->nswitches; s++) {
        struct rng r;
        /* Per-switch key; with ecmp_same_seed every switch draws switch 0's. */
        rng_seed(&r, n->sc->seed, n->sc->fabric.ecmp_same_seed ? 0 : s + 1, ECMP_RNG_STREAM);
        uint8_t key[ECMP_KEY_BYTES];
        for (uint32_t i = 0; i < ECMP_KEY_BYTES; i++)
            key[i] = (uint8_t)rng_next(&r);
        uint32_t *t = st->tab + (size_t)s * per;
        fill_table(t, key);
        const uint8_t tail[3] = {ROCE_UDP_PORT >> 8, ROCE_UDP_PORT & 0xff, IPPROTO_UDP_NUM};
        st->tail[s] = 0;
        for (uint32_t j = 10; j < ECMP_TUPLE_BYTES; j++)
            st->tail[s] ^=
                t[(2 * j) * 16 + (tail[j - 10] >> 4)] ^ t[(2 * j + 1) * 16 + (tail[j - 10] & 15)];
    }
    return 0;
}

static void ecmp_fini(struct net *n) {
    struct ecmp_state *st = n->route_state;
    if (!st) return;
    route_live_fini(&st->live);
    free(st->tab);
    free(st->tail);
    free(st);
    n->route_state = NULL;
}

uint32_t ecmp_hash(const struct net *n, uint32_t sw, const struct packet *p) {
    const struct ecmp_state *st = n->route_state;
    const uint32_t *t = st->tab + (size_t)n->nodes[sw].index * ECMP_TUPLE_BYTES * 2 * 16;
    uint8_t in[ECMP_TUPLE_BYTES] = {
        (uint8_t)(p->src >> 24), (uint8_t)(p->src >> 16), (uint8_t)(p->src >> 8),
        (uint8_t)p->src,         (uint8_t)(p->dst >> 24), (uint8_t)(p->dst >> 16),
        (uint8_t)(p->dst >> 8),  (uint8_t)p->dst,         (uint8_t)(p->entropy >> 8),
        (uint8_t)p->entropy,     ROCE_UDP_PORT >> 8,      ROCE_UDP_PORT & 0xff,
        IPPROTO_UDP_NUM};
    /* Toeplitz is linear over the input bits: the constant tail (UDP
     * destination port, protocol) contributes the same word to every packet
     * at this switch, and the table's row for a zero nibble is 0, so node ids
     * below 2^24 leave the address bytes' top nibbles out. Same value as the
     * full sum, in 18 lookups instead of 26. */
    uint32_t h = st->tail[n->nodes[sw].index];
    for (uint32_t j = 0; j < 10; j++) {
        if (j == 0 || j == 4) {
            if (!in[j]) continue;
        }
        h ^= t[(2 * j) * 16 + (in[j] >> 4)] ^ t[(2 * j + 1) * 16 + (in[j] & 15)];
    }
    return h;
}

static uint32_t ecmp_select(struct net *n, uint32_t sw, const struct packet *p) {
    const uint32_t *ports;
    uint32_t c = route_live_get(n, sw, n->nodes[p->dst].index, &ports);
    if (c == 0) return NET_NONE;
    if (c == 1) return ports[0];
    /* Bucket from the hash's high bits (multiply-shift, no modulo bias). */
    return ports[(uint32_t)(((uint64_t)ecmp_hash(n, sw, p) * c) >> 32)];
}

const struct route_ops route_ecmp_ops = {
    .name = "ecmp",
    .init = ecmp_init,
    .fini = ecmp_fini,
    .select = ecmp_select,
};

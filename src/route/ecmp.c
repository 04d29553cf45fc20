/* src/route/ecmp.c
 *
 * Equal-cost multi-path forwarding as Ethernet switches do it for RoCEv2:
 * every switch hashes the packet's 5-tuple (source and destination IP =
 * node ids, UDP source port = the QP's entropy, UDP destination port 4791,
 * protocol 17; docs/sources.md A1) with its own seed and takes that bucket among
 * its equal-cost next hops (route_live_get: the FIB as this switch currently
 * sees it). All packets of a QP hash alike, so a flow keeps its path and two
 * flows that collide stay collided (docs/sources.md A11, V10).
 *
 * The 5-tuple is digested once per QP and direction (flow_digest in
 * net/packet.h, carried by every packet as flow_hash); each switch mixes the
 * digest with its 32-bit seed, drawn from the seeded RNG, through the
 * MurmurHash3 finaliser (a bijection with full avalanche). An ASIC hashes
 * the same header fields with its own seed: for any set of distinct flows
 * the per-switch buckets are uniform and independent across switches in
 * both schemes (tests/roce/test_ecmp.c: balls-into-bins, chi-square per
 * switch and across switch pairs); the individual choices differ from the
 * per-switch Toeplitz hash used before (docs/model.md). Distinct seeds make
 * the tiers' choices independent; `fabric.ecmp_same_seed` gives every switch
 * the same seed, and a flow that one tier sent to bucket b is sent to bucket
 * b again by the next: hash polarisation.
 */
#include "route/ecmp-inl.h"
#include "route/route.h"

#include "net/params.h"
#include "core/mem.h"
#include "core/rng.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

#define ECMP_RNG_STREAM 0x45434d50u /* "ECMP" */

static int ecmp_init(struct net *n, struct diag *d) {
    (void)d;
    struct ecmp_state *st = fs_xcalloc(1, sizeof *st);
    n->route_state = st;
    route_live_init(&st->live, n);
    /* by node id (a hop has the switch's node, not its index: one load fewer) */
    st->seed = fs_xcalloc((size_t)n->nnodes + 1, sizeof *st->seed);
    for (uint32_t v = 0; v < n->nnodes; v++) {
        if (n->nodes[v].kind != NODE_SWITCH) continue;
        uint32_t s = n->nodes[v].index;
        struct rng r;
        /* Per-switch seed; with ecmp_same_seed every switch draws switch 0's. */
        rng_seed(&r, n->sc->seed, n->sc->fabric.ecmp_same_seed ? 0 : s + 1, ECMP_RNG_STREAM);
        st->seed[v] = (uint32_t)rng_next(&r);
    }
    return 0;
}

static void ecmp_fini(struct net *n) {
    struct ecmp_state *st = n->route_state;
    if (!st) return;
    route_live_fini(&st->live);
    free(st->seed);
    free(st);
    n->route_state = NULL;
}

/* The packet's flow digest mixed with switch sw's seed: the 32-bit
 * finaliser of MurmurHash3 (Appleby, public domain). */
uint32_t ecmp_hash(const struct net *n, uint32_t sw, const struct packet *p) {
    const struct ecmp_state *st = n->route_state;
    return ecmp_mix(p->flow_hash ^ st->seed[sw]);
}

/* The choice itself is inline in route/ecmp-inl.h (the forwarding path calls it
 * directly); route_ops points here for every other caller. */
static uint32_t ecmp_select(struct net *n, uint32_t sw, const struct packet *p) {
    return ecmp_select_inline(n, sw, p);
}

static void ecmp_warm(const struct net *n, uint32_t sw, const struct packet *p) {
    ecmp_warm_inline(n, sw, p);
}

static uint32_t ecmp_guess(const struct net *n, uint32_t sw, const struct packet *p) {
    return ecmp_guess_inline(n, sw, p);
}

const struct route_ops route_ecmp_ops = {
    .name = "ecmp",
    .init = ecmp_init,
    .fini = ecmp_fini,
    .select = ecmp_select,
    .warm = ecmp_warm,
    .guess = ecmp_guess,
    .fast = ROUTE_FAST_ECMP,
};

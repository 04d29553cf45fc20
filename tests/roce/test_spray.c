/* tests/roce/test_spray.c
 *
 * Per-packet spraying with a NIC reorder buffer (Spectrum-X style, domain.md
 * A11): a random permutation on a non-blocking leaf-spine reaches near-full
 * bisection where ECMP loses to collisions, and the receivers hold early
 * packets (reorder_max_bytes > 0) without loss.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce_common.h"

#include <stdio.h>

#define STOP_PS (100 * PS_PER_US)
#define REORDER (1024 * KIB)
#define WARM_PS (30 * PS_PER_US) /* throughput measured after this */

struct res {
    double tput;
    uint64_t reorder_max, drops;
};

static struct res permutation(enum routing_kind r, uint64_t seed, uint64_t reorder) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.seed = seed;
    sc.stop_ps = WARM_PS + STOP_PS;
    sc.fabric.link_bps = 100 * GBPS;
    sc.fabric.routing = r;
    sc.fabric.reorder_buffer_bytes = reorder;
    sc.topo.kind = TOPO_LEAF_SPINE;
    sc.topo.leaves = 4;
    sc.topo.spines = 4;
    sc.topo.hosts_per_leaf = 4;
    sc.topo.uplinks_per_spine = 1;
    struct wl_entry w;
    roce_permutation(&sc, &w, PERM_RANDOM, 0, 4096 * KIB);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    m.sim.stop_ps = WARM_PS;
    sim_run(&m.sim, NULL, NULL, 1u << 20);
    uint64_t warm = n->c.bytes_delivered;
    m.sim.stop_ps = WARM_PS + STOP_PS;
    sim_run(&m.sim, NULL, NULL, 1u << 20);
    double cap = 16.0 * 100e9 / 8 * 4096 / (4096 + 82) * STOP_PS / 1e12;
    struct res x = {(double)(n->c.bytes_delivered - warm) / cap, n->c.reorder_max_bytes,
                    n->c.packets_dropped};
    model_fini(&m);
    return x;
}

static void test_spray_full_bisection(void **state) {
    (void)state;
    double spray = 0, ecmp = 0;
    uint64_t rmax = 0, drops = 0;
    const uint32_t seeds = 6;
    for (uint64_t s = 1; s <= seeds; s++) {
        struct res a = permutation(ROUTING_SPRAY, s, REORDER);
        struct res b = permutation(ROUTING_ECMP, s, REORDER);
        spray += a.tput;
        ecmp += b.tput;
        if (a.reorder_max > rmax) rmax = a.reorder_max;
        drops += a.drops;
    }
    spray /= seeds;
    ecmp /= seeds;
    printf("  permutation, 16 hosts, 4 spines: spray %.3f, ecmp %.3f of full bisection; "
           "reorder max %llu B, drops %llu\n",
           spray, ecmp, (unsigned long long)rmax, (unsigned long long)drops);
    assert_true(spray > 0.9); /* ACKs take ~2 % of each host link */
    assert_true(spray > ecmp + 0.1);
    assert_true(rmax > 0);
    assert_int_equal(drops, 0);
}

/* A buffer too small for the skew between paths overflows: drops counted,
 * the transfer still completes by go-back-N. */
static void test_small_reorder_buffer_drops(void **state) {
    (void)state;
    struct res a = permutation(ROUTING_SPRAY, 1, 4096);
    printf("  reorder buffer 4 KiB: throughput %.3f, drops %llu\n", a.tput,
           (unsigned long long)a.drops);
    assert_true(a.drops > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spray_full_bisection),
        cmocka_unit_test(test_small_reorder_buffer_drops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

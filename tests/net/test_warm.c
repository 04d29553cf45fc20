/* tests/net/test_warm.c
 *
 * Issue 13: the event loop's cache warm-up (core/sim_loop.h, net/warm.h)
 * prefetches for the events about to run and must change nothing. Each
 * case runs with the warm-up off, with ports, packets and forwarding
 * entries, and with the switches' tables and output ports too (forced: by
 * default small fabrics run without), and results.json and links.csv must
 * be byte-identical. The
 * cases go through what the warm-up reads: ECMP under BGP with a link going
 * down (switches forwarding with a stale view), InfiniBand credits with the
 * subnet manager rerouting, adaptive routing and spraying (no guess),
 * PFC pauses, DCQCN, a ring AllReduce.
 *
 * The warm-up only pays if its guess of the output port is the port the
 * switch then takes: route_ops.guess must agree with select for every
 * (switch, destination, flow) while no switch is stale.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "net/packet.h"
#include "route/route.h"
#include "model/sampler.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

struct out {
    char *json, *csv;
    uint64_t events;
};

static struct out run(const char *yaml, enum net_warm_mode warm) {
    struct trun t;
    trun_build(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    t.m.net.warm = (uint8_t)warm;
    model_run(&t.m, NULL, NULL);
    struct out o = {.json = tresults_json(&t), .events = t.m.sim.events_run};
    size_t len = 0;
    FILE *f = open_memstream(&o.csv, &len);
    sampler_write_csv(&t.m.sampler, &t.m.net, f);
    fclose(f);
    trun_end(&t);
    return o;
}

static void same(const char *what, const char *yaml) {
    struct out off = run(yaml, NET_WARM_OFF);
    printf("%-34s %9llu events\n", what, (unsigned long long)off.events);
    assert_true(off.events > 1000);
    enum net_warm_mode modes[] = {NET_WARM_PORTS, NET_WARM_ROUTED};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        struct out o = run(yaml, modes[i]);
        assert_int_equal(o.events, off.events);
        assert_string_equal(o.json, off.json);
        assert_string_equal(o.csv, off.csv);
        free(o.json);
        free(o.csv);
    }
    free(off.json);
    free(off.csv);
}

static void test_ecmp_bgp_link_down(void **state) {
    (void)state;
    same("ecmp + bgp, link down",
         "name: w\nseed: 3\n"
         "fabric: {kind: roce, routing: ecmp, flow_control: pfc, control_plane: {kind: bgp}}\n"
         "topology: {kind: fat_tree, k: 4}\n"
         "stop: 50ms\n"
         "workload:\n  - {kind: permutation, pattern: random, size: 2MB}\n"
         "events:\n  - {at: 20us, link_down: edge0-agg0}\n");
}

static void test_ib_sm_failure(void **state) {
    (void)state;
    same("ib credits + sm, link down",
         "name: w\nseed: 5\n"
         "fabric: {kind: infiniband, flow_control: credit, routing: static}\n"
         "topology: {kind: fat_tree, k: 4}\n"
         "stop: 50ms\n"
         "workload:\n  - {kind: permutation, pattern: random, size: 2MB}\n"
         "events:\n  - {at: 20us, link_down: edge1-agg1}\n");
}

static void test_adaptive_and_spray(void **state) {
    (void)state;
    same("adaptive", "name: w\nseed: 7\n"
                     "fabric: {kind: infiniband, flow_control: credit, routing: adaptive}\n"
                     "topology: {kind: fat_tree, k: 4}\n"
                     "workload:\n  - {kind: permutation, pattern: random, size: 1MB}\n");
    same("spray", "name: w\nseed: 7\n"
                  "fabric: {kind: roce, flow_control: pfc, routing: spray}\n"
                  "topology: {kind: fat_tree, k: 4}\n"
                  "workload:\n  - {kind: permutation, pattern: random, size: 1MB}\n");
}

static void test_pfc_incast_dcqcn(void **state) {
    (void)state;
    same("pfc incast + dcqcn",
         "name: w\nseed: 2\n"
         "fabric: {kind: roce, flow_control: pfc, routing: ecmp, congestion_control: dcqcn}\n"
         "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}\n"
         "workload:\n  - {kind: incast, senders: [h0, h1, h2, h4, h5, h6], receiver: h3, "
         "size: 1MB}\n");
}

static void test_ring_allreduce(void **state) {
    (void)state;
    same("ring allreduce", "name: w\nseed: 1\n"
                           "fabric: {kind: roce, flow_control: pfc, routing: ecmp}\n"
                           "topology: {kind: fat_tree, k: 4}\n"
                           "workload:\n  - {kind: allreduce, size: 4MiB, algorithm: ring}\n");
}

/* route_ops.guess = select for every switch, destination and a spread of
 * flows, for the policies that have one. */
static void guess_matches(const char *fabric) {
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "name: g\nseed: 1\nfabric: %s\ntopology: {kind: fat_tree, k: 8}\n"
             "workload:\n  - {kind: permutation, pattern: random, size: 4KB}\n",
             fabric);
    struct trun t;
    trun_start(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    struct net *n = &t.m.net;
    assert_non_null(n->route->guess);
    uint64_t checked = 0;
    for (uint32_t sw = 0; sw < n->nnodes; sw++) {
        if (n->nodes[sw].kind != NODE_SWITCH) continue;
        for (uint32_t h = 0; h < n->nnodes; h++) {
            if (n->nodes[h].kind == NODE_SWITCH) continue;
            for (uint32_t k = 0; k < 8; k++) {
                struct packet p = {.dst = h, .flow_hash = 0x9e3779b9u * (k + 1) ^ sw};
                assert_int_equal(n->route->guess(n, sw, &p), n->route->select(n, sw, &p));
                checked++;
            }
        }
    }
    printf("%-34s %9llu (switch, host, flow) guesses = select\n", fabric,
           (unsigned long long)checked);
    assert_true(checked > 80 * 128);
    trun_end(&t);
}

static void test_guess_is_select(void **state) {
    (void)state;
    guess_matches("{kind: roce, routing: ecmp}");
    guess_matches("{kind: infiniband, routing: static}");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ecmp_bgp_link_down), cmocka_unit_test(test_ib_sm_failure),
        cmocka_unit_test(test_adaptive_and_spray), cmocka_unit_test(test_pfc_incast_dcqcn),
        cmocka_unit_test(test_ring_allreduce),     cmocka_unit_test(test_guess_is_select),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

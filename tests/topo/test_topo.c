/* Topology builders: counts and SPEC.md names. */
#include "testutil.h"

#include "route/fib.h"
#include "route/route.h"

static void build(struct trun *t, const char *topo) {
    char yaml[512];
    snprintf(yaml, sizeof yaml, "name: topo\nfabric: {flow_control: none}\ntopology: %s\n", topo);
    trun_start(t, yaml, NULL, 0);
    assert_int_equal(t->rc, 0);
}

static void test_fat_tree_k8(void **state) {
    (void)state;
    struct trun t;
    build(&t, "{kind: fat_tree, k: 8}");
    const struct net *n = &t.m.net;
    assert_int_equal(n->nhosts, 128);     /* k^3/4 */
    assert_int_equal(n->nswitches, 80);   /* 5k^2/4 */
    assert_int_equal(n->nports, 2 * 384); /* 128 host + 128 edge-agg + 128 agg-core links */
    tlink(&t, "h0->edge0");
    tlink(&t, "edge0->agg0");
    tlink(&t, "agg0->core0");
    tlink(&t, "agg31->core15");
    char tier[32];
    net_port_tier(n, tlink(&t, "core3->agg0"), tier, sizeof tier);
    assert_string_equal(tier, "agg-core");
    /* every host reaches every other host: an edge switch has 4 minimal ports
     * towards a host in another pod (its 4 aggregation switches) */
    const uint32_t *ports;
    /* the model builds no FIB when nothing reads it (InfiniBand's static
     * routes with the SM, model/model.c): the test builds it to read it
     * (model_fini frees it) */
    if (!n->fib) route_fib_build(&t.m.net);
    uint32_t edge0 = net_node_by_name(n, "edge0");
    assert_int_equal(route_fib_get(n, edge0, 127, &ports), 4);
    assert_int_equal(route_fib_get(n, edge0, 1, &ports), 1);
    trun_end(&t);
}

static void test_leaf_spine_parallel(void **state) {
    (void)state;
    struct trun t;
    build(&t, "{kind: leaf_spine, leaves: 2, spines: 3, hosts_per_leaf: 4, uplinks_per_spine: 2}");
    const struct net *n = &t.m.net;
    assert_int_equal(n->nhosts, 8);
    assert_int_equal(n->nswitches, 5);
    assert_int_equal(n->nports, 2 * (8 + 2 * 3 * 2));
    uint32_t p0 = tlink(&t, "leaf1->spine2"), p1 = tlink(&t, "leaf1->spine2#1");
    assert_int_not_equal(p0, p1);
    char name[64];
    net_port_name(n, p1, name, sizeof name);
    assert_string_equal(name, "leaf1->spine2#1");
    trun_end(&t);
}

/* rail_optimized: NIC g of host h on rail leaf (h / hosts_per_leaf) x rails
 * + g mod rails: scalable units of hosts_per_leaf servers, each with its own
 * rail leaves, every leaf to every spine; `rails` fewer than the GPUs fold
 * GPU g onto rail g mod rails (an NVL72 tray's 4 NICs on 4 rails). */
static void test_rail_groups(void **state) {
    (void)state;
    struct trun t;
    build(&t, "{kind: rail_optimized, hosts: 5, gpus_per_host: 4, spines: 2, hosts_per_leaf: 2, "
              "rails: 2}");
    const struct net *n = &t.m.net;
    assert_int_equal(n->nhosts, 20);
    assert_int_equal(n->nswitches, 3 * 2 + 2 + 5); /* 3 units x 2 rails, spines, NVSwitches */
    tlink(&t, "h0.g0->leaf0");
    tlink(&t, "h1.g3->leaf1");
    tlink(&t, "h2.g2->leaf2");
    tlink(&t, "h3.g1->leaf3");
    tlink(&t, "h4.g0->leaf4");
    tlink(&t, "leaf5->spine1");
    assert_true(t.m.completed);
    trun_end(&t);
}

static void test_ring_and_single(void **state) {
    (void)state;
    struct trun t;
    build(&t, "{kind: ring, switches: 5, hosts_per_switch: 2}");
    assert_int_equal(t.m.net.nhosts, 10);
    tlink(&t, "sw4->sw0");
    tlink(&t, "h9->sw4");
    trun_end(&t);
    build(&t, "{kind: single_switch, hosts: 3}");
    assert_int_equal(t.m.net.nports, 6);
    tlink(&t, "sw0->h2");
    trun_end(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fat_tree_k8),
        cmocka_unit_test(test_leaf_spine_parallel),
        cmocka_unit_test(test_ring_and_single),
        cmocka_unit_test(test_rail_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

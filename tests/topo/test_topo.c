/* Topology builders: counts and SPEC.md names. */
#include "testutil.h"

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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

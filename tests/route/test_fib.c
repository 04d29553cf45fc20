/* The FIB stored by destination group (route/fib.c) against a brute-force
 * reference: one BFS per destination host, the minimal output ports of every
 * switch in port order (the FIB as it was stored before issue 13). Checked on
 * every topology kind, with parallel links, multi-homed GPU endpoints, and
 * after links go down (a host cut off, an uplink lost); plus the memory
 * figure: a k=16 fat tree needs 1 group per edge switch, not per host. */
#include "testutil.h"

#include "core/mem.h"
#include "net/port.h"
#include "route/route.h"

#include <stdlib.h>

static bool live(const struct net *n, uint32_t p) {
    return n->ports[p].up && n->ports[n->ports[p].peer].up;
}

/* Every (switch, host): the reference set equals route_fib_get's. */
static void check_against_reference(const struct net *n) {
    uint32_t V = n->nnodes;
    uint32_t *dist = fs_xmalloc(V * sizeof *dist), *queue = fs_xmalloc(V * sizeof *queue);
    uint32_t checked = 0;
    for (uint32_t h = 0; h < n->nhosts; h++) {
        for (uint32_t v = 0; v < V; v++)
            dist[v] = UINT32_MAX;
        uint32_t src = n->host_node[h], qh = 0, qt = 0;
        dist[src] = 0;
        queue[qt++] = src;
        while (qh < qt) {
            uint32_t v = queue[qh++];
            if (n->nodes[v].kind == NODE_HOST && v != src) continue;
            for (uint32_t i = 0; i < n->nodes[v].nports; i++) {
                uint32_t p = n->nodes[v].first_port + i, w = n->ports[n->ports[p].peer].node;
                if (live(n, p) && dist[w] == UINT32_MAX) {
                    dist[w] = dist[v] + 1;
                    queue[qt++] = w;
                }
            }
        }
        for (uint32_t v = 0; v < V; v++) {
            if (n->nodes[v].kind != NODE_SWITCH) continue;
            uint32_t want[256], c = 0;
            if (dist[v] != UINT32_MAX)
                for (uint32_t i = 0; i < n->nodes[v].nports; i++) {
                    uint32_t p = n->nodes[v].first_port + i, w = n->ports[n->ports[p].peer].node;
                    if (live(n, p) && dist[w] + 1 == dist[v] &&
                        (n->nodes[w].kind == NODE_SWITCH || w == src)) {
                        assert_true(c < 256);
                        want[c++] = p;
                    }
                }
            const uint32_t *got;
            uint32_t gc = route_fib_get(n, v, h, &got);
            assert_int_equal(gc, c);
            for (uint32_t i = 0; i < c; i++)
                assert_int_equal(got[i], want[i]);
            checked++;
        }
    }
    assert_int_equal(checked, n->nswitches * n->nhosts);
    free(dist);
    free(queue);
}

static void run_topo(const char *topo, const char *const *cut, uint32_t ncut, uint32_t groups) {
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "name: fib\nfabric: {kind: roce, flow_control: none, routing: ecmp}\ntopology: %s\n",
             topo);
    struct trun t;
    trun_start(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    struct net *n = &t.m.net;
    check_against_reference(n);
    if (groups) assert_int_equal(n->fib->ngroups, groups);
    for (uint32_t i = 0; i < ncut; i++) {
        uint32_t p = tlink(&t, cut[i]);
        port_set_up(n, p, false);
        port_set_up(n, n->ports[p].peer, false);
    }
    if (ncut) {
        route_fib_build(n);
        check_against_reference(n);
    }
    trun_end(&t);
}

static void test_fat_tree(void **state) {
    (void)state;
    /* 8 edge switches: 8 groups of 2 hosts; after cutting h0's link, h0 is
     * its own (unreachable) group and agg0-core0 changes the pod's sets */
    const char *cut[] = {"h0-edge0", "agg0-core0", "edge3-agg2"};
    run_topo("{kind: fat_tree, k: 4}", NULL, 0, 8);
    run_topo("{kind: fat_tree, k: 4}", cut, 3, 0);
}

static void test_leaf_spine_parallel(void **state) {
    (void)state;
    const char *cut[] = {"leaf1-spine2#1", "leaf0-spine0"};
    run_topo("{kind: leaf_spine, leaves: 3, spines: 3, hosts_per_leaf: 4, uplinks_per_spine: 2}",
             cut, 2, 3);
}

static void test_rail_and_ring(void **state) {
    (void)state;
    /* GPU endpoints attach to a rail leaf and their node's NVSwitch: one
     * group per GPU; the ring has one group per switch; on one switch the
     * GPUs of a host share its NVSwitch and the switch: one group per host */
    run_topo("{kind: rail_optimized, hosts: 4, gpus_per_host: 4, spines: 2}", NULL, 0, 16);
    const char *cut[] = {"sw2-sw3"};
    run_topo("{kind: ring, switches: 5, hosts_per_switch: 2}", cut, 1, 5);
    run_topo("{kind: single_switch, single_switch: {hosts: 2}, gpus_per_host: 4}", NULL, 0, 2);
}

static void test_grouped_memory(void **state) {
    (void)state;
    struct trun t;
    trun_start(&t,
               "name: fib\nfabric: {kind: roce, flow_control: none, routing: ecmp}\n"
               "topology: {kind: fat_tree, k: 16}\n",
               NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct route_fib *f = t.m.net.fib;
    /* 1,024 hosts on 128 edge switches: 128 groups, 320 x 128 entries instead
     * of 320 x 1,024; the sets shared: the empty set, each edge's uplink set,
     * each aggregation switch's uplink set and 8 down-links, each core's 16
     * down-links: 1 + 128 + 128 x 9 + 64 x 16 */
    assert_int_equal(f->ngroups, 128);
    assert_int_equal(f->nsets, 1 + 128 + 128 * 9 + 64 * 16);
    check_against_reference(&t.m.net);
    trun_end(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fat_tree),
        cmocka_unit_test(test_leaf_spine_parallel),
        cmocka_unit_test(test_rail_and_ring),
        cmocka_unit_test(test_grouped_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

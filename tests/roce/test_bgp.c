/* tests/roce/test_bgp.c
 *
 * Link failure under a BGP-style control plane (claim 3, Ethernet side): the
 * failed link's switches detect it after BFD (150 ms) and the withdrawal
 * reaches the other leaf one hop later; until each switch converged, what it
 * hashes onto the dead path is lost. rerouted_at - at = detect + processing
 * at the ends + one hop (propagation + processing) for the far leaf.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce_common.h"

#include <stdio.h>

struct fail {
    sim_time_ps reroute_ps; /* rerouted - at */
    uint64_t lost, retx;
    int completed;
};

static struct fail fail_link(sim_time_ps detect) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.fabric.link_bps = 1 * GBPS; /* few packets over 100s of ms */
    sc.fabric.routing = ROUTING_ECMP;
    sc.fabric.control_plane.detect_ps = detect;
    /* At 1 G a PFC-held queue of 200 KiB is 1.6 ms: the RTO must exceed it. */
    sc.fabric.transport.timeout_ps = 20 * PS_PER_MS;
    sc.topo.kind = TOPO_LEAF_SPINE;
    sc.topo.leaves = 2;
    sc.topo.spines = 2;
    sc.topo.hosts_per_leaf = 2;
    sc.topo.uplinks_per_spine = 1;
    sc.stop_ps = 800 * PS_PER_MS;
    struct wl_flow fl[4] = {{2, 0, 8 * 1024 * KIB, 0},
                            {2, 1, 8 * 1024 * KIB, 0},
                            {3, 0, 8 * 1024 * KIB, 0},
                            {3, 1, 8 * 1024 * KIB, 0}};
    struct wl_entry w;
    memset(&w, 0, sizeof w);
    w.kind = WL_FLOWS;
    w.flows = fl;
    w.nflows = 4;
    sc.workload = &w;
    sc.nworkload = 1;
    struct sc_event ev = {10 * PS_PER_MS, EV_LINK_DOWN, "leaf0-spine1", 0, {0, 0}};
    sc.events = &ev;
    sc.nevents = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    struct net *n = &m.net;
    assert_int_equal(n->ncp_rows, 1);
    const struct cp_row *r = &n->cp_rows[0];
    struct fail f = {r->rerouted_ps == SIM_TIME_NEVER ? SIM_TIME_NEVER : r->rerouted_ps - r->at_ps,
                     n->c.packets_dropped, n->c.retransmitted_packets, m.completed};
    printf("  detect %.0f ms: rerouted after %.3f ms, lost %llu (link %llu), retx %llu, "
           "completed %d\n",
           detect / 1e9, f.reroute_ps / 1e9, (unsigned long long)f.lost,
           (unsigned long long)r->packets_lost, (unsigned long long)f.retx, f.completed);
    model_fini(&m);
    return f;
}

static void test_bfd_reroute(void **state) {
    (void)state;
    struct fail f = fail_link(150 * PS_PER_MS);
    /* ends: detect + proc; far leaf: + one hop of (mrai 0 + 25 ns + proc) */
    sim_time_ps expect = 150 * PS_PER_MS + 1 * PS_PER_MS + 25 * PS_PER_NS + 1 * PS_PER_MS;
    assert_int_equal(f.reroute_ps, expect);
    assert_true(f.reroute_ps < PS_PER_S); /* BFD: sub-second */
    assert_true(f.lost > 0);
    assert_true(f.completed);
}

static void test_faster_detection_loses_less(void **state) {
    (void)state;
    struct fail slow = fail_link(150 * PS_PER_MS), fast = fail_link(10 * PS_PER_MS);
    assert_true(fast.reroute_ps < slow.reroute_ps);
    assert_true(fast.lost < slow.lost);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bfd_reroute),
        cmocka_unit_test(test_faster_detection_loses_less),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

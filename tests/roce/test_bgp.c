/* tests/roce/test_bgp.c
 *
 * Link failure under a BGP-style control plane (claim 3, Ethernet side): a
 * gray link (up, dropping everything) is found by BFD (150 ms) at its
 * switches and the withdrawal reaches the other leaf one hop later; until
 * each switch converged, what it hashes onto the dead path is lost.
 * rerouted_at - at = detect + processing at the ends + one hop (propagation
 * + processing) for the far leaf. A port-down needs no detection (hardware
 * prunes the ECMP member, fast-external-fallover withdraws at once).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce_common.h"

#include "config/scenario.h"

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
    struct sc_event ev = {
        .at_ps = 10 * PS_PER_MS, .kind = EV_LINK_GRAY, .target = "leaf0-spine1", .drop = 1.0};
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

/* The course lab's failure (scenarios/labs/subnet_manager): 8x8 leaf-spine,
 * 64 hosts, leaf0-spine0 fails at 50 ms under light steady traffic from each
 * host of leaf0 to another leaf, all control-plane settings at their
 * defaults. InfiniBand's SM reroutes after a trap, a re-sweep and the LFT
 * pushes (tens of ms, docs/sources.md A10b: 40-45 ms measured on this fabric);
 * RoCE's BGP only after the hold timer (9 s, A10); until then what ECMP
 * hashes onto the dead link is lost. Links at 10 G and a 0.1 % load keep the
 * 12 s run small (the control-plane times do not depend on the rate), and so
 * does a 1 s retransmission timeout: with the 100 us default every QP on the
 * dead path resends its whole growing backlog (go-back-N) 90,000 times in 9 s
 * (5.4 M lost packets, 14 s of wall time, measured); real RC QPs wait seconds
 * per retry (docs/sources.md A10: NCCL_IB_TIMEOUT 20 = 4.3 s). Measured: SM 41.9 ms
 * (32 packets lost), BGP 9002 ms (23,888 lost), BGP + BFD 152 ms (48 lost). */
static struct fail fail_defaults(const char *fabric, const char *event) {
    char text[2048];
    int len = snprintf(text, sizeof text,
                       "name: failure\nseed: 1\nfabric: %s\n"
                       "topology: {kind: leaf_spine, leaves: 8, spines: 8, hosts_per_leaf: 8}\n"
                       "stop: 12s\nworkload:\n",
                       fabric);
    for (int i = 0; i < 8; i++)
        len += snprintf(text + len, sizeof text - (size_t)len,
                        "  - {kind: poisson, senders: [h%d], receiver: h%d, load: 0.001, "
                        "packet: 64KiB, duration: 9900ms}\n",
                        i, i == 7 ? 8 : 9 * (i + 1));
    snprintf(text + len, sizeof text - (size_t)len, "events:\n  - {at: 50ms, %s: leaf0-spine0}\n",
             event);
    struct scenario sc;
    struct diag d = {0};
    if (scenario_load_string(&sc, text, "failure", NULL, 0, &d)) printf("%s\n%s\n", text, d.msg);
    assert_int_equal(d.msg[0], 0);
    struct model m;
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    struct net *n = &m.net;
    assert_int_equal(n->ncp_rows, 1);
    const struct cp_row *r = &n->cp_rows[0];
    struct fail f = {r->rerouted_ps == SIM_TIME_NEVER ? SIM_TIME_NEVER : r->rerouted_ps - r->at_ps,
                     r->packets_lost, n->c.retransmitted_packets, m.completed};
    printf("  %s: rerouted after %.3f ms, lost on the link %llu, retx %llu, completed %d, "
           "wall %.2f s\n",
           fabric, f.reroute_ps / 1e9, (unsigned long long)f.lost, (unsigned long long)f.retx,
           f.completed, m.wall_s);
    model_fini(&m);
    scenario_fini(&sc);
    return f;
}

/* A fixed 1 s RTO retried for ever (transport.rto: fixed): these runs time
 * the control planes, and a 9 s gray failure would exhaust 7 retries of 1 s. */
static void test_sm_vs_bgp_defaults(void **state) {
    (void)state;
    struct fail ib = fail_defaults(
        "{kind: infiniband, link: 10Gbps, transport: {timeout: 1s, rto: fixed}}", "link_down");
    struct fail pd = fail_defaults(
        "{kind: roce, link: 10Gbps, routing: ecmp, transport: {timeout: 1s, rto: fixed}}",
        "link_down");
    struct fail bgp = fail_defaults(
        "{kind: roce, link: 10Gbps, routing: ecmp, transport: {timeout: 1s, rto: fixed}}",
        "link_gray");
    struct fail bfd = fail_defaults("{kind: roce, link: 10Gbps, routing: ecmp, transport: "
                                    "{timeout: 1s, rto: fixed}, control_plane: {detect: 150ms}}",
                                    "link_gray");
    /* SM: tens of ms (A10b). */
    assert_true(ib.reroute_ps > 10 * PS_PER_MS && ib.reroute_ps < 100 * PS_PER_MS);
    /* A port-down under BGP: hardware prune 100 us, fast fallover, proc 1 ms
     * at the ends and one hop (25 ns + 1 ms) to the far leaves. */
    assert_int_equal(pd.reroute_ps, 100 * PS_PER_US + 2 * PS_PER_MS + 25 * PS_PER_NS);
    /* A gray failure: the 9 s hold timer, two orders of magnitude later. */
    assert_true(bgp.reroute_ps >= 9 * PS_PER_S && bgp.reroute_ps < 10 * PS_PER_S);
    assert_true(bgp.reroute_ps > 100 * ib.reroute_ps);
    assert_true(bfd.reroute_ps >= 150 * PS_PER_MS && bfd.reroute_ps < 200 * PS_PER_MS);
    /* Traffic on the dead path is lost until convergence, more the longer. */
    assert_true(bfd.lost > 0);
    assert_true(bgp.lost > 10 * bfd.lost);
    assert_true(bgp.completed && bfd.completed && ib.completed && pd.completed);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bfd_reroute),
        cmocka_unit_test(test_faster_detection_loses_less),
        cmocka_unit_test(test_sm_vs_bgp_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

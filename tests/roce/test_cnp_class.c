/* tests/roce/test_cnp_class.c
 *
 * CNPs on their own priority (docs/sources.md A12: 802.1p 6 / DSCP 48, strict
 * priority, not PFC-enabled): during a pause storm on the data priority the
 * receiver's CNPs still reach the sender; put in the data class they wait
 * behind the pause with everything else, and the sender never hears of the
 * congestion.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce_common.h"

#include "cc/cc.h"
#include "net/nic.h"

#include <stdio.h>

struct storm_cnp {
    double min_rate_bps; /* h1 -> h5 sender's lowest R_C once h5's NIC is paused */
    uint64_t cnps;       /* CNPs the receivers generated */
    sim_time_ps h5_paused_ps;
};

static uint32_t qp_of(const struct net *n, uint32_t src_host, uint32_t dst_host) {
    for (uint32_t q = 0; q < n->nqps; q++)
        if (n->qps[q].src == n->host_node[src_host] && n->qps[q].dst == n->host_node[dst_host])
            return q;
    return NET_NONE;
}

/* 2 leaves x 2 spines, 4 hosts each. h4..h7 send to h0, which stalls at
 * 20 us: the pause storm spreads back to every NIC on leaf1 (test_pfc_storm),
 * h5's included, on the data priority. Meanwhile h1 and h2 (leaf0) send to
 * h5: a 2:1 incast at leaf1 -> h5, marked above Kmin, whose CNPs leave h5
 * through its paused NIC port. */
static struct storm_cnp run(enum dcqcn_cnp_class cls) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.topo.kind = TOPO_LEAF_SPINE;
    sc.topo.leaves = 2;
    sc.topo.spines = 2;
    sc.topo.hosts_per_leaf = 4;
    sc.topo.uplinks_per_spine = 1;
    sc.fabric.routing = ROUTING_ECMP;
    sc.fabric.pfc.watchdog_ps = 0;
    sc.fabric.congestion_control = CC_DCQCN;
    sc.fabric.dcqcn.cnp_class = cls;
    sc.stop_ps = 1500 * PS_PER_US;
    struct wl_flow fl[6];
    for (uint32_t i = 0; i < 4; i++)
        fl[i] = (struct wl_flow){4 + i, 0, 2 * 1024 * KIB, 0};
    fl[4] = (struct wl_flow){1, 5, 256 * 1024 * KIB, 0};
    fl[5] = (struct wl_flow){2, 5, 256 * 1024 * KIB, 0};
    struct wl_entry w;
    memset(&w, 0, sizeof w);
    w.kind = WL_FLOWS;
    w.flows = fl;
    w.nflows = 6;
    sc.workload = &w;
    sc.nworkload = 1;
    struct sc_event ev = {
        .at_ps = 20 * PS_PER_US, .kind = EV_HOST_STALL, .target = "h0", .for_ps = 10 * PS_PER_MS};
    sc.events = &ev;
    sc.nevents = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    struct storm_cnp r = {1e30, 0, 0};
    uint32_t h5port = nic_port(n, n->host_node[5]);
    sim_time_ps paused_at = SIM_TIME_NEVER;
    for (sim_time_ps t = 5 * PS_PER_US; t <= sc.stop_ps; t += 5 * PS_PER_US) {
        m.sim.stop_ps = t;
        sim_run(&m.sim, NULL, NULL, 1u << 24);
        if (paused_at == SIM_TIME_NEVER && n->ports[h5port].paused_ps > 0) paused_at = t;
        /* From 50 us after h5's NIC is first paused (the storm holds it from
         * then on: test_pfc_storm). */
        if (paused_at != SIM_TIME_NEVER && t >= paused_at + 50 * PS_PER_US) {
            uint32_t q = qp_of(n, 1, 5);
            assert_true(q != NET_NONE);
            double rc = dcqcn_rate_bps(n, q);
            if (rc < r.min_rate_bps) r.min_rate_bps = rc;
        }
    }
    r.cnps = n->c.cnps;
    r.h5_paused_ps = n->ports[h5port].paused_ps;
    printf("  CNPs in the %s class: h5's NIC paused from %.0f us for %.0f us; h1 -> h5 lowest "
           "rate from then %.1f Gb/s; CNPs generated %llu\n",
           cls == DCQCN_CNP_STRICT ? "strict (prio 6)" : "data", paused_at / 1e6,
           r.h5_paused_ps / 1e6, r.min_rate_bps / 1e9, (unsigned long long)r.cnps);
    assert_true(paused_at != SIM_TIME_NEVER && paused_at < 400 * PS_PER_US);
    assert_true(r.h5_paused_ps > 900 * PS_PER_US); /* the storm holds h5's data priority */
    model_fini(&m);
    return r;
}

static void test_cnps_cross_a_pause_storm(void **state) {
    (void)state;
    struct storm_cnp own = run(DCQCN_CNP_STRICT);
    struct storm_cnp shared = run(DCQCN_CNP_DATA);
    /* Own class: CNPs reach h1 and cut its rate (2:1 incast: below 300 G at
     * some point). Data class: none gets through the pause; h1 stays at
     * line rate although h5 keeps generating them. */
    assert_true(own.min_rate_bps < 300e9);
    assert_true(shared.min_rate_bps == 400e9);
    assert_true(shared.cnps > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cnps_cross_a_pause_storm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

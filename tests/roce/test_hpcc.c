/* tests/roce/test_hpcc.c
 *
 * HPCC (Li et al. SIGCOMM 2019; cc/hpcc.c, docs/sources.md A7): the window
 * law's fixed point and what it does to the bottleneck queue, each against
 * the same scenario with congestion control off.
 *  - One long flow through one switch: the sender settles where the INT
 *    utilisation U equals eta, so the bottleneck carries eta (95 %) of the
 *    link and holds no queue; without CC the flow fills the link.
 *  - Two flows into one port (the second joins at 200 us): HPCC keeps the
 *    port's queue at a few packets, both flows get a share and nothing is
 *    paused; PFC alone holds hundreds of KB and pauses.
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

struct hres {
    double util;          /* sw0 -> h0 bytes over [t0, t1] / line rate */
    double q_mean_bytes;  /* sw0 -> h0 queue, time-averaged over [t0, t1] */
    uint64_t q_max_bytes; /* its high-water mark over the run */
    double share[2];      /* each sender's share of the bottleneck over [t0, t1] */
    uint64_t pauses;
    double rate_bps;     /* HPCC: h1's rate at the end */
    double window_bytes; /* HPCC: h1's window at the end */
};

static uint32_t port_to(const struct net *n, uint32_t host) {
    return n->ports[nic_port(n, n->host_node[host])].peer; /* the switch's port to it */
}

/* `nflows` long flows from h1 (at 0) and h2 (at 200 us) into h0, 400 G, one
 * switch; measured over [t0, t1]. */
static struct hres run(enum cc_kind cc, uint32_t nflows, sim_time_ps t0, sim_time_ps t1) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.topo.hosts = 3;
    sc.fabric.congestion_control = cc;
    hpcc_defaults(&sc.fabric.hpcc);
    sc.stop_ps = t1;
    struct wl_flow fl[2] = {{1, 0, 4096 * 1024 * KIB, 0},
                            {2, 0, 4096 * 1024 * KIB, 200 * PS_PER_US}};
    struct wl_entry w;
    memset(&w, 0, sizeof w);
    w.kind = WL_FLOWS;
    w.flows = fl;
    w.nflows = nflows;
    sc.workload = &w;
    sc.nworkload = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    uint32_t bott = port_to(n, 0);
    uint32_t up[2] = {nic_port(n, n->host_node[1]), nic_port(n, n->host_node[2])};
    m.sim.stop_ps = t0;
    sim_run(&m.sim, NULL, NULL, 1u << 30);
    struct port *pb = &n->ports[bott];
    uint64_t b0 = pb->tx_bytes, u0[2] = {n->ports[up[0]].tx_bytes, n->ports[up[1]].tx_bytes};
    unsigned __int128 a0 = port_q_area(pb, t0);
    m.sim.stop_ps = t1;
    sim_run(&m.sim, NULL, NULL, 1u << 30);
    unsigned __int128 a1 = port_q_area(pb, t1);
    struct hres r;
    memset(&r, 0, sizeof r);
    double span_s = (double)(t1 - t0) / 1e12;
    r.util = (double)(pb->tx_bytes - b0) * 8.0 / span_s / (double)pb->rate_bps;
    r.q_mean_bytes = (double)(a1 - a0) / (double)(t1 - t0);
    r.q_max_bytes = pb->q_max;
    for (int i = 0; i < 2; i++)
        r.share[i] = (double)(n->ports[up[i]].tx_bytes - u0[i]) / (double)(pb->tx_bytes - b0);
    r.pauses = n->c.pause_frames;
    if (cc == CC_HPCC) {
        r.rate_bps = hpcc_rate_bps(n, 0);
        r.window_bytes = hpcc_window_bytes(n, 0);
    }
    model_fini(&m);
    printf("  %s, %u flow(s): bottleneck %.4f of the link, queue mean %.0f B (max %llu B), "
           "shares %.3f / %.3f, %llu pauses",
           cc == CC_HPCC ? "hpcc" : "none", nflows, r.util, r.q_mean_bytes,
           (unsigned long long)r.q_max_bytes, r.share[0], r.share[1], (unsigned long long)r.pauses);
    if (cc == CC_HPCC) printf(", h1 at %.1f Gb/s, W %.0f B", r.rate_bps / 1e9, r.window_bytes);
    printf("\n");
    return r;
}

static void test_one_flow_settles_at_eta(void **state) {
    (void)state;
    struct hres h = run(CC_HPCC, 1, 100 * PS_PER_US, 300 * PS_PER_US);
    struct hres o = run(CC_NONE, 1, 100 * PS_PER_US, 300 * PS_PER_US);
    /* U = eta: 95 % of the link's wire rate (INT counts wire bytes), no queue */
    assert_true(h.util > 0.94 && h.util < 0.96);
    assert_true(h.q_mean_bytes < 100.0);
    assert_true(h.rate_bps > 0.94 * 400e9 && h.rate_bps < 0.96 * 400e9);
    /* without CC the one flow fills the wire */
    assert_true(o.util > 0.995);
}

static void test_two_flows_keep_the_queue_near_zero(void **state) {
    (void)state;
    struct hres h = run(CC_HPCC, 2, 400 * PS_PER_US, 2000 * PS_PER_US);
    struct hres o = run(CC_NONE, 2, 400 * PS_PER_US, 2000 * PS_PER_US);
    assert_true(h.q_mean_bytes < 4096.0); /* under one packet on average */
    assert_true(h.util > 0.92 && h.util < 0.96);
    assert_true(h.share[0] > 0.35 && h.share[1] > 0.35);
    assert_int_equal(h.pauses, 0);
    /* PFC alone: the port holds hundreds of KB and pauses the senders */
    assert_true(o.q_mean_bytes > 100e3);
    assert_true(o.pauses > 100);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_flow_settles_at_eta),
        cmocka_unit_test(test_two_flows_keep_the_queue_near_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

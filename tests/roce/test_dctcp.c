/* tests/roce/test_dctcp.c
 *
 * DCTCP (Alizadeh et al. SIGCOMM 2010; cc/dctcp.c, docs/sources.md A7): two
 * long flows into one 400 G port with the marking step at K = 30 KB. The
 * paper's sawtooth (s3.3): Q_max = K + N packets, amplitude
 * A = 1/2 sqrt(2 N (C x RTT + K)); the queue averages Q_max - A/2 = 28.5 KB
 * (C x RTT = 63.5 KB, 4178-byte packets), the link stays full, and alpha
 * settles near sqrt(2 / W*) with W* = C x RTT + K in packets (0.30). PFC
 * alone holds ~360 KB and pauses.
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

struct dres {
    double util, q_mean_bytes, share, alpha;
    uint64_t pauses, marks;
};

static struct dres run(enum cc_kind cc) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.topo.hosts = 3;
    sc.fabric.congestion_control = cc;
    sc.fabric.ecn.kmin_bytes = sc.fabric.ecn.kmax_bytes = 30 * 1000;
    sc.fabric.ecn.pmax = 1;
    sc.fabric.dctcp.g = 1.0 / 16;
    sc.fabric.dctcp.min_rate_bps = GBPS;
    sim_time_ps t0 = 500 * PS_PER_US, t1 = 2000 * PS_PER_US;
    sc.stop_ps = t1;
    struct wl_flow fl[2] = {{1, 0, 4096 * 1024 * KIB, 0}, {2, 0, 4096 * 1024 * KIB, 0}};
    struct wl_entry w;
    memset(&w, 0, sizeof w);
    w.kind = WL_FLOWS;
    w.flows = fl;
    w.nflows = 2;
    sc.workload = &w;
    sc.nworkload = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    struct port *pb = &n->ports[n->ports[nic_port(n, n->host_node[0])].peer];
    struct port *p1 = &n->ports[nic_port(n, n->host_node[1])];
    m.sim.stop_ps = t0;
    sim_run(&m.sim, NULL, NULL, 1u << 30);
    uint64_t b0 = pb->tx_bytes, s0 = p1->tx_bytes;
    unsigned __int128 a0 = port_q_area(pb, t0);
    m.sim.stop_ps = t1;
    sim_run(&m.sim, NULL, NULL, 1u << 30);
    unsigned __int128 a1 = port_q_area(pb, t1);
    struct dres r;
    r.util = (double)(pb->tx_bytes - b0) * 8.0 / ((double)(t1 - t0) / 1e12) / (double)pb->rate_bps;
    r.q_mean_bytes = (double)(a1 - a0) / (double)(t1 - t0);
    r.share = (double)(p1->tx_bytes - s0) / (double)(pb->tx_bytes - b0);
    r.pauses = n->c.pause_frames;
    r.marks = n->c.ecn_marked;
    r.alpha = cc == CC_DCTCP ? dctcp_alpha(n, 0) : 0;
    printf("  %s: link %.4f, queue mean %.1f KB over 0.5-2 ms, h1's share %.3f, alpha %.3f, "
           "%llu marks, %llu pauses\n",
           cc == CC_DCTCP ? "dctcp, K 30 KB" : "none (PFC alone)", r.util, r.q_mean_bytes / 1e3,
           r.share, r.alpha, (unsigned long long)r.marks, (unsigned long long)r.pauses);
    model_fini(&m);
    return r;
}

static void test_queue_around_k(void **state) {
    (void)state;
    struct dres d = run(CC_DCTCP);
    struct dres o = run(CC_NONE);
    /* the paper's sawtooth: 28.5 KB; +-25 % */
    assert_true(d.q_mean_bytes > 21.4e3 && d.q_mean_bytes < 35.6e3);
    assert_true(d.util > 0.99);
    assert_true(d.share > 0.40 && d.share < 0.60);
    assert_true(d.alpha > 0.15 && d.alpha < 0.45); /* sqrt(2 / 22.4) = 0.30 */
    assert_int_equal(d.pauses, 0);
    assert_true(o.q_mean_bytes > 300e3 && o.pauses > 100);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_around_k),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

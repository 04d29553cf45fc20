/* tests/roce/test_dcqcn_np.c
 *
 * The DCQCN notification point's CNP pacing (cc/dcqcn.c, docs/sources.md
 * A12): ConnectX spaces the CNPs a receiving port sends by
 * min_time_between_cnps ("minimum time between sending CNPs from the port":
 * Mellanox's mlx5 debugfs patch, mlxconfig's help, the PRM field text in
 * mstflint), whatever QP they are for; the DCQCN paper's NP paces per flow.
 * A 4:1 incast at 400 G with a switch marking every packet that finds a
 * queue (a 4 KB step) keeps CE marks arriving at the receiver all the time,
 * so the pacing alone decides how many CNPs leave it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce_common.h"

#include "cc/cc.h"

#include <stdio.h>

struct np_watch {
    uint64_t cnps;
    sim_time_ps last_ps, min_gap_ps;
};

/* After every event: a new CNP left the receiver (only h0 receives data). */
static void watch(struct sim *s, void *arg) {
    struct np_watch *w = arg;
    const struct net *n = s->model;
    if (n->c.cnps == w->cnps) return;
    if (w->cnps && s->now_ps - w->last_ps < w->min_gap_ps) w->min_gap_ps = s->now_ps - w->last_ps;
    w->cnps = n->c.cnps;
    w->last_ps = s->now_ps;
}

static struct np_watch incast_cnps(enum dcqcn_cnp_pacing pacing, sim_time_ps end) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.topo.hosts = 5;
    sc.fabric.congestion_control = CC_DCQCN;
    sc.fabric.dcqcn.cnp_pacing = pacing;
    sc.fabric.ecn.kmin_bytes = sc.fabric.ecn.kmax_bytes = 4000;
    sc.fabric.ecn.pmax = 1.0;
    sc.stop_ps = end;
    struct wl_entry w;
    uint32_t senders[4];
    roce_incast(&sc, &w, senders, 4, 1ULL << 32);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct np_watch nw = {0, 0, SIM_TIME_NEVER};
    m.sim.after_event = watch;
    m.sim.after_event_arg = &nw;
    sim_run(&m.sim, NULL, NULL, 1u << 30);
    printf("  cnp_pacing %s: %llu CNPs in %.1f ms, closest two %.2f us apart, %llu marks\n",
           pacing == DCQCN_PACE_PORT ? "port" : "qp", (unsigned long long)nw.cnps, end / 1e9,
           nw.min_gap_ps / 1e6, (unsigned long long)m.net.c.ecn_marked);
    model_fini(&m);
    return nw;
}

/* ConnectX (the default): one CNP per 4 us from the port, never closer. */
static void test_port_pacing(void **state) {
    (void)state;
    const sim_time_ps end = 2 * PS_PER_MS;
    struct np_watch p = incast_cnps(DCQCN_PACE_PORT, end);
    assert_true(p.min_gap_ps >= 4 * PS_PER_US);
    assert_true(p.cnps <= end / (4 * PS_PER_US) + 1);
    assert_true(p.cnps > end / (4 * PS_PER_US) / 4); /* marks keep coming: it is the pacing */
}

/* Per QP (the paper's NP): the four QPs' CNPs interleave closer than 4 us
 * (measured 0.08 us; the cuts they bring then thin the marks: 1694 against
 * 24072 with port pacing). */
static void test_qp_pacing(void **state) {
    (void)state;
    const sim_time_ps end = 2 * PS_PER_MS;
    struct np_watch q = incast_cnps(DCQCN_PACE_QP, end);
    assert_true(q.min_gap_ps < 1 * PS_PER_US);
}

/* What the presets choose: ConnectX paces the port, the paper the flow. */
static void test_presets(void **state) {
    (void)state;
    struct dcqcn_params dp;
    struct ecn_params ep;
    dcqcn_preset_connectx(&dp);
    assert_int_equal(dp.cnp_pacing, DCQCN_PACE_PORT);
    dcqcn_preset_paper(&dp, &ep);
    assert_int_equal(dp.cnp_pacing, DCQCN_PACE_QP);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_port_pacing),
        cmocka_unit_test(test_qp_pacing),
        cmocka_unit_test(test_presets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tests/ib/test_ibcc.c
 *
 * InfiniBand congestion control (IBA Annex A10, cc/ibcc.c): a 16:1 incast
 * into h0 with a victim flow that shares only an upstream link with one of
 * the incast's flows. Credits alone hold the victim behind the incast's
 * packets (head-of-line blocking in the shared input buffer); with FECN/BECN
 * the incast's senders are throttled at their HCAs, the buffer drains and the
 * victim runs near its fair share. The CCTI of a throttled QP rises while
 * BECNs come and decays one step per ccti_timer once they stop.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ib_common.h"

#include "cc/cc.h"
#include "net/net.h"
#include "workload/workload.h"

#include <stdio.h>

struct vrun {
    double victim_fct_us, incast_done_us;
    uint32_t ccti_peak, ccti_end;
    sim_time_ps peak_at_ps;
    uint64_t fecn, becn;
};

static uint32_t qp_of(const struct net *n, uint32_t src_host, uint32_t dst_host) {
    for (uint32_t q = 0; q < n->nqps; q++)
        if (n->qps[q].src == n->host_node[src_host] && n->qps[q].dst == n->host_node[dst_host])
            return q;
    return NET_NONE;
}

/* 2 leaves x 1 spine, 16 hosts each. Incast into h0 from h1..h15 (leaf0) and
 * h16 (leaf1), 2 MiB each; the victim h17 -> h1 (2 MiB) shares the
 * spine -> leaf0 link, and leaf0's input buffer from it, with h16's flow. A
 * background flow h31 -> h30 keeps the run going after the incast, so the
 * CCTI's decay is seen. */
static struct vrun victim(bool cc) {
    struct scenario sc;
    ib_scenario(&sc);
    ib_leaf_spine(&sc, 2, 1, 16);
    sc.fabric.ib.vls = 1;
    sc.fabric.congestion_control = cc ? CC_IBCC : CC_NONE;
    struct ibcc_params *p = &sc.fabric.ibcc;
    p->threshold = 15;
    p->marking_rate = 10;
    p->packet_size_bytes = 512;
    p->ccti_increase = 1;
    p->ccti_limit = 127;
    p->ccti_min = 0;
    p->ccti_timer_ps = 0; /* auto: from the host count, as the CC manager does */
    p->cct_step_ps = 0;
    sc.stop_ps = 3 * 1000 * 1000 * 1000ull; /* 3 ms */
    struct wl_flow fl[18];
    for (uint32_t i = 0; i < 16; i++)
        fl[i] = (struct wl_flow){i + 1, 0, 2u << 20, 0};
    fl[16] = (struct wl_flow){17, 1, 2u << 20, 0};
    fl[17] = (struct wl_flow){31, 30, 100ull << 20, 0};
    struct wl_entry w;
    memset(&w, 0, sizeof w);
    w.kind = WL_FLOWS;
    w.flows = fl;
    w.nflows = 18;
    sc.workload = &w;
    sc.nworkload = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    struct vrun r = {0};
    const sim_time_ps step = 10 * 1000 * 1000ull; /* 10 us */
    for (sim_time_ps t = step; t <= sc.stop_ps; t += step) {
        m.sim.stop_ps = t;
        sim_run(&m.sim, NULL, NULL, 1u << 24);
        if (!cc) continue;
        uint32_t q = qp_of(n, 16, 0);
        if (q == NET_NONE) continue;
        uint32_t c = ibcc_ccti(n, q);
        if (c > r.ccti_peak) {
            r.ccti_peak = c;
            r.peak_at_ps = t;
        }
        r.ccti_end = c;
    }
    r.victim_fct_us = (double)(n->flows[16].end_ps - n->flows[16].start_ps) / 1e6;
    sim_time_ps done = 0;
    for (uint32_t f = 0; f < 16; f++) {
        assert_int_equal(n->flows[f].msgs_left, 0);
        if (n->flows[f].end_ps > done) done = n->flows[f].end_ps;
    }
    assert_int_equal(n->flows[16].msgs_left, 0);
    r.incast_done_us = (double)done / 1e6;
    r.fecn = n->c.ecn_marked;
    r.becn = n->c.cnps;
    printf("  16:1 incast + victim, %s: victim FCT %.1f us, incast done %.1f us, FECN %llu, "
           "BECN %llu, h16 CCTI peak %u at %.0f us, %u at the end\n",
           cc ? "IB CC" : "credits only", r.victim_fct_us, r.incast_done_us,
           (unsigned long long)r.fecn, (unsigned long long)r.becn, r.ccti_peak, r.peak_at_ps / 1e6,
           r.ccti_end);
    assert_int_equal(n->c.packets_dropped, 0);
    model_fini(&m);
    return r;
}

static void test_ibcc_victim(void **state) {
    (void)state;
    struct vrun off = victim(false);
    struct vrun on = victim(true);
    /* Alone the victim takes 2 MiB / 400 Gb/s = 43 us, and its fair share of
     * the spine -> leaf0 link (h16's flow gets 1/16 of h0's port) is about
     * that. Credits alone: it waits behind h16's packets, which drain at
     * 25 Gb/s, for most of the incast (619 us measured). With CC it cannot
     * get all the way there: the first microseconds fill the three 256 KiB
     * buffers on h16's path before any BECN can come back, and those drain
     * at h16's share whatever CC does (~250 us); measured 317 us. */
    assert_true(off.fecn == 0 && off.becn == 0);
    assert_true(off.victim_fct_us > 500);
    assert_true(on.victim_fct_us < 0.65 * off.victim_fct_us);
    /* The incast itself still finishes in about the time the port needs
     * (32 MiB at 400 Gb/s = 0.67 ms): CC throttles, it does not starve
     * (759 us measured: some over-throttling while the standing queue
     * drains). */
    assert_true(on.incast_done_us < 1.3 * off.incast_done_us);
    /* FECNs were set and answered with BECNs one for one. */
    assert_true(on.fecn > 0 && on.becn == on.fecn);
    /* The CCTI trace rises, then decays one step per ccti_timer once the
     * incast is over. */
    assert_true(on.ccti_peak >= 5);
    assert_true(on.ccti_end < on.ccti_peak);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ibcc_victim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

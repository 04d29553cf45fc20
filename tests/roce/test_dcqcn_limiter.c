/* tests/roce/test_dcqcn_limiter.c
 *
 * The DCQCN rate limiter paces at the QP's current rate (cc/dcqcn.c): a gap
 * granted while R_C was low shrinks when R_C rises. The case that showed it:
 * the ecn_dcqcn lab's 7:1 incast (2 leaves x 2 spines, 2 MiB per sender) on a
 * shared buffer, where the pool lets the server's queue pass Kmax (4.8 MB),
 * every packet is marked, and the cuts take some QPs to min_rate (1 Mb/s).
 * A packet sent then was given a 33.4 ms gap (4178 B at 1 Mb/s) that the
 * recovery did not shorten: five senders idled 33 ms with R_C back near
 * 100 Gb/s and the incast took 33.8 ms (112 x PFC only's 0.30 ms).
 * The deep cuts need CNPs paced per QP (the paper's NP; a per-IP-pair NIC
 * with one QP per host pair): with ConnectX's pacing per port (the default,
 * docs/sources.md A12) the receiver sends one CNP per 4 us for all seven QPs
 * and the incast runs at PFC only's time (301.7 us both, measured).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce_common.h"

#include <stdio.h>

static sim_time_ps run(enum buffer_sharing sharing, enum cc_kind cc, enum dcqcn_cnp_pacing pacing,
                       uint64_t *pauses) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.topo.kind = TOPO_LEAF_SPINE;
    sc.topo.leaves = 2;
    sc.topo.spines = 2;
    sc.topo.hosts_per_leaf = 4;
    sc.topo.uplinks_per_spine = 1;
    sc.fabric.routing = ROUTING_ECMP;
    sc.fabric.buffer_sharing = sharing;
    sc.fabric.congestion_control = cc;
    sc.fabric.dcqcn.cnp_pacing = pacing;
    sc.stop_ps = 100 * PS_PER_MS;
    uint32_t senders[7];
    struct wl_entry w;
    roce_incast(&sc, &w, senders, 7, 2 * 1024 * KIB);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    sim_run(&m.sim, NULL, NULL, 1u << 30);
    sim_time_ps done = m.net.done_ps;
    *pauses = m.net.c.pause_frames;
    printf("  %s buffer, %s: 7:1 incast done at %.1f us, %llu pauses, %llu marks, %llu cnps\n",
           sharing == BUFFER_SHARED ? "shared" : "static", cc == CC_DCQCN ? "DCQCN" : "PFC only",
           done / 1e6, (unsigned long long)m.net.c.pause_frames,
           (unsigned long long)m.net.c.ecn_marked, (unsigned long long)m.net.c.cnps);
    model_fini(&m);
    return done;
}

static void test_shared_incast_recovers(void **state) {
    (void)state;
    uint64_t p0, p1;
    sim_time_ps pfc = run(BUFFER_SHARED, CC_NONE, DCQCN_PACE_QP, &p0);
    sim_time_ps dq = run(BUFFER_SHARED, CC_DCQCN, DCQCN_PACE_QP, &p1);
    /* Deep cuts cost time, but not the 33 ms of a stale 1 Mb/s gap: within
     * 3 x PFC only's time (1.90 x measured). */
    assert_true(dq < 3 * pfc);
    assert_true(dq > pfc);
    /* Paced per port, DCQCN barely cuts: PFC only's time within 5 %. */
    sim_time_ps port = run(BUFFER_SHARED, CC_DCQCN, DCQCN_PACE_PORT, &p1);
    assert_true(port < pfc + pfc / 20);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_incast_recovers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

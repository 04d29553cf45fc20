/* tests/roce/test_pfc.c
 *
 * PFC on a 16:1 incast (claim 1, Ethernet side): with headroom from docs/sources.md
 * A4's formula the fabric is lossless and pauses; with 1 KiB of headroom it
 * drops; without flow control it drops, retransmits and finishes later. A
 * flow from a paused sender to an idle receiver slows down (congestion
 * spreading).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce_common.h"

#include "flowctl/flowctl.h"

#include <stdio.h>

struct run {
    uint64_t drops, pauses, retx, paused_ps, delivered;
    sim_time_ps done_ps;
    int completed;
};

static struct run incast(enum flowctl_kind fc, bool autoh, uint64_t headroom) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.fabric.flow_control = fc;
    sc.fabric.pfc.headroom_auto = autoh;
    sc.fabric.pfc.headroom_bytes = headroom;
    struct wl_entry w;
    uint32_t senders[16];
    roce_incast(&sc, &w, senders, 16, 1024 * KIB);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    struct net *n = &m.net;
    struct run r = {n->c.packets_dropped,
                    n->c.pause_frames,
                    n->c.retransmitted_packets,
                    0,
                    n->c.bytes_delivered,
                    n->done_ps,
                    m.completed};
    for (uint32_t p = 0; p < n->nports; p++)
        r.paused_ps += n->ports[p].paused_ps;
    printf("  fc=%d headroom=%llu: drops %llu pauses %llu retx %llu paused %.1f us done %.1f us\n",
           fc, (unsigned long long)(autoh ? pfc_headroom_bytes(n) : headroom),
           (unsigned long long)r.drops, (unsigned long long)r.pauses, (unsigned long long)r.retx,
           r.paused_ps / 1e6, r.done_ps / 1e6);
    model_fini(&m);
    return r;
}

static void test_headroom_formula(void **state) {
    (void)state;
    /* docs/sources.md A4 worked example: 400 G, 4178 B on the wire, 2 m: 67 KB;
     * 30 m: 81 KB; 100 m: 116 KB (within rounding). */
    uint64_t h2 = pfc_headroom_auto(400 * GBPS, 10 * PS_PER_NS, 0, 4178);
    uint64_t h30 = pfc_headroom_auto(400 * GBPS, 150 * PS_PER_NS, 0, 4178);
    uint64_t h100 = pfc_headroom_auto(400 * GBPS, 500 * PS_PER_NS, 0, 4178);
    assert_in_range(h2, 66500, 67900);
    assert_in_range(h30, 80500, 81900);
    assert_in_range(h100, 115500, 116900);
}

static void test_incast_lossless_with_auto_headroom(void **state) {
    (void)state;
    struct run pfc = incast(FLOWCTL_PFC, true, 0);
    assert_true(pfc.completed);
    assert_int_equal(pfc.drops, 0);
    assert_int_equal(pfc.retx, 0);
    assert_true(pfc.pauses > 16);
    assert_true(pfc.paused_ps > 0);
    /* 16 MiB through one 400 G port at 98 % payload efficiency: ~343 us. */
    double ideal_us = 16.0 * 1024 * 1024 * 8 / 400e3 * (4096.0 + 82) / 4096;
    assert_true(pfc.done_ps / 1e6 < ideal_us * 1.05);
    assert_true(pfc.done_ps / 1e6 > ideal_us);
}

static void test_incast_small_headroom_drops(void **state) {
    (void)state;
    struct run r = incast(FLOWCTL_PFC, false, 1024);
    assert_true(r.completed);
    assert_true(r.drops > 0);
    assert_true(r.retx > 0);
}

static void test_incast_lossy_drops_and_is_slower(void **state) {
    (void)state;
    struct run pfc = incast(FLOWCTL_PFC, true, 0);
    struct run none = incast(FLOWCTL_NONE, true, 0);
    assert_true(none.completed);
    assert_true(none.drops > 0);
    assert_true(none.retx >= none.drops);
    assert_int_equal(none.pauses, 0);
    assert_true(none.done_ps > pfc.done_ps);
}

/* h1 sends to h0 in a 16:1 incast and also to idle h16. Without the incast,
 * its flow to h16 shares only h1's NIC (half the link); with it, PFC pauses
 * h1's whole link and the victim slows down with the incast. */
static double victim(bool with_incast) {
    struct scenario sc;
    roce_scenario(&sc);
    struct wl_flow fl[17];
    uint32_t k = 0;
    fl[k++] = (struct wl_flow){1, 16, 512 * KIB, 0};
    if (with_incast)
        for (uint32_t s = 1; s <= 15; s++)
            fl[k++] = (struct wl_flow){s, 0, 2048 * KIB, 0};
    else
        fl[k++] = (struct wl_flow){1, 0, 2048 * KIB, 0};
    struct wl_entry w;
    memset(&w, 0, sizeof w);
    w.kind = WL_FLOWS;
    w.flows = fl;
    w.nflows = k;
    sc.workload = &w;
    sc.nworkload = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    assert_true(m.completed);
    assert_int_equal(m.net.c.packets_dropped, 0);
    double g = flow_gbps(&m.net, 0);
    printf("  victim flow h1->h16 %s: %.1f Gb/s\n", with_incast ? "with incast" : "alone", g);
    model_fini(&m);
    return g;
}

static void test_victim_flow_slows(void **state) {
    (void)state;
    double alone = victim(false), spread = victim(true);
    assert_true(alone > 180); /* half of 400 G, less headers */
    assert_true(spread < alone / 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headroom_formula),
        cmocka_unit_test(test_incast_lossless_with_auto_headroom),
        cmocka_unit_test(test_incast_small_headroom_drops),
        cmocka_unit_test(test_incast_lossy_drops_and_is_slower),
        cmocka_unit_test(test_victim_flow_slows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

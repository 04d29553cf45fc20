/* tests/roce/test_pfc_storm.c
 *
 * How "lossless by configuration" fails (claim 1, Ethernet side):
 *  - PFC deadlock: a ring whose routes form a cyclic buffer dependency fills
 *    under load until every queue on the cycle is paused by the next; the
 *    shared detector (net/deadlock.c) reports the cycle (docs/sources.md V6).
 *  - Pause storm: a host stops draining (host_stall); its NIC pauses the
 *    switch without end and the pause spreads hop by hop to every sender,
 *    stopping flows that never go near the stalled host (docs/sources.md V7). The
 *    PFC watchdog drops the stuck queue and the rest of the fabric recovers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce_common.h"

#include "net/nic.h"

#include <stdio.h>

static void test_ring_deadlock_detected(void **state) {
    (void)state;
    struct scenario sc;
    roce_scenario(&sc);
    sc.topo.kind = TOPO_RING;
    sc.topo.ring_switches = 5;
    sc.topo.ring_hosts_per_switch = 2;
    sc.stop_ps = 5 * PS_PER_MS;
    /* Every host sends to the hosts two switches clockwise: each ring link
     * carries two switches' traffic (2x overload), and switch i's ingress
     * from i-1 waits on its egress to i+1 all the way round. */
    struct wl_entry w;
    roce_permutation(&sc, &w, PERM_SHIFT, 4, 16 * 1024 * KIB);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    struct net *n = &m.net;
    printf("  ring of 5, shift 2 switches: deadlock %d at %.1f us, cycle of %u ports, "
           "pauses %llu, drops %llu\n",
           n->deadlock.detected, n->deadlock.at_ps / 1e6, n->deadlock.ncycle,
           (unsigned long long)n->c.pause_frames, (unsigned long long)n->c.packets_dropped);
    assert_true(n->deadlock.detected);
    assert_false(m.completed);
    assert_true(n->deadlock.ncycle >= 5);
    /* Every port on the cycle is a ring link (switch to switch). */
    for (uint32_t i = 0; i < n->deadlock.ncycle; i++) {
        const struct port *pt = &n->ports[n->deadlock.cycle[i]];
        assert_int_equal(n->nodes[pt->node].kind, NODE_SWITCH);
        assert_int_equal(n->nodes[n->ports[pt->peer].node].kind, NODE_SWITCH);
    }
    assert_int_equal(n->c.packets_dropped, 0);
    model_fini(&m);
}

/* The same ring with the PFC watchdog on: the cycle forms and is named as
 * before, but the detector lets the run go on (net/deadlock.c) and the
 * watchdog drops the paused queues on the cycle; go-back-N resends what was
 * dropped and every flow completes. Drops are the price. */
static void test_ring_watchdog_breaks_deadlock(void **state) {
    (void)state;
    struct scenario sc;
    roce_scenario(&sc);
    sc.topo.kind = TOPO_RING;
    sc.topo.ring_switches = 5;
    sc.topo.ring_hosts_per_switch = 2;
    sc.fabric.pfc.watchdog_ps = 200 * PS_PER_US;
    sc.stop_ps = 50 * PS_PER_MS;
    struct wl_entry w;
    roce_permutation(&sc, &w, PERM_SHIFT, 4, 1024 * KIB);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    struct net *n = &m.net;
    printf("  ring of 5, watchdog 200 us: deadlock %d at %.1f us (cycle of %u ports), "
           "completed %d at %.1f us, pauses %llu, drops %llu, retransmitted %llu\n",
           n->deadlock.detected, n->deadlock.at_ps / 1e6, n->deadlock.ncycle, m.completed,
           m.sim.now_ps / 1e6, (unsigned long long)n->c.pause_frames,
           (unsigned long long)n->c.packets_dropped,
           (unsigned long long)n->c.retransmitted_packets);
    assert_true(n->deadlock.detected);
    assert_true(n->deadlock.ncycle >= 5);
    assert_true(m.completed);
    /* It finished after the watchdog's first interval, not before. */
    assert_true(n->done_ps > n->deadlock.at_ps + 200 * PS_PER_US);
    assert_true(n->c.packets_dropped > 0);
    assert_true(n->c.retransmitted_packets > 0);
    model_fini(&m);
}

struct storm {
    int completed;
    sim_time_ps victims_done_ps; /* last victim flow's end, NEVER if unfinished */
    uint32_t hosts_paused;       /* leaf1 NICs that were paused */
    uint64_t drops;
    sim_time_ps stuck_paused_ps; /* leaf0 -> h0 (the stalled host's link) */
    sim_time_ps paused_ps;       /* every link */
    sim_time_ps end_ps;
};

/* 2 leaves x 2 spines, 4 hosts each. Each of h4..h7 (leaf1) sends to each of
 * h0..h3 (leaf0); h0 stalls at 20 us for 10 ms. Flows to h1..h3 are the
 * victims: they share NICs, ingress queues and links with flows to h0. */
static struct storm storm(sim_time_ps watchdog) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.topo.kind = TOPO_LEAF_SPINE;
    sc.topo.leaves = 2;
    sc.topo.spines = 2;
    sc.topo.hosts_per_leaf = 4;
    sc.topo.uplinks_per_spine = 1;
    sc.fabric.routing = ROUTING_ECMP;
    sc.fabric.pfc.watchdog_ps = watchdog;
    sc.stop_ps = 3 * PS_PER_MS;
    struct wl_flow fl[16];
    for (uint32_t i = 0; i < 16; i++)
        fl[i] = (struct wl_flow){4 + i / 4, i % 4, 2 * 1024 * KIB, 0};
    struct wl_entry w;
    memset(&w, 0, sizeof w);
    w.kind = WL_FLOWS;
    w.flows = fl;
    w.nflows = 16;
    sc.workload = &w;
    sc.nworkload = 1;
    struct sc_event ev = {
        .at_ps = 20 * PS_PER_US, .kind = EV_HOST_STALL, .target = "h0", .for_ps = 10 * PS_PER_MS};
    sc.events = &ev;
    sc.nevents = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    struct net *n = &m.net;
    struct storm s = {m.completed, 0, 0, n->c.packets_dropped, 0, 0, n->sim->now_ps};
    s.stuck_paused_ps = n->ports[n->ports[nic_port(n, n->host_node[0])].peer].paused_ps;
    for (uint32_t p = 0; p < n->nports; p++)
        s.paused_ps += n->ports[p].paused_ps;
    for (uint32_t f = 0; f < 16; f++) {
        const struct flow_row *r = &n->flows[f];
        if (r->dst == 0) continue;
        bool done = r->msgs_left == 0;
        sim_time_ps end = done ? r->end_ps : SIM_TIME_NEVER;
        if (end > s.victims_done_ps) s.victims_done_ps = end;
    }
    for (uint32_t h = 4; h < 8; h++)
        s.hosts_paused += n->ports[nic_port(n, n->host_node[h])].paused_ps > 0;
    printf("  host_stall h0, watchdog %.0f us: victims done %s%.1f us, leaf1 hosts paused "
           "%u/4, pauses %llu, drops %llu, deadlock %d; leaf0->h0 paused %.1f us, all "
           "links %.1f us, run %.1f us\n",
           watchdog / 1e6, s.victims_done_ps == SIM_TIME_NEVER ? "never " : "",
           s.victims_done_ps == SIM_TIME_NEVER ? 0.0 : s.victims_done_ps / 1e6, s.hosts_paused,
           (unsigned long long)n->c.pause_frames, (unsigned long long)s.drops, n->deadlock.detected,
           s.stuck_paused_ps / 1e6, s.paused_ps / 1e6, s.end_ps / 1e6);
    assert_false(n->deadlock.detected); /* a storm is a tree of waits, not a cycle */
    model_fini(&m);
    return s;
}

static void test_pause_storm_spreads(void **state) {
    (void)state;
    struct storm s = storm(0);
    assert_false(s.completed);
    /* The pause reached every sender on the far leaf: the victims stop too. */
    assert_int_equal(s.hosts_paused, 4);
    assert_true(s.victims_done_ps == SIM_TIME_NEVER);
    /* Only what the stalled NIC took in before its pause took hold is lost
     * (the model does not keep a stalled NIC's receive buffer): at most
     * XOFF + headroom worth of packets. */
    assert_true(s.drops * 4178 <= (200 + 70) * KIB);
    /* The stalled host's link stays paused from the stall to the end of the
     * run: a pause that never ends is counted up to its last refresh (one
     * refresh = 65535 quanta / 2 = 42 us at 400 G). */
    assert_true(s.stuck_paused_ps + 45 * PS_PER_US >= s.end_ps - 20 * PS_PER_US);
    assert_true(s.stuck_paused_ps <= s.end_ps - 20 * PS_PER_US);
}

static void test_watchdog_breaks_storm(void **state) {
    (void)state;
    struct storm s = storm(200 * PS_PER_US);
    /* 6 MiB per receiver at 400 G is ~130 us; the victims finish once the
     * watchdog has dropped the stuck queue (drops are the price). */
    assert_true(s.victims_done_ps != SIM_TIME_NEVER);
    assert_true(s.victims_done_ps < 1 * PS_PER_MS);
    assert_true(s.drops > 0);
    /* The stuck queue is paused for one watchdog interval (+ the pause's
     * way there), then in storm state for as long as the NIC keeps pausing:
     * not paused again, whatever the NIC sends. */
    assert_true(s.stuck_paused_ps >= 200 * PS_PER_US);
    assert_true(s.stuck_paused_ps <= 260 * PS_PER_US);
    /* What stays paused is ordinary congestion: the senders to h0 keep
     * retransmitting into the dropped queue (26.5 ms of pause without the
     * watchdog, 14.5 ms with it, measured). */
    struct storm none = storm(0);
    assert_true(s.paused_ps * 4 < none.paused_ps * 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_deadlock_detected),
        cmocka_unit_test(test_ring_watchdog_breaks_deadlock),
        cmocka_unit_test(test_pause_storm_spreads),
        cmocka_unit_test(test_watchdog_breaks_storm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

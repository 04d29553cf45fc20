/* tests/ib/test_credit.c
 *
 * InfiniBand credit-based flow control (flowctl/credit.c): lossless by
 * construction, fair k-to-1 incast at line rate, conservation of credits,
 * tiny buffers, stalled hosts, VL arbitration weights.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ib_common.h"

#include "core/rng.h"
#include "flowctl/credit.h"
#include "flowctl/credit_core.h"
#include "net/port.h"
#include "workload/workload.h"

#include <stdio.h>
#include <stdlib.h>

static uint32_t hosts_seq[64];

static void incast(struct scenario *sc, struct wl_entry *w, uint32_t k, uint64_t size) {
    memset(w, 0, sizeof *w);
    for (uint32_t i = 0; i < k; i++)
        hosts_seq[i] = i;
    w->kind = WL_INCAST;
    w->senders = hosts_seq;
    w->nsenders = k;
    w->receiver = k;
    w->size_bytes = size;
    sc->workload = w;
    sc->nworkload = 1;
}

/* The port of the link a -> b. */
static uint32_t link_port(const struct net *n, uint32_t a, uint32_t b) {
    const struct node *nd = &n->nodes[a];
    for (uint32_t i = 0; i < nd->nports; i++)
        if (n->ports[n->ports[nd->first_port + i].peer].node == b) return nd->first_port + i;
    return NET_NONE;
}

/* 16:1 incast through one switch with credits: nothing is lost, the
 * receiver's link stays busy, and the per-input credit pools share it fairly
 * (docs/sources.md C: "k-to-1 incast ... per-flow rate -> C/k"). */
static void test_incast_16_to_1(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    ib_scenario(&sc);
    ib_single_switch(&sc, 17);
    incast(&sc, &w, 16, 2 << 20);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    struct net *n = &m.net;
    assert_true(m.completed);
    assert_int_equal(n->c.packets_dropped, 0);
    assert_int_equal(n->c.retransmitted_packets, 0);
    uint32_t sw = n->nhosts, rx = link_port(n, sw, n->host_node[16]);
    double busy = (double)port_busy_ps(&n->ports[rx]) / (double)n->done_ps;
    printf("incast 16:1: receiver link busy %.4f, done %.1f us\n", busy, n->done_ps / 1e6);
    assert_true(busy >= 0.95);
    /* ideal: 32 MiB of payload at 400 Gb/s with 26 B per 4096 B */
    double ideal_ps = 16.0 * (2 << 20) / 4096 * 4122 * 8 / 400e9 * 1e12;
    assert_true((double)n->done_ps < ideal_ps * 1.05);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t f = 0; f < n->nflows; f++) {
        uint64_t t = n->flows[f].end_ps - n->flows[f].start_ps;
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
    }
    printf("incast 16:1: completion %.1f .. %.1f us\n", lo / 1e6, hi / 1e6);
    assert_true((double)hi <= (double)lo * 1.10);
    /* the senders waited for credits: back-pressure, not loss */
    uint64_t stall = 0;
    for (uint32_t h = 0; h < 16; h++)
        stall += n->ports[n->nodes[n->host_node[h]].first_port].credit_stall_ps;
    assert_true(stall > 0);
    char why[256];
    assert_int_equal(credit_check_invariant(n, why, sizeof why), 0);
    model_fini(&m);
}

/* Conservation under random traffic, mid-run and at the end. */
static void test_invariant_random(void **state) {
    (void)state;
    struct scenario sc;
    ib_scenario(&sc);
    ib_leaf_spine(&sc, 4, 2, 4);
    sc.fabric.ib.credit_interval_ps = PS_PER_US; /* FCPs at most one per VL per 1 us */
    struct wl_entry w[2];
    memset(w, 0, sizeof w);
    w[0].kind = WL_PERMUTATION;
    w[0].pattern = PERM_RANDOM;
    w[0].size_bytes = 1 << 20;
    w[1].kind = WL_PERMUTATION;
    w[1].pattern = PERM_RANDOM;
    w[1].size_bytes = 300000;
    w[1].start_ps = 3000000;
    sc.workload = w;
    sc.nworkload = 2;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    char why[256] = "";
    for (int step = 1; step <= 8; step++) {
        m.sim.stop_ps = (sim_time_ps)step * 2500000; /* every 2.5 us */
        sim_run(&m.sim, NULL, NULL, 1u << 20);
        int bad = credit_check_invariant(&m.net, why, sizeof why);
        if (bad) printf("mid-run at %d: %s\n", step, why);
        assert_int_equal(bad, 0);
    }
    m.sim.stop_ps = SCENARIO_STOP_CAP_PS;
    model_run(&m, NULL, NULL);
    assert_true(m.completed);
    assert_int_equal(m.net.c.packets_dropped, 0);
    assert_int_equal(credit_check_invariant(&m.net, why, sizeof why), 0);
    model_fini(&m);
}

/* After every event (sim.after_event): the conservation law must hold at
 * every instant, not only where the mid-run checks happen to look. */
struct every_event {
    uint64_t checks, bad;
    char why[320];
};

static void check_after_event(struct sim *s, void *arg) {
    struct every_event *ev = arg;
    char why[256];
    ev->checks++;
    if (credit_check_invariant(s->model, why, sizeof why) && !ev->bad++)
        snprintf(ev->why, sizeof ev->why, "at %llu ps: %s", (unsigned long long)s->now_ps, why);
}

/* Random traffic: 48 messages between random host pairs on random VLs,
 * random sizes (1 B .. 160 KB) and start times (0 .. 20 us), rate-limited credit
 * updates, a link cut and restored mid-run (the resync path). The invariant
 * is checked after each of the run's events. */
static void run_every_event(uint64_t interval_ps, bool flap, uint64_t seed) {
    struct scenario sc;
    ib_scenario(&sc);
    ib_leaf_spine(&sc, 4, 2, 4);
    sc.fabric.ib.credit_interval_ps = interval_ps;
    sc.fabric.ib.credit_refresh_ps = 2 * PS_PER_US; /* refreshes within the run */
    sc.fabric.ib.vl_buffer_bytes = 16 * 1024;       /* small: back-pressure everywhere */
    sc.fabric.transport.timeout_ps = 50000000;      /* 50 us: losses at the cut recover */
    struct sc_event ev[2] = {
        {.at_ps = 6000000, .kind = EV_LINK_DOWN, .target = "leaf0-spine0"},
        {.at_ps = 9000000, .kind = EV_LINK_UP, .target = "leaf0-spine0"},
    };
    if (flap) {
        sc.events = ev;
        sc.nevents = 2;
    }
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    struct rng r;
    rng_seed(&r, seed, 0, 7);
    for (int i = 0; i < 48; i++) {
        uint32_t a = (uint32_t)rng_below(&r, 16), b = (uint32_t)rng_below(&r, 15);
        b += b >= a;
        uint32_t q = net_qp_new(n, n->host_node[a], n->host_node[b], (uint8_t)rng_below(&r, 4));
        net_msg_new(n, q, 1 + rng_below(&r, 160000), rng_below(&r, 20000000), -1, NET_NONE);
    }
    struct every_event chk = {0};
    m.sim.after_event = check_after_event;
    m.sim.after_event_arg = &chk;
    model_run(&m, NULL, NULL);
    printf(
        "every event (interval %.3f us%s): %llu events, %llu checks, %llu bad%s%s, done %.1f us, "
        "%llu dropped at the cut\n",
        interval_ps / 1e6, flap ? ", link flap" : "", (unsigned long long)m.sim.events_run,
        (unsigned long long)chk.checks, (unsigned long long)chk.bad, chk.bad ? ": " : "", chk.why,
        n->done_ps / 1e6, (unsigned long long)n->c.packets_dropped);
    assert_true(m.completed);
    assert_int_equal(chk.bad, 0);
    assert_true(chk.checks >= m.sim.events_run);
    assert_true(chk.checks > 20000);
    if (!flap) assert_int_equal(n->c.packets_dropped, 0);
    model_fini(&m);
}

static void test_invariant_every_event(void **state) {
    (void)state;
    run_every_event(1, false, 11);         /* an FCP per change */
    run_every_event(PS_PER_US, false, 12); /* coalesced over 1 us */
    run_every_event(PS_PER_US, true, 13);
}

/* The per-event check is not vacuous: a credit lost on the way (one block
 * taken from a transmitter mid-run) is reported at the next event. */
static void corrupt_once(struct sim *s, void *arg) {
    struct every_event *ev = arg;
    if (ev->checks == 5000) {
        struct net *n = s->model;
        credit_debug_take(n, n->nodes[n->host_node[0]].first_port, 0, 1);
    }
    check_after_event(s, arg);
}

static void test_invariant_detects_loss(void **state) {
    (void)state;
    struct scenario sc;
    ib_scenario(&sc);
    ib_leaf_spine(&sc, 2, 2, 2);
    struct wl_entry w;
    memset(&w, 0, sizeof w);
    w.kind = WL_ALLTOALL;
    w.size_bytes = 256 * 1024;
    sc.workload = &w;
    sc.nworkload = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct every_event chk = {0};
    m.sim.after_event = corrupt_once;
    m.sim.after_event_arg = &chk;
    model_run(&m, NULL, NULL);
    printf("one credit taken at event 5000: %llu of %llu checks fail (%s)\n",
           (unsigned long long)chk.bad, (unsigned long long)chk.checks, chk.why);
    assert_true(chk.bad > 0);
    model_fini(&m);
}

/* One host sends to another through a switch: `size` bytes on SL0 from 0
 * and, when `small`, one packet on SL1 at 1 us; built, not run. */
static void two_hosts(struct model *m, struct scenario *sc, uint64_t interval_ps, uint64_t size,
                      bool small) {
    ib_scenario(sc);
    ib_single_switch(sc, 2);
    sc->fabric.ib.credit_interval_ps = interval_ps;
    struct diag d = {0};
    assert_int_equal(model_build(m, sc, &d), 0);
    struct net *n = &m->net;
    uint32_t q = net_qp_new(n, n->host_node[0], n->host_node[1], 0);
    net_msg_new(n, q, size, 0, -1, NET_NONE);
    if (small) {
        q = net_qp_new(n, n->host_node[0], n->host_node[1], 1);
        net_msg_new(n, q, 4096, PS_PER_US, -1, NET_NONE);
    }
}

/* IBA flow-control packets on a busy link (docs/sources.md A2): about one
 * per credit_interval on the VL that carries data, not one per packet. */
static void test_fcp_busy_link(void **state) {
    (void)state;
    uint64_t fcp[2];
    const uint64_t iv[2] = {1, 256 * PS_PER_NS}; /* per change; the default */
    for (int i = 0; i < 2; i++) {
        struct model m;
        struct scenario sc;
        two_hosts(&m, &sc, iv[i], 4 << 20, false);
        model_run(&m, NULL, NULL);
        struct net *n = &m.net;
        assert_true(m.completed);
        uint32_t sw = n->nhosts, rx = link_port(n, sw, n->host_node[0]);
        fcp[i] = credit_fcp_count(n, rx, 0);
        double per_interval = (double)n->done_ps / (double)iv[1];
        printf("busy link, interval %.3f us: %llu FCPs on VL0 for 1024 packets (%.0f intervals)\n",
               iv[i] / 1e6, (unsigned long long)fcp[i], per_interval);
        if (i == 0) assert_true(fcp[i] >= 1024);
        if (i == 1) {
            assert_true(fcp[i] < 1024 / 2);
            assert_true((double)fcp[i] >= 0.8 * per_interval);
            assert_true((double)fcp[i] <= 1.1 * per_interval);
        }
        char why[256];
        assert_int_equal(credit_check_invariant(n, why, sizeof why), 0);
        model_fini(&m);
    }
}

/* Idle VLs are refreshed once per refresh period (IBA: 65,536 symbol times,
 * 5.24 us at 400 Gb/s) while the port's credits move; a lost FCP is repaired:
 * on a busy VL by the next change, on an idle one by the refresh. */
static void test_fcp_refresh_repairs(void **state) {
    (void)state;
    struct model m;
    struct scenario sc;
    two_hosts(&m, &sc, 256 * PS_PER_NS, 4 << 20, true);
    struct net *n = &m.net;
    uint32_t tx = n->nodes[n->host_node[0]].first_port, rx = n->ports[tx].peer;
    uint32_t cap = credit_capacity(n, rx, NULL);
    credit_debug_lose_next(n, tx, 1); /* the small message's FCP */
    credit_debug_lose_next(n, tx, 0); /* the bulk flow's first */
    m.sim.stop_ps = 4 * PS_PER_US;    /* after the small message, before a refresh */
    sim_run(&m.sim, NULL, NULL, 1u << 20);
    printf("refresh: at 4 us VL1 holds %lld of %u credits\n", (long long)credit_held(n, tx, 1),
           cap);
    assert_true(credit_held(n, tx, 1) < (int64_t)cap);
    char why[256];
    assert_int_equal(credit_check_invariant(n, why, sizeof why), 0);
    m.sim.stop_ps = SCENARIO_STOP_CAP_PS;
    model_run(&m, NULL, NULL);
    assert_true(m.completed);
    double R = 65536.0 * 8 * 4 / 400e9 * 1e12;
    for (uint32_t v = 0; v < 4; v++)
        printf("refresh: VL%u %llu FCPs in %.1f us (%.1f periods)\n", v,
               (unsigned long long)credit_fcp_count(n, rx, v), n->done_ps / 1e6, n->done_ps / R);
    for (uint32_t v = 2; v < 4; v++) { /* never used: refreshes only */
        double c = (double)credit_fcp_count(n, rx, v), want = (double)n->done_ps / R;
        assert_true(c >= want - 2 && c <= want + 2);
    }
    for (uint32_t v = 0; v < 4; v++)
        assert_int_equal(credit_held(n, tx, v), cap); /* everything back, losses repaired */
    assert_int_equal(credit_check_invariant(n, why, sizeof why), 0);
    uint64_t change, refresh;
    credit_fcp_totals(n, &change, &refresh);
    assert_true(change > 0 && refresh > 0);
    model_fini(&m);
}

/* IBA link re-initialisation (credit_on_link_up): when a cut link is back,
 * its transmitter holds no credits until the receiver's FCPs, one per VL sent
 * at once from the receiver's own state, give it the free space; idle VLs
 * then hold their whole buffer again and the run completes with the
 * conservation law intact. No end reads the other's counts, which is what
 * MPI ranks need (tests/par/check_mpi.sh: ib-flap-sm, ib-failure-shield). */
struct reinit_watch {
    uint32_t tx, rx;
    int phase;             /* 0 before the cut, 1 cut, 2 back (recorded) */
    int64_t held_at_up[4]; /* the transmitter's credits after the link-up event */
    uint64_t fcps_before, fcps_at_up;
};

static void watch_reinit(struct sim *s, void *arg) {
    struct reinit_watch *w = arg;
    struct net *n = s->model;
    if (w->phase == 0 && !n->ports[w->tx].up) {
        w->phase = 1;
        w->fcps_before = credit_fcp_count(n, w->rx, 1);
    } else if (w->phase == 1 && n->ports[w->tx].up && n->ports[w->rx].up) {
        w->phase = 2;
        for (uint32_t v = 0; v < 4; v++)
            w->held_at_up[v] = credit_held(n, w->tx, v);
        w->fcps_at_up = credit_fcp_count(n, w->rx, 1);
    }
}

static void test_link_reinit(void **state) {
    (void)state;
    struct model m;
    struct scenario sc;
    ib_scenario(&sc);
    ib_single_switch(&sc, 2);
    sc.fabric.transport.timeout_ps = 50 * PS_PER_US; /* what the cut loses, resent */
    struct sc_event ev[2] = {
        {.at_ps = 5 * PS_PER_US, .kind = EV_LINK_DOWN, .target = "h1-sw0"}, /* mid-flow */
        {.at_ps = 6 * PS_PER_US, .kind = EV_LINK_UP, .target = "h1-sw0"},
    };
    sc.events = ev;
    sc.nevents = 2;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    uint32_t q = net_qp_new(n, n->host_node[0], n->host_node[1], 0);
    net_msg_new(n, q, 1 << 20, 0, -1, NET_NONE);
    struct reinit_watch w = {.tx = link_port(n, n->nhosts, n->host_node[1])};
    w.rx = n->ports[w.tx].peer;
    uint32_t cap = credit_capacity(n, w.rx, NULL);
    m.sim.after_event = watch_reinit;
    m.sim.after_event_arg = &w;
    model_run(&m, NULL, NULL);
    char why[256] = "";
    printf("link re-init: held at link-up %lld %lld %lld %lld, FCPs on VL1 %llu -> %llu; done "
           "%.1f us, %llu dropped at the cut; held at the end %lld %lld of %u\n",
           (long long)w.held_at_up[0], (long long)w.held_at_up[1], (long long)w.held_at_up[2],
           (long long)w.held_at_up[3], (unsigned long long)w.fcps_before,
           (unsigned long long)w.fcps_at_up, n->done_ps / 1e6,
           (unsigned long long)n->c.packets_dropped, (long long)credit_held(n, w.tx, 0),
           (long long)credit_held(n, w.tx, 1), cap);
    assert_int_equal(w.phase, 2);
    for (uint32_t v = 0; v < 4; v++)
        assert_int_equal(w.held_at_up[v], 0);          /* FCTBS reset: wait for the FCPs */
    assert_int_equal(w.fcps_at_up, w.fcps_before + 1); /* one per VL at link-up */
    assert_true(m.completed);
    assert_true(n->c.packets_dropped > 0); /* the cut did cut a busy link */
    /* VL0's last FCP may still be on the wire when the run ends (credits
     * do not keep a run alive): the invariant counts it as returning */
    assert_int_equal(credit_check_invariant(n, why, sizeof why), 0);
    assert_true(credit_held(n, w.tx, 0) >= (int64_t)cap - 65);
    for (uint32_t v = 1; v < 4; v++) /* idle VLs: the whole buffer, from the FCP alone */
        assert_int_equal(credit_held(n, w.tx, v), cap);
    model_fini(&m);
}

/* Line rate is unchanged by the interval: one 4 MiB flow takes the same time
 * (within 1 %) with an FCP per change and with the default 256 ns. */
static void test_fcp_line_rate(void **state) {
    (void)state;
    const uint64_t iv[3] = {1, 256 * PS_PER_NS, 512 * PS_PER_NS};
    uint64_t done[3];
    for (int i = 0; i < 3; i++) {
        struct model m;
        struct scenario sc;
        two_hosts(&m, &sc, iv[i], 4 << 20, false);
        model_run(&m, NULL, NULL);
        assert_true(m.completed);
        done[i] = m.net.done_ps;
        printf("line rate, interval %.3f us: done %.3f us\n", iv[i] / 1e6, done[i] / 1e6);
        model_fini(&m);
    }
    double ideal_ps = (4 << 20) / 4096.0 * 4122 * 8 / 400e9 * 1e12;
    for (int i = 0; i < 3; i++) {
        assert_true((double)done[i] <= (double)done[0] * 1.01);
        assert_true((double)done[i] < ideal_ps * 1.03);
    }
}

/* One MTU packet of credits per VL: slow (a credit round trip per packet)
 * but never a drop, and everything finishes. */
static void test_one_mtu_buffers(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    ib_scenario(&sc);
    ib_leaf_spine(&sc, 2, 2, 4);
    sc.fabric.ib.vl_buffer_bytes = 4160; /* 65 blocks = one 4122 B packet */
    sc.fabric.ib.nic_buffer_bytes = 4160;
    memset(&w, 0, sizeof w);
    w.kind = WL_ALLTOALL;
    w.size_bytes = 64 * 1024;
    sc.workload = &w;
    sc.nworkload = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    assert_true(m.completed);
    assert_int_equal(m.net.c.packets_dropped, 0);
    assert_false(m.net.deadlock.detected);
    char why[256];
    assert_int_equal(credit_check_invariant(&m.net, why, sizeof why), 0);
    model_fini(&m);
    /* less than one packet is refused with a message */
    sc.fabric.ib.vl_buffer_bytes = 4096;
    assert_int_not_equal(model_build(&m, &sc, &d), 0);
    assert_non_null(strstr(d.msg, "one MTU"));
    model_fini(&m);
}

/* A receiver that stops draining: back-pressure spreads, nothing drops, the
 * senders stall on credits for about the stall's length. */
static void test_host_stall(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    ib_scenario(&sc);
    ib_single_switch(&sc, 5);
    incast(&sc, &w, 4, 1 << 20);
    struct sc_event ev = {
        .at_ps = 5000000, .kind = EV_HOST_STALL, .target = "h4", .for_ps = 50000000};
    sc.events = &ev;
    sc.nevents = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    struct net *n = &m.net;
    assert_true(m.completed);
    assert_int_equal(n->c.packets_dropped, 0);
    uint32_t rx = link_port(n, n->nhosts, n->host_node[4]);
    printf("host stall: switch->h4 stalled %.1f us, done %.1f us\n",
           n->ports[rx].credit_stall_ps / 1e6, n->done_ps / 1e6);
    assert_true(n->ports[rx].credit_stall_ps > 45000000);
    assert_true(n->done_ps > 55000000);
    model_fini(&m);
}

/* VLArb low table VL0 weight 128, VL1 weight 64: two flows on the two VLs
 * into one output share it 2:1 while both are backlogged. */
static void test_vlarb_weights(void **state) {
    (void)state;
    struct scenario sc;
    ib_scenario(&sc);
    ib_single_switch(&sc, 3);
    sc.fabric.ib.vls = 2;
    sc.fabric.ib.nvlarb_low = 2;
    sc.fabric.ib.vlarb_low[0] = (struct ib_vlarb_entry){0, 128};
    sc.fabric.ib.vlarb_low[1] = (struct ib_vlarb_entry){1, 64};
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    uint32_t q0 = net_qp_new(n, n->host_node[0], n->host_node[2], 0);
    uint32_t q1 = net_qp_new(n, n->host_node[1], n->host_node[2], 1);
    uint32_t m0 = net_msg_new(n, q0, 8 << 20, 0, -1, NET_NONE);
    uint32_t m1 = net_msg_new(n, q1, 8 << 20, 0, -1, NET_NONE);
    m.sim.stop_ps = 100000000; /* 100 us: both backlogged throughout */
    model_run(&m, NULL, NULL);
    (void)m0, (void)m1;
    double a = (double)n->qps[q0].una, b = (double)n->qps[q1].una;
    printf("vlarb 128:64: VL0 %.0f VL1 %.0f packets, ratio %.3f\n", a, b, a / b);
    assert_true(a / b > 1.8 && a / b < 2.2);
    model_fini(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_incast_16_to_1),        cmocka_unit_test(test_invariant_random),
        cmocka_unit_test(test_invariant_every_event), cmocka_unit_test(test_invariant_detects_loss),
        cmocka_unit_test(test_one_mtu_buffers),       cmocka_unit_test(test_host_stall),
        cmocka_unit_test(test_vlarb_weights),         cmocka_unit_test(test_fcp_busy_link),
        cmocka_unit_test(test_fcp_refresh_repairs),   cmocka_unit_test(test_fcp_line_rate),
        cmocka_unit_test(test_link_reinit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

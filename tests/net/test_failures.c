/* tests/net/test_failures.c
 *
 * Failures as they unfold (docs/model.md "Failures", docs/sources.md A10, A12): the
 * RC transport's IBA timeout and retry count, port-down vs gray failures
 * under BGP, valley-free routes, bit errors. Each number asserted here was
 * wrong under the earlier model (a 100 us timeout retried for ever, BGP
 * waiting for the hold timer on a port-down, shortest-path routes through a
 * valley, no bit errors). The RoCE runs that test the IBA timer set
 * `transport.rto: iba`: RoCE's default is ConnectX adaptive retransmission
 * (tests/net/test_retransmit.c).
 */
#include "testutil.h"

#include "net/net.h"
#include "route/route.h"
#include "stats/results.h"

#include <math.h>

#define MS (1000000000ULL)
#define US (1000000ULL)
#define T20 (4096000ULL << 20) /* NCCL_IB_TIMEOUT 20: 4.29 s */

/* (DCQCN is off in the RoCE runs only to keep them fast: its timers keep
 * running while a QP is stalled for seconds, 12 M events for 13 s.) */
/* A 4-rank ring allreduce across two leaves (ranks h0, h1 on leaf0 and h2,
 * h3 on leaf1), 2 channels, and one failure event. */
static void job_run(struct trun *t, const char *fabric, const char *event, const char *stop) {
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "name: fail\nseed: 1\nfabric: %s\n"
             "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}\n"
             "stop: %s\n"
             "workload:\n"
             "  - {kind: allreduce, ranks: [h0, h2, h1, h3], size: 64MiB, algorithm: ring}\n"
             "events:\n  - %s\n",
             fabric, stop, event);
    trun_start(t, yaml, NULL, 0);
    assert_int_equal(t->rc, 0);
}

struct outcome {
    sim_time_ps stall;
    uint64_t retries, lost, drops;
    uint32_t qp_errors;
    bool completed;
};

static struct outcome outcome_of(const struct trun *t) {
    const struct net *n = &t->m.net;
    struct outcome o = {0};
    for (uint32_t q = 0; q < n->nqps; q++) {
        if (n->qps[q].stall_max_ps > o.stall) o.stall = n->qps[q].stall_max_ps;
        o.retries += n->qps[q].retries_total;
    }
    for (uint32_t i = 0; i < n->ncp_rows; i++)
        o.lost += n->cp_rows[i].packets_lost;
    o.drops = n->c.packets_dropped;
    o.qp_errors = n->nqp_errs;
    o.completed = t->m.completed;
    printf("  stall %.3f s, retries %llu, lost on the link %llu, dropped %llu, qp errors %u, "
           "completed %d, %.2f s wall\n",
           o.stall / 1e12, (unsigned long long)o.retries, (unsigned long long)o.lost,
           (unsigned long long)o.drops, o.qp_errors, o.completed, t->m.wall_s);
    return o;
}

/* A black hole repaired long before the timeout still costs the job one
 * local ACK timeout: the lost tail of a QP is only noticed by the timer
 * (docs/sources.md A12, "No NAK without a later packet"). InfiniBand's SM reroutes
 * in tens of ms, RoCE with BFD in ~150 ms; both stall the job ~4.3 s. And
 * what the dead path swallows stays in the thousands of packets: one window
 * per QP and one resend per timeout, not a line-rate storm. */
static void test_sm_and_bfd_stall_one_timeout(void **state) {
    (void)state;
    struct trun ib, bfd;
    job_run(&ib, "{kind: infiniband, routing_engine: minhop}",
            "{at: 100us, link_down: leaf0-spine0}", "20s");
    struct outcome a = outcome_of(&ib);
    job_run(&bfd,
            "{kind: roce, routing: ecmp, congestion_control: none, control_plane: {detect: 150ms}, "
            "transport: {rto: iba}}",
            "{at: 100us, link_gray: leaf0-spine0}", "20s");
    struct outcome b = outcome_of(&bfd);
    assert_true(ib.m.net.cp_rows[0].rerouted_ps - 100 * US < 100 * MS); /* SM: tens of ms */
    assert_true(bfd.m.net.cp_rows[0].rerouted_ps - 100 * US > 150 * MS);
    const struct outcome *o[2] = {&a, &b};
    for (int i = 0; i < 2; i++) {
        assert_true(o[i]->completed);
        assert_true(o[i]->stall > T20 * 9 / 10 && o[i]->stall < T20 * 11 / 10);
        assert_true(o[i]->retries >= 1);
        assert_true(o[i]->drops > 0 && o[i]->drops < 50000);
    }
    trun_end(&ib);
    trun_end(&bfd);
}

/* A gray failure found only by the 9 s hold timer: with NCCL_IB_TIMEOUT 20
 * the QP's third retry (12.9 s) finds the new path and the job survives;
 * with the older default 18 its 7 retries end at 8 x 1.07 = 8.6 s < 9 s and
 * the QP errors: the job aborts, the run ends incomplete with exit 0. */
static void test_hold_timer_gray_20_survives_18_aborts(void **state) {
    (void)state;
    struct trun t20, t18;
    job_run(&t20, "{kind: roce, routing: ecmp, congestion_control: none, transport: {rto: iba}}",
            "{at: 100us, link_gray: leaf0-spine0}", "30s");
    struct outcome a = outcome_of(&t20);
    job_run(&t18,
            "{kind: roce, routing: ecmp, congestion_control: none, "
            "transport: {timeout: 18, rto: iba}}",
            "{at: 100us, link_gray: leaf0-spine0}", "30s");
    struct outcome b = outcome_of(&t18);
    assert_true(a.completed);
    assert_int_equal(a.qp_errors, 0);
    assert_true(a.stall > 9 * 1000 * MS && a.stall < 3 * T20 + 100 * MS);
    assert_false(b.completed);
    assert_true(b.qp_errors >= 1);
    const struct qp_err_row *r = &t18.m.net.qp_errs[0];
    assert_int_equal(r->retries, 7);
    /* the last progress was just after 100 us: error 8 timeouts later */
    assert_true(r->at_ps > 8 * (4096000ULL << 18) && r->at_ps < 8 * (4096000ULL << 18) + MS);
    /* still far from a storm: thousands of packets into a 9 s black hole */
    assert_true(a.drops < 200000 && b.drops < 200000);
    /* The job aborts when one of its QPs errors, even a QP whose data had
     * all arrived (only its ACKs were lost): NCCL sees RETRY_EXC_ERR on the
     * send and aborts the communicator. The stall up to the error counts. */
    char *j18 = tresults_json(&t18);
    assert_null(strstr(j18, "\"aborted_at_ns\": null"));
    assert_non_null(strstr(j18, "\"would_abort_timeout_18\": true"));
    assert_null(strstr(j18, "\"stalled_ns\": 0,"));
    free(j18);
    char *j20 = tresults_json(&t20);
    assert_non_null(strstr(j20, "\"aborted_at_ns\": null"));
    free(j20);
    trun_end(&t20);
    trun_end(&t18);
}

/* A port-down under BGP: both switches on the link drop the port from their
 * ECMP groups after the hardware delay (100 us), fast-external-fallover
 * withdraws at once, the far leaf converges one hop later; no hold timer.
 * The run is held open until then although the traffic ended first, so
 * rerouted_at_ns is set. After convergence no route goes down-up-down. */
static void test_port_down_bgp(void **state) {
    (void)state;
    struct trun t;
    trun_start(&t,
               "name: pd\nseed: 1\nfabric: {kind: roce, routing: ecmp}\n"
               "topology: {kind: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 2}\n"
               "workload:\n  - {kind: flows, flows: [{src: h0, dst: h2, size: 16MiB}]}\n"
               "events:\n  - {at: 10us, link_down: leaf0-spine0}\n",
               NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    const struct cp_row *r = &n->cp_rows[0];
    assert_int_equal(r->local_rerouted_ps - r->at_ps, 100 * US);
    /* ends: 100 us + proc 1 ms; the far leaves one hop later (25 ns + 1 ms) */
    assert_int_equal(r->rerouted_ps - r->at_ps, 100 * US + 2 * MS + 25000);
    assert_true(t.m.completed);
    /* valley-free: every route of a spine goes down; spine0 has none to leaf0 */
    for (uint32_t v = 0; v < n->nnodes; v++) {
        if (n->nodes[v].kind != NODE_SWITCH || n->nodes[v].role != ROLE_SPINE) continue;
        for (uint32_t h = 0; h < n->nhosts; h++) {
            const uint32_t *ports;
            uint32_t c = route_fib_get(n, v, h, &ports);
            for (uint32_t i = 0; i < c; i++)
                assert_true(n->nodes[n->ports[n->ports[ports[i]].peer].node].level <
                            n->nodes[v].level);
            if (!strcmp(n->names[v], "spine0") && h < 2) assert_int_equal(c, 0);
        }
    }
    trun_end(&t);
}

/* Bit errors: a packet of b wire bytes is lost at the receiver with
 * probability p = 1 - (1 - ber)^(8b); over N packets the count is binomial.
 * Lossy RoCE with a fixed fast RTO: every loss is recovered by a NAK or the
 * timer, and every byte arrives. */
static void test_ber_binomial(void **state) {
    (void)state;
    struct trun t;
    trun_start(&t,
               "name: ber\nseed: 7\n"
               "fabric: {kind: roce, flow_control: none, congestion_control: none, "
               "transport: {timeout: 100us, rto: fixed}}\n"
               "topology: {kind: single_switch, hosts: 2}\n"
               "workload:\n  - {kind: flows, flows: [{src: h0, dst: h1, size: 400MiB}]}\n"
               "events:\n  - {at: 0us, link_ber: h0->sw0, ber: 1e-6}\n",
               NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    uint32_t p = tlink(&t, "h0->sw0");
    double N = (double)n->ports[p].tx_packets;
    double pr = -expm1(8.0 * (4096 + 82) * log1p(-1e-6));
    double mean = N * pr, sd = sqrt(N * pr * (1 - pr));
    double got = (double)n->port_fail[p].corrupted;
    printf("  %.0f packets, %.0f corrupted, expected %.1f +- %.1f\n", N, got, mean, sd);
    assert_true(fabs(got - mean) < 3 * sd);
    assert_int_equal(n->c.corrupted, n->port_fail[p].corrupted);
    assert_true(t.m.completed);
    assert_int_equal(n->c.bytes_delivered, 400ULL << 20);
    trun_end(&t);
}

/* A credit deadlock (cyclic min-hop routes on a ring) is not forever: the
 * switch discards a packet that has waited at the head of its VL longer than
 * the HOQ lifetime (OpenSM 0x12: 4.096 us x 2^18 = 1.07 s towards switches),
 * as a PFC watchdog ends a PFC deadlock. The first discard comes one
 * lifetime after the stuck heads became heads (the cycle forms within the
 * first 200 us), on the ports of the cycle. */
static void test_credit_deadlock_ends_in_hoq_discards(void **state) {
    (void)state;
    struct trun t;
    trun_start(&t,
               "name: dl\nseed: 1\n"
               "fabric: {kind: infiniband, flow_control: credit, routing: static, "
               "routing_engine: minhop, buffer: 128KiB}\n"
               "topology: {kind: ring, ring: {switches: 5, hosts_per_switch: 1}}\n"
               "stop: 1200ms\n"
               "workload:\n  - {kind: permutation, pattern: shift, shift: 2, size: 2MiB}\n",
               NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    sim_time_ps life = 4096000ULL << 18;
    printf("  deadlock at %.1f us, first HOQ discard at %.6f s (lifetime %.6f s), %llu discards\n",
           n->deadlock.at_ps / 1e6, n->c.first_hoq_ps / 1e12, life / 1e12,
           (unsigned long long)n->c.hoq_discards);
    assert_true(n->deadlock.detected);
    assert_true(n->c.hoq_discards > 0);
    assert_true(n->c.first_hoq_ps >= life && n->c.first_hoq_ps <= life + 200 * US);
    for (uint32_t i = 0; i < n->deadlock.ncycle; i++)
        assert_true(n->port_fail[n->deadlock.cycle[i]].hoq_discards > 0);
    trun_end(&t);
}

/* InfiniBand: a gray link sends no trap (its ports stay Active); the SM's
 * next periodic sweep (10 s, sources.md A10) probes the port through the
 * link, its SMP and 3 resends are lost (200 ms each: OpenSM's transaction
 * timeout and retry count), and the SM takes the link out at 10.8 s. The
 * job's QPs retry every 4.3 s and the third retry (12.9 s) gets through. */
static void test_ib_gray_found_by_sweep(void **state) {
    (void)state;
    struct trun t;
    job_run(&t, "{kind: infiniband, routing_engine: minhop}",
            "{at: 100us, link_gray: leaf0-spine0}", "30s");
    struct outcome o = outcome_of(&t);
    const struct cp_row *r = &t.m.net.cp_rows[0];
    assert_int_equal(r->detected_by, CP_DET_SWEEP);
    assert_int_equal(r->detected_ps, 10 * 1000 * MS + 4 * 200 * MS);
    assert_true(r->rerouted_ps > r->detected_ps && r->rerouted_ps < r->detected_ps + 100 * MS);
    assert_true(o.completed);
    assert_true(o.stall > 3 * T20 - 10 * MS && o.stall < 3 * T20 + 100 * MS);
    trun_end(&t);
}

/* The subnet_manager lab's Ethernet base with the gray link found only by
 * the 9 s hold timer, at NCCL's older timeout 18: some of the allreduce's
 * QPs exhaust their retries with every byte of their messages already
 * received (only the ACKs were lost, msg_x cleared at the receive); the job
 * aborts all the same (it said aborted_at_ns: null, stalled_ns: 0). */
static void test_abort_after_data_arrived(void **state) {
    (void)state;
    FILE *f = fopen("scenarios/labs/subnet_manager/02-failure-roce-bgp.yaml", "r");
    assert_non_null(f);
    static char yaml[8192];
    size_t len = fread(yaml, 1, sizeof yaml - 1, f);
    yaml[len] = 0;
    fclose(f);
    const char *sets[] = {"events.0={at: 50ms, link_gray: leaf0-spine0}",
                          "fabric.transport.timeout=18"};
    struct trun t;
    trun_start(&t, yaml, sets, 2);
    assert_int_equal(t.rc, 0);
    assert_true(t.m.net.nqp_errs >= 3);
    char *j = tresults_json(&t);
    assert_null(strstr(j, "\"aborted_at_ns\": null"));
    assert_null(strstr(j, "\"stalled_ns\": 0,"));
    assert_non_null(strstr(j, "\"would_abort_timeout_18\": true"));
    free(j);
    trun_end(&t);
}

/* The destination's own link goes down and never comes back: no reroute
 * can help, so the reason says so (it advised "raise `stop`"), the job's
 * stall runs to the stop, and timeout 18 would have aborted it. Without
 * `stop` the reason also says the run was cut at the default cap. */
static void test_unreachable_destination(void **state) {
    (void)state;
    struct trun t;
    job_run(&t, "{kind: infiniband}", "{at: 20us, link_down: leaf1-h3}", "10s");
    char why[512];
    assert_true(results_incomplete_reason(&t.m, why, sizeof why));
    printf("  %s\n", why);
    assert_non_null(strstr(why, "cannot reach their peer (h3 has no live link"));
    assert_non_null(strstr(why, "raising `stop` cannot help"));
    char *j = tresults_json(&t);
    assert_non_null(strstr(j, "\"would_abort_timeout_18\": true"));
    assert_non_null(strstr(j, "\"stalled_ns\": 99999")); /* ~10 s, from 20 us */
    free(j);
    trun_end(&t);
}

static void test_default_cap_said(void **state) {
    (void)state;
    struct trun t;
    const char *yaml = "name: cap\nseed: 1\nfabric: {kind: infiniband, link: 10Gbps}\n"
                       "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}\n"
                       "workload:\n  - {kind: allreduce, size: 4GiB, algorithm: ring}\n";
    trun_start(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    assert_false(t.m.completed);
    char why[512];
    assert_true(results_incomplete_reason(&t.m, why, sizeof why));
    printf("  %s\n", why);
    assert_non_null(strstr(why, "the default cap of a scenario without `stop`"));
    trun_end(&t);
}

/* InfiniBand adaptive routing across a port-down: without a notification
 * the far leaf keeps choosing the spine that lost its link to the
 * destination's leaf (the packets die there) until the SM reroutes; with
 * SHIELD's pFRN the spine's peers mask it within 10 us. With a short ACK
 * timeout (exponent 10: 4.2 ms) the job then needs no timeout at all (its
 * in-flight packets at the failure are lost either way; the AR receiver
 * NAKs their holes once fabric.reorder_timeout passes, tests/net/test_reorder.c)
 * instead of retrying into the black hole until the SM's reroute (~20 ms),
 * and loses ~180 packets, not ~20,000. */
static void test_ar_pfrn_avoids_dead_spine(void **state) {
    (void)state;
    struct trun on, off;
    const char *ev = "{at: 100us, link_down: leaf0-spine0}";
    job_run(&on,
            "{kind: infiniband, routing: adaptive, transport: {timeout: 10}, "
            "control_plane: {shield: true}}",
            ev, "20s");
    struct outcome a = outcome_of(&on);
    job_run(&off, "{kind: infiniband, routing: adaptive, transport: {timeout: 10}}", ev, "20s");
    struct outcome b = outcome_of(&off);
    const sim_time_ps t10 = 4096000ULL << 10;
    assert_true(a.completed && b.completed);
    assert_int_equal(on.m.net.cp_rows[0].local_rerouted_ps, 110 * US);
    assert_true(a.stall == 0 && a.retries == 0);
    assert_true(on.m.net.c.ooo_naks > 0);
    assert_true(a.drops < 500);
    assert_true(b.stall > 2 * t10);
    assert_true(b.drops > 5000);
    trun_end(&on);
    trun_end(&off);
}

/* A gray link whose losses are CRC errors (errors: true) on InfiniBand with
 * the switch's fast recovery from unhealthy links (Quantum BER monitor,
 * sources.md A10; window set to 50 ms here, the firmware's is not
 * published): the switch takes the port down 50 ms after the errors begin,
 * which is a port-down to the SM (trap) and to SHIELD, long before the 10 s
 * sweep. The same silent (errors: false) link waits for the sweep: the
 * monitor counts errors, and vanished packets are none. The losses are
 * counted as corrupted, not as gray drops. */
static void test_ib_unhealthy_link_monitor(void **state) {
    (void)state;
    struct trun t, s;
    job_run(&t,
            "{kind: infiniband, routing_engine: minhop, control_plane: {shield: true, "
            "unhealthy_down: 50ms}}",
            "{at: 100us, link_gray: leaf0-spine0, errors: true}", "30s");
    struct outcome o = outcome_of(&t);
    const struct cp_row *r = &t.m.net.cp_rows[0];
    assert_int_equal(r->detected_by, CP_DET_UNHEALTHY);
    assert_int_equal(r->detected_ps, 100 * US + 50 * MS);
    assert_int_equal(r->local_rerouted_ps, 100 * US + 50 * MS + 10 * US); /* SHIELD */
    assert_true(r->rerouted_ps > r->detected_ps && r->rerouted_ps < r->detected_ps + 100 * MS);
    assert_true(t.m.net.c.corrupted > 0);
    assert_int_equal(t.m.net.c.gray_dropped, 0);
    assert_true(o.completed);
    assert_true(o.stall < T20 + 100 * MS); /* one timeout, not three */
    job_run(&s,
            "{kind: infiniband, routing_engine: minhop, control_plane: {shield: true, "
            "unhealthy_down: 50ms}}",
            "{at: 100us, link_gray: leaf0-spine0}", "30s");
    assert_int_equal(s.m.net.cp_rows[0].detected_by, CP_DET_SWEEP);
    assert_int_equal(s.m.net.c.corrupted, 0);
    trun_end(&t);
    trun_end(&s);
}

/* Liveness probes against a partial gray link (drop 0.5): BFD (150 ms =
 * 3 x 50 ms) needs three lost in a row, so it finds the link after a run of
 * probes, a multiple of 50 ms and later than 150 ms; the same on InfiniBand:
 * the sweep's SMP fails only when all 4 tries are lost (1/16 per sweep), so
 * the SM finds it rarely, in whole sweeps plus 0.8 s. Reproducible (the
 * probes draw from the link's own stream) and independent of the data
 * path's losses. */
static void test_partial_gray_liveness(void **state) {
    (void)state;
    struct trun a, b;
    job_run(&a,
            "{kind: roce, routing: ecmp, congestion_control: none, control_plane: {detect: 150ms}}",
            "{at: 100us, link_gray: leaf0-spine0, drop: 0.5}", "5s");
    const struct cp_row *r = &a.m.net.cp_rows[0];
    assert_int_equal(r->detected_by, CP_DET_LIVENESS);
    sim_time_ps d = r->detected_ps - 100 * US;
    printf("  BFD found the half-gray link after %.3f s\n", d / 1e12);
    assert_true(d >= 150 * MS && d % (50 * MS) == 0);
    job_run(&b, "{kind: infiniband, routing_engine: minhop}",
            "{at: 100us, link_gray: leaf0-spine0, drop: 0.5}", "300s");
    r = &b.m.net.cp_rows[0];
    printf("  the SM found it at %.3f s\n", r->detected_ps / 1e12);
    assert_true(
        r->detected_ps == SIM_TIME_NEVER ||
        (r->detected_ps > 10 * 1000 * MS && (r->detected_ps - 800 * MS) % (10 * 1000 * MS) == 0));
    trun_end(&a);
    trun_end(&b);
}

/* A flapping link: down 1 ms, up 2 ms, three times. Each down phase is a
 * control_plane row with its up time; BGP converges after each change (the
 * run is held open for it) and the job completes. Under the IBA timer the
 * job's first loss stalls it 4.29 s, so every flap happens while it runs
 * (with adaptive retransmission it finishes ~1 ms after the first flap,
 * before the third one's up phase: no up time on that row). */
static void test_link_flap(void **state) {
    (void)state;
    struct trun t;
    job_run(&t, "{kind: roce, routing: ecmp, congestion_control: none, transport: {rto: iba}}",
            "{at: 100us, link_flap: leaf0-spine0, down: 1ms, up: 2ms, count: 3}", "30s");
    struct outcome o = outcome_of(&t);
    const struct net *n = &t.m.net;
    assert_int_equal(n->ncp_rows, 3);
    for (uint32_t i = 0; i < 3; i++) {
        const struct cp_row *r = &n->cp_rows[i];
        assert_int_equal(r->event, EV_LINK_FLAP);
        assert_int_equal(r->at_ps, 100 * US + i * 3 * MS);
        assert_int_equal(r->up_ps, r->at_ps + 1 * MS);
        assert_int_equal(r->local_rerouted_ps, r->at_ps + 100 * US);
        assert_true(r->rerouted_ps != SIM_TIME_NEVER);
    }
    assert_true(o.completed);
    trun_end(&t);
}

/* A lossy RoCE fabric (no PFC, no congestion control) under two ring jobs:
 * incast drops at the spines, and a QP whose lost packet was its last one
 * has no later packet to draw a NAK: only its local ACK timeout (4.29 s at
 * NCCL's 20) resends it. Under the 1 s cap the run stops with nothing in
 * flight, and the reason says which timers it waits for (it said "stopped
 * with work left" and nothing else); given the time it completes after
 * timeouts, each a stall of one timeout. */
static void test_lossy_tail_drop_waits_for_timeout(void **state) {
    (void)state;
    const char *base = "name: lossy\nseed: 1\n"
                       "fabric: {kind: roce, link: 100Gbps, flow_control: none, routing: ecmp, "
                       "congestion_control: none, transport: {rto: iba}}\n"
                       "topology: {kind: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 4}\n"
                       "workload:\n  - {kind: allreduce, size: 16MiB, algorithm: ring, jobs: 2}\n";
    struct trun t;
    trun_start(&t, base, NULL, 0);
    assert_int_equal(t.rc, 0);
    struct outcome o = outcome_of(&t);
    assert_false(o.completed);
    assert_true(o.drops > 1000);
    assert_int_equal(t.m.net.pkts_in_flight, 0);
    char why[400];
    assert_true(results_incomplete_reason(&t.m, why, sizeof why));
    printf("  %s\n", why);
    assert_non_null(
        strstr(why, "wait for their retransmission timeout (4.29497s, the first at 4.29"));
    uint32_t waiting = 0;
    for (uint32_t q = 0; q < t.m.net.nqps; q++)
        waiting += t.m.net.qps[q].rto_deadline_ps != SIM_TIME_NEVER;
    assert_true(waiting > 0);
    trun_end(&t);

    char yaml[1024];
    snprintf(yaml, sizeof yaml, "%sstop: 20s\n", base);
    trun_start(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    o = outcome_of(&t);
    assert_true(o.completed);
    assert_true(o.retries > 0);
    /* the longest stall is whole timeouts: one, not a fraction of one */
    assert_true(o.stall >= T20 && o.stall < 2 * T20);
    trun_end(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_port_down_bgp),
        cmocka_unit_test(test_ber_binomial),
        cmocka_unit_test(test_sm_and_bfd_stall_one_timeout),
        cmocka_unit_test(test_hold_timer_gray_20_survives_18_aborts),
        cmocka_unit_test(test_credit_deadlock_ends_in_hoq_discards),
        cmocka_unit_test(test_ib_gray_found_by_sweep),
        cmocka_unit_test(test_ib_unhealthy_link_monitor),
        cmocka_unit_test(test_partial_gray_liveness),
        cmocka_unit_test(test_link_flap),
        cmocka_unit_test(test_unreachable_destination),
        cmocka_unit_test(test_abort_after_data_arrived),
        cmocka_unit_test(test_ar_pfrn_avoids_dead_spine),
        cmocka_unit_test(test_default_cap_said),
        cmocka_unit_test(test_lossy_tail_drop_waits_for_timeout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

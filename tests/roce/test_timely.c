/* tests/roce/test_timely.c
 *
 * TIMELY (cc/timely.c; Mittal et al. SIGCOMM 2015, docs/sources.md A7b) with
 * the paper's parameters at its 10 Gb/s line rate, over PFC: ten long flows
 * into one port keep the queue far below T_high (500 us = 625 KB at 10 G),
 * where PFC alone holds it at its thresholds (2 MB); one flow on an idle
 * path runs at line rate; HAI speeds the recovery; and at 400 Gb/s the same
 * defaults leave the work to PFC (T_low's 50 us is 2.5 MB there, more than
 * PFC lets the queue hold).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce_common.h"

#include "cc/cc.h"
#include "core/diag.h"

#include <stdio.h>

struct tq_run {
    double util;                 /* bottleneck busy share over [from, end) */
    double q_mean, q_p99, q_max; /* its queue, bytes, sampled every 100 us */
    uint64_t pauses, samples0;   /* pause frames; RTT samples of QP 0 */
    double rate0_bps;
};

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The scenario as a user writes it (every default from the scenario
 * tables: adaptive RTO, PFC thresholds, the timely keys), `nsend` long flows
 * from h1.. into h0 on one switch. */
static struct tq_run incast(enum cc_kind cc, uint64_t link_bps, uint32_t nsend, sim_time_ps from,
                            sim_time_ps end, const char *timely_keys) {
    char y[1024], senders[256] = "", th[128] = "";
    for (uint32_t i = 1; i <= nsend; i++) {
        size_t l = strlen(senders);
        snprintf(senders + l, sizeof senders - l, "%sh%u", i > 1 ? ", " : "", i);
    }
    if (timely_keys) snprintf(th, sizeof th, ", timely: {%s}", timely_keys);
    snprintf(y, sizeof y,
             "name: t\nseed: 1\nstop: %lluus\n"
             "fabric: {kind: roce, link: %lluGbps, flow_control: pfc, congestion_control: %s%s}\n"
             "topology: {kind: single_switch, single_switch: {hosts: %u}}\n"
             "workload:\n  - {kind: incast, senders: [%s], receiver: h0, size: 16GiB}\n",
             (unsigned long long)(end / PS_PER_US), (unsigned long long)(link_bps / GBPS),
             cc == CC_TIMELY ? "timely" : "none", th, nsend + 1, senders);
    struct scenario sc;
    struct diag d = {0};
    assert_int_equal(scenario_load_string(&sc, y, "test.yaml", NULL, 0, &d), 0);
    struct model m;
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    uint32_t sw = net_node_by_name(n, "sw0"), bott = NET_NONE;
    for (uint32_t i = 0; i < n->nodes[sw].nports; i++)
        if (n->ports[n->ports[n->nodes[sw].first_port + i].peer].node == n->host_node[0])
            bott = n->nodes[sw].first_port + i;
    const sim_time_ps step = 100 * PS_PER_US;
    size_t ns = (size_t)((end - from) / step), k = 0;
    double *q = calloc(ns + 1, sizeof *q), sum = 0;
    uint64_t b0 = 0;
    for (sim_time_ps t = step; t <= end; t += step) {
        m.sim.stop_ps = t;
        sim_run(&m.sim, NULL, NULL, 1u << 30);
        if (t == from) b0 = n->ports[bott].tx_bytes;
        if (t > from && k < ns) {
            q[k] = (double)n->ports[bott].q_bytes;
            sum += q[k++];
        }
    }
    qsort(q, k, sizeof *q, cmp_d);
    struct tq_run r = {0};
    r.util =
        (double)(n->ports[bott].tx_bytes - b0) * 8e12 / (double)link_bps / (double)(end - from);
    r.q_mean = sum / (double)k;
    r.q_p99 = q[(size_t)((double)k * 0.99)];
    r.q_max = q[k - 1];
    r.pauses = n->c.pause_frames;
    if (cc == CC_TIMELY) {
        r.samples0 = timely_samples(n, 0);
        r.rate0_bps = timely_rate_bps(n, 0);
    }
    printf("  %s, %u flows at %.0f G: busy %.3f, queue mean %.1f KB p99 %.1f KB max %.1f KB, "
           "%llu pauses\n",
           cc == CC_TIMELY ? "TIMELY" : "PFC only", nsend, link_bps / 1e9, r.util, r.q_mean / 1e3,
           r.q_p99 / 1e3, r.q_max / 1e3, (unsigned long long)r.pauses);
    free(q);
    model_fini(&m);
    scenario_fini(&sc);
    return r;
}

/* One flow, idle path: RTTs stay below T_low, the rate stays at the wire's. */
static void test_one_flow_line_rate(void **state) {
    (void)state;
    struct tq_run r = incast(CC_TIMELY, 10 * GBPS, 1, 10 * PS_PER_MS, 30 * PS_PER_MS, NULL);
    assert_true(r.util > 0.99);
    assert_true(r.samples0 > 1000); /* one RTT per 16 KB segment: ~1500 in 20 ms */
    assert_true(r.rate0_bps > 0.999 * 10 * GBPS);
    assert_true(r.q_max < 20e3);
}

/* Ten flows at 10 G over PFC: TIMELY holds the tail of the queue below
 * T_high (625 KB at 10 G; measured p99 113 KB) and its mean 30 x below PFC
 * alone's 2 MB, with the link full (measured 1.000). */
static void test_incast_10g(void **state) {
    (void)state;
    struct tq_run t = incast(CC_TIMELY, 10 * GBPS, 10, 100 * PS_PER_MS, 200 * PS_PER_MS, NULL);
    struct tq_run p = incast(CC_NONE, 10 * GBPS, 10, 100 * PS_PER_MS, 200 * PS_PER_MS, NULL);
    double t_high_bytes = 500e-6 * 10e9 / 8;
    assert_true(t.q_p99 < t_high_bytes);
    assert_true(p.q_p99 > 2 * t_high_bytes);
    assert_true(p.q_p99 > 9 * t.q_p99); /* the paper's 9x tail latency with PFC */
    assert_true(t.q_mean * 20 < p.q_mean);
    assert_true(t.util > 0.95);
    assert_true(t.pauses < p.pauses);
}

/* HAI: after the start's cuts (ten flows at line rate into one port: the
 * queue reaches 2 MB and every completion above T_high cuts), five x delta
 * per completion once the gradient has stayed <= 0 for five completions
 * brings the link back sooner (measured 50-100 ms: 0.885 of the link with
 * HAI, 0.796 without). */
static void test_hai_speeds_recovery(void **state) {
    (void)state;
    struct tq_run hai = incast(CC_TIMELY, 10 * GBPS, 10, 50 * PS_PER_MS, 100 * PS_PER_MS, NULL);
    struct tq_run off =
        incast(CC_TIMELY, 10 * GBPS, 10, 50 * PS_PER_MS, 100 * PS_PER_MS, "hai_n: 1000000");
    assert_true(hai.util > off.util + 0.05);
}

/* At 400 G the paper's thresholds are beyond what PFC lets the queue hold
 * (T_low 50 us = 2.5 MB): TIMELY sits in additive increase and PFC holds the
 * queue as it does alone (measured 2.05 vs 2.20 MB mean, as many pauses). */
static void test_400g_defaults_leave_it_to_pfc(void **state) {
    (void)state;
    struct tq_run t = incast(CC_TIMELY, 400 * GBPS, 10, 10 * PS_PER_MS, 20 * PS_PER_MS, NULL);
    struct tq_run p = incast(CC_NONE, 400 * GBPS, 10, 10 * PS_PER_MS, 20 * PS_PER_MS, NULL);
    assert_true(t.q_mean > 0.7 * p.q_mean);
    assert_true(t.q_mean < 400e9 * 50e-6 / 8); /* below T_low's queue */
    assert_true(t.util > 0.99);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_flow_line_rate),
        cmocka_unit_test(test_incast_10g),
        cmocka_unit_test(test_hai_speeds_recovery),
        cmocka_unit_test(test_400g_defaults_leave_it_to_pfc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

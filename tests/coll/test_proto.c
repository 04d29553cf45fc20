/* tests/coll/test_proto.c
 *
 * NCCL's protocols (coll/algos.c, docs/sources.md B): LL puts twice the data on the
 * wire and posts a step for 2.7/14 of Simple's cost, LL128 128/120 of the
 * data for 4.0/14; `auto` picks LL for small calls, LL128 in between and
 * Simple for large ones, and the small-message time drops accordingly.
 * Multiple QPs per connection carry a collective's messages round robin.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "coll_harness.h"

#include <math.h>
#include <stdio.h>

struct one {
    double us;
    int proto;
    uint64_t delivered;
};

static struct one run_one(struct scenario *sc) {
    struct model m;
    struct diag d;
    int rc = run(&m, sc, &d);
    if (rc) diag_print(&d, stderr);
    assert_int_equal(rc, 0);
    assert_true(m.completed);
    struct one o = {row_time_us(&m, 0), m.net.coll_rows[0].proto, m.net.c.bytes_delivered};
    model_fini(&m);
    return o;
}

/* 16 ranks, 400 G, one fixed 1 us cost per step (step_overhead set): auto
 * goes LL -> LL128 -> Simple as the size grows, and each choice is at least
 * as fast as Simple within 5 %. */
static void auto_thresholds(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    const uint64_t sizes[] = {8, 64u << 10, 1u << 20, 64u << 20};
    const int want[] = {PROTO_LL, PROTO_LL, PROTO_LL128, PROTO_SIMPLE};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        w.size_bytes = sizes[i];
        w.protocol = PROTO_AUTO;
        struct one a = run_one(&sc);
        w.protocol = PROTO_SIMPLE;
        struct one s = run_one(&sc);
        print_message("%8llu B: auto picks %d (%.2f us), simple %.2f us\n",
                      (unsigned long long)sizes[i], a.proto, a.us, s.us);
        assert_int_equal(a.proto, want[i]);
        assert_true(a.us < s.us * 1.05);
    }
    /* 8 B: 30 ring steps at 0.19 us of post cost instead of 1 us */
    w.size_bytes = 8;
    w.protocol = PROTO_AUTO;
    struct one a = run_one(&sc);
    w.protocol = PROTO_SIMPLE;
    struct one s = run_one(&sc);
    assert_true(s.us - a.us > 30 * (1.0 - 2.7 / 14) * 0.9);
}

/* NCCL's per-step costs (step_overhead auto): a call pays baseLat once and
 * hwLat NET per network step (ring LL 6.6 + 2.7 us, LL128 14 + 4.0, Simple
 * 8.4 + 14; tuning.cc, docs/sources.md B), on top of the simulated wire. 16 ranks
 * of one GPU each, 30 steps: a small call takes NCCL's own latency model
 * plus the wire's 0.3-0.6 us per step; auto still picks the fastest. */
static void nccl_step_costs(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    w.step_overhead_ps = 0;
    const struct {
        int proto;
        double base, step;
    } m[] = {{PROTO_LL, 6.6, 2.7}, {PROTO_LL128, 14.0, 4.0}, {PROTO_SIMPLE, 8.4, 14.0}};
    w.size_bytes = 8;
    for (size_t i = 0; i < 3; i++) {
        w.protocol = m[i].proto;
        struct one o = run_one(&sc);
        double nccl = m[i].base + 30 * m[i].step;
        print_message("8 B ring, proto %d: %.2f us, NCCL's model %.1f us\n", m[i].proto, o.us,
                      nccl);
        assert_true(o.us > nccl && o.us < nccl + 30 * 0.6);
    }
    const uint64_t sizes[] = {8, 256u << 10, 4u << 20, 64u << 20};
    const int want[] = {PROTO_LL, PROTO_LL, PROTO_LL128, PROTO_SIMPLE};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        w.size_bytes = sizes[i];
        w.protocol = PROTO_AUTO;
        struct one a = run_one(&sc);
        w.protocol = PROTO_SIMPLE;
        struct one s = run_one(&sc);
        print_message("%8llu B: auto picks %d (%.2f us), simple %.2f us\n",
                      (unsigned long long)sizes[i], a.proto, a.us, s.us);
        assert_int_equal(a.proto, want[i]);
        assert_true(a.us < s.us * 1.05);
    }
}

/* LL doubles the bytes on the wire, LL128 adds 8 of every 128. */
static void wire_bytes(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    w.size_bytes = 1u << 20;
    w.protocol = PROTO_SIMPLE;
    double simple = (double)run_one(&sc).delivered;
    w.protocol = PROTO_LL;
    double ll = (double)run_one(&sc).delivered;
    w.protocol = PROTO_LL128;
    double ll128 = (double)run_one(&sc).delivered;
    print_message("1 MiB ring: delivered simple %.0f, LL %.3fx, LL128 %.4fx\n", simple, ll / simple,
                  ll128 / simple);
    assert_true(fabs(ll / simple - 2.0) < 0.01);
    assert_true(fabs(ll128 / simple - 128.0 / 120) < 0.01);
}

/* qps_per_connection 4: the messages of each connection go round robin over
 * 4 QPs, so 4x the QPs exist and the result is unchanged on an idle fabric. */
static void qps_round_robin(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    w.size_bytes = 16u << 20;
    struct model m;
    struct diag d;
    assert_int_equal(run(&m, &sc, &d), 0);
    uint32_t q1 = m.net.nqps;
    double t1 = row_time_us(&m, 0);
    model_fini(&m);
    sc.fabric.transport.qps_per_connection = 4;
    assert_int_equal(run(&m, &sc, &d), 0);
    assert_true(m.completed);
    uint32_t q4 = m.net.nqps;
    double t4 = row_time_us(&m, 0);
    uint32_t used = 0;
    for (uint32_t q = 0; q < m.net.nqps; q++)
        used += m.net.qps[q].next_psn > 0;
    model_fini(&m);
    print_message("16 MiB ring, 16 ranks: %u QPs, %.1f us; 4 per connection: %u QPs (%u used), "
                  "%.1f us\n",
                  q1, t1, q4, used, t4);
    assert_int_equal(q4, 4 * q1);
    assert_int_equal(used, q4);
    assert_true(fabs(t4 / t1 - 1) < 0.05);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(auto_thresholds),
        cmocka_unit_test(nccl_step_costs),
        cmocka_unit_test(wire_bytes),
        cmocka_unit_test(qps_round_robin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tests/net/test_msgs.c
 *
 * Issue 13: a message's slot returns to a free list once the message is
 * acknowledged (net_msg_release), so a run holds the messages alive at once,
 * not every message it posted. Recycling must change nothing: each case is
 * run with every record kept (n->msg_keep, what a Chrome trace or a parallel
 * merge asks for) and recycled, and results.json must be byte-identical
 * (wall time aside) while the recycled run used fewer slots than messages.
 * The cases go through what touches message ids after posting: go-back-N
 * resends after drops, QPs that exhaust their retries (failed messages, a
 * collective aborted), the out-of-order receiver of adaptive routing, and
 * messages created while the run goes (poisson, collectives).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

struct res {
    char *json;
    uint64_t total, slots, qp_errs, retx;
    bool completed;
};

static struct res run(const char *yaml, bool keep) {
    struct trun t;
    trun_build(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    struct model *m = &t.m;
    m->net.msg_keep = keep;
    model_run(m, NULL, NULL);
    struct res r = {0};
    r.json = tresults_json(&t);
    r.total = m->net.msgs_total;
    r.slots = m->net.nmsgs;
    r.qp_errs = m->net.nqp_errs;
    r.retx = m->net.c.retransmitted_packets;
    r.completed = m->completed;
    trun_end(&t);
    return r;
}

/* Kept and recycled: the same results; returns the recycled run. */
static struct res same(const char *what, const char *yaml) {
    struct res a = run(yaml, true), b = run(yaml, false);
    printf("%-40s %7llu messages, %5llu slots recycled (%llu kept), retx %llu, qp errors %llu\n",
           what, (unsigned long long)b.total, (unsigned long long)b.slots,
           (unsigned long long)a.slots, (unsigned long long)b.retx, (unsigned long long)b.qp_errs);
    assert_int_equal(a.total, b.total);
    assert_int_equal(a.slots, a.total);
    assert_true(b.slots < b.total);
    assert_int_equal(a.completed, b.completed);
    assert_string_equal(a.json, b.json);
    free(a.json);
    return b;
}

/* Lossy RoCE: a 4:1 incast of messages posted as the run goes drops
 * packets; go-back-N resends them from the message the NAK names. */
static void test_poisson_lossy(void **state) {
    (void)state;
    struct res r = same("poisson incast, lossy, go-back-N",
                        "name: m\nseed: 3\n"
                        "fabric: {kind: roce, flow_control: none, congestion_control: none,"
                        " buffer: 64KiB, transport: {timeout: 10}}\n"
                        "topology: {kind: single_switch, hosts: 5}\n"
                        "workload:\n"
                        "  - {kind: poisson, load: 0.7, mean: 4KiB, senders: 4, receiver: h0,"
                        " duration: 300us}\n");
    assert_true(r.retx > 0);
    assert_true(r.completed);
    assert_true(r.slots * 4 < r.total); /* a few alive at once */
    free(r.json);
}

/* A gray link the control plane never notices within the retries: the QPs
 * crossing it exhaust them (transport timeout 10: 4 ms), their messages fail
 * and the collective's job aborts; messages of the other QPs complete. */
static void test_qp_error_abort(void **state) {
    (void)state;
    struct res r = same("ring allreduce, QP errors, job aborted",
                        "name: m\nseed: 1\n"
                        "fabric: {kind: roce, routing: ecmp, congestion_control: none,"
                        " transport: {timeout: 10, retry_cnt: 2}}\n"
                        "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}\n"
                        "stop: 1s\n"
                        "workload:\n"
                        "  - {kind: allreduce, ranks: [h0, h2, h1, h3], size: 16MiB,"
                        " algorithm: ring}\n"
                        "events:\n  - {at: 200us, link_gray: leaf0-spine0}\n");
    assert_true(r.qp_errs >= 1);
    assert_false(r.completed);
    free(r.json);
}

/* Adaptive routing: the receiver takes PSNs out of order and finds message
 * bounds through the sender's message chain. */
static void test_adaptive_ooo(void **state) {
    (void)state;
    struct res r = same("adaptive routing, out-of-order receiver",
                        "name: m\nseed: 1\n"
                        "fabric: {kind: infiniband, routing: adaptive}\n"
                        "topology: {kind: fat_tree, k: 4}\n"
                        "workload:\n"
                        "  - {kind: allreduce, size: 2MiB, algorithm: ring}\n"
                        "  - {kind: permutation, pattern: random, size: 256KiB}\n");
    assert_true(r.completed);
    free(r.json);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_poisson_lossy),
        cmocka_unit_test(test_qp_error_abort),
        cmocka_unit_test(test_adaptive_ooo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tests/net/test_reorder.c
 *
 * The out-of-order receiver's hole timer (fabric.reorder_timeout, net/nic.c
 * rx_hole_*; docs/model.md "Adaptive routing", sources.md A11): with
 * InfiniBand adaptive routing a PSN lost in flight inside the receiver's
 * window is NAKed once its hole has stayed open for the timeout, so a link
 * failure costs the reroute, the timeout and a few round trips, not the RC
 * ACK timeout (4.29 s); reordering without loss sends no NAK; runs repeat.
 */
#include "testutil.h"

#include "net/net.h"

#define US (1000000ULL)
#define MS (1000000000ULL)

/* lab 7's reroute job (scenarios/labs/ultra_ethernet/04-failure.yaml): a
 * 1 MiB random permutation on a 8x4 leaf-spine at 400 Gb/s, 512 KiB per
 * port, leaf0-spine0 down at 5 us; `extra` is added to the fabric map. */
static void perm_size_run(struct trun *t, const char *extra, bool fail, const char *size) {
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "name: ar-hole\nseed: 1\nstop: 5s\n"
             "fabric: {kind: infiniband, link: 400Gbps, mtu: 4096, buffer: 512KiB, "
             "routing: adaptive%s}\n"
             "topology: {kind: leaf_spine, leaves: 8, spines: 4, hosts_per_leaf: 4}\n"
             "workload:\n  - {kind: permutation, pattern: random, size: %s}\n"
             "%s",
             extra, size, fail ? "events:\n  - {at: 5us, link_down: leaf0-spine0}\n" : "");
    trun_start(t, yaml, NULL, 0);
    assert_int_equal(t->rc, 0);
    assert_true(t->m.completed);
}

static void perm_run(struct trun *t, const char *extra, bool fail) {
    perm_size_run(t, extra, fail, "1MiB");
}

/* auto = 4 drains of 512 KiB at 400 Gb/s = 41.94 us */
#define AUTO_TIMEOUT_PS (4ULL * 512 * 1024 * 8 * 1000000000000ULL / 400000000000ULL)

/* SHIELD masks the dead port within 10 us (reroute at 15 us); the packets
 * lost with the link leave holes that the receivers NAK once the timeout
 * passes. Finished well within reroute + timeout + a few 1 MiB transfers
 * (21 us each at 400 Gb/s), with no ACK timeout; with the timer off, the
 * old behaviour: the tails wait the IBA ACK timeout (4.29 s). */
static void test_ar_link_down_recovers_by_nak(void **state) {
    (void)state;
    struct trun t, off;
    perm_run(&t, ", control_plane: {shield: true}", true);
    const struct net *n = &t.m.net;
    printf("  done at %.3f us, %llu hole NAKs, %llu timeouts, %llu retransmitted\n",
           n->done_ps / 1e6, (unsigned long long)n->c.ooo_naks, (unsigned long long)n->c.timeouts,
           (unsigned long long)n->c.retransmitted_packets);
    assert_true(n->c.ooo_naks > 0);
    assert_int_equal(n->c.timeouts, 0);
    assert_true(n->done_ps < 15 * US + AUTO_TIMEOUT_PS + 4 * 21 * US);
    perm_run(&off, ", control_plane: {shield: true}, reorder_timeout: off", true);
    printf("  reorder_timeout off: done at %.3f s\n", off.m.net.done_ps / 1e12);
    assert_int_equal(off.m.net.c.ooo_naks, 0);
    assert_true(off.m.net.done_ps > 4 * 1000 * MS);
    trun_end(&t);
    trun_end(&off);
}

/* An explicit timeout: the same failure with a timeout of 100 us finishes
 * later than with auto (42 us), by about the difference. */
static void test_ar_timeout_sets_the_wait(void **state) {
    (void)state;
    struct trun a, b;
    perm_run(&a, ", control_plane: {shield: true}", true);
    perm_run(&b, ", control_plane: {shield: true}, reorder_timeout: 100us", true);
    printf("  auto: %.3f us; 100us: %.3f us\n", a.m.net.done_ps / 1e6, b.m.net.done_ps / 1e6);
    assert_true(b.m.net.done_ps > a.m.net.done_ps + 30 * US);
    assert_true(b.m.net.done_ps < 15 * US + 100 * US + 4 * 21 * US);
    trun_end(&a);
    trun_end(&b);
}

/* Adaptive routing reorders a permutation without loss: the receivers hold
 * PSNs beyond holes (reorder_max_bytes > 0) for 16 MiB each (over 300 us,
 * several timeouts long), and no hole outlives the timeout: no NAK, no
 * resend, the same completion as with the timer off. */
static void test_ar_reordering_alone_sends_no_nak(void **state) {
    (void)state;
    struct trun t, off;
    perm_size_run(&t, "", false, "16MiB");
    perm_size_run(&off, ", reorder_timeout: off", false, "16MiB");
    const struct net *n = &t.m.net;
    printf("  reorder depth %llu B, %llu NAKs, done at %.3f us\n",
           (unsigned long long)n->c.reorder_max_bytes, (unsigned long long)n->c.ooo_naks,
           n->done_ps / 1e6);
    assert_true(n->c.reorder_max_bytes > 0);
    assert_int_equal(n->c.ooo_naks, 0);
    assert_int_equal(n->c.retransmitted_packets, 0);
    assert_int_equal(n->c.timeouts, 0);
    assert_int_equal(n->done_ps, off.m.net.done_ps);
    assert_int_equal(n->c.packets_sent, off.m.net.c.packets_sent);
    trun_end(&t);
    trun_end(&off);
}

/* The same failure run twice gives the same outcome, event for event. */
static void test_ar_hole_timer_deterministic(void **state) {
    (void)state;
    struct trun a, b;
    perm_run(&a, ", control_plane: {shield: true}", true);
    perm_run(&b, ", control_plane: {shield: true}", true);
    assert_int_equal(a.m.net.done_ps, b.m.net.done_ps);
    assert_int_equal(a.m.sim.events_run, b.m.sim.events_run);
    assert_int_equal(a.m.net.c.ooo_naks, b.m.net.c.ooo_naks);
    assert_int_equal(a.m.net.c.retransmitted_packets, b.m.net.c.retransmitted_packets);
    trun_end(&a);
    trun_end(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ar_link_down_recovers_by_nak),
        cmocka_unit_test(test_ar_timeout_sets_the_wait),
        cmocka_unit_test(test_ar_reordering_alone_sends_no_nak),
        cmocka_unit_test(test_ar_hole_timer_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

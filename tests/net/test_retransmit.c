/* tests/net/test_retransmit.c
 *
 * RoCE loss recovery as ConnectX ships it (issue 27, sources.md A12):
 * adaptive retransmission (the RoCE default), selective repeat, and why
 * go-back-N's NAK does not recover the first round of a synchronised incast.
 * Each number asserted here was wrong under the IBA timer alone (4.29 s per
 * tail loss: the runs below did not finish within 1 s).
 */
#include "testutil.h"

#include "core/rng.h"
#include "net/net.h"

#define US (1000000ULL)
#define MS (1000000000ULL)

/* The adaptive profile's timeout sequence, exactly (docs/model.md): one
 * 1000 B message into a link that loses every packet until 1 ms. The QP's
 * initial exponent g0 is drawn from its own stream (5 or 6: 128 or 256 us,
 * used once); then the range [5, 10] is entered at g0, used twice, and each
 * further timeout doubles it. The message gets through on the first resend
 * after 1 ms, and at no other time. */
static void test_adaptive_timeout_sequence(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        char yaml[640];
        snprintf(yaml, sizeof yaml,
                 "name: adp\nseed: %llu\n"
                 "fabric: {kind: roce, flow_control: none, congestion_control: none}\n"
                 "topology: {kind: single_switch, hosts: 2}\n"
                 "workload:\n  - {kind: flows, flows: [{src: h0, dst: h1, size: 1000B}]}\n"
                 "events:\n  - {at: 0us, link_ber: h0->sw0, ber: 0.01}\n"
                 "  - {at: 1ms, link_ber: h0->sw0, ber: 0}\n",
                 (unsigned long long)seed);
        struct trun t;
        trun_start(&t, yaml, NULL, 0);
        assert_int_equal(t.rc, 0);
        assert_true(t.m.completed);
        /* the same draw as net_qp_new's */
        struct rng r;
        rng_seed(&r, seed, 0, 0x41445052u);
        uint32_t g0 = 5 + (uint32_t)rng_below(&r, 2), g = g0, uses = 0, timeouts = 0;
        uint64_t at = 4 * US << g; /* the first timeout, at the initial value */
        bool in_range = false;
        while (at < 1 * MS) { /* each timeout's resend is lost: the next timeout */
            timeouts++;
            if (!in_range)
                in_range = true;
            else if (++uses >= 2 && g < 10)
                g++;
            at += 4 * US << g;
        }
        const struct flow_row *f = &t.m.net.flows[0];
        /* the resend at `at` crosses two 400 G hops of 1042 B: under 1 us */
        printf("  seed %llu: g0 %u, %u lost resends, got through at %.3f us (resend at %.3f)\n",
               (unsigned long long)seed, g0, timeouts, f->end_ps / 1e6, at / 1e6);
        assert_true(f->end_ps > at && f->end_ps < at + 1 * US);
        assert_int_equal(t.m.net.c.timeouts, timeouts + 1);
        trun_end(&t);
    }
}

/* The 16:1 lossy incast of issue 27 (400 G, no PFC, no CC, 16 x 4 MiB):
 * under the IBA timer it stops at `stop` with QPs waiting for 4.29 s; with
 * adaptive retransmission every byte arrives within 2 ms. */
static void test_adaptive_incast16_completes(void **state) {
    (void)state;
    const char *yaml = "name: incast16\nseed: 1\nstop: 1s\n"
                       "fabric: {kind: roce, flow_control: none, congestion_control: none}\n"
                       "topology: {kind: single_switch, hosts: 17}\n"
                       "workload:\n  - {kind: incast, senders: 16, receiver: h0, size: 4MiB}\n";
    struct trun t;
    trun_start(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    printf("  adaptive: done at %.3f ms, %llu drops, %llu retransmitted, %llu timeouts\n",
           n->done_ps / 1e9, (unsigned long long)n->c.packets_dropped,
           (unsigned long long)n->c.retransmitted_packets, (unsigned long long)n->c.timeouts);
    assert_true(t.m.completed);
    assert_int_equal(n->c.bytes_delivered, 16ull * 4 << 20);
    assert_true(n->done_ps < 3 * MS);
    assert_true(n->c.packets_dropped > 10000);
    assert_true(n->c.retransmitted_packets >= n->c.packets_dropped);
    assert_true(n->c.timeouts > 0 && n->c.timeouts < 200);
    trun_end(&t);

    const char *iba[] = {"fabric.transport.rto=iba"};
    trun_start(&t, yaml, iba, 1);
    assert_int_equal(t.rc, 0);
    assert_false(t.m.completed);
    assert_int_equal(t.m.net.c.retransmitted_packets, 0);
    trun_end(&t);
}

/* Why go-back-N's NAK does not recover the first round of that incast:
 * identical senders arrive in lock step, and each time the full egress
 * queue frees one packet's room the same sender (the first in the event
 * order) takes it (the phase effect of drop-tail queues, Floyd & Jacobson
 * 1992). The others lose every packet from the moment the queue fills to
 * the end of their message: no later packet reaches the receiver, so no NAK
 * (IBA 9.7.5: a NAK answers an out-of-sequence packet), and only the timer
 * recovers. When the winner's message ends before the losers', the losers'
 * next packets get in, the receiver NAKs the gap and go-back-N recovers it
 * with no timeout at all: h1 sends 1 MiB, h2 4 MiB. */
static void test_go_back_n_nak_recovers_incast(void **state) {
    (void)state;
    struct trun t;
    trun_start(
        &t,
        "name: nak\nseed: 1\n"
        "fabric: {kind: roce, flow_control: none, congestion_control: none, buffer: 256KiB}\n"
        "topology: {kind: single_switch, hosts: 3}\n"
        "workload:\n  - {kind: flows, flows: [{src: h1, dst: h0, size: 1MiB},"
        " {src: h2, dst: h0, size: 4MiB}]}\n",
        NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    printf("  2:1, 1 + 4 MiB: %llu drops, %llu retransmitted, %llu timeouts, done %.1f us\n",
           (unsigned long long)n->c.packets_dropped, (unsigned long long)n->c.retransmitted_packets,
           (unsigned long long)n->c.timeouts, n->done_ps / 1e6);
    assert_true(t.m.completed);
    assert_true(n->c.packets_dropped > 10);
    assert_int_equal(n->c.timeouts, 0);
    assert_true(n->c.retransmitted_packets >= n->c.packets_dropped);
    /* well before the first adaptive timeout could have fired (>= 128 us
     * after the loss): 5 MiB at 400 G plus go-back-N's resends */
    assert_true(n->done_ps < 250 * US);
    trun_end(&t);
}

/* The BER 1e-7 flow of issue 27: 256 MiB at 100 G took 12.9 s (three IBA
 * timeouts for lost tails of its messages); adaptive retransmission keeps
 * it within 10 % of the loss-free time (21.9 ms for 65,536 packets of
 * 4178 wire bytes). */
static void test_ber_flow_adaptive(void **state) {
    (void)state;
    struct trun t;
    trun_start(&t,
               "name: ber\nseed: 1\n"
               "fabric: {kind: roce, link: 100Gbps, ber: 1e-7}\n"
               "topology: {kind: single_switch, hosts: 2}\n"
               "workload:\n  - {kind: flows, flows: [{src: h0, dst: h1, size: 256MiB}]}\n",
               NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    double ideal_ms = 65536.0 * 4178 * 8 / 100e9 * 1e3;
    printf("  done at %.2f ms (loss-free %.2f ms), %llu corrupted, %llu timeouts\n",
           n->done_ps / 1e9, ideal_ms, (unsigned long long)n->c.corrupted,
           (unsigned long long)n->c.timeouts);
    assert_true(t.m.completed);
    assert_true(n->c.corrupted > 100);
    assert_true(n->done_ps / 1e9 < ideal_ms * 1.1);
    trun_end(&t);
}

/* Selective repeat resends the lost PSNs and nothing else: with bit errors
 * on the data direction only (ACKs and NAKs arrive), every retransmitted
 * packet is one that was corrupted. Go-back-N resends each loss's whole
 * window in flight. */
static void test_selective_repeat_resends_only_losses(void **state) {
    (void)state;
    uint64_t retx[2], lost[2];
    const char *modes[2] = {"selective_repeat", "go_back_n"};
    for (int i = 0; i < 2; i++) {
        char yaml[640];
        snprintf(yaml, sizeof yaml,
                 "name: sr\nseed: 3\n"
                 "fabric: {kind: roce, flow_control: none, congestion_control: none, "
                 "transport: {retransmit: %s}}\n"
                 "topology: {kind: single_switch, hosts: 2}\n"
                 "workload:\n  - {kind: flows, flows: [{src: h0, dst: h1, size: 64MiB}]}\n"
                 "events:\n  - {at: 0us, link_ber: h0->sw0, ber: 1e-7}\n",
                 modes[i]);
        struct trun t;
        trun_start(&t, yaml, NULL, 0);
        assert_int_equal(t.rc, 0);
        assert_true(t.m.completed);
        assert_int_equal(t.m.net.c.bytes_delivered, 64ull << 20);
        retx[i] = t.m.net.c.retransmitted_packets;
        lost[i] = t.m.net.c.corrupted;
        printf("  %s: %llu corrupted, %llu retransmitted, %llu timeouts, done %.3f ms\n", modes[i],
               (unsigned long long)lost[i], (unsigned long long)retx[i],
               (unsigned long long)t.m.net.c.timeouts, t.m.net.done_ps / 1e9);
        trun_end(&t);
    }
    assert_true(lost[0] > 10);
    assert_int_equal(retx[0], lost[0]);
    assert_true(retx[1] > 5 * lost[1]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adaptive_timeout_sequence),
        cmocka_unit_test(test_adaptive_incast16_completes),
        cmocka_unit_test(test_go_back_n_nak_recovers_incast),
        cmocka_unit_test(test_ber_flow_adaptive),
        cmocka_unit_test(test_selective_repeat_resends_only_losses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tests/coll/test_ring_slots.c
 *
 * Issue 28: the ring as NCCL's runRing runs it (src/device/all_reduce.h,
 * prims_simple.h, docs/model.md "Chunking as NCCL does"). A connection has
 * NCCL_STEPS = 8 slots; a sender writes slot q once the receiver has
 * consumed slot q - 8 (forwarded it, or at the last step copied it out),
 * not merely received it; a rank runs its loop in program order (loops of
 * a chunk of 4 slots per step, every step of a loop before the next loop,
 * each loop ending with its final receive).
 *
 * - loop timing: 2 ranks, one channel, 16 slots per step and a 100 us step
 *   cost that dwarfs the wire: each loop of 4 slots per step takes two step
 *   latencies D (send, then forward once the peer's slots arrived; the
 *   next loop starts after the final receive), so 4 loops take 8 D. The old
 *   schedule (step-major, a slot freed on arrival) took 4 D: 8 slots of step
 *   0 at once, then 8 more, then step 1 behind them.
 * - flow control: 3 ranks whose receivers reduce slowly (host_rate): no
 *   message goes out before the receiver consumed the one 8 slots before it
 *   on the same connection; freeing slots on arrival let 144 sends go ahead
 *   of consumption. In a symmetric ring the wait that binds is the rank's
 *   own program (the data it forwards), not the window.
 * - the window alone: the same ring with one slow hop (the link into rank
 *   2 at 50 G where the others run at 400 G) and no reduction cost. Rank 1
 *   forwards as fast as its 8 slots towards rank 2 come back, and the
 *   ranks before it send the moment their receiver consumed the slot 8
 *   sends back: 47 of the 168 sends that have one wait for nothing else
 *   (2026-12-08), none goes early. Without the slow hop none waits on a
 *   slot.
 * - NCCL's 2-slot slices (tests-only hook): a 2-rank ring of 4 MiB on one
 *   channel moves a 2 MiB chunk per step in 2 messages of 1 MiB (8 in all),
 *   where a message per slot sends 16 of 512 KiB.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "coll_harness.h"
#include "coll/coll_int.h"
#include "net/net.h"

#include <stdio.h>
#include <stdlib.h>

static uint32_t two[] = {0, 1}, three[] = {0, 1, 2};

static void small_ring(struct scenario *sc, struct wl_entry *w, uint32_t *ranks, uint32_t m) {
    sc_base(sc, w);
    w->ranks = ranks;
    w->nranks = m;
    w->ranks_all = false;
    w->channels = 1;
    w->protocol = PROTO_SIMPLE;
}

/* Runs sc with the old schedule (arrival) or NCCL's, the link into rank 2
 * slowed to slow_bps (0: as built); keeps every message. */
static void run_with(struct model *m, const struct scenario *sc, bool arrival, bool slices,
                     uint64_t slow_bps) {
    struct diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(model_build(m, sc, &d), 0);
    coll_test_ring_on_arrival(&m->net, arrival);
    coll_test_ring_nccl_slices(&m->net, slices);
    m->net.msg_keep = true;
    if (slow_bps) {
        bool directed;
        uint32_t p = net_link_by_name(&m->net, "leaf0->h2", &directed);
        assert_true(p != NET_NONE);
        m->net.ports[p].rate_bps = slow_bps;
        m->net.ports[p].ps_per_byte = (uint32_t)(8000000000000ull / slow_bps);
    }
    model_run(m, NULL, NULL);
    assert_true(m->completed);
}

static void run_mode(struct model *m, const struct scenario *sc, bool arrival, bool slices) {
    run_with(m, sc, arrival, slices, 0);
}

static void loop_timing(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    small_ring(&sc, &w, two, 2);
    w.size_bytes = 128u << 10; /* 64 KiB per rank and step */
    w.slice_bytes = 4u << 10;  /* 16 slots per step: 4 loops of 4 */
    w.step_overhead_ps = 100 * PS_PER_US;
    struct model a, b;
    run_mode(&a, &sc, false, false);
    run_mode(&b, &sc, true, false);
    double t = row_time_us(&a, 0), told = row_time_us(&b, 0);
    print_message("2 ranks, 16 slots per step, 100 us per step: NCCL's loop %.1f us (8 D = 800 "
                  "+ wire), freed on arrival %.1f us (4 D)\n",
                  t, told);
    assert_true(t > 800 && t < 820);
    assert_true(told > 400 && told < 410);
    assert_int_equal(a.net.msgs_total, 2 * 2 * 16);
    model_fini(&a);
    model_fini(&b);
}

/* The (step, slice) of a connection's message q in NCCL's loop order: loops
 * of C slices per step, nsteps steps (coll.c ring_ks). */
static void ks(uint32_t q, uint32_t ns, uint32_t nsteps, uint32_t C, uint32_t *k, uint32_t *s) {
    uint32_t L = q / (C * nsteps), c = ns - L * C < C ? ns - L * C : C, r = q - L * C * nsteps;
    *k = r / c;
    *s = L * C + r % c;
}

static uint32_t seqof(uint32_t k, uint32_t s, uint32_t ns, uint32_t nsteps, uint32_t C) {
    uint32_t L = s / C, c = ns - L * C < C ? ns - L * C : C;
    return L * C * nsteps + k * c + (s - L * C);
}

/* Checks the slot rule on every connection of a 3-rank ring AllReduce:
 * counts in *ahead the sends that went before their slot's consumption
 * (the old rule) and returns those posted the moment it was consumed. */
static uint32_t slot_waits(const struct model *m, uint32_t ns, uint32_t C, uint32_t *ahead) {
    const struct net *n = &m->net;
    enum { M = 3, NSTEPS = 4 };
    uint32_t T = NSTEPS * ns, cnt[M] = {0};
    uint32_t *id = calloc((size_t)M * T, sizeof *id); /* [member][seq] -> msg */
    uint32_t qpof[M];
    for (uint32_t i = 0; i < M; i++)
        qpof[i] = NET_NONE;
    for (uint32_t x = 0; x < n->nmsgs; x++) { /* a member's messages in launch order */
        uint32_t qp = n->msgs[x].qp, i = n->qps[qp].src;
        assert_true(i < M);
        if (qpof[i] == NET_NONE) qpof[i] = qp;
        assert_int_equal(qpof[i], qp);
        id[i * T + cnt[i]++] = x;
    }
    uint32_t bind = 0;
    *ahead = 0;
    for (uint32_t i = 0; i < M; i++) {
        assert_int_equal(cnt[i], T);
        for (uint32_t q = NCCL_STEPS; q < T; q++) {
            uint32_t k, s, p = q - NCCL_STEPS;
            ks(p, ns, NSTEPS, C, &k, &s);
            /* slot p consumed: the receiver forwards step k + 1 of slice s
             * (posted step_overhead after it consumed), or received it */
            uint64_t used =
                k + 1 < NSTEPS
                    ? n->msgs[id[((i + 1) % M) * T + seqof(k + 1, s, ns, NSTEPS, C)]].post_ps
                    : n->msgs[id[i * T + p]].recv_ps + PS_PER_US;
            uint64_t post = n->msgs[id[i * T + q]].post_ps;
            if (post < used) (*ahead)++;
            if (post == used) bind++;
        }
    }
    free(id);
    return bind;
}

static void slots_wait_for_consumption(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    small_ring(&sc, &w, three, 3);
    w.size_bytes = 3 * (256u << 10); /* 256 KiB per rank and step */
    w.slice_bytes = 16u << 10;       /* 16 slots per step */
    w.host_rate_bps = GBPS(8);       /* a 16 KiB reduction takes 16.4 us */
    struct model a, b;
    run_mode(&a, &sc, false, false);
    run_mode(&b, &sc, true, false);
    uint32_t ahead, ahead_old;
    uint32_t bind = slot_waits(&a, 16, 4, &ahead);
    (void)slot_waits(&b, 16, 16, &ahead_old); /* step-major: one loop of every slot */
    print_message("3 ranks, slow reduction: %u sends waited for their slot's consumption, %u "
                  "before it; freed on arrival %u before it; times %.1f / %.1f us\n",
                  bind, ahead, ahead_old, row_time_us(&a, 0), row_time_us(&b, 0));
    assert_int_equal(ahead, 0);
    assert_true(ahead_old > 0);
    /* the slower reduction stalls the program order too: twice the time */
    assert_true(row_time_us(&a, 0) > 1.5 * row_time_us(&b, 0));
    model_fini(&a);
    model_fini(&b);
}

static void window_binds_on_slow_hop(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    small_ring(&sc, &w, three, 3);
    w.size_bytes = 3 * (256u << 10); /* 256 KiB per rank and step */
    w.slice_bytes = 16u << 10;       /* 16 slots per step */
    struct model a, b;
    run_with(&a, &sc, false, false, GBPS(50));
    run_mode(&b, &sc, false, false);
    uint32_t ahead, ahead_sym, bind = slot_waits(&a, 16, 4, &ahead),
                               bind_sym = slot_waits(&b, 16, 4, &ahead_sym);
    print_message("3 ranks, one 50 G hop: %u of %u sends posted the moment their slot was "
                  "consumed, %u before it (%.1f us); all at 400 G: %u, %u (%.1f us)\n",
                  bind, 3 * (4 * 16 - NCCL_STEPS), ahead, row_time_us(&a, 0), bind_sym, ahead_sym,
                  row_time_us(&b, 0));
    assert_int_equal(ahead, 0);
    assert_int_equal(ahead_sym, 0);
    assert_true(bind >= (4 * 16 - NCCL_STEPS) / 2); /* half a rank's sends, at least */
    assert_int_equal(bind_sym, 0);
    model_fini(&a);
    model_fini(&b);
}

static void nccl_slices(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    small_ring(&sc, &w, two, 2);
    w.size_bytes = 4u << 20;
    struct model a, b;
    run_mode(&a, &sc, false, true);
    run_mode(&b, &sc, false, false);
    assert_int_equal(a.net.msgs_total, 2 * 2 * 2); /* ranks x steps x slices */
    assert_int_equal(a.net.msgs[0].size_bytes, 1u << 20);
    assert_int_equal(b.net.msgs_total, 2 * 2 * 4);
    print_message("2 ranks, 4 MiB, one channel: NCCL's slices %.1f us, a message per slot %.1f "
                  "us\n",
                  row_time_us(&a, 0), row_time_us(&b, 0));
    model_fini(&a);
    model_fini(&b);
}

/* Many slots per step, several ranks and kinds: NCCL's order never
 * deadlocks (the consumption rule on the step-major order did from 16
 * slots per step on). */
static void no_deadlock(void **state) {
    (void)state;
    int kinds[] = {WL_ALLREDUCE, WL_ALLGATHER, WL_REDUCESCATTER};
    for (int k = 0; k < 3; k++)
        for (int sl = 0; sl < 2; sl++) {
            struct scenario sc;
            struct wl_entry w;
            sc_base(&sc, &w);
            w.kind = kinds[k];
            w.size_bytes = 5u << 20;
            w.slice_bytes = 4u << 10; /* 80 slots per rank, step and channel */
            w.protocol = PROTO_SIMPLE;
            struct model m;
            run_mode(&m, &sc, false, sl == 1);
            model_fini(&m);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loop_timing),
        cmocka_unit_test(slots_wait_for_consumption),
        cmocka_unit_test(window_binds_on_slow_hop),
        cmocka_unit_test(nccl_slices),
        cmocka_unit_test(no_deadlock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

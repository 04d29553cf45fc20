/* tests/coll/test_sched.c
 *
 * Issue 13: ring transfers are generated as the run goes (coll.c op_ring)
 * instead of stored as a graph. The run must be the one the stored graph
 * gave: every algorithm (ring, chain broadcast, tree, halving-doubling with
 * and without folded ranks and its recursive doubling, all-to-all,
 * hierarchical, SHARP single- and multi-GPU, NVLS, nccl_tests sweeps,
 * training's dependent calls) is run twice, once with the stored schedule
 * (coll_test_stored_rings) and once generated, and every message's post,
 * receive and acknowledgement times, every results row and the final time
 * must be equal. Slice sizes put 4, 8 and 16 slices per step (the NCCL_STEPS
 * window of 8 reorders a transfer's dependents), host reduction timers and
 * several QPs per connection are covered too.
 *
 * Both of those runs keep every message's record (n->msg_keep). A third run,
 * generated and with message slots recycled once acknowledged (the default,
 * net_msg_release), must give the same rows and final time from the same
 * number of messages; ring cases must have needed fewer slots than messages.
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

struct digest {
    uint64_t h, hrows, nmsgs, end_ps, rows, stored, slots;
};

static void mix(uint64_t *h, uint64_t v) {
    *h ^= v + 0x9e3779b97f4a7c15ULL + (*h << 6) + (*h >> 2);
}

static struct digest run_one(const struct scenario *sc, bool stored, bool keep) {
    struct model m;
    struct diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(model_build(&m, sc, &d), 0);
    coll_test_stored_rings(&m.net, stored);
    coll_test_ring_on_arrival(&m.net, true); /* the schedule stored rings have */
    m.net.msg_keep = keep;
    model_run(&m, NULL, NULL);
    assert_true(m.completed);
    struct digest g = {0};
    const struct net *n = &m.net;
    for (uint32_t i = 0; keep && i < n->nmsgs; i++) {
        const struct msg *x = &n->msgs[i];
        mix(&g.h, x->qp);
        mix(&g.h, x->size_bytes);
        mix(&g.h, x->post_ps);
        mix(&g.h, x->recv_ps);
        mix(&g.h, x->acked_ps);
    }
    for (uint32_t i = 0; i < n->ncoll_rows; i++) {
        mix(&g.hrows, n->coll_rows[i].start_ps);
        mix(&g.hrows, n->coll_rows[i].end_ps);
        mix(&g.hrows, n->coll_rows[i].proto);
    }
    const struct coll_state *cs = n->coll_state;
    for (uint32_t i = 0; i < cs->ntrain; i++) {
        mix(&g.hrows, cs->train[i].end_ps);
        mix(&g.hrows, cs->train[i].exposed_ps);
    }
    g.nmsgs = n->msgs_total;
    g.slots = n->nmsgs;
    if (keep) assert_int_equal(g.slots, g.nmsgs);
    g.rows = n->ncoll_rows;
    g.end_ps = m.sim.now_ps;
    g.stored = cs->xfers_stored;
    model_fini(&m);
    return g;
}

/* Both schedules on sc: identical runs; `rings`: the generated one stored
 * fewer transfers (the case has ring segments). */
static void same(const struct scenario *sc, const char *what, bool rings) {
    struct digest a = run_one(sc, true, true), b = run_one(sc, false, true);
    struct digest c = run_one(sc, false, false);
    print_message("%-34s %7llu msgs in %5llu slots, end %.3f us, stored transfers %llu -> %llu\n",
                  what, (unsigned long long)b.nmsgs, (unsigned long long)c.slots,
                  (double)b.end_ps / 1e6, (unsigned long long)a.stored,
                  (unsigned long long)b.stored);
    assert_true(a.end_ps > 0 && (a.nmsgs > 0 || a.rows > 0));
    assert_int_equal(a.nmsgs, b.nmsgs);
    assert_int_equal(a.rows, b.rows);
    assert_int_equal(a.end_ps, b.end_ps);
    assert_int_equal(a.h, b.h);
    assert_int_equal(a.hrows, b.hrows);
    if (rings)
        assert_true(b.stored < a.stored);
    else
        assert_int_equal(a.stored, b.stored);
    /* recycled slots: the same run */
    assert_int_equal(c.nmsgs, b.nmsgs);
    assert_int_equal(c.rows, b.rows);
    assert_int_equal(c.end_ps, b.end_ps);
    assert_int_equal(c.hrows, b.hrows);
    assert_true(c.slots <= c.nmsgs);
    if (rings) assert_true(c.slots < c.nmsgs);
}

static void flat_algorithms(void **state) {
    (void)state;
    struct {
        int kind, algo;
        uint64_t size, slice;
        bool rings;
        const char *what;
    } c[] = {
        {WL_ALLREDUCE, ALGO_RING, 4u << 20, 0, true, "ring allreduce 1 slice"},
        {WL_ALLREDUCE, ALGO_RING, 4u << 20, 32u << 10, true, "ring allreduce 4 slices"},
        {WL_ALLREDUCE, ALGO_RING, 4u << 20, 16u << 10, true, "ring allreduce 8 slices"},
        {WL_ALLREDUCE, ALGO_RING, 4u << 20, 8u << 10, true, "ring allreduce 16 slices"},
        {WL_ALLREDUCE, ALGO_RING, 1000, 0, true, "ring allreduce 1000 B"},
        {WL_ALLGATHER, ALGO_RING, 4u << 20, 16u << 10, true, "ring allgather"},
        {WL_REDUCESCATTER, ALGO_RING, 4u << 20, 32u << 10, true, "ring reducescatter"},
        {WL_BROADCAST, ALGO_RING, 1u << 20, 64u << 10, false, "chain broadcast"},
        {WL_ALLREDUCE, ALGO_TREE, 1u << 20, 64u << 10, false, "tree allreduce"},
        {WL_BROADCAST, ALGO_TREE, 1u << 20, 64u << 10, false, "tree broadcast"},
        {WL_ALLREDUCE, ALGO_HALVING_DOUBLING, 1u << 20, 0, false, "halving-doubling"},
        {WL_ALLREDUCE, ALGO_HALVING_DOUBLING, 4096, 0, false, "recursive doubling"},
        {WL_ALLGATHER, ALGO_HALVING_DOUBLING, 1u << 20, 0, false, "hd allgather"},
        {WL_ALLREDUCE, ALGO_SHARP, 1u << 20, 0, false, "sharp"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        struct scenario sc;
        struct wl_entry w;
        sc_base(&sc, &w);
        w.kind = c[i].kind;
        w.algorithm = c[i].algo;
        w.size_bytes = c[i].size;
        w.slice_bytes = c[i].slice;
        same(&sc, c[i].what, c[i].rings);
    }
    /* 12 ranks: folded halving-doubling, and a ring of 12 */
    uint32_t ranks[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    for (int a = 0; a < 2; a++) {
        struct scenario sc;
        struct wl_entry w;
        sc_base(&sc, &w);
        w.ranks = ranks;
        w.nranks = 12;
        w.ranks_all = false;
        w.algorithm = a ? ALGO_HALVING_DOUBLING : ALGO_RING;
        w.size_bytes = 1u << 20;
        w.slice_bytes = 32u << 10;
        same(&sc, a ? "12 ranks halving-doubling" : "12 ranks ring", !a);
    }
}

static void variants(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    /* host reduction timers: a transfer counts once reduced */
    sc_base(&sc, &w);
    w.size_bytes = 2u << 20;
    w.slice_bytes = 16u << 10;
    w.host_rate_bps = GBPS(200);
    same(&sc, "ring with host_rate", true);
    /* 2 QPs per connection, round robin; LL protocol; 2 concurrent jobs; repeat */
    sc_base(&sc, &w);
    sc.fabric.transport.qps_per_connection = 2;
    w.size_bytes = 1u << 20;
    w.slice_bytes = 16u << 10;
    w.protocol = PROTO_LL;
    w.jobs = 2;
    w.repeat = 2;
    same(&sc, "2 QPs, LL, 2 jobs, repeat 2", true);
    /* a sweep of sizes, as nccl_tests expands */
    uint64_t sizes[] = {1024, 64u << 10, 1u << 20};
    sc_base(&sc, &w);
    w.sizes = sizes;
    w.nsizes = 3;
    w.size_bytes = sizes[0];
    w.protocol = PROTO_AUTO;
    same(&sc, "size sweep, protocol auto", true);
    /* nccl-tests alltoall_perf: grouped send/recv (a2a.c), stored as before */
    sc_base(&sc, &w);
    w.kind = WL_NCCL_TESTS;
    w.nccl_op = WL_ALLTOALL;
    w.sizes = sizes;
    w.nsizes = 3;
    w.size_bytes = sizes[0];
    same(&sc, "nccl_tests alltoall", false);
    /* training: calls wait for backward compute (pre) */
    sc_base(&sc, &w);
    w.kind = WL_TRAINING;
    w.size_bytes = 40u << 20;
    w.bucket_bytes = 16u << 20;
    w.forward_ps = 100 * PS_PER_US;
    w.backward_ps = 300 * PS_PER_US;
    w.iterations = 2;
    same(&sc, "training", true);
}

static void multi_gpu(void **state) {
    (void)state;
    struct {
        int algo;
        bool one_host, rings;
        const char *what;
    } c[] = {
        {ALGO_HIERARCHICAL, false, true, "hierarchical 4 hosts x 4 GPUs"},
        {ALGO_SHARP, false, true, "sharp per rail 4 x 4"},
        {ALGO_RING, true, true, "ring over NVLink, one host"},
        {ALGO_NVLS, true, false, "nvls one host"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        struct scenario sc;
        struct wl_entry w;
        sc_base(&sc, &w);
        sc.topo.hosts_per_leaf = 1;
        sc.topo.gpus_per_host = 4;
        w.algorithm = c[i].algo;
        w.size_bytes = 4u << 20;
        w.slice_bytes = 64u << 10;
        sc.fabric.sharp_jobs_per_switch = 8; /* one per rail */
        uint32_t ranks[4] = {0, 1, 2, 3};
        if (c[i].one_host) {
            w.ranks = ranks;
            w.nranks = 4;
            w.ranks_all = false;
            w.ranks_are_gpu_ids = true;
        }
        same(&sc, c[i].what, c[i].rings);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flat_algorithms),
        cmocka_unit_test(variants),
        cmocka_unit_test(multi_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tests/coll/test_coll.c
 *
 * The collective engine against analytic results: ring AllReduce reaches the
 * link's payload rate (nccl-tests PERFORMANCE.md, docs/sources.md C V1), the NCCL
 * busbw convention in results.json, small messages against the alpha-beta
 * model, the other algorithms complete with the right bytes on the wire, and
 * concurrent jobs under ECMP vs adaptive routing and packet spraying.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "coll_harness.h"
#include "stats/results.h"
#include "coll/coll_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* IB payload rate at MTU 4096: 400 G x 4096 / (4096 + 26) (docs/sources.md A1). */
static double payload_gbps(const struct scenario *sc) {
    return (double)sc->fabric.link_bps / 1e9 * sc->fabric.mtu_bytes /
           (sc->fabric.mtu_bytes + sc->fabric.overhead_bytes);
}

static void ring_allreduce_line_rate(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    struct model m;
    struct diag d;
    assert_int_equal(run(&m, &sc, &d), 0);
    assert_true(m.completed);
    assert_int_equal(m.net.ncoll_rows, 1);
    double bus = row_busbw_gbps(&m, 0), lim = payload_gbps(&sc);
    print_message("ring AllReduce 16 ranks 64 MiB: busbw %.2f Gb/s = %.1f%% of payload rate "
                  "%.2f\n",
                  bus, 100 * bus / lim, lim);
    assert_true(bus >= 0.95 * lim);
    assert_true(bus <= lim * 1.0001); /* cannot beat the wire */
    assert_int_equal(m.net.c.packets_dropped, 0);
    model_fini(&m);
}

/* results.json carries busbw = algbw * 2(n-1)/n exactly (and (n-1)/n for AG). */
static double json_num(const char *text, const char *key) {
    const char *p = strstr(text, key);
    assert_non_null(p);
    return strtod(p + strlen(key) + 2, NULL);
}

static void busbw_formula(void **state) {
    (void)state;
    int kinds[] = {WL_ALLREDUCE, WL_ALLGATHER};
    for (int k = 0; k < 2; k++) {
        struct scenario sc;
        struct wl_entry w;
        sc_base(&sc, &w);
        w.kind = kinds[k];
        w.size_bytes = 4u << 20;
        struct model m;
        struct diag d;
        assert_int_equal(run(&m, &sc, &d), 0);
        assert_int_equal(results_write_dir(&m, "build/tmp-coll-busbw", &d), 0);
        FILE *f = fopen("build/tmp-coll-busbw/results.json", "r");
        assert_non_null(f);
        static char buf[1 << 20];
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        buf[len] = 0;
        fclose(f);
        const char *c = strstr(buf, "\"collectives\"");
        assert_non_null(c);
        double alg = json_num(c, "\"algbw_gbps\""), bus = json_num(c, "\"busbw_gbps\"");
        double t = json_num(c, "\"time_ns\"");
        double n = 16, f_ = kinds[k] == WL_ALLREDUCE ? 2 * (n - 1) / n : (n - 1) / n;
        assert_true(fabs(alg - (double)w.size_bytes * 8 / t) < 1e-9 * alg);
        assert_true(fabs(bus - alg * f_) < 1e-9 * bus);
        assert_true(fabs(t - row_time_us(&m, 0) * 1e3) < 1e-6 * t);
        model_fini(&m);
    }
}

/* Small messages: ring AllReduce time = 2(n-1) (alpha + beta S/n), alpha = the
 * post overhead + the unloaded one-packet latency of the ring's links (store
 * and forward: per hop serialisation + propagation, + switch latency per
 * switch), beta = 1 / payload rate. Averaged over the ring's links. */
static void small_messages_alpha_beta(void **state) {
    (void)state;
    uint64_t sizes[] = {8, 1024, 32768};
    for (int i = 0; i < 3; i++) {
        struct scenario sc;
        struct wl_entry w;
        sc_base(&sc, &w);
        w.size_bytes = sizes[i];
        w.channels = 1;
        struct model m;
        struct diag d;
        assert_int_equal(run(&m, &sc, &d), 0);
        double n = 16, per_step = ceil((double)sizes[i] / n);
        double wire = per_step + 26 + 16; /* payload + IB headers + RETH */
        double ser_ns = wire * 8 / 400.0, prop = 25, sw = 200;
        double same_leaf = 2 * (ser_ns + prop) + sw, cross = 4 * (ser_ns + prop) + 3 * sw;
        double link = (12 * same_leaf + 4 * cross) / 16; /* 4 of 16 ring links cross leaves */
        double alpha = 1000 + link;                      /* ns */
        double model_us = 2 * (n - 1) * alpha / 1e3;
        double sim = row_time_us(&m, 0);
        print_message(
            "AllReduce %6llu B: sim %.2f us, alpha-beta %.2f us (%+.1f%%); NCCL's "
            "own model (Simple, 14 us/step) %.1f us\n",
            (unsigned long long)sizes[i], sim, model_us, 100 * (sim / model_us - 1),
            coll_nccl_time_us(WL_ALLREDUCE, ALGO_RING, sizes[i], 16, 16, sc.fabric.link_bps, 0));
        assert_true(fabs(sim / model_us - 1) < 0.15);
        model_fini(&m);
    }
}

/* Every algorithm completes; tree and halving-doubling move what theory says. */
static void algorithms_complete(void **state) {
    (void)state;
    struct {
        int kind, algo;
        double lo, hi; /* busbw / payload rate */
    } c[] = {
        /* double tree: algbw -> B/2, busbw -> B(n-1)/n = 0.9375 B; 16 MiB still
         * pays the pipeline fill of the tree depth */
        {WL_ALLREDUCE, ALGO_TREE, 0.75, 0.94},
        {WL_ALLREDUCE, ALGO_HALVING_DOUBLING, 0.9, 1.0},
        {WL_ALLGATHER, ALGO_RING, 0.95, 1.0},
        {WL_REDUCESCATTER, ALGO_RING, 0.95, 1.0},
        {WL_ALLGATHER, ALGO_HALVING_DOUBLING, 0.5, 1.0},
        /* chain: 16 slices per channel + 15 hops of fill: 16/31 = 0.516 */
        {WL_BROADCAST, ALGO_RING, 0.47, 0.56},
        {WL_BROADCAST, ALGO_TREE, 0.75, 1.0},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        struct scenario sc;
        struct wl_entry w;
        sc_base(&sc, &w);
        w.kind = c[i].kind;
        w.algorithm = c[i].algo;
        w.size_bytes = 16u << 20;
        struct model m;
        struct diag d;
        assert_int_equal(run(&m, &sc, &d), 0);
        assert_true(m.completed);
        double r = row_busbw_gbps(&m, 0) / payload_gbps(&sc);
        print_message("kind %d algo %d: busbw %.1f%% of payload rate\n", c[i].kind, c[i].algo,
                      100 * r);
        assert_true(r >= c[i].lo && r <= c[i].hi);
        model_fini(&m);
    }
    /* 12 ranks: halving-doubling folds 4 extra ranks */
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    uint32_t ranks[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    w.ranks = ranks;
    w.nranks = 12;
    w.algorithm = ALGO_HALVING_DOUBLING;
    w.size_bytes = 1u << 20;
    struct model m;
    struct diag d;
    assert_int_equal(run(&m, &sc, &d), 0);
    assert_true(m.completed);
    assert_int_equal(m.net.coll_rows[0].ranks, 12);
    model_fini(&m);
}

/* size sweep + repeat: rows one after the other, in order, back to back. */
static void sweep_and_repeat(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    uint64_t sizes[] = {1024, 65536, 4u << 20};
    w.sizes = sizes;
    w.nsizes = 3;
    w.size_bytes = sizes[0];
    w.repeat = 2;
    struct model m;
    struct diag d;
    assert_int_equal(run(&m, &sc, &d), 0);
    assert_int_equal(m.net.ncoll_rows, 6);
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(m.net.coll_rows[i].size_bytes, sizes[i / 2]);
        if (i) assert_true(m.net.coll_rows[i].start_ps == m.net.coll_rows[i - 1].end_ps);
    }
    /* same size, same time (deterministic, idle fabric) */
    assert_true(fabs(row_time_us(&m, 4) - row_time_us(&m, 5)) < 0.02 * row_time_us(&m, 4));
    model_fini(&m);
}

/* `auto` follows NCCL's model: tree for small, ring for large (16 nodes). */
static void auto_picks_like_nccl(void **state) {
    (void)state;
    double t_small_ring = coll_nccl_time_us(WL_ALLREDUCE, ALGO_RING, 1024, 16, 16, GBPS(400), 0);
    double t_small_tree = coll_nccl_time_us(WL_ALLREDUCE, ALGO_TREE, 1024, 16, 16, GBPS(400), 0);
    double t_big_ring = coll_nccl_time_us(WL_ALLREDUCE, ALGO_RING, 1u << 30, 16, 16, GBPS(400), 0);
    double t_big_tree = coll_nccl_time_us(WL_ALLREDUCE, ALGO_TREE, 1u << 30, 16, 16, GBPS(400), 0);
    assert_true(t_small_tree < t_small_ring);
    assert_true(t_big_ring < t_big_tree);
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    w.algorithm = ALGO_AUTO;
    w.size_bytes = 1024;
    struct model m;
    struct diag d;
    assert_int_equal(run(&m, &sc, &d), 0);
    assert_int_equal(m.net.coll_rows[0].algorithm, ALGO_TREE);
    model_fini(&m);
}

/* Concurrent AllReduce jobs across the spines: 4 jobs of 4 ranks, each rank
 * on its own leaf, so every ring link crosses the spines; a leaf sends 8
 * flows (4 jobs x 2 channels) up 4 uplinks. With ECMP (RoCE, per-QP hash of
 * the UDP source port) flows collide on uplinks and the jobs whose rings hit
 * a doubly loaded uplink finish later: their times spread. Adaptive routing
 * (IB, per packet to the least loaded uplink) and packet spraying (RoCE, per
 * packet round robin) load every uplink evenly: the jobs finish together.
 * Spread = slowest / fastest job time - 1, over a few seeds (the ECMP hash
 * differs per seed: a lucky seed may place the flows without collisions). */
struct spread {
    double max_over_min, cv;
};

static struct spread jobs_spread(enum routing_kind rk, uint64_t seed) {
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    sc.seed = seed;
    sc.fabric.routing = rk;
    bool roce = rk == ROUTING_ECMP || rk == ROUTING_SPRAY;
    sc.fabric.kind = roce ? FABRIC_ROCE : FABRIC_INFINIBAND;
    sc.fabric.overhead_bytes = roce ? 82 : 26;
    w.jobs = 4;
    w.size_bytes = 16u << 20;
    struct model m;
    struct diag d;
    int rc = run(&m, &sc, &d);
    if (rc) diag_print(&d, stderr);
    assert_int_equal(rc, 0);
    assert_true(m.completed);
    assert_int_equal(m.net.ncoll_rows, 4);
    double lo = INFINITY, hi = 0, sum = 0, sq = 0;
    for (uint32_t i = 0; i < 4; i++) {
        double t = row_time_us(&m, i);
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
        sum += t;
        sq += t * t;
    }
    model_fini(&m);
    double mean = sum / 4;
    struct spread r = {hi / lo - 1, sqrt(fmax(0, sq / 4 - mean * mean)) / mean};
    return r;
}

static void concurrent_jobs_ecmp_vs_adaptive(void **state) {
    (void)state;
    enum routing_kind rk[] = {ROUTING_ECMP, ROUTING_ADAPTIVE, ROUTING_SPRAY};
    const char *name[] = {"ecmp", "adaptive", "spray"};
    enum { NSEEDS = 4 };
    double worst[3] = {0}, best[3] = {INFINITY, INFINITY, INFINITY}, mean[3] = {0};
    for (int k = 0; k < 3; k++) {
        uint64_t nseeds = k == 0 ? NSEEDS : 2; /* per packet: no hash luck to average */
        for (uint64_t seed = 1; seed <= nseeds; seed++) {
            struct spread s = jobs_spread(rk[k], seed);
            print_message("4 concurrent AllReduce jobs, %-8s seed %llu: max/min %.3f, CV %.2f%%\n",
                          name[k], (unsigned long long)seed, 1 + s.max_over_min, 100 * s.cv);
            worst[k] = fmax(worst[k], s.max_over_min);
            best[k] = fmin(best[k], s.max_over_min);
            mean[k] += s.max_over_min / (double)nseeds;
        }
    }
    print_message(
        "spread (max/min - 1) over %d ECMP seeds: ecmp mean %.1f%% (min %.1f%%), adaptive "
        "worst %.2f%%, spray worst %.2f%%\n",
        NSEEDS, 100 * mean[0], 100 * best[0], 100 * worst[1], 100 * worst[2]);
    assert_true(mean[0] > 0.10);         /* ECMP: collisions spread the jobs */
    assert_true(best[0] > 4 * worst[1]); /* on every seed, far above adaptive */
    assert_true(worst[1] < 0.02);        /* adaptive: together */
    assert_true(worst[2] < 0.02);        /* spray: together */
}

static void errors(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    w.kind = WL_ALLGATHER;
    w.algorithm = ALGO_TREE;
    struct model m;
    struct diag d;
    assert_int_equal(run(&m, &sc, &d), FS_EINVAL);
    assert_int_equal(d.line, 10);
    model_fini(&m);
    sc_base(&sc, &w);
    sc.fabric.kind = FABRIC_ROCE;
    w.algorithm = ALGO_SHARP;
    assert_int_equal(run(&m, &sc, &d), FS_EINVAL);
    assert_non_null(strstr(d.msg, "InfiniBand"));
    assert_int_equal(d.line, 10);
    model_fini(&m);
}

/* Training: 100 MiB of gradients in 25 MiB buckets, forward 1 ms, backward
 * 6 ms; the AllReduce of a bucket (ring, 16 ranks: ~1 ms for 25 MiB at 400 G)
 * overlaps the next bucket's backward; only the last bucket's is exposed. */
static void training_overlap(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    w.kind = WL_TRAINING;
    w.size_bytes = 100u << 20;
    w.forward_ps = 1 * PS_PER_MS;
    w.backward_ps = 6 * PS_PER_MS;
    w.iterations = 2;
    struct model m;
    struct diag d;
    assert_int_equal(run(&m, &sc, &d), 0);
    assert_true(m.completed);
    const struct coll_state *cs = m.net.coll_state;
    assert_int_equal(cs->ntrain, 2);
    const struct train_row *r = &cs->train[1];
    double step = (double)(r->end_ps - r->start_ps) / 1e6, exposed = (double)r->exposed_ps / 1e6;
    /* a 25 MiB ring AllReduce alone */
    double ar = 2.0 * 15 / 16 * (25u << 20) * 8 / 397.48e3;
    print_message("training step %.1f us: compute 7000 us, exposed comm %.1f us (%.1f%%); one "
                  "25 MiB bucket AllReduce ~%.1f us, all four %.1f us\n",
                  step, exposed, 100 * exposed / step, ar, 4 * ar);
    assert_true(exposed > 0.8 * ar && exposed < 1.5 * ar); /* only the last bucket shows */
    assert_true(step < 7000 + 4 * ar);                     /* overlap happened */
    model_fini(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ring_allreduce_line_rate),
        cmocka_unit_test(busbw_formula),
        cmocka_unit_test(small_messages_alpha_beta),
        cmocka_unit_test(algorithms_complete),
        cmocka_unit_test(sweep_and_repeat),
        cmocka_unit_test(auto_picks_like_nccl),
        cmocka_unit_test(concurrent_jobs_ecmp_vs_adaptive),
        cmocka_unit_test(errors),
        cmocka_unit_test(training_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

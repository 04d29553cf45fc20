/* core/: event ordering, RNG streams, unit parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/calq.h"
#include "core/diag.h"
#include "core/evq.h"
#include "core/rng.h"
#include "core/strdist.h"
#include "core/units.h"

#include <string.h>

/* (time, entity, seq) order, whatever the push order. */
static void test_evq_order(void **state) {
    (void)state;
    struct evq q;
    evq_init(&q, 2);
    struct rng r;
    rng_seed(&r, 7, 0, 0);
    for (uint32_t i = 0; i < 5000; i++) {
        struct event e = {rng_below(&r, 100), (rng_below(&r, 4) << 32) | i, i, 0, 0};
        evq_push(&q, e);
    }
    struct event prev, e;
    assert_int_equal(evq_pop(&q, &prev), 0);
    uint32_t n = 1;
    while (evq_pop(&q, &e) == 0) {
        int ok = prev.time_ps < e.time_ps ||
                 (prev.time_ps == e.time_ps &&
                  (event_entity(&prev) < event_entity(&e) ||
                   (event_entity(&prev) == event_entity(&e) && prev.order < e.order)));
        assert_true(ok);
        prev = e;
        n++;
    }
    assert_int_equal(n, 5000);
    assert_int_equal(evq_pop(&q, &e), FS_EEMPTY);
    evq_fini(&q);
}

/* The calendar queue pops exactly what the heap pops, in the hold model the
 * simulator runs (pop the earliest, push a few later), with events near (in
 * the window), far (past it) and tied in time. */
static void test_calq_matches_heap(void **state) {
    (void)state;
    struct calq c;
    struct evq h;
    calq_init(&c); /* 1 ns buckets over ~4.2 us: the spreads below force far events */
    evq_init(&h, 16);
    struct rng r;
    rng_seed(&r, 3, 0, 0);
    uint64_t now = 0;
    uint32_t seq = 0;
    for (int i = 0; i < 200; i++) {
        struct event e = {rng_below(&r, 5000) * 1024, ((uint64_t)rng_below(&r, 3) << 32) | seq++, 0,
                          0, 0};
        calq_push(&c, e);
        evq_push(&h, e);
    }
    for (int i = 0; i < 200000; i++) {
        struct event a, b;
        int ra = calq_pop(&c, &a), rb = evq_pop(&h, &b);
        assert_int_equal(ra, rb);
        if (ra) break;
        assert_true(a.time_ps == b.time_ps && a.order == b.order);
        assert_true(a.time_ps >= now);
        now = a.time_ps;
        int k = (int)rng_below(&r, 3);             /* 0..2 new events: the queue drifts */
        if (i > 150000) k = (int)rng_below(&r, 2); /* then drains */
        for (int j = 0; j < k; j++) {
            uint64_t dt =
                rng_below(&r, 4) == 0 ? rng_below(&r, 100000) * 4096 : rng_below(&r, 300) * 64;
            if (rng_below(&r, 8) == 0) dt = 0; /* ties at the same time stamp */
            struct event e = {now + dt, ((uint64_t)rng_below(&r, 3) << 32) | seq++, 0, 0, 0};
            calq_push(&c, e);
            evq_push(&h, e);
        }
    }
    assert_int_equal(calq_len(&c), h.len);
    calq_fini(&c);
    evq_fini(&h);
}

/* Dense then sparse: 50 000 pending events within ~1 ns buckets (dozens
 * of events per bucket, sorted when reached), then microsecond gaps (a few
 * events over thousands of empty buckets, found through the bitmap); the
 * pop order stays the heap's throughout, and the chunks of emptied buckets
 * are reused rather than grown. */
static void test_calq_dense_sparse(void **state) {
    (void)state;
    struct calq c;
    struct evq h;
    calq_init(&c);
    evq_init(&h, 16);
    struct rng r;
    rng_seed(&r, 4, 0, 0);
    uint32_t seq = 0;
    for (int i = 0; i < 50000; i++) {
        struct event e = {rng_below(&r, 1000), seq++, 0, 0, 0};
        calq_push(&c, e);
        evq_push(&h, e);
    }
    uint32_t chunks_dense = 0;
    for (int i = 0; i < 400000; i++) {
        struct event a = {0}, b = {0};
        assert_int_equal(calq_pop(&c, &a), 0);
        assert_int_equal(evq_pop(&h, &b), 0);
        assert_true(a.time_ps == b.time_ps && a.order == b.order);
        if (i == 200000) chunks_dense = c.chunk_len;
        /* dense phase: +0..1 ns; sparse phase (second half, queue drained to
         * a few events): +1..10 us */
        uint64_t dt = i < 200000 ? rng_below(&r, 1000) : 1000000 + rng_below(&r, 9000000);
        if (i < 200000 || rng_below(&r, 2) == 0 || h.len < 8) {
            struct event e = {a.time_ps + dt, seq++, 0, 0, 0};
            calq_push(&c, e);
            evq_push(&h, e);
        }
    }
    print_message("calendar: %llu buckets sorted when reached, %u chunks\n",
                  (unsigned long long)c.sorted_buckets, c.chunk_len);
    assert_true(c.sorted_buckets > 1000);
    assert_int_equal(c.chunk_len, chunks_dense); /* none allocated in the sparse phase */
    assert_int_equal(calq_len(&c), h.len);
    calq_fini(&c);
    evq_fini(&h);
}

/* A fabric started in step: thousands of events share each time stamp and
 * arrive in no particular entity order, so the bounded walk gives up and
 * buckets are sorted when reached; pops stay exactly the heap's. */
static void test_calq_same_time(void **state) {
    (void)state;
    struct calq c;
    struct evq h;
    calq_init(&c);
    evq_init(&h, 16);
    struct rng r;
    rng_seed(&r, 5, 0, 0);
    uint32_t seq = 0;
    for (int i = 0; i < 20000; i++) {
        struct event e = {1000 * rng_below(&r, 4), ((uint64_t)rng_below(&r, 8192) << 32) | seq++, 0,
                          0, 0};
        calq_push(&c, e);
        evq_push(&h, e);
    }
    static const uint64_t delay[] = {0, 330000, 330000 + 800000, 1000};
    for (int i = 0; i < 300000; i++) {
        struct event a, b;
        int ra = calq_pop(&c, &a), rb = evq_pop(&h, &b);
        assert_int_equal(ra, rb);
        if (ra) break;
        assert_true(a.time_ps == b.time_ps && a.order == b.order);
        assert_true(a.arg == b.arg && a.kind == b.kind && a.aux == b.aux);
        if (i > 250000) continue; /* drain */
        struct event e = {a.time_ps + delay[rng_below(&r, 4)],
                          ((uint64_t)rng_below(&r, 8192) << 32) | seq, seq, (uint16_t)(seq >> 3),
                          (uint16_t)(seq * 7)};
        if (e.time_ps == a.time_ps) /* never before what was popped; orders stay unique */
            e.order = ((a.order >> 32) + 1) << 32 | seq;
        seq++;
        if (i & 1) /* the simulator's pushes: fields straight into the bucket */
            calq_push_fields(&c, e.time_ps, e.order, e.arg, e.kind, e.aux);
        else
            calq_push(&c, e);
        evq_push(&h, e);
    }
    print_message("calendar: %llu buckets sorted when reached\n",
                  (unsigned long long)c.sorted_buckets);
    assert_true(c.sorted_buckets > 100);
    assert_int_equal(calq_len(&c), 0);
    calq_fini(&c);
    evq_fini(&h);
}

/* Crowded buckets of a ring AllReduce: one long ascending run and a few
 * short ones (merged into it in blocks, merge_sparse) before and after it,
 * the long run first, in the middle or last, and buckets of equal runs
 * (merged event by event); pops exactly the heap's. */
static void test_calq_long_run(void **state) {
    (void)state;
    struct calq c;
    struct evq h;
    calq_init(&c);
    evq_init(&h, 16);
    struct rng r;
    rng_seed(&r, 11, 0, 0);
    uint32_t seq = 0;
    uint64_t pushed = 0;
    for (uint64_t b = 0; b < 400; b++) {
        uint32_t nruns = 2 + rng_below(&r, 7), big = rng_below(&r, nruns);
        int equal = b % 5 == 0; /* runs of the same length: merged pass by pass */
        for (uint32_t k = 0; k < nruns; k++) {
            uint32_t len = equal ? 40 : k == big ? 150 + rng_below(&r, 200) : 1 + rng_below(&r, 12);
            uint64_t t = b * 1024 + rng_below(&r, 3) * 100, o = rng_below(&r, 1000);
            for (uint32_t i = 0; i < len; i++) { /* ascending (time, order) */
                o += 1 + rng_below(&r, 50);
                if (rng_below(&r, 8) == 0) t += 10 + rng_below(&r, 100);
                struct event e = {t, o << 20 | seq, seq, (uint16_t)k, (uint16_t)(seq * 3)};
                seq++;
                calq_push(&c, e);
                evq_push(&h, e);
                pushed++;
            }
        }
    }
    uint64_t popped = 0;
    for (;;) {
        struct event a, x;
        int ra = calq_pop(&c, &a), rb = evq_pop(&h, &x);
        assert_int_equal(ra, rb);
        if (ra) break;
        assert_true(a.time_ps == x.time_ps && a.order == x.order);
        assert_true(a.arg == x.arg && a.kind == x.kind && a.aux == x.aux);
        popped++;
    }
    assert_int_equal(popped, pushed);
    assert_true(c.sorted_buckets > 300);
    calq_fini(&c);
    evq_fini(&h);
}

/* Streams: same (seed, entity, stream) -> same numbers; others differ;
 * rng_below is uniform enough (chi-square over 10 bins). */
static void test_rng_streams(void **state) {
    (void)state;
    struct rng a, b, c;
    rng_seed(&a, 1, 5, 0);
    rng_seed(&b, 1, 5, 0);
    rng_seed(&c, 1, 6, 0);
    int same = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = rng_next(&a);
        assert_true(x == rng_next(&b));
        same += x == rng_next(&c);
    }
    assert_int_equal(same, 0);
    uint32_t bins[10] = {0};
    for (int i = 0; i < 100000; i++)
        bins[rng_below(&a, 10)]++;
    double chi = 0;
    for (int i = 0; i < 10; i++)
        chi += (bins[i] - 10000.0) * (bins[i] - 10000.0) / 10000.0;
    assert_true(chi < 27.9); /* p = 0.001 at 9 degrees of freedom */
    double sum = 0;
    for (int i = 0; i < 100000; i++)
        sum += rng_exponential(&a, 5.0);
    assert_true(sum / 100000 > 4.9 && sum / 100000 < 5.1);
}

static void test_units(void **state) {
    (void)state;
    char why[160];
    uint64_t v;
    assert_int_equal(units_parse_size("4MiB", &v, why, sizeof why), 0);
    assert_int_equal(v, 4194304);
    assert_int_equal(units_parse_size("1.5 KB", &v, why, sizeof why), 0);
    assert_int_equal(v, 1500);
    assert_int_equal(units_parse_size("4096", &v, why, sizeof why), 0);
    assert_int_equal(v, 4096);
    assert_int_equal(units_parse_time("25ns", &v, why, sizeof why), 0);
    assert_int_equal(v, 25000);
    assert_int_equal(units_parse_time("1s", &v, why, sizeof why), 0);
    assert_int_equal(v, 1000000000000ull);
    assert_int_equal(units_parse_rate("400Gbps", &v, why, sizeof why), 0);
    assert_int_equal(v, 400000000000ull);
    assert_int_equal(units_parse_rate("50GBps", &v, why, sizeof why), 0);
    assert_int_equal(v, 400000000000ull);
    assert_int_equal(units_parse_length("5m", &v, why, sizeof why), 0);
    assert_int_equal(v, 5000);
    assert_int_equal(units_parse_rate("400Gbit", &v, why, sizeof why), FS_EINVAL);
    assert_non_null(strstr(why, "Gbps"));
    assert_int_equal(units_parse_size("-4KiB", &v, why, sizeof why), FS_ERANGE);
    assert_int_equal(units_parse_size("99999999999GiB", &v, why, sizeof why), FS_ERANGE);
    assert_int_equal(units_parse_time("10", &v, why, sizeof why), FS_EINVAL);
    assert_int_equal(units_parse_time("0", &v, why, sizeof why), 0);
    assert_int_equal(units_parse_size("nan", &v, why, sizeof why), FS_EINVAL);
    assert_int_equal(units_parse_size("0x10", &v, why, sizeof why), FS_EINVAL);
    assert_int_equal(units_parse_size("", &v, why, sizeof why), FS_EINVAL);
}

/* Suggestions' distance: Levenshtein plus a swap of two neighbours, so the
 * commonest typo of `run` is one edit away (it was two: no suggestion). */
static void test_osa_distance(void **state) {
    (void)state;
    assert_int_equal(str_osa_distance("rnu", "run", false), 1);
    assert_int_equal(str_osa_distance("ab", "ba", false), 1);
    assert_int_equal(str_osa_distance("kitten", "sitting", false), 3);
    assert_int_equal(str_osa_distance("ca", "abc", false), 3); /* OSA, not full Damerau (2) */
    assert_int_equal(str_osa_distance("", "abc", false), 3);
    assert_int_equal(str_osa_distance("Shield", "shield", false), 1);
    assert_int_equal(str_osa_distance("Shield", "shield", true), 0);
    assert_int_equal(str_osa_distance("sheild", "shield", true), 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_osa_distance),      cmocka_unit_test(test_evq_order),
        cmocka_unit_test(test_calq_matches_heap), cmocka_unit_test(test_calq_dense_sparse),
        cmocka_unit_test(test_calq_same_time),    cmocka_unit_test(test_calq_long_run),
        cmocka_unit_test(test_rng_streams),       cmocka_unit_test(test_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tests/coll/test_progress.c
 *
 * Progress lines tell the truth for collectives (issue 34 item 3): a ring
 * posts each step only when the one before arrives, so bytes delivered of
 * bytes posted so far read 99 % all run long. The schedule's planned bytes
 * (coll_plan) must keep model_progress within 0.2 of the share of events
 * run, at every progress tick of a sweep of three sizes (the later sizes
 * estimated from the first call) and of training iterations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "coll_harness.h"

#include <math.h>
#include <stdio.h>

struct samples {
    double frac[256];
    uint64_t events[256];
    uint32_t n;
};

static void on_tick(const struct model *m, void *arg) {
    struct samples *s = arg;
    if (s->n < 256) {
        s->frac[s->n] = model_progress(m);
        s->events[s->n++] = m->sim.events_run;
    }
}

static void check(const struct scenario *sc, const char *what) {
    struct model m;
    struct diag d = {0};
    struct samples s = {0};
    assert_int_equal(model_build(&m, sc, &d), 0);
    model_run(&m, on_tick, &s);
    assert_true(m.completed);
    assert_true(s.n >= 3);
    double worst = 0;
    for (uint32_t i = 0; i < s.n; i++) {
        double want = (double)s.events[i] / (double)m.sim.events_run;
        printf("%s: %5.1f %% of the events, progress %5.1f %%\n", what, 100 * want,
               100 * s.frac[i]);
        if (fabs(s.frac[i] - want) > worst) worst = fabs(s.frac[i] - want);
    }
    assert_true(worst <= 0.2);
    model_fini(&m);
}

static void test_ring_sweep(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    uint64_t sizes[] = {8u << 20, 16u << 20, 32u << 20};
    w.sizes = sizes;
    w.nsizes = 3;
    check(&sc, "ring 16 ranks, 8/16/32 MiB");
}

static void test_training(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    sc_base(&sc, &w);
    w.kind = WL_TRAINING;
    w.size_bytes = 24u << 20;
    w.iterations = 3;
    check(&sc, "training 16 ranks, 3 x 24 MiB");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_sweep),
        cmocka_unit_test(test_training),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

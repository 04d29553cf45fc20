/* bench/bench_evq.c
 *
 * The event-queue micro-benchmark behind the choice of a 4-ary heap
 * (core/evq.c): the classic "hold" model (pop the earliest event, push one a
 * random time later) at the queue sizes a run sees, against a binary heap of
 * the same events written here for comparison, and against the calendar
 * queue the simulator uses (core/calq.c; 1 ns buckets, 4.2 us window). Hold
 * increments are uniform in 1 ps .. 1 us, the span of packet events.
 */
#include "core/calq.h"
#include "core/evq.h"
#include "core/rng.h"
#include "core/wall.h"

#include <stdio.h>
#include <stdlib.h>

struct bheap {
    struct event *h;
    size_t len;
};

static int before(const struct event *a, const struct event *b) {
    if (a->time_ps != b->time_ps) return a->time_ps < b->time_ps;
    return a->order < b->order;
}

static void bpush(struct bheap *q, struct event e) {
    size_t i = q->len++;
    while (i > 0 && before(&e, &q->h[(i - 1) / 2])) {
        q->h[i] = q->h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->h[i] = e;
}

static struct event bpop(struct bheap *q) {
    struct event top = q->h[0], last = q->h[--q->len];
    size_t i = 0, n = q->len;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && before(&q->h[c + 1], &q->h[c])) c++;
        if (!before(&q->h[c], &last)) break;
        q->h[i] = q->h[c];
        i = c;
    }
    if (n) q->h[i] = last;
    return top;
}

int main(void) {
    const size_t sizes[] = {1000, 10000, 100000, 1000000};
    const uint64_t ops = 2000000;
    printf("%10s %14s %14s %16s\n", "events", "4-ary ns/hold", "binary ns/hold",
           "calendar ns/hold");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        struct rng r;
        struct evq q;
        evq_init(&q, n);
        rng_seed(&r, 1, 0, 0);
        for (size_t i = 0; i < n; i++)
            evq_push(&q, (struct event){rng_below(&r, 1000000), ((uint64_t)(i % 64) << 32) | i, 0,
                                        0, 0});
        double t0 = wall_cpu_s();
        struct event e;
        for (uint64_t i = 0; i < ops; i++) {
            evq_pop(&q, &e);
            e.time_ps += 1 + rng_below(&r, 1000000);
            e.order += n;
            evq_push(&q, e);
        }
        double t4 = (wall_cpu_s() - t0) / ops * 1e9;
        evq_fini(&q);
        struct bheap b = {malloc(n * sizeof(struct event)), 0};
        rng_seed(&r, 1, 0, 0);
        for (size_t i = 0; i < n; i++)
            bpush(&b,
                  (struct event){rng_below(&r, 1000000), ((uint64_t)(i % 64) << 32) | i, 0, 0, 0});
        t0 = wall_cpu_s();
        for (uint64_t i = 0; i < ops; i++) {
            e = bpop(&b);
            e.time_ps += 1 + rng_below(&r, 1000000);
            e.order += n;
            bpush(&b, e);
        }
        double t2 = (wall_cpu_s() - t0) / ops * 1e9;
        free(b.h);
        struct calq c;
        calq_init(&c);
        rng_seed(&r, 1, 0, 0);
        for (size_t i = 0; i < n; i++)
            calq_push(&c, (struct event){rng_below(&r, 1000000), ((uint64_t)(i % 64) << 32) | i, 0,
                                         0, 0});
        t0 = wall_cpu_s();
        for (uint64_t i = 0; i < ops; i++) {
            calq_pop(&c, &e);
            e.time_ps += 1 + rng_below(&r, 1000000);
            e.order += n;
            calq_push(&c, e);
        }
        double tc = (wall_cpu_s() - t0) / ops * 1e9;
        calq_fini(&c);
        printf("%10zu %14.1f %14.1f %16.1f\n", n, t4, t2, tc);
    }
    return 0;
}

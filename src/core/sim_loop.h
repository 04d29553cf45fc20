/* src/core/sim_loop.h
 *
 * The event loop, as an inline template over the model's cache warm-up.
 *
 * At 1,024-8,192 hosts a packet event's time goes mostly to cache misses
 * (docs/performance.md "Cache warm-up"): the port an event names and the
 * packet that port points to are cold lines, read one after the other. The
 * bucket being popped is sorted (core/calq.h), so the loop knows the next
 * events: before each event it hands the model those that follow it in the
 * bucket, and the model prefetches for them in stages, each reading only
 * lines an earlier stage fetched one event before (the port an event names
 * three events ahead, the packet that port points to two ahead, and so on:
 * net/warm.h). Software pipelining of the kind database hash joins use
 * (Chen, Ailamaki, Gibbons and Mowry, "Improving Hash Join Performance
 * through Prefetching", ICDE 2004). The warm-up must change no state:
 * results cannot depend on it (the bench digests and every lab's outputs
 * are the same with and without).
 *
 * A model passes its warm-up function as a constant (model/model.c), so that
 * it is inlined; sim_run passes NULL and pays nothing. The core stays
 * ignorant of what an event's argument means.
 */
#ifndef FABSIM_CORE_SIM_LOOP_H
#define FABSIM_CORE_SIM_LOOP_H

#include "core/sim.h"

#include <stdbool.h>

/* Called before each event of the bucket being popped with the events that
 * follow it there (`next`, `ahead` of them); prefetches only. `start`: the
 * event is the bucket's first, nothing of the bucket was warmed yet (the
 * model fills its pipeline). */
typedef void (*sim_warm_fn)(const void *model, const struct event *next, uint32_t ahead,
                            bool start);

/* The checks every event used to pay (stopped, the stop time) are made once
 * per bucket of the calendar queue (core/calq.h): sim_stop() empties the
 * queue's fast path (lim = next), so the next take goes through the slow
 * path, which looks at `stopped`; a bucket is run without comparing each
 * event with stop_ps when all of it lies at or before stop_ps; the bucket
 * that reaches past it goes through the careful loop below (which warms
 * nothing), and so does every event of a run started with an after-event
 * hook (tested once, here). */
static inline __attribute__((always_inline)) uint64_t
sim_run_warm(struct sim *s, void (*tick)(struct sim *, void *), void *tick_arg, uint64_t tick_every,
             sim_warm_fn warm) {
    struct calq *q = &s->q;
    /* events left before the next tick, counted down (a decrement and a
     * branch per event, not an increment and a compare): the events run
     * since the last tick are period - left */
    uint64_t total = 0, period = tick_every && tick ? tick_every : UINT64_MAX, left = period;
    /* A bucket c lies wholly at or before stop_ps, and runs without a
     * comparison per event, when c < upto: ((c + 1) << W) - 1 <= stop_ps. */
    uint64_t upto = s->stop_ps == UINT64_MAX ? UINT64_MAX : (s->stop_ps + 1) >> CALQ_WIDTH_LOG2;
    const struct event *e = NULL;
    if (s->stopped || s->after_event) goto careful;
    for (;;) {
        if (__builtin_expect(q->next < q->lim, 1)) {
            e = q->next++;
            if (warm) warm(s->model, q->next, (uint32_t)(q->lim - q->next), false);
        } else {
            if (s->stopped) goto done;
            e = calq_take_next(q);
            if (!e) goto done;
            /* the bucket just reached (q->after - 1) holds every event until the next slow take */
            if (q->after > upto) goto taken;
            if (warm && q->next < q->lim)
                warm(s->model, q->next, (uint32_t)(q->lim - q->next), true);
        }
        FS_DASSERT(e->time_ps >= s->now_ps, "time went back: %llu < %llu",
                   (unsigned long long)e->time_ps, (unsigned long long)s->now_ps);
        s->now_ps = e->time_ps;
        s->handlers[e->kind](s, e);
        if (__builtin_expect(--left == 0, 0)) {
            s->events_run += period;
            total += period;
            left = period;
            tick(s, tick_arg);
        }
    }
careful:
    while (!s->stopped) {
        /* valid while the handler runs: pushes never move it */
        e = calq_take(q);
        if (!e) break; /* empty */
    taken:
        if (e->time_ps > s->stop_ps) {
            calq_push(q, *e); /* leave it for a later run */
            break;
        }
        FS_DASSERT(e->time_ps >= s->now_ps, "time went back: %llu < %llu",
                   (unsigned long long)e->time_ps, (unsigned long long)s->now_ps);
        s->now_ps = e->time_ps;
        s->handlers[e->kind](s, e);
        if (s->after_event) s->after_event(s, s->after_event_arg);
        if (--left == 0) {
            s->events_run += period;
            total += period;
            left = period;
            tick(s, tick_arg);
        }
    }
done:
    s->events_run += period - left;
    return total + (period - left);
}

#endif /* FABSIM_CORE_SIM_LOOP_H */

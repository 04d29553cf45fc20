#include "core/sim.h"

#include "core/diag.h"
#include "core/mem.h"

#include <string.h>

void sim_init(struct sim *s, uint32_t nentities) {
    memset(s, 0, sizeof *s);
    /* ~1 ns buckets over a ~4.2 us window: packet events fall inside it. */
    calq_init(&s->q);
    s->nentities = nentities;
    s->entity_seq = fs_xcalloc(nentities ? nentities : 1, sizeof *s->entity_seq);
    s->stop_ps = SIM_TIME_NEVER;
}

void sim_fini(struct sim *s) {
    calq_fini(&s->q);
    free(s->entity_seq);
    s->entity_seq = NULL;
}

void sim_register(struct sim *s, uint16_t kind, sim_handler_fn fn) {
    FS_ASSERT(kind < SIM_MAX_KINDS, "kind %u", kind);
    s->handlers[kind] = fn;
}

/* The checks every event used to pay (stopped, the stop time, the
 * after-event hook) are made once per bucket of the calendar queue
 * (core/calq.h): sim_stop() empties the queue's fast path (lim = 0), so
 * the next take goes through the slow path, which looks at `stopped`; a
 * bucket is run without comparing each event with stop_ps when all of it
 * lies at or before stop_ps; the bucket that reaches past it, and every
 * event when a hook is installed, go through the careful loop below. */
uint64_t sim_run(struct sim *s, void (*tick)(struct sim *, void *), void *tick_arg,
                 uint64_t tick_every) {
    struct calq *q = &s->q;
    uint64_t n = 0, total = 0;
    uint64_t next_tick = tick_every && tick ? tick_every : UINT64_MAX;
    const struct event *e = NULL;
    if (s->stopped || s->after_event) goto careful;
    for (;;) {
        if (__builtin_expect(q->pos < q->lim, 1)) {
            e = &q->now[q->pos++];
        } else {
            if (s->stopped) goto done;
            e = calq_take_slow(q);
            if (!e) goto done;
            /* the bucket just reached (q->cur) holds every event until the next slow take */
            if (s->after_event || ((q->cur + 1) << CALQ_WIDTH_LOG2) - 1 > s->stop_ps) goto taken;
        }
        FS_DASSERT(e->time_ps >= s->now_ps, "time went back: %llu < %llu",
                   (unsigned long long)e->time_ps, (unsigned long long)s->now_ps);
        s->now_ps = e->time_ps;
        s->handlers[e->kind](s, e);
        if (__builtin_expect(++n == next_tick, 0)) {
            s->events_run += n;
            total += n;
            n = 0;
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
        if (++n == next_tick) {
            s->events_run += n;
            total += n;
            n = 0;
            tick(s, tick_arg);
        }
    }
done:
    s->events_run += n;
    return total + n;
}

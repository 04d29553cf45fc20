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

uint64_t sim_run(struct sim *s, void (*tick)(struct sim *, void *), void *tick_arg,
                 uint64_t tick_every) {
    uint64_t n = 0, total = 0;
    uint64_t next_tick = tick_every ? tick_every : UINT64_MAX;
    while (!s->stopped) {
        /* valid while the handler runs: pushes never move it */
        const struct event *e = calq_take(&s->q);
        if (!e) break; /* empty */
        if (e->time_ps > s->stop_ps) {
            calq_push(&s->q, *e); /* leave it for a later run */
            break;
        }
        FS_DASSERT(e->time_ps >= s->now_ps, "time went back: %llu < %llu",
                   (unsigned long long)e->time_ps, (unsigned long long)s->now_ps);
        s->now_ps = e->time_ps;
        s->handlers[e->kind](s, e);
        if (s->after_event) s->after_event(s, s->after_event_arg);
        if (++n == next_tick && tick) {
            s->events_run += n;
            total += n;
            n = 0;
            next_tick = tick_every;
            tick(s, tick_arg);
        }
    }
    s->events_run += n;
    return total + n;
}

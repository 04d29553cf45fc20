/* src/core/evq.h
 *
 * The event queue: a 4-ary min-heap of events ordered by (time_ps, entity,
 * seq), where seq is the scheduling entity's own counter (DESIGN.md rule 1).
 * Events are 24-byte values stored in the heap itself, so scheduling never
 * allocates once the heap has grown. Owned by struct sim; only core/sim.c
 * pushes and pops.
 */
#ifndef FABSIM_CORE_EVQ_H
#define FABSIM_CORE_EVQ_H

#include <stddef.h>
#include <stdint.h>

struct event {
    uint64_t time_ps; /* when it fires */
    uint64_t order;   /* tie-breaks: entity that scheduled it << 32 | that entity's own
                         counter (wraps after 4e9 events: ties that far apart in one
                         entity's history cannot share a time stamp) */
    uint32_t arg;     /* argument, usually an entity or object id */
    uint16_t kind;    /* handler index (sim_register) */
    uint16_t aux;     /* small argument */
};

static inline uint32_t event_entity(const struct event *e) {
    return (uint32_t)(e->order >> 32);
}

struct evq {
    struct event *heap;
    size_t len, cap;
};

void evq_init(struct evq *q, size_t cap_hint);
void evq_fini(struct evq *q);
void evq_push(struct evq *q, struct event e);  /* grows; aborts on OOM */
int evq_pop(struct evq *q, struct event *out); /* 0, or FS_EEMPTY */

static inline int evq_empty(const struct evq *q) {
    return q->len == 0;
}
static inline const struct event *evq_top(const struct evq *q) {
    return q->len ? &q->heap[0] : 0;
}

#endif /* FABSIM_CORE_EVQ_H */

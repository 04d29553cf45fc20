/* src/core/sim.h
 *
 * The simulation context: one clock, one event queue, the handler table and
 * per-entity sequence counters. Knows nothing of networks: models register
 * handlers by kind and keep their state behind `model`. Passed explicitly
 * everywhere (no globals), so tests can run several sims in one process.
 */
#ifndef FABSIM_CORE_SIM_H
#define FABSIM_CORE_SIM_H

#include "core/calq.h"
#include "core/time.h"

#include <stdbool.h>
#include <stdint.h>

struct sim;
typedef void (*sim_handler_fn)(struct sim *s, const struct event *e);

#define SIM_MAX_KINDS 32

struct sim {
    sim_time_ps now_ps;
    sim_time_ps stop_ps; /* events after this are not run */
    struct calq q;
    uint32_t *entity_seq; /* per-entity tie-break counters */
    uint32_t nentities;
    uint64_t events_run;
    bool stopped;
    sim_handler_fn handlers[SIM_MAX_KINDS];
    void *model; /* the network model (struct net) */
    /* Called after every event when set (tests: invariants checked at every
     * event); NULL in normal runs, costing nothing. Installed before sim_run
     * (a handler that installs it takes effect at the next run: the loop
     * tests it once, at its start). */
    void (*after_event)(struct sim *s, void *arg);
    void *after_event_arg;
};

void sim_init(struct sim *s, uint32_t nentities);
void sim_fini(struct sim *s);
void sim_register(struct sim *s, uint16_t kind, sim_handler_fn fn);

/* Schedules an event at absolute time `at_ps` (>= now) on behalf of `entity`. */
static inline void sim_at(struct sim *s, sim_time_ps at_ps, uint32_t entity, uint16_t kind,
                          uint32_t arg, uint16_t aux) {
    calq_push_fields(&s->q, at_ps, ((uint64_t)entity << 32) | s->entity_seq[entity]++, arg, kind,
                     aux);
}

/* Runs events until the queue is empty, sim_stop() is called, or the next
 * event lies past stop_ps. `tick` (may be NULL) is called every `tick_every`
 * events, for progress lines. Returns the number of events run. */
uint64_t sim_run(struct sim *s, void (*tick)(struct sim *, void *), void *tick_arg,
                 uint64_t tick_every);
static inline void sim_stop(struct sim *s) {
    s->stopped = true;
    s->q.lim = s->q.next; /* the next take goes to the slow path, where sim_run looks */
}

#endif /* FABSIM_CORE_SIM_H */

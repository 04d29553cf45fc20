#include "core/sim.h"
#include "core/sim_loop.h"

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
    return sim_run_warm(s, tick, tick_arg, tick_every, NULL);
}

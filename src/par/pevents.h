/* src/par/pevents.h
 *
 * The scenario events' times pending on a parallel run (par/pevents.c), for
 * par/par.c: each is a window boundary.
 */
#ifndef FABSIM_PAR_PEVENTS_H
#define FABSIM_PAR_PEVENTS_H

#include "core/time.h"

struct par;

void pev_add(struct par *P, sim_time_ps t);
/* The event at `t`, the first pending, runs. */
void pev_pop(struct par *P, sim_time_ps t);
/* The first pending, or SIM_TIME_NEVER. */
sim_time_ps pev_next(const struct par *P);

#endif /* FABSIM_PAR_PEVENTS_H */

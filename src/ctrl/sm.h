/* src/ctrl/sm.h
 *
 * The InfiniBand subnet manager (sm.c: sweeps, SMP accounting, LFT pushes
 * after failures; sm_route.c: routing engines and the channel dependency
 * graph, ctrl/sm_route.h; sm_dump.c: OpenSM's opensm-lfts.dump format,
 * written and read, ctrl/sm_dump.h). Its state, which all three share, is
 * in ctrl/sm_state.h.
 */
#ifndef FABSIM_CTRL_SM_H
#define FABSIM_CTRL_SM_H

struct net;
struct sm;

/* The running SM of a built model (NULL if none). */
struct sm *sm_of(struct net *n);

#endif /* FABSIM_CTRL_SM_H */

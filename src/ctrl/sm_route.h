/* src/ctrl/sm_route.h
 *
 * The subnet manager's routing engines and the channel dependency graph
 * check (ctrl/sm_route.c), over its state (ctrl/sm_state.h). Called by
 * ctrl/sm.c.
 */
#ifndef FABSIM_CTRL_SM_ROUTE_H
#define FABSIM_CTRL_SM_ROUTE_H

#include <stdbool.h>

struct net;
struct sm;
struct diag;

/* Routing: fills sm->next for `engine` over the live links; 0 or FS_E*. */
int sm_route_compute(struct net *n, struct sm *sm, int engine, struct diag *d);
/* Channel dependency graph of sm->next (the computed tables) over host-to-host
 * routes: acyclic? */
bool sm_cdg_check(struct net *n, struct sm *sm);

#endif /* FABSIM_CTRL_SM_ROUTE_H */

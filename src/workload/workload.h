/* src/workload/workload.h
 *
 * Turns the scenario's workload entries into queue pairs, messages and flow
 * rows (flows, permutation, incast, alltoall), and runs the open-loop Poisson
 * generators. Collectives are handed to coll/. Called by net/model.c.
 */
#ifndef FABSIM_WORKLOAD_WORKLOAD_H
#define FABSIM_WORKLOAD_WORKLOAD_H

struct net;
struct diag;
struct sim;
struct event;

int workload_build(struct net *n, struct diag *d);
void workload_fini(struct net *n);
/* After the run: completes the rows that summarise workloads (all-to-all). */
void workload_finish(struct net *n);
void workload_on_gen(struct sim *s, const struct event *e);

#endif /* FABSIM_WORKLOAD_WORKLOAD_H */

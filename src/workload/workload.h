/* src/workload/workload.h
 *
 * Turns the scenario's workload entries into queue pairs, messages and flow
 * rows (flows, permutation, incast, alltoall), and runs the open-loop Poisson
 * generators. Collectives are handed to coll/. Called by model/model.c.
 */
#ifndef FABSIM_WORKLOAD_WORKLOAD_H
#define FABSIM_WORKLOAD_WORKLOAD_H

#include "workload/wl_params.h"
#include "core/diag.h"
#include "core/time.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct net;
struct diag;
struct sim;
struct event;
struct topo_params;

/* Flows (connections; QPs for collectives) of all workload entries together
 * that a scenario may expand to (config/limits.h SC_MAX_FLOWS). */
#define WL_MAX_FLOWS 10000000ull

/* Ranks of collective entry `w` (its ranks times its jobs) on topology `t`,
 * saturating at UINT64_MAX. */
uint64_t workload_entry_ranks(const struct topo_params *t, const struct wl_entry *w);
/* Flows entry `w` expands to (QPs for collectives: two per rank and
 * channel) with `qps_per_connection` QPs per connection (transport), saturating
 * at UINT64_MAX. */
uint64_t workload_entry_flows(const struct topo_params *t, uint32_t qps_per_connection,
                              const struct wl_entry *w);

int workload_build(struct net *n, struct diag *d);
void workload_fini(struct net *n);
/* After the run: completes the rows that summarise workloads (all-to-all). */
void workload_finish(struct net *n);
void workload_on_gen(struct sim *s, const struct event *e);
/* Several ranks (par/par.c): reserves, on every rank alike, the message of
 * every arrival the Poisson sources will make up to until_ps (their events
 * draw the same streams), so that the ids agree across ranks; each source's
 * events then make their reserved messages on the sender's rank. Returns
 * how many. */
uint32_t workload_pregen(struct net *n, sim_time_ps until_ps);
/* How many of them this rank made so far (results.json parallel.messages_posted). */
uint64_t workload_pregen_made(const struct net *n);
/* The Poisson sources: how many, and source i's sending node. */
uint32_t workload_gens(const struct net *n);
uint32_t workload_gen_src(const struct net *n, uint32_t i);

#endif /* FABSIM_WORKLOAD_WORKLOAD_H */

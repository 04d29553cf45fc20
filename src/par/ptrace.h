/* src/par/ptrace.h
 *
 * --pcap and --trace on several ranks (par/ptrace.c): every rank records its
 * events' trace hooks; rank 0 replays them, merged in the order one process
 * calls them, into the sinks it opened.
 */
#ifndef FABSIM_PAR_PTRACE_H
#define FABSIM_PAR_PTRACE_H

#include <stdint.h>

struct net;

/* After par_setup, on every rank: n->trace (rank 0: the sinks; elsewhere
 * none) is set aside and the hooks are recorded, at most `budget` per rank. */
void par_trace_start(struct net *n, uint64_t budget);
/* After the merge, on every rank (par_run): rank 0 replays every rank's
 * records into its sinks and gives them back to n->trace. 1 (every rank)
 * when a rank went over its budget: nothing was replayed. */
int par_trace_finish(struct net *n);

#endif /* FABSIM_PAR_PTRACE_H */

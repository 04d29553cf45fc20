/* src/net/stuck.h
 *
 * Diagnosis of a run that cannot finish (issue 17): when no packet has been
 * delivered for STUCK_AFTER (10 ms of simulated time, or 4 transport
 * timeouts if longer) while some queue pair still has unacknowledged data,
 * nothing is scheduled that could change the fabric (a scenario event, the
 * control plane reacting) and no host is stalled, the run ends with the
 * reason: which flows wait and on what (deadlock, link down, no route,
 * paused, credit-stalled). It only names the state; transport semantics
 * (retries, timeouts) are the NIC's. results.json: summary.stuck.
 */
#ifndef FABSIM_NET_STUCK_H
#define FABSIM_NET_STUCK_H

#include "core/time.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct net;
struct sim;
struct event;
struct jw;

#define STUCK_CHECK_PS (1000 * PS_PER_US)  /* look every 1 ms */
#define STUCK_AFTER_PS (10000 * PS_PER_US) /* 10 ms without a delivery */
/* struct stuck_info (net.stuck, what this finds) is in net/net.h. */

void stuck_start(struct net *n);
void stuck_fini(struct net *n);
void stuck_on_event(struct sim *s, const struct event *e);
/* When the next check is due (SIM_TIME_NEVER: none). */
sim_time_ps stuck_next_ps(const struct net *n);
/* summary.stuck: null, or {at_ns, since_ns, reason, waiting, flows: [...]} */
void stuck_write(const struct net *n, struct jw *w);
void stuck_print(const struct net *n, FILE *f);

#endif /* FABSIM_NET_STUCK_H */

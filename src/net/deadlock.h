/* src/net/deadlock.h
 *
 * The deadlock detector shared by credit (InfiniBand) and PFC (RoCEv2)
 * fabrics. Every `interval` it looks for ports that hold waiting packets but
 * sent nothing since the last look ("stuck"), links stuck port p (A->B) to
 * stuck port q of B when q holds packets that entered B through p's link
 * (p waits for q to drain B's buffer), and reports a cycle in that wait-for
 * graph: summary.deadlock {detected, at_ns, cycle}. The run then stops,
 * unless a PFC watchdog is on (pfc.watchdog): then the run goes on while the
 * watchdog can still break the cycle, and stops only when cycles have been
 * found for longer than the watchdog interval plus one look.
 */
#ifndef FABSIM_NET_DEADLOCK_H
#define FABSIM_NET_DEADLOCK_H

#include "core/time.h"

#include <stdint.h>

struct net;
struct sim;
struct event;

/* Starts periodic checks every `interval_ps` (0 = off). */
void deadlock_start(struct net *n, sim_time_ps interval_ps);
void deadlock_fini(struct net *n);
/* One check now; returns 1 if a deadlock was found (and recorded). */
int deadlock_check(struct net *n);
void deadlock_on_event(struct sim *s, const struct event *e);
/* When the next look is due (SIM_TIME_NEVER: none). */
sim_time_ps deadlock_next_ps(const struct net *n);

#endif /* FABSIM_NET_DEADLOCK_H */

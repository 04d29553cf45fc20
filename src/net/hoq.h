/* src/net/hoq.h
 *
 * InfiniBand head-of-queue lifetime and VL-stall discards at switch ports
 * (IBA 18.2.5.4; OpenSM defaults, docs/sources.md A12). Only with credit flow
 * control on an InfiniBand fabric.
 */
#ifndef FABSIM_NET_HOQ_H
#define FABSIM_NET_HOQ_H

#include "core/time.h"

struct net;
struct sim;
struct event;

void hoq_start(struct net *n);
void hoq_fini(struct net *n);
void hoq_on_event(struct sim *s, const struct event *e);
/* The longest finite lifetime in use (0 = none): what a credit deadlock
 * lasts at most before discards break it. */
/* When the pending scan is due (SIM_TIME_NEVER: none; a window boundary of
 * parallel runs, par/par.c). */
sim_time_ps hoq_next_ps(const struct net *n);
sim_time_ps hoq_max_lifetime(const struct net *n);

#endif /* FABSIM_NET_HOQ_H */

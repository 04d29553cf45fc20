/* src/par/pcoll.h
 *
 * Collectives on several ranks (docs/parallel.md). The state of a collective
 * (calls, their transfers and dependencies, ring segments, SHARP runs, jobs)
 * is every rank's: each rank runs the same transitions of it, in the order
 * one process runs them, so message, QP, timer and SHARP run ids agree on
 * every rank. Its inputs are events of one rank (a message received at its
 * receiver, a member's whole SHARP result): that rank records them, and at
 * the window's end every rank applies every rank's records, and the
 * collective's own timers of the window, in (time, event key) order. Its
 * outputs that act on the network (a message posted at its sender, a member
 * starting its SHARP chunks) come at least the post overhead later, which
 * bounds the window (the lookahead): they are events of the acting node's
 * rank, dropped elsewhere. Called by coll/coll.c and innet/innet.c (records,
 * scheduling) and par/par.c (the window's end).
 */
#ifndef FABSIM_PAR_PCOLL_H
#define FABSIM_PAR_PCOLL_H

#include "core/evq.h"
#include "core/time.h"

#include <stdbool.h>
#include <stdint.h>

struct net;
struct diag;

enum pcoll_rec { PCOLL_RECV = 1, PCOLL_INNET = 2, PCOLL_FAILED = 3, PCOLL_FREE = 4 };

/* A collective's input met on this rank, during the current event. */
void pcoll_record(struct net *n, uint32_t kind, uint32_t a, uint32_t b, uint32_t c);
/* An event the collective engine schedules: `node` NET_NONE for its own
 * timers (every rank, applied at the window's end), else the node that acts
 * (kept on its rank only; a message posted elsewhere is not this rank's work). */
void pcoll_sched(struct net *n, struct event e, uint32_t node);

/* net.on_msg_release on several ranks: a collective's message acknowledged
 * at its sender (a record: every rank frees its slot at the window's end, in
 * the records' order, so the ids later messages get agree on every rank).
 * The workloads' messages, made before the run, are kept: the results'
 * merge reads each from its sender's and its receiver's rank. */
void pcoll_msg_release(struct net *n, uint32_t msg);

/* A SHARP start or aggregation pending on this rank (it will send packets):
 * this rank's work until its event runs (coll.c, innet.c). */
void pcoll_local_add(struct net *n);
void pcoll_local_done(struct net *n);

/* Stops a run on several ranks that met, at a transition every rank makes
 * alike, what they cannot do yet (par_refuse: exit 2, "not yet supported
 * with N>1 ranks: what"). */
void pcoll_refuse(struct net *n, const char *what);

/* Whether this rank owns `node`. */
bool pcoll_mine(const struct net *n, uint32_t node);

/* par.c */
/* Takes the collectives' start events out of the queue (they are every
 * rank's), checks what runs and gives the lookahead the collectives allow
 * (the least post overhead); 0 or FS_ENOTSUP. */
int pcoll_setup(struct net *n, sim_time_ps *lookahead_ps, struct diag *d);
void pcoll_fini(struct net *n);
/* Jobs not yet finished (every rank holds them in work_pending). */
uint32_t pcoll_held(const struct net *n);
/* The next window may begin no later than this: the collectives' earliest
 * timer, or the earliest action (a post, a SHARP start: on some rank) they
 * scheduled since the last call. Every rank agrees. */
sim_time_ps pcoll_next_ps(struct net *n);
/* Bytes of records this rank holds for the window's end. */
uint64_t pcoll_rec_bytes(const struct net *n);
/* The window's end: exchanges the records (rec_bytes[r] from rank r) and
 * applies them with the timers before wend. Returns the messages created
 * (work on their senders' ranks); *zt, *zo: the key at which the last job
 * finished, if one did. */
uint64_t pcoll_replay(struct net *n, const uint64_t *rec_bytes, size_t stride, sim_time_ps wend,
                      uint64_t *zt, uint64_t *zo);
/* The last time the replay reached. */
sim_time_ps pcoll_last_ps(const struct net *n);

#endif /* FABSIM_PAR_PCOLL_H */

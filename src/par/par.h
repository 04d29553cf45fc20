/* src/par/par.h
 *
 * One simulation on several processes (ranks): conservative, windowed
 * synchronisation (YAWNS, Nicol 1993). Every rank builds the whole model (the
 * build is a deterministic function of the scenario), owns the nodes the
 * partition (par/part.c) gives it, and runs only their events. A packet put on
 * a cut link (port.remote) leaves its rank as a message and joins the link's
 * wire FIFO on the receiving rank at the next window boundary; it cannot be
 * late, because a window is as long as the smallest delay of a cut link (the
 * lookahead). Link arrivals are keyed by (time, sending node, port), not by
 * a counter (net_arrive_at), so ties order exactly as in one process; results are
 * merged on rank 0 entity by entity from their owners: results.json and
 * links.csv are byte-identical to the sequential run's (wall_s and the
 * `parallel` object aside). The engine talks through struct comm (par/comm.h)
 * only. Called by cli/run.c and net/port.c (par_out), net/deadlock.c.
 */
#ifndef FABSIM_PAR_PAR_H
#define FABSIM_PAR_PAR_H

#include "core/time.h"
#include "par/comm.h"
#include "par/pmerge.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct model;
struct net;
struct diag;
struct jw;
struct packet;
struct pcoll;
struct ptrace;

/* Packets put on cut links towards one rank, by value, each with its port in
 * `next` (a packet in transit is on no list). */
struct par_box {
    struct packet *v;
    size_t len, cap;
};

/* Times in order, from `head` on still pending (par/pevents.c). */
struct par_times {
    sim_time_ps *t;
    size_t head, len, cap;
};

struct par {
    struct comm comm;
    const uint16_t *owner; /* rank of every node: n->part_owner, or owner_own */
    uint16_t *owner_own;   /* made by par_setup for a model built for one process */
    uint32_t ncut;         /* directed links between ranks */
    sim_time_ps lookahead_ps, min_cut_ps;
    bool forced;         /* lookahead given (tests, measurements): windows even with no cut link */
    struct par_box *out; /* per destination rank: packets put on cut links */
    sim_time_ps out_min_ps; /* earliest arrival among them */
    uint64_t transit;       /* of them, packets counted in pkts_in_flight */
    sim_time_ps wend_ps;    /* end of the current window (exclusive) */
    bool dl_stop;           /* a deadlock or stuck check stopped the run */
    const char *refused;    /* met at run time something several ranks cannot do yet */
    struct par_times sc;    /* scenario events pending: window boundaries (par/pevents.c) */
    uint32_t nwarn0;        /* warnings of the build (the same on every rank) */
    int csv_rank;           /* holds the merged links.csv rows and writes the file */
    struct ptrace *tr;      /* --pcap/--trace: the hooks recorded (par/ptrace.c) */
    uint64_t cur_t, cur_o;  /* the event running: its key */
    uint32_t cur_links;     /* link trace hooks it called so far */
    struct par_keys wkeys;  /* run-time warnings' event keys (par/pmerge.c) */
    struct par_keys qkeys;  /* QP errors' event keys */
    /* statistics (results.json `parallel`) */
    uint64_t windows, rounds, msgs, msg_bytes;
    uint64_t crit_events;    /* sum over windows of the busiest rank's events */
    uint64_t pre_made;       /* reserved Poisson messages made, summed (rank 0 after the run) */
    uint64_t *events;        /* per rank (rank 0 after the run) */
    double sync_s;           /* wall seconds this rank spent in the window collectives */
    double *sync;            /* per rank (rank 0 after the run) */
    double *work_cpu;        /* per rank: CPU seconds of the run outside the collectives */
    uint32_t *nodes, *hosts; /* per rank */
    /* collectives (par/pcoll.c): NULL without them */
    struct pcoll *coll;
    int64_t coll_adj; /* added to this rank's share: SHARP starts pending - jobs' holds */
};

/* Checks that the scenario's features work on comm->size ranks (exit-2
 * message "not yet supported with N>1 ranks: ..." otherwise), partitions the
 * model, marks the cut links and drops the events other ranks own. A
 * lookahead_ps other than 0 overrides the computed one (tests: a wrong
 * lookahead must be caught). 0 or FS_ENOTSUP. */
int par_setup(struct model *m, const struct comm *c, sim_time_ps lookahead_ps, struct diag *d);
/* Runs to the end; on rank 0 the model then holds the merged results. 0, or
 * FS_ENOTSUP when the run met, at run time, something several ranks cannot do
 * yet (par->refused says what; every rank stops at the same event). */
int par_run(struct model *m);
/* Stops the run on every rank (called at a check that runs on all of them). */
void par_refuse(struct net *n, const char *what);
void par_fini(struct net *n);

/* start_tx on a cut link: the packet leaves for the receiving rank. */
void par_out(struct net *n, uint32_t port, uint32_t id);

/* A scenario event scheduled at run time (model/model.c: a gray link's
 * detection, a flap's next phase): its time is a window boundary. Nothing on
 * one process. */
void par_sc_scheduled(struct net *n, sim_time_ps t);
/* Does this rank run node `node`'s events (true on one process)? */
bool par_mine(const struct net *n, uint32_t node);

/* The rank that writes links.csv (cli/run.c) and holds its rows after the
 * run: the last one, while rank 0 writes results.json (0 on one rank, and
 * with --pcap/--trace, whose trace reads the rows on rank 0). */
int par_csv_rank(const struct net *n);

/* Every rank, after par_run: writes DIR/results.json (rank 0) and
 * DIR/links.csv (par_csv_rank) as results_write_dir does, both or neither
 * (par/pwrite.c). 0, or on the rank that failed FS_EINVAL (no folder) or
 * FS_EINTERNAL (a write failed), with `d` set. */
int par_write_dir(const struct model *m, const char *dir, struct diag *d);

/* The partition, for --verbose (rank 0). */
void par_print(const struct model *m, FILE *f, bool verbose);
/* results.json "parallel" (nothing when n->par is NULL). */
void par_write_json(const struct net *n, struct jw *w);

/* For net/deadlock.c, at a check (a window boundary on every rank): ORs
 * `len` bytes over the ranks; gathers the wait-for edges of every rank, in
 * the order one process would list them; sums a counter. */
void par_or_bytes(struct net *n, uint8_t *b, size_t len);
uint32_t par_gather_edges(struct net *n, uint32_t **eu, uint32_t **eq, uint32_t nedges);
uint64_t par_sum_u64(struct net *n, uint64_t v);
uint64_t par_min_u64(struct net *n, uint64_t v);
/* net/stuck.c, the run declared stuck (every rank): the flows each rank
 * named, merged in QP order, the first STUCK_MAX_LISTED; the waiting summed. */
struct stuck_info;
void par_gather_stuck(struct net *n, struct stuck_info *si);

#endif /* FABSIM_PAR_PAR_H */

/* src/coll/coll.h
 *
 * Collective communication (NCCL-like) carried by the transport as real
 * messages: every collective call is a schedule (a dependency graph) of
 * point-to-point transfers between ranks, chunked and pipelined the way NCCL
 * cuts its buffers (channels, slices). A transfer is posted on the queue pair
 * of its (channel, src, dst) connection once the transfers it depends on have
 * been received; the call ends when the last one is received. In-network
 * reductions (SHARP, NVLS) are transfers handed to innet/.
 * Rows for results.json go to n->coll_rows.
 */
#ifndef FABSIM_COLL_COLL_H
#define FABSIM_COLL_COLL_H

#include "coll/coll_params.h"
#include "core/evq.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct net;
struct diag;
struct sim;
struct event;
struct wl_entry;

/* A collective call is cut into transfers of at most a slice (512 KiB by
 * default; 32 KiB with the LL protocol) per ring step, and the schedule
 * numbers them in 31 bits: at most COLL_MAX_TRANSFERS transfers per call
 * (docs/outputs.md "Limits"). */
#define COLL_MAX_TRANSFERS ((1ull << 31) - (1ull << 24))
/* The largest bytes of one call of collective `opkind` (WL_ALLREDUCE...)
 * among `nranks` ranks on `channels` channels (0: the default) with slices
 * of `slice_bytes` (0: the default) that stays within COLL_MAX_TRANSFERS;
 * UINT64_MAX when any size does. config/ refuses larger sizes. */
uint64_t coll_max_call_bytes(int opkind, uint64_t nranks, uint32_t channels, uint64_t slice_bytes,
                             enum coll_proto proto);

/* Adds the collective (or training) workload entry `idx` (called by workload/). */
int coll_add(struct net *n, const struct wl_entry *w, size_t idx, struct diag *d);
void coll_on_event(struct sim *s, const struct event *e);
void coll_fini(struct net *n);

/* A run split over ranks (par/pcoll.c registers it; none on one process):
 * the engine's state is every rank's and runs alike everywhere, so what
 * one rank observes (a receive, a failed message) is recorded and applied by
 * every rank at the window's end, and events keyed as one process keys them
 * go through the runner. */
struct coll_dist_ops {
    void (*sched)(struct net *n, struct event e, uint32_t node);
    bool (*mine)(const struct net *n, uint32_t node); /* this rank runs `node` */
    void (*refuse)(struct net *n, const char *what);
    void (*record_recv)(struct net *n, uint32_t msg);
    void (*record_failed)(struct net *n, uint32_t msg);
    /* a SHARP start or aggregation timer of this rank has run */
    void (*local_done)(struct net *n);
};
void coll_set_dist(struct net *n, const struct coll_dist_ops *ops);

/* Names of results.json "collectives" rows: enum wl_kind, enum coll_algo; "?" out of range. */
const char *coll_op_name(int op);
const char *coll_algo_name(int algo);

/* innet/ reports that member `member` of in-network transfer `xfer` of
 * collective call `op` has received the whole reduced result. */
void coll_innet_done(struct net *n, uint32_t op, uint32_t xfer);

/* The nccl-tests table for the collective workloads of the run. */
void coll_print_table(const struct net *n, FILE *f);
/* results.json "nccl_tests" array: one object per size of each nccl_tests
 * entry, out-of-place and in-place (docs/outputs.md). */
struct jw;
void coll_write_nccl_tests(const struct net *n, struct jw *w);
/* fabsim's busbw per size, to put beside a measured nccl-tests log
 * (coll/nccllog.h): the out-of-place columns of the first nccl_tests entry,
 * or else the mean per size of the first collective entry. `op` is
 * nccl-tests' name (all_reduce ...); NULL when the run has neither. */
struct coll_point {
    uint64_t size_bytes;
    double time_us, busbw_GBps; /* time < 0: the call did not complete */
};
const char *coll_points(const struct net *n, struct coll_point **pts, size_t *npts,
                        uint32_t *ranks);

/* What the Chrome trace (stats/ctrace.c) draws of the engine, recorded only
 * while a trace sink is attached (n->trace). */
enum coll_compute_label {
    COMP_CHAKRA, /* a Chakra COMP_NODE: named by the trace */
    COMP_FORWARD,
    COMP_BACKWARD,
    COMP_EXPERT,  /* kind: moe: the experts' FFN of a layer */
    COMP_DENSE,   /* kind: moe: the layer's attention and dense part */
    COMP_PREFILL, /* kind: inference */
    COMP_DECODE,
    COMP_NLABELS
};
struct coll_compute { /* one compute delay on a rank */
    uint32_t node;    /* the rank's endpoint node id */
    const char *name; /* static, or the Chakra trace's (valid until coll_fini) */
    uint64_t start_ps, dur_ps;
};
const struct coll_compute *coll_compute_rows(const struct net *n, size_t *count);
/* The message whose receive made the engine post message `msg` (a ring's
 * next step, a relay's forward, the next call after the last receive of the
 * one before), or NET_NONE: a root, a compute delay's end, not recorded. */
uint32_t coll_msg_cause(const struct net *n, uint32_t msg);

/* results.json "chakra" object: per-iteration and per-collective timings of
 * the Chakra trace entries (docs/outputs.md); {} when none. */
void coll_write_chakra(const struct net *n, struct jw *w);
/* results.json "moe" and "inference" arrays (coll/moe.c, coll/infer.c;
 * docs/outputs.md): nothing written when the run has none. */
void coll_write_moe(const struct net *n, struct jw *w);
void coll_write_inference(const struct net *n, struct jw *w);
/* results.json "training" array (NULL-safe: writes [] when none). */
struct jw;
void coll_write_training(const struct net *n, struct jw *w);
/* results.json "jobs": per collective job, abort time, stall, retries and
 * whether NCCL's older timeout exponent 18 would have aborted it. */
void coll_write_jobs(const struct net *n, struct jw *w);

/* NCCL's own alpha-beta estimate (tuning.cc ncclTopoGetAlgoTime, Simple
 * protocol; docs/sources.md B) of a collective of `bytes` on `nranks` ranks over
 * `nnodes` hosts, with per-rank network bandwidth `bw_bps`; microseconds.
 * algo: enum coll_algo; op: enum wl_kind. Returns a huge value when the
 * algorithm does not apply. The tree's bandwidth term is 0.92 x 0.5 x bw,
 * x 0.85 more with one rank per host (NCCL's TREE graph pattern); NCCL's
 * size correction table (treeCorrectionFactor) is left out. */
double coll_nccl_time_us(int op, int algo, uint64_t bytes, uint32_t nranks, uint32_t nnodes,
                         uint64_t bw_bps, uint64_t nvlink_bps);

#endif /* FABSIM_COLL_COLL_H */

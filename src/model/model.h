/* src/model/model.h
 *
 * One simulation run: builds the network for a validated scenario (topology,
 * forwarding, policies, workload, scheduled events), runs it to completion or
 * to the stop time, and keeps the state that stats/results.c reports. This is
 * the library's entry point for the CLI and for in-process tests.
 */
#ifndef FABSIM_MODEL_MODEL_H
#define FABSIM_MODEL_MODEL_H

#include "core/sim.h"
#include "net/net.h"
#include "net/params.h"
#include "model/sampler.h"

struct diag;

struct nccl_log;

struct model {
    const struct model_params *sc; /* = &params */
    struct model_params params;    /* copied by model_build_params */
    struct sim sim;
    struct net net;
    struct sampler sampler;
    double wall_s; /* wall-clock seconds of model_run (stats only) */
    bool completed;
    int interrupted; /* the signal (SIGINT, SIGTERM) that ended the run, or 0 */
    /* `run --against FILE`: a measured nccl-tests log (coll/nccllog.h) the
     * results put beside fabsim's table; NULL without. Owned by the caller. */
    const struct nccl_log *against;
};

typedef void (*model_progress_fn)(const struct model *m, void *arg);

/* 0, or a negative FS_E* with `d` filled (unknown link in an event, a
 * mechanism not implemented yet, ...). model_fini is safe after a failure.
 * `p` is copied; what it points to must outlive the model. From a scenario:
 * config/scenario.h model_build. */
int model_build_params(struct model *m, const struct model_params *p, struct diag *d);
/* The same build for rank `rank` of `nranks` (a run split over processes,
 * par/): the partition (model/part.c) is made right after the topology, and
 * what a rank reads only for its own switches and ports is built for those
 * alone (n->part_owner; docs/parallel.md "Memory"). nranks <= 1: one
 * process, as model_build_params. */
int model_build_part(struct model *m, const struct model_params *p, uint32_t rank, uint32_t nranks,
                     struct diag *d);
/* Runs to completion (or stop). `progress` may be NULL. */
void model_run(struct model *m, model_progress_fn progress, void *arg);
void model_fini(struct model *m);
/* After the last event (model_run, par_run): completion, the workload's and
 * the control plane's rows, the trace's end. */
void model_finish(struct model *m);

/* Fraction of the workload done, for progress lines: bytes delivered of those
 * posted and those the collectives' schedules will still post. */
double model_progress(const struct model *m);

#endif /* FABSIM_MODEL_MODEL_H */

/* src/coll/coll_params.h
 *
 * The collectives' parameters, plain data: what a workload entry
 * (workload/wl_params.h) names. Kept apart from the engine (coll/coll.h) so
 * the workload's parameters and the engine do not include each other.
 */
#ifndef FABSIM_COLL_COLL_PARAMS_H
#define FABSIM_COLL_COLL_PARAMS_H

/* Parameters: config/ fills them from the scenario (docs/scenario.md); the
 * module reads them and never includes config/. */
enum coll_algo {
    ALGO_RING,
    ALGO_TREE,
    ALGO_HALVING_DOUBLING,
    ALGO_SHARP,
    ALGO_NVLS,
    ALGO_AUTO,
    ALGO_HIERARCHICAL, /* multi-GPU hosts: NVLink RS, per-rail AllReduce, NVLink AG */
};
/* NCCL protocols (docs/sources.md B); PROTO_AUTO: the fastest by fabsim's own
 * per-step cost and wire overhead (coll/algos.c proto_pick) */
enum coll_proto { PROTO_SIMPLE, PROTO_LL, PROTO_LL128, PROTO_AUTO };

#endif /* FABSIM_COLL_COLL_PARAMS_H */

/* src/coll/names.c
 *
 * The names results.json, the nccl-tests table and the Chakra reader give
 * collective operations and algorithms (docs/outputs.md).
 */
#include "coll/coll.h"

#include "coll/coll_int.h"
#include "core/jw.h"
#include "workload/wl_params.h"

const char *coll_op_name(int op) {
    switch (op) {
    case WL_ALLREDUCE:
        return "allreduce";
    case WL_ALLGATHER:
        return "allgather";
    case WL_REDUCESCATTER:
        return "reducescatter";
    case WL_BROADCAST:
        return "broadcast";
    case WL_ALLTOALL:
        return "alltoall";
    default:
        return "?";
    }
}

void coll_jw_span(struct jw *w, const char *k, sim_time_ps from, sim_time_ps to) {
    jw_key(w, k);
    if (from == SIM_TIME_NEVER || to == SIM_TIME_NEVER || to < from)
        jw_null(w);
    else
        jw_num(w, time_ps_to_ns(to - from));
}

const char *coll_algo_name(int a) {
    static const char *const names[] = {"ring", "tree", "halving_doubling", "sharp",
                                        "nvls", "auto", "hierarchical"};
    return a >= 0 && a <= ALGO_HIERARCHICAL ? names[a] : "?";
}

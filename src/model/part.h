/* src/model/part.h
 *
 * The partition of a built topology over the ranks of a parallel run:
 * owner[node] = rank. Pure function of the topology (every rank computes the
 * same one). Computed by the model build right after the topology
 * (model/model.c, model_build_part), so that the tables a rank reads only for
 * its own switches and ports are built for those alone (docs/parallel.md
 * "Memory"); par/par.c runs the partition it finds there.
 */
#ifndef FABSIM_MODEL_PART_H
#define FABSIM_MODEL_PART_H

#include <stdint.h>

struct net;

/* owner: n->nnodes entries, filled with ranks in [0, nranks). */
void part_build(const struct net *n, uint32_t nranks, uint16_t *owner);

#endif /* FABSIM_MODEL_PART_H */

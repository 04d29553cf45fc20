/* src/par/part.h
 *
 * The partition of a built topology over the ranks of a parallel run:
 * owner[node] = rank. Pure function of the topology (every rank computes the
 * same one). Called by par/par.c only.
 */
#ifndef FABSIM_PAR_PART_H
#define FABSIM_PAR_PART_H

#include <stdint.h>

struct net;

/* owner: n->nnodes entries, filled with ranks in [0, nranks). */
void part_build(const struct net *n, uint32_t nranks, uint16_t *owner);

#endif /* FABSIM_PAR_PART_H */

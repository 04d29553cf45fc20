/* src/par/comm.h
 *
 * What a parallel run needs from its message-passing library, as a table of
 * collectives over byte buffers. cli/main_mpi.c fills it with MPI (the only file
 * that includes mpi.h, built into build/fabsim-mpi by `make mpi`); tests fill
 * it with a one-rank table (par_comm_self). The engine (par/par.c) only ever
 * calls these, in the same order on every rank.
 */
#ifndef FABSIM_PAR_COMM_H
#define FABSIM_PAR_COMM_H

#include <stddef.h>

struct comm_ops {
    /* Every rank gives `bytes` bytes; `out` gets size * bytes, in rank order. */
    void (*allgather)(void *ctx, const void *in, size_t bytes, void *out);
    /* Rank r gets scount[r] bytes of `in` (blocks back to back in rank
     * order); `out` receives rcount[r] bytes from each rank r, back to back. */
    void (*alltoallv)(void *ctx, const void *in, const size_t *scount, void *out,
                      const size_t *rcount);
};

struct comm {
    int rank, size;
    const struct comm_ops *ops;
    void *ctx;
};

/* One process, no library: the table a sequential test uses to drive the
 * parallel engine with one rank. */
void par_comm_self(struct comm *c);

#endif /* FABSIM_PAR_COMM_H */

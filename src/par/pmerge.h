/* src/par/pmerge.h
 *
 * Rows a parallel run's ranks append while they run (results.json warnings
 * and qp_errors), merged on rank 0 in the order one process appends them
 * (par/pmerge.c). For par/par.c.
 */
#ifndef FABSIM_PAR_PMERGE_H
#define FABSIM_PAR_PMERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct par;
struct net;
struct event;

/* The event key a row was appended at (par/pmerge.c). */
struct par_key {
    uint64_t t, o;
};

struct par_keys {
    struct par_key *v;
    size_t len, cap;
};

/* After the event of key (t, o) ran: the warnings from index w0 and the QP
 * errors from index q0 on are its rows. A replicated event's rows are rank
 * 0's only. */
void pmerge_tag(struct net *n, uint64_t t, uint64_t o, uint32_t w0, uint32_t q0, bool replicated);
/* Every rank: rank 0 gets every rank's rows, in the sequential order. */
void pmerge_rows(struct net *n);
/* Every rank gives `bytes` bytes; returns every rank's, back to back in rank
 * order (`sizes`: each rank's byte count). */
void *pmerge_allgatherv(struct par *P, const void *in, uint64_t bytes, uint64_t *sizes);
/* The same, to rank `root` only (NULL elsewhere). */
void *pmerge_gather(struct par *P, int root, const void *in, uint64_t bytes, uint64_t *sizes);

#endif /* FABSIM_PAR_PMERGE_H */

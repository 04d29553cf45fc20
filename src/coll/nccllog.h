/* src/coll/nccllog.h
 *
 * A measured nccl-tests log (all_reduce_perf & co., the output of
 * NVIDIA/nccl-tests) read back, to put beside fabsim's table (`fabsim run
 * --against FILE`, docs/inputs.md) and to fit a cluster's alpha and beta
 * from it (`fabsim fit FILE`). Called by cli/ and stats/results.c.
 */
#ifndef FABSIM_COLL_NCCLLOG_H
#define FABSIM_COLL_NCCLLOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct diag;
struct net;
struct jw;

/* One size of the table: [0] out-of-place, [1] in-place (time < 0: absent). */
struct nccl_log_row {
    uint64_t size_bytes, count;
    double time_us[2], algbw_GBps[2], busbw_GBps[2];
};

struct nccl_log {
    char *path;
    char op[32];     /* "all_reduce" from "all_reduce_perf", "" when the log does not say */
    uint32_t nranks; /* "#  Rank" lines, 0 when there are none */
    uint32_t ngpus;  /* "# nThread T nGpus G": G, 0 when absent */
    struct nccl_log_row *rows;
    size_t nrows;
};

/* Reads `path`: the lines of nccl-tests' table (2.13 and later: size count
 * type redop root time algbw busbw #wrong, twice; 2.10: no root column,
 * `error` for #wrong), each possibly behind an mpirun tag ("[1,0]<stdout>:"),
 * among any other lines (NCCL INFO, the preamble). 0, or FS_EINVAL /
 * FS_ENOENT with `d` (file:line of what is wrong; no row at all). */
int nccl_log_read(struct nccl_log *l, const char *path, struct diag *d);
void nccl_log_fini(struct nccl_log *l);

/* After a run: the table of fabsim's busbw beside the log's, per size both
 * have, with the ratio fabsim / measured (coll_points). */
void nccl_log_print_against(const struct nccl_log *l, const struct net *n, FILE *f);
/* results.json "against": {file, op, ranks, fabsim_op, fabsim_ranks, rows:
 * [{size, measured_time_us, measured_busbw_GBps, fabsim_time_us,
 * fabsim_busbw_GBps, ratio}]} over the log's sizes (fabsim's null where it
 * did not run that size). */
void nccl_log_write_json(const struct nccl_log *l, const struct net *n, struct jw *w);

/* The fit behind `fabsim fit`: t(S) = alpha + S / algbw_max by least squares
 * on the out-of-place rows, weighted by 1 / t^2 (each size counts by its
 * relative error, so 8 B and 8 GiB weigh alike). */
struct nccl_fit {
    double alpha_us;    /* latency: the time of a call of 0 bytes */
    double algbw_GBps;  /* the asymptote of algbw: bytes / (t - alpha) */
    double busbw_GBps;  /* algbw x the op's bus factor on `nranks` */
    double max_rel_err; /* over the rows used */
    size_t nused;
};
/* 0, or -1 when fewer than 2 rows have a time. `nranks` for the bus factor. */
int nccl_log_fit(const struct nccl_log *l, uint32_t nranks, struct nccl_fit *fit);
/* nccl-tests' bus factor of `op` ("all_reduce": 2(n-1)/n ...; 1 when unknown). */
double nccl_busfactor(const char *op, uint32_t nranks);

#endif /* FABSIM_COLL_NCCLLOG_H */

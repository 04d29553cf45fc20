/* src/model/sampler.h
 *
 * Periodic per-link samples for links.csv and the report's timelines: bytes,
 * busy time, paused time per interval and the queue at the sample instant.
 * In automatic mode the interval starts at 1 us and doubles (pairs of samples
 * merged) whenever the table fills, so memory stays bounded whatever the run
 * length. Owned by model/model.c.
 */
#ifndef FABSIM_MODEL_SAMPLER_H
#define FABSIM_MODEL_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/time.h"

struct net;
struct sim;
struct event;

struct sample {
    uint32_t bytes;     /* wire bytes sent in the interval */
    uint32_t busy_ns;   /* transmitter busy time in the interval */
    uint32_t paused_ns; /* time paused (PFC) or stalled for credits */
    uint32_t q_bytes;   /* waiting bytes at the end of the interval (max over merged) */
};

struct sampler {
    sim_time_ps interval_ps;
    /* DCQCN runs: the current rate R_C of the first SAMPLER_CC_QPS QPs at each
     * sample (Gbit/s; < 0 before the QP exists), for results.json "cc_rates".
     * Pairs merge like the link rows (the later sample is kept). */
    float *cc_rows;   /* cap x SAMPLER_CC_QPS, NULL unless DCQCN */
    uint32_t cc_nqps; /* most QPs seen at a sample, at most SAMPLER_CC_QPS */
    bool automatic;
    uint32_t nports;
    /* A parallel run's rank samples its own ports only (par/par.c): row slot
     * k is port port_of[k] (increasing); NULL: slot p is port p. */
    uint32_t *port_of;
    uint32_t n, cap;     /* samples taken; rows allocated */
    struct sample *rows; /* n x nports */
    uint64_t *last_bytes, *last_busy, *last_paused;
    sim_time_ps last_ps;
};

#define SAMPLER_AUTO_ROWS 64             /* 16 B per link per row: ~6 KB per host on a fat tree */
#define SAMPLER_AUTO_START_PS 1000000ULL /* 1 us */
#define SAMPLER_CC_QPS 16                /* senders drawn in the report's DCQCN rate chart */

void sampler_init(struct sampler *sp, const struct net *n, sim_time_ps interval_ps);
void sampler_fini(struct sampler *sp);
/* Takes one sample at `now` (also called once at the end of the run). */
/* Before the first sample: keep rows for ports ports[0..n) only. */
void sampler_restrict(struct sampler *sp, const uint32_t *ports, uint32_t n);
/* Back to one slot per port (nports of them, zeroed), the samples taken so
 * far kept in number: rank 0 before it gathers every rank's rows. */
void sampler_expand(struct sampler *sp, uint32_t nports);
void sampler_take(struct sampler *sp, struct net *n, sim_time_ps now);
void sampler_on_event(struct sim *s, const struct event *e);
/* links.csv: time_ns,link,bytes,utilization,queue_bytes,paused_ns (a
 * sampler of every port). */
int sampler_write_csv(const struct sampler *sp, const struct net *n, FILE *f);
/* The same line by line, for rows that arrive a piece at a time
 * (par/pwrite.c): the header; then per sample row i, sampler_csv_row and
 * the ports' lines in port order; then the end (0, or -1 on a write
 * error). */
struct sampler_csv {
    const struct sampler *sp;
    const struct net *n;
    FILE *f;
    char *buf, *o;
    char t[48]; /* the row's "time_ns," */
    int tl;
    double span_ns;
};
int sampler_csv_open(struct sampler_csv *c, const struct sampler *sp, const struct net *n, FILE *f);
void sampler_csv_row(struct sampler_csv *c, uint32_t i);
void sampler_csv_line(struct sampler_csv *c, uint32_t port, const struct sample *s);
int sampler_csv_close(struct sampler_csv *c);
struct jw;
/* results.json "cc_rates": per sampled QP {qp, src, dst, t_ns[], gbps[]}
 * (an empty list unless the run uses DCQCN). */
void sampler_write_cc_rates(const struct sampler *sp, const struct net *n, struct jw *w);

#endif /* FABSIM_MODEL_SAMPLER_H */

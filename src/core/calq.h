/* src/core/calq.h
 *
 * The simulator's event queue: a calendar queue (Brown, CACM 1988) over a
 * fixed window of 2^nb_log2 buckets of 2^width_log2 ps each, for the near
 * future where almost every event falls (packet arrivals and transmitter
 * wakes, nanoseconds to microseconds ahead), with the 4-ary heap of
 * core/evq.c holding what lies beyond the window (timers, samples). Each
 * bucket is a list sorted by (time, order) by the time the window reaches it
 * (out-of-order inserts are appended and sorted then), and the window slides with the
 * clock, so a bucket only ever holds one bucket-width of time: popping is a
 * short scan to the next non-empty bucket. Events are kept by value in a slab
 * with a free list: no allocation per event once the slab has grown.
 *
 * The bucket width halves (and the number of buckets doubles) when inserts
 * walk long bucket lists, and doubles back when pops scan many empty
 * buckets, so a dense fabric (100 000 pending events within a microsecond)
 * and a sparse one both stay near one event per bucket.
 *
 * Pops come out in exactly the (time_ps, order) order of the heap; the
 * choice is speed only (bench/bench_evq.c, docs/performance.md). Owned by
 * struct sim.
 */
#ifndef FABSIM_CORE_CALQ_H
#define FABSIM_CORE_CALQ_H

#include "core/evq.h"

#include <stddef.h>
#include <stdint.h>

struct calq_node {
    struct event ev;
    uint32_t next; /* next in bucket, or in the free list */
    uint32_t pad;
};

struct calq {
    struct calq_node *slab;
    uint32_t slab_len, slab_cap, free_head;
    struct calq_bucket {
        uint32_t head;
        uint32_t tail; /* for O(1) appends in time order; top bit: appended out of
                          order, to be sorted when the window reaches it */
    } * bucket;        /* NB entries */
    uint32_t nb_mask;
    unsigned width_log2, nb_log2;
    uint64_t cur;        /* absolute bucket index the window starts at */
    size_t in_window;    /* events in buckets */
    struct evq far;      /* events at or past cur + NB buckets */
    uint64_t far_bucket; /* bucket of far's earliest event, UINT64_MAX if none */
    /* Self-tuning (Brown's resize, by halves): long walks in sorted inserts
     * mean buckets too wide for the event density; long scans over empty
     * buckets mean too narrow. Measured over CALQ_TUNE_OPS operations. */
    uint64_t last_ps; /* time of the last event popped */
    uint64_t walk_sum, scan_sum;
    uint32_t ops;            /* pops since the last tuning decision */
    uint64_t sorted_buckets; /* buckets left unsorted by a bounded walk, sorted when reached */
    unsigned width_max_log2;
};

/* width_log2: log2 of the bucket width in ps; nb_log2: log2 of the number
 * of buckets. Defaults used by sim: 2^10 ps (~1 ns) x 2^14 (~16.8 us). */
void calq_init(struct calq *q, unsigned width_log2, unsigned nb_log2);
void calq_fini(struct calq *q);
/* `e.time_ps` must not be earlier than the last popped event's. */
void calq_push(struct calq *q, struct event e);
/* 0, or FS_EEMPTY. */
int calq_pop(struct calq *q, struct event *out);
/* Time of the next event, or UINT64_MAX when empty (may advance the window). */
uint64_t calq_next_time(struct calq *q);
/* Pops the next event only if it is earlier than limit_ps (0), else
 * FS_EEMPTY; never moves the window past limit_ps, so that events at or after
 * it may still be pushed (a parallel run's window boundary, par/par.c). */
int calq_pop_before(struct calq *q, uint64_t limit_ps, struct event *out);
/* Time of the next event, UINT64_MAX when empty; moves nothing. */
uint64_t calq_peek_time(const struct calq *q);
static inline size_t calq_len(const struct calq *q) {
    return q->in_window + q->far.len;
}

#endif /* FABSIM_CORE_CALQ_H */

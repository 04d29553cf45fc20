/* src/core/calq.h
 *
 * The simulator's event queue: a calendar queue (Brown, CACM 1988) over a
 * fixed window of CALQ_NB buckets of 2^CALQ_WIDTH_LOG2 ps each, for the near
 * future where almost every event falls (packet arrivals and transmitter
 * wakes, nanoseconds to microseconds ahead), with the 4-ary heap of
 * core/evq.c holding what lies beyond the window (timers, samples).
 *
 * A future bucket is an unsorted array of events kept by value: its first
 * ten in its 256-byte slot of the ring, the rest in 1 KiB chunks chained
 * from it. Scheduling an event appends it, with no comparison, and reads only
 * the bucket's write position (struct calq_meta, a small hot array) before
 * storing it. When the window reaches a bucket, its events are sorted by (time,
 * order) in place (insertion sort: a few events) or gathered into one array
 * and sorted there (a natural merge sort of its ascending runs: a fabric
 * started in step holds thousands of events at the same time stamp, which
 * no bucket width separates, and each kind of event arrives in key order);
 * pops then walk that array. The rare event pushed into the bucket being
 * popped goes to a small heap merged at pop time. A bitmap of non-empty
 * buckets finds the next one 64 buckets at a time. The ladder queue (Tang,
 * Goh and Thng, ACM TOMACS 2005) sorts its bottom rung the same way:
 * lazily, once, when reached.
 *
 * Pops come out in exactly the (time_ps, order) order of the heap; the
 * choice is speed only (bench/bench_evq.c, docs/performance.md). Owned by
 * struct sim.
 */
#ifndef FABSIM_CORE_CALQ_H
#define FABSIM_CORE_CALQ_H

#include "core/diag.h"
#include "core/evq.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 8 + 10 x 24 + 8 = 256 bytes: four cache lines. A bucket's first events
 * are in its slot of the ring, the rest in chunks chained from it. Ten, not
 * five: a fabric's 1 ns bucket holds two or three events on average but one
 * in eleven held more than five, and gathering and sorting those out of
 * line cost more than the larger ring (docs/performance.md "Per-hop cost at
 * scale": 804.3 M -> 790.5 M instructions at 128 hosts; 7 and 15 measured
 * worse). */
#define CALQ_SLOT_EVENTS 10

struct calq_slot {
    uint32_t next; /* the bucket's first overflow chunk, when it has one */
    uint32_t spare;
    struct event ev[CALQ_SLOT_EVENTS];
    uint64_t pad;
};

/* A crowded bucket's events past its slot: chunks of 42 (1 KiB), so that
 * a bucket of a fabric started in step (hundreds of same-time events) is a
 * few runs of sequential lines, which pushes fill and the gather reads as
 * streams, rather than a chain of 128-byte chunks each a cold line apart. */
#define CALQ_CHUNK_EVENTS 42

struct calq_chunk {
    uint32_t next; /* the next chunk of the bucket, or the next free chunk */
    uint32_t spare;
    struct event ev[CALQ_CHUNK_EVENTS];
    uint64_t pad;
};

/* A bucket's write position and the end of the block it writes in (its
 * slot, then its last chunk), as byte offsets in the arena: pushes read only
 * this small, hot array, and a push that finds room (all but one in 42 in a
 * crowded bucket) stores the event and the next position, nothing else. */
struct calq_meta {
    uint32_t wr;  /* where the bucket's next event goes */
    uint32_t end; /* the end of that block's events */
};

/* The window: 2^10 ps (~1 ns) buckets, 2^12 of them (~4.2 us; 1 MiB of
 * slots): packet events fall inside it, timers mostly past it. Fixed at
 * compile time: the push below is inlined wherever an event is scheduled. */
#define CALQ_WIDTH_LOG2 10
#define CALQ_NB_LOG2 12
#define CALQ_NB (1u << CALQ_NB_LOG2)
#define CALQ_MASK (CALQ_NB - 1)

struct calq {
    /* The bucket being popped (absolute index cur), sorted: now..end, in
     * its own slot or in buf, next the event to take; lim is end, or next
     * as it was when hot was pushed or sim_stop() was called (pops then
     * take the slow path, which merges hot's events). Pointers, not
     * indexes: a take is a compare of two loads and an increment (no base
     * loaded, no index scaled). */
    const struct event *now, *next, *lim, *end;
    /* cur + 1, the first bucket a push appends to (cur itself is not kept:
     * the push tests b - after < CALQ_MASK, one subtraction fewer) */
    uint64_t after;
    /* The slots of the ring (bucket i's at i x 128), then the chunks: one
     * reserved address range, made usable as chunks are needed and never
     * moved (a handler's event in a slot stays put while it pushes). */
    char *arena;
    uint32_t chunk_len, chunk_cap, chunk_max, free_chunk; /* chunk 0 unused */
    struct evq hot; /* pushed into bucket cur after it was sorted */
    struct evq far; /* events past the window: bucket > cur + CALQ_MASK */
    /* the first bucket whose window reaches far's earliest event (its bucket
     * - CALQ_MASK), UINT64_MAX if none: a bucket taken is tested with one
     * comparison (the window never passes it: each bucket taken is within
     * CALQ_MASK of the last) */
    uint64_t far_from;
    struct event *buf, *aux; /* an overflowed bucket gathered, and the merge buffer */
    uint32_t *runs;          /* run starts while sorting, buf_cap + 1 */
    uint32_t buf_cap;
    uint64_t sorted_buckets; /* buckets not in key order when reached */
    struct event popped;     /* what calq_take returned from the heaps */
    /* In the struct, not behind pointers: a push reaches them at fixed
     * offsets from q (no base address loaded per push). */
    struct calq_meta meta[CALQ_NB]; /* a ring over the window */
    /* true for a non-empty bucket, scanned 8 at a time; bool, not uint8_t:
     * a store of a character type may alias anything, and the push is
     * inlined into the model's handlers (-2.4 M instructions at 128 hosts) */
    _Alignas(64) bool full[CALQ_NB];
};

void calq_init(struct calq *q);
void calq_fini(struct calq *q);
void calq_push_slow(struct calq *q, const struct event *e);
/* calq_push_slow of the event's fields, passed in registers (an event built
 * on the caller's stack field by field and read back whole stalls the
 * store-to-load forwarding of four narrow stores into one wide load). */
void calq_push_fields_slow(struct calq *q, uint64_t time_ps, uint64_t order, uint32_t arg,
                           uint16_t kind, uint16_t aux);
const struct event *calq_take_slow(struct calq *q);
/* Sorts a slot bucket's 2 < m <= CALQ_SLOT_EVENTS events in place (calq.c). */
void calq_sort_slot(struct calq *q, struct event *ev, uint32_t m);

/* Offset of ring bucket i's first event in the arena (in its slot). */
static inline uint32_t calq_slot_ev0(uint32_t i) {
    return i * (uint32_t)sizeof(struct calq_slot) +
           (uint32_t) __builtin_offsetof(struct calq_slot, ev);
}

/* (time, order) as one 128-bit comparison: does a come before b? */
static inline int calq_before(const struct event *a, const struct event *b) {
    unsigned __int128 ka = (unsigned __int128)a->time_ps << 64 | a->order;
    unsigned __int128 kb = (unsigned __int128)b->time_ps << 64 | b->order;
    return ka < kb;
}

/* The first non-empty bucket after cur (absolute), or UINT64_MAX when the
 * ring is empty (no count of the events in it is kept: one increment per
 * push and a subtraction per bucket saved, the scan bounded instead). The
 * flags are read 8 at a time, little-endian: the lowest set byte first; the
 * last word read is the first again, whole (the buckets before cur + 1 in
 * it are the window's last). */
static inline uint64_t calq_next_bucket(const struct calq *q) {
    uint32_t i = (uint32_t)q->after & CALQ_MASK, w = i >> 3;
    uint64_t m;
    __builtin_memcpy(&m, q->full + 8 * w, 8);
    m &= ~0ull << (8 * (i & 7));
    for (uint32_t k = 0; !m; k++) {
        if (k == CALQ_NB / 8) return UINT64_MAX;
        w = (w + 1) & (CALQ_NB / 8 - 1);
        __builtin_memcpy(&m, q->full + 8 * w, 8);
    }
    uint32_t s = 8 * w + (uint32_t)__builtin_ctzll(m) / 8;
    return q->after + ((s - i) & CALQ_MASK);
}

/* Makes bucket c (absolute, in the window, non-empty; now[] and hot
 * exhausted) the one being popped and takes its first event: the one
 * implementation, inline in the event loop (calq_take_next) and in calq.c's
 * slow paths. The common case, a slot bucket (no overflow chunk) that no
 * far event joins, is sorted in place here (two events compared here, more
 * in calq_sort_slot); a bucket that overflowed or that far events join
 * goes to calq_take_bucket_slow (gathered and sorted out of line). */
const struct event *calq_take_bucket_slow(struct calq *q, uint64_t c);
static inline __attribute__((always_inline)) const struct event *calq_take_bucket(struct calq *q,
                                                                                  uint64_t c) {
    uint32_t i = (uint32_t)c & CALQ_MASK;
    struct calq_meta *mt = &q->meta[i];
    uint32_t s0 = calq_slot_ev0(i), off = mt->wr - s0; /* a chunk lies past every slot */
    if (__builtin_expect(
            off <= CALQ_SLOT_EVENTS * (uint32_t)sizeof(struct event) && c < q->far_from, 1)) {
        struct event *ev = (struct event *)(void *)(q->arena + s0);
        mt->wr = s0;
        q->after = c + 1;
        q->full[i] = false;
        q->now = ev;
        q->next = ev + 1;
        /* the end from the write position: no count scaled back */
        q->end = q->lim = (const struct event *)(const void *)((const char *)ev + off);
        if (off == 2 * sizeof(struct event)) {
            if (calq_before(&ev[1], &ev[0])) {
                struct event t = ev[0];
                ev[0] = ev[1];
                ev[1] = t;
                q->sorted_buckets++;
            }
        } else if (off > 2 * sizeof(struct event)) {
            calq_sort_slot(q, ev, off / (uint32_t)sizeof(struct event));
        }
        return ev;
    }
    return calq_take_bucket_slow(q, c);
}

/* calq_take once the bucket being popped is exhausted (next == lim), the
 * event loop's (core/sim_loop.h): with nothing in hot and a next bucket in
 * the ring, that bucket taken inline (calq_take_bucket); everything else in
 * calq_take_slow. A bucket of a fabric's run holds two or three events, so
 * this runs once per two or three events. */
static inline __attribute__((always_inline)) const struct event *calq_take_next(struct calq *q) {
    if (__builtin_expect(!q->hot.len && q->next >= q->end, 1)) {
        /* the next bucket, most often the one after cur (a fabric's run
         * keeps about two in three buckets busy): one flag, not the scan */
        uint64_t c = q->after;
        if (!q->full[(uint32_t)c & CALQ_MASK]) {
            c = calq_next_bucket(q);
            if (c == UINT64_MAX) return calq_take_slow(q); /* far events, or none */
        }
        return calq_take_bucket(q, c);
    }
    return calq_take_slow(q);
}

/* `e.time_ps` must not be earlier than the last popped event's. The common
 * case, a bucket ahead of the one being popped with room in its block (its
 * slot, or its last chunk), is a store of the event, of the next position,
 * of a flag and an increment. */
static inline void calq_push(struct calq *q, struct event e) {
    uint64_t b = e.time_ps >> CALQ_WIDTH_LOG2;
    if (b - q->after < CALQ_MASK) { /* 1 .. CALQ_MASK buckets ahead */
        uint32_t i = (uint32_t)b & CALQ_MASK;
        struct calq_meta *m = &q->meta[i];
        uint32_t w = m->wr;
        if (w != m->end) {
            *(struct event *)(void *)(q->arena + w) = e;
            m->wr = w + (uint32_t)sizeof e;
            q->full[i] = true;
            return;
        }
    }
    calq_push_slow(q, &e);
}

/* calq_push of the event {time_ps, order, arg, kind, aux}, its fields stored
 * straight into the bucket (no copy of the event built on the stack). */
static inline void calq_push_fields(struct calq *q, uint64_t time_ps, uint64_t order, uint32_t arg,
                                    uint16_t kind, uint16_t aux) {
    uint64_t b = time_ps >> CALQ_WIDTH_LOG2;
    if (b - q->after < CALQ_MASK) { /* 1 .. CALQ_MASK buckets ahead */
        uint32_t i = (uint32_t)b & CALQ_MASK;
        struct calq_meta *m = &q->meta[i];
        uint32_t w = m->wr;
        if (w != m->end) {
            struct event *d = (struct event *)(void *)(q->arena + w);
            d->time_ps = time_ps;
            d->order = order;
            d->arg = arg;
            d->kind = kind;
            d->aux = aux;
            m->wr = w + (uint32_t)sizeof *d;
            q->full[i] = true;
            return;
        }
    }
    calq_push_fields_slow(q, time_ps, order, arg, kind, aux);
}

/* The next event, removed from the queue, or NULL when empty. The pointer
 * stays valid until the next take or pop (pushes do not move it). */
static inline const struct event *calq_take(struct calq *q) {
    if (__builtin_expect(q->next < q->lim, 1)) return q->next++;
    return calq_take_slow(q);
}

/* 0, or FS_EEMPTY. */
static inline int calq_pop(struct calq *q, struct event *out) {
    const struct event *e = calq_take(q);
    if (!e) return FS_EEMPTY;
    *out = *e;
    return 0;
}

/* Time of the next event, or UINT64_MAX when empty (may advance the window). */
uint64_t calq_next_time(struct calq *q);
/* Pops the next event only if it is earlier than limit_ps (0), else
 * FS_EEMPTY; never moves the window past limit_ps, so that events at or after
 * it may still be pushed (a parallel run's window boundary, par/par.c). */
int calq_pop_before(struct calq *q, uint64_t limit_ps, struct event *out);
/* The next event if it is earlier than limit_ps, removed from the queue (the
 * pointer is valid as calq_take's), else NULL; never moves the window past
 * limit_ps (calq_pop_before without the copy). The common case, the next
 * event of the bucket being popped, is inline. */
const struct event *calq_take_before_slow(struct calq *q, uint64_t limit_ps);
static inline const struct event *calq_take_before(struct calq *q, uint64_t limit_ps) {
    if (__builtin_expect(q->next < q->lim, 1)) {
        const struct event *e = q->next;
        if (e->time_ps >= limit_ps) return NULL;
        q->next++;
        return e;
    }
    return calq_take_before_slow(q, limit_ps);
}
/* Time of the next event, UINT64_MAX when empty; moves nothing. */
uint64_t calq_peek_time(const struct calq *q);
/* The events queued (tests: a count of the ring's buckets, not kept). */
size_t calq_len(const struct calq *q);

#endif /* FABSIM_CORE_CALQ_H */

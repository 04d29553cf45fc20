#include "core/calq.h"

#include "core/diag.h"
#include "core/mem.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

_Static_assert(sizeof(struct calq_slot) == 256, "a slot is four cache lines");
_Static_assert(sizeof(struct calq_chunk) == 1024, "a chunk is 16 cache lines");
_Static_assert(CALQ_NB % 8 == 0 && sizeof(bool) == 1, "the full flags are scanned 8 at a time");
#define CALQ_INSERTION_MAX 16 /* buckets up to this many events: insertion sort */

/* The arena: the ring's slots, then chunk ids 0.. at 1 KiB each, all within
 * 32-bit offsets; chunks made usable CALQ_CHUNK_STEP at a time. The range
 * reserved is the largest the system allows (an address space limit,
 * valgrind), halving from 4 GiB down to 16 MiB. */
#define CALQ_SLOTS_BYTES ((size_t)CALQ_NB * sizeof(struct calq_slot))
#define CALQ_CHUNK_STEP 64u
#define CALQ_ARENA_MAX ((size_t)UINT32_MAX + 1 - 4096)
#define CALQ_ARENA_MIN ((size_t)16 << 20)
#define EV ((uint32_t)sizeof(struct event))
#define CHUNK_EV0 ((uint32_t)offsetof(struct calq_chunk, ev)) /* its events' offset */
#define CHUNK_EV_END (CHUNK_EV0 + CALQ_CHUNK_EVENTS * EV)     /* ...and their end */

static inline struct calq_slot *slot_at(const struct calq *q, uint32_t i) {
    return (struct calq_slot *)(void *)(q->arena + (size_t)i * sizeof(struct calq_slot));
}
static inline uint32_t chunk_off(uint32_t id) {
    return (uint32_t)(CALQ_SLOTS_BYTES + (size_t)id * sizeof(struct calq_chunk));
}
static inline struct calq_chunk *chunk_at(const struct calq *q, uint32_t id) {
    return (struct calq_chunk *)(void *)(q->arena + chunk_off(id));
}
/* Offset of bucket i's first event (in its slot). */
static inline uint32_t slot_ev0(uint32_t i) {
    return calq_slot_ev0(i);
}
/* Bucket i empty: its block is its slot. */
static inline void meta_reset(struct calq *q, uint32_t i) {
    q->meta[i].wr = slot_ev0(i);
    q->meta[i].end = slot_ev0(i) + CALQ_SLOT_EVENTS * EV;
}
/* Does bucket i hold more than its slot? */
static inline bool has_chunks(const struct calq *q, uint32_t i) {
    return q->meta[i].end != slot_ev0(i) + CALQ_SLOT_EVENTS * EV;
}

/* (time, order) as one 128-bit comparison. */
static inline int before(const struct event *a, const struct event *b) {
    return calq_before(a, b);
}

/* Room for `need` events in buf (its first `keep` kept), aux and runs. */
static void buf_reserve(struct calq *q, uint32_t need, uint32_t keep) {
    if (need <= q->buf_cap) return;
    uint32_t cap = q->buf_cap;
    while (cap < need)
        cap *= 2;
    struct event *b = fs_xmalloc((size_t)cap * sizeof *b);
    memcpy(b, q->buf, (size_t)keep * sizeof *b);
    free(q->buf);
    free(q->aux);
    free(q->runs);
    q->buf = b;
    q->aux = fs_xmalloc((size_t)cap * sizeof *q->aux);
    q->runs = fs_xmalloc(((size_t)cap + 1) * sizeof *q->runs);
    q->buf_cap = cap;
}

static void arena_commit(struct calq *q, size_t from, size_t bytes) {
    if (mprotect(q->arena + from, bytes, PROT_READ | PROT_WRITE)) {
        fprintf(stderr, "fabsim: out of memory allocating %zu bytes of the event queue\n", bytes);
        exit(1);
    }
}

void calq_init(struct calq *q) {
    memset(q, 0, sizeof *q);
    q->after = 0; /* cur before bucket 0: the window starts at 0 */
    size_t bytes = CALQ_ARENA_MAX;
    for (; bytes >= CALQ_ARENA_MIN; bytes /= 2) {
        void *b = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (b != MAP_FAILED) {
            q->arena = b;
            break;
        }
    }
    if (!q->arena) {
        fprintf(stderr, "fabsim: out of memory reserving the event queue (%zu bytes)\n",
                CALQ_ARENA_MIN);
        exit(1);
    }
    q->chunk_max = (uint32_t)((bytes - CALQ_SLOTS_BYTES) / sizeof(struct calq_chunk));
    arena_commit(q, 0, CALQ_SLOTS_BYTES);
    for (uint32_t i = 0; i < CALQ_NB; i++)
        meta_reset(q, i);
    q->chunk_len = 1;
    q->buf_cap = 64; /* at least a slot's events */
    q->buf = fs_xmalloc(q->buf_cap * sizeof *q->buf);
    q->aux = fs_xmalloc(q->buf_cap * sizeof *q->aux);
    q->runs = fs_xmalloc((q->buf_cap + 1) * sizeof *q->runs);
    q->now = q->next = q->lim = q->end = q->buf;
    evq_init(&q->hot, 16);
    evq_init(&q->far, 64);
    q->far_from = UINT64_MAX;
}

void calq_fini(struct calq *q) {
    free(q->buf);
    free(q->aux);
    free(q->runs);
    if (q->arena)
        munmap(q->arena, CALQ_SLOTS_BYTES + (size_t)q->chunk_max * sizeof(struct calq_chunk));
    evq_fini(&q->hot);
    evq_fini(&q->far);
    memset(q, 0, sizeof *q);
}

static uint32_t chunk_alloc(struct calq *q) {
    uint32_t id = q->free_chunk;
    if (id) {
        q->free_chunk = chunk_at(q, id)->next;
        return id;
    }
    if (q->chunk_len >= q->chunk_cap) { /* chunk 0 is never used */
        uint32_t add = CALQ_CHUNK_STEP;
        if (q->chunk_max - q->chunk_cap < add) {
            fprintf(stderr,
                    "fabsim: out of memory: more than %u chunks of events pending at once (the "
                    "event queue's reserved range)\n",
                    q->chunk_max);
            exit(1);
        }
        arena_commit(q, chunk_off(q->chunk_cap), (size_t)add * sizeof(struct calq_chunk));
        q->chunk_cap += add;
    }
    return q->chunk_len++;
}

/* Bucket i's block is full: a new chunk, linked after it, becomes the block. */
static __attribute__((noinline)) void new_chunk(struct calq *q, uint32_t i) {
    struct calq_meta *m = &q->meta[i];
    uint32_t id = chunk_alloc(q);
    if (!has_chunks(q, i))
        slot_at(q, i)->next = id;
    else /* the last chunk's events end at m->end */
        ((struct calq_chunk *)(void *)(q->arena + m->end - CHUNK_EV_END))->next = id;
    m->wr = chunk_off(id) + CHUNK_EV0;
    m->end = chunk_off(id) + CHUNK_EV_END;
}

/* Appends e to the bucket in ring slot i. */
static void put(struct calq *q, const struct event *e, uint32_t i) {
    struct calq_meta *m = &q->meta[i];
    if (m->wr == m->end) new_chunk(q, i);
    memcpy(q->arena + m->wr, e, sizeof *e);
    m->wr += EV;
    q->full[i] = true;
}

/* calq_push found the bucket's block full, or the event outside the buckets
 * ahead. */
void calq_push_slow(struct calq *q, const struct event *e) {
    uint64_t b = e->time_ps >> CALQ_WIDTH_LOG2, d = b - (q->after - 1);
    FS_DASSERT(q->after == 0 || b + 1 >= q->after, "event in the past of the calendar window");
    if (__builtin_expect(d - 1 < CALQ_MASK, 1)) {
        put(q, e, (uint32_t)b & CALQ_MASK);
    } else if (d == 0) { /* into the bucket being popped: merged at pop time */
        evq_push(&q->hot, *e);
        q->lim = q->next; /* the next take goes to the slow path */
    } else {
        evq_push(&q->far, *e);
        if (b - CALQ_MASK < q->far_from) q->far_from = b - CALQ_MASK; /* b > cur + CALQ_MASK */
    }
}

void calq_push_fields_slow(struct calq *q, uint64_t time_ps, uint64_t order, uint32_t arg,
                           uint16_t kind, uint16_t aux) {
    uint64_t b = time_ps >> CALQ_WIDTH_LOG2;
    if (__builtin_expect(b - q->after < CALQ_MASK, 1)) {
        /* a full block: a new chunk (one push in 42 into a crowded bucket) */
        uint32_t i = (uint32_t)b & CALQ_MASK;
        new_chunk(q, i);
        struct calq_meta *m = &q->meta[i];
        struct event *d = (struct event *)(void *)(q->arena + m->wr);
        d->time_ps = time_ps;
        d->order = order;
        d->arg = arg;
        d->kind = kind;
        d->aux = aux;
        m->wr += EV;
        return;
    }
    struct event e = {time_ps, order, arg, kind, aux};
    calq_push_slow(q, &e);
}

/* Moves far events that the window now covers into their buckets (bucket
 * cur's included: called before it is sorted). */
static void pull_far(struct calq *q) {
    const struct event *top;
    while ((top = evq_top(&q->far)) &&
           (top->time_ps >> CALQ_WIDTH_LOG2) - (q->after - 1) <= CALQ_MASK) {
        struct event e;
        evq_pop(&q->far, &e);
        put(q, &e, (uint32_t)(e.time_ps >> CALQ_WIDTH_LOG2) & CALQ_MASK);
    }
    q->far_from = top ? (top->time_ps >> CALQ_WIDTH_LOG2) - CALQ_MASK : UINT64_MAX;
}

/* Inserts a[i] into the sorted a[0..i); 1 if it moved. */
static inline __attribute__((always_inline)) int insert_at(struct event *a, uint32_t i) {
    if (!before(&a[i], &a[i - 1])) return 0;
    struct event x = a[i];
    uint32_t j = i;
    do {
        a[j] = a[j - 1];
        j--;
    } while (j > 0 && before(&x, &a[j - 1]));
    a[j] = x;
    return 1;
}

/* Insertion sort: short buckets, mostly nearly in order. */
static inline bool sort_short(struct event *a, uint32_t m) {
    bool moved = false;
    for (uint32_t i = 1; i < m; i++)
        moved |= insert_at(a, i);
    return moved;
}

/* The first of a[0..n) (sorted) that e comes before: binary search. */
static inline size_t upper(const struct event *a, size_t n, const struct event *e) {
    size_t lo = 0;
    while (n) {
        size_t h = n / 2;
        if (before(e, &a[lo + h])) {
            n = h;
        } else {
            lo += h + 1;
            n -= h + 1;
        }
    }
    return lo;
}

/* Merges a short run s[0..ns) into a long one l[0..nl) at d: each short
 * event's place found by binary search, the long run copied between them
 * in blocks. */
static struct event *merge_sparse(const struct event *l, size_t nl, const struct event *s,
                                  size_t ns, struct event *d) {
    for (size_t i = 0; i < ns; i++) {
        size_t k = upper(l, nl, &s[i]); /* the long run's events before s[i] */
        memcpy(d, l, k * sizeof *l);
        d += k;
        l += k;
        nl -= k;
        *d++ = s[i];
    }
    memcpy(d, l, nl * sizeof *l);
    return d + nl;
}

/* Merges a[lo..mid) and a[mid..hi) into d[lo..hi). Runs of a crowded
 * bucket mostly interleave event by event: branch-free (a branch per event
 * mispredicts half the time), from both ends at once (the smaller head to
 * the front, the larger tail to the back: two independent chains of loads
 * and comparisons, 15 % less time per event than one chain on 20,000 buckets
 * of the 1,024-rank ring AllReduce); a run 8 times longer than the other is
 * copied in blocks between the other's events. */
static void merge_runs(const struct event *a, uint32_t lo, uint32_t mid, uint32_t hi,
                       struct event *d) {
    const struct event *x = a + lo, *y = a + mid;
    d += lo;
    size_t nx = mid - lo, ny = hi - mid;
    if (nx >= 8 * ny) {
        merge_sparse(x, nx, y, ny, d);
        return;
    }
    if (ny >= 8 * nx) {
        merge_sparse(y, ny, x, nx, d);
        return;
    }
    /* x..xl and y..yl are what is left of each run; dl the back's next slot.
     * While at least two events are left and both runs have some, the
     * smallest and the largest left are two different events. */
    const struct event *xl = x + nx - 1, *yl = y + ny - 1;
    struct event *dl = d + nx + ny - 1;
    for (size_t k = (nx + ny) / 2; k && x <= xl && y <= yl; k--) {
        uintptr_t t = (uintptr_t)before(y, x), px = (uintptr_t)x, py = (uintptr_t)y;
        __asm__("" : "+r"(t)); /* a value in a register, not a comparison redone per use */
        *d++ = *(const struct event *)(px ^ ((px ^ py) & (0 - t))); /* y if t, else x */
        y += t;
        x += 1 - t;
        uintptr_t u = (uintptr_t)before(yl, xl), qx = (uintptr_t)xl, qy = (uintptr_t)yl;
        __asm__("" : "+r"(u));
        *dl-- = *(const struct event *)(qy ^ ((qx ^ qy) & (0 - u))); /* xl if u, else yl */
        xl -= u;
        yl -= 1 - u;
    }
    /* what is left (the middle event of an odd total, or the rest of the
     * run that outlasted the other) is in one run */
    if (x <= xl) memcpy(d, x, (size_t)(xl - x + 1) * sizeof *d);
    if (y <= yl) memcpy(d, y, (size_t)(yl - y + 1) * sizeof *d);
}

/* Sorts buf[0..m) by (time, order) and points now at it. A long bucket is a
 * few interleaved ascending runs (each kind of event is scheduled a fixed
 * delay after events popped in order): a natural merge sort, runs merged
 * pairwise, O(m log r) for r runs. Orders are unique: no ties. */
static void sort_buf(struct calq *q, uint32_t m) {
    struct event *a = q->buf;
    q->now = a;
    if (m <= CALQ_INSERTION_MAX) {
        q->sorted_buckets += sort_short(a, m);
        return;
    }
    uint32_t *runs = q->runs, nr = 0;
    runs[nr++] = 0;
    for (uint32_t i = 1; i < m; i++)
        if (before(&a[i], &a[i - 1])) runs[nr++] = i;
    if (nr == 1) return;
    q->sorted_buckets++;
    runs[nr] = m;
    struct event *src = a, *dst = q->aux;
    while (nr > 1) {
        uint32_t k = 0, i = 0;
        for (; i + 1 < nr; i += 2) {
            merge_runs(src, runs[i], runs[i + 1], runs[i + 2], dst);
            runs[k++] = runs[i];
        }
        if (i < nr) {
            memcpy(dst + runs[i], src + runs[i], (m - runs[i]) * sizeof *src);
            runs[k++] = runs[i];
        }
        runs[k] = m;
        nr = k;
        struct event *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) { /* the sorted copy is in aux: swap the buffers */
        q->aux = a;
        q->buf = src;
        q->now = src;
    }
}

/* Copies a slot's events: straight-line moves, not a memcpy call (or a rep
 * movs, which costs more than the move itself at 240 bytes). */
static inline void copy_slot(struct event *d, const struct event *s) {
    for (int k = 0; k < CALQ_SLOT_EVENTS; k++)
        d[k] = s[k];
}

/* The events in bucket i: its slot's, its full chunks', and its last
 * chunk's up to the write position. */
static uint32_t bucket_count(const struct calq *q, uint32_t i) {
    const struct calq_meta *m = &q->meta[i];
    if (!has_chunks(q, i)) return (m->wr - slot_ev0(i)) / EV;
    uint32_t n = CALQ_SLOT_EVENTS;
    for (uint32_t id = slot_at(q, i)->next;; id = chunk_at(q, id)->next) {
        if (chunk_off(id) + CHUNK_EV_END == m->end)
            return n + (m->wr - chunk_off(id) - CHUNK_EV0) / EV;
        n += CALQ_CHUNK_EVENTS;
    }
}

/* Gathers the events of bucket i, which overflowed its slot, into buf (the
 * slot's, then its chunks in order, so that runs stay runs; the last chunk
 * up to the write position), frees the chunks; returns how many. */
static uint32_t gather(struct calq *q, uint32_t i) {
    const struct calq_meta *mt = &q->meta[i];
    const struct calq_slot *s = slot_at(q, i);
    copy_slot(q->buf, s->ev);
    uint32_t k = CALQ_SLOT_EVENTS;
    for (uint32_t id = s->next;;) {
        struct calq_chunk *ch = chunk_at(q, id);
        bool last = chunk_off(id) + CHUNK_EV_END == mt->end;
        uint32_t c = last ? (mt->wr - chunk_off(id) - CHUNK_EV0) / EV : CALQ_CHUNK_EVENTS;
        buf_reserve(q, k + c, k);
        memcpy(q->buf + k, ch->ev, c * sizeof *q->buf);
        k += c;
        uint32_t next = ch->next;
        ch->next = q->free_chunk;
        q->free_chunk = id;
        if (last) return k;
        id = next;
    }
}

/* Makes bucket c (absolute, in the window) the one being popped: far events
 * the window now covers join their buckets, then c's events are sorted (in
 * its slot when they fit, else gathered into buf) and now points at them.
 * now[] and hot are empty. The slot is free for the bucket CALQ_NB later,
 * which cannot be pushed before the window moves on: its events stay in
 * place until then. */
static void move_to(struct calq *q, uint64_t c) {
    q->after = c + 1;
    if (c >= q->far_from) pull_far(q);
    uint32_t i = (uint32_t)c & CALQ_MASK, m;
    if (has_chunks(q, i)) {
        m = gather(q, i);
        sort_buf(q, m);
    } else {
        m = (q->meta[i].wr - slot_ev0(i)) / EV;
        struct event *ev = slot_at(q, i)->ev;
        q->now = ev;
        q->sorted_buckets += sort_short(ev, m);
    }
    q->full[i] = false;
    meta_reset(q, i);
    q->next = q->now;
    q->end = q->lim = q->now + m;
}

/* The first non-empty bucket after cur (absolute), UINT64_MAX if none. */
static inline uint64_t next_bucket(const struct calq *q) {
    return calq_next_bucket(q);
}

/* The bucket the next event is in once now[] and hot are exhausted, or
 * UINT64_MAX when the queue is empty. */
static uint64_t upcoming(const struct calq *q) {
    uint64_t c = next_bucket(q);
    if (c != UINT64_MAX) return c;
    const struct event *top = evq_top(&q->far);
    return top ? top->time_ps >> CALQ_WIDTH_LOG2 : UINT64_MAX;
}

/* hot holds events: the earlier of its top and *next; or lim was cleared
 * (sim_stop) with events left in now[]. */
static __attribute__((noinline)) const struct event *take_hot(struct calq *q) {
    if (!q->hot.len) { /* only sim_stop() cleared lim */
        q->lim = q->end;
        return q->next++;
    }
    if (q->next < q->end && before(q->next, evq_top(&q->hot))) return q->next++;
    evq_pop(&q->hot, &q->popped);
    if (!q->hot.len) q->lim = q->end;
    return &q->popped;
}

static __attribute__((noinline)) const struct event *take_far(struct calq *q) {
    uint64_t c = upcoming(q);
    if (c == UINT64_MAX) return NULL;
    move_to(q, c); /* far events pulled into bucket c are sorted with it: never in hot */
    return q->next++;
}

/* Sorts a bucket's 2 < m <= CALQ_SLOT_EVENTS events in its slot (insertion
 * sort unrolled by m: straight-line code, few registers). */
__attribute__((noinline)) void calq_sort_slot(struct calq *q, struct event *ev, uint32_t m) {
    _Static_assert(CALQ_SLOT_EVENTS == 10, "unrolled for ten");
    int moved = insert_at(ev, 1);
    moved |= insert_at(ev, 2);
    if (m > 3) moved |= insert_at(ev, 3);
    if (m > 4) moved |= insert_at(ev, 4);
    if (m > 5) moved |= insert_at(ev, 5);
    if (m > 6) moved |= insert_at(ev, 6);
    if (m > 7) moved |= insert_at(ev, 7);
    if (m > 8) moved |= insert_at(ev, 8);
    if (m > 9) moved |= insert_at(ev, 9);
    q->sorted_buckets += (uint64_t)moved;
}

/* calq_take_bucket's bucket that overflowed its slot or that far events
 * join: gathered, sorted, its first event taken. */
__attribute__((noinline)) const struct event *calq_take_bucket_slow(struct calq *q, uint64_t c) {
    move_to(q, c);
    return q->next++;
}

/* now[] is exhausted, or hot holds events. */
const struct event *calq_take_slow(struct calq *q) {
    if (q->hot.len || q->next < q->end) return take_hot(q);
    uint64_t c = next_bucket(q);
    if (c == UINT64_MAX) return take_far(q);
    return calq_take_bucket(q, c);
}

/* The earliest of now[] and hot, or NULL when both are empty. */
static const struct event *head(const struct calq *q) {
    const struct event *n = q->next < q->end ? q->next : NULL, *h = evq_top(&q->hot);
    return h && (!n || before(h, n)) ? h : n;
}

uint64_t calq_next_time(struct calq *q) {
    const struct event *e;
    while (!(e = head(q))) {
        uint64_t c = upcoming(q);
        if (c == UINT64_MAX) return UINT64_MAX;
        move_to(q, c);
    }
    return e->time_ps;
}

const struct event *calq_take_before_slow(struct calq *q, uint64_t limit_ps) {
    const struct event *e;
    uint64_t c;
    if (!q->hot.len && q->next >= q->end && (c = next_bucket(q)) != UINT64_MAX) {
        /* The bucket is exhausted and the next one is in the ring: reach it
         * as calq_take does (a slot bucket sorted in place, no gathering).
         * Its first event past the limit is put back (it is now[0]); the
         * window then stands at a bucket no later than the limit's, where
         * every event still to be pushed belongs. */
        if (c > limit_ps >> CALQ_WIDTH_LOG2) return NULL;
        e = calq_take_bucket(q, c); /* the bucket found once, not again by calq_take_slow */
        FS_DASSERT(e == q->now && q->next == q->now + 1, "calq: first event of a bucket");
        if (e->time_ps < limit_ps) return e;
        q->next = q->now;
        return NULL;
    }
    while (!(e = head(q))) {
        c = upcoming(q);
        if (c == UINT64_MAX || c > limit_ps >> CALQ_WIDTH_LOG2) return NULL;
        move_to(q, c);
    }
    if (e->time_ps >= limit_ps) return NULL;
    return calq_take(q);
}

int calq_pop_before(struct calq *q, uint64_t limit_ps, struct event *out) {
    const struct event *e;
    while (!(e = head(q))) {
        uint64_t c = upcoming(q);
        if (c == UINT64_MAX || c > limit_ps >> CALQ_WIDTH_LOG2) return FS_EEMPTY;
        move_to(q, c);
    }
    if (e->time_ps >= limit_ps) return FS_EEMPTY;
    return calq_pop(q, out);
}

static uint64_t min_time(const struct event *ev, uint32_t n, uint64_t t) {
    for (uint32_t i = 0; i < n; i++)
        if (ev[i].time_ps < t) t = ev[i].time_ps;
    return t;
}

uint64_t calq_peek_time(const struct calq *q) {
    const struct event *e = head(q);
    if (e) return e->time_ps;
    uint64_t b = next_bucket(q);
    if (b == UINT64_MAX) {
        const struct event *top = evq_top(&q->far);
        return top ? top->time_ps : UINT64_MAX;
    }
    uint32_t i = (uint32_t)b & CALQ_MASK, m = bucket_count(q, i);
    const struct calq_slot *s = slot_at(q, i);
    uint64_t t = min_time(s->ev, m < CALQ_SLOT_EVENTS ? m : CALQ_SLOT_EVENTS, UINT64_MAX);
    uint32_t k = CALQ_SLOT_EVENTS;
    for (uint32_t id = s->next; k < m; id = chunk_at(q, id)->next) {
        uint32_t c = m - k < CALQ_CHUNK_EVENTS ? m - k : CALQ_CHUNK_EVENTS;
        t = min_time(chunk_at(q, id)->ev, c, t);
        k += c;
    }
    return t;
}

size_t calq_len(const struct calq *q) {
    size_t n = (size_t)(q->end - q->next) + q->hot.len + q->far.len;
    for (uint32_t i = 0; i < CALQ_NB; i++)
        if (q->full[i]) n += bucket_count(q, i);
    return n;
}

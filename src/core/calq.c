#include "core/calq.h"

#include "core/diag.h"
#include "core/mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct calq_slot) == 128, "a slot is two cache lines");
_Static_assert(CALQ_NB % 8 == 0, "the full flags are scanned 8 at a time");
#define CALQ_INSERTION_MAX 16 /* buckets up to this many events: insertion sort */

/* (time, order) as one 128-bit comparison. */
static inline int before(const struct event *a, const struct event *b) {
    unsigned __int128 ka = (unsigned __int128)a->time_ps << 64 | a->order;
    unsigned __int128 kb = (unsigned __int128)b->time_ps << 64 | b->order;
    return ka < kb;
}

static void buf_reserve(struct calq *q, uint32_t need) {
    if (need <= q->buf_cap) return;
    uint32_t cap = q->buf_cap;
    while (cap < need)
        cap *= 2;
    free(q->buf);
    free(q->aux);
    free(q->runs);
    q->buf = fs_xmalloc((size_t)cap * sizeof *q->buf);
    q->aux = fs_xmalloc((size_t)cap * sizeof *q->aux);
    q->runs = fs_xmalloc(((size_t)cap + 1) * sizeof *q->runs);
    q->buf_cap = cap;
}

void calq_init(struct calq *q) {
    memset(q, 0, sizeof *q);
    q->cur = UINT64_MAX; /* before bucket 0: the window starts at 0 */
    q->meta = fs_xcalloc(CALQ_NB, sizeof *q->meta);
    q->slot = fs_xaligned(64, CALQ_NB * sizeof *q->slot);
    q->full = fs_xaligned(64, CALQ_NB);
    memset(q->full, 0, CALQ_NB);
    q->chunk_cap = 16;
    q->chunk = fs_xaligned(64, q->chunk_cap * sizeof *q->chunk);
    q->chunk_len = 1;
    q->buf_cap = 64;
    q->buf = fs_xmalloc(q->buf_cap * sizeof *q->buf);
    q->aux = fs_xmalloc(q->buf_cap * sizeof *q->aux);
    q->runs = fs_xmalloc((q->buf_cap + 1) * sizeof *q->runs);
    q->now = q->buf;
    evq_init(&q->hot, 16);
    evq_init(&q->far, 64);
    q->far_bucket = UINT64_MAX;
}

void calq_fini(struct calq *q) {
    free(q->buf);
    free(q->aux);
    free(q->runs);
    free(q->meta);
    free(q->slot);
    free(q->full);
    free(q->chunk);
    evq_fini(&q->hot);
    evq_fini(&q->far);
    memset(q, 0, sizeof *q);
}

static uint32_t chunk_alloc(struct calq *q) {
    uint32_t id = q->free_chunk;
    if (id) {
        q->free_chunk = q->chunk[id].next;
        return id;
    }
    if (q->chunk_len == q->chunk_cap) {
        struct calq_slot *c = fs_xaligned(64, 2 * (size_t)q->chunk_cap * sizeof *c);
        memcpy(c, q->chunk, q->chunk_len * sizeof *c);
        free(q->chunk);
        q->chunk = c;
        q->chunk_cap *= 2;
    }
    return q->chunk_len++;
}

/* Appends e to the bucket in ring slot i: into the slot, else into its last
 * chunk, else into a new one linked after it. Stores only, but for a new
 * chunk taken from the free list. */
static __attribute__((noinline)) void put(struct calq *q, const struct event *e, uint32_t i) {
    struct calq_meta *m = &q->meta[i];
    uint32_t n = m->n++;
    q->queued++;
    if (n < CALQ_SLOT_EVENTS) {
        q->slot[i].ev[n] = *e;
        q->full[i] = 1;
        return;
    }
    uint32_t k = (n - CALQ_SLOT_EVENTS) % CALQ_SLOT_EVENTS;
    if (k == 0) {
        uint32_t id = chunk_alloc(q);
        if (n == CALQ_SLOT_EVENTS)
            q->slot[i].next = id;
        else
            q->chunk[m->tail].next = id;
        m->tail = id;
    }
    q->chunk[m->tail].ev[k] = *e;
}

/* calq_push found the bucket's slot full, or the event outside the buckets
 * ahead. A crowded bucket (most pushes in a large fabric started in step)
 * takes the first branch: a store into its last chunk, 4 times in 5. */
void calq_push_slow(struct calq *q, const struct event *e) {
    uint64_t b = e->time_ps >> CALQ_WIDTH_LOG2, d = b - q->cur;
    FS_DASSERT(q->cur == UINT64_MAX || b >= q->cur, "event in the past of the calendar window");
    if (__builtin_expect(d - 1 < CALQ_MASK, 1)) {
        uint32_t i = (uint32_t)b & CALQ_MASK;
        struct calq_meta *m = &q->meta[i];
        uint32_t k = (m->n - CALQ_SLOT_EVENTS) % CALQ_SLOT_EVENTS;
        if (m->n > CALQ_SLOT_EVENTS && k != 0) {
            q->chunk[m->tail].ev[k] = *e;
            m->n++;
            q->queued++;
        } else {
            put(q, e, i);
        }
    } else if (d == 0) { /* into the bucket being popped: merged at pop time */
        evq_push(&q->hot, *e);
        q->lim = 0;
    } else {
        evq_push(&q->far, *e);
        if (b < q->far_bucket) q->far_bucket = b;
    }
}

void calq_push_fields_slow(struct calq *q, uint64_t time_ps, uint64_t order, uint32_t arg,
                           uint16_t kind, uint16_t aux) {
    uint64_t b = time_ps >> CALQ_WIDTH_LOG2;
    if (__builtin_expect(b - q->cur - 1 < CALQ_MASK, 1)) {
        uint32_t i = (uint32_t)b & CALQ_MASK;
        struct calq_meta *m = &q->meta[i];
        uint32_t n = m->n, k = (n - CALQ_SLOT_EVENTS) % CALQ_SLOT_EVENTS;
        if (n > CALQ_SLOT_EVENTS && k != 0) {
            struct event *d = &q->chunk[m->tail].ev[k];
            d->time_ps = time_ps;
            d->order = order;
            d->arg = arg;
            d->kind = kind;
            d->aux = aux;
            m->n = n + 1;
            q->queued++;
            return;
        }
    }
    struct event e = {time_ps, order, arg, kind, aux};
    calq_push_slow(q, &e);
}

/* Moves far events that the window now covers into their buckets (bucket
 * cur's included: called before it is sorted). */
static void pull_far(struct calq *q) {
    const struct event *top;
    while ((top = evq_top(&q->far)) && (top->time_ps >> CALQ_WIDTH_LOG2) - q->cur <= CALQ_MASK) {
        struct event e;
        evq_pop(&q->far, &e);
        put(q, &e, (uint32_t)(e.time_ps >> CALQ_WIDTH_LOG2) & CALQ_MASK);
    }
    q->far_bucket = top ? top->time_ps >> CALQ_WIDTH_LOG2 : UINT64_MAX;
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

static void merge_runs(const struct event *a, uint32_t lo, uint32_t mid, uint32_t hi,
                       struct event *d) {
    uint32_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        d[k++] = before(&a[j], &a[i]) ? a[j++] : a[i++];
    if (i < mid) memcpy(d + k, a + i, (mid - i) * sizeof *a);
    if (j < hi) memcpy(d + k, a + j, (hi - j) * sizeof *a);
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

/* Gathers the m events of a bucket that overflowed its slot into buf (the
 * slot's, then its chunks in order, so that runs stay runs), frees the
 * chunks, and sorts them there. */
static void gather(struct calq *q, const struct calq_slot *s, uint32_t m) {
    buf_reserve(q, m);
    memcpy(q->buf, s->ev, sizeof s->ev);
    uint32_t k = CALQ_SLOT_EVENTS;
    for (uint32_t id = s->next; k < m;) {
        struct calq_slot *ch = &q->chunk[id];
        uint32_t c = m - k < CALQ_SLOT_EVENTS ? m - k : CALQ_SLOT_EVENTS;
        memcpy(q->buf + k, ch->ev, c * sizeof *q->buf);
        k += c;
        uint32_t next = ch->next;
        ch->next = q->free_chunk;
        q->free_chunk = id;
        id = next;
    }
    sort_buf(q, m);
}

/* Makes bucket c (absolute, in the window) the one being popped: far events
 * the window now covers join their buckets, then c's events are sorted (in
 * its slot when they fit, else gathered into buf) and now points at them.
 * now[] and hot are empty. The slot is free for the bucket CALQ_NB later,
 * which cannot be pushed before the window moves on: its events stay in
 * place until then. */
static void move_to(struct calq *q, uint64_t c) {
    q->cur = c;
    if (q->far_bucket - c <= CALQ_MASK) pull_far(q);
    uint32_t i = (uint32_t)c & CALQ_MASK, m = q->meta[i].n;
    q->full[i] = 0;
    q->meta[i].n = 0;
    q->queued -= m;
    q->pos = 0;
    q->len = q->lim = m;
    if (m > CALQ_SLOT_EVENTS) {
        gather(q, &q->slot[i], m);
    } else {
        q->now = q->slot[i].ev;
        q->sorted_buckets += sort_short(q->slot[i].ev, m);
    }
}

/* The first non-empty bucket after cur (absolute); queued must be > 0. The
 * flags are read 8 at a time, little-endian: the lowest set byte first. */
static inline uint64_t next_bucket(const struct calq *q) {
    uint32_t i = (uint32_t)(q->cur + 1) & CALQ_MASK, w = i >> 3;
    uint64_t m;
    memcpy(&m, q->full + 8 * w, 8);
    m &= ~0ull << (8 * (i & 7));
    while (!m) {
        w = (w + 1) & (CALQ_NB / 8 - 1);
        memcpy(&m, q->full + 8 * w, 8);
    }
    uint32_t s = 8 * w + (uint32_t)__builtin_ctzll(m) / 8;
    return q->cur + 1 + ((s - i) & CALQ_MASK);
}

/* The bucket the next event is in once now[] and hot are exhausted, or
 * UINT64_MAX when the queue is empty. */
static uint64_t upcoming(const struct calq *q) {
    if (q->queued) return next_bucket(q);
    const struct event *top = evq_top(&q->far);
    return top ? top->time_ps >> CALQ_WIDTH_LOG2 : UINT64_MAX;
}

/* hot holds events: the earlier of its top and now[pos]; or lim was cleared
 * (sim_stop) with events left in now[]. */
static __attribute__((noinline)) const struct event *take_hot(struct calq *q) {
    if (!q->hot.len) { /* only sim_stop() cleared lim */
        q->lim = q->len;
        return &q->now[q->pos++];
    }
    if (q->pos < q->len && before(&q->now[q->pos], evq_top(&q->hot))) return &q->now[q->pos++];
    evq_pop(&q->hot, &q->popped);
    if (!q->hot.len) q->lim = q->len;
    return &q->popped;
}

static __attribute__((noinline)) const struct event *take_far(struct calq *q) {
    uint64_t c = upcoming(q);
    if (c == UINT64_MAX) return NULL;
    move_to(q, c); /* far events pulled into bucket c are sorted with it: never in hot */
    q->pos = 1;
    return &q->now[0];
}

/* Sorts a bucket's 1 < m <= CALQ_SLOT_EVENTS events in its slot (insertion
 * sort unrolled by m: straight-line code, few registers); returns the first. */
static __attribute__((noinline)) const struct event *sort_slot(struct calq *q, struct event *ev,
                                                               uint32_t m) {
    _Static_assert(CALQ_SLOT_EVENTS == 5, "unrolled for five");
    int moved = insert_at(ev, 1);
    if (m > 2) moved |= insert_at(ev, 2);
    if (m > 3) moved |= insert_at(ev, 3);
    if (m > 4) moved |= insert_at(ev, 4);
    q->sorted_buckets += (uint64_t)moved;
    return &ev[0];
}

/* now[] is exhausted, or hot holds events. The common case (the next
 * bucket holds at most a slot of events and no far event joins the window)
 * stays in this function; the rest is out of line. */
const struct event *calq_take_slow(struct calq *q) {
    if (q->hot.len || q->pos < q->len) return take_hot(q);
    if (!q->queued) return take_far(q);
    uint64_t c = next_bucket(q);
    uint32_t i = (uint32_t)c & CALQ_MASK, m = q->meta[i].n;
    if (m > CALQ_SLOT_EVENTS || q->far_bucket - c <= CALQ_MASK) {
        move_to(q, c);
        q->pos = 1;
        return &q->now[0];
    }
    struct event *ev = q->slot[i].ev;
    q->cur = c;
    q->full[i] = 0;
    q->meta[i].n = 0;
    q->queued -= m;
    q->now = ev;
    q->pos = 1;
    q->len = q->lim = m;
    if (m > 1) return sort_slot(q, ev, m); /* a tail call: this path saves no registers */
    return &ev[0];
}

/* The earliest of now[] and hot, or NULL when both are empty. */
static const struct event *head(const struct calq *q) {
    const struct event *n = q->pos < q->len ? &q->now[q->pos] : NULL, *h = evq_top(&q->hot);
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
    if (!q->hot.len && q->pos >= q->len && q->queued) {
        /* The bucket is exhausted and the next one is in the ring: reach it
         * as calq_take does (a slot bucket sorted in place, no gathering).
         * Its first event past the limit is put back (it is now[0]); the
         * window then stands at a bucket no later than the limit's, where
         * every event still to be pushed belongs. */
        uint64_t c = next_bucket(q);
        if (c > limit_ps >> CALQ_WIDTH_LOG2) return NULL;
        e = calq_take_slow(q);
        FS_DASSERT(e == &q->now[0] && q->pos == 1, "calq: first event of a bucket");
        if (e->time_ps < limit_ps) return e;
        q->pos = 0;
        return NULL;
    }
    while (!(e = head(q))) {
        uint64_t c = upcoming(q);
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
    if (!q->queued) {
        const struct event *top = evq_top(&q->far);
        return top ? top->time_ps : UINT64_MAX;
    }
    uint32_t i = (uint32_t)next_bucket(q) & CALQ_MASK, m = q->meta[i].n;
    const struct calq_slot *s = &q->slot[i];
    uint64_t t = min_time(s->ev, m < CALQ_SLOT_EVENTS ? m : CALQ_SLOT_EVENTS, UINT64_MAX);
    uint32_t k = CALQ_SLOT_EVENTS;
    for (uint32_t id = s->next; k < m; id = q->chunk[id].next) {
        uint32_t c = m - k < CALQ_SLOT_EVENTS ? m - k : CALQ_SLOT_EVENTS;
        t = min_time(q->chunk[id].ev, c, t);
        k += c;
    }
    return t;
}

#include "core/calq.h"

#include "core/diag.h"
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>

#define CALQ_NONE UINT32_MAX
#define CALQ_UNSORTED 0x80000000u /* in a bucket's tail: appended out of order */
#define CALQ_TUNE_OPS 4096        /* operations between tuning decisions */
#define CALQ_WALK_MAX 4           /* mean sorted-insert steps before narrowing */
#define CALQ_SCAN_MAX 64          /* mean empty buckets per pop before widening */
#define CALQ_NB_LOG2_MAX 22       /* 4 M buckets (32 MiB of heads and tails) */
_Static_assert(CALQ_NB_LOG2_MAX < 31, "slab ids leave the tail's top bit free");
#define CALQ_WIDTH_LOG2_MIN 3 /* 8 ps */
#define CALQ_WALK_BOUND 8     /* sorted-insert steps before a bucket is left to sort */

static inline int before(const struct event *a, const struct event *b) {
    return a->time_ps < b->time_ps || (a->time_ps == b->time_ps && a->order < b->order);
}

void calq_init(struct calq *q, unsigned width_log2, unsigned nb_log2) {
    memset(q, 0, sizeof *q);
    q->width_log2 = width_log2;
    q->nb_log2 = nb_log2;
    q->nb_mask = (1u << nb_log2) - 1;
    q->bucket = fs_xmalloc(((size_t)1 << nb_log2) * sizeof *q->bucket);
    memset(q->bucket, 0xff, ((size_t)1 << nb_log2) * sizeof *q->bucket);
    q->slab_cap = 1024;
    q->slab = fs_xmalloc(q->slab_cap * sizeof *q->slab);
    q->free_head = CALQ_NONE;
    evq_init(&q->far, 64);
    q->far_bucket = UINT64_MAX;
    q->width_max_log2 = width_log2;
}

void calq_fini(struct calq *q) {
    free(q->slab);
    free(q->bucket);
    evq_fini(&q->far);
    memset(q, 0, sizeof *q);
}

static uint32_t node_alloc(struct calq *q) {
    uint32_t id = q->free_head;
    if (id != CALQ_NONE) {
        q->free_head = q->slab[id].next;
        return id;
    }
    if (q->slab_len == q->slab_cap) {
        q->slab_cap *= 2;
        q->slab = fs_xrealloc(q->slab, q->slab_cap * sizeof *q->slab);
    }
    return q->slab_len++;
}

/* Into its bucket, keeping it sorted. Events mostly arrive in time order
 * within a bucket, so the tail is checked first, then the head, then a walk
 * of at most CALQ_WALK_BOUND steps; past that the event is appended all the
 * same and the bucket marked unsorted: it is sorted once, when the window
 * reaches it (seek). The bucket being popped is always kept sorted. An
 * unbounded walk costs O(m) per insert for m events in a bucket, and a large
 * fabric started in step holds many events at the very same time stamps,
 * which no bucket width separates (issue 13: 12 steps per insert at 1,024
 * hosts); the sort costs O(log r) per event for r interleaved runs. */
static void insert(struct calq *q, const struct event *e) {
    uint32_t id = node_alloc(q);
    struct calq_node *nd = &q->slab[id];
    nd->ev = *e;
    nd->next = CALQ_NONE;
    uint32_t b = (uint32_t)(e->time_ps >> q->width_log2) & q->nb_mask;
    struct calq_bucket *bk = &q->bucket[b];
    q->in_window++;
    if (bk->head == CALQ_NONE) {
        bk->head = bk->tail = id;
        return;
    }
    uint32_t tail = bk->tail & ~CALQ_UNSORTED;
    if ((bk->tail & CALQ_UNSORTED) || !before(e, &q->slab[tail].ev)) {
        q->slab[tail].next = id;
        bk->tail = id | (bk->tail & CALQ_UNSORTED);
        return;
    }
    if (before(e, &q->slab[bk->head].ev)) {
        nd->next = bk->head;
        bk->head = id;
        return;
    }
    /* A sorted insert, bounded unless this is the bucket being popped. */
    uint32_t prev = bk->head, steps = 0,
             limit = b == ((uint32_t)q->cur & q->nb_mask) ? UINT32_MAX : CALQ_WALK_BOUND;
    while (!before(e, &q->slab[q->slab[prev].next].ev)) {
        prev = q->slab[prev].next;
        if (++steps == limit) {
            q->slab[tail].next = id;
            bk->tail = id | CALQ_UNSORTED;
            return;
        }
    }
    q->walk_sum += steps;
    nd->next = q->slab[prev].next;
    q->slab[prev].next = id;
}

/* Merges two sorted lists; *tail gets the result's last node. */
static uint32_t merge(struct calq *q, uint32_t a, uint32_t b, uint32_t *tail) {
    uint32_t head = CALQ_NONE, *link = &head, last = CALQ_NONE;
    while (a != CALQ_NONE && b != CALQ_NONE) {
        if (before(&q->slab[b].ev, &q->slab[a].ev)) {
            *link = last = b;
            b = q->slab[b].next;
        } else {
            *link = last = a;
            a = q->slab[a].next;
        }
        link = &q->slab[last].next;
    }
    *link = a != CALQ_NONE ? a : b;
    for (uint32_t x = *link; x != CALQ_NONE; x = q->slab[x].next)
        last = x;
    *tail = last;
    return head;
}

/* Sorts bucket b's list by (time, order): a natural merge sort. The list is
 * a few interleaved ascending runs (each kind of event is scheduled a fixed
 * delay after events popped in order), split at each descent and merged as
 * a binary counter: O(m log r) for r runs. Orders are unique: no ties. */
static void sort_bucket(struct calq *q, uint32_t b) {
    uint32_t stack[33], tails[33], depth = 0, tail = CALQ_NONE;
    for (uint32_t i = 0; i < 33; i++)
        stack[i] = CALQ_NONE;
    uint32_t p = q->bucket[b].head;
    while (p != CALQ_NONE) {
        uint32_t run = p, end = p;
        while (q->slab[end].next != CALQ_NONE &&
               !before(&q->slab[q->slab[end].next].ev, &q->slab[end].ev))
            end = q->slab[end].next;
        p = q->slab[end].next;
        q->slab[end].next = CALQ_NONE;
        uint32_t i = 0;
        for (; i < 32 && stack[i] != CALQ_NONE; i++) {
            run = merge(q, stack[i], run, &end);
            stack[i] = CALQ_NONE;
        }
        stack[i] = run;
        tails[i] = end;
        if (i + 1 > depth) depth = i + 1;
    }
    uint32_t list = CALQ_NONE;
    for (uint32_t i = 0; i < depth; i++) {
        if (stack[i] == CALQ_NONE) continue;
        if (list == CALQ_NONE) {
            list = stack[i];
            tail = tails[i];
        } else {
            list = merge(q, stack[i], list, &tail);
        }
    }
    q->bucket[b].head = list;
    q->bucket[b].tail = tail;
    q->sorted_buckets++;
}

/* Rebuilds the calendar with 2^w ps buckets, 2^nbl of them. The window's
 * span stays 2^(w+nbl) when width and count change by the same factor, so
 * no event moves between the calendar and the far heap but by the new
 * window start. Rare: at most once per CALQ_TUNE_OPS operations. */
static void resize(struct calq *q, unsigned w, unsigned nbl) {
    size_t cnt = q->in_window, k = 0;
    struct event *tmp = fs_xmalloc((cnt ? cnt : 1) * sizeof *tmp);
    for (uint32_t b = 0; b <= q->nb_mask; b++)
        for (uint32_t id = q->bucket[b].head; id != CALQ_NONE; id = q->slab[id].next)
            tmp[k++] = q->slab[id].ev;
    FS_ASSERT(k == cnt, "calendar holds %zu events, counted %zu", cnt, k);
    free(q->bucket);
    q->width_log2 = w;
    q->nb_log2 = nbl;
    q->nb_mask = (1u << nbl) - 1;
    q->bucket = fs_xmalloc(((size_t)1 << nbl) * sizeof *q->bucket);
    memset(q->bucket, 0xff, ((size_t)1 << nbl) * sizeof *q->bucket);
    q->slab_len = 0;
    q->free_head = CALQ_NONE;
    q->in_window = 0;
    q->cur = q->last_ps >> w;
    for (size_t i = 0; i < cnt; i++) {
        if ((tmp[i].time_ps >> w) - q->cur <= q->nb_mask) {
            insert(q, &tmp[i]);
        } else {
            evq_push(&q->far, tmp[i]);
        }
    }
    free(tmp);
    const struct event *top = evq_top(&q->far);
    q->far_bucket = top ? top->time_ps >> w : UINT64_MAX;
    q->walk_sum = q->scan_sum = 0;
    q->ops = 0;
}

/* Every CALQ_TUNE_OPS pops: the mean sorted-insert walk and the mean
 * empty-bucket scan per event (inserts and pops balance in a running
 * simulation, so pops serve as the count of both). */
static void tune(struct calq *q) {
    uint64_t ops = q->ops;
    /* Narrower buckets help only when events are spread over time, not when
     * many share a time stamp: so never more buckets than 4 per pending
     * event. */
    if (q->walk_sum > (uint64_t)CALQ_WALK_MAX * ops && q->width_log2 > CALQ_WIDTH_LOG2_MIN &&
        q->nb_log2 < CALQ_NB_LOG2_MAX && ((size_t)1 << q->nb_log2) < 4 * q->in_window) {
        resize(q, q->width_log2 - 1, q->nb_log2 + 1);
        return;
    }
    if (q->scan_sum > (uint64_t)CALQ_SCAN_MAX * ops && q->width_log2 < q->width_max_log2 &&
        q->nb_log2 > 4) {
        resize(q, q->width_log2 + 1, q->nb_log2 - 1);
        return;
    }
    q->walk_sum = q->scan_sum = 0;
    q->ops = 0;
}

void calq_push(struct calq *q, struct event e) {
    uint64_t b = e.time_ps >> q->width_log2;
    FS_DASSERT(b >= q->cur, "event in the past of the calendar window");
    if (b - q->cur <= q->nb_mask) {
        insert(q, &e);
    } else {
        evq_push(&q->far, e);
        if (b < q->far_bucket) q->far_bucket = b;
    }
}

/* Moves far events that the window now covers into their buckets. */
static void pull_far(struct calq *q) {
    const struct event *top;
    while ((top = evq_top(&q->far)) && (top->time_ps >> q->width_log2) - q->cur <= q->nb_mask) {
        struct event e;
        evq_pop(&q->far, &e);
        insert(q, &e);
    }
    q->far_bucket = top ? top->time_ps >> q->width_log2 : UINT64_MAX;
}

/* Advances the window to the first non-empty bucket (sorted, if it was left
 * unsorted); returns its index in the bucket array, or CALQ_NONE when the
 * queue is empty. */
static uint32_t seek(struct calq *q) {
    if (q->in_window == 0) {
        const struct event *top = evq_top(&q->far);
        if (!top) return CALQ_NONE;
        q->cur = top->time_ps >> q->width_log2;
        pull_far(q);
    }
    for (;;) {
        uint32_t b = (uint32_t)q->cur & q->nb_mask;
        if (q->bucket[b].head != CALQ_NONE) {
            if (q->bucket[b].tail & CALQ_UNSORTED) sort_bucket(q, b);
            return b;
        }
        q->cur++;
        q->scan_sum++;
        if (q->far_bucket - q->cur <= q->nb_mask) pull_far(q);
    }
}

int calq_pop(struct calq *q, struct event *out) {
    uint32_t b = (uint32_t)q->cur & q->nb_mask;
    const struct calq_bucket *bk = &q->bucket[b];
    if (bk->head == CALQ_NONE || (bk->tail & CALQ_UNSORTED)) { /* not the next event at hand */
        b = seek(q);
        if (b == CALQ_NONE) return FS_EEMPTY;
    }
    uint32_t id = q->bucket[b].head;
    struct calq_node *nd = &q->slab[id];
    *out = nd->ev;
    q->bucket[b].head = nd->next;
    nd->next = q->free_head;
    q->free_head = id;
    q->in_window--;
    q->last_ps = out->time_ps;
    if (++q->ops >= CALQ_TUNE_OPS) tune(q);
    return 0;
}

uint64_t calq_next_time(struct calq *q) {
    uint32_t b = seek(q);
    return b == CALQ_NONE ? UINT64_MAX : q->slab[q->bucket[b].head].ev.time_ps;
}

/* Parallel runs (par/par.c) push events received at a window boundary, all at
 * or after the boundary: the window must not have moved past it. */
int calq_pop_before(struct calq *q, uint64_t limit_ps, struct event *out) {
    uint64_t lb = limit_ps >> q->width_log2;
    for (;;) {
        uint32_t b = (uint32_t)q->cur & q->nb_mask;
        if (q->bucket[b].head != CALQ_NONE) {
            if (q->bucket[b].tail & CALQ_UNSORTED) sort_bucket(q, b);
            if (q->slab[q->bucket[b].head].ev.time_ps >= limit_ps) return FS_EEMPTY;
            return calq_pop(q, out);
        }
        if (q->cur >= lb) return FS_EEMPTY;
        if (q->in_window == 0) {
            const struct event *top = evq_top(&q->far);
            if (!top || top->time_ps >= limit_ps) return FS_EEMPTY;
            q->cur = top->time_ps >> q->width_log2;
            pull_far(q);
            continue;
        }
        q->cur++;
        q->scan_sum++;
        if (q->far_bucket - q->cur <= q->nb_mask) pull_far(q);
    }
}

uint64_t calq_peek_time(const struct calq *q) {
    const struct event *top = evq_top(&q->far);
    uint64_t far = top ? top->time_ps : UINT64_MAX;
    if (q->in_window == 0) return far;
    for (uint64_t c = q->cur;; c++) {
        const struct calq_bucket *bk = &q->bucket[(uint32_t)c & q->nb_mask];
        if (bk->head == CALQ_NONE) continue;
        uint64_t t = UINT64_MAX;
        for (uint32_t id = bk->head; id != CALQ_NONE; id = q->slab[id].next)
            if (q->slab[id].ev.time_ps < t) t = q->slab[id].ev.time_ps;
        return t < far ? t : far;
    }
}

#include "core/calq.h"

#include "core/diag.h"
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>

#define CALQ_NONE UINT32_MAX
#define CALQ_TUNE_OPS 4096    /* operations between tuning decisions */
#define CALQ_WALK_MAX 4       /* mean sorted-insert steps before narrowing */
#define CALQ_SCAN_MAX 64      /* mean empty buckets per pop before widening */
#define CALQ_NB_LOG2_MAX 22   /* 4 M buckets (32 MiB of heads and tails) */
#define CALQ_WIDTH_LOG2_MIN 3 /* 8 ps */

static inline int before(const struct event *a, const struct event *b) {
    return a->time_ps < b->time_ps || (a->time_ps == b->time_ps && a->order < b->order);
}

void calq_init(struct calq *q, unsigned width_log2, unsigned nb_log2) {
    memset(q, 0, sizeof *q);
    q->width_log2 = width_log2;
    q->nb_log2 = nb_log2;
    q->nb_mask = (1u << nb_log2) - 1;
    q->bucket = fs_xmalloc(((size_t)1 << nb_log2) * sizeof *q->bucket);
    q->tail = fs_xmalloc(((size_t)1 << nb_log2) * sizeof *q->tail);
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
    free(q->tail);
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

/* Into its bucket, keeping the bucket sorted. Events mostly arrive in time
 * order within a bucket, so the tail is checked first. */
static void insert(struct calq *q, const struct event *e) {
    uint32_t id = node_alloc(q);
    struct calq_node *nd = &q->slab[id];
    nd->ev = *e;
    uint32_t b = (uint32_t)(e->time_ps >> q->width_log2) & q->nb_mask;
    uint32_t head = q->bucket[b];
    q->in_window++;
    if (head == CALQ_NONE) {
        nd->next = CALQ_NONE;
        q->bucket[b] = q->tail[b] = id;
        return;
    }
    if (!before(e, &q->slab[q->tail[b]].ev)) {
        nd->next = CALQ_NONE;
        q->slab[q->tail[b]].next = id;
        q->tail[b] = id;
        return;
    }
    if (before(e, &q->slab[head].ev)) {
        nd->next = head;
        q->bucket[b] = id;
        return;
    }
    uint32_t prev = head;
    while (!before(e, &q->slab[q->slab[prev].next].ev)) {
        prev = q->slab[prev].next;
        q->walk_sum++;
    }
    nd->next = q->slab[prev].next;
    q->slab[prev].next = id;
}

/* Rebuilds the calendar with 2^w ps buckets, 2^nbl of them. The window's
 * span stays 2^(w+nbl) when width and count change by the same factor, so
 * no event moves between the calendar and the far heap but by the new
 * window start. Rare: at most once per CALQ_TUNE_OPS operations. */
static void resize(struct calq *q, unsigned w, unsigned nbl) {
    size_t cnt = q->in_window, k = 0;
    struct event *tmp = fs_xmalloc((cnt ? cnt : 1) * sizeof *tmp);
    for (uint32_t b = 0; b <= q->nb_mask; b++)
        for (uint32_t id = q->bucket[b]; id != CALQ_NONE; id = q->slab[id].next)
            tmp[k++] = q->slab[id].ev;
    FS_ASSERT(k == cnt, "calendar holds %zu events, counted %zu", cnt, k);
    free(q->bucket);
    free(q->tail);
    q->width_log2 = w;
    q->nb_log2 = nbl;
    q->nb_mask = (1u << nbl) - 1;
    q->bucket = fs_xmalloc(((size_t)1 << nbl) * sizeof *q->bucket);
    q->tail = fs_xmalloc(((size_t)1 << nbl) * sizeof *q->tail);
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

/* Advances the window to the first non-empty bucket; returns its index in
 * the bucket array, or CALQ_NONE when the queue is empty. */
static uint32_t seek(struct calq *q) {
    if (q->in_window == 0) {
        const struct event *top = evq_top(&q->far);
        if (!top) return CALQ_NONE;
        q->cur = top->time_ps >> q->width_log2;
        pull_far(q);
    }
    for (;;) {
        uint32_t b = (uint32_t)q->cur & q->nb_mask;
        if (q->bucket[b] != CALQ_NONE) return b;
        q->cur++;
        q->scan_sum++;
        if (q->far_bucket - q->cur <= q->nb_mask) pull_far(q);
    }
}

int calq_pop(struct calq *q, struct event *out) {
    uint32_t b = seek(q);
    if (b == CALQ_NONE) return FS_EEMPTY;
    uint32_t id = q->bucket[b];
    struct calq_node *nd = &q->slab[id];
    *out = nd->ev;
    q->bucket[b] = nd->next;
    nd->next = q->free_head;
    q->free_head = id;
    q->in_window--;
    q->last_ps = out->time_ps;
    if (++q->ops >= CALQ_TUNE_OPS) tune(q);
    return 0;
}

uint64_t calq_next_time(struct calq *q) {
    uint32_t b = seek(q);
    return b == CALQ_NONE ? UINT64_MAX : q->slab[q->bucket[b]].ev.time_ps;
}

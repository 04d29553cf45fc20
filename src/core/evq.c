#include "core/evq.h"

#include "core/diag.h"
#include "core/mem.h"

static inline int before(const struct event *a, const struct event *b) {
    return a->time_ps < b->time_ps || (a->time_ps == b->time_ps && a->order < b->order);
}

void evq_init(struct evq *q, size_t cap_hint) {
    q->cap = cap_hint ? cap_hint : 64;
    q->len = 0;
    q->heap = fs_xmalloc(q->cap * sizeof *q->heap);
}

void evq_fini(struct evq *q) {
    free(q->heap);
    q->heap = NULL;
    q->len = q->cap = 0;
}

void evq_push(struct evq *q, struct event e) {
    if (q->len == q->cap) {
        q->cap *= 2;
        q->heap = fs_xrealloc(q->heap, q->cap * sizeof *q->heap);
    }
    struct event *h = q->heap;
    size_t i = q->len++;
    while (i > 0) {
        size_t parent = (i - 1) >> 2;
        if (!before(&e, &h[parent])) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

int evq_pop(struct evq *q, struct event *out) {
    if (q->len == 0) return FS_EEMPTY;
    struct event *h = q->heap;
    *out = h[0];
    struct event last = h[--q->len];
    size_t n = q->len, i = 0;
    if (n == 0) return 0;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n) break;
        size_t best;
        if (c + 3 < n) { /* all four children: a two-round tournament */
            size_t b0 = before(&h[c + 1], &h[c]) ? c + 1 : c;
            size_t b1 = before(&h[c + 3], &h[c + 2]) ? c + 3 : c + 2;
            best = before(&h[b1], &h[b0]) ? b1 : b0;
        } else {
            best = c;
            for (size_t j = c + 1; j < n; j++)
                if (before(&h[j], &h[best])) best = j;
        }
        if (!before(&h[best], &last)) break;
        h[i] = h[best];
        i = best;
    }
    h[i] = last;
    return 0;
}

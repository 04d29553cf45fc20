/* src/stats/trace.c
 *
 * Attaching trace sinks. One sink is called directly (n->trace is its own
 * table); two or more go through a fan-out table whose context lists them,
 * in the order they were attached (so outputs are deterministic).
 */
#include "stats/trace.h"

#include "core/diag.h"
#include "core/mem.h"

#include <stdlib.h>

struct trace_fan {
    const struct trace_sink_ops *ops[TRACE_MAX_SINKS];
    void *ctx[TRACE_MAX_SINKS];
    uint32_t n;
};

static void fan_tx(void *ctx, const struct net *n, uint32_t port, const struct packet *p,
                   uint64_t now_ps) {
    const struct trace_fan *f = ctx;
    for (uint32_t i = 0; i < f->n; i++)
        if (f->ops[i]->on_tx) f->ops[i]->on_tx(f->ctx[i], n, port, p, now_ps);
}

static void fan_block(void *ctx, const struct net *n, uint32_t port, uint32_t cls,
                      enum trace_block why, uint64_t from_ps, uint64_t to_ps) {
    const struct trace_fan *f = ctx;
    for (uint32_t i = 0; i < f->n; i++)
        if (f->ops[i]->on_block) f->ops[i]->on_block(f->ctx[i], n, port, cls, why, from_ps, to_ps);
}

static void fan_link(void *ctx, const struct net *n, uint32_t port, bool up, uint64_t now_ps) {
    const struct trace_fan *f = ctx;
    for (uint32_t i = 0; i < f->n; i++)
        if (f->ops[i]->on_link) f->ops[i]->on_link(f->ctx[i], n, port, up, now_ps);
}

static void fan_end(void *ctx, const struct net *n, uint64_t now_ps) {
    const struct trace_fan *f = ctx;
    for (uint32_t i = 0; i < f->n; i++)
        if (f->ops[i]->on_end) f->ops[i]->on_end(f->ctx[i], n, now_ps);
}

static const struct trace_sink_ops fan_ops = {
    .on_tx = fan_tx, .on_block = fan_block, .on_link = fan_link, .on_end = fan_end};

void trace_attach(struct net *n, const struct trace_sink_ops *ops, void *ctx) {
    if (!n->trace) {
        n->trace = ops;
        n->trace_ctx = ctx;
        return;
    }
    struct trace_fan *f;
    if (n->trace == &fan_ops) {
        f = n->trace_ctx;
    } else {
        f = fs_xcalloc(1, sizeof *f);
        f->ops[0] = n->trace;
        f->ctx[0] = n->trace_ctx;
        f->n = 1;
    }
    FS_ASSERT(f->n < TRACE_MAX_SINKS, "more than %d trace sinks", TRACE_MAX_SINKS);
    f->ops[f->n] = ops;
    f->ctx[f->n++] = ctx;
    n->trace = &fan_ops;
    n->trace_ctx = f;
}

void trace_detach(struct net *n, void *ctx) {
    if (n->trace_ctx == ctx) {
        n->trace = NULL;
        n->trace_ctx = NULL;
        return;
    }
    if (n->trace != &fan_ops) return;
    struct trace_fan *f = n->trace_ctx;
    uint32_t k = 0;
    for (uint32_t i = 0; i < f->n; i++)
        if (f->ctx[i] != ctx) {
            f->ops[k] = f->ops[i];
            f->ctx[k++] = f->ctx[i];
        }
    f->n = k;
    if (k <= 1) {
        n->trace = k ? f->ops[0] : NULL;
        n->trace_ctx = k ? f->ctx[0] : NULL;
        free(f);
    }
}

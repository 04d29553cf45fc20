/* src/net/trace.h
 *
 * The trace hooks of the packet layer: what an output sink (stats/pcap.c,
 * stats/ctrace.c, par/ptrace.c) may see of the model, as one
 * `struct trace_sink_ops`. net/ and its strategies call the trace_* helpers
 * below; with no sink attached (n->trace == NULL) each costs one branch. The
 * sinks and their fan-out live above (stats/trace.h): net/ defines the seam
 * and names nothing that plugs into it (docs/architecture.md).
 */
#ifndef FABSIM_NET_TRACE_H
#define FABSIM_NET_TRACE_H

#include "net/net.h"

#include <stdbool.h>
#include <stdint.h>

struct packet;

/* Why an egress port could not send. */
enum trace_block { TRACE_BLOCK_PAUSE, TRACE_BLOCK_CREDIT };

/* Every member is optional (NULL = not interested). */
struct trace_sink_ops {
    /* `p` starts serialising on `port` at `now_ps`. */
    void (*on_tx)(void *ctx, const struct net *n, uint32_t port, const struct packet *p,
                  uint64_t now_ps);
    /* Egress `port` (class `cls`; NET_NCLASS = the whole port) stopped
     * sending at `from_ps` (to_ps == SIM_TIME_NEVER: it just began) or sent
     * again at `to_ps` after a block that began at `from_ps`. */
    void (*on_block)(void *ctx, const struct net *n, uint32_t port, uint32_t cls,
                     enum trace_block why, uint64_t from_ps, uint64_t to_ps);
    /* The link of `port` went down or came back up at `now_ps`. */
    void (*on_link)(void *ctx, const struct net *n, uint32_t port, bool up, uint64_t now_ps);
    /* The run is over: rows (flows, messages, collectives, control plane,
     * deadlock, sampler) are final. */
    void (*on_end)(void *ctx, const struct net *n, uint64_t now_ps);
};

/* The hooks the model calls. */
static inline void trace_tx(struct net *n, uint32_t port, const struct packet *p, uint64_t now) {
    if (n->trace && n->trace->on_tx) n->trace->on_tx(n->trace_ctx, n, port, p, now);
}
static inline void trace_block(struct net *n, uint32_t port, uint32_t cls, enum trace_block why,
                               uint64_t from_ps, uint64_t to_ps) {
    if (n->trace && n->trace->on_block)
        n->trace->on_block(n->trace_ctx, n, port, cls, why, from_ps, to_ps);
}
static inline void trace_link(struct net *n, uint32_t port, bool up) {
    if (n->trace && n->trace->on_link) n->trace->on_link(n->trace_ctx, n, port, up, n->sim->now_ps);
}
static inline void trace_end(struct net *n) {
    if (n->trace && n->trace->on_end) n->trace->on_end(n->trace_ctx, n, n->sim->now_ps);
}

#endif /* FABSIM_NET_TRACE_H */

/* src/stats/trace.h
 *
 * The packet trace hook: when a sink is attached (n->trace != NULL), every
 * packet that starts serialising on a link is shown to it. Off, the cost is
 * the one branch in port.c. Sinks: stats/pcap.c (pcap export).
 */
#ifndef FABSIM_STATS_TRACE_H
#define FABSIM_STATS_TRACE_H

#include <stdint.h>

struct net;
struct packet;

struct trace_sink_ops {
    /* `p` starts serialising on `port` at `now_ps`. */
    void (*on_tx)(void *ctx, const struct net *n, uint32_t port, const struct packet *p,
                  uint64_t now_ps);
};

#endif /* FABSIM_STATS_TRACE_H */

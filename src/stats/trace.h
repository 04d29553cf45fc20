/* src/stats/trace.h
 *
 * Attaching trace sinks: streaming outputs (stats/pcap.c: packets as pcap;
 * stats/ctrace.c: a Chrome/Perfetto timeline) see what the model does
 * through the hooks net/trace.h defines. Several sinks at once go through a
 * small fan-out (trace.c).
 */
#ifndef FABSIM_STATS_TRACE_H
#define FABSIM_STATS_TRACE_H

#include "net/trace.h"

/* Attaches a sink (at most TRACE_MAX_SINKS at once) / detaches it. */
#define TRACE_MAX_SINKS 4
void trace_attach(struct net *n, const struct trace_sink_ops *ops, void *ctx);
void trace_detach(struct net *n, void *ctx);

#endif /* FABSIM_STATS_TRACE_H */

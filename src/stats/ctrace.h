/* src/stats/ctrace.h
 *
 * A Chrome trace / Perfetto timeline of a run (`fabsim run --trace FILE`):
 * the JSON "traceEvents" format, one process per node (switch or host), one
 * thread per port and class (PFC pauses, credit stalls), lanes of flows and
 * collective transfers per host, collective calls per job, link events,
 * reconvergence and deadlock on a "fabric" process, per-link utilisation and
 * queue counters from the sampler. Streams through core/jw.h behind the trace
 * hooks (stats/trace.h); at most max_events events are written.
 */
#ifndef FABSIM_STATS_CTRACE_H
#define FABSIM_STATS_CTRACE_H

#include "core/file.h"
#include "core/jw.h"

#include <stdint.h>
#include <stdio.h>

struct net;
struct diag;

/* --trace-max default: about 100 MB of JSON, which Perfetto UI still loads. */
#define CTRACE_MAX_EVENTS_DEFAULT 1000000u

struct ctrace_lanes { /* per node: end time of each lane (non-overlapping slices) */
    uint64_t *end_ps;
    uint32_t n, cap;
};

struct ctrace_sink {
    FILE *f;           /* out.f */
    struct fs_out out; /* core/file.h */
    struct jw w;
    uint64_t max_events, written, dropped;
    uint32_t nslots;            /* ports x (NET_NCLASS + 1): PFC classes, then credits */
    uint64_t *open_ps;          /* per slot: block began then; UINT64_MAX = none */
    uint8_t *named;             /* per slot: thread name written */
    struct ctrace_lanes *lanes; /* per node, reused by flows then transfers */
    uint32_t nnodes;
    bool ended;
};

/* Opens `path` and attaches the sink to n. max_events 0 = the default.
 * 0, or FS_EINVAL with `d`. */
int ctrace_sink_open(struct ctrace_sink *s, struct net *n, const char *path, uint64_t max_events,
                     struct diag *d);
/* Detaches and finishes the file (call after model_run). 0, or -1 on a
 * write error. */
int ctrace_sink_close(struct ctrace_sink *s, struct net *n);
/* Detaches and removes the unfinished file (a run that did not end). */
void ctrace_sink_abort(struct ctrace_sink *s, struct net *n);

#endif /* FABSIM_STATS_CTRACE_H */

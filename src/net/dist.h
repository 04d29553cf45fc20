/* src/net/dist.h
 *
 * The seam a run split over several processes plugs into. The packet layer
 * does not know how the fabric is partitioned or how ranks talk; where it
 * needs the other ranks (the transmit on a link whose far end another rank
 * runs; a fabric-wide sum or OR before deadlock, HOQ or stuck detection
 * decides; an event scheduled at run time, which is a window boundary) it
 * calls through `n->dist`, which the parallel runner (par/) registers. With
 * no runner (n->dist == NULL, one process) each helper below is the identity
 * and costs one branch (docs/architecture.md).
 */
#ifndef FABSIM_NET_DIST_H
#define FABSIM_NET_DIST_H

#include "core/time.h"
#include "net/net.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jw;
struct stuck_info;

struct net_dist_ops {
    /* start_tx on a cut link (port.remote): the packet leaves this rank. */
    void (*out)(struct net *n, uint32_t port, uint32_t id);
    /* Collective over every rank: the sum / minimum of v; b OR-ed byte-wise. */
    uint64_t (*sum_u64)(struct net *n, uint64_t v);
    uint64_t (*min_u64)(struct net *n, uint64_t v);
    void (*or_bytes)(struct net *n, uint8_t *b, size_t len);
    /* Deadlock detection: every rank's wait-for edges, concatenated. */
    uint32_t (*gather_edges)(struct net *n, uint32_t **eu, uint32_t **eq, uint32_t nedges);
    /* A stuck run: the flows each rank named, merged as one process lists them. */
    void (*gather_stuck)(struct net *n, struct stuck_info *si);
    /* A diagnosis the split run cannot make: stop and say what. */
    void (*refuse)(struct net *n, const char *what);
    /* A scenario event scheduled at run time: its time is a window boundary. */
    void (*scheduled)(struct net *n, sim_time_ps t);
    /* Does this rank run node `node`'s events? */
    bool (*mine)(const struct net *n, uint32_t node);
    int (*ranks)(const struct net *n);
    /* Collective: every rank's `len` values, concatenated in rank order into
     * *out (the caller frees it); the total. The subnet manager's re-sweep
     * (ctrl/sm.c): the changed LFT blocks of each rank's switches. */
    uint32_t (*allgather_u32)(struct net *n, const uint32_t *v, uint32_t len, uint32_t **out);
    /* Collective, before a diagnosis that follows routes through every
     * switch (net/stuck.c): the rows of the static LFT that other ranks
     * hold (n->lft_row), gathered; every row is held from then on. */
    void (*lft_full)(struct net *n);
    /* Optional: the runner's own results.json members (stats/results.c). */
    void (*write_json)(const struct net *n, struct jw *w);
    /* model_fini: the runner's state goes (n->dist and n->par cleared). */
    void (*fini)(struct net *n);
};

static inline uint64_t net_sum_u64(struct net *n, uint64_t v) {
    return n->dist ? n->dist->sum_u64(n, v) : v;
}
static inline uint64_t net_min_u64(struct net *n, uint64_t v) {
    return n->dist ? n->dist->min_u64(n, v) : v;
}
static inline void net_or_bytes(struct net *n, uint8_t *b, size_t len) {
    if (n->dist) n->dist->or_bytes(n, b, len);
}
static inline bool net_mine(const struct net *n, uint32_t node) {
    return !n->dist || n->dist->mine(n, node);
}
static inline int net_ranks(const struct net *n) {
    return n->dist ? n->dist->ranks(n) : 1;
}
static inline void net_lft_full(struct net *n) {
    if (n->dist) n->dist->lft_full(n);
}
static inline void net_scheduled(struct net *n, sim_time_ps t) {
    if (n->dist) n->dist->scheduled(n, t);
}

#endif /* FABSIM_NET_DIST_H */

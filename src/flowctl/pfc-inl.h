/* src/flowctl/pfc-inl.h
 *
 * PFC's state (flowctl/pfc.c), and the common case of its per-hop accounting
 * inlined into the forwarding path (issue 13): a packet admitted below XOFF
 * and released with no pause asserted and no headroom in use only moves two
 * byte counters. net/switch.h and net/port.c take these paths when the
 * policy in force says it has them (n->fc_fast & FLOWCTL_FAST_PFC) and fall
 * back to the policy's table for everything else (pause assertion and
 * release, headroom, NICs, the dynamic threshold): the results are those of
 * the ops alone. Header-only and calling nothing of pfc.c (the slow cases go
 * through n->fc), so that net/ can inline it without depending on the module
 * that calls net/'s ports back (docs/architecture.md, tools/layers.py).
 */
#ifndef FABSIM_FLOWCTL_PFC_INL_H
#define FABSIM_FLOWCTL_PFC_INL_H

#include "core/diag.h"
#include "core/sim.h"
#include "flowctl/flowctl.h"
#include "net/net.h"

#include <stdbool.h>
#include <stdint.h>

#define PFC_NIC UINT32_MAX /* sw_of[] of a NIC's port */

/* Ingress side: one priority group per (port, class): 32 bytes. */
struct pg {
    uint64_t bytes;       /* admitted through this port, not yet left the node */
    uint64_t hdrm;        /* of which arrived while paused (headroom) */
    sim_time_ps since_ps; /* pause asserted since (NIC watchdog) */
    uint16_t gen;         /* bumped on XON: stale refresh events die */
    uint8_t paused;       /* XOFF sent, XON not yet */
    uint8_t wd_off;       /* NIC watchdog fired: no pause until the stall ends */
    uint32_t sw;          /* sw_of[port], on the line the hop reads anyway */
};
_Static_assert(sizeof(struct pg) == 32, "two groups per cache line");

/* Egress side: the pause this port obeys, per class. */
struct eg {
    sim_time_ps until_ps;  /* paused until (0 = not paused; port.fc_hold has bit cls set
                              exactly while it is not 0) */
    sim_time_ps from_ps;   /* paused time is accounted up to here (refreshes move it) */
    sim_time_ps began_ps;  /* start of the current continuous pause (for traces) */
    sim_time_ps ignore_ps; /* watchdog: pauses ignored until then */
    uint16_t wd_gen;       /* bumped when a continuous pause ends */
    uint16_t pad[3];
};

struct pfc_state {
    struct pg *pg; /* class-major: [class * nports + port] (pfc_pg), so the class in use
                      packs two ports' groups per cache line */
    struct pg *pg_cls[NET_NCLASS]; /* pg + class * nports */
    uint64_t xoff_fast;            /* xoff, or 0 with the dynamic threshold (always the ops) */
    struct eg *eg;                 /* port * NET_NCLASS + class */
    uint32_t nports;
    uint64_t *shared_used;        /* per switch index: bytes outside headroom (dynamic mode only:
                                     nothing reads it with the static threshold) */
    uint64_t *sw_buffer;          /* per switch index: shared pool (dynamic mode) */
    uint32_t *sw_of;              /* per port: its switch's index, PFC_NIC on a NIC (one load per
                                     hop instead of port -> node -> kind, index) */
    uint64_t headroom, xoff, xon; /* headroom: at the fabric's link rate (reports) */
    /* per ingress port: the headroom its own link needs (auto: from the
     * link's rate and propagation, so an NVLink port at 2.4 Tb/s gets twelve
     * times a 200 G port's; fixed: headroom for every port) */
    uint32_t *hdrm_of;
    bool dynamic; /* shared buffer: XOFF = alpha x the switch's free pool */
    uint32_t alpha_shift;
    sim_time_ps watchdog_ps;
    uint8_t *wd_warned; /* per port */
};

static inline struct pg *pfc_pg(const struct pfc_state *st, uint32_t port, uint32_t cls) {
    return st->pg_cls[cls] + port;
}

/* flowctl_pfc_ops.admit at a switch (out_port != NET_NONE) when the group
 * is not paused and stays at or below a static XOFF: the counts alone.
 * Only while n->fc is flowctl_pfc_ops (n->fc_fast & FLOWCTL_FAST_PFC). */
static inline bool pfc_admit_fast(struct net *n, uint32_t in_port, uint32_t out_port,
                                  struct packet *p) {
    struct pfc_state *st = n->fc_state;
    struct pg *g = pfc_pg(st, in_port, p->prio);
    if (__builtin_expect(g->paused || g->bytes + p->wire_bytes > st->xoff_fast, 0))
        return n->fc->admit(n, in_port, out_port, p);
    g->bytes += p->wire_bytes; /* static threshold: no shared pool to count (shared_used) */
    return true;
}

/* flowctl_pfc_ops.on_release at a switch's ingress port when the group is
 * not paused and holds no headroom bytes, with the static threshold (then
 * nothing reads shared_used, and neither path keeps it; the dynamic mode
 * always goes through the table). */
static inline void pfc_release_fast(struct net *n, uint32_t in_port, const struct packet *p) {
    struct pfc_state *st = n->fc_state;
    struct pg *g = pfc_pg(st, in_port, p->prio);
    uint32_t s = g->sw;
    if (__builtin_expect(s == PFC_NIC || g->paused || g->hdrm || !st->xoff_fast, 0)) {
        n->fc->on_release(n, in_port, p);
        return;
    }
    FS_DASSERT(g->bytes >= p->wire_bytes, "pg underflow on port %u", in_port);
    g->bytes -= p->wire_bytes;
}

/* flowctl_pfc_ops.admit at a NIC (out_port NET_NONE): a NIC whose host
 * drains drains at once, so it only clears the stall watchdog's mark; a
 * stalled host's NIC goes through the table. */
static inline bool pfc_admit_nic_fast(struct net *n, uint32_t in_port, struct packet *p) {
    if (__builtin_expect(n->nodes[n->ports[in_port].node].stalled, 0))
        return n->fc->admit(n, in_port, NET_NONE, p);
    pfc_pg(n->fc_state, in_port, p->prio)->wd_off = 0;
    return true;
}

/* flowctl_pfc_ops.on_release at a NIC's port: nothing (a NIC's group holds
 * bytes only while its host is stalled, and the resume resets them). */
static inline void pfc_release_nic_fast(struct net *n, uint32_t in_port, const struct packet *p) {
    (void)n, (void)in_port, (void)p;
}

#endif /* FABSIM_FLOWCTL_PFC_INL_H */

/* src/par/pevents.c
 *
 * Scenario events on several ranks (docs/parallel.md). Every rank runs every
 * scenario event (link_down/up, link_gray, link_flap, link_ber, host_stall)
 * on its replica of the fabric, and each one's time is a window boundary: a
 * link that goes down drops what is on its wire, which on a cut link may
 * only just have been sent by the other rank, and the drops it held are
 * summed over the ranks (a collective, so every rank must be at the same
 * point). The times are not all known at build (a gray link's detection, a
 * flap's next phase are scheduled by the event before them), so the times
 * pending are kept here, in time order: those of the build (par_setup), then
 * each one scheduled at run time (par_sc_scheduled, from model/model.c).
 *
 * What a scenario event changes is then the same on every rank: a link's up
 * state and routes (replicated), its loss rates (read by the receiving rank,
 * which draws from the link direction's own stream, as one process does), a
 * host's stalled flag (read by its own rank's NIC and PFC). What it holds is
 * one rank's: a stalled lossless NIC keeps what it receives, so the end of a
 * stall drains it on that rank only (par_mine).
 */
#include "core/diag.h"
#include "core/mem.h"
#include "net/net.h"
#include "par/pevents.h"
#include "par/par.h"

#include <string.h>

void pev_add(struct par *P, sim_time_ps t) {
    struct par_times *q = &P->sc;
    if (q->head == q->len) q->head = q->len = 0;
    if (q->len == q->cap) fs_grow((void **)&q->t, &q->cap, q->len + 1, sizeof *q->t);
    size_t i = q->len;
    while (i > q->head && q->t[i - 1] > t)
        i--;
    memmove(q->t + i + 1, q->t + i, (q->len - i) * sizeof *q->t);
    q->t[i] = t;
    q->len++;
}

void pev_pop(struct par *P, sim_time_ps t) {
    struct par_times *q = &P->sc;
    FS_ASSERT(q->head < q->len && q->t[q->head] == t,
              "scenario event at %llu ps: not the first pending one", (unsigned long long)t);
    q->head++;
}

sim_time_ps pev_next(const struct par *P) {
    const struct par_times *q = &P->sc;
    return q->head < q->len ? q->t[q->head] : SIM_TIME_NEVER;
}

void par_sc_scheduled(struct net *n, sim_time_ps t) {
    if (n->par) pev_add(n->par, t);
}

bool par_mine(const struct net *n, uint32_t node) {
    return !n->par || n->par->owner[node] == n->par->comm.rank;
}

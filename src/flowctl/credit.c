/* src/flowctl/credit.c
 *
 * InfiniBand credit-based link-level flow control (IBA vol. 1 ch. 7.9; docs/sources.md
 * A2). Every receiving port advertises its input buffer per VL in 64-byte
 * blocks; the transmitter on the other end of the link holds that many
 * credits and starts a packet only when it holds enough for all the packet's
 * blocks. When a packet leaves the receiver's buffer (a switch: starts on its
 * egress link; a NIC: consumed), its blocks become free and go back to the
 * transmitter in a flow-control packet (PKT_CREDIT, 8 B on the wire) over the
 * reverse link, served before data and paying that link's serialisation and
 * delay.
 *
 * InfiniBand sends them as IBA vol. 1 §7.9.4 says (docs/sources.md A2, "Flow
 * control packets"): per VL, carrying the absolute limit FCCL = blocks ever
 * freed + the buffer (mod 2^32 here, 2^12 in the spec), when the VL's credits
 * changed but no sooner than `fabric.credit_interval` after its previous FCP,
 * and at least once every `fabric.credit_refresh` (65,536 symbol times) even
 * when nothing changed. Because the count is absolute, a lost FCP is repaired
 * by the next one. A port whose credits did not change for a whole refresh
 * period sends that period's refresh and then stops until the next change:
 * the packets would repeat the same counts, and simulating them on every idle
 * link would keep a finished run's event queue busy; each one left out is 8 B
 * on an otherwise idle link. Ethernet CBFC (cbfc.c) keeps the incremental
 * updates of its own profile: batched, flushed after a delay.
 *
 * Buffer overflow is impossible by construction: admit() asserts it. The
 * conservation law, per link and VL, is
 *   credits held by the transmitter + data blocks on the wire
 *   + blocks in the receiver's buffer + freed blocks not yet returned
 *   + blocks in credit packets on their way back  ==  the buffer's size,
 * checked by credit_check_invariant (tests, mid-run and at the end).
 *
 * VL arbitration: SL->VL (n->sl2vl, applied by the NIC) puts each packet on a
 * VL = egress class; each port arbitrates with the IBA VLArb high and low
 * weighted round-robin tables (weights in 64 B units) and LimitOfHighPriority
 * (4 KB units, 255 = unlimited). Fairness among the input ports feeding one
 * output comes from the per-input credit pools: an input may have at most its
 * buffer's worth of packets waiting at any output, so under overload every
 * input holds the same number of packets in the output's FIFO and is served
 * in turn (k-to-1 incast shares C/k: docs/sources.md C, "k-to-1 incast").
 *
 * Links cut and restored (link_down/up): credits in flight are stale. IB:
 * link re-initialisation resets the flow-control counters at both ends, each
 * from its own state (credit_on_link_up: the transmitter to zero, the
 * receiver to its free space, advertised in FCPs by the receiver's rank), so
 * no rank reads another's port. CBFC: the transmitter re-synchronises with
 * the receiver's state. Credit packets carry the data link's generation
 * (port.fly_gen) in `psn`; stale ones are ignored.
 */
#include "flowctl/credit.h"
#include "flowctl/credit_core.h"
#include "flowctl/flowctl.h"

#include "net/params.h"
#include "core/diag.h"
#include "core/mem.h"
#include "net/net.h"
#include "net/port.h"
#include "net/trace.h"

#include <stdlib.h>
#include <string.h>

#define CREDIT_BLOCK 64 /* bytes per credit (docs/sources.md A2) */
#define NV NET_NCLASS
/* Timer kinds in the flow-control event's aux: 0 the CBFC flush, 1 + VL the
 * end of a VL's minimum interval, FCP_REFRESH a port's refresh. */
#define FCP_REFRESH 0x100u
/* IBA: the refresh period is 65,536 symbol times (docs/sources.md A2). */
#define FCP_REFRESH_SYMBOLS 65536ull
#define LANES 4 /* a 4x link: the rate's quarter per lane */

struct vlarb {
    uint8_t hi_idx, lo_idx;
    int32_t hi_left, lo_left; /* blocks left in the current entry */
    uint32_t hi_sent;         /* blocks sent from the high table since low last went */
};

struct credit_state {
    uint32_t vls;
    uint32_t block; /* bytes per credit: IB 64 B, CBFC fabric.cbfc.credit_unit */
    int32_t adjust; /* bytes a packet takes in the buffer minus its wire bytes (IB: 0) */
    uint32_t batch; /* blocks */
    sim_time_ps flush_ps;
    uint32_t *cap;          /* [port]: input buffer per VL at this port (as receiver), blocks */
    int64_t (*credits)[NV]; /* [port][vl]: held by this port as transmitter */
    int64_t (*occ)[NV];     /* [port][vl]: blocks in this port's input buffer */
    int64_t (*pending)[NV]; /* [port][vl]: freed, not yet returned */
    int64_t (*occ_max)[NV]; /* [port][vl]: the most occ ever held (CBFC: credit_admit_max) */
    uint16_t *gen;          /* [port]: fly_gen the credits were synced at */
    uint8_t *flush_armed;
    sim_time_ps *stall_since;
    struct vlarb *arb;
    struct ib_vlarb_entry high[16], low[16];
    uint32_t nhigh, nlow, high_limit_blocks;
    /* IBA flow-control packets (iba): absolute limits, interval, refresh */
    bool iba;
    sim_time_ps interval_ps;
    sim_time_ps *ivl_ps;        /* [port]: the interval at this receiver (capped, setup) */
    sim_time_ps refresh_ps;     /* UINT64_MAX: 65,536 symbol times at the link's rate */
    uint32_t (*fccl)[NV];       /* [port][vl] receiver: buffer + blocks ever freed */
    uint32_t (*adv)[NV];        /* [port][vl] receiver: the FCCL of its last FCP */
    uint32_t (*known)[NV];      /* [port][vl] transmitter: the FCCL last applied */
    sim_time_ps (*last_ps)[NV]; /* [port][vl] receiver: when its last FCP left */
    uint64_t (*fcps)[NV];       /* [port][vl] receiver: FCPs sent (tests) */
    uint8_t *refresh_armed;     /* [port] */
    uint8_t *active;            /* [port]: a change-driven FCP since the last refresh */
    uint8_t *lose_next;         /* [port] transmitter, tests: bit v = lose VL v's next FCP */
    uint16_t *rgen;             /* [port] receiver: the data link's fly_gen at its last init */
    uint64_t fcp_change, fcp_refresh;
};

static struct credit_state *cs(struct net *n) {
    return n->fc_state;
}

static inline uint32_t blocks_of(const struct credit_state *st, uint32_t wire_bytes) {
    return (uint32_t)((int64_t)wire_bytes + st->adjust + st->block - 1) / st->block;
}

/* Credit blocks for `vl` of data link `port` still on their way back: in the
 * reverse transmitter's control queue or on the reverse wire. */
static int64_t credits_returning(struct net *n, uint32_t port, uint32_t vl) {
    const struct credit_state *st = cs(n);
    if (st->iba) /* advertised, not yet applied: FCPs on their way or lost */
        return (int32_t)(st->adv[n->ports[port].peer][vl] - st->known[port][vl]);
    const struct port *rev = &n->ports[n->ports[port].peer];
    uint16_t g = n->ports[port].fly_gen;
    int64_t sum = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t id = pass ? rev->fly_head : rev->ctrl.head; id != PKT_NONE;
             id = pkt(&n->pool, id)->next) {
            const struct packet *p = pkt(&n->pool, id);
            if (p->type == PKT_CREDIT && p->prio == vl && p->psn == g) sum += p->aux;
        }
    return sum;
}

/* After the link was cut, start over. IBA (credit_on_link_up): link
 * re-initialisation resets the transmitter's count to zero and it waits for
 * the receiver's FCPs, which the receiver's own rank sends from its own
 * buffer; nothing here reads the other end, which on a link cut across MPI
 * ranks is another rank's and stale. CBFC: from what the receiver holds. */
static __attribute__((noinline, cold)) void resync(struct net *n, uint32_t port) {
    struct credit_state *st = cs(n);
    const struct port *pt = &n->ports[port];
    st->gen[port] = pt->fly_gen;
    uint32_t rx = pt->peer;
    if (st->iba) {
        for (uint32_t v = 0; v < NV; v++)
            st->known[port][v] = 0, st->credits[port][v] = 0;
        return;
    }
    for (uint32_t v = 0; v < NV; v++)
        st->credits[port][v] = (int64_t)st->cap[rx] - st->occ[rx][v] - st->pending[rx][v] -
                               credits_returning(n, port, v);
}

/* Every look at a transmitter's credits first checks the link was not cut
 * since (one compare on the hot path). */
static inline void sync(struct net *n, uint32_t port) {
    if (__builtin_expect(cs(n)->gen[port] != n->ports[port].fly_gen, 0)) resync(n, port);
}

static void send_credits(struct net *n, uint32_t in_port) {
    struct credit_state *st = cs(n);
    struct port *rev = &n->ports[in_port]; /* transmits back to the data sender */
    uint32_t data_port = rev->peer;
    for (uint32_t v = 0; v < NV; v++) {
        if (!st->pending[in_port][v]) continue;
        if (!rev->up || !n->ports[data_port].up) {
            /* nowhere to send: the link's re-initialisation will resync */
            st->pending[in_port][v] = 0;
            continue;
        }
        uint32_t id = pkt_alloc(&n->pool);
        struct packet *p = pkt(&n->pool, id);
        memset(p, 0, sizeof *p);
        p->type = PKT_CREDIT;
        p->prio = (uint8_t)v;
        p->aux = (uint32_t)st->pending[in_port][v];
        p->psn = n->ports[data_port].fly_gen;
        p->src = p->dst = rev->node;
        p->in_port = NET_NONE;
        p->wire_bytes = net_ctrl_wire_bytes(n, PKT_CREDIT);
        p->sent_ps = n->sim->now_ps;
        st->pending[in_port][v] = 0;
        n->c.credit_frames++;
        port_enqueue_ctrl(n, in_port, id);
    }
}

/* The refresh period of the link `port` transmits on, ps. */
static sim_time_ps refresh_of(const struct net *n, const struct credit_state *st, uint32_t port) {
    if (st->refresh_ps != UINT64_MAX) return st->refresh_ps;
    /* A symbol time: one byte on one lane (IBA's 8b/10b symbol; a byte of
     * the 64b/66b and PAM4 generations), docs/sources.md A2 (C). */
    uint64_t r = n->ports[port].rate_bps ? n->ports[port].rate_bps : 1;
    return (sim_time_ps)(FCP_REFRESH_SYMBOLS * 8 * LANES * PS_PER_S / r);
}

static void arm_refresh(struct net *n, struct credit_state *st, uint32_t port, sim_time_ps at) {
    st->refresh_armed[port] = 1;
    sim_at(n->sim, at, n->ports[port].node + 1, NET_EV_FLOWCTL, port, FCP_REFRESH);
}

/* IBA: the receiver at `in_port` sends VL `v`'s FCCL back over its own
 * transmitter (the reverse link). Nothing goes over a cut link: the link's
 * re-initialisation advertises afresh (credit_on_link_up). */
static void send_fcp(struct net *n, struct credit_state *st, uint32_t in_port, uint32_t v,
                     bool refresh) {
    struct port *rev = &n->ports[in_port];
    uint32_t data_port = rev->peer;
    if (!rev->up || !n->ports[data_port].up) return;
    uint32_t id = pkt_alloc(&n->pool);
    struct packet *p = pkt(&n->pool, id);
    memset(p, 0, sizeof *p);
    p->type = PKT_CREDIT;
    p->prio = (uint8_t)v;
    p->aux = st->fccl[in_port][v];
    p->psn = n->ports[data_port].fly_gen;
    p->src = p->dst = rev->node;
    p->in_port = NET_NONE;
    p->wire_bytes = net_ctrl_wire_bytes(n, PKT_CREDIT);
    p->sent_ps = n->sim->now_ps;
    st->adv[in_port][v] = st->fccl[in_port][v];
    st->last_ps[in_port][v] = n->sim->now_ps;
    st->fcps[in_port][v]++;
    n->c.credit_frames++;
    if (refresh) {
        st->fcp_refresh++;
    } else {
        st->fcp_change++;
        st->active[in_port] = 1;
        if (!st->refresh_armed[in_port])
            arm_refresh(n, st, in_port, n->sim->now_ps + refresh_of(n, st, in_port));
    }
    port_enqueue_ctrl(n, in_port, id);
}

/* IBA: VL `v`'s credits at `in_port` changed: an FCP now, or at the end of
 * the VL's minimum interval if one is under way. */
static void fcp_on_change(struct net *n, struct credit_state *st, uint32_t in_port, uint32_t v) {
    if (st->flush_armed[in_port] >> v & 1u) return; /* one is due at the interval's end */
    sim_time_ps due = st->last_ps[in_port][v] + st->ivl_ps[in_port];
    if (n->sim->now_ps >= due) {
        send_fcp(n, st, in_port, v, false);
        return;
    }
    st->flush_armed[in_port] |= (uint8_t)(1u << v);
    sim_at(n->sim, due, n->ports[in_port].node + 1, NET_EV_FLOWCTL, in_port, (uint16_t)(1 + v));
}

/* IBA: every VL whose last FCP is a refresh period old gets one, changed or
 * not; the port keeps refreshing while its credits move (or a change waits
 * for a cut link), else this was the last until the next change. */
static void on_refresh(struct net *n, struct credit_state *st, uint32_t port) {
    sim_time_ps now = n->sim->now_ps, R = refresh_of(n, st, port), next = SIM_TIME_NEVER;
    bool again = st->active[port];
    st->refresh_armed[port] = 0;
    st->active[port] = 0;
    for (uint32_t v = 0; v < st->vls; v++) {
        if (now - st->last_ps[port][v] >= R) send_fcp(n, st, port, v, true);
        if (st->fccl[port][v] != st->adv[port][v]) again = true;
        if (st->last_ps[port][v] + R < next) next = st->last_ps[port][v] + R;
    }
    if (again) arm_refresh(n, st, port, next > now ? next : now + R);
}

static void on_flush(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct credit_state *st = cs(n);
    if (!st->iba) {
        st->flush_armed[e->arg] = 0;
        send_credits(n, e->arg);
    } else if (e->aux == FCP_REFRESH) {
        on_refresh(n, st, e->arg);
    } else {
        uint32_t v = e->aux - 1u;
        st->flush_armed[e->arg] &= (uint8_t) ~(1u << v);
        if (st->fccl[e->arg][v] != st->adv[e->arg][v]) send_fcp(n, st, e->arg, v, false);
    }
}

/* IBA link (re-)initialisation, when `port` comes up (port_set_up, on
 * every rank at the same instant): for each direction of the link whose two
 * ends are up and whose data link was cut since its last init, the
 * transmitter starts from zero credits (resync) and the receiver from its
 * free space now: FCCL = buffer - blocks it still holds, so each block it
 * frees later adds one; the receiver's own rank (only it knows the buffer)
 * advertises every VL at once, as link init exchanges FCPs before data. A
 * direction not cut (only its FCPs' link was) keeps its counts: the absolute
 * FCCL repairs the FCPs lost meanwhile, sent now. */
static void credit_on_link_up(struct net *n, uint32_t port) {
    struct credit_state *st = cs(n);
    if (!st->iba) return; /* CBFC: the transmitter's lazy resync */
    for (int dir = 0; dir < 2; dir++) {
        uint32_t tx = dir ? n->ports[port].peer : port, rx = n->ports[tx].peer;
        if (!n->ports[tx].up || !n->ports[rx].up) continue;
        bool init = st->rgen[rx] != n->ports[tx].fly_gen;
        if (init) {
            sync(n, tx);
            st->rgen[rx] = n->ports[tx].fly_gen;
            for (uint32_t v = 0; v < NV; v++) {
                st->fccl[rx][v] = v < st->vls ? st->cap[rx] - (uint32_t)st->occ[rx][v] : 0;
                st->adv[rx][v] = 0;
            }
        }
        bool mine = !n->part_owner || n->part_owner[n->ports[rx].node] == n->part_rank;
        if (!mine) continue;
        for (uint32_t v = 0; v < st->vls; v++) {
            if (init)
                send_fcp(n, st, rx, v, false);
            else if (st->fccl[rx][v] != st->adv[rx][v])
                fcp_on_change(n, st, rx, v);
        }
    }
}

static void free_blocks(struct net *n, uint32_t in_port, uint32_t vl, uint32_t b) {
    struct credit_state *st = cs(n);
    if (st->iba) {
        st->fccl[in_port][vl] += b;
        fcp_on_change(n, st, in_port, vl);
        return;
    }
    st->pending[in_port][vl] += b;
    if (st->pending[in_port][vl] >= st->batch || st->flush_ps == 0) {
        send_credits(n, in_port);
    } else if (!st->flush_armed[in_port]) {
        st->flush_armed[in_port] = 1;
        sim_at(n->sim, n->sim->now_ps + st->flush_ps, n->ports[in_port].node + 1, NET_EV_FLOWCTL,
               in_port, 0);
    }
}

bool credit_admit(struct net *n, uint32_t in_port, uint32_t out_port, struct packet *p) {
    (void)out_port;
    struct credit_state *st = cs(n);
    uint32_t vl = p->prio % NV;
    st->occ[in_port][vl] += blocks_of(st, p->wire_bytes);
    /* The transmitter had the credits, so there is room: by construction. */
    FS_DASSERT(st->occ[in_port][vl] <= (int64_t)st->cap[in_port],
               "credit buffer overflow at port %u VL %u: %lld > %u blocks", in_port, vl,
               (long long)st->occ[in_port][vl], st->cap[in_port]);
    return true;
}

/* CBFC's admission: the high-water mark of each class buffer is kept
 * (credit_occupancy_max; what the lossless checks read), off IB's hop. */
bool credit_admit_max(struct net *n, uint32_t in_port, uint32_t out_port, struct packet *p) {
    credit_admit(n, in_port, out_port, p);
    struct credit_state *st = cs(n);
    uint32_t vl = p->prio % NV;
    if (st->occ[in_port][vl] > st->occ_max[in_port][vl])
        st->occ_max[in_port][vl] = st->occ[in_port][vl];
    return true;
}

bool credit_can_send(struct net *n, uint32_t port, uint32_t cls, uint32_t wire_bytes) {
    struct credit_state *st = cs(n);
    sync(n, port);
    if (st->credits[port][cls % NV] >= (int64_t)blocks_of(st, wire_bytes)) return true;
    if (st->stall_since[port] == SIM_TIME_NEVER) {
        st->stall_since[port] = n->sim->now_ps;
        trace_block(n, port, NET_NCLASS, TRACE_BLOCK_CREDIT, n->sim->now_ps, SIM_TIME_NEVER);
    }
    return false;
}

static void arb_charge(struct credit_state *st, uint32_t port, uint32_t vl, uint32_t b);

void credit_on_send(struct net *n, uint32_t port, struct packet *p) {
    struct credit_state *st = cs(n);
    sync(n, port);
    uint32_t vl = p->prio % NV, b = blocks_of(st, p->wire_bytes);
    FS_ASSERT(st->credits[port][vl] >= (int64_t)b, "sent without credits on port %u", port);
    st->credits[port][vl] -= b;
    if (st->stall_since[port] != SIM_TIME_NEVER) {
        n->ports[port].credit_stall_ps += n->sim->now_ps - st->stall_since[port];
        trace_block(n, port, NET_NCLASS, TRACE_BLOCK_CREDIT, st->stall_since[port], n->sim->now_ps);
        st->stall_since[port] = SIM_TIME_NEVER;
    }
    arb_charge(st, port, vl, b);
}

void credit_on_release(struct net *n, uint32_t in_port, const struct packet *p) {
    if (in_port == NET_NONE) return;
    struct credit_state *st = cs(n);
    uint32_t vl = p->prio % NV, b = blocks_of(st, p->wire_bytes);
    st->occ[in_port][vl] -= b;
    FS_DASSERT(st->occ[in_port][vl] >= 0, "negative occupancy at port %u", in_port);
    free_blocks(n, in_port, vl, b);
}

void credit_on_discard(struct net *n, uint32_t in_port, const struct packet *p) {
    const struct credit_state *st = cs(n);
    /* It held the transmitter's credits on its way in; give them back. */
    free_blocks(n, in_port, p->prio % NV, blocks_of(st, p->wire_bytes));
}

void credit_on_ctrl(struct net *n, uint32_t port, const struct packet *p) {
    if (p->type != PKT_CREDIT) return;
    struct credit_state *st = cs(n);
    /* The generation test first: a stale credit must not count after a resync. */
    if (p->psn != n->ports[port].fly_gen) return;
    sync(n, port);
    if (st->iba) {
        uint32_t v = p->prio % NV;
        if (__builtin_expect(st->lose_next[port] >> v & 1u, 0)) { /* tests: lost on the wire */
            st->lose_next[port] &= (uint8_t) ~(1u << v);
            return;
        }
        /* FCCL is absolute: only news counts (a refresh repeats, a later
         * FCP repairs a lost one). */
        int32_t d = (int32_t)(p->aux - st->known[port][v]);
        if (d <= 0) return;
        st->known[port][v] = p->aux;
        st->credits[port][v] += d;
        FS_DASSERT(st->credits[port][v] <= (int64_t)st->cap[n->ports[port].peer],
                   "credits beyond the buffer on port %u", port);
        port_kick(n, port);
        return;
    }
    st->credits[port][p->prio % NV] += p->aux;
    FS_DASSERT(st->credits[port][p->prio % NV] <= (int64_t)st->cap[n->ports[port].peer],
               "credits beyond the buffer on port %u", port);
    port_kick(n, port);
}

/* VLArb: the VL whose head packet should go first on `port`. */
static bool head_ready(struct net *n, uint32_t port, uint32_t vl) {
    const struct port *pt = &n->ports[port];
    uint32_t h = pt->cls[vl].head;
    if (h == PKT_NONE) return false;
    const struct credit_state *st = cs(n);
    return st->credits[port][vl] >= (int64_t)blocks_of(st, pkt(&n->pool, h)->wire_bytes);
}

static int table_pick(struct net *n, uint32_t port, const struct ib_vlarb_entry *t, uint32_t nt,
                      uint8_t *idx, int32_t *left) {
    for (uint32_t k = 0; k <= nt; k++) {
        uint32_t i = (*idx + k) % nt;
        if (t[i].weight == 0 || t[i].vl >= NV) continue;
        if (k == 0) { /* the current entry goes on while it has weight left */
            if (*left > 0 && head_ready(n, port, t[i].vl)) return t[i].vl;
            continue;
        }
        if (!head_ready(n, port, t[i].vl)) continue;
        *idx = (uint8_t)i;
        *left = t[i].weight;
        return t[i].vl;
    }
    return -1;
}

uint32_t credit_arbitrate(struct net *n, uint32_t port) {
    struct credit_state *st = cs(n);
    struct vlarb *a = &st->arb[port];
    sync(n, port);
    int vl = -1;
    bool hi_ok = st->high_limit_blocks == UINT32_MAX || a->hi_sent < st->high_limit_blocks;
    if (st->nhigh && hi_ok) vl = table_pick(n, port, st->high, st->nhigh, &a->hi_idx, &a->hi_left);
    if (vl < 0 && st->nlow) {
        vl = table_pick(n, port, st->low, st->nlow, &a->lo_idx, &a->lo_left);
        if (vl >= 0) a->hi_sent = 0;
    }
    if (vl < 0 && st->nhigh) /* low has nothing: high may exceed its limit */
        vl = table_pick(n, port, st->high, st->nhigh, &a->hi_idx, &a->hi_left);
    return vl < 0 ? n->ports[port].rr : (uint32_t)vl;
}

static void arb_charge(struct credit_state *st, uint32_t port, uint32_t vl, uint32_t b) {
    struct vlarb *a = &st->arb[port];
    if (st->nhigh && st->high[a->hi_idx].vl == vl && a->hi_left > 0) {
        a->hi_left -= (int32_t)b;
        a->hi_sent += b;
    } else if (st->nlow && st->low[a->lo_idx].vl == vl && a->lo_left > 0) {
        a->lo_left -= (int32_t)b;
    }
}

/* Sets up the credit state from `pr`: the InfiniBand profile (credit_init) or
 * CBFC's Ethernet one (cbfc.c). Buffers in bytes per class; 0 = error. */
int credit_setup(struct net *n, struct diag *d, const struct credit_profile *pr) {
    struct credit_state *st = fs_xcalloc(1, sizeof *st);
    n->fc_state = st;
    for (uint32_t p = 0; p < n->nports; p++) /* every send asks credit_can_send */
        n->ports[p].fc_hold = (uint8_t)((1u << NET_NCLASS) - 1);
    st->vls = pr->classes;
    st->block = pr->block_bytes;
    st->adjust = pr->adjust_bytes;
    uint64_t vlbuf = pr->switch_buffer_bytes, nicbuf = pr->nic_buffer_bytes;
    uint32_t mtu_blocks = blocks_of(st, net_data_wire_bytes(n, n->mtu_bytes, true));
    if (vlbuf / st->block < mtu_blocks || nicbuf / st->block < mtu_blocks)
        return diag_set(d, n->sc->file, (struct srcpos){0, 0}, FS_ERANGE,
                        "credit buffer per %s (%llu B switch, %llu B NIC) holds less than one "
                        "MTU packet (%u B); raise %s",
                        pr->class_word, (unsigned long long)vlbuf, (unsigned long long)nicbuf,
                        mtu_blocks * st->block, pr->raise_hint);
    st->batch = pr->batch_blocks ? pr->batch_blocks : 1;
    st->flush_ps = st->batch > 1 ? pr->flush_ps : 0;
    st->iba = pr->refresh_ps != 0;
    st->interval_ps = pr->interval_ps;
    st->refresh_ps = pr->refresh_ps;
    uint32_t P = n->nports;
    st->cap = fs_xcalloc(P + 1, sizeof *st->cap);
    st->credits = fs_xcalloc(P + 1, sizeof *st->credits);
    st->occ = fs_xcalloc(P + 1, sizeof *st->occ);
    st->pending = fs_xcalloc(P + 1, sizeof *st->pending);
    st->occ_max = fs_xcalloc(P + 1, sizeof *st->occ_max);
    st->gen = fs_xcalloc(P + 1, sizeof *st->gen);
    st->flush_armed = fs_xcalloc(P + 1, 1);
    st->stall_since = fs_xcalloc(P + 1, sizeof *st->stall_since);
    st->arb = fs_xcalloc(P + 1, sizeof *st->arb);
    for (uint32_t p = 0; p < P; p++) {
        bool host = n->nodes[n->ports[p].node].kind == NODE_HOST;
        st->cap[p] = (uint32_t)((host ? nicbuf : vlbuf) / st->block);
        st->stall_since[p] = SIM_TIME_NEVER;
    }
    for (uint32_t p = 0; p < P; p++) {
        st->gen[p] = n->ports[p].fly_gen;
        for (uint32_t v = 0; v < NV; v++)
            st->credits[p][v] = v < st->vls ? st->cap[n->ports[p].peer] : 0;
    }
    if (st->iba) {
        st->fccl = fs_xcalloc(P + 1, sizeof *st->fccl);
        st->adv = fs_xcalloc(P + 1, sizeof *st->adv);
        st->known = fs_xcalloc(P + 1, sizeof *st->known);
        st->last_ps = fs_xcalloc(P + 1, sizeof *st->last_ps); /* link init: an FCP at 0 */
        st->fcps = fs_xcalloc(P + 1, sizeof *st->fcps);
        st->refresh_armed = fs_xcalloc(P + 1, 1);
        st->active = fs_xcalloc(P + 1, 1);
        st->lose_next = fs_xcalloc(P + 1, 1);
        st->ivl_ps = fs_xcalloc(P + 1, sizeof *st->ivl_ps);
        st->rgen = fs_xcalloc(P + 1, sizeof *st->rgen);
        for (uint32_t p = 0; p < P; p++)
            st->rgen[n->ports[p].peer] = n->ports[p].fly_gen;
        for (uint32_t p = 0; p < P; p++)
            for (uint32_t v = 0; v < NV; v++) {
                st->fccl[p][v] = st->adv[p][v] = st->cap[p];
                st->known[p][v] = st->cap[n->ports[p].peer];
            }
        /* A receiver that returned credits less often than a quarter of
         * the time its buffer takes to drain at the link's rate would idle
         * the link (and no hardware pairs so small a buffer with so long an
         * interval): the interval is capped there (C, docs/sources.md A2).
         * At the defaults (256 KB per VL, 400 Gb/s: 1.3 us) the cap does not
         * bind; it does on NVLink ports (7.2 Tb/s: 73 ns). */
        for (uint32_t p = 0; p < P; p++) {
            uint64_t rate = n->ports[p].rate_bps ? n->ports[p].rate_bps : 1;
            double drain_ps =
                (double)st->cap[p] * st->block * 8.0 * (double)PS_PER_S / (double)rate;
            sim_time_ps cap_ps = (sim_time_ps)(drain_ps / 4);
            st->ivl_ps[p] = st->interval_ps < cap_ps ? st->interval_ps : cap_ps;
        }
    }
    /* Plain round robin unless credit_init sets the IBA VLArb tables: one
     * low-priority entry per class with weight 255 (up to 16 KB per turn). */
    st->nlow = st->vls;
    for (uint32_t v = 0; v < st->vls; v++)
        st->low[v] = (struct ib_vlarb_entry){(uint8_t)v, 255};
    st->high_limit_blocks = UINT32_MAX;
    for (int i = 0; i < 16; i++)
        n->sl2vl[i] = (uint8_t)((uint32_t)i % st->vls);
    sim_register(n->sim, NET_EV_FLOWCTL, on_flush);
    return 0;
}

static int credit_init(struct net *n, struct diag *d) {
    const struct ib_params *ib = &n->sc->fabric.ib;
    /* 4 data VLs: ConnectX default NUM_OF_VL (docs/sources.md A2). */
    uint32_t vls = ib->vls ? ib->vls : NV;
    if (vls > NV)
        return diag_set(d, n->sc->file, (struct srcpos){0, 0}, FS_ERANGE,
                        "fabric.vls: %u VLs; this model has 1..%u", vls, NV);
    /* Per-port buffer is not published (docs/sources.md A2, C): fabric.buffer split
     * over the VLs in use unless fabric.vl_buffer says otherwise. */
    uint64_t vlbuf = ib->vl_buffer_bytes ? ib->vl_buffer_bytes : n->buffer_bytes / vls;
    struct credit_profile pr = {
        .classes = vls,
        .block_bytes = CREDIT_BLOCK,
        .switch_buffer_bytes = vlbuf,
        .nic_buffer_bytes = ib->nic_buffer_bytes ? ib->nic_buffer_bytes : vlbuf,
        /* FCPs on change, at most one per VL per credit_interval (0.256 us:
         * the Mellanox IB OMNeT++ model's credMinTime for a 4x port, C),
         * and at least every credit_refresh (IBA: 65,536 symbol times);
         * docs/sources.md A2 "Flow control packets". */
        .interval_ps = ib->credit_interval_ps ? ib->credit_interval_ps : 256 * PS_PER_NS,
        .refresh_ps = ib->credit_refresh_ps ? ib->credit_refresh_ps : UINT64_MAX,
        .class_word = "VL",
        .raise_hint = "fabric.vl_buffer or fabric.buffer",
    };
    int rc = credit_setup(n, d, &pr);
    if (rc) return rc;
    struct credit_state *st = cs(n);
    /* SL -> VL: as given, else SL mod VLs (OpenSM without QoS maps all SLs
     * onto the data VLs). Applied at the NIC; all ports share the table. */
    for (int i = 0; i < 16; i++)
        n->sl2vl[i] = (uint8_t)(ib->sl2vl_set ? ib->sl2vl[i] % st->vls : (uint32_t)i % st->vls);
    /* VLArb: as given, else one low-priority entry per VL with weight 255
     * (plain round robin by up to 16 KB per turn). */
    st->nhigh = ib->nvlarb_high;
    memcpy(st->high, ib->vlarb_high, sizeof st->high);
    if (ib->nvlarb_low) {
        st->nlow = ib->nvlarb_low;
        memcpy(st->low, ib->vlarb_low, sizeof st->low);
    }
    uint32_t hl = ib->high_limit ? ib->high_limit : 255;
    st->high_limit_blocks = hl >= 255 ? UINT32_MAX : hl * 4096 / st->block;
    return 0;
}

void credit_fini(struct net *n) {
    struct credit_state *st = cs(n);
    if (!st) return;
    free(st->cap);
    free(st->credits);
    free(st->occ);
    free(st->pending);
    free(st->occ_max);
    free(st->gen);
    free(st->flush_armed);
    free(st->stall_since);
    free(st->arb);
    free(st->fccl);
    free(st->adv);
    free(st->known);
    free(st->last_ps);
    free(st->fcps);
    free(st->refresh_armed);
    free(st->active);
    free(st->lose_next);
    free(st->ivl_ps);
    free(st->rgen);
    free(st);
    n->fc_state = NULL;
}

uint64_t credit_ongoing_ps(const struct net *n, uint32_t port) {
    const struct credit_state *st = n->fc_state;
    sim_time_ps since = st->stall_since[port];
    return since == SIM_TIME_NEVER || since >= n->sim->now_ps ? 0 : n->sim->now_ps - since;
}

const struct flowctl_ops flowctl_credit_ops = {
    .name = "credit",
    .init = credit_init,
    .fini = credit_fini,
    .admit = credit_admit,
    .can_send = credit_can_send,
    .on_send = credit_on_send,
    .on_release = credit_on_release,
    .on_ctrl = credit_on_ctrl,
    .on_discard = credit_on_discard,
    .on_link_up = credit_on_link_up,
    .arbitrate = credit_arbitrate,
    .ongoing_ps = credit_ongoing_ps,
    .lossless = true,
};

int credit_check_invariant(struct net *n, char *why, size_t len) {
    struct credit_state *st = cs(n);
    if (!st || (n->fc != &flowctl_credit_ops && n->fc != &flowctl_cbfc_ops)) return 0;
    int bad = 0;
    for (uint32_t p = 0; p < n->nports; p++) {
        const struct port *pt = &n->ports[p];
        if (!pt->up || !n->ports[pt->peer].up) continue;
        sync(n, p);
        uint32_t rx = pt->peer;
        int64_t wire[NV] = {0};
        for (uint32_t id = pt->fly_head; id != PKT_NONE; id = pkt(&n->pool, id)->next) {
            const struct packet *q = pkt(&n->pool, id);
            if (q->type != PKT_CREDIT && q->type != PKT_PAUSE)
                wire[q->prio % NV] += blocks_of(st, q->wire_bytes);
        }
        for (uint32_t v = 0; v < st->vls; v++) {
            /* IBA: freed and not yet advertised */
            int64_t pend =
                st->iba ? (int32_t)(st->fccl[rx][v] - st->adv[rx][v]) : st->pending[rx][v];
            int64_t sum =
                st->credits[p][v] + wire[v] + st->occ[rx][v] + pend + credits_returning(n, p, v);
            if (sum != (int64_t)st->cap[rx]) {
                if (!bad)
                    snprintf(why, len,
                             "port %u VL %u: held %lld + wire %lld + buffer %lld + pending "
                             "%lld + returning %lld != %u",
                             p, v, (long long)st->credits[p][v], (long long)wire[v],
                             (long long)st->occ[rx][v], (long long)pend,
                             (long long)credits_returning(n, p, v), st->cap[rx]);
                bad++;
            }
        }
    }
    return bad;
}

void credit_debug_take(struct net *n, unsigned port, unsigned vl, long blocks) {
    struct credit_state *st = cs(n);
    if (st && (n->fc == &flowctl_credit_ops || n->fc == &flowctl_cbfc_ops) && port < n->nports)
        st->credits[port][vl % NV] -= blocks;
}

int64_t credit_occupancy_max(const struct net *n, uint32_t port, uint32_t cls) {
    const struct credit_state *st = n->fc_state;
    if (!st || (n->fc != &flowctl_credit_ops && n->fc != &flowctl_cbfc_ops)) return 0;
    return st->occ_max[port][cls % NV];
}

uint32_t credit_capacity(const struct net *n, uint32_t port, uint32_t *unit_bytes) {
    const struct credit_state *st = n->fc_state;
    if (!st || (n->fc != &flowctl_credit_ops && n->fc != &flowctl_cbfc_ops)) return 0;
    if (unit_bytes) *unit_bytes = st->block;
    return st->cap[port];
}

void credit_debug_lose_next(struct net *n, unsigned port, unsigned vl) {
    struct credit_state *st = cs(n);
    if (st && st->iba && port < n->nports) st->lose_next[port] |= (uint8_t)(1u << (vl % NV));
}

uint64_t credit_fcp_count(const struct net *n, uint32_t port, uint32_t vl) {
    const struct credit_state *st = n->fc_state;
    if (!st || !st->iba || n->fc != &flowctl_credit_ops || port >= n->nports) return 0;
    return st->fcps[port][vl % NV];
}

int64_t credit_held(struct net *n, uint32_t port, uint32_t vl) {
    struct credit_state *st = cs(n);
    if (!st || (n->fc != &flowctl_credit_ops && n->fc != &flowctl_cbfc_ops) || port >= n->nports)
        return 0;
    sync(n, port);
    return st->credits[port][vl % NV];
}

uint64_t credit_fcp_bytes(const struct net *n, uint32_t port) {
    uint64_t sum = 0;
    for (uint32_t v = 0; v < NV; v++)
        sum += credit_fcp_count(n, port, v);
    return sum * net_ctrl_wire_bytes(n, PKT_CREDIT);
}

void credit_fcp_totals(const struct net *n, uint64_t *change, uint64_t *refresh) {
    const struct credit_state *st = n->fc_state;
    bool ok = st && st->iba && n->fc == &flowctl_credit_ops;
    *change = ok ? st->fcp_change : 0;
    *refresh = ok ? st->fcp_refresh : 0;
}

/* src/flowctl/pfc.c
 *
 * Priority Flow Control (IEEE 802.1Qbb) as RoCEv2 fabrics run it. Every
 * switch counts, per ingress port and priority (a "priority group"), the bytes
 * that entered through that port and still sit in its buffer. Crossing XOFF
 * sends a real PAUSE frame upstream (class-enable + quanta) on the ingress
 * port's link, ahead of any data, so it reaches the sender after the link
 * delay; the sender's egress stops only then, after the packet it is
 * serialising. What arrives meanwhile goes to the headroom; if the headroom is
 * too small it overflows and the packet is dropped. Falling to XON sends a
 * PAUSE with quanta 0 (resume); while still above XON the switch refreshes the
 * pause before its quanta run out. A pause stops every packet of that class on
 * the link, whatever its destination (victim flows included).
 *
 * NICs pause too: a stalled host's NIC stops draining its receive buffer,
 * crosses XOFF and pauses its switch port without end (pause storm, docs/sources.md
 * V7). The PFC watchdog (pfc.watchdog) drops what waits in an egress queue
 * that stayed paused longer than the interval and ignores pauses on it until
 * none has come for one interval; a NIC stops sending pauses after a stall
 * that long, until the stall ends (docs/sources.md A4: Onyx switch watchdog, NIC
 * watchdog 100 ms; Guo et al. SIGCOMM'16 s4.3).
 */
#include "flowctl/flowctl.h"
#include "flowctl/pfc-inl.h"

#include "net/params.h"
#include "core/diag.h"
#include "core/mem.h"
#include "net/net.h"
#include "net/port.h"
#include "net/trace.h"

#include <stdlib.h>
#include <string.h>

/* 802.1Qbb: a quantum is 512 bit times; at most 65535 quanta (docs/sources.md A4). */
#define PFC_QUANTUM_BITS 512u
#define PFC_MAX_QUANTA 65535u

enum { EV_EXPIRE = 0, EV_REFRESH = 1, EV_WATCHDOG = 2 };

static struct pfc_state *st_of(struct net *n) {
    return n->fc_state;
}

static sim_time_ps quanta_ps(const struct port *pt, uint32_t quanta) {
    return time_serialise_ps((uint64_t)quanta * PFC_QUANTUM_BITS / 8u, pt->rate_bps);
}

/* XOFF of an ingress port of switch index `s`: static, or in dynamic mode
 * alpha x the switch's free pool. */
static inline uint64_t xoff_sw(const struct pfc_state *st, uint32_t s) {
    if (!st->dynamic) return st->xoff;
    uint64_t used = st->shared_used[s];
    uint64_t free_b = st->sw_buffer[s] > used ? st->sw_buffer[s] - used : 0;
    return free_b >> st->alpha_shift;
}

/* The ingress threshold above which a priority group asserts XOFF. */
static uint64_t xoff_of(const struct net *n, const struct pfc_state *st, uint32_t port) {
    const struct fabric_params *f = &n->sc->fabric;
    uint32_t node = n->ports[port].node;
    if (!st->dynamic || n->nodes[node].kind != NODE_SWITCH) return st->xoff;
    uint32_t s = n->nodes[node].index;
    uint64_t used = st->shared_used[s];
    uint64_t free_b = st->sw_buffer[s] > used ? st->sw_buffer[s] - used : 0;
    return free_b >> f->pfc.alpha_shift;
}

/* Sends a PAUSE (quanta > 0) or resume (quanta 0) for class `cls` out of
 * `port`: a link-level frame, served before any waiting packet. */
static void send_pause(struct net *n, uint32_t port, uint32_t cls, uint32_t quanta) {
    uint32_t id = pkt_alloc(&n->pool);
    struct packet *p = pkt(&n->pool, id);
    memset(p, 0, sizeof *p);
    p->type = PKT_PAUSE;
    p->prio = (uint8_t)cls;
    p->aux = quanta;
    p->src = n->ports[port].node;
    p->dst = n->ports[n->ports[port].peer].node;
    p->qp = NET_NONE;
    p->in_port = NET_NONE;
    p->wire_bytes = net_ctrl_wire_bytes(n, PKT_PAUSE);
    p->sent_ps = n->sim->now_ps;
    n->c.pause_frames++;
    if (!n->c.first_pause_ps && quanta) n->c.first_pause_ps = n->sim->now_ps;
    port_enqueue_ctrl(n, port, id);
}

static uint16_t ev_aux(uint32_t cls, uint32_t kind, uint16_t gen) {
    return (uint16_t)(cls | (kind << 2) | ((uint32_t)(gen & 0x0fffu) << 4));
}

/* XOFF: pause the upstream and keep refreshing at half the pause time, so
 * the sender never resumes while we are above XON. */
static void assert_pause(struct net *n, uint32_t port, uint32_t cls) {
    struct pfc_state *st = st_of(n);
    struct pg *g = pfc_pg(st, port, cls);
    g->paused = 1;
    g->since_ps = n->sim->now_ps;
    send_pause(n, port, cls, PFC_MAX_QUANTA);
    const struct port *pt = &n->ports[port];
    sim_at(n->sim, n->sim->now_ps + quanta_ps(pt, PFC_MAX_QUANTA) / 2, pt->node + 1, NET_EV_FLOWCTL,
           port, ev_aux(cls, EV_REFRESH, g->gen));
}

static void release_pause(struct net *n, uint32_t port, uint32_t cls) {
    struct pg *g = pfc_pg(st_of(n), port, cls);
    g->paused = 0;
    g->gen++;
    send_pause(n, port, cls, 0);
}

static bool below_xon(const struct net *n, const struct pfc_state *st, uint32_t port,
                      const struct pg *g) {
    if (g->hdrm) return false;
    const struct fabric_params *f = &n->sc->fabric;
    if (st->dynamic && n->nodes[n->ports[port].node].kind == NODE_SWITCH)
        return g->bytes + f->pfc.resume_offset_bytes <= xoff_of(n, st, port);
    return g->bytes <= st->xon;
}

static bool pfc_admit(struct net *n, uint32_t in_port, uint32_t out_port, struct packet *p) {
    struct pfc_state *st = st_of(n);
    uint32_t cls = p->prio;
    struct pg *g = pfc_pg(st, in_port, cls);
    if (out_port == NET_NONE) {
        /* A NIC drains at once unless its host is stalled: then its receive
         * buffer fills and it pauses the switch like any ingress. */
        uint32_t node = n->ports[in_port].node;
        if (!n->nodes[node].stalled) {
            g->wd_off = 0;
            return true;
        }
        /* It keeps what fits (XOFF plus the headroom its PAUSE needs to take
         * hold) until the host drains it again; past that, or once its
         * watchdog gave up pausing, what arrives is dropped. */
        if (g->wd_off || g->bytes + p->wire_bytes > st->xoff + st->hdrm_of[in_port]) return false;
        g->bytes += p->wire_bytes;
        if (!g->paused && g->bytes > st->xoff) assert_pause(n, in_port, cls);
        return true;
    }
    uint32_t s = st->sw_of[in_port];
    if (g->paused) {
        if (g->hdrm + p->wire_bytes > st->hdrm_of[in_port])
            return false; /* headroom overflow: the lossless promise is broken */
        g->hdrm += p->wire_bytes;
        g->bytes += p->wire_bytes;
        return true;
    }
    g->bytes += p->wire_bytes;
    if (st->dynamic) st->shared_used[s] += p->wire_bytes;
    if (g->bytes > xoff_sw(st, s)) assert_pause(n, in_port, cls);
    return true;
}

static bool pfc_can_send(struct net *n, uint32_t port, uint32_t cls, uint32_t wire_bytes) {
    (void)wire_bytes;
    const struct eg *e = &st_of(n)->eg[port * NET_NCLASS + cls];
    return e->until_ps <= n->sim->now_ps || e->ignore_ps > n->sim->now_ps;
}

static void pfc_on_release(struct net *n, uint32_t in_port, const struct packet *p) {
    if (in_port == NET_NONE) return;
    struct pfc_state *st = st_of(n);
    uint32_t s = st->sw_of[in_port];
    if (s == PFC_NIC) return; /* NIC: consumed at once (stall bytes are reset on resume) */
    uint32_t cls = p->prio;
    struct pg *g = pfc_pg(st, in_port, cls);
    uint32_t w = p->wire_bytes;
    FS_DASSERT(g->bytes >= w, "pg underflow on port %u", in_port);
    g->bytes -= w;
    if (g->hdrm) {
        uint64_t h = g->hdrm < w ? g->hdrm : w;
        g->hdrm -= h;
        w -= (uint32_t)h;
    }
    if (st->dynamic) st->shared_used[s] -= w;
    if (g->paused && below_xon(n, st, in_port, g)) release_pause(n, in_port, cls);
}

/* Closes a continuous pause of (port, cls) at `end`. */
static void end_pause(struct net *n, uint32_t port, uint32_t cls, sim_time_ps end) {
    struct eg *e = &st_of(n)->eg[port * NET_NCLASS + cls];
    if (e->until_ps == 0) return;
    if (end > e->from_ps) n->ports[port].paused_ps += end - e->from_ps;
    trace_block(n, port, cls, TRACE_BLOCK_PAUSE, e->began_ps, end);
    e->until_ps = 0;
    n->ports[port].fc_hold &= (uint8_t) ~(1u << cls);
    e->wd_gen++;
}

static void pfc_on_ctrl(struct net *n, uint32_t port, const struct packet *p) {
    if (p->type != PKT_PAUSE) return;
    struct pfc_state *st = st_of(n);
    uint32_t cls = p->prio;
    struct eg *e = &st->eg[port * NET_NCLASS + cls];
    sim_time_ps now = n->sim->now_ps;
    const struct port *pt = &n->ports[port];
    if (e->until_ps && e->until_ps <= now)
        end_pause(n, port, cls, e->until_ps); /* expired before this frame */
    if (p->aux == 0) {
        end_pause(n, port, cls, now);
        port_kick(n, port);
        return;
    }
    if (e->ignore_ps > now) {
        /* Storm state (Guo et al. SIGCOMM'16 s4.3, docs/sources.md A4): lossless
         * mode stays off until the pauses have stopped for an interval. */
        e->ignore_ps = now + st->watchdog_ps;
        return;
    }
    if (e->until_ps) {
        /* A refresh of a running pause: account what has elapsed, so a pause
         * that never ends (a storm) shows in paused_ns and the samples. */
        n->ports[port].paused_ps += now - e->from_ps;
        e->from_ps = now;
    } else {
        e->from_ps = e->began_ps = now;
        trace_block(n, port, cls, TRACE_BLOCK_PAUSE, now, SIM_TIME_NEVER);
        if (st->watchdog_ps && n->nodes[pt->node].kind == NODE_SWITCH)
            sim_at(n->sim, now + st->watchdog_ps, pt->node + 1, NET_EV_FLOWCTL, port,
                   ev_aux(cls, EV_WATCHDOG, e->wd_gen));
    }
    e->until_ps = now + quanta_ps(pt, p->aux);
    n->ports[port].fc_hold |= (uint8_t)(1u << cls); /* port_kick asks pfc_can_send */
    sim_at(n->sim, e->until_ps, pt->node + 1, NET_EV_FLOWCTL, port, ev_aux(cls, EV_EXPIRE, 0));
}

/* The watchdog: egress `port` has been paused for a whole interval. Drop what
 * waits in that class and ignore pauses for one interval. */
static void watchdog_fire(struct net *n, uint32_t port, uint32_t cls) {
    struct pfc_state *st = st_of(n);
    struct eg *e = &st->eg[port * NET_NCLASS + cls];
    sim_time_ps now = n->sim->now_ps;
    end_pause(n, port, cls, now);
    e->ignore_ps = now + st->watchdog_ps;
    if (!st->wd_warned[port]) {
        st->wd_warned[port] = 1;
        char name[64];
        net_port_name(n, port, name, sizeof name);
        net_warn(n, "pfc watchdog fired on %s at %.3f us: queue dropped, pauses ignored", name,
                 (double)now / 1e6);
    }
    port_flush_class(n, port, cls);
    port_kick(n, port);
}

static void on_event(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct pfc_state *st = st_of(n);
    uint32_t port = e->arg, cls = e->aux & 3u, kind = (e->aux >> 2) & 3u;
    uint16_t gen = (uint16_t)(e->aux >> 4);
    struct eg *eg = &st->eg[port * NET_NCLASS + cls];
    struct pg *g = pfc_pg(st, port, cls);
    switch (kind) {
    case EV_EXPIRE:
        if (eg->until_ps && eg->until_ps <= s->now_ps) {
            end_pause(n, port, cls, eg->until_ps);
            port_kick(n, port);
        }
        break;
    case EV_REFRESH: {
        if (!g->paused || (g->gen & 0x0fffu) != gen) break;
        uint32_t node = n->ports[port].node;
        if (n->nodes[node].kind == NODE_HOST) {
            /* The host resumed (its buffer drains at once), or the NIC
             * watchdog gives up pausing after a stall this long. */
            bool wd = st->watchdog_ps && s->now_ps - g->since_ps >= st->watchdog_ps;
            if (!n->nodes[node].stalled || wd) {
                g->bytes = 0;
                g->wd_off = n->nodes[node].stalled; /* disabled for this stall */
                release_pause(n, port, cls);
                break;
            }
        }
        send_pause(n, port, cls, PFC_MAX_QUANTA);
        sim_at(s, s->now_ps + quanta_ps(&n->ports[port], PFC_MAX_QUANTA) / 2,
               n->ports[port].node + 1, NET_EV_FLOWCTL, port, ev_aux(cls, EV_REFRESH, g->gen));
        break;
    }
    case EV_WATCHDOG:
        if (eg->until_ps > s->now_ps && (eg->wd_gen & 0x0fffu) == gen) watchdog_fire(n, port, cls);
        break;
    default:
        break;
    }
}

uint64_t pfc_headroom_auto(uint64_t rate_bps, uint64_t prop_ps, uint64_t switch_latency_ps,
                           uint32_t mtu_wire_bytes) {
    /* docs/sources.md A4 (802.1Qbb annex): MTU_sender + MTU_receiver + round-trip
     * propagation + response delay + the PFC frame (64 B + 20 B gap); D_intf
     * omitted as in the worked example. Response delay upper bound: 201 728
     * bit times at 100 G, 463 360 at 400 G (linear between). The model's
     * switch pipeline latency delays both the pause and the data in flight,
     * so the response term is at least 2 x rate x switch_latency. */
    double g = (double)rate_bps / 1e9;
    double resp_bits = g <= 100   ? 201728.0
                       : g >= 400 ? 463360.0
                                  : 201728.0 + (g - 100) / 300 * (463360.0 - 201728.0);
    double resp = resp_bits / 8.0;
    double pipe = 2.0 * (double)rate_bps / 8.0 * (double)switch_latency_ps / 1e12;
    if (pipe > resp) resp = pipe;
    double rtt = 2.0 * (double)rate_bps / 8.0 * (double)prop_ps / 1e12;
    return (uint64_t)(2.0 * mtu_wire_bytes + rtt + resp + 84.0 + 0.5);
}

static int pfc_init(struct net *n, struct diag *d) {
    (void)d;
    const struct fabric_params *f = &n->sc->fabric;
    struct pfc_state *st = fs_xcalloc(1, sizeof *st);
    n->fc_state = st;
    st->nports = n->nports;
    /* on huge pages when large: every switch hop reads a group at random */
    size_t pg_bytes = ((size_t)n->nports * NET_NCLASS + 1) * sizeof *st->pg;
    st->pg = fs_xaligned_huge(pg_bytes);
    memset(st->pg, 0, pg_bytes);
    for (uint32_t c = 0; c < NET_NCLASS; c++)
        st->pg_cls[c] = st->pg + (size_t)c * n->nports;
    st->eg = fs_xcalloc((size_t)n->nports * NET_NCLASS + 1, sizeof *st->eg);
    st->wd_warned = fs_xcalloc(n->nports + 1, 1);
    st->shared_used = fs_xcalloc(n->nswitches + 1, sizeof *st->shared_used);
    st->sw_buffer = fs_xcalloc(n->nswitches + 1, sizeof *st->sw_buffer);
    st->sw_of = fs_xmalloc(((size_t)n->nports + 1) * sizeof *st->sw_of);
    for (uint32_t pt = 0; pt < n->nports; pt++) {
        const struct node *nd = &n->nodes[n->ports[pt].node];
        st->sw_of[pt] = nd->kind == NODE_SWITCH ? nd->index : PFC_NIC;
        for (uint32_t c = 0; c < NET_NCLASS; c++)
            pfc_pg(st, pt, c)->sw = st->sw_of[pt];
    }
    st->alpha_shift = f->pfc.alpha_shift;
    st->dynamic = f->pfc.dynamic || f->buffer_sharing == BUFFER_SHARED;
    st->xoff = f->pfc.xoff_bytes;
    st->xon = f->pfc.xon_bytes;
    st->xoff_fast = st->dynamic ? 0 : st->xoff;
    st->watchdog_ps = f->pfc.watchdog_ps;
    uint32_t mtu_wire = net_data_wire_bytes(n, f->mtu_bytes, true);
    st->headroom = f->pfc.headroom_auto ? pfc_headroom_auto(f->link_bps, f->propagation_ps,
                                                            f->switch_latency_ps, mtu_wire)
                                        : f->pfc.headroom_bytes;
    /* Each ingress port's headroom from its own link (docs/sources.md A4: the
     * terms scale with the link's rate and propagation): ports at another
     * rate than fabric.link (NVLink inside a host, a host link) need their
     * own, or the lossless promise breaks there. */
    st->hdrm_of = fs_xmalloc(((size_t)n->nports + 1) * sizeof *st->hdrm_of);
    for (uint32_t pt = 0; pt < n->nports; pt++) {
        const struct port *po = &n->ports[pt];
        uint64_t h =
            !f->pfc.headroom_auto ? f->pfc.headroom_bytes
            : po->rate_bps == f->link_bps && po->prop_ps == f->propagation_ps
                ? st->headroom
                : pfc_headroom_auto(po->rate_bps, po->prop_ps, f->switch_latency_ps, mtu_wire);
        st->hdrm_of[pt] = h > UINT32_MAX ? UINT32_MAX : (uint32_t)h;
    }
    for (uint32_t v = 0; v < n->nnodes; v++) {
        const struct node *nd = &n->nodes[v];
        if (nd->kind != NODE_SWITCH) continue;
        /* The switch's buffer is one shared pool (docs/sources.md A3): switch_buffer
         * (auto: buffer per port times ports), less the headroom reserved
         * for each port's lossless priority. */
        uint64_t total =
            f->switch_buffer_bytes ? f->switch_buffer_bytes : n->buffer_bytes * nd->nports;
        uint64_t res = 0;
        for (uint32_t i = 0; i < nd->nports; i++)
            res += st->hdrm_of[nd->first_port + i];
        st->sw_buffer[nd->index] = total > res ? total - res : 0;
    }
    sim_register(n->sim, NET_EV_FLOWCTL, on_event);
    return 0;
}

static void pfc_fini(struct net *n) {
    struct pfc_state *st = n->fc_state;
    if (!st) return;
    free(st->pg);
    free(st->eg);
    free(st->wd_warned);
    free(st->shared_used);
    free(st->sw_buffer);
    free(st->sw_of);
    free(st->hdrm_of);
    free(st);
    n->fc_state = NULL;
}

uint64_t pfc_xoff_bytes(const struct net *n, uint32_t port) {
    const struct pfc_state *st = n->fc_state;
    return st ? xoff_of(n, st, port) : 0;
}

uint64_t pfc_headroom_bytes(const struct net *n) {
    const struct pfc_state *st = n->fc_state;
    return st ? st->headroom : 0;
}

static uint64_t pfc_ongoing_ps(const struct net *n, uint32_t port) {
    const struct pfc_state *st = n->fc_state;
    sim_time_ps now = n->sim->now_ps;
    uint64_t sum = 0;
    /* the classes paused: fc_hold has bit c set exactly while until_ps is not 0 */
    for (uint32_t hold = n->ports[port].fc_hold; hold; hold &= hold - 1) {
        const struct eg *e = &st->eg[port * NET_NCLASS + (uint32_t)__builtin_ctz(hold)];
        FS_DASSERT(e->until_ps, "port %u: fc_hold without a pause", port);
        sim_time_ps end = e->until_ps < now ? e->until_ps : now; /* expiry not yet handled */
        if (end > e->from_ps) sum += end - e->from_ps;
    }
    return sum;
}

const struct flowctl_ops flowctl_pfc_ops = {
    .name = "pfc",
    .init = pfc_init,
    .fini = pfc_fini,
    .admit = pfc_admit,
    .can_send = pfc_can_send,
    .on_release = pfc_on_release,
    .on_ctrl = pfc_on_ctrl,
    .ongoing_ps = pfc_ongoing_ps,
    .lossless = true,
    .fast = FLOWCTL_FAST_PFC,
};

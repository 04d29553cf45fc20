/* src/net/hoq.c
 *
 * InfiniBand head-of-queue lifetime and VL stall (IBA vol. 1 18.2.5.4,
 * docs/sources.md A12): a switch discards the packet at the head of an output VL
 * once it has waited longer than the port's HOQ lifetime (OpenSM:
 * head_of_queue_lifetime 0x12 = 1.07 s towards switches,
 * leaf_head_of_queue_lifetime 0x10 = 268 ms towards CAs); after
 * vl_stall_count discards in a row (7) the VL enters the stalled state and
 * drops what it holds. So credits are lossless for congestion, not for a
 * stall: a credit deadlock ends in discards after the lifetime, as a PFC
 * deadlock ends at the PFC watchdog. The discarded packets free their input
 * buffer (credits flow upstream again) and the RC transport recovers them.
 *
 * The wait is counted from the packet's arrival at the switch (its t_ps),
 * as the IBA switch lifetime limit (SwitchInfo LifeTimeValue, OpenSM
 * packet_life_time 0x12) counts it, not from its reaching the head: outside
 * a stall a packet waits microseconds behind others, so the two agree to
 * microseconds against lifetimes of 268 ms and more, and the forwarding path
 * stores nothing for it. One pending event: at the earliest head expiry over
 * all switch ports (or one lifetime from now when nothing waits). Left out:
 * the VLStalled state's 8 x HOQ-lifetime window during which a stalled VL
 * also drops arrivals (docs/model.md).
 */
#include "net/hoq.h"

#include "net/params.h"
#include "core/mem.h"
#include "flowctl/flowctl.h"
#include "net/net.h"
#include "net/port.h"
#include "net/dist.h"

#include <stdlib.h>

struct hoq_state {
    sim_time_ps life_sw_ps, life_ca_ps; /* towards a switch / a CA; NEVER = infinite */
    uint32_t stall_count;
    sim_time_ps next_ps; /* the pending scan */
    /* per port and class: discards in a row, and the packet that became head
     * at the last one (still the head at the next expiry: in a row) */
    uint8_t (*run)[NET_NCLASS];
    uint32_t (*last_head)[NET_NCLASS];
};

static sim_time_ps life_of(const struct net *n, const struct hoq_state *st, uint32_t port) {
    return n->nodes[n->ports[n->ports[port].peer].node].kind == NODE_HOST ? st->life_ca_ps
                                                                          : st->life_sw_ps;
}

static void schedule(struct net *n, struct hoq_state *st, sim_time_ps at) {
    if (at == SIM_TIME_NEVER || at >= st->next_ps) return;
    st->next_ps = at;
    sim_at(n->sim, at, 0, NET_EV_HOQ, 0, 0);
}

/* Discards the head packet of class c at switch port `port`. */
static void discard_head(struct net *n, uint32_t port, uint32_t c) {
    struct port *pt = &n->ports[port];
    struct pq *q = &pt->cls[c];
    uint32_t id = q->head;
    struct packet *p = pkt(&n->pool, id);
    q->head = p->next;
    if (q->head == PKT_NONE) {
        q->tail = PKT_NONE;
        pt->cls_mask &= (uint8_t) ~(1u << c);
    }
    q->bytes -= p->wire_bytes;
    /* the queue integral's running sum (port_q_area) with the bytes that leave */
    pt->q_bytes -= p->wire_bytes;
    pt->q_area_sub -= (unsigned __int128)p->wire_bytes * n->sim->now_ps;
    if (n->fc->on_release && p->in_port != NET_NONE) n->fc->on_release(n, p->in_port, p);
    n->port_fail[port].hoq_discards++;
    n->c.hoq_discards++;
    if (!n->c.first_hoq_ps) n->c.first_hoq_ps = n->sim->now_ps;
    port_drop(n, port, id);
}

/* When the head of class c at `port` has waited its lifetime; NEVER for a
 * packet made inside the switch (in-network reduction). */
static sim_time_ps head_expiry(const struct net *n, uint32_t port, uint32_t c, sim_time_ps life) {
    const struct packet *p = pkt((struct pkt_pool *)&n->pool, n->ports[port].cls[c].head);
    return p->in_port == NET_NONE ? SIM_TIME_NEVER : p->t_ps + life;
}

void hoq_on_event(struct sim *s, const struct event *e) {
    (void)e;
    struct net *n = s->model;
    struct hoq_state *st = n->hoq_state;
    sim_time_ps now = s->now_ps, next = SIM_TIME_NEVER;
    if (now != st->next_ps) return; /* superseded */
    st->next_ps = SIM_TIME_NEVER;
    for (uint32_t p = 0; p < n->nports; p++) {
        struct port *pt = &n->ports[p];
        if (n->nodes[pt->node].kind != NODE_SWITCH || !(pt->cls_mask & PORT_MASK_CLS)) continue;
        sim_time_ps life = life_of(n, st, p);
        if (life == SIM_TIME_NEVER) continue;
        for (uint32_t c = 0; c < NET_NCLASS; c++) {
            if (!(pt->cls_mask & (1u << c))) continue;
            if (head_expiry(n, p, c, life) <= now) {
                if (pt->cls[c].head != st->last_head[p][c]) st->run[p][c] = 0; /* it moved */
                discard_head(n, p, c);
                st->last_head[p][c] = pt->cls[c].head;
                if (++st->run[p][c] >= st->stall_count) {
                    /* VL stall: what the VL holds is dropped */
                    st->run[p][c] = 0;
                    while (pt->cls[c].head != PKT_NONE)
                        discard_head(n, p, c);
                }
                port_kick(n, p);
            }
            if ((pt->cls_mask & (1u << c)) && head_expiry(n, p, c, life) < next)
                next = head_expiry(n, p, c, life);
        }
    }
    sim_time_ps idle = st->life_ca_ps < st->life_sw_ps ? st->life_ca_ps : st->life_sw_ps;
    /* Several ranks (par/): a window boundary on every rank; the earliest
     * expiry and the work are the whole fabric's. */
    next = net_min_u64(n, next);
    if (net_sum_u64(n, n->work_pending) == 0) return;
    schedule(n, st, next < now + idle ? next : now + idle);
}

void hoq_start(struct net *n) {
    const struct fabric_params *f = &n->sc->fabric;
    if (f->kind != FABRIC_INFINIBAND || f->flow_control != FLOWCTL_CREDIT) return;
    if (f->hoq_lifetime_ps == SIM_TIME_NEVER && f->leaf_hoq_lifetime_ps == SIM_TIME_NEVER) return;
    if (!f->hoq_lifetime_ps || !f->leaf_hoq_lifetime_ps) return; /* hand-built: not set */
    struct hoq_state *st = fs_xcalloc(1, sizeof *st);
    st->life_sw_ps = f->hoq_lifetime_ps;
    st->life_ca_ps = f->leaf_hoq_lifetime_ps;
    st->stall_count = f->vl_stall_count ? f->vl_stall_count : 7;
    st->next_ps = SIM_TIME_NEVER;
    st->run = fs_xcalloc(n->nports + 1, sizeof *st->run);
    st->last_head = fs_xcalloc(n->nports + 1, sizeof *st->last_head);
    for (uint32_t p = 0; p < n->nports; p++)
        for (int c = 0; c < NET_NCLASS; c++)
            st->last_head[p][c] = PKT_NONE;
    n->hoq_state = st;
    sim_register(n->sim, NET_EV_HOQ, hoq_on_event);
    sim_time_ps idle = st->life_ca_ps < st->life_sw_ps ? st->life_ca_ps : st->life_sw_ps;
    schedule(n, st, n->sim->now_ps + idle);
}

sim_time_ps hoq_next_ps(const struct net *n) {
    const struct hoq_state *st = n->hoq_state;
    return st ? st->next_ps : SIM_TIME_NEVER;
}

sim_time_ps hoq_max_lifetime(const struct net *n) {
    const struct hoq_state *st = n->hoq_state;
    if (!st) return 0;
    sim_time_ps a = st->life_sw_ps == SIM_TIME_NEVER ? 0 : st->life_sw_ps;
    sim_time_ps b = st->life_ca_ps == SIM_TIME_NEVER ? 0 : st->life_ca_ps;
    return a > b ? a : b;
}

void hoq_fini(struct net *n) {
    struct hoq_state *st = n->hoq_state;
    if (st) {
        free(st->run);
        free(st->last_head);
    }
    free(n->hoq_state);
    n->hoq_state = NULL;
}

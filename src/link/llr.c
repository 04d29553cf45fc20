/* src/link/llr.c
 *
 * Link Level Retry (Ultra Ethernet 1.0 link layer and IEEE 802.3dj LLR;
 * docs/sources.md A16): every frame that starts on an LLR link gets the
 * link's next sequence number and stays in the transmitter's replay buffer
 * until the receiver acknowledges it. The receiver accepts frames in
 * sequence; a frame with a bad FCS (the BER / link_gray model,
 * net/port.c port_loses) makes it discard that frame and every later one
 * and send a NACK; the transmitter, on the NACK, replays from the bad frame
 * on, in order, before it sends anything new (go-back-N on one hop). ACKs
 * and NACKs are PCS control ordered sets (CtlOS), not frames: they take no
 * frame slot on the reverse link, only its propagation delay, and never
 * appear in a capture.
 *
 * The model keeps no copy of a frame: the packet the receiver discards is
 * the replay buffer's copy, parked on the link's replay list (packet ids
 * linked through packet.next, no allocation) until the transmitter resends
 * it. Its bytes count against the replay buffer (replay_buffer, replay_frames)
 * from the first send until the ACK that covers it arrives back; a frame that
 * finds the buffer full goes out unprotected (802.3dj "LLR-ineligible",
 * best effort): lost, it is lost end to end. After max_replays failed
 * replays of one frame LLR gives up on it (counted as unrecovered) and the
 * transport's retransmission repairs it.
 *
 * A frame that vanished unseen (a gray link that does not count CRC errors)
 * is noticed by the next frame's sequence gap, or, if none follows, by the
 * transmitter's replay timer (replay_timer after the loss).
 */
#include "link/retry.h"

#include "core/diag.h"
#include "core/mem.h"
#include "core/sim.h"
#include "core/time.h"
#include "net/net.h"
#include "net/packet.h"
#include "net/params.h"
#include "net/port.h"

#include <stdlib.h>

/* Defaults (docs/sources.md A16; (C) = a choice, not published). */
#define LLR_REPLAY_FRAMES_DEFAULT 1000 /* SONiC LLR test plan profile: OUTSTANDING_FRAMES_MAX */
#define LLR_MAX_REPLAYS_DEFAULT 3      /* (C): SONiC UE link manager and an OMNeT++ UE model */
#define LLR_ACK_SPACING_DEFAULT 2048   /* SAI CTLOS_TARGET_SPACING default, read as bytes */
#define LLR_TIMER_DEFAULT_PS 1000000ULL /* 1 us (C): OMNeT++ UE link model llrTimeout */
#define LLR_ACK_RING 32                 /* ACKs in flight per link; more are merged */

enum { LLR_EV_ACK, LLR_EV_NACK };

struct llr_link {
    /* transmitter of the link (this port) */
    uint64_t sent_frames, sent_bytes;   /* protected new frames, since the start */
    uint64_t acked_frames, acked_bytes; /* covered by the ACKs that arrived */
    uint32_t rq_head;   /* replay list: frames the transmitter resends next, in order */
    uint32_t rq_cursor; /* last frame of the current round in it (PKT_NONE: at the head) */
    /* Frames discarded since the last bad one while its NACK is on its way:
     * they go before the replay list when the NACK arrives. */
    uint32_t nq_head, nq_tail;
    uint8_t replaying; /* a NACK arrived: resend the replay list before anything new */
    /* receiver (the peer port) */
    uint8_t discarding;       /* a frame was bad: later ones are discarded (and parked) */
    uint32_t discard_left;    /* ...this many more, UINT32_MAX until the NACK is at the tx */
    uint32_t bad_id, bad_tries; /* the frame that failed last, and how often in a row */
    uint64_t rx_frames, rx_bytes; /* accepted in sequence, since the start */
    uint64_t rx_unacked_bytes;    /* accepted since the last ACK */
    /* ACKs on their way back: cumulative (frames, bytes), oldest first */
    uint64_t ack_frames[LLR_ACK_RING], ack_bytes[LLR_ACK_RING];
    uint8_t ack_head, ack_len;
};

struct llr_state {
    struct llr_link *link; /* [port] */
    uint64_t buffer_bytes;
    uint32_t buffer_frames, max_replays, ack_spacing;
    sim_time_ps timer_ps;
};

static struct llr_state *ls(struct net *n) {
    return n->lr_state;
}

/* When a CtlOS the receiver of link `port` sends about the frame arriving
 * now reaches the transmitter. The receiver's MAC checked the frame's FCS
 * when its last bit came in, a propagation delay after it left; the model
 * hands the frame over after the switch pipeline too (port.deliver_ps), so
 * the CtlOS goes back from the FCS time: the reverse link's propagation plus
 * one 66-bit block, and never before now. */
static sim_time_ps ctlos_at(const struct net *n, uint32_t port) {
    const struct port *pt = &n->ports[port], *rev = &n->ports[pt->peer];
    sim_time_ps now = n->sim->now_ps;
    sim_time_ps fcs = now - (pt->deliver_ps > pt->prop_ps ? pt->deliver_ps - pt->prop_ps : 0);
    sim_time_ps at = fcs + rev->prop_ps + time_serialise_ps(8, rev->rate_bps);
    return at > now ? at : now;
}

static void send_ack(struct net *n, uint32_t port) {
    struct llr_link *L = &ls(n)->link[port];
    L->rx_unacked_bytes = 0;
    n->c.llr_acks++;
    if (L->ack_len == LLR_ACK_RING) { /* merge into the newest: it will say more, as late */
        uint32_t last = (L->ack_head + L->ack_len - 1u) % LLR_ACK_RING;
        L->ack_frames[last] = L->rx_frames;
        L->ack_bytes[last] = L->rx_bytes;
        return;
    }
    uint32_t slot = (L->ack_head + L->ack_len++) % LLR_ACK_RING;
    L->ack_frames[slot] = L->rx_frames;
    L->ack_bytes[slot] = L->rx_bytes;
    sim_at(n->sim, ctlos_at(n, port), n->ports[port].peer_node + 1, NET_EV_LINK, port,
           LLR_EV_ACK);
}

/* Parks `id` on the replay list after this round's frames, or, while the
 * NACK is on its way, at the end of the round's own list. */
static void park(struct llr_link *L, struct pkt_pool *pp, uint32_t id) {
    struct packet *p = pkt(pp, id);
    if (L->discard_left == UINT32_MAX) {
        p->next = PKT_NONE;
        if (L->nq_tail == PKT_NONE)
            L->nq_head = id;
        else
            pkt(pp, L->nq_tail)->next = id;
        L->nq_tail = id;
        return;
    }
    if (L->rq_cursor == PKT_NONE) {
        p->next = L->rq_head;
        L->rq_head = id;
    } else {
        struct packet *c = pkt(pp, L->rq_cursor);
        p->next = c->next;
        c->next = id;
    }
    L->rq_cursor = id;
}

static void stop_discarding(struct net *n, uint32_t port) {
    struct llr_link *L = &ls(n)->link[port];
    L->discarding = 0;
    L->discard_left = 0;
    if (L->replaying) port_kick(n, port);
}

static bool llr_on_arrive(struct net *n, uint32_t port, uint32_t id, bool lost) {
    struct llr_state *st = ls(n);
    struct llr_link *L = &st->link[port];
    struct packet *p = pkt(&n->pool, id);
    if (!(p->flags & PKT_F_LLR)) { /* unprotected (replay buffer was full, or a CNP) */
        if (lost) n->c.llr_unrecovered++;
        return false;
    }
    if (L->discarding) { /* after a bad frame: discarded here, resent by the replay */
        park(L, &n->pool, id);
        if (L->discard_left != UINT32_MAX) {
            if (--L->discard_left == 0)
                stop_discarding(n, port);
            else
                port_kick(n, port); /* the transmitter may be waiting for it */
        }
        return true;
    }
    if (lost) {
        L->bad_tries = id == L->bad_id ? L->bad_tries + 1 : 1;
        L->bad_id = id;
        if (L->bad_tries > st->max_replays) {
            /* LLR gives up on this frame: the receiver moves past it (flush)
             * and the transport will have to resend it. */
            n->c.llr_unrecovered++;
            L->bad_tries = 0;
            L->bad_id = PKT_NONE;
            L->rx_frames++;
            L->rx_bytes += p->wire_bytes;
            return false;
        }
        n->c.llr_nacks++;
        L->discarding = 1;
        L->discard_left = UINT32_MAX;
        park(L, &n->pool, id);
        /* The receiver sees a bad FCS now; a frame that vanished is noticed
         * when the next one arrives, or by the transmitter's timer. */
        const struct port *pt = &n->ports[port];
        bool unseen = n->loss && !n->loss[port].errors && n->loss[port].drop > 0 &&
                      n->loss[port].ber == 0;
        sim_time_ps at = ctlos_at(n, port);
        if (unseen)
            at = (pt->fly_head != PKT_NONE ? pkt(&n->pool, pt->fly_head)->t_ps
                                           : n->sim->now_ps + st->timer_ps) +
                 n->ports[pt->peer].prop_ps;
        sim_at(n->sim, at, pt->peer_node + 1, NET_EV_LINK, port, LLR_EV_NACK);
        return true;
    }
    p->flags &= (uint8_t)~PKT_F_LLR;
    L->bad_tries = 0;
    L->rx_frames++;
    L->rx_bytes += p->wire_bytes;
    L->rx_unacked_bytes += p->wire_bytes;
    /* ACK every ack_spacing bytes, and when the link falls idle (a CtlOS
     * goes out in the idle stream at once). */
    if (L->rx_unacked_bytes >= st->ack_spacing || n->ports[port].fly_head == PKT_NONE)
        send_ack(n, port);
    return false;
}

static void on_event(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct llr_link *L = &ls(n)->link[e->arg];
    if (e->aux == LLR_EV_ACK) {
        if (!L->ack_len) return;
        L->acked_frames = L->ack_frames[L->ack_head];
        L->acked_bytes = L->ack_bytes[L->ack_head];
        L->ack_head = (uint8_t)((L->ack_head + 1) % LLR_ACK_RING);
        L->ack_len--;
        return;
    }
    /* NACK at the transmitter: what is on the wire now was sent after the
     * bad frame and will be discarded too; then the replay goes. */
    const struct port *pt = &n->ports[e->arg];
    uint32_t left = 0;
    for (uint32_t id = pt->fly_head; id != PKT_NONE; id = pkt(&n->pool, id)->next)
        left += (pkt(&n->pool, id)->flags & PKT_F_LLR) != 0;
    /* This round's frames go before what is left of an earlier replay. */
    if (L->nq_head != PKT_NONE) {
        pkt(&n->pool, L->nq_tail)->next = L->rq_head;
        L->rq_head = L->nq_head;
        L->rq_cursor = L->nq_tail;
        L->nq_head = L->nq_tail = PKT_NONE;
    }
    L->replaying = 1;
    if (left)
        L->discard_left = left;
    else
        stop_discarding(n, e->arg);
    port_kick(n, e->arg);
}

static uint32_t llr_pull(struct net *n, uint32_t port) {
    struct llr_link *L = &ls(n)->link[port];
    if (L->replaying && L->rq_head != PKT_NONE) {
        uint32_t id = L->rq_head;
        struct packet *p = pkt(&n->pool, id);
        L->rq_head = p->next;
        if (L->rq_cursor == id) L->rq_cursor = PKT_NONE;
        n->c.llr_replays++;
        n->c.llr_replay_bytes += p->wire_bytes;
        return id;
    }
    /* After the NACK, frames still on their way will be parked: wait for them. */
    if (L->discarding && L->discard_left != UINT32_MAX) return LINK_RETRY_HOLD;
    L->replaying = 0;
    return PKT_NONE;
}

static void llr_on_send(struct net *n, uint32_t port, struct packet *p) {
    struct llr_state *st = ls(n);
    struct llr_link *L = &st->link[port];
    if (L->sent_bytes - L->acked_bytes + p->wire_bytes > st->buffer_bytes ||
        L->sent_frames - L->acked_frames >= st->buffer_frames) {
        p->flags &= (uint8_t)~PKT_F_LLR;
        n->c.llr_ineligible++;
        return;
    }
    p->flags |= PKT_F_LLR;
    L->sent_frames++;
    L->sent_bytes += p->wire_bytes;
}

static int llr_init(struct net *n, struct diag *d) {
    (void)d;
    const struct llr_params *lp = &n->sc->fabric.llr;
    struct llr_state *st = fs_xcalloc(1, sizeof *st);
    n->lr_state = st;
    st->link = fs_xcalloc(n->nports + 1, sizeof *st->link);
    for (uint32_t p = 0; p < n->nports; p++) {
        st->link[p].rq_head = st->link[p].rq_cursor = PKT_NONE;
        st->link[p].nq_head = st->link[p].nq_tail = PKT_NONE;
        st->link[p].bad_id = PKT_NONE;
    }
    st->buffer_frames = lp->replay_frames ? lp->replay_frames : LLR_REPLAY_FRAMES_DEFAULT;
    st->max_replays = lp->max_replays ? lp->max_replays : LLR_MAX_REPLAYS_DEFAULT;
    st->ack_spacing = (uint32_t)(lp->ack_spacing_bytes ? lp->ack_spacing_bytes : LLR_ACK_SPACING_DEFAULT);
    st->timer_ps = lp->replay_timer_ps ? lp->replay_timer_ps : LLR_TIMER_DEFAULT_PS;
    st->buffer_bytes = lp->replay_buffer_bytes;
    if (!st->buffer_bytes) {
        /* auto: what the slowest-to-acknowledge link has unacknowledged at
         * line rate (a frame, the round trip of propagation, the ACK spacing),
         * twice over, so a replay never makes new frames unprotected. */
        uint64_t worst = 0;
        for (uint32_t p = 0; p < n->nports; p++) {
            const struct port *pt = &n->ports[p];
            uint64_t rtt_ps = pt->deliver_ps + n->ports[pt->peer].prop_ps;
            uint64_t b = (uint64_t)((double)pt->rate_bps * (double)rtt_ps / 8e12);
            if (b > worst) worst = b;
        }
        uint64_t frame = n->mtu_bytes + n->overhead_bytes + 16u;
        st->buffer_bytes = 2 * (worst + frame + st->ack_spacing);
    }
    sim_register(n->sim, NET_EV_LINK, on_event);
    return 0;
}

static void llr_fini(struct net *n) {
    struct llr_state *st = ls(n);
    if (!st) return;
    free(st->link);
    free(st);
    n->lr_state = NULL;
}

const struct link_retry_ops link_retry_llr_ops = {
    .name = "llr",
    .init = llr_init,
    .fini = llr_fini,
    .on_arrive = llr_on_arrive,
    .pull = llr_pull,
    .on_send = llr_on_send,
};

const struct link_retry_ops *link_retry_select(const struct net *n) {
    return n->sc->fabric.link_retry == LINK_RETRY_LLR ? &link_retry_llr_ops : NULL;
}

uint64_t llr_replay_buffer_bytes(const struct net *n) {
    const struct llr_state *st = n->lr_state;
    return st ? st->buffer_bytes : 0;
}

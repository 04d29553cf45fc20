/* src/link/llr.c
 *
 * Link Level Retry (Ultra Ethernet 1.0 link layer, IEEE 802.3dj LLR;
 * docs/sources.md A16). Every frame that starts on an LLR link is numbered
 * and kept in the transmitter's replay buffer until the receiver's ACK covers
 * it. The receiver accepts frames in sequence; a frame whose FCS is bad makes
 * it send a NACK and discard every later frame until the replay arrives; the
 * transmitter, on the NACK, resends the bad frame and everything it sent
 * after it, in order, before anything new (go-back-N on one hop). ACKs and
 * NACKs are PCS control ordered sets (CtlOS), not frames: they cost the
 * reverse link its propagation and one 66-bit block, take no frame slot, and
 * are not in a capture.
 *
 * Timing. The receiver's MAC knows a frame is bad when its last bit is in,
 * a propagation delay after the transmitter finished it; the model hands a
 * frame to the switch only after the pipeline latency too (port.deliver_ps).
 * So the fate of a protected frame is drawn from the link's loss stream when
 * it starts (port_link_loses: same stream, same order as at arrival), and
 * the NACK is scheduled for FCS time + reverse propagation + one block. What
 * the transmitter sent meanwhile is discarded at the receiver.
 *
 * Copies. At the NACK the replay list is built: the frames the receiver has
 * already discarded since the bad one (parked there, in order), then copies
 * of the protected frames still on the wire from the bad one on (pool
 * packets, no malloc; the originals are marked and freed silently when they
 * arrive), then what was left of an earlier replay. Replays pass the flow
 * control again only in the sense that they use the credits the originals
 * took (CBFC: an original discarded at the receiver never entered its
 * buffer; its copy does and frees the space once).
 *
 * Limits. A frame that finds the replay buffer (replay_buffer bytes or
 * replay_frames frames unacknowledged) full goes out unprotected (802.3dj
 * "LLR-ineligible", best effort): lost, it is lost end to end. After
 * max_replays failed replays of one frame (255: no limit) LLR gives up on it
 * (the receiver moves past it; counted as unrecovered) and the transport
 * resends it. A frame lost unseen (a gray link that does not count CRC
 * errors) is NACKed when the next frame reveals the sequence gap, or by the
 * transmitter's replay timer if none follows.
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
#include <string.h>

/* Defaults (docs/sources.md A16): UE spec 1.0.3 section 5.1 Table 5-9 as the
 * OTG model (open-traffic-generator/snappi) gives its registers' defaults,
 * and the SAI LLR profile of the SONiC LLR test plan. */
#define LLR_REPLAY_FRAMES_DEFAULT 2047   /* outstanding_seq_max (OTG default) */
#define LLR_MAX_REPLAYS_UNLIMITED 255    /* replay_count_max: 255 = no maximum (OTG default) */
#define LLR_ACK_SPACING_DEFAULT 2048     /* SAI CTLOS_TARGET_SPACING default, read as bytes */
#define LLR_TIMER_DEFAULT_PS 65535000ULL /* replay_timer_max 65535 ns (OTG default) */
#define LLR_ACK_RING 32                  /* ACKs in flight per link; more are merged */
#define LLR_GIVE_UP_RING 16              /* frames given up on, on one link's wire at once */

/* Event aux: bit 0 the kind, bits 1-15 the NACK's generation (a NACK for a
 * frame lost unseen is scheduled twice, at the timer and at the next frame's
 * arrival; the first to fire wins). */
enum { LLR_EV_ACK, LLR_EV_NACK };

struct llr_link {
    /* transmitter of the link (this port) */
    uint64_t sent_frames, sent_bytes;   /* protected new frames, since the start */
    uint64_t acked_frames, acked_bytes; /* covered by the ACKs that arrived */
    uint32_t rq_head;                   /* replay list: frames to resend, in order */
    uint8_t replaying;                  /* resend the replay list before anything new */
    uint8_t nack_pending;               /* a NACK is on its way: later bad frames add none */
    uint8_t discarding;                 /* receiver: the bad frame came in before its NACK left */
    uint8_t unseen;                     /* the pending NACK waits for the next frame's gap */
    uint16_t nack_gen;                  /* generation of the pending NACK's events */
    uint32_t bad_id;                    /* the frame the pending NACK is about */
    /* Frames LLR gave up on, on their way (oldest first): dropped when they
     * arrive, in the order they were sent. */
    uint32_t give_up[LLR_GIVE_UP_RING];
    uint8_t gu_head, gu_len;
    /* which frame failed last (qp, psn, type) and how many times running */
    uint32_t bad_qp, bad_psn, bad_tries;
    uint8_t bad_type;
    uint32_t pk_head, pk_tail; /* receiver: discarded while the NACK is on its way */
    /* receiver (the peer port) */
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

/* One 66-bit PCS block (a CtlOS) at the reverse link's rate. */
static sim_time_ps block_ps(const struct net *n, uint32_t port) {
    return time_serialise_ps(8, n->ports[n->ports[port].peer].rate_bps);
}

static sim_time_ps ser_ps(const struct port *pt, uint32_t bytes) {
    return pt->ps_per_byte ? (sim_time_ps)bytes * pt->ps_per_byte
                           : time_serialise_ps(bytes, pt->rate_bps);
}

/* The ACK for what arrives now reaches the transmitter: the FCS was checked
 * deliver_ps - prop_ps ago (the switch pipeline), plus the reverse
 * propagation and a block; never before now. */
static sim_time_ps ack_at(const struct net *n, uint32_t port) {
    const struct port *pt = &n->ports[port];
    sim_time_ps now = n->sim->now_ps;
    sim_time_ps fcs = now - (pt->deliver_ps > pt->prop_ps ? pt->deliver_ps - pt->prop_ps : 0);
    sim_time_ps at = fcs + n->ports[pt->peer].prop_ps + block_ps(n, port);
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
    sim_at(n->sim, ack_at(n, port), n->ports[port].peer_node + 1, NET_EV_LINK, port, LLR_EV_ACK);
}

/* `p` starts on `port` protected (first send or replay): its fate on the
 * wire is drawn now; a bad frame that is the first since the last NACK left
 * makes the receiver NACK at its FCS time. */
static void schedule_nack(struct net *n, uint32_t port, sim_time_ps at) {
    struct llr_link *L = &ls(n)->link[port];
    sim_at(n->sim, at, n->ports[port].peer_node + 1, NET_EV_LINK, port,
           (uint16_t)(LLR_EV_NACK | (L->nack_gen & 0x7fffu) << 1));
}

static void draw(struct net *n, uint32_t port, uint32_t id) {
    struct llr_state *st = ls(n);
    struct llr_link *L = &st->link[port];
    struct packet *p = pkt(&n->pool, id);
    const struct port *pt = &n->ports[port];
    /* When this frame's FCS is checked the receiver sees the sequence gap
     * of a frame lost unseen before it. */
    sim_time_ps fcs = n->sim->now_ps + ser_ps(pt, p->wire_bytes) + pt->prop_ps;
    sim_time_ps back = n->ports[pt->peer].prop_ps + block_ps(n, port);
    if (L->nack_pending && L->unseen) {
        L->unseen = 0;
        schedule_nack(n, port, fcs + back);
    }
    if (!port_link_loses(n, port, p) || L->nack_pending) return;
    bool same = p->qp == L->bad_qp && p->psn == L->bad_psn && p->type == L->bad_type;
    L->bad_tries = same ? L->bad_tries + 1 : 1;
    L->bad_qp = p->qp;
    L->bad_psn = p->psn;
    L->bad_type = p->type;
    if (st->max_replays != LLR_MAX_REPLAYS_UNLIMITED && L->bad_tries > st->max_replays) {
        /* replayed max_replays times: LLR gives up on it */
        FS_ASSERT(L->gu_len < LLR_GIVE_UP_RING, "port %u: %u given-up frames in flight", port,
                  (unsigned)L->gu_len);
        L->give_up[(L->gu_head + L->gu_len++) % LLR_GIVE_UP_RING] = id;
        L->bad_tries = 0;
        return;
    }
    L->nack_pending = 1;
    L->bad_id = id;
    n->c.llr_nacks++;
    n->port_fail[port].llr_nacks++;
    L->unseen = port_link_loss_unseen(n, port);
    schedule_nack(n, port, L->unseen ? fcs + back + st->timer_ps : fcs + back);
}

static bool llr_on_arrive(struct net *n, uint32_t port, uint32_t id, bool lost) {
    struct llr_state *st = ls(n);
    struct llr_link *L = &st->link[port];
    struct packet *p = pkt(&n->pool, id);
    if (!(p->flags & PKT_F_LLR)) { /* unprotected (the replay buffer was full, or a CNP) */
        if (lost) n->c.llr_unrecovered++;
        return false;
    }
    if (p->flags & PKT_F_LLR_STALE) { /* its copy is in the replay: discarded */
        pkt_free(&n->pool, id);
        return true;
    }
    if (L->gu_len && id == L->give_up[L->gu_head]) { /* the receiver moves past it */
        L->gu_head = (uint8_t)((L->gu_head + 1) % LLR_GIVE_UP_RING);
        L->gu_len--;
        L->rx_frames++;
        L->rx_bytes += p->wire_bytes;
        n->c.llr_unrecovered++;
        port_drop(n, port, id);
        return true;
    }
    if (L->nack_pending && (id == L->bad_id || L->discarding)) {
        /* the bad frame, or one after it, in before the NACK left */
        L->discarding = 1;
        p->next = PKT_NONE;
        if (L->pk_tail == PKT_NONE)
            L->pk_head = id;
        else
            pkt(&n->pool, L->pk_tail)->next = id;
        L->pk_tail = id;
        return true;
    }
    p->flags &= (uint16_t)~PKT_F_LLR;
    if (p->qp == L->bad_qp && p->psn == L->bad_psn && p->type == L->bad_type)
        L->bad_tries = 0; /* the frame that failed got through: its count starts over */
    L->rx_frames++;
    L->rx_bytes += p->wire_bytes;
    L->rx_unacked_bytes += p->wire_bytes;
    /* ACK every ack_spacing bytes, and when the link falls idle (a CtlOS
     * goes out in the idle stream at once). */
    if (L->rx_unacked_bytes >= st->ack_spacing || n->ports[port].fly_head == PKT_NONE)
        send_ack(n, port);
    return false;
}

/* The NACK reached the transmitter of `port`: build the replay list. */
static void on_nack(struct net *n, uint32_t port) {
    struct llr_link *L = &ls(n)->link[port];
    const struct port *pt = &n->ports[port];
    uint32_t head = L->pk_head, tail = L->pk_tail;
    /* The frames on the wire from the bad one on (all of them if it is in
     * already) are copied and their originals marked stale. */
    bool from = L->discarding;
    for (uint32_t id = pt->fly_head; id != PKT_NONE; id = pkt(&n->pool, id)->next) {
        struct packet *o = pkt(&n->pool, id);
        if (id == L->bad_id) from = true;
        if (!from || !(o->flags & PKT_F_LLR) || (o->flags & PKT_F_LLR_STALE)) continue;
        uint32_t c = pkt_alloc(&n->pool);
        struct packet *q = pkt(&n->pool, c);
        o = pkt(&n->pool, id); /* the pool may have grown */
        memcpy(q, o, sizeof *q);
        o->flags |= PKT_F_LLR_STALE;
        q->next = PKT_NONE;
        if (tail == PKT_NONE)
            head = c;
        else
            pkt(&n->pool, tail)->next = c;
        tail = c;
    }
    if (tail != PKT_NONE) { /* this round goes before what is left of the last */
        pkt(&n->pool, tail)->next = L->rq_head;
        L->rq_head = head;
    }
    L->pk_head = L->pk_tail = PKT_NONE;
    L->discarding = 0;
    L->nack_pending = 0;
    L->bad_id = PKT_NONE;
    L->replaying = L->rq_head != PKT_NONE;
    port_kick(n, port);
}

static void on_event(struct sim *s, const struct event *e) {
    struct net *n = s->model;
    struct llr_link *L = &ls(n)->link[e->arg];
    if ((e->aux & 1u) == LLR_EV_NACK) {
        if ((e->aux >> 1) != (L->nack_gen & 0x7fffu) || !L->nack_pending) return; /* superseded */
        L->nack_gen++;
        L->unseen = 0;
        on_nack(n, e->arg);
        return;
    }
    if (!L->ack_len) return;
    L->acked_frames = L->ack_frames[L->ack_head];
    L->acked_bytes = L->ack_bytes[L->ack_head];
    L->ack_head = (uint8_t)((L->ack_head + 1) % LLR_ACK_RING);
    L->ack_len--;
}

static uint32_t llr_pull(struct net *n, uint32_t port) {
    struct llr_link *L = &ls(n)->link[port];
    if (!L->replaying) return PKT_NONE;
    uint32_t id = L->rq_head;
    if (id == PKT_NONE) {
        L->replaying = 0;
        return PKT_NONE;
    }
    struct packet *p = pkt(&n->pool, id);
    L->rq_head = p->next;
    p->flags &= (uint16_t)~PKT_F_LLR_STALE;
    n->c.llr_replays++;
    n->c.llr_replay_bytes += p->wire_bytes;
    n->port_fail[port].llr_replays++;
    draw(n, port, id);
    return id;
}

/* Link `port` was cut: the parked frames and the replay list are lost with
 * what was on the wire (counted as drops on the link), the pending NACK is
 * void, and what was unacknowledged is forgotten; the link starts over. */
static void llr_on_down(struct net *n, uint32_t port) {
    struct llr_link *L = &ls(n)->link[port];
    for (int list = 0; list < 2; list++)
        for (uint32_t id = list ? L->rq_head : L->pk_head; id != PKT_NONE;) {
            uint32_t next = pkt(&n->pool, id)->next;
            port_drop(n, port, id);
            id = next;
        }
    L->rq_head = L->pk_head = L->pk_tail = PKT_NONE;
    L->replaying = L->nack_pending = L->discarding = L->unseen = 0;
    L->nack_gen++;
    L->bad_id = PKT_NONE;
    L->gu_len = 0;
    L->bad_tries = 0;
    /* Both ends re-synchronise (LLR re-initialises): nothing outstanding,
     * no ACK in flight counts (a stale ACK event finds an empty ring). */
    L->acked_frames = L->rx_frames = L->sent_frames;
    L->acked_bytes = L->rx_bytes = L->sent_bytes;
    L->rx_unacked_bytes = 0;
    L->ack_len = 0;
}

static void llr_on_send(struct net *n, uint32_t port, struct packet *p) {
    struct llr_state *st = ls(n);
    struct llr_link *L = &st->link[port];
    if (L->sent_bytes - L->acked_bytes + p->wire_bytes > st->buffer_bytes ||
        L->sent_frames - L->acked_frames >= st->buffer_frames) {
        p->flags &= (uint16_t)~PKT_F_LLR;
        n->c.llr_ineligible++;
        return;
    }
    p->flags |= PKT_F_LLR;
    L->sent_frames++;
    L->sent_bytes += p->wire_bytes;
    draw(n, port, (uint32_t)(p - n->pool.base));
}

static int llr_init(struct net *n, struct diag *d) {
    (void)d;
    const struct llr_params *lp = &n->sc->fabric.llr;
    struct llr_state *st = fs_xcalloc(1, sizeof *st);
    n->lr_state = st;
    st->link = fs_xcalloc(n->nports + 1, sizeof *st->link);
    for (uint32_t p = 0; p < n->nports; p++) {
        struct llr_link *L = &st->link[p];
        L->rq_head = L->pk_head = L->pk_tail = PKT_NONE;
        L->bad_id = PKT_NONE;
        L->bad_qp = UINT32_MAX;
    }
    st->buffer_frames = lp->replay_frames ? lp->replay_frames : LLR_REPLAY_FRAMES_DEFAULT;
    st->max_replays = lp->max_replays ? lp->max_replays : LLR_MAX_REPLAYS_UNLIMITED;
    st->ack_spacing =
        (uint32_t)(lp->ack_spacing_bytes ? lp->ack_spacing_bytes : LLR_ACK_SPACING_DEFAULT);
    st->timer_ps = lp->replay_timer_ps ? lp->replay_timer_ps : LLR_TIMER_DEFAULT_PS;
    st->buffer_bytes = lp->replay_buffer_bytes;
    if (!st->buffer_bytes) {
        /* auto: twice what a link has unacknowledged at line rate (a frame,
         * the propagation there and back, the receiver's pipeline before the
         * model accepts it, the ACK spacing), for the slowest link. */
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
    .on_down = llr_on_down,
};

const struct link_retry_ops *link_retry_select(const struct net *n) {
    return n->sc->fabric.link_retry == LINK_RETRY_LLR ? &link_retry_llr_ops : NULL;
}

uint64_t llr_replay_buffer_bytes(const struct net *n) {
    const struct llr_state *st = n->lr_state;
    return st ? st->buffer_bytes : 0;
}

/* src/xport/uet.c
 *
 * The Ultra Ethernet transport's multipath (UEC 1.0 PDS "entropy value",
 * docs/sources.md U1): with RUD each data packet leaves with an entropy value
 * (EV) chosen by the sender; the switches' ECMP hash reads it (route/ecmp.c
 * through packet.flow_hash), so consecutive packets of one QP spray over
 * the paths. Path feedback moves EVs off congested paths, as the reference
 * simulator's bitmap load balancer does (docs/sources.md U3, htsim
 * UecMpBitmap): an ACK echoing a CE mark adds uet.ecn_penalty to its EV, a
 * NAK of a trimmed packet uet.nack_penalty (at most 15); the sender walks
 * its EVs round robin and skips one with a penalty, decrementing it. An EV
 * that goes from clean to penalised counts as an entropy change
 * (results.json uet.entropy_changes). ROD keeps the QP's one EV: ordered
 * delivery needs one path.
 *
 * The EV a packet used is kept per QP in a ring indexed by PSN (the ACK
 * names the PSN), one byte each: entropies are at most 256.
 *
 * RUD's resends are per packet too: a NAK of a trimmed packet marks its PSN
 * in the same ring, and the NIC resends the lowest marked PSN before new
 * data (xport.h next_resend; the reference simulator's _rtx_queue, a map by
 * PSN, uec.cpp processNack / queueForRtx: docs/sources.md U4). Sprayed
 * packets are trimmed, and NAKed, in any PSN order: a ring of PSN ranges
 * merged when full (net/nic.c, IRN's holes, which come in order) lost the
 * NAKs below its newest range, and each lost one cost a timeout.
 */
#include "xport/xport.h"

#include "core/mem.h"
#include "net/net.h"
#include "net/packet.h"
#include "net/params.h"

#include <stdlib.h>
#include <string.h>

#define UET_MAX_PENALTY 15 /* htsim UecMpBitmap _max_penalty */
#define UET_RING 1024      /* PSNs remembered per QP (the receiver's default window) */
#define UET_ACKED 1u       /* psn_st: its SACK came back */
#define UET_NAKED 2u       /* psn_st: a NAK named it, not resent yet */

struct uet_qp {
    uint32_t idx;             /* next EV index to try */
    uint32_t nnak;            /* PSNs marked UET_NAKED */
    uint32_t nak_lo;          /* none marked below this */
    uint8_t pen[256];         /* penalty per EV index */
    uint8_t ev[UET_RING];     /* EV index each recent PSN left with */
    uint8_t psn_st[UET_RING]; /* ...and what came back for it (UET_ACKED, UET_NAKED) */
};

struct uet_state {
    struct uet_qp *qp;
    size_t cap;
    uint32_t mask; /* entropies - 1 */
    bool rud;      /* per-packet resends (RUD) */
    bool spray;    /* ...and per-packet entropy (RUD over more than one EV) */
};

static struct uet_qp *uet_qp_of(struct net *n, uint32_t qp) {
    struct uet_state *st = n->xp_state;
    if (qp >= st->cap) {
        size_t old = st->cap;
        fs_grow((void **)&st->qp, &st->cap, (size_t)qp + 1 > n->nqps ? (size_t)qp + 1 : n->nqps,
                sizeof *st->qp);
        memset(st->qp + old, 0, (st->cap - old) * sizeof *st->qp);
    }
    return &st->qp[qp];
}

static int uet_init(struct net *n, struct diag *d) {
    (void)d;
    struct uet_state *st = fs_xcalloc(1, sizeof *st);
    const struct uet_params *u = &n->sc->fabric.uet;
    st->mask = (u->entropies ? u->entropies : 1) - 1;
    st->rud = u->delivery == UET_RUD;
    st->spray = st->rud && st->mask > 0;
    n->xp_state = st;
    return 0;
}

static void uet_fini(struct net *n) {
    struct uet_state *st = n->xp_state;
    if (!st) return;
    free(st->qp);
    free(st);
    n->xp_state = NULL;
}

/* The next EV index: round robin, skipping (and forgiving by one) those
 * with a penalty; if every EV is penalised the walk takes the one it
 * stops at. */
static uint32_t next_ev(struct uet_qp *u, uint32_t mask) {
    for (uint32_t k = 0; k <= mask; k++) {
        uint32_t i = u->idx++ & mask;
        if (!u->pen[i]) return i;
        u->pen[i]--;
    }
    return u->idx++ & mask;
}

/* Clear the NAK mark of `psn` (resent, or acknowledged). */
static void nak_clear(struct uet_qp *u, uint32_t psn) {
    uint8_t *s = &u->psn_st[psn % UET_RING];
    if (!(*s & UET_NAKED)) return;
    *s &= (uint8_t)~UET_NAKED;
    u->nnak--;
}

static void uet_on_tx_data(struct net *n, uint32_t qp, struct packet *p) {
    struct uet_state *st = n->xp_state;
    struct qp *q = &n->qps[qp];
    /* RCCC: ask for credit while more is left to send (cc/nscc.c) */
    if (q->active) p->flags |= PKT_F_PULL_REQ;
    if (!st->rud) return; /* ROD: go-back-N, the QP's own flow hash, one path */
    struct uet_qp *u = uet_qp_of(n, qp);
    nak_clear(u, p->psn);
    u->psn_st[p->psn % UET_RING] = 0;
    if (!st->spray) return; /* one EV: the QP's own flow hash */
    uint32_t i = next_ev(u, st->mask);
    u->ev[p->psn % UET_RING] = (uint8_t)i;
    /* The EV is the UDP source port's role in the 5-tuple: the QP's own
     * entropy XOR the index, so QPs of one host pair use different EVs. */
    p->flow_hash = flow_digest(q->src, q->dst, (uint16_t)(q->entropy ^ i));
}

static void penalise(struct net *n, struct uet_qp *u, uint32_t i, uint32_t pen) {
    if (!pen) return;
    if (!u->pen[i]) n->c.entropy_changes++;
    uint32_t v = u->pen[i] + pen;
    u->pen[i] = (uint8_t)(v > UET_MAX_PENALTY ? UET_MAX_PENALTY : v);
}

/* Called before the NIC applies the feedback (net/nic.c): q->una is still
 * the old cumulative ACK. */
static void uet_on_feedback(struct net *n, uint32_t qp, const struct packet *p) {
    struct uet_state *st = n->xp_state;
    if (!st->rud) return;
    const struct uet_params *up = &n->sc->fabric.uet;
    struct uet_qp *u = uet_qp_of(n, qp);
    const struct qp *q = &n->qps[qp];
    if (p->type == PKT_ACK) {
        /* a cumulative ACK covers the marks below it; the SACKed PSN arrived */
        for (uint32_t psn = q->una; u->nnak && psn < p->aux && psn < q->max_sent_psn; psn++)
            nak_clear(u, psn);
        if (p->psn >= q->una && p->psn < q->max_sent_psn) {
            nak_clear(u, p->psn);
            u->psn_st[p->psn % UET_RING] |= UET_ACKED;
        }
    } else if (p->type == PKT_NAK) {
        /* [aux, psn): the PSNs to resend, each once, lowest first */
        for (uint32_t psn = p->aux > q->una ? p->aux : q->una;
             psn < p->psn && psn < q->max_sent_psn; psn++) {
            uint8_t *s = &u->psn_st[psn % UET_RING];
            if (*s & (UET_ACKED | UET_NAKED)) continue; /* arrived, or marked already */
            *s |= UET_NAKED;
            if (!u->nnak++ || psn < u->nak_lo) u->nak_lo = psn;
        }
    }
    if (!st->spray) return;
    if (p->type == PKT_ACK && (p->flags & PKT_F_ECN_CE))
        penalise(n, u, u->ev[p->psn % UET_RING], up->ecn_penalty);
    else if (p->type == PKT_NAK && (p->flags & PKT_F_TRIMMED)) /* the trimmed PSN: psn - 1 */
        penalise(n, u, u->ev[(p->psn - 1) % UET_RING], up->nack_penalty);
}

/* A timeout: the packets sent and not SACKed for a whole timeout were lost
 * without a trim (a dead link, a tail drop): their EVs get the largest
 * penalty (htsim PATH_TIMEOUT, applied to each lost packet's EV). */
static void uet_on_timeout(struct net *n, uint32_t qp) {
    struct uet_state *st = n->xp_state;
    if (!st->rud) return;
    struct uet_qp *u = uet_qp_of(n, qp);
    const struct qp *q = &n->qps[qp];
    uint32_t end = q->max_sent_psn - q->una > UET_RING ? q->una + UET_RING : q->max_sent_psn;
    /* the NIC goes back to the oldest unacknowledged PSN: that covers the marks */
    for (uint32_t psn = q->una; u->nnak && psn < end; psn++)
        nak_clear(u, psn);
    if (!st->spray) return;
    for (uint32_t psn = q->una; psn < end; psn++)
        if (!(u->psn_st[psn % UET_RING] & UET_ACKED))
            penalise(n, u, u->ev[psn % UET_RING], UET_MAX_PENALTY);
}

/* The lowest NAKed PSN not yet resent nor acknowledged (htsim resends its
 * _rtx_queue, ordered by PSN, before new data). */
static uint32_t uet_next_resend(struct net *n, uint32_t qp) {
    struct uet_state *st = n->xp_state;
    if (qp >= st->cap || !st->qp[qp].nnak) return NET_NONE;
    struct uet_qp *u = &st->qp[qp];
    const struct qp *q = &n->qps[qp];
    uint32_t end = q->max_sent_psn - q->una > UET_RING ? q->una + UET_RING : q->max_sent_psn;
    for (uint32_t psn = u->nak_lo > q->una ? u->nak_lo : q->una; psn < end; psn++)
        if (u->psn_st[psn % UET_RING] & UET_NAKED) {
            u->nak_lo = psn;
            return psn;
        }
    return NET_NONE;
}

const struct xport_ops xport_uet_ops = {
    .name = "uet",
    .init = uet_init,
    .fini = uet_fini,
    .on_tx_data = uet_on_tx_data,
    .on_feedback = uet_on_feedback,
    .on_timeout = uet_on_timeout,
    .next_resend = uet_next_resend,
};

const struct xport_ops *xport_select(const struct net *n) {
    return n->sc->fabric.kind == FABRIC_UET ? &xport_uet_ops : NULL;
}

/* src/net/reorder.c
 *
 * Reorder buffer at the receiving NIC (see reorder.h). Per QP a ring of slots
 * indexed by PSN - expected PSN, allocated when the QP first sees a packet out
 * of order; the held bytes are charged to the NIC's buffer. Held packets are
 * not acknowledged until they are delivered in order, as with Spectrum-X's
 * SuperNIC placing early packets and completing in order (docs/sources.md A11).
 */
#include "net/reorder.h"

#include "net/params.h"
#include "core/mem.h"
#include "net/net.h"
#include "net/nic.h"

#include <stdlib.h>
#include <string.h>

struct ro_slot {
    uint32_t payload_bytes;
    uint32_t msg;
    uint16_t flags;
    uint8_t valid;
    uint8_t pad;
};

struct ro_qp {
    struct ro_slot *slot; /* ring: slot[(psn) % cap] */
    uint32_t cap;
};

struct ro_state {
    struct ro_qp *q;
    size_t nq;
    uint64_t *held_bytes; /* per host */
    uint64_t limit_bytes;
    uint32_t window; /* slots per QP: the most packets the buffer can hold + 1 */
};

void nic_reorder_init(struct net *n) {
    const struct fabric_params *f = &n->sc->fabric;
    if (f->routing != ROUTING_SPRAY || f->out_of_order != OOO_BUFFER || !f->reorder_buffer_bytes)
        return;
    struct ro_state *st = fs_xcalloc(1, sizeof *st);
    st->limit_bytes = f->reorder_buffer_bytes;
    st->window = (uint32_t)(f->reorder_buffer_bytes / n->mtu_bytes) + 1;
    st->held_bytes = fs_xcalloc(n->nhosts + 1, sizeof *st->held_bytes);
    n->reorder_state = st;
}

void nic_reorder_fini(struct net *n) {
    struct ro_state *st = n->reorder_state;
    if (!st) return;
    for (uint32_t i = 0; i < st->nq; i++)
        free(st->q[i].slot);
    free(st->q);
    free(st->held_bytes);
    free(st);
    n->reorder_state = NULL;
}

static struct ro_qp *ro_qp_of(struct ro_state *st, uint32_t qp) {
    if (qp >= st->nq) fs_grow((void **)&st->q, &st->nq, (size_t)qp + 1, sizeof *st->q);
    struct ro_qp *r = &st->q[qp];
    if (!r->slot) {
        r->cap = st->window;
        r->slot = fs_xcalloc(r->cap, sizeof *r->slot);
    }
    return r;
}

bool nic_reorder_hold(struct net *n, uint32_t node, const struct packet *p) {
    struct ro_state *st = n->reorder_state;
    const struct qp *q = &n->qps[p->qp];
    uint32_t h = n->nodes[node].index;
    struct ro_qp *r = ro_qp_of(st, p->qp);
    bool fits =
        p->psn - q->expect_psn < r->cap && st->held_bytes[h] + p->payload_bytes <= st->limit_bytes;
    if (!fits) {
        /* Lost at the NIC: the sender recovers by go-back-N. */
        n->c.packets_delivered--;
        n->c.packets_dropped++;
        return false;
    }
    struct ro_slot *s = &r->slot[p->psn % r->cap];
    if (s->valid) return true; /* a duplicate of a held packet */
    s->valid = 1;
    s->payload_bytes = p->payload_bytes;
    s->msg = p->aux;
    s->flags = p->flags;
    st->held_bytes[h] += p->payload_bytes;
    if (st->held_bytes[h] > n->c.reorder_max_bytes) n->c.reorder_max_bytes = st->held_bytes[h];
    return true;
}

void nic_reorder_release(struct net *n, uint32_t node, uint32_t qp) {
    struct ro_state *st = n->reorder_state;
    if (qp >= st->nq || !st->q[qp].slot) return;
    struct ro_qp *r = &st->q[qp];
    uint32_t h = n->nodes[node].index;
    for (;;) {
        struct ro_slot *s = &r->slot[n->qps[qp].expect_psn % r->cap];
        if (!s->valid) break;
        s->valid = 0;
        st->held_bytes[h] -= s->payload_bytes;
        nic_deliver(n, node, qp, s->payload_bytes, s->flags, s->msg);
    }
}

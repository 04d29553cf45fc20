/* src/innet/innet.c
 *
 * The aggregation engine shared by SHARP (sharp.c builds the tree over the
 * fabric's switches) and NVLS (nvls.c: the host's NVSwitch). See innet.h.
 *
 * A reduction streams the data in MTU chunks. A member keeps at most
 * `window` chunks outstanding (sent, result not yet back): the switches'
 * aggregation buffer per tree bounds what can be in flight, as the SHARP
 * streaming aggregation protocol's buffer credits do. A tree switch counts
 * the contributions of each chunk and sends one reduced chunk up when all its
 * children contributed (the root sends it down). Packets are PKT_INNET and go
 * through the normal ports: link-level flow control and queues apply; a
 * consumed packet is admitted and released at its input the way a NIC
 * consumes one. Lost chunks are not recovered (run SHARP on a lossless
 * fabric: credit flow control, or buffers that do not overflow).
 */
#include "innet/innet.h"

#include "core/mem.h"
#include "flowctl/flowctl.h"
#include "innet/innet_int.h"
#include "net/net.h"
#include "net/port.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct innet_state *innet_get(struct net *n) {
    if (!n->innet_state) n->innet_state = fs_xcalloc(1, sizeof(struct innet_state));
    return n->innet_state;
}

void innet_on_done(struct net *n, innet_done_fn done) {
    innet_get(n)->done = done;
}

void innet_set_dist(struct net *n, const struct innet_dist_ops *ops) {
    innet_get(n)->dist = ops;
}

/* What switches and NICs do with PKT_INNET (net/net.h net_type_ops). */
static const struct net_type_ops innet_type_ops = {
    .switch_rx = innet_switch_rx,
    .host_rx = innet_host_rx,
};

uint32_t innet_session_new(struct net *n) {
    net_register_type(n, PKT_INNET, &innet_type_ops);
    struct innet_state *st = innet_get(n);
    st->sess = fs_xrealloc(st->sess, (st->nsess + 1) * sizeof *st->sess);
    struct innet_sess *s = &st->sess[st->nsess];
    memset(s, 0, sizeof *s);
    s->sw2t = fs_xmalloc(n->nswitches * sizeof *s->sw2t);
    memset(s->sw2t, 0xff, n->nswitches * sizeof *s->sw2t);
    return st->nsess++;
}

uint32_t innet_tnode(struct net *n, struct innet_sess *s, uint32_t sw) {
    uint32_t si = n->nodes[sw].index;
    if (s->sw2t[si] != NET_NONE) return s->sw2t[si];
    s->t = fs_xrealloc(s->t, (s->nt + 1) * sizeof *s->t);
    memset(&s->t[s->nt], 0, sizeof *s->t);
    s->t[s->nt].sw = sw;
    s->t[s->nt].parent_port = NET_NONE;
    s->sw2t[si] = s->nt;
    return s->nt++;
}

void innet_add_child(struct innet_sess *s, uint32_t t, uint32_t port) {
    struct innet_tnode *tn = &s->t[t];
    for (uint32_t i = 0; i < tn->nchild; i++)
        if (tn->child[i] == port) return;
    tn->child = fs_xrealloc(tn->child, (tn->nchild + 1) * sizeof *tn->child);
    tn->child[tn->nchild++] = port;
}

static struct innet_run *run_of(struct innet_sess *s, uint32_t r) {
    return &s->runs[r];
}

/* aux of a PKT_INNET packet: the run, down (result towards the members),
 * store (NVLS: an owner's multimem store of a reduced chunk, and its
 * multicast) */
#define AUX_DOWN 0x80000000u
#define AUX_STORE 0x40000000u
#define AUX_RUN 0x3fffffffu

static void emit(struct net *n, uint32_t port, uint32_t sess, uint32_t run, uint32_t chunk,
                 bool down, bool store, uint32_t payload) {
    const struct innet_sess *s = &innet_get(n)->sess[sess];
    uint32_t id = pkt_alloc(&n->pool);
    struct packet *p = pkt(&n->pool, id);
    memset(p, 0, sizeof *p);
    p->next = PKT_NONE;
    p->type = PKT_INNET;
    p->qp = sess;
    p->psn = chunk;
    p->aux = run | (down ? AUX_DOWN : 0) | (store ? AUX_STORE : 0);
    p->src = n->ports[port].node;
    p->dst = n->ports[n->ports[port].peer].node;
    p->payload_bytes = payload;
    p->wire_bytes = net_data_wire_bytes(n, payload, false);
    if (s->wire_scale > 1) p->wire_bytes = (uint32_t)ceil(p->wire_bytes * s->wire_scale);
    p->sent_ps = n->sim->now_ps;
    p->in_port = NET_NONE; /* made here: holds no input buffer */
    n->c.packets_sent++;
    n->pkts_in_flight++;
    port_enqueue(n, port, 0, id);
}

static uint32_t chunk_bytes(const struct net *n, const struct innet_run *r, uint32_t c) {
    uint64_t off = (uint64_t)c * n->mtu_bytes;
    uint64_t left = r->bytes - off;
    return left < n->mtu_bytes ? (uint32_t)left : n->mtu_bytes;
}

static void member_send(struct net *n, uint32_t sess, uint32_t run, uint32_t i) {
    struct innet_sess *s = &innet_get(n)->sess[sess];
    struct innet_run *r = run_of(s, run);
    while (r->next_send[i] < r->nchunks && r->next_send[i] - r->recvd[i] < s->window) {
        uint32_t c = r->next_send[i]++;
        emit(n, s->up_port[i], sess, run, c, false, false, chunk_bytes(n, r, c));
    }
}

uint32_t innet_join(struct net *n, uint32_t sess, uint32_t i, uint64_t bytes, uint32_t op,
                    uint32_t xfer) {
    struct innet_sess *s = &innet_get(n)->sess[sess];
    uint32_t key = xfer - i; /* the reduction's first member transfer */
    uint32_t run = NET_NONE, freeslot = NET_NONE;
    for (uint32_t k = 0; k < s->nruns; k++) {
        if (s->runs[k].live && s->runs[k].op == op && s->runs[k].key == key) run = k;
        if (!s->runs[k].live && freeslot == NET_NONE) freeslot = k;
    }
    if (run == NET_NONE) {
        if (freeslot == NET_NONE) {
            s->runs = fs_xrealloc(s->runs, (s->nruns + 1) * sizeof *s->runs);
            memset(&s->runs[s->nruns], 0, sizeof *s->runs);
            freeslot = s->nruns++;
        }
        run = freeslot;
        struct innet_run *r = &s->runs[run];
        r->live = true;
        r->op = op;
        r->key = key;
        r->bytes = bytes;
        r->nchunks = bytes ? (uint32_t)((bytes + n->mtu_bytes - 1) / n->mtu_bytes) : 1;
        r->left = s->m;
        free(r->next_send);
        free(r->recvd);
        free(r->xfer);
        free(r->cnt);
        r->next_send = fs_xcalloc(s->m, sizeof *r->next_send);
        r->recvd = fs_xcalloc(s->m, sizeof *r->recvd);
        r->xfer = fs_xcalloc(s->m, sizeof *r->xfer);
        r->cnt = fs_xcalloc((size_t)s->nt * r->nchunks, sizeof *r->cnt);
    }
    s->runs[run].xfer[i] = xfer;
    return run;
}

void innet_send(struct net *n, uint32_t sess, uint32_t run, uint32_t i) {
    member_send(n, sess, run, i);
}

uint32_t innet_member_node(const struct net *n, uint32_t sess, uint32_t i) {
    const struct innet_state *st = n->innet_state;
    return st->sess[sess].members[i];
}

void innet_member_done(struct net *n, uint32_t sess, uint32_t run, uint32_t i) {
    struct innet_run *r = run_of(&innet_get(n)->sess[sess], run);
    uint32_t op = r->op, x = r->xfer[i];
    if (--r->left == 0) r->live = false;
    innet_get(n)->done(n, op, x);
}

static bool consume(struct net *n, uint32_t in_port, uint32_t id) {
    struct packet *p = pkt(&n->pool, id);
    if (!n->fc->admit(n, in_port, NET_NONE, p)) {
        port_drop(n, n->ports[in_port].peer, id);
        return false;
    }
    /* delivered: to the aggregation unit it was addressed to */
    n->c.packets_delivered++;
    n->pkts_in_flight--;
    if (n->fc->on_release) n->fc->on_release(n, in_port, p);
    pkt_free(&n->pool, id);
    return true;
}

/* Tree node t holds the reduced chunk: up to its parent, or (root) down. */
static void aggregated(struct net *n, uint32_t sess, uint32_t run, uint32_t chunk, uint32_t t) {
    struct innet_sess *s = &innet_get(n)->sess[sess];
    struct innet_tnode *tn = &s->t[t];
    uint32_t bytes = chunk_bytes(n, run_of(s, run), chunk);
    if (tn->parent_port != NET_NONE) {
        emit(n, tn->parent_port, sess, run, chunk, false, false, bytes);
        return;
    }
    if (s->owners) { /* NVLS: to the chunk's owner, whose load it answers */
        emit(n, tn->child[chunk % tn->nchild], sess, run, chunk, true, false, bytes);
        return;
    }
    for (uint32_t k = 0; k < tn->nchild; k++)
        emit(n, tn->child[k], sess, run, chunk, true, false, bytes);
}

void innet_on_timer(struct net *n, uint32_t pending) {
    struct innet_state *st = innet_get(n);
    struct innet_pending p = st->pend[pending];
    size_t cap = st->capfree;
    fs_grow((void **)&st->freel, &cap, st->nfree + 1, sizeof *st->freel);
    st->capfree = (uint32_t)cap;
    st->freel[st->nfree++] = pending;
    aggregated(n, p.sess, p.run, p.chunk, p.t);
}

void innet_switch_rx(struct net *n, uint32_t sw, uint32_t in_port, uint32_t id) {
    struct packet *p = pkt(&n->pool, id);
    uint32_t sess = p->qp, run = p->aux & AUX_RUN, chunk = p->psn;
    bool down = p->aux & AUX_DOWN, store = p->aux & AUX_STORE;
    struct innet_sess *s = &innet_get(n)->sess[sess];
    uint32_t t = s->sw2t[n->nodes[sw].index];
    struct innet_run *r = run_of(s, run);
    uint32_t bytes = chunk_bytes(n, r, chunk);
    if (!consume(n, in_port, id) || t == NET_NONE) return;
    struct innet_tnode *tn = &s->t[t];
    if (!down && store) { /* NVLS multimem store: multicast to every member */
        for (uint32_t k = 0; k < tn->nchild; k++)
            emit(n, tn->child[k], sess, run, chunk, true, true, bytes);
        return;
    }
    if (!down) {
        uint16_t *c = &r->cnt[(size_t)t * r->nchunks + chunk];
        if (++*c < tn->nchild) return; /* partial sum held in the aggregation buffer */
        /* the switch's reduction unit: one chunk at a time at red_bps (shared
         * by every session on the switch), then the aggregation latency */
        sim_time_ps ready = n->sim->now_ps;
        if (s->red_bps) {
            struct innet_state *st = innet_get(n);
            if (!st->red_busy_ps) st->red_busy_ps = fs_xcalloc(n->nswitches, sizeof(uint64_t));
            uint64_t *busy = &st->red_busy_ps[n->nodes[sw].index];
            sim_time_ps start = *busy > ready ? *busy : ready;
            *busy = start + (sim_time_ps)(((double)bytes * 8e12) / (double)s->red_bps + 0.5);
            ready = *busy;
        }
        if (s->agg_ps || ready > n->sim->now_ps) { /* reduction time + aggregation latency */
            struct innet_state *st = innet_get(n);
            uint32_t slot;
            if (st->nfree) {
                slot = st->freel[--st->nfree];
            } else {
                size_t cap = st->cappend;
                fs_grow((void **)&st->pend, &cap, st->npend + 1, sizeof *st->pend);
                st->cappend = (uint32_t)cap;
                slot = st->npend++;
            }
            st->pend[slot] = (struct innet_pending){sess, run, chunk, t};
            sim_at(n->sim, ready + s->agg_ps, sw + 1, NET_EV_COLL, slot, INNET_EV_TIMER);
            if (st->dist) st->dist->local_add(n); /* the rank's work until it fires */
            return;
        }
        aggregated(n, sess, run, chunk, t);
        return;
    }
    for (uint32_t k = 0; k < tn->nchild; k++) /* replicate the result down */
        emit(n, tn->child[k], sess, run, chunk, true, store, bytes);
}

void innet_host_rx(struct net *n, uint32_t node, uint32_t port, uint32_t id) {
    (void)port;
    struct packet *p = pkt(&n->pool, id);
    uint32_t sess = p->qp, run = p->aux & AUX_RUN;
    struct innet_sess *s = &innet_get(n)->sess[sess];
    struct innet_run *r = run_of(s, run);
    uint32_t i = NET_NONE;
    for (uint32_t k = 0; k < s->m; k++)
        if (s->members[k] == node) {
            i = k;
            break;
        }
    if (i == NET_NONE || !(p->aux & AUX_DOWN)) return;
    if (s->owners && !(p->aux & AUX_STORE)) { /* NVLS: the owner stores its reduced chunk */
        uint32_t chunk = p->psn, bytes = p->payload_bytes;
        emit(n, s->up_port[i], sess, run, chunk, false, true, bytes);
        return;
    }
    if (++r->recvd[i] == r->nchunks) {
        /* several ranks (innet_dist_ops): the reduction's state is every
         * rank's; this rank records the completion, every rank applies it */
        const struct innet_state *st = n->innet_state;
        if (st->dist)
            st->dist->record_done(n, sess, run, i);
        else
            innet_member_done(n, sess, run, i);
        return;
    }
    member_send(n, sess, run, i);
}

void innet_close(struct net *n, uint32_t sess) {
    struct innet_state *st = innet_get(n);
    struct innet_sess *s = &st->sess[sess];
    if (s->release) s->release(n, s);
}

void innet_fini(struct net *n) {
    struct innet_state *st = n->innet_state;
    if (!st) return;
    for (uint32_t i = 0; i < st->nsess; i++) {
        struct innet_sess *s = &st->sess[i];
        for (uint32_t t = 0; t < s->nt; t++)
            free(s->t[t].child);
        for (uint32_t k = 0; k < s->nruns; k++) {
            free(s->runs[k].next_send);
            free(s->runs[k].recvd);
            free(s->runs[k].xfer);
            free(s->runs[k].cnt);
        }
        free(s->runs);
        free(s->t);
        free(s->sw2t);
        free(s->members);
        free(s->up_port);
    }
    free(st->sess);
    free(st->pend);
    free(st->freel);
    free(st->active);
    free(st->red_busy_ps);
    free(st);
    n->innet_state = NULL;
}

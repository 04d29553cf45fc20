/* src/flowctl/none.c
 *
 * No link-level flow control: an output-queued switch port holds at most
 * `fabric.buffer` waiting bytes and drops what does not fit (tail drop), as a
 * lossy Ethernet switch does. With `buffer_sharing: shared` the switch has one
 * pool (switch_buffer) and an egress queue (port, priority) takes a packet
 * while it holds less than alpha x the pool's free bytes (the dynamic
 * threshold of Choudhury and Hahne that Broadcom and Spectrum MMUs use,
 * docs/sources.md A3; alpha = 2^-pfc.alpha_shift). NICs always have room.
 */
#include "flowctl/flowctl.h"

#include "net/params.h"
#include "core/diag.h"
#include "core/mem.h"
#include "net/net.h"

#include <stdlib.h>

struct none_state {
    uint64_t *used; /* per switch index: bytes in the shared pool */
    uint64_t *pool; /* per switch index: its size */
};

static bool none_admit(struct net *n, uint32_t in_port, uint32_t out_port, struct packet *p) {
    if (out_port == NET_NONE) return true;
    struct none_state *st = n->fc_state;
    if (!st) return n->ports[out_port].q_bytes + p->wire_bytes <= net_port_buffer(n, out_port);
    uint32_t s = n->nodes[n->ports[in_port].node].index;
    uint64_t free_b = st->pool[s] > st->used[s] ? st->pool[s] - st->used[s] : 0;
    uint64_t thr = free_b >> n->sc->fabric.pfc.alpha_shift;
    if (p->wire_bytes > free_b ||
        n->ports[out_port].cls[p->prio % NET_NCLASS].bytes + p->wire_bytes > thr)
        return false;
    st->used[s] += p->wire_bytes;
    return true;
}

static void none_on_release(struct net *n, uint32_t in_port, const struct packet *p) {
    struct none_state *st = n->fc_state;
    if (!st || in_port == NET_NONE || n->nodes[n->ports[in_port].node].kind != NODE_SWITCH) return;
    uint32_t s = n->nodes[n->ports[in_port].node].index;
    FS_DASSERT(st->used[s] >= p->wire_bytes, "shared pool underflow at switch %u", s);
    st->used[s] -= p->wire_bytes;
}

static int none_init(struct net *n, struct diag *d) {
    (void)d;
    const struct fabric_params *f = &n->sc->fabric;
    if (f->buffer_sharing != BUFFER_SHARED) return 0;
    struct none_state *st = fs_xcalloc(1, sizeof *st);
    n->fc_state = st;
    st->used = fs_xcalloc(n->nswitches + 1, sizeof *st->used);
    st->pool = fs_xcalloc(n->nswitches + 1, sizeof *st->pool);
    for (uint32_t v = 0; v < n->nnodes; v++) {
        const struct node *nd = &n->nodes[v];
        if (nd->kind != NODE_SWITCH) continue;
        uint64_t sum = 0; /* the ports' buffers, a link's own where it has one */
        for (uint32_t i = 0; i < nd->nports; i++)
            sum += net_port_buffer(n, nd->first_port + i);
        st->pool[nd->index] = f->switch_buffer_bytes ? f->switch_buffer_bytes : sum;
    }
    return 0;
}

static void none_fini(struct net *n) {
    struct none_state *st = n->fc_state;
    if (!st) return;
    free(st->used);
    free(st->pool);
    free(st);
    n->fc_state = NULL;
}

static bool none_can_send(struct net *n, uint32_t port, uint32_t cls, uint32_t wire_bytes) {
    (void)n, (void)port, (void)cls, (void)wire_bytes;
    return true;
}

const struct flowctl_ops flowctl_none_ops = {
    .name = "none",
    .init = none_init,
    .fini = none_fini,
    .on_release = none_on_release,
    .admit = none_admit,
    .can_send = none_can_send,
};

const struct flowctl_ops *flowctl_select(const struct net *n, struct diag *d) {
    (void)d;
    switch (n->sc->fabric.flow_control) {
    case FLOWCTL_NONE:
        return &flowctl_none_ops;
    case FLOWCTL_CREDIT:
        return &flowctl_credit_ops;
    case FLOWCTL_PFC:
        return &flowctl_pfc_ops;
    case FLOWCTL_CBFC:
        return &flowctl_cbfc_ops;
    }
    return NULL;
}

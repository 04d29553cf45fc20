/* src/innet/nvls.c
 *
 * NVLink SHARP (NVLS): the third-generation NVSwitch reduces in the switch
 * (domain.md A8): every GPU sends its data to the NVSwitch once and receives
 * the reduced result once (multicast). Modelled as an aggregation tree of
 * one node, the host's NVSwitch, whose children are the GPUs' NVLink ports.
 * The NVSwitch aggregation buffer is not published; the same default window
 * as SHARP is used (conf. C). The NVSwitch reduces at most topology.nvls_rate
 * bytes of result per second.
 */
#include "net/params.h"
#include "core/mem.h"
#include "innet/innet.h"
#include "innet/innet_int.h"
#include "net/net.h"

#define NVLS_BUFFER (256u << 10)

uint32_t innet_nvls_open(struct net *n, const uint32_t *members, uint32_t m) {
    uint32_t sid = innet_session_new(n);
    struct innet_sess *s = &innet_get(n)->sess[sid];
    s->members = fs_xmalloc(m * sizeof *s->members);
    s->up_port = fs_xmalloc(m * sizeof *s->up_port);
    s->m = m;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t up = n->nodes[members[i]].first_port + 1; /* NVLink (port 1) */
        uint32_t nvs = n->ports[n->ports[up].peer].node;
        s->members[i] = members[i];
        s->up_port[i] = up;
        innet_add_child(s, innet_tnode(n, s, nvs), n->ports[up].peer);
    }
    s->window = NVLS_BUFFER / n->mtu_bytes;
    /* NVSwitch reduction throughput (topology.nvls_rate): measured NVLS
     * AllReduce on 8xH100 reaches algbw ~275 GB/s, below the ~370 GB/s NCCL
     * gets from each NVLink (nccl-tests issue 212, nccl issue 2140;
     * docs/validation.md) */
    s->red_bps = n->sc->topo.nvls_rate_bps;
    return sid;
}

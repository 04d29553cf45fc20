/* src/innet/nvls.c
 *
 * NVLink SHARP (NVLS): the third-generation NVSwitch reduces in the switch
 * (docs/sources.md A8). NCCL's NVLS AllReduce splits the buffer among the GPUs:
 * each GPU reduces its share with multimem loads (the NVSwitch reads that
 * share from every GPU, reduces it and returns the sum to the GPU that
 * loaded it) and writes the sum back with multimem stores (the NVSwitch
 * multicasts it to every GPU). Per GPU that is S + S/n up and S/n + S down
 * (nccl issue 2140: "factor 1 + 1/n"), so algbw = the GPU's NVLS rate x
 * n/(n+1): 258, 265, 270, 273 GB/s on 5-8 H100 measured (nccl issue 1455).
 * Modelled as an aggregation tree of one node, the host's NVSwitch, whose
 * children are the GPUs' NVLink ports; chunk c belongs to member c mod n.
 * Multimem traffic gets topology.nvls_efficiency of the NVLink, less than
 * NCCL's copies get (nvlink_efficiency): fitted to 8 GPUs (docs/validation.md
 * G2), the other GPU counts are predictions. The NVSwitch aggregation
 * buffer is not published; the same default window as SHARP is used
 * (conf. C). topology.nvls_rate, if set, caps the reduced bytes per second.
 */
#include "net/params.h"
#include "core/mem.h"
#include "innet/innet.h"
#include "innet/innet_int.h"
#include "net/net.h"

#define NVLS_BUFFER (4u << 20)

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
    s->owners = true;
    /* the NVLink runs at nvlink x nvlink_efficiency (topo.c); multimem
     * traffic at nvlink x nvls_efficiency */
    double e = n->sc->topo.nvlink_efficiency > 0 ? n->sc->topo.nvlink_efficiency : 1.0,
           v = n->sc->topo.nvls_efficiency > 0 ? n->sc->topo.nvls_efficiency : e;
    s->wire_scale = e / v;
    return sid;
}

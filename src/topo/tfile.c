/* src/topo/tfile.c
 *
 * A topology file's fabric (its node table, topo/tfile_node.h, as
 * config/tfile_yaml.c read and checked it) built into the net, and each
 * node's ports put in the file's order.
 */
#include "topo/tfile.h"

#include "core/mem.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

/* ---- building ---- */

void tfile_build(struct net *n, const struct topo_file *tf, uint64_t link_bps, uint64_t prop_ps,
                 uint64_t nvlink_bps, int rates_from_file) {
    uint32_t G = tf->gpus, H = tf->nhosts;
    uint32_t *first = fs_xmalloc((tf->nnodes ? tf->nnodes : 1) * sizeof *first);
    char name[40];
    for (uint32_t v = 0; v < H; v++) {
        first[v] = n->nnodes;
        for (uint32_t g = 0; g < G; g++) {
            if (G > 1)
                snprintf(name, sizeof name, "%s.g%u", tf->nodes[v].name, g);
            else
                snprintf(name, sizeof name, "%s", tf->nodes[v].name);
            net_add_node(n, NODE_HOST, ROLE_HOST, name, 0);
        }
    }
    /* switch levels: 1 + hops to the nearest host (leaf 1, spine 2, ...) */
    uint32_t N = tf->nnodes;
    uint32_t *off = fs_xcalloc(N + 1, sizeof *off), *fill = fs_xcalloc(N + 1, sizeof *fill);
    uint32_t *adj = fs_xmalloc((2 * (size_t)tf->nlinks + 1) * sizeof *adj);
    for (uint32_t i = 0; i < tf->nlinks; i++) {
        off[tf->links[i].a + 1]++;
        off[tf->links[i].b + 1]++;
    }
    for (uint32_t v = 0; v < N; v++)
        off[v + 1] += off[v];
    for (uint32_t i = 0; i < tf->nlinks; i++) {
        uint32_t a = tf->links[i].a, b = tf->links[i].b;
        adj[off[a] + fill[a]++] = b;
        adj[off[b] + fill[b]++] = a;
    }
    uint32_t *lvl = fs_xmalloc((N ? N : 1) * sizeof *lvl), *q = fs_xmalloc((N ? N : 1) * sizeof *q);
    uint32_t qh = 0, qt = 0;
    for (uint32_t v = 0; v < N; v++) {
        lvl[v] = v < H ? 0 : UINT32_MAX;
        if (v < H) q[qt++] = v;
    }
    while (qh < qt) {
        uint32_t v = q[qh++];
        for (uint32_t k = off[v]; k < off[v + 1]; k++)
            if (lvl[adj[k]] == UINT32_MAX) {
                lvl[adj[k]] = lvl[v] + 1;
                q[qt++] = adj[k];
            }
    }
    free(off);
    free(fill);
    free(adj);
    for (uint32_t v = H; v < N; v++) {
        const struct tfile_node *nd = &tf->nodes[v];
        uint32_t L = lvl[v] > 250 ? 250 : lvl[v];
        enum node_role role = nd->role != 0xff ? (enum node_role)nd->role
                              : L == 1         ? ROLE_LEAF
                              : L == 2         ? ROLE_SPINE
                                               : ROLE_CORE;
        first[v] = net_add_node(n, NODE_SWITCH, role, nd->name, (uint8_t)L);
    }
    for (uint32_t i = 0; i < tf->nlinks; i++) {
        const struct tfile_link *l = &tf->links[i];
        uint64_t rate = rates_from_file && l->rate_bps ? l->rate_bps : link_bps;
        uint64_t prop = l->length_mm != UINT64_MAX ? l->length_mm * 5u : prop_ps; /* 5 ns/m */
        uint32_t a = first[l->a] + (l->a < H ? l->nic_a : 0);
        uint32_t b = first[l->b] + (l->b < H ? l->nic_b : 0);
        uint32_t pa = net_add_link(n, a, b, rate, prop);
        if (l->buffer_bytes) {
            n->ports[pa].buffer_bytes = n->ports[n->ports[pa].peer].buffer_bytes = l->buffer_bytes;
            n->link_buffers = true;
        }
    }
    if (G > 1)
        for (uint32_t v = 0; v < H; v++) { /* NVSwitch per host, as topo.c's generators */
            snprintf(name, sizeof name, "%s.nvs", tf->nodes[v].name);
            uint32_t nvs = net_add_node(n, NODE_SWITCH, ROLE_NVSWITCH, name, 1);
            for (uint32_t g = 0; g < G; g++)
                net_add_link(n, first[v] + g, nvs, nvlink_bps, 0);
        }
    free(first);
    free(lvl);
    free(q);
}

/* After net_finish_ports: a node's ports are in the order its links were
 * added. Re-orders each node's ports by the port numbers the file gives
 * (ports without a number after, in file order), so that port k of a switch
 * is the file's port k when the file numbers them 1..degree (fabsim's own
 * files, ibnetdiscover of a fully cabled switch). */
void tfile_order_ports(struct net *n, const struct topo_file *tf) {
    uint32_t P = n->nports;
    uint64_t *key = fs_xmalloc((P ? P : 1) * sizeof *key);
    uint32_t *seen = fs_xcalloc(n->nnodes + 1, sizeof *seen);
    uint32_t G = tf->gpus, H = tf->nhosts;
    /* links were added in file order, each a then b; NVLinks after */
    for (uint32_t i = 0; i < tf->nlinks; i++)
        for (int e = 0; e < 2; e++) {
            const struct tfile_link *l = &tf->links[i];
            uint32_t t = e ? l->b : l->a, nic = e ? l->nic_b : l->nic_a;
            uint32_t v = t < H ? t * G + nic : H * G + (t - H);
            uint32_t num = e ? l->pb : l->pa;
            uint32_t p = n->nodes[v].first_port + seen[v]++;
            key[p] = (uint64_t)(num ? num : 0xffffffffu) << 32 | (p - n->nodes[v].first_port);
        }
    for (uint32_t v = 0; v < n->nnodes; v++) /* NVLink ports keep their place (last) */
        for (uint32_t k = seen[v]; k < n->nodes[v].nports; k++)
            key[n->nodes[v].first_port + k] = 0xffffffffffffffffull;
    uint32_t *newid = fs_xmalloc((P ? P : 1) * sizeof *newid);
    uint32_t *idx = fs_xmalloc((P ? P : 1) * sizeof *idx);
    for (uint32_t v = 0; v < n->nnodes; v++) {
        uint32_t f = n->nodes[v].first_port, np = n->nodes[v].nports;
        for (uint32_t k = 0; k < np; k++)
            idx[k] = f + k;
        for (uint32_t k = 1; k < np; k++) /* insertion sort: degrees are small */
            for (uint32_t j = k; j > 0 && key[idx[j - 1]] > key[idx[j]]; j--) {
                uint32_t t = idx[j];
                idx[j] = idx[j - 1];
                idx[j - 1] = t;
            }
        for (uint32_t k = 0; k < np; k++)
            newid[idx[k]] = f + k;
    }
    struct port *np = fs_xmalloc((P ? P : 1) * sizeof *np);
    for (uint32_t i = 0; i < P; i++) {
        np[newid[i]] = n->ports[i];
        np[newid[i]].peer = newid[n->ports[i].peer];
    }
    memcpy(n->ports, np, P * sizeof *np);
    net_number_parallel(n);
    free(np);
    free(idx);
    free(newid);
    free(key);
    free(seen);
}

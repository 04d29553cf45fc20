#include "topo/topo.h"

#include "core/diag.h"
#include "net/net.h"
#include "net/params.h"
#include "topo/tfile.h"

#include <stdio.h>

struct builder {
    struct net *n;
    uint64_t rate_bps, prop_ps;
};

static uint32_t node(struct builder *b, enum node_kind kind, enum node_role role, uint32_t i,
                     uint8_t level) {
    char name[24];
    snprintf(name, sizeof name, "%s%u", role == ROLE_HOST ? "h" : net_role_name(role), i);
    return net_add_node(b->n, kind, role, name, level);
}

static void hosts(struct builder *b, uint32_t count) {
    for (uint32_t i = 0; i < count; i++)
        node(b, NODE_HOST, ROLE_HOST, i, 0);
}

static void link(struct builder *b, uint32_t x, uint32_t y) {
    net_add_link(b->n, x, y, b->rate_bps, b->prop_ps);
}

/* Multi-GPU hosts (topology.gpus_per_host = G > 1): every GPU is an endpoint
 * node h<s>.g<g> with its own NIC (one 400 G ConnectX per GPU, docs/sources.md A8)
 * and two ports: port 0 the NIC's link to its leaf, port 1 its NVLink to the
 * host's NVSwitch h<s>.nvs (one switch node standing for the 4 NVSwitch chips,
 * at topology.nvlink per GPU per direction: 450 GB/s = 3600 Gb/s, A8). The
 * NVLink has no cable delay; the NVSwitch's traversal latency is not
 * published and is taken equal to fabric.switch_latency (conf. C). Creates
 * the GPU nodes; nvlinks() adds the NVSwitches after every network link. */
static void gpu_hosts(struct builder *b, uint32_t servers, uint32_t G) {
    char name[24];
    for (uint32_t s = 0; s < servers; s++)
        for (uint32_t g = 0; g < G; g++) {
            snprintf(name, sizeof name, "h%u.g%u", s, g);
            net_add_node(b->n, NODE_HOST, ROLE_HOST, name, 0);
        }
}

/* The NVLink rate the model runs at: topology.nvlink x nvlink_efficiency.
 * NCCL's kernels get ~370 of NVLink 4's 450 GB/s per direction ("protocol
 * overhead ~20%", NCCL maintainers in nccl-tests issue 212 and nccl issue
 * 2140; docs/validation.md): the link carries data at that rate. */
static uint64_t nvlink_rate(const struct topo_params *t) {
    double e = t->nvlink_efficiency > 0 ? t->nvlink_efficiency : 1.0;
    uint64_t r = (uint64_t)((double)t->nvlink_bps * e + 0.5);
    return r ? r : 1;
}

static void nvlinks(struct builder *b, uint32_t servers, uint32_t G, uint64_t nvlink_bps) {
    char name[24];
    for (uint32_t s = 0; s < servers; s++) {
        snprintf(name, sizeof name, "h%u.nvs", s);
        uint32_t nvs = net_add_node(b->n, NODE_SWITCH, ROLE_NVSWITCH, name, 1);
        for (uint32_t g = 0; g < G; g++)
            net_add_link(b->n, s * G + g, nvs, nvlink_bps, 0);
    }
}

/* Rail-optimised (docs/sources.md A8): NIC g of every host on rail leaf
 * g mod rails (rails = gpus_per_host unless given: one rail per GPU), every
 * leaf to every spine. An NVL72 rack (kind nvl72, docs/sources.md A13) is
 * such a host of 72 GPUs whose NVSwitch is the rack's NVLink switch trays,
 * GPU g in compute tray g / 4 with its NIC on rail g mod 4. */
static void rail_optimized(struct builder *b, const struct topo_params *t) {
    uint32_t G = t->gpus_per_host > 1 ? t->gpus_per_host : 1;
    uint32_t R = t->rails ? t->rails : G, L = R * topo_rail_groups(t);
    uint32_t P = t->kind == TOPO_RAIL_OPTIMIZED && t->hosts_per_leaf ? t->hosts_per_leaf : t->hosts;
    gpu_hosts(b, t->hosts, G);
    uint32_t leaf0 = b->n->nnodes;
    for (uint32_t l = 0; l < L; l++)
        node(b, NODE_SWITCH, ROLE_LEAF, l, 1);
    uint32_t spine0 = b->n->nnodes;
    for (uint32_t s = 0; s < t->spines; s++)
        node(b, NODE_SWITCH, ROLE_SPINE, s, 2);
    for (uint32_t h = 0; h < t->hosts; h++)
        for (uint32_t g = 0; g < G; g++)
            link(b, h * G + g, leaf0 + h / P * R + g % R);
    uint32_t up = t->uplinks_per_spine ? t->uplinks_per_spine : 1;
    for (uint32_t l = 0; l < L; l++)
        for (uint32_t s = 0; s < t->spines; s++)
            for (uint32_t u = 0; u < up; u++)
                link(b, leaf0 + l, spine0 + s);
    if (G > 1) nvlinks(b, t->hosts, G, nvlink_rate(t));
}

static void single_switch(struct builder *b, const struct topo_params *t) {
    uint32_t G = t->gpus_per_host > 1 ? t->gpus_per_host : 1;
    if (G > 1)
        gpu_hosts(b, t->hosts, G);
    else
        hosts(b, t->hosts);
    uint32_t sw = node(b, NODE_SWITCH, ROLE_SW, 0, 1);
    for (uint32_t h = 0; h < t->hosts * G; h++)
        link(b, h, sw);
    if (G > 1) nvlinks(b, t->hosts, G, nvlink_rate(t));
}

static void leaf_spine(struct builder *b, const struct topo_params *t) {
    uint32_t H = t->leaves * t->hosts_per_leaf;
    uint32_t G = t->gpus_per_host > 1 ? t->gpus_per_host : 1;
    if (G > 1)
        gpu_hosts(b, H, G);
    else
        hosts(b, H);
    uint32_t leaf0 = b->n->nnodes;
    for (uint32_t l = 0; l < t->leaves; l++)
        node(b, NODE_SWITCH, ROLE_LEAF, l, 1);
    uint32_t spine0 = b->n->nnodes;
    for (uint32_t s = 0; s < t->spines; s++)
        node(b, NODE_SWITCH, ROLE_SPINE, s, 2);
    for (uint32_t h = 0; h < H * G; h++)
        link(b, h, leaf0 + h / G / t->hosts_per_leaf);
    for (uint32_t l = 0; l < t->leaves; l++)
        for (uint32_t s = 0; s < t->spines; s++)
            for (uint32_t u = 0; u < t->uplinks_per_spine; u++)
                link(b, leaf0 + l, spine0 + s);
    if (G > 1) nvlinks(b, H, G, nvlink_rate(t));
}

/* k-ary fat tree: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2
 * cores, k/2 hosts per edge switch; aggregation switch j of every pod connects
 * to cores j*k/2 .. j*k/2 + k/2 - 1 (Al-Fares et al., SIGCOMM 2008). */
static void fat_tree(struct builder *b, const struct topo_params *t) {
    uint32_t k = t->k, h2 = k / 2;
    uint32_t H = k * h2 * h2;
    hosts(b, H);
    uint32_t edge0 = b->n->nnodes;
    for (uint32_t i = 0; i < k * h2; i++)
        node(b, NODE_SWITCH, ROLE_EDGE, i, 1);
    uint32_t agg0 = b->n->nnodes;
    for (uint32_t i = 0; i < k * h2; i++)
        node(b, NODE_SWITCH, ROLE_AGG, i, 2);
    uint32_t core0 = b->n->nnodes;
    for (uint32_t i = 0; i < h2 * h2; i++)
        node(b, NODE_SWITCH, ROLE_CORE, i, 3);
    for (uint32_t h = 0; h < H; h++)
        link(b, h, edge0 + h / h2);
    for (uint32_t p = 0; p < k; p++)
        for (uint32_t e = 0; e < h2; e++)
            for (uint32_t a = 0; a < h2; a++)
                link(b, edge0 + p * h2 + e, agg0 + p * h2 + a);
    for (uint32_t p = 0; p < k; p++)
        for (uint32_t a = 0; a < h2; a++)
            for (uint32_t c = 0; c < h2; c++)
                link(b, agg0 + p * h2 + a, core0 + a * h2 + c);
}

static void ring(struct builder *b, const struct topo_params *t) {
    uint32_t S = t->ring_switches, per = t->ring_hosts_per_switch;
    hosts(b, S * per);
    uint32_t sw0 = b->n->nnodes;
    for (uint32_t s = 0; s < S; s++)
        node(b, NODE_SWITCH, ROLE_SW, s, 1);
    for (uint32_t h = 0; h < S * per; h++)
        link(b, h, sw0 + h / per);
    for (uint32_t s = 0; s < S; s++)
        link(b, sw0 + s, sw0 + (s + 1) % S);
}

uint32_t topo_rail_groups(const struct topo_params *t) {
    uint32_t P = t->kind == TOPO_RAIL_OPTIMIZED ? t->hosts_per_leaf : 0;
    return P && t->hosts > P ? (t->hosts + P - 1) / P : 1;
}

uint32_t topo_host_count(const struct topo_params *t) {
    uint64_t n = 0;
    switch (t->kind) {
    case TOPO_SINGLE_SWITCH:
    case TOPO_RAIL_OPTIMIZED:
    case TOPO_NVL72:
        n = t->hosts;
        break;
    case TOPO_LEAF_SPINE:
        n = (uint64_t)t->leaves * t->hosts_per_leaf;
        break;
    case TOPO_FAT_TREE: /* k pods of k/2 edge switches with k/2 hosts each */
        n = t->k > 1u << 16 ? UINT64_MAX : (uint64_t)t->k * t->k * t->k / 4;
        break;
    case TOPO_RING:
        n = (uint64_t)t->ring_switches * t->ring_hosts_per_switch;
        break;
    case TOPO_FILE:
        n = t->file ? (uint64_t)t->file->nhosts * t->file->gpus : 0;
        break;
    }
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

int topo_build(struct net *n, const struct model_params *sc, struct diag *d) {
    const struct topo_params *t = &sc->topo;
    struct builder b = {n, sc->fabric.link_bps, sc->fabric.propagation_ps};
    if (t->gpus_per_host > 1 && (t->kind == TOPO_FAT_TREE || t->kind == TOPO_RING))
        return diag_set(d, sc->file, (struct srcpos){0, 0}, FS_ENOTSUP,
                        "multi-GPU hosts (gpus_per_host > 1) are built for single_switch, "
                        "leaf_spine and rail_optimized; fat_tree and ring take "
                        "gpus_per_host: 1");
    switch (t->kind) {
    case TOPO_SINGLE_SWITCH:
        single_switch(&b, t);
        break;
    case TOPO_LEAF_SPINE:
        leaf_spine(&b, t);
        break;
    case TOPO_FAT_TREE:
        fat_tree(&b, t);
        break;
    case TOPO_RING:
        ring(&b, t);
        break;
    case TOPO_RAIL_OPTIMIZED:
    case TOPO_NVL72:
        rail_optimized(&b, t);
        break;
    case TOPO_FILE: /* docs/inputs.md */
        tfile_build(n, t->file, b.rate_bps, b.prop_ps, nvlink_rate(t), t->file_rates);
        break;
    }
    net_finish_ports(n);
    if (t->kind == TOPO_FILE) tfile_order_ports(n, t->file);
    for (uint32_t i = 0; i < n->nports; i++) {
        struct port *p = &n->ports[i];
        uint32_t far = n->ports[p->peer].node;
        p->is_host = n->nodes[p->node].kind == NODE_HOST;
        /* 8e12 ps-bits per second: a whole number of ps per byte at 25, 100,
         * 200, 400, 800 Gb/s; other rates take the exact division. */
        uint64_t bits_ps = 8ull * PS_PER_S;
        p->ps_per_byte = bits_ps % p->rate_bps == 0 && bits_ps / p->rate_bps < UINT32_MAX
                             ? (uint32_t)(bits_ps / p->rate_bps)
                             : 0;
        p->deliver_ps =
            p->prop_ps + (n->nodes[far].kind == NODE_SWITCH ? sc->fabric.switch_latency_ps : 0);
    }
    /* Cut-through: a switch starts forwarding once the header is in, which
     * is safe when no output of that switch is faster than this input (the
     * output cannot overtake the arriving tail); otherwise, as real switches
     * do on a rate step-up, that input stays store-and-forward. */
    for (uint32_t i = 0; sc->fabric.cut_through && i < n->nports; i++) {
        struct port *p = &n->ports[i];
        const struct node *far = &n->nodes[n->ports[p->peer].node];
        if (far->kind != NODE_SWITCH) continue;
        p->cut_through = 1;
        for (uint32_t k = 0; k < far->nports; k++)
            if (n->ports[far->first_port + k].rate_bps > p->rate_bps) p->cut_through = 0;
    }
    return 0;
}

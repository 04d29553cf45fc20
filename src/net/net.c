/* src/net/net.c
 *
 * Building the graph (nodes, links), names, queue pairs, messages and flow
 * rows. Nothing here runs on the per-packet path except the wire-size helpers.
 */
#include "net/net.h"

#include "net/params.h"
#include "core/diag.h"
#include "core/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void net_init(struct net *n, struct sim *s) {
    memset(n, 0, sizeof *n);
    n->sim = s;
    n->msg_free = NET_NONE;
    pkt_pool_init(&n->pool);
    for (int i = 0; i < 16; i++)
        n->sl2vl[i] = (uint8_t)(i % NET_NCLASS);
}

void net_fini(struct net *n) {
    pkt_pool_fini(&n->pool);
    free(n->nodes);
    free(n->names);
    free(n->host_node);
    free(n->ports);
    free(n->nics);
    free(n->qps);
    free(n->msgs);
    free(n->flows);
    free(n->lft);
    free(n->ooo_bits);
    free(n->sr_state);
    free(n->coll_rows);
    free(n->cp_rows);
    free(n->loss);
    free(n->port_fail);
    free(n->qp_errs);
    free(n->deadlock.cycle);
    free(n->warnings);
    memset(n, 0, sizeof *n);
}

uint32_t net_add_node(struct net *n, enum node_kind kind, enum node_role role, const char *name,
                      uint8_t level) {
    fs_grow((void **)&n->nodes, &n->nodes_cap, n->nnodes + 1, sizeof *n->nodes);
    fs_grow((void **)&n->names, &n->names_cap, n->nnodes + 1, sizeof *n->names);
    uint32_t id = n->nnodes++;
    struct node *nd = &n->nodes[id];
    memset(nd, 0, sizeof *nd);
    nd->kind = (uint8_t)kind;
    nd->role = (uint8_t)role;
    nd->level = level;
    snprintf(n->names[id], sizeof n->names[id], "%s", name);
    if (kind == NODE_HOST) {
        nd->index = n->nhosts++;
        n->host_node = fs_xrealloc(n->host_node, n->nhosts * sizeof *n->host_node);
        n->host_node[nd->index] = id;
    } else {
        nd->index = n->nswitches++;
    }
    return id;
}

static uint32_t add_port(struct net *n, uint32_t owner, uint64_t rate_bps, uint64_t prop_ps) {
    fs_grow((void **)&n->ports, &n->ports_cap, n->nports + 1, sizeof *n->ports);
    uint32_t id = n->nports++;
    struct port *p = &n->ports[id];
    memset(p, 0, sizeof *p);
    p->node = owner;
    p->rate_bps = rate_bps;
    p->prop_ps = prop_ps;
    p->up = 1;
    p->down_ps = SIM_TIME_NEVER;
    p->wake_at_ps = SIM_TIME_NEVER;
    p->fly_head = p->fly_tail = PKT_NONE;
    p->ctrl.head = p->ctrl.tail = PKT_NONE;
    for (int c = 0; c < NET_NCLASS; c++)
        p->cls[c].head = p->cls[c].tail = PKT_NONE;
    return id;
}

uint32_t net_add_link(struct net *n, uint32_t a, uint32_t b, uint64_t rate_bps, uint64_t prop_ps) {
    uint32_t pa = add_port(n, a, rate_bps, prop_ps);
    uint32_t pb = add_port(n, b, rate_bps, prop_ps);
    n->ports[pa].peer = pb;
    n->ports[pb].peer = pa;
    n->ports[pa].peer_node = b;
    n->ports[pb].peer_node = a;
    n->ports[pa].peer_is_switch = n->nodes[b].kind == NODE_SWITCH;
    n->ports[pb].peer_is_switch = n->nodes[a].kind == NODE_SWITCH;
    return pa;
}

void net_finish_ports(struct net *n) {
    uint32_t *count = fs_xcalloc(n->nnodes + 1, sizeof *count);
    for (uint32_t i = 0; i < n->nports; i++)
        count[n->ports[i].node + 1]++;
    for (uint32_t v = 0; v < n->nnodes; v++) {
        n->nodes[v].first_port = count[v];
        n->nodes[v].nports = count[v + 1];
        count[v + 1] += count[v];
    }
    uint32_t *newid = fs_xmalloc(n->nports * sizeof *newid);
    for (uint32_t i = 0; i < n->nports; i++)
        newid[i] = count[n->ports[i].node]++;
    /* cache-line aligned (struct port's hot line is one line), on huge pages
     * when large (every hop reads two ports at random) */
    struct port *np = fs_xaligned_huge(((size_t)n->nports + 1) * sizeof *np);
    for (uint32_t i = 0; i < n->nports; i++) {
        np[newid[i]] = n->ports[i];
        np[newid[i]].peer = newid[n->ports[i].peer];
    }
    free(n->ports);
    n->ports = np;
    n->ports_cap = n->nports;
    net_number_parallel(n);
    free(newid);
    free(count);
}

void net_register_type(struct net *n, enum pkt_type type, const struct net_type_ops *ops) {
    FS_ASSERT(!n->type_ops[type] || n->type_ops[type] == ops, "packet type %d registered twice",
              (int)type);
    n->type_ops[type] = ops;
}

void net_number_parallel(struct net *n) {
    for (uint32_t v = 0; v < n->nnodes; v++) {
        const struct node *nd = &n->nodes[v];
        for (uint32_t i = 0; i < nd->nports; i++) {
            struct port *p = &n->ports[nd->first_port + i];
            uint32_t other = n->ports[p->peer].node;
            p->parallel = 0;
            for (uint32_t j = 0; j < i; j++)
                if (n->ports[n->ports[nd->first_port + j].peer].node == other) p->parallel++;
        }
    }
}

static uint32_t node_exact(const struct net *n, const char *name) {
    for (uint32_t i = 0; i < n->nnodes; i++)
        if (strcmp(n->names[i], name) == 0) return i;
    return NET_NONE;
}

/* SPEC.md Names: on a multi-GPU host, GPU g is the endpoint node h<s>.g<g>
 * and its NIC (on the fabric link) is h<s>.n<g>. The NIC is part of that
 * node here, so h<s>.n<g> names the node h<s>.g<g>; `*nic` tells the caller
 * the name meant the NIC (links: only its fabric link, not its NVLink). */
static uint32_t node_or_nic(const struct net *n, const char *name, bool *nic) {
    *nic = false;
    uint32_t v = node_exact(n, name);
    if (v != NET_NONE) return v;
    const char *dot = strrchr(name, '.');
    char g[64];
    size_t len = strlen(name);
    if (name[0] != 'h' || !dot || dot[1] != 'n' || dot[2] < '0' || dot[2] > '9' || len >= sizeof g)
        return NET_NONE;
    memcpy(g, name, len + 1);
    g[dot - name + 1] = 'g';
    v = node_exact(n, g);
    if (v != NET_NONE && n->nodes[v].kind == NODE_HOST) {
        *nic = true;
        return v;
    }
    return NET_NONE;
}

bool net_node_attached(const struct net *n, uint32_t v) {
    const struct node *nd = &n->nodes[v];
    for (uint32_t i = 0; i < nd->nports; i++) {
        const struct port *p = &n->ports[nd->first_port + i];
        if (p->up && n->ports[p->peer].up) return true;
    }
    return false;
}

uint32_t net_node_by_name(const struct net *n, const char *name) {
    bool nic;
    return node_or_nic(n, name, &nic);
}

void net_port_name(const struct net *n, uint32_t port, char *buf, size_t len) {
    const struct port *p = &n->ports[port];
    uint32_t to = n->ports[p->peer].node;
    if (p->parallel)
        snprintf(buf, len, "%s->%s#%u", n->names[p->node], n->names[to], p->parallel);
    else
        snprintf(buf, len, "%s->%s", n->names[p->node], n->names[to]);
}

const char *net_role_name(enum node_role r) {
    static const char *const names[] = {"host", "sw",  "leaf", "spine",
                                        "edge", "agg", "core", "nvs"};
    return r <= ROLE_NVSWITCH ? names[r] : "?";
}

void net_port_tier(const struct net *n, uint32_t port, char *buf, size_t len) {
    const struct node *a = &n->nodes[n->ports[port].node];
    const struct node *b = &n->nodes[n->ports[n->ports[port].peer].node];
    if (a->level > b->level || (a->level == b->level && a->role > b->role)) {
        const struct node *t = a;
        a = b;
        b = t;
    }
    snprintf(buf, len, "%s-%s", net_role_name((enum node_role)a->role),
             net_role_name((enum node_role)b->role));
}

uint32_t net_link_by_name(const struct net *n, const char *name, bool *directed) {
    char a[64], b[64];
    unsigned k = 0;
    const char *sep = strstr(name, "->");
    size_t seplen = 2;
    if (directed) *directed = sep != NULL;
    if (!sep) {
        sep = strchr(name, '-');
        seplen = 1;
    }
    if (!sep || (size_t)(sep - name) >= sizeof a) return NET_NONE;
    memcpy(a, name, (size_t)(sep - name));
    a[sep - name] = 0;
    snprintf(b, sizeof b, "%s", sep + seplen);
    char *hash = strchr(b, '#');
    if (hash) {
        char *end;
        unsigned long v = strtoul(hash + 1, &end, 10);
        if (*end || end == hash + 1 || v > 65535) return NET_NONE;
        k = (unsigned)v;
        *hash = 0;
    }
    bool nic_a, nic_b;
    uint32_t na = node_or_nic(n, a, &nic_a), nb = node_or_nic(n, b, &nic_b);
    if (na == NET_NONE || nb == NET_NONE) return NET_NONE;
    /* a NIC's only link is its fabric link: never the NVLink to h<s>.nvs */
    if ((nic_a && n->nodes[nb].role == ROLE_NVSWITCH) ||
        (nic_b && n->nodes[na].role == ROLE_NVSWITCH))
        return NET_NONE;
    const struct node *nd = &n->nodes[na];
    for (uint32_t i = 0; i < nd->nports; i++) {
        const struct port *p = &n->ports[nd->first_port + i];
        if (n->ports[p->peer].node == nb && p->parallel == k) return nd->first_port + i;
    }
    return NET_NONE;
}

uint32_t net_qp_new(struct net *n, uint32_t src_node, uint32_t dst_node, uint8_t prio) {
    if (n->nqps + 1 > n->qps_cap) { /* 128-byte aligned: a QP is two lines (net.h) */
        size_t cap = n->qps_cap ? 2 * n->qps_cap : 64;
        struct qp *a = fs_xaligned(128, cap * sizeof *a);
        if (n->nqps) memcpy(a, n->qps, (size_t)n->nqps * sizeof *a);
        free(n->qps);
        n->qps = a;
        n->qps_cap = cap;
    }
    uint32_t id = n->nqps++;
    struct qp *q = &n->qps[id];
    memset(q, 0, sizeof *q);
    q->src = src_node;
    q->dst = dst_node;
    q->prio = prio;
    q->cur_msg = q->una_msg = q->msg_tail = q->recv_msg = NET_NONE;
    q->rr_next = NET_NONE;
    q->rto_deadline_ps = SIM_TIME_NEVER;
    q->stall_from_ps = SIM_TIME_NEVER;
    q->nic_next = NET_NONE;
    if (n->rto_adaptive) {
        /* ConnectX adaptive retransmission: the initial timeout is drawn at
         * random "to prevent multiple QPs from starting with the same value"
         * (sources.md A12); one draw from the QP's own stream */
        const struct adp_params *a = &n->sc->fabric.transport.adp;
        struct rng r;
        rng_seed(&r, n->sc->seed, id, 0x41445052u /* "ADPR" */);
        q->rto_exp =
            (uint8_t)(a->init_low + (a->init_range > 1 ? rng_below(&r, a->init_range) : 0));
    }
    net_qp_set_entropy(n, id, 0);
    if (n->nics && n->nodes[src_node].kind == NODE_HOST) {
        struct nic *c = &n->nics[n->nodes[src_node].index];
        q->nic_next = c->qp_head;
        c->qp_head = id;
    }
    return id;
}

void net_qp_set_entropy(struct net *n, uint32_t qp, uint16_t entropy) {
    struct qp *q = &n->qps[qp];
    q->entropy = entropy;
    q->flow_hash[0] = flow_digest(q->src, q->dst, entropy);
    q->flow_hash[1] = flow_digest(q->dst, q->src, entropy);
}

uint32_t net_flow_new(struct net *n, uint32_t src_host, uint32_t dst_host) {
    fs_grow((void **)&n->flows, &n->flows_cap, n->nflows + 1, sizeof *n->flows);
    uint32_t id = n->nflows++;
    struct flow_row *f = &n->flows[id];
    memset(f, 0, sizeof *f);
    f->src = src_host;
    f->dst = dst_host;
    f->start_ps = SIM_TIME_NEVER;
    return id;
}

struct rng *net_switch_rngs(const struct net *n, uint64_t stream) {
    struct rng *r = fs_xcalloc(n->nswitches + 1, sizeof *r);
    for (uint32_t v = 0; v < n->nnodes; v++)
        if (n->nodes[v].kind == NODE_SWITCH)
            rng_seed(&r[n->nodes[v].index], n->sc->seed, v + 1, stream);
    return r;
}

uint32_t net_ctrl_wire_bytes(const struct net *n, enum pkt_type t) {
    bool eth = n->sc->fabric.kind != FABRIC_INFINIBAND; /* Ethernet: RoCE and UET */
    switch (t) {
    case PKT_ACK:
    case PKT_NAK:
        return net_ack_wire_bytes(n);
    case PKT_CNP:
        return n->overhead_bytes + 16; /* BTH + 16 reserved bytes (RoCEv2 Annex A17) */
    case PKT_PAUSE:
        return 64 + 20; /* 64 B MAC control frame + preamble/IFG (docs/sources.md A4) */
    case PKT_CREDIT:
        /* Ethernet (CBFC update): a minimum frame, 64 B + preamble and gap;
         * IB flow-control packet: 6 B + delimiters */
        return eth ? 84 : 8;
    default:
        return n->overhead_bytes;
    }
}

void net_warn(struct net *n, const char *fmt, ...) {
    n->warnings = fs_xrealloc(n->warnings, (n->nwarnings + 1) * sizeof *n->warnings);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->warnings[n->nwarnings++], sizeof *n->warnings, fmt, ap);
    va_end(ap);
}

/* src/route/fib.c
 *
 * The forwarding information base: for every switch and destination host, the
 * output ports that lie on a shortest path over live links. One BFS per
 * destination host, over switches only (hosts do not forward). Every routing
 * policy picks from these sets; the subnet manager's engines may fill their
 * own tables instead.
 */
#include "route/route.h"

#include "core/mem.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

void route_fib_build(struct net *n) {
    uint32_t S = n->nswitches, H = n->nhosts, V = n->nnodes;
    uint32_t *dist = fs_xmalloc(V * sizeof *dist);
    uint32_t *queue = fs_xmalloc(V * sizeof *queue);
    uint32_t *sw_node = fs_xmalloc((S ? S : 1) * sizeof *sw_node);
    for (uint32_t v = 0; v < V; v++)
        if (n->nodes[v].kind == NODE_SWITCH) sw_node[n->nodes[v].index] = v;
    free(n->fib_off);
    free(n->fib_ports);
    n->fib_off = fs_xcalloc((size_t)S * H + 1, sizeof *n->fib_off);
    size_t cap = 0, len = 0;
    uint32_t *ports = NULL;
    /* Distances for host h, then ports per switch in switch order: fill by
     * host-major order into a temporary, then lay out switch-major. */
    uint32_t *cnt = fs_xcalloc((size_t)S * H, sizeof *cnt);
    uint32_t **tmp = fs_xcalloc(H ? H : 1, sizeof *tmp);
    uint32_t *tmp_len = fs_xcalloc(H ? H : 1, sizeof *tmp_len);
    for (uint32_t h = 0; h < H; h++) {
        for (uint32_t v = 0; v < V; v++)
            dist[v] = UINT32_MAX;
        uint32_t src = n->host_node[h], qh = 0, qt = 0;
        dist[src] = 0;
        queue[qt++] = src;
        while (qh < qt) {
            uint32_t v = queue[qh++];
            const struct node *nd = &n->nodes[v];
            if (nd->kind == NODE_HOST && v != src) continue;
            for (uint32_t i = 0; i < nd->nports; i++) {
                const struct port *p = &n->ports[nd->first_port + i];
                if (!p->up || !n->ports[p->peer].up) continue;
                uint32_t w = n->ports[p->peer].node;
                if (dist[w] == UINT32_MAX) {
                    dist[w] = dist[v] + 1;
                    queue[qt++] = w;
                }
            }
        }
        size_t tcap = 0;
        uint32_t *t = NULL, tl = 0;
        for (uint32_t s = 0; s < S; s++) {
            uint32_t v = sw_node[s];
            if (dist[v] == UINT32_MAX) continue;
            const struct node *nd = &n->nodes[v];
            for (uint32_t i = 0; i < nd->nports; i++) {
                const struct port *p = &n->ports[nd->first_port + i];
                if (!p->up || !n->ports[p->peer].up) continue;
                uint32_t w = n->ports[p->peer].node;
                if (dist[w] + 1 == dist[v] && (n->nodes[w].kind == NODE_SWITCH || w == src)) {
                    fs_grow((void **)&t, &tcap, tl + 2, sizeof *t);
                    t[tl++] = s;
                    t[tl++] = nd->first_port + i;
                    cnt[(size_t)s * H + h]++;
                }
            }
        }
        tmp[h] = t;
        tmp_len[h] = tl;
    }
    for (size_t i = 0; i < (size_t)S * H; i++)
        n->fib_off[i + 1] = n->fib_off[i] + cnt[i];
    len = n->fib_off[(size_t)S * H];
    cap = len ? len : 1;
    ports = fs_xmalloc(cap * sizeof *ports);
    memset(cnt, 0, (size_t)S * H * sizeof *cnt);
    for (uint32_t h = 0; h < H; h++) {
        for (uint32_t i = 0; i < tmp_len[h]; i += 2) {
            size_t key = (size_t)tmp[h][i] * H + h;
            ports[n->fib_off[key] + cnt[key]++] = tmp[h][i + 1];
        }
        free(tmp[h]);
    }
    n->fib_ports = ports;
    free(tmp);
    free(tmp_len);
    free(cnt);
    free(sw_node);
    free(queue);
    free(dist);
}

uint32_t route_fib_get(const struct net *n, uint32_t sw, uint32_t host, const uint32_t **ports) {
    size_t key = (size_t)n->nodes[sw].index * n->nhosts + host;
    *ports = n->fib_ports + n->fib_off[key];
    return n->fib_off[key + 1] - n->fib_off[key];
}

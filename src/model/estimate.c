#include "model/estimate.h"

#include "core/diag.h"
#include "net/net.h"
#include "net/params.h"
#include "topo/tfile.h"
#include "topo/topo.h"
#include "workload/workload.h"

#include <stdio.h>
#include <string.h>

struct counts {
    uint64_t endpoints, switches, links;
    uint64_t fanout; /* mean minimal next hops per (switch, host) entry */
};

static void count(const struct topo_params *t, struct counts *c) {
    uint64_t G = t->gpus_per_host > 1 ? t->gpus_per_host : 1;
    uint64_t H = topo_host_count(t);
    memset(c, 0, sizeof *c);
    c->fanout = 1;
    switch (t->kind) {
    case TOPO_SINGLE_SWITCH:
        c->endpoints = H * G;
        c->switches = 1 + (G > 1 ? H : 0);
        c->links = H * G * (G > 1 ? 2 : 1);
        break;
    case TOPO_LEAF_SPINE: {
        uint64_t u = t->uplinks_per_spine ? t->uplinks_per_spine : 1;
        c->endpoints = H * G;
        c->switches = (uint64_t)t->leaves + t->spines + (G > 1 ? H : 0);
        c->links = H * G * (G > 1 ? 2 : 1) + (uint64_t)t->leaves * t->spines * u;
        /* leaves: every spine link towards remote hosts; spines: u links */
        c->fanout = ((uint64_t)t->leaves * t->spines * u + (uint64_t)t->spines * u) /
                    ((uint64_t)t->leaves + t->spines ? (uint64_t)t->leaves + t->spines : 1);
        break;
    }
    case TOPO_RAIL_OPTIMIZED:
    case TOPO_NVL72: {
        uint64_t u = t->uplinks_per_spine ? t->uplinks_per_spine : 1;
        uint64_t R = (t->rails ? t->rails : G) * topo_rail_groups(t);
        c->endpoints = H * G;
        c->switches = R + t->spines + (G > 1 ? H : 0);
        c->links = H * G * (G > 1 ? 2 : 1) + R * t->spines * u;
        c->fanout = (uint64_t)t->spines * u;
        break;
    }
    case TOPO_FAT_TREE: {
        uint64_t k = t->k;
        c->endpoints = H;
        c->switches = 5 * k * k / 4;
        c->links = H + k * k * k / 2;
        /* edge and aggregation: k/2 up-links towards most hosts; core: 1 */
        c->fanout = 2 * k / 5 ? 2 * k / 5 : 1;
        break;
    }
    case TOPO_RING:
        c->endpoints = H;
        c->switches = t->ring_switches;
        c->links = H + t->ring_switches;
        break;
    case TOPO_FILE: /* read at load: its nodes and links are known */
        if (t->file) {
            c->endpoints = H;
            c->switches = t->file->nnodes > t->file->nhosts ? t->file->nnodes - t->file->nhosts : 0;
            c->links = t->file->nlinks;
            c->fanout = c->switches ? (2 * c->links + c->switches - 1) / c->switches / 2 : 1;
        }
        break;
    }
}

void model_estimate(const struct model_params *sc, struct mem_estimate *e) {
    struct counts c;
    count(&sc->topo, &c);
    memset(e, 0, sizeof *e);
    uint64_t nodes = c.endpoints + c.switches, ports = 2 * c.links;
    uint64_t cells = c.switches * c.endpoints;
    uint64_t flows = 0;
    for (size_t i = 0; i < sc->nworkload; i++) {
        uint64_t f = workload_entry_flows(&sc->topo, sc->fabric.transport.qps_per_connection,
                                          &sc->workload[i]);
        flows = f > UINT64_MAX - flows ? UINT64_MAX : flows + f;
    }
    if (flows > WL_MAX_FLOWS) flows = WL_MAX_FLOWS;
    e->part[0].what = "topology (nodes and ports)";
    e->part[0].bytes = nodes * (sizeof(struct node) + 24 + 8) + ports * sizeof(struct port);
    /* route/fib.c: one 4-byte entry per (switch, host group) — hosts with the
     * same attachment switches form a group, so there are at most as many
     * groups as switches — plus each host's group, own links and their
     * switches (host_group, direct_off, direct, direct_sw), every node's
     * group (node_group), and the interned candidate sets (about one per
     * switch and fan-out). Static routing adds route/static.c's LFT: 2
     * bytes per (switch, host). */
    uint64_t groups = c.endpoints < c.switches ? c.endpoints : c.switches;
    e->part[1].what = "forwarding tables (switches x host groups, static LFTs)";
    e->part[1].bytes = c.switches * (groups ? groups : 1) * 4 + c.endpoints * 16 + nodes * 4 +
                       c.switches * c.fanout * 8;
    if (sc->fabric.routing == ROUTING_STATIC) e->part[1].bytes += cells * 2;
    e->part[2].what = "subnet manager tables (switches x LIDs)";
    if (sc->fabric.control_plane.kind == CP_SM && sc->fabric.kind == FABRIC_INFINIBAND)
        e->part[2].bytes = 2 * c.switches * (c.endpoints + c.switches + 1); /* 1 B entries */
    e->part[3].what = "workload (flows, queue pairs, messages)";
    e->part[3].bytes = flows * (sizeof(struct qp) + sizeof(struct msg) + sizeof(struct flow_row));
    /* model/sampler.c: 32-64 rows per link direction, four figures each. */
    e->part[4].what = "statistics (links.csv samples)";
    e->part[4].bytes = ports * 64 * 4 * 8;
    for (int i = 0; i < ESTIMATE_NPARTS; i++) {
        e->total_bytes += e->part[i].bytes;
        if (e->part[i].bytes > e->part[e->largest].bytes) e->largest = i;
    }
}

uint64_t estimate_mem_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[128];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return (uint64_t)kb * 1024;
}

static void fmt_bytes(uint64_t b, char *buf, size_t len) {
    if (b >= (1ull << 30))
        snprintf(buf, len, "%.1f GiB", (double)b / (1ull << 30));
    else
        snprintf(buf, len, "%.1f MiB", (double)b / (1ull << 20));
}

int model_check_memory(const struct model_params *sc, uint64_t limit_bytes, struct diag *d) {
    uint64_t limit = limit_bytes ? limit_bytes : estimate_mem_available();
    if (!limit) return 0;
    struct mem_estimate e;
    model_estimate(sc, &e);
    if (e.total_bytes <= limit) return 0;
    char need[32], big[32], lim[32];
    fmt_bytes(e.total_bytes, need, sizeof need);
    fmt_bytes(e.part[e.largest].bytes, big, sizeof big);
    fmt_bytes(limit, lim, sizeof lim);
    return diag_set(d, sc->file, (struct srcpos){0, 0}, FS_ERANGE,
                    "the model needs about %s (largest part: %s, %s), more than %s %s; make "
                    "the fabric or workload smaller, or %s",
                    need, e.part[e.largest].what, big,
                    limit_bytes ? "--max-memory" : "the available (MemAvailable)", lim,
                    limit_bytes ? "raise --max-memory" : "set --max-memory SIZE to override");
}

/* src/config/tfile_yaml.c
 *
 * A user's topology file as input: format detection, fabsim's YAML form,
 * the checks every format gets (ports, one NIC link per host,
 * connectivity) and host order; and writing any built fabric back as YAML.
 * The file's node table (topo/tfile_node.h) is what topo/tfile.c builds
 * into the net; the ibnetdiscover and ibsim parsers are topo/tfile_ib.c.
 *
 * The YAML form (docs/inputs.md):
 *   nodes:
 *     - {name: h0, kind: host}                 # gpus: 8 -> GPUs h0.g0..g7, NICs h0.n0..n7
 *     - {name: leaf0, kind: switch, ports: 64, role: leaf}
 *   links:
 *     - {a: h0, b: "leaf0:1", rate: 400Gbps, length: 3m}
 * An endpoint is a node name, "name:port" (1-based) or a NIC "h0.n3".
 */
#include "config/tfile_yaml.h"

#include "config/scenario.h"
#include "config/yaml.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"
#include "core/units.h"
#include "net/net.h"
#include "topo/tfile_ib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TFILE_MAX_BYTES (256u << 20)
#define TFILE_MAX_NODES (1u << 22)

static const char *const ROLE_NAMES[] = {"host", "sw",  "leaf", "spine",
                                         "edge", "agg", "core", "nvs"};

/* ---- fabsim's YAML form ---- */

static int yfail(struct diag *d, const struct yaml_node *n, const char *fmt, const char *a,
                 const char *b) {
    char msg[400];
    snprintf(msg, sizeof msg, fmt, a, b);
    return diag_set(d, n->file, n->pos, FS_EINVAL, "%s", msg);
}

static int ytext(struct diag *d, const struct yaml_node *n, const char *what, const char **out) {
    if (!n || n->type != YAML_SCALAR || yaml_is_null(n))
        return diag_set(d, n ? n->file : "", n ? n->pos : (struct srcpos){0, 0}, FS_EINVAL,
                        "expected %s, got %s", what, yaml_describe(n));
    *out = n->text;
    return 0;
}

static int check_keys(struct diag *d, const struct yaml_node *m, const char *const *allowed,
                      const char *what) {
    for (size_t i = 0; i < m->npairs; i++) {
        const struct yaml_node *k = m->pairs[i].key;
        bool ok = false;
        for (size_t j = 0; allowed[j] && !ok; j++)
            ok = k->type == YAML_SCALAR && !strcmp(k->text, allowed[j]);
        if (!ok)
            return diag_set(d, k->file, k->pos, FS_EINVAL,
                            "unknown key '%.40s' in a %s; allowed: %s%s%s%s%s%s%s", k->text, what,
                            allowed[0], allowed[1] ? ", " : "", allowed[1] ? allowed[1] : "",
                            allowed[2] ? ", " : "", allowed[2] ? allowed[2] : "",
                            allowed[3] ? ", " : "", allowed[3] ? allowed[3] : "");
        for (size_t j = 0; j < i; j++)
            if (!strcmp(m->pairs[j].key->text, k->text))
                return diag_set(d, k->file, k->pos, FS_EINVAL, "'%s' is given twice", k->text);
    }
    return 0;
}

static int yu32(struct diag *d, const struct yaml_node *n, uint32_t min, uint32_t max,
                uint32_t *out) {
    const char *s;
    int rc = ytext(d, n, "a whole number", &s);
    if (rc) return rc;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || end == s || errno || v < min || v > max || s[0] == '-')
        return diag_set(d, n->file, n->pos, FS_EINVAL,
                        "expected a whole number %u..%u, got '%.40s'", min, max, s);
    *out = (uint32_t)v;
    return 0;
}

/* "name", "name:port" or the NIC "h0.n3" of a multi-GPU host. */
static int endpoint(struct topo_file *tf, const struct yaml_node *n, struct diag *d, uint32_t *node,
                    uint32_t *nic, uint32_t *port) {
    const char *s;
    int rc = ytext(d, n, "a node name such as leaf0 or leaf0:3", &s);
    if (rc) return rc;
    char name[64];
    snprintf(name, sizeof name, "%s", s);
    *port = 0;
    *nic = 0;
    char *colon = strrchr(name, ':');
    if (colon) {
        char *end;
        unsigned long p = strtoul(colon + 1, &end, 10);
        if (*end || end == colon + 1 || p == 0 || p > 65535)
            return yfail(d, n, "'%s': the port after ':' is a number 1..65535", s, NULL);
        *port = (uint32_t)p;
        *colon = 0;
    }
    *node = tfile_node_find(tf, name);
    if (*node != TFILE_NONE) return 0;
    char *dot = strrchr(name, '.');
    if (dot && dot[1] == 'n' && dot[2] >= '0' && dot[2] <= '9') {
        unsigned long g = strtoul(dot + 2, NULL, 10);
        *dot = 0;
        uint32_t h = tfile_node_find(tf, name);
        if (h != TFILE_NONE && tf->nodes[h].kind == TFILE_HOST && g < tf->nodes[h].gpus) {
            *node = h;
            *nic = (uint32_t)g;
            return 0;
        }
    }
    return yfail(d, n, "link to nowhere: no node '%s' in the nodes list%s", s,
                 dot ? " (a NIC h0.n3 needs a host with gpus > 3)" : "");
}

int tfile_parse_yaml(struct topo_file *tf, const char *path, struct diag *d) {
    struct yaml_doc doc;
    int rc = yaml_load_file(&doc, path, d);
    if (rc) return rc;
    const struct yaml_node *root = doc.root;
    static const char *const top[] = {"nodes", "links", "name", NULL};
    static const char *const nkeys[] = {"name", "kind", "gpus", "ports", "role", NULL};
    static const char *const lkeys[] = {"a", "b", "rate", "length", "buffer", NULL};
    if (!root || root->type != YAML_MAP)
        rc = diag_set(d, path, root ? root->pos : (struct srcpos){1, 1}, FS_EINVAL,
                      "a topology file is a mapping with 'nodes:' and 'links:' lists");
    if (!rc) rc = check_keys(d, root, top, "topology file");
    const struct yaml_node *nodes = rc ? NULL : yaml_map_get(root, "nodes");
    const struct yaml_node *links = rc ? NULL : yaml_map_get(root, "links");
    if (!rc && (!nodes || nodes->type != YAML_SEQ || !links || links->type != YAML_SEQ))
        rc = diag_set(d, path, root->pos, FS_EINVAL,
                      "a topology file needs 'nodes:' and 'links:' lists (docs/inputs.md)");
    for (size_t i = 0; !rc && i < nodes->nitems; i++) {
        const struct yaml_node *m = nodes->items[i];
        if (m->type != YAML_MAP) {
            rc = diag_set(d, m->file, m->pos, FS_EINVAL,
                          "a node is a mapping such as {name: leaf0, kind: switch}");
            break;
        }
        rc = check_keys(d, m, nkeys, "node");
        const char *name = NULL, *kind = NULL;
        if (!rc)
            rc = ytext(d, yaml_map_get(m, "name") ? yaml_map_get(m, "name") : m, "a name", &name);
        if (!rc)
            rc = ytext(d, yaml_map_get(m, "kind") ? yaml_map_get(m, "kind") : m,
                       "a kind (host or switch)", &kind);
        if (rc) break;
        const struct yaml_node *nn = yaml_map_get(m, "name"), *kn = yaml_map_get(m, "kind");
        bool bad = !name[0] || strlen(name) >= sizeof tf->nodes[0].name;
        for (const char *p = name; *p && !bad; p++)
            bad = !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || *p == '_' || *p == '.');
        if (bad) {
            rc = yfail(d, nn,
                       "'%s' cannot be a node name: 1-23 letters, digits, '_' or '.' (names "
                       "make link names such as leaf0-spine1)%s",
                       name, "");
            break;
        }
        if (tfile_node_find(tf, name) != TFILE_NONE) {
            rc = yfail(d, nn, "node '%s' is listed twice%s", name, "");
            break;
        }
        enum tfile_kind k;
        if (!strcmp(kind, "host"))
            k = TFILE_HOST;
        else if (!strcmp(kind, "switch"))
            k = TFILE_SWITCH;
        else {
            rc = yfail(d, kn, "unknown node kind '%s'; allowed: host, switch%s", kind, "");
            break;
        }
        uint32_t v = tfile_node_add(tf, name, k, nn->pos.line);
        const struct yaml_node *g = yaml_map_get(m, "gpus"), *p = yaml_map_get(m, "ports"),
                               *r = yaml_map_get(m, "role");
        if (g && k != TFILE_HOST) rc = yfail(d, g, "gpus belongs to hosts%s%s", "", "");
        if (!rc && p && k != TFILE_SWITCH)
            rc = yfail(d, p, "ports belongs to switches%s%s", "", "");
        if (!rc && g) rc = yu32(d, g, 1, 1024, &tf->nodes[v].gpus);
        if (!rc && p) rc = yu32(d, p, 1, 65535, &tf->nodes[v].ports);
        if (!rc && r) {
            const char *rs;
            rc = ytext(d, r, "a role", &rs);
            for (uint8_t j = 1; !rc && j < 7; j++)
                if (!strcmp(rs, ROLE_NAMES[j])) tf->nodes[v].role = j;
            if (!rc && (k != TFILE_SWITCH || tf->nodes[v].role == 0xff))
                rc = yfail(d, r, "role '%s': switches take sw, leaf, spine, edge, agg or core%s",
                           rs, "");
        }
    }
    for (size_t i = 0; !rc && i < links->nitems; i++) {
        const struct yaml_node *m = links->items[i];
        if (m->type != YAML_MAP) {
            rc = diag_set(d, m->file, m->pos, FS_EINVAL,
                          "a link is a mapping such as {a: h0, b: leaf0, rate: 400Gbps}");
            break;
        }
        rc = check_keys(d, m, lkeys, "link");
        if (rc) break;
        struct tfile_link l;
        memset(&l, 0, sizeof l);
        l.length_mm = UINT64_MAX;
        l.line = m->pos.line;
        const struct yaml_node *an = yaml_map_get(m, "a"), *bn = yaml_map_get(m, "b");
        if (!an || !bn) {
            rc = diag_set(d, m->file, m->pos, FS_EINVAL, "a link needs both ends: a and b");
            break;
        }
        rc = endpoint(tf, an, d, &l.a, &l.nic_a, &l.pa);
        if (!rc) rc = endpoint(tf, bn, d, &l.b, &l.nic_b, &l.pb);
        char why[160];
        const struct yaml_node *rn = yaml_map_get(m, "rate"), *ln = yaml_map_get(m, "length");
        const char *s;
        if (!rc && rn) {
            rc = ytext(d, rn, "a rate such as 400Gbps", &s);
            if (!rc && (units_parse_rate(s, &l.rate_bps, why, sizeof why) || !l.rate_bps))
                rc = yfail(d, rn, "rate '%s': %s", s, l.rate_bps ? why : "must be above 0");
        }
        if (!rc && ln) {
            rc = ytext(d, ln, "a length such as 3m", &s);
            if (!rc && units_parse_length(s, &l.length_mm, why, sizeof why))
                rc = yfail(d, ln, "length '%s': %s", s, why);
        }
        /* A link's own egress buffer at both ends (a queue the reference
         * simulator shrinks with a slowed link, docs/inputs.md): tail drop
         * and trimming read it; lossless flow control is refused with it
         * (scenario_topology.c), its thresholds being the fabric's. */
        const struct yaml_node *bn2 = yaml_map_get(m, "buffer");
        if (!rc && bn2) {
            uint64_t v = 0;
            rc = ytext(d, bn2, "a size such as 104450B or 256KiB", &s);
            if (!rc && (units_parse_size(s, &v, why, sizeof why) || !v || v > UINT32_MAX))
                rc = yfail(d, bn2, "buffer '%s': %s", s,
                           v > UINT32_MAX ? "at most 4 GiB per port"
                           : v            ? why
                                          : "must be above 0 (leave it out for fabric.buffer)");
            l.buffer_bytes = (uint32_t)v;
            l.buffer_col = bn2->pos.col;
        }
        if (!rc && l.a == l.b)
            rc = yfail(d, bn, "a link from '%s' to itself%s", tf->nodes[l.a].name, "");
        if (rc) break;
        tf->links = fs_xrealloc(tf->links, (tf->nlinks + 1) * sizeof *tf->links);
        tf->links[tf->nlinks++] = l;
    }
    yaml_doc_fini(&doc);
    return rc;
}

/* ---- checks shared by every format ---- */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Ports: a given port within the switch's count and used once; a host's
 * NIC (each GPU's on a multi-GPU host) has exactly one link. */
static int check_ports(const struct topo_file *tf, const char *path, struct diag *d) {
    size_t n = 0;
    uint64_t *use = fs_xmalloc((2 * (size_t)tf->nlinks + 1) * 2 * sizeof *use);
    int rc = 0;
    for (uint32_t i = 0; i < tf->nlinks && !rc; i++) {
        const struct tfile_link *l = &tf->links[i];
        for (int e = 0; e < 2 && !rc; e++) {
            uint32_t v = e ? l->b : l->a, p = e ? l->pb : l->pa, nic = e ? l->nic_b : l->nic_a;
            const struct tfile_node *nd = &tf->nodes[v];
            if (nd->kind == TFILE_SWITCH && p && nd->ports && p > nd->ports)
                rc = diag_set(d, path, (struct srcpos){l->line, 0}, FS_EINVAL,
                              "unknown port %u of '%s': it has ports 1..%u (line %u)", p, nd->name,
                              nd->ports, nd->line);
            /* key: node, then (host: NIC | switch: port; unnumbered switch ports never clash) */
            if (nd->kind == TFILE_HOST || p) {
                use[2 * n] = (uint64_t)v << 32 | (nd->kind == TFILE_HOST ? nic : p);
                use[2 * n + 1] = l->line;
                n++;
            }
        }
    }
    if (!rc) qsort(use, n, 2 * sizeof *use, cmp_u64);
    for (size_t i = 1; i < n && !rc; i++) {
        if (use[2 * i] != use[2 * i - 2]) continue;
        uint32_t v = (uint32_t)(use[2 * i] >> 32), p = (uint32_t)use[2 * i];
        uint32_t l1 = (uint32_t)use[2 * i - 1], l2 = (uint32_t)use[2 * i + 1];
        const struct tfile_node *nd = &tf->nodes[v];
        if (l1 > l2) {
            uint32_t t = l1;
            l1 = l2;
            l2 = t;
        }
        if (nd->kind == TFILE_HOST && nd->gpus > 1)
            rc = diag_set(d, path, (struct srcpos){l2, 0}, FS_EINVAL,
                          "NIC %s.n%u is used twice (also line %u); each NIC has one link",
                          nd->name, p, l1);
        else if (nd->kind == TFILE_HOST)
            rc = diag_set(d, path, (struct srcpos){l2, 0}, FS_EINVAL,
                          "host '%s' has a second link (also line %u); a host has one NIC port "
                          "(give it gpus: N for N NICs, or make it one host per port)",
                          nd->name, l1);
        else
            rc = diag_set(d, path, (struct srcpos){l2, 0}, FS_EINVAL,
                          "port %u of '%s' is used twice (also line %u)", p, nd->name, l1);
    }
    free(use);
    return rc;
}

/* Every NIC connected, and one connected fabric; otherwise the parts named. */
static int check_connected(const struct topo_file *tf, const char *path, struct diag *d) {
    uint32_t N = tf->nnodes;
    if (!N) return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL, "no nodes in the file");
    if (!tf->nhosts)
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL, "no hosts in the file");
    uint32_t *part = fs_xmalloc(N * sizeof *part), *adj_off = fs_xcalloc(N + 1, sizeof *adj_off);
    uint32_t *adj = fs_xmalloc((2 * (size_t)tf->nlinks + 1) * sizeof *adj),
             *q = fs_xmalloc(N * sizeof *q);
    for (uint32_t i = 0; i < tf->nlinks; i++) {
        adj_off[tf->links[i].a + 1]++;
        adj_off[tf->links[i].b + 1]++;
    }
    for (uint32_t v = 0; v < N; v++)
        adj_off[v + 1] += adj_off[v];
    uint32_t *fill = fs_xcalloc(N, sizeof *fill);
    for (uint32_t i = 0; i < tf->nlinks; i++) {
        uint32_t a = tf->links[i].a, b = tf->links[i].b;
        adj[adj_off[a] + fill[a]++] = b;
        adj[adj_off[b] + fill[b]++] = a;
    }
    uint32_t nparts = 0;
    for (uint32_t v = 0; v < N; v++)
        part[v] = TFILE_NONE;
    for (uint32_t s = 0; s < N; s++) {
        if (part[s] != TFILE_NONE) continue;
        uint32_t qh = 0, qt = 0;
        q[qt++] = s;
        part[s] = nparts;
        while (qh < qt) {
            uint32_t v = q[qh++];
            for (uint32_t k = adj_off[v]; k < adj_off[v + 1]; k++)
                if (part[adj[k]] == TFILE_NONE) {
                    part[adj[k]] = nparts;
                    q[qt++] = adj[k];
                }
        }
        nparts++;
    }
    int rc = 0;
    if (nparts > 1) {
        char msg[700];
        size_t len =
            (size_t)snprintf(msg, sizeof msg, "the fabric is disconnected: %u parts:", nparts);
        for (uint32_t p = 0; p < nparts && p < 4 && len < sizeof msg; p++) {
            uint32_t cnt = 0, shown = 0;
            for (uint32_t v = 0; v < N; v++)
                cnt += part[v] == p;
            len += (size_t)snprintf(msg + len, sizeof msg - len, "%s {", p ? " and" : "");
            for (uint32_t v = 0; v < N && shown < 4 && len < sizeof msg; v++)
                if (part[v] == p)
                    len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s",
                                            shown++ ? ", " : "", tf->nodes[v].name);
            if (len < sizeof msg)
                len += (size_t)snprintf(msg + len, sizeof msg - len, "%s} (%u nodes)",
                                        cnt > shown ? ", ..." : "", cnt);
        }
        if (nparts > 4 && len < sizeof msg) snprintf(msg + len, sizeof msg - len, " ...");
        rc = diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL, "%s", msg);
    }
    for (uint32_t v = 0; v < N && !rc; v++) {
        const struct tfile_node *nd = &tf->nodes[v];
        if (nd->kind != TFILE_HOST) continue;
        uint32_t deg = adj_off[v + 1] - adj_off[v];
        if (deg < nd->gpus)
            rc = diag_set(d, path, (struct srcpos){nd->line, 0}, FS_EINVAL,
                          "host '%s' has %u NIC(s) but %u link(s): every NIC needs its link",
                          nd->name, nd->gpus, deg);
    }
    free(part);
    free(adj_off);
    free(adj);
    free(q);
    free(fill);
    return rc;
}

/* Hosts named h0..h<H-1> take those indices (a fabric written by fabsim
 * reads back with the same host numbers); otherwise file order. */
static void order_hosts(struct topo_file *tf) {
    uint32_t H = 0;
    for (uint32_t v = 0; v < tf->nnodes; v++)
        H += tf->nodes[v].kind == TFILE_HOST;
    tf->nhosts = H;
    uint32_t *at = fs_xmalloc((H ? H : 1) * sizeof *at);
    bool numbered = true;
    for (uint32_t i = 0; i < H; i++)
        at[i] = TFILE_NONE;
    for (uint32_t v = 0; v < tf->nnodes && numbered; v++) {
        const struct tfile_node *nd = &tf->nodes[v];
        if (nd->kind != TFILE_HOST) continue;
        char *end;
        unsigned long k = nd->name[0] == 'h' ? strtoul(nd->name + 1, &end, 10) : H;
        numbered = nd->name[0] == 'h' && nd->name[1] >= '0' && nd->name[1] <= '9' && !*end &&
                   k < H && at[k] == TFILE_NONE;
        if (numbered) at[k] = v;
    }
    /* new order: hosts (numbered or in file order), then switches */
    uint32_t *newid = fs_xmalloc(tf->nnodes * sizeof *newid), k = 0;
    if (numbered)
        for (uint32_t i = 0; i < H; i++)
            newid[at[i]] = k++;
    else
        for (uint32_t v = 0; v < tf->nnodes; v++)
            if (tf->nodes[v].kind == TFILE_HOST) newid[v] = k++;
    for (uint32_t v = 0; v < tf->nnodes; v++)
        if (tf->nodes[v].kind != TFILE_HOST) newid[v] = k++;
    struct tfile_node *nn = fs_xmalloc(tf->nnodes * sizeof *nn);
    for (uint32_t v = 0; v < tf->nnodes; v++)
        nn[newid[v]] = tf->nodes[v];
    free(tf->nodes);
    tf->nodes = nn;
    for (uint32_t i = 0; i < tf->nlinks; i++) {
        tf->links[i].a = newid[tf->links[i].a];
        tf->links[i].b = newid[tf->links[i].b];
    }
    free(newid);
    free(at);
}

static enum tfile_format detect(const char *path, const char *text) {
    size_t len = strlen(path);
    if ((len > 5 && !strcmp(path + len - 5, ".yaml")) ||
        (len > 4 && !strcmp(path + len - 4, ".yml")))
        return TFILE_YAML;
    if (strstr(text, "switchguid=") || strstr(text, "caguid=") ||
        strstr(text, "# Topology file: generated"))
        return TFILE_IBNETDISCOVER;
    if (strstr(text, "\nSwitch\t") || strstr(text, "\nHca\t") || !strncmp(text, "Switch", 6) ||
        !strncmp(text, "Hca", 3))
        return TFILE_IBSIM;
    return TFILE_YAML;
}

int tfile_read(struct topo_file *tf, const char *path, enum tfile_format fmt,
               enum tfile_group group, struct diag *d) {
    memset(tf, 0, sizeof *tf);
    tf->path = fs_xstrdup(path);
    FILE *f = fs_open_regular(path); /* core/file.h: no folder, device or FIFO */
    if (!f) {
        int rc = diag_set(d, path, (struct srcpos){0, 0}, FS_ENOENT,
                          "cannot open topology file: %s", strerror(errno));
        tfile_free(tf);
        return rc;
    }
    size_t cap = 1 << 16, n = 0, got;
    char *text = fs_xmalloc(cap + 1);
    while ((got = fread(text + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap && cap < TFILE_MAX_BYTES) {
            cap *= 2;
            text = fs_xrealloc(text, cap + 1);
        } else if (n == cap) {
            break;
        }
    }
    fclose(f);
    text[n] = 0;
    int rc = 0;
    if (n == cap)
        rc = diag_set(d, path, (struct srcpos){0, 0}, FS_ERANGE, "topology file larger than %u MiB",
                      TFILE_MAX_BYTES >> 20);
    if (!rc && strlen(text) != n)
        rc = diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                      "binary data (a NUL byte): a topology file is text");
    if (!rc && fmt == TFILE_AUTO) fmt = detect(path, text);
    if (!rc)
        rc = fmt == TFILE_YAML ? tfile_parse_yaml(tf, path, d)
                               : tfile_parse_ib(tf, path, text, fmt, group, d);
    free(text);
    if (!rc && tf->nnodes > TFILE_MAX_NODES)
        rc = diag_set(d, path, (struct srcpos){0, 0}, FS_ERANGE, "%u nodes; at most %u", tf->nnodes,
                      TFILE_MAX_NODES);
    uint32_t G = 0;
    for (uint32_t v = 0; !rc && v < tf->nnodes; v++) {
        const struct tfile_node *nd = &tf->nodes[v];
        if (nd->kind != TFILE_HOST) continue;
        if (!G) G = nd->gpus;
        if (nd->gpus != G && fmt == TFILE_YAML)
            rc = diag_set(d, path, (struct srcpos){nd->line, 0}, FS_EINVAL,
                          "host '%s' has gpus: %u but others have %u; every host of a fabric "
                          "has the same GPU count",
                          nd->name, nd->gpus, G);
        else if (nd->gpus != G)
            rc = diag_set(d, path, (struct srcpos){nd->line, 0}, FS_EINVAL,
                          "host '%s' has %u cabled HCA port(s) but others have %u; every host "
                          "of a fabric has the same NIC (GPU) count (topology.group: hca takes "
                          "each HCA as a host)",
                          nd->name, nd->gpus, G);
    }
    tf->gpus = G ? G : 1;
    if (!rc) order_hosts(tf);
    if (!rc) rc = check_ports(tf, path, d);
    if (!rc) rc = check_connected(tf, path, d);
    if (rc) tfile_free(tf);
    return rc;
}

/* ---- writing ---- */

/* The host name of endpoint node v: "h3" for h3.g5 on multi-GPU hosts. */
static void host_name(const struct net *n, uint32_t v, uint32_t G, char *buf, size_t len) {
    snprintf(buf, len, "%s", n->names[v]);
    char *dot = strrchr(buf, '.');
    if (G > 1 && dot) *dot = 0;
}

static void endpoint_name(const struct net *n, uint32_t v, uint32_t G, char *buf, size_t len) {
    const char *dot = strrchr(n->names[v], '.');
    if (n->nodes[v].kind == NODE_HOST && G > 1 && dot && dot[1] == 'g')
        snprintf(buf, len, "%.*s.n%s", (int)(dot - n->names[v]), n->names[v], dot + 2);
    else
        snprintf(buf, len, "%s", n->names[v]);
}

/* Exact, re-readable: 400Gbps, 54545454545bps. */
static void fmt_rate(uint64_t bps, char *buf, size_t len) {
    if (bps % 1000000000u == 0)
        snprintf(buf, len, "%lluGbps", (unsigned long long)(bps / 1000000000u));
    else if (bps % 1000000u == 0)
        snprintf(buf, len, "%lluMbps", (unsigned long long)(bps / 1000000u));
    else
        snprintf(buf, len, "%llubps", (unsigned long long)bps);
}

void tfile_write_yaml(const struct net *n, const struct scenario *sc, FILE *f) {
    uint32_t G = sc->topo.gpus_per_host > 1 ? sc->topo.gpus_per_host : 1;
    char a[48], b[48], r[48], from[1024];
    /* The path is echoed escaped: a newline in it must not end the comment
     * and inject YAML. */
    fs_escape_ctl(sc->file, from, sizeof from);
    fprintf(f,
            "# fabsim topology file (docs/inputs.md), written by `fabsim topology` from %s.\n"
            "# Read it with topology: {kind: file, path: THIS_FILE}.\n",
            from);
    fprintf(f, "nodes:\n");
    for (uint32_t v = 0; v < n->nnodes; v++) {
        const struct node *nd = &n->nodes[v];
        if (nd->kind == NODE_HOST) {
            if (G > 1 && nd->index % G) continue;
            host_name(n, v, G, a, sizeof a);
            if (G > 1)
                fprintf(f, "  - {name: %s, kind: host, gpus: %u}\n", a, G);
            else
                fprintf(f, "  - {name: %s, kind: host}\n", a);
        } else if (nd->role != ROLE_NVSWITCH) {
            fprintf(f, "  - {name: %s, kind: switch, ports: %u, role: %s}\n", n->names[v],
                    nd->nports, ROLE_NAMES[nd->role]);
        }
    }
    fprintf(f, "links:\n");
    for (uint32_t v = 0; v < n->nnodes; v++) {
        const struct node *nd = &n->nodes[v];
        for (uint32_t i = 0; i < nd->nports; i++) {
            uint32_t p = nd->first_port + i, q = n->ports[p].peer;
            uint32_t w = n->ports[q].node;
            if (w < v || (w == v && q < p)) continue; /* each cable once, from its lower end */
            if (nd->role == ROLE_NVSWITCH || n->nodes[w].role == ROLE_NVSWITCH) continue;
            endpoint_name(n, v, G, a, sizeof a);
            endpoint_name(n, w, G, b, sizeof b);
            fmt_rate(n->ports[p].rate_bps, r, sizeof r);
            uint32_t pa = p - nd->first_port + 1, pb = q - n->nodes[w].first_port + 1;
            char as[64], bs[64];
            if (nd->kind == NODE_SWITCH)
                snprintf(as, sizeof as, "\"%s:%u\"", a, pa);
            else
                snprintf(as, sizeof as, "%s", a);
            if (n->nodes[w].kind == NODE_SWITCH)
                snprintf(bs, sizeof bs, "\"%s:%u\"", b, pb);
            else
                snprintf(bs, sizeof bs, "%s", b);
            uint64_t mm = n->ports[p].prop_ps / 5u; /* 5 ns/m */
            char buf[48] = "";
            if (n->ports[p].buffer_bytes)
                snprintf(buf, sizeof buf, ", buffer: %uB", n->ports[p].buffer_bytes);
            if (mm % 1000 == 0)
                fprintf(f, "  - {a: %s, b: %s, rate: %s, length: %llum%s}\n", as, bs, r,
                        (unsigned long long)(mm / 1000), buf);
            else
                fprintf(f, "  - {a: %s, b: %s, rate: %s, length: %llumm%s}\n", as, bs, r,
                        (unsigned long long)mm, buf);
        }
    }
}

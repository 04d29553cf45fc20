/* src/topo/tfile_ib.c
 *
 * InfiniBand fabric descriptions as text: `ibnetdiscover` output
 * (infiniband-diags; also what ibnetdiscover prints for an ibsim fabric)
 * and ibsim net files (what `fabsim routes --ibsim-topology` writes). Both
 * are records of a header line
 *     Switch  36 "S-0002c90200000010"   # "leaf0" base port 0 lid 17 lmc 0
 *     Ca      1 "H-0002c9030000000a"    # "node01 HCA-1"
 *     Hca     1 "h0"                    (ibsim)
 * followed by one line per connected port
 *     [3]  "S-0002c90200000020"[1]   # "spine0" lid 9 4xNDR
 *     [1](2c9030000000b)  "S-..."[2](...)  # lid 5 lmc 0 "leaf0" lid 17 4xEDR
 * Every cable appears from both ends; both must agree. Names: the node
 * description's first word (made unique, with characters outside
 * [A-Za-z0-9_.] as '_'), or the node id when there is no description.
 * Rates: width x lane data rate (IBTA: SDR 2, DDR 4, QDR 8, FDR10 10,
 * FDR 14.0625*64/66, EDR 25, HDR 50, NDR 100, XDR 200 Gb/s per lane).
 */
#include "topo/tfile_ib.h"

#include "core/diag.h"
#include "core/mem.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct rec {
    char id[80];
    char dev[40]; /* a Ca's device name ("mlx5_3"), what orders a server's HCAs */
    uint32_t nports, node, line;
    bool host;
    uint32_t *peer, *pport, *pline; /* per port 1..nports: node id, port, line; 0 = free */
    uint32_t *nic;                  /* per port of a Ca: the host's NIC index it became */
};

/* A string -> index map (open addressing, FNV-1a): record ids and the
 * names taken, so that thousands of HCAs with the same description (the
 * firmware default) read in linear time, not cubic. */
struct smap {
    char **k;
    uint32_t *v;
    size_t cap, n;
};

static size_t shash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

static uint32_t smap_get(const struct smap *m, const char *k) {
    if (!m->cap) return TFILE_NONE;
    for (size_t i = shash(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->k[i]) return TFILE_NONE;
        if (!strcmp(m->k[i], k)) return m->v[i];
    }
}

static void smap_put(struct smap *m, const char *k, uint32_t v);

static void smap_grow(struct smap *m) {
    struct smap old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->n = 0;
    m->k = fs_xcalloc(m->cap, sizeof *m->k);
    m->v = fs_xcalloc(m->cap, sizeof *m->v);
    for (size_t i = 0; i < old.cap; i++)
        if (old.k[i]) {
            smap_put(m, old.k[i], old.v[i]);
            free(old.k[i]);
        }
    free(old.k);
    free(old.v);
}

/* Sets k -> v (replacing an earlier value). */
static void smap_put(struct smap *m, const char *k, uint32_t v) {
    if (2 * (m->n + 1) > m->cap) smap_grow(m);
    size_t i = shash(k) & (m->cap - 1);
    while (m->k[i] && strcmp(m->k[i], k))
        i = (i + 1) & (m->cap - 1);
    if (!m->k[i]) {
        m->k[i] = fs_xstrdup(k);
        m->n++;
    }
    m->v[i] = v;
}

static void smap_fini(struct smap *m) {
    for (size_t i = 0; i < m->cap; i++)
        free(m->k[i]);
    free(m->k);
    free(m->v);
    memset(m, 0, sizeof *m);
}

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* A "quoted" string at p into buf; returns the character after it or NULL. */
static const char *quoted(const char *p, char *buf, size_t len) {
    if (*p != '"') return NULL;
    const char *e = strchr(p + 1, '"');
    if (!e) return NULL;
    snprintf(buf, len, "%.*s", (int)(e - p - 1), p + 1);
    return e + 1;
}

/* "4xNDR" (the last such token of the comment) as bit/s; 0 if none. */
static uint64_t ib_rate(const char *comment) {
    static const struct {
        const char *name;
        double gbps; /* data rate per lane */
    } speeds[] = {{"SDR", 2},  {"DDR", 4},  {"QDR", 8},   {"FDR10", 10}, {"FDR", 14.0625 * 64 / 66},
                  {"EDR", 25}, {"HDR", 50}, {"NDR", 100}, {"XDR", 200}};
    uint64_t best = 0;
    for (const char *p = comment; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > comment && isalnum((unsigned char)p[-1]))) continue;
        char *end;
        unsigned long w = strtoul(p, &end, 10);
        if (*end != 'x' || (w != 1 && w != 2 && w != 4 && w != 8 && w != 12)) continue;
        const char *s = end + 1;
        for (size_t i = 0; i < sizeof speeds / sizeof *speeds; i++) {
            size_t l = strlen(speeds[i].name);
            if (!strncmp(s, speeds[i].name, l) && !isalnum((unsigned char)s[l]))
                best = (uint64_t)((double)w * speeds[i].gbps * 1e9 + 0.5);
        }
    }
    return best;
}

/* A name's base: the description's first word with characters outside
 * [A-Za-z0-9_.] as '_' (at most 23 characters). */
static void name_base(const char *word, size_t wlen, char *base) {
    size_t k = 0;
    for (size_t i = 0; i < wlen && k + 1 < 24; i++)
        base[k++] =
            (isalnum((unsigned char)word[i]) || word[i] == '_' || word[i] == '.') ? word[i] : '_';
    base[k] = 0;
}

/* NVIDIA's switch node descriptions (MLNX-OS / Onyx, UFM): "MF0;<host
 * name>:<part number>/<module>[/<ASIC>]", e.g. "MF0;ib-leaf-01:MQM9700/U1"
 * or a director's "MF0;ib-core-1:CS7500/L05/U1". The readable name is the
 * host name, with the module path when it is more than the one ASIC "U1"
 * (ib_leaf_01; ib_core_1_L05_U1); 0 if `desc` is not of that form. */
static int vendor_switch_base(const char *desc, char *base) {
    if (strncmp(desc, "MF0;", 4)) return 0;
    const char *h = desc + 4, *colon = strchr(h, ':');
    if (!colon || colon == h) return 0;
    const char *slash = strchr(colon, '/');
    char raw[96];
    if (slash && strcmp(slash + 1, "U1"))
        snprintf(raw, sizeof raw, "%.*s/%s", (int)(colon - h), h, slash + 1);
    else
        snprintf(raw, sizeof raw, "%.*s", (int)(colon - h), h);
    name_base(raw, strcspn(raw, " \t"), base);
    return base[0] != 0;
}

/* The node's name: `base` made unique (base, base_2, base_3...: the first
 * not in `names`). `last` remembers the suffix each base reached, so a
 * repeated description costs one look-up. */
static void make_name(struct smap *names, struct smap *last, const char *desc, bool sw, char *out,
                      size_t len) {
    char base[24];
    const char *p = skip_ws(desc);
    if (!sw || !vendor_switch_base(p, base)) name_base(p, strcspn(p, " \t"), base);
    if (!base[0]) snprintf(base, sizeof base, "node");
    snprintf(out, len, "%s", base);
    if (smap_get(names, out) != TFILE_NONE) {
        uint32_t i = smap_get(last, base);
        for (i = i == TFILE_NONE ? 2 : i + 1;; i++)
            if (snprintf(out, len, "%.16s_%u", base, i) < 0 || smap_get(names, out) == TFILE_NONE)
                break; /* (a name cut at len stays as the former loop cut it) */
        smap_put(last, base, i);
    }
    smap_put(names, out, 0);
}

/* Which server a Ca belongs to (TFILE_GROUP_SERVER). Linux names an HCA
 * "<host name> <device>" (rdma-ndd's default node description "%h %d",
 * e.g. "dgx01 mlx5_3"), so HCAs whose descriptions have that form and the
 * same first word are one server; otherwise HCAs with one system image GUID
 * (IBA 14.2.5.3 NodeInfo SystemImageGUID: the nodes of one system) are;
 * otherwise the HCA is its own host. Sets `dev` to the device word. */
static void server_key(const char *desc, const char *sysimg, const char *id, char *key, size_t klen,
                       char *dev, size_t dlen) {
    const char *p = skip_ws(desc);
    size_t w = strcspn(p, " \t");
    const char *q = skip_ws(p + w);
    size_t dw = strcspn(q, " \t");
    bool devform = w && dw && !*skip_ws(q + dw) && isalpha((unsigned char)q[0]);
    for (size_t i = 0; devform && i < dw; i++)
        devform = isalnum((unsigned char)q[i]) || q[i] == '_' || q[i] == '-';
    devform = devform && isdigit((unsigned char)q[dw - 1]);
    snprintf(dev, dlen, "%.*s", devform ? (int)dw : 0, q);
    if (devform)
        snprintf(key, klen, "d:%.*s", (int)(w < 70 ? w : 70), p);
    else if (sysimg[0])
        snprintf(key, klen, "g:%s", sysimg);
    else
        snprintf(key, klen, "r:%s", id);
}

/* Device names in natural order: mlx5_2 before mlx5_10. */
static int natural_cmp(const char *a, const char *b) {
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            char *ea, *eb;
            unsigned long x = strtoul(a, &ea, 10), y = strtoul(b, &eb, 10);
            if (x != y) return x < y ? -1 : 1;
            a = ea, b = eb;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++, b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

static int fail(struct diag *d, const char *path, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(struct diag *d, const char *path, uint32_t line, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return diag_set(d, path, (struct srcpos){line, 0}, FS_EINVAL, "%s", msg);
}

/* Copies the line at *p into buf (cut to fit) and moves *p past it. */
static void next_line(const char **p, char *buf, size_t size) {
    const char *eol = strchr(*p, '\n');
    size_t len = eol ? (size_t)(eol - *p) : strlen(*p);
    snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), *p);
    *p = eol ? eol + 1 : *p + len;
}

/* The Ca records of one server `node` in device order (file order on a
 * tie); the host's NICs are their cabled ports in that order. */
static void number_nics(struct topo_file *tf, struct rec *recs, uint32_t nr) {
    uint32_t *order = fs_xmalloc((nr ? nr : 1) * sizeof *order), k = 0;
    for (uint32_t i = 0; i < nr; i++)
        if (recs[i].host) order[k++] = i;
    for (uint32_t i = 1; i < k; i++) /* insertion sort: stable; by node, then device */
        for (uint32_t j = i; j > 0; j--) {
            const struct rec *x = &recs[order[j - 1]], *y = &recs[order[j]];
            if (x->node < y->node || (x->node == y->node && natural_cmp(x->dev, y->dev) <= 0))
                break;
            uint32_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (uint32_t i = 0; i < k; i++) {
        struct rec *r = &recs[order[i]];
        struct tfile_node *nd = &tf->nodes[r->node];
        if (i == 0 || recs[order[i - 1]].node != r->node) nd->gpus = 0;
        for (uint32_t p = 1; p <= r->nports; p++)
            if (r->peer[p]) r->nic[p] = nd->gpus++;
        if (!nd->gpus && (i + 1 == k || recs[order[i + 1]].node != r->node))
            nd->gpus = 1; /* an uncabled host: check_connected names it */
    }
    free(order);
}

int tfile_parse_ib(struct topo_file *tf, const char *path, const char *text, enum tfile_format fmt,
                   enum tfile_group group, struct diag *d) {
    (void)fmt;
    struct rec *recs = NULL;
    uint32_t nr = 0;
    int rc = 0;
    struct smap ids = {0}, names = {0}, last = {0}, servers = {0};
    char sysimg[40] = "";
    uint32_t *ends = NULL; /* per link: record and port of each end */
    /* pass 1: the records (nodes) */
    uint32_t line = 0;
    for (const char *p = text; *p && !rc;) {
        line++;
        char buf[1024];
        next_line(&p, buf, sizeof buf);
        if (!strncmp(buf, "sysimgguid=", 11)) {
            snprintf(sysimg, sizeof sysimg, "%.*s", (int)strcspn(buf + 11, " \t("), buf + 11);
            continue;
        }
        if (!skip_ws(buf)[0]) sysimg[0] = 0; /* a blank line ends a record */
        bool sw = !strncmp(buf, "Switch", 6) && (buf[6] == ' ' || buf[6] == '\t');
        bool ca = (!strncmp(buf, "Ca", 2) && (buf[2] == ' ' || buf[2] == '\t')) ||
                  (!strncmp(buf, "Hca", 3) && (buf[3] == ' ' || buf[3] == '\t'));
        if (!strncmp(buf, "Rt", 2) && (buf[2] == ' ' || buf[2] == '\t')) {
            rc = fail(d, path, line, "a router (Rt) record: fabsim models one subnet");
            break;
        }
        if (!sw && !ca) continue;
        const char *q = skip_ws(buf + (sw ? 6 : buf[0] == 'H' ? 3 : 2));
        char *end;
        unsigned long np = strtoul(q, &end, 10);
        char id[80], desc[128] = "";
        const char *after = end != q ? quoted(skip_ws(end), id, sizeof id) : NULL;
        if (!after || np == 0 || np > 65535) {
            rc = fail(d, path, line,
                      "expected '%s <ports> \"<node id>\"' (ibnetdiscover / ibsim record)",
                      sw ? "Switch" : "Ca");
            break;
        }
        if (smap_get(&ids, id) != TFILE_NONE) {
            rc = fail(d, path, line, "node \"%s\" is described twice", id);
            break;
        }
        const char *hash = strchr(after, '#');
        if (hash) quoted(skip_ws(hash + 1), desc, sizeof desc);
        char name[24], key[96], dev[40] = "";
        snprintf(key, sizeof key, "r:%s", id);
        if (!sw && group == TFILE_GROUP_SERVER)
            server_key(desc, sysimg, id, key, sizeof key, dev, sizeof dev);
        uint32_t node = smap_get(&servers, key);
        if (node == TFILE_NONE) {
            make_name(&names, &last, desc[0] ? desc : id, sw, name, sizeof name);
            node = tfile_node_add(tf, name, sw ? TFILE_SWITCH : TFILE_HOST, line);
            smap_put(&servers, key, node);
        }
        sysimg[0] = 0;
        smap_put(&ids, id, nr);
        recs = fs_xrealloc(recs, (nr + 1) * sizeof *recs);
        struct rec *r = &recs[nr++];
        memset(r, 0, sizeof *r);
        snprintf(r->id, sizeof r->id, "%s", id);
        snprintf(r->dev, sizeof r->dev, "%s", dev);
        r->nports = (uint32_t)np;
        r->line = line;
        r->host = !sw;
        r->node = node;
        if (sw) tf->nodes[r->node].ports = (uint32_t)np;
        r->peer = fs_xcalloc(np + 1, sizeof *r->peer);
        r->pport = fs_xcalloc(np + 1, sizeof *r->pport);
        r->pline = fs_xcalloc(np + 1, sizeof *r->pline);
        r->nic = fs_xcalloc(np + 1, sizeof *r->nic);
    }
    /* pass 2: the port lines of each record */
    line = 0;
    uint32_t cur = TFILE_NONE, next = 0; /* recs[] are in line order */
    for (const char *p = text; *p && !rc;) {
        line++;
        char buf[1024];
        next_line(&p, buf, sizeof buf);
        if (!strncmp(buf, "Switch", 6) || !strncmp(buf, "Ca", 2) || !strncmp(buf, "Hca", 3)) {
            cur = TFILE_NONE;
            if (next < nr && recs[next].line == line) cur = next++;
            continue;
        }
        if (buf[0] != '[') {
            if (!skip_ws(buf)[0]) cur = TFILE_NONE; /* a blank line ends a record */
            continue;
        }
        if (cur == TFILE_NONE) {
            rc = fail(d, path, line, "a port line outside a Switch/Ca record");
            break;
        }
        char *end;
        unsigned long port = strtoul(buf + 1, &end, 10);
        const char *q = end;
        if (*q != ']') {
            rc = fail(d, path, line, "expected '[<port>] \"<peer id>\"[<peer port>]'");
            break;
        }
        q++;
        if (*q == '(') q = strchr(q, ')') ? strchr(q, ')') + 1 : q;
        char pid[80];
        q = quoted(skip_ws(q), pid, sizeof pid);
        unsigned long pport = 0;
        if (q && *q == '[') pport = strtoul(q + 1, &end, 10);
        if (!q || *q != '[' || *end != ']') {
            rc = fail(d, path, line, "expected '[<port>] \"<peer id>\"[<peer port>]'");
            break;
        }
        struct rec *r = &recs[cur];
        uint32_t w = smap_get(&ids, pid);
        if (w == TFILE_NONE) {
            rc = fail(d, path, line,
                      "link to nowhere: node \"%s\" (port %u) is not described in the file", pid,
                      (unsigned)pport);
            break;
        }
        struct rec *o = &recs[w];
        if (port == 0 || port > r->nports) {
            rc = fail(d, path, line, "unknown port %u: the record above has fewer ports",
                      (unsigned)port);
            break;
        }
        if (pport == 0 || pport > o->nports) {
            rc = fail(d, path, line, "unknown port: \"%s\" has no port %u", pid, (unsigned)pport);
            break;
        }
        if (w == cur) {
            rc = fail(d, path, line, "a port cabled to its own node");
            break;
        }
        uint32_t pl = r->pline[port];
        if (pl && pl < r->line && r->peer[port] == w + 1 && r->pport[port] == pport)
            continue; /* the far end, described above, already gave this cable */
        if (pl) {
            char m[300];
            snprintf(m, sizeof m, "port %lu is used twice (line %u: \"%s\"[%u])", port, pl,
                     recs[r->peer[port] - 1].id, r->pport[port]);
            rc = fail(d, path, line, "%s", m);
            break;
        }
        if (o->pline[pport]) {
            char m[400];
            snprintf(m, sizeof m,
                     "\"%s\" port %lu is used twice: cabled to \"%s\" here and to \"%s\"[%u] at "
                     "line %u",
                     pid, pport, r->id, recs[o->peer[pport] - 1].id, o->pport[pport],
                     o->pline[pport]);
            rc = fail(d, path, line, "%s", m);
            break;
        }
        r->peer[port] = w + 1;
        r->pport[port] = (uint32_t)pport;
        r->pline[port] = line;
        o->peer[pport] = cur + 1;
        o->pport[pport] = (uint32_t)port;
        o->pline[pport] = line;
        tf->links = fs_xrealloc(tf->links, (tf->nlinks + 1) * sizeof *tf->links);
        ends = fs_xrealloc(ends, (tf->nlinks + 1) * 4 * sizeof *ends);
        ends[4 * tf->nlinks] = cur;
        ends[4 * tf->nlinks + 1] = (uint32_t)port;
        ends[4 * tf->nlinks + 2] = w;
        ends[4 * tf->nlinks + 3] = (uint32_t)pport;
        struct tfile_link *l = &tf->links[tf->nlinks++];
        memset(l, 0, sizeof *l);
        l->a = r->node;
        l->b = o->node;
        l->pa = (uint32_t)port;
        l->pb = (uint32_t)pport;
        const char *hash = strchr(q, '#');
        l->rate_bps = hash ? ib_rate(hash) : 0;
        l->length_mm = UINT64_MAX;
        l->line = line;
    }
    if (!rc && !nr)
        rc = diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                      "no Switch or Ca records: not ibnetdiscover output or an ibsim net file");
    if (!rc) { /* each host's NICs: its HCAs' cabled ports, in device order */
        number_nics(tf, recs, nr);
        for (uint32_t i = 0; i < tf->nlinks; i++) {
            const struct rec *a = &recs[ends[4 * i]], *b = &recs[ends[4 * i + 2]];
            tf->links[i].nic_a = a->host ? a->nic[ends[4 * i + 1]] : 0;
            tf->links[i].nic_b = b->host ? b->nic[ends[4 * i + 3]] : 0;
        }
    }
    for (uint32_t i = 0; i < nr; i++) {
        free(recs[i].peer);
        free(recs[i].pport);
        free(recs[i].pline);
        free(recs[i].nic);
    }
    free(recs);
    free(ends);
    smap_fini(&servers);
    smap_fini(&ids);
    smap_fini(&names);
    smap_fini(&last);
    return rc;
}

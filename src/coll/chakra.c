/* src/coll/chakra.c
 *
 * Chakra execution traces (kind: chakra, docs/inputs.md) run by the
 * collective engine. Trace rank r (file PREFIX.r.et, read by workload/et.c)
 * runs on the job's r-th endpoint. Every node of every rank is a transfer
 * of one op per iteration:
 *  - COMP_NODE: a delay of duration_micros;
 *  - COMM_COLL_NODE: the k-th collective of process group `pg_name` on each
 *    of its members is one collective call (the members are the ranks whose
 *    traces use that pg_name; "" = every rank with unnamed collectives),
 *    built by the same algorithms as kind: allreduce & co. over the members;
 *  - COMM_SEND_NODE / COMM_RECV_NODE: the k-th send from s to d with a tag
 *    meets the k-th receive at d from s with that tag: one message, posted
 *    once the send's dependencies are done (eager: the data goes into the
 *    receiver's buffers, as NCCL's connection FIFO and ASTRA-sim's send
 *    take it); the send is done when its last byte arrives, the receive
 *    when that has happened and its own dependencies are done;
 *  - other node types (metadata, memory) take no time.
 * A node starts when every node in its ctrl_deps and data_deps is done. An
 * iteration ends when every node of every rank is done. Each collective call
 * is a row of results.json "collectives" (start: its first rank starts,
 * end: its last rank is done) and of "chakra".
 */
#include "coll/coll.h"

#include "coll/coll_int.h"
#include "core/diag.h"
#include "core/mem.h"
#include "net/net.h"
#include "core/jw.h"
#include "coll/coll.h"
#include "workload/et.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK_MAX_RANKS 65536u
/* Nodes of all the ranks' traces of one entry: about 200 bytes each read,
 * and as much again in the schedule (docs/outputs.md "Limits"). */
#define CK_MAX_NODES (1u << 22)

struct ck_pg {
    char name[64];
    uint32_t *members; /* trace ranks, ascending */
    uint32_t nmembers;
    uint32_t ncalls; /* collectives per member */
    struct job job;  /* communicator over the members' endpoints */
};

struct ck_call { /* one collective call: the k-th of a process group */
    uint32_t pg;
    int op;         /* enum wl_kind */
    uint64_t bytes; /* comm_size */
    uint32_t *node; /* per member: node index in that member's trace */
    char name[64];
};

struct ck_p2p {
    uint32_t src, dst; /* trace ranks */
    uint32_t snode, rnode;
    uint64_t bytes;
};

struct ck_row {
    uint32_t entry, iteration, call;
};

struct ck_iter {
    uint32_t entry, iteration;
    sim_time_ps start_ps, end_ps;
};

struct ck_entry {
    uint32_t job; /* main job id */
    size_t widx;
    uint32_t R;
    struct et_trace *tr;
    uint32_t **dep_idx; /* per rank: deps as node indices, flattened per node */
    uint32_t **dep_off;
    struct ck_pg *pgs;
    uint32_t npgs;
    struct ck_call *calls;
    uint32_t ncalls;
    struct ck_p2p *p2p;
    uint32_t np2p;
    uint32_t iter;
    sim_time_ps iter_start_ps;
    char prefix[256];
};

struct chakra_state {
    struct ck_entry *e;
    uint32_t ne;
    struct ck_row *rows; /* by coll_row index (NET_NONE entry = not ours) */
    uint32_t *row_left;  /* members not yet done */
    size_t rows_cap;
    uint32_t nrows; /* slots of rows[] set (others' rows: entry UINT32_MAX) */
    struct ck_iter *iters;
    uint32_t niters;
    size_t iters_cap;
};

static struct chakra_state *ck_get(struct net *n) {
    struct coll_state *cs = n->coll_state;
    if (!cs->chakra) cs->chakra = fs_xcalloc(1, sizeof *cs->chakra);
    return cs->chakra;
}

/* The entry of job `job` (every chakra job has one: chakra_add made it). */
static struct ck_entry *ck_entry_of(struct chakra_state *ck, uint32_t job) {
    struct ck_entry *e = NULL;
    for (uint32_t i = 0; i < ck->ne; i++)
        if (ck->e[i].job == job) e = &ck->e[i];
    FS_ASSERT(e != NULL, "chakra: job %u has no entry", job);
    return e;
}

/* ---- finding the files ---- */

/* "PREFIX.<rank>.et": the rank, or -1. */
static long rank_of(const char *name, size_t *prefix_len) {
    size_t len = strlen(name);
    if (len < 4 || strcmp(name + len - 3, ".et")) return -1;
    size_t e = len - 3, b = e;
    while (b > 0 && name[b - 1] >= '0' && name[b - 1] <= '9')
        b--;
    if (b == e || b == 0 || name[b - 1] != '.' || e - b > 6) return -1;
    *prefix_len = b - 1;
    return strtol(name + b, NULL, 10);
}

/* The folder's trace files: every *.<rank>.et with one prefix, ranks 0..R-1.
 * `path` may also be PREFIX itself (ASTRA-sim's way of naming a workload). */
static int find_files(const char *path, char *dir, size_t dlen, char *prefix, size_t plen,
                      uint32_t *R, const struct model_params *sc, const struct wl_entry *w,
                      struct diag *d) {
    DIR *D = opendir(path);
    const char *want = NULL;
    if (D) {
        snprintf(dir, dlen, "%s", path);
    } else {
        const char *slash = strrchr(path, '/');
        if (slash)
            snprintf(dir, dlen, "%.*s", (int)(slash - path), path);
        else
            snprintf(dir, dlen, ".");
        want = slash ? slash + 1 : path;
        D = opendir(dir);
        if (!D)
            return diag_set(d, sc->file, w->pos, FS_ENOENT,
                            "chakra path '%s' is neither a folder of trace files nor a trace "
                            "prefix (PREFIX.0.et ...)",
                            path);
    }
    prefix[0] = 0;
    uint32_t count = 0;
    long maxr = -1;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(D)) && !rc) {
        size_t pl;
        long r = rank_of(de->d_name, &pl);
        if (r < 0) continue;
        if (want && (strlen(want) != pl || strncmp(de->d_name, want, pl))) continue;
        if (!prefix[0]) {
            snprintf(prefix, plen, "%.*s", (int)pl, de->d_name);
        } else if (strlen(prefix) != pl || strncmp(prefix, de->d_name, pl)) {
            rc = diag_set(d, sc->file, w->pos, FS_EINVAL,
                          "chakra folder %s holds traces of two workloads ('%s.*.et' and "
                          "'%s'); give the prefix (path: %s/%s) or one workload per folder",
                          dir, prefix, de->d_name, dir, prefix);
        }
        if (r >= (long)CK_MAX_RANKS)
            rc = diag_set(d, sc->file, w->pos, FS_ERANGE,
                          "%s/%s: rank %ld; at most %u ranks are supported", dir, de->d_name, r,
                          CK_MAX_RANKS);
        count++;
        if (r > maxr) maxr = r;
    }
    closedir(D);
    if (rc) return rc;
    if (!count)
        return diag_set(d, sc->file, w->pos, FS_ENOENT,
                        "no Chakra trace files (PREFIX.<rank>.et) in %s%s%s", path,
                        want ? " or " : "", want ? dir : "");
    if ((uint32_t)(maxr + 1) != count)
        return diag_set(d, sc->file, w->pos, FS_EINVAL,
                        "chakra traces %s/%s.*.et: %u files but ranks up to %ld; every rank "
                        "0..%ld needs its file",
                        dir, prefix, count, maxr, maxr);
    *R = count;
    return 0;
}

/* ---- checking and matching ---- */

static int cmp_u64pair(const void *a, const void *b) {
    const uint64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

static int coll_op_of(int64_t t) {
    switch (t) {
    case ET_ALL_REDUCE:
    case ET_BARRIER: /* PyTorch's barrier is an AllReduce of one element */
        return WL_ALLREDUCE;
    case ET_ALL_GATHER:
        return WL_ALLGATHER;
    case ET_REDUCE_SCATTER:
    case ET_REDUCE_SCATTER_BLOCK:
        return WL_REDUCESCATTER;
    case ET_BROADCAST:
        return WL_BROADCAST;
    case ET_ALL_TO_ALL:
        return WL_ALLTOALL;
    default:
        return -1;
    }
}

static const char *comm_name(int64_t t) {
    static const char *const s[] = {
        "ALL_REDUCE", "REDUCE",         "ALL_GATHER",           "GATHER", "SCATTER", "BROADCAST",
        "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"};
    return t >= 0 && t <= 9 ? s[t] : "unknown";
}

/* Dependencies as node indices, and no cycle within a rank. */
static int resolve_deps(struct ck_entry *e, uint32_t r, const char *file, struct diag *d) {
    const struct et_trace *t = &e->tr[r];
    uint64_t *map = fs_xmalloc(2 * (t->nnodes ? t->nnodes : 1) * sizeof *map);
    for (uint32_t i = 0; i < t->nnodes; i++) {
        map[2 * i] = t->nodes[i].id;
        map[2 * i + 1] = i;
    }
    qsort(map, t->nnodes, 2 * sizeof *map, cmp_u64pair);
    int rc = 0;
    for (uint32_t i = 1; i < t->nnodes && !rc; i++)
        if (map[2 * i] == map[2 * i - 2])
            rc = diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                          "byte %u: node id %llu is used twice (also at byte %u)",
                          t->nodes[map[2 * i + 1]].offset, (unsigned long long)map[2 * i],
                          t->nodes[map[2 * i - 1]].offset);
    uint32_t total = 0;
    for (uint32_t i = 0; i < t->nnodes; i++)
        total += t->nodes[i].ndeps;
    e->dep_off[r] = fs_xmalloc((t->nnodes + 1) * sizeof **e->dep_off);
    e->dep_idx[r] = fs_xmalloc((total ? total : 1) * sizeof **e->dep_idx);
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->nnodes && !rc; i++) {
        e->dep_off[r][i] = k;
        const struct et_node *nd = &t->nodes[i];
        for (uint32_t j = 0; j < nd->ndeps && !rc; j++) {
            uint64_t key[2] = {nd->deps[j], 0};
            const uint64_t *hit = bsearch(key, map, t->nnodes, 2 * sizeof *map, cmp_u64pair);
            if (!hit)
                rc = diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                              "byte %u: node %llu ('%.40s') depends on node %llu, which is not "
                              "in this file",
                              nd->offset, (unsigned long long)nd->id, nd->name,
                              (unsigned long long)nd->deps[j]);
            else
                e->dep_idx[r][k++] = (uint32_t)hit[1];
        }
    }
    e->dep_off[r][t->nnodes] = k;
    free(map);
    if (rc) return rc;
    /* Kahn: every node reachable in dependency order */
    uint32_t *indeg = fs_xcalloc(t->nnodes + 1, sizeof *indeg);
    uint32_t *cnt = fs_xcalloc(t->nnodes + 1, sizeof *cnt);
    for (uint32_t i = 0; i < t->nnodes; i++)
        indeg[i] = e->dep_off[r][i + 1] - e->dep_off[r][i];
    for (uint32_t i = 0; i < k; i++)
        cnt[e->dep_idx[r][i]]++;
    uint32_t *off = fs_xcalloc(t->nnodes + 1, sizeof *off),
             *out = fs_xmalloc((k + 1) * sizeof *out);
    for (uint32_t i = 0; i < t->nnodes; i++)
        off[i + 1] = off[i] + cnt[i];
    memset(cnt, 0, (t->nnodes + 1) * sizeof *cnt);
    for (uint32_t i = 0; i < t->nnodes; i++)
        for (uint32_t j = e->dep_off[r][i]; j < e->dep_off[r][i + 1]; j++) {
            uint32_t p = e->dep_idx[r][j];
            out[off[p] + cnt[p]++] = i;
        }
    uint32_t *q = fs_xmalloc((t->nnodes + 1) * sizeof *q), qh = 0, qt = 0;
    for (uint32_t i = 0; i < t->nnodes; i++)
        if (!indeg[i]) q[qt++] = i;
    while (qh < qt) {
        uint32_t v = q[qh++];
        for (uint32_t j = off[v]; j < off[v + 1]; j++)
            if (!--indeg[out[j]]) q[qt++] = out[j];
    }
    if (qt < t->nnodes) {
        uint32_t bad = 0;
        while (!indeg[bad])
            bad++;
        rc = diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                      "byte %u: node %llu ('%.40s') is on a dependency cycle; a trace's "
                      "dependencies must form a DAG",
                      t->nodes[bad].offset, (unsigned long long)t->nodes[bad].id,
                      t->nodes[bad].name);
    }
    free(indeg);
    free(cnt);
    free(off);
    free(out);
    free(q);
    return rc;
}

static void rank_file(const struct ck_entry *e, uint32_t r, char *buf, size_t len) {
    snprintf(buf, len, "%s.%u.et", e->prefix, r);
}

static uint32_t pg_find(struct ck_entry *e, const char *name) {
    for (uint32_t i = 0; i < e->npgs; i++)
        if (!strcmp(e->pgs[i].name, name)) return i;
    e->pgs = fs_xrealloc(e->pgs, (e->npgs + 1) * sizeof *e->pgs);
    memset(&e->pgs[e->npgs], 0, sizeof *e->pgs);
    snprintf(e->pgs[e->npgs].name, sizeof e->pgs[0].name, "%s", name);
    return e->npgs++;
}

/* Collectives: members of each process group, and the k-th call of each
 * group matched across its members (same type and size). */
/* A collective of the trace must fit the schedule's transfer ids, as a
 * scenario's does (config/limits.c): the message gives the largest size. */
static int check_call_bytes(const struct job *j, const struct et_node *nd, int op, uint32_t m,
                            const char *file, struct diag *d) {
    uint64_t max = coll_max_call_bytes(op, m, j->channels, j->slice_bytes, j->w->protocol);
    if (nd->comm_type == ET_BARRIER || nd->comm_size <= max) return 0;
    return diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                    "byte %u: collective node %llu ('%.40s'): comm_size %llu B is too large for "
                    "one collective of %u ranks; allowed: at most %llu B (limit "
                    "COLL_MAX_TRANSFERS, docs/outputs.md \"Limits\")",
                    nd->offset, (unsigned long long)nd->id, nd->name,
                    (unsigned long long)nd->comm_size, m, (unsigned long long)max);
}

static int match_colls(struct net *n, struct job *j, struct ck_entry *e, struct diag *d) {
    char file[300];
    /* members */
    for (uint32_t r = 0; r < e->R; r++)
        for (uint32_t i = 0; i < e->tr[r].nnodes; i++) {
            const struct et_node *nd = &e->tr[r].nodes[i];
            if (nd->type != ET_COLL) continue;
            uint32_t gi = pg_find(e, nd->pg_name); /* may move e->pgs */
            struct ck_pg *g = &e->pgs[gi];
            if (!g->nmembers || g->members[g->nmembers - 1] != r) {
                g->members = fs_xrealloc(g->members, (g->nmembers + 1) * sizeof *g->members);
                g->members[g->nmembers++] = r;
            }
        }
    /* calls: walk each member's collectives of the group in file order */
    for (uint32_t p = 0; p < e->npgs; p++) {
        struct ck_pg *g = &e->pgs[p];
        uint32_t first = e->ncalls;
        for (uint32_t m = 0; m < g->nmembers; m++) {
            uint32_t r = g->members[m], k = 0;
            rank_file(e, r, file, sizeof file);
            for (uint32_t i = 0; i < e->tr[r].nnodes; i++) {
                const struct et_node *nd = &e->tr[r].nodes[i];
                if (nd->type != ET_COLL || strcmp(nd->pg_name, g->name)) continue;
                int op = coll_op_of(nd->comm_type);
                if (nd->comm_type < 0)
                    return diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                                    "byte %u: collective node %llu ('%.40s') has no comm_type "
                                    "attribute",
                                    nd->offset, (unsigned long long)nd->id, nd->name);
                if (op < 0)
                    return diag_set(d, file, (struct srcpos){0, 0}, FS_ENOTSUP,
                                    "byte %u: node %llu ('%.40s'): %s is not yet supported; "
                                    "fabsim runs ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, "
                                    "BROADCAST, ALL_TO_ALL, BARRIER and send/recv",
                                    nd->offset, (unsigned long long)nd->id, nd->name,
                                    comm_name(nd->comm_type));
                if (!nd->comm_size && nd->comm_type != ET_BARRIER)
                    return diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                                    "byte %u: collective node %llu ('%.40s') has no comm_size "
                                    "(bytes)",
                                    nd->offset, (unsigned long long)nd->id, nd->name);
                uint64_t bytes = nd->comm_type == ET_BARRIER ? 4 : nd->comm_size;
                if (m == 0) {
                    int rc = check_call_bytes(j, nd, op, g->nmembers, file, d);
                    if (rc) return rc;
                    e->calls = fs_xrealloc(e->calls, (e->ncalls + 1) * sizeof *e->calls);
                    struct ck_call *c = &e->calls[e->ncalls++];
                    memset(c, 0, sizeof *c);
                    c->pg = p;
                    c->op = op;
                    c->bytes = bytes;
                    c->node = fs_xcalloc(g->nmembers, sizeof *c->node);
                    snprintf(c->name, sizeof c->name, "%s", nd->name);
                } else if (first + k >= e->ncalls) {
                    return diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                                    "byte %u: node %llu ('%.40s') is collective %u of process "
                                    "group '%s' on rank %u, which has only %u",
                                    nd->offset, (unsigned long long)nd->id, nd->name, k + 1,
                                    g->name, g->members[0], e->ncalls - first);
                }
                struct ck_call *c = &e->calls[first + k];
                if (c->op != op || c->bytes != bytes)
                    return diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                                    "byte %u: node %llu ('%.40s'): collective %u of process "
                                    "group '%s' is %s of %llu B here but %s of %llu B on rank "
                                    "%u; ranks must call the same collectives in the same order",
                                    nd->offset, (unsigned long long)nd->id, nd->name, k + 1,
                                    g->name, comm_name(nd->comm_type), (unsigned long long)bytes,
                                    coll_op_name(c->op), (unsigned long long)c->bytes,
                                    g->members[0]);
                c->node[m] = i;
                k++;
            }
            if (m == 0) g->ncalls = k;
            if (k != g->ncalls)
                return diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                                "rank %u has %u collectives in process group '%s', rank %u "
                                "has %u; ranks must call the same collectives",
                                r, k, g->name, g->members[0], g->ncalls);
        }
        /* the group's communicator */
        struct job *pj = &g->job;
        *pj = *j;
        pj->nranks = g->nmembers;
        pj->ranks = fs_xmalloc(g->nmembers * sizeof *pj->ranks);
        for (uint32_t m = 0; m < g->nmembers; m++)
            pj->ranks[m] = j->ranks[g->members[m]];
        pj->qkey = NULL;
        pj->qval = NULL;
        pj->qcap = pj->qused = 0;
        pj->sess = NET_NONE;
        rng_seed(&pj->ent, n->sc->seed, 0, 0x43480000u + (uint32_t)(e - ck_get(n)->e) * 4096 + p);
    }
    return 0;
}

static int cmp_p2p(const void *a, const void *b) {
    const uint64_t *x = a, *y = b;
    for (int i = 0; i < 4; i++)
        if (x[i] != y[i]) return (x[i] > y[i]) - (x[i] < y[i]);
    return 0;
}

/* Send/recv: the k-th send s->d with tag t meets the k-th recv at d from s
 * with tag t. Keys (s, d, t, k) + (rank, node). */
static int match_p2p(struct ck_entry *e, struct diag *d) {
    uint64_t *snd = NULL, *rcv = NULL;
    size_t ns = 0, nr = 0, cs = 0, cr = 0;
    char file[300];
    int rc = 0;
    for (uint32_t r = 0; r < e->R && !rc; r++) {
        rank_file(e, r, file, sizeof file);
        for (uint32_t i = 0; i < e->tr[r].nnodes && !rc; i++) {
            const struct et_node *nd = &e->tr[r].nodes[i];
            if (nd->type != ET_SEND && nd->type != ET_RECV) continue;
            bool s = nd->type == ET_SEND;
            int64_t peer = s ? nd->comm_dst : nd->comm_src;
            if (peer < 0 || peer >= (int64_t)e->R || peer == (int64_t)r) {
                rc = diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                              "byte %u: %s node %llu ('%.40s') has %s %lld; expected another "
                              "rank 0..%u",
                              nd->offset, s ? "send" : "recv", (unsigned long long)nd->id, nd->name,
                              s ? "comm_dst" : "comm_src", (long long)peer, e->R - 1);
                break;
            }
            if (!nd->comm_size) {
                rc =
                    diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                             "byte %u: %s node %llu ('%.40s') has no comm_size (bytes)", nd->offset,
                             s ? "send" : "recv", (unsigned long long)nd->id, nd->name);
                break;
            }
            uint64_t **arr = s ? &snd : &rcv;
            size_t *cnt = s ? &ns : &nr, *cap = s ? &cs : &cr;
            fs_grow((void **)arr, cap, (*cnt + 1) * 6, sizeof **arr);
            uint64_t *k = *arr + 6 * (*cnt)++;
            k[0] = s ? r : (uint64_t)peer;
            k[1] = s ? (uint64_t)peer : r;
            k[2] = (uint64_t)nd->comm_tag;
            k[3] = 0; /* sequence, filled below */
            k[4] = r;
            k[5] = i;
        }
    }
    if (!rc) {
        /* within equal (s, d, t) the node index orders them (one rank's file) */
        for (int side = 0; side < 2; side++) {
            uint64_t *a = side ? rcv : snd;
            size_t na = side ? nr : ns;
            for (size_t i = 0; i < na; i++)
                a[6 * i + 3] = a[6 * i + 5];
            if (na) qsort(a, na, 6 * sizeof *a, cmp_p2p);
            for (size_t i = 0, k = 0; i < na; i++) {
                if (i && (a[6 * i] != a[6 * i - 6] || a[6 * i + 1] != a[6 * i - 5] ||
                          a[6 * i + 2] != a[6 * i - 4]))
                    k = 0;
                a[6 * i + 3] = k++;
            }
        }
        size_t i = 0, k = 0;
        while (!rc && (i < ns || k < nr)) {
            int c = i < ns && k < nr ? cmp_p2p(snd + 6 * i, rcv + 6 * k) : i < ns ? -1 : 1;
            if (c) {
                const uint64_t *u = c < 0 ? snd + 6 * i : rcv + 6 * k;
                uint32_t r = (uint32_t)u[4];
                const struct et_node *nd = &e->tr[r].nodes[u[5]];
                rank_file(e, r, file, sizeof file);
                rc = diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                              "byte %u: %s node %llu ('%.40s') has no matching %s on rank %llu "
                              "(tag %llu); the k-th send from s to d meets the k-th recv at d "
                              "from s",
                              nd->offset, c < 0 ? "send" : "recv", (unsigned long long)nd->id,
                              nd->name, c < 0 ? "recv" : "send",
                              (unsigned long long)(c < 0 ? u[1] : u[0]), (unsigned long long)u[2]);
                break;
            }
            const struct et_node *sn = &e->tr[snd[6 * i + 4]].nodes[snd[6 * i + 5]];
            const struct et_node *rn = &e->tr[rcv[6 * k + 4]].nodes[rcv[6 * k + 5]];
            if (sn->comm_size != rn->comm_size) {
                rank_file(e, (uint32_t)rcv[6 * k + 4], file, sizeof file);
                rc = diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                              "byte %u: recv node %llu ('%.40s') expects %llu B but the "
                              "matching send (rank %llu node %llu) sends %llu B",
                              rn->offset, (unsigned long long)rn->id, rn->name,
                              (unsigned long long)rn->comm_size, (unsigned long long)snd[6 * i + 4],
                              (unsigned long long)sn->id, (unsigned long long)sn->comm_size);
                break;
            }
            e->p2p = fs_xrealloc(e->p2p, (e->np2p + 1) * sizeof *e->p2p);
            e->p2p[e->np2p++] =
                (struct ck_p2p){(uint32_t)snd[6 * i], (uint32_t)snd[6 * i + 1],
                                (uint32_t)snd[6 * i + 5], (uint32_t)rcv[6 * k + 5], sn->comm_size};
            i++;
            k++;
        }
    }
    free(snd);
    free(rcv);
    return rc;
}

int chakra_add(struct net *n, struct job *j, struct diag *d) {
    const struct wl_entry *w = j->w;
    const struct model_params *sc = n->sc;
    if (j->sess != NET_NONE || j->algo == ALGO_SHARP || j->algo == ALGO_NVLS ||
        j->algo == ALGO_HIERARCHICAL)
        return diag_set(d, sc->file, w->pos, FS_ENOTSUP,
                        "chakra with algorithm %s is not yet supported; use ring, tree or "
                        "halving_doubling",
                        j->algo == ALGO_SHARP  ? "sharp"
                        : j->algo == ALGO_NVLS ? "nvls"
                                               : "hierarchical");
    char dir[192], prefix[56];
    uint32_t R = 0;
    int rc = find_files(w->path, dir, sizeof dir, prefix, sizeof prefix, &R, sc, w, d);
    if (rc) return rc;
    if (R > j->nranks)
        return diag_set(d, sc->file, w->pos, FS_EINVAL,
                        "the trace has %u ranks but the job has %u endpoints; list %u in "
                        "`ranks` or use a larger topology",
                        R, j->nranks, R);
    struct chakra_state *ck = ck_get(n);
    ck->e = fs_xrealloc(ck->e, (ck->ne + 1) * sizeof *ck->e);
    struct ck_entry *e = &ck->e[ck->ne++];
    memset(e, 0, sizeof *e);
    e->job = j->id;
    e->widx = j->widx;
    e->R = R;
    snprintf(e->prefix, sizeof e->prefix, "%s/%s", dir, prefix);
    e->tr = fs_xcalloc(R, sizeof *e->tr);
    e->dep_idx = fs_xcalloc(R, sizeof *e->dep_idx);
    e->dep_off = fs_xcalloc(R, sizeof *e->dep_off);
    /* the trace's ranks are the job's first R endpoints */
    j->nranks = R;
    char file[300];
    uint64_t total = 0;
    for (uint32_t r = 0; r < R && !rc; r++) {
        rank_file(e, r, file, sizeof file);
        rc = et_read(file, &e->tr[r], d);
        if (!rc) rc = resolve_deps(e, r, file, d);
        total += rc ? 0 : e->tr[r].nnodes;
        if (!rc && total > CK_MAX_NODES)
            rc = diag_set(d, file, (struct srcpos){0, 0}, FS_EINVAL,
                          "the trace's ranks up to this one hold %llu nodes; allowed: at most %u "
                          "in all (limit CK_MAX_NODES, docs/outputs.md \"Limits\")",
                          (unsigned long long)total, CK_MAX_NODES);
    }
    if (!rc) rc = match_colls(n, j, e, d);
    if (!rc) rc = match_p2p(e, d);
    return rc;
}

/* ---- running ---- */

static uint32_t new_row(struct net *n, struct ck_entry *e, uint32_t call, const struct job *pj) {
    struct chakra_state *ck = ck_get(n);
    const struct ck_call *c = &e->calls[call];
    n->coll_rows = fs_xrealloc(n->coll_rows, (n->ncoll_rows + 1) * sizeof *n->coll_rows);
    struct coll_row *r = &n->coll_rows[n->ncoll_rows];
    memset(r, 0, sizeof *r);
    r->job = e->job;
    r->op = (uint8_t)c->op;
    r->algorithm = (uint8_t)pj->algo;
    r->proto = algo_proto(n, pj, c->op, pj->algo, c->bytes);
    r->ranks = pj->nranks;
    r->size_bytes = c->bytes;
    r->start_ps = r->end_ps = SIM_TIME_NEVER;
    uint32_t id = n->ncoll_rows++;
    size_t cap = ck->rows_cap;
    fs_grow((void **)&ck->rows, &cap, id + 1, sizeof *ck->rows);
    fs_grow((void **)&ck->row_left, &ck->rows_cap, id + 1, sizeof *ck->row_left);
    for (uint32_t k = ck->nrows; k < id; k++)
        ck->rows[k].entry = UINT32_MAX;
    ck->nrows = id + 1;
    ck->rows[id] = (struct ck_row){(uint32_t)(e - ck->e), e->iter, call};
    ck->row_left[id] = pj->nranks;
    return id;
}

static uint32_t stamp(struct op *o, uint8_t what, uint32_t row) {
    uint32_t x = op_xfer(o, XF_VIRTUAL, row, 0);
    o->x[x].stamp = what;
    return x;
}

void chakra_start(struct net *n, struct job *j) {
    struct coll_state *cs = n->coll_state;
    struct chakra_state *ck = ck_get(n);
    struct ck_entry *e = ck_entry_of(ck, j->id);
    uint32_t opi = coll_op_new(n, j->id);
    struct op *o = &cs->ops[opi];
    j->cur_op = opi;
    e->iter_start_ps = n->sim->now_ps;
    uint32_t *base = fs_xmalloc((e->R + 1) * sizeof *base);
    base[0] = 0;
    for (uint32_t r = 0; r < e->R; r++)
        base[r + 1] = base[r] + e->tr[r].nnodes;
    uint32_t total = base[e->R];
    uint32_t *entry = fs_xmalloc((total ? total : 1) * sizeof *entry);
    uint32_t *done = fs_xmalloc((total ? total : 1) * sizeof *done);
    for (uint32_t r = 0; r < e->R; r++)
        for (uint32_t i = 0; i < e->tr[r].nnodes; i++) {
            const struct et_node *nd = &e->tr[r].nodes[i];
            uint32_t v = base[r] + i;
            entry[v] = op_xfer(o, XF_VIRTUAL, NET_NONE, 0);
            done[v] = entry[v];
            if (nd->type == ET_COMP) {
                done[v] = coll_compute_xfer(o, v, COMP_CHAKRA, nd->duration_us * PS_PER_US);
                op_dep(o, entry[v], done[v]);
            }
        }
    for (uint32_t c = 0; c < e->ncalls; c++) {
        const struct ck_call *call = &e->calls[c];
        struct ck_pg *g = &e->pgs[call->pg];
        struct job *pj = &g->job;
        enum coll_algo a = call->op == WL_ALLREDUCE ? j->algo : ALGO_RING;
        if (a == ALGO_HALVING_DOUBLING && call->op == WL_BROADCAST) a = ALGO_RING;
        pj->algo = a;
        uint32_t row = new_row(n, e, c, pj);
        uint32_t m = g->nmembers;
        uint32_t *pre = fs_xmalloc(m * sizeof *pre), *post = fs_xmalloc(m * sizeof *post);
        for (uint32_t k = 0; k < m; k++) {
            pre[k] = stamp(o, XS_ROW_START, row);
            op_dep(o, entry[base[g->members[k]] + call->node[k]], pre[k]);
        }
        coll_build(n, pj, o, call->op, a, call->bytes, pre, post);
        for (uint32_t k = 0; k < m; k++) {
            uint32_t end = stamp(o, XS_ROW_END, row);
            op_dep(o, post[k], end);
            done[base[g->members[k]] + call->node[k]] = end;
        }
        free(pre);
        free(post);
    }
    for (uint32_t p = 0; p < e->np2p; p++) {
        const struct ck_p2p *q = &e->p2p[p];
        uint32_t x = op_xfer(o, XF_MSG, job_qp(n, j, 0, q->src, q->dst), q->bytes);
        uint32_t got = op_xfer(o, XF_VIRTUAL, NET_NONE, 0);
        op_dep(o, entry[base[q->src] + q->snode], x);
        op_dep(o, x, got);
        op_dep(o, entry[base[q->dst] + q->rnode], got);
        done[base[q->src] + q->snode] = x;
        done[base[q->dst] + q->rnode] = got;
    }
    for (uint32_t r = 0; r < e->R; r++)
        for (uint32_t i = 0; i < e->tr[r].nnodes; i++)
            for (uint32_t k = e->dep_off[r][i]; k < e->dep_off[r][i + 1]; k++)
                op_dep(o, done[base[r] + e->dep_idx[r][k]], entry[base[r] + i]);
    free(base);
    free(entry);
    free(done);
    coll_op_launch(n, opi);
}

void chakra_compute_label(struct net *n, const struct job *j, uint32_t v, uint32_t *node,
                          const char **name) {
    const struct ck_entry *e = ck_entry_of(ck_get(n), j->id);
    uint32_t r = 0;
    while (r + 1 < e->R && v >= e->tr[r].nnodes) /* v counts over the ranks' nodes */
        v -= e->tr[r++].nnodes;
    *node = j->ranks[r];
    *name = e->tr[r].nodes[v].name;
}

void chakra_stamp(struct net *n, uint32_t row, uint8_t what) {
    struct chakra_state *ck = ck_get(n);
    struct coll_row *r = &n->coll_rows[row];
    sim_time_ps now = n->sim->now_ps;
    if (what == XS_ROW_START) {
        if (r->start_ps == SIM_TIME_NEVER) r->start_ps = now;
    } else if (ck->row_left[row] && --ck->row_left[row] == 0) {
        r->end_ps = now;
    }
}

void chakra_op_done(struct net *n, struct job *j, struct op *o) {
    (void)o;
    struct chakra_state *ck = ck_get(n);
    struct ck_entry *e = ck_entry_of(ck, j->id);
    fs_grow((void **)&ck->iters, &ck->iters_cap, ck->niters + 1, sizeof *ck->iters);
    ck->iters[ck->niters++] =
        (struct ck_iter){(uint32_t)(e - ck->e), e->iter, e->iter_start_ps, n->sim->now_ps};
    uint32_t iters = j->w->iterations ? j->w->iterations : 1;
    if (++e->iter < iters) {
        chakra_start(n, j);
        return;
    }
    coll_job_release(n, j); /* the job's hold (coll_add) */
}

void coll_write_chakra(const struct net *n, struct jw *w) {
    const struct coll_state *cs = n->coll_state;
    const struct chakra_state *ck = cs ? cs->chakra : NULL;
    jw_key(w, "chakra");
    jw_arr(w);
    for (uint32_t ei = 0; ck && ei < ck->ne; ei++) {
        const struct ck_entry *e = &ck->e[ei];
        jw_obj(w);
        jw_ku64(w, "entry", e->widx);
        jw_kstr(w, "traces", e->prefix);
        jw_ku64(w, "ranks", e->R);
        uint64_t nodes = 0;
        for (uint32_t r = 0; r < e->R; r++)
            nodes += e->tr[r].nnodes;
        jw_ku64(w, "nodes", nodes);
        jw_ku64(w, "send_recv_pairs", e->np2p);
        jw_key(w, "iterations");
        jw_arr(w);
        for (uint32_t i = 0; i < ck->niters; i++) {
            const struct ck_iter *it = &ck->iters[i];
            if (it->entry != ei) continue;
            jw_obj_compact(w);
            jw_ku64(w, "iteration", it->iteration);
            jw_knum(w, "start_ns", time_ps_to_ns(it->start_ps));
            jw_knum(w, "time_ns", time_ps_to_ns(it->end_ps - it->start_ps));
            jw_obj_end(w);
        }
        jw_arr_end(w);
        jw_key(w, "collectives");
        jw_arr(w);
        for (uint32_t row = 0; row < n->ncoll_rows && row < ck->nrows; row++) {
            if (ck->rows[row].entry != ei || n->coll_rows[row].job != e->job) continue;
            const struct ck_row *cr = &ck->rows[row];
            const struct coll_row *r = &n->coll_rows[row];
            const struct ck_call *c = &e->calls[cr->call];
            jw_obj_compact(w);
            jw_ku64(w, "iteration", cr->iteration);
            jw_kstr(w, "name", c->name);
            jw_kstr(w, "pg", e->pgs[c->pg].name);
            jw_kstr(w, "op", coll_op_name(c->op));
            jw_ku64(w, "size", c->bytes);
            jw_ku64(w, "ranks", r->ranks);
            bool fin = r->end_ps != SIM_TIME_NEVER && r->start_ps != SIM_TIME_NEVER;
            jw_knum(w, "start_ns", r->start_ps != SIM_TIME_NEVER ? time_ps_to_ns(r->start_ps) : 0);
            jw_key(w, "time_ns");
            if (fin)
                jw_num(w, time_ps_to_ns(r->end_ps - r->start_ps));
            else
                jw_null(w);
            jw_obj_end(w);
        }
        jw_arr_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

void chakra_fini(struct net *n) {
    struct coll_state *cs = n->coll_state;
    struct chakra_state *ck = cs ? cs->chakra : NULL;
    if (!ck) return;
    for (uint32_t i = 0; i < ck->ne; i++) {
        struct ck_entry *e = &ck->e[i];
        for (uint32_t r = 0; r < e->R; r++) {
            et_free(&e->tr[r]);
            free(e->dep_idx[r]);
            free(e->dep_off[r]);
        }
        free(e->tr);
        free(e->dep_idx);
        free(e->dep_off);
        for (uint32_t p = 0; p < e->npgs; p++) {
            free(e->pgs[p].members);
            free(e->pgs[p].job.ranks);
            free(e->pgs[p].job.qkey);
            free(e->pgs[p].job.qval);
        }
        free(e->pgs);
        for (uint32_t c = 0; c < e->ncalls; c++)
            free(e->calls[c].node);
        free(e->calls);
        free(e->p2p);
    }
    free(ck->e);
    free(ck->rows);
    free(ck->row_left);
    free(ck->iters);
    free(ck);
    cs->chakra = NULL;
}

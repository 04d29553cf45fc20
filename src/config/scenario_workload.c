/* src/config/scenario_workload.c
 *
 * The scenario's `workload:` list as schema tables: flows, synthetic
 * patterns, collectives, training, and the user's own workloads (nccl-tests
 * sweeps, Chakra traces) (how to add a key: config/scenario.c).
 */
#include "config/scenario.h"

#include "config/scenario_int.h"
#include "core/mem.h"
#include "net/net.h"
#include "workload/workload.h"

#include <stdlib.h>
#include <string.h>

static const char *const WL_NAMES[] = {"flows",     "permutation", "incast",     "alltoall",
                                       "poisson",   "allreduce",   "allgather",  "reducescatter",
                                       "broadcast", "training",    "nccl_tests", "chakra",
                                       "moe",       "inference",   NULL};
static const char *const ARRIVAL_NAMES[] = {"poisson", "fixed", NULL};
static const char *const PERM_NAMES[] = {"shift", "random", NULL};
static const char *const ALGO_NAMES[] = {"ring", "tree", "halving_doubling", "sharp",
                                         "nvls", "auto", "hierarchical",     NULL};
static const char *const PROTO_NAMES[] = {"simple", "ll", "ll128", "auto", NULL};

#define WL_COLL (M(WL_ALLREDUCE) | M(WL_ALLGATHER) | M(WL_REDUCESCATTER) | M(WL_BROADCAST))
/* Entries the collective engine runs (coll/): collectives, training, and the
 * user's own workloads (docs/inputs.md): nccl-tests sweeps, Chakra traces. */
#define WL_INPUTS (M(WL_NCCL_TESTS) | M(WL_CHAKRA))
/* Model-driven workloads (docs/scenario.md): mixture-of-experts training,
 * disaggregated inference. */
#define WL_MODEL (M(WL_MOE) | M(WL_INFERENCE))
#define WL_ENGINE (WL_COLL | M(WL_TRAINING) | WL_INPUTS | WL_MODEL)

/* workload: flows --------------------------------------------------------- */

static int flow_check(struct schema_ctx *c, const struct yaml_node *map,
                      const struct yaml_node *here, void *obj) {
    const struct wl_flow *f = obj;
    if (f->src == f->dst)
        return schema_fail(c, at(map, here, "dst"), FS_EINVAL,
                           "src and dst are both h%u; a flow needs two different hosts", f->src);
    return 0;
}

#define FLO(f) offsetof(struct wl_flow, f)
static const struct schema_key FLOW_KEYS[] = {
    {KEY("src", SCHEMA_HOST, FLO(src), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED},
    {KEY("dst", SCHEMA_HOST, FLO(dst), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED},
    {KEY("size", SCHEMA_SIZE, FLO(size_bytes), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .min = 1},
    {KEY("start", SCHEMA_TIME, FLO(start_ps), "0", NULL,
         "SPEC.md: time 0 unless `start` (relative to the entry's start)")},
};
static const struct schema_table FLOW_TABLE = {TABLE("flow", FLOW_KEYS), .check = flow_check,
                                               .flow = true};

/* workload entries -------------------------------------------------------- */

static bool is_coll(enum wl_kind k) {
    return (WL_COLL >> k) & 1u;
}

/* `size`: one size, or for collectives also a list of sizes (a sweep). */
static int wl_size_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    if (n && n->type == YAML_SEQ) {
        if (!is_coll(w->kind))
            return schema_fail(c, n, FS_EINVAL,
                               "a list of sizes is only for collectives (allreduce, allgather, "
                               "reducescatter, broadcast); give one size");
        if (n->nitems == 0) return schema_fail(c, n, FS_EINVAL, "the list of sizes is empty");
        w->sizes = fs_xcalloc(n->nitems, sizeof *w->sizes);
        w->nsizes = n->nitems;
        for (size_t i = 0; i < n->nitems; i++) {
            int rc = schema_number(c, SCHEMA_SIZE, n->items[i], 1, 0, &w->sizes[i]);
            if (rc) return rc;
        }
        w->size_bytes = w->sizes[0];
        return 0;
    }
    int rc = schema_number(c, SCHEMA_SIZE, n, 1, 0, &w->size_bytes);
    if (!rc && is_coll(w->kind)) {
        w->sizes = fs_xcalloc(1, sizeof *w->sizes);
        w->sizes[0] = w->size_bytes;
        w->nsizes = 1;
    }
    return rc;
}

static void wl_size_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct wl_entry *w = obj;
    if (w->nsizes <= 1) {
        print_size(f, w->size_bytes);
        return;
    }
    fputc('[', f);
    for (size_t i = 0; i < w->nsizes; i++) {
        if (i) fputs(", ", f);
        print_size(f, w->sizes[i]);
    }
    fputc(']', f);
}

/* `senders`: a list of hosts, or a count resolved in wl_check once the
 * receiver is known (kept meanwhile as nsenders with senders == NULL). */
static int senders_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    if (n && n->type == YAML_SEQ) {
        if (n->nitems == 0) return schema_fail(c, n, FS_EINVAL, "the list of senders is empty");
        w->senders = fs_xcalloc(n->nitems, sizeof *w->senders);
        w->nsenders = n->nitems;
        for (size_t i = 0; i < n->nitems; i++) {
            bool gpu;
            int rc = schema_host(c, n->items[i], false, &w->senders[i], &gpu);
            if (rc) return rc;
        }
        return 0;
    }
    if (n && n->type == YAML_MAP)
        return schema_fail(c, n, FS_EINVAL,
                           "expected a list of hosts such as [h1, h2] or a count, got a mapping");
    uint64_t count;
    int rc = schema_number(c, SCHEMA_U32, n, 1, MAX_HOSTS, &count);
    if (!rc) w->nsenders = (size_t)count;
    return rc;
}

/* The first `count` hosts other than the receiver: what a count means. */
static bool senders_are_first(const struct wl_entry *w) {
    uint32_t h = 0;
    for (size_t i = 0; i < w->nsenders; i++, h++) {
        if (h == w->receiver) h++;
        if (w->senders[i] != h) return false;
    }
    return true;
}

static void senders_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct wl_entry *w = obj;
    if (senders_are_first(w)) {
        fprintf(f, "%zu", w->nsenders);
        return;
    }
    fputc('[', f);
    for (size_t i = 0; i < w->nsenders; i++)
        fprintf(f, "%sh%u", i ? ", " : "", w->senders[i]);
    fputc(']', f);
}

static int packet_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    w->exponential = false;
    return schema_number(c, SCHEMA_SIZE, n, 1, 0, &w->packet_bytes);
}

static int mean_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    if (w->packet_bytes)
        return schema_fail(c, n, FS_EINVAL,
                           "give 'packet' (fixed size) or 'mean' (exponential sizes), not both");
    w->exponential = true;
    return schema_number(c, SCHEMA_SIZE, n, 1, 0, &w->packet_bytes);
}

static void packet_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_size(f, ((const struct wl_entry *)obj)->packet_bytes);
}
static bool packet_shown(const void *obj) {
    return !((const struct wl_entry *)obj)->exponential;
}
static bool mean_shown(const void *obj) {
    return ((const struct wl_entry *)obj)->exponential;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* `ranks`: all | gpus | [h0, h1, ...] | [h0.g0, h0.g1, ...]. */
static int ranks_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    w->ranks_all = w->ranks_gpus = false;
    if (n && n->type == YAML_SCALAR && !yaml_is_null(n)) {
        if (!strcmp(n->text, "all"))
            w->ranks_all = true;
        else if (!strcmp(n->text, "gpus"))
            w->ranks_gpus = true;
        else
            return schema_fail(c, n, FS_EINVAL,
                               "expected all, gpus or a list of hosts such as [h0, h1], got "
                               "'%.64s'",
                               n->text);
        return 0;
    }
    if (!n || n->type != YAML_SEQ)
        return schema_fail(c, n, FS_EINVAL,
                           "expected all, gpus or a list of hosts such as [h0, h1], got %s",
                           yaml_describe(n));
    if (n->nitems < 2)
        return schema_fail(c, n, FS_EINVAL, "a collective needs at least 2 ranks, got %zu",
                           n->nitems);
    w->ranks = fs_xcalloc(n->nitems, sizeof *w->ranks);
    w->nranks = n->nitems;
    for (size_t i = 0; i < n->nitems; i++) {
        bool gpu;
        int rc = schema_host(c, n->items[i], true, &w->ranks[i], &gpu);
        if (rc) return rc;
        if (i == 0)
            w->ranks_are_gpu_ids = gpu;
        else if (gpu != w->ranks_are_gpu_ids)
            return schema_fail(c, n->items[i], FS_EINVAL,
                               "mixes host and GPU names; list only hosts (h1) or only GPUs "
                               "(h1.g0)");
    }
    /* Sort a copy to find a repeated rank in O(n log n). */
    uint32_t *sorted = fs_xmalloc(n->nitems * sizeof *sorted);
    memcpy(sorted, w->ranks, n->nitems * sizeof *sorted);
    qsort(sorted, n->nitems, sizeof *sorted, cmp_u32);
    size_t dup = SIZE_MAX;
    for (size_t i = 1; i < n->nitems && dup == SIZE_MAX; i++)
        if (sorted[i] == sorted[i - 1]) dup = i;
    uint32_t value = dup != SIZE_MAX ? sorted[dup] : 0;
    free(sorted);
    if (dup != SIZE_MAX) {
        bool seen = false;
        for (size_t i = 0; i < n->nitems; i++) {
            if (w->ranks[i] != value) continue;
            if (seen)
                return schema_fail(c, n->items[i], FS_EINVAL,
                                   "'%.64s' is listed twice; a rank joins a communicator once",
                                   n->items[i]->text);
            seen = true;
        }
    }
    return 0;
}

static void ranks_print(FILE *f, const void *obj, const struct scenario *sc) {
    const struct wl_entry *w = obj;
    if (w->ranks_all) {
        fputs("all", f);
        return;
    }
    if (w->ranks_gpus) {
        fputs("gpus", f);
        return;
    }
    uint32_t g = sc->topo.gpus_per_host ? sc->topo.gpus_per_host : 1;
    fputc('[', f);
    for (size_t i = 0; i < w->nranks; i++) {
        fputs(i ? ", " : "", f);
        if (w->ranks_are_gpu_ids)
            fprintf(f, "h%u.g%u", w->ranks[i] / g, w->ranks[i] % g);
        else
            fprintf(f, "h%u", w->ranks[i]);
    }
    fputc(']', f);
}

static int wl_mode(const void *obj) {
    return ((const struct wl_entry *)obj)->kind;
}

/* workload: the user's own (docs/inputs.md) ------------------------------- */

/* nccl-tests binaries by their op name (all_reduce_perf ...) and the
 * collective each one calls. alltoall_perf runs point-to-point exchanges. */
static const char *const NCCL_OPS[] = {"all_reduce", "all_gather", "reduce_scatter",
                                       "broadcast",  "alltoall",   NULL};
/* channels: a count 1..64, or auto (stored 0): NCCL's 2 per NIC — 2 on
 * hosts with one NIC, 2 per GPU in a node-aware ring over hosts with one
 * NIC per GPU (coll.c resolve_algo). */
static int channels_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        w->channels = 0;
        return 0;
    }
    if (n && n->type == YAML_SCALAR && !(n->text[0] >= '0' && n->text[0] <= '9'))
        return schema_fail(c, n, FS_EINVAL, "expected auto or a channel count 1..64, got '%.64s'",
                           n->text);
    uint64_t v;
    int rc = schema_number(c, SCHEMA_U32, n, 1, 64, &v);
    if (rc) return rc;
    w->channels = (uint32_t)v;
    return 0;
}

static void channels_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct wl_entry *w = obj;
    if (w->channels)
        fprintf(f, "%u", w->channels);
    else
        fputs("auto", f);
}

/* step_overhead: auto (NCCL's per-step costs by protocol and hop, coll/algos.c)
 * or one time for every step (MPI calibrations, sources.md V12). */
static int step_overhead_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        w->step_overhead_ps = 0;
        return 0;
    }
    if (n && n->type == YAML_SCALAR && !(n->text[0] >= '0' && n->text[0] <= '9'))
        return schema_fail(c, n, FS_EINVAL, "expected auto or a time such as 1us, got '%.64s'",
                           n->text);
    uint64_t v;
    int rc = schema_number(c, SCHEMA_TIME, n, 1, UINT64_MAX, &v);
    if (rc) return rc;
    w->step_overhead_ps = v;
    return 0;
}

static void step_overhead_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct wl_entry *w = obj;
    if (w->step_overhead_ps)
        fprintf(f, "%llups", (unsigned long long)w->step_overhead_ps);
    else
        fputs("auto", f);
}

static const enum wl_kind NCCL_OP_KINDS[] = {WL_ALLREDUCE, WL_ALLGATHER, WL_REDUCESCATTER,
                                             WL_BROADCAST, WL_ALLTOALL};

static int nccl_op_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    const char *s;
    int rc = schema_text(c, n, "an nccl-tests op such as all_reduce", &s);
    if (rc) return rc;
    for (size_t i = 0; NCCL_OPS[i]; i++)
        if (!strcmp(s, NCCL_OPS[i])) {
            w->nccl_op = NCCL_OP_KINDS[i];
            return 0;
        }
    char hint[96] = "";
    schema_suggest(hint, sizeof hint, s, NCCL_OPS, N(NCCL_OPS) - 1);
    return schema_fail(c, n, FS_EINVAL,
                       "'%.64s' is not an nccl-tests op; allowed: all_reduce, all_gather, "
                       "reduce_scatter, broadcast, alltoall%s",
                       s, hint);
}

static void nccl_op_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct wl_entry *w = obj;
    for (size_t i = 0; NCCL_OPS[i]; i++)
        if (NCCL_OP_KINDS[i] == w->nccl_op) fputs(NCCL_OPS[i], f);
}

/* nccl-tests sizes: a number with K, M or G means KiB, MiB, GiB (nccl-tests
 * parsesize multiplies by 1024); anything else is a fabsim size (8MiB, 1GB). */
static int nccl_size(struct schema_ctx *c, const struct yaml_node *n, uint64_t *out) {
    if (n && n->type == YAML_SCALAR && n->text[0] >= '0' && n->text[0] <= '9') {
        size_t len = strlen(n->text);
        char u = n->text[len - 1];
        const char *bin = u == 'K' ? "KiB" : u == 'M' ? "MiB" : u == 'G' ? "GiB" : NULL;
        if (bin && len < 40) {
            char buf[48];
            snprintf(buf, sizeof buf, "%.*s%s", (int)(len - 1), n->text, bin);
            struct yaml_node tmp = *n;
            tmp.text = buf;
            tmp.len = strlen(buf);
            return schema_number(c, SCHEMA_SIZE, &tmp, 1, 0, out);
        }
    }
    return schema_number(c, SCHEMA_SIZE, n, 1, 0, out);
}
static int nt_min_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return nccl_size(c, n, &((struct wl_entry *)obj)->min_bytes);
}
static int nt_max_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return nccl_size(c, n, &((struct wl_entry *)obj)->max_bytes);
}
static int nt_step_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    return nccl_size(c, n, &((struct wl_entry *)obj)->step_bytes);
}
static void nt_min_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_size(f, ((const struct wl_entry *)obj)->min_bytes);
}
static void nt_max_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_size(f, ((const struct wl_entry *)obj)->max_bytes);
}
static void nt_step_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_size(f, ((const struct wl_entry *)obj)->step_bytes);
}

static int wl_path_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    const char *s;
    int rc = schema_text(c, n, "a folder of Chakra trace files", &s);
    if (rc) return rc;
    if (!s[0]) return schema_fail(c, n, FS_EINVAL, "must not be empty");
    free(w->path);
    w->path = scenario_path_near(c->file, s);
    return 0;
}

static void wl_path_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_string(f, ((const struct wl_entry *)obj)->path);
}

/* The nccl-tests sweep: sizes min, min*step (or min+step_bytes), ... up to
 * max (nccl-tests common.cu: the same loop), each a whole number of floats.
 * Expanded into the job's call sequence: `warmup` calls at max, then per
 * size `iters` out-of-place and `iters` in-place calls. */
#define NCCL_MAX_CALLS (1u << 20)
static int nccl_tests_check(struct schema_ctx *c, const struct yaml_node *map,
                            const struct yaml_node *here, struct wl_entry *w) {
    if (w->min_bytes > w->max_bytes)
        return schema_fail(c, at(map, here, "max"), FS_EINVAL,
                           "max (%llu B) is below min (%llu B); nccl-tests -e must be >= -b",
                           (unsigned long long)w->max_bytes, (unsigned long long)w->min_bytes);
    uint64_t nsizes = 0;
    for (uint64_t s = w->min_bytes; s <= w->max_bytes;) {
        nsizes++;
        uint64_t next = w->step_factor > 1 ? s * w->step_factor : s + w->step_bytes;
        if (next <= s || nsizes > 4096) break;
        s = next;
    }
    uint64_t calls = w->warmup + nsizes * 2 * w->iters;
    if (nsizes > 4096 || calls > NCCL_MAX_CALLS)
        return schema_fail(c, here, FS_ERANGE,
                           "this sweep makes %llu sizes and %llu calls; at most 4096 sizes and "
                           "%u calls (raise step or lower iters)",
                           (unsigned long long)nsizes, (unsigned long long)calls, NCCL_MAX_CALLS);
    free(w->sizes);
    w->sizes = fs_xcalloc((size_t)calls, sizeof *w->sizes);
    w->nsizes = (size_t)calls;
    size_t k = 0;
    uint64_t maxf = w->max_bytes / 4 * 4;
    for (uint32_t i = 0; i < w->warmup; i++)
        w->sizes[k++] = maxf ? maxf : 4;
    for (uint64_t s = w->min_bytes, i = 0; i < nsizes; i++) {
        uint64_t f = s / 4 * 4; /* whole floats (nccl-tests -d float) */
        for (uint32_t r = 0; r < 2 * w->iters; r++)
            w->sizes[k++] = f ? f : 4;
        s = w->step_factor > 1 ? s * w->step_factor : s + w->step_bytes;
    }
    w->size_bytes = w->sizes[0];
    w->repeat = 1;
    return 0;
}

/* workload: moe and inference (coll/moe.c, coll/infer.c) ----------------- */

/* Counts that take `auto` (stored 0: the model's own, coll/moe.c,
 * coll/infer.c) or 1..max. */
static int auto_u32(struct schema_ctx *c, const struct yaml_node *n, uint32_t max, uint32_t *out) {
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        *out = 0;
        return 0;
    }
    if (n && n->type == YAML_SCALAR && !(n->text[0] >= '0' && n->text[0] <= '9'))
        return schema_fail(c, n, FS_EINVAL, "expected auto or a count 1..%u, got '%.64s'", max,
                           n->text);
    uint64_t v;
    int rc = schema_number(c, SCHEMA_U32, n, 1, max, &v);
    if (!rc) *out = (uint32_t)v;
    return rc;
}
static void auto_print(FILE *f, uint64_t v) {
    if (v)
        fprintf(f, "%llu", (unsigned long long)v);
    else
        fputs("auto", f);
}
#define AUTO_U32(field, max)                                                                       \
    static int field##_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {         \
        return auto_u32(c, n, max, &((struct wl_entry *)obj)->field);                              \
    }                                                                                              \
    static void field##_print(FILE *f, const void *obj, const struct scenario *sc) {               \
        (void)sc;                                                                                  \
        auto_print(f, ((const struct wl_entry *)obj)->field);                                      \
    }
AUTO_U32(layers, 4096)
AUTO_U32(hidden, 1u << 20)
AUTO_U32(ep, 1u << 20)
AUTO_U32(prefill_hosts, 1u << 20)

static int decode_bytes_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct wl_entry *w = obj;
    if (n && n->type == YAML_SCALAR && !strcmp(n->text, "auto")) {
        w->decode_bytes = 0;
        return 0;
    }
    return schema_number(c, SCHEMA_SIZE, n, 1, 0, &w->decode_bytes);
}
static void decode_bytes_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    const struct wl_entry *w = obj;
    if (w->decode_bytes)
        print_size(f, w->decode_bytes);
    else
        fputs("auto", f);
}

/* imbalance: a decimal >= 1 (the busiest expert's load over the mean). */
static int imbalance_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    const char *s;
    int rc = schema_text(c, n, "a number >= 1 such as 1.5", &s);
    if (rc) return rc;
    char *end = NULL;
    double v = s[0] >= '0' && s[0] <= '9' ? strtod(s, &end) : 0;
    if (!end || *end || !(v >= 1.0) || v > 1e6)
        return schema_fail(c, n, FS_EINVAL,
                           "expected a number >= 1 (the busiest expert's tokens over the mean; "
                           "1 = balanced), got '%.64s'",
                           s);
    ((struct wl_entry *)obj)->imbalance = v;
    return 0;
}
static void imbalance_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    char b[40];
    schema_fmt_double(((const struct wl_entry *)obj)->imbalance, b, sizeof b);
    fputs(b, f);
}

static int model_check(struct schema_ctx *c, const struct yaml_node *map,
                       const struct yaml_node *here, struct wl_entry *w) {
    if (w->kind != WL_MOE) return 0;
    if (w->top_k > w->experts)
        return schema_fail(c, at(map, here, "top_k"), FS_EINVAL,
                           "top_k %u is more than the %u experts", w->top_k, w->experts);
    if (w->imbalance > (double)w->experts / w->top_k)
        return schema_fail(c, at(map, here, "imbalance"), FS_EINVAL,
                           "imbalance %g is more than experts / top_k = %g: an expert gets at "
                           "most one of each token's top_k slots",
                           w->imbalance, (double)w->experts / w->top_k);
    if (w->ep && w->experts % w->ep)
        return schema_fail(c, at(map, here, "ep"), FS_EINVAL,
                           "%u experts do not spread evenly over ep %u ranks; experts must be a "
                           "multiple of ep",
                           w->experts, w->ep);
    return 0;
}

static int inputs_check(struct schema_ctx *c, const struct yaml_node *map,
                        const struct yaml_node *here, struct wl_entry *w) {
    if (w->kind == WL_NCCL_TESTS) return nccl_tests_check(c, map, here, w);
    if (w->jobs > 1)
        return schema_fail(c, at(map, here, "jobs"), FS_EINVAL,
                           "a Chakra trace is one job (its ranks are the trace files); jobs: 1");
    return 0;
}

static int wl_check(struct schema_ctx *c, const struct yaml_node *map, const struct yaml_node *here,
                    void *obj) {
    struct wl_entry *w = obj;
    if ((WL_INPUTS >> w->kind) & 1u) return inputs_check(c, map, here, w);
    if ((WL_MODEL >> w->kind) & 1u) return model_check(c, map, here, w);
    uint32_t hosts = scenario_host_count(&c->sc->topo);
    if (w->kind == WL_PERMUTATION && w->pattern == PERM_SHIFT && w->shift % hosts == 0)
        return schema_fail(c, at(map, here, "shift"), FS_EINVAL,
                           "shift %u sends every host to itself on this %u-host fabric; use a "
                           "shift that is not a multiple of %u",
                           w->shift, hosts, hosts);
    if (w->kind == WL_INCAST || w->kind == WL_POISSON) {
        const struct yaml_node *sn = yaml_map_get(map, "senders");
        if (!w->senders) {
            if (w->nsenders > (size_t)hosts - 1)
                return schema_fail(c, sn ? sn : here, FS_EINVAL,
                                   "%zu senders asked for, but this fabric has only %u hosts "
                                   "besides the receiver h%u",
                                   w->nsenders, hosts - 1, w->receiver);
            w->senders = fs_xcalloc(w->nsenders, sizeof *w->senders);
            uint32_t h = 0;
            for (size_t i = 0; i < w->nsenders; i++, h++) {
                if (h == w->receiver) h++;
                w->senders[i] = h;
            }
        }
        for (size_t i = 0; i < w->nsenders; i++) {
            if (w->senders[i] != w->receiver) continue;
            const struct yaml_node *item =
                sn && sn->type == YAML_SEQ && i < sn->nitems ? sn->items[i] : sn;
            return schema_fail(c, item ? item : here, FS_EINVAL,
                               "the receiver h%u is also listed as a sender", w->receiver);
        }
    }
    if (w->kind == WL_POISSON && !w->packet_bytes)
        return schema_fail(c, here, FS_EINVAL,
                           "missing 'packet' (fixed packet size) or 'mean' (exponential sizes) "
                           "in this poisson entry");
    return 0;
}

#define WLE(f) offsetof(struct wl_entry, f)

/* docs/inputs.md: nccl-tests flags -b -e -f -i -n -w, with nccl-tests'
 * defaults except iters and warmup (a model has no noise to average). */
#define INPUT_KEYS                                                                                 \
    {KEY("op", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,                      \
     .only = M(WL_NCCL_TESTS), .parse = nccl_op_parse, .print = nccl_op_print},                    \
        {KEY("min", SCHEMA_CUSTOM, 0, "32MiB", NULL, "nccl-tests -b default 32M"),                 \
         .only = M(WL_NCCL_TESTS), .parse = nt_min_parse, .print = nt_min_print},                  \
        {KEY("max", SCHEMA_CUSTOM, 0, "32MiB", NULL, "nccl-tests -e default 32M"),                 \
         .only = M(WL_NCCL_TESTS), .parse = nt_max_parse, .print = nt_max_print},                  \
        {KEY("step", SCHEMA_U32, WLE(step_factor), "1", NULL,                                      \
             "nccl-tests -f default 1 (then sizes grow by step_bytes)"),                           \
         .min = 1, .max = 1024, .only = M(WL_NCCL_TESTS)},                                         \
        {KEY("step_bytes", SCHEMA_CUSTOM, 0, "1MiB", NULL, "nccl-tests -i default 1M"),            \
         .only = M(WL_NCCL_TESTS), .parse = nt_step_parse, .print = nt_step_print},                \
        {KEY("iters", SCHEMA_U32, WLE(iters), "1", NULL,                                           \
             "docs/inputs.md: 1 (nccl-tests -n 20 averages noise a model does not have)"),         \
         .min = 1, .max = 1000, .only = M(WL_NCCL_TESTS)},                                         \
        {KEY("warmup", SCHEMA_U32, WLE(warmup), "0", NULL,                                         \
             "docs/inputs.md: 0 (nccl-tests -w 5 warms caches a model does not have)"),            \
         .max = 1000, .only = M(WL_NCCL_TESTS)},                                                   \
    {                                                                                              \
        KEY("path", SCHEMA_CUSTOM, 0, NULL, NULL, NULL),                                           \
            .flags = SCHEMA_REQUIRED, .only = M(WL_CHAKRA), .parse = wl_path_parse,                \
            .print = wl_path_print                                                                 \
    }
#define SIZED (M(WL_PERMUTATION) | M(WL_INCAST) | M(WL_ALLTOALL) | WL_COLL | M(WL_TRAINING))
static const struct schema_key WORKLOAD_KEYS[] = {
    {KEY("kind", SCHEMA_ENUM, WLE(kind), NULL, NULL, NULL),
     .flags = SCHEMA_SELECTOR | SCHEMA_REQUIRED, .names = WL_NAMES},
    {KEY("start", SCHEMA_TIME, WLE(start_ps), "0", NULL, "SPEC.md: all start at time 0")},
    {KEY("size", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED, .only = SIZED,
     .parse = wl_size_parse, .print = wl_size_print},
    {KEY("flows", SCHEMA_LIST, WLE(flows), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(WL_FLOWS), .sub = &FLOW_TABLE, .off_n = WLE(nflows),
     .elem_size = sizeof(struct wl_flow)},
    {KEY("pattern", SCHEMA_ENUM, WLE(pattern), "shift", NULL, "SPEC.md example"),
     .only = M(WL_PERMUTATION), .names = PERM_NAMES},
    {KEY("shift", SCHEMA_U32, WLE(shift), "4", NULL, "SPEC.md example"), .min = 1,
     .only = M(WL_PERMUTATION)},
    {KEY("senders", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(WL_INCAST) | M(WL_POISSON), .parse = senders_parse, .print = senders_print},
    {KEY("receiver", SCHEMA_HOST, WLE(receiver), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(WL_INCAST) | M(WL_POISSON)},
    {KEY("load", SCHEMA_FRACTION_POS, WLE(load), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(WL_POISSON)},
    {KEY("packet", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .only = M(WL_POISSON),
     .parse = packet_parse, .print = packet_print, .show = packet_shown},
    {KEY("mean", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .only = M(WL_POISSON), .parse = mean_parse,
     .print = packet_print, .show = mean_shown},
    {KEY("duration", SCHEMA_TIME, WLE(duration_ps), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .min = 1, .only = M(WL_POISSON)},
    {KEY("priority", SCHEMA_U32, WLE(priority), "0", NULL,
         "docs/scenario.md: one traffic class unless asked"),
     .max = NET_NCLASS - 1},
    {KEY("ranks", SCHEMA_CUSTOM, 0, "all", NULL, "SPEC.md example"), .only = WL_ENGINE,
     .parse = ranks_parse, .print = ranks_print},
    {KEY("algorithm", SCHEMA_ENUM, WLE(algorithm), "ring", NULL, "SPEC.md example"),
     .only = WL_ENGINE, .names = ALGO_NAMES},
    {KEY("jobs", SCHEMA_U32, WLE(jobs), "1", NULL, "SPEC.md example"), .min = 1, .max = 1u << 16,
     .only = WL_ENGINE},
    {KEY("repeat", SCHEMA_U32, WLE(repeat), "1", NULL, "SPEC.md example"), .min = 1,
     .max = 1u << 20, .only = WL_COLL},
    {KEY("channels", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/model.md: NCCL's usual 2 channels per NIC"),
     .only = WL_ENGINE, .parse = channels_parse, .print = channels_print},
    {KEY("protocol", SCHEMA_ENUM, WLE(protocol), "auto", NULL,
         "docs/sources.md B: NCCL picks LL / LL128 / Simple per size (NCCL_PROTO unset)"),
     .only = WL_ENGINE, .names = PROTO_NAMES},
    {KEY("slice", SCHEMA_SIZE, WLE(slice_bytes), "512KiB", NULL,
         "docs/sources.md B: NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8"),
     .min = 1, .only = WL_ENGINE},
    {KEY("step_overhead", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/sources.md B: NCCL's hwLat per step and protocol, baseLat per call (tuning.cc)"),
     .only = WL_ENGINE, .parse = step_overhead_parse, .print = step_overhead_print},
    {KEY("pxn", SCHEMA_BOOL, WLE(pxn), "true", NULL,
         "sources.md B: NCCL_PXN_DISABLE=0 (PXN on since NCCL 2.12)"),
     .only = WL_ENGINE},
    {KEY("host_rate", SCHEMA_RATE, WLE(host_rate_bps), "0", NULL,
         "docs/model.md: 0 = GPU reduces in the copy kernel (NCCL); MPI hosts: calibrated "
         "to docs/sources.md V12"),
     .only = WL_ENGINE},
    {KEY("iterations", SCHEMA_U32, WLE(iterations), "3", "1",
         "docs/scenario.md; chakra: one pass over the trace (docs/inputs.md)"),
     .min = 1, .max = 1u << 20, .only = M(WL_TRAINING) | M(WL_CHAKRA) | M(WL_MOE)},
    {KEY("forward", SCHEMA_TIME, WLE(forward_ps), "0", NULL,
         "docs/scenario.md: 0 = no compute (communication only)"),
     .only = M(WL_TRAINING)},
    {KEY("backward", SCHEMA_TIME, WLE(backward_ps), "0", NULL,
         "docs/scenario.md: 0 = no compute (communication only)"),
     .only = M(WL_TRAINING)},
    {KEY("bucket", SCHEMA_SIZE, WLE(bucket_bytes), "25MiB", NULL,
         "docs/model.md: PyTorch DDP bucket_cap_mb = 25"),
     .min = 1, .only = M(WL_TRAINING)},
    /* moe and inference: the model (defaults: docs/sources.md M) */
    {KEY("layers", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/sources.md M: moe 32 (Mixtral 8x7B), inference 80 (Llama-3-70B)"),
     .only = WL_MODEL, .parse = layers_parse, .print = layers_print},
    {KEY("hidden", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/sources.md M: moe 4096 (Mixtral 8x7B), inference 8192 (Llama-3-70B)"),
     .only = WL_MODEL, .parse = hidden_parse, .print = hidden_print},
    {KEY("dtype_bytes", SCHEMA_U32, WLE(dtype_bytes), "2", NULL, "docs/sources.md M: bf16"),
     .min = 1, .max = 16, .only = WL_MODEL},
    {KEY("experts", SCHEMA_U32, WLE(experts), "8", NULL, "docs/sources.md M: Mixtral 8x7B"),
     .min = 1, .max = 4096, .only = M(WL_MOE)},
    {KEY("top_k", SCHEMA_U32, WLE(top_k), "2", NULL, "docs/sources.md M: Mixtral 8x7B"), .min = 1,
     .max = 4096, .only = M(WL_MOE)},
    {KEY("tokens", SCHEMA_U64, WLE(tokens), "4096", NULL,
         "docs/sources.md M: one 4096-token sequence per rank (Mixtral's context)"),
     .min = 1, .max = 1ull << 32, .only = M(WL_MOE)},
    {KEY("imbalance", SCHEMA_CUSTOM, 0, "1", NULL,
         "docs/scenario.md: balanced routing (what the auxiliary loss aims at)"),
     .only = M(WL_MOE), .parse = imbalance_parse, .print = imbalance_print},
    {KEY("ep", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/scenario.md: every rank of a tensor-parallel index in one expert-parallel group"),
     .only = M(WL_MOE), .parse = ep_parse, .print = ep_print},
    {KEY("tp", SCHEMA_U32, WLE(tp), "1", NULL, "docs/scenario.md: no tensor parallelism"), .min = 1,
     .max = 1u << 20, .only = M(WL_MOE)},
    {KEY("attention_time", SCHEMA_TIME, WLE(attention_ps), "0", NULL,
         "docs/scenario.md: 0 = no compute (communication only)"),
     .only = M(WL_MOE)},
    {KEY("expert_time", SCHEMA_TIME, WLE(expert_ps), "0", NULL,
         "docs/scenario.md: 0 = no compute (communication only)"),
     .only = M(WL_MOE)},
    {KEY("gradients", SCHEMA_SIZE, WLE(size_bytes), "0", NULL,
         "docs/scenario.md: 0 = no data-parallel AllReduce"),
     .only = M(WL_MOE)},
    {KEY("prefill_hosts", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/scenario.md: half the ranks (DistServe's 1:1 split, docs/sources.md M)"),
     .only = M(WL_INFERENCE), .parse = prefill_hosts_parse, .print = prefill_hosts_print},
    {KEY("kv_heads", SCHEMA_U32, WLE(kv_heads), "8", NULL,
         "docs/sources.md M: Llama-3-70B (grouped-query attention)"),
     .min = 1, .max = 4096, .only = M(WL_INFERENCE)},
    {KEY("head_dim", SCHEMA_U32, WLE(head_dim), "128", NULL, "docs/sources.md M: Llama-3-70B"),
     .min = 1, .max = 1u << 16, .only = M(WL_INFERENCE)},
    {KEY("prompt_tokens", SCHEMA_U32, WLE(prompt_tokens), "1024", NULL,
         "docs/sources.md M: Splitwise conversation trace, median prompt ~1020"),
     .min = 1, .max = 1u << 24, .only = M(WL_INFERENCE)},
    {KEY("output_tokens", SCHEMA_U32, WLE(output_tokens), "128", NULL,
         "docs/sources.md M: Splitwise conversation trace, median output ~129"),
     .min = 1, .max = 1u << 20, .only = M(WL_INFERENCE)},
    {KEY("requests", SCHEMA_U32, WLE(requests), "8", NULL,
         "docs/scenario.md: a short run; raise it for percentiles"),
     .min = 1, .max = 1u << 20, .only = M(WL_INFERENCE)},
    {KEY("arrival", SCHEMA_ENUM, WLE(arrival), "poisson", NULL,
         "docs/sources.md M: Poisson arrivals, as DistServe and Splitwise evaluate"),
     .only = M(WL_INFERENCE), .names = ARRIVAL_NAMES},
    {KEY("interval", SCHEMA_TIME, WLE(interval_ps), NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .min = 1, .only = M(WL_INFERENCE)},
    {KEY("prefill_time", SCHEMA_TIME, WLE(prefill_ps), "0", NULL,
         "docs/scenario.md: 0 = no compute (communication only)"),
     .only = M(WL_INFERENCE)},
    {KEY("decode_time", SCHEMA_TIME, WLE(decode_ps), "0", NULL,
         "docs/scenario.md: 0 = no compute (communication only)"),
     .only = M(WL_INFERENCE)},
    {KEY("decode_bytes", SCHEMA_CUSTOM, 0, "auto", NULL,
         "docs/scenario.md: one hidden vector (hidden x dtype_bytes) per step"),
     .only = M(WL_INFERENCE), .parse = decode_bytes_parse, .print = decode_bytes_print},
    INPUT_KEYS};
const struct schema_table SCHEMA_WORKLOAD = {
    TABLE("workload entry", WORKLOAD_KEYS),
    .mode_of = wl_mode,
    .mode_what = "workload kind",
    .mode_names = WL_NAMES,
    .check = wl_check,
    .has_pos = true,
    .pos_off = WLE(pos),
    .alt_modes = M(WL_CHAKRA),
};

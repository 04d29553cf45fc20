/* src/config/scenario_topology.c
 *
 * The scenario's `topology:` mapping as schema tables: the kinds and their
 * blocks, a fabric from a file, and the size limits (how to add a key: config/scenario.c).
 */
#include "config/scenario.h"

#include "config/scenario_int.h"
#include "core/mem.h"
#include "config/tfile_yaml.h"
#include "topo/topo.h"

#include <stdlib.h>
#include <string.h>

static const char *const TOPO_NAMES[] = {"single_switch",  "leaf_spine", "fat_tree", "ring",
                                         "rail_optimized", "file",       "nvl72",    NULL};

/* topology ---------------------------------------------------------------- */

/* Each parameter is a row of the flat table and of its kind's nested block
 * (`fat_tree: {k: 8}`), so both spellings read the same field. Defaults:
 * SPEC.md example (leaf_spine 4/4/4/1) and the brief's sizes for the other
 * kinds; rail_optimized takes the def_alt column. */
#define TOP(f) offsetof(struct topo_params, f)
#define K_LEAVES                                                                                   \
    {                                                                                              \
        KEY("leaves", SCHEMA_U32, TOP(leaves), "4", NULL, "SPEC.md example"),                      \
            .min = 1, .max = MAX_HOSTS, .only = M(TOPO_LEAF_SPINE)                                 \
    }
#define K_SPINES                                                                                   \
    {                                                                                              \
        KEY("spines", SCHEMA_U32, TOP(spines), "4", "8", "SPEC.md example"),                       \
            .min = 1, .max = MAX_HOSTS,                                                            \
            .only = M(TOPO_LEAF_SPINE) | M(TOPO_RAIL_OPTIMIZED) | M(TOPO_NVL72)                    \
    }
#define K_HOSTS_PER_LEAF                                                                           \
    {                                                                                              \
        KEY("hosts_per_leaf", SCHEMA_U32, TOP(hosts_per_leaf), "4", "0",                           \
            "SPEC.md example; rail_optimized: 0 = every host on one leaf per rail"),               \
            .min = 0, .max = MAX_HOSTS, .only = M(TOPO_LEAF_SPINE) | M(TOPO_RAIL_OPTIMIZED)        \
    }
#define K_UPLINKS                                                                                  \
    {                                                                                              \
        KEY("uplinks_per_spine", SCHEMA_U32, TOP(uplinks_per_spine), "1", NULL,                    \
            "SPEC.md example"),                                                                    \
            .min = 1, .max = 1024,                                                                 \
            .only = M(TOPO_LEAF_SPINE) | M(TOPO_RAIL_OPTIMIZED) | M(TOPO_NVL72)                    \
    }
#define K_K                                                                                        \
    {                                                                                              \
        KEY("k", SCHEMA_U32, TOP(k), "8", NULL, "SPEC.md example (fat_tree: {k: 8})"),             \
            .min = 2, .max = 1024, .only = M(TOPO_FAT_TREE)                                        \
    }
#define K_SWITCHES                                                                                 \
    {                                                                                              \
        KEY("switches", SCHEMA_U32, TOP(ring_switches), "5", NULL, "SPEC.md example"),             \
            .min = 3, .max = MAX_HOSTS, .only = M(TOPO_RING)                                       \
    }
#define K_HOSTS_PER_SWITCH                                                                         \
    {                                                                                              \
        KEY("hosts_per_switch", SCHEMA_U32, TOP(ring_hosts_per_switch), "1", NULL,                 \
            "SPEC.md example"),                                                                    \
            .min = 1, .max = MAX_HOSTS, .only = M(TOPO_RING)                                       \
    }
#define K_HOSTS                                                                                    \
    {                                                                                              \
        KEY("hosts", SCHEMA_U32, TOP(hosts), "8", "16", "SPEC.md examples"),                       \
            .min = 1, .max = MAX_HOSTS, .only = M(TOPO_SINGLE_SWITCH) | M(TOPO_RAIL_OPTIMIZED)     \
    }
#define K_RACKS                                                                                    \
    {                                                                                              \
        KEY("racks", SCHEMA_U32, TOP(hosts), "1", NULL,                                            \
            "docs/sources.md A13: one GB200/GB300 NVL72 rack is one NVLink domain"),               \
            .min = 1, .max = MAX_HOSTS, .only = M(TOPO_NVL72)                                      \
    }
#define K_RAILS                                                                                    \
    {                                                                                              \
        KEY("rails", SCHEMA_U32, TOP(rails), "0", NULL,                                            \
            "docs/sources.md A8: one rail per GPU of an HGX server (0); nvl72: 4, the GPUs "       \
            "of a compute tray (A13)"),                                                            \
            .min = 0, .max = 1024, .only = M(TOPO_RAIL_OPTIMIZED) | M(TOPO_NVL72)                  \
    }
#define K_GPUS                                                                                     \
    {                                                                                              \
        KEY("gpus_per_host", SCHEMA_U32, TOP(gpus_per_host), "1", "8",                             \
            "SPEC.md; docs/sources.md A8: 8 GPUs per HGX node"),                                   \
            .min = 1, .max = 1024                                                                  \
    }

static const struct schema_key SS_BLOCK_KEYS[] = {K_HOSTS, K_GPUS};
static const struct schema_key LS_BLOCK_KEYS[] = {K_LEAVES, K_SPINES, K_HOSTS_PER_LEAF, K_UPLINKS,
                                                  K_GPUS};
static const struct schema_key FT_BLOCK_KEYS[] = {K_K, K_GPUS};
static const struct schema_key RING_BLOCK_KEYS[] = {K_SWITCHES, K_HOSTS_PER_SWITCH, K_GPUS};
static const struct schema_key RAIL_BLOCK_KEYS[] = {K_HOSTS,   K_GPUS,  K_SPINES,
                                                    K_UPLINKS, K_RAILS, K_HOSTS_PER_LEAF};
static const struct schema_key NVL_BLOCK_KEYS[] = {K_RACKS, K_SPINES, K_UPLINKS, K_RAILS};
static const struct schema_table SS_BLOCK = {TABLE("single_switch", SS_BLOCK_KEYS),
                                             .no_defaults = true};
static const struct schema_table LS_BLOCK = {TABLE("leaf_spine", LS_BLOCK_KEYS),
                                             .no_defaults = true};
static const struct schema_table FT_BLOCK = {TABLE("fat_tree", FT_BLOCK_KEYS), .no_defaults = true};
static const struct schema_table RING_BLOCK = {TABLE("ring", RING_BLOCK_KEYS), .no_defaults = true};
static const struct schema_table RAIL_BLOCK = {TABLE("rail_optimized", RAIL_BLOCK_KEYS),
                                               .no_defaults = true};
static const struct schema_table NVL_BLOCK = {TABLE("nvl72", NVL_BLOCK_KEYS), .no_defaults = true};

static int topo_mode(const void *obj) {
    return ((const struct topo_params *)obj)->kind;
}

/* topology kind: file (docs/inputs.md): the fabric is read here, when the
 * scenario is loaded, because the workload's host names need its size. */
static const char *const TFILE_FORMATS[] = {"auto", "yaml", "ibnetdiscover", "ibsim", NULL};
static const char *const TFILE_RATES[] = {"fabric", "file", NULL};
static const char *const TFILE_GROUPS[] = {"server", "hca", NULL};
_Static_assert(TFILE_GROUP_SERVER == 0 && TFILE_GROUP_HCA == 1, "TFILE_GROUPS order");
_Static_assert(TFILE_AUTO == 0 && TFILE_YAML == 1 && TFILE_IBNETDISCOVER == 2 && TFILE_IBSIM == 3,
               "TFILE_FORMATS order");

static int topo_path_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct topo_params *t = obj;
    const char *s;
    int rc = schema_text(c, n, "a topology file", &s);
    if (rc) return rc;
    if (!s[0]) return schema_fail(c, n, FS_EINVAL, "must not be empty");
    free(t->file_path);
    t->file_path = scenario_path_near(c->file, s);
    return 0;
}

static void topo_path_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_string(f, ((const struct topo_params *)obj)->file_path);
}

static int topo_rates_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct topo_params *t = obj;
    const char *s;
    int rc = schema_text(c, n, "file or fabric", &s);
    if (rc) return rc;
    if (strcmp(s, "file") && strcmp(s, "fabric"))
        return schema_fail(c, n, FS_EINVAL,
                           "'%.40s': rates are 'file' (each link's own, "
                           "fabric.link where the file gives none) or 'fabric' (every link at "
                           "fabric.link)",
                           s);
    t->file_rates = !strcmp(s, "file");
    return 0;
}

static void topo_rates_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    fputs(TFILE_RATES[((const struct topo_params *)obj)->file_rates], f);
}

static int topo_file_check(struct schema_ctx *c, const struct yaml_node *map,
                           const struct yaml_node *here, struct topo_params *t) {
    const struct yaml_node *pn = yaml_map_get(map, "path");
    if (t->file) return 0;
    t->file = fs_xcalloc(1, sizeof *t->file);
    int rc = tfile_read(t->file, t->file_path, (enum tfile_format)t->file_format,
                        (enum tfile_group)t->file_group, c->d);
    if (rc) {
        free(t->file);
        t->file = NULL;
        /* the file's own file:line error stays; say where it was named */
        (void)pn, (void)here;
        return rc;
    }
    const struct yaml_node *g = yaml_map_get(map, "gpus_per_host");
    if (g && t->gpus_per_host != t->file->gpus)
        return schema_fail(c, g, FS_EINVAL,
                           "gpus_per_host is %u but the hosts of %s have gpus: %u; leave "
                           "gpus_per_host out with kind: file",
                           t->gpus_per_host, t->file_path, t->file->gpus);
    t->gpus_per_host = t->file->gpus;
    /* A link's own buffer sizes a lossy queue (tail drop, trimming); PFC's
     * and credits' thresholds are the fabric's, so they refuse it. */
    const struct fabric_params *f = &c->sc->fabric;
    for (uint32_t i = 0; f->flow_control != FLOWCTL_NONE && i < t->file->nlinks; i++) {
        const struct tfile_link *l = &t->file->links[i];
        if (!l->buffer_bytes) continue;
        return diag_set(c->d, t->file_path, (struct srcpos){l->line, l->buffer_col}, FS_EINVAL,
                        "a link's own buffer needs fabric.flow_control: none (tail drop or "
                        "trimming); with %s the buffers are the fabric's (fabric.buffer%s)",
                        f->flow_control == FLOWCTL_PFC    ? "pfc"
                        : f->flow_control == FLOWCTL_CBFC ? "cbfc"
                                                          : "credit",
                        f->flow_control == FLOWCTL_CREDIT ? ", vl_buffer" : "");
    }
    return 0;
}

/* kind nvl72 (docs/sources.md A13): a rack of 72 GPUs in 18 compute trays
 * of 4 is one NVLink domain, 1.8 TB/s of NVLink 5 per GPU (900 GB/s each
 * way = 7200 Gb/s), one NIC per GPU; the scale-out rails are the 4 GPUs of
 * a tray. These replace the HGX defaults unless the scenario gives them. */
#define NVL72_GPUS 72u
#define NVL72_NVLINK_BPS 7200000000000ull
#define NVL72_RAILS 4u

static bool given(const struct yaml_node *map, const char *block, const char *key) {
    const struct yaml_node *b = yaml_map_get(map, block);
    return yaml_map_get(map, key) || (b && b->type == YAML_MAP && yaml_map_get(b, key));
}

static int nvl72_check(struct schema_ctx *c, const struct yaml_node *map, struct topo_params *t) {
    const struct yaml_node *g = yaml_map_get(map, "gpus_per_host");
    if (g && t->gpus_per_host != NVL72_GPUS)
        return schema_fail(c, g, FS_EINVAL,
                           "an nvl72 rack has %u GPUs in its NVLink domain, not %u; leave "
                           "gpus_per_host out (or take kind: rail_optimized)",
                           NVL72_GPUS, t->gpus_per_host);
    t->gpus_per_host = NVL72_GPUS;
    if (!given(map, "nvl72", "nvlink")) t->nvlink_bps = NVL72_NVLINK_BPS;
    if (!given(map, "nvl72", "rails")) t->rails = NVL72_RAILS;
    return 0;
}

/* Without `kind`, a nested block (`ring: {...}`) names the kind. */
static int topo_infer(struct schema_ctx *c, const struct yaml_node *map,
                      const struct yaml_node *here, void *obj) {
    (void)here;
    struct topo_params *t = obj;
    int kind = -1;
    for (int k = 0; TOPO_NAMES[k]; k++) {
        const struct yaml_node *key = key_node(map, TOPO_NAMES[k]);
        if (!key) continue;
        if (kind >= 0)
            return schema_fail(c, key, FS_EINVAL,
                               "both '%s:' and '%s:' blocks; a topology has one kind",
                               TOPO_NAMES[kind], TOPO_NAMES[k]);
        kind = k;
    }
    if (kind < 0) return 0;
    t->kind = (enum topo_kind)kind;
    return 1;
}

static int topo_check(struct schema_ctx *c, const struct yaml_node *map,
                      const struct yaml_node *here, void *obj) {
    if (((struct topo_params *)obj)->kind == TOPO_FILE) {
        int rc = topo_file_check(c, map, here, obj);
        if (rc) return rc;
    }
    if (((struct topo_params *)obj)->kind == TOPO_NVL72) {
        int rc = nvl72_check(c, map, obj);
        if (rc) return rc;
    }
    const struct topo_params *t = obj;
    const struct yaml_node *block = yaml_map_get(map, TOPO_NAMES[t->kind]);
    for (size_t i = 0; block && block->type == YAML_MAP && i < block->npairs; i++) {
        const struct yaml_node *k = block->pairs[i].key;
        if (k->type == YAML_SCALAR && yaml_map_get(map, k->text))
            return schema_fail(c, k, FS_EINVAL,
                               "'%s' is given twice: directly under topology and in its '%s:' "
                               "block",
                               k->text, TOPO_NAMES[t->kind]);
    }
    const struct yaml_node *hpl = yaml_map_get(block, "hosts_per_leaf");
    if (t->kind == TOPO_LEAF_SPINE && !t->hosts_per_leaf)
        return schema_fail(c, hpl ? hpl : at(map, here, "hosts_per_leaf"), FS_EINVAL,
                           "hosts_per_leaf must be at least 1 in a leaf_spine");
    const struct yaml_node *kpos = yaml_map_get(block, "k");
    if (t->kind == TOPO_FAT_TREE && t->k % 2)
        return schema_fail(c, kpos ? kpos : at(map, here, "k"), FS_EINVAL,
                           "k must be even, got %u: a k-ary fat tree splits each switch's k "
                           "ports into k/2 down and k/2 up",
                           t->k);
    uint32_t hosts = scenario_host_count(t);
    if (hosts > MAX_HOSTS)
        return schema_fail(
            c, here, FS_ERANGE, "this %s has %u%s hosts; at most %u (1<<20) are supported",
            TOPO_NAMES[t->kind], hosts, hosts == UINT32_MAX ? " or more" : "", MAX_HOSTS);
    uint64_t tier = t->kind == TOPO_LEAF_SPINE
                        ? (uint64_t)t->leaves * t->spines * t->uplinks_per_spine
                    : t->kind == TOPO_RAIL_OPTIMIZED || t->kind == TOPO_NVL72
                        ? (uint64_t)(t->rails ? t->rails : t->gpus_per_host) * t->spines *
                              t->uplinks_per_spine * topo_rail_groups(t)
                        : 0;
    if (tier > MAX_TIER_LINKS)
        return schema_fail(
            c, here, FS_ERANGE, "this %s has %llu leaf-spine links; at most %llu are supported",
            TOPO_NAMES[t->kind], (unsigned long long)tier, (unsigned long long)MAX_TIER_LINKS);
    return 0;
}

static const struct schema_key TOPO_KEYS[] = {
    {KEY("kind", SCHEMA_ENUM, TOP(kind), "leaf_spine", NULL, "SPEC.md example"),
     .flags = SCHEMA_SELECTOR, .names = TOPO_NAMES},
    K_LEAVES,
    K_SPINES,
    K_HOSTS_PER_LEAF,
    K_UPLINKS,
    K_K,
    K_SWITCHES,
    K_HOSTS_PER_SWITCH,
    K_HOSTS,
    K_RACKS,
    K_RAILS,
    K_GPUS,
    {KEY("nvlink", SCHEMA_RATE, TOP(nvlink_bps), "3600Gbps", NULL,
         "docs/sources.md A8: NVLink 4, 450 GB/s per direction per GPU"),
     .min = 1},
    {KEY("path", SCHEMA_CUSTOM, 0, NULL, NULL, NULL), .flags = SCHEMA_REQUIRED,
     .only = M(TOPO_FILE), .parse = topo_path_parse, .print = topo_path_print},
    {KEY("format", SCHEMA_ENUM, TOP(file_format), "auto", NULL,
         "docs/inputs.md: by the file's name and content"),
     .only = M(TOPO_FILE), .names = TFILE_FORMATS},
    {KEY("group", SCHEMA_ENUM, TOP(file_group), "server", NULL,
         "docs/inputs.md: an HCA's node description is \"<host> <device>\" (rdma-ndd's default "
         "%h %d), so a server's HCAs are one host"),
     .only = M(TOPO_FILE), .names = TFILE_GROUPS},
    {KEY("rates", SCHEMA_CUSTOM, 0, "file", NULL, "docs/inputs.md: each link's rate from the file"),
     .only = M(TOPO_FILE), .parse = topo_rates_parse, .print = topo_rates_print},
    {KEY("nvlink_efficiency", SCHEMA_FRACTION_POS, TOP(nvlink_efficiency), "0.83", NULL,
         "docs/validation.md: NCCL gets ~370 of 450 GB/s (protocol overhead ~20%; "
         "nccl-tests issue 212, nccl issue 2140)")},
    {KEY("nvls_efficiency", SCHEMA_FRACTION_POS, TOP(nvls_efficiency), "0.705", NULL,
         "docs/validation.md G2 (fitted): NVLS moves S(1+1/n) per GPU each way at ~309 of "
         "450 GB/s (algbw ~275 on 8xH100, nccl-tests issue 212, nccl issue 2140)")},
    {KEY("nvls_rate", SCHEMA_RATE, TOP(nvls_rate_bps), "0", NULL,
         "docs/model.md: 0 = the NVSwitch's reduction is not the limit (nccl issue 1455: "
         "NVLS algbw grows with the GPU count, so the per-GPU NVLink traffic is)")},
    {KEY("single_switch", SCHEMA_MAP, 0, NULL, NULL, NULL), .flags = SCHEMA_ALIAS,
     .only = M(TOPO_SINGLE_SWITCH), .sub = &SS_BLOCK},
    {KEY("leaf_spine", SCHEMA_MAP, 0, NULL, NULL, NULL), .flags = SCHEMA_ALIAS,
     .only = M(TOPO_LEAF_SPINE), .sub = &LS_BLOCK},
    {KEY("fat_tree", SCHEMA_MAP, 0, NULL, NULL, NULL), .flags = SCHEMA_ALIAS,
     .only = M(TOPO_FAT_TREE), .sub = &FT_BLOCK},
    {KEY("ring", SCHEMA_MAP, 0, NULL, NULL, NULL), .flags = SCHEMA_ALIAS, .only = M(TOPO_RING),
     .sub = &RING_BLOCK},
    {KEY("rail_optimized", SCHEMA_MAP, 0, NULL, NULL, NULL), .flags = SCHEMA_ALIAS,
     .only = M(TOPO_RAIL_OPTIMIZED), .sub = &RAIL_BLOCK},
    {KEY("nvl72", SCHEMA_MAP, 0, NULL, NULL, NULL), .flags = SCHEMA_ALIAS, .only = M(TOPO_NVL72),
     .sub = &NVL_BLOCK},
};
const struct schema_table SCHEMA_TOPOLOGY = {
    TABLE("topology", TOPO_KEYS),
    .mode_of = topo_mode,
    .mode_what = "topology kind",
    .mode_names = TOPO_NAMES,
    .alt_modes = M(TOPO_RAIL_OPTIMIZED),
    .infer = topo_infer,
    .check = topo_check,
};

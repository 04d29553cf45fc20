/* src/config/scenario.c
 *
 * The scenario schema of SPEC.md as tables, one row per key, with every
 * default and its source, and the rules that tie keys together, one file per
 * section (config/scenario_int.h lists them); here: the top level, `output:`
 * and the loader.
 *
 * How to add a key:
 *  1. Add the field to its struct, unit in the name: what the model reads is
 *     in the model's own headers (net/params.h, cc/cc.h, ...; docs/model.md
 *     "Layout"), the rest in config/scenario.h.
 *  2. Add one row to the table of the mapping it belongs to (FABRIC_KEYS in
 *     scenario_fabric.c, PFC_KEYS in scenario_congestion.c, TOPO_KEYS in
 *     scenario_topology.c, WORKLOAD_KEYS in scenario_workload.c, ...):
 *       {KEY("name", SCHEMA_TIME, FAB(field_ps), "IB default", "RoCE default",
 *            "docs/sources.md A6: where the default comes from"), .min = 1},
 *     Defaults are spelled as in a scenario file and read by the same code
 *     (NULL def_alt = same in every mode). SCHEMA_REQUIRED when there is no
 *     sensible default; `.only` when the key belongs to some kinds.
 *  3. A value that is not one scalar of a schema type: SCHEMA_CUSTOM with a
 *     parse and a print function (see senders, ranks in scenario_workload.c).
 *  4. A rule between keys goes in the table's check function.
 *  5. A string or array field: free it in scenario_fini.
 * Unknown-key messages, "did you mean", --set and explain follow the tables.
 */
#include "config/scenario.h"

#include "config/limits.h"
#include "config/scenario_int.h"

#include "config/schema.h"
#include "config/yaml.h"
#include "cc/cc.h"
#include "core/mem.h"
#include "net/net.h"
#include "config/tfile_yaml.h"
#include "topo/topo.h"

#include <stdlib.h>
#include <string.h>

/* SCHEMA_ENUM stores through an int lvalue. */
_Static_assert(sizeof(enum fabric_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum topo_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum wl_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum coll_algo) == sizeof(int), "enum size");
_Static_assert(sizeof(enum dcqcn_preset) == sizeof(int), "enum size");
_Static_assert(sizeof(enum coll_proto) == sizeof(int), "enum size");

uint32_t scenario_host_count(const struct topo_params *t) {
    return topo_host_count(t);
}

/* A path in the scenario is relative to the scenario file's folder; kept
 * absolute when it exists, so that `validate --explain` prints a path that
 * reads back from anywhere. */
char *scenario_path_near(const char *scenario_file, const char *p) {
    const char *slash = strrchr(scenario_file, '/');
    char *r;
    if (p[0] == '/' || !slash) {
        r = fs_xstrdup(p);
    } else {
        size_t dl = (size_t)(slash - scenario_file) + 1, pl = strlen(p);
        r = fs_xmalloc(dl + pl + 1);
        memcpy(r, scenario_file, dl);
        memcpy(r + dl, p, pl + 1);
    }
    char *abs = realpath(r, NULL);
    if (!abs) return r;
    free(r);
    return abs;
}

/* output ------------------------------------------------------------------ */

#define OUT(f) offsetof(struct output_params, f)
static const struct schema_key OUTPUT_KEYS[] = {
    {KEY("sample", SCHEMA_TIME, OUT(sample_ps), "0", NULL,
         "fabsim: 0 = automatic, 1 us doubling, 32-64 links.csv rows per link")},
};
static const struct schema_table OUTPUT = {TABLE("output", OUTPUT_KEYS)};

/* the scenario ------------------------------------------------------------ */

/* The name becomes a folder under out/, so it must be one path component. */
static int name_parse(struct schema_ctx *c, const struct yaml_node *n, void *obj) {
    struct scenario *sc = obj;
    const char *s;
    int rc = schema_text(c, n, "a name such as incast-ib", &s);
    if (rc) return rc;
    bool ok = s[0] && strcmp(s, ".") && strcmp(s, "..") && strlen(s) <= 200;
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == '/' || *p == '\\' || *p == 0x7f) ok = false;
    if (!ok)
        return schema_fail(c, n, FS_EINVAL,
                           "'%.64s' cannot be a name: it names the output folder, so it must be "
                           "1-200 characters without '/', '\\' or control characters",
                           s);
    free(sc->name);
    sc->name = fs_xstrdup(s);
    return 0;
}

static void name_print(FILE *f, const void *obj, const struct scenario *sc) {
    (void)sc;
    print_string(f, ((const struct scenario *)obj)->name);
}

/* SPEC.md: the name defaults to the file's name without .yaml or .yml. */
static int scenario_check(struct schema_ctx *c, const struct yaml_node *map,
                          const struct yaml_node *here, void *obj) {
    (void)map, (void)here;
    struct scenario *sc = obj;
    if (sc->name) return 0;
    const char *base = strrchr(c->file, '/');
    base = base ? base + 1 : c->file;
    size_t len = strlen(base);
    if (len > 5 && !strcmp(base + len - 5, ".yaml"))
        len -= 5;
    else if (len > 4 && !strcmp(base + len - 4, ".yml"))
        len -= 4;
    /* "...yaml" would name the folder ".." (the working directory's parent
     * under out/, the working directory itself with -o out/..). */
    if (len == 0 || (len <= 2 && !strncmp(base, "..", len))) {
        sc->name = fs_xstrdup("scenario");
        return 0;
    }
    sc->name = fs_xmalloc(len + 1);
    memcpy(sc->name, base, len);
    sc->name[len] = 0;
    return 0;
}

#define SCN(f) offsetof(struct scenario, f)
static const struct schema_key SCENARIO_KEYS[] = {
    {KEY("name", SCHEMA_CUSTOM, 0, NULL, NULL, "SPEC.md: the file name without .yaml"),
     .parse = name_parse, .print = name_print},
    {KEY("seed", SCHEMA_U64, SCN(seed), "1", NULL, "SPEC.md example")},
    {KEY("stop", SCHEMA_TIME, SCN(stop_ps), "0", NULL,
         "SPEC.md: 0 = until the workload completes (capped at 1 s)")},
    {KEY("fabric", SCHEMA_MAP, SCN(fabric), NULL, NULL, NULL), .sub = &SCHEMA_FABRIC},
    {KEY("topology", SCHEMA_MAP, SCN(topo), NULL, NULL, NULL), .sub = &SCHEMA_TOPOLOGY},
    {KEY("workload", SCHEMA_LIST, SCN(workload), NULL, NULL, "SPEC.md: no traffic"),
     .sub = &SCHEMA_WORKLOAD, .off_n = SCN(nworkload), .elem_size = sizeof(struct wl_entry)},
    {KEY("events", SCHEMA_LIST, SCN(events), NULL, NULL, "none"), .sub = &SCHEMA_EVENTS,
     .off_n = SCN(nevents), .elem_size = sizeof(struct sc_event)},
    {KEY("output", SCHEMA_MAP, SCN(output), NULL, NULL, NULL), .sub = &OUTPUT},
};
const struct schema_table SCHEMA_SCENARIO = {TABLE("scenario", SCENARIO_KEYS),
                                             .check = scenario_check};

/* loading ----------------------------------------------------------------- */

static int load(struct scenario *sc, struct yaml_doc *doc, const char *const *sets, size_t nsets,
                struct diag *d) {
    int rc = 0;
    if (!doc->root || yaml_is_null(doc->root))
        rc = diag_set(d, sc->file, (struct srcpos){1, 1}, FS_EINVAL,
                      "empty scenario file; expected a mapping with at least one key such as "
                      "'topology:' or 'workload:' (write '{}' to take every default)");
    for (size_t i = 0; !rc && i < nsets; i++)
        rc = yaml_set(doc, sets[i], (unsigned)(i + 1), d);
    if (!rc && doc->root->type != YAML_MAP)
        rc = diag_set(d, doc->root->file, doc->root->pos, FS_EINVAL,
                      "a scenario is a mapping of keys (name, seed, stop, fabric, topology, "
                      "workload, events, output), got %s",
                      yaml_describe(doc->root));
    if (!rc) {
        struct schema_ctx c;
        memset(&c, 0, sizeof c);
        c.d = d;
        c.sc = sc;
        c.topo = &sc->topo;
        c.file = sc->file;
        rc = schema_read(&c, &SCHEMA_SCENARIO, doc->root, sc, false, doc->root);
    }
    if (!rc) rc = scenario_check_limits(sc, d); /* config/limits.h */
    yaml_doc_fini(doc);
    if (rc) scenario_fini(sc);
    return rc;
}

int scenario_load(struct scenario *sc, const char *path, const char *const *sets, size_t nsets,
                  struct diag *d) {
    memset(sc, 0, sizeof *sc);
    if (d) memset(d, 0, sizeof *d);
    struct yaml_doc doc;
    int rc = yaml_load_file(&doc, path, d);
    if (rc) return rc;
    sc->file = fs_xstrdup(path);
    return load(sc, &doc, sets, nsets, d);
}

int scenario_load_string(struct scenario *sc, const char *text, const char *name_for_errors,
                         const char *const *sets, size_t nsets, struct diag *d) {
    memset(sc, 0, sizeof *sc);
    if (d) memset(d, 0, sizeof *d);
    const char *name = name_for_errors ? name_for_errors : "<string>";
    struct yaml_doc doc;
    int rc = yaml_load_string(&doc, text ? text : "", text ? strlen(text) : 0, name, d);
    if (rc) return rc;
    sc->file = fs_xstrdup(name);
    return load(sc, &doc, sets, nsets, d);
}

void scenario_fini(struct scenario *sc) {
    for (size_t i = 0; i < sc->nworkload; i++) {
        struct wl_entry *w = &sc->workload[i];
        free(w->flows);
        free(w->senders);
        free(w->sizes);
        free(w->ranks);
        free(w->path);
    }
    free(sc->workload);
    for (size_t i = 0; i < sc->nevents; i++)
        free(sc->events[i].target);
    free(sc->events);
    free(sc->fabric.lft_file);
    free(sc->topo.file_path);
    if (sc->topo.file) tfile_free(sc->topo.file);
    free(sc->topo.file);
    free(sc->name);
    free(sc->file);
    memset(sc, 0, sizeof *sc);
}

/* src/cli/labs.c
 *
 * `fabsim labs`: every run of every course lab (scenarios/labs/<lab>/, its
 * lab.yaml's `runs:` or its NN-*.yaml files) as one batch (cli/batch.h)
 * into DIR/<lab>/<run>/, the labs' texts beside them, then report.html.
 */
#include "cli/batch.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "config/scenario.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"
#include "report/lab.h"
#include "report/report.h"
#include "stats/results.h"
#include "core/wall.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "# label: ..." from a scenario file's comments (or NULL). */
static char *file_label(const char *text) {
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, "# label:", 8)) continue;
        p += 8;
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, "\r\n");
        char *v = fs_xmalloc(len + 1);
        memcpy(v, p, len);
        v[len] = 0;
        return v;
    }
    return NULL;
}

/* Output folders of scenarios that no longer exist in the lab (renamed or
 * removed) would still show in the report: remove them. Only folders holding
 * a status.json (written by a run) are touched, and only their files; a link
 * is removed itself, never followed (core/file.h fs_remove_run_dir). */
static void remove_stale(const char *out, const char *lab, char *const *keep, size_t nkeep) {
    char dir[PATH_MAX], p[PATH_MAX * 2];
    snprintf(dir, sizeof dir, "%s/%s", out, lab);
    size_t n;
    char **sub = batch_list_dir(dir, true, NULL, &n);
    for (size_t i = 0; i < n; i++) {
        bool exists = false;
        for (size_t k = 0; k < nkeep; k++)
            exists = exists || !strcmp(keep[k], sub[i]);
        snprintf(p, sizeof p, "%s/%s", dir, sub[i]);
        if (!exists) fs_remove_run_dir(p);
        free(sub[i]);
    }
    free(sub);
}

/* `rel` (scenarios/labs, docs/labs) under $FABSIM_DATA_DIR, in the working
 * folder, above the binary (a source tree), or in PREFIX/share/fabsim of an
 * installed binary (PREFIX/bin/fabsim; `make install`). */
static int find_repo_dir(const char *rel, char *out, size_t len) {
    char path[PATH_MAX + 64];
    const char *env = getenv("FABSIM_DATA_DIR");
    if (env && *env) {
        snprintf(path, sizeof path, "%s/%s", env, rel);
        if (batch_is_dir(path) && snprintf(out, len, "%s", path) < (int)len) return 0;
    }
    if (batch_is_dir(rel)) {
        snprintf(out, len, "%s", rel);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) {
        snprintf(path, sizeof path, "%.*s/../share/fabsim/%s", (int)(slash - exe), exe, rel);
        if (batch_is_dir(path) && snprintf(out, len, "%s", path) < (int)len) return 0;
    }
    for (int up = 0; up < 5; up++) {
        slash = strrchr(exe, '/');
        if (!slash) break;
        *slash = 0;
        snprintf(path, sizeof path, "%s/%s", exe, rel);
        if (batch_is_dir(path) && snprintf(out, len, "%s", path) < (int)len) return 0;
    }
    return -1;
}

static bool only_match(const char *const *only, size_t nonly, const char *lab, const char *id) {
    if (!nonly) return true;
    for (size_t i = 0; i < nonly; i++) {
        size_t l = strlen(lab);
        if (!strcmp(only[i], lab)) return true;
        /* LAB/RUN, where RUN may be a shell pattern ('lossless/victim-*'). */
        if (!strncmp(only[i], lab, l) && only[i][l] == '/' && lab_run_matches(only[i] + l + 1, id))
            return true;
    }
    return false;
}

enum { OPT_ONLY = CLI_LONG, OPT_LABS_DIR, OPT_DOCS_DIR, OPT_PROGRESS, OPT_NO_READINGS };

static const struct cli_opt LABS_OPTS[] = {
    {"out", 'o', "DIR", "output folder (default: out/labs)"},
    {"jobs", 'j', "N", "scenarios run in parallel (default: the CPUs, at most 8)"},
    {"only", OPT_ONLY, "LAB[/RUN]",
     "run only this lab or run (repeatable); the lab's other runs show \"not run\""},
    {"set", 's', "KEY=VALUE", "re-run the labs with this change to every scenario (repeatable)"},
    {"labs-dir", OPT_LABS_DIR, "DIR",
     "the labs' scenarios (default: scenarios/labs here, in the source\n"
     "tree or in PREFIX/share/fabsim; $FABSIM_DATA_DIR/scenarios/labs)"},
    {"docs-dir", OPT_DOCS_DIR, "DIR", "the labs' texts (default: docs/labs, found likewise)"},
    {"no-readings", OPT_NO_READINGS, NULL,
     "skip the labs' readings (lab.yaml `readings:`: the runs again under other\n"
     "values of an unsourced default, to tell whether a verdict depends on it)"},
    {"quiet", 'q', NULL, "print nothing but errors"},
    {"progress", OPT_PROGRESS, NULL,
     "one plain line per finished scenario, also when stderr is not a terminal"},
    {0},
};

const struct cli_cmd CLI_CMD_LABS = {
    "labs",
    "",
    "run every course lab and write report.html",
    "Runs every run of scenarios/labs/<lab>/ (lab.yaml's `runs:`, or its NN-*.yaml files) in\n"
    "a child process (-j at a time), writes DIR/<lab>/<run>/{status.json,results.json,\n"
    "links.csv}, DIR/findings.json, DIR/verdicts.json and DIR/report.html (self-contained:\n"
    "the chart library is inlined), and prints each lab's claim, verdict and findings,\n"
    "computed from the runs by the rules in its lab.yaml (docs/labs/README.md). A\n"
    "malformed lab.yaml is exit 2 before anything runs. A run whose mechanism is missing\n"
    "shows as \"not yet available\". Exits 1 if a run failed.",
    LABS_OPTS,
    "fabsim labs -o out/labs -j 2 --only lossless\n"
    "fabsim labs --only load_balancing --set seed=2 -o out/labs-seed2",
    cli_labs,
};

/* One run of a lab: the folder name under OUT/<lab>/ ("NN-id"), its id, the
 * scenario file and the run's own --set overrides. */
struct lab_item {
    char *folder, *id, *file, *label;
    char **sets;
    size_t nsets;
};

/* The runs of the lab in lroot/lab: lab.yaml's `runs:` when it has them,
 * otherwise every NN-name.yaml of the folder. */
static struct lab_item *lab_items(const char *lroot, const char *lab, const struct lab_def *def,
                                  size_t *n) {
    char path[PATH_MAX * 2];
    struct lab_item *v = NULL;
    *n = 0;
    if (def && def->nruns) {
        v = fs_xcalloc(def->nruns, sizeof *v);
        for (size_t i = 0; i < def->nruns; i++) {
            char folder[300];
            snprintf(folder, sizeof folder, "%02zu-%s", i + 1, def->runs[i].id);
            v[i].folder = fs_xstrdup(folder);
            v[i].id = fs_xstrdup(def->runs[i].id);
            snprintf(path, sizeof path, "%s/%s/%s", lroot, lab, def->runs[i].file);
            v[i].file = fs_xstrdup(path);
            v[i].label = def->runs[i].label ? fs_xstrdup(def->runs[i].label) : NULL;
            v[i].sets = def->runs[i].sets;
            v[i].nsets = def->runs[i].nsets;
        }
        *n = def->nruns;
        return v;
    }
    snprintf(path, sizeof path, "%s/%s", lroot, lab);
    size_t nf;
    char **files = batch_list_dir(path, false, ".yaml", &nf);
    v = fs_xcalloc(nf + 1, sizeof *v);
    for (size_t k = 0; k < nf; k++) {
        const char *stem = files[k];
        if (!strcmp(stem, "lab.yaml")) {
            free(files[k]);
            continue;
        }
        /* "03-incast-roce.yaml" -> "incast-roce": the prefix only orders. */
        if (stem[0] >= '0' && stem[0] <= '9' && stem[1] >= '0' && stem[1] <= '9' && stem[2] == '-')
            stem += 3;
        struct lab_item *it = &v[(*n)++];
        char id[256];
        snprintf(id, sizeof id, "%.*s", (int)(strlen(stem) - 5), stem);
        it->id = fs_xstrdup(id);
        snprintf(id, sizeof id, "%.*s", (int)strlen(files[k]) - 5, files[k]);
        it->folder = fs_xstrdup(id);
        snprintf(path, sizeof path, "%s/%s/%s", lroot, lab, files[k]);
        it->file = fs_xstrdup(path);
        free(files[k]);
    }
    free(files);
    return v;
}

static void free_items(struct lab_item *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        free(v[i].folder), free(v[i].id), free(v[i].file), free(v[i].label);
    free(v);
}

/* labs --set seed=S: a lab that averages seeds gives its runs their own
 * seeds (lab.yaml `set: [seed=2]`), which a plain override would replace
 * by one seed for all, turning a mean over seeds into one sample. So S
 * shifts each run's seed instead: the run whose own seed is k (its file's
 * and its lab.yaml sets') runs with S + k - 1. A lab whose runs all keep
 * seed 1 runs with S, as before; seed=1 changes nothing. Writes the run's
 * "seed=N" into buf and returns it, or returns `set` when it is not a
 * plain seed=S or the run's own seed cannot be read (its run reports why). */
static const char *item_seed_set(const struct lab_item *it, const char *set, char *buf,
                                 size_t cap) {
    if (strncmp(set, "seed=", 5) || !set[5]) return set;
    char *end;
    errno = 0;
    unsigned long long s = strtoull(set + 5, &end, 10);
    if (*end || errno || set[5] == '-' || !s) return set;
    struct scenario sc;
    struct diag d = {0};
    if (scenario_load(&sc, it->file, (const char **)it->sets, it->nsets, &d)) return set;
    unsigned long long own = sc.seed;
    scenario_fini(&sc);
    if (own == 1 || own > UINT64_MAX - s + 1) return set;
    snprintf(buf, cap, "seed=%llu", s + own - 1);
    return buf;
}

/* A job's sets that point at item_seed_set's buffer get their own copy. */
static void job_keep_seed(struct batch_job *j, const char *buf) {
    for (size_t q = 0; q < j->nsets; q++)
        if (j->sets[q] == buf) {
            if (!j->seed_set) j->seed_set = fs_xstrdup(buf);
            j->sets[q] = j->seed_set;
        }
}

/* 0 when run `it` of a lab loads with the labs --set changes; else its
 * error in `d` (when it is one of those changes: a bad value, an unknown
 * key) and FS_EINVAL, or 1 (another error: the run itself reports it). */
static int item_takes_sets(const struct lab_item *it, const char **gsets, size_t ngsets,
                           struct diag *d) {
    const char **sets = fs_xcalloc(it->nsets + ngsets + 1, sizeof *sets);
    size_t n = 0;
    for (size_t q = 0; q < it->nsets; q++)
        sets[n++] = it->sets[q];
    char seed[32];
    for (size_t q = 0; q < ngsets; q++)
        sets[n++] = item_seed_set(it, gsets[q], seed, sizeof seed);
    struct scenario sc;
    int rc = scenario_load(&sc, it->file, sets, n, d);
    free(sets);
    if (!rc) {
        scenario_fini(&sc);
        return 0;
    }
    return !strcmp(d->file, "--set") && d->line > it->nsets ? FS_EINVAL : 1;
}

/* labs --set: a change that no selected run takes (a bad value, an unknown
 * key) is bad input, exit 2 with its message before anything is written or
 * run, as compare and sweep do; one that only some runs take leaves the
 * others "not run" (child_run). */
static int check_labs_sets(const char *lroot, char **labs, size_t nl, const struct lab_def *defs,
                           const bool *has_def, const char *const *only, size_t nonly,
                           const char **gsets, size_t ngsets) {
    struct diag first = {0};
    bool have = false, any_ok = false;
    for (size_t i = 0; i < nl && !any_ok; i++) {
        size_t ni;
        struct lab_item *items = lab_items(lroot, labs[i], has_def[i] ? &defs[i] : NULL, &ni);
        for (size_t k = 0; k < ni && !any_ok; k++) {
            if (!only_match(only, nonly, labs[i], items[k].id)) continue;
            struct diag d = {0};
            int rc = item_takes_sets(&items[k], gsets, ngsets, &d);
            any_ok = rc == 0;
            if (rc == FS_EINVAL && !have) {
                first = d;
                have = true;
            }
        }
        free_items(items, ni);
    }
    if (any_ok || !have) return 0;
    diag_print(&first, stderr);
    return 2;
}

/* The lab's readings (lab.yaml `readings:`): every selected run again under
 * each reading's changes, into OUT/<lab>/readings/<id>/<NN-run>/. A change a
 * run does not take (a PFC key on an InfiniBand run) is left out of that run;
 * a run that takes none of them is not run again: the reading leaves it as it
 * is, so the report reads the run itself (report/report.c). With `off` (--no-readings) the
 * readings' earlier runs are removed, so that the report does not read stale ones. */
static void add_readings(struct batch *js, const char *out, const char *lab,
                         const struct lab_def *def, const struct lab_item *items, size_t ni,
                         const char *const *only, size_t nonly, const char **gsets, size_t ngsets,
                         bool off) {
    char path[PATH_MAX * 2], sub[PATH_MAX];
    char **folders = fs_xcalloc(ni + 1, sizeof *folders);
    for (size_t r = 0; r < def->nreadings; r++) {
        const struct lab_reading *rd = &def->readings[r];
        snprintf(sub, sizeof sub, "%s/readings/%s", lab, rd->id);
        size_t nkeep = 0;
        for (size_t k = 0; !off && k < ni; k++)
            if (only_match(only, nonly, lab, items[k].id)) folders[nkeep++] = items[k].folder;
        remove_stale(out, sub, folders, nkeep);
        for (size_t k = 0; !off && k < ni; k++) {
            if (!only_match(only, nonly, lab, items[k].id)) continue;
            snprintf(path, sizeof path, "%s/%s/%s", out, sub, items[k].folder);
            size_t n = 0, cap = items[k].nsets + rd->nsets + ngsets + 1;
            const char **sets = fs_xcalloc(cap, sizeof *sets);
            for (size_t q = 0; q < items[k].nsets; q++)
                sets[n++] = items[k].sets[q];
            for (size_t q = 0; q < rd->nsets; q++)
                sets[n++] = rd->sets[q];
            char seed[32];
            for (size_t q = 0; q < ngsets; q++)
                sets[n++] = item_seed_set(&items[k], gsets[q], seed, sizeof seed);
            /* A change of the reading this run does not take (a PFC key on
             * an InfiniBand run) is left out of its run, one at a time. */
            size_t taken = rd->nsets;
            for (;;) {
                struct scenario sc;
                struct diag d = {0};
                int rc = scenario_load(&sc, items[k].file, sets, n, &d);
                if (!rc) scenario_fini(&sc);
                if (rc != FS_EINVAL || strcmp(d.file, "--set") || d.line <= items[k].nsets ||
                    d.line > items[k].nsets + taken)
                    break;
                size_t at = d.line - 1;
                memmove(&sets[at], &sets[at + 1], (n - at - 1) * sizeof *sets);
                n--, taken--;
            }
            if (!taken) {
                fs_remove_run_dir(path); /* the reading does not apply: the run stands */
                free(sets);
                continue;
            }
            fs_unlink_symlink(path);
            results_mkdirs(path);
            struct batch_job *j = batch_add(js);
            j->lab = fs_xstrdup(lab);
            char id[600];
            snprintf(id, sizeof id, "%s@%s", items[k].id, rd->id);
            j->id = fs_xstrdup(id);
            j->file = fs_xstrdup(items[k].file);
            j->outdir = fs_xstrdup(path);
            char *text = fs_read_file(j->file, NULL);
            j->label = items[k].label ? fs_xstrdup(items[k].label) : text ? file_label(text) : NULL;
            free(text);
            j->own_sets = true;
            j->sets = sets;
            j->nsets = n;
            j->nlabsets = items[k].nsets + taken;
            job_keep_seed(j, seed);
        }
    }
    free(folders);
}

struct labs_opts {
    const char *out, *labs_dir, *docs_dir;
    const char **only, **gsets;
    size_t nonly, ngsets;
    int par;
    bool quiet, progress, no_readings;
};

static int labs_opt(void *ctx, int key, const char *arg) {
    struct labs_opts *o = ctx;
    switch (key) {
    case 'o':
        o->out = arg;
        return 0;
    case 'j':
        return batch_parse_jobs(arg, &o->par);
    case OPT_ONLY:
        o->only[o->nonly++] = arg;
        return 0;
    case 's':
        return cli_opt_set(o->gsets, &o->ngsets, arg, NULL);
    case OPT_LABS_DIR:
        o->labs_dir = arg;
        return 0;
    case OPT_DOCS_DIR:
        o->docs_dir = arg;
        return 0;
    case 'q':
        o->quiet = true;
        return 0;
    case OPT_PROGRESS:
        o->progress = true;
        return 0;
    case OPT_NO_READINGS:
        o->no_readings = true;
        return 0;
    }
    return cli_usage_error("internal: unhandled option %d", key);
}

int cli_labs(int argc, char **argv) {
    struct labs_opts o = {.out = "out/labs", .par = batch_default_jobs()};
    o.only = fs_xcalloc((size_t)argc + 1, sizeof *o.only);
    o.gsets = fs_xcalloc((size_t)argc + 1, sizeof *o.gsets);
    char **pos = fs_xcalloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    int prc = cli_parse(&CLI_CMD_LABS, argc, argv, labs_opt, &o, pos, &npos);
    if (!prc && npos)
        prc = cli_usage_error("labs: unexpected argument '%s' (fabsim labs --help)", pos[0]);
    free(pos);
    if (prc) {
        free(o.only), free(o.gsets);
        return prc == CLI_HELP ? 0 : prc;
    }
    const char *out = o.out, *labs_dir = o.labs_dir, *docs_dir = o.docs_dir;
    const char **only = o.only, **gsets = o.gsets;
    size_t nonly = o.nonly, ngsets = o.ngsets;
    int par = o.par;
    bool quiet = o.quiet;
    char lroot[PATH_MAX], droot[PATH_MAX];
    if (labs_dir)
        snprintf(lroot, sizeof lroot, "%s", labs_dir);
    else if (find_repo_dir("scenarios/labs", lroot, sizeof lroot)) {
        free(only), free(gsets);
        return cli_usage_error("labs: cannot find scenarios/labs (run from the fabsim folder or "
                               "pass --labs-dir)");
    }
    if (docs_dir)
        snprintf(droot, sizeof droot, "%s", docs_dir);
    else if (find_repo_dir("docs/labs", droot, sizeof droot))
        droot[0] = 0;

    struct batch js = {0};
    size_t nl;
    char **labs = batch_list_dir(lroot, true, NULL, &nl);
    char path[PATH_MAX * 2];
    struct lab_def *defs = fs_xcalloc(nl + 1, sizeof *defs);
    bool *has_def = fs_xcalloc(nl + 1, sizeof *has_def);
    int rc = 0;
    /* Every lab.yaml is checked before anything runs: a broken one is exit 2. */
    for (size_t i = 0; i < nl && !rc; i++) {
        snprintf(path, sizeof path, "%s/%s/lab.yaml", lroot, labs[i]);
        struct stat st;
        if (stat(path, &st)) continue;
        struct diag d = {0};
        if ((rc = lab_load(&defs[i], path, &d))) {
            diag_print(&d, stderr);
            lab_fini(&defs[i]);
            break;
        }
        has_def[i] = true;
        size_t ni;
        struct lab_item *items = lab_items(lroot, labs[i], &defs[i], &ni);
        char **ids = fs_xcalloc(ni + 1, sizeof *ids);
        for (size_t k = 0; k < ni; k++)
            ids[k] = items[k].id;
        if ((rc = lab_check_runs(&defs[i], ids, ni, &d))) diag_print(&d, stderr);
        free(ids);
        free_items(items, ni);
    }
    if (!rc && ngsets)
        rc = check_labs_sets(lroot, labs, nl, defs, has_def, only, nonly, gsets, ngsets);
    for (size_t i = 0; i < nl && !rc; i++) {
        size_t ni;
        struct lab_item *items = lab_items(lroot, labs[i], has_def[i] ? &defs[i] : NULL, &ni);
        bool any = false;
        for (size_t k = 0; k < ni; k++)
            any = any || only_match(only, nonly, labs[i], items[k].id);
        char **folders = fs_xcalloc(ni + 1, sizeof *folders);
        for (size_t k = 0; any && k < ni; k++) {
            folders[k] = items[k].folder;
            snprintf(path, sizeof path, "%s/%s/%s", out, labs[i], items[k].folder);
            if (!only_match(only, nonly, labs[i], items[k].id)) {
                /* Left out by --only: say so rather than show an older run. */
                fs_unlink_symlink(path);
                results_mkdirs(path);
                static const char *const gone[] = {"results.json", "links.csv", "status.json"};
                for (size_t g = 0; g < 3; g++) {
                    char f[PATH_MAX * 2 + 32];
                    snprintf(f, sizeof f, "%s/%s", path, gone[g]);
                    unlink(f);
                }
                batch_write_status(path, REPORT_NOT_RUN, "not run (left out by --only)",
                                   items[k].label, 0);
                continue;
            }
            struct batch_job *j = batch_add(&js);
            j->lab = fs_xstrdup(labs[i]);
            j->id = fs_xstrdup(items[k].id);
            j->file = fs_xstrdup(items[k].file);
            j->outdir = fs_xstrdup(path);
            char *text = fs_read_file(j->file, NULL);
            j->label = items[k].label ? fs_xstrdup(items[k].label) : text ? file_label(text) : NULL;
            free(text);
            if (items[k].nsets || ngsets) {
                j->own_sets = true;
                j->sets = fs_xcalloc(items[k].nsets + ngsets + 1, sizeof *j->sets);
                for (size_t q = 0; q < items[k].nsets; q++)
                    j->sets[j->nsets++] = items[k].sets[q];
                j->nlabsets = items[k].nsets;
                char seed[32];
                for (size_t q = 0; q < ngsets; q++)
                    j->sets[j->nsets++] = item_seed_set(&items[k], gsets[q], seed, sizeof seed);
                job_keep_seed(j, seed);
            }
        }
        if (any) {
            snprintf(path, sizeof path, "%s/%s", out, labs[i]);
            fs_unlink_symlink(path);
            results_mkdirs(path);
            remove_stale(out, labs[i], folders, ni);
            if (has_def[i] && defs[i].nreadings)
                add_readings(&js, out, labs[i], &defs[i], items, ni, only, nonly, gsets, ngsets,
                             o.no_readings);
            char src[PATH_MAX + 300], dst[PATH_MAX + 300];
            snprintf(src, sizeof src, "%s/%s.md", droot, labs[i]);
            snprintf(dst, sizeof dst, "%s/%s/lab.md", out, labs[i]);
            char *md = droot[0] ? fs_read_file(src, NULL) : NULL;
            if (md) {
                batch_write_text(dst, md);
                free(md);
            }
            snprintf(src, sizeof src, "%s/%s/lab.yaml", lroot, labs[i]);
            snprintf(dst, sizeof dst, "%s/%s/lab.yaml", out, labs[i]);
            char *y = has_def[i] ? fs_read_file(src, NULL) : NULL;
            if (y) {
                batch_write_text(dst, y);
                free(y);
            } else {
                unlink(dst);
            }
        }
        free(folders);
        free_items(items, ni);
    }
    /* Sets of the runs point into defs: the jobs are run before they go. */
    if (rc) {
        for (size_t i = 0; i < nl; i++) {
            if (has_def[i]) lab_fini(&defs[i]);
            free(labs[i]);
        }
        free(labs), free(defs), free(has_def), free(only), free(gsets);
        batch_free(&js);
        return 2;
    }
    free(only);
    if (!js.n) {
        batch_free(&js);
        for (size_t i = 0; i < nl; i++) {
            if (has_def[i]) lab_fini(&defs[i]);
            free(labs[i]);
        }
        free(labs), free(defs), free(has_def), free(gsets);
        return cli_usage_error("labs: no scenario matched (looked in %s)", lroot);
    }
    if (results_mkdirs(out)) {
        batch_free(&js);
        return cli_usage_error("labs: cannot create %s: %s", out, strerror(errno));
    }
    snprintf(path, sizeof path, "%s/mode", out);
    batch_write_text(path, "labs\n");
    snprintf(path, sizeof path, "%s/sets", out);
    if (ngsets) {
        struct fs_out so; /* core/file.h: atomic, never through a symlink */
        if (!fs_out_open(&so, path)) {
            for (size_t q = 0; q < ngsets; q++)
                fprintf(so.f, "%s\n", gsets[q]);
            fs_out_commit(&so);
        }
    } else {
        unlink(path);
    }
    size_t counts[3];
    double t0 = wall_now_s();
    if (!quiet)
        fprintf(stderr, "fabsim labs: %zu scenarios, %d at a time%s\n", js.n, par,
                ngsets ? " (with --set changes)" : "");
    batch_run(&js, par, batch_show_mode(quiet, o.progress), counts);
    if (!quiet) {
        printf("fabsim labs: %zu ran, %zu not yet available, %zu failed, in %.0f s\n", counts[0],
               counts[1], counts[2], wall_now_s() - t0);
        for (size_t i = 0; i < js.n; i++)
            if (js.v[i].status == 2)
                printf("  FAILED %s/%s (see %s/status.json)\n", js.v[i].lab, js.v[i].id,
                       js.v[i].outdir);
    }
    rc = batch_report(out, quiet);
    if (!rc && !quiet) printf("\nReport: %s/report.html\n", out);
    batch_free(&js);
    for (size_t i = 0; i < nl; i++) {
        if (has_def[i]) lab_fini(&defs[i]);
        free(labs[i]);
    }
    free(labs), free(defs), free(has_def), free(gsets);
    return batch_status("labs", rc, counts);
}

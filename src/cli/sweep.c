/* src/cli/sweep.c
 *
 * `fabsim sweep`: the cartesian product of --set values over one scenario
 * as one batch (cli/batch.h) into DIR/sweep/<run>/, one row per run in
 * DIR/sweep.csv, and report.html.
 */
#include "cli/batch.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "coll/nccllog.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"
#include "report/jread.h"
#include "stats/results.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t split_values(char *s, char **out, size_t max) {
    size_t n = 0;
    int depth = 0;
    char quote = 0;
    out[n++] = s;
    for (char *p = s; *p; p++) {
        if (quote) {
            if (*p == quote) quote = 0;
        } else if (*p == '"' || *p == '\'') {
            quote = *p;
        } else if (*p == '[' || *p == '{') {
            depth++;
        } else if ((*p == ']' || *p == '}') && depth) {
            depth--;
        } else if (*p == ',' && !depth) {
            if (n == max) return max + 1;
            *p = 0;
            out[n++] = p + 1;
        }
    }
    return n;
}

static void csv_field(FILE *f, const char *s) {
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

enum { OPT_SWEEP_PROGRESS = CLI_LONG, OPT_SWEEP_AGAINST };

static const struct cli_opt SWEEP_OPTS[] = {
    {"set", 's', "KEY=V1,V2,...",
     "sweep KEY over the values (repeatable: the runs are the cartesian\n"
     "product); commas inside [ ] or { } do not split; one value = fixed"},
    {"out", 'o', "DIR", "output folder (default: out/sweep)"},
    {"jobs", 'j', "N", "runs in parallel (default: the CPUs, at most 8)"},
    {"quiet", 'q', NULL, "print nothing but errors"},
    {"progress", OPT_SWEEP_PROGRESS, NULL,
     "one plain line per finished run, also when stderr is not a terminal"},
    {"against", OPT_SWEEP_AGAINST, "FILE",
     "a measured nccl-tests log: each run's results.json \"against\" (as run\n"
     "--against) and sweep.csv's against_ratio (fabsim/measured busbw, geometric\n"
     "mean over the sizes both have) and against_sizes columns"},
    {0},
};

const struct cli_cmd CLI_CMD_SWEEP = {
    "sweep",
    "SCENARIO.yaml",
    "run the cartesian product of --set values; one summary CSV and a report",
    "Runs SCENARIO once per combination of the swept values (each in a child process,\n"
    "-j at a time) and writes DIR/sweep.csv (one row per run: the swept keys, the status\n"
    "and the summary metrics of results.json), DIR/sweep/<run>/results.json and\n"
    "DIR/report.html. At most 1024 runs. Exits 1 if a run failed.",
    SWEEP_OPTS,
    "fabsim sweep scenarios/labs/lossless/04-incast-roce-lossy.yaml \\\n"
    "    --set fabric.buffer=64KiB,256KiB,1MiB --set seed=1,2 -j 2 -o out/sweep",
    cli_sweep,
};

#define SWEEP_MAX_RUNS 1024

struct sweep_opts {
    const char *out;
    const char **sets;
    size_t nsets;
    int par;
    bool quiet, progress;
    const char *against; /* --against FILE */
};

static int sweep_opt(void *ctx, int key, const char *arg) {
    struct sweep_opts *o = ctx;
    switch (key) {
    case 's': {
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg || !eq[1])
            return cli_usage_error("sweep: --set needs KEY=V1,V2,..., e.g. --set "
                                   "fabric.buffer=64KiB,1MiB");
        o->sets[o->nsets++] = arg;
        return 0;
    }
    case 'o':
        o->out = arg;
        return 0;
    case 'j':
        return batch_parse_jobs(arg, &o->par);
    case 'q':
        o->quiet = true;
        return 0;
    case OPT_SWEEP_PROGRESS:
        o->progress = true;
        return 0;
    case OPT_SWEEP_AGAINST:
        o->against = arg;
        return 0;
    }
    return cli_usage_error("internal: unhandled option %d", key);
}

struct axis {
    char *key;   /* "fabric.buffer" (owned copy of the --set text) */
    char **vals; /* pointers into the copy after '=' */
    size_t nvals;
};

/* fabsim/measured busbw of a run with --against: the geometric mean of the
 * per-size ratios results.json "against" gives (sizes both have), and how
 * many; NAN and 0 when there are none. */
static double against_ratio(const struct jv *res, size_t *nsizes) {
    const struct jv *rows = jv_path(res, "against.rows");
    double logsum = 0;
    size_t k = 0;
    for (size_t i = 0; rows && rows->type == JV_ARR && i < rows->n; i++) {
        double r = jv_num_at(rows->items[i], "ratio", NAN);
        if (isfinite(r) && r > 0) logsum += log(r), k++;
    }
    *nsizes = k;
    return k ? exp(logsum / (double)k) : NAN;
}

static void write_sweep_csv(const char *path, const struct batch *js, const struct axis *ax,
                            size_t nax, const size_t *const *pick, bool against) {
    struct fs_out o; /* core/file.h: atomic, never through a symlink */
    if (fs_out_open(&o, path)) {
        fprintf(stderr, "fabsim: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    FILE *f = o.f;
    fputs("run", f);
    for (size_t a = 0; a < nax; a++)
        fputc(',', f), csv_field(f, ax[a].key);
    fputs(",status", f);
    for (size_t c = 0; c < BATCH_NSUMMARY_COLS; c++)
        fprintf(f, ",%s", BATCH_SUMMARY_COLS[c].col);
    if (against) fputs(",against_ratio,against_sizes", f);
    fputc('\n', f);
    static const char *const st[] = {"ok", "not_available", "error", "interrupted"};
    for (size_t i = 0; i < js->n; i++) {
        const struct batch_job *j = &js->v[i];
        char rpath[PATH_MAX + 16], err[128];
        snprintf(rpath, sizeof rpath, "%s/results.json", j->outdir);
        struct jv *res = j->status == 0 ? jread_file(rpath, err, sizeof err) : NULL;
        csv_field(f, j->id);
        for (size_t a = 0; a < nax; a++)
            fputc(',', f), csv_field(f, ax[a].vals[pick[i][a]]);
        fprintf(f, ",%s", st[j->status]);
        for (size_t c = 0; c < BATCH_NSUMMARY_COLS; c++) {
            if (!res) {
                fputc(',', f);
            } else if (BATCH_SUMMARY_COLS[c].scale < 0) {
                fprintf(f, ",%d", jv_bool_at(res, BATCH_SUMMARY_COLS[c].path, false) ? 1 : 0);
            } else {
                double v = jv_num_at(res, BATCH_SUMMARY_COLS[c].path, NAN);
                char num[64] = "";
                if (!isnan(v)) snprintf(num, sizeof num, "%.10g", v * BATCH_SUMMARY_COLS[c].scale);
                fprintf(f, ",%s", num);
            }
        }
        if (against) {
            size_t k = 0;
            double r = res ? against_ratio(res, &k) : NAN;
            if (isnan(r))
                fprintf(f, ",,%zu", k);
            else
                fprintf(f, ",%.6g,%zu", r, k);
        }
        fputc('\n', f);
        jread_free(res);
    }
    if (fs_out_commit(&o)) fprintf(stderr, "fabsim: %s: write failed: %s\n", path, strerror(errno));
}

int cli_sweep(int argc, char **argv) {
    struct sweep_opts o = {.out = "out/sweep", .par = batch_default_jobs()};
    o.sets = fs_xcalloc((size_t)argc + 1, sizeof *o.sets);
    char **pos = fs_xcalloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    int rc = cli_parse(&CLI_CMD_SWEEP, argc, argv, sweep_opt, &o, pos, &npos);
    const char *file = npos ? pos[0] : NULL;
    if (!rc && npos != 1)
        rc = cli_usage_error(npos ? "sweep: one scenario file (to compare files: fabsim compare)"
                                  : "sweep: missing SCENARIO.yaml (fabsim sweep --help)");
    if (!rc && !o.nsets) rc = cli_usage_error("sweep: nothing to sweep; give --set KEY=V1,V2,...");
    free(pos);
    if (rc) {
        free(o.sets);
        return rc == CLI_HELP ? 0 : rc;
    }
    /* Axes: one per --set, its values split at top-level commas. */
    struct axis *ax = fs_xcalloc(o.nsets, sizeof *ax);
    size_t nax = o.nsets, nruns = 1;
    for (size_t a = 0; a < nax && !rc; a++) {
        ax[a].key = fs_xstrdup(o.sets[a]);
        char *eq = strchr(ax[a].key, '=');
        *eq = 0;
        ax[a].vals = fs_xcalloc(SWEEP_MAX_RUNS + 1, sizeof *ax[a].vals);
        ax[a].nvals = split_values(eq + 1, ax[a].vals, SWEEP_MAX_RUNS);
        /* nvals is SWEEP_MAX_RUNS + 1 when there were more: vals[] holds the first
         * SWEEP_MAX_RUNS only. */
        for (size_t v = 0; v < ax[a].nvals && v < SWEEP_MAX_RUNS && !rc; v++)
            if (!ax[a].vals[v][0])
                rc = cli_usage_error("sweep: --set %s=...: empty value number %zu", ax[a].key,
                                     v + 1);
        if (!rc && (ax[a].nvals > SWEEP_MAX_RUNS || nruns * ax[a].nvals > SWEEP_MAX_RUNS))
            rc = cli_usage_error("sweep: more than %d runs; sweep fewer values", SWEEP_MAX_RUNS);
        nruns *= ax[a].nvals;
    }
    /* A log that cannot be read fails before any run (as run --against). */
    struct nccl_log log = {0};
    if (!rc && o.against) {
        struct diag d = {0};
        if (nccl_log_read(&log, o.against, &d)) {
            diag_print(&d, stderr);
            rc = 2;
        }
    }
    struct batch js = {0};
    size_t **pick = fs_xcalloc(nruns, sizeof *pick);
    char path[PATH_MAX];
    for (size_t r = 0; r < nruns && !rc; r++) {
        /* Run r: the mixed-radix digits of r, the last axis fastest. */
        pick[r] = fs_xcalloc(nax, sizeof **pick);
        size_t rest = r;
        for (size_t a = nax; a-- > 0;) {
            pick[r][a] = rest % ax[a].nvals;
            rest /= ax[a].nvals;
        }
        struct batch_job *j = batch_add(&js);
        j->lab = fs_xstrdup("sweep");
        j->file = fs_xstrdup(file);
        const char **vs = fs_xcalloc(nax + 1, sizeof *vs);
        char label[1024] = "", id[256];
        size_t ll = 0;
        for (size_t a = 0; a < nax; a++) {
            const char *v = ax[a].vals[pick[r][a]];
            size_t kl = strlen(ax[a].key), vl = strlen(v);
            char *kv = fs_xmalloc(kl + vl + 2);
            snprintf(kv, kl + vl + 2, "%s=%s", ax[a].key, v);
            vs[a] = kv;
            if (ax[a].nvals > 1 && ll < sizeof label)
                ll += (size_t)snprintf(label + ll, sizeof label - ll, "%s%s", ll ? " " : "", kv);
        }
        j->sets = vs;
        j->nsets = nax;
        snprintf(id, sizeof id, "%04zu-%.200s", r + 1, label[0] ? label : "run");
        batch_sanitize(id);
        for (char *c = id; *c; c++)
            if (*c == '=' || *c == ',' || *c == '"' || *c == '\'') *c = '_';
        j->id = fs_xstrdup(id);
        j->label = fs_xstrdup(label[0] ? label : "run");
        snprintf(path, sizeof path, "%s/sweep/%s", o.out, j->id);
        j->outdir = fs_xstrdup(path);
        j->against = o.against ? &log : NULL;
    }
    size_t counts[3] = {0, 0, 0};
    if (!rc) rc = batch_check_load(&js);
    if (!rc && results_mkdirs(o.out))
        rc = cli_usage_error("sweep: cannot create %s: %s", o.out, strerror(errno));
    if (!rc) {
        /* A previous sweep into the same folder must not show in the report;
         * links are removed themselves, never followed (core/file.h). */
        snprintf(path, sizeof path, "%s/sweep", o.out);
        fs_unlink_symlink(path);
        size_t nold;
        char **old = batch_list_dir(path, true, NULL, &nold);
        for (size_t i = 0; i < nold; i++) {
            char p[PATH_MAX * 2];
            snprintf(p, sizeof p, "%s/%s", path, old[i]);
            fs_remove_run_dir(p);
            free(old[i]);
        }
        free(old);
        snprintf(path, sizeof path, "%s/mode", o.out);
        batch_write_text(path, "sweep\n");
        snprintf(path, sizeof path, "%s/sweep", o.out);
        results_mkdirs(path);
        snprintf(path, sizeof path, "%s/sweep/lab.md", o.out);
        struct fs_out mdo;
        FILE *md = fs_out_open(&mdo, path) ? NULL : mdo.f;
        if (md) {
            fprintf(md, "# Sweep\n\n`%s`, %zu runs: the cartesian product of\n\n", file, nruns);
            for (size_t a = 0; a < nax; a++) {
                fprintf(md, "- `%s`:", ax[a].key);
                for (size_t v = 0; v < ax[a].nvals; v++)
                    fprintf(md, "%s `%s`", v ? "," : "", ax[a].vals[v]);
                fputc('\n', md);
            }
            fprintf(md, "\nEvery run's summary is in `sweep.csv`.\n");
            fs_out_commit(&mdo);
        }
        if (!o.quiet) fprintf(stderr, "fabsim sweep: %zu runs, %d at a time\n", nruns, o.par);
        batch_run(&js, o.par, batch_show_mode(o.quiet, o.progress), counts);
        snprintf(path, sizeof path, "%s/sweep.csv", o.out);
        write_sweep_csv(path, &js, ax, nax, (const size_t *const *)pick, o.against != NULL);
        rc = batch_report(o.out, true);
        if (!o.quiet) {
            printf("fabsim sweep: %zu ran, %zu not yet available, %zu failed\n", counts[0],
                   counts[1], counts[2]);
            for (size_t i = 0; i < js.n; i++)
                if (js.v[i].status == 2)
                    printf("  FAILED %s (see %s/status.json)\n", js.v[i].label, js.v[i].outdir);
            printf("Summary: %s\n", path);
            if (!rc) printf("Report: %s/report.html\n", o.out);
        }
    }
    for (size_t i = 0; i < js.n; i++) {
        for (size_t a = 0; a < js.v[i].nsets; a++)
            free((void *)js.v[i].sets[a]);
        free((void *)js.v[i].sets);
    }
    for (size_t r = 0; r < nruns; r++)
        free(pick[r]);
    free(pick);
    for (size_t a = 0; a < nax; a++)
        free(ax[a].key), free(ax[a].vals);
    free(ax);
    free(o.sets);
    batch_free(&js);
    nccl_log_fini(&log);
    return batch_status("sweep", rc, counts);
}

/* src/cli/compare.c
 *
 * `fabsim compare`: scenarios, or --set variants of one, run side by side as
 * one batch (cli/batch.h) into DIR/compare/<variant>/; first the keys of the
 * resolved configuration that differ (DIR/config_diff.json), then the
 * summary metrics in a table, and report.html titled by the variants.
 */
#include "cli/batch.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "config/scenario.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"
#include "report/jread.h"
#include "core/jw.h"
#include "stats/results.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Splits "a.b=1+c.d=2" into sets at '+' followed by something like "key=". */
static size_t split_variant(char *s, const char **out, size_t max) {
    size_t n = 0;
    out[n++] = s;
    for (char *p = s; *p && n < max; p++) {
        if (*p != '+') continue;
        const char *k = p + 1;
        size_t kl = strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789_.");
        if (kl && k[kl] == '=') {
            *p = 0;
            out[n++] = p + 1;
        }
    }
    return n;
}

static void print_compare_table(const struct batch *js) {
    struct jv *res[16] = {0};
    size_t n = js->n < 16 ? js->n : 16;
    char err[128], path[PATH_MAX];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/results.json", js->v[i].outdir);
        res[i] = jread_file(path, err, sizeof err);
    }
    /* Columns as wide as the widest variant's name (a --set list can be long). */
    int w = 12;
    for (size_t i = 0; i < n; i++) {
        const char *name = js->v[i].label ? js->v[i].label : js->v[i].id;
        int len = (int)strlen(name);
        w = len > w ? (len < 60 ? len : 60) : w;
    }
    printf("%-24s", "");
    for (size_t i = 0; i < n; i++)
        printf(" %*.*s", w, w, js->v[i].label ? js->v[i].label : js->v[i].id);
    for (size_t i = 1; i < n; i++) /* each variant against the first */
        printf(" %*s%zu/1", 7, "", i + 1);
    printf("\n");
    for (size_t r = 0; r < BATCH_NSUMMARY_COLS; r++) {
        const char *p = BATCH_SUMMARY_COLS[r].path;
        double vals[16];
        for (size_t i = 0; i < n; i++)
            vals[i] = NAN;
        printf("%-24s", BATCH_SUMMARY_COLS[r].name);
        for (size_t i = 0; i < n; i++) {
            if (!res[i]) {
                printf(" %*s", w,
                       js->v[i].status == 1                       ? "not yet available"
                       : js->v[i].status == BATCH_JOB_INTERRUPTED ? "interrupted"
                                                                  : "failed");
                continue;
            }
            double v = BATCH_SUMMARY_COLS[r].scale < 0
                           ? jv_bool_at(res[i], p, false)
                           : jv_num_at(res[i], p, NAN) * BATCH_SUMMARY_COLS[r].scale;
            vals[i] = v;
            if (isnan(v))
                printf(" %*s", w, "-");
            else
                printf(" %*.6g", w, v);
        }
        /* the ratio to the first variant: "-" for flags, a zero or no value */
        for (size_t i = 1; i < n; i++) {
            bool num = BATCH_SUMMARY_COLS[r].scale > 0 && res[0] && res[i] && !isnan(vals[0]) &&
                       !isnan(vals[i]) && vals[0] != 0;
            if (num)
                printf(" %10.3g", vals[i] / vals[0]);
            else
                printf(" %10s", "-");
        }
        printf("\n");
    }
    for (size_t i = 0; i < n; i++)
        jread_free(res[i]);
}

/* The resolved scenario (validate --explain) as "dotted.key" -> value
 * pairs: the indentation gives the path, "- " items are numbered. Comments
 * (the defaults' sources) are dropped. */
struct kv {
    char **k, **v;
    size_t n, cap, vcap;
};

static void kv_add(struct kv *kv, const char *k, const char *v) {
    size_t cap = kv->cap;
    fs_grow((void **)&kv->k, &kv->cap, kv->n + 1, sizeof *kv->k);
    fs_grow((void **)&kv->v, &cap, kv->n + 1, sizeof *kv->v);
    kv->k[kv->n] = fs_xstrdup(k);
    kv->v[kv->n++] = fs_xstrdup(v);
}

static void kv_free(struct kv *kv) {
    for (size_t i = 0; i < kv->n; i++)
        free(kv->k[i]), free(kv->v[i]);
    free(kv->k), free(kv->v);
}

static int explain_flat(const char *file, const char *const *sets, size_t nsets, struct kv *out) {
    struct scenario sc;
    struct diag d = {0};
    memset(out, 0, sizeof *out);
    if (scenario_load(&sc, file, sets, nsets, &d)) return -1;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    scenario_explain(&sc, f);
    fclose(f);
    scenario_fini(&sc);
    struct {
        int indent;
        char path[512];
        int items;
    } st[32] = {{0}}; /* entries below `depth` are always set; zeroed for the reader */
    int depth = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#') continue;
        char *c = strstr(line, "  # ");
        if (c) *c = 0;
        int indent = (int)strspn(line, " ");
        char *p = line + indent;
        if (!*p) continue;
        char prefix[512] = "";
        bool item = !strncmp(p, "- ", 2);
        while (depth && st[depth - 1].indent >= indent + (item ? 1 : 0) &&
               !(item && st[depth - 1].indent < indent))
            depth--;
        if (item) { /* an item of the sequence whose key is on top */
            while (depth && st[depth - 1].indent >= indent)
                depth--;
            if (!depth) continue;
            snprintf(prefix, sizeof prefix, "%s.%d", st[depth - 1].path, st[depth - 1].items++);
            p += 2;
            indent += 2;
            char *colon = strstr(p, ": ");
            if (p[0] == '{' || !colon) {
                kv_add(out, prefix, p);
                continue;
            }
            if (depth < 32) {
                st[depth].indent = indent - 1;
                snprintf(st[depth].path, sizeof st[depth].path, "%s", prefix);
                st[depth].items = 0;
                depth++;
            }
        } else {
            snprintf(prefix, sizeof prefix, "%s", depth ? st[depth - 1].path : "");
        }
        char *colon = strchr(p, ':');
        if (!colon) continue;
        *colon = 0;
        char *val = colon + 1;
        while (*val == ' ')
            val++;
        size_t vl = strlen(val);
        while (vl && val[vl - 1] == ' ')
            val[--vl] = 0;
        char key[1100];
        snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", p);
        if (!*val) { /* a mapping or a sequence follows */
            if (depth < 32) {
                st[depth].indent = indent;
                snprintf(st[depth].path, sizeof st[depth].path, "%.500s", key);
                st[depth].items = 0;
                depth++;
            }
            continue;
        }
        kv_add(out, key, val);
    }
    free(text);
    return 0;
}

/* One config_diff.json row: {key, [some_variants_only,] values} (null: the
 * variant has no such key). */
static void diff_row(struct jw *w, const char *key, const char *const *vals, size_t n, bool some) {
    jw_obj_compact(w);
    jw_kstr(w, "key", key);
    if (some) jw_kbool(w, "some_variants_only", true);
    jw_key(w, "values");
    jw_arr_compact(w);
    for (size_t b = 0; b < n; b++)
        if (vals[b])
            jw_str(w, vals[b]);
        else
            jw_null(w);
    jw_arr_end(w);
    jw_obj_end(w);
}

/* Every key whose resolved value differs between the variants (a key one
 * of them lacks counts as differing), printed and written to
 * DIR/config_diff.json for the report. Returns the number of keys. */
static size_t config_diff(const struct batch *js, const char *out, bool print) {
    size_t n = js->n;
    struct kv *kv = fs_xcalloc(n, sizeof *kv);
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        ok = !explain_flat(js->v[i].file, js->v[i].sets, js->v[i].nsets, &kv[i]) && ok;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/config_diff.json", out);
    struct fs_out fo; /* core/file.h: atomic, never through a symlink */
    FILE *f = fs_out_open(&fo, path) ? NULL : fo.f;
    struct jw w;
    if (f) {
        jw_init(&w, f);
        jw_arr(&w);
    }
    size_t ndiff = 0, nsome = 0;
    char some[400] = "";
    /* The union of keys, in the first variant's order then the others'. A
     * key that some variants lack (a key of one fabric or one kind only) is
     * not a difference of settings: it is listed apart, once. */
    for (size_t a = 0; ok && a < n; a++)
        for (size_t i = 0; i < kv[a].n; i++) {
            const char *key = kv[a].k[i];
            bool seen = false;
            for (size_t b = 0; b < a && !seen; b++)
                for (size_t k = 0; k < kv[b].n && !seen; k++)
                    seen = !strcmp(kv[b].k[k], key);
            if (seen) continue;
            const char *vals[16] = {0};
            bool differs = false, all = true;
            for (size_t b = 0; b < n && b < 16; b++) {
                for (size_t k = 0; k < kv[b].n; k++)
                    if (!strcmp(kv[b].k[k], key)) vals[b] = kv[b].v[k];
                all = all && vals[b];
                if (b && (!vals[b] != !vals[0] || (vals[b] && vals[0] && strcmp(vals[b], vals[0]))))
                    differs = true;
            }
            if (!differs || !strcmp(key, "name")) continue;
            if (!all) { /* in some variants only: counted, named in config_diff.json */
                if (nsome++ < 4)
                    snprintf(some + strlen(some), sizeof some - strlen(some), "%s%s",
                             nsome > 1 ? ", " : "", key);
                if (f) diff_row(&w, key, vals, n < 16 ? n : 16, true);
                continue;
            }
            if (print && !ndiff)
                printf("Configuration differences (resolved, defaults included; `fabsim validate "
                       "FILE --explain` shows all):\n");
            ndiff++;
            if (print) {
                printf("  %s:", key);
                for (size_t b = 0; b < n && b < 16; b++)
                    printf("%s%s", b ? " | " : " ", vals[b] ? vals[b] : "(absent)");
                printf("\n");
            }
            if (f) diff_row(&w, key, vals, n < 16 ? n : 16, false);
        }
    if (print && ok && !ndiff)
        printf("Configuration differences: none (the same resolved scenario)\n");
    if (print && nsome)
        printf("  and %zu key(s) that only some variants have (a key of one fabric or kind: %s%s; "
               "all in config_diff.json)\n",
               nsome, some, nsome > 4 ? ", ..." : "");
    if (print && (ndiff || nsome)) printf("\n");
    if (f) {
        jw_arr_end(&w);
        jw_end(&w);
        fs_out_commit(&fo);
    }
    for (size_t i = 0; i < n; i++)
        kv_free(&kv[i]);
    free(kv);
    return ndiff;
}

static const struct cli_opt COMPARE_OPTS[] = {
    {"out", 'o', "DIR", "output folder (default: out/compare)"},
    {"set", 's', "KEY=VALUE[+KEY=VALUE...]",
     "with two or more files: applied to each; with one file: one\n"
     "variant per --set, '+' joining the keys of one variant"},
    {"jobs", 'j', "N", "variants run in parallel (default: the CPUs, at most 8)"},
    {"quiet", 'q', NULL, "print nothing but errors (the table and report are still written)"},
    {0},
};

const struct cli_cmd CLI_CMD_COMPARE = {
    "compare",
    "A.yaml B.yaml... | S.yaml --set V1 --set V2...",
    "run scenarios (or --set variants of one) side by side; table and report",
    "Runs each scenario (up to 16) or each --set variant of one scenario in a child\n"
    "process, prints first every key of the resolved configuration that differs between\n"
    "the variants (defaults included; also DIR/config_diff.json), then the summary metrics\n"
    "side by side, and writes DIR/report.html titled by the variants.",
    COMPARE_OPTS,
    "fabsim compare a.yaml b.yaml -o out/cmp\n"
    "fabsim compare s.yaml --set fabric.routing=ecmp --set fabric.routing=adaptive+seed=2",
    cli_compare,
};

struct compare_opts {
    const char *out;
    const char **sets;
    size_t nsets;
    int par;
    bool quiet;
};

static int compare_opt(void *ctx, int key, const char *arg) {
    struct compare_opts *o = ctx;
    switch (key) {
    case 'o':
        o->out = arg;
        return 0;
    case 's':
        return cli_opt_set(o->sets, &o->nsets, arg, NULL);
    case 'j':
        return batch_parse_jobs(arg, &o->par);
    case 'q':
        o->quiet = true;
        return 0;
    }
    return cli_usage_error("internal: unhandled option %d", key);
}

int cli_compare(int argc, char **argv) {
    struct compare_opts o = {.out = "out/compare", .par = batch_default_jobs()};
    o.sets = fs_xcalloc((size_t)argc + 1, sizeof *o.sets);
    char **pos = fs_xcalloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    const char *files[16];
    size_t nfiles = 0;
    int prc = cli_parse(&CLI_CMD_COMPARE, argc, argv, compare_opt, &o, pos, &npos);
    if (!prc && npos > 16) prc = cli_usage_error("compare: at most 16 files");
    for (int i = 0; !prc && i < npos; i++)
        files[nfiles++] = pos[i];
    free(pos);
    if (prc) {
        free(o.sets);
        return prc == CLI_HELP ? 0 : prc;
    }
    const char *out = o.out;
    const char **sets = o.sets;
    size_t nsets = o.nsets;
    int par = o.par;
    bool quiet = o.quiet;
    if (!nfiles || (nfiles == 1 && nsets < 2)) {
        free(sets);
        /* one line: usage errors are escaped to a single line (cli_usage_error) */
        return cli_usage_error(
            "compare needs two scenarios, or one with at least two --set variants: fabsim compare "
            "A.yaml B.yaml [--set KEY=VALUE]... [-o DIR], or fabsim compare S.yaml --set "
            "KEY=VALUE[+KEY=VALUE...] --set ... [-o DIR] (see fabsim compare --help)");
    }
    struct batch js = {0};
    char path[PATH_MAX];
    size_t counts[3] = {0, 0, 0};
    int rc = 2;
    /* Variant sets live in this buffer: split_variant writes NULs into copies. */
    char **copies = fs_xcalloc(nsets + 1, sizeof *copies);
    size_t nvariants = nfiles > 1 ? nfiles : nsets;
    for (size_t v = 0; v < nvariants; v++) {
        struct batch_job *j = batch_add(&js);
        j->lab = fs_xstrdup("compare");
        if (nfiles > 1) {
            j->file = fs_xstrdup(files[v]);
            j->sets = sets;
            j->nsets = nsets;
            const char *base = strrchr(files[v], '/');
            base = base ? base + 1 : files[v];
            char id[256];
            snprintf(id, sizeof id, "%zu-%s", v + 1, base);
            char *dot = strrchr(id, '.');
            if (dot) *dot = 0;
            batch_sanitize(id);
            j->id = fs_xstrdup(id);
            j->label = fs_xstrdup(base);
        } else {
            j->file = fs_xstrdup(files[0]);
            copies[v] = fs_xstrdup(sets[v]);
            const char **vs = fs_xcalloc(64, sizeof *vs);
            j->sets = vs;
            j->nsets = split_variant(copies[v], vs, 64);
            char id[256];
            snprintf(id, sizeof id, "%zu-%s", v + 1, sets[v]);
            batch_sanitize(id);
            j->id = fs_xstrdup(id);
            j->label = fs_xstrdup(sets[v]);
        }
        snprintf(path, sizeof path, "%s/compare/%s", out, j->id);
        j->outdir = fs_xstrdup(path);
    }
    if (batch_check_load(&js)) goto done;
    snprintf(path, sizeof path, "%s/mode", out);
    /* A folder that cannot be created fails before any variant runs. */
    if (results_mkdirs(out) || batch_write_text(path, "compare\n")) {
        fprintf(stderr, "fabsim: %s: cannot write: %s\n", out, strerror(errno));
        goto done;
    }
    snprintf(path, sizeof path, "%s/compare", out);
    fs_unlink_symlink(path); /* a planted link: the runs go into a real folder */
    snprintf(path, sizeof path, "%s/compare/lab.md", out);
    results_mkdirs(path); /* creates .../lab.md as a folder: removed below */
    rmdir(path);
    struct fs_out mdo;
    FILE *md = fs_out_open(&mdo, path) ? NULL : mdo.f;
    if (md) {
        fprintf(md, "# Compare\n\nThe same summary metrics side by side for:\n\n");
        for (size_t i = 0; i < js.n; i++) {
            if (nfiles > 1)
                fprintf(md, "- `%s`\n", js.v[i].file);
            else
                fprintf(md, "- `%s` with `--set %s`\n", js.v[i].file, js.v[i].label);
        }
        fs_out_commit(&mdo);
    }
    /* The title names the variants: "A vs B" (files) or the --set lists. */
    snprintf(path, sizeof path, "%s/title", out);
    struct fs_out to; /* core/file.h: atomic, never through a symlink */
    if (!fs_out_open(&to, path)) {
        fprintf(to.f, "fabsim compare: ");
        for (size_t i = 0; i < js.n; i++)
            fprintf(to.f, "%s%s", i ? " vs " : "", js.v[i].label ? js.v[i].label : js.v[i].id);
        fputc('\n', to.f);
        fs_out_commit(&to);
    }
    config_diff(&js, out, !quiet);
    batch_run(&js, par, batch_show_mode(quiet, false), counts);
    if (!quiet) print_compare_table(&js);
    rc = batch_report(out, true);
    if (!rc && !quiet) printf("Report: %s/report.html\n", out);
done:
    for (size_t i = 0; i < js.n; i++)
        if (nfiles == 1) free((void *)js.v[i].sets);
    for (size_t i = 0; i < nsets; i++)
        free(copies[i]);
    free(copies);
    free(sets);
    batch_free(&js);
    return batch_status("compare", rc, counts);
}

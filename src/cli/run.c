/* src/cli/run.c
 *
 * `fabsim run` and `fabsim validate`: option parsing, loading the scenario
 * (with --set and --seed overrides), running the model, writing results.
 */
#include "cli/cli.h"
#include "config/scenario.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/units.h"
#include "core/mem.h"
#include "net/estimate.h"
#include "net/model.h"
#include "stats/ctrace.h"
#include "stats/pcap.h"
#include "stats/results.h"
#include "stats/wall.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_usage_error(const char *fmt, ...) {
    char raw[1024], esc[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    fs_escape_ctl(raw, esc, sizeof esc); /* options are echoed: one line, no escapes */
    fprintf(stderr, "fabsim: %s\n", esc);
    return 2;
}

struct run_opts {
    const char *files[2];
    int nfiles;
    const char *out;
    const char **sets;
    size_t nsets;
    char seed_set[64];
    bool quiet, explain;
    const char *pcap, *pcap_filter; /* --pcap FILE, --pcap-filter link=NAME|flow=ID */
    uint64_t pcap_max;              /* --pcap-max N (0 = no limit) */
    const char *trace;              /* --trace FILE: Chrome trace / Perfetto JSON */
    uint64_t trace_max;             /* --trace-max N events (0 = the default) */
    uint64_t max_memory;            /* --max-memory SIZE (0 = MemAvailable) */
};

static int parse_opts(int argc, char **argv, struct run_opts *o, int max_files, bool allow_run) {
    memset(o, 0, sizeof *o);
    o->sets = fs_xcalloc((size_t)argc + 2, sizeof *o->sets);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            if (i + 1 >= argc) return cli_usage_error("%s needs a folder", a);
            o->out = argv[++i];
        } else if (!strcmp(a, "--set")) {
            if (i + 1 >= argc || !strchr(argv[i + 1], '='))
                return cli_usage_error("--set needs KEY=VALUE, e.g. --set fabric.routing=ecmp");
            o->sets[o->nsets++] = argv[++i];
        } else if (!strncmp(a, "--set=", 6)) {
            o->sets[o->nsets++] = a + 6;
        } else if (!strcmp(a, "--seed") && allow_run) {
            if (i + 1 >= argc) return cli_usage_error("--seed needs a number");
            const char *v = argv[++i];
            char *end;
            if (!*v || *v == '-' || (strtoull(v, &end, 10), *end))
                return cli_usage_error("--seed '%s' is not a non-negative integer", v);
            snprintf(o->seed_set, sizeof o->seed_set, "seed=%s", v);
        } else if (!strcmp(a, "--pcap") && allow_run && i + 1 < argc) {
            o->pcap = argv[++i];
        } else if (!strcmp(a, "--pcap-filter") && allow_run && i + 1 < argc) {
            o->pcap_filter = argv[++i];
        } else if (!strcmp(a, "--pcap-max") && allow_run && i + 1 < argc) {
            char *end;
            o->pcap_max = strtoull(argv[++i], &end, 10);
            if (*end || !o->pcap_max)
                return cli_usage_error("--pcap-max needs a positive number of packets");
        } else if (!strcmp(a, "--trace") && allow_run) {
            if (i + 1 >= argc) return cli_usage_error("--trace needs a FILE (Chrome trace JSON)");
            o->trace = argv[++i];
        } else if (!strcmp(a, "--trace-max") && allow_run && i + 1 < argc) {
            char *end;
            o->trace_max = strtoull(argv[++i], &end, 10);
            if (*end || !o->trace_max)
                return cli_usage_error("--trace-max needs a positive number of events");
        } else if (!strcmp(a, "--max-memory")) {
            char why[160];
            if (i + 1 >= argc || units_parse_size(argv[i + 1], &o->max_memory, why, sizeof why) ||
                !o->max_memory)
                return cli_usage_error("--max-memory needs a size such as 8GiB or 512MB");
            i++;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            o->quiet = true;
        } else if (!strcmp(a, "--explain") && !allow_run) {
            o->explain = true;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("unknown option '%s' (fabsim --help)", a);
        } else {
            if (o->nfiles >= max_files) return cli_usage_error("too many scenario files ('%s')", a);
            o->files[o->nfiles++] = a;
        }
    }
    if (o->seed_set[0]) o->sets[o->nsets++] = o->seed_set; /* last, so it wins over a --set seed= */
    if (o->nfiles == 0) return cli_usage_error("missing SCENARIO.yaml (fabsim --help)");
    return 0;
}

static void progress(const struct model *m, void *arg) {
    double *t0 = arg;
    double el = wall_now_s() - *t0;
    fprintf(stderr, "\r  sim %.3f ms  %5.1f%% done  %.2f M events/s   ",
            (double)m->sim.now_ps / 1e9, 100.0 * model_progress(m),
            el > 0 ? (double)m->sim.events_run / el / 1e6 : 0.0);
}

/* The same file, whether or not it exists yet: its folder resolved (which
 * must exist) and the same last component. */
static bool same_file(const char *a, const char *b) {
    char ra[4096], rb[4096];
    const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
    if (strcmp(ba ? ba + 1 : a, bb ? bb + 1 : b)) return false;
    char da[4096], db[4096];
    snprintf(da, sizeof da, "%.*s", ba ? (int)(ba - a) + 1 : 1, ba ? a : ".");
    snprintf(db, sizeof db, "%.*s", bb ? (int)(bb - b) + 1 : 1, bb ? b : ".");
    return realpath(da, ra) && realpath(db, rb) && !strcmp(ra, rb);
}

/* --pcap / --trace must not name results.json or links.csv of the run. */
static int check_collision(const char *opt, const char *file, const char *dir) {
    static const char *const own[] = {"results.json", "links.csv"};
    char p[4200];
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, own[i]);
        if (file && same_file(file, p))
            return cli_usage_error("%s %s would overwrite the run's %s; choose another file", opt,
                                   file, own[i]);
    }
    return 0;
}

/* Runs one loaded scenario into `out` (NULL = out/<name>). Exit status. The
 * output folder is created first, so that a folder that cannot be created
 * fails before the run; results.json is written even when a trace or pcap
 * write failed (exit 1 then). */
static int run_one(const struct scenario *sc, const char *out, bool quiet,
                   const struct run_opts *o) {
    struct model m;
    struct diag d = {0};
    char dir[4096];
    if (out)
        snprintf(dir, sizeof dir, "%s", out);
    else
        snprintf(dir, sizeof dir, "out/%s", sc->name);
    if (results_mkdirs(dir)) {
        fprintf(stderr, "fabsim: %s: cannot create output folder: %s\n", dir, strerror(errno));
        return 2;
    }
    int rc = check_collision("--trace", o->trace, dir);
    if (!rc) rc = check_collision("--pcap", o->pcap, dir);
    if (rc) return rc;
    rc = model_build(&m, sc, &d);
    if (rc) {
        diag_print(&d, stderr);
        model_fini(&m);
        return rc == FS_EINTERNAL ? 1 : 2;
    }
    struct pcap_sink pcap = {0};
    struct ctrace_sink ct = {0};
    if (o->pcap) rc = pcap_sink_open(&pcap, &m.net, o->pcap, o->pcap_filter, o->pcap_max, &d);
    if (!rc && o->trace) rc = ctrace_sink_open(&ct, &m.net, o->trace, o->trace_max, &d);
    if (rc) { /* a bad --pcap-filter is input (2); a file that cannot be written, 1 */
        diag_print(&d, stderr);
        pcap_sink_abort(&pcap, &m.net);
        model_fini(&m);
        return rc == FS_EINTERNAL ? 1 : 2;
    }
    bool tty = !quiet && isatty(2);
    double t0 = wall_now_s();
    model_run(&m, tty ? progress : NULL, &t0);
    if (tty) fputs("\r\033[K", stderr);
    int status = 0;
    if (o->pcap) {
        if (pcap_sink_close(&pcap, &m.net)) {
            fprintf(stderr, "fabsim: %s: write failed: %s\n", o->pcap, strerror(errno));
            status = 1;
        } else if (!quiet)
            printf("  pcap: %s (%llu packets)\n", o->pcap, (unsigned long long)pcap.written);
    }
    if (o->trace) {
        if (ctrace_sink_close(&ct, &m.net)) {
            fprintf(stderr, "fabsim: %s: write failed: %s\n", o->trace, strerror(errno));
            status = 1;
        } else if (!quiet)
            printf("  trace: %s (%llu events%s)\n", o->trace, (unsigned long long)ct.written,
                   ct.dropped ? ", capped by --trace-max" : "");
    }
    rc = results_write_dir(&m, dir, &d);
    if (rc) {
        diag_print(&d, stderr);
        model_fini(&m);
        return rc == FS_EINTERNAL ? 1 : 2;
    }
    if (!quiet) {
        results_print_summary(&m, stdout);
        printf("  results: %s/results.json, %s/links.csv\n", dir, dir);
    }
    if (!status && m.interrupted) status = 128 + m.interrupted;
    model_fini(&m);
    return status;
}

/* Parses the options and loads the one scenario they name, with its --set
 * and --seed overrides: 0, or the exit status of a usage or input error. */
static int load_one(int argc, char **argv, struct run_opts *o, bool run, struct scenario *sc) {
    int rc = parse_opts(argc, argv, o, 1, run);
    if (rc) return rc;
    struct diag d = {0};
    if (scenario_load(sc, o->files[0], o->sets, o->nsets, &d)) {
        diag_print(&d, stderr);
        return 2;
    }
    /* Before building: a fabric too large for the machine fails now. */
    if (model_check_memory(sc, o->max_memory, &d)) {
        diag_print(&d, stderr);
        scenario_fini(sc);
        return 2;
    }
    return 0;
}

int cli_run(int argc, char **argv) {
    struct run_opts o;
    struct scenario sc;
    int rc = load_one(argc, argv, &o, true, &sc);
    if (rc) {
        free(o.sets);
        return rc;
    }
    rc = run_one(&sc, o.out, o.quiet, &o);
    scenario_fini(&sc);
    free(o.sets);
    return rc;
}

int cli_validate(int argc, char **argv) {
    struct run_opts o;
    struct scenario sc;
    struct diag d = {0};
    int rc = load_one(argc, argv, &o, false, &sc);
    free(o.sets);
    if (rc) return rc;
    /* Names that only the built topology can check (links in events). */
    struct model m;
    rc = model_build(&m, &sc, &d);
    model_fini(&m);
    if (rc && rc != FS_ENOTSUP) {
        diag_print(&d, stderr);
        scenario_fini(&sc);
        return 2;
    }
    if (o.explain)
        scenario_explain(&sc, stdout);
    else
        printf("%s: ok\n", o.files[0]);
    if (rc == FS_ENOTSUP) {
        fprintf(stderr, "fabsim: note: ");
        diag_print(&d, stderr);
    }
    scenario_fini(&sc);
    return 0;
}

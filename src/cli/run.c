/* src/cli/run.c
 *
 * `fabsim run` and `fabsim validate`: option parsing, loading the scenario
 * (with --set and --seed overrides), running the model, writing results.
 */
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/progress.h"
#include "coll/nccllog.h"
#include "config/scenario.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/units.h"
#include "core/mem.h"
#include "core/sig.h"
#include "model/estimate.h"
#include "model/model.h"
#include "par/par.h"
#include "par/ptrace.h"
#include "stats/ctrace.h"
#include "stats/pcap.h"
#include "stats/results.h"
#include "core/wall.h"

#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

enum {
    OPT_SEED = CLI_LONG,
    OPT_PCAP,
    OPT_PCAP_FILTER,
    OPT_PCAP_MAX,
    OPT_PCAP_SNAPLEN,
    OPT_PCAP_MAX_BYTES,
    OPT_AGAINST,
    OPT_TRACE,
    OPT_TRACE_MAX,
    OPT_EXPLAIN,
    OPT_PROGRESS,
    OPT_VERBOSE,
    OPT_MAX_MEMORY,
};

static const struct cli_opt RUN_OPTS[] = {
    {"out", 'o', "DIR", "results folder (default: out/<scenario name>)"},
    {"set", 's', "KEY=VALUE",
     "override a scenario key by its dotted path (repeatable),\n"
     "e.g. --set fabric.routing=ecmp --set workload.0.size=64MiB"},
    {"seed", OPT_SEED, "N", "random seed (overrides the file's seed:)"},
    {"quiet", 'q', NULL, "print nothing but errors"},
    {"progress", OPT_PROGRESS, "[SECONDS]",
     "print a plain progress line every SECONDS (default 10) even when\n"
     "stderr is not a terminal (CI logs, nohup)"},
    {"pcap", OPT_PCAP, "FILE",
     "write the packets on the links as a capture (Wireshark);\n"
     "a FILE ending in .gz is gzip-compressed (Wireshark opens it as is)"},
    {"pcap-filter", OPT_PCAP_FILTER, "link=NAME|flow=ID",
     "capture one link (both directions, or one: leaf0->spine1) or one QP"},
    {"pcap-max", OPT_PCAP_MAX, "N", "stop capturing after N packets (default 1000000)"},
    {"pcap-max-bytes", OPT_PCAP_MAX_BYTES, "SIZE",
     "stop capturing before the file passes SIZE (default 128MiB;\n"
     "a .gz file: once it has reached SIZE)"},
    {"pcap-snaplen", OPT_PCAP_SNAPLEN, "full|headers|BYTES",
     "whole packets (default; the payload is zeros), the headers only\n"
     "(Wireshark then marks data packets [Malformed Packet]), or the\n"
     "first BYTES (at least 64) of each"},
    {"against", OPT_AGAINST, "FILE",
     "a measured nccl-tests log (all_reduce_perf ...): print its busbw\n"
     "beside fabsim's per size with the ratio; results.json \"against\""},
    {"trace", OPT_TRACE, "FILE", "write a Chrome trace / Perfetto JSON timeline"},
    {"trace-max", OPT_TRACE_MAX, "N", "at most N trace events (default 1000000)"},
    {"verbose", OPT_VERBOSE, NULL, "MPI runs (fabsim-mpi): print the partition, rank by rank"},
    {"max-memory", OPT_MAX_MEMORY, "SIZE",
     "refuse a model estimated larger than SIZE (default: MemAvailable;\n"
     "docs/outputs.md \"Limits\")"},
    {0},
};

static const struct cli_opt VALIDATE_OPTS[] = {
    {"set", 's', "KEY=VALUE", "override a scenario key by its dotted path (repeatable)"},
    {"explain", OPT_EXPLAIN, NULL, "print the resolved scenario, every default with its source"},
    {"quiet", 'q', NULL, "print nothing when the file is valid"},
    {"max-memory", OPT_MAX_MEMORY, "SIZE",
     "refuse a model estimated larger than SIZE (default: MemAvailable)"},
    {0},
};

const struct cli_cmd CLI_CMD_RUN = {
    "run",
    "SCENARIO.yaml",
    "run one scenario; write results.json and links.csv",
    "Loads the scenario, builds the fabric, runs the workload to completion (or the\n"
    "scenario's stop time) and writes DIR/results.json and DIR/links.csv, then prints a\n"
    "summary. A deadlock is reported in results.json and still exits 0.\n"
    "On a terminal a progress line shows the phase, simulated time, percent of the work,\n"
    "elapsed time and ETA.",
    RUN_OPTS,
    "fabsim run scenarios/examples/incast.yaml -o out/incast --set fabric.kind=roce\n"
    "fabsim run scenarios/examples/incast.yaml --pcap out/incast.pcapng --pcap-filter "
    "link=leaf0->h0",
    cli_run,
};

const struct cli_cmd CLI_CMD_VALIDATE = {
    "validate",
    "SCENARIO.yaml",
    "check a scenario without running it (--explain: print every default)",
    "Reads the scenario and builds its topology, so that every error is found: an\n"
    "unknown key (with the closest known key), a value out of range, a host or link\n"
    "that does not exist. Errors name file:line:column and exit 2.",
    VALIDATE_OPTS,
    "fabsim validate scenarios/examples/incast.yaml --explain",
    cli_validate,
};

struct run_opts {
    struct cli_load l; /* the one SCENARIO.yaml, its --set and --seed overrides */
    const char *out;
    char seed_set[64];
    bool quiet, explain, progress;
    double progress_s;
    const char *pcap, *pcap_filter; /* --pcap FILE, --pcap-filter link=NAME|flow=ID */
    uint64_t pcap_max;              /* --pcap-max N (0 = PCAP_MAX_PACKETS_DEFAULT) */
    uint32_t pcap_snaplen;          /* --pcap-snaplen (PCAP_SNAP_FULL by default) */
    uint64_t pcap_max_bytes;        /* --pcap-max-bytes SIZE (0 = PCAP_MAX_BYTES_DEFAULT) */
    const char *trace;              /* --trace FILE: Chrome trace / Perfetto JSON */
    uint64_t trace_max;             /* --trace-max N events (0 = the default) */
    bool verbose;                   /* --verbose: the partition of an MPI run */
    const struct comm *comm;        /* MPI runs (cli_run_par); NULL in one process */
    uint64_t lookahead_ps;          /* MPI runs: forced window length (tests), 0 = computed */
    uint64_t max_memory;            /* --max-memory SIZE (0 = MemAvailable) */
    const char *against;            /* --against FILE: a measured nccl-tests log */
    struct nccl_log against_log;    /* read before the run */
};

static int on_opt(void *ctx, int key, const char *arg) {
    struct run_opts *o = ctx;
    unsigned long long v;
    switch (key) {
    case 'o':
        o->out = arg;
        return 0;
    case 's':
        return cli_opt_set(o->l.sets, &o->l.nsets, arg, "fabric.routing=ecmp");
    case OPT_SEED: {
        char *end;
        if (!*arg || *arg == '-' || (strtoull(arg, &end, 10), *end))
            return cli_usage_error("--seed '%s' is not a non-negative integer", arg);
        snprintf(o->seed_set, sizeof o->seed_set, "seed=%s", arg);
        return 0;
    }
    case 'q':
        o->quiet = true;
        return 0;
    case OPT_PROGRESS:
        o->progress = true;
        if (arg) {
            if (cli_parse_u64("--progress", arg, 1, 86400, &v)) return 2;
            o->progress_s = (double)v;
        }
        return 0;
    case OPT_PCAP:
        o->pcap = arg;
        return 0;
    case OPT_PCAP_FILTER:
        o->pcap_filter = arg;
        return 0;
    case OPT_PCAP_MAX:
        if (cli_parse_u64("--pcap-max", arg, 1, UINT64_MAX, &v)) return 2;
        o->pcap_max = v;
        return 0;
    case OPT_PCAP_MAX_BYTES: {
        char why[160];
        if (units_parse_size(arg, &o->pcap_max_bytes, why, sizeof why) || !o->pcap_max_bytes)
            return cli_usage_error("--pcap-max-bytes '%s': use a size such as 64MiB or 1GB", arg);
        return 0;
    }
    case OPT_PCAP_SNAPLEN:
        if (!strcmp(arg, "headers")) {
            o->pcap_snaplen = PCAP_SNAP_HEADERS;
        } else if (!strcmp(arg, "full")) {
            o->pcap_snaplen = PCAP_SNAP_FULL;
        } else {
            char *rest;
            unsigned long long n = strtoull(arg, &rest, 10);
            if (*arg < '0' || *arg > '9' || *rest || n < 64 || n >= PCAP_SNAP_FULL)
                return cli_usage_error("--pcap-snaplen '%s': use headers, full or a number of "
                                       "bytes from 64",
                                       arg);
            o->pcap_snaplen = (uint32_t)n;
        }
        return 0;
    case OPT_AGAINST:
        o->against = arg;
        return 0;
    case OPT_TRACE:
        o->trace = arg;
        return 0;
    case OPT_TRACE_MAX:
        if (cli_parse_u64("--trace-max", arg, 1, UINT64_MAX, &v)) return 2;
        o->trace_max = v;
        return 0;
    case OPT_EXPLAIN:
        o->explain = true;
        return 0;
    case OPT_VERBOSE:
        o->verbose = true;
        return 0;
    case OPT_MAX_MEMORY:
        return cli_opt_max_memory(&o->max_memory, arg);
    }
    return cli_usage_error("internal: unhandled option %d", key);
}

static int parse_opts(int argc, char **argv, struct run_opts *o, const struct cli_cmd *c) {
    memset(o, 0, sizeof *o);
    o->pcap_snaplen = PCAP_SNAP_FULL;
    o->l.sets = fs_xcalloc((size_t)argc + 2, sizeof *o->l.sets);
    char **pos = fs_xcalloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    int rc = cli_parse(c, argc, argv, on_opt, o, pos, &npos);
    for (int i = 0; !rc && i < npos; i++) {
        if (o->l.file)
            rc = cli_usage_error("%s: one scenario file at a time ('%s' is a second one)", c->name,
                                 pos[i]);
        else
            o->l.file = pos[i];
    }
    free(pos);
    if (rc) return rc;
    if (o->seed_set[0])
        o->l.sets[o->l.nsets++] = o->seed_set; /* last, so it wins over a --set seed= */
    if (!o->l.file)
        return cli_usage_error("%s: missing SCENARIO.yaml (fabsim %s --help)", c->name, c->name);
    return 0;
}

static void on_progress(const struct model *m, void *arg) {
    struct progress *p = arg;
    double el = wall_now_s() - p->phase_t0;
    progress_update(p, (double)m->sim.now_ps / 1e9, model_progress(m),
                    el > 0 ? (double)m->sim.events_run / el : 0.0);
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

/* The first folder of `dir` (itself or an ancestor) that does not exist yet,
 * into `top` ("" when dir exists): what results_mkdirs creates, removed
 * again by remove_created when the build fails. */
static void first_missing(const char *dir, char *top, size_t len) {
    char buf[4096];
    struct stat st;
    snprintf(buf, sizeof buf, "%s", dir);
    top[0] = 0;
    if (!stat(buf, &st)) return;
    snprintf(top, len, "%s", buf);
    for (char *p = buf + strlen(buf); p > buf; p--) {
        if (*p != '/') continue;
        *p = 0;
        if (!stat(buf, &st)) break;
        snprintf(top, len, "%s", buf);
    }
}

/* Removes the folders first_missing found, if still empty: a run that
 * fails before writing leaves no empty -o behind. */
static void remove_created(const char *dir, const char *top) {
    char buf[4096];
    size_t tl = strlen(top);
    snprintf(buf, sizeof buf, "%s", dir);
    while (tl && !rmdir(buf) && strlen(buf) > tl) {
        char *slash = strrchr(buf, '/');
        if (!slash) break;
        *slash = 0;
    }
}

/* Runs one loaded scenario into `out` (NULL = out/<name>). Exit status. The
 * output folder is created first, so that a folder that cannot be created
 * fails before the run; results.json is written even when a trace or pcap
 * write failed (exit 1 then); every output is atomic (core/file.h). */
static int run_one(const struct scenario *sc, const char *out, bool quiet, const struct run_opts *o,
                   struct progress *pr) {
    struct model m;
    struct diag d = {0};
    char dir[4096];
    if (out)
        snprintf(dir, sizeof dir, "%s", out);
    else
        snprintf(dir, sizeof dir, "out/%s", sc->name);
    char created[4096];
    first_missing(dir, created, sizeof created);
    if (results_mkdirs(dir)) {
        progress_done(pr);
        fprintf(stderr, "fabsim: %s: cannot create output folder: %s\n", dir, strerror(errno));
        remove_created(dir, created);
        return 2;
    }
    sig_rmdirs_on_exit(dir, created); /* a signal while building leaves none either */
    int rc = check_collision("--trace", o->trace, dir);
    if (!rc) rc = check_collision("--pcap", o->pcap, dir);
    if (rc) {
        progress_done(pr);
        remove_created(dir, created);
        return rc;
    }
    /* At large sizes the build takes seconds: say how big it is first. */
    char size[64];
    snprintf(size, sizeof size, "(%u hosts)", scenario_host_count(&sc->topo));
    progress_phase(pr, "building the model", size);
    /* Several ranks: each builds the model for its own part (par/par.h). */
    rc = o->comm ? model_build_rank(&m, sc, (uint32_t)o->comm->rank, (uint32_t)o->comm->size, &d)
                 : model_build(&m, sc, &d);
    sig_rmdirs_on_exit(NULL, NULL); /* the outputs are next */
    if (rc) {
        progress_done(pr);
        diag_print(&d, stderr);
        model_fini(&m);
        remove_created(dir, created);
        return rc == FS_EINTERNAL ? 1 : 2;
    }
    if (o->against) m.against = &o->against_log;
    /* A build that took long says so (and how big the model is). */
    if (pr->mode != PROGRESS_OFF && wall_now_s() - pr->phase_t0 >= 1.0) {
        char what[96];
        snprintf(what, sizeof what, "building the model (%u nodes, %u ports)", m.net.nnodes,
                 m.net.nports);
        pr->phase = what;
        progress_end_phase(pr, 0);
    } else {
        progress_end_phase(pr, pr->mode == PROGRESS_LINES ? 0 : 1e30);
    }
    struct pcap_sink pcap = {0};
    struct ctrace_sink ct = {0};
    /* Several ranks: rank 0 writes the files (par/ptrace.c). */
    bool sinks = !o->comm || o->comm->rank == 0;
    if (o->pcap && sinks)
        rc = pcap_sink_open(&pcap, &m.net, o->pcap, o->pcap_filter, o->pcap_max, o->pcap_max_bytes,
                            o->pcap_snaplen, &d);
    if (!rc && o->trace && sinks) rc = ctrace_sink_open(&ct, &m.net, o->trace, o->trace_max, &d);
    if (rc) { /* a bad --pcap-filter is input (2); a file that cannot be written, 1 */
        progress_done(pr);
        diag_print(&d, stderr);
        pcap_sink_abort(&pcap, &m.net);
        model_fini(&m);
        return rc == FS_EINTERNAL ? 1 : 2;
    }
    if (o->comm) { /* one simulation on the ranks of o->comm (par/par.h) */
        if (par_setup(&m, o->comm, o->lookahead_ps, &d)) {
            progress_done(pr);
            if (o->comm->rank == 0) diag_print(&d, stderr);
            pcap_sink_abort(&pcap, &m.net);
            if (o->trace && sinks) ctrace_sink_abort(&ct, &m.net);
            model_fini(&m);
            return 2;
        }
        if (o->comm->size > 1 && (o->pcap || o->trace))
            par_trace_start(
                &m.net,
                (o->pcap ? (o->pcap_max ? o->pcap_max : PCAP_MAX_PACKETS_DEFAULT) : 0) +
                    (o->trace ? (o->trace_max ? o->trace_max : CTRACE_MAX_EVENTS_DEFAULT) : 0));
        if (!quiet) par_print(&m, stdout, o->verbose);
        progress_phase(pr, "running", NULL);
        double t0 = wall_now_s();
        if (par_run(&m)) {
            progress_done(pr);
            if (o->comm->rank == 0)
                fprintf(stderr,
                        "fabsim: not yet supported with N>1 ranks: %s (run it on one "
                        "process)\n",
                        m.net.par->refused);
            pcap_sink_abort(&pcap, &m.net);
            if (o->trace && sinks) ctrace_sink_abort(&ct, &m.net);
            model_fini(&m);
            return 2;
        }
        m.wall_s = wall_now_s() - t0;
        if (o->comm->rank != 0) { /* rank 0 writes; the last rank, links.csv (par/pwrite.c) */
            progress_done(pr);
            rc = par_write_dir(&m, dir, &d);
            if (rc) diag_print(&d, stderr);
            model_fini(&m);
            return rc ? (rc == FS_EINTERNAL ? 1 : 2) : 0;
        }
    } else {
        progress_phase(pr, "running", NULL);
        model_run(&m, pr->mode != PROGRESS_OFF ? on_progress : NULL, pr);
    }
    progress_end_phase(pr, pr->mode == PROGRESS_LINES ? 0 : 1e30);
    progress_phase(pr, "writing", NULL);
    int status = 0;
    if (o->pcap) {
        unsigned nif = pcap.nifaces;
        if (pcap_sink_close(&pcap, &m.net)) {
            progress_done(pr);
            fprintf(stderr, "fabsim: %s: write failed: %s\n", o->pcap, strerror(errno));
            status = 1;
        } else if (!quiet) {
            progress_done(pr);
            printf("  pcap: %s (pcapng%s, %llu packets on %u links, %s", o->pcap,
                   pcap.gz ? " gzip" : "", (unsigned long long)pcap.written, nif,
                   o->pcap_snaplen == PCAP_SNAP_HEADERS ? "headers only"
                   : o->pcap_snaplen == PCAP_SNAP_FULL  ? "whole packets"
                                                        : "cut at --pcap-snaplen");
            if (pcap.dropped)
                printf("; capped by --pcap-max: %llu more not written",
                       (unsigned long long)pcap.dropped);
            if (pcap.over_budget)
                printf("; capped by --pcap-max-bytes: %llu more not written%s",
                       (unsigned long long)pcap.over_budget,
                       pcap.gz ? "" : "; a FILE ending in .gz holds ~58 times more");
            printf(")\n");
        }
    }
    if (o->trace) {
        if (ctrace_sink_close(&ct, &m.net)) {
            progress_done(pr);
            fprintf(stderr, "fabsim: %s: write failed: %s\n", o->trace, strerror(errno));
            status = 1;
        } else if (!quiet) {
            progress_done(pr);
            printf("  trace: %s (%llu events%s)\n", o->trace, (unsigned long long)ct.written,
                   ct.dropped ? ", capped by --trace-max" : "");
        }
    }
    rc = o->comm ? par_write_dir(&m, dir, &d) : results_write_dir(&m, dir, &d);
    progress_done(pr);
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
static int load_one(int argc, char **argv, struct run_opts *o, const struct cli_cmd *c,
                    struct scenario *sc, struct progress *pr) {
    int rc = parse_opts(argc, argv, o, c);
    if (rc) return rc;
    if (pr) progress_init(pr, o->quiet, o->progress, o->progress_s);
    /* Before building: a fabric too large for the machine fails now. */
    return cli_load_scenario(sc, &o->l, true, o->max_memory, pr);
}

static int run_cmd(int argc, char **argv, const struct comm *c, uint64_t lookahead_ps) {
    struct run_opts o;
    struct scenario sc;
    struct progress pr;
    int rc = load_one(argc, argv, &o, &CLI_CMD_RUN, &sc, &pr);
    if (rc) {
        free(o.l.sets);
        return rc == CLI_HELP ? 0 : rc;
    }
    o.comm = c;
    o.lookahead_ps = lookahead_ps;
    if (o.against) { /* a log that cannot be read fails before the run */
        struct diag d = {0};
        if (nccl_log_read(&o.against_log, o.against, &d)) {
            if (!c || c->rank == 0) diag_print(&d, stderr);
            scenario_fini(&sc);
            free(o.l.sets);
            return 2;
        }
    }
    bool quiet = o.quiet || (c && c->rank != 0);
    if (c && c->rank != 0) pr.mode = PROGRESS_OFF;
    rc = run_one(&sc, o.out, quiet, &o, &pr);
    nccl_log_fini(&o.against_log);
    scenario_fini(&sc);
    free(o.l.sets);
    return rc;
}

/* Under `mpirun -n N fabsim run` (N > 1): the same run on N ranks is
 * fabsim-mpi's, the one binary that links MPI (build/fabsim never needs it at
 * run time). It is taken from the folder of this executable; replaces this
 * process (same arguments), or returns when there is none. */
static void exec_mpi_binary(int argc, char **argv) {
    char self[PATH_MAX], mpi[PATH_MAX + 16];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return;
    self[len] = 0;
    char *slash = strrchr(self, '/');
    if (!slash) return;
    slash[1] = 0;
    snprintf(mpi, sizeof mpi, "%sfabsim-mpi", self);
    if (access(mpi, X_OK)) return;
    char **args = fs_xcalloc((size_t)argc + 2, sizeof *args);
    args[0] = mpi;
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i]; /* argv[0] is "run" */
    fflush(NULL);
    execv(mpi, args);
    free(args); /* exec failed: say so below */
}

int cli_run(int argc, char **argv) {
    /* Started by mpirun: N copies of one process would each run the whole
     * scenario and write the same files. */
    const char *ws = getenv("OMPI_COMM_WORLD_SIZE");
    if (!ws) ws = getenv("PMI_SIZE");
    if (ws && atoi(ws) > 1) {
        exec_mpi_binary(argc, argv);
        return cli_usage_error("run: build/fabsim is the one-process binary and no fabsim-mpi "
                               "is beside it; `make mpi` builds it (Open MPI's mpicc), then "
                               "mpirun -n %s build/fabsim run ... runs on %s ranks",
                               ws, ws);
    }
    return run_cmd(argc, argv, NULL, 0);
}

int cli_run_par(int argc, char **argv, const struct comm *c, unsigned long long lookahead_ps) {
    return run_cmd(argc, argv, c, lookahead_ps);
}

int cli_validate(int argc, char **argv) {
    struct run_opts o;
    struct scenario sc;
    struct diag d = {0};
    int rc = load_one(argc, argv, &o, &CLI_CMD_VALIDATE, &sc, NULL);
    free(o.l.sets);
    if (rc) return rc == CLI_HELP ? 0 : rc;
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
    else if (!o.quiet)
        printf("%s: ok\n", o.l.file);
    if (rc == FS_ENOTSUP) {
        fprintf(stderr, "fabsim: note: ");
        diag_print(&d, stderr);
    }
    scenario_fini(&sc);
    return 0;
}

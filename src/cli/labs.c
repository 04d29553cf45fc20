/* src/cli/labs.c
 *
 * `fabsim labs`, `fabsim report` and `fabsim compare`. Labs and compare run
 * each scenario in a child process (up to -j at a time), so that a mechanism
 * that aborts or is not built yet costs one scenario, never the whole run:
 * the child writes DIR/<lab>/<scenario>/status.json ("ok", "not_available"
 * with the reason, or "error"), results.json and links.csv; the parent then
 * builds report.html from the folder (report/).
 */
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/progress.h"
#include "config/scenario.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/sig.h"
#include "core/mem.h"
#include "model/estimate.h"
#include "model/model.h"
#include "report/jread.h"
#include "report/lab.h"
#include "report/report.h"
#include "core/jw.h"
#include "stats/results.h"
#include "core/wall.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A scenario taking longer than this (wall clock) is stopped and reported
 * as an error: the whole of `make demo` must stay within a few minutes. */
#define LABS_TIMEOUT_S 150

struct job {
    char *lab, *id, *file, *outdir, *label;
    const char **sets;
    size_t nsets;
    bool own_sets;   /* sets allocated for this job (the lab's run sets + --set) */
    size_t nlabsets; /* of which the lab's own (lab.yaml runs: set:) come first */
    pid_t pid;
    double t0;
    int status; /* 0 ok, 1 not available, 2 error, JOB_INTERRUPTED never started */
};
#define JOB_INTERRUPTED 3

struct jobs {
    struct job *v;
    size_t n, cap;
};

static int write_text(const char *path, const char *text) {
    struct fs_out o; /* core/file.h: atomic, never through a symlink */
    if (fs_out_open(&o, path)) return -1;
    fputs(text, o.f);
    return fs_out_commit(&o);
}

static bool is_dir(const char *p) {
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

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

static void write_status(const char *dir, const char *status, const char *message,
                         const char *label, double wall_s) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/status.json", dir);
    struct fs_out o;
    if (fs_out_open(&o, path)) return;
    struct jw w;
    jw_init(&w, o.f);
    jw_obj(&w);
    jw_kstr(&w, "status", status);
    jw_kstr(&w, "message", message ? message : "");
    if (label) jw_kstr(&w, "label", label);
    jw_knum(&w, "wall_s", wall_s);
    jw_obj_end(&w);
    jw_end(&w);
    fs_out_commit(&o);
}

/* In the child: load, build, run, write. Exit code 0 ok, 3 not available,
 * 2 error in the input, 1 internal. status.json is written in every case. */
static int child_run(const struct job *j) {
    struct scenario sc;
    struct diag d = {0};
    char msg[1100];
    double t0 = wall_now_s();
    int rc = scenario_load(&sc, j->file, j->sets, j->nsets, &d);
    if (rc) {
        diag_format(&d, msg, sizeof msg);
        /* A `labs --set` change that this run's scenario does not take (a ring
         * key on a leaf-spine): the run is left out, saying why. */
        if (rc == FS_EINVAL && !strcmp(d.file, "--set") && d.line > j->nlabsets) {
            char why[1200];
            snprintf(why, sizeof why, "not run: the --set change does not apply here (%s)", msg);
            write_status(j->outdir, REPORT_NOT_RUN, why, j->label, 0);
            return 3;
        }
        bool notyet = rc == FS_ENOTSUP || rc == FS_EINVAL || rc == FS_ERANGE;
        write_status(j->outdir, notyet ? REPORT_NOT_AVAILABLE : REPORT_ERROR, msg, j->label, 0);
        return notyet ? 3 : 2;
    }
    struct model m;
    rc = scenario_check_memory(&sc, 0, &d); /* model/estimate.h: before building */
    if (rc) {
        diag_format(&d, msg, sizeof msg);
        scenario_fini(&sc);
        write_status(j->outdir, REPORT_ERROR, msg, j->label, 0);
        return 2;
    }
    rc = model_build(&m, &sc, &d);
    if (rc) {
        diag_format(&d, msg, sizeof msg);
        model_fini(&m);
        scenario_fini(&sc);
        bool notyet = rc == FS_ENOTSUP || rc == FS_EINVAL;
        write_status(j->outdir, notyet ? REPORT_NOT_AVAILABLE : REPORT_ERROR, msg, j->label, 0);
        return notyet ? 3 : 1;
    }
    model_run(&m, NULL, NULL);
    rc = results_write_dir(&m, j->outdir, &d);
    if (rc) {
        diag_format(&d, msg, sizeof msg);
        write_status(j->outdir, REPORT_ERROR, msg, j->label, wall_now_s() - t0);
    } else if (m.interrupted) {
        /* Ctrl-C reaches the whole process group: the run ended early and
         * its results are partial, so the report must not read them as the
         * scenario's (`fabsim run` exits 128 + signal for the same reason). */
        snprintf(msg, sizeof msg, "stopped by signal %d (%s) before the end: results partial",
                 m.interrupted, strsignal(m.interrupted));
        write_status(j->outdir, REPORT_ERROR, msg, j->label, wall_now_s() - t0);
        rc = 1;
    } else {
        write_status(j->outdir, REPORT_OK, "", j->label, wall_now_s() - t0);
    }
    model_fini(&m);
    scenario_fini(&sc);
    return rc ? 1 : 0;
}

static void start_job(struct job *j) {
    char path[PATH_MAX];
    fs_unlink_symlink(j->outdir); /* a planted link: the run goes into a real folder */
    results_mkdirs(j->outdir);
    snprintf(path, sizeof path, "%s/results.json", j->outdir);
    unlink(path); /* never report a stale run */
    snprintf(path, sizeof path, "%s/links.csv", j->outdir);
    unlink(path);
    snprintf(path, sizeof path, "%s/status.json", j->outdir);
    unlink(path);
    char *text = fs_read_file(j->file, NULL);
    if (text) {
        snprintf(path, sizeof path, "%s/scenario.yaml", j->outdir);
        write_text(path, text);
        free(text);
    }
    fflush(NULL);
    j->t0 = wall_now_s();
    pid_t pid = fork();
    if (pid == 0) {
        /* Loading and building exit at once on a signal; the run stops
         * cleanly (model_run) and writes its partial results. */
        sig_set_mode(SIG_MODE_EXIT);
        alarm(LABS_TIMEOUT_S);
        int rc = child_run(j);
        fflush(NULL);
        _exit(rc);
    }
    j->pid = pid;
    if (pid < 0) { /* no fork: run here */
        int rc = child_run(j);
        j->status = rc == 0 ? 0 : rc == 3 ? 1 : 2;
        j->pid = 0;
    }
}

static void finish_job(struct job *j, int wstatus) {
    char msg[256];
    if (WIFEXITED(wstatus)) {
        int rc = WEXITSTATUS(wstatus);
        j->status = rc == 0 ? 0 : rc == 3 ? 1 : 2;
        /* 128 + SIGINT/SIGTERM: stopped while loading or building (core/sig.h),
         * before it could write its status. */
        if (rc == 128 + SIGINT || rc == 128 + SIGTERM) {
            snprintf(msg, sizeof msg, "stopped by signal %d (%s) before the end: no results",
                     rc - 128, strsignal(rc - 128));
            write_status(j->outdir, REPORT_ERROR, msg, j->label, wall_now_s() - j->t0);
        }
        return;
    }
    int sig = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
    if (sig == SIGINT || sig == SIGTERM)
        snprintf(msg, sizeof msg, "stopped by signal %d (%s) before the end: no results", sig,
                 strsignal(sig));
    else if (sig == SIGALRM)
        snprintf(msg, sizeof msg, "stopped after %d s of wall-clock time (make it smaller)",
                 LABS_TIMEOUT_S);
    else
        snprintf(msg, sizeof msg,
                 "the simulator died (signal %d: %s); run `fabsim run %s` to see why", sig,
                 strsignal(sig), j->file);
    write_status(j->outdir, REPORT_ERROR, msg, j->label, wall_now_s() - j->t0);
    j->status = 2;
}

/* After run_jobs: a batch stopped by SIGINT/SIGTERM (no new run started,
 * the running ones ended early and say so in their status) ends with 128 +
 * the signal, as `fabsim run` does, after its report of what finished. */
static int batch_status(const char *cmd, int rc, const size_t counts[3]) {
    int sig = sig_pending();
    if (sig) {
        fprintf(stderr,
                "fabsim %s: stopped by signal %d (%s); the report shows the runs that "
                "finished\n",
                cmd, sig, strsignal(sig));
        return 128 + sig;
    }
    return rc ? rc : counts[2] ? 1 : 0;
}

/* Progress of a batch: PROGRESS_TTY redraws a bar with elapsed time and
 * ETA; PROGRESS_LINES prints one line per finished scenario (logs). */
static void bar(size_t done, size_t total, const char *what, double t0) {
    int width = 30, fill = total ? (int)((size_t)width * done / total) : width;
    char b[64], el[32], eta[32] = "?";
    for (int i = 0; i < width; i++)
        b[i] = i < fill ? '#' : '.';
    b[width] = 0;
    double s = wall_now_s() - t0;
    progress_fmt_s(s, el, sizeof el);
    if (done) progress_fmt_s(s * (double)(total - done) / (double)done, eta, sizeof eta);
    fprintf(stderr, "\r\033[K  [%s] %zu/%zu  elapsed %s  ETA %s  %.40s", b, done, total, el, eta,
            what);
}

static void job_line(const struct job *j, size_t done, size_t total, double t0) {
    static const char *const st[] = {"ok", "not yet available", "FAILED"};
    char el[32], took[32];
    progress_fmt_s(wall_now_s() - t0, el, sizeof el);
    progress_fmt_s(wall_now_s() - j->t0, took, sizeof took);
    fprintf(stderr, "fabsim: [%s] %zu/%zu %s/%s: %s (%s)\n", el, done, total, j->lab, j->id,
            st[j->status], took);
}

/* The jobs a signal kept from starting say so (status JOB_INTERRUPTED and
 * a status.json "not_run" naming the signal), rather than keep an older
 * run's results or read as "ok". */
static void mark_not_started(struct jobs *js, size_t from) {
    char msg[160], path[PATH_MAX];
    snprintf(msg, sizeof msg, "interrupted: stopped by signal %d (%s) before this run started",
             sig_pending(), strsignal(sig_pending()));
    for (size_t i = from; i < js->n; i++) {
        struct job *j = &js->v[i];
        j->status = JOB_INTERRUPTED;
        fs_unlink_symlink(j->outdir);
        results_mkdirs(j->outdir);
        snprintf(path, sizeof path, "%s/results.json", j->outdir);
        unlink(path);
        snprintf(path, sizeof path, "%s/links.csv", j->outdir);
        unlink(path);
        write_status(j->outdir, REPORT_NOT_RUN, msg, j->label, 0);
    }
}

/* Runs every job, `par` at a time. Counts per status in counts[3] (the
 * jobs a signal kept from starting are not counted). */
static void run_jobs(struct jobs *js, int par, enum progress_mode show, size_t counts[3]) {
    size_t next = 0, running = 0, done = 0;
    enum sig_mode prev = sig_set_mode(SIG_MODE_FLAG); /* polled below */
    double t0 = wall_now_s();
    char what[160] = "";
    bool tty = show == PROGRESS_TTY;
    counts[0] = counts[1] = counts[2] = 0;
    while (done < js->n) {
        /* After SIGINT/SIGTERM no new job starts; running ones end early
         * themselves (the signal reaches the whole process group on Ctrl-C). */
        while (running < (size_t)par && next < js->n && !sig_pending()) {
            struct job *j = &js->v[next++];
            snprintf(what, sizeof what, "%s/%s", j->lab, j->id);
            if (tty) bar(done, js->n, what, t0);
            start_job(j);
            if (j->pid > 0) {
                running++;
            } else {
                counts[j->status]++;
                done++;
                if (show == PROGRESS_LINES) job_line(j, done, js->n, t0);
            }
        }
        if (!running) {
            if (sig_pending()) break;
            continue;
        }
        int ws;
        pid_t pid = wait(&ws);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (size_t i = 0; i < next; i++) {
            struct job *j = &js->v[i];
            if (j->pid != pid) continue;
            finish_job(j, ws);
            j->pid = 0;
            counts[j->status]++;
            running--;
            done++;
            if (tty) bar(done, js->n, what, t0);
            if (show == PROGRESS_LINES) job_line(j, done, js->n, t0);
            break;
        }
    }
    if (tty) fputs("\r\033[K", stderr);
    if (sig_pending()) mark_not_started(js, next);
    sig_set_mode(prev);
}

static enum progress_mode show_mode(bool quiet, bool lines) {
    return quiet ? PROGRESS_OFF : lines ? PROGRESS_LINES : isatty(2) ? PROGRESS_TTY : PROGRESS_OFF;
}

static void free_jobs(struct jobs *js) {
    for (size_t i = 0; i < js->n; i++) {
        struct job *j = &js->v[i];
        free(j->lab), free(j->id), free(j->file), free(j->outdir), free(j->label);
        if (j->own_sets) free((void *)j->sets);
    }
    free(js->v);
}

static struct job *add_job(struct jobs *js) {
    fs_grow((void **)&js->v, &js->cap, js->n + 1, sizeof *js->v);
    struct job *j = &js->v[js->n++];
    memset(j, 0, sizeof *j);
    return j;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **list_dir(const char *dir, bool dirs, const char *suffix, size_t *n) {
    *n = 0;
    DIR *dp = opendir(dir);
    if (!dp) return NULL;
    char **v = NULL;
    size_t cap = 0;
    struct dirent *e;
    char path[PATH_MAX];
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (is_dir(path) != dirs) continue;
        size_t l = strlen(e->d_name), sl = suffix ? strlen(suffix) : 0;
        if (suffix && (l <= sl || strcmp(e->d_name + l - sl, suffix))) continue;
        fs_grow((void **)&v, &cap, *n + 1, sizeof *v);
        v[(*n)++] = fs_xstrdup(e->d_name);
    }
    closedir(dp);
    if (*n) qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

/* Output folders of scenarios that no longer exist in the lab (renamed or
 * removed) would still show in the report: remove them. Only folders holding
 * a status.json (written by a run) are touched, and only their files; a link
 * is removed itself, never followed (core/file.h fs_remove_run_dir). */
static void remove_stale(const char *out, const char *lab, char *const *keep, size_t nkeep) {
    char dir[PATH_MAX], p[PATH_MAX * 2];
    snprintf(dir, sizeof dir, "%s/%s", out, lab);
    size_t n;
    char **sub = list_dir(dir, true, NULL, &n);
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
        if (is_dir(path) && snprintf(out, len, "%s", path) < (int)len) return 0;
    }
    if (is_dir(rel)) {
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
        if (is_dir(path) && snprintf(out, len, "%s", path) < (int)len) return 0;
    }
    for (int up = 0; up < 5; up++) {
        slash = strrchr(exe, '/');
        if (!slash) break;
        *slash = 0;
        snprintf(path, sizeof path, "%s/%s", exe, rel);
        if (is_dir(path) && snprintf(out, len, "%s", path) < (int)len) return 0;
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

static int default_jobs(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

static int build_report(const char *dir, bool quiet) {
    struct report r;
    struct diag d = {0};
    int rc = report_load(&r, dir, &d);
    if (!rc) rc = report_write(&r, &d);
    if (rc) {
        diag_print(&d, stderr);
        report_fini(&r);
        return rc == FS_ENOENT || rc == FS_EINVAL ? 2 : 1; /* bad input: 2 */
    }
    if (!quiet && r.nfindings) report_print_findings(&r, stdout);
    report_fini(&r);
    return 0;
}

enum { OPT_ONLY = CLI_LONG, OPT_LABS_DIR, OPT_DOCS_DIR, OPT_PROGRESS };

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

static int parse_jobs(const char *v, int *out) {
    unsigned long long n;
    if (cli_parse_u64("-j/--jobs", v, 1, 64, &n)) return 2;
    *out = (int)n;
    return 0;
}

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
    char **files = list_dir(path, false, ".yaml", &nf);
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

/* 0 when run `it` of a lab loads with the labs --set changes; else its
 * error in `d` (when it is one of those changes: a bad value, an unknown
 * key) and FS_EINVAL, or 1 (another error: the run itself reports it). */
static int item_takes_sets(const struct lab_item *it, const char **gsets, size_t ngsets,
                           struct diag *d) {
    const char **sets = fs_xcalloc(it->nsets + ngsets + 1, sizeof *sets);
    size_t n = 0;
    for (size_t q = 0; q < it->nsets; q++)
        sets[n++] = it->sets[q];
    for (size_t q = 0; q < ngsets; q++)
        sets[n++] = gsets[q];
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

struct labs_opts {
    const char *out, *labs_dir, *docs_dir;
    const char **only, **gsets;
    size_t nonly, ngsets;
    int par;
    bool quiet, progress;
};

static int labs_opt(void *ctx, int key, const char *arg) {
    struct labs_opts *o = ctx;
    switch (key) {
    case 'o':
        o->out = arg;
        return 0;
    case 'j':
        return parse_jobs(arg, &o->par);
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
    }
    return cli_usage_error("internal: unhandled option %d", key);
}

int cli_labs(int argc, char **argv) {
    struct labs_opts o = {.out = "out/labs", .par = default_jobs()};
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

    struct jobs js = {0};
    size_t nl;
    char **labs = list_dir(lroot, true, NULL, &nl);
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
                write_status(path, REPORT_NOT_RUN, "not run (left out by --only)", items[k].label,
                             0);
                continue;
            }
            struct job *j = add_job(&js);
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
                for (size_t q = 0; q < ngsets; q++)
                    j->sets[j->nsets++] = gsets[q];
            }
        }
        if (any) {
            snprintf(path, sizeof path, "%s/%s", out, labs[i]);
            fs_unlink_symlink(path);
            results_mkdirs(path);
            remove_stale(out, labs[i], folders, ni);
            char src[PATH_MAX + 300], dst[PATH_MAX + 300];
            snprintf(src, sizeof src, "%s/%s.md", droot, labs[i]);
            snprintf(dst, sizeof dst, "%s/%s/lab.md", out, labs[i]);
            char *md = droot[0] ? fs_read_file(src, NULL) : NULL;
            if (md) {
                write_text(dst, md);
                free(md);
            }
            snprintf(src, sizeof src, "%s/%s/lab.yaml", lroot, labs[i]);
            snprintf(dst, sizeof dst, "%s/%s/lab.yaml", out, labs[i]);
            char *y = has_def[i] ? fs_read_file(src, NULL) : NULL;
            if (y) {
                write_text(dst, y);
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
        free_jobs(&js);
        return 2;
    }
    free(only);
    if (!js.n) {
        free_jobs(&js);
        for (size_t i = 0; i < nl; i++) {
            if (has_def[i]) lab_fini(&defs[i]);
            free(labs[i]);
        }
        free(labs), free(defs), free(has_def), free(gsets);
        return cli_usage_error("labs: no scenario matched (looked in %s)", lroot);
    }
    if (results_mkdirs(out)) {
        free_jobs(&js);
        return cli_usage_error("labs: cannot create %s: %s", out, strerror(errno));
    }
    snprintf(path, sizeof path, "%s/mode", out);
    write_text(path, "labs\n");
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
    run_jobs(&js, par, show_mode(quiet, o.progress), counts);
    if (!quiet) {
        printf("fabsim labs: %zu ran, %zu not yet available, %zu failed, in %.0f s\n", counts[0],
               counts[1], counts[2], wall_now_s() - t0);
        for (size_t i = 0; i < js.n; i++)
            if (js.v[i].status == 2)
                printf("  FAILED %s/%s (see %s/status.json)\n", js.v[i].lab, js.v[i].id,
                       js.v[i].outdir);
    }
    rc = build_report(out, quiet);
    if (!rc && !quiet) printf("\nReport: %s/report.html\n", out);
    free_jobs(&js);
    for (size_t i = 0; i < nl; i++) {
        if (has_def[i]) lab_fini(&defs[i]);
        free(labs[i]);
    }
    free(labs), free(defs), free(has_def), free(gsets);
    return batch_status("labs", rc, counts);
}

static const struct cli_opt REPORT_OPTS[] = {
    {"quiet", 'q', NULL, "print nothing but errors"},
    {0},
};

const struct cli_cmd CLI_CMD_REPORT = {
    "report",
    "DIR",
    "(re)build DIR/report.html from a folder written by labs, compare, sweep or run",
    NULL,
    REPORT_OPTS,
    "fabsim report out/labs",
    cli_report,
};

static int quiet_opt(void *ctx, int key, const char *arg) {
    (void)arg;
    if (key != 'q') return cli_usage_error("internal: unhandled option %d", key);
    *(bool *)ctx = true;
    return 0;
}

int cli_report(int argc, char **argv) {
    bool quiet = false;
    char **pos = fs_xcalloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    int rc = cli_parse(&CLI_CMD_REPORT, argc, argv, quiet_opt, &quiet, pos, &npos);
    const char *dir = npos == 1 ? pos[0] : NULL;
    free(pos);
    if (rc) return rc == CLI_HELP ? 0 : rc;
    if (!dir)
        return cli_usage_error("usage: fabsim report DIR (a folder written by fabsim labs, "
                               "compare or run)");
    rc = build_report(dir, quiet);
    if (!rc && !quiet) printf("Report: %s/report.html\n", dir);
    return rc;
}

/* ---- compare ---------------------------------------------------------- */

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

static void sanitize(char *s) {
    for (; *s; s++)
        if (*s == '/' || *s == ' ' || *s == '+' || *s == '*' || *s == '?') *s = '_';
}

/* The summary metrics of results.json that compare prints (name) and
 * sweep.csv holds (col): the path and its scale, -1 for a boolean (1 or 0). */
static const struct {
    const char *name, *col, *path;
    double scale;
} SUMMARY_COLS[] = {
    {"completed (1 = yes)", "completed", "summary.completed", -1},
    {"done (us)", "done_us", "summary.done_ns", 1e-3},
    {"simulated (us)", "sim_time_us", "summary.sim_time_ns", 1e-3},
    {"packets delivered", "packets_delivered", "summary.packets_delivered", 1},
    {"packets dropped", "packets_dropped", "summary.packets_dropped", 1},
    {"retransmitted", "retransmitted_packets", "summary.retransmitted_packets", 1},
    {"pause frames", "pause_frames", "summary.pause_frames", 1},
    {"paused, all links (us)", "paused_us_total", "summary.paused_ns_total", 1e-3},
    {"ECN marked", "ecn_marked", "summary.ecn_marked", 1},
    {"CNPs", "cnps", "summary.cnps", 1},
    {"credit stalls (us)", "credit_stall_us_total", "summary.credit_stall_ns_total", 1e-3},
    {"reorder max (B)", "reorder_max_bytes", "summary.reorder_max_bytes", 1},
    {"deadlock (1 = yes)", "deadlock", "summary.deadlock.detected", -1},
    /* the first failure and the first job (empty when the run has none) */
    {"failure at (us)", "failure_at_us", "control_plane.0.at_ns", 1e-3},
    {"rerouted at (us)", "rerouted_at_us", "control_plane.0.rerouted_at_ns", 1e-3},
    {"local reroute at (us)", "local_reroute_at_us", "control_plane.0.local_reroute_at_ns", 1e-3},
    {"job 0 stall (us)", "job_stall_us", "jobs.0.stalled_ns", 1e-3},
};
#define NSUMMARY_COLS (sizeof SUMMARY_COLS / sizeof SUMMARY_COLS[0])

static void print_compare_table(const struct jobs *js) {
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
    for (size_t r = 0; r < NSUMMARY_COLS; r++) {
        const char *p = SUMMARY_COLS[r].path;
        double vals[16];
        for (size_t i = 0; i < n; i++)
            vals[i] = NAN;
        printf("%-24s", SUMMARY_COLS[r].name);
        for (size_t i = 0; i < n; i++) {
            if (!res[i]) {
                printf(" %*s", w,
                       js->v[i].status == 1                 ? "not yet available"
                       : js->v[i].status == JOB_INTERRUPTED ? "interrupted"
                                                            : "failed");
                continue;
            }
            double v = SUMMARY_COLS[r].scale < 0
                           ? jv_bool_at(res[i], p, false)
                           : jv_num_at(res[i], p, NAN) * SUMMARY_COLS[r].scale;
            vals[i] = v;
            if (isnan(v))
                printf(" %*s", w, "-");
            else
                printf(" %*.6g", w, v);
        }
        /* the ratio to the first variant: "-" for flags, a zero or no value */
        for (size_t i = 1; i < n; i++) {
            bool num = SUMMARY_COLS[r].scale > 0 && res[0] && res[i] && !isnan(vals[0]) &&
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
static size_t config_diff(const struct jobs *js, const char *out, bool print) {
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
        return parse_jobs(arg, &o->par);
    case 'q':
        o->quiet = true;
        return 0;
    }
    return cli_usage_error("internal: unhandled option %d", key);
}

/* compare and sweep: every variant's scenario is loaded before any runs, so
 * that a typo in a file or a --set value is bad input (its message, exit 2)
 * and not a column of "not yet available". Only a feature fabsim does not
 * model yet (FS_ENOTSUP) is left to the run, which reports it as such. */
static int check_jobs_load(const struct jobs *js) {
    for (size_t i = 0; i < js->n; i++) {
        struct scenario sc;
        struct diag d = {0};
        int rc = scenario_load(&sc, js->v[i].file, js->v[i].sets, js->v[i].nsets, &d);
        if (!rc) {
            scenario_fini(&sc);
            continue;
        }
        if (rc == FS_ENOTSUP) continue;
        diag_print(&d, stderr);
        return 2;
    }
    return 0;
}

int cli_compare(int argc, char **argv) {
    struct compare_opts o = {.out = "out/compare", .par = default_jobs()};
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
    struct jobs js = {0};
    char path[PATH_MAX];
    size_t counts[3] = {0, 0, 0};
    int rc = 2;
    /* Variant sets live in this buffer: split_variant writes NULs into copies. */
    char **copies = fs_xcalloc(nsets + 1, sizeof *copies);
    size_t nvariants = nfiles > 1 ? nfiles : nsets;
    for (size_t v = 0; v < nvariants; v++) {
        struct job *j = add_job(&js);
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
            sanitize(id);
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
            sanitize(id);
            j->id = fs_xstrdup(id);
            j->label = fs_xstrdup(sets[v]);
        }
        snprintf(path, sizeof path, "%s/compare/%s", out, j->id);
        j->outdir = fs_xstrdup(path);
    }
    if (check_jobs_load(&js)) goto done;
    snprintf(path, sizeof path, "%s/mode", out);
    /* A folder that cannot be created fails before any variant runs. */
    if (results_mkdirs(out) || write_text(path, "compare\n")) {
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
    run_jobs(&js, par, show_mode(quiet, false), counts);
    if (!quiet) print_compare_table(&js);
    rc = build_report(out, true);
    if (!rc && !quiet) printf("Report: %s/report.html\n", out);
done:
    for (size_t i = 0; i < js.n; i++)
        if (nfiles == 1) free((void *)js.v[i].sets);
    for (size_t i = 0; i < nsets; i++)
        free(copies[i]);
    free(copies);
    free(sets);
    free_jobs(&js);
    return batch_status("compare", rc, counts);
}

/* ---- sweep ------------------------------------------------------------ */

/* Splits "a,b,[1,2]" at the commas outside brackets and quotes. */
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

enum { OPT_SWEEP_PROGRESS = CLI_LONG };

static const struct cli_opt SWEEP_OPTS[] = {
    {"set", 's', "KEY=V1,V2,...",
     "sweep KEY over the values (repeatable: the runs are the cartesian\n"
     "product); commas inside [ ] or { } do not split; one value = fixed"},
    {"out", 'o', "DIR", "output folder (default: out/sweep)"},
    {"jobs", 'j', "N", "runs in parallel (default: the CPUs, at most 8)"},
    {"quiet", 'q', NULL, "print nothing but errors"},
    {"progress", OPT_SWEEP_PROGRESS, NULL,
     "one plain line per finished run, also when stderr is not a terminal"},
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
        return parse_jobs(arg, &o->par);
    case 'q':
        o->quiet = true;
        return 0;
    case OPT_SWEEP_PROGRESS:
        o->progress = true;
        return 0;
    }
    return cli_usage_error("internal: unhandled option %d", key);
}

struct axis {
    char *key;   /* "fabric.buffer" (owned copy of the --set text) */
    char **vals; /* pointers into the copy after '=' */
    size_t nvals;
};

static void write_sweep_csv(const char *path, const struct jobs *js, const struct axis *ax,
                            size_t nax, const size_t *const *pick) {
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
    for (size_t c = 0; c < NSUMMARY_COLS; c++)
        fprintf(f, ",%s", SUMMARY_COLS[c].col);
    fputc('\n', f);
    static const char *const st[] = {"ok", "not_available", "error", "interrupted"};
    for (size_t i = 0; i < js->n; i++) {
        const struct job *j = &js->v[i];
        char rpath[PATH_MAX + 16], err[128];
        snprintf(rpath, sizeof rpath, "%s/results.json", j->outdir);
        struct jv *res = j->status == 0 ? jread_file(rpath, err, sizeof err) : NULL;
        csv_field(f, j->id);
        for (size_t a = 0; a < nax; a++)
            fputc(',', f), csv_field(f, ax[a].vals[pick[i][a]]);
        fprintf(f, ",%s", st[j->status]);
        for (size_t c = 0; c < NSUMMARY_COLS; c++) {
            if (!res) {
                fputc(',', f);
            } else if (SUMMARY_COLS[c].scale < 0) {
                fprintf(f, ",%d", jv_bool_at(res, SUMMARY_COLS[c].path, false) ? 1 : 0);
            } else {
                double v = jv_num_at(res, SUMMARY_COLS[c].path, NAN);
                char num[64] = "";
                if (!isnan(v)) snprintf(num, sizeof num, "%.10g", v * SUMMARY_COLS[c].scale);
                fprintf(f, ",%s", num);
            }
        }
        fputc('\n', f);
        jread_free(res);
    }
    if (fs_out_commit(&o)) fprintf(stderr, "fabsim: %s: write failed: %s\n", path, strerror(errno));
}

int cli_sweep(int argc, char **argv) {
    struct sweep_opts o = {.out = "out/sweep", .par = default_jobs()};
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
    struct jobs js = {0};
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
        struct job *j = add_job(&js);
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
        sanitize(id);
        for (char *c = id; *c; c++)
            if (*c == '=' || *c == ',' || *c == '"' || *c == '\'') *c = '_';
        j->id = fs_xstrdup(id);
        j->label = fs_xstrdup(label[0] ? label : "run");
        snprintf(path, sizeof path, "%s/sweep/%s", o.out, j->id);
        j->outdir = fs_xstrdup(path);
    }
    size_t counts[3] = {0, 0, 0};
    if (!rc) rc = check_jobs_load(&js);
    if (!rc && results_mkdirs(o.out))
        rc = cli_usage_error("sweep: cannot create %s: %s", o.out, strerror(errno));
    if (!rc) {
        /* A previous sweep into the same folder must not show in the report;
         * links are removed themselves, never followed (core/file.h). */
        snprintf(path, sizeof path, "%s/sweep", o.out);
        fs_unlink_symlink(path);
        size_t nold;
        char **old = list_dir(path, true, NULL, &nold);
        for (size_t i = 0; i < nold; i++) {
            char p[PATH_MAX * 2];
            snprintf(p, sizeof p, "%s/%s", path, old[i]);
            fs_remove_run_dir(p);
            free(old[i]);
        }
        free(old);
        snprintf(path, sizeof path, "%s/mode", o.out);
        write_text(path, "sweep\n");
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
        run_jobs(&js, o.par, show_mode(o.quiet, o.progress), counts);
        snprintf(path, sizeof path, "%s/sweep.csv", o.out);
        write_sweep_csv(path, &js, ax, nax, (const size_t *const *)pick);
        rc = build_report(o.out, true);
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
    free_jobs(&js);
    return batch_status("sweep", rc, counts);
}

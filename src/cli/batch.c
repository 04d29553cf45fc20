/* src/cli/batch.c
 *
 * The runs of `labs`, `compare` and `sweep` (cli/batch.h): each scenario in
 * a child process, its status.json, the progress line, the clean-up after a
 * signal, and the report at the end.
 */
#include "cli/batch.h"

#include "cli/opts.h"
#include "config/scenario.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"
#include "core/sig.h"
#include "model/model.h"
#include "report/report.h"
#include "core/jw.h"
#include "stats/results.h"
#include "core/wall.h"

#include <dirent.h>
#include <errno.h>
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
#define BATCH_TIMEOUT_S 150

int batch_write_text(const char *path, const char *text) {
    struct fs_out o; /* core/file.h: atomic, never through a symlink */
    if (fs_out_open(&o, path)) return -1;
    fputs(text, o.f);
    return fs_out_commit(&o);
}

bool batch_is_dir(const char *p) {
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

void batch_write_status_set(const char *dir, const char *status, const char *message,
                            const char *label, const char *const *sets, size_t nsets,
                            double wall_s) {
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
    if (nsets) { /* KEY=VALUE overrides: the report plots a sweep's metrics against them */
        jw_key(&w, "set");
        jw_obj(&w);
        for (size_t i = 0; i < nsets; i++) {
            const char *eq = strchr(sets[i], '=');
            if (!eq) continue;
            char key[256];
            snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i]), sets[i]);
            jw_kstr(&w, key, eq + 1);
        }
        jw_obj_end(&w);
    }
    jw_knum(&w, "wall_s", wall_s);
    jw_obj_end(&w);
    jw_end(&w);
    fs_out_commit(&o);
}

void batch_write_status(const char *dir, const char *status, const char *message, const char *label,
                        double wall_s) {
    batch_write_status_set(dir, status, message, label, NULL, 0, wall_s);
}

/* A job's status: its folder, label and, for a sweep, the values it set. */
static void job_status(const struct batch_job *j, const char *status, const char *message,
                       double wall_s) {
    bool sweep = j->lab && !strcmp(j->lab, "sweep");
    batch_write_status_set(j->outdir, status, message, j->label, sweep ? j->sets : NULL,
                           sweep ? j->nsets : 0, wall_s);
}

/* In the child: load, build, run, write. Exit code 0 ok, 3 not available,
 * 2 error in the input, 1 internal. status.json is written in every case. */
static int child_run(const struct batch_job *j) {
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
            job_status(j, REPORT_NOT_RUN, why, 0);
            return 3;
        }
        bool notyet = rc == FS_ENOTSUP || rc == FS_EINVAL || rc == FS_ERANGE;
        job_status(j, notyet ? REPORT_NOT_AVAILABLE : REPORT_ERROR, msg, 0);
        return notyet ? 3 : 2;
    }
    struct model m;
    rc = scenario_check_memory(&sc, 0, &d); /* model/estimate.h: before building */
    if (rc) {
        diag_format(&d, msg, sizeof msg);
        scenario_fini(&sc);
        job_status(j, REPORT_ERROR, msg, 0);
        return 2;
    }
    rc = model_build(&m, &sc, &d);
    if (rc) {
        diag_format(&d, msg, sizeof msg);
        model_fini(&m);
        scenario_fini(&sc);
        bool notyet = rc == FS_ENOTSUP || rc == FS_EINVAL;
        job_status(j, notyet ? REPORT_NOT_AVAILABLE : REPORT_ERROR, msg, 0);
        return notyet ? 3 : 1;
    }
    m.against = j->against; /* results.json "against" (run --against's) */
    model_run(&m, NULL, NULL);
    rc = results_write_dir(&m, j->outdir, &d);
    if (rc) {
        diag_format(&d, msg, sizeof msg);
        job_status(j, REPORT_ERROR, msg, wall_now_s() - t0);
    } else if (m.interrupted) {
        /* Ctrl-C reaches the whole process group: the run ended early and
         * its results are partial, so the report must not read them as the
         * scenario's (`fabsim run` exits 128 + signal for the same reason). */
        snprintf(msg, sizeof msg, "stopped by signal %d (%s) before the end: results partial",
                 m.interrupted, strsignal(m.interrupted));
        job_status(j, REPORT_ERROR, msg, wall_now_s() - t0);
        rc = 1;
    } else {
        job_status(j, REPORT_OK, "", wall_now_s() - t0);
    }
    model_fini(&m);
    scenario_fini(&sc);
    return rc ? 1 : 0;
}

static void start_job(struct batch_job *j) {
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
        batch_write_text(path, text);
        free(text);
    }
    fflush(NULL);
    j->t0 = wall_now_s();
    pid_t pid = fork();
    if (pid == 0) {
        /* Loading and building exit at once on a signal; the run stops
         * cleanly (model_run) and writes its partial results. */
        sig_set_mode(SIG_MODE_EXIT);
        alarm(BATCH_TIMEOUT_S);
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

static void finish_job(struct batch_job *j, int wstatus) {
    char msg[256];
    if (WIFEXITED(wstatus)) {
        int rc = WEXITSTATUS(wstatus);
        j->status = rc == 0 ? 0 : rc == 3 ? 1 : 2;
        /* 128 + SIGINT/SIGTERM: stopped while loading or building (core/sig.h),
         * before it could write its status. */
        if (rc == 128 + SIGINT || rc == 128 + SIGTERM) {
            snprintf(msg, sizeof msg, "stopped by signal %d (%s) before the end: no results",
                     rc - 128, strsignal(rc - 128));
            job_status(j, REPORT_ERROR, msg, wall_now_s() - j->t0);
        }
        return;
    }
    int sig = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
    if (sig == SIGINT || sig == SIGTERM)
        snprintf(msg, sizeof msg, "stopped by signal %d (%s) before the end: no results", sig,
                 strsignal(sig));
    else if (sig == SIGALRM)
        snprintf(msg, sizeof msg, "stopped after %d s of wall-clock time (make it smaller)",
                 BATCH_TIMEOUT_S);
    else
        snprintf(msg, sizeof msg,
                 "the simulator died (signal %d: %s); run `fabsim run %s` to see why", sig,
                 strsignal(sig), j->file);
    job_status(j, REPORT_ERROR, msg, wall_now_s() - j->t0);
    j->status = 2;
}

/* After run_jobs: a batch stopped by SIGINT/SIGTERM (no new run started,
 * the running ones ended early and say so in their status) ends with 128 +
 * the signal, as `fabsim run` does, after its report of what finished. */
int batch_status(const char *cmd, int rc, const size_t counts[3]) {
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

static void job_line(const struct batch_job *j, size_t done, size_t total, double t0) {
    static const char *const st[] = {"ok", "not yet available", "FAILED"};
    char el[32], took[32];
    progress_fmt_s(wall_now_s() - t0, el, sizeof el);
    progress_fmt_s(wall_now_s() - j->t0, took, sizeof took);
    fprintf(stderr, "fabsim: [%s] %zu/%zu %s/%s: %s (%s)\n", el, done, total, j->lab, j->id,
            st[j->status], took);
}

/* The jobs a signal kept from starting say so (status BATCH_JOB_INTERRUPTED and
 * a status.json "not_run" naming the signal), rather than keep an older
 * run's results or read as "ok". */
static void mark_not_started(struct batch *js, size_t from) {
    char msg[160], path[PATH_MAX];
    snprintf(msg, sizeof msg, "interrupted: stopped by signal %d (%s) before this run started",
             sig_pending(), strsignal(sig_pending()));
    for (size_t i = from; i < js->n; i++) {
        struct batch_job *j = &js->v[i];
        j->status = BATCH_JOB_INTERRUPTED;
        fs_unlink_symlink(j->outdir);
        results_mkdirs(j->outdir);
        snprintf(path, sizeof path, "%s/results.json", j->outdir);
        unlink(path);
        snprintf(path, sizeof path, "%s/links.csv", j->outdir);
        unlink(path);
        job_status(j, REPORT_NOT_RUN, msg, 0);
    }
}

/* Runs every job, `par` at a time. Counts per status in counts[3] (the
 * jobs a signal kept from starting are not counted). */
void batch_run(struct batch *js, int par, enum progress_mode show, size_t counts[3]) {
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
            struct batch_job *j = &js->v[next++];
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
            struct batch_job *j = &js->v[i];
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

enum progress_mode batch_show_mode(bool quiet, bool lines) {
    return quiet ? PROGRESS_OFF : lines ? PROGRESS_LINES : isatty(2) ? PROGRESS_TTY : PROGRESS_OFF;
}

void batch_free(struct batch *js) {
    for (size_t i = 0; i < js->n; i++) {
        struct batch_job *j = &js->v[i];
        free(j->lab), free(j->id), free(j->file), free(j->outdir), free(j->label);
        free(j->seed_set);
        if (j->own_sets) free((void *)j->sets);
    }
    free(js->v);
}

struct batch_job *batch_add(struct batch *js) {
    fs_grow((void **)&js->v, &js->cap, js->n + 1, sizeof *js->v);
    struct batch_job *j = &js->v[js->n++];
    memset(j, 0, sizeof *j);
    return j;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **batch_list_dir(const char *dir, bool dirs, const char *suffix, size_t *n) {
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
        if (batch_is_dir(path) != dirs) continue;
        size_t l = strlen(e->d_name), sl = suffix ? strlen(suffix) : 0;
        if (suffix && (l <= sl || strcmp(e->d_name + l - sl, suffix))) continue;
        fs_grow((void **)&v, &cap, *n + 1, sizeof *v);
        v[(*n)++] = fs_xstrdup(e->d_name);
    }
    closedir(dp);
    if (*n) qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

int batch_default_jobs(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

int batch_report(const char *dir, bool quiet) {
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

int batch_parse_jobs(const char *v, int *out) {
    unsigned long long n;
    if (cli_parse_u64("-j/--jobs", v, 1, 64, &n)) return 2;
    *out = (int)n;
    return 0;
}

/* compare and sweep: every variant's scenario is loaded before any runs, so
 * that a typo in a file or a --set value is bad input (its message, exit 2)
 * and not a column of "not yet available". Only a feature fabsim does not
 * model yet (FS_ENOTSUP) is left to the run, which reports it as such. */
int batch_check_load(const struct batch *js) {
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

void batch_sanitize(char *s) {
    for (; *s; s++)
        if (*s == '/' || *s == ' ' || *s == '+' || *s == '*' || *s == '?') *s = '_';
}

/* The summary metrics of results.json that compare prints (name) and
 * sweep.csv holds (col): the path and its scale, -1 for a boolean (1 or 0). */
const struct batch_col BATCH_SUMMARY_COLS[] = {
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
    {"timeouts", "timeouts", "summary.timeouts", 1},
    /* Ultra Ethernet's mechanisms ("-" on the other fabrics: no summary.uet) */
    {"UET trims", "uet_trims", "summary.uet.trims", 1},
    {"UET trim NAKs", "uet_trim_naks", "summary.uet.trim_naks", 1},
    {"UET entropy changes", "uet_entropy_changes", "summary.uet.entropy_changes", 1},
    {"UET credit grants", "uet_credit_grants", "summary.uet.credit_grants", 1},
    {"deadlock (1 = yes)", "deadlock", "summary.deadlock.detected", -1},
    /* the first failure and the first job (empty when the run has none) */
    {"failure at (us)", "failure_at_us", "control_plane.0.at_ns", 1e-3},
    {"rerouted at (us)", "rerouted_at_us", "control_plane.0.rerouted_at_ns", 1e-3},
    {"local reroute at (us)", "local_reroute_at_us", "control_plane.0.local_reroute_at_ns", 1e-3},
    {"job 0 stall (us)", "job_stall_us", "jobs.0.stalled_ns", 1e-3},
};
const size_t BATCH_NSUMMARY_COLS = sizeof BATCH_SUMMARY_COLS / sizeof BATCH_SUMMARY_COLS[0];

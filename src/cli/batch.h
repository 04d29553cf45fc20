/* src/cli/batch.h
 *
 * A batch of scenario runs, the engine of `labs`, `compare` and `sweep`:
 * each run in a child process (up to -j at a time), so that a mechanism that
 * aborts or is not built yet costs one run, never the whole batch. The child
 * writes OUTDIR/status.json ("ok", "not_available" with the reason, or
 * "error"), results.json and links.csv; the command then builds report.html
 * from the folder (report/). Only cli/ uses this.
 */
#ifndef FABSIM_CLI_BATCH_H
#define FABSIM_CLI_BATCH_H

#include "cli/progress.h"

struct nccl_log;

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* One run: its lab ("compare", "sweep" or the lab's folder), id, scenario
 * file, output folder, label and --set overrides. */
struct batch_job {
    char *lab, *id, *file, *outdir, *label;
    const char **sets;
    size_t nsets;
    bool own_sets;                  /* sets allocated for this job (the lab's run sets + --set) */
    size_t nlabsets;                /* of which the lab's own (lab.yaml runs: set:) come first */
    char *seed_set;                 /* labs --set seed=S shifted to this run's seed (cli/labs.c) */
    const struct nccl_log *against; /* sweep --against: a measured nccl-tests log, or NULL */
    pid_t pid;
    double t0;
    int status; /* 0 ok, 1 not available, 2 error, BATCH_JOB_INTERRUPTED never started */
};
#define BATCH_JOB_INTERRUPTED 3

struct batch {
    struct batch_job *v;
    size_t n, cap;
};

/* A new zeroed job at the end of the batch (strings owned: batch_free). */
struct batch_job *batch_add(struct batch *js);
void batch_free(struct batch *js);
/* compare and sweep: loads every job's scenario; 0, or 2 after the message
 * of the first that is bad input (FS_ENOTSUP is left to the run). */
int batch_check_load(const struct batch *js);
/* Runs every job, `par` at a time. Counts per status in counts[3] (the
 * jobs a signal kept from starting are not counted). */
void batch_run(struct batch *js, int par, enum progress_mode show, size_t counts[3]);
/* The exit status of a batch command after batch_run: 128 + the signal
 * that stopped it, else rc, else 1 when a run failed. */
int batch_status(const char *cmd, int rc, const size_t counts[3]);
/* How batch_run shows progress: nothing, a terminal bar or plain lines. */
enum progress_mode batch_show_mode(bool quiet, bool lines);
/* Writes DIR/report.html from the folder (report/); prints the findings
 * unless quiet. 0, 2 (bad input) or 1, after the message. */
int batch_report(const char *dir, bool quiet);

/* DIR/status.json of a run: status (REPORT_OK, ...), message, label and
 * wall-clock seconds. */
/* ... and the KEY=VALUE overrides it ran with, as "set" (a sweep's). */
void batch_write_status_set(const char *dir, const char *status, const char *message,
                            const char *label, const char *const *sets, size_t nsets,
                            double wall_s);
void batch_write_status(const char *dir, const char *status, const char *message, const char *label,
                        double wall_s);
/* `text` to `path`, atomically, never through a symlink: 0 or -1. */
int batch_write_text(const char *path, const char *text);
bool batch_is_dir(const char *p);
/* The sorted names in `dir` (folders when `dirs`, else files, ending in
 * `suffix` if given), without dot-files; *n of them, each to free. */
char **batch_list_dir(const char *dir, bool dirs, const char *suffix, size_t *n);
/* -j/--jobs: the CPUs, at most 8; and the option's parser (0 or 2). */
int batch_default_jobs(void);
int batch_parse_jobs(const char *v, int *out);
/* A run id made a folder name: '/', ' ', '+', '*', '?' become '_'. */
void batch_sanitize(char *s);

/* The summary metrics of results.json that compare prints (name) and
 * sweep.csv holds (col): the path and its scale, -1 for a boolean (1 or 0). */
struct batch_col {
    const char *name, *col, *path;
    double scale;
};
extern const struct batch_col BATCH_SUMMARY_COLS[];
extern const size_t BATCH_NSUMMARY_COLS;

#endif /* FABSIM_CLI_BATCH_H */

/* src/cli/progress.h
 *
 * What a long command tells the user while it works: on a terminal one line
 * rewritten in place (phase, simulated time, percent of the work, elapsed,
 * ETA); with --progress plain lines every few seconds for logs (CI, nohup);
 * nothing with --quiet or when stderr is not a terminal. Only cli/ uses it.
 */
#ifndef FABSIM_CLI_PROGRESS_H
#define FABSIM_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

enum progress_mode { PROGRESS_OFF, PROGRESS_TTY, PROGRESS_LINES };

struct progress {
    enum progress_mode mode;
    FILE *f;
    double t0;       /* command start (wall seconds) */
    double phase_t0; /* current phase start */
    double last;     /* last line printed */
    double every_s;  /* PROGRESS_LINES: seconds between lines */
    const char *phase;
};

/* quiet wins; `lines` forces plain lines (every_s apart, 0 = 10 s); else a
 * terminal line when stderr is a terminal, nothing otherwise. */
void progress_init(struct progress *p, bool quiet, bool lines, double every_s);
/* Enters a phase ("loading", "building the model", "running", "writing");
 * `detail` (may be NULL) follows it, e.g. the file or the size. */
void progress_phase(struct progress *p, const char *phase, const char *detail);
/* During "running": simulated time, fraction of the work done (0..1) and
 * the event rate. Throttled: cheap to call often. */
void progress_update(struct progress *p, double sim_ms, double frac, double events_per_s);
/* Ends the current phase; a phase that took at least `report_s` seconds is
 * reported with its duration (so that a slow model build says so). */
void progress_end_phase(struct progress *p, double report_s);
/* Clears the terminal line. */
void progress_done(struct progress *p);
/* "1h02m", "3m05s", "12s": a duration for humans. */
void progress_fmt_s(double s, char *buf, size_t len);

#endif /* FABSIM_CLI_PROGRESS_H */

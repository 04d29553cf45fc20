/* src/cli/progress.c
 *
 * The progress line and plain progress lines (cli/progress.h).
 */
#include "cli/progress.h"

#include "core/wall.h"

#include <unistd.h>

void progress_fmt_s(double s, char *buf, size_t len) {
    if (s < 0) s = 0;
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else if (s < 10)
        snprintf(buf, len, "%.1fs", s);
    else
        snprintf(buf, len, "%lds", t);
}

void progress_init(struct progress *p, bool quiet, bool lines, double every_s) {
    p->f = stderr;
    p->mode = quiet       ? PROGRESS_OFF
              : lines     ? PROGRESS_LINES
              : isatty(2) ? PROGRESS_TTY
                          : PROGRESS_OFF;
    p->t0 = p->phase_t0 = wall_now_s();
    p->last = 0;
    p->every_s = every_s > 0 ? every_s : 10;
    p->phase = NULL;
}

void progress_phase(struct progress *p, const char *phase, const char *detail) {
    p->phase = phase;
    p->phase_t0 = p->last = wall_now_s();
    if (p->mode == PROGRESS_OFF) return;
    char el[32];
    progress_fmt_s(p->phase_t0 - p->t0, el, sizeof el);
    if (p->mode == PROGRESS_TTY)
        fprintf(p->f, "\r\033[K  %s%s%s ...  (elapsed %s)", phase, detail ? " " : "",
                detail ? detail : "", el);
    else
        fprintf(p->f, "fabsim: [%s] %s%s%s\n", el, phase, detail ? " " : "", detail ? detail : "");
    fflush(p->f);
}

void progress_update(struct progress *p, double sim_ms, double frac, double events_per_s) {
    if (p->mode == PROGRESS_OFF) return;
    double now = wall_now_s();
    double gap = p->mode == PROGRESS_TTY ? 0.2 : p->every_s;
    if (now - p->last < gap) return;
    p->last = now;
    char el[32], eta[32] = "?";
    progress_fmt_s(now - p->t0, el, sizeof el);
    double run = now - p->phase_t0;
    if (frac >= 1)
        snprintf(eta, sizeof eta, "0s");
    else if (frac > 0.001 && run > 0.5)
        progress_fmt_s(run * (1 - frac) / frac, eta, sizeof eta);
    if (frac > 1) frac = 1;
    if (p->mode == PROGRESS_TTY)
        fprintf(p->f, "\r\033[K  %s  sim %.3f ms  %5.1f%%  elapsed %s  ETA %s  %.2f M events/s",
                p->phase ? p->phase : "", sim_ms, 100 * frac, el, eta, events_per_s / 1e6);
    else
        fprintf(p->f, "fabsim: [%s] %s: sim %.3f ms, %.1f%% of the work, ETA %s, %.2f M events/s\n",
                el, p->phase ? p->phase : "", sim_ms, 100 * frac, eta, events_per_s / 1e6);
    fflush(p->f);
}

void progress_end_phase(struct progress *p, double report_s) {
    if (p->mode == PROGRESS_OFF || !p->phase) return;
    double took = wall_now_s() - p->phase_t0;
    if (took < report_s) return;
    char t[32];
    progress_fmt_s(took, t, sizeof t);
    if (p->mode == PROGRESS_TTY) fputs("\r\033[K", p->f);
    fprintf(p->f, "fabsim: %s took %s\n", p->phase, t);
    fflush(p->f);
}

void progress_done(struct progress *p) {
    if (p->mode == PROGRESS_TTY) fputs("\r\033[K", p->f);
    fflush(p->f);
}

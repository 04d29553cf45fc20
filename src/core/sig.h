/* src/core/sig.h
 *
 * SIGINT and SIGTERM, in every phase. Outside the event loop (loading,
 * building, writing, the report; SIG_MODE_EXIT, the default) a signal
 * removes the temporary files of the outputs being written (core/file.c
 * registers them) and exits at once with 128 + the signal. In the event
 * loop and a batch's wait for its runs (SIG_MODE_FLAG) it is a request to
 * stop: the run ends at its next check (model/model.c, every 2^16 events:
 * well under a second), every output is closed and results.json says
 * `summary.interrupted`. A second signal always exits at once, removing the
 * temporary files first. The signal number, the mode and the temporary
 * names live in the few process-wide variables fabsim has: a handler can
 * reach nothing else (C11 7.14.1.1).
 */
#ifndef FABSIM_CORE_SIG_H
#define FABSIM_CORE_SIG_H

enum sig_mode { SIG_MODE_EXIT, SIG_MODE_FLAG };

/* Installs the handlers (the CLI calls it once). */
void sig_install(void);
/* The signal received (SIGINT, SIGTERM), or 0. */
int sig_pending(void);
/* Forgets a received signal (tests). */
void sig_clear(void);
/* Records `signo` as if it had been received (tests). */
void sig_raise_flag(int signo);
/* Sets how the next signal is taken; returns the previous mode. */
enum sig_mode sig_set_mode(enum sig_mode m);

/* Temporary files removed by the handler when it exits (core/file.c's
 * fs_out). At most SIG_MAX_TMP at a time; more are simply not removed. */
#define SIG_MAX_TMP 16
/* A slot for `path`, or -1 when none is free or the path is too long. */
int sig_tmp_add(const char *path);
/* Frees slot `slot` (-1: nothing). */
void sig_tmp_del(int slot);
/* Folders `dir` up to `top` (an ancestor or dir itself) that a run created
 * and has not written into yet: the handler removes those still empty when
 * it exits. NULL forgets them. */
void sig_rmdirs_on_exit(const char *dir, const char *top);

#endif /* FABSIM_CORE_SIG_H */

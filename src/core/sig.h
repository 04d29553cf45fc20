/* src/core/sig.h
 *
 * SIGINT and SIGTERM as a request to stop: the run ends at its next check
 * (net/model.c, every 2^16 events: well under a second), every output is
 * closed and results.json says `summary.interrupted`. A second signal kills
 * at once (the default action is restored by the first). The signal number
 * lives in the one process-wide variable fabsim has: a handler can reach
 * nothing else (C11 7.14.1.1).
 */
#ifndef FABSIM_CORE_SIG_H
#define FABSIM_CORE_SIG_H

/* Installs the handlers (the CLI calls it once). */
void sig_install(void);
/* The signal received (SIGINT, SIGTERM), or 0. */
int sig_pending(void);
/* Forgets a received signal (tests). */
void sig_clear(void);
/* Records `signo` as if it had been received (tests). */
void sig_raise_flag(int signo);

#endif /* FABSIM_CORE_SIG_H */

#include "core/sig.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t pending;
static volatile sig_atomic_t mode = SIG_MODE_EXIT;
/* Temporary files: a slot's path is complete before its flag is set, and the
 * flag cleared before the path changes, so the handler reads whole names. */
static char tmp_path[SIG_MAX_TMP][4096];
static volatile sig_atomic_t tmp_used[SIG_MAX_TMP];
static char dir_path[4096];
static volatile sig_atomic_t dir_used, dir_top_len;

/* rmdir of dir_path and its parents while longer than the top (empty
 * folders only: rmdir refuses the others). */
static void rmdirs(void) {
    char buf[sizeof dir_path];
    size_t n = 0;
    while (n + 1 < sizeof buf && dir_path[n]) {
        buf[n] = dir_path[n];
        n++;
    }
    buf[n] = 0;
    while (n >= (size_t)dir_top_len && n && !rmdir(buf)) {
        while (n && buf[n - 1] != '/')
            n--;
        if (n) buf[--n] = 0;
    }
}

static void on_signal(int signo) {
    if (!pending && mode == SIG_MODE_FLAG) {
        pending = signo;
        return;
    }
    /* Outside the event loop, or a second signal: only async-signal-safe
     * calls (unlink, _exit). */
    for (int i = 0; i < SIG_MAX_TMP; i++)
        if (tmp_used[i]) unlink(tmp_path[i]);
    if (dir_used) rmdirs();
    _exit(128 + signo);
}

void sig_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time */
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int sig_pending(void) {
    return pending;
}

void sig_clear(void) {
    pending = 0;
}

void sig_raise_flag(int signo) {
    pending = signo;
}

enum sig_mode sig_set_mode(enum sig_mode m) {
    enum sig_mode old = (enum sig_mode)mode;
    mode = m;
    return old;
}

int sig_tmp_add(const char *path) {
    size_t len = strlen(path);
    if (len >= sizeof tmp_path[0]) return -1;
    for (int i = 0; i < SIG_MAX_TMP; i++) {
        if (tmp_used[i]) continue;
        memcpy(tmp_path[i], path, len + 1);
        tmp_used[i] = 1;
        return i;
    }
    return -1;
}

void sig_rmdirs_on_exit(const char *dir, const char *top) {
    dir_used = 0;
    if (!dir || !top || !*top || strlen(dir) >= sizeof dir_path) return;
    memcpy(dir_path, dir, strlen(dir) + 1);
    dir_top_len = (sig_atomic_t)strlen(top);
    dir_used = 1;
}

void sig_tmp_del(int slot) {
    if (slot >= 0 && slot < SIG_MAX_TMP) tmp_used[slot] = 0;
}

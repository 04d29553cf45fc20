#include "core/sig.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t pending;

static void on_signal(int signo) {
    pending = signo;
}

void sig_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C kills */
    sigemptyset(&sa.sa_mask);
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

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
    /* a second Ctrl-C kills; glibc defines SA_RESETHAND as 0x80000000u for
     * the int sa_flags: the bit pattern is meant */
    sa.sa_flags = (int)SA_RESETHAND;
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

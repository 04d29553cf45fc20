/* src/cli/main.c
 *
 * Entry point: everything else, the commands included, is in libfabsim.a
 * (cli/commands.c dispatches), so that tests can drive it.
 */
#include "cli/cli.h"
#include "core/file.h"
#include "core/sig.h"

#include <signal.h>

/* Every command's standard output is checked at the end (validate --explain
 * > /dev/full is exit 1, not a silent 0). SIGXFSZ (ulimit -f) is ignored so
 * that an oversized write fails with EFBIG and is reported like a full disk;
 * SIGINT and SIGTERM stop a run cleanly (core/sig.h). */
int main(int argc, char **argv) {
    signal(SIGXFSZ, SIG_IGN);
    sig_install();
    return fs_stdout_check(cli_main(argc, argv));
}

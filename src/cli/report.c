/* src/cli/report.c
 *
 * `fabsim report DIR`: (re)builds DIR/report.html from a folder written by
 * labs, compare, sweep or run (cli/batch.h batch_report).
 */
#include "cli/batch.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "core/mem.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static const struct cli_opt REPORT_OPTS[] = {
    {"quiet", 'q', NULL, "print nothing but errors"},
    {0},
};

const struct cli_cmd CLI_CMD_REPORT = {
    "report",
    "DIR",
    "(re)build DIR/report.html from a folder written by labs, compare, sweep or run",
    NULL,
    REPORT_OPTS,
    "fabsim report out/labs",
    cli_report,
};

static int quiet_opt(void *ctx, int key, const char *arg) {
    (void)arg;
    if (key != 'q') return cli_usage_error("internal: unhandled option %d", key);
    *(bool *)ctx = true;
    return 0;
}

int cli_report(int argc, char **argv) {
    bool quiet = false;
    char **pos = fs_xcalloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    int rc = cli_parse(&CLI_CMD_REPORT, argc, argv, quiet_opt, &quiet, pos, &npos);
    const char *dir = npos == 1 ? pos[0] : NULL;
    free(pos);
    if (rc) return rc == CLI_HELP ? 0 : rc;
    if (!dir)
        return cli_usage_error("usage: fabsim report DIR (a folder written by fabsim labs, "
                               "compare or run)");
    rc = batch_report(dir, quiet);
    if (!rc && !quiet) printf("Report: %s/report.html\n", dir);
    return rc;
}

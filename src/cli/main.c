/* src/cli/main.c
 *
 * Entry point: dispatches to the commands in cli/. Kept thin so that tests
 * can drive everything else through libfabsim.a.
 */
#include "cli/cli.h"
#include "core/file.h"
#include "core/sig.h"
#include "stats/results.h"

#include <signal.h>

#include <stdio.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f,
            "fabsim %s - packet-level simulator of AI-training fabrics (InfiniBand vs RoCEv2)\n"
            "\n"
            "usage:\n"
            "  fabsim run SCENARIO.yaml [-o DIR] [--seed N] [--set KEY=VALUE]... [--quiet]\n"
            "             [--pcap FILE [--pcap-filter link=NAME|flow=ID] [--pcap-max N]]\n"
            "             [--trace FILE.json [--trace-max N]]   Chrome trace / Perfetto\n"
            "             [--max-memory SIZE]   limit for the model's estimated memory\n"
            "  fabsim compare A.yaml B.yaml [-o DIR]   (or one file with --set variants)\n"
            "  fabsim labs [-o DIR]                    every course lab + report.html\n"
            "  fabsim report DIR                       (re)build DIR/report.html\n"
            "  fabsim validate SCENARIO.yaml [--explain] [--set KEY=VALUE]...\n"
            "  fabsim routes SCENARIO.yaml [-o FILE]   InfiniBand LFTs as opensm-lfts.dump\n"
            "  fabsim --help | --version\n"
            "\n"
            "Exit status: 0 ran, 2 bad input or usage, 1 internal or write error,\n"
            "130/143 stopped by SIGINT/SIGTERM (results written).\n",
            FABSIM_VERSION);
}

static int dispatch(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("fabsim %s\n", FABSIM_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "run")) return cli_run(argc - 2, argv + 2);
    if (!strcmp(cmd, "validate")) return cli_validate(argc - 2, argv + 2);
    if (!strcmp(cmd, "compare")) return cli_compare(argc - 2, argv + 2);
    if (!strcmp(cmd, "labs")) return cli_labs(argc - 2, argv + 2);
    if (!strcmp(cmd, "report")) return cli_report(argc - 2, argv + 2);
    if (!strcmp(cmd, "routes")) return cli_routes(argc - 2, argv + 2);
    return cli_usage_error("unknown command '%s'; commands: run, compare, labs, report, validate "
                           "(fabsim --help)",
                           cmd);
}

/* Every command's standard output is checked at the end (validate --explain
 * > /dev/full is exit 1, not a silent 0). SIGXFSZ (ulimit -f) is ignored so
 * that an oversized write fails with EFBIG and is reported like a full disk;
 * SIGINT and SIGTERM stop a run cleanly (core/sig.h). */
int main(int argc, char **argv) {
    signal(SIGXFSZ, SIG_IGN);
    sig_install();
    return fs_stdout_check(dispatch(argc, argv));
}

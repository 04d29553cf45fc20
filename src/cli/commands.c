/* src/cli/commands.c
 *
 * The list of commands, `fabsim help` and the dispatch from main(): an
 * unknown command gets the closest known one.
 */
#include "cli/cli.h"
#include "cli/opts.h"
#include "config/scenario.h"
#include "stats/results.h"

#include <string.h>

extern const struct cli_cmd CLI_CMD_RUN, CLI_CMD_VALIDATE, CLI_CMD_COMPARE, CLI_CMD_LABS,
    CLI_CMD_REPORT, CLI_CMD_ROUTES, CLI_CMD_SWEEP, CLI_CMD_TOPOLOGY, CLI_CMD_FIT;

enum { OPT_MAN = CLI_LONG };

static const struct cli_opt HELP_OPTS[] = {
    {"man", OPT_MAN, NULL, "print the manual page (roff) instead"},
    {0},
};

static int no_opt(void *ctx, int key, const char *arg) {
    (void)ctx, (void)arg;
    return cli_usage_error("internal: unhandled option %d", key);
}

static const struct cli_opt SCHEMA_OPTS[] = {{0}};

static int cli_schema(int argc, char **argv);

static const struct cli_cmd CLI_CMD_SCHEMA = {
    "schema",
    "",
    "print a JSON Schema of the scenario language (for editors)",
    "Generated from the tables that read scenario files: every key with its type, range,\n"
    "allowed values, default and source, and per workload, topology and fabric kind its\n"
    "required keys and the keys it refuses (if/then). Point a YAML language server at it, e.g. "
    "with\n"
    "a first line `# yaml-language-server: $schema=fabsim.schema.json` in a scenario.",
    SCHEMA_OPTS,
    "fabsim schema > fabsim.schema.json",
    cli_schema,
};

static int cli_schema(int argc, char **argv) {
    char *pos[4];
    int npos = 0;
    if (argc > 4) return cli_usage_error("schema: takes no arguments");
    int rc = cli_parse(&CLI_CMD_SCHEMA, argc, argv, no_opt, NULL, pos, &npos);
    if (rc) return rc == CLI_HELP ? 0 : rc;
    if (npos) return cli_usage_error("schema: takes no arguments ('%s')", pos[0]);
    scenario_json_schema(stdout);
    return fflush(stdout) ? 1 : 0;
}

static const struct cli_cmd CLI_CMD_HELP = {
    "help",
    "[COMMAND]",
    "print the help of a command (or the list of commands)",
    NULL,
    HELP_OPTS,
    "fabsim help run\n"
    "fabsim help --man | man -l -",
    cli_help_cmd,
};

/* Every command, in the order `fabsim --help` lists them. */
static const struct cli_cmd *const CLI_COMMANDS[] = {
    &CLI_CMD_RUN,  &CLI_CMD_VALIDATE, &CLI_CMD_COMPARE, &CLI_CMD_SWEEP,
    &CLI_CMD_LABS, &CLI_CMD_REPORT,   &CLI_CMD_ROUTES,  &CLI_CMD_TOPOLOGY,
    &CLI_CMD_FIT,  &CLI_CMD_SCHEMA,   &CLI_CMD_HELP,
};
static const size_t CLI_NCOMMANDS = sizeof CLI_COMMANDS / sizeof CLI_COMMANDS[0];

static const struct cli_cmd *find_command(const char *name) {
    for (size_t i = 0; i < CLI_NCOMMANDS; i++)
        if (!strcmp(CLI_COMMANDS[i]->name, name)) return CLI_COMMANDS[i];
    return NULL;
}

static int unknown_command(const char *name) {
    const char *names[32];
    size_t n = 0;
    char list[512] = "";
    for (size_t i = 0; i < CLI_NCOMMANDS && n < 32; i++) {
        names[n++] = CLI_COMMANDS[i]->name;
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", CLI_COMMANDS[i]->name);
    }
    const char *best = cli_closest(name, names, n);
    if (best)
        return cli_usage_error("unknown command '%s'; did you mean '%s'? (commands: %s)", name,
                               best, list);
    return cli_usage_error("unknown command '%s'; commands: %s (fabsim --help)", name, list);
}

static int man_opt(void *ctx, int key, const char *arg) {
    (void)arg;
    if (key != OPT_MAN) return cli_usage_error("internal: unhandled option %d", key);
    *(int *)ctx = 1;
    return 0;
}

int cli_help_cmd(int argc, char **argv) {
    int man = 0, npos = 0;
    char *pos[8];
    if (argc > 8) return cli_usage_error("help: too many arguments");
    int rc = cli_parse(&CLI_CMD_HELP, argc, argv, man_opt, &man, pos, &npos);
    if (rc) return rc == CLI_HELP ? 0 : rc;
    if (man) {
        cli_man(stdout, CLI_COMMANDS, CLI_NCOMMANDS);
        return 0;
    }
    if (!npos) {
        cli_usage(stdout, CLI_COMMANDS, CLI_NCOMMANDS);
        return 0;
    }
    if (npos > 1) return cli_usage_error("help: one command at a time");
    const struct cli_cmd *c = find_command(pos[0]);
    if (!c) return unknown_command(pos[0]);
    cli_help(c, stdout);
    return 0;
}

int cli_main(int argc, char **argv) {
    if (argc < 2) {
        cli_usage(stderr, CLI_COMMANDS, CLI_NCOMMANDS);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        cli_usage(stdout, CLI_COMMANDS, CLI_NCOMMANDS);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("fabsim %s\n", FABSIM_VERSION);
        return 0;
    }
    const struct cli_cmd *c = find_command(cmd);
    if (c) return c->main(argc - 1, argv + 1);
    if (cmd[0] == '-') {
        static const char *const top[] = {"--help", "--version"};
        const char *best = cli_closest(cmd, top, 2);
        if (best) return cli_usage_error("unknown option '%s'; did you mean '%s'?", cmd, best);
        return cli_usage_error("'%s': a command comes first (fabsim --help lists them)", cmd);
    }
    return unknown_command(cmd);
}

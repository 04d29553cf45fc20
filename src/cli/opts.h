/* src/cli/opts.h
 *
 * Command-line options as data: one `struct cli_cmd` per command with one
 * option table, parsed by getopt_long (`--opt=value`, `--opt value`, short
 * forms, `-h/--help` on every command, did-you-mean for unknown options).
 * The same tables print `fabsim help COMMAND` and the man page fabsim.1.
 * Only cli/ uses this.
 */
#ifndef FABSIM_CLI_OPTS_H
#define FABSIM_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One option. `key` is its short letter ('o' for -o) or, for a long-only
 * option, a value from 256 up, unique within its table. `arg` names the
 * value in help ("DIR"); NULL for a flag; a leading '[' makes the value
 * optional ("[SECONDS]": only --opt=value then). */
struct cli_opt {
    const char *name; /* long name without "--" */
    int key;
    const char *arg;
    const char *help; /* one line; more lines after '\n' are indented */
};

/* Long-only option keys start here. */
#define CLI_LONG 256

/* One command: its synopsis and help, the table (ended by {0}) and what runs it. */
struct cli_cmd {
    const char *name;
    const char *args;    /* positional part of the synopsis: "SCENARIO.yaml" */
    const char *summary; /* one line, for `fabsim --help` */
    const char *details; /* paragraphs (NULL = none), for `fabsim help CMD` and the man page */
    const struct cli_opt *opts;
    const char *example;                /* one or more lines, each a full command */
    int (*main)(int argc, char **argv); /* argv[0] is the command name */
};

/* Called for each option with its key and value (NULL for a flag). Returns
 * 0, or an exit status (2 after printing a usage error). */
typedef int (*cli_opt_fn)(void *ctx, int key, const char *arg);

/* Result of cli_parse when it printed the help: exit 0. */
#define CLI_HELP (-1)

/* Parses argv (argv[0] = command name) against c->opts. Positional
 * arguments land in pos[0..*npos) (pos has argc slots). Returns 0,
 * CLI_HELP, or 2 (message printed: unknown option with a suggestion,
 * missing value) or whatever `fn` returned. */
int cli_parse(const struct cli_cmd *c, int argc, char **argv, cli_opt_fn fn, void *ctx, char **pos,
              int *npos);

/* Prints the command's help: usage, details, options, example. */
void cli_help(const struct cli_cmd *c, FILE *f);
/* Prints `fabsim --help`: every command's synopsis, for the commands
 * cmds[0..ncmds) (cli/commands.c lists them). */
void cli_usage(FILE *f, const struct cli_cmd *const *cmds, size_t ncmds);
/* Writes the man page (roff) of those commands from the same tables. */
void cli_man(FILE *f, const struct cli_cmd *const *cmds, size_t ncmds);

/* Prints "fabsim: <message>" on stderr; returns 2. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The closest of `cands` to `word` by edit distance, or NULL if none is close. */
const char *cli_closest(const char *word, const char *const *cands, size_t n);

/* Number parsers for option values: 0, or 2 after a usage error naming `opt`. */
int cli_parse_u64(const char *opt, const char *v, unsigned long long min, unsigned long long max,
                  unsigned long long *out);

/* ---- commands that take one SCENARIO.yaml (cli/load.c) ------------------ */

struct scenario;
struct model;
struct progress;

/* The scenario file and its --set overrides, in order. */
struct cli_load {
    const char *file;
    const char **sets;
    size_t nsets;
    uint64_t max_memory_bytes; /* --max-memory SIZE (0 = MemAvailable) */
};

/* The --set option: appends `arg` to sets[*nsets], or returns 2 after
 * "--set needs KEY=VALUE" (", e.g. --set EXAMPLE" when `example` is given). */
int cli_opt_set(const char **sets, size_t *nsets, const char *arg, const char *example);
/* The --max-memory option: parses SIZE into *bytes, or returns 2 after a
 * usage message naming what is allowed. */
int cli_opt_max_memory(uint64_t *bytes, const char *arg);
/* Loads l->file with l->sets; when check_memory, refuses a model estimated
 * larger than max_memory (0 = MemAvailable; model/estimate.h) before it is
 * built. `pr` (NULL = none) shows the "loading" phase. 0, or 2 after the
 * message (sc then needs no scenario_fini). */
int cli_load_scenario(struct scenario *sc, const struct cli_load *l, bool check_memory,
                      uint64_t max_memory, struct progress *pr);
/* The start of a command taking one SCENARIO.yaml and `fn`'s options (which
 * fill `l` through ctx): parses, loads (cli_load_scenario) and builds the
 * model. 0 (finish m and sc), CLI_HELP, or the exit status after the message. */
int cli_load_model(const struct cli_cmd *c, int argc, char **argv, cli_opt_fn fn, void *ctx,
                   struct cli_load *l, bool check_memory, struct scenario *sc, struct model *m);

#endif /* FABSIM_CLI_OPTS_H */

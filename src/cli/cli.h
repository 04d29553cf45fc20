/* src/cli/cli.h
 *
 * The fabsim commands (SPEC.md): each returns the process exit status
 * (0 ran, 2 bad input or usage, 1 internal error). main.c dispatches.
 */
#ifndef FABSIM_CLI_CLI_H
#define FABSIM_CLI_CLI_H

int cli_run(int argc, char **argv);
int cli_validate(int argc, char **argv);
int cli_compare(int argc, char **argv);
int cli_labs(int argc, char **argv);
int cli_report(int argc, char **argv);
/* fabsim topology: the fabric as a topology file (docs/inputs.md) */
int cli_topology(int argc, char **argv);
int cli_routes(int argc, char **argv); /* cli/routes.c */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* FABSIM_CLI_CLI_H */

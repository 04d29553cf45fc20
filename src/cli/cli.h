/* src/cli/cli.h
 *
 * The fabsim commands (SPEC.md): each returns the process exit status
 * (0 ran, 2 bad input or usage, 1 internal error); argv[0] is the command's
 * name. Their option tables are in the same files (`struct cli_cmd`,
 * cli/opts.h); cli/commands.c lists them and main.c dispatches.
 */
#ifndef FABSIM_CLI_CLI_H
#define FABSIM_CLI_CLI_H

int cli_run(int argc, char **argv);      /* cli/run.c */
int cli_validate(int argc, char **argv); /* cli/run.c */
int cli_compare(int argc, char **argv);  /* cli/compare.c */
int cli_labs(int argc, char **argv);     /* cli/labs.c */
int cli_report(int argc, char **argv);   /* cli/report.c */
int cli_routes(int argc, char **argv);   /* cli/routes.c */
int cli_sweep(int argc, char **argv);    /* cli/sweep.c */
int cli_topology(int argc, char **argv); /* cli/topology.c (docs/inputs.md) */
int cli_help_cmd(int argc, char **argv); /* cli/commands.c */
/* Prints "fabsim: <message>" on stderr; returns 2 (also in cli/opts.h). */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The whole command line (argv[0] = the program): dispatches to a command. */
int cli_main(int argc, char **argv);
/* `run` on the ranks of `c` (par/par.h; called by build/fabsim-mpi's main in
 * cli/main_mpi.c): rank 0 prints and writes the results. lookahead_ps: 0, or a
 * forced window length (tests of the causality check). */
struct comm;
int cli_run_par(int argc, char **argv, const struct comm *c, unsigned long long lookahead_ps);

#endif /* FABSIM_CLI_CLI_H */

/* src/stats/results.h
 *
 * Writes a finished run: results.json (every field of SPEC.md, schema_version),
 * links.csv (the sampler's time series) and the short human summary.
 */
#ifndef FABSIM_STATS_RESULTS_H
#define FABSIM_STATS_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct model;
struct diag;

#define RESULTS_SCHEMA_VERSION 1
#define FABSIM_VERSION "0.1.0"

void results_write_json(const struct model *m, FILE *f);
/* Writes DIR/results.json and DIR/links.csv, creating DIR (and parents). */
int results_write_dir(const struct model *m, const char *dir, struct diag *d);
/* A few lines for a person: completion, throughput, drops, pauses, warnings. */
void results_print_summary(const struct model *m, FILE *f);
/* Why the run did not complete (a QP exhausted its retries; stopped with
 * work left), or false when it completed. */
bool results_incomplete_reason(const struct model *m, char *buf, size_t len);
/* mkdir -p */
int results_mkdirs(const char *dir);

#endif /* FABSIM_STATS_RESULTS_H */

/* src/report/lab.h
 *
 * A lab defined as data: scenarios/labs/<lab>/lab.yaml (docs/labs/README.md)
 * names the course claim it tests, its runs, the metrics read from those
 * runs' results, the findings (templates over the metrics), the verdict
 * rule and the charts. lab_load parses and checks it (file:line:col errors);
 * lab_eval computes the metrics, findings and verdict from the runs. Called
 * by report/report.c and cli/labs.c.
 */
#ifndef FABSIM_REPORT_LAB_H
#define FABSIM_REPORT_LAB_H

#include "core/diag.h"
#include "report/expr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct jv;

struct lab_run {
    char *id, *file, *label; /* file relative to the lab's folder */
    char **sets;             /* --set overrides of this run */
    size_t nsets;
};

/* A reading of the defaults (lab.yaml `readings:`): a value an unsourced or
 * disputed default might have, as --set changes applied on top of every run
 * of the lab; `fabsim labs` re-runs the lab under it and reports whether each
 * verdict is the same (docs/labs/README.md "Readings"). */
struct lab_reading {
    char *id, *why; /* why: the default's source and why this value is a reading of it */
    char **sets;
    size_t nsets;
    struct srcpos pos; /* of the item in lab.yaml, for a set no run takes */
};

struct lab_metric {
    char *name, *run, *unit, *missing, *inf;
    char *yes, *no; /* printed for 1 and 0 (flags such as deadlock.detected) */
    int digits;     /* -1 = automatic */
    struct expr e;
};

struct lab_finding {
    char *title, *text;
};

struct lab_chart {
    char *type, *title;
    char **runs; /* ids or shell patterns */
    size_t nruns;
    char *json;    /* the chart's other keys as a JSON object body ("\"k\":v,...") or "" */
    char **mnames; /* counters: metric labels and their per-run expressions */
    struct expr *mexpr;
    size_t nm;
};

enum lab_verdict { LAB_UNDECIDED, LAB_HOLDS, LAB_NUANCE, LAB_NOT };

/* A sub-claim's verdict (lab.yaml `claims:`): its `holds` rule, else its
 * `conditions` rule (it holds only under the conditions its text names),
 * else it does not hold. The two rules must not both be true: a run where
 * they are is undecided ("the rules overlap"), never silently one of them. */
enum lab_sub { LAB_SUB_UNDECIDED, LAB_SUB_HOLDS, LAB_SUB_CONDITIONS, LAB_SUB_NOT };

struct lab_claim {
    char *id, *text; /* the sub-claim, as the course says it */
    struct expr holds, conditions;
    bool has_conditions;
    char *says[4]; /* text per enum lab_sub ([0]: unused) */
};

struct lab_def {
    char *path;
    char *title, *claim, *claim_source, *next;
    struct lab_run *runs; /* explicit runs; none = every NN-*.yaml in the folder */
    size_t nruns;
    struct lab_metric *m;
    size_t nm;
    struct lab_finding *f;
    size_t nf;
    struct expr holds, nuance;
    bool has_nuance;
    char *says[4]; /* text per enum lab_verdict ([0]: unused) */
    /* Sub-claims: with them the lab's verdict is derived (all hold: holds;
     * none: does not hold; otherwise: holds with a nuance), never a rule. */
    struct lab_claim *claims;
    size_t nclaims;
    struct lab_chart *charts;
    size_t ncharts;
    struct lab_reading *readings;
    size_t nreadings;
};

/* What a lab's runs gave, for lab_eval: the results of run `id` or NULL,
 * with its status ("ok", "not_available", "error", or NULL = not run). */
typedef const struct jv *(*lab_find_fn)(void *ctx, const char *id, const char **status);

struct lab_eval {
    double *values;  /* per metric; NaN = no value */
    char **why;      /* per metric: why there is no value (or NULL) */
    char **findings; /* per finding: the text with the numbers filled in */
    bool *available; /* per finding: every metric it shows has a value */
    enum lab_verdict verdict;
    char *verdict_text; /* the rule's text for the verdict, numbers filled in */
    char *undecided;    /* LAB_UNDECIDED: which metrics had no value */
    enum lab_sub *sub;  /* per claim */
    char **sub_text;    /* per claim: its text for its verdict, numbers filled in */
};

/* 0, or an FS_E* code with `d` filled; lab_fini `L` in both cases. */
int lab_load(struct lab_def *L, const char *path, struct diag *d);
void lab_fini(struct lab_def *L);
/* Every metric's run must be one of `ids` (the lab's runs). */
int lab_check_runs(const struct lab_def *L, char *const *ids, size_t n, struct diag *d);
void lab_eval(const struct lab_def *L, lab_find_fn find, void *ctx, struct lab_eval *out);
void lab_eval_fini(const struct lab_def *L, struct lab_eval *ev);
/* The verdicts (the lab's and its claims') from ev->values alone: lab_eval
 * calls it once the metrics are computed; tests feed it numbers. */
void lab_decide(const struct lab_def *L, struct lab_eval *ev);
const char *lab_verdict_name(enum lab_verdict v);
const char *lab_sub_name(enum lab_sub v);
/* A chart's run pattern (an id or a shell pattern such as "incast-*"). */
bool lab_run_matches(const char *pattern, const char *id);
/* A value formatted as the metric asks ("12.3 us", "never", "not run"). */
void lab_format(const struct lab_metric *m, double v, const char *why, char *buf, size_t len);

#endif /* FABSIM_REPORT_LAB_H */

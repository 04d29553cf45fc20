/* src/report/report.h
 *
 * The HTML report: reads the runs under an output folder back (results.json,
 * links.csv, status.json, the lab texts), computes the headline findings from
 * their numbers, and writes ONE self-contained report.html with the data as
 * JSON and the chart library (Vega-Lite, vega, vega-embed from report/web/'s
 * pinned npm packages) inlined. Called by `fabsim labs`, `report`, `compare`.
 *
 * Folder layouts understood:
 *   DIR/<lab>/<scenario>/{status.json,results.json,links.csv,scenario.yaml}
 *   DIR/<lab>/lab.md                 (the lab's text, copied by `fabsim labs`)
 *   DIR/<lab>/lab.yaml               (claim, metrics, findings, verdict, charts:
 *                                     report/lab.h; copied by `fabsim labs`)
 *   DIR/results.json                 (a single `fabsim run` folder)
 */
#ifndef FABSIM_REPORT_REPORT_H
#define FABSIM_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct diag;
struct jv;
struct lab_def;
struct lab_eval;

/* Scenario status as recorded by the labs runner in status.json. */
#define REPORT_OK "ok"
#define REPORT_NOT_AVAILABLE "not_available"
#define REPORT_ERROR "error"
#define REPORT_NOT_RUN "not_run" /* left out by `labs --only` */

struct report_scn {
    char *id, *label, *status, *message, *yaml;
    char *results_text; /* results.json verbatim (NULL when it did not run) */
    struct jv *res;     /* parsed */
    char *series_json;  /* compact time series derived from links.csv */
    /* A sweep's or compare's run: the values it set (status.json "set"),
     * for the metric-vs-parameter chart; none elsewhere. */
    char **set_keys, **set_vals;
    size_t nset;
};

/* A lab's runs under one of its readings (lab.yaml `readings:`), from
 * DIR/<lab>/readings/<id>/: a run missing there is the lab's own (the
 * reading did not apply to it). `ev` is NULL when none of them ran. */
struct report_reading {
    struct report_scn *scn;
    size_t nscn;
    struct lab_eval *ev;
};

struct report_lab {
    char *id, *title, *markdown;
    struct report_scn *scn;
    size_t nscn;
    struct lab_def *def;       /* DIR/<lab>/lab.yaml, or NULL (a lab without one) */
    struct lab_eval *ev;       /* its metrics, findings and verdict (with def) */
    struct report_reading *rd; /* per def->readings */
};

struct report_finding {
    char *lab, *title, *text;
    bool available; /* false: a number it shows has no value (run not available) */
};

struct report {
    char *dir;
    char *mode; /* "labs" | "compare" | "run" */
    struct report_lab *labs;
    size_t nlabs;
    struct report_finding *findings;
    size_t nfindings;
    char *validation; /* DIR/validation.json (make validate), NULL if none */
};

/* Reads every run under `dir`. 0, or FS_ENOENT / FS_EINVAL with `d` filled. */
int report_load(struct report *r, const char *dir, struct diag *d);
void report_fini(struct report *r);
/* Fills r->findings and each lab's verdict from the runs' numbers, through
 * the labs' lab.yaml (called by report_load). */
void report_compute_findings(struct report *r);
/* Writes DIR/report.html and DIR/findings.json. 0 or FS_E* with `d`. */
int report_write(const struct report *r, struct diag *d);
/* load + write; prints nothing. */
int report_build(const char *dir, struct diag *d);
/* Per lab: the claim, the verdict and the findings, as `fabsim labs` prints them. */
void report_print_findings(const struct report *r, FILE *f);

/* validation.c: the Validation page's rows (docs/validation.md) */
struct jw;
char *report_validation_load(const char *dir);
void report_validation_write(const char *json, struct jw *w);

/* Finds the report's web assets (report.js, report.css, node_modules/vega*):
 * $FABSIM_WEB_DIR, then PREFIX/share/fabsim/web of an installed binary
 * (PREFIX/bin/fabsim), then report/web above the running binary (a source
 * tree), then ./report/web. */
int report_find_web(char *out, size_t len);

/* Writes JSON text `s` for embedding in a <script type="application/json">
 * element: '<' and U+2028/2029 escaped (report.c). */
void report_put_json_script(FILE *f, const char *s);

#endif /* FABSIM_REPORT_REPORT_H */

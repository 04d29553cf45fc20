/* tests/testutil.h
 *
 * Helpers for in-process scenario tests: load YAML text, build and run the
 * model, find links by name. Header-only so every test binary stays one file.
 */
#ifndef FABSIM_TESTS_TESTUTIL_H
#define FABSIM_TESTS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/scenario.h"
#include "core/diag.h"
#include "model/model.h"
#include "stats/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct trun {
    struct scenario sc;
    struct model m;
    int rc; /* model_build result */
};

/* Loads `yaml` (+ --set overrides) and builds, without running (a test sets
 * what it compares first). Fails the test on a load error; a build error is
 * left in t->rc (FS_ENOTSUP: mechanism not yet). */
static inline void trun_build(struct trun *t, const char *yaml, const char *const *sets,
                              size_t nsets) {
    struct diag d = {0};
    memset(t, 0, sizeof *t);
    int rc = scenario_load_string(&t->sc, yaml, "test.yaml", sets, nsets, &d);
    if (rc) {
        diag_print(&d, stderr);
        fail_msg("scenario did not load");
    }
    t->rc = model_build(&t->m, &t->sc, &d);
    if (t->rc) diag_print(&d, stderr);
}

/* trun_build, then runs. */
static inline void trun_start(struct trun *t, const char *yaml, const char *const *sets,
                              size_t nsets) {
    trun_build(t, yaml, sets, nsets);
    if (!t->rc) model_run(&t->m, NULL, NULL);
}

static inline void trun_end(struct trun *t) {
    model_fini(&t->m);
    scenario_fini(&t->sc);
}

/* Port id of the directed link "a->b" (fails the test if absent). */
static inline uint32_t tlink(const struct trun *t, const char *name) {
    bool directed;
    uint32_t p = net_link_by_name(&t->m.net, name, &directed);
    if (p == NET_NONE) fail_msg("no link %s", name);
    return p;
}

static inline double tflow_fct_ns(const struct trun *t, uint32_t flow) {
    const struct flow_row *f = &t->m.net.flows[flow];
    return (double)(f->end_ps - f->start_ps) / 1000.0;
}

/* results.json as a string (caller frees), with the wall-time line removed. */
static inline char *tresults_json(const struct trun *t) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    results_write_json(&t->m, f);
    fclose(f);
    char *w = strstr(buf, "\"wall_s\"");
    if (w) {
        char *eol = strchr(w, '\n');
        memmove(w, eol, strlen(eol) + 1);
    }
    return buf;
}

#endif /* FABSIM_TESTS_TESTUTIL_H */

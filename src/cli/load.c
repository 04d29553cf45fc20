/* src/cli/load.c
 *
 * What the commands that take one SCENARIO.yaml share (cli/opts.h): the
 * --set option, loading the scenario with its overrides and the memory
 * check before building, and for routes and topology the whole start.
 */
#include "cli/opts.h"
#include "cli/progress.h"
#include "config/scenario.h"
#include "core/diag.h"
#include "core/mem.h"
#include "core/units.h"
#include "model/estimate.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

int cli_opt_set(const char **sets, size_t *nsets, const char *arg, const char *example) {
    if (!strchr(arg, '='))
        return example ? cli_usage_error("--set needs KEY=VALUE, e.g. --set %s", example)
                       : cli_usage_error("--set needs KEY=VALUE");
    sets[(*nsets)++] = arg;
    return 0;
}

int cli_opt_max_memory(uint64_t *bytes, const char *arg) {
    char why[160];
    if (units_parse_size(arg, bytes, why, sizeof why) || !*bytes)
        return cli_usage_error("--max-memory '%s': use a size such as 8GiB or 512MB", arg);
    return 0;
}

int cli_load_scenario(struct scenario *sc, const struct cli_load *l, bool check_memory,
                      uint64_t max_memory, struct progress *pr) {
    struct diag d = {0};
    if (pr) progress_phase(pr, "loading", l->file);
    int rc = scenario_load(sc, l->file, l->sets, l->nsets, &d);
    if (pr) progress_end_phase(pr, pr->mode == PROGRESS_LINES ? 0 : 1e30);
    if (rc || (check_memory && scenario_check_memory(sc, max_memory, &d))) {
        if (pr) progress_done(pr);
        diag_print(&d, stderr);
        if (!rc) scenario_fini(sc);
        return 2;
    }
    return 0;
}

int cli_load_model(const struct cli_cmd *c, int argc, char **argv, cli_opt_fn fn, void *ctx,
                   struct cli_load *l, bool check_memory, struct scenario *sc, struct model *m) {
    l->sets = fs_xcalloc((size_t)argc + 1, sizeof *l->sets);
    char **pos = fs_xcalloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    int rc = cli_parse(c, argc, argv, fn, ctx, pos, &npos);
    if (!rc && npos != 1)
        rc = npos ? cli_usage_error("%s: one scenario file at a time", c->name)
                  : cli_usage_error("%s: missing SCENARIO.yaml (fabsim %s --help)", c->name,
                                    c->name);
    l->file = npos ? pos[0] : NULL;
    free(pos);
    if (!rc) rc = cli_load_scenario(sc, l, check_memory, l->max_memory_bytes, NULL);
    free(l->sets);
    l->sets = NULL;
    if (rc) return rc;
    struct diag d = {0};
    if (model_build(m, sc, &d)) {
        diag_print(&d, stderr);
        model_fini(m);
        scenario_fini(sc);
        return 2;
    }
    return 0;
}

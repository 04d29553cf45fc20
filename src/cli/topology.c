/* src/cli/topology.c
 *
 * `fabsim topology SCENARIO [-o FILE] [--set KEY=VALUE]...`: builds the
 * scenario's fabric (any built-in topology, or a file) and writes it in
 * fabsim's topology-file YAML form (docs/inputs.md), which
 * `topology: {kind: file, path: FILE}` reads back into the same fabric.
 */
#include "cli/cli.h"
#include "config/scenario.h"
#include "core/diag.h"
#include "core/mem.h"
#include "net/model.h"
#include "topo/tfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOPOLOGY_USAGE "usage: fabsim topology SCENARIO.yaml [-o FILE] [--set K=V]..."

int cli_topology(int argc, char **argv) {
    const char *file = NULL, *out = NULL;
    const char **sets = fs_xcalloc((size_t)argc + 1, sizeof *sets);
    size_t nsets = 0;
    for (int i = 0; i < argc; i++) {
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--out")) && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
            sets[nsets++] = argv[++i];
        } else if (argv[i][0] == '-' || file) {
            free(sets);
            return cli_usage_error(TOPOLOGY_USAGE);
        } else {
            file = argv[i];
        }
    }
    if (!file) {
        free(sets);
        return cli_usage_error(TOPOLOGY_USAGE);
    }
    struct scenario sc;
    struct diag d = {0};
    int rc = scenario_load(&sc, file, sets, nsets, &d);
    free(sets);
    if (rc) {
        diag_print(&d, stderr);
        return 2;
    }
    struct model m;
    rc = model_build(&m, &sc, &d);
    if (rc) {
        diag_print(&d, stderr);
        model_fini(&m);
        scenario_fini(&sc);
        return 2;
    }
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        perror(out);
        model_fini(&m);
        scenario_fini(&sc);
        return 2;
    }
    tfile_write_yaml(&m.net, &sc, f);
    int werr = ferror(f);
    if (out) werr |= fclose(f);
    model_fini(&m);
    scenario_fini(&sc);
    if (werr) {
        fprintf(stderr, "fabsim: %s: write error\n", out ? out : "stdout");
        return 1;
    }
    return 0;
}

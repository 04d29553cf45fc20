/* src/cli/topology.c
 *
 * `fabsim topology SCENARIO [-o FILE] [--set KEY=VALUE]...`: builds the
 * scenario's fabric (any built-in topology, or a file) and writes it in
 * fabsim's topology-file YAML form (docs/inputs.md), which
 * `topology: {kind: file, path: FILE}` reads back into the same fabric.
 */
#include "cli/cli.h"
#include "cli/opts.h"
#include "config/scenario.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"
#include "net/model.h"
#include "topo/tfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

static const struct cli_opt TOPOLOGY_OPTS[] = {
    {"out", 'o', "FILE", "write the topology file to FILE (default: standard output)"},
    {"set", 's', "KEY=VALUE", "override a scenario key by its dotted path (repeatable)"},
    {0},
};

const struct cli_cmd CLI_CMD_TOPOLOGY = {
    "topology",
    "SCENARIO.yaml",
    "write the scenario's fabric as a topology file (YAML, docs/inputs.md)",
    "Builds the scenario's fabric (any built-in topology, or a topology file) and writes\n"
    "it in fabsim's topology-file form: nodes with kinds and GPU counts, links with their\n"
    "ends, ports, rate and length. `topology: {kind: file, path: FILE}` reads it back\n"
    "into the same fabric; edit it to describe a design that does not exist yet.",
    TOPOLOGY_OPTS,
    "fabsim topology scenarios/examples/incast.yaml -o my-fabric.yaml",
    cli_topology,
};

struct topology_opts {
    const char *out;
    const char **sets;
    size_t nsets;
};

static int on_opt(void *ctx, int key, const char *arg) {
    struct topology_opts *o = ctx;
    switch (key) {
    case 'o':
        o->out = arg;
        return 0;
    case 's':
        if (!strchr(arg, '='))
            return cli_usage_error("--set needs KEY=VALUE, e.g. --set topology.leaves=8");
        o->sets[o->nsets++] = arg;
        return 0;
    }
    return cli_usage_error("internal: unhandled option %d", key);
}

int cli_topology(int argc, char **argv) {
    struct topology_opts o = {0};
    o.sets = fs_xcalloc((size_t)argc + 1, sizeof *o.sets);
    char **pos = fs_xcalloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    int rc = cli_parse(&CLI_CMD_TOPOLOGY, argc, argv, on_opt, &o, pos, &npos);
    if (!rc && npos != 1)
        rc = cli_usage_error(npos ? "topology: one scenario file at a time"
                                  : "topology: missing SCENARIO.yaml (fabsim topology --help)");
    const char *file = npos ? pos[0] : NULL, *out = o.out;
    const char **sets = o.sets;
    size_t nsets = o.nsets;
    free(pos);
    if (rc) {
        free(sets);
        return rc == CLI_HELP ? 0 : rc;
    }
    struct scenario sc;
    struct diag d = {0};
    rc = scenario_load(&sc, file, sets, nsets, &d);
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
    struct fs_out fo = {0}; /* core/file.h: atomic, never through a symlink */
    if (out && fs_out_open(&fo, out)) {
        fprintf(stderr, "fabsim: %s: cannot write: %s\n", out, strerror(errno));
        model_fini(&m);
        scenario_fini(&sc);
        return 1;
    }
    tfile_write_yaml(&m.net, &sc, out ? fo.f : stdout);
    int werr = out ? fs_out_commit(&fo) : 0; /* stdout: checked at exit (main.c) */
    model_fini(&m);
    scenario_fini(&sc);
    if (werr) {
        fprintf(stderr, "fabsim: %s: write failed: %s\n", out, strerror(errno));
        return 1;
    }
    return 0;
}

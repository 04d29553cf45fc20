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
#include "core/file.h"
#include "model/model.h"
#include "config/tfile_yaml.h"

#include <stdio.h>
#include <errno.h>
#include <string.h>

enum { OPT_MAX_MEMORY = CLI_LONG };

static const struct cli_opt TOPOLOGY_OPTS[] = {
    {"out", 'o', "FILE", "write the topology file to FILE (default: standard output)"},
    {"set", 's', "KEY=VALUE", "override a scenario key by its dotted path (repeatable)"},
    {"max-memory", OPT_MAX_MEMORY, "SIZE",
     "refuse a model estimated larger than SIZE (default: MemAvailable)"},
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
    struct cli_load l;
    const char *out;
};

static int on_opt(void *ctx, int key, const char *arg) {
    struct topology_opts *o = ctx;
    switch (key) {
    case 'o':
        o->out = arg;
        return 0;
    case 's':
        return cli_opt_set(o->l.sets, &o->l.nsets, arg, "topology.leaves=8");
    case OPT_MAX_MEMORY:
        return cli_opt_max_memory(&o->l.max_memory_bytes, arg);
    }
    return cli_usage_error("internal: unhandled option %d", key);
}

int cli_topology(int argc, char **argv) {
    struct topology_opts o = {0};
    struct scenario sc;
    struct model m;
    int rc = cli_load_model(&CLI_CMD_TOPOLOGY, argc, argv, on_opt, &o, &o.l, true, &sc, &m);
    if (rc) return rc == CLI_HELP ? 0 : rc;
    const char *out = o.out;
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

/* src/cli/routes.c
 *
 * `fabsim routes SCENARIO [-o FILE] [--set KEY=VALUE]...`: builds the
 * scenario's fabric, lets the subnet manager route it (fabric.routing_engine)
 * and writes the LFTs in OpenSM's opensm-lfts.dump format (docs/sources.md A10b),
 * which `routing_engine: file` with `lft_file: FILE` reads back, as does
 * `opensm -R file -U FILE`. `--ibsim-topology FILE` also writes the fabric
 * as an ibsim net file (tests/ib/check_opensm.sh runs OpenSM on it).
 */
#include "cli/cli.h"
#include "cli/opts.h"
#include "config/scenario.h"
#include "core/file.h"
#include "ctrl/sm.h"
#include "ctrl/sm_dump.h"
#include "model/model.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum { OPT_IBSIM = CLI_LONG, OPT_MAX_MEMORY };

static const struct cli_opt ROUTES_OPTS[] = {
    {"out", 'o', "FILE", "write the LFTs to FILE (default: standard output)"},
    {"set", 's', "KEY=VALUE", "override a scenario key by its dotted path (repeatable)"},
    {"max-memory", OPT_MAX_MEMORY, "SIZE",
     "refuse a model estimated larger than SIZE (default: MemAvailable)"},
    {"ibsim-topology", OPT_IBSIM, "FILE", "also write the fabric as an ibsim net file"},
    {0},
};

const struct cli_cmd CLI_CMD_ROUTES = {
    "routes",
    "SCENARIO.yaml",
    "write the subnet manager's InfiniBand LFTs (opensm-lfts.dump format)",
    "Builds the scenario's fabric (control_plane.kind: sm), lets the subnet manager route\n"
    "it with fabric.routing_engine and writes the linear forwarding tables as OpenSM\n"
    "writes them; `routing_engine: file` with `lft_file: FILE` reads them back.",
    ROUTES_OPTS,
    "fabsim routes scenarios/labs/subnet_manager/01-failure-ib-sm.yaml -o lfts.dump",
    cli_routes,
};

struct routes_opts {
    struct cli_load l;
    const char *out, *ibsim;
};

static int on_opt(void *ctx, int key, const char *arg) {
    struct routes_opts *o = ctx;
    switch (key) {
    case 'o':
        o->out = arg;
        return 0;
    case 's':
        return cli_opt_set(o->l.sets, &o->l.nsets, arg, "fabric.routing_engine=ftree");
    case OPT_IBSIM:
        o->ibsim = arg;
        return 0;
    case OPT_MAX_MEMORY:
        return cli_opt_max_memory(&o->l.max_memory_bytes, arg);
    }
    return cli_usage_error("internal: unhandled option %d", key);
}

int cli_routes(int argc, char **argv) {
    struct routes_opts o = {0};
    struct scenario sc;
    struct model m;
    int rc = cli_load_model(&CLI_CMD_ROUTES, argc, argv, on_opt, &o, &o.l, true, &sc, &m);
    if (rc) return rc == CLI_HELP ? 0 : rc;
    const char *out = o.out, *ibsim = o.ibsim;
    struct sm *sm = sm_of(&m.net);
    if (!sm) {
        fprintf(stderr, "fabsim: routes needs control_plane.kind: sm (an InfiniBand "
                        "subnet manager)\n");
        model_fini(&m);
        scenario_fini(&sc);
        return 2;
    }
    /* Both files atomic (core/file.h); a write error is exit 1. */
    struct fs_out t = {0}, lf = {0};
    int status = 0;
    if (ibsim && fs_out_open(&t, ibsim)) {
        fprintf(stderr, "fabsim: %s: cannot write: %s\n", ibsim, strerror(errno));
        status = 1;
    } else if (ibsim) {
        sm_ibsim_write(&m.net, t.f);
        if (fs_out_commit(&t)) {
            fprintf(stderr, "fabsim: %s: write failed: %s\n", ibsim, strerror(errno));
            status = 1;
        }
    }
    if (!status && out && fs_out_open(&lf, out)) {
        fprintf(stderr, "fabsim: %s: cannot write: %s\n", out, strerror(errno));
        status = 1;
    } else if (!status) {
        sm_dump_write(&m.net, sm, out ? lf.f : stdout);
        if (out && fs_out_commit(&lf)) {
            fprintf(stderr, "fabsim: %s: write failed: %s\n", out, strerror(errno));
            status = 1;
        }
    }
    model_fini(&m);
    scenario_fini(&sc);
    return status;
}

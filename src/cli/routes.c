/* src/cli/routes.c
 *
 * `fabsim routes SCENARIO [-o FILE] [--set KEY=VALUE]...`: builds the
 * scenario's fabric, lets the subnet manager route it (fabric.routing_engine)
 * and writes the LFTs in OpenSM's opensm-lfts.dump format (domain.md A10b),
 * which `routing_engine: file` with `lft_file: FILE` reads back, as does
 * `opensm -R file -U FILE`. `--ibsim-topology FILE` also writes the fabric
 * as an ibsim net file (tests/ib/check_opensm.sh runs OpenSM on it).
 */
#include "cli/cli.h"
#include "cli/opts.h"
#include "config/scenario.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"
#include "ctrl/sm.h"
#include "net/estimate.h"
#include "net/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_IBSIM = CLI_LONG };

static const struct cli_opt ROUTES_OPTS[] = {
    {"out", 'o', "FILE", "write the LFTs to FILE (default: standard output)"},
    {"set", 's', "KEY=VALUE", "override a scenario key by its dotted path (repeatable)"},
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
    const char *out, *ibsim;
    const char **sets;
    size_t nsets;
};

static int on_opt(void *ctx, int key, const char *arg) {
    struct routes_opts *o = ctx;
    switch (key) {
    case 'o':
        o->out = arg;
        return 0;
    case 's':
        if (!strchr(arg, '='))
            return cli_usage_error("--set needs KEY=VALUE, e.g. --set fabric.routing_engine=ftree");
        o->sets[o->nsets++] = arg;
        return 0;
    case OPT_IBSIM:
        o->ibsim = arg;
        return 0;
    }
    return cli_usage_error("internal: unhandled option %d", key);
}

int cli_routes(int argc, char **argv) {
    struct routes_opts o = {0};
    o.sets = fs_xcalloc((size_t)argc + 1, sizeof *o.sets);
    char **pos = fs_xcalloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    int rc = cli_parse(&CLI_CMD_ROUTES, argc, argv, on_opt, &o, pos, &npos);
    if (!rc && npos != 1)
        rc = cli_usage_error(npos ? "routes: one scenario file at a time"
                                  : "routes: missing SCENARIO.yaml (fabsim routes --help)");
    const char *file = npos ? pos[0] : NULL, *out = o.out, *ibsim = o.ibsim;
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
    if (model_check_memory(&sc, 0, &d)) { /* net/estimate.h: before building */
        diag_print(&d, stderr);
        scenario_fini(&sc);
        return 2;
    }
    struct model m;
    rc = model_build(&m, &sc, &d);
    struct sm *sm = rc ? NULL : sm_of(&m.net);
    if (rc || !sm) {
        if (!rc)
            fprintf(stderr, "fabsim: routes needs control_plane.kind: sm (an InfiniBand "
                            "subnet manager)\n");
        else
            diag_print(&d, stderr);
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

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

int cli_routes(int argc, char **argv) {
    const char *file = NULL, *out = NULL, *ibsim = NULL;
    const char **sets = fs_xcalloc((size_t)argc + 1, sizeof *sets);
    size_t nsets = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--out")) {
            if (i + 1 >= argc) {
                free(sets);
                return cli_usage_error("%s needs a file", argv[i]);
            }
            out = argv[++i];
        } else if (!strcmp(argv[i], "--ibsim-topology") && i + 1 < argc) {
            ibsim = argv[++i];
        } else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
            sets[nsets++] = argv[++i];
        } else if (argv[i][0] == '-' || file) {
            free(sets);
            return cli_usage_error(
                "usage: fabsim routes SCENARIO.yaml [-o FILE] [--ibsim-topology FILE] "
                "[--set K=V]...");
        } else {
            file = argv[i];
        }
    }
    if (!file) {
        free(sets);
        return cli_usage_error(
            "usage: fabsim routes SCENARIO.yaml [-o FILE] [--ibsim-topology FILE] "
            "[--set K=V]...");
    }
    struct scenario sc;
    struct diag d = {0};
    int rc = scenario_load(&sc, file, sets, nsets, &d);
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
    struct fs_out t = {0}, o = {0};
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
    if (!status && out && fs_out_open(&o, out)) {
        fprintf(stderr, "fabsim: %s: cannot write: %s\n", out, strerror(errno));
        status = 1;
    } else if (!status) {
        sm_dump_write(&m.net, sm, out ? o.f : stdout);
        if (out && fs_out_commit(&o)) {
            fprintf(stderr, "fabsim: %s: write failed: %s\n", out, strerror(errno));
            status = 1;
        }
    }
    model_fini(&m);
    scenario_fini(&sc);
    return status;
}

/* src/cli/fit.c
 *
 * `fabsim fit LOG [--ranks N] [--fabric infiniband|roce] [--link RATE]`:
 * fits alpha and beta of a measured nccl-tests log (coll/nccllog.h) and
 * prints the `--set` lines that make a fabsim scenario of one GPU per host
 * behave alike (docs/inputs.md "Fitting a measured log").
 */
#include "cli/cli.h"
#include "cli/opts.h"
#include "coll/nccllog.h"
#include "core/diag.h"
#include "core/mem.h"
#include "core/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_fit(int argc, char **argv);

enum { OPT_RANKS = CLI_LONG, OPT_FABRIC, OPT_LINK };

static const struct cli_opt FIT_OPTS[] = {
    {"ranks", OPT_RANKS, "N", "ranks of the run (default: the log's \"#  Rank\" lines)"},
    {"fabric", OPT_FABRIC, "infiniband|roce",
     "whose headers the link rate must carry (default infiniband)"},
    {"link", OPT_LINK, "RATE", "the cluster's per-rank NIC rate: print busbw's share of it"},
    {0},
};

const struct cli_cmd CLI_CMD_FIT = {
    "fit",
    "LOG",
    "fit alpha/beta of a measured nccl-tests log; print the --set lines to use",
    "Reads an nccl-tests log (all_reduce_perf & co., as printed, mpirun tags allowed),\n"
    "fits t(S) = alpha + S / algbw to its out-of-place rows (least squares on relative\n"
    "error) and prints alpha, algbw and busbw, and the scenario keys that give a fabsim\n"
    "run of one GPU per host the same latency and bandwidth: workload.0.step_overhead\n"
    "(alpha per ring step) and fabric.link (busbw over the fabric's payload share).\n"
    "Check the result with `fabsim run SCENARIO --set ... --against LOG`.",
    FIT_OPTS,
    "fabsim fit all_reduce_perf.log --link 400Gbps",
    cli_fit,
};

struct fit_opts {
    unsigned long long ranks;
    bool roce;
    uint64_t link_bps;
};

static int on_opt(void *ctx, int key, const char *arg) {
    struct fit_opts *o = ctx;
    char why[160];
    switch (key) {
    case OPT_RANKS:
        return cli_parse_u64("--ranks", arg, 2, 1u << 24, &o->ranks) ? 2 : 0;
    case OPT_FABRIC:
        if (strcmp(arg, "infiniband") && strcmp(arg, "roce"))
            return cli_usage_error("--fabric '%s': use infiniband or roce", arg);
        o->roce = !strcmp(arg, "roce");
        return 0;
    case OPT_LINK:
        if (units_parse_rate(arg, &o->link_bps, why, sizeof why) || !o->link_bps)
            return cli_usage_error("--link '%s': use a rate such as 400Gbps", arg);
        return 0;
    }
    return cli_usage_error("internal: unhandled option %d", key);
}

/* Ring steps of one call (NCCL's ring: all_reduce 2(n-1), the others n-1). */
static double ring_steps(const char *op, uint32_t n) {
    return !strcmp(op, "all_reduce") ? 2.0 * (n - 1) : (double)(n - 1);
}

int cli_fit(int argc, char **argv) {
    struct fit_opts o = {0};
    char **pos = fs_xcalloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    int rc = cli_parse(&CLI_CMD_FIT, argc, argv, on_opt, &o, pos, &npos);
    const char *file = npos == 1 ? pos[0] : NULL;
    free(pos);
    if (rc) return rc == CLI_HELP ? 0 : rc;
    if (!file) return cli_usage_error("fit: one LOG (fabsim fit --help)");
    struct nccl_log l;
    struct diag d = {0};
    if (nccl_log_read(&l, file, &d)) {
        diag_print(&d, stderr);
        return 2;
    }
    uint32_t n = o.ranks ? (uint32_t)o.ranks : l.nranks;
    if (n < 2) {
        nccl_log_fini(&l);
        return cli_usage_error("fit: %s lists no ranks (\"#  Rank\" lines): give --ranks N", file);
    }
    const char *op = l.op[0] ? l.op : "all_reduce";
    struct nccl_fit f;
    if (nccl_log_fit(&l, n, &f)) {
        nccl_log_fini(&l);
        fprintf(stderr, "fabsim: %s: fewer than 2 rows with a time: nothing to fit\n", file);
        return 2;
    }
    /* Payload per wire byte at MTU 4096 (docs/sources.md A1): IB 26 B of headers
     * (LRH, BTH, RETH, ICRC, VCRC), RoCEv2 82 (Ethernet, IP, UDP, BTH, ICRC,
     * preamble and gap). */
    double eff = 4096.0 / (4096.0 + (o.roce ? 82.0 : 26.0));
    double steps = ring_steps(op, n);
    double link_gbps = f.busbw_GBps * 8.0 / eff;
    printf("# fit of %s: %s_perf%s, %u ranks, %zu sizes\n", file, op,
           l.op[0] ? "" : " (assumed: the log does not name it)", n, f.nused);
    printf("# t(S) = alpha + S / algbw: alpha %.2f us, algbw %.2f GB/s, busbw %.2f GB/s\n",
           f.alpha_us, f.algbw_GBps, f.busbw_GBps);
    printf("# the worst size is off the fit by %.1f %%\n", 100.0 * f.max_rel_err);
    if (o.link_bps)
        printf("# busbw is %.1f %% of the %.0f Gbit/s link (%.1f %% on the wire with %s "
               "headers)\n",
               100.0 * f.busbw_GBps * 8e9 / (double)o.link_bps, (double)o.link_bps / 1e9,
               100.0 * f.busbw_GBps * 8e9 / eff / (double)o.link_bps,
               o.roce ? "RoCEv2" : "InfiniBand");
    printf(
        "# scenario keys (one GPU per host, ring; docs/inputs.md \"Fitting a measured log\"):\n");
    printf("--set workload.0.step_overhead=%.0fns\n", fmax(1.0, 1e3 * f.alpha_us / steps));
    printf("--set fabric.link=%.0fGbps\n", ceil(link_gbps));
    printf("# step_overhead: alpha / %.0f ring steps, an upper bound (fabsim adds the wire's\n"
           "# own latency per step); fabric.link: busbw x 8 / %.4f (%s payload per wire byte)\n",
           steps, eff, o.roce ? "RoCEv2" : "InfiniBand");
    nccl_log_fini(&l);
    return 0;
}

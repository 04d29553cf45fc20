/* fuzz/fuzz_model.c
 *
 * libFuzzer target on load + build + run (`make fuzz`): a scenario that
 * loads either builds or is refused with a message, and a built model runs
 * without tripping an assertion, ASan or UBSan. Kept fast: scenarios above
 * 16 hosts, 64 flows or 4 MiB of estimated memory are skipped, and the run
 * stops at 20 us of simulated time.
 */
#include "config/limits.h"
#include "config/scenario.h"
#include "core/diag.h"
#include "model/estimate.h"
#include "model/model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct scenario sc;
    struct diag d;
    int rc = scenario_load_string(&sc, text, "fuzz.yaml", NULL, 0, &d);
    free(text);
    if (rc) {
        if (!d.msg[0]) abort();
        return 0;
    }
    uint64_t flows = 0;
    for (size_t i = 0; i < sc.nworkload; i++)
        flows += scenario_entry_flows(&sc, &sc.workload[i]);
    struct mem_estimate e;
    struct model_params mp;
    scenario_model_params(&sc, &mp);
    model_estimate(&mp, &e);
    if (scenario_host_count(&sc.topo) > 16 || flows > 64 || e.total_bytes > (4u << 20)) {
        scenario_fini(&sc);
        return 0;
    }
    struct model m;
    memset(&d, 0, sizeof d);
    rc = model_build(&m, &sc, &d);
    if (rc) {
        if (!d.msg[0]) abort();
    } else {
        if (m.sim.stop_ps > 20000000ull) m.sim.stop_ps = 20000000ull; /* 20 us */
        model_run(&m, NULL, NULL);
    }
    model_fini(&m);
    scenario_fini(&sc);
    return 0;
}

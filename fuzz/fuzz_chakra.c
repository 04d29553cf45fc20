/* fuzz/fuzz_chakra.c
 *
 * libFuzzer target on the Chakra execution-trace reader (`make fuzz`,
 * src/workload/et.c): any input is either read within the limits of
 * workload/et.h (nodes, dependencies, compute time) or refused with a
 * message naming the byte, never a crash or sanitizer report.
 */
#include "core/diag.h"
#include "workload/et.h"

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_file(data, size, ".et");
    if (!path) return 0;
    struct et_trace t;
    struct diag d = {0};
    int rc = et_read(path, &t, &d);
    if (rc) {
        if (!d.msg[0]) abort();
        return 0;
    }
    uint64_t compute = 0;
    for (uint32_t i = 0; i < t.nnodes; i++)
        if (t.nodes[i].type == ET_COMP) compute += t.nodes[i].duration_us;
    if (t.nnodes > ET_MAX_NODES || compute > ET_MAX_COMPUTE_US) abort(); /* the limits hold */
    et_free(&t);
    return 0;
}

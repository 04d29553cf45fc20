/* src/model/estimate.h
 *
 * What a scenario's model will take in memory, computed from the scenario
 * alone before anything is built (docs/outputs.md "Limits"), so that a fabric
 * too large for the machine fails at once with exit 2 instead of dying late
 * (fat_tree k=128 needs ~40 GB). The CLI compares it with MemAvailable or
 * --max-memory. An estimate: the main arrays, not the packet pool (which
 * grows with the traffic in flight).
 */
#ifndef FABSIM_MODEL_ESTIMATE_H
#define FABSIM_MODEL_ESTIMATE_H

#include <stdint.h>

struct model_params;
struct diag;

#define ESTIMATE_NPARTS 5

struct mem_estimate {
    uint64_t total_bytes;
    struct {
        const char *what;
        uint64_t bytes;
    } part[ESTIMATE_NPARTS];
    int largest; /* index into part */
};

void model_estimate(const struct model_params *sc, struct mem_estimate *e);
/* 0, or FS_ERANGE with `d` naming the estimate, its largest part and the
 * limit: `limit_bytes` when not 0, else MemAvailable (when it can be read). */
int model_check_memory(const struct model_params *sc, uint64_t limit_bytes, struct diag *d);
/* MemAvailable from /proc/meminfo, in bytes; 0 when unknown. */
uint64_t estimate_mem_available(void);

#endif /* FABSIM_MODEL_ESTIMATE_H */

/* src/core/time.h
 *
 * Simulated time: unsigned picoseconds since the start of the run. A 64-bit
 * count covers 213 days, far past any scenario's 1 s cap. Everyone may include it.
 */
#ifndef FABSIM_CORE_TIME_H
#define FABSIM_CORE_TIME_H

#include <stdint.h>

typedef uint64_t sim_time_ps;

#define SIM_TIME_NEVER UINT64_MAX
#define PS_PER_NS 1000ULL
#define PS_PER_US 1000000ULL
#define PS_PER_MS 1000000000ULL
#define PS_PER_S 1000000000000ULL

/* Serialisation time of `bytes` at `rate_bps`, rounded up to a whole
 * picosecond so that a transmitter is never free before its last bit left. */
static inline sim_time_ps time_serialise_ps(uint64_t bytes, uint64_t rate_bps) {
    unsigned __int128 bits_ps = (unsigned __int128)bytes * 8u * PS_PER_S;
    return (sim_time_ps)((bits_ps + rate_bps - 1) / rate_bps);
}

static inline double time_ps_to_ns(sim_time_ps t) {
    return (double)t / 1000.0;
}

#endif /* FABSIM_CORE_TIME_H */

/* src/core/rng.h
 *
 * xoshiro256** streams seeded by splitmix64(seed, entity id) (Blackman &
 * Vigna), so every entity draws its own sequence and results never depend on
 * the order in which entities happen to draw. Any module may embed one.
 */
#ifndef FABSIM_CORE_RNG_H
#define FABSIM_CORE_RNG_H

#include <stdint.h>

struct rng {
    uint64_t s[4];
};

/* `stream` separates independent users of one entity (e.g. hash seed vs. arrivals). */
void rng_seed(struct rng *r, uint64_t seed, uint64_t entity, uint64_t stream);

static inline uint64_t rng_rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return result;
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double rng_uniform(struct rng *r) {
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n > 0, without modulo bias (Lemire). */
uint64_t rng_below(struct rng *r, uint64_t n);

/* Exponential with the given mean. */
double rng_exponential(struct rng *r, double mean);

uint64_t rng_splitmix64(uint64_t *state);

#endif /* FABSIM_CORE_RNG_H */

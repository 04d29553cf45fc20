#include "core/rng.h"

#include <math.h>

uint64_t rng_splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed, uint64_t entity, uint64_t stream) {
    uint64_t st = seed;
    uint64_t mix = rng_splitmix64(&st);
    st = mix ^ (entity * 0xd1b54a32d192ed03ULL) ^ (stream * 0x8cb92ba72f3d8dd7ULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = rng_splitmix64(&st);
}

uint64_t rng_below(struct rng *r, uint64_t n) {
    unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
    uint64_t l = (uint64_t)m;
    if (l < n) {
        uint64_t t = -n % n;
        while (l < t) {
            m = (unsigned __int128)rng_next(r) * n;
            l = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double rng_exponential(struct rng *r, double mean) {
    double u = rng_uniform(r);
    return -mean * log1p(-u);
}

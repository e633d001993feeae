/*
 * pcg32.c — PCG32 XSH-RR 64/32 (see pcg32.h).
 */
#include "core/pcg32.h"

#define PCG32_MULT 6364136223846793005ULL

void pcg32_seed(pcg32 *rng, uint64_t initstate, uint64_t initseq)
{
    rng->state = 0;
    rng->inc = (initseq << 1u) | 1u;
    pcg32_next(rng);
    rng->state += initstate;
    pcg32_next(rng);
}

uint32_t pcg32_next(pcg32 *rng)
{
    uint64_t old = rng->state;
    rng->state = old * PCG32_MULT + rng->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

uint32_t pcg32_bounded(pcg32 *rng, uint32_t bound)
{
    if (bound == 0) return 0;
    /* Values below 2^32 mod bound would make the low results likelier. */
    uint32_t threshold = (uint32_t)(-bound) % bound;
    for (;;) {
        uint32_t r = pcg32_next(rng);
        if (r >= threshold) return r % bound;
    }
}

uint64_t pcg32_next64(pcg32 *rng)
{
    uint64_t hi = pcg32_next(rng);
    return (hi << 32) | pcg32_next(rng);
}

uint64_t pcg32_bounded64(pcg32 *rng, uint64_t bound)
{
    if (bound == 0) return 0;
    if (bound <= UINT32_MAX) return pcg32_bounded(rng, (uint32_t)bound);
    uint64_t threshold = (-bound) % bound;
    for (;;) {
        uint64_t r = pcg32_next64(rng);
        if (r >= threshold) return r % bound;
    }
}

double pcg32_double(pcg32 *rng)
{
    return (double)(pcg32_next64(rng) >> 11) * 0x1.0p-53;
}

int64_t pcg32_range_i64(pcg32 *rng, int64_t lo, int64_t hi)
{
    if (hi <= lo) return lo;
    uint64_t span = (uint64_t)hi - (uint64_t)lo; /* hi - lo, exact mod 2^64 */
    uint64_t off = span == UINT64_MAX ? pcg32_next64(rng) : pcg32_bounded64(rng, span + 1);
    return (int64_t)((uint64_t)lo + off);
}

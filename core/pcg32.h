/*
 * pcg32.h — the only source of randomness in warphunt.
 *
 * PCG32 (O'Neill 2014): a 64-bit LCG state with the XSH-RR output
 * permutation, 2^63 selectable streams.  Seeding follows the reference
 * `pcg32_srandom_r(initstate, initseq)`, so (42, 54) reproduces the
 * published demo output.  Bounded integers are unbiased (rejection of the
 * low 2^32 mod n values).  A generator is a plain value: copying it forks
 * an identical stream, and it serialises as two 64-bit numbers.
 */
#ifndef WH_CORE_PCG32_H
#define WH_CORE_PCG32_H

#include <stdint.h>

typedef struct {
    uint64_t state;
    uint64_t inc;   /* always odd: (stream << 1) | 1 */
} pcg32;

void pcg32_seed(pcg32 *rng, uint64_t initstate, uint64_t initseq);
uint32_t pcg32_next(pcg32 *rng);
/* Uniform in [0, bound); bound 0 returns 0. */
uint32_t pcg32_bounded(pcg32 *rng, uint32_t bound);
/* Uniform 64-bit value from two draws. */
uint64_t pcg32_next64(pcg32 *rng);
/* Uniform in [0, bound) for 64-bit bounds; bound 0 returns 0. */
uint64_t pcg32_bounded64(pcg32 *rng, uint64_t bound);
/* Uniform double in [0, 1) with 53 random bits. */
double pcg32_double(pcg32 *rng);
/* Uniform integer in [lo, hi] (inclusive, any signed 64-bit bounds). */
int64_t pcg32_range_i64(pcg32 *rng, int64_t lo, int64_t hi);

#endif

/*
 * fmix32.h — Murmur3's 32-bit finalizer and its inverse, for the hashing
 * kernels' input builders (hash_insert.c, hash_lookup.c).  The kernels
 * keep their own device copy of fmix32 so that each .cu stands alone.
 *
 * fmix32 is a bijection on 32-bit words (xor-shifts and multiplications by
 * odd constants), so keys with any chosen hash can be built by inverting
 * it: that is how an expert makes distinct keys that share a home slot.
 */
#ifndef WH_KERNELS_CORPUS_FMIX32_H
#define WH_KERNELS_CORPUS_FMIX32_H

#include <stdint.h>

static inline uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* The inverse of an odd number modulo 2^32 (Newton's iteration: each step
 * doubles the correct low bits, from 3). */
static inline uint32_t inv_odd(uint32_t a)
{
    uint32_t x = a;
    for (int i = 0; i < 5; i++)
        x *= 2u - a * x;
    return x;
}

/* fmix32^-1: each step undone, in reverse order. */
static inline uint32_t unfmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= inv_odd(0xc2b2ae35u);
    h ^= (h >> 13) ^ (h >> 26);
    h *= inv_odd(0x85ebca6bu);
    h ^= h >> 16;
    return h;
}

#endif

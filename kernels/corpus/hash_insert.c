/*
 * hash_insert.c — hand-built inputs of kernels/corpus/hash_insert.cu (its
 * header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

#define SLOTS 32768u

/* keys[t] = fmix32^-1(home(t) + j(t) * SLOTS), checked by re-hashing; the
 * hash value must not be 0 (its key would be the empty marker 0). */
static bool set_hashed(wh_image *img, uint64_t t, uint32_t hash, wh_error *err)
{
    uint32_t key = wh_key_unhash(WH_HASH_FMIX32, hash);
    if (wh_key_hash_of(WH_HASH_FMIX32, key) != hash || key == 0) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "hash_insert: no key hashes to %u", hash);
        return false;
    }
    return corpus_set_int(img, "keys", NULL, t, key, err);
}

/* Every key distinct, every home slot the same. */
static bool one_home(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "threads");
    for (int64_t t = 0; t < n; t++)
        if (!set_hashed(img, (uint64_t)t, 12345u + (uint32_t)t * SLOTS, err))
            return false;
    return true;
}

/* Lane l of every warp homes at 64*l + 7: 32 runs of 64 slots, each filled
 * by the first 64 keys that home there, no two lanes of a warp on one slot. */
static bool lane_homes_64(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "threads");
    for (int64_t t = 0; t < n; t++)
        if (!set_hashed(img, (uint64_t)t, 7u + 64u * (uint32_t)(t % 32) + (uint32_t)(t / 32 + 1) * SLOTS, err))
            return false;
    return true;
}

/* Two homes per warp (even and odd lanes), 64 slots apart: 16-way
 * contention on each, two runs filled. */
static bool warp_homes(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "threads");
    for (int64_t t = 0; t < n; t++)
        if (!set_hashed(img, (uint64_t)t, 12345u + 64u * (uint32_t)(t % 2) + (uint32_t)(t / 2 + 1) * SLOTS, err))
            return false;
    return true;
}

static bool equal_keys(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return corpus_fill_int(img, "keys", NULL, 0x9e3779b9, err);
}

/* Distinct keys, distinct homes: no collision at all. */
static bool spread_homes(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "threads");
    for (int64_t t = 0; t < n; t++)
        if (!set_hashed(img, (uint64_t)t, (uint32_t)t * 2u + 1u, err))
            return false;
    return true;
}

const corpus_kernel corpus_hash_insert = {
    .name = "hash_insert",
    .family = "hashing",
    .worst = { { "one-home", one_home }, { "lane-homes-64", lane_homes_64 }, { "two-homes", warp_homes },
               { "equal-keys", equal_keys } },
    .best = { "spread-homes", spread_homes },
    .quick = true,
};

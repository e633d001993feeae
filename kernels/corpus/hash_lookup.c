/*
 * hash_lookup.c — hand-built inputs of kernels/corpus/hash_lookup.cu (its
 * header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"
#include "kernels/corpus/fmix32.h"

#define SLOTS 32768u
#define MAX_PROBES 32u
#define FILLER 1u               /* a foreign key: no query below equals it */

/* A key whose hash is `hash` (checked; never 0 nor FILLER). */
static bool key_for(uint32_t hash, uint32_t *key, wh_error *err)
{
    *key = unfmix32(hash);
    if (fmix32(*key) != hash || *key == 0 || *key == FILLER) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "hash_lookup: no usable key hashes to %u", hash);
        return false;
    }
    return true;
}

/* Query t is key Q(t % 1024), homed at MAX_PROBES * (t % 1024) + 1 (the
 * lanes of a warp MAX_PROBES slots apart); `store` puts each Q at its
 * last probe. */
static bool lane_homes(wh_image *img, bool store, wh_error *err)
{
    int64_t n = corpus_var(img, "threads");
    if (!corpus_fill_int(img, "table_keys", NULL, FILLER, err))
        return false;
    for (int64_t t = 0; t < n; t++) {
        uint32_t i = (uint32_t)(t % (SLOTS / MAX_PROBES)), home = MAX_PROBES * i + 1u, key;
        if (!key_for(home + SLOTS, &key, err) || !corpus_set_int(img, "queries", NULL, (uint64_t)t, key, err))
            return false;
        if (store && !corpus_set_int(img, "table_keys", NULL, (home + MAX_PROBES - 1u) % SLOTS, key, err))
            return false;
    }
    return true;
}

static bool hit_at_last(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return lane_homes(img, true, err);
}

/* Random queries; each stored MAX_PROBES - 1 slots after its home when
 * that slot is still free (else it misses after MAX_PROBES probes), the
 * rest of the table foreign keys. */
static bool hit_at_last_random(wh_image *img, pcg32 *rng, wh_error *err)
{
    int64_t n = corpus_var(img, "threads");
    if (!corpus_fill_int(img, "table_keys", NULL, FILLER, err))
        return false;
    static bool taken[SLOTS];
    for (uint32_t s = 0; s < SLOTS; s++)
        taken[s] = false;
    for (int64_t t = 0; t < n; t++) {
        uint32_t key = pcg32_next(rng) | 2u, at = (fmix32(key) + MAX_PROBES - 1u) % SLOTS;
        if (!corpus_set_int(img, "queries", NULL, (uint64_t)t, key, err))
            return false;
        if (!taken[at] && !corpus_set_int(img, "table_keys", NULL, at, key, err))
            return false;
        taken[at] = true;
    }
    return true;
}

static bool miss_lane_homes(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return lane_homes(img, false, err);
}

/* Random queries (random homes), the table all foreign keys. */
static bool miss_random(wh_image *img, pcg32 *rng, wh_error *err)
{
    int64_t n = corpus_var(img, "threads");
    if (!corpus_fill_int(img, "table_keys", NULL, FILLER, err))
        return false;
    for (int64_t t = 0; t < n; t++)
        if (!corpus_set_int(img, "queries", NULL, (uint64_t)t, pcg32_next(rng) | 2u, err))
            return false;
    return true;
}

/* The image starts at the low end of every domain: table_keys all 0
 * (empty), queries all 1: every query stops at its first probe. */
static bool empty_table(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return corpus_fill_int(img, "table_keys", NULL, 0, err);
}

const corpus_kernel corpus_hash_lookup = {
    .name = "hash_lookup",
    .family = "hashing",
    .worst = { { "hit-at-32", hit_at_last }, { "miss-lane-homes", miss_lane_homes },
               { "hit-at-32-random", hit_at_last_random }, { "miss-random", miss_random } },
    .best = { "empty-table", empty_table },
    .quick = false,
};

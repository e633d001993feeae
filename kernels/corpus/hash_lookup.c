/*
 * hash_lookup.c — hand-built inputs of kernels/corpus/hash_lookup.cu (its
 * header says why each should be slow or fast).  Every table is one an
 * insert could build (the spec's "hash_table": at most SLOTS / 2 keys,
 * each within MAX_PROBES - 1 slots after its home, the slots between
 * occupied).
 */
#include "kernels/corpus/corpus.h"

#define SLOTS 32768u
#define MAX_PROBES 32u
#define SPAN (2u * MAX_PROBES)         /* a cluster of MAX_PROBES keys, then as many empty slots */
#define CLUSTERS (SLOTS / SPAN)        /* 512: SLOTS / 2 keys in all */

/* The m-th key (m >= 1: never the empty marker 0, whose hash is 0) whose
 * fmix32 home is `home`. */
static uint32_t key_homed(uint32_t home, uint32_t m)
{
    return wh_key_unhash(WH_HASH_FMIX32, m * SLOTS + home);
}

/* Cluster c: MAX_PROBES slots from SPAN*c + `at` occupied, each by a key
 * of its own slot's home, but the last, whose key (the "tail" of c, m = 2)
 * homes at the cluster's first slot: a lookup of the tail walks
 * MAX_PROBES slots and finds it at the last one.  With at = 7 (the last
 * slot of a 32-byte sector) a walk touches 5 sectors instead of 4. */
static uint32_t tail_key(uint32_t c, uint32_t at)
{
    return key_homed(SPAN * c + at, 2);
}

static bool clusters(wh_image *img, uint32_t at, wh_error *err)
{
    for (uint32_t c = 0; c < CLUSTERS; c++)
        for (uint32_t j = 0; j < MAX_PROBES; j++) {
            uint32_t slot = SPAN * c + at + j, key = j + 1 < MAX_PROBES ? key_homed(slot, 1) : tail_key(c, at);
            if (!corpus_set_int(img, "table_keys", NULL, slot, key, err))
                return false;
        }
    return true;
}

/* Query t looks up cluster t % CLUSTERS (the lanes of a warp in clusters
 * of their own) for its tail (`hit`) or for a key homed at the cluster's
 * first slot that the table lacks. */
static bool cluster_queries(wh_image *img, bool hit, uint32_t at, wh_error *err)
{
    int64_t n = corpus_var(img, "threads");
    if (!clusters(img, at, err))
        return false;
    for (int64_t t = 0; t < n; t++) {
        uint32_t c = (uint32_t)(t % CLUSTERS), q = hit ? tail_key(c, at) : key_homed(SPAN * c + at, 3);
        if (!corpus_set_int(img, "queries", NULL, (uint64_t)t, q, err))
            return false;
    }
    return true;
}

static bool hit_at_last(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return cluster_queries(img, true, 0, err);
}

static bool hit_at_last_unaligned(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return cluster_queries(img, true, 7, err);
}

static bool miss_at_last(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return cluster_queries(img, false, 0, err);
}

/* Clusters whose every key homes at the cluster's first slot (key j the
 * j-th key of that home, at slot j of the cluster), and lane l of each
 * warp looking up key l of its cluster t mod CLUSTERS: the lanes leave
 * the probe loop at different probes, so the warp runs each exit apart. */
static bool hit_staggered(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "threads");
    for (uint32_t c = 0; c < CLUSTERS; c++)
        for (uint32_t j = 0; j < MAX_PROBES; j++)
            if (!corpus_set_int(img, "table_keys", NULL, SPAN * c + j, key_homed(SPAN * c, j + 1), err))
                return false;
    for (int64_t t = 0; t < n; t++) {
        uint32_t c = (uint32_t)(t % CLUSTERS);
        if (!corpus_set_int(img, "queries", NULL, (uint64_t)t, key_homed(SPAN * c, (uint32_t)(t % 32) + 1), err))
            return false;
    }
    return true;
}

/* The search's bests (session 33): in every warp, half the lanes look up
 * one key absent from the table whose home is empty (out at the first
 * probe) and the other half one key absent whose walk meets MAX_PROBES
 * occupied slots; every warp the same two keys, cluster 0 walked by half
 * of all threads. */
static bool hot_walk(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "threads");
    if (!clusters(img, 0, err))
        return false;
    for (int64_t t = 0; t < n; t++) {
        uint32_t q = t % 32 < 16 ? key_homed(MAX_PROBES, 1) : key_homed(0, 3);
        if (!corpus_set_int(img, "queries", NULL, (uint64_t)t, q, err))
            return false;
    }
    return true;
}

/* The clusters, random queries (a random home falls in a cluster half the
 * time). */
static bool clusters_random_queries(wh_image *img, pcg32 *rng, wh_error *err)
{
    int64_t n = corpus_var(img, "threads");
    if (!clusters(img, 0, err))
        return false;
    for (int64_t t = 0; t < n; t++)
        if (!corpus_set_int(img, "queries", NULL, (uint64_t)t, pcg32_next(rng) | 1u, err))
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
    .worst = { { "hit-at-32-clusters", hit_at_last }, { "hit-at-32-unaligned", hit_at_last_unaligned },
               { "miss-at-32-clusters", miss_at_last }, { "hit-staggered", hit_staggered },
               { "hot-walk", hot_walk },
               { "clusters-random-queries", clusters_random_queries } },
    .best = { "empty-table", empty_table },
    .quick = false,
};

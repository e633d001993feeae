/*
 * cdf_search.c — hand-built inputs of kernels/corpus/cdf_search.cu (its
 * header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

static bool last_entry_hit(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "NCDF");
    return corpus_fill_float(img, "CDF", NULL, 0.0, err) &&
           corpus_set_float(img, "CDF", NULL, (uint64_t)(n - 1), 1.0, err) &&
           corpus_fill_float(img, "u", NULL, 1.0, err);
}

/* Lane 0 of every warp scans everything (to the last entry, the only 1);
 * the others stop at entry 0. */
static bool one_lane_per_warp(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t threads = corpus_var(img, "threads"), n = corpus_var(img, "NCDF");
    if (!corpus_fill_float(img, "CDF", NULL, 0.5, err) || !corpus_set_float(img, "CDF", NULL, (uint64_t)(n - 1), 1.0, err))
        return false;
    for (int64_t t = 0; t < threads; t++)
        if (!corpus_set_float(img, "u", NULL, (uint64_t)t, t % 32 ? 0.25 : 1.0, err))
            return false;
    return true;
}

/* Thread 0 alone scans everything (to the last entry, the only 1); every
 * other thread stops at entry 0, so its warp is the only long one and
 * touches the CDF's sectors first by itself. */
static bool one_thread_scans(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "NCDF");
    return corpus_fill_float(img, "CDF", NULL, 0.0, err) &&
           corpus_set_float(img, "CDF", NULL, (uint64_t)(n - 1), 1.0, err) &&
           corpus_fill_float(img, "u", NULL, 0.0, err) && corpus_set_float(img, "u", NULL, 0, 1.0, err);
}

/* A real (sorted) CDF: (x / (N - 1))^4, the last entry 1; u = 1 finds only
 * the last entry. */
static bool sorted_cdf_high_u(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "NCDF");
    for (int64_t x = 0; x < n; x++) {
        double q = (double)x / (double)(n - 1);
        if (!corpus_set_float(img, "CDF", NULL, (uint64_t)x, x == n - 1 ? 1.0 : q * q * q * q * 0.999, err))
            return false;
    }
    return corpus_fill_float(img, "u", NULL, 1.0, err);
}

/* Every entry 1 (a sorted CDF whose first entry is already 1). */
static bool all_one(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return corpus_fill_float(img, "CDF", NULL, 1.0, err) && corpus_fill_float(img, "u", NULL, 0.5, err);
}

const corpus_kernel corpus_cdf_search = {
    .name = "cdf_search",
    .family = "searching",
    .worst = { { "last-entry-hit", last_entry_hit }, { "one-lane-per-warp", one_lane_per_warp },
               { "sorted-cdf-high-u", sorted_cdf_high_u }, { "one-thread-scans", one_thread_scans } },
    .best = { "cdf-all-one", all_one },
    .quick = false,
};

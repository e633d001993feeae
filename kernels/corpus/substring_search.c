/*
 * substring_search.c — hand-built inputs of
 * kernels/corpus/substring_search.cu (its header says why each should be
 * slow or fast).
 */
#include "kernels/corpus/corpus.h"

/* Text all `t`, the pattern all `p` but its last byte `last`. */
static bool uniform(wh_image *img, int t, int p, int last, wh_error *err)
{
    int64_t m = corpus_var(img, "M");
    return corpus_fill_int(img, "text", NULL, t, err) && corpus_fill_int(img, "pattern", NULL, p, err) &&
           corpus_set_int(img, "pattern", NULL, (uint64_t)(m - 1), last, err);
}

/* Every window matches: M compares, a flag and an atomicAdd on one
 * counter for every thread. */
static bool all_match(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return uniform(img, 'a', 'a', 'a', err);
}

/* Every window fails at the pattern's last byte: M compares, no match. */
static bool fail_last(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return uniform(img, 'a', 'a', 'b', err);
}

/* Text "aaa...ab" repeated with period M: the window at each period's
 * start matches (one lane in 32), the others fail after M - 1 - (offset)
 * compares: a staircase of exits in every warp. */
static bool periodic(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t m = corpus_var(img, "M"), n = corpus_var(img, "threads") + m - 1;
    if (!uniform(img, 'a', 'a', 'b', err))
        return false;
    for (int64_t e = m - 1; e < n; e += m)
        if (!corpus_set_int(img, "text", NULL, (uint64_t)e, 'b', err))
            return false;
    return true;
}

/* Random text over {a, b}, the pattern all 'a': geometric prefix lengths. */
static bool random_ab(wh_image *img, pcg32 *rng, wh_error *err)
{
    int64_t m = corpus_var(img, "M"), n = corpus_var(img, "threads") + m - 1;
    if (!corpus_fill_int(img, "pattern", NULL, 'a', err))
        return false;
    for (int64_t e = 0; e < n; e++)
        if (!corpus_set_int(img, "text", NULL, (uint64_t)e, 'a' + (int)(pcg32_next(rng) & 1u), err))
            return false;
    return true;
}

/* The first byte never matches: one compare per thread. */
static bool first_mismatch(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return corpus_fill_int(img, "text", NULL, 'a', err) && corpus_fill_int(img, "pattern", NULL, 'b', err);
}

const corpus_kernel corpus_substring_search = {
    .name = "substring_search",
    .family = "searching",
    .worst = { { "all-match", all_match }, { "fail-last", fail_last }, { "periodic", periodic },
               { "random-ab", random_ab } },
    .best = { "first-mismatch", first_mismatch },
    .quick = true,
};

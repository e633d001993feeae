/*
 * stream_compact.c — hand-built inputs of kernels/corpus/stream_compact.cu
 * (its header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

/* Lane l of every warp gets pass_v when keep(l), else fail_v. */
static bool by_lane(wh_image *img, int64_t pass_v, int64_t fail_v, int mode, wh_error *err)
{
    int64_t threads = corpus_var(img, "threads");
    for (int64_t t = 0; t < threads; t++) {
        int64_t l = t % 32;
        bool keep = mode == 0 || (mode == 1 && l % 2 == 0) || (mode == 2 && l == 0);
        if (!corpus_set_int(img, "src", NULL, (uint64_t)t, keep ? pass_v : fail_v, err))
            return false;
    }
    return true;
}

static bool all_pass_max_work(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return by_lane(img, 991, -1000, 0, err);
}

static bool alternating_max_work(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return by_lane(img, 991, -1000, 1, err);
}

static bool one_lane_max_work(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return by_lane(img, 991, -1000, 2, err);
}

static bool all_pass(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return by_lane(img, 16, -1000, 0, err);
}

static bool none_pass(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return corpus_fill_int(img, "src", NULL, -1000, err);
}

const corpus_kernel corpus_stream_compact = {
    .name = "stream_compact",
    .family = "reduction",
    .worst = { { "all-pass-max-work", all_pass_max_work }, { "alternating-max-work", alternating_max_work },
               { "one-lane-max-work", one_lane_max_work }, { "all-pass", all_pass } },
    .best = { "none-pass", none_pass },
    .quick = false,
};

/*
 * escape_time.c — hand-built inputs of kernels/corpus/escape_time.cu (its
 * header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

#include <math.h>

static bool origin(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return corpus_fill_float(img, "xs", NULL, 0.0, err) && corpus_fill_float(img, "ys", NULL, 0.0, err);
}

/* Points well inside the main cardioid (c = mu/2 - mu^2/4 with |mu| = 0.8)
 * and the period-2 disc (|c + 1| = 0.2). */
static bool cardioid_spread(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t threads = corpus_var(img, "threads");
    for (int64_t t = 0; t < threads; t++) {
        double a = 2.0 * 3.14159265358979 * (double)(t % 97) / 97.0, x, y;
        if (t % 2 == 0) {
            double mr = 0.8 * cos(a), mi = 0.8 * sin(a);
            x = mr / 2 - (mr * mr - mi * mi) / 4;
            y = mi / 2 - (2 * mr * mi) / 4;
        } else {
            x = -1.0 + 0.2 * cos(a);
            y = 0.2 * sin(a);
        }
        if (!corpus_set_float(img, "xs", NULL, (uint64_t)t, x, err) ||
            !corpus_set_float(img, "ys", NULL, (uint64_t)t, y, err))
            return false;
    }
    return true;
}

static bool one_lane_inside(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t threads = corpus_var(img, "threads");
    for (int64_t t = 0; t < threads; t++) {
        double v = t % 32 ? 2.0 : 0.0;
        if (!corpus_set_float(img, "xs", NULL, (uint64_t)t, v, err) ||
            !corpus_set_float(img, "ys", NULL, (uint64_t)t, v, err))
            return false;
    }
    return true;
}

static bool far_outside(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return corpus_fill_float(img, "xs", NULL, 2.0, err) && corpus_fill_float(img, "ys", NULL, 2.0, err);
}

const corpus_kernel corpus_escape_time = {
    .name = "escape_time",
    .family = "loops",
    .worst = { { "origin", origin }, { "cardioid-spread", cardioid_spread }, { "one-lane-inside", one_lane_inside } },
    .best = { "far-outside", far_outside },
    .quick = false,
};

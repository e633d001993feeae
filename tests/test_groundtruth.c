/*
 * test_groundtruth.c — the ground-truth kernels' known worst inputs
 * (kernels/groundtruth.h, from their header comments) measured on the
 * sim: each is slower than its known best input and than every one of a
 * set of random inputs.  The figures are logged (`--verbose`) and recorded in
 * results/README.md, where the searches are set against them.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "harness/harness.h"
#include "kernels/groundtruth.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static double measure(harness *h, wh_image *img)
{
    wh_error err;
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
    double t = r.mean;
    harness_result_free(&r);
    return t;
}

static double measure_filled(harness *h, wh_image *img, int p, gt_fill_fn fill)
{
    wh_error err;
    cr_assert(gt_fill(img, p, fill, &err), "the built input leaves its domain: %s", err.msg);
    return measure(h, img);
}

Test(groundtruth, known_worst_beats_best_and_random)
{
    for (int k = 0; k < GT_KERNELS; k++) {
        const gt_kernel *g = &gt_kernels[k];
        wh_error err;
        wh_spec *s = wh_spec_load(g->spec, &err);
        cr_assert(s, "%s", err.msg);
        char ptx[1024];
        if (!wh_spec_ptx_path(s, ptx, sizeof ptx, &err)) cr_skip_test("%s: run `make ptx`", err.msg);
        harness_options o;
        harness_options_init(&o);
        o.quiet = true;
        harness *h = harness_open(s, HARNESS_SIM, &o, &err);
        cr_assert(h, "%s", err.msg);
        wh_launch full = wh_spec_launch_full(s);
        wh_image *img = wh_image_new(s, &full, &err);
        int p = wh_image_find(img, g->input);
        cr_assert_geq(p, 0, "%s has no input %s", g->spec, g->input);
        double worst = measure_filled(h, img, p, g->worst);
        double best = measure_filled(h, img, p, g->best);
        double rnd_max = 0;
        for (uint64_t seed = 1; seed <= 5; seed++) {
            pcg32 rng;
            pcg32_seed(&rng, seed, 0);
            cr_assert(wh_image_fill_random(img, &rng, &err));
            double t = measure(h, img);
            if (t > rnd_max) rnd_max = t;
        }
        cr_log_info("%-12s known worst %8.0f  best %8.0f  best of 5 random %8.0f cycles", s->name, worst, best,
                    rnd_max);
        cr_expect_gt(worst, best, "%s: worst %g, best %g", s->name, worst, best);
        cr_expect_geq(worst, rnd_max, "%s: worst %g, a random input %g", s->name, worst, rnd_max);
        wh_image_free(img);
        harness_close(h);
        wh_spec_free(s);
    }
}

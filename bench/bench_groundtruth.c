/*
 * bench_groundtruth.c — the ground-truth kernels' known worst and best
 * inputs (kernels/groundtruth.h) timed on a backend, beside random inputs
 * and, optionally, the inputs a search found.
 *
 *   bench_groundtruth [--backend sim|cuda|auto] [--device N] [--reps R]
 *                     [--random N] [--found DIR] [--cold-l2] [--json]
 *
 * Per kernel: the known worst input, the known best, the longest of N
 * random inputs (seeds 1..N, default 5), and with --found DIR the input
 * under DIR/<kernel>/gdivan-s1/best/ (a reference run's, e.g.
 * results/gpu/<device>/reference; a DIR with "{}" has the kernel's name
 * there instead: 'results/{}/reference' for the sim's; a kernel without
 * one gets "-"), each the mean of R repetitions (default 30; 1 on the
 * sim, which is exact).  The last column, found / worst,
 * says how close the search came to the known worst on this backend.  On
 * the sim this is what tests/test_groundtruth.c checks; on a GPU it says
 * whether the kernel's header comment, written for a GPU, holds there
 * (--cold-l2: with the L2 flushed before every repetition).
 */
#include "core/image.h"
#include "core/pcg32.h"
#include "core/spec.h"
#include "harness/harness.h"
#include "kernels/groundtruth.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    harness_backend backend;
    int device, reps, nrandom;
    const char *found;
    bool json, cold_l2;
} args_t;

typedef struct {
    char name[64];
    const char *unit;
    double worst, best, random, found;      /* found < 0: none */
} row_t;

static int usage(void)
{
    fprintf(stderr, "usage: bench_groundtruth [--backend sim|cuda|auto] [--device N] [--reps R] "
                    "[--random N] [--found DIR] [--cold-l2] [--json]\n");
    return 2;
}

/* The mean time of img over a->reps repetitions; < 0 (and err) on failure
 * or a run that did not end OK. */
static double timed(harness *h, wh_image *img, const args_t *a, wh_error *err)
{
    harness_result r;
    if (!harness_measure(h, img, a->reps, &r, err))
        return -1;
    double t = r.status == HARNESS_OK ? r.mean : -1;
    if (t < 0)
        wh_error_set(err, WH_ERR_DEVICE, NULL, 0, 0, "%s", r.message);
    harness_result_free(&r);
    return t;
}

/* The best input of a reference run of `kernel` under `pattern` (its "{}"
 * replaced by the kernel's name, or the name appended). */
static void found_dir(const char *pattern, const char *kernel, char *dir, size_t n)
{
    const char *at = strstr(pattern, "{}");
    if (at)
        snprintf(dir, n, "%.*s%s%s/gdivan-s1/best", (int)(at - pattern), pattern, kernel, at + 2);
    else
        snprintf(dir, n, "%s/%s/gdivan-s1/best", pattern, kernel);
}

/* One kernel's row; `device` receives the backend's description. */
static bool bench_kernel(const gt_kernel *g, const args_t *a, row_t *row, char *device, size_t n,
                         wh_error *err)
{
    bool ok = false;
    wh_image *img = NULL, *found = NULL;
    harness *h = NULL;
    wh_spec *s = wh_spec_load(g->spec, err);
    if (!s)
        return false;
    snprintf(row->name, sizeof row->name, "%s", s->name);
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.cold_l2 = a->cold_l2;
    o.device = a->device;
    if (!(h = harness_open(s, a->backend, &o, err)))
        goto out;
    row->unit = harness_unit(h);
    snprintf(device, n, "%s", harness_device(h));
    wh_launch full = wh_spec_launch_full(s);
    if (!(img = wh_image_new(s, &full, err)))
        goto out;
    int p = wh_image_find(img, g->input);
    if (p < 0) {
        wh_error_set(err, WH_ERR_INTERNAL, g->spec, 0, 0, "no input buffer '%s'", g->input);
        goto out;
    }
    if (!gt_fill(img, p, g->worst, err) || (row->worst = timed(h, img, a, err)) < 0)
        goto out;
    if (!gt_fill(img, p, g->best, err) || (row->best = timed(h, img, a, err)) < 0)
        goto out;
    row->random = 0;
    for (int seed = 1; seed <= a->nrandom; seed++) {
        pcg32 rng;
        pcg32_seed(&rng, (uint64_t)seed, 0);
        double t;
        if (!wh_image_fill_random(img, &rng, err) || (t = timed(h, img, a, err)) < 0)
            goto out;
        if (t > row->random)
            row->random = t;
    }
    row->found = -1;
    char dir[1024];
    if (a->found)
        found_dir(a->found, s->name, dir, sizeof dir);
    if (a->found && access(dir, F_OK) != 0)
        fprintf(stderr, "bench_groundtruth: %s: no %s, no found input for this kernel\n", s->name, dir);
    else if (a->found &&
             (!(found = wh_image_load(s, dir, err)) || (row->found = timed(h, found, a, err)) < 0))
        goto out;
    ok = true;
out:
    wh_image_free(found);
    wh_image_free(img);
    harness_close(h);
    wh_spec_free(s);
    return ok;
}

static void print_json(const row_t *rows, int n, const char *device)
{
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        const row_t *r = &rows[i];
        json_t *o = json_pack("{s:s, s:s, s:f, s:f, s:f}", "kernel", r->name, "unit", r->unit,
                              "known_worst", r->worst, "known_best", r->best, "best_random", r->random);
        if (r->found >= 0)
            json_object_set_new(o, "found", json_real(r->found));
        json_array_append_new(arr, o);
    }
    json_t *doc = json_pack("{s:s, s:o}", "device", device, "kernels", arr);
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    printf("\n");
    json_decref(doc);
}

static void print_table(const row_t *rows, int n, const char *device)
{
    printf("%s\n%-12s %6s %12s %12s %12s %12s %8s\n", device, "kernel", "unit", "known worst", "known best",
           "best random", "found", "found/w");
    for (int i = 0; i < n; i++) {
        const row_t *r = &rows[i];
        char found[32] = "-", ratio[16] = "-";
        if (r->found >= 0) {
            snprintf(found, sizeof found, "%.2f", r->found);
            snprintf(ratio, sizeof ratio, "%.3f", r->found / r->worst);
        }
        printf("%-12s %6s %12.2f %12.2f %12.2f %12s %8s\n", r->name, r->unit, r->worst, r->best, r->random,
               found, ratio);
    }
}

int main(int argc, char **argv)
{
    args_t a = { .backend = HARNESS_AUTO, .reps = 30, .nrandom = 5 };
    wh_error err;
    wh_error_clear(&err);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            a.json = true;
        else if (!strcmp(argv[i], "--cold-l2"))
            a.cold_l2 = true;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            if (!harness_backend_from_name(argv[++i], &a.backend, &err)) {
                fprintf(stderr, "bench_groundtruth: %s\n", err.msg);
                return 2;
            }
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            a.device = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            a.reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--random") && i + 1 < argc)
            a.nrandom = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--found") && i + 1 < argc)
            a.found = argv[++i];
        else
            return usage();
    }
    if (a.reps < 1 || a.nrandom < 0)
        return usage();
    row_t rows[GT_KERNELS];
    memset(rows, 0, sizeof rows);
    char device[640] = "";
    for (int k = 0; k < GT_KERNELS; k++) {
        if (!bench_kernel(&gt_kernels[k], &a, &rows[k], device, sizeof device, &err)) {
            fprintf(stderr, "bench_groundtruth: %s: %s%s%s\n", gt_kernels[k].spec, err.path,
                    err.path[0] ? ": " : "", err.msg);
            return 1;
        }
    }
    if (a.json)
        print_json(rows, GT_KERNELS, device);
    else
        print_table(rows, GT_KERNELS, device);
    return 0;
}

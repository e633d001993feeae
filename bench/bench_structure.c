/*
 * bench_structure.c — what structured inputs cost on the host: for every
 * corpus kernel, at its full launch (or a named size), the time to draw a
 * random input (values, then the projection onto every structure: sorted
 * keys, running sums, hash tables, neighbour lists from positions,
 * lower-triangle columns, shortest-path states), to project an image that
 * already has its structure (every search operator's output goes through
 * it), and to check one (what an input a user gives goes through).
 *
 *   bench_structure [--kernels a,b] [--size NAME] [--reps N]
 *
 * Best of N (default 3) per figure, one core.  A kernel whose spec lacks
 * the named size is skipped, said as such.
 */
#include "core/clock.h"
#include "core/image.h"
#include "core/pcg32.h"
#include "core/spec.h"
#include "kernels/corpus/corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *kernels;   /* comma-separated names, or NULL: all */
    const char *size;      /* a spec's named size, or NULL: its default launch */
    int reps;
} options;

static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return true;
        p = end ? end + 1 : NULL;
    }
    return !list;
}

static double best_of(double a, double b)
{
    return a < 0 || b < a ? b : a;
}

/* One kernel's row; false after an error (printed). */
static bool bench_kernel(const corpus_kernel *k, const options *o)
{
    char path[256];
    wh_error err;
    corpus_spec_path(k, path, sizeof path);
    wh_spec *spec = wh_spec_load(path, &err);
    if (!spec) return fprintf(stderr, "bench_structure: %s\n", err.msg), false;
    if (o->size && !wh_spec_apply_size(spec, o->size, &err)) {
        printf("| %s | - | - | - | - | no size \"%s\" |\n", k->name, o->size);
        wh_spec_free(spec);
        return true;
    }
    wh_launch full = wh_spec_launch_full(spec);
    wh_image *img = wh_image_new(spec, &full, &err);
    bool ok = img != NULL;
    double draw = -1, project = -1, check = -1;
    pcg32 rng;
    pcg32_seed(&rng, 36, 1);
    for (int r = 0; ok && r < o->reps; r++) {
        double t0 = wh_clock_s();
        ok = wh_image_fill_random(img, &rng, &err);
        double t1 = wh_clock_s();
        ok = ok && wh_image_restructure(img, &err);
        double t2 = wh_clock_s();
        ok = ok && wh_image_check_domains(img, &err);
        double t3 = wh_clock_s();
        draw = best_of(draw, t1 - t0);
        project = best_of(project, t2 - t1);
        check = best_of(check, t3 - t2);
    }
    if (ok) {
        uint64_t bytes = 0;
        for (int p = 0; p < img->nbufs; p++) bytes += img->bufs[p].bytes;
        printf("| %s | %llu | %.1f | %.2f | %.2f | %.2f |\n", k->name,
               (unsigned long long)wh_launch_threads_total(&full), (double)bytes / 1048576.0, draw * 1e3,
               project * 1e3, check * 1e3);
    } else {
        fprintf(stderr, "bench_structure: %s: %s\n", k->name, err.msg);
    }
    wh_image_free(img);
    wh_spec_free(spec);
    return ok;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_structure [--kernels a,b] [--size NAME] [--reps N]\n");
    return 2;
}

int main(int argc, char **argv)
{
    options o = { NULL, NULL, 3 };
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--kernels") && i + 1 < argc) o.kernels = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) o.size = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc && atoi(argv[i + 1]) > 0) o.reps = atoi(argv[++i]);
        else return usage();
    }
    printf("# bench_structure: host time of structured inputs (best of %d, one core%s%s)\n\n", o.reps,
           o.size ? ", size " : "", o.size ? o.size : "");
    printf("| kernel | threads | image MiB | random input ms | projection of a projected image ms | check ms |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    bool ok = true;
    for (int i = 0; i < corpus_count(); i++)
        if (listed(o.kernels, corpus_at(i)->name)) ok &= bench_kernel(corpus_at(i), &o);
    return ok ? 0 : 1;
}

/*
 * fuzz_spec.c — libFuzzer harness for the kernel-spec loader: any bytes as
 * a spec file (JSON, expressions, launch, parameters, limits); an error must
 * be a clean message.  A spec that loads also gets its first symbolic
 * launch's image when that is small (under 1 MiB: the full launch's size
 * is the spec's to choose, up to the 4 GiB limit), filled at random, which
 * must then pass its own domain and structure check.
 */
#include "core/image.h"
#include "core/spec.h"
#include "tests/fuzz/fuzz_file.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bytes of the image of launch l, or SIZE_MAX when a count does not evaluate. */
static size_t image_bytes(const wh_spec *s, const wh_launch *l)
{
    int64_t *vars = calloc((size_t)s->nvars + 1, sizeof *vars);
    wh_error err;
    size_t total = vars && wh_spec_vars(s, l, vars, &err) ? 0 : SIZE_MAX;
    for (int p = 0; total != SIZE_MAX && p < s->nparams; p++) {
        int64_t n = 1;
        if (s->params[p].kind == WH_BUFFER && !wh_spec_eval(s, s->params[p].count, vars, "count", &n, &err)) n = -1;
        total = n < 0 || (uint64_t)n > (1u << 20) ? SIZE_MAX : total + (size_t)n * s->params[p].elem_size;
    }
    free(vars);
    return total;
}

static void random_image(const wh_spec *s)
{
    wh_launch l = wh_launch_threads((unsigned)(s->nsym_threads > 0 ? s->sym_threads[0] : 2));
    if (image_bytes(s, &l) > (1u << 20)) return;
    wh_error err;
    wh_image *img = wh_image_new(s, &l, &err);
    pcg32 rng;
    pcg32_seed(&rng, 1, 1);
    if (img && wh_image_fill_random(img, &rng, &err) && !wh_image_check_domains(img, &err)) {
        fprintf(stderr, "a random image breaks its own domains: %s\n", err.msg);
        abort();
    }
    wh_image_free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (!fuzz_write_temp("spec", "json", data, size, path, sizeof path)) return 0;
    wh_error err;
    wh_error_clear(&err);
    wh_spec *s = wh_spec_load(path, &err);
    if (s) random_image(s);
    wh_spec_free(s);
    unlink(path);
    return 0;
}

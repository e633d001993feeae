/*
 * test_texture.c — texture object parameters ("kind": "texture"): what a
 * spec may say of one, what the sim's fetches return for hand-picked
 * coordinates under every address mode, point and linear filtering and the
 * read modes, a fault for a fetch of the wrong geometry, the symbolic
 * stage's atoms through symbolic indices and pinned float coordinates
 * replaying on the sim, and a search that finds the texture's slow texels.
 * (The fake CUDA driver's texture objects are in test_cuda_fake.c.)
 */
#include <criterion/criterion.h>

#include "core/image.h"
#include "core/pcg32.h"
#include "core/spec.h"
#include "gen/explore.h"
#include "harness/harness.h"
#include "tests/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GATHER "tests/specs/tex_gather.json"
#define PTX "build/ptx/tests/ptx/textures.ptx"

/* A spec of one of textures.cu's kernels with the given texture entry
 * and the rest of its parameters. */
static wh_spec *spec_with(const char *entry, const char *texture, const char *rest, char *dir, wh_error *err)
{
    char cwd[4096], json[8000];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(json, sizeof json,
             "{\"name\":\"k\",\"source\":\"k.cu\",\"ptx\":\"%s/" PTX "\",\"entry\":\"%s\",\"grid\":[1],"
             "\"block\":[8],\"symbolic\":{\"threads\":[1,2]},\"params\":[%s,%s]}",
             cwd, entry, texture, rest);
    return ts_temp_spec(json, dir, err);
}

/* The spec at path, the textures PTX built (else the test is skipped). */
static wh_spec *load_with_ptx(const char *path)
{
    ts_need_ptx(PTX);
    wh_error err;
    wh_spec *s = wh_spec_load(path, &err);
    cr_assert(s, "%s: %s", path, err.msg);
    return s;
}

/* The sim on spec s, quiet, with the outputs copied back when asked. */
static harness *open_sim(const wh_spec *s, bool outputs)
{
    wh_error err;
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.want_outputs = outputs;
    harness *h = harness_open(s, HARNESS_SIM, &o, &err);
    cr_assert(h, "%s", err.msg);
    return h;
}

/* One run of `entry` over a spec of `texture` and `rest` (an input of
 * zeros) on the sim ends with status want and a message holding msg. */
static void expect_run_stops(const char *entry, const char *texture, const char *rest, harness_status want,
                             const char *msg)
{
    ts_need_ptx(PTX);
    char dir[64];
    wh_error err;
    wh_spec *s = spec_with(entry, texture, rest, dir, &err);
    cr_assert(s, "%s", err.msg);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    harness *h = open_sim(s, false);
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    cr_expect_eq(r.status, want, "%s", r.message);
    cr_expect(strstr(r.message, msg), "%s", r.message);
    harness_result_free(&r);
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(s);
    ts_rmtree(dir);
}

static void expect_refused(const char *texture, const char *msg)
{
    char dir[64];
    wh_error err;
    wh_spec *s = spec_with("tex_probe", texture,
                           "{\"name\":\"xs\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":8,\"role\":\"input\"}", dir,
                           &err);
    cr_expect_null(s, "%s was accepted", texture);
    if (!s) cr_expect(strstr(err.msg, msg), "%s: %s", texture, err.msg);
    wh_spec_free(s);
    ts_rmtree(dir);
}

Test(texture, the_spec_says_what_a_texture_may_be)
{
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[8,4],\"levels\":3}}", "read at normalized coordinates");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[8,4],\"levels\":3,\"normalized_coords\":true,\"layers\":2}}",
                   "neither layered");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[8,4],\"levels\":17,\"normalized_coords\":true}}", "1 to 16");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[8,4],\"mipmap_filter\":\"linear\"}}", "is for a mipmapped texture");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"i32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[8,4],\"levels\":2,\"normalized_coords\":true,"
                   "\"mipmap_filter\":\"linear\"}}", "linear filtering needs f32 texels");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\"}", "a texture needs");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\",\"count\":4,"
                   "\"texture\":{\"dims\":[4]}}", "product of its \"dims\"");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"output\","
                   "\"texture\":{\"dims\":[4]}}", "read-only");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[4,4],\"address\":\"wrap\"}}", "needs \"normalized_coords\": true");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"i32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[4,4],\"filter\":\"linear\"}}", "linear filtering needs f32 texels");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[4,4],\"memory\":\"linear\"}}", "for 1-D textures");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[16],\"filter\":\"linear\"}}", "over linear memory has no filtering");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f64\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[4,4]}}", "not f64");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[4,4,4,4]}}", "[width, height, depth]");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[16],\"gather\":true}}", "is for 2-D textures in a CUDA array");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[4,4,4],\"layers\":2}}", "layers are of 1-D or 2-D textures");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[16],\"layers\":2,\"memory\":\"linear\"}}", "is a CUDA array");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[4],\"cube\":true}}", "a cubemap's \"dims\" are its faces'");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[4,4],\"cube\":true,\"filter\":\"linear\"}}", "point sampled here");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[4,4],\"cube\":true,\"gather\":true}}", "neither layered nor a cubemap");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"struct\",\"role\":\"input\",\"fields\":["
                   "{\"name\":\"x\",\"type\":\"u8\"},{\"name\":\"y\",\"type\":\"u8\"},{\"name\":\"z\",\"type\":\"u8\"}],"
                   "\"texture\":{\"dims\":[4,4]}}", "1, 2 or 4 channels");
    expect_refused("{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"i32\",\"role\":\"input\","
                   "\"texture\":{\"dims\":[4,4],\"read\":\"normalized_float\"}}", "8- and 16-bit integer texels");
    expect_refused("{\"name\":\"t\",\"kind\":\"buffer\",\"type\":\"f32\",\"role\":\"input\",\"count\":4,"
                   "\"texture\":{\"dims\":[4]}}", "goes with \"kind\": \"texture\"");
}

/* tex_probe over a 4 x 3 texture of float4 texels (100 y + 10 x + c) with
 * the given texture description, fetched at (xs[i], ys[i]): out[i]. */
typedef struct {
    float x, y;
    float want[4];
} probe;

static void run_probes_of(const char *kernel, const char *texture_desc, const char *type, const probe *pr, int n)
{
    char dir[64], tex[1200], rest[1200];
    wh_error err;
    snprintf(tex, sizeof tex, "{\"name\":\"t\",\"kind\":\"texture\",%s,\"role\":\"input\",\"texture\":%s}", type,
             texture_desc);
    snprintf(rest, sizeof rest,
             "{\"name\":\"xs\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":8,\"role\":\"input\"},"
             "{\"name\":\"ys\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":8,\"role\":\"input\"},"
             "{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"struct\",\"count\":8,\"role\":\"output\",\"fields\":["
             "{\"name\":\"x\",\"type\":\"f32\"},{\"name\":\"y\",\"type\":\"f32\"},{\"name\":\"z\",\"type\":\"f32\"},"
             "{\"name\":\"w\",\"type\":\"f32\"}]},{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":%d}",
             n);
    wh_spec *s = spec_with(kernel, tex, rest, dir, &err);
    cr_assert(s, "%s", err.msg);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    const wh_param *tp = &s->params[0];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++)
            for (int c = 0; c < tp->nfields; c++) {
                uint8_t *at = img->bufs[0].data + (size_t)(y * 4 + x) * tp->elem_size + tp->fields[c].offset;
                if (tp->fields[0].type == WH_F32)
                    wh_value_set_float(WH_F32, at, 100 * y + 10 * x + c);
                else
                    wh_value_set_int(tp->fields[0].type, at, (int64_t[]){ 0, 51, 255, 128 }[c]);
            }
    for (int i = 0; i < n; i++) {
        wh_value_set_float(WH_F32, img->bufs[1].data + 4 * i, pr[i].x);
        wh_value_set_float(WH_F32, img->bufs[2].data + 4 * i, pr[i].y);
    }
    harness *h = open_sim(s, true);
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
    harness_result_free(&r);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 4; c++) {
            float got = (float)wh_value_get_float(WH_F32, img->bufs[3].data + 16 * i + 4 * c);
            cr_expect(got == pr[i].want[c], "%s at (%g, %g) channel %d: %.9g, expected %.9g", texture_desc, pr[i].x,
                      pr[i].y, c, got, pr[i].want[c]);
        }
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(s);
    ts_rmtree(dir);
}

static void run_probes(const char *texture_desc, const char *type, const probe *pr, int n)
{
    run_probes_of("tex_probe", texture_desc, type, pr, n);
}

#define FLOAT4 \
    "\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"f32\"},{\"name\":\"y\",\"type\":\"f32\"}," \
    "{\"name\":\"z\",\"type\":\"f32\"},{\"name\":\"w\",\"type\":\"f32\"}]"

Test(texture, point_sampling_under_each_address_mode)
{
    ts_need_ptx(PTX);
    const probe clamp[] = { { 2.7f, 1.2f, { 120, 121, 122, 123 } }, { -3, 9, { 200, 201, 202, 203 } },
                            { 0.5f, 0.5f, { 0, 1, 2, 3 } } };
    run_probes("{\"dims\":[4,3]}", FLOAT4, clamp, 3);
    const probe border[] = { { -3, 1, { 0, 0, 0, 0 } }, { 3.99f, 2.5f, { 230, 231, 232, 233 } },
                             { 4.0f, 0, { 0, 0, 0, 0 } } };
    run_probes("{\"dims\":[4,3],\"address\":\"border\"}", FLOAT4, border, 3);
    const probe wrap[] = { { 1.3f, 0.5f, { 110, 111, 112, 113 } }, { -0.1f, 0.1f, { 30, 31, 32, 33 } } };
    run_probes("{\"dims\":[4,3],\"address\":\"wrap\",\"normalized_coords\":true}", FLOAT4, wrap, 2);
    const probe mirror[] = { { 1.3f, 0.5f, { 120, 121, 122, 123 } } };
    run_probes("{\"dims\":[4,3],\"address\":[\"mirror\",\"clamp\"],\"normalized_coords\":true}", FLOAT4, mirror, 1);
}

Test(texture, linear_filtering_weighs_the_neighbours)
{
    ts_need_ptx(PTX);
    /* (1, 0.5): halfway between texels 0 and 1 of row 0; (2.25, 1.75):
     * weights 3/4 and 1/4 between columns 1..2 and rows 1..2 */
    const probe lin[] = { { 1.0f, 0.5f, { 5, 6, 7, 8 } }, { 2.25f, 1.75f, { 142.5f, 143.5f, 144.5f, 145.5f } },
                          { 0.5f, 0.5f, { 0, 1, 2, 3 } } };
    run_probes("{\"dims\":[4,3],\"filter\":\"linear\"}", FLOAT4, lin, 3);
}

/* tex.level and tex.grad (tex2DLod, tex2DGrad) on a texture of one level
 * read what tex does, filtered or not (decided here: level 0 is the only
 * level; not compared with a GPU). */
Test(texture, level_and_gradient_fetches_read_the_one_level)
{
    ts_need_ptx(PTX);
    const probe point[] = { { 2.7f, 1.2f, { 120, 121, 122, 123 } }, { -3, 9, { 200, 201, 202, 203 } } };
    run_probes_of("tex_probe_lod", "{\"dims\":[4,3]}", FLOAT4, point, 2);
    const probe lin[] = { { 1.0f, 0.5f, { 5, 6, 7, 8 } }, { 2.25f, 1.75f, { 142.5f, 143.5f, 144.5f, 145.5f } } };
    run_probes_of("tex_probe_lod", "{\"dims\":[4,3],\"filter\":\"linear\"}", FLOAT4, lin, 2);
}

Test(texture, eight_bit_texels_read_as_normalized_floats)
{
    ts_need_ptx(PTX);
    const probe pr[] = { { 1.5f, 1.5f, { 0.0f, 0.2f, 1.0f, 128.0f / 255.0f } } };
    run_probes("{\"dims\":[4,3],\"read\":\"normalized_float\"}",
               "\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"u8\"},{\"name\":\"y\",\"type\":\"u8\"},"
               "{\"name\":\"z\",\"type\":\"u8\"},{\"name\":\"w\",\"type\":\"u8\"}]",
               pr, 1);
}

/* tex_gather on random inputs: each thread's output is what tex1Dfetch
 * reads (0 past the texture) and the loop it bounds. */
Test(texture, tex1dfetch_reads_linear_memory_and_zero_past_it)
{
    wh_error err;
    wh_spec *s = load_with_ptx(GATHER);
    harness *h = open_sim(s, true);
    wh_launch l = wh_spec_launch_full(s);
    int outside = 0;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        wh_image *img = wh_image_new(s, &l, &err);
        cr_assert(img, "%s", err.msg);
        pcg32 rng;
        pcg32_seed(&rng, seed, 17);
        cr_assert(wh_image_fill_random(img, &rng, &err), "%s", err.msg);
        harness_result r;
        cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
        cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
        harness_result_free(&r);
        for (int i = 0; i < 128; i++) {
            int idx = (int)wh_value_get_int(WH_I32, img->bufs[1].data + 4 * i);
            int c = idx >= 0 && idx < 40 ? (int)wh_value_get_int(WH_I32, img->bufs[0].data + 4 * idx) : 0;
            outside += idx < 0 || idx >= 40;
            int acc = 0;
            for (int k = 0; k < (c & 15); k++) acc += k ^ idx;
            cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[2].data + 4 * i), acc + c, "seed %llu out[%d]",
                         (unsigned long long)seed, i);
        }
        wh_image_free(img);
    }
    cr_expect_gt(outside, 0, "some indices fall outside the texture");
    harness_close(h);
    wh_spec_free(s);
}

Test(texture, a_fetch_of_another_geometry_faults)
{
    expect_run_stops("tex_gather",
                     "{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"i32\",\"role\":\"input\","
                     "\"texture\":{\"dims\":[8,2]}}",
                     "{\"name\":\"idx\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"input\"},"
                     "{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"output\"},"
                     "{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":8}",
                     HARNESS_FAULT, "names a texture of another geometry ('t')");
}

/* The symbolic stage on s for 20 s: at least min_paths paths, atoms, and
 * every atom replaying its path on the sim (free the result). */
static gen_result *explore_replaying(const wh_spec *s, int min_paths, char *cache)
{
    gen_result *r = ts_explore(s, 20, cache);
    cr_expect_geq(r->npaths, min_paths, "%d paths, expected %d or more", r->npaths, min_paths);
    cr_expect_gt(r->pool.natoms, 0);
    cr_expect_eq(r->atoms_invalid, 0, "every atom replays its path on the sim");
    return r;
}

/* explore_replaying, its result and cache dropped: the number of paths. */
static int explores_replaying(const wh_spec *s, int min_paths)
{
    char cache[64];
    gen_result *r = explore_replaying(s, min_paths, cache);
    int n = r->npaths;
    gen_result_free(r);
    ts_rmtree(cache);
    return n;
}

/* Symbolic indices into the texture: paths inside and outside it, one per
 * trip count the texel bounds, and atoms that replay their path. */
Test(texture, the_symbolic_stage_reads_texels_at_symbolic_indices, .timeout = 240)
{
    wh_error err;
    wh_spec *s = load_with_ptx(GATHER);
    char cache[64];
    gen_result *r = explore_replaying(s, 16, cache);   /* a path per trip count 0..15 at least */
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    int inside = 0, outside = 0;
    for (int a = 0; a < r->pool.natoms; a++) {
        gen_pool_atom_to_image(&r->pool, a, img);
        int64_t idx = wh_value_get_int(WH_I32, img->bufs[1].data);
        if (idx >= 0 && idx < 40) inside++;
        else outside++;
    }
    cr_expect_gt(inside, 0);
    cr_expect_gt(outside, 0, "an atom fetches past the texture (it reads 0)");
    wh_image_free(img);
    gen_result_free(r);
    wh_spec_free(s);
    ts_rmtree(cache);
}

/* Float coordinates from the input are pinned to the model: the atoms
 * still replay. */
/* An exploration of `kernel` (tex_probe's parameters) over a linear
 * filtered texture: every atom replays its path on the sim. */
static void pinned_coordinates_replay(const char *kernel)
{
    ts_need_ptx(PTX);
    char dir[64];
    wh_error err;
    wh_spec *s = spec_with(kernel,
                           "{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\",\"range\":[0,1],"
                           "\"texture\":{\"dims\":[4,4],\"filter\":\"linear\"}}",
                           "{\"name\":\"xs\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":\"threads\",\"role\":\"input\","
                           "\"per_thread\":1,\"range\":[-2,6]},"
                           "{\"name\":\"ys\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":\"threads\",\"role\":\"input\","
                           "\"per_thread\":1,\"range\":[-2,6]},"
                           "{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":\"4*threads\",\"role\":\"output\"},"
                           "{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":\"threads\"}",
                           dir, &err);
    cr_assert(s, "%s", err.msg);
    explores_replaying(s, 1);
    wh_spec_free(s);
    ts_rmtree(dir);
}

Test(texture, pinned_float_coordinates_replay, .timeout = 240)
{
    pinned_coordinates_replay("tex_probe");
}

/* tex.level and tex.grad in the symbolic stage: fetches as tex's, their
 * level of detail and gradients read and ignored. */
Test(texture, the_symbolic_stage_runs_level_and_gradient_fetches, .timeout = 240)
{
    pinned_coordinates_replay("tex_probe_lod");
}

static double gather_time(const wh_spec *s, int texel, int index)
{
    wh_error err;
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    for (int k = 0; k < 40; k++) wh_value_set_int(WH_I32, img->bufs[0].data + 4 * k, texel);
    for (int i = 0; i < 128; i++) wh_value_set_int(WH_I32, img->bufs[1].data + 4 * i, index);
    double t = ts_sim_time(s, img);
    wh_image_free(img);
    return t;
}

/* The slow inputs are texels with (c & 15) = 15 at indices inside: the
 * search gets near the hand-built worst. */
Test(texture, the_search_finds_the_slow_texels, .timeout = 240)
{
    wh_spec *s = load_with_ptx(GATHER);
    double fast = gather_time(s, 0, 0), worst = gather_time(s, 15, 0);
    cr_expect_gt(worst, 1.1 * fast, "%g vs %g cycles", worst, fast);
    cr_expect_eq(gather_time(s, 15, -1), gather_time(s, 0, -1), "past the texture every fetch reads 0");
    wh_image *best = ts_hunt_best(s, "gdivan", "120");
    double t = ts_sim_time(s, best);
    cr_expect_gt(t, fast + 0.9 * (worst - fast), "best %g cycles; fast %g, worst %g", t, fast, worst);
    wh_image_free(best);
    wh_spec_free(s);
}

/* ---- surfaces ---------------------------------------------------------------- */

#define WALK "tests/specs/surf_walk.json"
#define SURF_GATHER "tests/specs/surf_gather.json"

Test(texture, the_spec_says_what_a_surface_may_be)
{
    expect_refused("{\"name\":\"t\",\"kind\":\"surface\",\"type\":\"f32\",\"role\":\"input\"}", "a surface needs");
    expect_refused("{\"name\":\"t\",\"kind\":\"surface\",\"type\":\"f32\",\"role\":\"input\","
                   "\"surface\":{\"dims\":[4],\"filter\":\"linear\"}}", "unknown key \"filter\"");
    expect_refused("{\"name\":\"t\",\"kind\":\"buffer\",\"type\":\"f32\",\"role\":\"input\",\"count\":4,"
                   "\"surface\":{\"dims\":[4]}}", "goes with \"kind\": \"surface\"");
    expect_refused("{\"name\":\"t\",\"kind\":\"surface\",\"type\":\"f64\",\"role\":\"output\","
                   "\"surface\":{\"dims\":[4]}}", "not f64");
    expect_refused("{\"name\":\"t\",\"kind\":\"surface\",\"type\":\"i32\",\"role\":\"input\","
                   "\"surface\":{\"dims\":[4,4,4],\"layers\":2}}", "layers are of 1-D or 2-D surfaces");
    expect_refused("{\"name\":\"t\",\"kind\":\"surface\",\"type\":\"i32\",\"role\":\"input\","
                   "\"surface\":{\"dims\":[4],\"cube\":true}}", "a cubemap surface's");
}

/* A random input of s (PCG32 seed and stream). */
static wh_image *random_image(const wh_spec *s, uint64_t seed, uint64_t stream)
{
    wh_error err;
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, seed, stream);
    cr_assert(wh_image_fill_random(img, &rng, &err), "%s", err.msg);
    return img;
}

/* One run of img on h that ends well (its outputs back in img). */
static void measure_ok(harness *h, wh_image *img)
{
    wh_error err;
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
    harness_result_free(&r);
}

/* surf_walk on random inputs: each column's walk, as a C reference walks it. */
Test(texture, a_surface_walk_reads_rows_of_the_surface)
{
    wh_spec *s = load_with_ptx(WALK);
    harness *h = open_sim(s, true);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        wh_image *img = random_image(s, seed, 17);
        int cells[8][32];
        memcpy(cells, img->bufs[0].data, sizeof cells);
        measure_ok(h, img);
        for (int x = 0; x < 32; x++) {
            int y = 0, steps = 0, v = cells[0][x];
            while (v > 0 && steps < 16) {
                y = (y + (v & 3) + 1) % 8;
                v = cells[y][x];
                steps++;
            }
            cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[1].data + 4 * x), steps, "seed %llu column %d",
                         (unsigned long long)seed, x);
        }
        wh_image_free(img);
    }
    harness_close(h);
    wh_spec_free(s);
}

#define SURF_REDUCE "tests/specs/surf_reduce.json"

/* What surf_reduce's and surf_formatted's 32 lanes do to 8 bins: add 1 to
 * cnt[bins[i]] (a bin of 8 is past the end: dropped) and take the minimum
 * of vals[i] into low[min(bins[i], 7)].  Returns the adds dropped. */
static int reduce_bins(int cnt[8], int low[8], const int bins[32], const int vals[32])
{
    int dropped = 0;
    for (int i = 0; i < 32; i++) {
        int c = bins[i] < 8 ? bins[i] : 7;
        dropped += bins[i] == 8;
        if (bins[i] < 8) cnt[c]++;
        if (vals[i] < low[c]) low[c] = vals[i];
    }
    return dropped;
}

/* Then lane i reads its bin's count k and minimum m back, loops extra[i] +
 * (m & 7) times, and writes k to buffer count_buf and m + 256 acc to
 * least_buf of img: expected against reduce_bins's cells. */
static void expect_bin_results(const wh_image *img, int count_buf, int least_buf, const int cnt[8],
                               const int low[8], const int bins[32], const int extra[32], uint64_t seed)
{
    for (int i = 0; i < 32; i++) {
        int c = bins[i] < 8 ? bins[i] : 7, acc = 0;
        for (int j = 0; j < extra[i] + (low[c] & 7); j++) acc += j ^ cnt[c];
        cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[count_buf].data + 4 * i), cnt[c], "seed %llu count %d",
                     (unsigned long long)seed, i);
        cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[least_buf].data + 4 * i), low[c] + acc * 256,
                     "seed %llu least %d", (unsigned long long)seed, i);
    }
}

/* surf_reduce on random inputs: each bin's count (bins past the end
 * dropped under .zero) and minimum, as a C reference reduces them. */
Test(texture, surface_reductions_add_and_take_the_minimum)
{
    wh_spec *s = load_with_ptx(SURF_REDUCE);
    harness *h = open_sim(s, true);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        wh_image *img = random_image(s, seed, 23);
        int cells[2][8], bins[32], vals[32];
        memcpy(cells, img->bufs[0].data, sizeof cells);
        memcpy(bins, img->bufs[1].data, sizeof bins);
        memcpy(vals, img->bufs[2].data, sizeof vals);
        int dropped = reduce_bins(cells[0], cells[1], bins, vals);
        measure_ok(h, img);
        static const int no_extra[32];
        expect_bin_results(img, 3, 4, cells[0], cells[1], bins, no_extra, seed);
        cr_log_info("seed %llu: %d of 32 adds past the end, dropped", (unsigned long long)seed, dropped);
        wh_image_free(img);
    }
    harness_close(h);
    wh_spec_free(s);
}

#define SURF_FORMATTED "tests/specs/surf_formatted.json"

/* A uchar4 sample of (r, g, b, a), each a u32 saturated to 255: what
 * sust.p writes there, read back as one little-endian word. */
static uint32_t saturated_rgba(uint32_t r, uint32_t g, uint32_t b, uint32_t a)
{
    uint32_t v[4] = { r, g, b, a }, word = 0;
    for (int c = 0; c < 4; c++)
        word |= (v[c] > 255u ? 255u : v[c]) << (8 * c);
    return word;
}

/* surf_formatted on random inputs and on values past a byte either way:
 * sust.p's texel i (x counts texels) is (v, -v, i, 300) saturated, sured.p
 * adds at texel bins[i] (dropped past the end under .zero) and takes the
 * signed minimum (-100 < -1: an unsigned one would keep the cell). */
Test(texture, formatted_surface_stores_saturate_and_reductions_count_texels)
{
    wh_spec *s = load_with_ptx(SURF_FORMATTED);
    harness *h = open_sim(s, true);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        wh_image *img = random_image(s, seed, 29);
        static const int edge[4] = { -5, 300, 255, -100 };   /* saturate low and high, a byte, the lowest */
        for (int i = 0; i < 4; i++)
            wh_value_set_int(WH_I32, img->bufs[3].data + 4 * i, edge[i]);
        int cnt[8], low[8], vals[32], bins[32];
        memcpy(cnt, img->bufs[1].data, sizeof cnt);
        memcpy(low, img->bufs[2].data, sizeof low);
        memcpy(vals, img->bufs[3].data, sizeof vals);
        memcpy(bins, img->bufs[4].data, sizeof bins);
        reduce_bins(cnt, low, bins, vals);
        measure_ok(h, img);
        int red[32];
        for (int i = 0; i < 32; i++) {
            uint32_t word = saturated_rgba((uint32_t)vals[i], 0u - (uint32_t)vals[i], (uint32_t)i, 300);
            red[i] = (int)(word & 7);
            cr_expect_eq((uint32_t)wh_value_get_int(WH_U32, img->bufs[5].data + 4 * i), word,
                         "seed %llu texel %d (v %d)", (unsigned long long)seed, i, vals[i]);
        }
        expect_bin_results(img, 6, 7, cnt, low, bins, red, seed);
        wh_image_free(img);
    }
    harness_close(h);
    wh_spec_free(s);
}

/* sured.p reduces in its samples' type: on a surface of u8 samples it
 * faults, naming the surface, in the sim and in the symbolic stage. */
Test(texture, a_formatted_reduction_needs_one_32_bit_integer_sample, .timeout = 240)
{
    ts_need_ptx(PTX);
    char dir[64];
    wh_error err;
    char rest[2000];
    snprintf(rest, sizeof rest,
             "{\"name\":\"cnt\",\"kind\":\"surface\",\"type\":\"i32\",\"role\":\"input\",\"range\":[0,3],"
             "\"surface\":{\"dims\":[8]}},"
             "{\"name\":\"low\",\"kind\":\"surface\",\"type\":\"u8\",\"role\":\"input\","
             "\"surface\":{\"dims\":[8]}},"
             "{\"name\":\"vals\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"input\"},"
             "{\"name\":\"bins\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"input\","
             "\"range\":[0,7]},"
             "{\"name\":\"packed\",\"kind\":\"buffer\",\"type\":\"u32\",\"count\":8,\"role\":\"output\"},"
             "{\"name\":\"count\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"output\"},"
             "{\"name\":\"least\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"output\"},"
             "{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":8},"
             "{\"name\":\"w\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":8}");
    wh_spec *s = spec_with("surf_formatted",
                           "{\"name\":\"px\",\"kind\":\"surface\",\"type\":\"u32\",\"role\":\"output\","
                           "\"surface\":{\"dims\":[8]}}",
                           rest, dir, &err);
    cr_assert(s, "%s", err.msg);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    harness *h = open_sim(s, false);
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    cr_expect_eq(r.status, HARNESS_FAULT, "%s", r.message);
    cr_expect(strstr(r.message, "formatted reduction (sured.p)") && strstr(r.message, "surface 'low'"), "%s",
              r.message);
    harness_result_free(&r);
    harness_close(h);
    char cache[64];
    gen_result *g = ts_explore(s, 20, cache);
    cr_expect_gt(g->npaths, 0);
    cr_expect_eq(g->pool.natoms, 0, "every path faults at the reduction: no atom");
    gen_result_free(g);
    ts_rmtree(cache);
    wh_image_free(img);
    wh_spec_free(s);
    ts_rmtree(dir);
}

/* A layered surface (surf2DLayeredread / write: suld.b.a2d, sust.b.a2d):
 * layer l of an 8 x 2 surface of 3 layers holds 100 l + x in row 0; a
 * read past the last layer under .zero is 0, a write at layer 1000 under
 * .clamp lands in the last layer (row 1 of each column: its thread's v + 1). */
static const char *LAYERED_SURFACE =
    "{\"name\":\"s\",\"kind\":\"surface\",\"type\":\"i32\",\"role\":\"input\",\"range\":[0,255],"
    "\"surface\":{\"dims\":[8,2],\"layers\":3}}";
static const char *LAYERED_REST =
    "{\"name\":\"ls\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads\",\"role\":\"input\","
    "\"per_thread\":1,\"range\":[0,7]},"
    "{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads\",\"role\":\"output\"},"
    "{\"name\":\"w\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":\"threads\"}";

/* surf_layered over `surface` (8 columns, `rows` rows, `layers` layers or
 * faces): layer l holds 100 l + x in row 0; the reads at ls[i] and the
 * clamped write into the last layer's row 1, against hand-computed cells. */
static void layered_surface_case(const char *surface, int layers, int rows, const int ls[8])
{
    ts_need_ptx(PTX);
    char dir[64];
    wh_error err;
    wh_spec *s = spec_with("surf_layered", surface, LAYERED_REST, dir, &err);
    cr_assert(s, "%s", err.msg);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    cr_assert_eq(img->bufs[0].count, (uint64_t)(8 * rows * layers), "dims times layers");
    for (int layer = 0; layer < layers; layer++)
        for (int x = 0; x < 8; x++)
            wh_value_set_int(WH_I32, img->bufs[0].data + 4 * (layer * 8 * rows + x), 100 * layer + x);
    for (int i = 0; i < 8; i++)
        wh_value_set_int(WH_I32, img->bufs[1].data + 4 * i, ls[i]);
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.want_outputs = o.want_all_buffers = true;   /* the surface is an input: its writes come back too */
    harness *h = harness_open(s, HARNESS_SIM, &o, &err);
    cr_assert(h, "%s", err.msg);
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
    harness_result_free(&r);
    for (int i = 0; i < 8; i++) {
        int v = ls[i] < layers ? 100 * ls[i] + i : 0, acc = 0;
        for (int k = 0; k < (v & 15); k++)
            acc += k ^ v;
        cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[2].data + 4 * i), acc + v, "out[%d] (layer %d)", i, ls[i]);
        cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[0].data + 4 * ((layers - 1) * 8 * rows + 8 + i)), v + 1,
                     "layer 1000 clamps to the last: row 1 of column %d", i);
    }
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(s);
    ts_rmtree(dir);
}

Test(texture, a_layered_surface_reads_and_writes_its_layers)
{
    static const int ls[8] = { 0, 1, 2, 3, 5, 2, 1, 0 };
    layered_surface_case(LAYERED_SURFACE, 3, 2, ls);
}

/* surfCubemapread / write are .a2d accesses whose layer is the face. */
Test(texture, a_cubemap_surface_is_six_layers)
{
    static const int ls[8] = { 0, 5, 6, 3, 7, 4, 1, 2 };
    layered_surface_case("{\"name\":\"s\",\"kind\":\"surface\",\"type\":\"i32\",\"role\":\"input\",\"range\":[0,255],"
                         "\"surface\":{\"dims\":[8,8],\"cube\":true}}",
                         6, 8, ls);
}

/* .zero reads 0 past the end; .clamp stores at the nearest cell; the
 * output surface starts from zeros and comes back. */
Test(texture, zero_and_clamp_surface_boundaries)
{
    wh_error err;
    wh_spec *s = load_with_ptx(SURF_GATHER);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    for (int i = 0; i < 32; i++)
        wh_value_set_int(WH_I32, img->bufs[1].data + 4 * i, i == 0 ? 20 : i - 4);
    harness *h = open_sim(s, true);
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
    harness_result_free(&r);
    for (int i = 0; i < 32; i++)
        cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[2].data + 4 * i), 0, "out[%d]: every cell starts at 0", i);
    for (int c = 0; c < 16; c++)
        cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[0].data + 4 * c), c == 15, "cell %d: index 20 clamps to 15", c);
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(s);
}

/* A walk told the surface is taller than it is leaves it: .trap faults,
 * naming the surface and the place. */
Test(texture, a_trap_access_outside_the_surface_faults)
{
    ts_need_ptx(PTX);
    char dir[64];
    wh_error err;
    wh_spec *s = spec_with("surf_walk",
                           "{\"name\":\"cells\",\"kind\":\"surface\",\"type\":\"i32\",\"role\":\"input\","
                           "\"surface\":{\"dims\":[8,8]}}",
                           "{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"output\"},"
                           "{\"name\":\"w\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":8},"
                           "{\"name\":\"h\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":64}",
                           dir, &err);
    cr_assert(s, "%s", err.msg);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    for (int k = 0; k < 64; k++) wh_value_set_int(WH_I32, img->bufs[0].data + 4 * k, 3);   /* down 4 rows a step */
    harness *h = open_sim(s, false);
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    cr_expect_eq(r.status, HARNESS_FAULT, "%s", r.message);
    cr_expect(strstr(r.message, "out-of-bounds (.trap) load of 4 bytes at (0, 8, 0) of surface 'cells'"), "%s",
              r.message);
    harness_result_free(&r);
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(s);
    ts_rmtree(dir);
}

/* The symbolic stage on the spec at path: at least min_paths paths (at
 * most max_paths), every atom replaying its path on the sim. */
static void spec_explores_replaying(const char *path, int min_paths, int max_paths)
{
    ts_need_ptx(PTX);
    wh_error err;
    wh_spec *s = wh_spec_load(path, &err);
    cr_assert(s, "%s", err.msg);
    int n = explores_replaying(s, min_paths);
    cr_expect_leq(n, max_paths, "%s: %d paths", path, n);
    wh_spec_free(s);
}

/* Symbolic cells and pinned rows: paths per walk length, atoms replaying. */
Test(texture, the_symbolic_stage_walks_a_surface, .timeout = 240)
{
    spec_explores_replaying(WALK, 8, INT32_MAX);
}

/* Layered and cubemap surfaces: layer indices pinned, cells symbolic,
 * every atom replaying its path. */
Test(texture, the_symbolic_stage_reads_layered_and_cubemap_surfaces, .timeout = 240)
{
    spec_explores_replaying("tests/specs/surf_layered.json", 2, INT32_MAX);
    spec_explores_replaying("tests/specs/surf_cube.json", 2, INT32_MAX);
}

/* Surface reductions run in lane order, as atomics: a path per trip count
 * of the loop over the reduced minimum (0..7), every atom replaying it. */
Test(texture, the_symbolic_stage_reduces_into_a_surface, .timeout = 240)
{
    spec_explores_replaying(SURF_REDUCE, 8, INT32_MAX);
}

/* sust.p's saturation and sured.p's signed minimum in the symbolic stage:
 * a path per trip count of the loop over the texel's red and the
 * minimum's low bits, every atom replaying it on the sim. */
Test(texture, the_symbolic_stage_runs_formatted_surface_accesses, .timeout = 240)
{
    spec_explores_replaying(SURF_FORMATTED, 8, INT32_MAX);
}

#define TEX_MIP "tests/specs/tex_mip.json"
static const char *MIP_REST =
    "{\"name\":\"xs\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":8,\"role\":\"input\"},"
    "{\"name\":\"ys\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":8,\"role\":\"input\"},"
    "{\"name\":\"lods\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":8,\"role\":\"input\"},"
    "{\"name\":\"grads\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":8,\"role\":\"input\"},"
    "{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":8,\"role\":\"output\"},"
    "{\"name\":\"outg\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":8,\"role\":\"output\"},"
    "{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":8}";

/* Texel (x, y) of level k of an 8 x 4 texture (4 x 2, 2 x 1 below it):
 * 40 k + y w + x, w the level's width. */
static float mip_texel(int k, float xs, float ys)
{
    int w = 8 >> k, h = 4 >> k > 1 ? 4 >> k : 1;
    float fx = floorf(xs * (float)w), fy = floorf(ys * (float)h);
    int x = fx < 0 ? 0 : fx >= (float)w ? w - 1 : (int)fx, y = fy < 0 ? 0 : fy >= (float)h ? h - 1 : (int)fy;
    return (float)(40 * k + y * w + x);
}

/* A new image of s whose first buffer, an 8 x 4 texture of 3 levels (f32
 * or i32 texels), holds 40 k + y w + x at (x, y) of level k. */
static wh_image *mip_image(const wh_spec *s, wh_type texel)
{
    wh_error err;
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    int at = 0;
    for (int k = 0; k < 3; k++) {
        int w = 8 >> k, h = 4 >> k > 1 ? 4 >> k : 1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++, at++) {
                if (texel == WH_F32) wh_value_set_float(WH_F32, img->bufs[0].data + 4 * at, (float)(40 * k + y * w + x));
                else wh_value_set_int(WH_I32, img->bufs[0].data + 4 * at, 40 * k + y * w + x);
            }
    }
    cr_assert_eq(at, 42, "42 texels over three levels");
    cr_assert_eq(img->bufs[0].count, 42u);
    return img;
}

/* tex_mip's texture holding mip_texel's values, its other inputs set
 * (lanes past the lists' ends at 0.3, 0.6, lod 0, gradient 0), run on the
 * sim; the outputs come back in the image returned. */
static wh_image *mip_run(const wh_spec *s, const float *lods, const float *grads, int n)
{
    wh_image *img = mip_image(s, WH_F32);
    for (uint64_t i = 0; i < img->bufs[1].count; i++) {
        wh_value_set_float(WH_F32, img->bufs[1].data + 4 * i, 0.3f + 0.02f * (float)i);
        wh_value_set_float(WH_F32, img->bufs[2].data + 4 * i, 0.6f);
        wh_value_set_float(WH_F32, img->bufs[3].data + 4 * i, (int)i < n ? lods[i] : 0.0f);
        wh_value_set_float(WH_F32, img->bufs[4].data + 4 * i, (int)i < n ? grads[i] : 0.0f);
    }
    harness *h = open_sim(s, true);
    measure_ok(h, img);
    harness_close(h);
    return img;
}

/* tex2DLod reads the level nearest its level of detail, clamped to the
 * levels there are; tex2DGrad the level nearest log2 of its longer
 * gradient in level-0 texels (8 g here: ddx (g, 0) over 8 texels). */
Test(texture, lod_and_gradient_fetches_pick_the_nearest_mipmap_level)
{
    wh_spec *s = load_with_ptx(TEX_MIP);
    const float lods[] = { -1.0f, 0.49f, 0.5f, 1.2f, 1.6f, 2.0f, 3.5f, 4.0f };
    const int lod_level[] = { 0, 0, 1, 1, 2, 2, 2, 2 };
    const float grads[] = { 0.0f, 0.1f, 0.124f, 0.126f, 0.25f, 0.3f, 0.5f, 1.0f };   /* 8 g: 0 .. 8 */
    const int grad_level[] = { 0, 0, 0, 0, 1, 1, 2, 2 };
    wh_image *img = mip_run(s, lods, grads, 8);
    for (int i = 0; i < 32; i++) {
        float xs = 0.3f + 0.02f * (float)i;
        float v = mip_texel(i < 8 ? lod_level[i] : 0, xs, 0.6f), g = mip_texel(i < 8 ? grad_level[i] : 0, xs, 0.6f);
        float want = v + 1000.0f * (float)(((int)v & 7) + ((int)g & 7));
        cr_expect_eq(wh_value_get_float(WH_F32, img->bufs[5].data + 4 * i), want, "out[%d]", i);
        cr_expect_eq(wh_value_get_float(WH_F32, img->bufs[6].data + 4 * i), g, "outg[%d]", i);
    }
    wh_image_free(img);
    wh_spec_free(s);
}

/* "mipmap_filter": "linear" weighs the two levels around the level of
 * detail by its fraction (clamped to the levels there are). */
Test(texture, a_linear_mipmap_filter_weighs_two_levels)
{
    ts_need_ptx(PTX);
    char dir[64];
    wh_error err;
    wh_spec *s = spec_with("tex_mip",
                           "{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                           "\"texture\":{\"dims\":[8,4],\"levels\":3,\"normalized_coords\":true,"
                           "\"mipmap_filter\":\"linear\"}}",
                           MIP_REST, dir, &err);
    cr_assert(s, "%s", err.msg);
    const float lods[] = { 0.5f, 1.25f, 2.7f, -3.0f, 0.0f }, grads[] = { 0, 0, 0, 0, 0 };
    wh_image *img = mip_run(s, lods, grads, 5);
    for (int i = 0; i < 5; i++) {
        float xs = 0.3f + 0.02f * (float)i;
        float t0 = mip_texel(0, xs, 0.6f), t1 = mip_texel(1, xs, 0.6f), t2 = mip_texel(2, xs, 0.6f);
        float want[] = { 0.5f * t0 + 0.5f * t1, 0.75f * t1 + 0.25f * t2, t2, t0, t0 };
        float v = wh_value_get_float(WH_F32, img->bufs[5].data + 4 * i);
        cr_expect_eq(fmodf(v, 1000.0f), want[i], "lane %d (lod %g): %g", i, (double)lods[i], (double)v);
    }
    wh_image_free(img);
    wh_spec_free(s);
    ts_rmtree(dir);
}

/* The .s32 forms: tex.level's level of detail is an integer (clamped to
 * the levels there are), tex.base reads level 0, both at integer texel
 * indices (clamped to each level's width). */
Test(texture, integer_levels_of_detail_and_the_base_level)
{
    ts_need_ptx(PTX);
    char dir[64];
    wh_error err;
    wh_spec *s = spec_with("tex_mip_int",
                           "{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"i32\",\"role\":\"input\","
                           "\"texture\":{\"dims\":[8,4],\"levels\":3,\"normalized_coords\":true}}",
                           "{\"name\":\"xs\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"input\"},"
                           "{\"name\":\"ls\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"input\"},"
                           "{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"struct\",\"count\":8,\"role\":\"output\","
                           "\"fields\":[{\"name\":\"x\",\"type\":\"i32\"},{\"name\":\"y\",\"type\":\"i32\"}]},"
                           "{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":8}",
                           dir, &err);
    cr_assert(s, "%s", err.msg);
    wh_image *img = mip_image(s, WH_I32);
    const int xs[8] = { 0, 3, 7, 9, -2, 5, 1, 6 }, ls[8] = { -1, 0, 1, 2, 5, 1, 2, 0 };
    for (int i = 0; i < 8; i++) {
        wh_value_set_int(WH_I32, img->bufs[1].data + 4 * i, xs[i]);
        wh_value_set_int(WH_I32, img->bufs[2].data + 4 * i, ls[i]);
    }
    harness *h = open_sim(s, true);
    measure_ok(h, img);
    harness_close(h);
    for (int i = 0; i < 8; i++) {
        int k = ls[i] < 0 ? 0 : ls[i] > 2 ? 2 : ls[i], w = 8 >> k;
        int x = xs[i] < 0 ? 0 : xs[i] >= w ? w - 1 : xs[i], x0 = xs[i] < 0 ? 0 : xs[i] > 7 ? 7 : xs[i];
        cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[3].data + 8 * i), 40 * k + x, "lane %d: level %d", i, k);
        cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[3].data + 8 * i + 4), x0, "lane %d: tex.base", i);
    }
    wh_image_free(img);
    wh_spec_free(s);
    ts_rmtree(dir);
}

/* A multisample fetch (tex.2dms) stops the run as unsupported, naming it:
 * CUDA makes no multisample texture, so none is modelled. */
Test(texture, a_multisample_fetch_is_unsupported)
{
    expect_run_stops("tex_ms",
                     "{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"i32\",\"role\":\"input\","
                     "\"texture\":{\"dims\":[8,8]}}",
                     "{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"output\"}",
                     HARNESS_UNSUPPORTED, "tex");
}

/* More levels than the largest dimension halves through is refused when
 * the launch is made, naming the texture. */
Test(texture, too_many_mipmap_levels_are_refused)
{
    ts_need_ptx(PTX);
    char dir[64];
    wh_error err;
    wh_spec *s = spec_with("tex_mip",
                           "{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                           "\"texture\":{\"dims\":[8,4],\"levels\":5,\"normalized_coords\":true}}",
                           MIP_REST, dir, &err);
    cr_assert(s, "%s", err.msg);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    harness *h = harness_open(s, HARNESS_SIM, &o, &err);
    harness_result r = { 0 };
    bool ran = h && harness_measure(h, img, 1, &r, &err);
    const char *msg = ran ? r.message : err.msg;
    cr_expect(!ran || r.status != HARNESS_OK, "five levels of an 8 x 4 texture ran");
    cr_expect(msg && strstr(msg, "texture 't': 5 mipmap levels, more than its largest dimension (8) allows (4)"),
              "%s", msg ? msg : "(no message)");
    if (ran) harness_result_free(&r);
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(s);
    ts_rmtree(dir);
}

/* Level-of-detail and gradient operands pinned, texels symbolic: every
 * atom replays its path on the sim. */
Test(texture, the_symbolic_stage_reads_mipmap_levels, .timeout = 240)
{
    spec_explores_replaying(TEX_MIP, 2, INT32_MAX);
}

#define GATHER4 "tests/specs/tex_gather4.json"

/* tex_gather4 on one input: texel (x, y) of its 6 x 5 texture is 10 y + x,
 * thread i fetches at (xs[i], ys[i]); out comes back in img. */
static harness_result gather4_run(const wh_spec *s, const float *xs, const float *ys, int n, wh_image **imgp)
{
    wh_error err;
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 6; x++)
            wh_value_set_int(WH_I32, img->bufs[0].data + 4 * (6 * y + x), 10 * y + x);
    for (int i = 0; i < 32; i++) {
        wh_value_set_float(WH_F32, img->bufs[1].data + 4 * i, i < n ? xs[i] : 0.0f);
        wh_value_set_float(WH_F32, img->bufs[2].data + 4 * i, i < n ? ys[i] : 0.0f);
    }
    harness *h = open_sim(s, true);
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    harness_close(h);
    *imgp = img;
    return r;
}

/* tld4 returns the bilinear footprint's texels counter-clockwise from the
 * lower left, (x0, y1), (x1, y1), (x1, y0), (x0, y0), clamped at the edges. */
Test(texture, tld4_reads_the_footprint_in_the_isa_order)
{
    wh_spec *s = load_with_ptx(GATHER4);
    const float xs[] = { 2.6f, -1.0f, 5.9f, 0.5f }, ys[] = { 1.7f, 0.2f, 4.9f, 3.5f };
    const int want[][4] = { { 22, 23, 13, 12 }, { 0, 0, 0, 0 }, { 45, 45, 45, 45 }, { 40, 41, 31, 30 } };
    wh_image *img;
    harness_result r = gather4_run(s, xs, ys, 4, &img);
    cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
    harness_result_free(&r);
    for (int i = 0; i < 4; i++) {
        int acc = 0;
        for (int k = 0; k < (want[i][0] & 7) + (want[i][2] & 7); k++)
            acc += k ^ want[i][1];
        const int got[4] = { (int)wh_value_get_int(WH_I32, img->bufs[3].data + 16 * i),
                             (int)wh_value_get_int(WH_I32, img->bufs[3].data + 16 * i + 4),
                             (int)wh_value_get_int(WH_I32, img->bufs[3].data + 16 * i + 8),
                             (int)wh_value_get_int(WH_I32, img->bufs[3].data + 16 * i + 12) };
        for (int c = 0; c < 3; c++)
            cr_expect_eq(got[c], want[i][c], "thread %d at (%g, %g) texel %d: %d, expected %d", i, xs[i], ys[i], c,
                         got[c], want[i][c]);
        cr_expect_eq(got[3], acc + want[i][3], "thread %d: %d, expected %d", i, got[3], acc + want[i][3]);
    }
    wh_image_free(img);
    wh_spec_free(s);
}

/* A GPU gathers only from an array made for it (cudaArrayTextureGather):
 * without "gather": true the fetch is a fault that says so. */
Test(texture, tld4_needs_a_texture_made_for_gathers)
{
    ts_need_ptx(PTX);
    char dir[64];
    wh_error err;
    wh_spec *s = spec_with("tex_gather4",
                           "{\"name\":\"t\",\"kind\":\"texture\",\"type\":\"i32\",\"role\":\"input\","
                           "\"texture\":{\"dims\":[6,5]}}",
                           "{\"name\":\"xs\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":32,\"role\":\"input\"},"
                           "{\"name\":\"ys\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":32,\"role\":\"input\"},"
                           "{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":128,\"role\":\"output\"},"
                           "{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":1}",
                           dir, &err);
    cr_assert(s, "%s", err.msg);
    const float xs[] = { 1.0f }, ys[] = { 1.0f };
    wh_image *img;
    harness_result r = gather4_run(s, xs, ys, 1, &img);
    cr_expect_eq(r.status, HARNESS_FAULT, "%s", harness_status_name(r.status));
    cr_expect(strstr(r.message, "tld4") && strstr(r.message, "\"gather\": true"), "%s", r.message);
    harness_result_free(&r);
    wh_image_free(img);
    wh_spec_free(s);
    ts_rmtree(dir);
}

/* txq and suq answer from the spec: dimensions (0 past the texture's),
 * normalized coordinates, filter mode and address modes as CUDA numbers
 * them (linear 1, mirror 2); the surface's width in elements. */
Test(texture, txq_and_suq_answer_from_the_spec)
{
    wh_error err;
    wh_spec *s = load_with_ptx("tests/specs/tex_query.json");
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    harness *h = open_sim(s, true);
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
    harness_result_free(&r);
    const int want[8] = { 7, 3, 0, 1, 1, 2, 12, 2 };
    for (int k = 0; k < 8; k++)
        cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[2].data + 4 * k), want[k], "answer %d", k);
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(s);
}

/* The symbolic stage: tld4's texels are the texture's symbols (its float
 * coordinates pinned), so paths follow the loop the footprint bounds, and
 * every atom replays; txq and suq are constants. */
Test(texture, the_symbolic_stage_gathers_and_queries, .timeout = 240)
{
    spec_explores_replaying(GATHER4, 8, INT32_MAX);
    spec_explores_replaying("tests/specs/tex_query.json", 1, 1);
}

/* Spec at path on one input: texture parameter k's texel e is value(k, e),
 * the f32 buffers after the textures (ntex of them) take fcoords[b][i], the
 * i32 buffer after them lcoords[i]; run on the sim, outputs in *imgp. */
typedef double (*texel_fn)(int tex, int64_t e);

static void run_fetches(const char *path, int ntex, texel_fn value, const float *const *fcoords, int nf,
                        const int *lcoords, int n, wh_image **imgp, wh_spec **sp)
{
    wh_error err;
    wh_spec *s = wh_spec_load(path, &err);
    cr_assert(s, "%s", err.msg);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    for (int k = 0; k < ntex; k++) {
        wh_type t = s->params[k].fields[0].type;
        for (uint64_t e = 0; e < img->bufs[k].count; e++) {
            if (t == WH_F32)
                wh_value_set_float(t, img->bufs[k].data + 4 * e, value(k, (int64_t)e));
            else
                wh_value_set_int(t, img->bufs[k].data + 4 * e, (int64_t)value(k, (int64_t)e));
        }
    }
    for (int i = 0; i < n; i++) {
        for (int b = 0; b < nf; b++)
            wh_value_set_float(WH_F32, img->bufs[ntex + b].data + 4 * i, fcoords[b][i]);
        wh_value_set_int(WH_I32, img->bufs[ntex + nf].data + 4 * i, lcoords[i]);
    }
    harness *h = open_sim(s, true);
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
    harness_result_free(&r);
    harness_close(h);
    *imgp = img;
    *sp = s;
}

/* texel (x, y) of layer l of tex_layered's 4 x 3 texture: 50 l + 10 y + x */
static double layered_texel(int tex, int64_t e)
{
    (void)tex;
    return (double)(50 * (e / 12) + 10 * (e % 12 / 4) + e % 4);
}

/* A layered fetch reads its layer's texel, the layer clamped to the last
 * and the coordinates to the layer's edges. */
Test(texture, a_layered_fetch_reads_its_layer)
{
    ts_need_ptx(PTX);
    const float xs[] = { 2.5f, -1.0f, 3.99f }, ys[] = { 1.5f, 9.0f, 0.2f };
    const float *const fc[] = { xs, ys };
    const int ls[] = { 3, 9, 0 }, want[] = { 162, 220, 3 };
    wh_image *img;
    wh_spec *s;
    run_fetches("tests/specs/tex_layered.json", 1, layered_texel, fc, 2, ls, 3, &img, &s);
    for (int i = 0; i < 3; i++) {
        int acc = 0;
        for (int k = 0; k < (want[i] & 7); k++)
            acc += k ^ want[i];
        cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[4].data + 4 * i), want[i] + (acc << 8), "thread %d", i);
    }
    wh_image_free(img);
    wh_spec_free(s);
}

/* texel idx of face f (of layer l): the cubemap 10 f + idx, the layered
 * one 100 l + 10 f + idx */
static double cube_texel(int tex, int64_t e)
{
    return tex == 0 ? (double)(10 * (e / 9) + e % 9) : (double)(100 * (e / 24) + 10 * (e % 24 / 4) + e % 4);
}

/* The major axis of the direction picks the face (+x -x +y -y +z -z), the
 * CUDA guide's table the place on it; a layered cubemap's layer is
 * clamped. */
Test(texture, a_cubemap_fetch_picks_the_face_of_the_major_axis)
{
    ts_need_ptx(PTX);
    const float xs[] = { 1.0f, 0.2f, -0.5f, -1.0f }, ys[] = { 0.0f, -1.0f, 0.2f, 0.5f },
                zs[] = { 0.0f, 0.9f, -0.8f, 0.3f };
    const float *const fc[] = { xs, ys, zs };
    const int ls[] = { 1, 0, 5, 0 };
    const float want[][2] = { { 4, 103 }, { 31, 31 }, { 55, 151 }, { 11, 11 } };
    wh_image *img;
    wh_spec *s;
    run_fetches("tests/specs/tex_cube.json", 2, cube_texel, fc, 3, ls, 4, &img, &s);
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 2; c++)
            cr_expect_eq(wh_value_get_float(WH_F32, img->bufs[6].data + 4 * (2 * i + c)), want[i][c],
                         "direction (%g, %g, %g) %s: %g, expected %g", xs[i], ys[i], zs[i], c ? "layered" : "cubemap",
                         wh_value_get_float(WH_F32, img->bufs[6].data + 4 * (2 * i + c)), want[i][c]);
    wh_image_free(img);
    wh_spec_free(s);
}

/* Layered and cubemap fetches in the symbolic stage: coordinates and
 * layers pinned, texels symbolic, every atom replaying. */
Test(texture, the_symbolic_stage_reads_layers_and_faces, .timeout = 240)
{
    spec_explores_replaying("tests/specs/tex_layered.json", 4, INT32_MAX);
    spec_explores_replaying("tests/specs/tex_cube.json", 1, INT32_MAX);
}

/* A cubemap's faces are square: a spec whose dimensions evaluate otherwise
 * is refused when the texture is made, naming it. */
Test(texture, a_cubemap_of_oblong_faces_is_refused)
{
    ts_need_ptx(PTX);
    char dir[64];
    wh_error err;
#define CUBE_BUF(n) "{\"name\":\"" n "\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":8,\"role\":\"input\"},"
    wh_spec *s = spec_with("tex_cube",
                           "{\"name\":\"c\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                           "\"texture\":{\"dims\":[3,4],\"cube\":true}},"
                           "{\"name\":\"ca\",\"kind\":\"texture\",\"type\":\"f32\",\"role\":\"input\","
                           "\"texture\":{\"dims\":[2,2],\"cube\":true,\"layers\":1}}",
                           CUBE_BUF("xs") CUBE_BUF("ys") CUBE_BUF("zs")
                           "{\"name\":\"ls\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"input\"},"
                           "{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":16,\"role\":\"output\"},"
                           "{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":8}",
                           dir, &err);
#undef CUBE_BUF
    cr_assert(s, "%s", err.msg);
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    wh_error_clear(&err);
    harness *h = harness_open(s, HARNESS_SIM, &o, &err);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = h ? wh_image_new(s, &l, &err) : NULL;
    harness_result r = { 0 };
    bool ran = h && img && harness_measure(h, img, 1, &r, &err) && r.status == HARNESS_OK;
    cr_expect(!ran, "a cubemap of 3 x 4 faces ran");
    const char *msg = wh_error_is_set(&err) ? err.msg : r.message;
    cr_expect(strstr(msg, "texture 'c': a cubemap's faces are square, not 3 x 4"), "%s", msg);
    if (h && img) harness_result_free(&r);
    wh_image_free(img);
    harness_close(h);
    wh_spec_free(s);
    ts_rmtree(dir);
}

/*
 * test_image.c — input images: sizes per launch, fixed initialisers,
 * random filling that never leaves a value domain, save/load round trip,
 * and loads that refuse what does not match.
 */
#include <criterion/criterion.h>

#include "core/image.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static wh_spec *load_full(void)
{
    wh_error err;
    wh_spec *s = wh_spec_load("tests/specs/full.json", &err);
    cr_assert(s, "%s: %s", err.path, err.msg);
    return s;
}

Test(image, sizes_follow_the_launch)
{
    wh_spec *s = load_full();
    wh_error err;
    wh_launch full = wh_spec_launch_full(s), x2 = wh_launch_threads(2);
    wh_image *a = wh_image_new(s, &full, &err), *b = wh_image_new(s, &x2, &err);
    cr_assert(a && b, "%s", err.msg);
    cr_expect_eq(a->bufs[0].count, 512);
    cr_expect_eq(b->bufs[0].count, 2);
    cr_expect_eq(a->bufs[1].bytes, 512 * 16, "struct elements are 16 bytes");
    cr_expect_eq(a->bufs[2].count, 2048);
    cr_expect_eq(b->bufs[2].count, 8);
    cr_expect_eq(a->bufs[3].count, 16, "shared table does not scale");
    cr_expect_eq(a->bufs[6].count, 512);
    cr_expect_eq(b->bufs[6].count, 100, "max(threads, 100)");
    cr_expect_eq(a->shared_bytes, 256);
    cr_expect_eq(wh_value_get_int(WH_I32, a->bufs[7].data), 511, "scalar n = threads - 1");
    cr_expect_float_eq(wh_value_get_float(WH_F32, a->bufs[8].data), 0.5, 1e-7);
    /* fixed buffers */
    for (int i = 0; i < 8; i++) cr_expect_eq(wh_value_get_int(WH_I16, a->bufs[4].data + 2 * i), i);
    cr_expect_float_eq(wh_value_get_float(WH_F32, a->bufs[5].data + 4 * 7), 1.25, 1e-7);
    /* a new image already lies inside its domains (the low end) */
    cr_expect(wh_image_check_domains(a, &err), "%s", err.msg);
    cr_expect_eq(wh_value_get_int(WH_I32, a->bufs[0].data), -5);
    cr_expect_eq(wh_value_get_int(WH_I32, a->bufs[1].data + 16 * 3), 12, "start = i*degree");
    wh_image_free(a);
    wh_image_free(b);
    wh_spec_free(s);
}

/* Property: whatever the seed, random images respect every domain,
 * including per-element ranges that use `i`, and reach both ends. */
Test(image, random_fill_never_leaves_a_domain)
{
    wh_spec *s = load_full();
    wh_error err;
    wh_launch full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(img);
    bool lo_seen = false, hi_seen = false;
    for (uint64_t seed = 0; seed < 20; seed++) {
        pcg32 rng;
        pcg32_seed(&rng, seed, 99);
        cr_assert(wh_image_fill_random(img, &rng, &err), "%s", err.msg);
        cr_assert(wh_image_check_domains(img, &err), "seed %llu: %s", (unsigned long long)seed, err.msg);
        for (uint64_t e = 0; e < img->bufs[0].count; e++) {
            int64_t v = wh_value_get_int(WH_I32, img->bufs[0].data + 4 * e);
            lo_seen |= v == -5;
            hi_seen |= v == 64;
        }
        for (uint64_t e = 0; e < img->bufs[1].count; e++)
            cr_assert_eq(wh_value_get_int(WH_I32, img->bufs[1].data + 16 * e), (int64_t)(4 * e));
    }
    cr_expect(lo_seen && hi_seen, "both ends of [-5, block] drawn");
    wh_image_free(img);
    wh_spec_free(s);
}

Test(image, same_seed_same_image)
{
    wh_spec *s = load_full();
    wh_error err;
    wh_launch full = wh_spec_launch_full(s);
    wh_image *a = wh_image_new(s, &full, &err), *b = wh_image_new(s, &full, &err);
    pcg32 r1, r2;
    pcg32_seed(&r1, 5, 1);
    pcg32_seed(&r2, 5, 1);
    cr_assert(wh_image_fill_random(a, &r1, &err) && wh_image_fill_random(b, &r2, &err));
    for (int i = 0; i < a->nbufs; i++)
        cr_expect_eq(memcmp(a->bufs[i].data, b->bufs[i].data, a->bufs[i].bytes), 0, "buffer %d", i);
    wh_image_free(a);
    wh_image_free(b);
    wh_spec_free(s);
}

Test(image, check_domains_names_the_bad_element)
{
    wh_spec *s = load_full();
    wh_error err;
    wh_launch full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &full, &err);
    wh_value_set_int(WH_U32, img->bufs[2].data + 4 * 17, 512); /* nodes-1 = 511 */
    cr_expect_not(wh_image_check_domains(img, &err));
    cr_expect(strstr(err.msg, "\"edges\" element 17"), "%s", err.msg);
    cr_expect(strstr(err.msg, "512"), "%s", err.msg);
    wh_value_set_int(WH_U32, img->bufs[2].data + 4 * 17, 0);
    wh_value_set_int(WH_I32, img->bufs[1].data + 16 * 2, 9);
    cr_expect_not(wh_image_check_domains(img, &err));
    cr_expect(strstr(err.msg, "field start"), "%s", err.msg);
    wh_image_free(img);
    wh_spec_free(s);
}

static void make_tmpdir(char *dir)
{
    strcpy(dir, "/tmp/wh_img_XXXXXX");
    cr_assert(mkdtemp(dir));
}

Test(image, save_load_round_trip)
{
    wh_spec *s = load_full();
    wh_error err;
    wh_launch full = wh_spec_launch_full(s);
    wh_image *a = wh_image_new(s, &full, &err);
    pcg32 rng;
    pcg32_seed(&rng, 8, 8);
    cr_assert(wh_image_fill_random(a, &rng, &err));
    char dir[64];
    make_tmpdir(dir);
    char sub[128];
    snprintf(sub, sizeof sub, "%s/nested/best", dir);
    cr_assert(wh_image_save(a, sub, &err), "%s", err.msg);
    wh_image *b = wh_image_load(s, sub, &err);
    cr_assert(b, "%s: %s", err.file, err.msg);
    for (int i = 0; i < a->nbufs; i++)
        if (a->bufs[i].param->role != WH_ROLE_OUTPUT)
            cr_expect_eq(memcmp(a->bufs[i].data, b->bufs[i].data, a->bufs[i].bytes), 0, "buffer %d", i);
    cr_expect_eq(b->launch.grid[1], 2);
    wh_image_free(b);

    /* A truncated buffer file is refused, not zero-filled. */
    char path[200];
    snprintf(path, sizeof path, "%s/values.bin", sub);
    cr_assert_eq(truncate(path, 10), 0);
    cr_expect_null(wh_image_load(s, sub, &err));
    cr_expect(strstr(err.msg, "expected exactly 2048 bytes"), "%s", err.msg);

    /* An image of another launch does not load as this one's... but does as its own. */
    wh_launch x2 = wh_launch_threads(2);
    wh_image *c = wh_image_new(s, &x2, &err);
    cr_assert(wh_image_save(c, sub, &err));
    wh_image *d = wh_image_load(s, sub, &err);
    cr_assert(d, "%s", err.msg);
    cr_expect_eq(d->bufs[0].count, 2);
    wh_image_free(d);
    wh_image_free(c);

    /* An out-of-domain value in a saved file is refused. */
    snprintf(path, sizeof path, "%s/values.bin", sub);
    FILE *f = fopen(path, "wb");
    int32_t bad[2] = { 1000, 0 };
    fwrite(bad, 4, 2, f);
    fclose(f);
    cr_expect_null(wh_image_load(s, sub, &err));
    cr_expect(strstr(err.msg, "\"values\" element 0"), "%s", err.msg);

    wh_image_free(a);
    ts_rmtree(dir);
    wh_spec_free(s);
}

Test(image, fixed_file_must_have_the_exact_size)
{
    char dir[64];
    make_tmpdir(dir);
    char spec_path[128], data_path[128];
    snprintf(spec_path, sizeof spec_path, "%s/k.json", dir);
    snprintf(data_path, sizeof data_path, "%s/data.bin", dir);
    FILE *f = fopen(spec_path, "w");
    fprintf(f, "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],\"params\":["
               "{\"name\":\"d\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads\",\"role\":\"fixed\","
               "\"init\":{\"file\":\"data.bin\"}}]}");
    fclose(f);
    f = fopen(data_path, "wb");
    int32_t v[4] = { 1, 2, 3, 4 };
    fwrite(v, 4, 4, f);
    fclose(f);
    wh_error err;
    wh_spec *s = wh_spec_load(spec_path, &err);
    cr_assert(s, "%s", err.msg);
    wh_launch full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(img, "%s", err.msg);
    cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[0].data + 12), 4);
    wh_image_free(img);
    wh_launch x2 = wh_launch_threads(2);
    cr_expect_null(wh_image_new(s, &x2, &err), "the file has more bytes than 2 threads need");
    cr_expect(strstr(err.msg, "more bytes"), "%s", err.msg);
    wh_spec_free(s);
    ts_rmtree(dir);
}

/* A range over `i` that leaves its type for some element is a user error
 * naming the element, the range and the JSON path of the range. */
Test(image, range_outside_its_type_names_element_and_path)
{
    char dir[64];
    make_tmpdir(dir);
    char spec_path[128];
    snprintf(spec_path, sizeof spec_path, "%s/k.json", dir);
    FILE *f = fopen(spec_path, "w");
    fprintf(f, "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],\"params\":["
               "{\"name\":\"v\",\"kind\":\"buffer\",\"type\":\"i8\",\"count\":\"threads\",\"role\":\"input\","
               "\"per_thread\":1,\"range\":[\"i*100\",\"i*100\"]}]}");
    fclose(f);
    wh_error err;
    wh_spec *s = wh_spec_load(spec_path, &err);
    cr_assert(s, "%s", err.msg);
    /* Two threads are fine (elements 0 and 1); four are not. */
    wh_launch two = wh_launch_threads(2), full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &two, &err);
    cr_assert(img, "%s", err.msg);
    wh_bounds b;
    cr_expect(wh_image_bounds(img, 0, 0, 1, &b, &err), "%s", err.msg);
    cr_expect_eq(b.lo, 100);
    /* the image is not written: evaluation threads read it at once */
    cr_expect_eq(img->vars[WH_VAR_I], 0, "the element index is not left in the image's variables");
    wh_image_free(img);
    cr_expect_null(wh_image_new(s, &full, &err));
    cr_expect(strstr(err.msg, "for element 2 the range is [200, 200], which is outside i8's [-128, 127]"), "%s",
              err.msg);
    cr_expect_str_eq(err.path, "$.params[0].range");
    wh_spec_free(s);
    ts_rmtree(dir);
}

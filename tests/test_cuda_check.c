/*
 * test_cuda_check.c — harness_compare_outputs, the comparison behind
 * `measure --check`: integers bit for bit, floats within an ulp bound,
 * signed zeros and NaNs, struct fields without their padding, buffers
 * the spec has compared as multisets or not at all, and a report that
 * says where they differ and how each buffer was compared.
 */
#include <criterion/criterion.h>

#include "core/image.h"
#include "harness/cuda/cuda.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Outputs of three kinds: i32, f32, and a struct {u8 tag; f64 w} (7 bytes
 * of padding in between); INTS, FLOATS and RECS add keys to each. */
#define SPEC_TEXT(INTS, FLOATS, RECS) \
    "{\n" \
    "  \"name\": \"cmp\", \"source\": \"cmp.cu\", \"entry\": \"cmp\",\n" \
    "  \"grid\": [1], \"block\": [8],\n" \
    "  \"symbolic\": { \"threads\": [2] },\n" \
    "  \"params\": [\n" \
    "    { \"name\": \"in\", \"kind\": \"buffer\", \"type\": \"i32\", \"count\": \"threads\",\n" \
    "      \"role\": \"input\", \"per_thread\": 1, \"range\": [0, 9] },\n" \
    "    { \"name\": \"ints\", \"kind\": \"buffer\", \"type\": \"i32\", \"count\": \"threads\", \"role\": \"output\"" INTS " },\n" \
    "    { \"name\": \"floats\", \"kind\": \"buffer\", \"type\": \"f32\", \"count\": \"threads\", \"role\": \"output\"" FLOATS " },\n" \
    "    { \"name\": \"recs\", \"kind\": \"buffer\", \"type\": \"struct\", \"count\": 4, \"role\": \"output\"" RECS ",\n" \
    "      \"fields\": [ { \"name\": \"tag\", \"type\": \"u8\" }, { \"name\": \"w\", \"type\": \"f64\" } ] }\n" \
    "  ]\n" \
    "}\n"

static const char SPEC[] = SPEC_TEXT("", "", "");
#define MULTISET ", \"check\": \"multiset\""
/* ints and recs as multisets, floats not compared (with a reason) */
static const char SPEC_INTS_RECS[] =
    SPEC_TEXT(MULTISET, ", \"check\": \"none\", \"check_why\": \"lanes race\"", MULTISET);
/* floats as a multiset, ints not compared (no reason given) */
static const char SPEC_FLOATS[] = SPEC_TEXT(", \"check\": \"none\"", MULTISET, "");

typedef struct {
    char dir[64], path[128];
    wh_spec *spec;
    wh_image *a, *b;
} fixture;

static void setup_fx_spec(fixture *f, const char *spec_text)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/wh_cmp_XXXXXX");
    cr_assert(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/cmp.json", f->dir);
    FILE *fp = fopen(f->path, "w");
    cr_assert(fp);
    fputs(spec_text, fp);
    fclose(fp);
    wh_error err;
    f->spec = wh_spec_load(f->path, &err);
    cr_assert(f->spec, "%s: %s", err.path, err.msg);
    wh_launch l = wh_spec_launch_full(f->spec);
    f->a = wh_image_new(f->spec, &l, &err);
    cr_assert(f->a, "%s", err.msg);
    for (int i = 0; i < 8; i++) {
        wh_value_set_int(WH_I32, f->a->bufs[1].data + 4 * i, i * 1000 - 3);
        wh_value_set_float(WH_F32, f->a->bufs[2].data + 4 * i, 0.1 * i - 0.35);
    }
    size_t es = f->a->bufs[3].param->elem_size;
    cr_assert_eq(es, 16);
    for (int i = 0; i < 4; i++) {
        wh_value_set_int(WH_U8, f->a->bufs[3].data + es * i, i);
        wh_value_set_float(WH_F64, f->a->bufs[3].data + es * i + 8, 1.0 / (i + 3));
    }
    f->b = wh_image_clone(f->a, &err);
    cr_assert(f->b, "%s", err.msg);
}

static void setup_fx(fixture *f)
{
    setup_fx_spec(f, SPEC);
}

static void teardown_fx(fixture *f)
{
    wh_image_free(f->a);
    wh_image_free(f->b);
    wh_spec_free(f->spec);
    unlink(f->path);
    rmdir(f->dir);
}

static float f32_at(const wh_image *img, int buf, int i)
{
    float v;
    memcpy(&v, img->bufs[buf].data + 4 * i, 4);
    return v;
}

static void set_f32(wh_image *img, int buf, int i, float v)
{
    memcpy(img->bufs[buf].data + 4 * i, &v, 4);
}

Test(cuda_check, identical_outputs_agree_bit_for_bit)
{
    fixture f;
    setup_fx(&f);
    char report[512];
    cr_expect(harness_compare_outputs(f.a, f.b, 0, report, sizeof report), "%s", report);
    cr_expect(strstr(report, "outputs agree: 3 buffers compared (3 exactly, 0 as multisets), 0 not compared; "
                             "20 elements, bit for bit"), "%s", report);
    teardown_fx(&f);
}

Test(cuda_check, inputs_and_padding_are_not_compared)
{
    fixture f;
    setup_fx(&f);
    f.b->bufs[0].data[0] ^= 1;                 /* an input */
    f.b->bufs[3].data[16 * 2 + 3] = 0x5a;      /* padding of recs[2] */
    char report[512];
    cr_expect(harness_compare_outputs(f.a, f.b, 0, report, sizeof report), "%s", report);
    teardown_fx(&f);
}

Test(cuda_check, integers_must_match_exactly)
{
    fixture f;
    setup_fx(&f);
    wh_value_set_int(WH_I32, f.b->bufs[1].data + 4 * 6, 5998);
    char report[512];
    cr_expect(!harness_compare_outputs(f.a, f.b, 1e9, report, sizeof report),
              "no ulp bound applies to integers");
    cr_expect(strstr(report, "ints: [6] 5997 vs 5998"), "%s", report);
    cr_expect(strstr(report, "1 of 8 elements differ"), "%s", report);
    teardown_fx(&f);
}

Test(cuda_check, floats_within_the_ulp_bound_agree)
{
    fixture f;
    setup_fx(&f);
    float x = f32_at(f.a, 2, 3);
    set_f32(f.b, 2, 3, nextafterf(nextafterf(x, 1e9f), 1e9f));   /* 2 ulp up */
    char report[512];
    cr_expect(harness_compare_outputs(f.a, f.b, 2, report, sizeof report), "%s", report);
    cr_expect(strstr(report, "within 2 ulp"), "%s", report);
    cr_expect(!harness_compare_outputs(f.a, f.b, 1, report, sizeof report));
    cr_expect(strstr(report, "floats: [3]"), "%s", report);
    cr_expect(strstr(report, "(2 ulp)"), "%s", report);
    teardown_fx(&f);
}

Test(cuda_check, ulps_are_counted_across_zero_and_signed_zeros_are_equal)
{
    fixture f;
    setup_fx(&f);
    char report[512];
    set_f32(f.a, 2, 0, 0.0f);
    set_f32(f.b, 2, 0, -0.0f);
    cr_expect(harness_compare_outputs(f.a, f.b, 0, report, sizeof report), "+0 == -0: %s", report);
    /* smallest subnormals on either side of zero are 2 ulp apart */
    set_f32(f.a, 2, 0, nextafterf(0.0f, 1.0f));
    set_f32(f.b, 2, 0, nextafterf(0.0f, -1.0f));
    cr_expect(harness_compare_outputs(f.a, f.b, 2, report, sizeof report), "%s", report);
    cr_expect(!harness_compare_outputs(f.a, f.b, 1, report, sizeof report), "%s", report);
    teardown_fx(&f);
}

Test(cuda_check, nans_match_nans_only)
{
    fixture f;
    setup_fx(&f);
    char report[512];
    set_f32(f.a, 2, 1, nanf("1"));
    set_f32(f.b, 2, 1, nanf("2"));
    cr_expect(harness_compare_outputs(f.a, f.b, 0, report, sizeof report), "any NaN == any NaN: %s", report);
    set_f32(f.b, 2, 1, 1.0f);
    cr_expect(!harness_compare_outputs(f.a, f.b, 1e30, report, sizeof report));
    cr_expect(strstr(report, "(NaN)"), "%s", report);
    teardown_fx(&f);
}

Test(cuda_check, struct_fields_are_compared_by_type)
{
    fixture f;
    setup_fx(&f);
    unsigned char *w = f.b->bufs[3].data + 16 * 1 + 8;
    double d;
    memcpy(&d, w, 8);
    d = nextafter(d, 2.0);
    memcpy(w, &d, 8);
    char report[512];
    cr_expect(harness_compare_outputs(f.a, f.b, 1, report, sizeof report), "%s", report);
    cr_expect(!harness_compare_outputs(f.a, f.b, 0, report, sizeof report));
    cr_expect(strstr(report, "recs: [1].w"), "%s", report);
    f.b->bufs[3].data[16 * 3] = 9;   /* tag of recs[3] */
    cr_expect(!harness_compare_outputs(f.a, f.b, 1, report, sizeof report));
    cr_expect(strstr(report, "[3].tag 3 vs 9"), "%s", report);
    teardown_fx(&f);
}

Test(cuda_check, the_report_is_bounded_and_counts_everything)
{
    fixture f;
    setup_fx(&f);
    for (int i = 0; i < 8; i++)
        wh_value_set_int(WH_I32, f.b->bufs[1].data + 4 * i, -1);
    char report[512];
    cr_expect(!harness_compare_outputs(f.a, f.b, 0, report, sizeof report));
    cr_expect(strstr(report, "8 of 8 elements differ"), "%s", report);
    cr_expect(!strstr(report, "[5]"), "only the first mismatches are listed: %s", report);
    char tiny[16];
    cr_expect(!harness_compare_outputs(f.a, f.b, 0, tiny, sizeof tiny));
    cr_expect_lt(strlen(tiny), sizeof tiny);
    cr_expect(!harness_compare_outputs(f.a, f.b, 0, NULL, 0), "a NULL report is allowed");
    teardown_fx(&f);
}

/* Reverse elements [0, n) of buffer `buf` (whole elements, padding too). */
static void reverse_elements(wh_image *img, int buf, int n)
{
    size_t es = img->bufs[buf].param->elem_size;
    unsigned char tmp[64], *d = img->bufs[buf].data;
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        memcpy(tmp, d + es * i, es);
        memcpy(d + es * i, d + es * j, es);
        memcpy(d + es * j, tmp, es);
    }
}

Test(cuda_check, multisets_agree_in_any_order)
{
    fixture f;
    setup_fx(&f);
    reverse_elements(f.b, 1, 8);
    char report[1024];
    cr_expect(!harness_compare_outputs(f.a, f.b, 0, report, sizeof report), "exact: order matters");
    teardown_fx(&f);

    setup_fx_spec(&f, SPEC_INTS_RECS);
    cr_expect_eq(f.spec->params[1].check, WH_CHECK_MULTISET);
    reverse_elements(f.b, 1, 8);
    reverse_elements(f.b, 3, 4);
    f.b->bufs[3].data[16 * 1 + 5] = 0x77;       /* padding: not part of an element */
    cr_expect(harness_compare_outputs(f.a, f.b, 0, report, sizeof report), "%s", report);
    cr_expect(strstr(report, "outputs agree: 2 buffers compared (0 exactly, 2 as multisets), 1 not compared; "
                             "12 elements, bit for bit\n"), "%s", report);
    cr_expect(strstr(report, "ints: agrees as a multiset"), "%s", report);
    teardown_fx(&f);
}

Test(cuda_check, multisets_differ_when_a_value_or_a_count_differs)
{
    fixture f;
    setup_fx_spec(&f, SPEC_INTS_RECS);
    reverse_elements(f.b, 1, 8);
    wh_value_set_int(WH_I32, f.b->bufs[1].data + 4 * 2, 4998);   /* 4997 (a's [5]) -> 4998 */
    char report[1024];
    cr_expect(!harness_compare_outputs(f.a, f.b, 1e9, report, sizeof report));
    cr_expect(strstr(report, "outputs differ in 1 of 2 buffers compared (0 exactly, 2 as multisets), "
                             "1 not compared\n"), "%s", report);
    cr_expect(strstr(report, "ints: as multisets, 1 of 8 elements differ: {4997} vs {4998}"), "%s", report);

    /* the same values with other multiplicities: 997 twice, 1997 missing */
    reverse_elements(f.b, 1, 8);
    wh_value_set_int(WH_I32, f.b->bufs[1].data + 4 * 5, 4997);
    wh_value_set_int(WH_I32, f.b->bufs[1].data + 4 * 2, 997);
    cr_expect(!harness_compare_outputs(f.a, f.b, 0, report, sizeof report));
    cr_expect(strstr(report, "ints: as multisets, 1 of 8 elements differ: {1997} vs {997}"), "%s", report);
    memcpy(f.b->bufs[1].data, f.a->bufs[1].data, 32);

    /* a struct differs in one field: the whole element is shown */
    reverse_elements(f.b, 3, 4);
    f.b->bufs[3].data[16 * 0] = 9;              /* tag of a's recs[3] */
    cr_expect(!harness_compare_outputs(f.a, f.b, 0, report, sizeof report));
    cr_expect(strstr(report, "recs: as multisets, 1 of 4 elements differ: {(tag 3, w 0.16666666666666666)} "
                             "vs {(tag 9, w 0.16666666666666666)}"), "%s", report);
    teardown_fx(&f);
}

Test(cuda_check, float_multisets_sort_by_value_with_the_ulp_bound)
{
    fixture f;
    setup_fx_spec(&f, SPEC_FLOATS);
    reverse_elements(f.b, 2, 8);
    set_f32(f.a, 2, 0, 0.0f);                   /* b[7] was a[0] */
    set_f32(f.b, 2, 7, -0.0f);
    set_f32(f.a, 2, 7, nanf("1"));
    set_f32(f.b, 2, 0, nanf("2"));
    char report[1024];
    cr_expect(harness_compare_outputs(f.a, f.b, 0, report, sizeof report), "+0 == -0, NaN == NaN: %s", report);
    cr_expect(strstr(report, "outputs agree: 2 buffers compared (1 exactly, 1 as a multiset), 1 not compared"),
              "%s", report);
    set_f32(f.b, 2, 3, nextafterf(f32_at(f.a, 2, 4), 1e9f));   /* b[3] was a[4]: 1 ulp up */
    cr_expect(harness_compare_outputs(f.a, f.b, 1, report, sizeof report), "%s", report);
    cr_expect(strstr(report, "floats within 1 ulp (bound 1)"), "%s", report);
    cr_expect(!harness_compare_outputs(f.a, f.b, 0, report, sizeof report));
    cr_expect(strstr(report, "floats: as multisets, 1 of 8 elements differ"), "%s", report);
    teardown_fx(&f);
}

Test(cuda_check, unchecked_buffers_are_skipped_and_reported)
{
    fixture f;
    setup_fx_spec(&f, SPEC_INTS_RECS);
    cr_expect_eq(f.spec->params[2].check, WH_CHECK_NONE);
    for (int i = 0; i < 8; i++)
        set_f32(f.b, 2, i, 12345.0f);
    char report[1024];
    cr_expect(harness_compare_outputs(f.a, f.b, 0, report, sizeof report), "%s", report);
    cr_expect(strstr(report, ", 1 not compared;"), "%s", report);
    cr_expect(strstr(report, "\nfloats: not compared (\"check\": \"none\" in the spec: lanes race)"), "%s", report);
    teardown_fx(&f);

    setup_fx_spec(&f, SPEC_FLOATS);
    wh_value_set_int(WH_I32, f.b->bufs[1].data, 1);
    cr_expect(harness_compare_outputs(f.a, f.b, 0, report, sizeof report), "%s", report);
    cr_expect(strstr(report, "\nints: not compared (\"check\": \"none\" in the spec)"), "%s", report);
    /* the skipped buffer is still named when another one differs */
    f.b->bufs[3].data[0] = 7;
    cr_expect(!harness_compare_outputs(f.a, f.b, 0, report, sizeof report));
    cr_expect(strstr(report, "ints: not compared"), "%s", report);
    cr_expect(strstr(report, "recs: [0].tag 0 vs 7"), "%s", report);
    teardown_fx(&f);
}

/*
 * test_nearest.c — neighbour lists derived from positions ("neighbors"
 * with "nearest_of", core/image_nearest.c): the projection against a
 * brute-force sort of the distances, ties by index, equal positions, the
 * check, lists longer than the other threads, and the spec's refusals.
 */
#include "core/image.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef ts_kernel lists;

/* A launch of `threads` threads, each with a position (x, y, z in
 * [0, 7]: integers, so that distances tie) and a list of k neighbours. */
static bool open_lists(lists *l, int threads, int k, const char *list_extra, wh_error *err)
{
    char params[1400];
    snprintf(params, sizeof params,
             "{\"name\":\"pos\",\"kind\":\"buffer\",\"type\":\"struct\",\"count\":\"threads\",\"role\":\"input\","
             "\"per_thread\":1,\"fields\":[{\"name\":\"x\",\"type\":\"f32\",\"range\":[0,7]},"
             "{\"name\":\"y\",\"type\":\"f32\",\"range\":[0,7]},{\"name\":\"z\",\"type\":\"i32\",\"range\":[0,7]}]},"
             "{\"name\":\"list\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads*%d\",\"role\":\"input\","
             "\"per_thread\":%d,\"owner\":\"stride\",\"range\":[0,\"threads-1\"],\"structure\":\"neighbors\"%s}",
             k, k, list_extra);
    return ts_kernel_open(l, threads, params, err);
}

static double coord(const lists *l, uint64_t e, int f)
{
    const wh_buffer *b = &l->img->bufs[0];
    const wh_field *fd = &b->param->fields[f];
    const unsigned char *at = b->data + e * b->param->elem_size + fd->offset;
    return wh_type_is_float(fd->type) ? wh_value_get_float(fd->type, at) : (double)wh_value_get_int(fd->type, at);
}

static void set_pos(lists *l, uint64_t e, double x, double y, int64_t z)
{
    wh_buffer *b = &l->img->bufs[0];
    unsigned char *at = b->data + e * b->param->elem_size;
    wh_value_set_float(b->param->fields[0].type, at + b->param->fields[0].offset, x);
    wh_value_set_float(b->param->fields[1].type, at + b->param->fields[1].offset, y);
    wh_value_set_int(b->param->fields[2].type, at + b->param->fields[2].offset, z);
}

static int64_t listed(const lists *l, uint64_t t, uint64_t j)
{
    const wh_buffer *b = &l->img->bufs[1];
    uint64_t e = j * wh_launch_threads_total(&l->img->launch) + t;   /* "owner": "stride" */
    return wh_value_get_int(b->param->type, b->data + e * b->param->elem_size);
}

static void set_listed(lists *l, uint64_t t, uint64_t j, int64_t v)
{
    wh_buffer *b = &l->img->bufs[1];
    uint64_t e = j * wh_launch_threads_total(&l->img->launch) + t;
    wh_value_set_int(b->param->type, b->data + e * b->param->elem_size, v);
}

static double dist2(const lists *l, uint64_t a, uint64_t b)
{
    double s = 0;
    for (int f = 0; f < 3; f++) {
        double d = coord(l, a, f) - coord(l, b, f);
        s += d * d;
    }
    return s;
}

/* Thread t's k nearest by a full sort of (distance, index). */
static void brute_force(const lists *l, uint64_t t, int k, int64_t *out)
{
    uint64_t n = l->img->bufs[0].count;
    bool *used = calloc(n, 1);
    cr_assert(used);
    for (int j = 0; j < k; j++) {
        int64_t best = -1;
        for (uint64_t c = 0; c < n; c++) {
            if (c == t || used[c]) continue;
            if (best < 0 || dist2(l, t, c) < dist2(l, t, (uint64_t)best)) best = (int64_t)c;
        }
        used[best] = true;
        out[j] = best;
    }
    free(used);
}

static void expect_brute_force(const lists *l, int k, const char *what)
{
    int64_t want[16];
    for (uint64_t t = 0; t < wh_launch_threads_total(&l->img->launch); t++) {
        brute_force(l, t, k, want);
        for (int j = 0; j < k; j++)
            cr_expect_eq(listed(l, t, (uint64_t)j), want[j], "%s: thread %llu's neighbour %d is %lld, not %lld", what,
                         (unsigned long long)t, j, (long long)listed(l, t, (uint64_t)j), (long long)want[j]);
    }
}

/* Random positions on a small integer grid (many equal distances and
 * some equal points): every list is the brute-force one, nearest first,
 * ties by index, and passes the check. */
Test(nearest, lists_are_the_nearest_positions_ties_by_index)
{
    lists l;
    wh_error err;
    cr_assert(open_lists(&l, 300, 6, ",\"nearest_of\":\"pos\"", &err), "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 11, 5);
    for (int r = 0; r < 4; r++) {
        for (uint64_t e = 0; e < 300; e++)
            set_pos(&l, e, (double)pcg32_bounded(&rng, 8), (double)pcg32_bounded(&rng, 8),
                    (int64_t)pcg32_bounded(&rng, r < 2 ? 2 : 8));
        cr_assert(wh_image_restructure(l.img, &err), "%s", err.msg);
        expect_brute_force(&l, 6, "grid");
        cr_expect(wh_image_check_structure(l.img, 1, &err), "%s", err.msg);
    }
    for (int r = 0; r < 3; r++) {
        cr_assert(wh_image_fill_random(l.img, &rng, &err), "%s", err.msg);
        expect_brute_force(&l, 6, "random fill");
        cr_expect(wh_image_check_structure(l.img, 1, &err), "%s", err.msg);
    }
    ts_kernel_close(&l);
}

/* Every position the same (a cluster filled with one value): thread t's
 * list is the lowest indices but its own. */
Test(nearest, equal_positions_list_the_lowest_indices)
{
    lists l;
    wh_error err;
    cr_assert(open_lists(&l, 1024, 8, ",\"nearest_of\":\"pos\"", &err), "%s", err.msg);
    for (uint64_t e = 0; e < 1024; e++) set_pos(&l, e, 3, 3, 3);
    cr_assert(wh_image_restructure(l.img, &err), "%s", err.msg);
    for (uint64_t t = 0; t < 1024; t += 97)
        for (uint64_t j = 0; j < 8; j++)
            cr_expect_eq(listed(&l, t, j), (int64_t)(j < t ? j : j + 1), "thread %llu's neighbour %llu",
                         (unsigned long long)t, (unsigned long long)j);
    ts_kernel_close(&l);
}

/* The check takes any order among equal distances, and refuses a list
 * out of distance order, a farther position, or a repeat. */
Test(nearest, the_check_names_a_list_its_positions_do_not_give)
{
    lists l;
    wh_error err;
    cr_assert(open_lists(&l, 8, 3, ",\"nearest_of\":\"pos\"", &err), "%s", err.msg);
    for (uint64_t e = 0; e < 8; e++) set_pos(&l, e, (double)e, 0, 0);   /* a line: t's nearest t-1, t+1, ... */
    cr_assert(wh_image_restructure(l.img, &err), "%s", err.msg);
    cr_expect_eq(listed(&l, 4, 0), 3);
    cr_expect_eq(listed(&l, 4, 1), 5);
    cr_expect_eq(listed(&l, 4, 2), 2);
    set_listed(&l, 4, 0, 5);
    set_listed(&l, 4, 1, 3);   /* 3 and 5 are both at distance 1 */
    cr_expect(wh_image_check_structure(l.img, 1, &err), "a tie in another order: %s", err.msg);
    set_listed(&l, 4, 2, 6);   /* at distance 4, where the third nearest (2 or 6) is at 4 */
    cr_expect(wh_image_check_structure(l.img, 1, &err), "%s", err.msg);
    set_listed(&l, 4, 2, 7);
    cr_expect_not(wh_image_check_structure(l.img, 1, &err));
    cr_expect(strstr(err.msg, "thread 4's neighbour 2) names position 7 at squared distance 9, where its "
                              "neighbour 2 in nearest order is at 4"), "%s", err.msg);
    cr_expect_str_eq(err.path, "$.params[1].nearest_of");
    set_listed(&l, 4, 2, 2);
    set_listed(&l, 4, 1, 2);
    set_listed(&l, 4, 0, 3);
    cr_expect_not(wh_image_check_structure(l.img, 1, &err), "a list out of distance order");
    ts_kernel_close(&l);
}

/* Positions at infinity or NaN (a spec whose float coordinates have no
 * range): a finite position's list names only finite ones while there are
 * enough, the projection ends, and its lists pass the check. */
Test(nearest, infinite_and_nan_positions_come_last)
{
    lists l;
    wh_error err;
    cr_assert(open_lists(&l, 20, 4, ",\"nearest_of\":\"pos\"", &err), "%s", err.msg);
    for (uint64_t e = 0; e < 20; e++) set_pos(&l, e, (double)(e % 7), (double)(e % 3), 0);
    set_pos(&l, 3, INFINITY, 0, 0);
    set_pos(&l, 7, INFINITY, 1, 0);
    set_pos(&l, 11, NAN, 0, 0);
    cr_assert(wh_image_restructure(l.img, &err), "%s", err.msg);
    int64_t want[4];
    for (uint64_t t = 0; t < 20; t++) {
        if (t == 3 || t == 7 || t == 11) continue;
        brute_force(&l, t, 4, want);
        for (uint64_t j = 0; j < 4; j++) {
            cr_expect_eq(listed(&l, t, j), want[j], "thread %llu's neighbour %llu", (unsigned long long)t,
                         (unsigned long long)j);
            cr_expect(listed(&l, t, j) != 3 && listed(&l, t, j) != 7 && listed(&l, t, j) != 11);
        }
    }
    cr_expect(wh_image_check_structure(l.img, 1, &err), "%s", err.msg);
    ts_kernel_close(&l);
}

/* A list longer than per_thread x threads (found by fuzz_spec): the
 * elements past the lists are kept off their owner's index, as any
 * "neighbors" list's, and the image passes the check. */
Test(nearest, elements_past_the_lists_never_name_their_owner)
{
    lists l;
    wh_error err;
    const char *params =
        "{\"name\":\"pos\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":8,\"role\":\"input\","
        "\"per_thread\":1,\"range\":[0,4]},"
        "{\"name\":\"list\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":40,\"role\":\"input\","
        "\"per_thread\":2,\"owner\":\"stride\",\"range\":[0,7],\"structure\":\"neighbors\",\"nearest_of\":\"pos\"}";
    cr_assert(ts_kernel_open(&l, 8, params, &err), "%s", err.msg);
    wh_buffer *b = &l.img->bufs[1];
    for (uint64_t e = 16; e < 40; e++) wh_value_set_int(WH_I32, b->data + 4 * e, (int64_t)(e % 8));   /* own index */
    cr_assert(wh_image_restructure(l.img, &err), "%s", err.msg);
    cr_expect(wh_image_check_structure(l.img, 1, &err), "%s", err.msg);
    for (uint64_t e = 16; e < 40; e++)
        cr_expect_neq(wh_value_get_int(WH_I32, b->data + 4 * e), (int64_t)(e % 8), "element %llu",
                      (unsigned long long)e);
    ts_kernel_close(&l);
}

/* Fewer other threads than the list is long (the symbolic stage's few
 * threads): the nearest ones repeat in order, never the thread itself. */
Test(nearest, a_short_range_repeats_the_nearest_in_order)
{
    lists l;
    wh_error err;
    cr_assert(open_lists(&l, 3, 5, ",\"nearest_of\":\"pos\"", &err), "%s", err.msg);
    set_pos(&l, 0, 0, 0, 0);
    set_pos(&l, 1, 5, 0, 0);
    set_pos(&l, 2, 1, 0, 0);
    cr_assert(wh_image_restructure(l.img, &err), "%s", err.msg);
    const int64_t want[5] = { 2, 1, 2, 1, 2 };
    for (uint64_t j = 0; j < 5; j++) cr_expect_eq(listed(&l, 0, j), want[j], "neighbour %llu", (unsigned long long)j);
    cr_expect(wh_image_check_structure(l.img, 1, &err), "%s", err.msg);
    ts_kernel_close(&l);
}

static void expect_spec_refused(const char *extra, const char *msg)
{
    lists l = { .img = NULL };
    wh_error err;
    cr_expect_not(open_lists(&l, 8, 2, extra, &err), "%s was accepted", extra);
    cr_expect(strstr(err.msg, msg), "%s: %s", extra, err.msg);
    cr_expect_str_eq(err.path, "$.params[1].nearest_of", "%s", extra);
    ts_kernel_close(&l);
}

Test(nearest, the_spec_refuses_what_cannot_derive_a_list)
{
    expect_spec_refused(",\"nearest_of\":\"where\"", "no parameter or global \"where\"");
    expect_spec_refused(",\"nearest_of\":\"list\"", "is not another input buffer");
    expect_spec_refused(",\"nearest_of\":3", "expected the name of an input buffer");
}

/* The sorted positions, then a two-per-thread list with `list_extra`
 * after its range: refused with `msg`. */
static void expect_list_refused(const char *list_extra, const char *msg)
{
    lists l;
    wh_error err;
    char params[600];
    snprintf(params, sizeof params,
             "{\"name\":\"pos\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":8,\"role\":\"input\",\"per_thread\":1,"
             "\"range\":[0,1],\"structure\":\"sorted\"},"
             "{\"name\":\"list\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":16,\"role\":\"input\","
             "\"per_thread\":2,\"range\":[0,7]%s}", list_extra);
    cr_expect_not(ts_kernel_open(&l, 8, params, &err));
    cr_expect_null(l.spec);
    cr_expect(strstr(err.msg, msg), "%s", err.msg);
    ts_kernel_close(&l);
}

Test(nearest, nearest_of_goes_with_neighbors)
{
    expect_list_refused(",\"nearest_of\":\"pos\"", "it goes with \"structure\": \"neighbors\"");
    expect_list_refused(",\"structure\":\"neighbors\",\"nearest_of\":\"pos\"", "take no structure of their own");
}

/* md_cutoff's list follows its positions: every random input's lists are
 * the nearest atoms. */
Test(nearest, md_cutoff_lists_follow_the_positions)
{
    wh_error err;
    wh_spec *spec = wh_spec_load("kernels/corpus/md_cutoff.json", &err);
    cr_assert(spec, "%s", err.msg);
    int p = 0;
    while (p < spec->nparams && strcmp(spec->params[p].name, "neighList")) p++;
    cr_assert_lt(p, spec->nparams);
    cr_assert(spec->params[p].nearest_of, "md_cutoff's neighList is \"nearest_of\" its positions");
    wh_launch full = wh_spec_launch_full(spec);
    wh_image *img = wh_image_new(spec, &full, &err);
    cr_assert(img, "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 2, 7);
    cr_assert(wh_image_fill_random(img, &rng, &err), "%s", err.msg);
    cr_expect(wh_image_check_structure(img, p, &err), "%s", err.msg);
    wh_image_free(img);
    wh_spec_free(spec);
}

/*
 * test_structure.c — structured input buffers ("structure": sorted,
 * strictly_sorted, distinct, permutation, offsets, neighbors): the spec refuses what
 * cannot hold, random and low images have their structure, the projection
 * keeps what it can and is idempotent, a broken buffer is named element by
 * element, the symbolic stage assumes the structure (a loop only an
 * unsorted pair enters is never covered, every atom is sorted), and every
 * strategy's best input has it.
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "core/image.h"
#include "core/spec.h"
#include "gen/explore.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char dir[64];
    wh_spec *spec;
    wh_image *img;
} one_buffer;

/* A spec of one input buffer v (the JSON members after "name"), grid 1 x
 * block 4; loaded and, when it loads, an image of its full launch. */
static bool open_buffer(one_buffer *b, const char *members, wh_error *err)
{
    char json[1024];
    snprintf(json, sizeof json, "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],"
             "\"params\":[{\"name\":\"v\",\"kind\":\"buffer\",%s}]}", members);
    b->spec = ts_temp_spec_image(json, b->dir, &b->img, err);
    return b->img != NULL;
}

static void close_buffer(one_buffer *b)
{
    wh_image_free(b->img);
    wh_spec_free(b->spec);
    ts_rmtree(b->dir);
}

static int64_t get(const one_buffer *b, uint64_t e)
{
    return wh_value_get_int(b->spec->params[0].type, b->img->bufs[0].data + e * b->spec->params[0].elem_size);
}

static void set_all(one_buffer *b, const int64_t *v, uint64_t n)
{
    cr_assert_eq(b->img->bufs[0].count, n);
    for (uint64_t e = 0; e < n; e++)
        wh_value_set_int(b->spec->params[0].type, b->img->bufs[0].data + e * b->spec->params[0].elem_size, v[e]);
}

static void expect_values(const one_buffer *b, const int64_t *want, uint64_t n, const char *what)
{
    for (uint64_t e = 0; e < n; e++)
        cr_expect_eq(get(b, e), want[e], "%s: element %llu is %lld, not %lld", what, (unsigned long long)e,
                     (long long)get(b, e), (long long)want[e]);
}

static void expect_refused(const char *members, const char *msg, const char *path)
{
    one_buffer b;
    wh_error err;
    cr_expect_not(open_buffer(&b, members, &err), "%s was accepted", members);
    cr_expect(strstr(err.msg, msg), "%s: %s", members, err.msg);
    cr_expect_str_eq(err.path, path, "%s", members);
    if (b.spec) wh_spec_free(b.spec);
    ts_rmtree(b.dir);
}

Test(structure, what_cannot_hold_is_refused_with_its_place)
{
    expect_refused("\"type\":\"i32\",\"count\":8,\"role\":\"input\",\"structure\":\"shuffled\"",
                   "unknown structure \"shuffled\"", "$.params[0].structure");
    expect_refused("\"type\":\"i32\",\"count\":8,\"role\":\"output\",\"structure\":\"sorted\"",
                   "only for input buffers", "$.params[0].structure");
    expect_refused("\"type\":\"f32\",\"count\":8,\"role\":\"input\",\"structure\":\"distinct\"",
                   "floats can only be \"sorted\"", "$.params[0].structure");
    expect_refused("\"type\":\"i32\",\"count\":8,\"role\":\"input\",\"structure\":\"permutation\"",
                   "needs a \"range\"", "$.params[0].structure");
    expect_refused("\"type\":\"i32\",\"count\":8,\"role\":\"input\",\"range\":[0,\"i\"],"
                   "\"structure\":\"strictly_sorted\"",
                   "other than \"sorted\" needs a range that does not depend on i", "$.params[0].structure");
    /* sorted with a range that depends on i: only one whose ends never
     * fall (at this launch) */
    expect_refused("\"type\":\"i32\",\"count\":8,\"role\":\"input\",\"range\":[0,\"9-i\"],\"structure\":\"sorted\"",
                   "the range falls from element 0 to element 1", "$.params[0].structure");
    expect_refused("\"type\":\"f32\",\"count\":8,\"role\":\"input\",\"range\":[\"x\",1.0]",
                   "unknown", "$.params[0].range[0]");
    expect_refused("\"type\":\"f32\",\"count\":8,\"role\":\"input\",\"range\":[[0],1.0]",
                   "expected a number or an integer expression string", "$.params[0].range[0]");
    expect_refused("\"type\":\"f32\",\"count\":8,\"role\":\"input\",\"range\":[\"16777217\",\"16777217\"]",
                   "the range is [16777218, 16777216], which holds no value of its type", "$.params[0].range");
    expect_refused("\"type\":\"f32\",\"count\":8,\"role\":\"input\",\"range\":[\"i\",4.0]",
                   "for element 5 the range is [5, 4], which holds no value of its type", "$.params[0].range");
    /* at this launch: 8 elements cannot be a permutation of 10 values, nor
     * 8 distinct values of 5 */
    expect_refused("\"type\":\"i32\",\"count\":8,\"role\":\"input\",\"range\":[0,9],\"structure\":\"permutation\"",
                   "a permutation of the range's 10 values needs as many elements, and the buffer has 8",
                   "$.params[0].structure");
    expect_refused("\"type\":\"i32\",\"count\":8,\"role\":\"input\",\"range\":[0,4],\"structure\":\"distinct\"",
                   "the range has 5 values, fewer than the buffer's 8 elements", "$.params[0].structure");
}

/* Random images of every structure have it, checked here element by
 * element, and the check agrees. */
Test(structure, random_images_have_their_structure)
{
    static const char *const kinds[] = { "sorted", "strictly_sorted", "distinct", "permutation", "offsets" };
    for (int k = 0; k < 5; k++) {
        char members[256];
        snprintf(members, sizeof members, "\"type\":\"i32\",\"count\":64,\"role\":\"input\",\"range\":%s,"
                 "\"structure\":\"%s\"", k == 3 ? "[100,163]" : "[0,200]", kinds[k]);
        one_buffer b;
        wh_error err;
        cr_assert(open_buffer(&b, members, &err), "%s: %s", kinds[k], err.msg);
        for (uint64_t seed = 1; seed <= 20; seed++) {
            pcg32 rng;
            pcg32_seed(&rng, seed, 7);
            cr_assert(wh_image_fill_random(b.img, &rng, &err), "%s", err.msg);
            cr_expect(wh_image_check_domains(b.img, &err), "%s seed %llu: %s", kinds[k], (unsigned long long)seed,
                      err.msg);
            bool seen[200] = { false };
            int out_of_order = 0, repeats = 0;
            for (uint64_t e = 0; e < 64; e++) {
                int64_t v = get(&b, e);
                cr_assert(v >= 0 && v < 200 + 100);
                out_of_order += e > 0 && v < get(&b, e - 1);
                repeats += e > 0 && v == get(&b, e - 1);
                repeats += k >= 2 && seen[v % 200];
                seen[v % 200] = true;
            }
            if (k != 2 && k != 3) cr_expect_eq(out_of_order, 0, "%s seed %llu", kinds[k], (unsigned long long)seed);
            if (k >= 1 && k <= 3) cr_expect_eq(repeats, 0, "%s seed %llu", kinds[k], (unsigned long long)seed);
            if (k == 4) cr_expect(get(&b, 0) == 0 && get(&b, 63) == 200, "offsets run from lo to hi");
            if (k == 2 || k == 3) cr_expect_gt(out_of_order, 0, "%s: the order stays random", kinds[k]);
        }
        cr_assert(wh_image_fill_low(b.img, 0, &err), "%s", err.msg);
        cr_expect(wh_image_check_domains(b.img, &err), "low %s: %s", kinds[k], err.msg);
        close_buffer(&b);
    }
}

/* The projection keeps what it can: the multiset when sorting, the ranks
 * for distinct values and permutations; a second pass changes nothing. */
Test(structure, the_projection_keeps_ranks_and_is_idempotent)
{
    static const struct {
        const char *members;
        int64_t in[4], out[4];
    } cases[] = {
        { "\"range\":[0,9],\"structure\":\"sorted\"", { 7, 1, 7, 3 }, { 1, 3, 7, 7 } },
        { "\"range\":[0,3],\"structure\":\"strictly_sorted\"", { 3, 3, 3, 3 }, { 0, 1, 2, 3 } },
        { "\"range\":[0,9],\"structure\":\"strictly_sorted\"", { 2, 2, 9, 9 }, { 2, 3, 8, 9 } },
        { "\"range\":[0,9],\"structure\":\"distinct\"", { 5, 5, 1, 9 }, { 5, 6, 1, 9 } },
        { "\"range\":[0,3],\"structure\":\"permutation\"", { 30, 10, 20, 10 }, { 3, 0, 2, 1 } },
        { "\"range\":[0,10],\"structure\":\"offsets\"", { 3, 1, 7, 2 }, { 0, 2, 3, 10 } },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char members[256];
        snprintf(members, sizeof members, "\"type\":\"i16\",\"count\":4,\"role\":\"input\",%s", cases[c].members);
        one_buffer b;
        wh_error err;
        cr_assert(open_buffer(&b, members, &err), "%s: %s", members, err.msg);
        set_all(&b, cases[c].in, 4);
        cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
        expect_values(&b, cases[c].out, 4, members);
        cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
        expect_values(&b, cases[c].out, 4, members);
        close_buffer(&b);
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The projection sorts in one pass what is nearly sorted (a few elements
 * edited) and falls back to a full sort past a number of moves (a
 * reversed or shuffled buffer, giving up in the middle of an insertion):
 * each time the result is the sorted values, none lost or repeated. */
Test(structure, sorting_nearly_sorted_and_shuffled_values)
{
    enum { N = 4096 };
    one_buffer b;
    wh_error err;
    cr_assert(open_buffer(&b, "\"type\":\"i32\",\"count\":4096,\"role\":\"input\",\"range\":[0,1000000],"
                              "\"structure\":\"sorted\"", &err), "%s", err.msg);
    static int64_t v[N], want[N];
    pcg32 rng;
    pcg32_seed(&rng, 11, 5);
    for (int kind = 0; kind < 4; kind++) {
        for (int e = 0; e < N; e++) v[e] = kind == 1 ? N - e : (int64_t)pcg32_bounded(&rng, 1000001);
        if (kind >= 2) {   /* sorted, then a few elements edited, one far from its place */
            qsort(v, N, sizeof *v, cmp_i64);
            for (int k = 0; k < (kind == 2 ? 1 : 40); k++) v[pcg32_bounded(&rng, N)] = pcg32_bounded(&rng, 1000001);
            v[3] = 999999;
        }
        memcpy(want, v, sizeof v);
        qsort(want, N, sizeof *want, cmp_i64);
        set_all(&b, v, N);
        cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
        for (int e = 0; e < N; e++)
            cr_assert_eq(get(&b, e), want[e], "case %d: element %d is %lld, not %lld", kind, e, (long long)get(&b, e),
                         (long long)want[e]);
    }
    close_buffer(&b);
}

/* A 4-element i32 buffer in [0, 9] of `structure` holding `v` is refused
 * by the domain check with `msg`. */
static void expect_broken(const char *structure, const int64_t v[4], const char *msg)
{
    char members[160];
    snprintf(members, sizeof members, "\"type\":\"i32\",\"count\":4,\"role\":\"input\",\"range\":[0,9],"
             "\"structure\":\"%s\"", structure);
    one_buffer b;
    wh_error err;
    cr_assert(open_buffer(&b, members, &err), "%s", err.msg);
    set_all(&b, v, 4);
    cr_expect_not(wh_image_check_domains(b.img, &err), "%s", structure);
    cr_expect(strstr(err.msg, msg), "%s", err.msg);
    close_buffer(&b);
}

Test(structure, a_broken_buffer_is_named_element_by_element)
{
    expect_broken("sorted", (const int64_t[]){ 1, 3, 2, 4 },
                  "input \"v\" (\"structure\": \"sorted\"): element 2 is below element 1");
    expect_broken("strictly_sorted", (const int64_t[]){ 1, 3, 3, 4 }, "element 2 is not above element 1");
    expect_broken("distinct", (const int64_t[]){ 4, 7, 4, 1 }, "elements 0 and 2 are both 4");
    expect_broken("offsets", (const int64_t[]){ 0, 3, 5, 8 }, "the last offset is 8, not the range's high end 9");
    expect_broken("offsets", (const int64_t[]){ 1, 3, 5, 9 }, "the first offset is 1, not the range's low end 0");
}

Test(structure, sorted_floats)
{
    one_buffer b;
    wh_error err;
    cr_assert(open_buffer(&b, "\"type\":\"f32\",\"count\":32,\"role\":\"input\",\"range\":[0.0,1.0],"
                              "\"structure\":\"sorted\"", &err), "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 3, 7);
    cr_assert(wh_image_fill_random(b.img, &rng, &err), "%s", err.msg);
    for (uint64_t e = 1; e < 32; e++)
        cr_expect_leq(wh_value_get_float(WH_F32, b.img->bufs[0].data + 4 * (e - 1)),
                      wh_value_get_float(WH_F32, b.img->bufs[0].data + 4 * e));
    wh_value_set_float(WH_F32, b.img->bufs[0].data, 0.999);
    cr_expect_not(wh_image_check_domains(b.img, &err));
    cr_expect(strstr(err.msg, "element 1 is below element 0"), "%s", err.msg);
    close_buffer(&b);
}

static double getf(const one_buffer *b, uint64_t e)
{
    return wh_value_get_float(WH_F32, b->img->bufs[0].data + 4 * e);
}

/* A CDF: sorted floats in [0, 1] whose last element is 1 (the range
 * ["(i+1)/8", 1.0]).  Random images and projections keep both; an input
 * whose last value is below 1 is refused by its domain. */
Test(structure, a_sorted_float_range_may_depend_on_i)
{
    one_buffer b;
    wh_error err;
    cr_assert(open_buffer(&b, "\"type\":\"f32\",\"count\":8,\"role\":\"input\",\"range\":[\"(i+1)/8\",1.0],"
                              "\"structure\":\"sorted\"", &err), "%s", err.msg);
    cr_expect(wh_field_varies_by_index(&b.spec->params[0].fields[0]));
    for (uint64_t seed = 1; seed <= 20; seed++) {
        pcg32 rng;
        pcg32_seed(&rng, seed, 7);
        cr_assert(wh_image_fill_random(b.img, &rng, &err), "%s", err.msg);
        cr_expect(wh_image_check_domains(b.img, &err), "seed %llu: %s", (unsigned long long)seed, err.msg);
        cr_expect_eq(getf(&b, 7), 1.0, "the last element is 1");
        cr_expect_lt(getf(&b, 0), 1.0, "seed %llu: the others are drawn in [0, 1]", (unsigned long long)seed);
        for (uint64_t e = 1; e < 8; e++) cr_expect_leq(getf(&b, e - 1), getf(&b, e));
    }
    for (uint64_t e = 0; e < 8; e++) wh_value_set_float(WH_F32, b.img->bufs[0].data + 4 * e, 0.9 - 0.1 * (double)e);
    cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
    cr_expect(wh_image_check_domains(b.img, &err), "%s", err.msg);
    cr_expect_float_eq(getf(&b, 0), 0.2f, 1e-6, "sorted: the smallest value first (%g)", getf(&b, 0));
    cr_expect_eq(getf(&b, 7), 1.0, "the largest value, 0.9, raised to the last element's 1");
    wh_value_set_float(WH_F32, b.img->bufs[0].data + 4 * 7, 0.95);
    cr_expect_not(wh_image_check_domains(b.img, &err));
    cr_expect(strstr(err.msg, "element 7 is 0.95 (domain [1, 1])"), "%s", err.msg);
    close_buffer(&b);
}

/* An integer sorted buffer whose range rises with i: each value is
 * clamped into its own range after sorting, and stays sorted. */
Test(structure, a_sorted_integer_range_may_rise_with_i)
{
    one_buffer b;
    wh_error err;
    cr_assert(open_buffer(&b, "\"type\":\"i32\",\"count\":8,\"role\":\"input\",\"range\":[\"i\",\"i+10\"],"
                              "\"structure\":\"sorted\"", &err), "%s", err.msg);
    set_all(&b, (const int64_t[]){ 0, 0, 0, 0, 0, 0, 0, 0 }, 8);
    cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
    expect_values(&b, (const int64_t[]){ 0, 1, 2, 3, 4, 5, 6, 7 }, 8, "every value raised to its low end");
    set_all(&b, (const int64_t[]){ 30, 2, 9, 4, 12, 6, 30, 8 }, 8);
    cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
    expect_values(&b, (const int64_t[]){ 2, 4, 6, 8, 9, 12, 16, 17 }, 8, "sorted, then clamped");
    cr_expect(wh_image_check_domains(b.img, &err), "%s", err.msg);
    close_buffer(&b);
}

static bool sorted_buffer(const wh_image *img, int p)
{
    for (uint64_t e = 1; e < img->bufs[p].count; e++)
        if (wh_value_get_int(WH_I32, img->bufs[p].data + 4 * e) < wh_value_get_int(WH_I32, img->bufs[p].data + 4 * (e - 1)))
            return false;
    return true;
}

static gen_result *explore_quiet(const char *spec_path, wh_spec **spec, char *cache)
{
    wh_error err;
    *spec = wh_spec_load(spec_path, &err);
    cr_assert(*spec, "%s", err.msg);
    return ts_explore(*spec, 20, cache);
}

/* unsorted_pair loops from a[t+1] up to a[t]: under "sorted" its loop is
 * infeasible, so the stage covers fewer legs than without the structure,
 * and every atom it solves is sorted. */
Test(structure, the_symbolic_stage_assumes_the_structure)
{
    wh_spec *sorted, *none;
    char c1[64], c2[64];
    gen_result *rs = explore_quiet("tests/specs/structure_sorted.json", &sorted, c1);
    gen_result *rn = explore_quiet("tests/specs/structure_none.json", &none, c2);
    cr_expect_null(rs->unassumed);
    cr_expect_eq(rs->npaths, 1, "one feasible path: no pair out of order (%d paths)", rs->npaths);
    cr_expect_gt(rn->npaths, 1, "without the structure the loop's paths are feasible");
    cr_expect_lt(gen_result_coverage(rs), gen_result_coverage(rn));
    wh_launch l = wh_launch_threads((unsigned)rs->x);
    wh_error err;
    wh_image *img = wh_image_new(sorted, &l, &err);
    cr_assert(img, "%s", err.msg);
    cr_expect_gt(rs->pool.natoms, 0);
    for (int a = 0; a < rs->pool.natoms; a++) {
        gen_pool_atom_to_image(&rs->pool, a, img);
        cr_expect(sorted_buffer(img, 0), "atom %d is sorted", a);
    }
    wh_image_free(img);
    gen_result_free(rs);
    gen_result_free(rn);
    wh_spec_free(sorted);
    wh_spec_free(none);
    ts_rmtree(c1);
    ts_rmtree(c2);
}

/* cdf_search's CDF ends at 1 (its range ["(i+1)/NCDF", 1.0]): the stage
 * assumes each element's own range, so every atom it solves is a real
 * CDF: sorted, in [0, 1], its last entry 1. */
Test(structure, the_symbolic_stage_assumes_ranges_that_depend_on_i)
{
    wh_error err;
    wh_spec *spec = wh_spec_load("kernels/corpus/cdf_search.json", &err);
    cr_assert(spec, "%s", err.msg);
    /* Bounded by paths, not by time: a sanitized build explores several
     * times slower, and a short time budget then ends before any atom
     * (each of this CDF's atoms takes Z3 about 3 s: 512 sorted floats). */
    char cache[64];
    gen_explore_options o;
    gen_explore_options_default(&o);
    o.threads = 2;
    o.path_budget = 3;
    o.models = 1;
    o.time_s = 600;
    gen_result *r = ts_explore_with(spec, &o, cache);
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_image *img = wh_image_new(spec, &l, &err);
    cr_assert(img, "%s", err.msg);
    int cdf = wh_image_find(img, "CDF");
    uint64_t n = img->bufs[cdf].count;
    cr_expect_gt(r->pool.natoms, 0);
    for (int a = 0; a < r->pool.natoms; a++) {
        gen_pool_atom_to_image(&r->pool, a, img);
        const unsigned char *v = img->bufs[cdf].data;
        cr_expect_eq(wh_value_get_float(WH_F32, v + 4 * (n - 1)), 1.0, "atom %d ends at 1", a);
        cr_expect(wh_image_check_domains(img, &err), "atom %d: %s", a, err.msg);
    }
    wh_image_free(img);
    gen_result_free(r);
    wh_spec_free(spec);
    ts_rmtree(cache);
}

/* Whatever the strategy builds (tiled atoms, edits, random values), the
 * input it measures and keeps is sorted: best/ loads (its domains and
 * structure are checked) and is sorted element by element. */
Test(structure, every_strategy_keeps_the_structure)
{
    static const char *const strategies[] = { "gdivan", "random-ga", "random" };
    wh_error err;
    wh_spec *spec = wh_spec_load("tests/specs/structure_sorted.json", &err);
    cr_assert(spec, "%s", err.msg);
    for (int s = 0; s < 3; s++) {
        wh_image *img = ts_hunt_best(spec, strategies[s], "60");
        cr_expect(sorted_buffer(img, 0), "%s's best is sorted", strategies[s]);
        wh_image_free(img);
    }
    wh_spec_free(spec);
}

/* A structured buffer past SX_STRUCTURE_MAX elements is not assumed (one
 * constraint per element on every path): the stage says so, and explores
 * as if the buffer had no structure. */
Test(structure, a_large_structure_is_not_assumed_and_says_so)
{
    wh_spec *large;
    char cache[64];
    gen_result *r = explore_quiet("tests/specs/structure_large.json", &large, cache);
    cr_expect_str_eq(r->unassumed ? r->unassumed : "", "a");
    cr_expect_gt(r->npaths, 1, "the loop's paths are explored");
    gen_result_free(r);
    wh_spec_free(large);
    ts_rmtree(cache);
}

/* "neighbors" (a neighbour list: a thread's elements name distinct other
 * threads): refused without per_thread; the projection keeps each
 * thread's first use of a value that is not its own index and moves the
 * others to the nearest free index above (below at the range's top); the
 * check names an element that names its thread; grid-stride ownership
 * counts. */
Test(structure, a_neighbour_list_never_names_its_own_thread)
{
    expect_refused("\"type\":\"i32\",\"count\":8,\"role\":\"input\",\"range\":[0,3],\"structure\":\"neighbors\"",
                   "it needs \"per_thread\"", "$.params[0].structure");
    one_buffer b;
    wh_error err;
    cr_assert(open_buffer(&b, "\"type\":\"i32\",\"count\":8,\"role\":\"input\",\"per_thread\":2,\"owner\":\"stride\","
                              "\"range\":[0,3],\"structure\":\"neighbors\"", &err), "%s", err.msg);
    /* thread t owns t and t + 4 */
    const int64_t in[8] = { 0, 1, 1, 3, 0, 2, 2, 3 }, want[8] = { 1, 3, 1, 2, 2, 2, 3, 1 };
    set_all(&b, in, 8);
    cr_expect_not(wh_image_check_structure(b.img, 0, &err));
    cr_expect(strstr(err.msg, "element 0 (thread 0's element 0) names its own thread, 0"), "%s", err.msg);
    cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
    expect_values(&b, want, 8, "projected");
    cr_expect(wh_image_check_structure(b.img, 0, &err), "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 3, 9);
    for (int r = 0; r < 20; r++) {
        cr_assert(wh_image_fill_random(b.img, &rng, &err), "%s", err.msg);
        cr_expect(wh_image_check_structure(b.img, 0, &err), "random %d: %s", r, err.msg);
    }
    close_buffer(&b);
}

/* A thread's list names no thread twice: the check names the repeat and
 * the projection moves it; where the range holds fewer other threads than
 * the list is long (the symbolic stage's few threads), values repeat but
 * none is the thread's own. */
Test(structure, a_neighbour_list_names_each_thread_once)
{
    one_buffer b;
    wh_error err;
    cr_assert(open_buffer(&b, "\"type\":\"i32\",\"count\":12,\"role\":\"input\",\"per_thread\":3,"
                              "\"range\":[0,5],\"structure\":\"neighbors\"", &err), "%s", err.msg);
    /* thread t owns 3t .. 3t + 2 (4 threads) */
    const int64_t in[12] = { 1, 1, 5, 0, 3, 3, 5, 4, 4, 2, 1, 2 }, want[12] = { 1, 2, 5, 0, 3, 4, 5, 4, 3, 2, 1, 4 };
    set_all(&b, in, 12);
    cr_expect_not(wh_image_check_structure(b.img, 0, &err));
    cr_expect(strstr(err.msg, "element 1 (thread 0's element 1) names thread 1, as an earlier element"), "%s",
              err.msg);
    cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
    expect_values(&b, want, 12, "projected");
    cr_expect(wh_image_check_structure(b.img, 0, &err), "%s", err.msg);
    close_buffer(&b);
    cr_assert(open_buffer(&b, "\"type\":\"i32\",\"count\":12,\"role\":\"input\",\"per_thread\":3,"
                              "\"range\":[0,2],\"structure\":\"neighbors\"", &err), "%s", err.msg);
    const int64_t narrow[12] = { 1, 2, 0, 0, 2, 1, 0, 1, 2, 0, 1, 2 },
                  kept[12] = { 1, 2, 1, 0, 2, 2, 0, 1, 1, 0, 1, 2 };
    set_all(&b, narrow, 12);
    cr_expect_not(wh_image_check_structure(b.img, 0, &err));
    cr_expect(strstr(err.msg, "element 2 (thread 0's element 2) names its own thread, 0"), "%s", err.msg);
    cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
    expect_values(&b, kept, 12, "projected in a narrow range");
    cr_expect(wh_image_check_structure(b.img, 0, &err), "%s", err.msg);
    close_buffer(&b);
}

/* repeat_pair does extra work when a thread's two neighbours are the same
 * thread: with three threads explored each has two others, room for a
 * distinct list, so the stage assumes it (one path) and every atom lists
 * two distinct other threads. */
Test(structure, the_symbolic_stage_lists_each_neighbour_once)
{
    wh_spec *spec;
    char cache[64];
    gen_result *r = explore_quiet("tests/specs/structure_neighbors.json", &spec, cache);
    cr_expect_null(r->unassumed);
    cr_expect_eq(r->npaths, 1, "the repeated neighbour's leg is infeasible (%d paths)", r->npaths);
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_error err;
    wh_image *img = wh_image_new(spec, &l, &err);
    cr_assert(img, "%s", err.msg);
    cr_expect_gt(r->pool.natoms, 0);
    for (int a = 0; a < r->pool.natoms; a++) {
        gen_pool_atom_to_image(&r->pool, a, img);
        cr_expect(wh_image_check_structure(img, 0, &err), "atom %d: %s", a, err.msg);
    }
    wh_image_free(img);
    gen_result_free(r);
    wh_spec_free(spec);
    ts_rmtree(cache);
}

static bool atom_names_no_own_thread(const wh_image *img, int p, void *ctx, wh_error *err)
{
    (void)ctx;
    return wh_image_check_structure(img, p, err);
}

/* The symbolic stage assumes it: md_cutoff's atoms never list an atom as
 * its own neighbour (its solver would otherwise: a self-neighbour is at
 * distance 0, inside the cut-off whatever the positions). */
Test(structure, the_symbolic_stage_lists_no_atom_as_its_own_neighbour, .timeout = 240)
{
    ts_check_atoms("kernels/corpus/md_cutoff.json", "build/ptx/kernels/corpus/md_cutoff.ptx", 6, "neighList",
                   atom_names_no_own_thread, NULL);
}

/*
 * test_forest.c — parent arrays with no cycle ("structure": "forest"):
 * the projection cuts each cycle at one link and keeps a forest as it is,
 * the check names a cycle, the spec refuses a range past the elements,
 * random inputs are forests, and the symbolic stage's atoms are too;
 * refinement takes a shared forest element by element.
 */
#include <criterion/criterion.h>

#include "gen/internal.h"
#include "tests/support.h"

#include <string.h>

#define FOREST_SPEC "tests/specs/union_find_forest.json"
#define FOREST_PTX "build/ptx/kernels/holdout/union_find_roots.ptx"

/* Does every element of parent buffer p reach a root within count steps? */
static bool all_reach_roots(const wh_image *img, int p)
{
    uint64_t n = img->bufs[p].count;
    for (uint64_t v = 0; v < n; v++) {
        uint64_t u = v, steps = 0;
        while ((uint64_t)wh_image_int(img, p, u) != u && steps++ <= n) u = (uint64_t)wh_image_int(img, p, u);
        if (steps > n) return false;
    }
    return true;
}

/* 0 -> 1 -> 2 -> 0 is a cycle, 3 a root, 4 -> 3, 5 -> 4, 6 -> 7 -> 6 a
 * cycle of two; the rest roots.  The projection makes one element of
 * each cycle a root and leaves every other link. */
Test(forest, the_projection_cuts_each_cycle_at_one_link)
{
    wh_spec *spec;
    wh_image *img = ts_full_image(FOREST_SPEC, &spec);
    int p = wh_image_find(img, "parent");
    uint64_t n = img->bufs[p].count;
    cr_assert_geq(n, 8);
    static const int64_t links[8] = { 1, 2, 0, 3, 3, 4, 7, 6 };
    for (uint64_t v = 0; v < n; v++) wh_image_set_int(img, p, v, v < 8 ? links[v] : (int64_t)v);
    wh_error err;
    cr_expect(!wh_image_check_structure(img, p, &err), "a cycle is refused");
    cr_expect(strstr(err.msg, "parents lead back to it"), "%s", err.msg);
    cr_assert(wh_image_restructure(img, &err), "%s", err.msg);
    cr_expect(wh_image_check_structure(img, p, &err), "%s", err.msg);
    cr_expect(all_reach_roots(img, p));
    int changed = 0;
    for (uint64_t v = 0; v < 8; v++) changed += wh_image_int(img, p, v) != links[v];
    cr_expect_eq(changed, 2, "one link per cycle");
    cr_expect_eq(wh_image_int(img, p, 4), 3);
    cr_expect_eq(wh_image_int(img, p, 5), 4);
    /* a forest in no index order (a chain n-1 -> n-2 ... and 0 -> n-1) stays */
    for (uint64_t v = 0; v < n; v++) wh_image_set_int(img, p, v, v == 0 ? (int64_t)(n - 1) : (int64_t)v - (v > 1));
    cr_assert(wh_image_restructure(img, &err), "%s", err.msg);
    for (uint64_t v = 0; v < n; v++)
        cr_expect_eq(wh_image_int(img, p, v), v == 0 ? (int64_t)(n - 1) : (int64_t)v - (v > 1), "element %llu",
                     (unsigned long long)v);
    wh_image_free(img);
    wh_spec_free(spec);
}

Test(forest, random_inputs_are_forests)
{
    wh_spec *spec;
    wh_image *img = ts_full_image(FOREST_SPEC, &spec);
    int p = wh_image_find(img, "parent");
    wh_error err;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        pcg32 rng;
        pcg32_seed(&rng, seed, 3);
        cr_assert(wh_image_fill_random(img, &rng, &err), "%s", err.msg);
        cr_expect(all_reach_roots(img, p), "seed %llu", (unsigned long long)seed);
    }
    wh_image_free(img);
    wh_spec_free(spec);
}

Test(forest, a_range_past_the_elements_is_refused)
{
    char dir[64];
    wh_error err;
    wh_image *img = NULL;
    wh_spec *spec = ts_temp_spec_image("{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],"
                                       "\"params\":[{\"name\":\"parent\",\"kind\":\"buffer\",\"type\":\"i32\","
                                       "\"count\":8,\"role\":\"input\",\"range\":[0,8],\"structure\":\"forest\"}]}",
                                       dir, &img, &err);
    cr_expect(!img, "no image of a forest whose parents may name element 8 of 8");
    cr_expect(strstr(err.msg, "must lie within [0, 7]"), "%s", err.msg);
    wh_image_free(img);
    wh_spec_free(spec);
    ts_rmtree(dir);
    cr_expect_null(ts_temp_spec("{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],"
                                "\"params\":[{\"name\":\"parent\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,"
                                "\"role\":\"input\",\"structure\":\"forest\"}]}", dir, &err));
    cr_expect(strstr(err.msg, "needs a \"range\""), "%s", err.msg);
    ts_rmtree(dir);
}

static bool atom_is_forest(const wh_image *img, int p, void *ctx, wh_error *err)
{
    (void)ctx;
    return wh_image_check_structure(img, p, err);
}

/* union_find_roots's walks over 8 nodes at X = 2: the stage assumes the
 * forest (ranks), so no atom holds a cycle (whose walk would not end). */
Test(forest, the_symbolic_stages_atoms_are_forests, .timeout = 120)
{
    ts_check_atoms(FOREST_SPEC, FOREST_PTX, 8, "parent", atom_is_forest, NULL);
}

/* Refinement changes a shared forest one element at a time (its
 * projection only cuts cycles), as it does a tree. */
Test(forest, refinement_takes_a_shared_forest_element_by_element)
{
    wh_spec *spec;
    wh_image *img = ts_full_image(FOREST_SPEC, &spec);
    int p = wh_image_find(img, "parent");
    cr_expect(gen_shared_refinable(img, img, p));
    wh_image_free(img);
    wh_spec_free(spec);
}

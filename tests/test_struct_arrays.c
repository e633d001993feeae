/*
 * test_struct_arrays.c — arrays inside struct fields ("count" on a field):
 * laid out as C lays out `int keys[4]`, each element a field of its own
 * ("keys[0]" ...) with the field's range; mistakes refused with their
 * place; a kernel scanning a node's keys up to its count gets one path per
 * count from the symbolic stage and its search fills the whole node.
 */
#include <criterion/criterion.h>

#include "core/spec.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPEC "tests/specs/node_scan.json"

Test(struct_arrays, an_array_field_is_laid_out_as_c_does)
{
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    const wh_param *p = &s->params[0];
    cr_assert_eq(p->nfields, 1 + 4 + 1);
    cr_expect_str_eq(p->fields[0].name, "nkeys");
    for (int k = 0; k < 4; k++) {
        char name[16];
        snprintf(name, sizeof name, "keys[%d]", k);
        cr_expect_str_eq(p->fields[1 + k].name, name);
        cr_expect_eq(p->fields[1 + k].offset, 4 + 4 * (size_t)k);
        cr_expect(p->fields[1 + k].has_range, "each element keeps the field's range");
    }
    cr_expect_str_eq(p->fields[5].name, "leaf");
    cr_expect_eq(p->fields[5].offset, 20);
    cr_expect_eq(p->elem_size, 24, "sizeof(struct node): 21 bytes padded to 4");
    wh_spec_free(s);
}

static void expect_refused(const char *fields, const char *msg, const char *path)
{
    char json[1024], dir[64];
    bool scalar = strstr(fields, "value") != NULL;
    snprintf(json, sizeof json, "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],"
             "\"params\":[{\"name\":\"v\",\"kind\":\"%s\",\"type\":\"struct\",%s\"fields\":[%s]}]}",
             scalar ? "scalar" : "buffer", scalar ? "" : "\"count\":4,\"role\":\"input\",", fields);
    wh_error err;
    wh_spec *s = ts_temp_spec(json, dir, &err);
    cr_expect_null(s, "%s was accepted", fields);
    wh_spec_free(s);
    cr_expect(strstr(err.msg, msg), "%s: %s", fields, err.msg);
    cr_expect_str_eq(err.path, path, "%s", fields);
    ts_rmtree(dir);
}

Test(struct_arrays, mistakes_are_refused_with_their_place)
{
    expect_refused("{\"name\":\"a\",\"type\":\"i32\",\"count\":0}", "expected an integer from 1 to 4096",
                   "$.params[0].fields[0].count");
    expect_refused("{\"name\":\"a\",\"type\":\"i32\"},{\"name\":\"b\",\"type\":\"i32\",\"count\":\"n\"}",
                   "expected an integer from 1 to 4096", "$.params[0].fields[1].count");
    expect_refused("{\"name\":\"a\",\"type\":\"i32\",\"count\":4000},{\"name\":\"b\",\"type\":\"i32\",\"count\":100}",
                   "a struct of 4100 fields (array elements counted); at most 4096", "$.params[0]");
    expect_refused("{\"name\":\"a\",\"type\":\"i32\",\"count\":2,\"value\":1}",
                   "unknown key \"count\" (expected one of: name, type, value)", "$.params[0].fields[0]");
    expect_refused("{\"name\":\"a\",\"type\":\"i32\",\"count\":2},{\"name\":\"a\",\"type\":\"u8\"}",
                   "duplicate field \"a\"", "$.params[0].fields[1]");
}

/* The loop runs nkeys times over keys[]: one path per count (0..4) and
 * thread, every atom replayed on the sim; the search fills nodes. */
Test(struct_arrays, the_symbolic_stage_and_the_search_see_every_element)
{
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    char cache[64];
    gen_result *r = ts_explore(s, 20, cache);
    cr_expect_eq(r->npaths, 25, "5 counts x 5 counts for the two threads (%d paths)", r->npaths);
    cr_expect_eq(r->atoms_invalid, 0, "every atom follows its path on the sim");
    gen_result_free(r);
    ts_rmtree(cache);
    /* a warp runs as long as its fullest node: the best input has one in
     * every warp */
    wh_image *best = ts_hunt_best(s, "random-ga", "200");
    for (uint64_t w = 0; w < best->bufs[0].count / 32; w++) {
        bool full = false;
        for (uint64_t e = 32 * w; e < 32 * (w + 1); e++)
            full |= wh_value_get_int(WH_I32, best->bufs[0].data + e * s->params[0].elem_size) == 4;
        cr_expect(full, "warp %llu of the best input has a node with 4 keys", (unsigned long long)w);
    }
    wh_image_free(best);
    wh_spec_free(s);
}

#define SORTED_SPEC "tests/specs/node_scan_sorted.json"

static int64_t key(const wh_image *img, uint64_t e, int k)
{
    const wh_param *p = img->bufs[0].param;
    return wh_value_get_int(WH_I32, img->bufs[0].data + e * p->elem_size + p->fields[1 + k].offset);
}

static void expect_sorted_keys(const wh_image *img, const char *what)
{
    for (uint64_t e = 0; e < img->bufs[0].count; e++)
        for (int k = 1; k < 4; k++)
            cr_assert_lt(key(img, e, k - 1), key(img, e, k), "%s: node %llu keys[%d] %lld, keys[%d] %lld", what,
                         (unsigned long long)e, k - 1, (long long)key(img, e, k - 1), k, (long long)key(img, e, k));
}

/* "structure" on an array field orders the array within each element (a
 * b+tree node's keys): random and lowest images have it, a broken one is
 * refused with the element and the two fields, and the projection mends
 * it; "distinct" keeps each value's rank in its place. */
Test(struct_arrays, an_array_fields_structure_holds_within_each_element)
{
    wh_error err;
    wh_spec *s = wh_spec_load(SORTED_SPEC, &err);
    cr_assert(s, "%s", err.msg);
    const wh_param *p = &s->params[0];
    for (int f = 0; f < p->nfields; f++)
        cr_expect_eq(p->fields[f].structure, f >= 1 && f <= 4 ? WH_STRUCTURE_STRICTLY_SORTED : WH_STRUCTURE_NONE,
                     "%s", p->fields[f].name);
    cr_expect(wh_param_structured(p));
    wh_launch full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(img, "%s", err.msg);
    cr_assert(wh_image_fill_low(img, 0, &err), "%s", err.msg);
    expect_sorted_keys(img, "lowest");
    cr_expect_eq(key(img, 5, 3), 3, "the lowest strictly sorted keys are 0 1 2 3");
    pcg32 rng;
    pcg32_seed(&rng, 5, 1);
    cr_assert(wh_image_fill_random(img, &rng, &err), "%s", err.msg);
    expect_sorted_keys(img, "random");
    cr_assert(wh_image_check_domains(img, &err), "%s", err.msg);

    unsigned char *el = img->bufs[0].data + 3 * p->elem_size;
    wh_value_set_int(WH_I32, el + p->fields[3].offset, key(img, 3, 1));
    cr_expect_not(wh_image_check_structure(img, 0, &err));
    char want[160];
    snprintf(want, sizeof want, "element 3: keys[1] is %lld and keys[2] is %lld", (long long)key(img, 3, 1),
             (long long)key(img, 3, 1));
    cr_expect(strstr(err.msg, want), "%s", err.msg);
    cr_expect(strstr(err.msg, "array field \"keys\" (\"structure\": \"strictly_sorted\")"), "%s", err.msg);
    cr_expect_str_eq(err.path, "$.params[0].fields[1].structure");
    cr_assert(wh_image_restructure(img, &err), "%s", err.msg);
    expect_sorted_keys(img, "mended");
    wh_image_free(img);
    wh_spec_free(s);

    char dir[64];
    s = ts_temp_spec("{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],\"params\":[{"
                     "\"name\":\"v\",\"kind\":\"buffer\",\"type\":\"struct\",\"count\":4,\"role\":\"input\",\"fields\":[{"
                     "\"name\":\"a\",\"type\":\"i32\",\"count\":4,\"range\":[0,100],\"structure\":\"distinct\"}]}]}",
                     dir, &err);
    cr_assert(s, "%s", err.msg);
    full = wh_spec_launch_full(s);
    img = wh_image_new(s, &full, &err);
    cr_assert(img, "%s", err.msg);
    static const int32_t given[4] = { 5, 5, 1, 9 }, mended[4] = { 5, 6, 1, 9 };
    memcpy(img->bufs[0].data, given, sizeof given);
    cr_expect_not(wh_image_check_structure(img, 0, &err));
    cr_expect(strstr(err.msg, "element 0: a[0] is 5 and a[1] is 5"), "%s", err.msg);
    cr_assert(wh_image_restructure(img, &err), "%s", err.msg);
    cr_expect(!memcmp(img->bufs[0].data, mended, sizeof mended), "ranks kept: %d %d %d %d",
              ((int32_t *)img->bufs[0].data)[0], ((int32_t *)img->bufs[0].data)[1], ((int32_t *)img->bufs[0].data)[2],
              ((int32_t *)img->bufs[0].data)[3]);
    wh_image_free(img);
    wh_spec_free(s);
    ts_rmtree(dir);

    s = ts_temp_spec("{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],\"params\":[{"
                     "\"name\":\"v\",\"kind\":\"buffer\",\"type\":\"struct\",\"count\":4,\"role\":\"input\",\"fields\":[{"
                     "\"name\":\"a\",\"type\":\"i32\",\"count\":4,\"range\":[0,2],\"structure\":\"distinct\"}]}]}",
                     dir, &err);
    cr_assert(s, "%s", err.msg);
    full = wh_spec_launch_full(s);
    cr_expect_null(wh_image_new(s, &full, &err), "4 distinct values cannot come from a range of 3");
    cr_expect(strstr(err.msg, "the range has 3 values, fewer than the array's 4"), "%s", err.msg);
    wh_spec_free(s);
    ts_rmtree(dir);
}

Test(struct_arrays, an_array_structure_is_refused_where_it_cannot_hold)
{
    expect_refused("{\"name\":\"a\",\"type\":\"i32\"},{\"name\":\"b\",\"type\":\"i32\",\"count\":3,"
                   "\"structure\":\"permutation\"}",
                   "expected \"sorted\", \"strictly_sorted\" or \"distinct\"", "$.params[0].fields[1].structure");
    expect_refused("{\"name\":\"a\",\"type\":\"f32\",\"count\":3,\"structure\":\"sorted\"}",
                   "\"sorted\" is for integer fields", "$.params[0].fields[0].structure");
    expect_refused("{\"name\":\"a\",\"type\":\"i32\",\"count\":3,\"range\":[0,\"i\"],"
                   "\"structure\":\"distinct\"}",
                   "other than \"sorted\" needs a range that does not depend on i", "$.params[0].fields[0].structure");
    expect_refused("{\"name\":\"a\",\"type\":\"i32\",\"count\":3,\"structure\":\"offsets\"}",
                   "expected \"sorted\", \"strictly_sorted\" or \"distinct\"", "$.params[0].fields[0].structure");
}

/* Explores spec (20 s budget), expects npaths paths and no invalid atom,
 * and hands every atom, as an image of the explored X threads, to check. */
static void expect_atoms(wh_spec *s, int npaths, void (*check)(const wh_image *, int))
{
    wh_error err;
    char cache[64];
    gen_result *r = ts_explore(s, 20, cache);
    cr_expect_eq(r->npaths, npaths, "%d paths", r->npaths);
    cr_expect_eq(r->atoms_invalid, 0);
    cr_assert_gt(r->pool.natoms, npaths);
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    for (int a = 0; a < r->pool.natoms; a++) {
        gen_pool_atom_to_image(&r->pool, a, img);
        check(img, a);
    }
    wh_image_free(img);
    gen_result_free(r);
    ts_rmtree(cache);
}

static void atom_keys_sorted(const wh_image *img, int a)
{
    (void)a;
    expect_sorted_keys(img, "atom");
}

static void atom_counts_in_order(const wh_image *img, int a)
{
    size_t size = img->bufs[0].param->elem_size;
    for (uint64_t e = 1; e < img->bufs[0].count; e++)
        cr_assert_leq(wh_value_get_int(WH_I32, img->bufs[0].data + (e - 1) * size),
                      wh_value_get_int(WH_I32, img->bufs[0].data + e * size), "atom %d", a);
}

/* The symbolic stage assumes the order: every atom the solver gives has
 * each thread's keys strictly increasing before any projection, and the
 * paths (one per pair of counts) are all still there. */
Test(struct_arrays, the_symbolic_stage_solves_atoms_with_sorted_keys)
{
    wh_error err;
    wh_spec *s = wh_spec_load(SORTED_SPEC, &err);
    cr_assert(s, "%s", err.msg);
    expect_atoms(s, 25, atom_keys_sorted);
    wh_spec_free(s);
}

/* A struct field of one value with a structure is ordered across the
 * buffer's elements (records sorted by a key), the other fields left as
 * they are; the symbolic stage assumes it: of node_scan's 25 pairs of key
 * counts for two threads, the 15 with the first no larger than the second
 * are the paths, and every atom has them in order. */
Test(struct_arrays, a_fields_structure_orders_the_buffers_elements)
{
    wh_error err;
    wh_spec *s = wh_spec_load("tests/specs/node_scan_by_count.json", &err);
    cr_assert(s, "%s", err.msg);
    const wh_param *p = &s->params[0];
    wh_launch full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(img, "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 9, 1);
    cr_assert(wh_image_fill_random(img, &rng, &err), "%s", err.msg);
    int64_t leaves = 0;
    for (uint64_t e = 0; e < img->bufs[0].count; e++) {
        const unsigned char *el = img->bufs[0].data + e * p->elem_size;
        leaves += wh_value_get_int(WH_U8, el + p->fields[5].offset);
        if (e > 0)
            cr_assert_leq(wh_value_get_int(WH_I32, el - p->elem_size), wh_value_get_int(WH_I32, el), "node %llu",
                          (unsigned long long)e);
    }
    cr_expect(leaves > 16 && leaves < 112, "the other fields stay random: %lld leaves of 128", (long long)leaves);
    /* node 1 at 4 keys, node 2 at 0: out of order whatever was drawn */
    wh_value_set_int(WH_I32, img->bufs[0].data + 1 * p->elem_size, 4);
    wh_value_set_int(WH_I32, img->bufs[0].data + 2 * p->elem_size, 0);
    cr_expect_not(wh_image_check_structure(img, 0, &err));
    cr_expect(strstr(err.msg, "input \"nodes\", field \"nkeys\" (\"structure\": \"sorted\"): element 2 is below "
                              "element 1"), "%s", err.msg);
    cr_expect_str_eq(err.path, "$.params[0].fields[0].structure");
    wh_image_free(img);
    expect_atoms(s, 15, atom_counts_in_order);   /* the pairs of counts in order */
    wh_spec_free(s);
}

Test(struct_arrays, a_fields_structure_is_refused_where_it_cannot_hold)
{
    expect_refused("{\"name\":\"a\",\"type\":\"f32\",\"structure\":\"distinct\"}",
                   "\"distinct\" is for integer fields", "$.params[0].fields[0].structure");
    expect_refused("{\"name\":\"a\",\"type\":\"i32\",\"structure\":\"permutation\"}", "needs a \"range\"",
                   "$.params[0].fields[0].structure");
    expect_refused("{\"name\":\"s\",\"type\":\"i32\",\"range\":[0,64],\"prefix_sum_of\":\"n\"},"
                   "{\"name\":\"n\",\"type\":\"i32\",\"range\":[0,4],\"structure\":\"sorted\"}",
                   "a running sum and what it sums take no other \"structure\"", "$.params[0]");
}

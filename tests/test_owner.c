/*
 * test_owner.c — which elements a thread owns ("owner": contiguous,
 * stride, block_stride, warp_stride): the index and its inverse are one bijection, the
 * scaler puts each atom thread's elements where the owning full-launch
 * thread reads them, and warp-copy copies lane 0's own elements.
 */
#include <criterion/criterion.h>

#include "gen/gen.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char dir[64];
    wh_spec *spec;
} owned_spec;

/* A spec of one i32 input v of per_thread k with `owner`, grid g x block b. */
static void open_spec(owned_spec *o, const char *owner, int k, int g, int b)
{
    char json[1024];
    snprintf(json, sizeof json, "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[%d],\"block\":[%d],"
             "\"symbolic\":{\"threads\":[2]},\"params\":[{\"name\":\"v\",\"kind\":\"buffer\",\"type\":\"i32\","
             "\"count\":\"threads*%d\",\"role\":\"input\",\"per_thread\":%d,\"owner\":\"%s\","
             "\"range\":[0,100000]}]}", g, b, k, k, owner);
    wh_error err;
    o->spec = ts_temp_spec(json, o->dir, &err);
    cr_assert(o->spec, "%s", err.msg);
}

static void close_spec(owned_spec *o)
{
    wh_spec_free(o->spec);
    ts_rmtree(o->dir);
}

static int32_t at(const wh_image *img, uint64_t e)
{
    return (int32_t)wh_value_get_int(WH_I32, img->bufs[0].data + 4 * e);
}

static void put(wh_image *img, uint64_t e, int32_t v)
{
    wh_value_set_int(WH_I32, img->bufs[0].data + 4 * e, v);
}

Test(owner, the_index_and_its_inverse_are_one_bijection)
{
    static const char *const owners[] = { "contiguous", "stride", "block_stride", "warp_stride" };
    /* blocks of 4 threads, and of 48 (a warp and a half) for warp_stride */
    for (int o = 0; o < 5; o++)
        for (int k = 1; k <= 3; k++) {
            owned_spec s;
            int b = o < 4 ? 4 : 48;
            const char *owner = owners[o < 4 ? o : 3];
            open_spec(&s, owner, k, 3, b);
            const wh_param *p = &s.spec->params[0];
            wh_launch l = wh_spec_launch_full(s.spec);
            uint64_t threads = 3 * (uint64_t)b, n = threads * (uint64_t)k;
            bool *hit = calloc(n, 1);
            for (uint64_t t = 0; t < threads; t++)
                for (uint64_t j = 0; j < (uint64_t)k; j++) {
                    uint64_t e = wh_owned_elem(p, &l, t, j), jj;
                    cr_assert_lt(e, n, "%s k %d: thread %llu element %llu", owner, k, (unsigned long long)t,
                                 (unsigned long long)j);
                    cr_expect_not(hit[e], "%s: element %llu owned twice", owner, (unsigned long long)e);
                    hit[e] = true;
                    cr_expect_eq(wh_elem_owner(p, &l, e, &jj), t, "%s", owner);
                    cr_expect_eq(jj, j, "%s", owner);
                }
            free(hit);
            close_spec(&s);
        }
    owned_spec s;
    open_spec(&s, "stride", 2, 2, 4);
    wh_launch l = wh_spec_launch_full(s.spec);
    cr_expect_eq(wh_owned_elem(&s.spec->params[0], &l, 3, 1), 8 + 3, "a grid-stride loop: t, t + threads");
    close_spec(&s);
    open_spec(&s, "block_stride", 2, 2, 4);
    cr_expect_eq(wh_owned_elem(&s.spec->params[0], &l, 5, 1), 8 + 4 + 1, "block 1's second pass, thread 1 of it");
    close_spec(&s);
    /* blocks of 48: warp 0 of 32 lanes, warp 1 of 16; k = 2 */
    open_spec(&s, "warp_stride", 2, 2, 48);
    l = wh_spec_launch_full(s.spec);
    const wh_param *p = &s.spec->params[0];
    cr_expect_eq(wh_owned_elem(p, &l, 5, 1), 32 + 5, "lane 5's second element: one warp's width on");
    cr_expect_eq(wh_owned_elem(p, &l, 40, 0), 64 + 8, "warp 1 (16 lanes) starts past warp 0's 64 elements");
    cr_expect_eq(wh_owned_elem(p, &l, 40, 1), 64 + 16 + 8, "and its lanes interleave by 16");
    cr_expect_eq(wh_owned_elem(p, &l, 48 + 1, 1), 96 + 32 + 1, "block 1, lane 1");
    close_spec(&s);
}

/* Atoms of X = 2 threads owning elements {t, t + 2} (stride) tiled over 8
 * threads: full thread t's two elements (t and t + 8) are atom thread
 * t % 2's; with block_stride (blocks of 4) thread t's are its block's
 * t % 4 and 4 + t % 4. */
Test(owner, the_scaler_follows_the_owner)
{
    /* warp_stride over blocks of 4 (one warp of 4 lanes each) is block_stride */
    static const char *const owners[] = { "stride", "block_stride", "warp_stride" };
    for (int o = 0; o < 3; o++) {
        owned_spec s;
        open_spec(&s, owners[o], 2, 2, 4);
        wh_error err;
        gen_pool pool;
        cr_assert(gen_pool_init(&pool, s.spec, 2, &err), "%s", err.msg);
        wh_launch two = wh_launch_threads(2), full = wh_spec_launch_full(s.spec);
        wh_image *atom = wh_image_new(s.spec, &two, &err);
        cr_assert(atom, "%s", err.msg);
        for (uint64_t e = 0; e < 4; e++) put(atom, e, (int32_t)(10 + e));   /* thread e % 2, pass e / 2 */
        int a = gen_pool_add(&pool, atom, GEN_ATOM_PATH, 0, true, &err);
        cr_assert_geq(a, 0, "%s", err.msg);
        gen_layout lay;
        cr_assert(gen_layout_make(s.spec, &full, 2, &lay, &err), "%s", err.msg);
        int genes[4] = { a, a, a, a };
        wh_image *img = wh_image_new(s.spec, &full, &err);
        cr_assert(img, "%s", err.msg);
        cr_assert(gen_scale(&pool, &lay, genes, img, &err), "%s", err.msg);
        for (uint64_t t = 0; t < 8; t++)
            for (uint64_t j = 0; j < 2; j++) {
                uint64_t e = o == 0 ? j * 8 + t : t / 4 * 8 + j * 4 + t % 4;
                cr_expect_eq(at(img, e), 10 + j * 2 + t % 2, "%s: thread %llu pass %llu", owners[o],
                             (unsigned long long)t, (unsigned long long)j);
            }
        /* and back: the full image's genes are the atom's values */
        int back[4];
        cr_assert(gen_unscale(&pool, &lay, img, back, &err), "%s", err.msg);
        wh_image *again = wh_image_new(s.spec, &two, &err);
        gen_pool_atom_to_image(&pool, back[1], again);
        for (uint64_t e = 0; e < 4; e++) cr_expect_eq(at(again, e), 10 + e, "%s: unscaled element %llu", owners[o],
                                                      (unsigned long long)e);
        wh_image_free(again);
        wh_image_free(img);
        wh_image_free(atom);
        gen_pool_free(&pool);
        close_spec(&s);
    }
}

/* 64 threads owning {t, t + 64}: a warp-copy over element 5 gives every
 * lane of warp 0 lane 0's two elements (0 and 64) and leaves warp 1. */
Test(owner, warp_copy_copies_lane_0s_own_elements)
{
    owned_spec s;
    open_spec(&s, "stride", 2, 2, 32);
    wh_error err;
    wh_launch full = wh_spec_launch_full(s.spec);
    wh_image *img = wh_image_new(s.spec, &full, &err);
    cr_assert(img, "%s", err.msg);
    for (uint64_t e = 0; e < 128; e++) put(img, e, (int32_t)e);
    gen_edit ed = { GEN_EDIT_WARP_COPY, 0, 0, 5, 1, 0, 0, 0, 0 };
    cr_assert(gen_edit_apply(&ed, img, &err), "%s", err.msg);
    for (uint64_t t = 0; t < 64; t++) {
        cr_expect_eq(at(img, t), t < 32 ? 0 : (int32_t)t, "thread %llu's first element", (unsigned long long)t);
        cr_expect_eq(at(img, 64 + t), t < 32 ? 64 : (int32_t)(64 + t), "thread %llu's second element",
                     (unsigned long long)t);
    }
    wh_image_free(img);
    close_spec(&s);
}

Test(owner, owner_needs_per_thread)
{
    char dir[64];
    wh_error err;
    cr_expect_null(ts_temp_spec("{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],"
                                "\"params\":[{\"name\":\"v\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,"
                                "\"role\":\"input\",\"owner\":\"stride\"}]}", dir, &err));
    cr_expect(strstr(err.msg, "it needs \"per_thread\""), "%s", err.msg);
    cr_expect_str_eq(err.path, "$.params[0].owner");
    ts_rmtree(dir);
}

/* "per_warp": 2 over blocks of 48 threads (warps of 32 and 16 lanes):
 * warp w (numbered across blocks) owns 2w and 2w + 1 through its lane 0,
 * the other lanes own none; the scaler gives every warp's elements the
 * atom's warp's, whichever thread of a 3-thread tile is its lane 0. */
Test(owner, a_warp_owns_its_elements_through_lane_0)
{
    char dir[64];
    wh_error err;
    wh_spec *spec = ts_temp_spec("{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[2],\"block\":[48],"
                                 "\"params\":[{\"name\":\"v\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,"
                                 "\"role\":\"input\",\"per_warp\":2,\"range\":[0,1000]}]}", dir, &err);
    cr_assert(spec, "%s", err.msg);
    const wh_param *p = &spec->params[0];
    wh_launch full = wh_spec_launch_full(spec);
    cr_expect_eq(wh_owned_total(p, &full), 8);
    int hits = 0;
    for (uint64_t t = 0; t < 96; t++)
        for (uint64_t j = 0; j < 2; j++) {
            uint64_t e = wh_owned_elem(p, &full, t, j), jj, warp = t / 48 * 2 + t % 48 / 32;
            if (t % 48 % 32) {
                cr_expect_eq(e, UINT64_MAX, "thread %llu is no lane 0", (unsigned long long)t);
                continue;
            }
            hits++;
            cr_expect_eq(e, warp * 2 + j, "thread %llu element %llu", (unsigned long long)t, (unsigned long long)j);
            cr_expect_eq(wh_elem_owner(p, &full, e, &jj), t);
            cr_expect_eq(jj, j);
        }
    cr_expect_eq(hits, 8);
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, spec, 3, &err), "%s", err.msg);
    wh_launch three = wh_launch_threads(3);
    wh_image *atom = wh_image_new(spec, &three, &err), *img = wh_image_new(spec, &full, &err);
    cr_assert(atom && img, "%s", err.msg);
    put(atom, 0, 10);
    put(atom, 1, 11);
    int a = gen_pool_add(&pool, atom, GEN_ATOM_PATH, 0, true, &err), genes[64];
    cr_assert_geq(a, 0, "%s", err.msg);
    gen_layout lay;
    cr_assert(gen_layout_make(spec, &full, 3, &lay, &err), "%s", err.msg);
    for (int g = 0; g < lay.ngenes && g < 64; g++) genes[g] = g == lay.tiling_gene ? 0 : a;
    cr_assert(gen_scale(&pool, &lay, genes, img, &err), "%s", err.msg);
    for (uint64_t e = 0; e < 8; e++) cr_expect_eq(at(img, e), 10 + (int32_t)(e % 2), "element %llu", (unsigned long long)e);
    wh_image_free(img);
    wh_image_free(atom);
    gen_pool_free(&pool);
    wh_spec_free(spec);
    ts_rmtree(dir);
    cr_expect_null(ts_temp_spec("{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],"
                                "\"params\":[{\"name\":\"v\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,"
                                "\"role\":\"input\",\"per_warp\":1,\"owner\":\"stride\"}]}", dir, &err));
    cr_expect(strstr(err.msg, "\"per_warp\" elements are their warp's"), "%s", err.msg);
    ts_rmtree(dir);
}

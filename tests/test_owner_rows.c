/*
 * test_owner_rows.c — an owner by rows ("owner": { "rows": row pointer }):
 * thread t owns the entries of row t of a running sum of row lengths (CSR
 * columns), so who owns an element depends on the image.  The spec states
 * it and refuses what the scaler cannot keep, the image answers both ways,
 * the scaler, its inverse, thread atoms, warp tiling and warp-copy move
 * each row where its thread reads it, and the symbolic stage's pins (of
 * families and extension) count a row's symbols as its thread's.
 */
#include <criterion/criterion.h>

#include "gen/gen.h"
#include "symexec/internal.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* row_start (running sum of row_len, at most 3 a row), then cols owned by
 * rows; grid g x block b. */
static const char *rows_spec(char *json, size_t n, int g, int b, const char *owner)
{
    snprintf(json, n,
             "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[%d],\"block\":[%d],"
             "\"symbolic\":{\"threads\":[2]},\"params\":["
             "{\"name\":\"row_start\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads\",\"role\":\"input\","
             "\"per_thread\":1,\"range\":[0,\"3*threads\"],\"prefix_sum_of\":\"row_len\"},"
             "{\"name\":\"row_len\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads\",\"role\":\"input\","
             "\"per_thread\":1,\"range\":[0,3]},"
             "{\"name\":\"cols\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"3*threads\",\"role\":\"input\","
             "\"per_thread\":3,\"owner\":%s,\"range\":[0,1000]}]}",
             g, b, owner);
    return json;
}

/* The spec above, owned by row_start, in a directory of its own. */
typedef struct {
    char dir[64];
    wh_spec *spec;
} rows_fixture;

static rows_fixture open_rows(int g, int b)
{
    rows_fixture f;
    char json[2048];
    wh_error err;
    f.spec = ts_temp_spec(rows_spec(json, sizeof json, g, b, "{\"rows\":\"row_start\"}"), f.dir, &err);
    cr_assert(f.spec, "%s", err.msg);
    return f;
}

static void close_rows(rows_fixture *f)
{
    wh_spec_free(f->spec);
    ts_rmtree(f->dir);
}

static int32_t get(const wh_image *img, int p, uint64_t e)
{
    return (int32_t)wh_image_int(img, p, e);
}

/* An image of spec at `l` whose rows have the lengths `len` (n threads)
 * and whose cols hold 100*t + j at row t's entry j. */
static wh_image *rows_image(const wh_spec *spec, const wh_launch *l, const int *len, int n)
{
    wh_error err;
    wh_image *img = wh_image_new(spec, l, &err);
    cr_assert(img, "%s", err.msg);
    int64_t at = 0;
    for (int t = 0; t < n; t++) {
        wh_image_set_int(img, 1, (uint64_t)t, len[t]);
        wh_image_set_int(img, 0, (uint64_t)t, at);
        for (int j = 0; j < len[t]; j++) wh_image_set_int(img, 2, (uint64_t)(at + j), 100 * t + j);
        at += len[t];
    }
    return img;
}

/* Thread t of img (8 threads) holds the row of thread t % period of a
 * rows_image with lengths len: its length, and 100 * (t % period) + j at
 * its entry j, where img's row pointer puts it. */
static void expect_tiled_rows(const wh_image *img, const int *len, uint64_t period)
{
    for (uint64_t t = 0; t < 8; t++) {
        cr_expect_eq(get(img, 1, t), len[t % period], "thread %llu's row length", (unsigned long long)t);
        for (int j = 0; j < len[t % period]; j++)
            cr_expect_eq(get(img, 2, (uint64_t)get(img, 0, t) + (uint64_t)j), (int32_t)(100 * (t % period)) + j,
                         "thread %llu entry %d", (unsigned long long)t, j);
    }
}

Test(owner_rows, the_spec_states_it_and_refuses_what_the_scaler_cannot_keep)
{
    rows_fixture f = open_rows(1, 4);
    cr_expect_eq(f.spec->params[2].owner, WH_OWNER_ROWS);
    cr_expect_eq(f.spec->params[2].owner_rows, 1);
    close_rows(&f);
    char json[2048], dir[64];
    wh_error err;
    static const struct {
        const char *owner, *msg;
    } bad[] = {
        { "{\"rows\":\"row_len\"}", "\"row_len\" is not a running sum of row lengths" },
        { "{\"rows\":\"nope\"}", "no parameter or global \"nope\"" },
        { "{\"row\":\"row_start\"}", "unknown key \"row\" (expected one of: rows)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_expect_null(ts_temp_spec(rows_spec(json, sizeof json, 1, 4, bad[i].owner), dir, &err), "%s", bad[i].owner);
        cr_expect(strstr(err.msg, bad[i].msg), "%s: %s", bad[i].owner, err.msg);
        cr_expect(!strncmp(err.path, "$.params[2].owner", 17), "%s: at %s", bad[i].owner, err.path);
        ts_rmtree(dir);
    }
}

Test(owner_rows, the_image_says_who_owns_each_entry)
{
    rows_fixture f = open_rows(1, 4);
    wh_spec *spec = f.spec;
    wh_launch full = wh_spec_launch_full(spec);
    static const int len[4] = { 2, 0, 3, 1 };   /* rows [0, 2), [2, 2), [2, 5), [5, 6) */
    wh_image *img = rows_image(spec, &full, len, 4);
    static const uint64_t owner[12] = { 0, 0, 2, 2, 2, 3, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
                                        UINT64_MAX, UINT64_MAX };
    static const uint64_t place[6] = { 0, 1, 0, 1, 2, 0 };
    for (uint64_t e = 0; e < 12; e++) {
        uint64_t j, t = wh_image_elem_owner(img, 2, e, &j);
        cr_expect_eq(t, owner[e], "owner of entry %llu", (unsigned long long)e);
        if (e < 6) cr_expect_eq(j, place[e], "place of entry %llu", (unsigned long long)e);
    }
    for (uint64_t t = 0; t < 4; t++)
        for (uint64_t j = 0; j < 3; j++) {
            uint64_t want = j < (uint64_t)len[t] ? (uint64_t)get(img, 0, t) + j : UINT64_MAX;
            cr_expect_eq(wh_image_owned_elem(img, 2, t, j), want, "thread %llu entry %llu", (unsigned long long)t,
                         (unsigned long long)j);
        }
    wh_image_free(img);
    close_rows(&f);
}

/* Atom of 2 threads with rows of 2 and 3 entries, tiled over 8 threads:
 * every thread's row holds its atom thread's entries (a contiguous owner
 * would put thread 1's at 3..5, where thread 1 reads 2..4), the entries
 * past the rows stay at the low end, and the inverse and a thread atom
 * give the rows back. */
Test(owner_rows, the_scaler_puts_each_atom_row_where_its_thread_reads_it)
{
    rows_fixture f = open_rows(2, 4);
    wh_spec *spec = f.spec;
    wh_error err;
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, spec, 2, &err), "%s", err.msg);
    wh_launch two = wh_launch_threads(2), full = wh_spec_launch_full(spec);
    static const int len[2] = { 2, 3 };
    wh_image *atom = rows_image(spec, &two, len, 2);
    int a = gen_pool_add(&pool, atom, GEN_ATOM_PATH, 0, true, &err);
    cr_assert_geq(a, 0, "%s", err.msg);
    gen_layout lay;
    cr_assert(gen_layout_make(spec, &full, 2, &lay, &err), "%s", err.msg);
    int genes[4] = { a, a, a, a };
    wh_image *img = wh_image_new(spec, &full, &err);
    cr_assert(img, "%s", err.msg);
    for (uint64_t e = 0; e < 24; e++) wh_image_set_int(img, 2, e, 999);   /* a stale input */
    cr_assert(gen_scale(&pool, &lay, genes, img, &err), "%s", err.msg);
    for (uint64_t t = 0; t < 8; t++)
        cr_expect_eq(get(img, 0, t), (int32_t)(t / 2 * 5 + (t % 2) * 2), "thread %llu's row start",
                     (unsigned long long)t);
    expect_tiled_rows(img, len, 2);
    for (uint64_t e = 20; e < 24; e++) cr_expect_eq(get(img, 2, e), 0, "entry %llu past the rows", (unsigned long long)e);
    int back[4];
    cr_assert(gen_unscale(&pool, &lay, img, back, &err), "%s", err.msg);
    wh_image *again = wh_image_new(spec, &two, &err);
    cr_assert(again, "%s", err.msg);
    gen_pool_atom_to_image(&pool, back[3], again);
    for (uint64_t e = 0; e < 5; e++)
        cr_expect_eq(get(again, 2, e), get(atom, 2, e), "unscaled entry %llu", (unsigned long long)e);
    int one = gen_thread_atom(&pool, &lay, img, 5, &err);   /* thread 5 holds atom thread 1's row */
    cr_assert_geq(one, 0, "%s", err.msg);
    gen_pool_atom_to_image(&pool, one, again);
    for (uint64_t t = 0; t < 2; t++)
        for (uint64_t j = 0; j < 3; j++)
            cr_expect_eq(get(again, 2, t * 3 + j), (int32_t)(100 + j), "thread atom: thread %llu entry %llu",
                         (unsigned long long)t, (unsigned long long)j);
    wh_image_free(again);
    wh_image_free(img);
    wh_image_free(atom);
    gen_pool_free(&pool);
    close_rows(&f);
}

/* 64 threads, lane 0 of each warp with a row of 3: a warp-copy over one
 * of warp 0's entries gives every lane of warp 0 lane 0's entries, as far
 * as its own row goes, and leaves warp 1. */
Test(owner_rows, warp_copy_copies_lane_0s_row)
{
    rows_fixture f = open_rows(2, 32);
    wh_spec *spec = f.spec;
    wh_error err;
    wh_launch full = wh_spec_launch_full(spec);
    int len[64];
    for (int t = 0; t < 64; t++) len[t] = t % 32 ? 1 + t % 3 : 3;
    wh_image *img = rows_image(spec, &full, len, 64);
    gen_edit ed = { GEN_EDIT_WARP_COPY, 2, 0, 4, 1, 0, 0, 0, 0 };   /* entry 4: thread 1's */
    cr_assert(gen_edit_apply(&ed, img, &err), "%s", err.msg);
    for (uint64_t t = 0; t < 64; t++)
        for (int j = 0; j < len[t]; j++) {
            int32_t want = t < 32 ? j : (int32_t)(100 * t) + j;
            cr_expect_eq(get(img, 2, (uint64_t)get(img, 0, t) + (uint64_t)j), want, "thread %llu entry %d",
                         (unsigned long long)t, j);
        }
    wh_image_free(img);
    close_rows(&f);
}

/* Warp-first composition lays a 4-thread cell over 8 threads: the row
 * lengths tile, and each thread's row takes its cell thread's entries
 * where the rebuilt row pointer puts it. */
Test(owner_rows, warp_tiling_puts_each_cell_row_where_its_thread_reads_it)
{
    rows_fixture f = open_rows(2, 4);
    wh_spec *spec = f.spec;
    wh_error err;
    wh_launch four = wh_launch_threads(4), full = wh_spec_launch_full(spec);
    static const int len[4] = { 3, 0, 1, 2 };
    wh_image *cell = rows_image(spec, &four, len, 4), *img = wh_image_new(spec, &full, &err);
    cr_assert(img, "%s", err.msg);
    cr_assert(gen_warp_tile(cell, img, &err), "%s", err.msg);
    expect_tiled_rows(img, len, 4);
    wh_image_free(cell);
    wh_image_free(img);
    close_rows(&f);
}

/* edit_distance's candidates at X = 2 with lengths 3 and 4: entries 0-2
 * are thread 0's symbols, 3-6 thread 1's, the rest nobody's (a contiguous
 * owner of 16 would give 0-15 to thread 0). */
Test(owner_rows, the_symbolic_stage_gives_a_rows_symbols_to_its_thread)
{
    ts_need_ptx("build/ptx/kernels/holdout/edit_distance.ptx");
    wh_error err;
    wh_spec *spec = wh_spec_load("kernels/holdout/edit_distance.json", &err);
    cr_assert(spec, "%s", err.msg);
    char ptx[1024];
    cr_assert(wh_spec_ptx_path(spec, ptx, sizeof ptx, &err), "%s", err.msg);
    ptx_module *mod = ptx_parse_file(ptx, &err);
    cr_assert(mod, "%s", err.msg);
    sx_options o;
    sx_options_default(&o);
    o.threads = 2;
    o.time_budget_s = 0.2;
    sx_result *res = sx_explore(spec, mod, &o, &err);
    cr_assert(res, "%s", err.msg);
    sx_engine *e = res->priv;
    wh_image *in = wh_image_clone(e->img, &err);
    cr_assert(in, "%s", err.msg);
    int cands = wh_image_find(in, "cands"), offsets = wh_image_find(in, "offsets"), lengths = wh_image_find(in, "lengths");
    wh_image_set_int(in, lengths, 0, 3);
    wh_image_set_int(in, lengths, 1, 4);
    wh_image_set_int(in, offsets, 1, 3);
    int seen = 0;
    for (int i = 0; i < e->nsyms; i++) {
        const sx_symbol *s = &e->syms[i];
        if (s->param != cands) continue;
        int want = s->elem < 3 ? 0 : s->elem < 7 ? 1 : -1;
        cr_expect_eq(sx_symbol_owner(e, s, in), want, "%s", s->name);
        seen++;
    }
    cr_expect_eq(seen, 32, "a symbol per candidate entry");
    wh_image_free(in);
    sx_result_free(res);
    ptx_module_free(mod);
    wh_spec_free(spec);
}

/* sssp_relax's edges and weights are owned by rows: the scaled input does
 * not depend on what the image held before (the entries past the rows are
 * set to their low end, not left as they were). */
Test(owner_rows, the_scaled_input_does_not_depend_on_the_image_before)
{
    wh_error err;
    wh_spec *spec = wh_spec_load("kernels/corpus/sssp_relax.json", &err);
    cr_assert(spec, "%s", err.msg);
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, spec, 2, &err), "%s", err.msg);
    wh_launch two = wh_launch_threads(2), full = wh_spec_launch_full(spec);
    wh_image *atom = wh_image_new(spec, &two, &err), *stale = wh_image_new(spec, &full, &err),
             *fresh = wh_image_new(spec, &full, &err);
    cr_assert(atom && stale && fresh, "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 11, 5);
    cr_assert(wh_image_fill_random(atom, &rng, &err) && wh_image_fill_random(stale, &rng, &err), "%s", err.msg);
    int a = gen_pool_add(&pool, atom, GEN_ATOM_PATH, 0, true, &err);
    cr_assert_geq(a, 0, "%s", err.msg);
    gen_layout lay;
    cr_assert(gen_layout_make(spec, &full, 2, &lay, &err), "%s", err.msg);
    int *genes = malloc((size_t)lay.ngenes * sizeof *genes);
    cr_assert(genes);
    for (int g = 0; g < lay.ngenes; g++) genes[g] = a;
    cr_assert(gen_scale(&pool, &lay, genes, stale, &err) && gen_scale(&pool, &lay, genes, fresh, &err), "%s", err.msg);
    for (int p = 0; p < fresh->nbufs; p++)
        if (spec->params[p].role == WH_ROLE_INPUT)
            cr_expect(!memcmp(stale->bufs[p].data, fresh->bufs[p].data, fresh->bufs[p].bytes), "%s differs",
                      spec->params[p].name);
    free(genes);
    wh_image_free(atom);
    wh_image_free(stale);
    wh_image_free(fresh);
    gen_pool_free(&pool);
    wh_spec_free(spec);
}

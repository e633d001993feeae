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
        { "{\"row\":\"row_start\"}", "unknown key \"row\" (expected one of: rows, by, through)" },
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

/* A pool of 2-thread atoms holding `atom`, and the full launch's layout
 * (with a tiling gene) with every tile that atom, plain tiling; scaled into img (whose
 * buffers the caller may fill first) by scaled_run. */
typedef struct {
    gen_pool pool;
    gen_layout lay;
    int *genes, *back;
    wh_image *img;
} scaling;

static scaling scaling_of(const wh_spec *spec, const wh_image *atom)
{
    scaling s;
    wh_error err;
    wh_launch full = wh_spec_launch_full(spec);
    cr_assert(gen_pool_init(&s.pool, spec, 2, &err), "%s", err.msg);
    int a = gen_pool_add(&s.pool, atom, GEN_ATOM_PATH, 0, true, &err);
    cr_assert_geq(a, 0, "%s", err.msg);
    cr_assert(gen_layout_make(spec, &full, 2, &s.lay, &err), "%s", err.msg);
    s.img = wh_image_new(spec, &full, &err);
    cr_assert(s.img, "%s", err.msg);
    cr_assert_geq(gen_layout_add_tiling(&s.lay, s.img, &err), 0, "%s", err.msg);
    s.genes = malloc((size_t)s.lay.ngenes * sizeof *s.genes);
    s.back = malloc((size_t)s.lay.ngenes * sizeof *s.back);
    cr_assert(s.genes && s.back);
    for (int g = 0; g < s.lay.ngenes; g++) s.genes[g] = g == s.lay.tiling_gene ? 0 : a;
    return s;
}

/* Scales the genes into img, then reads img back into s->back's atoms. */
static void scaled_run(scaling *s)
{
    wh_error err;
    cr_assert(gen_scale(&s->pool, &s->lay, s->genes, s->img, &err), "%s", err.msg);
    cr_assert(gen_unscale(&s->pool, &s->lay, s->img, s->back, &err), "%s", err.msg);
}

static void scaling_free(scaling *s)
{
    free(s->genes);
    free(s->back);
    wh_image_free(s->img);
    gen_pool_free(&s->pool);
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
    wh_launch two = wh_launch_threads(2);
    static const int len[2] = { 2, 3 };
    wh_image *atom = rows_image(spec, &two, len, 2);
    scaling sc = scaling_of(spec, atom);
    wh_image *img = sc.img;
    for (uint64_t e = 0; e < 24; e++) wh_image_set_int(img, 2, e, 999);   /* a stale input */
    scaled_run(&sc);
    for (uint64_t t = 0; t < 8; t++)
        cr_expect_eq(get(img, 0, t), (int32_t)(t / 2 * 5 + (t % 2) * 2), "thread %llu's row start",
                     (unsigned long long)t);
    expect_tiled_rows(img, len, 2);
    for (uint64_t e = 20; e < 24; e++) cr_expect_eq(get(img, 2, e), 0, "entry %llu past the rows", (unsigned long long)e);
    wh_image *again = wh_image_new(spec, &two, &err);
    cr_assert(again, "%s", err.msg);
    gen_pool_atom_to_image(&sc.pool, sc.back[3], again);
    for (uint64_t e = 0; e < 5; e++)
        cr_expect_eq(get(again, 2, e), get(atom, 2, e), "unscaled entry %llu", (unsigned long long)e);
    int one = gen_thread_atom(&sc.pool, &sc.lay, img, 5, &err);   /* thread 5 holds atom thread 1's row */
    cr_assert_geq(one, 0, "%s", err.msg);
    gen_pool_atom_to_image(&sc.pool, one, again);
    for (uint64_t t = 0; t < 2; t++)
        for (uint64_t j = 0; j < 3; j++)
            cr_expect_eq(get(again, 2, t * 3 + j), (int32_t)(100 + j), "thread atom: thread %llu entry %llu",
                         (unsigned long long)t, (unsigned long long)j);
    wh_image_free(again);
    wh_image_free(atom);
    scaling_free(&sc);
    close_rows(&f);
}

/* Stride tiling (stride 2^(2-1) = 2) shifts tile g's columns by 2g but not
 * its row lengths (in [0, 3]: shifted, they would wrap), which place
 * them: every row keeps its atom thread's length and entries. */
Test(owner_rows, stride_tiling_shifts_the_columns_not_the_lengths_that_place_them)
{
    rows_fixture f = open_rows(2, 4);
    wh_launch two = wh_launch_threads(2);
    static const int len[2] = { 2, 3 };
    wh_image *atom = rows_image(f.spec, &two, len, 2);
    scaling sc = scaling_of(f.spec, atom);
    cr_assert_geq(sc.lay.tiling_gene, 0, "a tiling gene");
    sc.genes[sc.lay.tiling_gene] = 2;
    scaled_run(&sc);
    for (uint64_t t = 0; t < 8; t++) {
        cr_expect_eq(get(sc.img, 1, t), len[t % 2], "thread %llu's row length", (unsigned long long)t);
        for (int j = 0; j < len[t % 2]; j++)
            cr_expect_eq(get(sc.img, 2, (uint64_t)get(sc.img, 0, t) + (uint64_t)j),
                         (int32_t)(100 * (t % 2) + (uint64_t)j + 2 * (t / 2)), "thread %llu entry %d",
                         (unsigned long long)t, j);
    }
    wh_image_free(atom);
    scaling_free(&sc);
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

/* A short symbolic run of a bundled kernel at X threads, and a copy of
 * its input image to set rows in. */
typedef struct {
    wh_spec *spec;
    ptx_module *mod;
    sx_result *res;
    sx_engine *e;
    wh_image *in;
} explored;

static explored explore(const char *spec_path, const char *ptx_path, int threads)
{
    ts_need_ptx(ptx_path);
    explored x;
    wh_error err;
    x.spec = wh_spec_load(spec_path, &err);
    cr_assert(x.spec, "%s", err.msg);
    char ptx[1024];
    cr_assert(wh_spec_ptx_path(x.spec, ptx, sizeof ptx, &err), "%s", err.msg);
    x.mod = ptx_parse_file(ptx, &err);
    cr_assert(x.mod, "%s", err.msg);
    sx_options o;
    sx_options_default(&o);
    o.threads = threads;
    o.time_budget_s = 0.2;
    x.res = sx_explore(x.spec, x.mod, &o, &err);
    cr_assert(x.res, "%s", err.msg);
    x.e = x.res->priv;
    x.in = wh_image_clone(x.e->img, &err);
    cr_assert(x.in, "%s", err.msg);
    return x;
}

static void explored_free(explored *x)
{
    wh_image_free(x->in);
    sx_result_free(x->res);
    ptx_module_free(x->mod);
    wh_spec_free(x->spec);
}

/* edit_distance's candidates at X = 2 with lengths 3 and 4: entries 0-2
 * are thread 0's symbols, 3-6 thread 1's, the rest nobody's (a contiguous
 * owner of 16 would give 0-15 to thread 0). */
Test(owner_rows, the_symbolic_stage_gives_a_rows_symbols_to_its_thread)
{
    explored x = explore("kernels/holdout/edit_distance.json", "build/ptx/kernels/holdout/edit_distance.ptx", 2);
    sx_engine *e = x.e;
    wh_image *in = x.in;
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
    explored_free(&x);
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

/* By warp: row_start (a running sum of row_len, at most 64 a row) with a
 * row per warp, cols owned by its rows by warp, 2 entries a lane; grid g
 * x block b.  `rows_own`: how the row pointer and lengths are owned. */
static const char *warp_rows_spec(char *json, size_t n, int g, int b, const char *rows_own, const char *by)
{
    snprintf(json, n,
             "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[%d],\"block\":[%d],"
             "\"constants\":{\"R\":\"(threads+31)/32\"},\"symbolic\":{\"threads\":[2]},\"params\":["
             "{\"name\":\"row_start\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"R\",\"role\":\"input\","
             "%s,\"range\":[0,\"64*R\"],\"prefix_sum_of\":\"row_len\"},"
             "{\"name\":\"row_len\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"R\",\"role\":\"input\","
             "%s,\"range\":[0,64]},"
             "{\"name\":\"cols\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"64*R\",\"role\":\"input\","
             "\"per_thread\":2,\"owner\":{\"rows\":\"row_start\",\"by\":\"%s\"},\"range\":[0,1000]}]}",
             g, b, rows_own, rows_own, by);
    return json;
}

static rows_fixture open_warp_rows(int g, int b)
{
    rows_fixture f;
    char json[2048];
    wh_error err;
    f.spec = ts_temp_spec(warp_rows_spec(json, sizeof json, g, b, "\"per_warp\":1", "warp"), f.dir, &err);
    cr_assert(f.spec, "%s", err.msg);
    return f;
}

/* An image whose warps' rows have the lengths `len` (n rows) and whose
 * cols hold 100*r + k at row r's entry k. */
static wh_image *warp_rows_image(const wh_spec *spec, const wh_launch *l, const int *len, int n)
{
    wh_error err;
    wh_image *img = wh_image_new(spec, l, &err);
    cr_assert(img, "%s", err.msg);
    int64_t at = 0;
    for (int r = 0; r < n; r++) {
        wh_image_set_int(img, 1, (uint64_t)r, len[r]);
        wh_image_set_int(img, 0, (uint64_t)r, at);
        for (int k = 0; k < len[r]; k++) wh_image_set_int(img, 2, (uint64_t)(at + k), 100 * r + k);
        at += len[r];
    }
    return img;
}

Test(owner_rows, by_warp_the_spec_states_it_and_refuses_what_it_cannot_keep)
{
    rows_fixture f = open_warp_rows(1, 64);
    cr_expect_eq(f.spec->params[2].owner, WH_OWNER_ROWS);
    cr_expect(f.spec->params[2].rows_by_warp);
    close_rows(&f);
    char json[2048], dir[64];
    wh_error err;
    static const struct {
        const char *rows_own, *by, *msg, *path;
    } bad[] = {
        { "\"per_warp\":1", "lane", "expected \"thread\" (thread t owns row t) or \"warp\"", "$.params[2].owner.by" },
        { "\"per_thread\":1", "warp", "warp w owns row w: the row pointer \"row_start\" and its lengths \"row_len\" "
          "need \"per_warp\": 1", "$.params[2].owner.rows" },
        { "\"per_warp\":1", "thread", "thread t owns row t: the row pointer \"row_start\" and its lengths "
          "\"row_len\" need \"per_thread\": 1", "$.params[2].owner.rows" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_expect_null(ts_temp_spec(warp_rows_spec(json, sizeof json, 1, 64, bad[i].rows_own, bad[i].by), dir, &err),
                       "%s", bad[i].by);
        cr_expect(strstr(err.msg, bad[i].msg), "%s: %s", bad[i].by, err.msg);
        cr_expect_str_eq(err.path, bad[i].path, "%s", bad[i].by);
        ts_rmtree(dir);
    }
}

/* Two warps, rows of 40 and 12 entries: lane l of warp 0 owns row 0's
 * entries l and l + 32, warp 1's lanes 0-11 one entry each; with a block
 * of 40 (a warp of 32 and one of 8) row 1's entries 8 and up are
 * nobody's. */
Test(owner_rows, by_warp_the_image_says_who_owns_each_entry)
{
    static const int len[2] = { 40, 12 };
    for (int b = 64; b >= 40; b -= 24) {
        rows_fixture f = open_warp_rows(1, b);
        wh_launch full = wh_spec_launch_full(f.spec);
        wh_image *img = warp_rows_image(f.spec, &full, len, 2);
        for (uint64_t e = 0; e < 128; e++) {
            uint64_t j, t = wh_image_elem_owner(img, 2, e, &j), lane1 = e - 40;
            uint64_t want = e < 40 ? e % 32 : e < 52 && lane1 < (uint64_t)b - 32 ? 32 + lane1 : UINT64_MAX;
            uint64_t wj = e < 40 ? e / 32 : 0;
            cr_expect_eq(t, want, "block %d: owner of entry %llu", b, (unsigned long long)e);
            if (want != UINT64_MAX) cr_expect_eq(j, wj, "block %d: place of entry %llu", b, (unsigned long long)e);
            if (want != UINT64_MAX) cr_expect_eq(wh_image_owned_elem(img, 2, want, wj), e, "block %d: entry %llu",
                                                 b, (unsigned long long)e);
        }
        cr_expect_eq(wh_image_owned_elem(img, 2, 8, 1), UINT64_MAX, "lane 8's second entry is past row 0");
        cr_expect_eq(wh_image_owned_elem(img, 2, 44, 0), UINT64_MAX, "no lane 12 of warp 1 in row 1");
        wh_image_free(img);
        close_rows(&f);
    }
}

/* An atom of 2 lanes with a row of 34 (lane 0 owns entries 0 and 32,
 * lane 1 entries 1 and 33) tiled over 2 warps: each warp's row is 34
 * long, and its lane l's entries are atom lane l % 2's; the inverse gives
 * the atom back. */
Test(owner_rows, by_warp_the_scaler_puts_each_atom_lane_where_its_lane_reads)
{
    rows_fixture f = open_warp_rows(1, 64);
    wh_spec *spec = f.spec;
    wh_error err;
    wh_launch two = wh_launch_threads(2);
    static const int len[1] = { 34 };
    wh_image *atom = warp_rows_image(spec, &two, len, 1);
    scaling sc = scaling_of(spec, atom);
    wh_image *img = sc.img;
    scaled_run(&sc);
    for (uint64_t r = 0; r < 2; r++) {
        cr_expect_eq(get(img, 1, r), 34, "row %llu's length", (unsigned long long)r);
        cr_expect_eq(get(img, 0, r), (int32_t)(34 * r), "row %llu's start", (unsigned long long)r);
        for (uint64_t k = 0; k < 34; k++)
            cr_expect_eq(get(img, 2, 34 * r + k), (int32_t)(k % 2 + 32 * (k / 32)), "row %llu entry %llu",
                         (unsigned long long)r, (unsigned long long)k);
    }
    wh_image *again = wh_image_new(spec, &two, &err);
    cr_assert(again, "%s", err.msg);
    gen_pool_atom_to_image(&sc.pool, sc.back[16], again);   /* threads 32-33: lanes 0-1 of warp 1 */
    cr_expect_eq(get(again, 1, 0), 34, "unscaled row length");
    for (uint64_t e = 0; e < 34; e += 32)
        for (uint64_t l = 0; l < 2; l++)
            cr_expect_eq(get(again, 2, e + l), get(atom, 2, e + l), "unscaled entry %llu", (unsigned long long)(e + l));
    /* lanes 2-3 of warp 1: their warp's row length (from its lane 0), and
     * one entry each (offsets 2 and 3 hold atom lanes 0 and 1's first) */
    gen_pool_atom_to_image(&sc.pool, sc.back[17], again);
    cr_expect_eq(get(again, 1, 0), 34, "a tile inside a warp takes its warp's row length");
    for (uint64_t e = 0; e < 34; e++)
        cr_expect_eq(get(again, 2, e), e < 2 ? (int32_t)e : 0, "lanes 2-3: unscaled entry %llu",
                     (unsigned long long)e);
    wh_image_free(again);
    wh_image_free(atom);
    scaling_free(&sc);
    close_rows(&f);
}

/* spmv_vector at X = 3 (one warp of 3 lanes) with a row of 40: lane l
 * reads entries l and l + 32, so those are its symbols; entries 3-31 and
 * 35-39 are nobody's (a warp_stride owner would give lane l entries l,
 * l + 3, ...). */
Test(owner_rows, by_warp_the_symbolic_stage_gives_a_rows_symbols_to_its_lane)
{
    explored x = explore("kernels/corpus/spmv_vector.json", "build/ptx/kernels/corpus/spmv_vector.ptx", 3);
    sx_engine *e = x.e;
    wh_image *in = x.in;
    int cols = wh_image_find(in, "cols");
    wh_image_set_int(in, wh_image_find(in, "row_len"), 0, 40);
    wh_image_set_int(in, wh_image_find(in, "row_start"), 0, 0);
    int seen = 0;
    for (int i = 0; i < e->nsyms; i++) {
        const sx_symbol *s = &e->syms[i];
        if (s->param != cols) continue;
        int want = s->elem < 40 && s->elem % 32 < 3 ? (int)(s->elem % 32) : -1;
        cr_expect_eq(sx_symbol_owner(e, s, in), want, "%s", s->name);
        seen++;
    }
    cr_expect_gt(seen, 0, "cols has symbols");
    explored_free(&x);
}

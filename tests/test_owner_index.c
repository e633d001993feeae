/*
 * test_owner_index.c — ownership through an index: "owner": { "index": I }
 * (thread t owns x[I[t]]: a row length read at the row a level lists) and
 * "owner": { "rows": R, "through": I } (thread t owns row I[t]'s entries),
 * sptrsv_level's shape.  The spec states them and refuses what the scaler
 * cannot keep; the image answers both ways (a scan, or the map built once
 * for an edit); the scaler places each atom thread's row length and row
 * where its full-launch thread's index names them, the rows no thread
 * lists as contiguous tiles would, and reads them back (a row past an
 * atom's taking one no thread of it lists); thread atoms,
 * warp-copy edits and the symbolic stage's pins follow the index.
 */
#include <criterion/criterion.h>

#include "gen/gen.h"
#include "symexec/internal.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LEVEL, ROW_START, ROW_LEN, COLS };

/* level (distinct rows of 2 x threads), row_start (a running sum of
 * row_len, at most 3 a row), both owned through level, then cols owned by
 * the rows through level; grid g x block b.  `lens_owner`: row_len's and
 * row_start's owner, `cols_owner`: cols', `level_hi`: level's range's top. */
static const char *index_spec(char *json, size_t n, int g, int b, const char *lens_owner, const char *cols_owner,
                              const char *level_hi)
{
    snprintf(json, n,
             "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[%d],\"block\":[%d],"
             "\"symbolic\":{\"threads\":[2]},\"params\":["
             "{\"name\":\"level\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads\",\"role\":\"input\","
             "\"per_thread\":1,\"range\":[0,\"%s\"],\"structure\":\"distinct\"},"
             "{\"name\":\"row_start\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"2*threads\",\"role\":\"input\","
             "\"per_thread\":1,\"owner\":%s,\"range\":[0,\"6*threads\"],\"prefix_sum_of\":\"row_len\"},"
             "{\"name\":\"row_len\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"2*threads\",\"role\":\"input\","
             "\"per_thread\":1,\"owner\":%s,\"range\":[0,3]},"
             "{\"name\":\"cols\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"6*threads\",\"role\":\"input\","
             "\"per_thread\":3,\"owner\":%s,\"range\":[0,1000]}]}",
             g, b, level_hi, lens_owner, lens_owner, cols_owner);
    return json;
}

#define BY_LEVEL "{\"index\":\"level\"}"
#define THROUGH_LEVEL "{\"rows\":\"row_start\",\"through\":\"level\"}"

typedef struct {
    char dir[64];
    wh_spec *spec;
} index_fixture;

static index_fixture open_index(int g, int b)
{
    index_fixture f;
    char json[2048];
    wh_error err;
    f.spec = ts_temp_spec(index_spec(json, sizeof json, g, b, BY_LEVEL, THROUGH_LEVEL, "2*threads-1"), f.dir, &err);
    cr_assert(f.spec, "%s", err.msg);
    return f;
}

static void close_index(index_fixture *f)
{
    wh_spec_free(f->spec);
    ts_rmtree(f->dir);
}

static int32_t get(const wh_image *img, int p, uint64_t e)
{
    return (int32_t)wh_image_int(img, p, e);
}

/* An image of spec at `l` (n threads, 2n rows) whose level lists `level`,
 * whose rows have the lengths `len`, and whose cols hold 100*r + j at row
 * r's entry j. */
static wh_image *index_image(const wh_spec *spec, const wh_launch *l, const int *level, const int *len, int n)
{
    wh_error err;
    wh_image *img = wh_image_new(spec, l, &err);
    cr_assert(img, "%s", err.msg);
    int64_t at = 0;
    for (int t = 0; t < n; t++) wh_image_set_int(img, LEVEL, (uint64_t)t, level[t]);
    for (int r = 0; r < 2 * n; r++) {
        wh_image_set_int(img, ROW_LEN, (uint64_t)r, len[r]);
        wh_image_set_int(img, ROW_START, (uint64_t)r, at);
        for (int j = 0; j < len[r]; j++) wh_image_set_int(img, COLS, (uint64_t)(at + j), 100 * r + j);
        at += len[r];
    }
    return img;
}

Test(owner_index, the_spec_states_it_and_refuses_what_the_scaler_cannot_keep)
{
    index_fixture f = open_index(1, 4);
    cr_expect_eq(f.spec->params[ROW_LEN].owner, WH_OWNER_INDEX);
    cr_expect_eq(f.spec->params[ROW_LEN].owner_index, LEVEL + 1);
    cr_expect_eq(f.spec->params[COLS].owner, WH_OWNER_ROWS);
    cr_expect_eq(f.spec->params[COLS].owner_index, LEVEL + 1);
    cr_expect_eq(f.spec->params[COLS].owner_rows, ROW_START + 1);
    close_index(&f);
    char json[2048], dir[64];
    wh_error err;
    static const struct {
        const char *lens, *cols, *path, *msg;
    } bad[] = {
        { BY_LEVEL, "{\"rows\":\"row_start\",\"through\":\"nope\"}", "$.params[3].owner.through",
          "no parameter or global \"nope\"" },
        { BY_LEVEL, "{\"rows\":\"row_start\",\"through\":\"row_len\"}", "$.params[3].owner.through",
          "the index \"row_len\" name: the index needs \"per_thread\": 1 (one row a thread)" },
        { BY_LEVEL, "{\"index\":\"level\"}", "$.params[3].owner.index",
          "the index \"level\" name: the index needs \"per_thread\": 3 (as the buffer it owns)" },
        { BY_LEVEL, "{\"rows\":\"row_start\",\"by\":\"warp\",\"through\":\"level\"}", "$.params[3].owner.through",
          "rows by warp go through no index" },
        { "\"contiguous\"", THROUGH_LEVEL, "$.params[3].owner.through",
          "the row pointer \"row_start\" and its lengths \"row_len\" need \"per_thread\": 1 and \"owner\": "
          "{ \"index\": \"level\" }" },
        { "{\"index\":\"cols\"}", THROUGH_LEVEL, "$.params[1].owner.index", "the index \"cols\" name: the index needs" },
        { "{\"index\":\"level\",\"by\":\"warp\"}", THROUGH_LEVEL, "$.params[1].owner",
          "unknown key \"by\" (expected one of: index)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_expect_null(ts_temp_spec(index_spec(json, sizeof json, 1, 4, bad[i].lens, bad[i].cols, "2*threads-1"),
                                    dir, &err), "%s / %s", bad[i].lens, bad[i].cols);
        cr_expect(strstr(err.msg, bad[i].msg), "%s / %s: %s", bad[i].lens, bad[i].cols, err.msg);
        cr_expect(!strncmp(err.path, bad[i].path, strlen(bad[i].path)), "%s / %s: at %s", bad[i].lens, bad[i].cols,
                  err.path);
        ts_rmtree(dir);
    }
}

/* 4 threads listing rows 5, 0, 9 (past the 8 rows: nothing) and 2; the
 * map and the scan answer alike. */
Test(owner_index, the_image_says_who_owns_each_element_and_entry)
{
    index_fixture f = open_index(1, 4);
    wh_launch full = wh_spec_launch_full(f.spec);
    static const int level[4] = { 5, 0, 2, 2 }, len[8] = { 2, 1, 3, 0, 1, 2, 0, 3 };
    wh_image *img = index_image(f.spec, &full, level, len, 4);
    wh_image_set_int(img, LEVEL, 2, 9);
    static const uint64_t len_owner[8] = { 1, UINT64_MAX, 3, UINT64_MAX, UINT64_MAX, 0, UINT64_MAX, UINT64_MAX };
    /* rows [0,2) [2,3) [3,6) [6,6) [6,7) [7,9) [9,9) [9,12) */
    static const uint64_t col_owner[12] = { 1, 1, UINT64_MAX, 3, 3, 3, UINT64_MAX, 0, 0, UINT64_MAX, UINT64_MAX,
                                            UINT64_MAX };
    static const uint64_t col_place[12] = { 0, 1, 0, 0, 1, 2, 0, 0, 1, 0, 0, 0 };
    uint64_t *len_slots = wh_image_index_slots(img, ROW_LEN), *col_slots = wh_image_index_slots(img, COLS);
    cr_assert(len_slots && col_slots);
    for (int mapped = 0; mapped < 2; mapped++) {
        for (uint64_t e = 0; e < 8; e++) {
            uint64_t j = 7, t = wh_image_elem_owner_in(img, ROW_LEN, e, &j, mapped ? len_slots : NULL);
            cr_expect_eq(t, len_owner[e], "owner of row length %llu (map %d)", (unsigned long long)e, mapped);
            cr_expect_eq(j, 0);
        }
        for (uint64_t e = 0; e < 12; e++) {
            uint64_t j, t = wh_image_elem_owner_in(img, COLS, e, &j, mapped ? col_slots : NULL);
            cr_expect_eq(t, col_owner[e], "owner of entry %llu (map %d)", (unsigned long long)e, mapped);
            if (t != UINT64_MAX) cr_expect_eq(j, col_place[e], "place of entry %llu", (unsigned long long)e);
        }
    }
    static const uint64_t owned_len[4] = { 5, 0, UINT64_MAX, 2 };
    for (uint64_t t = 0; t < 4; t++) {
        cr_expect_eq(wh_image_owned_elem(img, ROW_LEN, t, 0), owned_len[t], "thread %llu's row length",
                     (unsigned long long)t);
        for (uint64_t j = 0; j < 3; j++) {
            uint64_t r = owned_len[t];
            uint64_t want = r != UINT64_MAX && j < (uint64_t)len[r] ? (uint64_t)get(img, ROW_START, r) + j : UINT64_MAX;
            cr_expect_eq(wh_image_owned_elem(img, COLS, t, j), want, "thread %llu entry %llu", (unsigned long long)t,
                         (unsigned long long)j);
        }
    }
    free(len_slots);
    free(col_slots);
    wh_image_free(img);
    close_index(&f);
}

/* One 2-thread atom (rows 2 and 0 listed, lengths 1 0 3 2) in every tile
 * of 8 threads, plain tiling: each thread's row (the one its level entry
 * names once the level is made distinct) has its atom thread's length and
 * entries, each row no thread lists the length of the atom row at its
 * place in the tile; taken apart and scaled again, every thread's row is
 * as it was, and a thread atom holds its thread's row in both threads. */
Test(owner_index, the_scaler_puts_each_atom_row_where_its_thread_lists_it)
{
    index_fixture f = open_index(2, 4);
    wh_spec *spec = f.spec;
    wh_error err;
    wh_launch two = wh_launch_threads(2), full = wh_spec_launch_full(spec);
    static const int level[2] = { 2, 0 }, len[4] = { 1, 0, 3, 2 };
    wh_image *atom = index_image(spec, &two, level, len, 2);
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, spec, 2, &err), "%s", err.msg);
    int a = gen_pool_add(&pool, atom, GEN_ATOM_PATH, 0, true, &err);
    cr_assert_geq(a, 0, "%s", err.msg);
    gen_layout lay;
    cr_assert(gen_layout_make(spec, &full, 2, &lay, &err), "%s", err.msg);
    int genes[8], back[8];
    cr_assert_leq(lay.ngenes, 8);
    for (int g = 0; g < lay.ngenes; g++) genes[g] = a;
    wh_image *img = wh_image_new(spec, &full, &err);
    cr_assert(img, "%s", err.msg);
    cr_assert(gen_scale(&pool, &lay, genes, img, &err), "%s", err.msg);
    bool listed[16] = { false };
    for (uint64_t t = 0; t < 8; t++) {
        int32_t r = get(img, LEVEL, t), ar = level[t % 2];
        cr_assert(r >= 0 && r < 16 && !listed[r], "thread %llu lists row %d twice or outside", (unsigned long long)t, r);
        listed[r] = true;
        cr_expect_eq(get(img, ROW_LEN, (uint64_t)r), len[ar], "thread %llu's row %d's length", (unsigned long long)t, r);
        for (int j = 0; j < len[ar]; j++)
            cr_expect_eq(get(img, COLS, (uint64_t)get(img, ROW_START, (uint64_t)r) + (uint64_t)j), 100 * ar + j,
                         "thread %llu's row %d entry %d", (unsigned long long)t, r, j);
    }
    for (uint64_t r = 0; r < 16; r++)
        if (!listed[r]) cr_expect_eq(get(img, ROW_LEN, r), len[r % 4], "unlisted row %llu", (unsigned long long)r);
    cr_assert(gen_unscale(&pool, &lay, img, back, &err), "%s", err.msg);
    wh_image *again = wh_image_new(spec, &full, &err);
    cr_assert(again, "%s", err.msg);
    cr_assert(gen_scale(&pool, &lay, back, again, &err), "%s", err.msg);
    for (uint64_t t = 0; t < 8; t++) {   /* tile 0 lists rows 4 and 0: row 4 passes the atom's 4 */
        int32_t r = get(img, LEVEL, t);
        cr_expect_eq(get(again, LEVEL, t), r, "rescaled: thread %llu's row", (unsigned long long)t);
        cr_expect_eq(get(again, ROW_LEN, (uint64_t)r), get(img, ROW_LEN, (uint64_t)r), "rescaled: row %d's length", r);
        for (int32_t j = 0; j < get(img, ROW_LEN, (uint64_t)r); j++)
            cr_expect_eq(get(again, COLS, (uint64_t)get(again, ROW_START, (uint64_t)r) + (uint64_t)j),
                         get(img, COLS, (uint64_t)get(img, ROW_START, (uint64_t)r) + (uint64_t)j),
                         "rescaled: row %d's entry %d", r, j);
    }
    wh_image *one_img = wh_image_new(spec, &two, &err);
    cr_assert(one_img, "%s", err.msg);
    int one = gen_thread_atom(&pool, &lay, img, 0, &err);   /* thread 0: row 4, 3 long */
    cr_assert_geq(one, 0, "%s", err.msg);
    gen_pool_atom_to_image(&pool, one, one_img);
    /* both threads list row 4, past the atom's rows: they take the rows
     * no value inside names, 0 and 1, each 3 long */
    for (uint64_t u = 0; u < 2; u++) {
        cr_expect_eq(get(one_img, LEVEL, u), get(img, LEVEL, 0), "thread atom: thread %llu's row",
                     (unsigned long long)u);
        cr_expect_eq(get(one_img, ROW_LEN, u), 3, "thread atom: row %llu's length", (unsigned long long)u);
        for (uint64_t j = 0; j < 3; j++)
            cr_expect_eq(get(one_img, COLS, 3 * u + j), (int32_t)(200 + j), "thread atom: row %llu entry %llu",
                         (unsigned long long)u, (unsigned long long)j);
    }
    wh_image_free(one_img);
    wh_image_free(again);
    wh_image_free(img);
    wh_image_free(atom);
    gen_pool_free(&pool);
    close_index(&f);
}

/* 64 threads listing rows 7t mod 128: a warp-copy over the length thread
 * 10 owns (row 70, which a contiguous owner would give to no thread) gives
 * every thread of warp 0 thread 0's length, at the rows they list, and
 * leaves warp 1 and the rows nobody lists. */
Test(owner_index, warp_copy_copies_lane_0s_element_through_the_index)
{
    index_fixture f = open_index(2, 32);
    wh_error err;
    wh_launch full = wh_spec_launch_full(f.spec);
    int level[64], len[128];
    for (int t = 0; t < 64; t++) level[t] = 7 * t % 128;
    for (int r = 0; r < 128; r++) len[r] = r % 4;
    wh_image *img = index_image(f.spec, &full, level, len, 64);
    gen_edit ed = { GEN_EDIT_WARP_COPY, ROW_LEN, 0, 70, 1, 0, 0, 0, 0 };
    cr_assert(gen_edit_apply(&ed, img, &err), "%s", err.msg);
    bool listed[128] = { false };
    for (int t = 0; t < 64; t++) {
        listed[level[t]] = true;
        cr_expect_eq(get(img, ROW_LEN, (uint64_t)level[t]), t < 32 ? len[0] : len[level[t]], "thread %d's row", t);
    }
    for (int r = 0; r < 128; r++)
        if (!listed[r]) cr_expect_eq(get(img, ROW_LEN, (uint64_t)r), len[r], "unlisted row %d", r);
    wh_image_free(img);
    close_index(&f);
}

/* sptrsv_level at X = 2 with level rows 3 and 1, lengths 2 1 0 2: row 3's
 * length and entries (3, 4) are thread 0's symbols, row 1's (entry 2)
 * thread 1's, the other rows nobody's. */
Test(owner_index, the_symbolic_stage_gives_a_rows_symbols_to_the_thread_listing_it)
{
    ts_need_ptx("build/ptx/kernels/corpus/sptrsv_level.ptx");
    wh_error err;
    wh_spec *spec = wh_spec_load("kernels/corpus/sptrsv_level.json", &err);
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
    int lv = wh_image_find(in, "level_rows"), rs = wh_image_find(in, "row_start"), rl = wh_image_find(in, "row_len"),
        cols = wh_image_find(in, "cols");
    static const int len[4] = { 2, 1, 0, 2 }, start[4] = { 0, 2, 3, 3 };
    wh_image_set_int(in, lv, 0, 3);
    wh_image_set_int(in, lv, 1, 1);
    for (uint64_t r = 0; r < 4; r++) {
        wh_image_set_int(in, rl, r, len[r]);
        wh_image_set_int(in, rs, r, start[r]);
    }
    int seen_cols = 0, seen_lens = 0;
    for (int i = 0; i < e->nsyms; i++) {
        const sx_symbol *s = &e->syms[i];
        int want;
        if (s->param == cols) {
            want = s->elem == 3 || s->elem == 4 ? 0 : s->elem == 2 ? 1 : -1;
            seen_cols++;
        } else if (s->param == rl) {
            want = s->elem == 3 ? 0 : s->elem == 1 ? 1 : -1;
            seen_lens++;
        } else {
            continue;
        }
        cr_expect_eq(sx_symbol_owner(e, s, in), want, "%s", s->name);
    }
    cr_expect_eq(seen_cols, 64, "a symbol per column entry");
    cr_expect_eq(seen_lens, 4, "a symbol per row length");
    wh_image_free(in);
    sx_result_free(res);
    ptx_module_free(mod);
    wh_spec_free(spec);
}

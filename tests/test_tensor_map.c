/*
 * test_tensor_map.c — tensor maps ("kind": "tensor_map") and the tiled
 * tensor copies (cp.async.bulk.tensor): the box layout, fill and swizzle
 * of ptx/tensor_map.c against hand-computed places; tests/ptx_sym/
 * tensor_tiles.cu on the sim (boxes in and out through two maps, against
 * the same computation in C) and through the symbolic stage; a
 * double-buffered pipeline (tests/ptx_sym/tensor_pipeline.cu) against C;
 * a misaligned box faults, other tensor forms and maps that are no tensor
 * map parameter are named as unsupported; the spec's and the PTX's mistakes
 * get their messages; a kernel parameter read at its generic address
 * (cvta.param, how a __grid_constant__ map is named) in both engines.
 * The cuda backend's maps: tests/test_cuda_fake.c.
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "ptx/ptx.h"
#include "tests/sim_support.h"
#include "tests/support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TILES "tests/specs/tensor_tiles.json"

/* A 2-D map of f32, 100 x 7 elements, boxes of 32 x 4. */
static ptx_tensor_map map_2d(int swizzle, bool nan)
{
    ptx_tensor_map t = { .rank = 2, .dims = { 100, 7, 1, 1, 1 }, .box = { 32, 4, 1, 1, 1 }, .elem_bytes = 4,
                         .type = WH_F32, .swizzle = swizzle, .oob_nan = nan };
    return t;
}

Test(tensor_map, a_box_takes_its_elements_dimension_0_first)
{
    ptx_tensor_map t = map_2d(WH_SWIZZLE_NONE, false);
    int32_t at[5] = { 10, 2 }, off[5] = { -3, -1 }, far[5] = { 90, 5 };
    cr_expect_eq(ptx_tmap_box_elems(&t), 128);
    cr_expect_eq(ptx_tmap_box_bytes(&t), 512);
    cr_expect_eq(ptx_tmap_elem(&t, at, 0), 2 * 100 + 10);
    cr_expect_eq(ptx_tmap_elem(&t, at, 33), 3 * 100 + 11, "element 33: row 1, column 1 of the box");
    cr_expect_eq(ptx_tmap_elem(&t, off, 0), -1, "(-3, -1) lies outside");
    cr_expect_eq(ptx_tmap_elem(&t, off, 32 + 3), 0, "(0, 0) is the box's row 1, column 3");
    cr_expect_eq(ptx_tmap_elem(&t, far, 9), 5 * 100 + 99, "column 99 is the last one");
    cr_expect_eq(ptx_tmap_elem(&t, far, 10), -1, "column 100 lies outside");
    cr_expect_eq(ptx_tmap_elem(&t, far, 2 * 32), -1, "row 7 lies outside");
    cr_expect_eq(ptx_tmap_smem(&t, 256, 33), 256 + 33 * 4, "packed without a swizzle");
}

/* 128B swizzle: 16-byte chunk j of 128-byte row r lands at chunk j ^ (r % 8);
 * 32B: chunk j of a 32-byte span at j ^ (bit 7 of the address). */
Test(tensor_map, swizzles_move_16_byte_chunks_within_their_span)
{
    ptx_tensor_map t = map_2d(WH_SWIZZLE_128B, false);
    for (uint32_t k = 0; k < 128; k++) {
        uint64_t lin = (uint64_t)k * 4, row = lin / 128, chunk = lin % 128 / 16;
        uint64_t want = 1024 + row * 128 + ((chunk ^ (row % 8)) * 16) + lin % 16;
        cr_expect_eq(ptx_tmap_smem(&t, 1024, k), want, "element %u", k);
    }
    ptx_tensor_map s = map_2d(WH_SWIZZLE_32B, false);
    s.box[0] = 8;   /* 32 bytes a row */
    cr_expect_eq(ptx_tmap_smem(&s, 0, 0), 0);
    cr_expect_eq(ptx_tmap_smem(&s, 0, 32), 128 + 16, "row 4 starts at byte 128: bit 7 set, chunk 0 -> 1");
    cr_expect_eq(ptx_tmap_smem(&s, 0, 36), 128, "chunk 1 -> 0");
}

Test(tensor_map, elements_outside_read_zero_or_nan)
{
    uint8_t b[8];
    ptx_tensor_map z = map_2d(WH_SWIZZLE_NONE, false), n = map_2d(WH_SWIZZLE_NONE, true);
    float f;
    ptx_tmap_fill(&z, b);
    memcpy(&f, b, 4);
    cr_expect(f == 0 && !signbit(f));
    ptx_tmap_fill(&n, b);
    memcpy(&f, b, 4);
    cr_expect(isnan(f));
}

/* tensor_tiles in C: block b's box at (32 (b % 3) + 8, 4 (b / 3) + 1),
 * zeros off the 96 x 16 tensor; row 1 becomes thread t's sum over
 * (row 0, column t) & 7 steps; dst gets the box where it lies inside. */
static void tiles_reference(const int32_t *src, int32_t *dst)
{
    memset(dst, 0, 96 * 16 * sizeof *dst);
    for (int b = 0; b < 12; b++) {
        int x = b % 3 * 32 + 8, y = b / 3 * 4 + 1, box[4][32], acc[32] = { 0 };
        for (int r = 0; r < 4; r++)
            for (int t = 0; t < 32; t++)
                box[r][t] = x + t < 96 && y + r < 16 ? src[(y + r) * 96 + x + t] : 0;
        for (int t = 0; t < 32; t++)
            for (int k = 0; k < (box[0][t] & 7); k++)
                acc[t] += box[k & 3][(t + k) & 31];
        memcpy(box[1], acc, sizeof acc);
        for (int r = 0; r < 4; r++)
            for (int t = 0; t < 32; t++)
                if (x + t < 96 && y + r < 16)
                    dst[(y + r) * 96 + x + t] = box[r][t];
    }
}

Test(tensor_map, boxes_go_in_and_out_through_two_maps)
{
    simcase c = { 0 };
    static int32_t want[96 * 16];
    while (sc_seeds(&c, TILES, 3, false)) {
        sc_run(&c);
        cr_assert_eq(sc_count(&c, "src"), 96 * 16, "a tensor's elements are its dims' product");
        const int32_t *src = sc_buf(&c, "src"), *dst = sc_buf(&c, "dst");
        tiles_reference(src, want);
        int bad = 0, first = -1;
        for (int i = 0; i < 96 * 16; i++)
            if (dst[i] != want[i] && bad++ == 0)
                first = i;
        cr_expect_eq(bad, 0, "seed %llu: %d elements differ, the first dst[%d] = %d, expected %d",
                     (unsigned long long)c.seed, bad, first, first >= 0 ? dst[first] : 0, first >= 0 ? want[first] : 0);
    }
}

/* Tile k + 1 in flight while tile k is read, each mbarrier's phases
 * reused every other tile: every thread's sum over its column of every
 * tile is the C one. */
Test(tensor_map, a_double_buffered_pipeline_reuses_its_barriers_phases)
{
    simcase c = { 0 };
    while (sc_seeds(&c, "tests/specs/tensor_pipeline.json", 3, false)) {
        sc_run(&c);
        const int32_t *src = sc_buf(&c, "src"), *out = sc_buf(&c, "out");
        for (int b = 0; b < 4; b++)
            for (int t = 0; t < 32; t++) {
                int acc = 0;
                for (int k = 0; k < 6; k++)
                    for (int r = 0; r < 4; r++) {
                        int v = src[(b * 4 + r) * 192 + k * 32 + t];
                        acc += v * (v & 3);
                    }
                cr_expect_eq(out[b * 32 + t], acc, "seed %llu out[%d]", (unsigned long long)c.seed, b * 32 + t);
            }
    }
}

static const char *PTX_HEAD =
    ".version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".visible .entry k(.param .align 64 .b8 k_map[128], .param .u64 k_out)\n{\n"
    "\t.reg .pred %p<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n\t.reg .b16 %rs<4>;\n"
    "\t.shared .align 8 .b64 bar;\n\t.shared .align 128 .b8 buf[1024];\n"
    "\tld.param.u64 %rd1, [k_out];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tmov.b64 %rd3, k_map;\n\tcvta.param.u64 %rd4, %rd3;\n\tmov.u32 %r1, 0;\n"
    "\tmbarrier.init.shared.b64 [bar], 1;\n";

/* One thread's PTX `body` run once with a 1-D map of 64 i32 (boxes of
 * 16): the status and its message. */
static harness_status run_body(const char *body, char *msg, size_t n)
{
    char ptx[4096];
    snprintf(ptx, sizeof ptx, "%s%s\tret;\n}\n", PTX_HEAD, body);
    return tsim_run_once(ptx,
                         "{ \"name\": \"k\", \"source\": \"k.cu\", \"ptx\": \"k.ptx\", \"entry\": \"k\", "
                         "\"grid\": [1], \"block\": [1], \"params\": [ { \"name\": \"map\", \"kind\": "
                         "\"tensor_map\", \"type\": \"i32\", \"role\": \"input\", \"tensor_map\": { \"dims\": [64], "
                         "\"box\": [16] } }, { \"name\": \"out\", \"kind\": \"buffer\", \"type\": \"i32\", "
                         "\"count\": 16, \"role\": \"output\" } ] }\n",
                         NULL, NULL, 0, msg, n);
}

Test(tensor_map, a_box_off_128_bytes_faults)
{
    char msg[1024];
    harness_status st = run_body(
        "\tcp.async.bulk.tensor.1d.shared::cta.global.mbarrier::complete_tx::bytes [buf+16], [%rd4, {%r1}], [bar];\n",
        msg, sizeof msg);
    cr_expect_eq(st, HARNESS_FAULT, "%s", msg);
    cr_expect(strstr(msg, "128-byte alignment"), "%s", msg);
}

Test(tensor_map, a_map_named_in_place_moves_its_box)
{
    char msg[1024];
    harness_status st = run_body(
        "\tmbarrier.arrive.expect_tx.shared.b64 %rd5, [bar], 64;\n"
        "\tcp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes [buf], [k_map, {%r1}], [bar];\n"
        "\tmbarrier.test_wait.shared.b64 %p1, [bar], %rd5;\n"
        "\t@!%p1 trap;\n",
        msg, sizeof msg);
    cr_expect_eq(st, HARNESS_OK, "the box's 64 bytes complete the phase: %s", msg);
}

/* A pointer that is no tensor map parameter, and the im2col form, are
 * not run: the sim says why, naming the instruction. */
Test(tensor_map, other_maps_and_forms_are_unsupported_by_name)
{
    char msg[1024];
    harness_status st = run_body(
        "\tcp.async.bulk.tensor.1d.shared::cta.global.mbarrier::complete_tx::bytes [buf], [%rd2, {%r1}], [bar];\n",
        msg, sizeof msg);
    cr_expect_eq(st, HARNESS_UNSUPPORTED, "%s", msg);
    cr_expect(strstr(msg, "no tensor map parameter"), "%s", msg);
    st = run_body("\tcp.async.bulk.tensor.3d.shared::cta.global.im2col.mbarrier::complete_tx::bytes [buf], "
                  "[%rd4, {%r1, %r1, %r1}], [bar], {%rs1};\n",
                  msg, sizeof msg);
    cr_expect_eq(st, HARNESS_UNSUPPORTED, "%s", msg);
    cr_expect(strstr(msg, "cp.async.bulk.tensor"), "%s", msg);
}

/* A tensor copy whose coordinates are not as many as its .Nd says is
 * refused with its line. */
Test(tensor_map, a_copy_with_the_wrong_coordinates_is_refused_with_its_line)
{
    char dir[] = "/tmp/wh_tmapXXXXXX", ptx[4096], path[128];
    tsim_mkdtemp(dir);
    snprintf(ptx, sizeof ptx, "%s%s\tret;\n}\n", PTX_HEAD,
             "\tcp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [buf], [%rd4, {%r1}], [bar];\n");
    tsim_write(dir, "k.ptx", ptx);
    snprintf(path, sizeof path, "%s/k.ptx", dir);
    wh_error err;
    ptx_module *m = ptx_parse_file(path, &err);
    cr_expect_null(m);
    cr_expect_eq(err.line, 19, "%d: %s", err.line, err.msg);
    cr_expect(strstr(err.msg, "needs 2 coordinates"), "%s", err.msg);
    ptx_module_free(m);
    ts_rmtree(dir);
}

/* What the spec says about a tensor map it cannot make. */
static void expect_spec_error(const char *tmap, const char *type, const char *want)
{
    char dir[] = "/tmp/wh_tmapXXXXXX", text[1024], path[128];
    tsim_mkdtemp(dir);
    snprintf(text, sizeof text,
             "{ \"name\": \"k\", \"source\": \"k.cu\", \"entry\": \"k\", \"grid\": [1], \"block\": [1], "
             "\"params\": [ { \"name\": \"map\", \"kind\": \"tensor_map\", \"type\": \"%s\", \"role\": \"input\", "
             "%s } ] }\n", type, tmap);
    tsim_write(dir, "k.json", text);
    snprintf(path, sizeof path, "%s/k.json", dir);
    wh_error err;
    wh_spec *s = wh_spec_load(path, &err);
    cr_expect_null(s, "%s loaded", tmap);
    cr_expect(strstr(err.msg, want), "%s: %s (expected '%s')", tmap, err.msg, want);
    wh_spec_free(s);
    ts_rmtree(dir);
}

Test(tensor_map, the_spec_says_what_no_driver_would_encode)
{
    expect_spec_error("\"tensor_map\": { \"dims\": [64], \"box\": [6] }", "i32", "multiple of 16 bytes");
    expect_spec_error("\"tensor_map\": { \"dims\": [64, 4], \"box\": [16] }", "i32", "one box size per dimension");
    expect_spec_error("\"tensor_map\": { \"dims\": [64], \"box\": [300] }", "i32", "1 to 256");
    expect_spec_error("\"tensor_map\": { \"dims\": [64, 64, 64], \"box\": [256, 256, 8] }", "i32",
                      "cannot fit a block's shared memory");
    expect_spec_error("\"tensor_map\": { \"dims\": [64], \"box\": [16], \"swizzle\": \"32B\" }", "i32",
                      "at most 32 bytes");
    expect_spec_error("\"tensor_map\": { \"dims\": [64], \"box\": [16], \"oob_fill\": \"nan\" }", "i32",
                      "for float tensors");
    expect_spec_error("\"count\": 64, \"tensor_map\": { \"dims\": [64], \"box\": [16] }", "i32", "no \"count\"");
    expect_spec_error("\"texture\": { \"dims\": [64] }", "i32", "goes with \"kind\": \"texture\"");
    expect_spec_error("\"range\": [0, 9]", "i32", "needs \"tensor_map\"");
}

/* A row that is no multiple of 16 bytes is refused at the launch, as the
 * driver refuses its strides. */
Test(tensor_map, a_row_off_16_bytes_is_refused_at_the_launch)
{
    wh_error err;
    wh_spec *s = wh_spec_load(TILES, &err);
    cr_assert(s, "%s", err.msg);
    int64_t vars[64] = { 0 };
    wh_launch l = wh_spec_launch_full(s);
    cr_assert(wh_spec_vars(s, &l, vars, &err), "%s", err.msg);
    ptx_tensor_map t;
    cr_expect(ptx_tmap_make(s, 0, vars, &t, &err), "%s", err.msg);
    cr_expect(t.rank == 2 && t.dims[0] == 96 && t.dims[1] == 16 && t.box[0] == 32 && t.elem_bytes == 4);
    wh_expr_free(s->params[0].tmap->dims[0]);
    s->params[0].tmap->dims[0] = wh_expr_parse("95", s->var_names, s->nvars, &err);
    cr_assert(s->params[0].tmap->dims[0], "%s", err.msg);
    cr_expect_not(ptx_tmap_make(s, 0, vars, &t, &err));
    cr_expect(strstr(err.msg, "no multiple of 16"), "%s", err.msg);
    wh_spec_free(s);
}

/* A searched scalar read through its generic address (mov + cvta.param,
 * as nvcc takes a __grid_constant__ parameter's address): the sim reads
 * its value, a store there faults, and the symbolic stage forks on it. */
Test(tensor_map, a_parameter_reads_at_its_generic_address)
{
    static const char *const head =
        ".version 8.0\n.target sm_80\n.address_size 64\n\n"
        ".visible .entry k(.param .u64 k_out, .param .u32 k_n)\n{\n"
        "\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"
        "\tld.param.u64 %rd1, [k_out];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
        "\tmov.b64 %rd3, k_n;\n\tcvta.param.u64 %rd4, %rd3;\n\tld.u32 %r1, [%rd4];\n";
    static const char *const spec =
        "{ \"name\": \"k\", \"source\": \"k.cu\", \"ptx\": \"k.ptx\", \"entry\": \"k\", \"grid\": [1], "
        "\"block\": [1], \"symbolic\": { \"threads\": [1] }, \"params\": [ { \"name\": \"out\", \"kind\": "
        "\"buffer\", \"type\": \"i32\", \"count\": 1, \"role\": \"output\" }, { \"name\": \"n\", \"kind\": "
        "\"scalar\", \"type\": \"i32\", \"range\": [0, 9] } ] }\n";
    char ptx[2048], msg[1024];
    int32_t out = -1;
    snprintf(ptx, sizeof ptx, "%s\tsetp.gt.s32 %%p1, %%r1, 5;\n\t@%%p1 bra BIG;\n\tadd.s32 %%r2, %%r1, 100;\n"
             "\tst.global.u32 [%%rd2], %%r2;\n\tret;\nBIG:\n\tst.global.u32 [%%rd2], %%r1;\n\tret;\n}\n", head);
    cr_expect_eq(tsim_run_once(ptx, spec, "out", &out, sizeof out, msg, sizeof msg), HARNESS_OK, "%s", msg);
    cr_expect((out > 5 && out <= 9) || (out >= 100 && out <= 105), "n, or n + 100 when n <= 5: %d", out);
    char dir[] = "/tmp/wh_tmapXXXXXX", path[128];
    tsim_mkdtemp(dir);
    tsim_write(dir, "k.ptx", ptx);
    tsim_write(dir, "k.json", spec);
    snprintf(path, sizeof path, "%s/k.json", dir);
    json_t *doc = ts_explore_json(path, "10");
    cr_expect_eq(json_integer_value(json_object_get(doc, "paths")), 2, "n > 5 and n <= 5");
    cr_expect_eq(json_integer_value(json_object_get(doc, "errors")), 0);
    cr_expect_eq(json_integer_value(json_object_get(doc, "atoms_invalid")), 0, "every atom replays on the sim");
    json_decref(doc);
    ts_rmtree(dir);
    snprintf(ptx, sizeof ptx, "%s\tst.u32 [%%rd4], 1;\n\tret;\n}\n", head);
    cr_expect_eq(tsim_run_once(ptx, spec, NULL, NULL, 0, msg, sizeof msg), HARNESS_FAULT, "%s", msg);
    cr_expect(strstr(msg, "read-only"), "%s", msg);
}

/* The symbolic stage runs both tensor copies: one path per pair of trip
 * counts of the two symbolic threads (their values come through the box),
 * none an error, every atom replaying on the sim. */
Test(tensor_map, the_symbolic_stage_runs_tensor_copies, .timeout = 120)
{
    json_t *doc = ts_explore_json(TILES, "30");
    cr_expect_geq(json_integer_value(json_object_get(doc, "paths")), 64, "8 trip counts for each of 2 threads");
    cr_expect_eq(json_integer_value(json_object_get(doc, "errors")), 0);
    cr_expect_gt(json_integer_value(json_object_get(doc, "atoms_valid")), 0);
    cr_expect_eq(json_integer_value(json_object_get(doc, "atoms_invalid")), 0, "every atom replays on the sim");
    json_decref(doc);
}

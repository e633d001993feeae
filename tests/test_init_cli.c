/*
 * test_init_cli.c — `warphunt init`: a draft spec states what the code
 * shows (pointers as buffers, roles from reads and writes, a struct's
 * fields from its accesses, C++ types from a mangled name), and every
 * bundled and corpus kernel's draft loads and runs once on the sim with no
 * unsupported instruction.
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "cli/init.h"
#include "tests/support.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void need_ptx(const char *ptx)
{
    if (access(ptx, R_OK) != 0) cr_skip_test("%s not built: run `make ptx`", ptx);
}

/* init FILE [--entry E] -o dir/spec.json; the draft, loaded (json_decref it). */
static json_t *draft(const char *dir, const char *ptx, const char *entry)
{
    char out[300];
    snprintf(out, sizeof out, "%s/spec.json", dir);
    const char *args[] = { ptx, "-o", out, "--quiet", "--entry", entry };
    cr_assert_eq(ts_run_cmd(cmd_init, "init", args, entry ? 6 : 4, NULL, NULL), 0, "init %s", ptx);
    return ts_load_json(out);
}

/* The draft in dir (spec.json) measures on the sim; what names it. */
static void expect_draft_runs(const char *dir, const char *what)
{
    char path[300];
    snprintf(path, sizeof path, "%s/spec.json", dir);
    const char *args[] = { path, "--backend", "sim", "--reps", "1", "--quiet" };
    cr_expect_eq(ts_run_cmd(cmd_measure, "measure", args, 6, NULL, NULL), 0, "the draft of %s runs", what);
}

static json_t *param(json_t *spec, int k)
{
    return json_array_get(json_object_get(spec, "params"), (size_t)k);
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* bfs_kernel1 against its hand-written spec (kernels/bfs1.json): nodes a
 * struct of two i32 at offsets 0 and 4, edges i32 input, the masks u8,
 * updating written only (an output), no_of_nodes a scalar. */
Test(init_cli, bfs_draft_states_what_its_code_shows)
{
    need_ptx("build/ptx/kernels/bfs.ptx");
    char dir[] = "/tmp/wh_init_XXXXXX";
    cr_assert(mkdtemp(dir));
    json_t *spec = draft(dir, "build/ptx/kernels/bfs.ptx", "bfs_kernel1");
    cr_assert_eq(json_array_size(json_object_get(spec, "params")), 7);
    json_t *nodes = param(spec, 0), *fields = json_object_get(nodes, "fields");
    cr_expect_str_eq(str(nodes, "type"), "struct");
    cr_assert_eq(json_array_size(fields), 2, "start and n_edges");
    cr_expect_str_eq(str(json_array_get(fields, 0), "name"), "f0");
    cr_expect_str_eq(str(json_array_get(fields, 1), "name"), "f4");
    cr_expect_str_eq(str(json_array_get(fields, 1), "type"), "i32");
    static const char *const type[] = { "struct", "i32", "u8", "u8", "u8", "i32", "i32" };
    static const char *const role[] = { "input", "input", "input", "output", "input", "input", "" };
    for (int k = 0; k < 7; k++) {
        cr_expect_str_eq(str(param(spec, k), "type"), type[k], "param %d", k);
        cr_expect_str_eq(str(param(spec, k), "role"), role[k], "param %d", k);
        cr_expect_str_eq(str(param(spec, k), "kind"), k < 6 ? "buffer" : "scalar", "param %d", k);
    }
    cr_expect_str_eq(str(spec, "entry"), "bfs_kernel1");
    cr_expect(strstr(str(spec, "description"), "check"), "the guesses to check are in the description");
    cr_expect(!strstr(str(spec, "description"), "float"), "no float input, no note on floats: %s",
              str(spec, "description"));
    json_decref(spec);
    ts_rmtree(dir);
}

/* A mangled C++ name gives the types: const pair* (a struct: its fields
 * from the accesses), const float*, float* (written only: output), bool*
 * (a byte whose domain is [0, 1]) and int. */
Test(init_cli, a_mangled_name_gives_the_cpp_types)
{
    need_ptx("build/ptx/tests/ptx/init_cpp.ptx");
    char dir[] = "/tmp/wh_init_XXXXXX";
    cr_assert(mkdtemp(dir));
    json_t *spec = draft(dir, "build/ptx/tests/ptx/init_cpp.ptx", "weigh_pairs");
    cr_expect_str_eq(str(spec, "name"), "weigh_pairs");
    json_t *pairs = param(spec, 0), *fields = json_object_get(pairs, "fields");
    cr_expect_str_eq(str(pairs, "type"), "struct");
    cr_expect_eq(json_array_size(fields), 2);
    cr_expect_str_eq(str(json_array_get(fields, 1), "type"), "f32", "weight");
    cr_expect_str_eq(str(param(spec, 1), "type"), "f32");
    cr_expect_str_eq(str(param(spec, 2), "role"), "output");
    cr_expect_str_eq(str(param(spec, 3), "type"), "u8");
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(param(spec, 3), "range"), 1)), 1, "a bool");
    cr_expect_str_eq(str(param(spec, 4), "kind"), "scalar");
    cr_expect(strstr(str(spec, "description"), "const struct pair*"), "%s", str(spec, "description"));
    json_decref(spec);
    ts_rmtree(dir);
}

/* Module variables the entry names become globals: the __constant__ int
 * array nvcc declares as .b8 bytes with .align 4 as 32 i32, a .u64 as one
 * i64, each an input over the whole variable, the roles noted to check;
 * the draft then measures on the sim. */
Test(init_cli, module_variables_become_globals)
{
    need_ptx("build/ptx/tests/ptx/module_inputs.ptx");
    char dir[] = "/tmp/wh_init_XXXXXX";
    cr_assert(mkdtemp(dir));
    json_t *spec = draft(dir, "build/ptx/tests/ptx/module_inputs.ptx", NULL);
    json_t *g = json_object_get(spec, "globals");
    cr_assert_eq(json_array_size(g), 4);
    static const char *const name[] = { "trips", "weights", "total", "hits" }, *const type[] = { "i32", "i32", "i64", "i32" };
    static const int count[] = { 32, 64, 1, 1 };
    for (int k = 0; k < 4; k++) {
        json_t *e = json_array_get(g, (size_t)k);
        cr_expect_str_eq(str(e, "name"), name[k]);
        cr_expect_str_eq(str(e, "type"), type[k], "%s", name[k]);
        cr_expect_eq(json_integer_value(json_object_get(e, "count")), count[k], "%s", name[k]);
        cr_expect_str_eq(str(e, "role"), "input");
    }
    cr_expect(strstr(str(spec, "description"), "global hits (.global, 4 bytes, initialised)"), "%s",
              str(spec, "description"));
    json_decref(spec);
    expect_draft_runs(dir, "the entry");
    ts_rmtree(dir);
}

/* A texture object the entry fetches through becomes a texture of the
 * fetch's geometry and type (tex1Dfetch's linear memory for integer
 * indices, a CUDA array otherwise), a surface object it reads and writes
 * an input surface; the drafts run on the sim. */
Test(init_cli, texture_objects_become_textures)
{
    need_ptx("build/ptx/tests/ptx/textures.ptx");
    static const char *const entry[] = { "tex_gather", "tex_probe", "tex_volume", "surf_walk", "tex_gather4" },
                             *const type[] = { "i32", "f32", "f32", "i32", "i32" },
                             *const memory[] = { "linear", "array", "array", NULL, "array" };
    for (int k = 0; k < 5; k++) {
        char dir[] = "/tmp/wh_init_XXXXXX";
        cr_assert(mkdtemp(dir));
        json_t *spec = draft(dir, "build/ptx/tests/ptx/textures.ptx", entry[k]);
        json_t *t = param(spec, 0), *tex = json_object_get(t, memory[k] ? "texture" : "surface");
        cr_expect_str_eq(str(t, "kind"), memory[k] ? "texture" : "surface", "%s", entry[k]);
        cr_expect_str_eq(str(t, "type"), type[k], "%s", entry[k]);
        cr_expect_str_eq(str(t, "role"), "input", "%s: read (and written)", entry[k]);
        if (memory[k]) cr_expect_str_eq(str(tex, "memory"), memory[k], "%s", entry[k]);
        cr_expect_eq(json_array_size(json_object_get(tex, "dims")), (size_t)(k < 3 ? k + 1 : 2), "%s", entry[k]);
        cr_expect_eq(json_is_true(json_object_get(tex, "gather")), k == 4, "%s: \"gather\" for tld4", entry[k]);
        cr_expect_str_eq(str(param(spec, 1), "kind"), "buffer", "%s", entry[k]);
        json_decref(spec);
        expect_draft_runs(dir, entry[k]);
        ts_rmtree(dir);
    }
}

/* A texture fetched at a level of detail (tex2DLod, tex2DGrad) drafts a
 * mipmapped one, read at normalized coordinates; the draft runs. */
Test(init_cli, level_of_detail_fetches_draft_a_mipmapped_texture)
{
    need_ptx("build/ptx/tests/ptx/textures.ptx");
    char dir[] = "/tmp/wh_init_XXXXXX";
    cr_assert(mkdtemp(dir));
    json_t *spec = draft(dir, "build/ptx/tests/ptx/textures.ptx", "tex_mip");
    json_t *tex = json_object_get(param(spec, 0), "texture");
    cr_expect_eq(json_integer_value(json_object_get(tex, "levels")), 2);
    cr_expect(json_is_true(json_object_get(tex, "normalized_coords")));
    cr_expect_null(json_object_get(json_object_get(param(spec, 0), "texture"), "gather"));
    json_decref(spec);
    expect_draft_runs(dir, "the entry");
    ts_rmtree(dir);
}

/* Layered and cubemap fetches draft layered and cubemap textures, a
 * layered surface access a layered surface, and the drafts run. */
Test(init_cli, layered_and_cubemap_fetches_become_such_textures)
{
    need_ptx("build/ptx/tests/ptx/textures.ptx");
    static const char *const entry[] = { "tex_layered", "tex_cube", "tex_cube", "surf_layered" };
    static const int param_of[] = { 0, 0, 1, 0 }, ndims[] = { 2, 2, 2, 2 };
    static const bool layered[] = { true, false, true, true }, cube[] = { false, true, true, false };
    for (int k = 0; k < 4; k++) {
        char dir[] = "/tmp/wh_init_XXXXXX";
        cr_assert(mkdtemp(dir));
        json_t *spec = draft(dir, "build/ptx/tests/ptx/textures.ptx", entry[k]);
        const char *kind = k == 3 ? "surface" : "texture";
        json_t *t = param(spec, param_of[k]), *tex = json_object_get(t, kind);
        cr_expect_str_eq(str(t, "kind"), kind, "%s", entry[k]);
        cr_expect_eq(json_array_size(json_object_get(tex, "dims")), (size_t)ndims[k], "%s", entry[k]);
        cr_expect_eq(json_object_get(tex, "layers") != NULL, layered[k], "%s param %d layers", entry[k], param_of[k]);
        cr_expect_eq(json_is_true(json_object_get(tex, "cube")), cube[k], "%s param %d cube", entry[k], param_of[k]);
        json_decref(spec);
        expect_draft_runs(dir, entry[k]);
        ts_rmtree(dir);
    }
}

/* Every entry of every bundled and corpus kernel: the draft loads (init
 * checks that itself) and one sim run ends ok, or faults or hangs as a
 * finding: never an unsupported instruction or a tool error. */
/* The maps an entry's tensor copies go through (named by their generic
 * address: mov + cvta.param) become tensor maps of the copies' rank, an
 * output for one the entry only stores through, never pointers; the
 * draft loads as a spec. */
Test(init_cli, tensor_copies_make_tensor_maps)
{
    char dir[] = "/tmp/wh_init_XXXXXX";
    cr_assert(mkdtemp(dir));
    json_t *spec = draft(dir, "tests/ptx_sym/tensor_tiles.ptx", NULL);
    for (int k = 0; k < 2; k++) {
        json_t *t = param(spec, k), *tm = json_object_get(t, "tensor_map");
        cr_expect_str_eq(str(t, "kind"), "tensor_map", "parameter %d", k);
        cr_expect_str_eq(str(t, "role"), k ? "output" : "input", "parameter %d: %s", k, k ? "stored to" : "loaded from");
        cr_expect_eq(json_array_size(json_object_get(tm, "dims")), 2, "parameter %d: .2d copies", k);
        cr_expect_eq(json_array_size(json_object_get(tm, "box")), 2, "parameter %d", k);
    }
    cr_expect_str_eq(str(param(spec, 2), "kind"), "scalar");
    json_decref(spec);
    char path[300];
    snprintf(path, sizeof path, "%s/spec.json", dir);
    wh_error err;
    wh_spec *loaded = wh_spec_load(path, &err);
    cr_expect(loaded && loaded->params[0].tmap && loaded->params[1].tmap, "%s", loaded ? "" : err.msg);
    wh_spec_free(loaded);
    ts_rmtree(dir);
}

/* A 128-byte parameter only prefetch.tensormap names is a tensor map too
 * (its rank a guess), and a by-value struct of as many bytes whose
 * address the entry takes (cvta.param) and reads through stays a struct
 * scalar, never a pointer; the draft runs. */
Test(init_cli, by_value_parameters_whose_address_is_taken_are_no_pointers)
{
    char dir[] = "/tmp/wh_init_XXXXXX", ptx[300];
    cr_assert(mkdtemp(dir));
    snprintf(ptx, sizeof ptx, "%s/k.ptx", dir);
    ts_write_text(ptx, ".version 8.0\n.target sm_90\n.address_size 64\n\n"
          ".visible .entry k(.param .align 64 .b8 k_map[128], .param .align 8 .b8 k_cfg[128], .param .u64 k_out)\n{\n"
          "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<8>;\n"
          "\tmov.b64 %rd1, k_map;\n\tcvta.param.u64 %rd2, %rd1;\n\tprefetch.tensormap [%rd2];\n"
          "\tmov.b64 %rd3, k_cfg;\n\tcvta.param.u64 %rd4, %rd3;\n\tld.u32 %r1, [%rd4+4];\n"
          "\tld.param.u64 %rd5, [k_out];\n\tcvta.to.global.u64 %rd6, %rd5;\n\tst.global.u32 [%rd6], %r1;\n"
          "\tret;\n}\n");
    json_t *spec = draft(dir, ptx, NULL);
    cr_expect_str_eq(str(param(spec, 0), "kind"), "tensor_map");
    cr_expect_eq(json_array_size(json_object_get(json_object_get(param(spec, 0), "tensor_map"), "dims")), 2,
                 "a guessed rank");
    cr_expect_str_eq(str(param(spec, 1), "kind"), "scalar");
    cr_expect_str_eq(str(param(spec, 1), "type"), "struct");
    cr_expect_str_eq(str(param(spec, 2), "kind"), "buffer");
    json_decref(spec);
    expect_draft_runs(dir, "k");
    ts_rmtree(dir);
}

Test(init_cli, every_bundled_drafts_loads_and_runs, .timeout = 300)
{
    need_ptx("build/ptx/kernels/artificial.ptx");
    static const char *const dirs[] = { "build/ptx/kernels", "build/ptx/kernels/corpus" };
    char tmp[] = "/tmp/wh_init_XXXXXX";
    cr_assert(mkdtemp(tmp));
    int drafted = 0;
    for (int d = 0; d < 2; d++) {
        DIR *dh = opendir(dirs[d]);
        cr_assert(dh);
        struct dirent *e;
        while ((e = readdir(dh))) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".ptx")) continue;
            char ptx[600], spec[300], out[300];
            snprintf(ptx, sizeof ptx, "%s/%s", dirs[d], e->d_name);
            snprintf(spec, sizeof spec, "%s/spec.json", tmp);
            snprintf(out, sizeof out, "%s/measure.json", tmp);
            /* bfs.ptx has two entries: the first is enough here */
            const char *args[] = { ptx, "-o", spec, "--quiet", "--entry", "bfs_kernel1" };
            bool two = !strcmp(e->d_name, "bfs.ptx");
            cr_assert_eq(ts_run_cmd(cmd_init, "init", args, two ? 6 : 4, NULL, NULL), 0, "init %s", ptx);
            const char *run[] = { spec, "--backend", "sim", "--random", "1", "--reps", "1", "--json", "--quiet" };
            cr_expect_eq(ts_run_cmd(cmd_measure, "measure", run, 9, out, NULL), 0, "measure the draft of %s", ptx);
            json_t *m = ts_load_json(out);
            const char *status = str(m, "status");
            cr_expect(!strcmp(status, "ok") || !strcmp(status, "fault") || !strcmp(status, "timeout"),
                      "%s: status %s", ptx, status);
            json_decref(m);
            drafted++;
        }
        closedir(dh);
    }
    cr_expect_geq(drafted, 25, "bundled and corpus kernels");
    ts_rmtree(tmp);
}

/* nvcc often points past a struct's first fields and reaches them at
 * negative offsets (kd_nearest's nodes: [%rd+-8] the split dimension,
 * [%rd+-4] the split value): the immediates added to the pointer count,
 * so each field is found at its own offset with its own type. */
Test(init_cli, fields_reached_past_an_added_offset_keep_their_place)
{
    char dir[] = "/tmp/wh_init_XXXXXX", ptx[300];
    cr_assert(mkdtemp(dir));
    snprintf(ptx, sizeof ptx, "%s/k.ptx", dir);
    ts_write_text(ptx, ".version 8.0\n.target sm_80\n.address_size 64\n\n"
                       ".visible .entry k(.param .u64 k_nodes, .param .u64 k_out)\n{\n"
                       "\t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<12>;\n"
                       "\tld.param.u64 %rd1, [k_nodes];\n\tld.param.u64 %rd2, [k_out];\n"
                       "\tcvta.to.global.u64 %rd3, %rd1;\n\tcvta.to.global.u64 %rd9, %rd2;\n"
                       "\tmov.u32 %r1, %tid.x;\n\tmul.wide.s32 %rd4, %r1, 16;\n"
                       "\tadd.s64 %rd5, %rd3, %rd4;\n\tadd.s64 %rd6, %rd5, 8;\n"
                       "\tld.global.u32 %r2, [%rd6+-8];\n\tld.global.f32 %f1, [%rd6+-4];\n"
                       "\tld.global.u32 %r3, [%rd6];\n\tld.global.u32 %r4, [%rd6+4];\n"
                       "\tadd.s32 %r5, %r2, %r3;\n\tadd.s32 %r6, %r5, %r4;\n\tcvt.rzi.s32.f32 %r7, %f1;\n"
                       "\tadd.s32 %r6, %r6, %r7;\n\tmul.wide.s32 %rd7, %r1, 4;\n\tadd.s64 %rd8, %rd9, %rd7;\n"
                       "\tst.global.u32 [%rd8], %r6;\n\tret;\n}\n");
    json_t *spec = draft(dir, ptx, NULL);
    json_t *fields = json_object_get(param(spec, 0), "fields");
    cr_assert_eq(json_array_size(fields), 4, "four fields, no padding");
    static const char *const name[] = { "f0", "f4", "f8", "f12" }, *const type[] = { "i32", "f32", "i32", "i32" };
    for (int k = 0; k < 4; k++) {
        cr_expect_str_eq(str(json_array_get(fields, (size_t)k), "name"), name[k], "field %d", k);
        cr_expect_str_eq(str(json_array_get(fields, (size_t)k), "type"), type[k], "field %d", k);
    }
    json_decref(spec);
    ts_rmtree(dir);
}

/* An extern "C" entry: the names and C++ types come from its declaration
 * in the source the PTX's .file names (comments, __restrict__ and a
 * declaration over several lines read through), not ENTRY_param_N. */
Test(init_cli, an_extern_c_entry_takes_names_and_types_from_its_source)
{
    need_ptx("build/ptx/tests/ptx/init_extern_c.ptx");
    char dir[] = "/tmp/wh_init_XXXXXX";
    cr_assert(mkdtemp(dir));
    json_t *spec = draft(dir, "build/ptx/tests/ptx/init_extern_c.ptx", "deposit");
    static const char *const name[] = { "parts", "n", "rho", "counts", "dx" };
    static const char *const type[] = { "struct", "i32", "f32", "u32", "f32" };
    for (int k = 0; k < 5; k++) {
        cr_expect_str_eq(str(param(spec, k), "name"), name[k], "param %d", k);
        cr_expect_str_eq(str(param(spec, k), "type"), type[k], "param %d", k);
    }
    cr_expect_str_eq(str(param(spec, 3), "role"), "output", "counts: atomics only");
    cr_expect(strstr(str(spec, "description"), "const struct Particle*"), "%s", str(spec, "description"));
    json_decref(spec);
    ts_rmtree(dir);
}

/* A builtin array indexed c[3*i + j] (i * 3, then * 4 to bytes): three
 * elements per thread, where the draft said one. */
Test(init_cli, an_index_stride_of_k_elements_gives_k_per_thread)
{
    need_ptx("build/ptx/tests/ptx/init_extern_c.ptx");
    char dir[] = "/tmp/wh_init_XXXXXX";
    cr_assert(mkdtemp(dir));
    json_t *spec = draft(dir, "build/ptx/tests/ptx/init_extern_c.ptx", "poly");
    cr_expect_str_eq(str(param(spec, 0), "type"), "f32");
    cr_expect_str_eq(str(param(spec, 0), "count"), "3*threads");
    cr_expect_eq(json_integer_value(json_object_get(param(spec, 0), "per_thread")), 3);
    cr_expect_str_eq(str(param(spec, 1), "count"), "threads", "out: one per thread");
    cr_expect(strstr(str(spec, "description"), "float inputs"), "%s", str(spec, "description"));
    cr_expect(!strstr(str(spec, "description"), "every buffer"), "no note contradicts the 3 per thread");
    json_t *grid = json_object_get(spec, "grid");
    cr_expect_str_eq(json_string_value(json_array_get(grid, 0)), "G", "the grid is a constant --set resizes");
    cr_expect_str_eq(str(json_object_get(spec, "constants"), "G"), "64");
    json_decref(spec);
    expect_draft_runs(dir, "poly");
    char path[300];
    snprintf(path, sizeof path, "%s/spec.json", dir);
    const char *resized[] = { path, "--backend", "sim", "--reps", "1", "--quiet", "--set", "G=2" };
    cr_expect_eq(ts_run_cmd(cmd_measure, "measure", resized, 8, NULL, NULL), 0, "--set G=2 on the draft");
    ts_rmtree(dir);
}

/* The declaration reader on forms it reads and on those it leaves to the
 * code: a template type (type empty, name kept), an unnamed builtin, (void). */
Test(init_cli, the_source_reader_leaves_what_it_cannot_read)
{
    char dir[] = "/tmp/wh_init_XXXXXX", path[300];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/k.cu", dir);
    ts_write_text(path, "__device__ int helper(int k);\n"
          "template <int B> __global__ void tk(Box<B> box, unsigned, long long *sums, uint32_t m) {}\n"
          "__global__ void none(void) {}\n"
          "int kern(float a);  /* not a kernel */\n"
          "extern \"C\" __global__ void kern(const double * const * rows, size_t count) {}\n");
    char names[8][64], types[8][64];
    cr_assert_eq(init_source_params(path, "tk", names, types, 8), 4);
    cr_expect_str_eq(names[0], "box");
    cr_expect_str_eq(types[0], "", "a template");
    cr_expect_str_eq(names[1], "", "unnamed");
    cr_expect_str_eq(types[1], "unsigned int");
    cr_expect_str_eq(names[2], "sums");
    cr_expect_str_eq(types[2], "long long*");
    cr_expect_str_eq(types[3], "unsigned int", "uint32_t");
    cr_expect_eq(init_source_params(path, "none", names, types, 8), 0);
    cr_assert_eq(init_source_params(path, "kern", names, types, 8), 2, "the __global__ one");
    cr_expect_str_eq(names[0], "rows");
    cr_expect_str_eq(types[0], "const double**");
    cr_expect_str_eq(types[1], "unsigned long");
    cr_expect_eq(init_source_params(path, "helper", names, types, 8), -1, "not a kernel");
    cr_expect_eq(init_source_params(path, "tk", names, types, 3), -1, "more than max");
    ts_rmtree(dir);
}

/* path as a spec in dir names it leads to the file at want (both real). */
static void expect_leads_to(const char *dir, const char *path, const char *want)
{
    char joined[1400], a[PATH_MAX], b[PATH_MAX];
    cr_assert(path[0] && path[0] != '/', "relative: %s", path);
    snprintf(joined, sizeof joined, "%s/%s", dir, path);
    cr_assert(realpath(joined, a), "%s does not resolve from %s", path, dir);
    cr_assert(realpath(want, b), "%s", want);
    cr_expect_str_eq(a, b, "%s from %s", path, dir);
}

/* With -o the draft names its source and PTX relative to itself, so the
 * three can move together, and it still loads and runs. */
Test(init_cli, a_draft_names_its_files_relative_to_itself)
{
    need_ptx("build/ptx/kernels/bfs.ptx");
    char dir[] = "/tmp/wh_init_XXXXXX", sub[300], cwd[1024];
    cr_assert(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/a/b", dir);
    char mk[400];
    snprintf(mk, sizeof mk, "mkdir -p %s", sub);
    cr_assert_eq(system(mk), 0);
    char abs_ptx[1200];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(abs_ptx, sizeof abs_ptx, "%s/build/ptx/kernels/bfs.ptx", cwd);
    json_t *spec = draft(sub, abs_ptx, "bfs_kernel1");
    expect_leads_to(sub, str(spec, "ptx"), "build/ptx/kernels/bfs.ptx");
    expect_leads_to(sub, str(spec, "source"), "kernels/bfs.cu");
    json_decref(spec);
    expect_draft_runs(sub, "bfs_kernel1 from elsewhere");
    ts_rmtree(dir);
}

Test(init_cli, several_entries_need_entry_and_a_missing_one_is_named)
{
    need_ptx("build/ptx/kernels/bfs.ptx");
    char dir[] = "/tmp/wh_init_XXXXXX", err[300];
    cr_assert(mkdtemp(dir));
    snprintf(err, sizeof err, "%s/err.txt", dir);
    const char *none[] = { "build/ptx/kernels/bfs.ptx" };
    cr_expect_eq(ts_run_cmd(cmd_init, "init", none, 1, NULL, err), 1);
    cr_expect(strstr(ts_read_text(err), "bfs_kernel1, bfs_kernel2"), "%s", ts_read_text(err));
    const char *wrong[] = { "build/ptx/kernels/bfs.ptx", "--entry", "bfs_kernel9" };
    cr_expect_eq(ts_run_cmd(cmd_init, "init", wrong, 3, NULL, err), 1);
    cr_expect(strstr(ts_read_text(err), "bfs_kernel9"), "%s", ts_read_text(err));
    const char *missing[] = { "/nonexistent/k.ptx" };
    cr_expect_eq(ts_run_cmd(cmd_init, "init", missing, 1, NULL, err), 1);
    ts_rmtree(dir);
}

/* An array indexed only by values read from memory (union-find's
 * parent[x], x a query or a parent read before) is one array every thread
 * reads: drafted shared (no per_thread), with a note; the queries, read at
 * the thread's index, stay one per thread. */
Test(init_cli, an_array_indexed_by_loaded_values_is_drafted_shared)
{
    need_ptx("build/ptx/kernels/holdout/union_find_roots.ptx");
    char dir[] = "/tmp/wh_init_XXXXXX";
    cr_assert(mkdtemp(dir));
    json_t *spec = draft(dir, "build/ptx/kernels/holdout/union_find_roots.ptx", NULL);
    cr_expect_str_eq(str(param(spec, 0), "name"), "parent");
    cr_expect_null(json_object_get(param(spec, 0), "per_thread"), "parent is shared");
    cr_expect_str_eq(str(param(spec, 0), "role"), "input");
    cr_expect_str_eq(str(param(spec, 1), "name"), "queries");
    cr_expect_eq(json_integer_value(json_object_get(param(spec, 1), "per_thread")), 1, "a query per thread");
    cr_expect(strstr(str(spec, "description"), "parent is indexed only by values read from memory"), "%s",
              str(spec, "description"));
    cr_expect_null(strstr(str(spec, "description"), "read by a loop that starts at"), "parent[queries[t]] walks no "
                   "row: %s", str(spec, "description"));
    json_decref(spec);
    expect_draft_runs(dir, "union_find_roots");
    ts_rmtree(dir);
}

/* sptrsv_level reads the row lengths and starts at level_rows[t] and
 * walks the columns from row_start[level_rows[t]]: notes name the owner
 * through the index and the rows through it; level_rows itself, read at
 * t, gets neither. */
Test(init_cli, a_row_chosen_through_an_index_gets_owner_notes_through_it)
{
    need_ptx("build/ptx/kernels/corpus/sptrsv_level.ptx");
    char dir[] = "/tmp/wh_init_XXXXXX";
    cr_assert(mkdtemp(dir));
    json_t *spec = draft(dir, "build/ptx/kernels/corpus/sptrsv_level.ptx", NULL);
    const char *d = str(spec, "description");
    static const char *const indexed[] = { "row_start", "row_len" };
    for (int k = 0; k < 2; k++) {
        char want[256];
        snprintf(want, sizeof want, "%s is read at level_rows[t] (t the thread's position): if it is an input and "
                 "thread t's element is the one level_rows[t] names, state \"owner\": { \"index\": \"level_rows\" } "
                 "on it", indexed[k]);
        cr_expect(strstr(d, want), "%s: %s", indexed[k], d);
    }
    cr_expect(strstr(d, "cols is read by a loop that starts at row_start[level_rows[t]] (t the thread's position): if "
                        "row_start is a row pointer and thread t reads row level_rows[t], state \"prefix_sum_of\" (the "
                        "row lengths) on row_start and \"owner\": { \"rows\": \"row_start\", \"through\": "
                        "\"level_rows\" } on cols"), "%s", d);
    cr_expect_null(strstr(d, "level_rows is read"), "%s", d);
    json_decref(spec);
    /* no thread's own index: md_cutoff's positions, read at neighList[t +
     * j*n] in an unrolled loop, and spmv_vector's x, at cols[row_start[w] +
     * lane] */
    static const char *const none[] = { "build/ptx/kernels/corpus/md_cutoff.ptx",
                                        "build/ptx/kernels/corpus/spmv_vector.ptx" };
    for (int k = 0; k < 2; k++) {
        if (access(none[k], R_OK) != 0) continue;
        spec = draft(dir, none[k], NULL);
        cr_expect_null(strstr(str(spec, "description"), "\"index\""), "%s: %s", none[k], str(spec, "description"));
        json_decref(spec);
    }
    ts_rmtree(dir);
}

/* CSR columns read by a loop from row_start[t] (spmv_scalar: cols and
 * vals) get a note naming the owner by rows to state; x, gathered at the
 * columns' values, and the row pointer itself do not, nor any owner
 * through an index.  So do edit_distance's candidates (c = cands +
 * offsets[t], then c[j] in a loop), not bfs's edges (from nodes[t].start:
 * a struct's field, which no owner states). */
Test(init_cli, columns_walked_from_a_row_start_get_an_owner_note)
{
    need_ptx("build/ptx/kernels/corpus/spmv_scalar.ptx");
    char dir[] = "/tmp/wh_init_XXXXXX";
    cr_assert(mkdtemp(dir));
    json_t *spec = draft(dir, "build/ptx/kernels/corpus/spmv_scalar.ptx", NULL);
    const char *d = str(spec, "description");
    static const char *const walked[] = { "cols", "vals" }, *const not_walked[] = { "x", "row_start", "row_len" };
    for (int k = 0; k < 2; k++) {
        char want[256];
        snprintf(want, sizeof want, "%s is read by a loop that starts at row_start[t] (t the thread's position): if "
                 "row_start is a row pointer and thread t reads row t, state \"prefix_sum_of\" (the row lengths) on "
                 "row_start and \"owner\": { \"rows\": \"row_start\" } on %s", walked[k], walked[k]);
        cr_expect(strstr(d, want), "%s: %s", walked[k], d);
    }
    for (int k = 0; k < 3; k++) {
        char unwanted[64];
        snprintf(unwanted, sizeof unwanted, "; %s is read by a loop", not_walked[k]);
        cr_expect_null(strstr(d, unwanted), "%s: %s", not_walked[k], d);
    }
    cr_expect_null(strstr(d, "\"index\""), "no owner through an index: %s", d);
    json_decref(spec);
    if (access("build/ptx/kernels/holdout/edit_distance.ptx", R_OK) == 0) {
        spec = draft(dir, "build/ptx/kernels/holdout/edit_distance.ptx", NULL);
        cr_expect(strstr(str(spec, "description"), "cands is read by a loop that starts at offsets[t]"), "%s",
                  str(spec, "description"));
        json_decref(spec);
    }
    static const struct {
        const char *ptx, *entry;
    } none[] = { { "build/ptx/kernels/bfs.ptx", "bfs_kernel1" } };
    for (int k = 0; k < 1; k++) {
        if (access(none[k].ptx, R_OK) != 0) continue;
        spec = draft(dir, none[k].ptx, none[k].entry);
        cr_expect_null(strstr(str(spec, "description"), "is read by a loop that starts at"), "%s: %s", none[k].ptx,
                       str(spec, "description"));
        json_decref(spec);
    }
    ts_rmtree(dir);
}

/*
 * test_spec_check.c — `warphunt spec check`: a bundled spec passes; a
 * guard that sends every symbolic thread out early is warned about, with
 * the constant named (and is an error under --strict), and the same
 * kernel with the guard open is not; an input too short for its
 * per_thread slices is warned about twice (the slices, and the random
 * input that faults), and one too short for its per_warp slices names
 * the warps; a global the entry never names is warned about; a
 * texture stated as a buffer, with other dimensions or as a surface is
 * warned about; a hash table that may be full with no probe bound is
 * warned about, and so is an index whose range passes what it names;
 * parameters that do not match the entry are an error.
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "core/spec.h"
#include "tests/support.h"

#include <glob.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int status;
    json_t *doc;            /* --json's object */
    char err[4096];         /* stderr */
} checked;

/* spec check SPEC --json [extra...]; stdout and stderr kept. */
static checked spec_check_v(const char *spec, const char *const *extra, int nextra)
{
    char dir[] = "/tmp/wh_spec_check_XXXXXX", out[64], errp[64];
    cr_assert(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(errp, sizeof errp, "%s/err", dir);
    const char *args[8] = { "check", spec, "--json" };
    cr_assert_leq(nextra, 5);
    for (int i = 0; i < nextra; i++) args[3 + i] = extra[i];
    checked c;
    c.status = ts_run_cmd(cmd_spec, "spec", args, 3 + nextra, out, errp);
    c.doc = json_load_file(out, 0, NULL);
    cr_assert(c.doc, "no JSON from spec check %s: %s", spec, ts_read_text(errp));
    snprintf(c.err, sizeof c.err, "%s", ts_read_text(errp));
    ts_rmtree(dir);
    return c;
}

static checked spec_check(const char *spec, const char *extra)
{
    return spec_check_v(spec, &extra, extra ? 1 : 0);
}

/* The strings of --json's array `key` ("warnings", "notes"), one string. */
static const char *joined(const checked *c, const char *key, char *buf, size_t n)
{
    size_t at = 0, k;
    json_t *w;
    buf[0] = '\0';
    json_array_foreach(json_object_get(c->doc, key), k, w)
        at += (size_t)snprintf(buf + at, at < n ? n - at : 0, "%s\n", json_string_value(w));
    return buf;
}

static const char *warnings(const checked *c, char *buf, size_t n)
{
    return joined(c, "warnings", buf, n);
}

static const char *notes_of(const checked *c, char *buf, size_t n)
{
    return joined(c, "notes", buf, n);
}

static size_t nwarnings(const checked *c)
{
    return json_array_size(json_object_get(c->doc, "warnings"));
}

Test(spec_check, a_bundled_spec_passes)
{
    ts_need_ptx("build/ptx/kernels/gt_hash.ptx");
    checked c = spec_check("kernels/gt_hash.json", NULL);
    char w[4096];
    cr_expect_eq(c.status, 0, "%s", c.err);
    cr_expect_eq(nwarnings(&c), 0, "%s", warnings(&c, w, sizeof w));
    cr_expect(json_is_true(json_object_get(c.doc, "ok")));
    json_decref(c.doc);
}

/* Every bundled spec passes --strict (the symbolic stage's check left to
 * the tests of each kernel): the loader's keys, expressions and ranges at
 * every launch and named size ("sizes"), per_thread slices, parameters
 * against the entry, a random input that runs to its end.  (It replaced
 * kernels/check_specs.py.) */
Test(spec_check, every_bundled_spec_passes_strict)
{
    static const char *const globs[] = { "kernels/*.json", "kernels/corpus/*.json" };
    static const char *const extra[] = { "--strict", "--explore-time", "0" };
    int n = 0;
    for (int g = 0; g < 2; g++) {
        glob_t gl;
        cr_assert_eq(glob(globs[g], 0, NULL, &gl), 0, "%s", globs[g]);
        for (size_t i = 0; i < gl.gl_pathc; i++, n++) {
            char ptx[1024];
            wh_error err;
            wh_spec *sp = wh_spec_load(gl.gl_pathv[i], &err);
            bool have_ptx = sp && wh_spec_ptx_path(sp, ptx, sizeof ptx, &err);
            wh_spec_free(sp);
            if (!have_ptx) cr_skip_test("%s: %s (run `make ptx`)", gl.gl_pathv[i], err.msg);
            char w[4096];
            checked c = spec_check_v(gl.gl_pathv[i], extra, 3);
            cr_expect_eq(c.status, 0, "%s: %s %s", gl.gl_pathv[i], warnings(&c, w, sizeof w), c.err);
            json_decref(c.doc);
        }
        globfree(&gl);
    }
    cr_expect_geq(n, 13 + 16, "the bundled kernels and the corpus");
}

/* A global the entry's code never names cannot change its time: warned
 * about by name, the one it does name not. */
Test(spec_check, a_global_the_entry_never_names_is_warned_about)
{
    static const char ptx[] =
        ".version 7.0\n.target sm_80\n.address_size 64\n"
        ".global .align 4 .u32 used_v;\n.global .align 4 .u32 other_v;\n"
        ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<3>;\n"
        "ld.global.u32 %r1, [used_v];\nld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
        "st.global.u32 [%rd2], %r1;\nret;\n}\n";
    static const char spec[] =
        "{\"name\":\"k\",\"source\":\"k.cu\",\"ptx\":\"k.ptx\",\"entry\":\"k\",\"grid\":[1],\"block\":[32],"
        "\"params\":[{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"u32\",\"count\":1,\"role\":\"output\"}],"
        "\"globals\":[{\"name\":\"used_v\",\"type\":\"u32\",\"count\":1,\"role\":\"input\",\"range\":[0,9]},"
        "{\"name\":\"other_v\",\"type\":\"u32\",\"count\":1,\"role\":\"input\",\"range\":[0,9]}]}";
    char dir[] = "/tmp/wh_spec_globals_XXXXXX", path[64];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/k.ptx", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(ptx, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/k.json", dir);
    f = fopen(path, "w");
    cr_assert(f);
    fputs(spec, f);
    fclose(f);
    static const char *const extra[] = { "--explore-time", "0" };
    checked c = spec_check_v(path, extra, 2);
    char w[4096];
    cr_expect_eq(c.status, 0, "a warning is no error: %s", c.err);
    cr_assert_eq(nwarnings(&c), 1, "%s", warnings(&c, w, sizeof w));
    cr_expect(strstr(warnings(&c, w, sizeof w), "global 'other_v': no code entry 'k' can reach names"), "%s", w);
    json_decref(c.doc);
    ts_rmtree(dir);
}

Test(spec_check, symbolic_threads_sent_out_early_are_warned_about)
{
    char w[4096];
    checked c = spec_check("tests/specs/spec_check_first_16.json", NULL);
    cr_expect_eq(c.status, 0, "a warning is no error: %s", c.err);
    cr_assert_eq(nwarnings(&c), 1, "%s", warnings(&c, w, sizeof w));
    warnings(&c, w, sizeof w);
    cr_expect(strstr(w, "never branch on the input"), "%s", w);
    cr_expect(strstr(w, "scalar first = 16"), "the suspect is named: %s", w);
    json_decref(c.doc);

    c = spec_check("tests/specs/spec_check_first_16.json", "--strict");
    cr_expect_eq(c.status, 1, "--strict: a warning is an error");
    cr_expect(json_is_false(json_object_get(c.doc, "ok")));
    json_decref(c.doc);

    c = spec_check("tests/specs/spec_check_first_0.json", NULL);
    cr_expect_eq(c.status, 0);
    cr_expect_eq(nwarnings(&c), 0, "the guard open, the threads branch: %s", warnings(&c, w, sizeof w));
    json_decref(c.doc);
}

/* A structured input too large for the symbolic stage to assume is a note,
 * not a warning: the spec is right, the tool's limit is what the note says,
 * and --strict passes. */
static const char *note_text(const checked *c, int k)
{
    const char *t = json_string_value(json_array_get(json_object_get(c->doc, "notes"), (size_t)k));
    return t ? t : "";
}

Test(spec_check, a_structure_the_symbolic_stage_will_not_assume_is_noted)
{
    static const char *const extra[] = { "--strict", "--explore-time", "0" };
    char w[4096];
    checked c = spec_check_v("tests/specs/structure_large.json", extra, 3);
    cr_expect_eq(c.status, 0, "%s", c.err);
    cr_expect_eq(nwarnings(&c), 0, "%s", warnings(&c, w, sizeof w));
    cr_expect_eq(json_array_size(json_object_get(c.doc, "notes")), 1);
    cr_expect(strstr(note_text(&c, 0), "input 'a' (\"structure\": \"sorted\") has 5002 elements at X = 2"), "%s",
              note_text(&c, 0));
    cr_expect(strstr(c.err, "spec check: note: input 'a'") && strstr(c.err, "ok, with notes"), "%s", c.err);
    json_decref(c.doc);
    c = spec_check_v("tests/specs/structure_sorted.json", extra, 3);
    cr_expect_eq(nwarnings(&c), 0, "%s", warnings(&c, w, sizeof w));
    cr_expect_eq(json_array_size(json_object_get(c.doc, "notes")), 0);
    json_decref(c.doc);
}

/* A probe whose threads finish no path in its time (kd_nearest's first
 * path takes seconds of float solving: its stack walk over a symbolic
 * tree) is a note, --strict passing; a kernel with no branch on its inputs
 * (radix_scatter: its time is its atomics') gets the warning, which says
 * that first. */
Test(spec_check, a_probe_that_finishes_no_path_is_noted, .timeout = 60)
{
    ts_need_ptx("build/ptx/kernels/holdout/kd_nearest.ptx");
    static const char *const extra[] = { "--strict", "--explore-time", "0.2" };
    checked c = spec_check_v("kernels/holdout/kd_nearest.json", extra, 3);
    cr_expect_eq(c.status, 0, "%s", c.err);
    cr_assert_eq(json_array_size(json_object_get(c.doc, "notes")), 1, "%s", c.err);
    cr_expect(strstr(note_text(&c, 0), "finished no path of 2 threads in the probe's 0.2 s"), "%s", note_text(&c, 0));
    cr_expect(strstr(note_text(&c, 0), "hunt --explore-time, 60 s by default"), "%s", note_text(&c, 0));
    json_decref(c.doc);
    static const char *const longer[] = { "--explore-time", "3" };
    c = spec_check_v("kernels/holdout/radix_scatter.json", longer, 2);
    char w[4096];
    cr_expect(strstr(warnings(&c, w, sizeof w), "either the kernel has no branch on its inputs"), "%s", w);
    json_decref(c.doc);
}

/* A neighbour list whose range holds fewer other threads than a list is
 * long is warned about; a list from positions, columns below their rows
 * and shortest-path distances are noted as not assumed by the symbolic
 * stage. */
Test(spec_check, lists_that_cannot_be_distinct_and_unassumed_rows_are_said)
{
    static const char *const extra[] = { "--explore-time", "0" };
    char w[4096];
    checked c = spec_check_v("tests/specs/neighbors_narrow.json", extra, 2);
    cr_expect_eq(nwarnings(&c), 1, "%s", warnings(&c, w, sizeof w));
    cr_expect(strstr(warnings(&c, w, sizeof w), "input 'list' (\"neighbors\"): its range [0, 1] holds fewer threads "
                                                  "than a thread's 2 neighbours and itself"), "%s", w);
    json_decref(c.doc);
    c = spec_check_v("tests/specs/structure_neighbors.json", extra, 2);
    cr_expect_eq(nwarnings(&c), 0, "%s", warnings(&c, w, sizeof w));
    json_decref(c.doc);
    c = spec_check_v("kernels/corpus/sptrsv_level.json", extra, 2);
    cr_expect_eq(nwarnings(&c), 0, "%s", warnings(&c, w, sizeof w));
    cr_expect_not(strstr(c.err, "input 'cols'"), "the symbolic stage assumes \"below_row\" at X = 2: %s", c.err);
    json_decref(c.doc);
    c = spec_check_v("kernels/corpus/sssp_relax.json", extra, 2);
    cr_expect_eq(nwarnings(&c), 0, "%s", warnings(&c, w, sizeof w));
    cr_expect(strstr(c.err, "input 'dist' (\"shortest_paths\"): the symbolic stage does not assume a relaxation "
                            "state"), "%s", c.err);
    json_decref(c.doc);
}

/* A graph whose targets range past the distances' nodes, and a row
 * pointer with more rows than distances: both warned about (and the
 * random input that reads past the distances). */
Test(spec_check, a_graph_past_its_distances_is_warned_about)
{
    static const char *const extra[] = { "--explore-time", "0" };
    char w[4096];
    checked c = spec_check_v("tests/specs/sssp_wide_targets.json", extra, 2);
    cr_expect_eq(nwarnings(&c), 3, "%s", warnings(&c, w, sizeof w));
    cr_expect(strstr(warnings(&c, w, sizeof w), "input 'dist' (\"shortest_paths\"): the targets 'edges' range over "
                                                  "[0, 16384], past the 16384 nodes"), "%s", w);
    cr_expect(strstr(w, "the row pointer 'row_start' has 16385 rows, more than the 16384 distances"), "%s", w);
    cr_expect(strstr(w, "just past its end"), "%s", w);
    json_decref(c.doc);
}

Test(spec_check, an_input_too_short_for_its_slices_is_warned_about)
{
    char w[4096];
    checked c = spec_check("tests/specs/spec_check_small_in.json", NULL);
    cr_expect_eq(c.status, 0, "%s", c.err);
    warnings(&c, w, sizeof w);
    cr_expect_eq(nwarnings(&c), 2, "%s", w);
    cr_expect(strstr(w, "input 'in': per_thread 1 x 256 threads = 256 elements, but its count is 128"), "%s", w);
    cr_expect(strstr(w, "ends with status fault") && strstr(w, "buffer 'in'"), "%s", w);
    json_decref(c.doc);
}

Test(spec_check, parameters_that_do_not_match_the_entry_are_an_error)
{
    char dir[] = "/tmp/wh_spec_check_XXXXXX", spec[64], ptx[PATH_MAX];
    cr_assert(mkdtemp(dir));
    cr_assert(realpath("tests/ptx_sym/early_exit.ptx", ptx));
    snprintf(spec, sizeof spec, "%s/k.json", dir);
    FILE *f = fopen(spec, "w");
    cr_assert(f);
    fprintf(f, "{ \"name\": \"k\", \"source\": \"k.cu\", \"ptx\": \"%s\", \"entry\": \"early_exit\",\n"
               "  \"grid\": [1], \"block\": [32],\n"
               "  \"params\": [ { \"name\": \"in\", \"kind\": \"buffer\", \"type\": \"i32\", \"count\": 32,\n"
               "                  \"role\": \"input\", \"per_thread\": 1, \"range\": [0, 8] },\n"
               "                { \"name\": \"out\", \"kind\": \"buffer\", \"type\": \"i32\", \"count\": 32,\n"
               "                  \"role\": \"output\" } ] }\n", ptx);
    fclose(f);
    checked c = spec_check(spec, NULL);
    cr_expect_eq(c.status, 1);
    const char *e = json_string_value(json_array_get(json_object_get(c.doc, "errors"), 0));
    cr_expect(e && strstr(e, "the spec lists 2 parameters but kernel 'early_exit'"), "%s", e ? e : c.err);
    json_decref(c.doc);
    ts_rmtree(dir);
}

/* A spec of tex_gather whose texture parameter is edited by `edit`
 * (0: as it is, 1: a plain buffer, 2: a 2-D texture, 3: a surface),
 * written beside the PTX so its relative path holds; spec check's
 * warnings. */
#define GATHER "tests/specs/tex_gather.json"

static void check_texture_spec(const char *spec, int edit, char *w, size_t n, size_t *count)
{
    char dir[] = "/tmp/wh_spec_tex_XXXXXX", path[128], cwd[PATH_MAX];
    cr_assert(mkdtemp(dir));
    cr_assert(getcwd(cwd, sizeof cwd));
    json_t *s = ts_load_json(spec);
    char ptx[PATH_MAX + 64];
    snprintf(ptx, sizeof ptx, "%s/build/ptx/tests/ptx/textures.ptx", cwd);
    json_object_set_new(s, "ptx", json_string(ptx));
    json_t *t = json_array_get(json_object_get(s, "params"), 0);
    if (edit == 1) {
        json_object_set_new(t, "kind", json_string("buffer"));
        json_object_set_new(t, "count", json_string("N"));
        json_object_del(t, "texture");
    } else if (edit == 2) {
        json_object_set_new(t, "texture", json_pack("{s:[s,i], s:s}", "dims", "N", 1, "memory", "array"));
    } else if (edit == 3) {
        json_object_set_new(t, "kind", json_string("surface"));
        json_object_del(t, "texture");
        json_object_set_new(t, "surface", json_pack("{s:[s]}", "dims", "N"));
    } else if (edit == 4) {
        json_object_del(json_object_get(t, "texture"), "gather");
    }
    snprintf(path, sizeof path, "%s/spec.json", dir);
    cr_assert_eq(json_dump_file(s, path, 0), 0);
    json_decref(s);
    checked c = spec_check(path, NULL);
    warnings(&c, w, n);
    *count = nwarnings(&c);
    json_decref(c.doc);
    ts_rmtree(dir);
}

/* A texture stated as anything else than the kernel's tex makes it is
 * warned about, naming the parameter and what the code does. */
Test(spec_check, a_texture_stated_otherwise_is_warned_about)
{
    ts_need_ptx("build/ptx/tests/ptx/textures.ptx");
    char w[8192];
    size_t n;
    check_texture_spec(GATHER, 0, w, sizeof w, &n);
    cr_expect_eq(n, 0, "%s", w);
    check_texture_spec(GATHER, 1, w, sizeof w, &n);
    cr_expect(strstr(w, "parameter 'costs': the kernel uses it as a .1d texture object (tex): state it as "
                        "\"kind\": \"texture\""), "%s", w);
    check_texture_spec(GATHER, 2, w, sizeof w, &n);
    cr_expect(strstr(w, "parameter 'costs': a .2d texture in the spec, but the kernel's accesses are .1d"), "%s", w);
    check_texture_spec(GATHER, 3, w, sizeof w, &n);
    cr_expect(strstr(w, "parameter 'costs': a surface in the spec, but the kernel uses it as a texture"), "%s", w);
    /* a texture tld4 gathers from needs an array made for it; one only
     * txq asks about is used */
    check_texture_spec("tests/specs/tex_gather4.json", 0, w, sizeof w, &n);
    cr_expect_eq(n, 0, "%s", w);
    check_texture_spec("tests/specs/tex_gather4.json", 4, w, sizeof w, &n);
    cr_expect(strstr(w, "texture 't': the kernel gathers from it (tld4, tex2Dgather)") && strstr(w, "\"gather\": true"),
              "%s", w);
    check_texture_spec("tests/specs/tex_query.json", 0, w, sizeof w, &n);
    cr_expect_eq(n, 0, "%s", w);
}

/* tensor_tiles.json with its first map stated as a struct scalar, or its
 * second with one dimension: each warned about by name; the spec itself
 * is clean. */
Test(spec_check, a_tensor_map_stated_otherwise_is_warned_about)
{
    char w[8192], dir[64], path[128];
    checked c = spec_check("tests/specs/tensor_tiles.json", NULL);
    cr_expect_eq(nwarnings(&c), 0, "%s", warnings(&c, w, sizeof w));
    json_decref(c.doc);
    json_error_t je;
    json_t *s = json_load_file("tests/specs/tensor_tiles.json", 0, &je);
    cr_assert(s, "%s", je.text);
    json_t *params = json_object_get(s, "params"), *p0 = json_array_get(params, 0), *p1 = json_array_get(params, 1);
    json_object_set_new(p0, "kind", json_string("scalar"));
    json_object_set_new(p0, "type", json_string("struct"));
    json_object_del(p0, "role");
    json_object_del(p0, "range");
    json_object_del(p0, "tensor_map");
    json_t *fields = json_array();
    for (int k = 0; k < 16; k++) {
        char name[8];
        snprintf(name, sizeof name, "q%d", k);
        json_array_append_new(fields, json_pack("{s:s, s:s, s:i}", "name", name, "type", "u64", "value", 0));
    }
    json_object_set_new(p0, "fields", fields);
    json_object_set_new(json_object_get(p1, "tensor_map"), "dims", json_pack("[i]", 256));
    json_object_set_new(json_object_get(p1, "tensor_map"), "box", json_pack("[i]", 32));
    snprintf(dir, sizeof dir, "/tmp/wh_tmapcheck_XXXXXX");
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/spec.json", dir);
    char cwd[1024];
    cr_assert(getcwd(cwd, sizeof cwd));
    char src[1200], ptx[1200];
    snprintf(src, sizeof src, "%s/tests/ptx_sym/tensor_tiles.cu", cwd);
    snprintf(ptx, sizeof ptx, "%s/tests/ptx_sym/tensor_tiles.ptx", cwd);
    json_object_set_new(s, "source", json_string(src));
    json_object_set_new(s, "ptx", json_string(ptx));
    cr_assert_eq(json_dump_file(s, path, 0), 0);
    json_decref(s);
    c = spec_check(path, NULL);
    warnings(&c, w, sizeof w);
    cr_expect(strstr(w, "parameter 'src': the kernel's tensor copies go through it (.2d): state it as \"kind\": "
                        "\"tensor_map\""), "%s", w);
    cr_expect(strstr(w, "tensor map 'dst': 1 dimensions in the spec, but the kernel's tensor copies are .2d"), "%s", w);
    json_decref(c.doc);
    ts_rmtree(dir);
}

/* The spec `json` written to a fresh temporary directory (dir: 64 bytes,
 * ts_rmtree it) as k.json, whose path goes to path; asserted to load. */
static void temp_spec_file(const char *json, char *dir, char *path, size_t size)
{
    wh_error err;
    wh_spec *loaded = ts_temp_spec(json, dir, &err);
    cr_assert(loaded, "%s", err.msg);
    wh_spec_free(loaded);
    snprintf(path, size, "%s/k.json", dir);
}

/* The warnings `spec check` gives on the spec `json` (no symbolic stage),
 * into w. */
static const char *json_warnings(const char *json, char *w, size_t n)
{
    char dir[64], path[96];
    temp_spec_file(json, dir, path, sizeof path);
    const char *extra[2] = { "--explore-time", "0" };
    checked c = spec_check_v(path, extra, 2);
    warnings(&c, w, n);
    json_decref(c.doc);
    ts_rmtree(dir);
    return w;
}

/* per_warp slices past a count: 4 blocks of 64 threads are 8 warps, 2
 * elements each, and the count gives 12 (warps from 6 on own none). */
Test(spec_check, an_input_too_short_for_its_per_warp_slices_is_warned_about)
{
    char cwd[PATH_MAX], json[PATH_MAX + 1024], dir[64], path[96], w[4096];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(json, sizeof json,
             "{\"name\":\"k\",\"source\":\"k.cu\",\"ptx\":\"%s/tests/ptx_sym/early_exit.ptx\",\"entry\":"
             "\"early_exit\",\"grid\":[4],\"block\":[64],\"params\":[{\"name\":\"in\",\"kind\":\"buffer\","
             "\"type\":\"i32\",\"count\":12,\"role\":\"input\",\"per_warp\":2,\"range\":[0,8]},{\"name\":"
             "\"out\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads\",\"role\":\"output\"},"
             "{\"name\":\"first\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":0}]}", cwd);
    temp_spec_file(json, dir, path, sizeof path);
    const char *extra[2] = { "--explore-time", "0" };
    checked c = spec_check_v(path, extra, 2);
    cr_expect(strstr(warnings(&c, w, sizeof w), "input 'in': per_warp 2 x 8 warps = 16 elements, but its count is "
                     "12: warps from 6 on own none of it"), "%s", w);
    json_decref(c.doc);
    ts_rmtree(dir);
}

/* A hash table that may fill every slot with no probe bound is warned
 * about (a lookup of an absent key would not stop); hash_probe's own
 * spec, bounded both ways, is not. */
Test(spec_check, a_table_that_may_be_full_with_no_probe_bound_is_warned_about)
{
    ts_need_ptx("build/ptx/tests/ptx/hash_probe.ptx");
    char cwd[PATH_MAX], json[2 * PATH_MAX + 1024], dir[64], path[96], w[4096];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(json, sizeof json,
             "{\"name\":\"hash_probe\",\"source\":\"%s/tests/ptx/hash_probe.cu\",\"ptx\":\"%s/build/ptx/tests/ptx/"
             "hash_probe.ptx\",\"entry\":\"hash_probe\",\"grid\":[1],\"block\":[32],\"params\":["
             "{\"name\":\"queries\",\"kind\":\"buffer\",\"type\":\"u32\",\"count\":\"threads\",\"role\":\"input\","
             "\"per_thread\":1,\"range\":[1,100]},{\"name\":\"keys\",\"kind\":\"buffer\",\"type\":\"u32\",\"count\":8,"
             "\"role\":\"input\",\"range\":[0,100],\"hash_table\":{\"hash\":\"identity\"}},{\"name\":\"probes\","
             "\"kind\":\"buffer\",\"type\":\"u32\",\"count\":\"threads\",\"role\":\"output\"},{\"name\":\"slots\","
             "\"kind\":\"scalar\",\"type\":\"u32\",\"value\":8},{\"name\":\"max_probes\",\"kind\":\"scalar\","
             "\"type\":\"i32\",\"value\":4}]}", cwd, cwd);
    temp_spec_file(json, dir, path, sizeof path);
    const char *extra[2] = { "--explore-time", "0" };
    checked c = spec_check_v(path, extra, 2);
    cr_expect(strstr(warnings(&c, w, sizeof w), "input 'keys' (\"hash_table\"): max_keys and max_probes allow a full "
                     "table of 8 keys"), "%s", w);
    json_decref(c.doc);
    c = spec_check_v("tests/specs/hash_probe.json", extra, 2);
    cr_expect_null(strstr(warnings(&c, w, sizeof w), "hash_table"), "%s", w);
    json_decref(c.doc);
    ts_rmtree(dir);
}

/* An owner by rows whose rows outgrow it: spmv_scalar's rows of up to
 * K = 16 entries owned 8 to a thread, in a buffer of 8 a row. */
Test(spec_check, rows_longer_than_their_owner_holds_are_warned_about)
{
    ts_need_ptx("build/ptx/kernels/corpus/spmv_scalar.ptx");
    char cwd[PATH_MAX], json[PATH_MAX + 2048], w[4096];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(json, sizeof json,
             "{\"name\":\"k\",\"source\":\"k.cu\",\"ptx\":\"%s/build/ptx/kernels/corpus/spmv_scalar.ptx\","
             "\"entry\":\"spmv_scalar\",\"grid\":[4],\"block\":[64],\"constants\":{\"K\":\"16\"},\"params\":["
             "{\"name\":\"row_start\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads\",\"role\":\"input\","
             "\"per_thread\":1,\"range\":[0,\"threads*K\"],\"prefix_sum_of\":\"row_len\"},"
             "{\"name\":\"row_len\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads\",\"role\":\"input\","
             "\"per_thread\":1,\"range\":[0,\"K\"]},"
             "{\"name\":\"cols\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads*8\",\"role\":\"input\","
             "\"per_thread\":8,\"owner\":{\"rows\":\"row_start\"},\"range\":[0,\"threads-1\"]},"
             "{\"name\":\"vals\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":\"threads*K\",\"role\":\"fixed\","
             "\"init\":{\"generator\":\"const\",\"value\":0.5}},"
             "{\"name\":\"x\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":\"threads\",\"role\":\"fixed\","
             "\"init\":{\"generator\":\"const\",\"value\":1.0}},"
             "{\"name\":\"y\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":\"threads\",\"role\":\"output\"},"
             "{\"name\":\"nrows\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":\"threads\"}]}", cwd);
    json_warnings(json, w, sizeof w);
    cr_expect(strstr(w, "input 'cols' is owned by the rows of 'row_start', whose lengths 'row_len' reach 16, but "
                        "a row's thread holds 8 of its entries (per_thread 8)"), "%s", w);
    cr_expect(strstr(w, "input 'cols' is owned by the rows of 'row_start', whose range reaches 4096, but its count "
                        "is 2048: rows may end past the buffer"), "%s", w);
}

/* By warp, a row's warp holds 32 lanes x per_thread entries:
 * spmv_vector's rows of up to K = 128 entries owned 2 a lane (64 a
 * warp). */
Test(spec_check, rows_longer_than_their_warp_holds_are_warned_about)
{
    ts_need_ptx("build/ptx/kernels/corpus/spmv_vector.ptx");
    char cwd[PATH_MAX], json[PATH_MAX + 2048], w[4096];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(json, sizeof json,
             "{\"name\":\"k\",\"source\":\"k.cu\",\"ptx\":\"%s/build/ptx/kernels/corpus/spmv_vector.ptx\","
             "\"entry\":\"spmv_vector\",\"grid\":[4],\"block\":[64],"
             "\"constants\":{\"K\":\"128\",\"rows\":\"(threads+31)/32\"},\"params\":["
             "{\"name\":\"row_start\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"rows\",\"role\":\"input\","
             "\"per_warp\":1,\"range\":[0,\"rows*K\"],\"prefix_sum_of\":\"row_len\"},"
             "{\"name\":\"row_len\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"rows\",\"role\":\"input\","
             "\"per_warp\":1,\"range\":[0,\"K\"]},"
             "{\"name\":\"cols\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"rows*K\",\"role\":\"input\","
             "\"per_thread\":2,\"owner\":{\"rows\":\"row_start\",\"by\":\"warp\"},\"range\":[0,\"threads-1\"]},"
             "{\"name\":\"vals\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":\"rows*K\",\"role\":\"fixed\","
             "\"init\":{\"generator\":\"const\",\"value\":0.5}},"
             "{\"name\":\"x\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":\"threads\",\"role\":\"fixed\","
             "\"init\":{\"generator\":\"const\",\"value\":1.0}},"
             "{\"name\":\"y\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":\"rows\",\"role\":\"output\"},"
             "{\"name\":\"nrows\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":\"rows\"}]}", cwd);
    cr_expect(strstr(json_warnings(json, w, sizeof w), "input 'cols' is owned by the rows of 'row_start', whose "
                     "lengths 'row_len' reach 128, but a row's warp holds 64 of its entries (32 lanes x per_thread 2)"),
              "%s", w);
}

/* The bundled sptrsv_level spec with its PTX named (a spec written
 * elsewhere finds it so), into json, and each `cut` string (NULL-ended
 * list) replaced by its `put` (NULL: removed) everywhere. */
static void sptrsv_json(char *json, size_t n, const char *const *cut, const char *const *put)
{
    char cwd[PATH_MAX];
    cr_assert(getcwd(cwd, sizeof cwd));
    const char *text = ts_read_text("kernels/corpus/sptrsv_level.json"), *src = "\"source\": \"sptrsv_level.cu\"";
    const char *s_at = strstr(text, src);
    cr_assert(s_at, "sptrsv_level.json's source");
    size_t head = (size_t)(s_at - text) + strlen(src);
    snprintf(json, n, "%.*s, \"ptx\": \"%s/build/ptx/kernels/corpus/sptrsv_level.ptx\"%s", (int)head, text, cwd,
             text + head);
    for (int k = 0; cut[k]; k++) {
        size_t lc = strlen(cut[k]), lp = put[k] ? strlen(put[k]) : 0;
        cr_assert(strstr(json, cut[k]), "%s in sptrsv_level.json", cut[k]);
        for (char *at; (at = strstr(json, cut[k]));) {
            cr_assert_lt(strlen(json) + lp, n + lc);
            memmove(at + lp, at + lc, strlen(at + lc) + 1);
            if (lp)   /* memcpy's source may not be NULL, even for 0 bytes */
                memcpy(at, put[k], lp);
        }
    }
}

/* sptrsv_level with its level's range one row too far: the threads that
 * list row NR own no length and no row (the kernel would read past both),
 * warned about for both buffers owned through the index; the bundled
 * range gives no warning. */
Test(spec_check, an_index_past_what_it_names_is_warned_about)
{
    ts_need_ptx("build/ptx/kernels/corpus/sptrsv_level.ptx");
    char json[8192], w[4096];
    static const char *const cut[] = { "\"range\": [0, \"NR-1\"],", NULL }, *const put[] = { "\"range\": [0, \"NR\"]," };
    sptrsv_json(json, sizeof json, cut, put);
    json_warnings(json, w, sizeof w);
    cr_expect(strstr(w, "input 'row_len' is owned through the index 'level_rows', whose range reaches 32768, but it "
                        "has 32768 elements"), "%s", w);
    cr_expect(strstr(w, "input 'cols' is owned through the index 'level_rows', whose range reaches 32768, but it has "
                        "32768 rows"), "%s", w);
    const char *extra[2] = { "--explore-time", "0" };
    checked c = spec_check_v("kernels/corpus/sptrsv_level.json", extra, 2);
    cr_expect_eq(nwarnings(&c), 0, "%s", warnings(&c, w, sizeof w));
    json_decref(c.doc);
}

/* sptrsv_level stated as before session 52, its rows and columns as
 * slices: notes name the owner through level_rows for the row lengths and
 * starts, and the rows through it for the columns. */
Test(spec_check, rows_read_through_an_index_but_owned_as_slices_are_noted)
{
    ts_need_ptx("build/ptx/kernels/corpus/sptrsv_level.ptx");
    char json[8192], nb[8192], dir[64], path[96];
    static const char *const cut[] = { "\"owner\": { \"index\": \"level_rows\" },",   /* contiguous slices */
                                       "\"owner\": { \"rows\": \"row_start\", \"through\": \"level_rows\" },", NULL };
    static const char *const put[] = { NULL, NULL };
    sptrsv_json(json, sizeof json, cut, put);
    temp_spec_file(json, dir, path, sizeof path);
    static const char *const extra[] = { "--explore-time", "0" };
    checked c = spec_check_v(path, extra, 2);
    notes_of(&c, nb, sizeof nb);
    for (int k = 0; k < 2; k++) {
        char want[256];
        snprintf(want, sizeof want, "input '%s' is read at level_rows[t] (t the thread's position), but owned as "
                 "contiguous slices: if thread t's element is the one level_rows[t] names, say \"owner\": { \"index\": "
                 "\"level_rows\" }", k ? "row_len" : "row_start");
        cr_expect(strstr(nb, want), "%s", nb);
    }
    cr_expect(strstr(nb, "input 'cols' is read by a loop that starts at row_start[level_rows[t]] (t the thread's "
                         "position), but owned as contiguous slices: if row_start is a running sum of row lengths and "
                         "thread t reads row level_rows[t], say \"owner\": { \"rows\": \"row_start\", \"through\": "
                         "\"level_rows\" }"), "%s", nb);
    json_decref(c.doc);
    ts_rmtree(dir);
}

/* Columns the code reads by a loop from row_start[t] but the spec owns as
 * contiguous slices (tests/specs/csr_sssp.json keeps them so) get a note
 * naming the owner by rows; the corpus's spmv_scalar, owned by rows, its
 * sptrsv_level, owned through its level, and the held-out rle_decode,
 * whose seg_start is CSR offsets (no owner states those), get none. */
Test(spec_check, columns_walked_from_a_row_start_but_owned_as_slices_are_noted)
{
    ts_need_ptx("build/ptx/kernels/corpus/sssp_relax.ptx");
    static const char *const extra[] = { "--explore-time", "0" };
    char nb[8192];
    checked c = spec_check_v("tests/specs/csr_sssp.json", extra, 2);
    notes_of(&c, nb, sizeof nb);
    for (int k = 0; k < 2; k++) {
        char want[256];
        snprintf(want, sizeof want, "input '%s' is read by a loop that starts at row_start[t] (t the thread's "
                 "position), but owned as contiguous slices: if row_start is a running sum of row lengths and thread "
                 "t reads row t, say \"owner\": { \"rows\": \"row_start\" }", k ? "weights" : "edges");
        cr_expect(strstr(nb, want), "%s", nb);
    }
    json_decref(c.doc);
    static const char *const others[] = { "kernels/corpus/spmv_scalar.json", "kernels/holdout/rle_decode.json",
                                          "kernels/corpus/sptrsv_level.json" };
    for (int k = 0; k < 3; k++) {
        c = spec_check_v(others[k], extra, 2);
        cr_expect_null(strstr(notes_of(&c, nb, sizeof nb), "read by a loop"), "%s: %s", others[k], nb);
        cr_expect_null(strstr(nb, "is read at"), "%s: %s", others[k], nb);
        json_decref(c.doc);
    }
}

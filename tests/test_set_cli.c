/*
 * test_set_cli.c — `--set NAME=EXPR`: one spec, several problem sizes.  The
 * constant's new value sizes the launch's buffers and domains, changes the
 * spec's hash (so caches and resumes tell the variants apart), and travels
 * with saved inputs and runs, which re-apply it; a name that is no
 * constant, or a bad expression, is refused with what is wrong.  (And a
 * hunt on the sim explains its best input, unless --no-explain.)
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "core/image.h"
#include "tests/support.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static wh_spec *bfs1(void)
{
    wh_error err;
    wh_spec *s = wh_spec_load("kernels/bfs1.json", &err);
    cr_assert(s, "%s", err.msg);
    return s;
}

static uint64_t count_of(const wh_spec *s, const char *name)
{
    wh_error err;
    wh_launch full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(img, "%s", err.msg);
    uint64_t n = img->bufs[wh_image_find(img, name)].count;
    wh_image_free(img);
    return n;
}

Test(set_cli, a_constant_sizes_buffers_and_changes_the_hash)
{
    wh_spec *s = bfs1();
    char before[17];
    memcpy(before, s->hash, sizeof before);
    cr_expect_eq(count_of(s, "edges"), 1024 * 8, "threads*degree, degree 8");
    wh_error err;
    cr_assert(wh_spec_set_const(s, "degree", "2*2", &err), "%s", err.msg);
    cr_expect_eq(count_of(s, "edges"), 1024 * 4);
    cr_expect_str_neq(s->hash, before, "another variant, another hash");
    cr_assert_eq(s->nsets, 1);
    cr_expect_str_eq(s->sets[0], "degree=2*2");
    cr_expect_not(wh_spec_set_const(s, "deg", "4", &err));
    cr_expect(strstr(err.msg, "no constant of that name (constants: G, degree)"), "%s", err.msg);
    cr_expect_not(wh_spec_set_const(s, "degree", "threads+", &err));
    cr_expect(strstr(err.file, "--set degree"), "%s", err.file);
    wh_spec_free(s);
}

/* hunt --set records it; the best input replays and resumes without it. */
Test(set_cli, runs_and_saved_inputs_reapply_their_constants)
{
    if (access("build/ptx/kernels/bfs.ptx", R_OK) != 0) cr_skip_test("PTX not built: run `make ptx`");
    char dir[] = "/tmp/wh_set_XXXXXX", run[128], res[128], path[300], out[300];
    cr_assert(mkdtemp(dir));
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(res, sizeof res, "%s/results", dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
    const char *hunt[] = { "bfs1", "--backend", "sim", "--strategy", "random-ga", "--evals", "30", "--population",
                           "10", "--set", "degree=4", "-o", run, "--results", res, "--quiet" };
    cr_assert_eq(ts_run_cmd(cmd_hunt, "hunt", hunt, 15, NULL, NULL), 0);
    snprintf(path, sizeof path, "%s/run.json", run);
    json_t *doc = ts_load_json(path);
    cr_expect_str_eq(json_string_value(json_array_get(json_object_get(doc, "spec_sets"), 0)), "degree=4");
    json_decref(doc);
    snprintf(path, sizeof path, "%s/best/manifest.json", run);
    doc = ts_load_json(path);
    cr_expect_str_eq(json_string_value(json_array_get(json_object_get(doc, "spec_sets"), 0)), "degree=4");
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(json_object_get(doc, "buffers"), 1), "count")),
                 1024 * 4, "edges of the degree-4 variant");
    json_decref(doc);
    /* a hunt on the sim explains its best input (with the run's constants) */
    snprintf(path, sizeof path, "%s/explain/explain.json", run);
    doc = ts_load_json(path);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "kernel")), "bfs1");
    json_decref(doc);
    snprintf(path, sizeof path, "%s/explain", run);
    ts_rmtree(path);
    const char *replay[] = { run, "--backend", "sim", "--reps", "1", "--json", "--quiet" };
    cr_expect_eq(ts_run_cmd(cmd_replay, "replay", replay, 7, out, NULL), 0, "the input's own constants");
    const char *resume[] = { "--resume", run, "--evals", "50", "--quiet", "--no-explain" };
    cr_expect_eq(ts_run_cmd(cmd_hunt, "hunt", resume, 6, NULL, NULL), 0, "the run's own constants");
    cr_expect_neq(access(path, F_OK), 0, "--no-explain: no explain/");
    ts_rmtree(dir);
}

/* A launch written with constants ("grid": ["G", 1, 1]): --set G resizes
 * it, and the buffers sized by threads follow; a launch that would not be
 * one is refused naming its place, and so is a launch that depends on
 * itself (threads, or a constant that names it). */
Test(set_cli, a_constant_sizes_the_launch)
{
    char dir[64], dir2[64];
    wh_error err;
    wh_spec *s = ts_temp_spec("{ \"name\": \"g\", \"source\": \"vec_add.cu\", \"entry\": \"vec_add\",\n"
                              "  \"constants\": { \"G\": \"4\", \"B\": \"2*64\", \"N\": \"threads\" },\n"
                              "  \"grid\": [\"G\"], \"block\": [\"B\", 1, 1],\n"
                              "  \"params\": [ { \"name\": \"a\", \"kind\": \"buffer\", \"type\": \"f32\", "
                              "\"count\": \"N\", \"role\": \"input\", \"per_thread\": 1 } ] }", dir, &err);
    cr_assert(s, "%s", err.msg);
    cr_expect_eq(s->launch.grid[0], 4);
    cr_expect_eq(s->launch.block[0], 128);
    cr_expect_eq(count_of(s, "a"), 4 * 128);
    char before[17];
    memcpy(before, s->hash, sizeof before);
    cr_assert(wh_spec_set_const(s, "G", "1024", &err), "%s", err.msg);
    cr_expect_eq(s->launch.grid[0], 1024);
    cr_expect_eq(count_of(s, "a"), 1024 * 128, "N = threads follows the launch");
    cr_expect_str_neq(s->hash, before);
    cr_expect_not(wh_spec_set_const(s, "B", "2048", &err));
    cr_expect(strstr(err.msg, "$.block[0] = 2048"), "%s", err.msg);
    cr_expect_eq(s->launch.block[0], 128, "a refused --set leaves the launch as it was");
    cr_expect_not(wh_spec_set_const(s, "G", "0", &err));
    cr_expect_eq(s->launch.grid[0], 1024);
    wh_spec_free(s);
    wh_spec *t = ts_temp_spec("{ \"name\": \"g\", \"source\": \"vec_add.cu\", \"entry\": \"vec_add\",\n"
                              "  \"constants\": { \"N\": \"threads\" }, \"grid\": [\"N\"], \"block\": [32],\n"
                              "  \"params\": [] }", dir2, &err);
    cr_expect_null(t);
    cr_expect(strstr(err.msg, "cannot depend on itself"), "%s", err.msg);
    cr_expect_str_eq(err.path, "$.grid[0]");
    ts_rmtree(dir);
    ts_rmtree(dir2);
}

/* "sizes": named sets of constants.  --size NAME applies them as --set
 * would (recorded, hashed), before the command line's --set; a size that
 * names no constant is refused at load with its place, an unknown size
 * names the sizes there are, and spec check refuses a size whose launch or
 * image cannot be built. */
Test(set_cli, a_named_size_is_a_list_of_sets)
{
    char dir[64], dir2[64], dir3[64];
    wh_error err;
    const char *head = "{ \"name\": \"g\", \"source\": \"vec_add.cu\", \"entry\": \"vec_add\",\n"
                       "  \"constants\": { \"G\": \"4\", \"N\": \"threads\" }, \"grid\": [\"G\"], \"block\": [128],\n";
    const char *tail = "  \"params\": [ { \"name\": \"a\", \"kind\": \"buffer\", \"type\": \"f32\", "
                       "\"count\": \"N\", \"role\": \"input\", \"per_thread\": 1 } ] }";
    char text[1024];
    snprintf(text, sizeof text, "%s  \"sizes\": { \"large\": [\"G=1000\"], \"wide\": [\"G=8\", \"N=threads*2\"] },\n%s",
             head, tail);
    wh_spec *s = ts_temp_spec(text, dir, &err);
    cr_assert(s, "%s", err.msg);
    cr_assert_eq(s->nsizes, 2);
    char before[17];
    memcpy(before, s->hash, sizeof before);
    cr_assert(wh_spec_apply_size(s, "wide", &err), "%s", err.msg);
    cr_expect_eq(s->launch.grid[0], 8);
    cr_expect_eq(count_of(s, "a"), 2 * 8 * 128);
    cr_assert_eq(s->nsets, 2, "recorded as the sets it stands for");
    cr_expect_str_eq(s->sets[0], "G=8");
    cr_expect_str_eq(s->sets[1], "N=threads*2");
    cr_expect_str_neq(s->hash, before);
    cr_expect_not(wh_spec_apply_size(s, "huge", &err));
    cr_expect(strstr(err.msg, "no size of that name (sizes: large, wide)"), "%s", err.msg);
    wh_spec_free(s);

    /* the CLI: --size, then --set over it */
    cli_run_options ro;
    cli_run_options_init(&ro);
    wh_error scratch;
    char spec_path[128];
    snprintf(spec_path, sizeof spec_path, "%s/k.json", dir);
    s = wh_spec_load(spec_path, &scratch);
    cr_assert(s, "%s", scratch.msg);
    cr_assert_eq(cli_run_option(&ro, CLI_OPT_SIZE, "large", &err), 1);
    cr_assert_eq(cli_run_option(&ro, CLI_OPT_SET, "G=500", &err), 1);
    cr_assert(cli_apply_run_sets(s, &ro, &err), "%s", err.msg);
    cr_expect_eq(s->launch.grid[0], 500, "--set after --size wins");
    cr_expect_str_eq(s->sets[0], "G=1000");
    wh_spec_free(s);

    snprintf(text, sizeof text, "%s  \"sizes\": { \"large\": [\"M=1000\"] },\n%s", head, tail);
    cr_expect_null(ts_temp_spec(text, dir2, &err));
    cr_expect(strstr(err.msg, "one of the spec's constants"), "%s", err.msg);
    cr_expect_str_eq(err.path, "$.sizes.large[0]");

    /* 2^31 blocks of 128 f32: an image past the 4 GiB limit */
    snprintf(text, sizeof text, "%s  \"sizes\": { \"huge\": [\"G=2147483647\"] },\n%s", head, tail);
    wh_spec *huge = ts_temp_spec(text, dir3, &err);
    cr_assert(huge, "%s", err.msg);
    wh_spec_free(huge);
    snprintf(spec_path, sizeof spec_path, "%s/k.json", dir3);
    const char *check[] = { "check", spec_path, "--explore-time", "0", "--quiet" };
    char out[128];
    snprintf(out, sizeof out, "%s/err.txt", dir3);
    cr_expect_eq(ts_run_cmd(cmd_spec, "spec", check, 5, NULL, out), 1);
    const char *said = ts_read_text(out);
    cr_expect(strstr(said, "--size huge") && strstr(said, "GiB"), "%s", said);
    ts_rmtree(dir);
    ts_rmtree(dir2);
    ts_rmtree(dir3);
}

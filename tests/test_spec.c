/*
 * test_spec.c — the kernel spec loader and its expressions: a spec using
 * every feature loads with the right values (how `measure --check`
 * compares each output buffer too), and each kind of mistake is reported
 * with the file, the JSON path and what was expected.
 */
#include <criterion/criterion.h>

#include "core/expr.h"
#include "core/image.h"
#include "core/spec.h"
#include "tests/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int64_t eval_text(const char *text, int64_t threads)
{
    static const char *const names[] = { "threads", "k" };
    int64_t vars[2] = { threads, 7 };
    wh_error err;
    wh_expr *e = wh_expr_parse(text, names, 2, &err);
    cr_assert(e, "parse %s: %s", text, err.msg);
    int64_t v = 0;
    cr_assert(wh_expr_eval(e, vars, &v, &err), "eval %s: %s", text, err.msg);
    wh_expr_free(e);
    return v;
}

Test(expr, one_variable_can_be_replaced_for_one_evaluation)
{
    static const char *const names[] = { "threads", "k" };
    int64_t vars[2] = { 10, 7 }, v = 0;
    wh_error err;
    wh_expr *e = wh_expr_parse("threads * 100 + k", names, 2, &err);
    cr_assert(e, "%s", err.msg);
    cr_expect(wh_expr_eval_with(e, vars, 1, 3, &v, &err), "%s", err.msg);
    cr_expect_eq(v, 1003);
    cr_expect(wh_expr_eval_with(e, vars, 0, 2, &v, &err), "%s", err.msg);
    cr_expect_eq(v, 207);
    cr_expect_eq(vars[0], 10, "the variables are not written");
    cr_expect(wh_expr_eval(e, vars, &v, &err));
    cr_expect_eq(v, 1007);
    wh_expr_free(e);
}

Test(expr, arithmetic_precedence_and_functions)
{
    cr_expect_eq(eval_text("1 + 2 * 3", 0), 7);
    cr_expect_eq(eval_text("(1 + 2) * 3", 0), 9);
    cr_expect_eq(eval_text("threads*4 - k", 10), 33);
    cr_expect_eq(eval_text("-threads % 3", 10), -1);
    cr_expect_eq(eval_text("max(threads, 1024) / min(k, 2)", 5), 512);
    cr_expect_eq(eval_text("0x10 + 010", 0), 16 + 8);
    cr_expect_eq(eval_text("--3", 0), 3);
}

/* Comparisons give 1 or 0 and bind looser than arithmetic; a conditional
 * evaluates only its branch taken (a held-out author wrote "837799 in
 * lane 0 only" as 1+837798*(1-min(i%32,1)) for want of them). */
Test(expr, comparisons_and_conditionals)
{
    cr_expect_eq(eval_text("threads % 32 == 0 ? 837799 : 1", 64), 837799);
    cr_expect_eq(eval_text("threads % 32 == 0 ? 837799 : 1", 65), 1);
    cr_expect_eq(eval_text("1 + 2 < 4", 0), 1);
    cr_expect_eq(eval_text("threads <= 3", 4), 0);
    cr_expect_eq(eval_text("(threads > 3) + (threads >= 4) + (threads != 4) + (threads == 4)", 4), 3);
    cr_expect_eq(eval_text("threads < 2 ? 10 : threads < 5 ? 20 : 30", 3), 20, "nests to the right");
    cr_expect_eq(eval_text("max(threads < 2, 7 / (threads == 0 ? 1 : threads))", 7), 1);
    cr_expect_eq(eval_text("threads == 0 ? 1 : 100 / threads", 0), 1, "the branch not taken is not evaluated");
    cr_expect_eq(eval_text("k==7?1:2", 0), 1, "no spaces needed");
}

static void expect_parse_error(const char *text, const char *fragment)
{
    static const char *const names[] = { "threads" };
    wh_error err;
    wh_error_clear(&err);
    wh_expr *e = wh_expr_parse(text, names, 1, &err);
    cr_expect_null(e, "'%s' should not parse", text);
    wh_expr_free(e);
    cr_expect(strstr(err.msg, fragment), "'%s': message '%s' lacks '%s'", text, err.msg, fragment);
}

Test(expr, parse_errors_say_where)
{
    expect_parse_error("threads +", "unexpected end");
    expect_parse_error("thread * 2", "unknown name 'thread'");
    expect_parse_error("(threads", "expected ')'");
    expect_parse_error("threads 2", "unexpected text");
    expect_parse_error("12abc", "bad integer");
    expect_parse_error("max(1)", "expected ','");
    expect_parse_error("", "unexpected end");
    expect_parse_error("1 < 2 < 3", "comparisons do not chain");
    expect_parse_error("threads ? 1", "expected ':'");
    expect_parse_error("threads = 1", "unexpected text");
}

Test(expr, overflow_and_division_by_zero_are_errors)
{
    static const char *const names[] = { "threads" };
    int64_t vars[1] = { 0 }, v;
    wh_error err;
    wh_expr *e = wh_expr_parse("10 / threads", names, 1, &err);
    cr_assert(e);
    cr_expect_not(wh_expr_eval(e, vars, &v, &err));
    cr_expect(strstr(err.msg, "division by zero"));
    wh_expr_free(e);
    e = wh_expr_parse("9223372036854775807 + 1", names, 1, &err);
    cr_assert(e);
    cr_expect_not(wh_expr_eval(e, vars, &v, &err));
    cr_expect(strstr(err.msg, "overflow"));
    wh_expr_free(e);
}

Test(spec, full_spec_loads_every_feature)
{
    wh_error err;
    wh_spec *s = wh_spec_load("tests/specs/full.json", &err);
    cr_assert(s, "%s %s", err.path, err.msg);
    cr_expect_str_eq(s->name, "full");
    cr_expect_str_eq(s->entry, "full");
    cr_expect_eq(s->launch.grid[0], 4);
    cr_expect_eq(s->launch.grid[1], 2);
    cr_expect_eq(s->launch.grid[2], 1);
    cr_expect_eq(s->launch.block[0], 64);
    cr_expect_eq(s->nsym_threads, 2);
    cr_expect_eq(s->sym_threads[1], 3);
    cr_expect_eq(s->max_iter, 8);
    cr_expect_eq(s->nparams, 9);
    cr_expect_eq(s->nconsts, 3);
    cr_expect_eq(strlen(s->hash), 16);

    const wh_param *nodes = &s->params[1];
    cr_expect_eq(nodes->type, WH_STRUCT);
    cr_expect_eq(nodes->nfields, 3);
    cr_expect_eq(nodes->fields[1].offset, 4);  /* u8 after i32 */
    cr_expect_eq(nodes->fields[2].offset, 8);  /* f64 aligned to 8 */
    cr_expect_eq(nodes->elem_size, 16);
    cr_expect_eq(nodes->elem_align, 8);
    cr_expect_eq(s->params[3].per_thread, 0, "no per_thread: shared");
    cr_expect_eq(s->params[2].per_thread, 4);
    cr_expect_eq(s->params[4].role, WH_ROLE_FIXED);
    cr_expect_eq(s->params[4].init, WH_INIT_IOTA);
    cr_expect_eq(s->params[7].kind, WH_SCALAR);
    cr_expect_float_eq(s->params[8].fvalue, 0.5, 1e-12);

    /* Constants and counts for the full launch and a 3-thread one. */
    int64_t vars[16];
    wh_launch full = wh_spec_launch_full(s);
    cr_assert(wh_spec_vars(s, &full, vars, &err), "%s", err.msg);
    cr_expect_eq(vars[WH_VAR_THREADS], 512);
    cr_expect_eq(vars[WH_VAR_BLOCKS], 8);
    cr_expect_eq(vars[WH_VAR_BLOCK], 64);
    cr_expect_eq(vars[WH_VAR_CONST0 + 2], 2048, "edges = nodes*degree");
    wh_launch x3 = wh_launch_threads(3);
    cr_assert(wh_spec_vars(s, &x3, vars, &err));
    int64_t count;
    cr_assert(wh_spec_eval(s, s->params[2].count, vars, "count", &count, &err));
    cr_expect_eq(count, 12);
    wh_spec_free(s);
}

Test(spec, default_symbolic_threads)
{
    char path[] = "/tmp/wh_spec_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *text = "{\"name\":\"d\",\"source\":\"d.cu\",\"entry\":\"d\",\"grid\":[1],\"block\":[32],\"params\":[]}";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    wh_error err;
    wh_spec *s = wh_spec_load(path, &err);
    unlink(path);
    cr_assert(s, "%s", err.msg);
    cr_expect_eq(s->nsym_threads, 3);
    cr_expect_eq(s->sym_threads[0], 2);
    cr_expect_eq(s->sym_threads[2], 4);
    wh_spec_free(s);
}

/* Load a spec whose params list is `params` (or a whole document when
 * `whole` is set) from a temporary file; `file` receives its name. */
static wh_spec *load_doc(const char *doc, bool whole, char file[23], wh_error *err)
{
    snprintf(file, 23, "/tmp/wh_badspec_XXXXXX");
    int fd = mkstemp(file);
    cr_assert(fd >= 0);
    char text[4096];
    if (whole) snprintf(text, sizeof text, "%s", doc);
    else snprintf(text, sizeof text,
                  "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[2],\"block\":[32],"
                  "\"params\":[%s]}", doc);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    wh_error_clear(err);
    wh_spec *s = wh_spec_load(file, err);
    unlink(file);
    return s;
}

/* ... and check the error's path and message. */
static void expect_spec_error(const char *doc, bool whole, const char *path_frag, const char *msg_frag)
{
    char file[23];
    wh_error err;
    wh_spec *s = load_doc(doc, whole, file, &err);
    cr_expect_null(s, "should fail: %s", doc);
    wh_spec_free(s);
    cr_expect_str_eq(err.file, file);
    cr_expect(strstr(err.path, path_frag), "path '%s' lacks '%s' (%s)", err.path, path_frag, err.msg);
    cr_expect(strstr(err.msg, msg_frag), "message '%s' lacks '%s'", err.msg, msg_frag);
    cr_expect_eq(wh_error_exit_status(&err), 1);
}

/* An unknown name's message lists the known ones while they fit: a long
 * constant name (fuzz_spec found one writing past the message) ends the
 * list with an ellipsis.  tests/fuzz/seeds/spec/regress_long_constant_name.json */
Test(spec, unknown_names_list_what_fits)
{
    char name[301], doc[1024];
    memset(name, 'K', 300);
    name[300] = 0;
    snprintf(doc, sizeof doc, "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[2],\"block\":[32],"
             "\"constants\":{\"%s\":\"8\"},\"params\":[{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\","
             "\"count\":\"zz\",\"role\":\"output\"}]}", name);
    expect_spec_error(doc, true, "$.params[0].count", "unknown name 'zz' (known: threads blocks block i ..., min(), max())");
}

Test(spec, errors_name_the_json_path)
{
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i33\",\"count\":1,\"role\":\"input\"}",
                      false, "$.params[0].type", "expected a type");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1,\"role\":\"input\",\"rnage\":[0,1]}",
                      false, "$.params[0]", "unknown key \"rnage\"");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"thread\",\"role\":\"input\"}",
                      false, "$.params[0].count", "unknown name 'thread'");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1}",
                      false, "$.params[0]", "needs \"role\"");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1,\"role\":\"inout\"}",
                      false, "$.params[0]", "unknown role");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1,\"role\":\"input\",\"range\":[0]}",
                      false, "$.params[0].range", "[lo, hi]");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":1,\"role\":\"input\",\"range\":[2.0,1.0]}",
                      false, "$.params[0].range", "empty range");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1,\"role\":\"fixed\"}",
                      false, "$.params[0]", "needs \"init\"");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1,\"role\":\"output\",\"per_thread\":1}",
                      false, "$.params[0].per_thread", "only for input");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"struct\",\"count\":1,\"role\":\"input\"}",
                      false, "$.params[0]", "needs \"fields\"");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"struct\",\"count\":1,\"role\":\"input\","
                      "\"fields\":[{\"name\":\"x\",\"type\":\"i32\"},{\"name\":\"x\",\"type\":\"i8\"}]}",
                      false, "$.params[0].fields[1]", "duplicate field");
    expect_spec_error("{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\"}", false, "$.params[0]", "needs \"value\"");
    expect_spec_error("{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":1,\"role\":\"input\"}",
                      false, "$.params[0]", "for buffers");
    /* a struct passed by value: values on its fields, no ranges */
    expect_spec_error("{\"name\":\"c\",\"kind\":\"scalar\",\"type\":\"struct\","
                      "\"fields\":[{\"name\":\"x\",\"type\":\"i32\",\"value\":1},{\"name\":\"y\",\"type\":\"f32\"}]}",
                      false, "$.params[0].fields[1]", "needs \"value\"");
    expect_spec_error("{\"name\":\"c\",\"kind\":\"scalar\",\"type\":\"struct\","
                      "\"fields\":[{\"name\":\"x\",\"type\":\"i32\",\"value\":1,\"range\":[0,1]}]}",
                      false, "$.params[0].fields[0]", "unknown key \"range\"");
    expect_spec_error("{\"name\":\"c\",\"kind\":\"scalar\",\"type\":\"struct\",\"value\":1,"
                      "\"fields\":[{\"name\":\"x\",\"type\":\"i32\",\"value\":1}]}",
                      false, "$.params[0]", "values go on its fields");
    expect_spec_error("{\"name\":\"c\",\"kind\":\"scalar\",\"type\":\"struct\","
                      "\"fields\":[{\"name\":\"x\",\"type\":\"f64\",\"value\":\"1\"}]}",
                      false, "$.params[0].fields[0].value", "expected a number");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":1},"
                      "{\"name\":\"a\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":1}",
                      false, "$.params[1].name", "duplicate name \"a\"");
    expect_spec_error("{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[0],\"block\":[32],\"params\":[]}",
                      true, "$.grid[0]", "positive integer");
    expect_spec_error("{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[2048],\"params\":[]}",
                      true, "$.block", "at most 1024");
    expect_spec_error("{\"name\":\"k\",\"source\":\"k.cu\",\"grid\":[1],\"block\":[32],\"params\":[]}",
                      true, "$", "missing key \"entry\"");
    expect_spec_error("{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[32],"
                      "\"symbolic\":{\"threads\":[3,2]},\"params\":[]}",
                      true, "$.symbolic.threads[1]", "must increase");
    expect_spec_error("{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[32],"
                      "\"constants\":{\"a\":\"b\",\"b\":1},\"params\":[]}",
                      true, "$.constants.a", "unknown name 'b'");
}

/* A spec that loads but whose image cannot be built: the error's path and message. */
static void expect_image_error(const char *params, const char *path_frag, const char *msg_frag)
{
    char file[23];
    wh_error err;
    wh_spec *s = load_doc(params, false, file, &err);
    cr_assert(s, "%s: %s", params, err.msg);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_expect_null(img, "should fail: %s", params);
    cr_expect(strstr(err.path, path_frag), "path '%s' lacks '%s' (%s)", err.path, path_frag, err.msg);
    cr_expect(strstr(err.msg, msg_frag), "message '%s' lacks '%s'", err.msg, msg_frag);
    cr_expect_eq(wh_error_exit_status(&err), 1);
    wh_image_free(img);
    wh_spec_free(s);
}

/* Numbers the element type cannot hold (found by fuzz_spec: a u32 buffer
 * filled with 1e105 was an undefined conversion in the image code). */
Test(spec, numbers_must_fit_their_type)
{
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"u32\",\"count\":1,\"role\":\"fixed\","
                      "\"init\":{\"generator\":\"const\",\"value\":1e105}}", false, "init.value",
                      "1e+105 does not fit u32 (an integer in the type's range)");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i8\",\"count\":1,\"role\":\"fixed\","
                      "\"init\":{\"generator\":\"const\",\"value\":2.5}}", false, "init.value", "2.5 does not fit i8");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"f32\",\"count\":1,\"role\":\"input\","
                      "\"range\":[0, 1e300]}", false, "range[1]", "1e+300 does not fit f32");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"scalar\",\"type\":\"f32\",\"value\":-1e39}", false, "value",
                      "does not fit f32");
}

#define SPEC_HEAD "{\"source\":\"k.cu\",\"entry\":\"k\","

/* Hostile specs (issue: hostile input): each a clear error, never a crash,
 * a wrap or a silent truncation. */
Test(spec, hostile_specs_hit_limits_with_clear_errors)
{
    expect_spec_error(SPEC_HEAD "\"name\":\"k\",\"grid\":[1,70000],\"block\":[32],\"params\":[]}", true,
                      "$.grid[1]", "at most 65535");
    expect_spec_error(SPEC_HEAD "\"name\":\"k\",\"grid\":[2147483647,65535,65535],\"block\":[1024],\"params\":[]}",
                      true, "$.grid", "at most 2^40 threads");
    expect_spec_error(SPEC_HEAD "\"name\":\"../../x\",\"grid\":[1],\"block\":[32],\"params\":[]}", true,
                      "$.name", "plain name");
    expect_spec_error(SPEC_HEAD "\"name\":\"k\",\"grid\":[1],\"block\":[2],\"symbolic\":{\"threads\":[2,3]},"
                      "\"params\":[]}", true, "$.symbolic.threads", "do not fit in a block of 2");
    /* 100,000 terms: refused by size, not by a stack overflow */
    size_t n = 100000;
    char *big = malloc(2 * n + 128);
    cr_assert(big);
    int at = sprintf(big, "{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"role\":\"input\",\"count\":\"1");
    for (size_t i = 1; i < n; i++)
        at += sprintf(big + at, "+1");
    sprintf(big + at, "\"}");
    char file[] = "/tmp/wh_bigexpr_XXXXXX";
    int fd = mkstemp(file);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    cr_assert(f);
    fprintf(f, SPEC_HEAD "\"name\":\"k\",\"grid\":[1],\"block\":[32],\"params\":[%s]}", big);
    cr_assert_eq(fclose(f), 0);
    wh_error err;
    wh_error_clear(&err);
    wh_spec *s = wh_spec_load(file, &err);
    unlink(file);
    cr_expect_null(s);
    cr_expect(strstr(err.msg, "more than 4096"), "%s", err.msg);
    cr_expect_lt(strlen(err.msg), 300, "the message quotes the whole expression");
    wh_spec_free(s);
    free(big);
    /* images: sizes, per_thread, scalar values */
    expect_image_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"2147483648\","
                       "\"role\":\"input\"}", "$.params[0].count", "limited to 4 GiB");
    expect_image_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"u8\",\"count\":\"3221225472\",\"role\":\"output\"},"
                       "{\"name\":\"b\",\"kind\":\"buffer\",\"type\":\"u8\",\"count\":\"2147483648\",\"role\":\"output\"}",
                       "$.params[1].count", "more than 4 GiB (at buffer \"b\"");
    expect_image_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads\","
                       "\"role\":\"input\",\"per_thread\":4611686018427387904}", "$.params[0].per_thread",
                       "more than its 64 elements");
    expect_image_error("{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"u32\",\"value\":\"1099511627776\"}",
                       "$.params[0]", "does not fit a u32");
    expect_image_error("{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"u32\",\"value\":-1}",
                       "$.params[0]", "value -1 does not fit a u32");
    expect_image_error("{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i8\",\"value\":128}",
                       "$.params[0]", "value 128 does not fit a i8");
}

#define OUT_NAMED(N) "{\"name\":\"" N "\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1,\"role\":\"output\""
#define OUT_I32 OUT_NAMED("o")

Test(spec, output_buffers_say_how_they_are_checked)
{
    char file[23];
    wh_error err;
    wh_spec *s = load_doc(OUT_I32 "}," OUT_NAMED("e") ",\"check\":\"exact\"},"
                          OUT_NAMED("m") ",\"check\":\"multiset\"},"
                          OUT_NAMED("n") ",\"check\":\"none\",\"check_why\":\"atomics race\"},"
                          "{\"name\":\"in\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1,\"role\":\"input\"}",
                          false, file, &err);
    cr_assert(s, "%s %s", err.path, err.msg);
    cr_expect_eq(s->params[0].check, WH_CHECK_EXACT, "the default");
    cr_expect_eq(s->params[1].check, WH_CHECK_EXACT);
    cr_expect_eq(s->params[2].check, WH_CHECK_MULTISET);
    cr_expect_null(s->params[2].check_why);
    cr_expect_eq(s->params[3].check, WH_CHECK_NONE);
    cr_expect_str_eq(s->params[3].check_why, "atomics race");
    cr_expect_eq(s->params[4].check, WH_CHECK_EXACT, "inputs are never compared, the field is its default");
    cr_expect_str_eq(wh_check_name(WH_CHECK_MULTISET), "multiset");
    wh_spec_free(s);

    /* gt_hash's table holds the same keys in any order; which thread won which slot is not compared */
    s = wh_spec_load("kernels/gt_hash.json", &err);
    cr_assert(s, "%s %s", err.path, err.msg);
    cr_expect_eq(s->params[1].check, WH_CHECK_MULTISET, "table");
    cr_expect_eq(s->params[2].check, WH_CHECK_NONE, "slot_of");
    cr_expect_eq(s->params[3].check, WH_CHECK_NONE, "probes");
    cr_expect_eq(s->params[0].check, WH_CHECK_EXACT, "key");
    wh_spec_free(s);
}

/* An input the kernel writes its result over: "in_place", which may say
 * how it is checked; nothing else may be in place. */
Test(spec, an_input_written_in_place_is_returned)
{
    char file[23];
    wh_error err;
    wh_spec *s = load_doc("{\"name\":\"keys\",\"kind\":\"buffer\",\"type\":\"u32\",\"count\":4,\"role\":\"input\","
                          "\"in_place\":true,\"check\":\"multiset\"},"
                          "{\"name\":\"in\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1,\"role\":\"input\"},"
                          OUT_I32 "}",
                          false, file, &err);
    cr_assert(s, "%s %s", err.path, err.msg);
    cr_expect(s->params[0].in_place);
    cr_expect(wh_param_returned(&s->params[0]), "an in-place input is a result");
    cr_expect_eq(s->params[0].check, WH_CHECK_MULTISET);
    cr_expect_not(wh_param_returned(&s->params[1]), "a plain input is not");
    cr_expect(wh_param_returned(&s->params[2]), "an output is");
    wh_spec_free(s);
    expect_spec_error(OUT_I32 ",\"in_place\":true}", false, "$.params[0].in_place",
                      "\"in_place\" is for input buffers");
    expect_spec_error("{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":1,\"in_place\":true}", false,
                      "$.params[0]", "\"in_place\"");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1,\"role\":\"input\","
                      "\"in_place\":1}", false, "$.params[0].in_place", "expected true or false");
}

Test(spec, check_errors_name_the_json_path)
{
    expect_spec_error(OUT_I32 ",\"check\":\"sorted\"}", false, "$.params[0].check",
                      "unknown check \"sorted\" (expected \"exact\" (the default), \"multiset\"");
    expect_spec_error(OUT_I32 ",\"check\":1}", false, "$.params[0].check", "expected \"exact\"");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1,\"role\":\"input\","
                      "\"range\":[0,1],\"check\":\"none\"}",
                      false, "$.params[0].check", "\"check\" is only for output buffers and in-place inputs");
    expect_spec_error("{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1,\"role\":\"fixed\","
                      "\"init\":{\"generator\":\"zero\"},\"check\":\"multiset\"}",
                      false, "$.params[0].check", "only for output buffers");
    expect_spec_error("{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":1,\"check\":\"exact\"}",
                      false, "$.params[0].check", "only for output buffers");
    expect_spec_error(OUT_I32 ",\"check_why\":\"racy\"}", false, "$.params[0].check_why",
                      "explains a \"check\" of \"multiset\" or \"none\"");
    expect_spec_error(OUT_I32 ",\"check\":\"exact\",\"check_why\":\"racy\"}", false, "$.params[0].check_why",
                      "explains a \"check\"");
    expect_spec_error(OUT_I32 ",\"check\":\"none\",\"check_why\":\"\"}", false, "$.params[0]",
                      "\"check_why\" must be a non-empty string");
    expect_spec_error(OUT_I32 ",\"chekc\":\"none\"}", false, "$.params[0]", "unknown key \"chekc\"");
}

Test(spec, invalid_json_gives_line_and_column)
{
    char file[] = "/tmp/wh_badjson_XXXXXX";
    int fd = mkstemp(file);
    const char *text = "{\n  \"name\": \"k\",\n  \"grid\": [1,,2]\n}\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    wh_error err;
    wh_spec *s = wh_spec_load(file, &err);
    unlink(file);
    cr_assert_null(s);
    cr_expect_eq(err.line, 3);
    cr_expect_gt(err.col, 0);
    char buf[2048];
    wh_error_format(&err, buf, sizeof buf);
    char expect[64];
    snprintf(expect, sizeof expect, "%s:3:", file);
    cr_expect(strstr(buf, expect), "'%s' lacks '%s'", buf, expect);
}

Test(spec, missing_file_is_a_user_error)
{
    wh_error err;
    cr_expect_null(wh_spec_load("tests/specs/no-such-spec.json", &err));
    cr_expect_eq(wh_error_exit_status(&err), 1);
    cr_expect(strstr(err.file, "no-such-spec.json"));
}

Test(spec, ptx_path_names_every_place_tried)
{
    wh_error err;
    wh_spec *s = wh_spec_load("tests/specs/full.json", &err);
    cr_assert(s);
    char buf[1024];
    cr_expect_not(wh_spec_ptx_path(s, buf, sizeof buf, &err));
    cr_expect(strstr(err.msg, "tests/specs/full.ptx"), "%s", err.msg);
    cr_expect(strstr(err.msg, "make ptx"), "%s", err.msg);
    wh_spec_free(s);
}


#include <glob.h>

/* Every bundled spec loads, and builds valid random images for the full
 * launch and for every X of its symbolic sequence. */
Test(spec, every_bundled_kernel_loads_and_builds_images)
{
    glob_t g;
    cr_assert_eq(glob("kernels/*.json", 0, NULL, &g), 0, "no bundled specs found");
    cr_expect_geq(g.gl_pathc, 12);
    for (size_t k = 0; k < g.gl_pathc; k++) {
        wh_error err;
        wh_spec *s = wh_spec_load(g.gl_pathv[k], &err);
        cr_assert(s, "%s: %s %s", g.gl_pathv[k], err.path, err.msg);
        for (int j = -1; j < s->nsym_threads; j++) {
            wh_launch l = j < 0 ? wh_spec_launch_full(s) : wh_launch_threads((unsigned)s->sym_threads[j]);
            wh_image *img = wh_image_new(s, &l, &err);
            cr_assert(img, "%s X=%d: %s %s", g.gl_pathv[k], j < 0 ? 0 : s->sym_threads[j], err.path, err.msg);
            pcg32 rng;
            pcg32_seed(&rng, k, (uint64_t)j + 10);
            cr_assert(wh_image_fill_random(img, &rng, &err), "%s: %s", g.gl_pathv[k], err.msg);
            cr_assert(wh_image_check_domains(img, &err), "%s: %s", g.gl_pathv[k], err.msg);
            wh_image_free(img);
        }
        wh_spec_free(s);
    }
    globfree(&g);
}

/* `make ptx` output is found from any working directory: a corpus spec
 * (kernels/corpus/) named by its absolute path, from "/". */
Test(spec, ptx_is_found_from_any_directory)
{
    char cwd[1024], path[1200], ptx[1300];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(ptx, sizeof ptx, "%s/build/ptx/kernels/corpus/spmv_scalar.ptx", cwd);
    if (access(ptx, R_OK) != 0) cr_skip_test("PTX not built: run `make ptx`");
    snprintf(path, sizeof path, "%s/kernels/corpus/spmv_scalar.json", cwd);
    wh_error err;
    wh_spec *s = wh_spec_load(path, &err);
    cr_assert(s, "%s", err.msg);
    cr_assert_eq(chdir("/"), 0);
    char found[1300];
    bool ok = wh_spec_ptx_path(s, found, sizeof found, &err);
    cr_assert_eq(chdir(cwd), 0);
    cr_expect(ok, "%s", err.msg);
    cr_expect_str_eq(found, ptx);
    wh_spec_free(s);
}

/* The README's example spec is the bundled kernels/artificial.json, so it
 * works when copied. */
Test(spec, the_readmes_example_is_the_bundled_spec)
{
    static char text[1 << 20];
    snprintf(text, sizeof text, "%s", ts_read_text("README.md"));
    char *sec = strstr(text, "## The kernel spec");
    cr_assert(sec);
    char *start = strstr(sec, "```json\n");
    cr_assert(start);
    start += 8;
    char *end = strstr(start, "```");
    cr_assert(end);
    *end = '\0';
    json_error_t je;
    json_t *shown = json_loads(start, 0, &je);
    cr_assert(shown, "the README's example is not JSON: %s", je.text);
    json_t *bundled = json_load_file("kernels/artificial.json", 0, &je);
    cr_assert(bundled, "%s", je.text);
    cr_expect(json_equal(shown, bundled), "the README's example differs from kernels/artificial.json");
    json_decref(shown);
    json_decref(bundled);
}


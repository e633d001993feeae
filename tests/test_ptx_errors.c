/*
 * test_ptx_errors.c — malformed PTX gives file:line:col and a message that
 * names the offending token, never a crash; deterministic truncation and
 * byte-flip fuzzing; and the `warphunt ptx` subcommand.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "ptx/ptx.h"
#include "tests/support.h"

typedef struct {
    const char *file;
    int line;
    const char *msg;
} bad_case;

static const bad_case bad_cases[] = {
    { "truncated.ptx", 16, "expected an operand, got end of file" },
    { "bad_directive.ptx", 4, "unknown directive '.frobnicate'" },
    { "bad_register_decl.ptx", 10, "expected a register count, got 'abc'" },
    { "undefined_label.ptx", 17, "undefined label 'NOWHERE'" },
    { "undeclared_register.ptx", 16, "undeclared register '%r9'" },
    { "bad_immediate.ptx", 15, "bad integer immediate '12abc'" },
    { "bad_float_immediate.ptx", 15, "bad float immediate '0f3F80'" },
    { "unterminated_comment.ptx", 16, "unterminated comment" },
    { "missing_semicolon.ptx", 16, "expected ';' after instruction 'mov', got 'add'" },
    { "bad_vector_operand.ptx", 15, "bad vector operand: expected ',' or '}', got '%f3'" },
    { "garbage.ptx", 1, "unexpected byte" },
    { "empty.ptx", 1, "empty PTX" },
    { "duplicate_label.ptx", 17, "duplicate label '$L1' (first defined at line 15)" },
    { "missing_version.ptx", 1, "expected '.version'" },
    { "guard_not_pred.ptx", 16, "is not a .pred register" },
    { "wrong_operand_count.ptx", 16, "wrong number of operands for 'add': expected 3, got 2" },
    { "vector_width_mismatch.ptx", 15, "bad vector operand of 'ld': expected 4 elements" },
    { "duplicate_register.ptx", 13, "duplicate declaration of register '%r2'" },
    { "bad_address.ptx", 15, "bad address: expected an offset, got ']'" },
    { "undefined_function.ptx", 15, "undefined symbol 'no_such_function'" },
    { "nul_byte.ptx", 15, "unexpected NUL byte" },
    { "unclosed_body.ptx", 16, "missing '}'" },
    { "bad_special_register.ptx", 15, "bad component '.q' of special register" },
    { "unknown_body_directive.ptx", 15, "unknown directive '.bogus' in a function body" },
    /* the engines keep predicates in their own register file: before this
     * check the sim wrote past it (a heap overflow under ASan) */
    { "setp_dest_not_pred.ptx", 16, "operand 1 of 'setp' (%r2) is a .b32 register; expected a .pred register" },
    { "not_pred_on_b32.ptx", 16, "operand 1 of 'not' (%r2) is a .b32 register; expected a .pred register" },
    { "selp_cond_not_pred.ptx", 16, "operand 4 of 'selp' (%r1) is a .b32 register; expected a .pred register" },
    { "mbarrier_no_tx_count.ptx", 13, "'expect_tx' needs the transaction count (bytes) as operand 2" },
    /* the sim read the missing state operand through a null pointer (fuzz_sim, UBSan) */
    { "mbarrier_pending_count_no_state.ptx", 13, "'mbarrier.pending_count' needs 2 operands, got 1" },
    { "mbarrier_test_wait_no_state.ptx", 14, "'mbarrier.test_wait' needs 3 operands, got 2" },
    { "bulk_copy_no_mbarrier.ptx", 13,
      "'cp.async.bulk' into shared memory needs [dst], [src], size, [mbarrier]: 4 operands, got 3" },
    { "sured_no_operation.ptx", 13, "'sured' needs an operation: .add, .min, .max, .and or .or" },
    { "sured_vector_value.ptx", 13, "'sured' needs one value (a register or an integer)" },
};

Test(ptx_errors, every_malformed_file_names_line_and_token)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        char path[256];
        snprintf(path, sizeof path, "tests/ptx_bad/%s", c->file);
        wh_error e;
        wh_error_clear(&e);
        ptx_module *m = ptx_parse_file(path, &e);
        cr_expect_null(m, "%s parsed although it is malformed", c->file);
        ptx_module_free(m);
        cr_expect_eq(e.kind, WH_ERR_USER, "%s: error kind %d", c->file, e.kind);
        cr_expect_str_eq(e.file, path);
        cr_expect_eq(e.line, c->line, "%s: line %d, expected %d (%s)", c->file, e.line, c->line, e.msg);
        cr_expect(e.col >= 1, "%s: no column", c->file);
        cr_expect_not_null(strstr(e.msg, c->msg), "%s: message '%s' lacks '%s'", c->file, e.msg, c->msg);
        cr_expect_eq(wh_error_exit_status(&e), 1);
    }
}

Test(ptx_errors, every_file_in_ptx_bad_is_rejected)
{
    /* a new bad file must be listed above with its expected message */
    DIR *d = opendir("tests/ptx_bad");
    cr_assert_not_null(d);
    struct dirent *ent;
    int n = 0;
    while ((ent = readdir(d))) {
        const char *name = ent->d_name;
        if (!strstr(name, ".ptx")) continue;
        n++;
        bool listed = false;
        for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) listed |= !strcmp(bad_cases[i].file, name);
        cr_expect(listed, "tests/ptx_bad/%s has no expected message in test_ptx_errors.c", name);
    }
    closedir(d);
    cr_expect(n >= 12);
}

Test(ptx_errors, missing_file)
{
    wh_error e;
    wh_error_clear(&e);
    cr_expect_null(ptx_parse_file("tests/ptx_bad/no-such-file.ptx", &e));
    cr_expect_not_null(strstr(e.msg, "cannot open"));
    cr_expect_eq(wh_error_exit_status(&e), 1);
    cr_expect_null(ptx_parse_string("", "empty", NULL)); /* a NULL error is allowed */
}

Test(ptx_errors, unsupported_version)
{
    wh_error e;
    wh_error_clear(&e);
    cr_expect_null(ptx_parse_string(".version 10.1\n.target sm_80\n", "v.ptx", &e));
    cr_expect_eq(e.kind, WH_ERR_UNSUPPORTED);
    cr_expect_eq(e.line, 1);
}

/* ---- deterministic fuzzing ----------------------------------------------- */

static const char fuzz_seed[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".global .align 4 .b8 tab[8] = {1, 2, 3, 4};\n"
    ".func  (.param .b32 r) f(.param .b32 a)\n"
    "{\n\t.reg .b32 %r<3>;\n\tld.param.b32 %r1, [a];\n\tst.param.b32 [r+0], %r1;\n\tret;\n}\n"
    ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .align 8 .b8 k_param_1[16]\n)\n"
    ".maxntid 128, 1, 1\n"
    "{\n"
    "\t.reg .pred \t%p<3>;\n\t.reg .b32 \t%r<9>;\n\t.reg .f32 \t%f<5>;\n\t.reg .b64 \t%rd<5>;\n"
    "\t.shared .align 4 .b8 sh[64];\n"
    "\tld.param.u64 \t%rd1, [k_param_0];\n"
    "\tcvta.to.global.u64 \t%rd2, %rd1;\n"
    "\tmov.u32 \t%r1, %tid.x;\n"
    "$L__BB0_1:\n"
    "\tsetp.lt.and.s32 \t%p1|%p2, %r1, 16, %p1;\n"
    "\t@!%p1 bra \t$L__BB0_3;\n"
    "\tld.global.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd2+-16];\n"
    "\tadd.f32 \t%f1, %f1, 0f3F800000; /* comment */\n"
    "\tshfl.sync.bfly.b32 \t%r2|%p2, %r1, 1, 31, -1;\n"
    "\tatom.shared.add.u32 \t%r3, [sh+4], 1;\n"
    "\t{ .param .b32 param0;\n\tst.param.b32 [param0], %r2;\n\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), f, (param0);\n\tld.param.b32 %r4, [retval0];\n\t}\n"
    "\tadd.s32 \t%r1, %r1, 1;\n"
    "\tbra.uni \t$L__BB0_1;\n"
    "$L__BB0_3:\n"
    "\tst.global.f32 \t[%rd2], %f1; // done\n"
    "\tret;\n"
    "}\n";

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static void parse_any(const char *buf, size_t len, int *ok, int *bad)
{
    wh_error e;
    wh_error_clear(&e);
    ptx_module *m = ptx_parse_buffer(buf, len, "fuzz.ptx", &e);
    if (m) {
        (*ok)++;
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            ptx_print_cfg(null, m);
            ptx_print_json(null, m);
            fclose(null);
        }
        ptx_module_free(m);
    } else {
        (*bad)++;
        cr_expect(e.msg[0] != '\0', "an error without a message");
        cr_expect(e.line >= 1 || e.kind == WH_ERR_INTERNAL);
    }
}

Test(ptx_errors, the_fuzz_seed_itself_parses)
{
    int ok = 0, bad = 0;
    parse_any(fuzz_seed, strlen(fuzz_seed), &ok, &bad);
    cr_expect_eq(ok, 1);
}

Test(ptx_errors, every_prefix_truncation_fails_cleanly)
{
    size_t n = strlen(fuzz_seed);
    int ok = 0, bad = 0;
    for (size_t k = 0; k < n; k++) {
        /* an exact-size heap copy, so ASan catches any read past the end */
        char *copy = malloc(k ? k : 1);
        memcpy(copy, fuzz_seed, k);
        parse_any(copy, k, &ok, &bad);
        free(copy);
    }
    cr_expect(bad > 0);
    cr_log_info("truncations: %d parsed, %d rejected", ok, bad);
}

Test(ptx_errors, random_byte_flips_fail_cleanly)
{
    size_t n = strlen(fuzz_seed);
    unsigned seed = 20240601u;
    static const char interesting[] = " \n;,{}[]()%.:@!|<>0-+_$/*\"x";
    char *buf = malloc(n);
    int ok = 0, bad = 0;
    for (int it = 0; it < 3000; it++) {
        memcpy(buf, fuzz_seed, n);
        int flips = 1 + (int)(lcg(&seed) % 3);
        for (int j = 0; j < flips; j++) {
            size_t pos = ((size_t)lcg(&seed) << 15 | lcg(&seed)) % n;
            switch (lcg(&seed) % 3) {
            case 0: buf[pos] = (char)(lcg(&seed) & 0xff); break;
            case 1: buf[pos] = interesting[lcg(&seed) % (sizeof interesting - 1)]; break;
            default: buf[pos] ^= (char)(1 << (lcg(&seed) % 8)); break;
            }
        }
        parse_any(buf, n, &ok, &bad);
    }
    free(buf);
    cr_expect(ok + bad == 3000);
    cr_log_info("byte flips: %d parsed, %d rejected", ok, bad);
}

/* ---- the subcommand ---------------------------------------------------------- */

/* Run cmd_ptx with stdout and stderr sent to files; returns its status and
 * the captured text (malloc'ed). */
static int run_cmd(char **out, char **err, int argc, const char **argv)
{
    char outp[] = "/tmp/wh_ptx_out_XXXXXX", errp[] = "/tmp/wh_ptx_err_XXXXXX";
    int fo = mkstemp(outp), fe = mkstemp(errp);
    cr_assert(fo >= 0 && fe >= 0);
    int rc = ts_run_cmd(cmd_ptx, argv[0], argv + 1, argc - 1, outp, errp);
    char *bufs[2] = { NULL, NULL };
    int fds[2] = { fo, fe };
    for (int i = 0; i < 2; i++) {
        off_t len = lseek(fds[i], 0, SEEK_END);
        lseek(fds[i], 0, SEEK_SET);
        bufs[i] = calloc((size_t)len + 1, 1);
        ssize_t got = read(fds[i], bufs[i], (size_t)len);
        cr_assert_eq(got, len);
        close(fds[i]);
    }
    unlink(outp);
    unlink(errp);
    *out = bufs[0];
    *err = bufs[1];
    return rc;
}

Test(ptx_cli, summary_cfg_dot_json)
{
    char *out, *err;
    const char *a1[] = { "ptx", "tests/ptx_hand/nested_loops.ptx", NULL };
    cr_expect_eq(run_cmd(&out, &err, 2, a1), 0);
    cr_expect_not_null(strstr(out, "kernel nested_loops"));
    cr_expect_not_null(strstr(out, "conditional branches: 2"));
    cr_expect_not_null(strstr(out, "blocks: 7"));
    free(out);
    free(err);

    const char *a2[] = { "ptx", "--cfg", "tests/ptx_hand/diamond.ptx", NULL };
    cr_expect_eq(run_cmd(&out, &err, 3, a2), 0);
    cr_expect_not_null(strstr(out, "ipdom B3"));
    cr_expect_not_null(strstr(out, "branch(taken B2, fallthrough B1)"));
    free(out);
    free(err);

    const char *a3[] = { "ptx", "tests/ptx_hand/diamond.ptx", "--dot", NULL };
    cr_expect_eq(run_cmd(&out, &err, 3, a3), 0);
    cr_expect_eq(strncmp(out, "digraph \"diamond\" {", 19), 0);
    cr_expect_not_null(strstr(out, "B0 -> B2 [label=\"T\"]"));
    cr_expect_not_null(strstr(out, "B3 -> EXIT"));
    free(out);
    free(err);

    const char *a4[] = { "ptx", "--json", "tests/ptx_hand/switch_chain.ptx", NULL };
    cr_expect_eq(run_cmd(&out, &err, 3, a4), 0);
    cr_expect_not_null(strstr(out, "\"kernels\""));
    cr_expect_not_null(strstr(out, "\"name\": \"switch_chain\""));
    cr_expect_not_null(strstr(out, "\"branches\": 3"));
    cr_expect_not_null(strstr(out, "\"blocks\": 8"));
    cr_expect_not_null(strstr(out, "\"params\": 2"));
    cr_expect_eq(err[0], '\0');
    free(out);
    free(err);
}

Test(ptx_cli, errors_and_help)
{
    char *out, *err;
    const char *a1[] = { "ptx", "tests/ptx_bad/undefined_label.ptx", NULL };
    cr_expect_eq(run_cmd(&out, &err, 2, a1), 1);
    cr_expect_not_null(strstr(err, "tests/ptx_bad/undefined_label.ptx:17:"));
    cr_expect_not_null(strstr(err, "NOWHERE"));
    free(out);
    free(err);

    const char *a2[] = { "ptx", "--bogus", "x.ptx", NULL };
    cr_expect_eq(run_cmd(&out, &err, 3, a2), 1);
    cr_expect_not_null(strstr(err, "--bogus"));
    free(out);
    free(err);

    const char *a3[] = { "ptx", NULL };
    cr_expect_eq(run_cmd(&out, &err, 1, a3), 1);
    cr_expect_not_null(strstr(err, "missing"));
    free(out);
    free(err);

    const char *a4[] = { "ptx", "--help", NULL };
    cr_expect_eq(run_cmd(&out, &err, 2, a4), 0);
    cr_expect_not_null(strstr(out, "--cfg"));
    cr_expect_not_null(strstr(out, "--dot"));
    cr_expect_not_null(strstr(out, "--json"));
    free(out);
    free(err);

    const char *a5[] = { "ptx", "tests/ptx_hand/nope.ptx", NULL };
    cr_expect_eq(run_cmd(&out, &err, 2, a5), 1);
    cr_expect_not_null(strstr(err, "cannot open"));
    free(out);
    free(err);
}

/* Given the .cu instead of its PTX, the message says so and how to make it. */
Test(ptx_errors, cuda_source_instead_of_ptx_is_named_as_such)
{
    wh_error err;
    wh_error_clear(&err);
    cr_assert_null(ptx_parse_file("kernels/fig1b.cu", &err));
    cr_expect(strstr(err.msg, "CUDA C++ source, not PTX") && strstr(err.msg, "nvcc -ptx kernels/fig1b.cu"), "%s",
              err.msg);
    char path[] = "/tmp/wh_src_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "#include <cstdio>\n__global__ void k() {}\n", 41), 41);
    close(fd);
    wh_error_clear(&err);
    cr_assert_null(ptx_parse_file(path, &err));
    cr_expect(strstr(err.msg, "not PTX"), "a preprocessor line gives it away: %s", err.msg);
    unlink(path);
}


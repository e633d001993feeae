/*
 * test_opcodes.c — the opcode table (ptx/opcodes.def) tells the truth: each
 * opcode's example runs on the emulator exactly when the table says the
 * sim implements it (otherwise the run ends `unsupported`), and the
 * symbolic executor explores it exactly when the table says so (otherwise
 * it fails naming the opcode); the README's listing is the table's.
 *
 * An example runs in one thread after this preamble: %rd1 points at a
 * 64-byte output buffer, %r0 = 0, %r2 = 5, %r3 = 3, %r4 = 7, %rd3 = 0,
 * %f2 = 1.5, %f3 = 2, %p1 = true; `sh` is 64 bytes of shared memory,
 * `targets` a .branchtargets list of L_end, `callee` an empty function, and
 * L_end the final `ret`.
 */
#include "tests/sim_support.h"
#include "cli/cli.h"
#include "symexec/symexec.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *HEAD =
    ".version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".func callee()\n{\n\tret;\n}\n\n"
    ".visible .entry ops(.param .u64 ops_out)\n{\n"
    "\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<4>;\n"
    "\t.shared .align 8 .b8 sh[64];\n"
    "targets: .branchtargets L_end;\n"
    "\tld.param.u64 %rd0, [ops_out];\n\tcvta.to.global.u64 %rd1, %rd0;\n"
    "\tmov.u32 %r0, 0;\n\tmov.u32 %r2, 5;\n\tmov.u32 %r3, 3;\n\tmov.u32 %r4, 7;\n\tmov.u64 %rd3, 0;\n"
    "\tmov.f32 %f2, 0f3FC00000;\n\tmov.f32 %f3, 0f40000000;\n\tsetp.eq.u32 %p1, %r0, 0;\n";

static const char *SPEC =
    "{ \"name\": \"ops\", \"source\": \"ops.cu\", \"ptx\": \"ops.ptx\", \"entry\": \"ops\",\n"
    "  \"grid\": [1], \"block\": [1], \"symbolic\": { \"threads\": [1] },\n"
    "  \"params\": [ { \"name\": \"out\", \"kind\": \"buffer\", \"type\": \"u32\", \"count\": 16,"
    " \"role\": \"output\" } ] }\n";

static void write_example(const char *dir, const char *example)
{
    size_t n = strlen(HEAD) + strlen(example) + 64;
    char *ptx = malloc(n);
    cr_assert(ptx);
    snprintf(ptx, n, "%s\t%s\nL_end:\n\tret;\n}\n", HEAD, example);
    tsim_write(dir, "ops.ptx", ptx);
    tsim_write(dir, "ops.json", SPEC);
    free(ptx);
}

/* Whether the sim ran the example (false: it stopped on `unsupported`). */
static bool sim_runs(const char *dir, const char *example)
{
    char path[512];
    snprintf(path, sizeof path, "%s/ops.json", dir);
    simcase c;
    sc_load(&c, path, false);
    harness_options o = sc_options(true);
    cr_assert(sc_attach(&c, &o), "%s: sim: %s", example, c.err.msg);
    sc_measure(&c, 1);
    harness_status st = c.res.status;
    char msg[sizeof c.res.message];
    snprintf(msg, sizeof msg, "%s", c.res.message);
    sc_close(&c);
    cr_assert(st != HARNESS_UNSUPPORTED || strstr(msg, "unsupported"), "%s: %s", example, msg);
    return st != HARNESS_UNSUPPORTED;
}

/* Whether the symbolic executor ran it (false: it cut the path there with
 * an "unsupported" issue naming the opcode). */
static bool symbolic_runs(const char *dir, const char *example, const char *name)
{
    wh_spec *spec;
    ptx_module *mod;
    tsim_load_pair(dir, "ops", &spec, &mod);
    wh_error err;
    wh_error_clear(&err);
    sx_options o;
    sx_options_default(&o);
    o.threads = 1;
    o.time_budget_s = 60;
    sx_result *r = sx_explore(spec, mod, &o, &err);
    cr_assert(r, "%s: %s", example, err.msg);
    bool ran = true;
    for (int i = 0; i < r->nissues; i++) {
        if (r->issues[i].kind != SX_ISSUE_UNSUPPORTED)
            continue;
        char word[64];
        snprintf(word, sizeof word, "'%.*s", (int)strcspn(name, "."), name);
        cr_assert(strstr(r->issues[i].message, word), "%s: the message does not name the opcode: %s", example,
                  r->issues[i].message);
        ran = false;
    }
    sx_result_free(r);
    ptx_module_free(mod);
    wh_spec_free(spec);
    return ran;
}

Test(opcodes, the_table_says_which_engine_runs_each_opcode, .timeout = 300)
{
    int checked = 0;
    for (int op = 1; op < PTX_OP_COUNT; op++) {
        const char *ex = ptx_opcode_example((ptx_opcode)op);
        if (!ex)
            continue;
        char dir[] = "/tmp/wh_opsXXXXXX";
        tsim_mkdtemp(dir);
        write_example(dir, ex);
        unsigned e = ptx_opcode_engines((ptx_opcode)op);
        bool sim = sim_runs(dir, ex), sym = symbolic_runs(dir, ex, ptx_opcode_name((ptx_opcode)op));
        cr_expect_eq(sim, (e & PTX_IN_SIM) != 0, "%s: the table says the sim %s it", ex,
                     (e & PTX_IN_SIM) ? "runs" : "does not run");
        cr_expect_eq(sym, (e & PTX_IN_SYM) != 0, "%s: the table says the symbolic executor %s it", ex,
                     (e & PTX_IN_SYM) ? "runs" : "does not run");
        ts_rmtree(dir);
        checked++;
    }
    cr_assert_eq(checked, PTX_OP_COUNT - 1, "every opcode has an example");
}

Test(opcodes, a_predicate_in_a_data_slot_is_refused_with_its_position)
{
    const char *bad[][2] = {
        { "and.b32 %p2, %r2, %r3;", "operand 1 of 'and' (%p2) is a .pred register" },
        { "vote.sync.all.pred %r1, %p1, -1;", "operand 1 of 'vote' (%r1) is a .b32 register" },
        { "shfl.sync.idx.b32 %r1|%r2, %r3, 0, 31, -1;", "operand 2 of 'shfl' (%r2)" },
        { "testp.finite.f32 %r1, %f2;", "operand 1 of 'testp'" },
        { "st.global.v2.u32 [%rd1], {%r1, %p1};", "operand 2 of 'st' (%p1)" },
        { "bar.red.popc.u32 %r1, 0, %r2;", "operand 3 of 'bar' (%r2)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = strlen(HEAD) + strlen(bad[i][0]) + 64;
        char *ptx = malloc(n);
        cr_assert(ptx);
        snprintf(ptx, n, "%s\t%s\nL_end:\n\tret;\n}\n", HEAD, bad[i][0]);
        wh_error err;
        wh_error_clear(&err);
        ptx_module *m = ptx_parse_string(ptx, "bad.ptx", &err);
        cr_expect_null(m, "%s was accepted", bad[i][0]);
        cr_expect(strstr(err.msg, bad[i][1]), "%s: %s", bad[i][0], err.msg);
        int line = 1;   /* the example's line: the one after the preamble */
        for (const char *c = HEAD; *c; c++)
            line += *c == '\n';
        cr_expect_eq(err.line, line, "%s: line %d", bad[i][0], err.line);
        cr_expect_gt(err.col, 1);
        ptx_module_free(m);
        free(ptx);
    }
}

/* The no-ops of one grid on an emulator without a register file or L2
 * priorities (griddepcontrol, setmaxnreg, discard, applypriority; both
 * engines run the table's examples) take only their ISA forms; anything
 * else is refused with what the form is. */
Test(opcodes, no_op_forms_take_only_their_isa_forms)
{
    const char *forms[][2] = {
        { "griddepcontrol.wait;", NULL },
        { "griddepcontrol.launch_dependents;", NULL },
        { "griddepcontrol.go;", "'griddepcontrol' is .wait or .launch_dependents" },
        { "griddepcontrol;", "'griddepcontrol' is .wait or .launch_dependents" },
        { "setmaxnreg.dec.sync.aligned.u32 40;", NULL },
        { "setmaxnreg.dec.sync.aligned.u32 41;", "a multiple of 8 from 24 to 256" },
        { "setmaxnreg.sync.aligned.u32 40;", "'setmaxnreg' is .inc or .dec" },
        { "discard.global.L2 [%rd1], 64;", "(one 128-byte line)" },
        { "applypriority.global.L2::evict_normal [%rd1], 128;", NULL },
        { "createpolicy.fractional.L2::evict_first.b64 %rd2;", NULL },
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        size_t n = strlen(HEAD) + strlen(forms[i][0]) + 64;
        char *ptx = malloc(n);
        cr_assert(ptx);
        snprintf(ptx, n, "%s\t%s\nL_end:\n\tret;\n}\n", HEAD, forms[i][0]);
        wh_error err;
        wh_error_clear(&err);
        ptx_module *m = ptx_parse_string(ptx, "k.ptx", &err);
        if (!forms[i][1])
            cr_expect(m, "%s: %s", forms[i][0], err.msg);
        else
            cr_expect(!m && strstr(err.msg, forms[i][1]), "%s: %s", forms[i][0], m ? "accepted" : err.msg);
        ptx_module_free(m);
        free(ptx);
    }
}

Test(opcodes, the_readme_lists_the_table)
{
    char *listing = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&listing, &len);
    cr_assert(f);
    ptx_print_opcodes(f);
    cr_assert_eq(fclose(f), 0);
    FILE *r = fopen("README.md", "r");
    cr_assert(r, "README.md not found (run from the repository root)");
    char *readme = NULL;
    size_t cap = 0;
    ssize_t got = getdelim(&readme, &cap, '\0', r);
    fclose(r);
    cr_assert(got > 0);
    cr_expect(strstr(readme, listing), "README.md does not hold `warphunt ptx --opcodes`'s table:\n%s", listing);
    free(readme);
    free(listing);
}

Test(opcodes, warphunt_ptx_opcodes_prints_the_listing)
{
    char out[] = "/tmp/wh_opcodes_XXXXXX";
    int fd = mkstemp(out);
    cr_assert(fd >= 0);
    close(fd);
    const char *args[] = { "--opcodes" };
    cr_expect_eq(ts_run_cmd(cmd_ptx, "ptx", args, 1, out, "/dev/null"), 0);
    FILE *f = fopen(out, "r");
    cr_assert(f);
    char line[256];
    bool mov = false, brx = false;
    while (fgets(line, sizeof line, f)) {
        mov = mov || !strcmp(line, "| `mov` | yes | yes |\n");
        brx = brx || !strcmp(line, "| `brx.idx` | yes | yes |\n");
    }
    fclose(f);
    unlink(out);
    cr_expect(mov && brx, "the listing lacks mov or brx.idx rows");
    const char *bad[] = { "--opcodes", "k.ptx" };
    cr_expect_eq(ts_run_cmd(cmd_ptx, "ptx", bad, 2, "/dev/null", "/dev/null"), 1);
}

/*
 * test_ptx_types.c — register widths and types against the instruction
 * type (ptx/typecheck.c, the `types` column of ptx/opcodes.def): what the
 * PTX type-checking rules refuse is refused at the register's line:col,
 * naming it, its declared type and what the instruction needs; the relaxed
 * forms the ISA allows (wider integer registers, bit-size registers for
 * float types, immediates, packing lists, forms the table does not
 * describe) still load.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"

/* One register file of each kind; the instruction under test follows on
 * its own line. */
static const char *HEAD =
    ".version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".func callee()\n{\n\tret;\n}\n\n"
    ".visible .entry k(.param .u64 k_out)\n{\n"
    "\t.reg .pred %p<4>;\n\t.reg .b16 %rs<4>;\n\t.reg .f16 %h<4>;\n\t.reg .b32 %r<8>;\n"
    "\t.reg .u32 %u<4>;\n\t.reg .s32 %s<4>;\n\t.reg .b64 %rd<8>;\n\t.reg .u64 %ud<4>;\n"
    "\t.reg .f32 %f<4>;\n\t.reg .f64 %fd<4>;\n"
    "\t.shared .align 8 .b8 sh[64];\n"
    "targets: .branchtargets L_end;\n";

/* Parse HEAD + `instr`; the module (NULL when refused) and the error. */
static ptx_module *parse_one(const char *instr, wh_error *err)
{
    size_t n = strlen(HEAD) + strlen(instr) + 64;
    char *ptx = malloc(n);
    cr_assert(ptx);
    snprintf(ptx, n, "%s\t%s\nL_end:\n\tret;\n}\n", HEAD, instr);
    wh_error_clear(err);
    ptx_module *m = ptx_parse_string(ptx, "types.ptx", err);
    free(ptx);
    return m;
}

static int instr_line(void)
{
    int line = 1;
    for (const char *c = HEAD; *c; c++)
        line += *c == '\n';
    return line;
}

typedef struct {
    const char *instr;
    const char *at;    /* where the offending register starts in instr */
    const char *msg;   /* a part of the message */
} refused;

static const refused refused_cases[] = {
    /* the instruction type: never a narrower register (note 1 of both
     * relaxed tables) */
    { "add.u64 %r1, %rd2, %rd3;", "%r1", "destination %r1 is .b32 but add.u64 needs a 64-bit register" },
    { "sub.s64 %rd1, %rd2, %s3;", "%s3", "operand 3 %s3 is .s32 but sub.s64 needs a 64-bit register" },
    { "ld.global.u64 %r1, [%rd1];", "%r1", "destination %r1 is .b32 but ld.u64 needs a 64-bit register" },
    { "st.global.f64 [%rd1], %f1;", "%f1", "operand 2 %f1 is .f32 but st.f64 needs a 64-bit register" },
    { "mov.u64 %rd1, %r1;", "%r1", "operand 2 %r1 is .b32 but mov.u64 needs a 64-bit register" },
    { "cvta.to.global.u64 %rd1, %u1;", "%u1", "operand 2 %u1 is .u32 but cvta.u64 needs a 64-bit register" },
    { "atom.global.add.u64 %r1, [%rd1], %rd2;", "%r1", "destination %r1 is .b32 but atom.u64" },
    { "selp.b64 %rd1, %rd2, %r1, %p1;", "%r1", "operand 3 %r1 is .b32 but selp.b64 needs a 64-bit register" },
    { "setp.lt.u64 %p1, %r1, %rd1;", "%r1", "operand 2 %r1 is .b32 but setp.u64 needs a 64-bit register" },
    { "ld.global.v2.u32 {%r1, %rs1}, [%rd1];", "%rs1",
      "element 2 of operand 1 %rs1 is .b16 but ld.u32 needs a 32-bit register" },
    /* float instruction types: a float register of exactly the size */
    { "add.f32 %fd1, %f2, %f3;", "%fd1", "destination %fd1 is .f64 but add.f32 needs a .f32 register" },
    { "fma.rn.f64 %fd1, %fd2, %f3, %fd2;", "%f3", "operand 3 %f3 is .f32 but fma.f64 needs a 64-bit register" },
    /* ...and no integer register (Type Checking Rules: .fX vs .uX/.sX) */
    { "add.f32 %f1, %u1, %f2;", "%u1", "operand 2 %u1 is .u32 but add.f32 needs a .f32 register or a bit-size one" },
    /* integer instruction types take no float register */
    { "add.s32 %r1, %f1, 1;", "%f1", "operand 2 %f1 is .f32 but add.s32 needs an integer or bit-size register" },
    /* .wide: the destination (and mad's addend) is twice as wide */
    { "mul.wide.u32 %r1, %r2, %r3;", "%r1", "destination %r1 is .b32 but mul.wide.u32 needs a 64-bit register" },
    { "mad.wide.s32 %rd1, %r2, %r3, %r4;", "%r4", "operand 4 %r4 is .b32 but mad.wide.s32 needs a 64-bit register" },
    { "mul.wide.u32 %rd1, %rs2, %r3;", "%rs2", "operand 2 %rs2 is .b16 but mul.wide.u32 needs a 32-bit register" },
    /* cvt: the destination takes the first type, the source the second */
    { "cvt.u64.u32 %rd1, %rs1;", "%rs1", "operand 2 %rs1 is .b16 but cvt.u64.u32 needs a 32-bit register" },
    { "cvt.f64.f32 %f1, %f2;", "%f1", "destination %f1 is .f32 but cvt.f64.f32 needs a 64-bit register" },
    { "cvt.rn.f32.s32 %f1, %f2;", "%f2", "operand 2 %f2 is .f32 but cvt.f32.s32 needs an integer or bit-size" },
    /* operands of a fixed .u32 type, whatever the instruction type */
    { "shl.b32 %r1, %r2, %rs1;", "%rs1", "operand 3 %rs1 is .b16 but shl needs a 32-bit register (the operand is .u32)" },
    { "shr.u64 %rd1, %rd2, %f1;", "%f1", "operand 3 %f1 is .f32 but shr needs an integer or bit-size register of at least 32 bits" },
    { "bfe.u64 %rd1, %rd2, %rs1, 8;", "%rs1", "operand 3 %rs1 is .b16 but bfe needs a 32-bit register" },
    { "bfi.b64 %rd1, %rd2, %rd3, 4, %rs2;", "%rs2", "operand 5 %rs2 is .b16 but bfi needs a 32-bit register" },
    { "popc.b64 %rs1, %rd1;", "%rs1", "destination %rs1 is .b16 but popc needs a 32-bit register" },
    { "prmt.b32 %r1, %r2, %r3, %rs1;", "%rs1", "operand 4 %rs1 is .b16 but prmt needs a 32-bit register" },
    { "dp4a.u32.u32 %r1, %r2, %r3, %rs1;", "%rs1", "operand 4 %rs1 is .b16 but dp4a needs a 32-bit register" },
    { "shfl.sync.idx.b32 %r1, %r2, %rs1, 31, -1;", "%rs1", "operand 3 %rs1 is .b16 but shfl needs a 32-bit register" },
    { "shfl.sync.idx.b32 %r1|%p1, %r2, 0, 31, %rs1;", "%rs1", "operand 6 %rs1 is .b16 but shfl" },
    { "vote.sync.ballot.b32 %r1, %p1, %rs1;", "%rs1", "operand 3 %rs1 is .b16 but vote needs a 32-bit register" },
    /* slct's last operand takes the second type */
    { "slct.f32.s32 %f1, %f2, %f3, %f1;", "%f1;", "operand 4 %f1 is .f32 but slct.f32.s32 needs an integer" },
};

Test(ptx_types, a_register_of_the_wrong_width_or_kind_is_refused_at_its_position)
{
    int line = instr_line();
    for (size_t i = 0; i < sizeof refused_cases / sizeof refused_cases[0]; i++) {
        const refused *c = &refused_cases[i];
        wh_error err;
        ptx_module *m = parse_one(c->instr, &err);
        cr_expect_null(m, "%s was accepted", c->instr);
        ptx_module_free(m);
        if (m) continue;
        cr_expect(strstr(err.msg, c->msg), "%s: %s", c->instr, err.msg);
        cr_expect_str_eq(err.file, "types.ptx", "%s", c->instr);
        cr_expect_eq(err.line, line, "%s: line %d", c->instr, err.line);
        const char *at = strstr(c->instr, c->at);
        cr_assert(at, "%s: no '%s' in it", c->instr, c->at);
        int col = 2 + (int)(at - c->instr); /* after the tab */
        cr_expect_eq(err.col, col, "%s: column %d, expected %d", c->instr, err.col, col);
    }
}

static const char *const accepted_cases[] = {
    /* registers wider than the instruction type (integer and bit types) */
    "add.u32 %rd1, %r2, %r3;",
    "add.s32 %r1, %rd2, 5;",
    "setp.lt.u32 %p1, %ud1, 5;",
    "ld.global.u8 %r1, [%rd1];",
    "ld.global.s16 %rd1, [%rd2];",
    "st.global.u8 [%rd1], %r1;",
    "cvt.u32.u16 %r1, %r2;",
    "cvt.u16.u32 %r1, %rd1;",
    "shl.b64 %rd1, %rd2, %rd3;",
    /* same-size integer and bit types agree */
    "add.u32 %s1, %u2, %r3;",
    "mov.b32 %r1, %s1;",
    /* bit-size registers for float types, float registers for bit types */
    "add.f32 %f1, %r2, %f3;",
    "add.f32 %f1, %rd2, %f3;",
    "mov.b32 %f1, %r1;",
    "mov.b32 %r1, %f1;",
    "shfl.sync.bfly.b32 %f1, %f2, 1, 31, -1;",
    "ld.global.v2.f32 {%f1, %r2}, [%rd1];",
    "selp.f32 %f1, %r1, %f2, %p1;",
    "add.f16 %h1, %h2, %rs1;",
    "cvt.f32.f16 %f1, %h1;",
    "cvt.rn.f16.f32 %rs1, %f1;",
    "atom.global.add.f32 %f1, [%rd1], %f2;",
    /* immediates and special registers are not registers */
    "add.u32 %r1, %u1, 0x10;",
    "add.f64 %fd1, %fd2, 0d3FF0000000000000;",
    "mov.u32 %r1, %tid.x;",
    "shl.b64 %rd1, %rd2, 3;",
    /* fixed-type operands: .u32 positions and destinations */
    "mul.wide.u32 %rd1, %r2, %r3;",
    "mad.wide.u16 %r1, %rs2, %rs3, %r4;",
    "shl.b64 %rd1, %rd2, %r1;",
    "bfe.u64 %rd1, %rd2, %r1, 8;",
    "popc.b64 %r1, %rd1;",
    "clz.b64 %r1, %rd1;",
    "bfind.u64 %r1, %rd1;",
    "match.any.sync.b64 %r1, %rd2, -1;",
    "elect.sync %r1|%p1, -1;",
    "activemask.b32 %r1;",
    "vote.sync.all.pred %p1, %p2, -1;",
    "set.lt.u32.f64 %r1, %fd1, %fd2;",
    "slct.s32.f32 %r1, %r2, %r3, %f1;",
    /* brace lists without .vN pack registers of other widths */
    "mov.b64 %rd1, {%r1, %r2};",
    "mov.b32 %r1, {%rs1, %rs2};",
    /* forms whose types the table does not describe are not checked */
    "max.s16x2 %r1, %r2, %r3;",
    "cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;",
    "fma.rn.f32.f16 %f1, %rs1, %rs2, %f2;",
};

Test(ptx_types, the_relaxed_forms_the_isa_allows_still_load)
{
    for (size_t i = 0; i < sizeof accepted_cases / sizeof accepted_cases[0]; i++) {
        wh_error err;
        ptx_module *m = parse_one(accepted_cases[i], &err);
        cr_expect_not_null(m, "%s: %s", accepted_cases[i], err.msg);
        ptx_module_free(m);
    }
}

/* The opcode table's own examples (tests/test_opcodes.c runs them on both
 * engines) pass the checks that the same table drives. */
Test(ptx_types, every_opcode_example_passes)
{
    for (int op = 1; op < PTX_OP_COUNT; op++) {
        const char *ex = ptx_opcode_example((ptx_opcode)op);
        if (!ex)
            continue;
        wh_error err;
        ptx_module *m = parse_one(ex, &err);
        cr_expect_not_null(m, "%s: %s", ex, err.msg);
        ptx_module_free(m);
    }
}

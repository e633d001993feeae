/*
 * test_semantics.c — the emulator and the symbolic executor must compute the
 * same value for every instruction (in the spirit of KLEE's test/Concrete):
 * one kernel per instruction form runs every combination of edge operands
 * (0, 1, -1, min, max, shift amounts at and past the width, NaN, ±0, ±inf,
 * denormals; f16 and bf16, scalar and packed, with halfway values), special registers, generic addresses; the sim's results are stored and read back, then a second
 * kernel recomputes each one and branches on "differs from the sim's bits".
 * Operands are immediates moved into registers, so the symbolic executor
 * builds its usual terms and Z3 folds them: its one path must never take a
 * mismatch branch.  A NaN result must be a NaN on both sides, and the sim's
 * canonical NaN bit for bit (see the semantics contract in ptx/ptx.h).
 */
#include "tests/sim_support.h"
#include "symexec/symexec.h"

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- instruction forms ------------------------------------------------------- */

/* K_F16 .. K_BF16X2 live in b16 / b32 registers as bits. */
typedef enum { K_INT, K_F32, K_F64, K_F16, K_BF16, K_F16X2, K_BF16X2 } val_kind;

typedef struct {
    const char *instr;   /* mnemonic with modifiers: "div.s32" */
    int dbits;           /* result width (1: a predicate) */
    val_kind dkind;      /* how the result is compared (floats: NaN-aware) */
    int nsrc;
    int sbits[4];        /* source widths */
    val_kind skind[4];
    const char *tail;    /* written after the sources: ", 8" */
    const char *body;    /* instead of "instr dst, sources tail": PTX lines
                            that compute the result register (%r0, %rd0,
                            %f0, %p0) from the sources (%r1, %r2, ...) */
} form;

#define I2(op, b) { op, b, K_INT, 2, { b, b }, { K_INT, K_INT }, "", NULL }
#define I1(op, b) { op, b, K_INT, 1, { b }, { K_INT }, "", NULL }
#define I3(op, b) { op, b, K_INT, 3, { b, b, b }, { K_INT, K_INT, K_INT }, "", NULL }
#define SH(op, b) { op, b, K_INT, 2, { b, 32 }, { K_INT, K_INT }, "", NULL }
#define CMP(op, b, k) { op, 1, K_INT, 2, { b, b }, { k, k }, "", NULL }
#define F2(op, b, k) { op, b, k, 2, { b, b }, { k, k }, "", NULL }
#define F1(op, b, k) { op, b, k, 1, { b }, { k }, "", NULL }
#define F3(op, b, k) { op, b, k, 3, { b, b, b }, { k, k, k }, "", NULL }
/* a body of PTX lines with n integer sources of b bits and a db-bit result */
#define B(op, db, n, b, text) { op, db, K_INT, n, { b, b, b }, { K_INT, K_INT, K_INT }, "", text }
#define CV(op, db, dk, sb, sk) { op, db, dk, 1, { sb }, { sk }, "", NULL }
/* packed cvt d, a, b from two f32 */
#define CV2(op) { op, 32, K_INT, 2, { 32, 32 }, { K_F32, K_F32 }, "", NULL }

static const form FORMS[] = {
    /* integer arithmetic */
    I2("add.s32", 32), I2("add.u64", 64), I2("add.s16", 16), I2("add.sat.s32", 32),
    I2("sub.s32", 32), I2("sub.u64", 64), I2("sub.sat.s32", 32),
    I2("mul.lo.s32", 32), I2("mul.hi.s32", 32), I2("mul.hi.u32", 32), I2("mul.lo.u64", 64),
    I2("mul.hi.s64", 64), I2("mul.hi.u64", 64),
    { "mul.wide.s32", 64, K_INT, 2, { 32, 32 }, { K_INT, K_INT }, "", NULL },
    { "mul.wide.u32", 64, K_INT, 2, { 32, 32 }, { K_INT, K_INT }, "", NULL },
    { "mul.wide.s16", 32, K_INT, 2, { 16, 16 }, { K_INT, K_INT }, "", NULL },
    I3("mad.lo.s32", 32), I3("mad.hi.u32", 32), I3("mad.lo.u64", 64),
    I2("mul24.lo.s32", 32), I2("mul24.hi.u32", 32), I3("mad24.lo.u32", 32), I3("sad.s32", 32),
    I2("div.s32", 32), I2("div.u32", 32), I2("div.s64", 64), I2("div.u64", 64), I2("div.s16", 16),
    I2("rem.s32", 32), I2("rem.u32", 32), I2("rem.s64", 64), I2("rem.u64", 64),
    I1("abs.s32", 32), I1("abs.s64", 64), I1("neg.s32", 32), I1("neg.s64", 64),
    I2("min.s32", 32), I2("min.u32", 32), I2("max.s64", 64), I2("max.u16", 16),
    /* bits */
    { "popc.b32", 32, K_INT, 1, { 32 }, { K_INT }, "", NULL }, { "popc.b64", 32, K_INT, 1, { 64 }, { K_INT }, "", NULL },
    { "clz.b32", 32, K_INT, 1, { 32 }, { K_INT }, "", NULL }, { "clz.b64", 32, K_INT, 1, { 64 }, { K_INT }, "", NULL },
    { "bfind.u32", 32, K_INT, 1, { 32 }, { K_INT }, "", NULL }, { "bfind.s32", 32, K_INT, 1, { 32 }, { K_INT }, "", NULL },
    { "bfind.shiftamt.u64", 32, K_INT, 1, { 64 }, { K_INT }, "", NULL },
    I1("brev.b32", 32), I1("brev.b64", 64),
    { "bfe.u32", 32, K_INT, 3, { 32, 32, 32 }, { K_INT, K_INT, K_INT }, "", NULL },
    { "bfe.s32", 32, K_INT, 3, { 32, 32, 32 }, { K_INT, K_INT, K_INT }, "", NULL },
    { "bfe.s64", 64, K_INT, 3, { 64, 32, 32 }, { K_INT, K_INT, K_INT }, "", NULL },
    { "bfi.b32", 32, K_INT, 4, { 32, 32, 32, 32 }, { K_INT, K_INT, K_INT, K_INT }, "", NULL },
    /* logic and shifts */
    I2("and.b32", 32), I2("or.b64", 64), I2("xor.b16", 16), I1("not.b32", 32), I1("cnot.b32", 32),
    SH("shl.b32", 32), SH("shl.b64", 64), SH("shr.u32", 32), SH("shr.s32", 32), SH("shr.s64", 64),
    SH("shr.u16", 16), SH("shl.b16", 16),
    { "shf.l.clamp.b32", 32, K_INT, 3, { 32, 32, 32 }, { K_INT, K_INT, K_INT }, "", NULL },
    { "shf.r.wrap.b32", 32, K_INT, 3, { 32, 32, 32 }, { K_INT, K_INT, K_INT }, "", NULL },
    { "prmt.b32", 32, K_INT, 3, { 32, 32, 32 }, { K_INT, K_INT, K_INT }, "", NULL },
    { "lop3.b32", 32, K_INT, 3, { 32, 32, 32 }, { K_INT, K_INT, K_INT }, ", 0x96", NULL },
    { "bmsk.clamp.b32", 32, K_INT, 2, { 32, 32 }, { K_INT, K_INT }, "", NULL },
    { "szext.wrap.s32", 32, K_INT, 2, { 32, 32 }, { K_INT, K_INT }, "", NULL },
    { "dp4a.s32.u32", 32, K_INT, 3, { 32, 32, 32 }, { K_INT, K_INT, K_INT }, "", NULL },
    { "dp2a.hi.u32.s32", 32, K_INT, 3, { 32, 32, 32 }, { K_INT, K_INT, K_INT }, "", NULL },
    { "fns.b32", 32, K_INT, 3, { 32, 32, 32 }, { K_INT, K_INT, K_INT }, "", NULL },
    { "slct.s32.s32", 32, K_INT, 3, { 32, 32, 32 }, { K_INT, K_INT, K_INT }, "", NULL },
    { "set.lt.u32.s32", 32, K_INT, 2, { 32, 32 }, { K_INT, K_INT }, "", NULL },
    { "set.gtu.u32.f32", 32, K_INT, 2, { 32, 32 }, { K_F32, K_F32 }, "", NULL },
    /* comparisons */
    CMP("setp.lt.s32", 32, K_INT), CMP("setp.lo.u32", 32, K_INT), CMP("setp.ge.s64", 64, K_INT),
    CMP("setp.hi.u64", 64, K_INT), CMP("setp.ne.b16", 16, K_INT),
    /* f32 */
    F2("add.rn.f32", 32, K_F32), F2("sub.rz.f32", 32, K_F32), F2("mul.rn.f32", 32, K_F32),
    F2("mul.rm.f32", 32, K_F32), F3("fma.rn.f32", 32, K_F32), F2("div.rn.f32", 32, K_F32),
    F2("min.f32", 32, K_F32), F2("max.f32", 32, K_F32), F1("abs.f32", 32, K_F32), F1("neg.f32", 32, K_F32),
    F1("sqrt.rn.f32", 32, K_F32), F1("rcp.rn.f32", 32, K_F32), F2("add.rn.ftz.f32", 32, K_F32),
    F2("add.sat.f32", 32, K_F32), F2("copysign.f32", 32, K_F32),
    CMP("setp.lt.f32", 32, K_F32), CMP("setp.equ.f32", 32, K_F32), CMP("setp.nan.f32", 32, K_F32),
    { "testp.subnormal.f32", 1, K_INT, 1, { 32 }, { K_F32 }, "", NULL },
    { "testp.infinite.f32", 1, K_INT, 1, { 32 }, { K_F32 }, "", NULL },
    /* f64 */
    F2("add.rn.f64", 64, K_F64), F2("mul.rp.f64", 64, K_F64), F3("fma.rn.f64", 64, K_F64),
    F2("div.rn.f64", 64, K_F64), F2("min.f64", 64, K_F64), F1("sqrt.rn.f64", 64, K_F64),
    F1("neg.f64", 64, K_F64), CMP("setp.gtu.f64", 64, K_F64),
    /* f16 and bf16, scalar and packed (element 0 in the low half) */
    F2("add.f16", 16, K_F16), F2("add.rn.f16", 16, K_F16), F2("sub.f16", 16, K_F16), F2("mul.rn.f16", 16, K_F16),
    F3("fma.rn.f16", 16, K_F16), F2("add.sat.f16", 16, K_F16), F2("mul.sat.f16", 16, K_F16),
    F3("fma.rn.sat.f16", 16, K_F16), F3("fma.rn.relu.f16", 16, K_F16), F1("neg.f16", 16, K_F16),
    F1("abs.f16", 16, K_F16), F2("min.f16", 16, K_F16), F2("max.f16", 16, K_F16), F2("min.NaN.f16", 16, K_F16),
    F2("max.relu.f16", 16, K_F16),
    CMP("setp.lt.f16", 16, K_F16), CMP("setp.equ.f16", 16, K_F16), CMP("setp.nan.f16", 16, K_F16),
    { "set.gt.u32.f16", 32, K_INT, 2, { 16, 16 }, { K_F16, K_F16 }, "", NULL },
    F2("add.rn.f16x2", 32, K_F16X2), F2("mul.f16x2", 32, K_F16X2), F3("fma.rn.f16x2", 32, K_F16X2),
    F3("fma.rn.sat.f16x2", 32, K_F16X2), F1("neg.f16x2", 32, K_F16X2), F1("abs.f16x2", 32, K_F16X2),
    F2("min.f16x2", 32, K_F16X2), F2("max.NaN.f16x2", 32, K_F16X2),
    CMP("setp.ltu.f16x2", 32, K_F16X2), CMP("setp.ge.f16x2 %p1|", 32, K_F16X2),
    F1("neg.bf16", 16, K_BF16), F1("abs.bf16", 16, K_BF16), F2("min.bf16", 16, K_BF16),
    F2("max.NaN.bf16", 16, K_BF16), F2("min.relu.bf16", 16, K_BF16),
    CMP("setp.lt.bf16", 16, K_BF16), CMP("setp.neu.bf16", 16, K_BF16),
    { "set.le.u32.bf16", 32, K_INT, 2, { 16, 16 }, { K_BF16, K_BF16 }, "", NULL },
    F1("neg.bf16x2", 32, K_BF16X2), F2("max.bf16x2", 32, K_BF16X2), F2("min.NaN.bf16x2", 32, K_BF16X2),
    CMP("setp.gt.bf16x2", 32, K_BF16X2), CMP("setp.nan.bf16x2 %p1|", 32, K_BF16X2),
    CV("cvt.f32.f16", 32, K_F32, 16, K_F16), CV("cvt.f64.f16", 64, K_F64, 16, K_F16),
    CV("cvt.sat.f32.f16", 32, K_F32, 16, K_F16), CV("cvt.rni.f32.f16", 32, K_F32, 16, K_F16),
    CV("cvt.rn.f16.f32", 16, K_F16, 32, K_F32), CV("cvt.rz.f16.f32", 16, K_F16, 32, K_F32),
    CV("cvt.rm.f16.f64", 16, K_F16, 64, K_F64), CV("cvt.rp.f16.f32", 16, K_F16, 32, K_F32),
    CV("cvt.rna.f16.f32", 16, K_F16, 32, K_F32), CV("cvt.rn.f16.f64", 16, K_F16, 64, K_F64),
    CV("cvt.rn.sat.f16.f32", 16, K_F16, 32, K_F32), CV("cvt.rn.ftz.f16.f32", 16, K_F16, 32, K_F32),
    CV("cvt.rni.f16.f16", 16, K_F16, 16, K_F16), CV("cvt.rzi.s32.f16", 32, K_INT, 16, K_F16),
    CV("cvt.rni.u16.f16", 16, K_INT, 16, K_F16), CV("cvt.rn.f16.s32", 16, K_F16, 32, K_INT),
    CV("cvt.rz.f16.u64", 16, K_F16, 64, K_INT), CV("cvt.rm.f16.s16", 16, K_F16, 16, K_INT),
    CV("cvt.f32.bf16", 32, K_F32, 16, K_BF16), CV("cvt.ftz.f32.bf16", 32, K_F32, 16, K_BF16),
    CV("cvt.f64.bf16", 64, K_F64, 16, K_BF16), CV("cvt.rn.bf16.f32", 16, K_BF16, 32, K_F32),
    CV("cvt.rz.bf16.f32", 16, K_BF16, 32, K_F32), CV("cvt.rp.bf16.f64", 16, K_BF16, 64, K_F64),
    CV("cvt.rm.bf16.f32", 16, K_BF16, 32, K_F32), CV("cvt.rn.bf16.f64", 16, K_BF16, 64, K_F64),
    CV("cvt.rn.sat.bf16.f32", 16, K_BF16, 32, K_F32), CV("cvt.rn.bf16.s32", 16, K_BF16, 32, K_INT),
    CV("cvt.rz.bf16.u32", 16, K_BF16, 32, K_INT), CV("cvt.rzi.s32.bf16", 32, K_INT, 16, K_BF16),
    CV("cvt.rn.f16.bf16", 16, K_F16, 16, K_BF16), CV("cvt.rn.bf16.f16", 16, K_BF16, 16, K_F16),
    CV2("cvt.rn.f16x2.f32"), CV2("cvt.rz.f16x2.f32"), CV2("cvt.rn.relu.bf16x2.f32"), CV2("cvt.rn.bf16x2.f32"),
    /* bf16 arithmetic (one rounding of the exact result: an fma whose
     * product is a bf16 tie, 7 x 37 = 259, plus a tiny addend must not
     * round twice), conversions to bf16 in every mode */
    F2("add.bf16", 16, K_BF16), F2("sub.rn.bf16", 16, K_BF16), F2("mul.rn.bf16", 16, K_BF16),
    F3("fma.rn.bf16", 16, K_BF16), F3("fma.rn.relu.bf16", 16, K_BF16), F2("add.rn.bf16x2", 32, K_BF16X2),
    F3("fma.rn.bf16x2", 32, K_BF16X2),
    { "fma.rn.bf16 (a tie product)", 16, K_BF16, 1, { 16 }, { K_BF16 }, "",
      "mov.b16 %h4, 0x40e0;\n\tmov.b16 %h5, 0x4214;\n\tfma.rn.bf16 %h0, %h4, %h5, %h1;" },
    CV("cvt.rna.bf16.f32", 16, K_BF16, 32, K_F32), CV("cvt.rm.bf16.s32", 16, K_BF16, 32, K_INT),
    CV("cvt.rp.bf16.u64", 16, K_BF16, 64, K_INT), CV("cvt.rz.bf16.s64", 16, K_BF16, 64, K_INT),
    CV("cvt.rn.f16.u64", 16, K_F16, 64, K_INT),
    CV("cvt.rn.sat.f32.f64", 32, K_F32, 64, K_F64), CV("cvt.rz.sat.f32.f64", 32, K_F32, 64, K_F64),
    /* set's true value in a 16-bit float or integer destination */
    { "set.lt.f16.f16", 16, K_INT, 2, { 16, 16 }, { K_F16, K_F16 }, "", NULL },
    { "set.geu.bf16.bf16", 16, K_INT, 2, { 16, 16 }, { K_BF16, K_BF16 }, "", NULL },
    { "set.ne.u16.f16", 16, K_INT, 2, { 16, 16 }, { K_F16, K_F16 }, "", NULL },
    /* conversions */
    { "cvt.rzi.s32.f32", 32, K_INT, 1, { 32 }, { K_F32 }, "", NULL },
    { "cvt.rni.u32.f32", 32, K_INT, 1, { 32 }, { K_F32 }, "", NULL },
    { "cvt.rzi.s64.f64", 64, K_INT, 1, { 64 }, { K_F64 }, "", NULL },
    { "cvt.rn.f32.s32", 32, K_F32, 1, { 32 }, { K_INT }, "", NULL },
    { "cvt.rz.f32.u64", 32, K_F32, 1, { 64 }, { K_INT }, "", NULL },
    { "cvt.rn.f32.f64", 32, K_F32, 1, { 64 }, { K_F64 }, "", NULL },
    { "cvt.f64.f32", 64, K_F64, 1, { 32 }, { K_F32 }, "", NULL },
    { "cvt.rni.f32.f32", 32, K_F32, 1, { 32 }, { K_F32 }, "", NULL },
    { "cvt.s32.s16", 32, K_INT, 1, { 16 }, { K_INT }, "", NULL },
    { "cvt.u16.u32", 16, K_INT, 1, { 32 }, { K_INT }, "", NULL },
    { "cvt.sat.s8.s32", 32, K_INT, 1, { 32 }, { K_INT }, "", NULL },
    { "cvt.s8.s32", 32, K_INT, 1, { 32 }, { K_INT }, "", NULL },
    { "cvt.u8.s64", 32, K_INT, 1, { 64 }, { K_INT }, "", NULL },
    { "cvt.sat.u16.s32", 32, K_INT, 1, { 32 }, { K_INT }, "", NULL },
    { "cvt.s16.u8", 32, K_INT, 1, { 32 }, { K_INT }, "", NULL },
    { "cvt.s64.s32", 64, K_INT, 1, { 32 }, { K_INT }, "", NULL },
    /* special registers of the same launch (one block of one thread) */
#define SREG(bits, name) { bits == 64 ? "mov.u64" : "mov.u32", bits, K_INT, 0, { 0 }, { K_INT }, ", " name, NULL }
    SREG(32, "%tid.x"), SREG(32, "%ntid.x"), SREG(32, "%ntid.y"), SREG(32, "%ctaid.x"), SREG(32, "%nctaid.z"),
    SREG(32, "%laneid"), SREG(32, "%warpid"), SREG(32, "%nwarpid"), SREG(32, "%smid"), SREG(32, "%nsmid"),
    SREG(64, "%gridid"), SREG(32, "%lanemask_lt"), SREG(32, "%lanemask_ge"), SREG(32, "%lanemask_gt"),
    SREG(32, "%dynamic_smem_size"),
    /* the generic address map: a buffer, shared, .global, const and local
     * variables, a const load */
    SREG(64, "%rd10"), SREG(64, "%rd12"), SREG(64, "%rd13"), SREG(64, "%rd16"), SREG(64, "%rd17"),
    SREG(64, "%rd18"), SREG(64, "%rd19"), SREG(64, "%rd20"),
    { "isspacep.const", 1, K_INT, 0, { 0 }, { K_INT }, ", %rd17", NULL },
    { "isspacep.local", 1, K_INT, 0, { 0 }, { K_INT }, ", %rd18", NULL },
    { "isspacep.global", 1, K_INT, 0, { 0 }, { K_INT }, ", %rd19", NULL },
    { "isspacep.shared", 1, K_INT, 0, { 0 }, { K_INT }, ", %rd12", NULL },
    { "isspacep.global", 1, K_INT, 0, { 0 }, { K_INT }, ", %rd12", NULL },
    { "isspacep.global", 1, K_INT, 0, { 0 }, { K_INT }, ", %rd10", NULL },
    { "isspacep.local", 1, K_INT, 0, { 0 }, { K_INT }, ", %rd13", NULL },
    /* carry chains, selects, warp collectives of a one-thread warp, memory
     * and atomics: every opcode both engines implement that computes a
     * value (the .approx and transcendental ones excepted: symexec keeps
     * them uninterpreted, so it has no value to compare) */
    B("addc.u32", 32, 2, 32, "add.cc.u32 %r8, %r1, %r2;\n\taddc.u32 %r0, %r1, %r2;"),
    B("addc.cc.u64", 64, 2, 64, "add.cc.u64 %rd8, %rd1, %rd2;\n\taddc.cc.u64 %rd0, %rd1, %rd2;\n"
                                "\taddc.u64 %rd9, 0, 0;\n\tshl.b64 %rd9, %rd9, 63;\n\txor.b64 %rd0, %rd0, %rd9;"),
    B("subc.u32", 32, 2, 32, "sub.cc.u32 %r8, %r1, %r2;\n\tsubc.u32 %r0, %r2, %r1;"),
    B("madc.hi.u32", 32, 3, 32, "mad.lo.cc.u32 %r8, %r1, %r2, %r3;\n\tmadc.hi.u32 %r0, %r1, %r2, %r3;"),
    B("selp.b32", 32, 2, 32, "setp.lt.s32 %p5, %r1, %r2;\n\tselp.b32 %r0, %r1, %r2, %p5;"),
    B("shfl.sync.idx.b32", 32, 2, 32, "shfl.sync.idx.b32 %r0|%p5, %r1, %r2, 31, 1;\n"
                                      "\tselp.u32 %r10, 0x80000000, 0, %p5;\n\txor.b32 %r0, %r0, %r10;"),
    B("shfl.sync.up.b32", 32, 2, 32, "shfl.sync.up.b32 %r0|%p5, %r1, 1, %r2, 1;\n"
                                     "\tselp.u32 %r10, 0x80000000, 0, %p5;\n\txor.b32 %r0, %r0, %r10;"),
    B("vote.sync.ballot.b32", 32, 1, 32, "setp.ne.u32 %p5, %r1, 0;\n\tvote.sync.ballot.b32 %r0, %p5, 1;"),
    { "vote.sync.any.pred", 1, K_INT, 1, { 32 }, { K_INT }, "",
      "setp.lt.s32 %p5, %r1, 0;\n\tvote.sync.any.pred %p0, %p5, 1;" },
    B("match.any.sync.b32", 32, 1, 32, "match.any.sync.b32 %r0, %r1, 1;"),
    B("redux.sync.add.u32", 32, 1, 32, "redux.sync.add.u32 %r0, %r1, 1;"),
    B("redux.sync.max.s32", 32, 1, 32, "redux.sync.max.s32 %r0, %r1, 1;"),
    B("elect.sync", 32, 0, 32, "elect.sync %r0|%p5, 1;\n\tselp.u32 %r10, 2, 0, %p5;\n\tadd.u32 %r0, %r0, %r10;"),
    B("activemask.b32", 32, 0, 32, "activemask.b32 %r0;"),
    B("ld.shared.s8", 32, 2, 32, "st.shared.b32 [diff_s], %r1;\n\tst.shared.b8 [diff_s+2], %r2;\n"
                                 "\tld.shared.s8 %r0, [diff_s+2];\n\tld.shared.u16 %r10, [diff_s];\n"
                                 "\tshl.b32 %r10, %r10, 8;\n\txor.b32 %r0, %r0, %r10;"),
    B("ldu.global.u32", 32, 1, 32, "st.global.u32 [diff_g+4], %r1;\n\tldu.global.u32 %r0, [diff_g+4];"),
    B("atom.shared.add.u32", 32, 2, 32, "st.shared.u32 [diff_s], %r1;\n\tatom.shared.add.u32 %r0, [diff_s], %r2;\n"
                                        "\tld.shared.u32 %r10, [diff_s];\n\txor.b32 %r0, %r0, %r10;"),
    B("atom.shared.cas.b32", 32, 3, 32, "st.shared.u32 [diff_s], %r1;\n\tatom.shared.cas.b32 %r0, [diff_s], %r2, %r3;\n"
                                        "\tld.shared.u32 %r10, [diff_s];\n\tadd.u32 %r0, %r0, %r10;"),
    B("atom.shared.inc.u32", 32, 2, 32, "st.shared.u32 [diff_s], %r1;\n\tatom.shared.inc.u32 %r10, [diff_s], %r2;\n"
                                        "\tld.shared.u32 %r0, [diff_s];"),
    B("atom.global.max.s64", 64, 2, 64, "st.global.u64 [diff_g], %rd1;\n\tatom.global.max.s64 %rd0, [diff_g], %rd2;\n"
                                        "\tld.global.u64 %rd9, [diff_g];\n\txor.b64 %rd0, %rd0, %rd9;"),
    B("red.shared.min.u32", 32, 2, 32, "st.shared.u32 [diff_s+4], %r1;\n\tred.shared.min.u32 [diff_s+4], %r2;\n"
                                       "\tld.shared.u32 %r0, [diff_s+4];"),
    { "atom.shared.add.f32", 32, K_F32, 2, { 32, 32 }, { K_F32, K_F32 }, "",
      "st.shared.f32 [diff_s], %f1;\n\tatom.shared.add.f32 %f3, [diff_s], %f2;\n\tld.shared.f32 %f0, [diff_s];" },
    /* cp.async: copied at issue, zero-filled past a src-size (from a register), read back */
    B("cp.async.ca.shared.global", 32, 1, 32, "st.global.u32 [diff_g+8], %r1;\n\tcp.async.ca.shared.global [diff_s+8], [diff_g+8], 4;\n"
                                              "\tcp.async.commit_group;\n\tcp.async.wait_group 0;\n\tld.shared.u32 %r0, [diff_s+8];"),
    B("cp.async.ca.shared.global (src-size)", 64, 2, 32, "not.b32 %r10, %r1;\n\tst.shared.u32 [diff_s], %r10;\n"
                                                         "\tst.shared.u32 [diff_s+4], %r10;\n\tst.global.u32 [diff_g], %r1;\n"
                                                         "\tst.global.u32 [diff_g+4], %r10;\n"
                                                         "\tcp.async.ca.shared.global [diff_s], [diff_g], 8, %r2;\n"
                                                         "\tcp.async.wait_all;\n\tld.shared.u64 %rd0, [diff_s];"),
    /* cp.async.bulk: in through an mbarrier's transaction bytes (the wait's
     * answer in the top bit), back out through a bulk async-group */
    B("cp.async.bulk", 32, 2, 32, "st.global.u32 [diff_gb+4], %r1;\n\tst.global.u32 [diff_gb+8], %r2;\n"
                                  "\tmbarrier.init.shared.b64 [diff_bar], 1;\n"
                                  "\tmbarrier.arrive.expect_tx.shared.b64 %rd21, [diff_bar], 16;\n"
                                  "\tcp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [diff_sb], [diff_gb], 16, "
                                  "[diff_bar];\n"
                                  "\tmbarrier.test_wait.shared.b64 %p5, [diff_bar], %rd21;\n"
                                  "\tld.shared.u32 %r0, [diff_sb+4];\n\tst.shared.u32 [diff_sb+4], %r2;\n"
                                  "\tcp.async.bulk.global.shared::cta.bulk_group [diff_gb], [diff_sb], 16;\n"
                                  "\tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;\n"
                                  "\tld.global.u32 %r10, [diff_gb+4];\n\txor.b32 %r0, %r0, %r10;\n"
                                  "\tselp.u32 %r10, 0x80000000, 0, %p5;\n\txor.b32 %r0, %r0, %r10;"),
    /* shfl with its lane and clamp from source registers */
    B("shfl.sync.bfly.b32", 32, 2, 32, "shfl.sync.bfly.b32 %r0|%p5, %r1, %r2, %r1, 1;\n"
                                       "\tselp.u32 %r10, 0x80000000, 0, %p5;\n\txor.b32 %r0, %r0, %r10;"),
    B("shfl.sync.down.b32", 32, 2, 32, "shfl.sync.down.b32 %r0|%p5, %r1, %r2, %r2, 1;\n"
                                       "\tselp.u32 %r10, 0x80000000, 0, %p5;\n\txor.b32 %r0, %r0, %r10;"),
};

#define NFORMS (sizeof FORMS / sizeof FORMS[0])

/* ---- edge operands ----------------------------------------------------------- */

static int int_edges(int bits, uint64_t *v)
{
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1, sign = 1ull << (bits - 1);
    const uint64_t raw[] = { 0, 1, 2, 7, (uint64_t)bits - 1, (uint64_t)bits, (uint64_t)bits + 1,
                             0x5555555555555555ull, sign, sign - 1, ~0ull, ~1ull };
    int n = 0;
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++)
        v[n++] = raw[i] & mask;
    return n;
}

static int f32_edges(uint64_t *v)
{
    const uint32_t raw[] = { 0x00000000u, 0x80000000u, 0x3f800000u, 0xbfc00000u, 0x7f800000u, 0xff800000u,
                             0x7fc00000u, 0x00000001u, 0x807fffffu, 0x7f7fffffu, 0x00800000u, 0x4f000000u,
                             /* halfway for f16 and for bf16, a signalling NaN with a payload */
                             0x3f801000u, 0xbf818000u, 0x7fa00001u, 0x477ff000u };
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++)
        v[i] = raw[i];
    return (int)(sizeof raw / sizeof raw[0]);
}

static int f64_edges(uint64_t *v)
{
    const uint64_t raw[] = { 0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff8000000000000ull,
                             0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull, 1,
                             0x800fffffffffffffull, 0x7fefffffffffffffull, 0x0010000000000000ull,
                             0x43e0000000000000ull,
                             /* just past a bf16 tie (f32 drops the excess), an f16 tie */
                             0x3ff0100000001000ull, 0xbff0020000000000ull };
    memcpy(v, raw, sizeof raw);
    return (int)(sizeof raw / sizeof raw[0]);
}

/* 0, -0, 1, -1, max finite, min normal, subnormals, +-inf, NaNs (one with
 * a payload and the sign), 0.5 and a value whose sums and products with
 * the others fall halfway (1025 + 0.5). */
static int f16_edges(uint64_t *v)
{
    const uint16_t raw[] = { 0x0000, 0x8000, 0x3c00, 0xbc00, 0x7bff, 0x0400, 0x0001, 0x83ff,
                             0x7c00, 0xfc00, 0x7e00, 0x3800, 0x6401, 0x3555, 0xfe01 };
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++)
        v[i] = raw[i];
    return (int)(sizeof raw / sizeof raw[0]);
}

static int bf16_edges(uint64_t *v)
{
    const uint16_t raw[] = { 0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f7f, 0x0080, 0x0001, 0x807f,
                             0x7f80, 0xff80, 0x7fc0, 0x3f00, 0x4381, 0x3eab, 0xff81 };
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++)
        v[i] = raw[i];
    return (int)(sizeof raw / sizeof raw[0]);
}

/* Packed: element 0 and element 1 from different edges. */
static int packed_edges(bool bf, uint64_t *v)
{
    uint64_t e[16];
    int n = bf ? bf16_edges(e) : f16_edges(e);
    for (int i = 0; i < n; i++)
        v[i] = e[(i + 5) % n] << 16 | e[i];
    return n;
}

static int edges(val_kind k, int bits, uint64_t *v)
{
    switch (k) {
    case K_F32: return f32_edges(v);
    case K_F64: return f64_edges(v);
    case K_F16: return f16_edges(v);
    case K_BF16: return bf16_edges(v);
    case K_F16X2: return packed_edges(false, v);
    case K_BF16X2: return packed_edges(true, v);
    default: return int_edges(bits, v);
    }
}

/* Every combination of edge operands for a form; with three or more
 * sources every other edge only, so a kernel stays a few thousand lines. */
typedef struct {
    uint64_t (*ops)[4];
    int n;
} combos;

static combos make_combos(const form *f)
{
    uint64_t e[4][16];
    int ne[4];
    for (int s = 0; s < f->nsrc; s++) {
        ne[s] = edges(f->skind[s], f->sbits[s], e[s]);
        if (f->nsrc >= 3) {
            int k = 0;
            for (int i = 0; i < ne[s]; i += 2)
                e[s][k++] = e[s][i];
            ne[s] = k;
        }
    }
    int total = 1;
    for (int s = 0; s < f->nsrc; s++)
        total *= ne[s];
    combos c = { calloc((size_t)total, sizeof *c.ops), total };
    cr_assert(c.ops);
    for (int i = 0; i < total; i++) {
        int r = i;
        for (int s = 0; s < f->nsrc; s++) {
            c.ops[i][s] = e[s][r % ne[s]];
            r /= ne[s];
        }
    }
    return c;
}

/* ---- kernels ------------------------------------------------------------------- */

/* Kernels are written to a memory stream (open_memstream). */
typedef struct {
    FILE *f;
    char *text;
    size_t len;
} buf;

/* In place: the stream keeps pointers to b's text and length. */
static void buf_open(buf *b)
{
    memset(b, 0, sizeof *b);
    b->f = open_memstream(&b->text, &b->len);
    cr_assert(b->f);
}

static char *buf_close(buf *b)
{
    cr_assert_eq(fclose(b->f), 0);
    return b->text;
}

#define put(b, ...) fprintf((b)->f, __VA_ARGS__)

/* Register of width `bits` and kind k, number i. */
static void reg(char *out, size_t n, val_kind k, int bits, int i)
{
    if (bits == 1)
        snprintf(out, n, "%%p%d", i);
    else if (k == K_F32)
        snprintf(out, n, "%%f%d", i);
    else if (k == K_F64)
        snprintf(out, n, "%%fd%d", i);
    else
        snprintf(out, n, "%%%s%d", bits == 16 ? "h" : bits == 32 ? "r" : "rd", i);
}

static void immediate(char *out, size_t n, val_kind k, uint64_t v)
{
    if (k == K_F32)
        snprintf(out, n, "0f%08X", (unsigned)v);
    else if (k == K_F64)
        snprintf(out, n, "0d%016llX", (unsigned long long)v);
    else
        snprintf(out, n, "0x%llX", (unsigned long long)v);
}

static const char *mov_type(val_kind k, int bits)
{
    if (k == K_F32) return "f32";
    if (k == K_F64) return "f64";
    return bits == 16 ? "b16" : bits == 32 ? "b32" : "b64";
}

static void head(buf *b)
{
    put(b, ".version 8.0\n.target sm_90\n.address_size 64\n\n"
           ".global .align 8 .b8 diff_g[16];\n"
           ".global .align 16 .b8 diff_gb[16];\n"
           /* the memory map: an unreferenced shared variable takes no room,
            * const and local variables sit in their windows */
           ".shared .align 4 .b8 diff_unused[12];\n"
           ".shared .align 8 .b8 diff_s2[8];\n"
           ".const .align 8 .b8 diff_c[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
           ".local .align 8 .b8 diff_ml[24];\n\n"
           ".visible .entry diff(.param .u64 diff_out)\n{\n"
           "\t.reg .pred %%p<8>;\n\t.reg .b16 %%h<8>;\n\t.reg .b32 %%r<16>;\n\t.reg .b64 %%rd<24>;\n"
           "\t.reg .f32 %%f<8>;\n\t.reg .f64 %%fd<8>;\n"
           "\t.shared .align 8 .b8 diff_s[16];\n"
           "\t.shared .align 16 .b8 diff_sb[16];\n\t.shared .align 8 .b64 diff_bar;\n"
           "\t.local .align 4 .b8 diff_l[12];\n"
           "\tld.param.u64 %%rd10, [diff_out];\n\tcvta.to.global.u64 %%rd11, %%rd10;\n"
           /* generic addresses: a shared variable, a module .global variable */
           "\tmov.u64 %%rd12, diff_s;\n\tcvta.shared.u64 %%rd12, %%rd12;\n"
           "\tmov.u64 %%rd13, diff_g;\n\tcvta.global.u64 %%rd13, %%rd13;\n"
           /* the other windows: module shared, const, module and kernel local */
           "\tmov.u64 %%rd16, diff_s2;\n\tcvta.shared.u64 %%rd16, %%rd16;\n"
           "\tmov.u64 %%rd17, diff_c;\n\tcvta.const.u64 %%rd17, %%rd17;\n"
           "\tmov.u64 %%rd18, diff_l;\n\tcvta.local.u64 %%rd18, %%rd18;\n"
           "\tmov.u64 %%rd19, diff_ml;\n\tcvta.local.u64 %%rd19, %%rd19;\n"
           "\tld.const.u64 %%rd20, [diff_c];\n"
           "\tst.local.u32 [diff_l+4], %%r1;\n\tst.local.u32 [diff_ml+8], %%r1;\n"
           "\tst.shared.u32 [diff_s2], %%r1;\n");
}

/* The instruction of case i: sources moved in, result in register 0 (a
 * predicate result is turned into 0/1 in %r9). */
static void compute(buf *b, const form *f, const uint64_t *ops)
{
    char r[16], imm[40];
    for (int s = 0; s < f->nsrc; s++) {
        reg(r, sizeof r, f->skind[s], f->sbits[s], s + 1);
        immediate(imm, sizeof imm, f->skind[s], ops[s]);
        put(b, "\tmov.%s %s, %s;\n", mov_type(f->skind[s], f->sbits[s]), r, imm);
    }
    if (f->body) {
        put(b, "\t%s\n", f->body);
        if (f->dbits == 1)
            put(b, "\tselp.u32 %%r9, 1, 0, %%p0;\n");
        return;
    }
    reg(r, sizeof r, f->dkind, f->dbits, 0);
    put(b, "\t%s %s", f->instr, r);
    for (int s = 0; s < f->nsrc; s++) {
        char q[16];
        reg(q, sizeof q, f->skind[s], f->sbits[s], s + 1);
        put(b, ", %s", q);
    }
    put(b, "%s;\n", f->tail);
    if (f->dbits == 1)
        put(b, "\tselp.u32 %%r9, 1, 0, %%p0;\n");
}

/* Register holding the result's bits (an integer register). */
static const char *result_bits(buf *b, const form *f)
{
    if (f->dbits == 1) return "%r9";
    if (f->dkind == K_F32) {
        put(b, "\tmov.b32 %%r8, %%f0;\n");
        return "%r8";
    }
    if (f->dkind == K_F64) {
        put(b, "\tmov.b64 %%rd8, %%fd0;\n");
        return "%rd8";
    }
    return f->dbits == 16 ? "%h0" : f->dbits == 32 ? "%r0" : "%rd0";
}

static int result_store_bits(const form *f)
{
    return f->dbits == 1 ? 32 : f->dbits;
}

static char *sim_kernel(const form *f, const combos *c)
{
    buf b;
    buf_open(&b);
    head(&b);
    for (int i = 0; i < c->n; i++) {
        compute(&b, f, c->ops[i]);
        const char *res = result_bits(&b, f);
        put(&b, "\tst.global.b%d [%%rd11+%d], %s;\n", result_store_bits(f), 8 * i, res);
    }
    put(&b, "\tret;\n}\n");
    return buf_close(&b);
}

/* Case i branches to its label when the result differs from `want`. */
static char *check_kernel(const form *f, const combos *c, const uint64_t *want)
{
    buf b;
    buf_open(&b);
    head(&b);
    int bits = result_store_bits(f);
    for (int i = 0; i < c->n; i++) {
        compute(&b, f, c->ops[i]);
        const char *res = result_bits(&b, f);
        put(&b, "\tsetp.ne.b%d %%p7, %s, 0x%llX;\n", bits, res, (unsigned long long)want[i]);
        put(&b, "\t@%%p7 bra L%d;\nL%d:\n", i, i);
    }
    put(&b, "\tret;\n}\n");
    return buf_close(&b);
}

/* ---- running both engines ----------------------------------------------------------- */

static void write_case(const char *dir, const char *ptx, int n)
{
    char spec[512];
    snprintf(spec, sizeof spec,
             "{ \"name\": \"diff\", \"source\": \"diff.cu\", \"ptx\": \"diff.ptx\", \"entry\": \"diff\",\n"
             "  \"grid\": [1], \"block\": [1], \"symbolic\": { \"threads\": [1] },\n"
             "  \"params\": [ { \"name\": \"out\", \"kind\": \"buffer\", \"type\": \"u64\", \"count\": %d,"
             " \"role\": \"output\" } ] }\n", n);
    tsim_write(dir, "diff.ptx", ptx);
    tsim_write(dir, "diff.json", spec);
}

/* The sim's result bits of every case. */
static uint64_t *run_sim(const char *dir, const form *f, int n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/diff.json", dir);
    simcase c;
    sc_load(&c, path, false);
    harness_options o = sc_options(true);
    cr_assert(sc_attach(&c, &o), "%s: sim: %s", f->instr, c.err.msg);
    sc_run(&c);
    uint64_t *got = malloc((size_t)n * sizeof *got);
    cr_assert(got);
    memcpy(got, sc_buf(&c, "out"), (size_t)n * sizeof *got);
    int bits = result_store_bits(f);
    for (int i = 0; i < n; i++)
        got[i] &= bits == 64 ? ~0ull : (1ull << bits) - 1;
    sc_close(&c);
    return got;
}

/* Cases whose symbolic result differs from the sim's (-1 on failure). */
static int run_symbolic(const char *dir, const form *f, const combos *c, const uint64_t *want, char *why,
                        size_t whylen)
{
    wh_spec *spec;
    ptx_module *mod;
    tsim_load_pair(dir, "diff", &spec, &mod);
    wh_error err;
    wh_error_clear(&err);
    sx_options o;
    sx_options_default(&o);
    o.threads = 1;
    o.time_budget_s = 120;
    sx_result *r = sx_explore(spec, mod, &o, &err);
    int bad = -1;
    if (!r) {
        snprintf(why, whylen, "symbolic execution failed: %s", err.msg);
    } else if (r->npaths != 1 || r->paths[0].kind != SX_PATH_DONE) {
        snprintf(why, whylen, "%d path(s), first %s%s%s", r->npaths,
                 r->npaths ? sx_path_kind_name(r->paths[0].kind) : "-",
                 r->npaths && r->paths[0].note ? ": " : "", r->npaths && r->paths[0].note ? r->paths[0].note : "");
    } else if (r->paths[0].ndecisions[0] != c->n) {
        snprintf(why, whylen, "%d decisions for %d cases", r->paths[0].ndecisions[0], c->n);
    } else {
        bad = 0;
        size_t at = 0;
        why[0] = '\0';
        for (int i = 0; i < c->n; i++) {
            if (!r->paths[0].decisions[0][i].taken) continue;
            bad++;
            if (at + 120 < whylen)
                at += (size_t)snprintf(why + at, whylen - at, "%s(%llx,%llx,%llx) sim %llx; ", bad == 1 ? "" : "",
                                       (unsigned long long)c->ops[i][0], (unsigned long long)c->ops[i][1],
                                       (unsigned long long)c->ops[i][2], (unsigned long long)want[i]);
        }
    }
    sx_result_free(r);
    ptx_module_free(mod);
    wh_spec_free(spec);
    return bad;
}

static int check_form(const form *f, char *why, size_t whylen)
{
    char dir[] = "/tmp/wh_semXXXXXX";
    tsim_mkdtemp(dir);
    combos c = make_combos(f);
    char *ptx = sim_kernel(f, &c);
    write_case(dir, ptx, c.n);
    free(ptx);
    uint64_t *want = run_sim(dir, f, c.n);
    ptx = check_kernel(f, &c, want);
    write_case(dir, ptx, c.n);
    free(ptx);
    int bad = run_symbolic(dir, f, &c, want, why, whylen);
    free(want);
    free(c.ops);
    ts_rmtree(dir);
    return bad;
}

Test(semantics, sim_and_symbolic_executor_agree_bit_for_bit, .timeout = 600)
{
    int failed = 0;
    for (size_t k = 0; k < NFORMS; k++) {
        char why[2048];
        int bad = check_form(&FORMS[k], why, sizeof why);
        if (bad != 0) {
            failed++;
            fprintf(stderr, "semantics: %s%s: %d case(s) differ: %s\n", FORMS[k].instr, FORMS[k].tail, bad, why);
        }
    }
    cr_assert_eq(failed, 0, "%d instruction form(s) differ between the sim and the symbolic executor", failed);
}

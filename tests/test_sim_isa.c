/*
 * test_sim_isa.c — instruction semantics the corpus does not reach,
 * through one hand-written PTX kernel and a C reference: bit-field and
 * byte-permute instructions (every prmt mode), lop3, dp4a/dp2a, funnel
 * shifts, mul24/sad/mad.hi, carry chains, bfind/brev/popc/clz, szext/bmsk,
 * vote.uni, match.all, redux, packing moves, generic addressing of shared
 * and local memory with isspacep, shared atomics (cas/exch/inc), brx.idx,
 * saturating and narrowing conversions, packed f16x2 and bf16 arithmetic,
 * directed rounding (.rz/.rm/.rp) of f32/f64 operations.
 */
#include "tests/sim_support.h"

#include <criterion/criterion.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define K 64   /* results per thread */

static const char *PTX =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry isa(\n"
    "\t.param .u64 isa_param_0,\n"
    "\t.param .u64 isa_param_1\n"
    ")\n"
    "{\n"
    "\t.reg .pred %p<16>;\n"
    "\t.reg .b16 %h<16>;\n"
    "\t.reg .b32 %r<100>;\n"
    "\t.reg .b64 %rd<32>;\n"
    "\t.reg .f32 %f<32>;\n"
    "\t.reg .f64 %fd<16>;\n"
    "\t.shared .align 8 .b8 sh[256];\n"
    "\t.local .align 8 .b8 loc[64];\n"
    "\tld.param.u64 %rd1, [isa_param_0];\n"
    "\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tld.param.u64 %rd3, [isa_param_1];\n"
    "\tcvta.to.global.u64 %rd4, %rd3;\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmul.wide.u32 %rd5, %r1, 4;\n"
    "\tadd.s64 %rd6, %rd2, %rd5;\n"
    "\tld.global.u32 %r2, [%rd6];\n"
    "\tld.global.u32 %r3, [%rd6+128];\n"
    "\tmul.wide.u32 %rd7, %r1, 256;\n"
    "\tadd.s64 %rd8, %rd4, %rd7;\n"
    /* bit fields and permutes */
    "\tbfe.u32 %r10, %r2, 3, 7;\n"
    "\tst.global.u32 [%rd8+0], %r10;\n"
    "\tbfe.s32 %r10, %r2, 5, 9;\n"
    "\tst.global.u32 [%rd8+4], %r10;\n"
    "\tbfi.b32 %r10, %r2, %r3, 8, 12;\n"
    "\tst.global.u32 [%rd8+8], %r10;\n"
    "\tprmt.b32 %r10, %r2, %r3, 0x4271;\n"
    "\tst.global.u32 [%rd8+12], %r10;\n"
    "\tprmt.b32 %r10, %r2, %r3, 0x8C3A;\n"
    "\tst.global.u32 [%rd8+16], %r10;\n"
    "\tprmt.b32.f4e %r10, %r2, %r3, %r1;\n"
    "\tst.global.u32 [%rd8+20], %r10;\n"
    "\tprmt.b32.b4e %r10, %r2, %r3, %r1;\n"
    "\tst.global.u32 [%rd8+24], %r10;\n"
    "\tprmt.b32.rc8 %r10, %r2, %r3, %r1;\n"
    "\tst.global.u32 [%rd8+28], %r10;\n"
    "\tprmt.b32.ecl %r10, %r2, %r3, %r1;\n"
    "\tst.global.u32 [%rd8+32], %r10;\n"
    "\tprmt.b32.ecr %r10, %r2, %r3, %r1;\n"
    "\tst.global.u32 [%rd8+36], %r10;\n"
    "\tprmt.b32.rc16 %r10, %r2, %r3, %r1;\n"
    "\tst.global.u32 [%rd8+40], %r10;\n"
    "\tlop3.b32 %r10, %r2, %r3, %r1, 0xE8;\n"
    "\tst.global.u32 [%rd8+44], %r10;\n"
    "\tdp4a.u32.s32 %r10, %r2, %r3, 7;\n"
    "\tst.global.u32 [%rd8+48], %r10;\n"
    "\tdp2a.lo.s32.u32 %r10, %r2, %r3, 9;\n"
    "\tst.global.u32 [%rd8+52], %r10;\n"
    "\tshf.l.clamp.b32 %r10, %r2, %r3, 40;\n"
    "\tst.global.u32 [%rd8+56], %r10;\n"
    "\tshf.r.wrap.b32 %r10, %r2, %r3, %r1;\n"
    "\tst.global.u32 [%rd8+60], %r10;\n"
    "\tmul24.lo.s32 %r10, %r2, %r3;\n"
    "\tst.global.u32 [%rd8+64], %r10;\n"
    "\tmul24.hi.u32 %r10, %r2, %r3;\n"
    "\tst.global.u32 [%rd8+68], %r10;\n"
    "\tsad.u32 %r10, %r2, %r3, 11;\n"
    "\tst.global.u32 [%rd8+72], %r10;\n"
    "\tadd.cc.u32 %r11, %r2, %r3;\n"
    "\taddc.u32 %r10, 0, 0;\n"
    "\tst.global.u32 [%rd8+76], %r10;\n"
    "\tsub.cc.u32 %r11, %r2, %r3;\n"
    "\tsubc.u32 %r10, 0, 0;\n"
    "\tst.global.u32 [%rd8+80], %r10;\n"
    "\tmad.hi.u32 %r10, %r2, %r3, %r1;\n"
    "\tst.global.u32 [%rd8+84], %r10;\n"
    "\tbrev.b32 %r10, %r2;\n"
    "\tst.global.u32 [%rd8+88], %r10;\n"
    "\tbfind.u32 %r10, %r2;\n"
    "\tst.global.u32 [%rd8+92], %r10;\n"
    "\tbfind.shiftamt.s32 %r10, %r2;\n"
    "\tst.global.u32 [%rd8+96], %r10;\n"
    "\tszext.wrap.s32 %r10, %r2, %r1;\n"
    "\tst.global.u32 [%rd8+100], %r10;\n"
    "\tbmsk.clamp.b32 %r10, %r1, 5;\n"
    "\tst.global.u32 [%rd8+104], %r10;\n"
    /* 64-bit packing */
    "\tmov.b64 %rd9, {%r3, %r2};\n"
    "\tpopc.b64 %r10, %rd9;\n"
    "\tst.global.u32 [%rd8+108], %r10;\n"
    "\tclz.b64 %r10, %rd9;\n"
    "\tst.global.u32 [%rd8+112], %r10;\n"
    "\tmov.b64 {%r12, %r13}, %rd9;\n"
    "\tsub.s32 %r10, %r13, %r12;\n"
    "\tst.global.u32 [%rd8+116], %r10;\n"
    /* warp-wide */
    "\tand.b32 %r14, %r2, 1;\n"
    "\tsetp.ne.u32 %p2, %r14, 0;\n"
    "\tvote.sync.uni.pred %p3, %p2, 0xffffffff;\n"
    "\tselp.u32 %r10, 1, 0, %p3;\n"
    "\tst.global.u32 [%rd8+120], %r10;\n"
    "\tmatch.all.sync.b32 %r10|%p4, %r14, 0xffffffff;\n"
    "\tst.global.u32 [%rd8+124], %r10;\n"
    "\tredux.sync.min.s32 %r10, %r2, 0xffffffff;\n"
    "\tst.global.u32 [%rd8+128], %r10;\n"
    "\tredux.sync.max.u32 %r10, %r2, 0xffffffff;\n"
    "\tst.global.u32 [%rd8+132], %r10;\n"
    "\tredux.sync.xor.b32 %r10, %r2, 0x0000ffff;\n"
    "\tsetp.lt.u32 %p5, %r1, 16;\n"
    "\tselp.u32 %r10, %r10, 0, %p5;\n"
    "\tst.global.u32 [%rd8+136], %r10;\n"
    /* conversions */
    "\tcvt.sat.s8.s32 %r10, %r2;\n"
    "\tst.global.u32 [%rd8+140], %r10;\n"
    "\tcvt.u16.u32 %h1, %r2;\n"
    "\tcvt.s32.s16 %r10, %h1;\n"
    "\tst.global.u32 [%rd8+144], %r10;\n"
    "\tcvt.s8.s32 %r10, %r3;\n"
    "\tst.global.u32 [%rd8+148], %r10;\n"
    /* shared through generic addresses */
    "\tmov.u64 %rd10, sh;\n"
    "\tcvta.shared.u64 %rd11, %rd10;\n"
    "\tadd.s64 %rd12, %rd11, %rd5;\n"
    "\tst.u32 [%rd12], %r2;\n"
    "\tisspacep.shared %p6, %rd12;\n"
    "\tisspacep.global %p7, %rd12;\n"
    "\tselp.u32 %r10, 1, 0, %p6;\n"
    "\tselp.u32 %r15, 2, 0, %p7;\n"
    "\tor.b32 %r10, %r10, %r15;\n"
    "\tst.global.u32 [%rd8+152], %r10;\n"
    "\tbar.sync 0;\n"
    "\tadd.s32 %r16, %r1, 1;\n"
    "\tand.b32 %r16, %r16, 31;\n"
    "\tshl.b32 %r17, %r16, 2;\n"
    "\tmov.u32 %r18, sh;\n"
    "\tadd.s32 %r19, %r18, %r17;\n"
    "\tld.shared.u32 %r10, [%r19];\n"
    "\tst.global.u32 [%rd8+156], %r10;\n"
    /* local through generic */
    "\tmov.u64 %rd13, loc;\n"
    "\tcvta.local.u64 %rd14, %rd13;\n"
    "\tst.u32 [%rd14+8], %r3;\n"
    "\tld.local.u32 %r10, [loc+8];\n"
    "\tst.global.u32 [%rd8+160], %r10;\n"
    /* shared atomics: a counter at sh[128], exch at sh[132], cas at sh[136] */
    "\tbar.sync 0;\n"
    "\tsetp.eq.u32 %p8, %r1, 0;\n"
    "\t@%p8 st.shared.u32 [sh+128], 0;\n"
    "\t@%p8 st.shared.u32 [sh+136], 0;\n"
    "\tbar.sync 0;\n"
    "\tatom.shared.inc.u32 %r10, [sh+128], 1000;\n"
    "\tst.global.u32 [%rd8+164], %r10;\n"
    "\tatom.shared.exch.b32 %r10, [sh+132], %r1;\n"
    "\tatom.shared.cas.b32 %r10, [sh+136], %r1, %r16;\n"
    "\tst.global.u32 [%rd8+168], %r10;\n"
    /* brx.idx on tid & 3 */
    "\tand.b32 %r20, %r1, 3;\n"
    "$L_tab: .branchtargets $L_c0, $L_c1, $L_c2, $L_c3;\n"
    "\tbrx.idx %r20, $L_tab;\n"
    "$L_c0:\n"
    "\tmov.u32 %r21, 100;\n"
    "\tbra.uni $L_cend;\n"
    "$L_c1:\n"
    "\tmov.u32 %r21, 201;\n"
    "\tbra.uni $L_cend;\n"
    "$L_c2:\n"
    "\tmov.u32 %r21, 302;\n"
    "\tbra.uni $L_cend;\n"
    "$L_c3:\n"
    "\tmov.u32 %r21, 403;\n"
    "$L_cend:\n"
    "\tst.global.u32 [%rd8+172], %r21;\n"
    /* packed halves: x = (a & 255) / 4, y = (b & 255) / 2 */
    "\tand.b32 %r22, %r2, 255;\n"
    "\tcvt.rn.f32.u32 %f1, %r22;\n"
    "\tmul.f32 %f1, %f1, 0f3E800000;\n"
    "\tand.b32 %r23, %r3, 255;\n"
    "\tcvt.rn.f32.u32 %f2, %r23;\n"
    "\tmul.f32 %f2, %f2, 0f3F000000;\n"
    "\tcvt.rn.f16x2.f32 %r24, %f1, %f2;\n"
    "\tmul.rn.f16x2 %r25, %r24, %r24;\n"
    "\tmov.b32 {%h2, %h3}, %r25;\n"
    "\tcvt.f32.f16 %f3, %h2;\n"
    "\tcvt.f32.f16 %f4, %h3;\n"
    "\tst.global.f32 [%rd8+176], %f3;\n"
    "\tst.global.f32 [%rd8+180], %f4;\n"
    "\tfma.rn.f16x2 %r26, %r24, %r24, %r24;\n"
    "\tmov.b32 {%h4, %h5}, %r26;\n"
    "\tcvt.f32.f16 %f5, %h4;\n"
    "\tcvt.f32.f16 %f6, %h5;\n"
    "\tst.global.f32 [%rd8+184], %f5;\n"
    "\tst.global.f32 [%rd8+188], %f6;\n"
    "\tsetp.lt.f16x2 %p9|%p10, %r24, %r25;\n"
    "\tselp.u32 %r27, 1, 0, %p9;\n"
    "\tselp.u32 %r28, 2, 0, %p10;\n"
    "\tor.b32 %r27, %r27, %r28;\n"
    "\tst.global.u32 [%rd8+192], %r27;\n"
    "\tcvt.rn.bf16.f32 %h6, %f1;\n"
    "\tcvt.rn.bf16.f32 %h7, %f2;\n"
    "\tadd.rn.bf16 %h8, %h6, %h7;\n"
    "\tcvt.f32.bf16 %f7, %h8;\n"
    "\tst.global.f32 [%rd8+196], %f7;\n"
    /* directed rounding: p = a as float / 3, q = sqrt */
    "\tcvt.rn.f32.u32 %f8, %r2;\n"
    "\tcvt.rn.f32.u32 %f9, %r3;\n"
    "\tdiv.rz.f32 %f10, %f8, 0f40400000;\n"
    "\tst.global.f32 [%rd8+200], %f10;\n"
    "\tdiv.rp.f32 %f10, %f8, 0f40400000;\n"
    "\tst.global.f32 [%rd8+204], %f10;\n"
    "\tadd.rm.f32 %f10, %f8, 0f3F8CCCCD;\n"
    "\tst.global.f32 [%rd8+208], %f10;\n"
    "\tmul.rp.f32 %f10, %f8, %f9;\n"
    "\tst.global.f32 [%rd8+212], %f10;\n"
    "\tsqrt.rm.f32 %f10, %f9;\n"
    "\tst.global.f32 [%rd8+216], %f10;\n"
    "\tcvt.f64.f32 %fd1, %f8;\n"
    "\tcvt.f64.f32 %fd2, %f9;\n"
    "\tfma.rz.f64 %fd3, %fd1, %fd2, 0d3FB999999999999A;\n"
    "\tcvt.rn.f32.f64 %f11, %fd3;\n"
    "\tst.global.f32 [%rd8+220], %f11;\n"
    "\tdiv.rm.f64 %fd4, %fd1, 0d4008000000000000;\n"
    "\tst.global.f64 [%rd8+224], %fd4;\n"
    "\tcvt.rzi.s32.f32 %r29, %f10;\n"
    "\tst.global.u32 [%rd8+232], %r29;\n"
    "\ttestp.finite.f32 %p11, %f10;\n"
    "\tcopysign.f32 %f12, %f8, 0fC0000000;\n"
    "\tselp.f32 %f12, %f12, 0f00000000, %p11;\n"
    "\tst.global.f32 [%rd8+236], %f12;\n"
    "\tfns.b32 %r30, %r2, %r1, 3;\n"
    "\tst.global.u32 [%rd8+240], %r30;\n"
    "\tfns.b32 %r30, %r3, %r1, -2;\n"
    "\tst.global.u32 [%rd8+244], %r30;\n"
    "\tret;\n"
    "}\n";

static const char *SPEC =
    "{ \"name\": \"isa\", \"source\": \"isa.cu\", \"ptx\": \"isa.ptx\", \"entry\": \"isa\",\n"
    "  \"grid\": [1], \"block\": [32],\n"
    "  \"params\": [\n"
    "    { \"name\": \"in\", \"kind\": \"buffer\", \"type\": \"u32\", \"count\": 64, \"role\": \"input\" },\n"
    "    { \"name\": \"out\", \"kind\": \"buffer\", \"type\": \"u32\", \"count\": 2048, \"role\": \"output\" } ] }\n";

/* ---- references ------------------------------------------------------------------ */

static uint32_t r_bfe(uint32_t a, int pos, int len, bool sg)
{
    uint32_t v = (a >> pos) & ((1u << len) - 1);
    if (sg && (v >> (len - 1)) & 1)
        v |= ~((1u << len) - 1);
    return v;
}

static uint32_t r_prmt(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    uint8_t by[8];
    for (int i = 0; i < 4; i++) {
        by[i] = (uint8_t)(a >> (8 * i));
        by[4 + i] = (uint8_t)(b >> (8 * i));
    }
    int sel[4];
    int s = (int)(c & 3);
    switch (mode) {
    case 0:
        for (int i = 0; i < 4; i++)
            sel[i] = (int)((c >> (4 * i)) & 15);
        break;
    case 1: for (int i = 0; i < 4; i++) sel[i] = s + i; break;                 /* f4e */
    case 2: for (int i = 0; i < 4; i++) sel[i] = (s - i) & 7; break;           /* b4e */
    case 3: for (int i = 0; i < 4; i++) sel[i] = s; break;                     /* rc8 */
    case 4: for (int i = 0; i < 4; i++) sel[i] = i < s ? s : i; break;         /* ecl */
    case 5: for (int i = 0; i < 4; i++) sel[i] = i > s ? s : i; break;         /* ecr */
    default: for (int i = 0; i < 4; i++) sel[i] = (s & 1) * 2 + (i & 1); break; /* rc16 */
    }
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        uint8_t v = by[sel[i] & 7];
        if (mode == 0 && (sel[i] & 8))
            v = (v & 0x80) ? 0xff : 0;
        r |= (uint32_t)v << (8 * i);
    }
    return r;
}

/* Round to half precision (ties to even), values in the normal range. */
static float r_half(double x)
{
    if (x == 0)
        return (float)x;
    int e;
    frexp(x, &e);                  /* x = m 2^e, 0.5 <= |m| < 1 */
    double q = ldexp(1.0, e - 11); /* 11 significant bits */
    return (float)(nearbyint(x / q) * q);
}

static float r_bf16(double x)
{
    if (x == 0)
        return (float)x;
    int e;
    frexp(x, &e);
    double q = ldexp(1.0, e - 8);  /* 8 significant bits */
    return (float)(nearbyint(x / q) * q);
}

static float f_dir(int mode, int op, float a, float b)
{
    int old = fegetround();
    fesetround(mode);
    volatile float va = a, vb = b, r;
    switch (op) {
    case 0: r = va / vb; break;
    case 1: r = va + vb; break;
    case 2: r = va * vb; break;
    default: r = sqrtf(va); break;
    }
    float out = r;
    fesetround(old);
    return out;
}

static double d_dir(int mode, int op, double a, double b, double c)
{
    int old = fegetround();
    fesetround(mode);
    volatile double va = a, vb = b, vc = c, r;
    r = op == 0 ? va / vb : fma(va, vb, vc);
    double out = r;
    fesetround(old);
    return out;
}

static uint32_t r_fns(uint32_t mask, int base, int offset)
{
    int seen = 0, want = offset > 0 ? offset : -offset;
    if (offset > 0) {
        for (int p = base; p < 32; p++)
            if (((mask >> p) & 1) && ++seen == want)
                return (uint32_t)p;
    } else {
        for (int p = base; p >= 0; p--)
            if (((mask >> p) & 1) && ++seen == want)
                return (uint32_t)p;
    }
    return 0xffffffffu;
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

Test(sim_isa, hand_written_kernel_against_c)
{
    char dir[] = "/tmp/wh_sim_isaXXXXXX";
    tsim_mkdtemp(dir);
    tsim_write(dir, "isa.ptx", PTX);
    tsim_write(dir, "isa.json", SPEC);
    char path[256];
    snprintf(path, sizeof path, "%s/isa.json", dir);

    /* one harness, a fresh image per seed */
    simcase c;
    sc_load(&c, path, false);
    harness_options o = sc_options(true);
    cr_assert(sc_attach(&c, &o), "%s", c.err.msg);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        sc_new_image(&c);
        sc_fill(&c, seed, 11);
        uint32_t *in = sc_buf(&c, "in");
        in[0] = 0;
        in[1] = 0x80000000u;
        in[33] = 0xffffffffu;
        sc_run(&c);
        const uint32_t *out = sc_buf(&c, "out");

        int32_t mins = INT32_MAX;
        uint32_t maxu = 0, xr = 0, odd = 0, ticket_seen = 0;
        for (int l = 0; l < 32; l++) {
            mins = (int32_t)in[l] < mins ? (int32_t)in[l] : mins;
            maxu = in[l] > maxu ? in[l] : maxu;
            if (l < 16)
                xr ^= in[l];
            odd += in[l] & 1;
        }
        for (uint32_t t = 0; t < 32; t++) {
            const uint32_t *r = out + t * K;
            uint32_t a = in[t], b = in[t + 32];
            uint64_t ab = ((uint64_t)a << 32) | b;
            cr_assert_eq(r[0], r_bfe(a, 3, 7, false), "bfe.u32 t=%u", t);
            cr_assert_eq(r[1], r_bfe(a, 5, 9, true), "bfe.s32 t=%u", t);
            cr_assert_eq(r[2], (b & ~(0xfffu << 8)) | ((a & 0xfffu) << 8), "bfi t=%u", t);
            cr_assert_eq(r[3], r_prmt(a, b, 0x4271, 0), "prmt t=%u", t);
            cr_assert_eq(r[4], r_prmt(a, b, 0x8C3A, 0), "prmt sign t=%u", t);
            for (int mode = 1; mode <= 6; mode++)
                cr_assert_eq(r[4 + mode], r_prmt(a, b, t, mode), "prmt mode %d t=%u", mode, t);
            cr_assert_eq(r[11], (a & b) | (a & t) | (b & t), "lop3 majority t=%u", t);
            int32_t dp = 7;
            for (int i = 0; i < 4; i++)
                dp += (int32_t)(uint8_t)(a >> (8 * i)) * (int32_t)(int8_t)(b >> (8 * i));
            cr_assert_eq(r[12], (uint32_t)dp, "dp4a t=%u", t);
            int32_t dp2 = 9;
            for (int i = 0; i < 2; i++)
                dp2 += (int32_t)(int16_t)(a >> (16 * i)) * (int32_t)(uint8_t)(b >> (8 * i));
            cr_assert_eq(r[13], (uint32_t)dp2, "dp2a t=%u", t);
            cr_assert_eq(r[14], a, "shf.l.clamp 40 t=%u", t);
            cr_assert_eq(r[15], (uint32_t)((((uint64_t)b << 32) | a) >> (t & 31)), "shf.r.wrap t=%u", t);
            int64_t a24 = (int32_t)(a << 8) >> 8, b24 = (int32_t)(b << 8) >> 8;
            cr_assert_eq(r[16], (uint32_t)(a24 * b24), "mul24.lo t=%u", t);
            cr_assert_eq(r[17], (uint32_t)(((uint64_t)(a & 0xffffff) * (b & 0xffffff)) >> 16), "mul24.hi t=%u", t);
            cr_assert_eq(r[18], (a > b ? a - b : b - a) + 11, "sad t=%u", t);
            cr_assert_eq(r[19], (uint32_t)(((uint64_t)a + b) >> 32), "add.cc carry t=%u", t);
            cr_assert_eq(r[20], a < b ? 0xffffffffu : 0u, "sub.cc borrow t=%u", t);
            cr_assert_eq(r[21], (uint32_t)(((uint64_t)a * b) >> 32) + t, "mad.hi t=%u", t);
            cr_assert_eq(r[22], tsim_brev32(a));
            cr_assert_eq(r[23], a ? 31u - (uint32_t)__builtin_clz(a) : 0xffffffffu, "bfind t=%u a=%x", t, a);
            uint32_t sa = (int32_t)a < 0 ? ~a : a;
            cr_assert_eq(r[24], sa ? (uint32_t)__builtin_clz(sa) : 0xffffffffu, "bfind.shiftamt t=%u a=%x", t, a);
            uint32_t n = t & 31, ez;
            if (n == 0)
                ez = 0;
            else
                ez = (uint32_t)(((int32_t)(a << (32 - n))) >> (32 - n));
            cr_assert_eq(r[25], ez, "szext t=%u", t);
            cr_assert_eq(r[26], t >= 32 ? 0u : (uint32_t)(0x1fu << t), "bmsk t=%u", t);
            cr_assert_eq(r[27], (uint32_t)__builtin_popcountll(ab), "popc.b64");
            cr_assert_eq(r[28], ab ? (uint32_t)__builtin_clzll(ab) : 64u, "clz.b64");
            cr_assert_eq(r[29], a - b, "unpack t=%u", t);
            cr_assert_eq(r[30], odd == 0 || odd == 32, "vote.uni");
            cr_assert_eq(r[31], odd == 0 || odd == 32 ? 0xffffffffu : 0u, "match.all");
            cr_assert_eq(r[32], (uint32_t)mins, "redux.min.s32");
            cr_assert_eq(r[33], maxu, "redux.max.u32");
            cr_assert_eq(r[34], t < 16 ? xr : 0u, "redux.xor with a partial mask");
            int32_t sv = (int32_t)a;
            cr_assert_eq(r[35], (uint32_t)(sv < -128 ? -128 : (sv > 127 ? 127 : sv)), "cvt.sat.s8 t=%u", t);
            cr_assert_eq(r[36], (uint32_t)(int32_t)(int16_t)a, "cvt.s32.s16");
            cr_assert_eq(r[37], (uint32_t)(int32_t)(int8_t)b, "cvt.s8.s32 (sign-extended in its register)");
            cr_assert_eq(r[38], 1u, "isspacep.shared / .global");
            cr_assert_eq(r[39], in[(t + 1) & 31], "shared via generic");
            cr_assert_eq(r[40], b, "local via generic");
            ticket_seen |= 1u << r[41];
            cr_assert_eq(r[42], t, "atom.cas chain t=%u", t);
            cr_assert_eq(r[43], 100u + 101u * (t & 3), "brx.idx t=%u", t);
            double x = (double)(a & 255) / 4, y = (double)(b & 255) / 2;
            cr_assert_eq(((const float *)r)[44], r_half(y * y), "mul.f16x2 lo t=%u", t);
            cr_assert_eq(((const float *)r)[45], r_half(x * x), "mul.f16x2 hi t=%u", t);
            cr_assert_eq(((const float *)r)[46], r_half(y * y + y), "fma.f16x2 lo t=%u", t);
            cr_assert_eq(((const float *)r)[47], r_half(x * x + x), "fma.f16x2 hi t=%u", t);
            uint32_t cmp = (y < r_half(y * y) ? 1u : 0u) | (x < r_half(x * x) ? 2u : 0u);
            cr_assert_eq(r[48], cmp, "setp.lt.f16x2 t=%u", t);
            cr_assert_eq(((const float *)r)[49], r_bf16((double)r_bf16(x) + r_bf16(y)), "add.bf16 t=%u", t);
            float fa = (float)a, fb = (float)b;
            cr_assert_eq(r[50], fbits(f_dir(FE_TOWARDZERO, 0, fa, 3.0f)), "div.rz t=%u", t);
            cr_assert_eq(r[51], fbits(f_dir(FE_UPWARD, 0, fa, 3.0f)), "div.rp t=%u", t);
            cr_assert_eq(r[52], fbits(f_dir(FE_DOWNWARD, 1, fa, 1.1f)), "add.rm t=%u", t);
            cr_assert_eq(r[53], fbits(f_dir(FE_UPWARD, 2, fa, fb)), "mul.rp t=%u", t);
            float sq = f_dir(FE_DOWNWARD, 3, fb, 0);
            cr_assert_eq(r[54], fbits(sq), "sqrt.rm t=%u", t);
            cr_assert_eq(r[55], fbits((float)d_dir(FE_TOWARDZERO, 1, fa, fb, 0.1)), "fma.rz.f64 t=%u", t);
            double dq = d_dir(FE_DOWNWARD, 0, fa, 3.0, 0);
            cr_assert(memcmp(r + 56, &dq, 8) == 0, "div.rm.f64 t=%u", t);
            cr_assert_eq(r[58], (uint32_t)(int32_t)truncf(sq), "cvt.rzi t=%u", t);
            cr_assert_eq(r[60], r_fns(a, (int)t, 3), "fns +3 t=%u", t);
            cr_assert_eq(r[61], r_fns(b, (int)t, -2), "fns -2 t=%u", t);
            cr_assert_eq(((const float *)r)[59], 2.0f, "copysign: |b| with the sign of a (a >= 0) t=%u", t);
        }
        cr_assert_eq(ticket_seen, 0xffffffffu, "atom.inc tickets 0..31 each once");
    }
    sc_close(&c);
    ts_rmtree(dir);
}

/*
 * exec.c — integer, logic, compare/select and move semantics of the
 * sim backend, operand fetching and special registers.
 *
 * Each handler loops over the active lanes of one warp instruction with
 * the type dispatch hoisted out of the loop.  Registers hold values in
 * their low bits; every handler extends its inputs from the width of its
 * own type (sign or zero) and writes results of that width.  Integer
 * division by zero gives all ones (div) and the dividend (rem), and
 * INT_MIN / -1 gives INT_MIN, as the GPU does; no host UB is reachable.
 */
#include "harness/sim/sim.h"

#include <math.h>
#include <string.h>

/* ---- operands ------------------------------------------------------------- */

uint64_t sim_sreg_value(const sim_run *R, const sim_warp *w, int sreg, int comp, int lane)
{
    const sim_block *b = w->blk;
    const wh_launch *L = &R->launch;
    unsigned i = (unsigned)w->index * SIM_WARP + (unsigned)lane;
    switch (sreg) {
    case PTX_SREG_CLOCK: return (uint32_t)(uint64_t)w->now;
    case PTX_SREG_CLOCK_HI: return (uint32_t)((uint64_t)w->now >> 32);
    case PTX_SREG_CLOCK64: return (uint64_t)w->now;
    case PTX_SREG_GLOBALTIMER: return (uint64_t)(w->now * 1000.0 / R->prof->clock_mhz);
    case PTX_SREG_GLOBALTIMER_LO: return (uint32_t)(uint64_t)(w->now * 1000.0 / R->prof->clock_mhz);
    case PTX_SREG_GLOBALTIMER_HI:
        return (uint32_t)((uint64_t)(w->now * 1000.0 / R->prof->clock_mhz) >> 32);
    default:
        break;
    }
    ptx_thread_view v = {
        .tid = { i % L->block[0], (i / L->block[0]) % L->block[1], i / (L->block[0] * L->block[1]) },
        .ntid = { L->block[0], L->block[1], L->block[2] },
        .ctaid = { b->ctaid[0], b->ctaid[1], b->ctaid[2] },
        .nctaid = { L->grid[0], L->grid[1], L->grid[2] },
        .warpid = (uint32_t)w->index, .nwarpid = (uint32_t)R->prof->max_warps_per_sm,
        .smid = (uint32_t)b->sm, .nsmid = (uint32_t)R->prof->sms, .gridid = PTX_GRIDID,
        .dynamic_smem = R->img->shared_bytes, .total_smem = R->shared_size,
    };
    uint64_t out = 0;
    ptx_sreg_value(&v, (ptx_sreg)sreg, comp, &out);
    return out;
}

/* %tid.COMP of a warp's 32 lanes (the block's threads from `first` on):
 * one division for the first lane, then counting, where the general path
 * divides three times per lane (a twentieth of the emulator's time on
 * bfs1).  Lanes past the block's last thread get what the formula gives. */
static void tid_lanes(const wh_launch *L, unsigned first, int comp, uint64_t *out)
{
    unsigned bx = L->block[0], by = L->block[1];
    unsigned x = first % bx, y = (first / bx) % by, z = first / (bx * by);
    for (int l = 0; l < SIM_WARP; l++) {
        out[l] = comp <= 0 ? x : comp == 1 ? y : comp == 2 ? z : 0;   /* as ptx_sreg_value: no component is x */
        if (++x == bx) {
            x = 0;
            if (++y == by) {
                y = 0;
                z++;
            }
        }
    }
}

static bool sreg_uniform(int sreg)
{
    switch (sreg) {
    case PTX_SREG_TID: case PTX_SREG_LANEID: case PTX_SREG_LANEMASK_EQ: case PTX_SREG_LANEMASK_LE:
    case PTX_SREG_LANEMASK_LT: case PTX_SREG_LANEMASK_GE: case PTX_SREG_LANEMASK_GT:
        return false;
    default:
        return true;
    }
}

/* v in all 32 lanes: copies of doubling size (vector moves; a loop of 32
 * stores was a tenth of the emulator's instructions on nsichneu) */
static inline sim_src broadcast(uint64_t *lanes, uint64_t v)
{
    lanes[0] = v;
    memcpy(lanes + 1, lanes, 1 * sizeof *lanes);
    memcpy(lanes + 2, lanes, 2 * sizeof *lanes);
    memcpy(lanes + 4, lanes, 4 * sizeof *lanes);
    memcpy(lanes + 8, lanes, 8 * sizeof *lanes);
    memcpy(lanes + 16, lanes, 16 * sizeof *lanes);
    return (sim_src){ lanes, 0 };
}

sim_src sim_operand_slow(sim_run *R, const sim_warp *w, const sim_instr *in, int i)
{
    const sim_opd *o = &in->src[i];
    uint64_t *scratch = R->scratch[i];
    switch (o->kind) {
    case SIM_OPD_REG:
        return (sim_src){ &w->r[(size_t)o->slot * SIM_WARP], SIM_WARP - 1 };
    case SIM_OPD_PRED: {
        uint32_t pm = w->p[o->slot];
        if (o->neg)
            pm = ~pm;
        for (int l = 0; l < SIM_WARP; l++)
            scratch[l] = (pm >> l) & 1;
        return (sim_src){ scratch, SIM_WARP - 1 };
    }
    case SIM_OPD_SREG:
        if (sreg_uniform(o->sreg))
            return broadcast(scratch, sim_sreg_value(R, w, o->sreg, o->comp, 0));
        if (o->sreg == PTX_SREG_TID)
            tid_lanes(&R->launch, (unsigned)w->index * SIM_WARP, o->comp, scratch);
        else
            for (int l = 0; l < SIM_WARP; l++)
                scratch[l] = sim_sreg_value(R, w, o->sreg, o->comp, l);
        return (sim_src){ scratch, SIM_WARP - 1 };
    case SIM_OPD_LOCALSYM:
        return broadcast(scratch, w->frames[w->nframes - 1].local_base + o->imm);
    default:
        return broadcast(scratch, o->imm);
    }
}

uint32_t sim_pred_operand(const sim_warp *w, const sim_instr *in, int i)
{
    const sim_opd *o = &in->src[i];
    if (o->kind == SIM_OPD_PRED) {
        uint32_t pm = w->p[o->slot];
        return o->neg ? ~pm : pm;
    }
    if (o->kind == SIM_OPD_REG) {
        uint32_t pm = 0;
        for (int l = 0; l < SIM_WARP; l++)
            if (w->r[(size_t)o->slot * SIM_WARP + (size_t)l])
                pm |= 1u << l;
        return pm;
    }
    return o->imm ? 0xffffffffu : 0;
}

/* ---- helpers ---------------------------------------------------------------- */

static inline uint64_t zx(uint64_t v, int bits)
{
    return bits >= 64 ? v : v & ((1ULL << bits) - 1);
}

static inline int64_t sx(uint64_t v, int bits)
{
    if (bits >= 64)
        return (int64_t)v;
    uint64_t s = 1ULL << (bits - 1);
    v = zx(v, bits);
    return (int64_t)((v ^ s) - s);
}

static inline uint64_t ext(uint64_t v, int bits, bool sg)
{
    return sg ? (uint64_t)sx(v, bits) : zx(v, bits);
}

static inline int bits_of(int t)
{
    switch (t) {
    case PTX_T_PRED: return 1;
    case PTX_T_B8: case PTX_T_U8: case PTX_T_S8: return 8;
    case PTX_T_B16: case PTX_T_U16: case PTX_T_S16: case PTX_T_F16: case PTX_T_BF16: return 16;
    case PTX_T_B64: case PTX_T_U64: case PTX_T_S64: case PTX_T_F64: return 64;
    case PTX_T_B128: return 128;
    default: return 32;
    }
}

static inline bool is_signed(int t)
{
    return t == PTX_T_S8 || t == PTX_T_S16 || t == PTX_T_S32 || t == PTX_T_S64;
}

static inline bool is_float(int t)
{
    return t >= PTX_T_F16 && t <= PTX_T_F64;
}

static bool icmp(int cmp, uint64_t a, uint64_t b, bool sg)
{
    int64_t x = (int64_t)a, y = (int64_t)b;
    switch (cmp) {
    case PTX_CMP_EQ: return a == b;
    case PTX_CMP_NE: return a != b;
    case PTX_CMP_LT: return sg ? x < y : a < b;
    case PTX_CMP_LE: return sg ? x <= y : a <= b;
    case PTX_CMP_GT: return sg ? x > y : a > b;
    case PTX_CMP_GE: return sg ? x >= y : a >= b;
    case PTX_CMP_LO: return a < b;
    case PTX_CMP_LS: return a <= b;
    case PTX_CMP_HI: return a > b;
    case PTX_CMP_HS: return a >= b;
    default: return false;
    }
}

static uint32_t bool_combine(int op, uint32_t r, uint32_t c)
{
    switch (op) {
    case PTX_BOOL_AND: return r & c;
    case PTX_BOOL_OR: return r | c;
    case PTX_BOOL_XOR: return r ^ c;
    default: return r;
    }
}

/* Bit l set where t[l] is 1 (t: 32 bytes, each 0 or 1): a multiply packs
 * eight lanes' bytes into a byte of bits. */
static inline uint32_t bytes_to_mask(const uint8_t *t)
{
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t x;
        memcpy(&x, t + 8 * i, 8);
        r |= (uint32_t)((x * 0x0102040810204080ULL) >> 56) << (8 * i);
    }
    return r;
}

/* Lanes of m whose comparison a cmp b holds (int or float type t). */
static uint32_t compare_lanes(const sim_instr *in, int t, sim_src a, sim_src b, uint32_t m)
{
    uint32_t res = 0;
    int bits = bits_of(t);
    if (is_float(t)) {
        SIM_LANES(m, l)
            if (sim_fcmp(in->cmp, sim_float_get((ptx_type)t, SIM_V(a, l)), sim_float_get((ptx_type)t, SIM_V(b, l))))
                res |= 1u << l;
        return res;
    }
    bool sg = is_signed(t);
/* every lane into a byte, without branches (the compiler vectorises it),
 * then the bytes to a mask, of which the active lanes count */
#define CMP_LOOP(T, OP) \
    do { \
        uint8_t t_[SIM_WARP]; \
        for (uint32_t l = 0; l < SIM_WARP; l++) \
            t_[l] = (T)SIM_V(a, l) OP (T)SIM_V(b, l); \
        return bytes_to_mask(t_) & m; \
    } while (0)
#define CMP_ALL(T, UT) \
    switch (in->cmp) { \
    case PTX_CMP_EQ: CMP_LOOP(UT, ==); \
    case PTX_CMP_NE: CMP_LOOP(UT, !=); \
    case PTX_CMP_LT: CMP_LOOP(T, <); \
    case PTX_CMP_LE: CMP_LOOP(T, <=); \
    case PTX_CMP_GT: CMP_LOOP(T, >); \
    case PTX_CMP_GE: CMP_LOOP(T, >=); \
    case PTX_CMP_LO: CMP_LOOP(UT, <); \
    case PTX_CMP_LS: CMP_LOOP(UT, <=); \
    case PTX_CMP_HI: CMP_LOOP(UT, >); \
    case PTX_CMP_HS: CMP_LOOP(UT, >=); \
    default: break; \
    }
    if (bits == 32) {
        if (sg) {
            CMP_ALL(int32_t, uint32_t)
        } else {
            CMP_ALL(uint32_t, uint32_t)
        }
    } else if (bits == 64) {
        if (sg) {
            CMP_ALL(int64_t, uint64_t)
        } else {
            CMP_ALL(uint64_t, uint64_t)
        }
    }
#undef CMP_ALL
#undef CMP_LOOP
    SIM_LANES(m, l)
        if (icmp(in->cmp, ext(SIM_V(a, l), bits, sg), ext(SIM_V(b, l), bits, sg), sg))
            res |= 1u << l;
    return res;
}

static uint64_t umulhi64(uint64_t a, uint64_t b)
{
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

static int64_t smulhi64(int64_t a, int64_t b)
{
    return (int64_t)(((__int128)a * b) >> 64);
}

/* mul/mad product part: lo, hi or wide of a*b at `bits`. */
static uint64_t product(uint32_t flags, uint64_t a, uint64_t b, int bits, bool sg)
{
    if (flags & PTX_F_WIDE) {
        if (sg)
            return (uint64_t)(sx(a, bits) * sx(b, bits));
        return zx(a, bits) * zx(b, bits);
    }
    if (flags & PTX_F_HI) {
        if (bits == 64)
            return sg ? (uint64_t)smulhi64((int64_t)a, (int64_t)b) : umulhi64(a, b);
        if (sg)
            return zx((uint64_t)((sx(a, bits) * sx(b, bits)) >> bits), bits);
        return zx((zx(a, bits) * zx(b, bits)) >> bits, bits);
    }
    return zx(a * b, bits);
}

static uint64_t sat_s32(int64_t v)
{
    if (v > INT32_MAX)
        v = INT32_MAX;
    if (v < INT32_MIN)
        v = INT32_MIN;
    return (uint32_t)(int32_t)v;
}

static uint64_t bfe(uint64_t a, uint32_t pos, uint32_t len, int bits, bool sg)
{
    pos &= 0xff;
    len &= 0xff;
    uint64_t sbit;
    if (!sg || len == 0)
        sbit = 0;
    else
        sbit = (pos + len - 1 >= (uint32_t)bits) ? (a >> (bits - 1)) & 1 : (a >> (pos + len - 1)) & 1;
    uint64_t d = 0;
    for (int i = 0; i < bits; i++) {
        uint64_t bit;
        if ((uint32_t)i < len && pos + (uint32_t)i < (uint32_t)bits)
            bit = (a >> (pos + (uint32_t)i)) & 1;
        else
            bit = sbit;
        d |= bit << i;
    }
    return d;
}

static uint64_t bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int bits)
{
    pos &= 0xff;
    len &= 0xff;
    uint64_t d = zx(b, bits);
    for (uint32_t i = 0; i < len && pos + i < (uint32_t)bits; i++) {
        uint64_t bit = (a >> i) & 1;
        d = (d & ~(1ULL << (pos + i))) | (bit << (pos + i));
    }
    return d;
}

static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    uint64_t x = ((uint64_t)b << 32) | a;
    uint8_t bytes[8];
    for (int i = 0; i < 8; i++)
        bytes[i] = (uint8_t)(x >> (8 * i));
    uint32_t d = 0;
    if (mode == 0) {
        for (int i = 0; i < 4; i++) {
            uint32_t sel = (c >> (4 * i)) & 0xf;
            uint8_t v = bytes[sel & 7];
            if (sel & 8)
                v = (v & 0x80) ? 0xff : 0;
            d |= (uint32_t)v << (8 * i);
        }
        return d;
    }
    static const uint8_t tab[6][4][4] = {
        /* f4e */ { { 0, 1, 2, 3 }, { 1, 2, 3, 4 }, { 2, 3, 4, 5 }, { 3, 4, 5, 6 } },
        /* b4e */ { { 0, 7, 6, 5 }, { 1, 0, 7, 6 }, { 2, 1, 0, 7 }, { 3, 2, 1, 0 } },
        /* rc8 */ { { 0, 0, 0, 0 }, { 1, 1, 1, 1 }, { 2, 2, 2, 2 }, { 3, 3, 3, 3 } },
        /* ecl */ { { 0, 1, 2, 3 }, { 1, 1, 2, 3 }, { 2, 2, 2, 3 }, { 3, 3, 3, 3 } },
        /* ecr */ { { 0, 0, 0, 0 }, { 0, 1, 1, 1 }, { 0, 1, 2, 2 }, { 0, 1, 2, 3 } },
        /* rc16 */ { { 0, 1, 0, 1 }, { 2, 3, 2, 3 }, { 0, 1, 0, 1 }, { 2, 3, 2, 3 } },
    };
    int sel = (int)(c & 3);
    const uint8_t *t = tab[mode - 1][sel];
    for (int i = 0; i < 4; i++)
        d |= (uint32_t)bytes[t[i]] << (8 * i);
    return d;
}

/* fns.b32 d, mask, base, offset: position of the offset-th set bit of mask
 * counting from base (upwards for offset > 0, downwards for < 0; offset 0:
 * base itself if set), else 0xffffffff. */
static uint64_t brev(uint64_t v, int bits)
{
    uint64_t r = 0;
    for (int i = 0; i < bits; i++)
        if (v & (1ULL << i))
            r |= 1ULL << (bits - 1 - i);
    return r;
}

static uint64_t lop3(uint64_t a, uint64_t b, uint64_t c, uint32_t lut)
{
    uint64_t r = 0;
    if (lut & 0x01) r |= ~a & ~b & ~c;
    if (lut & 0x02) r |= ~a & ~b & c;
    if (lut & 0x04) r |= ~a & b & ~c;
    if (lut & 0x08) r |= ~a & b & c;
    if (lut & 0x10) r |= a & ~b & ~c;
    if (lut & 0x20) r |= a & ~b & c;
    if (lut & 0x40) r |= a & b & ~c;
    if (lut & 0x80) r |= a & b & c;
    return r;
}

static uint32_t dp(uint32_t a, uint32_t b, int n, bool asg, bool bsg, bool hi)
{
    /* dp4a: four byte products; dp2a: two 16-bit halves of a times bytes of b */
    int64_t s = 0;
    if (n == 4) {
        for (int i = 0; i < 4; i++) {
            int64_t x = asg ? (int8_t)(a >> (8 * i)) : (uint8_t)(a >> (8 * i));
            int64_t y = bsg ? (int8_t)(b >> (8 * i)) : (uint8_t)(b >> (8 * i));
            s += x * y;
        }
    } else {
        for (int i = 0; i < 2; i++) {
            int64_t x = asg ? (int16_t)(a >> (16 * i)) : (uint16_t)(a >> (16 * i));
            int k = (hi ? 2 : 0) + i;
            int64_t y = bsg ? (int8_t)(b >> (8 * k)) : (uint8_t)(b >> (8 * k));
            s += x * y;
        }
    }
    return (uint32_t)s;
}

/* ---- handlers --------------------------------------------------------------- */

static void exec_addsub(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0), b = sim_operand(R, w, in, 1);
    uint64_t *d = sim_dst(R, w, in, 0);
    int bits = bits_of(in->ty);
    bool sub = in->op == PTX_OP_SUB || in->op == PTX_OP_SUBC;
    bool carry_in = in->op == PTX_OP_ADDC || in->op == PTX_OP_SUBC;
    bool cc = in->flags & PTX_F_CC;
    if (bits == 32 && !carry_in && !cc && !(in->flags & PTX_F_SAT)) {
        if (sub)
            SIM_MAP(m, d, l, (uint32_t)(SIM_V(a, l) - SIM_V(b, l)));
        else
            SIM_MAP(m, d, l, (uint32_t)(SIM_V(a, l) + SIM_V(b, l)));
        return;
    }
    if (bits == 64 && !carry_in && !cc) {
        if (sub)
            SIM_MAP(m, d, l, SIM_V(a, l) - SIM_V(b, l));
        else
            SIM_MAP(m, d, l, SIM_V(a, l) + SIM_V(b, l));
        return;
    }
    uint32_t ncc = w->cc;
    SIM_LANES(m, l) {
        uint64_t x = zx(SIM_V(a, l), bits), y = zx(SIM_V(b, l), bits);
        uint64_t ci = carry_in ? (w->cc >> l) & 1 : 0;
        uint64_t r;
        if (in->flags & PTX_F_SAT) {
            int64_t s = sub ? sx(x, 32) - sx(y, 32) : sx(x, 32) + sx(y, 32);
            r = sat_s32(s);
        } else if (sub) {
            r = zx(x - y - ci, bits);
            if (cc) {
                bool borrow = x < y || (x - y) < ci;
                ncc = (ncc & ~(1u << l)) | ((uint32_t)borrow << l);
            }
        } else {
            r = zx(x + y + ci, bits);
            if (cc) {
                uint64_t full = x + y;
                bool carry = bits == 64 ? (full < x || full + ci < full) : ((x + y + ci) >> bits) != 0;
                ncc = (ncc & ~(1u << l)) | ((uint32_t)carry << l);
            }
        }
        d[l] = r;
    }
    if (cc)
        w->cc = ncc;
}

static void exec_mul(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0), b = sim_operand(R, w, in, 1);
    uint64_t *d = sim_dst(R, w, in, 0);
    int bits = bits_of(in->ty);
    bool sg = is_signed(in->ty);
    bool mad = in->op == PTX_OP_MAD || in->op == PTX_OP_MADC;
    if (bits == 32 && !(in->flags & (PTX_F_HI | PTX_F_WIDE | PTX_F_CC | PTX_F_SAT)) && in->op != PTX_OP_MADC) {
        if (mad) {
            sim_src c = sim_operand(R, w, in, 2);
            SIM_MAP(m, d, l, (uint32_t)(SIM_V(a, l) * SIM_V(b, l) + SIM_V(c, l)));
        } else {
            SIM_MAP(m, d, l, (uint32_t)(SIM_V(a, l) * SIM_V(b, l)));
        }
        return;
    }
    if (bits == 32 && (in->flags & PTX_F_WIDE) && !mad) {
        if (sg)
            SIM_MAP(m, d, l, (uint64_t)((int64_t)(int32_t)SIM_V(a, l) * (int64_t)(int32_t)SIM_V(b, l)));
        else
            SIM_MAP(m, d, l, (uint64_t)(uint32_t)SIM_V(a, l) * (uint32_t)SIM_V(b, l));
        return;
    }
    int rbits = (in->flags & PTX_F_WIDE) ? bits * 2 : bits;
    if (!mad) {
        SIM_LANES(m, l) d[l] = zx(product(in->flags, SIM_V(a, l), SIM_V(b, l), bits, sg), rbits);
        return;
    }
    sim_src c = sim_operand(R, w, in, 2);
    bool cc = in->flags & PTX_F_CC;
    bool ci = in->op == PTX_OP_MADC;
    uint32_t ncc = w->cc;
    SIM_LANES(m, l) {
        uint64_t p = product(in->flags, SIM_V(a, l), SIM_V(b, l), bits, sg);
        uint64_t cv = zx(SIM_V(c, l), rbits);
        uint64_t cin = ci ? (w->cc >> l) & 1 : 0;
        uint64_t r;
        if ((in->flags & PTX_F_SAT) && bits == 32)
            r = sat_s32(sx(p, 32) + sx(cv, 32));
        else
            r = zx(p + cv + cin, rbits);
        if (cc) {
            uint64_t pz = zx(p, rbits);
            bool carry = rbits == 64 ? (pz + cv < pz || pz + cv + cin < pz + cv) : ((pz + cv + cin) >> rbits) != 0;
            ncc = (ncc & ~(1u << l)) | ((uint32_t)carry << l);
        }
        d[l] = r;
    }
    if (cc)
        w->cc = ncc;
}

static void exec_mul24(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0), b = sim_operand(R, w, in, 1);
    sim_src c = in->op == PTX_OP_MAD24 ? sim_operand(R, w, in, 2) : a;
    uint64_t *d = sim_dst(R, w, in, 0);
    bool sg = is_signed(in->ty);
    SIM_LANES(m, l) {
        int64_t x = sg ? sx(SIM_V(a, l), 24) : (int64_t)zx(SIM_V(a, l), 24);
        int64_t y = sg ? sx(SIM_V(b, l), 24) : (int64_t)zx(SIM_V(b, l), 24);
        uint64_t p = (uint64_t)(x * y);
        uint64_t r = (in->flags & PTX_F_HI) ? (p >> 16) : p;
        if (in->op == PTX_OP_MAD24)
            r += SIM_V(c, l);
        d[l] = (uint32_t)r;
    }
}

static void exec_unary_int(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0);
    uint64_t *d = sim_dst(R, w, in, 0);
    int bits = bits_of(in->ty);
    SIM_LANES(m, l) {
        uint64_t x = zx(SIM_V(a, l), bits);
        uint64_t r = 0;
        switch (in->op) {
        case PTX_OP_ABS: { int64_t s = sx(x, bits); r = zx((uint64_t)(s < 0 ? -(uint64_t)s : (uint64_t)s), bits); break; }
        case PTX_OP_NEG: r = zx(0 - x, bits); break;
        case PTX_OP_NOT: r = zx(~x, bits); break;
        case PTX_OP_CNOT: r = x == 0 ? 1 : 0; break;
        case PTX_OP_POPC: r = (uint64_t)__builtin_popcountll(x); break;
        case PTX_OP_CLZ: r = x == 0 ? (uint64_t)bits : (uint64_t)(__builtin_clzll(x) - (64 - bits)); break;
        case PTX_OP_BREV: r = brev(x, bits); break;
        case PTX_OP_BFIND: {
            uint64_t v = x;
            if (is_signed(in->ty) && sx(x, bits) < 0)
                v = zx(~x, bits);
            if (v == 0) {
                r = 0xffffffffu;
            } else {
                int pos = 63 - __builtin_clzll(v);
                r = (in->flags & PTX_F_SHIFTAMT) ? (uint64_t)(bits - 1 - pos) : (uint64_t)pos;
            }
            break;
        }
        default: break;
        }
        d[l] = r;
    }
}

static void exec_logic(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0), b = sim_operand(R, w, in, 1);
    uint64_t *d = sim_dst(R, w, in, 0);
    switch (in->op) {
    case PTX_OP_AND: SIM_MAP(m, d, l, SIM_V(a, l) & SIM_V(b, l)); break;
    case PTX_OP_OR: SIM_MAP(m, d, l, SIM_V(a, l) | SIM_V(b, l)); break;
    case PTX_OP_XOR: SIM_MAP(m, d, l, SIM_V(a, l) ^ SIM_V(b, l)); break;
    case PTX_OP_LOP3: {
        sim_src c = sim_operand(R, w, in, 2), lut = sim_operand(R, w, in, 3);
        SIM_LANES(m, l) d[l] = lop3(SIM_V(a, l), SIM_V(b, l), SIM_V(c, l), (uint32_t)SIM_V(lut, l) & 0xff);
        break;
    }
    default: break;
    }
}

static void exec_shift(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0), b = sim_operand(R, w, in, 1);
    uint64_t *d = sim_dst(R, w, in, 0);
    int bits = bits_of(in->ty);
    if (in->op == PTX_OP_SHF) {
        sim_src c = sim_operand(R, w, in, 2);
        bool left = in->flags & PTX_F_LEFT;
        bool wrap = in->flags & PTX_F_WRAP;
        SIM_LANES(m, l) {
            uint64_t lo = (uint32_t)SIM_V(a, l), hi = (uint32_t)SIM_V(b, l);
            uint32_t n = (uint32_t)SIM_V(c, l);
            n = wrap ? (n & 31) : (n > 32 ? 32 : n);
            uint64_t v = (hi << 32) | lo;
            d[l] = left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
        }
        return;
    }
    if (in->op == PTX_OP_SHL) {
        if (bits == 32) {
            SIM_MAP(m, d, l, (uint32_t)SIM_V(b, l) >= 32 ? 0 : (uint32_t)(SIM_V(a, l) << (SIM_V(b, l) & 31)));
            return;
        }
        SIM_LANES(m, l) {
            uint32_t n = (uint32_t)SIM_V(b, l);
            d[l] = n >= (uint32_t)bits ? 0 : zx(SIM_V(a, l) << n, bits);
        }
        return;
    }
    bool sg = is_signed(in->ty);
    if (bits == 32 && !sg) {
        SIM_MAP(m, d, l, (uint32_t)SIM_V(b, l) >= 32 ? 0 : (uint32_t)SIM_V(a, l) >> (SIM_V(b, l) & 31));
        return;
    }
    SIM_LANES(m, l) {
        uint32_t n = (uint32_t)SIM_V(b, l);
        if (n >= (uint32_t)bits)
            n = (uint32_t)bits - 1 + (sg ? 0 : 1);
        if (sg) {
            int64_t s = sx(SIM_V(a, l), bits);
            d[l] = zx((uint64_t)(s >> (n > 63 ? 63 : n)), bits);
        } else {
            d[l] = n >= 64 ? 0 : zx(SIM_V(a, l), bits) >> n;
            if (n >= (uint32_t)bits)
                d[l] = 0;
        }
    }
}

static void exec_minmax(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0), b = sim_operand(R, w, in, 1);
    uint64_t *d = sim_dst(R, w, in, 0);
    int bits = bits_of(in->ty);
    bool sg = is_signed(in->ty);
    bool mx = in->op == PTX_OP_MAX;
    SIM_LANES(m, l) {
        uint64_t x = ext(SIM_V(a, l), bits, sg), y = ext(SIM_V(b, l), bits, sg);
        bool lt = sg ? (int64_t)x < (int64_t)y : x < y;
        uint64_t r = (mx ? !lt : lt) ? x : y;
        if ((in->flags & PTX_F_RELU) && sg && (int64_t)r < 0)
            r = 0;
        d[l] = zx(r, bits);
    }
}

static void exec_bits(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0), b = sim_operand(R, w, in, 1);
    sim_src c = in->nsrc > 2 ? sim_operand(R, w, in, 2) : a;
    sim_src e = in->nsrc > 3 ? sim_operand(R, w, in, 3) : a;
    uint64_t *d = sim_dst(R, w, in, 0);
    int bits = bits_of(in->ty);
    bool sg = is_signed(in->ty);
    switch (in->op) {
    case PTX_OP_BFE:
        SIM_LANES(m, l) d[l] = bfe(zx(SIM_V(a, l), bits), (uint32_t)SIM_V(b, l), (uint32_t)SIM_V(c, l), bits, sg);
        break;
    case PTX_OP_BFI:
        SIM_LANES(m, l) d[l] = bfi(SIM_V(a, l), SIM_V(b, l), (uint32_t)SIM_V(c, l), (uint32_t)SIM_V(e, l), bits);
        break;
    case PTX_OP_PRMT:
        SIM_LANES(m, l) d[l] = prmt((uint32_t)SIM_V(a, l), (uint32_t)SIM_V(b, l), (uint32_t)SIM_V(c, l), in->mode);
        break;
    case PTX_OP_BMSK:
        SIM_LANES(m, l) {
            uint32_t pos = (uint32_t)SIM_V(a, l), len = (uint32_t)SIM_V(b, l);
            if (!(in->flags & PTX_F_CLAMP)) {
                pos &= 31;
                len &= 31;
            }
            uint64_t mask = len >= 32 ? 0xffffffffULL : ((1ULL << len) - 1);
            d[l] = pos >= 32 ? 0 : (uint32_t)(mask << pos);
        }
        break;
    case PTX_OP_SZEXT:
        SIM_LANES(m, l) {
            uint32_t n = (uint32_t)SIM_V(b, l);
            if (!(in->flags & PTX_F_CLAMP))
                n &= 31;
            if (n >= 32)
                d[l] = (uint32_t)SIM_V(a, l);
            else if (n == 0)
                d[l] = 0;
            else
                d[l] = sg ? (uint32_t)sx(SIM_V(a, l), (int)n) : (uint32_t)zx(SIM_V(a, l), (int)n);
        }
        break;
    case PTX_OP_SAD:
        SIM_LANES(m, l) {
            uint64_t x = ext(SIM_V(a, l), bits, sg), y = ext(SIM_V(b, l), bits, sg);
            bool lt = sg ? (int64_t)x < (int64_t)y : x < y;
            d[l] = zx(SIM_V(c, l) + (lt ? y - x : x - y), bits);
        }
        break;
    case PTX_OP_DIV: case PTX_OP_REM: {
        bool rem = in->op == PTX_OP_REM;
        SIM_LANES(m, l) d[l] = ptx_int_divrem(SIM_V(a, l), SIM_V(b, l), bits, sg, rem);
        break;
    }
    case PTX_OP_FNS:
        SIM_LANES(m, l) d[l] = ptx_fns((uint32_t)SIM_V(a, l), (uint32_t)SIM_V(b, l), (int32_t)SIM_V(c, l));
        break;
    case PTX_OP_DP4A: case PTX_OP_DP2A: {
        bool asg = is_signed(in->ty), bsg = is_signed(in->ty2 ? in->ty2 : in->ty);
        int n = in->op == PTX_OP_DP4A ? 4 : 2;
        bool hi = in->flags & PTX_F_HI;
        SIM_LANES(m, l) d[l] = (uint32_t)(dp((uint32_t)SIM_V(a, l), (uint32_t)SIM_V(b, l), n, asg, bsg, hi) + (uint32_t)SIM_V(c, l));
        break;
    }
    default:
        break;
    }
}

static void exec_setp(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0), b = sim_operand(R, w, in, 1);
    int t = in->ty;
    if (t == PTX_T_F16X2 || t == PTX_T_BF16X2) {
        /* setp.cmp.f16x2 p|q, a, b: p from the low halves, q from the high */
        ptx_type h = t == PTX_T_F16X2 ? PTX_T_F16 : PTX_T_BF16;
        uint32_t lo = 0, hi = 0;
        SIM_LANES(m, l) {
            uint64_t x = SIM_V(a, l), y = SIM_V(b, l);
            if (sim_fcmp(in->cmp, sim_float_get(h, x & 0xffff), sim_float_get(h, y & 0xffff)))
                lo |= 1u << l;
            if (sim_fcmp(in->cmp, sim_float_get(h, (x >> 16) & 0xffff), sim_float_get(h, (y >> 16) & 0xffff)))
                hi |= 1u << l;
        }
        if (in->boolop && in->nsrc > 2) {
            uint32_t c = sim_pred_operand(w, in, 2);
            lo = bool_combine(in->boolop, lo, c);
            hi = bool_combine(in->boolop, hi, c);
        }
        sim_write_pred(w, in->dst[0], m, lo);
        sim_write_pred(w, in->dstp, m, hi);
        return;
    }
    uint32_t r = compare_lanes(in, t, a, b, m);
    if (in->boolop && in->nsrc > 2) {
        uint32_t c = sim_pred_operand(w, in, 2);
        uint32_t p = bool_combine(in->boolop, r, c);
        uint32_t q = bool_combine(in->boolop, ~r, c);
        sim_write_pred(w, in->dst[0], m, p);
        sim_write_pred(w, in->dstp, m, q);
        return;
    }
    sim_write_pred(w, in->dst[0], m, r);
    sim_write_pred(w, in->dstp, m, ~r);
}

static void exec_set(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    /* set.cmp.dtype.stype d, a, b{, c}: type = dtype, type2 = stype */
    sim_src a = sim_operand(R, w, in, 0), b = sim_operand(R, w, in, 1);
    int st = in->ty2 ? in->ty2 : in->ty;
    uint32_t r = compare_lanes(in, st, a, b, m);
    if (in->boolop && in->nsrc > 2)
        r = bool_combine(in->boolop, r, sim_pred_operand(w, in, 2));
    uint64_t *d = sim_dst(R, w, in, 0);
    uint64_t one = ptx_set_true((ptx_type)in->ty);
    SIM_LANES(m, l) d[l] = (r >> l) & 1 ? one : 0;
}

static void exec_selp(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0), b = sim_operand(R, w, in, 1);
    uint64_t *d = sim_dst(R, w, in, 0);
    if (in->op == PTX_OP_SELP) {
        uint32_t c = sim_pred_operand(w, in, 2);
        SIM_MAP(m, d, l, ((c >> l) & 1) ? SIM_V(a, l) : SIM_V(b, l));
        return;
    }
    /* slct.dtype.ctype d, a, b, c: d = c >= 0 ? a : b */
    sim_src c = sim_operand(R, w, in, 2);
    bool fc = in->ty2 == PTX_T_F32;
    SIM_LANES(m, l) {
        bool ge;
        if (fc) {
            double v = sim_float_get(PTX_T_F32, SIM_V(c, l));
            if ((in->flags & PTX_F_FTZ) && fabs(v) < 1.1754943508222875e-38)
                v = 0;
            ge = v >= 0;
        } else {
            ge = (int32_t)SIM_V(c, l) >= 0;
        }
        d[l] = ge ? SIM_V(a, l) : SIM_V(b, l);
    }
}

static void exec_mov(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    if (in->dst_pred[0]) {
        uint32_t v = sim_pred_operand(w, in, 0);
        sim_write_pred(w, in->dst[0], m, v);
        return;
    }
    sim_src a = sim_operand(R, w, in, 0);
    uint64_t *d = sim_dst(R, w, in, 0);
    SIM_MAP(m, d, l, SIM_V(a, l));
}

/* mov d, {a, b, ...}: little-endian packing of nsrc equal parts of d. */
static void exec_pack(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    int n = in->nsrc ? in->nsrc : 1;
    int part = bits_of(in->ty) / n;
    sim_src s[4];
    for (int i = 0; i < n; i++)
        s[i] = sim_operand(R, w, in, i);
    uint64_t *d = sim_dst(R, w, in, 0);
    SIM_LANES(m, l) {
        uint64_t v = 0;
        for (int i = 0; i < n; i++)
            v |= zx(SIM_V(s[i], l), part) << (part * i);
        d[l] = v;
    }
}

static void exec_unpack(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    int n = in->ndst ? in->ndst : 1;
    int part = bits_of(in->ty) / n;
    sim_src a = sim_operand(R, w, in, 0);
    uint64_t *d[4];
    for (int i = 0; i < n; i++)
        d[i] = sim_dst(R, w, in, i);
    SIM_LANES(m, l) {
        uint64_t v = SIM_V(a, l);
        for (int i = 0; i < n; i++)
            if (in->dst[i] >= 0)
                d[i][l] = zx(v >> (part * i), part);
    }
}

static void exec_plogic(sim_warp *w, const sim_instr *in, uint32_t m, int op)
{
    uint32_t a = sim_pred_operand(w, in, 0);
    uint32_t b = in->nsrc > 1 ? sim_pred_operand(w, in, 1) : 0;
    uint32_t r;
    switch (op) {
    case PTX_OP_AND: r = a & b; break;
    case PTX_OP_OR: r = a | b; break;
    case PTX_OP_XOR: r = a ^ b; break;
    case PTX_OP_NOT: r = ~a; break;
    default: r = a; break;
    }
    sim_write_pred(w, in->dst[0], m, r);
}

bool sim_exec_alu(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    int op = in->op;
    if (op == SIM_OP_PMOV) {
        exec_plogic(w, in, m, in->mode);
        return true;
    }
    if (op == SIM_OP_PACK) {
        exec_pack(R, w, in, m);
        return true;
    }
    if (op == SIM_OP_UNPACK) {
        exec_unpack(R, w, in, m);
        return true;
    }
    switch (op) {
    case PTX_OP_MOV:
        exec_mov(R, w, in, m);
        return true;
    case PTX_OP_CVT:
        return sim_exec_cvt(R, w, in, m);
    case PTX_OP_SETP:
        exec_setp(R, w, in, m);
        return true;
    case PTX_OP_SET:
        exec_set(R, w, in, m);
        return true;
    case PTX_OP_SELP: case PTX_OP_SLCT:
        exec_selp(R, w, in, m);
        return true;
    default:
        break;
    }
    if (is_float(in->ty) && op != PTX_OP_AND && op != PTX_OP_OR && op != PTX_OP_XOR)
        return sim_exec_float(R, w, in, m);
    switch (op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_ADDC: case PTX_OP_SUBC:
        exec_addsub(R, w, in, m);
        return true;
    case PTX_OP_MUL: case PTX_OP_MAD: case PTX_OP_MADC:
        exec_mul(R, w, in, m);
        return true;
    case PTX_OP_MUL24: case PTX_OP_MAD24:
        exec_mul24(R, w, in, m);
        return true;
    case PTX_OP_ABS: case PTX_OP_NEG: case PTX_OP_NOT: case PTX_OP_CNOT: case PTX_OP_POPC:
    case PTX_OP_CLZ: case PTX_OP_BREV: case PTX_OP_BFIND:
        exec_unary_int(R, w, in, m);
        return true;
    case PTX_OP_AND: case PTX_OP_OR: case PTX_OP_XOR: case PTX_OP_LOP3:
        exec_logic(R, w, in, m);
        return true;
    case PTX_OP_SHL: case PTX_OP_SHR: case PTX_OP_SHF:
        exec_shift(R, w, in, m);
        return true;
    case PTX_OP_MIN: case PTX_OP_MAX:
        exec_minmax(R, w, in, m);
        return true;
    case PTX_OP_BFE: case PTX_OP_BFI: case PTX_OP_PRMT: case PTX_OP_BMSK: case PTX_OP_SZEXT:
    case PTX_OP_SAD: case PTX_OP_DIV: case PTX_OP_REM: case PTX_OP_DP4A: case PTX_OP_DP2A: case PTX_OP_FNS:
        exec_bits(R, w, in, m);
        return true;
    default:
        return false;
    }
}

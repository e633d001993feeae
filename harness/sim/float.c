/*
 * float.c — floating-point semantics of the sim backend.
 *
 * f32 and f64 arithmetic with the rounding modes nvcc emits: .rn is the
 * host's IEEE round-to-nearest-even; .rz/.rm/.rp switch the host rounding
 * mode (fesetround) around one operation whose operands and result go
 * through volatile variables, so the compiler cannot move the operation
 * out of the switched region.  .ftz flushes f32 subnormal inputs and
 * results to a zero of the same sign; .sat clamps to [0, 1] (NaN -> 0).
 *
 * .approx operations (rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh, div.approx
 * and div.full) are computed through the host's libm in double precision
 * and rounded to f32: they are the exact functions, not the GPU's
 * approximations, and may differ from a GPU in the last bits.  add/sub/mul
 * without a rounding modifier are computed unfused (ptxas may contract
 * them into an FMA on a real GPU).
 *
 * f16 and bf16 arithmetic (scalar and packed .f16x2/.bf16x2, each half on
 * its own) is computed in double precision rounded to odd and then rounded
 * once to the narrow format, which gives the correctly rounded result
 * (narrow_arith_odd); conversions into f16/bf16 round once from the exact
 * value in every mode, and every NaN they produce is the canonical one.
 */
#include "harness/sim/sim.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* ---- bit access --------------------------------------------------------- */

static inline float f32_of(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint64_t of_f32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline double f64_of(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static inline uint64_t of_f64(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* Results of arithmetic: a NaN becomes the contract's NaN (ptx.h). */
static inline uint64_t arith_f32(float f)
{
    return isnan(f) ? PTX_NAN_F32 : of_f32(f);
}

static inline uint64_t arith_f64(double d)
{
    return isnan(d) ? PTX_NAN_F64 : of_f64(d);
}

/* neg, abs and copysign act on the sign bit and keep a NaN's payload. */
static inline bool sign_op(int op)
{
    return op == PTX_OP_NEG || op == PTX_OP_ABS || op == PTX_OP_COPYSIGN;
}

/* ---- half and bfloat16 ---------------------------------------------------- */

static double round_int(double v, int rnd)
{
    switch (rnd) {
    case PTX_RND_RZ: case PTX_RND_RZI: return trunc(v);
    case PTX_RND_RM: case PTX_RND_RMI: return floor(v);
    case PTX_RND_RP: case PTX_RND_RPI: return ceil(v);
    case PTX_RND_RNA: return round(v);
    default: return nearbyint(v);   /* ties to even in the default mode */
    }
}

/* A 16-bit float format: f16 (10 fraction bits, exponents -14..15) or
 * bf16 (7 fraction bits, exponents -126..127). */
typedef struct {
    int frac, emin, emax;
    uint16_t nan;
} narrow_fmt;

static const narrow_fmt F16_FMT = { 10, -14, 15, PTX_NAN_F16 };
static const narrow_fmt BF16_FMT = { 7, -126, 127, PTX_NAN_BF16 };

/* x rounded once to the format in mode rnd; any NaN is the format's
 * canonical NaN (ptx.h). */
static uint16_t narrow_from_double(double x, int rnd, const narrow_fmt *f)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    uint16_t inf = (uint16_t)((2 * f->emax + 1) << f->frac);   /* all-ones exponent */
    if (isnan(x))
        return f->nan;
    double a = fabs(x);
    if (isinf(a))
        return sign | inf;
    if (a == 0)
        return sign;
    int e = ilogb(a);
    if (e < f->emin)
        e = f->emin;                    /* subnormal: one quantum for all */
    double q = ldexp(a, f->frac - e);   /* exact scaling */
    double sq = round_int(sign ? -q : q, rnd == PTX_RND_NONE ? PTX_RND_RN : rnd);
    double one = ldexp(1.0, f->frac);
    q = fabs(sq);
    if (q >= 2 * one) {
        q /= 2;
        e++;
    }
    if (e > f->emax) {
        bool to_inf = rnd == PTX_RND_NONE || rnd == PTX_RND_RN || rnd == PTX_RND_RNA ||
                      (rnd == PTX_RND_RP && !sign) || (rnd == PTX_RND_RM && sign);
        return sign | (to_inf ? inf : (uint16_t)(inf - 1));
    }
    if (q < one)                        /* subnormal (or zero) */
        return sign | (uint16_t)q;
    return sign | (uint16_t)(((e - f->emin + 1) << f->frac) | ((uint16_t)q - (uint16_t)one));
}

uint16_t sim_half_from_double(double x, int rnd)
{
    return narrow_from_double(x, rnd, &F16_FMT);
}

static uint16_t bf16_from_double(double x, int rnd)
{
    return narrow_from_double(x, rnd, &BF16_FMT);
}

double sim_half_to_double(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 0x1f, f = h & 0x3ff;
    double v;
    if (e == 0)
        v = ldexp((double)f, -24);
    else if (e == 31)
        v = f ? NAN : INFINITY;
    else
        v = ldexp((double)(f | 0x400), e - 25);
    return s ? -v : v;
}

static float bf16_to_f32(uint16_t b)
{
    return f32_of((uint64_t)b << 16);
}

double sim_float_get(ptx_type t, uint64_t bits)
{
    switch (t) {
    case PTX_T_F64: return f64_of(bits);
    case PTX_T_F16: return sim_half_to_double((uint16_t)bits);
    case PTX_T_BF16: return bf16_to_f32((uint16_t)bits);
    default: return f32_of(bits);
    }
}

uint64_t sim_float_imm(double v, ptx_type t)
{
    switch (t) {
    case PTX_T_F64: return of_f64(v);
    case PTX_T_F16: return sim_half_from_double(v, PTX_RND_RN);
    case PTX_T_BF16: return bf16_from_double(v, PTX_RND_RN);
    default: return of_f32((float)v);
    }
}

/* ---- rounding-mode arithmetic ------------------------------------------- */

enum { FK_ADD, FK_SUB, FK_MUL, FK_FMA, FK_DIV, FK_SQRT, FK_RCP };

static int fe_mode(int rnd)
{
    switch (rnd) {
    case PTX_RND_RZ: return FE_TOWARDZERO;
    case PTX_RND_RM: return FE_DOWNWARD;
    case PTX_RND_RP: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

static bool directed(int rnd)
{
    return rnd == PTX_RND_RZ || rnd == PTX_RND_RM || rnd == PTX_RND_RP;
}

/* Directed rounding switches the host's rounding mode around the one
 * operation, between round_begin and round_end (volatile operands keep the
 * compiler from moving it out).  The mode to restore, or -1 where rnd needs
 * no switch. */
static int round_begin(int rnd)
{
    if (!directed(rnd))
        return -1;
    int old = fegetround();
    fesetround(fe_mode(rnd));
    return old;
}

static void round_end(int old)
{
    if (old >= 0)
        fesetround(old);
}

/* x narrowed to f32 in the rounding mode rnd. */
static float f32_from_double(double x, int rnd)
{
    int old = round_begin(rnd);
    volatile double vx = x;
    volatile float vf = (float)vx;
    float f = vf;
    round_end(old);
    return f;
}

static float f32_arith(int k, float a, float b, float c, int rnd)
{
    int old = round_begin(rnd);
    volatile float va = a, vb = b, vc = c, r;
    switch (k) {
    case FK_ADD: r = va + vb; break;
    case FK_SUB: r = va - vb; break;
    case FK_MUL: r = va * vb; break;
    case FK_FMA: r = fmaf(va, vb, vc); break;
    case FK_DIV: r = va / vb; break;
    case FK_SQRT: r = sqrtf(va); break;
    default: r = 1.0f / va; break;
    }
    float out = r;
    round_end(old);
    return out;
}

static double f64_arith(int k, double a, double b, double c, int rnd)
{
    int old = round_begin(rnd);
    volatile double va = a, vb = b, vc = c, r;
    switch (k) {
    case FK_ADD: r = va + vb; break;
    case FK_SUB: r = va - vb; break;
    case FK_MUL: r = va * vb; break;
    case FK_FMA: r = fma(va, vb, vc); break;
    case FK_DIV: r = va / vb; break;
    case FK_SQRT: r = sqrt(va); break;
    default: r = 1.0 / va; break;
    }
    double out = r;
    round_end(old);
    return out;
}

static inline float ftz32(float x)
{
    if (fpclassify(x) == FP_SUBNORMAL)
        return copysignf(0.0f, x);
    return x;
}

static inline float sat32(float x)
{
    if (isnan(x))
        return 0.0f;
    return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
}

static inline double sat64(double x)
{
    if (isnan(x))
        return 0.0;
    return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

static double fmin_ptx(double a, double b, bool nan_prop)
{
    if (isnan(a) || isnan(b)) {
        if (nan_prop || (isnan(a) && isnan(b)))
            return NAN;
        return isnan(a) ? b : a;
    }
    if (a == b)
        return signbit(a) ? a : b;
    return a < b ? a : b;
}

static double fmax_ptx(double a, double b, bool nan_prop)
{
    if (isnan(a) || isnan(b)) {
        if (nan_prop || (isnan(a) && isnan(b)))
            return NAN;
        return isnan(a) ? b : a;
    }
    if (a == b)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}

bool sim_fcmp(int cmp, double a, double b)
{
    bool un = isnan(a) || isnan(b);
    switch (cmp) {
    case PTX_CMP_EQ: return !un && a == b;
    case PTX_CMP_NE: return !un && a != b;
    case PTX_CMP_LT: return !un && a < b;
    case PTX_CMP_LE: return !un && a <= b;
    case PTX_CMP_GT: return !un && a > b;
    case PTX_CMP_GE: return !un && a >= b;
    case PTX_CMP_EQU: return un || a == b;
    case PTX_CMP_NEU: return un || a != b;
    case PTX_CMP_LTU: return un || a < b;
    case PTX_CMP_LEU: return un || a <= b;
    case PTX_CMP_GTU: return un || a > b;
    case PTX_CMP_GEU: return un || a >= b;
    case PTX_CMP_NUM: return !un;
    case PTX_CMP_NAN: return un;
    default: return false;
    }
}

/* One f32 operation of a sim_instr on one lane. */
static float f32_op(const sim_instr *in, float a, float b, float c)
{
    bool ftz = in->flags & PTX_F_FTZ;
    if (ftz) {
        a = ftz32(a);
        b = ftz32(b);
        c = ftz32(c);
    }
    float r;
    int rnd = in->rnd;
    bool nanp = in->flags & PTX_F_NAN;
    switch (in->op) {
    case PTX_OP_ADD: r = f32_arith(FK_ADD, a, b, 0, rnd); break;
    case PTX_OP_SUB: r = f32_arith(FK_SUB, a, b, 0, rnd); break;
    case PTX_OP_MUL: r = f32_arith(FK_MUL, a, b, 0, rnd); break;
    case PTX_OP_FMA: case PTX_OP_MAD: r = f32_arith(FK_FMA, a, b, c, rnd); break;
    case PTX_OP_DIV:
        if (in->flags & (PTX_F_APPROX | PTX_F_FULL))
            r = (float)((double)a / (double)b);
        else
            r = f32_arith(FK_DIV, a, b, 0, rnd);
        break;
    case PTX_OP_ABS: r = fabsf(a); break;
    case PTX_OP_NEG: r = -a; break;
    case PTX_OP_MIN: r = (float)fmin_ptx(a, b, nanp); break;
    case PTX_OP_MAX: r = (float)fmax_ptx(a, b, nanp); break;
    case PTX_OP_RCP:
        r = (in->flags & PTX_F_APPROX) ? (float)(1.0 / (double)a) : f32_arith(FK_RCP, a, 0, 0, rnd);
        break;
    case PTX_OP_SQRT:
        r = (in->flags & PTX_F_APPROX) ? (float)sqrt((double)a) : f32_arith(FK_SQRT, a, 0, 0, rnd);
        break;
    case PTX_OP_RSQRT: r = (float)(1.0 / sqrt((double)a)); break;
    case PTX_OP_SIN: r = (float)sin((double)a); break;
    case PTX_OP_COS: r = (float)cos((double)a); break;
    case PTX_OP_LG2: r = (float)log2((double)a); break;
    case PTX_OP_EX2: r = (float)exp2((double)a); break;
    case PTX_OP_TANH: r = (float)tanh((double)a); break;
    case PTX_OP_COPYSIGN: r = copysignf(b, a); break;
    default: r = 0; break;
    }
    if (in->flags & PTX_F_RELU)
        r = isnan(r) ? r : (r < 0 ? 0.0f : r);
    if (in->flags & PTX_F_SAT)
        r = sat32(r);
    if (ftz)
        r = ftz32(r);
    return r;
}

static double f64_op(const sim_instr *in, double a, double b, double c)
{
    int rnd = in->rnd;
    bool nanp = in->flags & PTX_F_NAN;
    double r;
    switch (in->op) {
    case PTX_OP_ADD: r = f64_arith(FK_ADD, a, b, 0, rnd); break;
    case PTX_OP_SUB: r = f64_arith(FK_SUB, a, b, 0, rnd); break;
    case PTX_OP_MUL: r = f64_arith(FK_MUL, a, b, 0, rnd); break;
    case PTX_OP_FMA: case PTX_OP_MAD: r = f64_arith(FK_FMA, a, b, c, rnd); break;
    case PTX_OP_DIV: r = f64_arith(FK_DIV, a, b, 0, rnd); break;
    case PTX_OP_ABS: r = fabs(a); break;
    case PTX_OP_NEG: r = -a; break;
    case PTX_OP_MIN: r = fmin_ptx(a, b, nanp); break;
    case PTX_OP_MAX: r = fmax_ptx(a, b, nanp); break;
    case PTX_OP_RCP: r = f64_arith(FK_RCP, a, 0, 0, rnd); break;
    case PTX_OP_SQRT: r = f64_arith(FK_SQRT, a, 0, 0, rnd); break;
    case PTX_OP_RSQRT: r = 1.0 / sqrt(a); break;
    case PTX_OP_SIN: r = sin(a); break;
    case PTX_OP_COS: r = cos(a); break;
    case PTX_OP_LG2: r = log2(a); break;
    case PTX_OP_EX2: r = exp2(a); break;
    case PTX_OP_TANH: r = tanh(a); break;
    case PTX_OP_COPYSIGN: r = copysign(b, a); break;
    default: r = 0; break;
    }
    if (in->flags & PTX_F_SAT)
        r = sat64(r);
    return r;
}

/* add, sub, mul or fma of narrow values in double, rounded to odd: toward
 * zero, with the last bit set when anything was lost.  Rounding that once
 * more to 8 or 11 bits gives the correctly rounded narrow result (53 >=
 * p + 2), where rounding to nearest twice could land on a narrow tie (an
 * fma whose exact product is a tie plus a far smaller addend).  An exact
 * zero takes its sign from the instruction's own mode. */
static double narrow_arith_odd(int op, double x, double y, double z, int rnd)
{
    int old = fegetround();
    fesetround(FE_TOWARDZERO);
    feclearexcept(FE_INEXACT);
    volatile double vx = x, vy = y, vz = z, r;
    switch (op) {
    case PTX_OP_ADD: r = vx + vy; break;
    case PTX_OP_SUB: r = vx - vy; break;
    case PTX_OP_MUL: r = vx * vy; break;
    default: r = fma(vx, vy, vz); break;
    }
    bool inexact = fetestexcept(FE_INEXACT);
    if (r == 0 && !inexact) {
        fesetround(fe_mode(rnd));
        switch (op) {
        case PTX_OP_ADD: r = vx + vy; break;
        case PTX_OP_SUB: r = vx - vy; break;
        case PTX_OP_MUL: r = vx * vy; break;
        default: r = fma(vx, vy, vz); break;
        }
    }
    double out = r;
    fesetround(old);
    if (inexact && isfinite(out))
        out = f64_of(of_f64(out) | 1);
    return out;
}

/* .ftz on f16: subnormal inputs and results are zeros of their sign. */
static double ftz16(double v)
{
    return v != 0 && fabs(v) < 0x1p-14 ? copysign(0.0, v) : v;
}

static uint16_t ftz16_bits(uint16_t h)
{
    return (h & 0x7c00) == 0 ? (uint16_t)(h & 0x8000) : h;
}

/* Scalar f16 (bf16 when `bf`) arithmetic on the low 16 bits. */
static uint64_t narrow_op(const sim_instr *in, bool bf, uint64_t a, uint64_t b, uint64_t c)
{
    double x, y, z;
    if (bf) {
        x = bf16_to_f32((uint16_t)a);
        y = bf16_to_f32((uint16_t)b);
        z = bf16_to_f32((uint16_t)c);
    } else {
        x = sim_half_to_double((uint16_t)a);
        y = sim_half_to_double((uint16_t)b);
        z = sim_half_to_double((uint16_t)c);
    }
    bool ftz = !bf && (in->flags & PTX_F_FTZ);
    if (ftz) {
        x = ftz16(x);
        y = ftz16(y);
        z = ftz16(z);
    }
    double r;
    bool nanp = in->flags & PTX_F_NAN;
    switch (in->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: r = narrow_arith_odd(in->op, x, y, z, in->rnd); break;
    case PTX_OP_FMA: case PTX_OP_MAD: r = narrow_arith_odd(PTX_OP_FMA, x, y, z, in->rnd); break;
    case PTX_OP_ABS: return a & 0x7fff;
    case PTX_OP_NEG: return (a ^ 0x8000) & 0xffff;
    case PTX_OP_MIN: r = fmin_ptx(x, y, nanp); break;
    case PTX_OP_MAX: r = fmax_ptx(x, y, nanp); break;
    case PTX_OP_EX2: r = exp2(x); break;
    case PTX_OP_TANH: r = tanh(x); break;
    case PTX_OP_COPYSIGN: r = copysign(y, x); break;
    default: r = 0; break;
    }
    if (in->flags & PTX_F_RELU)
        r = isnan(r) ? r : (r < 0 ? 0.0 : r);
    if (in->flags & PTX_F_SAT)
        r = sat64(r);
    if (bf)
        return bf16_from_double(r, in->rnd);
    uint16_t h = sim_half_from_double(r, in->rnd);
    return ftz ? ftz16_bits(h) : h;
}

/* Packed f16x2 / bf16x2: the operation on each 16-bit half. */
static uint64_t packed_op(const sim_instr *in, bool bf, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t lo = narrow_op(in, bf, a & 0xffff, b & 0xffff, c & 0xffff);
    uint64_t hi = narrow_op(in, bf, (a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff);
    return (hi << 16) | lo;
}

static bool is_float_arith(int op)
{
    switch (op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_FMA: case PTX_OP_MAD:
    case PTX_OP_DIV: case PTX_OP_ABS: case PTX_OP_NEG: case PTX_OP_MIN: case PTX_OP_MAX:
    case PTX_OP_RCP: case PTX_OP_SQRT: case PTX_OP_RSQRT: case PTX_OP_SIN: case PTX_OP_COS:
    case PTX_OP_LG2: case PTX_OP_EX2: case PTX_OP_TANH: case PTX_OP_COPYSIGN:
        return true;
    default:
        return false;
    }
}

/* Smallest normal magnitude of a float type: the operand is widened to a
 * double, so normal and subnormal are decided in its own format. */
static double min_normal(ptx_type t)
{
    switch (t) {
    case PTX_T_F64: return DBL_MIN;
    case PTX_T_F16: case PTX_T_F16X2: return ldexp(1.0, -14);
    default: return FLT_MIN;   /* f32, bf16 */
    }
}

static int testp(int mode, ptx_type t, double v)
{
    double mag = fabs(v);
    switch (mode) {
    case PTX_TESTP_FINITE: return isfinite(v);
    case PTX_TESTP_INFINITE: return isinf(v);
    case PTX_TESTP_NUMBER: return !isnan(v);
    case PTX_TESTP_NOTANUMBER: return isnan(v);
    case PTX_TESTP_NORMAL: return isfinite(v) && mag >= min_normal(t);
    case PTX_TESTP_SUBNORMAL: return mag > 0 && mag < min_normal(t);
    default: return 0;
    }
}

bool sim_exec_float(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    ptx_type t = (ptx_type)in->ty;
    if (in->op == PTX_OP_TESTP) {
        sim_src a = sim_operand(R, w, in, 0);
        uint32_t res = 0;
        SIM_LANES(m, l)
            if (testp(in->mode, t, sim_float_get(t, SIM_V(a, l))))
                res |= 1u << l;
        sim_write_pred(w, in->dst[0], m, res);
        return true;
    }
    if (!is_float_arith(in->op))
        return false;
    sim_src a = sim_operand(R, w, in, 0);
    sim_src b = in->nsrc > 1 ? sim_operand(R, w, in, 1) : a;
    sim_src c = in->nsrc > 2 ? sim_operand(R, w, in, 2) : a;
    uint64_t *d = sim_dst(R, w, in, 0);
    bool plain = !(in->flags & (PTX_F_FTZ | PTX_F_SAT | PTX_F_RELU)) && !directed(in->rnd);
    if (t == PTX_T_F32) {
        if (plain && in->op == PTX_OP_ADD) {
            SIM_LANES(m, l) d[l] = arith_f32(f32_of(SIM_V(a, l)) + f32_of(SIM_V(b, l)));
        } else if (plain && in->op == PTX_OP_MUL) {
            SIM_LANES(m, l) d[l] = arith_f32(f32_of(SIM_V(a, l)) * f32_of(SIM_V(b, l)));
        } else if (plain && in->op == PTX_OP_SUB) {
            SIM_LANES(m, l) d[l] = arith_f32(f32_of(SIM_V(a, l)) - f32_of(SIM_V(b, l)));
        } else if (plain && (in->op == PTX_OP_FMA || in->op == PTX_OP_MAD)) {
            SIM_LANES(m, l) d[l] = arith_f32(fmaf(f32_of(SIM_V(a, l)), f32_of(SIM_V(b, l)), f32_of(SIM_V(c, l))));
        } else if (sign_op(in->op)) {
            SIM_LANES(m, l) d[l] = of_f32(f32_op(in, f32_of(SIM_V(a, l)), f32_of(SIM_V(b, l)), f32_of(SIM_V(c, l))));
        } else {
            SIM_LANES(m, l) d[l] = arith_f32(f32_op(in, f32_of(SIM_V(a, l)), f32_of(SIM_V(b, l)), f32_of(SIM_V(c, l))));
        }
        return true;
    }
    if (t == PTX_T_F64 && sign_op(in->op)) {
        SIM_LANES(m, l) d[l] = of_f64(f64_op(in, f64_of(SIM_V(a, l)), f64_of(SIM_V(b, l)), f64_of(SIM_V(c, l))));
        return true;
    }
    if (t == PTX_T_F64) {
        SIM_LANES(m, l) d[l] = arith_f64(f64_op(in, f64_of(SIM_V(a, l)), f64_of(SIM_V(b, l)), f64_of(SIM_V(c, l))));
        return true;
    }
    if (t == PTX_T_F16 || t == PTX_T_BF16) {
        SIM_LANES(m, l) d[l] = narrow_op(in, t == PTX_T_BF16, SIM_V(a, l), SIM_V(b, l), SIM_V(c, l));
        return true;
    }
    if (t == PTX_T_F16X2 || t == PTX_T_BF16X2) {
        SIM_LANES(m, l) d[l] = packed_op(in, t == PTX_T_BF16X2, SIM_V(a, l), SIM_V(b, l), SIM_V(c, l));
        return true;
    }
    return false;
}

/* ---- conversions --------------------------------------------------------- */

static bool is_int_type(ptx_type t)
{
    return t >= PTX_T_B8 && t <= PTX_T_S64 && t != PTX_T_B128;
}

static int tbits(ptx_type t)
{
    return ptx_type_bits(t);
}

static int64_t sext(uint64_t v, int bits)
{
    if (bits >= 64)
        return (int64_t)v;
    uint64_t s = 1ULL << (bits - 1);
    v &= (s << 1) - 1;
    return (int64_t)((v ^ s) - s);
}

static uint64_t zext(uint64_t v, int bits)
{
    return bits >= 64 ? v : v & ((1ULL << bits) - 1);
}

/* Saturating clamp of an integer (given as signed or unsigned 64-bit) to
 * the range of type t. */
static uint64_t clamp_int(bool src_signed, uint64_t v, ptx_type t)
{
    int bits = tbits(t);
    bool dsig = ptx_type_is_signed(t);
    if (src_signed) {
        int64_t s = (int64_t)v;
        if (dsig) {
            int64_t lo = bits >= 64 ? INT64_MIN : -(int64_t)(1ULL << (bits - 1));
            int64_t hi = bits >= 64 ? INT64_MAX : (int64_t)((1ULL << (bits - 1)) - 1);
            return (uint64_t)(s < lo ? lo : (s > hi ? hi : s));
        }
        uint64_t hi = bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1;
        if (s < 0)
            return 0;
        return (uint64_t)s > hi ? hi : (uint64_t)s;
    }
    uint64_t hi = dsig ? (bits >= 64 ? (uint64_t)INT64_MAX : (1ULL << (bits - 1)) - 1)
                       : (bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1);
    return v > hi ? hi : v;
}

/* Float (as double) to integer type t: round by rnd, saturate, NaN -> 0. */
static uint64_t float_to_int(double x, int rnd, ptx_type t)
{
    if (isnan(x))
        return 0;
    double r = round_int(x, rnd == PTX_RND_NONE ? PTX_RND_RZI : rnd);
    int bits = tbits(t);
    if (ptx_type_is_signed(t)) {
        double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1);
        if (r <= lo)
            return zext((uint64_t)(bits >= 64 ? INT64_MIN : (int64_t)lo), bits);
        if (r >= hi)
            return zext(bits >= 64 ? (uint64_t)INT64_MAX : (uint64_t)(hi - 1), bits);
        return zext((uint64_t)(int64_t)r, bits);
    }
    double hi = ldexp(1.0, bits);
    if (r <= 0)
        return 0;
    if (r >= hi)
        return bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1;
    return (uint64_t)r;
}

/* An integer as a double that rounds to any format of at most 51 bits as
 * the integer itself does: exact below 2^53; above, the bits past 53 fold
 * into a sticky last bit (rounding to odd), so one more rounding is not a
 * second one. */
static double int_exact_enough(bool neg, uint64_t mag)
{
    int k = 0;
    while ((mag >> k) >= (1ull << 53))
        k++;
    uint64_t kept = mag >> k;
    if (k && (mag & ((1ull << k) - 1)))
        kept |= 1;
    double d = ldexp((double)kept, k);
    return neg ? -d : d;
}

static uint64_t int_to_float(uint64_t v, bool sig, int bits, ptx_type t, int rnd)
{
    int64_t s = sext(v, bits);
    uint64_t u = zext(v, bits);
    if (t == PTX_T_F16 || t == PTX_T_BF16) {
        double d = int_exact_enough(sig && s < 0, sig && s < 0 ? 0 - (uint64_t)s : u);
        return t == PTX_T_F16 ? sim_half_from_double(d, rnd) : bf16_from_double(d, rnd);
    }
    if (!directed(rnd)) {
        if (t == PTX_T_F64)
            return of_f64(sig ? (double)s : (double)u);
        return of_f32(sig ? (float)s : (float)u);
    }
    int old = round_begin(rnd);
    uint64_t out;
    if (t == PTX_T_F64) {
        volatile int64_t vs = s;
        volatile uint64_t vu = u;
        volatile double r = sig ? (double)vs : (double)vu;
        out = of_f64(r);
    } else {
        volatile int64_t vs = s;
        volatile uint64_t vu = u;
        volatile float r = sig ? (float)vs : (float)vu;
        out = of_f32(r);
    }
    round_end(old);
    return out;
}

static bool int_rounding(int rnd)
{
    return rnd == PTX_RND_RNI || rnd == PTX_RND_RZI || rnd == PTX_RND_RMI || rnd == PTX_RND_RPI;
}

uint64_t sim_cvt_value(const sim_instr *in, uint64_t a)
{
    ptx_type dt = (ptx_type)in->ty, st = (ptx_type)in->ty2;
    bool sat = in->flags & PTX_F_SAT;
    bool ftz = in->flags & PTX_F_FTZ;
    if (st == PTX_T_NONE)
        st = dt;
    if (is_int_type(dt) && is_int_type(st)) {
        int sb = tbits(st);
        bool ss = ptx_type_is_signed(st);
        uint64_t v = ss ? (uint64_t)sext(a, sb) : zext(a, sb);
        if (sat)
            v = clamp_int(ss, v, dt);
        /* truncated to the destination type, then extended to the register
         * by the destination's signedness */
        return ptx_type_is_signed(dt) ? (uint64_t)sext(v, tbits(dt)) : zext(v, tbits(dt));
    }
    if (is_int_type(st)) {   /* int -> float */
        uint64_t r = int_to_float(a, ptx_type_is_signed(st), tbits(st), dt, in->rnd);
        if (sat && dt == PTX_T_F32)
            r = of_f32(sat32(f32_of(r)));
        if (sat && dt == PTX_T_F64)
            r = of_f64(sat64(f64_of(r)));
        return r;
    }
    double x = sim_float_get(st, a);
    if (ftz && st == PTX_T_F32)
        x = ftz32((float)x);
    if (is_int_type(dt)) {   /* float -> int */
        uint64_t v = float_to_int(x, in->rnd, dt);
        return ptx_type_is_signed(dt) ? (uint64_t)sext(v, tbits(dt)) : v;
    }
    /* float -> float */
    if (int_rounding(in->rnd))
        x = round_int(x, in->rnd);
    if (sat)
        x = sat64(x);
    switch (dt) {
    case PTX_T_F64:
        return arith_f64(x);
    case PTX_T_F32: {
        float f = st == PTX_T_F64 && directed(in->rnd) ? f32_from_double(x, in->rnd) : (float)x;
        if (ftz)
            f = ftz32(f);
        return arith_f32(f);
    }
    case PTX_T_F16:
        return sim_half_from_double(x, int_rounding(in->rnd) ? PTX_RND_RN : in->rnd);
    case PTX_T_BF16:
        return bf16_from_double(x, int_rounding(in->rnd) ? PTX_RND_RN : in->rnd);
    default:
        return of_f32((float)x);
    }
}

bool sim_exec_cvt(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0);
    uint64_t *d = sim_dst(R, w, in, 0);
    ptx_type dt = (ptx_type)in->ty, st = (ptx_type)in->ty2;
    if ((dt == PTX_T_F16X2 || dt == PTX_T_BF16X2) && in->nsrc >= 2) {
        /* cvt.rn.f16x2.f32 d, a, b: a to the upper half, b to the lower */
        sim_src b = sim_operand(R, w, in, 1);
        bool bf = dt == PTX_T_BF16X2;
        int rnd = in->rnd == PTX_RND_NONE ? PTX_RND_RN : in->rnd;
        SIM_LANES(m, l) {
            double x = sim_float_get(st, SIM_V(a, l)), y = sim_float_get(st, SIM_V(b, l));
            if (in->flags & PTX_F_RELU) {
                x = isnan(x) ? x : (x < 0 ? 0 : x);
                y = isnan(y) ? y : (y < 0 ? 0 : y);
            }
            uint64_t hi = bf ? bf16_from_double(x, rnd) : sim_half_from_double(x, rnd);
            uint64_t lo = bf ? bf16_from_double(y, rnd) : sim_half_from_double(y, rnd);
            d[l] = (hi << 16) | lo;
        }
        return true;
    }
    if (!(in->flags & PTX_F_SAT) && is_int_type(dt) && is_int_type(st) && tbits(dt) >= tbits(st)) {
        /* widening (or same size): extend by the source type */
        int sb = tbits(st);
        if (ptx_type_is_signed(st)) {
            SIM_LANES(m, l) d[l] = (uint64_t)sext(SIM_V(a, l), sb);
        } else {
            SIM_LANES(m, l) d[l] = zext(SIM_V(a, l), sb);
        }
        return true;
    }
    SIM_LANES(m, l) d[l] = sim_cvt_value(in, SIM_V(a, l));
    return true;
}

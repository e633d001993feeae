/*
 * semantics.c — the semantics contract of ptx.h: the values PTX leaves to
 * the hardware (integer division by zero, out-of-segment shuffles, special
 * registers of a launch, the generic address map), decided once for the emulator and the symbolic
 * executor.  The symbolic executor's terms mirror these functions; the
 * differential test (tests/test_semantics.c) holds the two to it.
 */
#include "ptx/internal.h"

static uint64_t low_bits(uint64_t v, int bits)
{
    return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

static int64_t signed_bits(uint64_t v, int bits)
{
    if (bits >= 64)
        return (int64_t)v;
    uint64_t sign = 1ull << (bits - 1);
    v = low_bits(v, bits);
    return (int64_t)((v ^ sign) - sign);
}

uint64_t ptx_int_divrem(uint64_t a, uint64_t b, int bits, bool sgn, bool rem)
{
    if (!sgn) {
        uint64_t x = low_bits(a, bits), y = low_bits(b, bits);
        if (y == 0)
            return rem ? x : low_bits(~0ull, bits);
        return rem ? x % y : x / y;
    }
    int64_t x = signed_bits(a, bits), y = signed_bits(b, bits);
    if (y == 0)
        return rem ? low_bits((uint64_t)x, bits) : low_bits(~0ull, bits);
    if (y == -1)   /* MIN / -1 overflows in C: the negation wraps instead */
        return rem ? 0 : low_bits(0 - (uint64_t)x, bits);
    return low_bits((uint64_t)(rem ? x % y : x / y), bits);
}

int ptx_shfl_source(ptx_shfl_mode mode, int lane, uint32_t b, uint32_t c, bool *in_range)
{
    int bval = (int)(b & 31), cval = (int)(c & 31), seg = (int)((c >> 8) & 31);
    int max_lane = (lane & seg) | (cval & ~seg), min_lane = lane & seg, j;
    bool ok;
    switch (mode) {
    case PTX_SHFL_UP: j = lane - bval; ok = j >= max_lane; break;
    case PTX_SHFL_DOWN: j = lane + bval; ok = j <= max_lane; break;
    case PTX_SHFL_BFLY: j = lane ^ bval; ok = j <= max_lane; break;
    default: j = min_lane | (bval & ~seg); ok = j <= max_lane; break;
    }
    *in_range = ok;
    return ok ? j : lane;
}

static uint64_t lanemask(ptx_sreg s, uint32_t lane)
{
    uint64_t eq = 1ull << lane, lt = eq - 1;
    switch (s) {
    case PTX_SREG_LANEMASK_EQ: return eq;
    case PTX_SREG_LANEMASK_LE: return lt | eq;
    case PTX_SREG_LANEMASK_LT: return lt;
    case PTX_SREG_LANEMASK_GE: return (uint32_t)~lt;
    default: return (uint32_t)~(lt | eq);   /* PTX_SREG_LANEMASK_GT */
    }
}

bool ptx_sreg_value(const ptx_thread_view *v, ptx_sreg s, int comp, uint64_t *out)
{
    int c = comp < 0 ? 0 : comp;
    uint32_t lane = (v->tid[0] + v->ntid[0] * (v->tid[1] + v->ntid[1] * v->tid[2])) % 32;
    switch (s) {
    case PTX_SREG_TID: *out = c < 3 ? v->tid[c] : 0; return true;
    case PTX_SREG_NTID: *out = c < 3 ? v->ntid[c] : 0; return true;
    case PTX_SREG_CTAID: case PTX_SREG_CLUSTERID: *out = c < 3 ? v->ctaid[c] : 0; return true;
    case PTX_SREG_NCTAID: case PTX_SREG_NCLUSTERID: *out = c < 3 ? v->nctaid[c] : 0; return true;
    case PTX_SREG_CLUSTER_NCTAID: *out = c < 3 ? 1 : 0; return true;
    case PTX_SREG_CLUSTER_NCTARANK: *out = 1; return true;
    case PTX_SREG_LANEID: *out = lane; return true;
    case PTX_SREG_WARPID: *out = v->warpid; return true;
    case PTX_SREG_NWARPID: *out = v->nwarpid; return true;
    case PTX_SREG_SMID: *out = v->smid; return true;
    case PTX_SREG_NSMID: *out = v->nsmid; return true;
    case PTX_SREG_GRIDID: *out = v->gridid; return true;
    case PTX_SREG_LANEMASK_EQ: case PTX_SREG_LANEMASK_LE: case PTX_SREG_LANEMASK_LT:
    case PTX_SREG_LANEMASK_GE: case PTX_SREG_LANEMASK_GT:
        *out = lanemask(s, lane);
        return true;
    case PTX_SREG_DYNAMIC_SMEM_SIZE: *out = v->dynamic_smem; return true;
    case PTX_SREG_TOTAL_SMEM_SIZE: case PTX_SREG_AGGR_SMEM_SIZE: *out = v->total_smem; return true;
    case PTX_SREG_CLOCK: case PTX_SREG_CLOCK_HI: case PTX_SREG_CLOCK64: case PTX_SREG_GLOBALTIMER:
    case PTX_SREG_GLOBALTIMER_LO: case PTX_SREG_GLOBALTIMER_HI:
        return false;
    default:
        *out = 0;   /* %pm*, %envreg*, cluster ranks, reserved offsets */
        return true;
    }
}

int ptx_sreg_bits(ptx_sreg s)
{
    return s == PTX_SREG_GRIDID || s == PTX_SREG_CLOCK64 || s == PTX_SREG_GLOBALTIMER ? 64 : 32;
}

uint32_t ptx_fns(uint32_t mask, uint32_t base, int32_t offset)
{
    if (base > 31)
        return 0xffffffffu;
    if (offset == 0)
        return (mask >> base) & 1 ? base : 0xffffffffu;
    int inc = offset > 0 ? 1 : -1;
    int64_t count = offset > 0 ? (int64_t)offset : -(int64_t)offset;
    for (int pos = (int)base; pos >= 0 && pos < 32; pos += inc)
        if ((mask >> pos) & 1 && --count == 0)
            return (uint32_t)pos;
    return 0xffffffffu;
}

uint64_t ptx_set_true(ptx_type dtype)
{
    switch (dtype) {
    case PTX_T_F32: return 0x3f800000u;
    case PTX_T_F16: return 0x3c00u;
    case PTX_T_BF16: return 0x3f80u;
    default: {
        int bits = ptx_type_bits(dtype);
        return bits >= 64 ? ~0ull : (1ull << bits) - 1;
    }
    }
}

ptx_space ptx_generic_space(uint64_t addr)
{
    if (addr >= PTX_ADDR_SHARED && addr - PTX_ADDR_SHARED < PTX_ADDR_WINDOW)
        return PTX_SPACE_SHARED;
    if (addr >= PTX_ADDR_LOCAL && addr - PTX_ADDR_LOCAL < PTX_ADDR_WINDOW)
        return PTX_SPACE_LOCAL;
    if (addr >= PTX_ADDR_CONST && addr - PTX_ADDR_CONST < PTX_ADDR_WINDOW)
        return PTX_SPACE_CONST;
    if (addr >= PTX_ADDR_PARAM && addr - PTX_ADDR_PARAM < PTX_ADDR_WINDOW)
        return PTX_SPACE_PARAM;
    return PTX_SPACE_GLOBAL;
}

/*
 * names.c — name tables of the PTX enumerations: types, state spaces,
 * comparisons, atomic operations, special registers; sizes of types.
 * (Opcode names live with the opcode table, opcodes.c.)
 */
#include "ptx/internal.h"

#include <string.h>

static const struct { const char *name; int bits; } type_tab[PTX_T_COUNT] = {
    [PTX_T_NONE] = { "", 0 },      [PTX_T_PRED] = { "pred", 1 },
    [PTX_T_B8] = { "b8", 8 },      [PTX_T_B16] = { "b16", 16 },
    [PTX_T_B32] = { "b32", 32 },   [PTX_T_B64] = { "b64", 64 },
    [PTX_T_B128] = { "b128", 128 },
    [PTX_T_U8] = { "u8", 8 },      [PTX_T_U16] = { "u16", 16 },
    [PTX_T_U32] = { "u32", 32 },   [PTX_T_U64] = { "u64", 64 },
    [PTX_T_S8] = { "s8", 8 },      [PTX_T_S16] = { "s16", 16 },
    [PTX_T_S32] = { "s32", 32 },   [PTX_T_S64] = { "s64", 64 },
    [PTX_T_F16] = { "f16", 16 },   [PTX_T_F16X2] = { "f16x2", 32 },
    [PTX_T_BF16] = { "bf16", 16 }, [PTX_T_BF16X2] = { "bf16x2", 32 },
    [PTX_T_TF32] = { "tf32", 32 },
    [PTX_T_F32] = { "f32", 32 },   [PTX_T_F64] = { "f64", 64 },
};

const char *ptx_type_name(ptx_type t)
{
    return (unsigned)t < PTX_T_COUNT ? type_tab[t].name : "?";
}

int ptx_type_bits(ptx_type t)
{
    return (unsigned)t < PTX_T_COUNT ? type_tab[t].bits : 0;
}

int ptx_type_size(ptx_type t)
{
    if (t == PTX_T_PRED) return 1;
    return ptx_type_bits(t) / 8;
}

bool ptx_type_is_float(ptx_type t)
{
    return t == PTX_T_F16 || t == PTX_T_F16X2 || t == PTX_T_BF16 || t == PTX_T_BF16X2 ||
           t == PTX_T_TF32 || t == PTX_T_F32 || t == PTX_T_F64;
}

bool ptx_type_is_signed(ptx_type t)
{
    return t == PTX_T_S8 || t == PTX_T_S16 || t == PTX_T_S32 || t == PTX_T_S64;
}

ptx_type ptx_type_from_name(const char *s, size_t n)
{
    if (n < 2 || n > 6) return PTX_T_NONE;
    for (int t = 1; t < PTX_T_COUNT; t++)
        if (type_tab[t].name[0] == s[0] && !strncmp(type_tab[t].name, s, n) && type_tab[t].name[n] == '\0')
            return (ptx_type)t;
    return PTX_T_NONE;
}

const char *ptx_space_name(ptx_space s)
{
    switch (s) {
    case PTX_SPACE_GENERIC: return "";
    case PTX_SPACE_REG: return "reg";
    case PTX_SPACE_SREG: return "sreg";
    case PTX_SPACE_CONST: return "const";
    case PTX_SPACE_GLOBAL: return "global";
    case PTX_SPACE_LOCAL: return "local";
    case PTX_SPACE_PARAM: return "param";
    case PTX_SPACE_SHARED: return "shared";
    case PTX_SPACE_SHARED_CLUSTER: return "shared::cluster";
    case PTX_SPACE_TEX: return "tex";
    default: return "?";
    }
}

const char *ptx_cmp_name(ptx_cmp c)
{
    static const char *const n[] = {
        "", "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
        "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
    };
    return (unsigned)c < sizeof n / sizeof n[0] ? n[c] : "?";
}

const char *ptx_atomop_name(ptx_atomop a)
{
    static const char *const n[] = {
        "", "add", "inc", "dec", "min", "max", "and", "or", "xor", "exch", "cas", "popc",
    };
    return (unsigned)a < sizeof n / sizeof n[0] ? n[a] : "?";
}

static const char *const sreg_names[PTX_SREG_COUNT] = {
    [PTX_SREG_NONE] = "",
    [PTX_SREG_TID] = "%tid", [PTX_SREG_NTID] = "%ntid", [PTX_SREG_CTAID] = "%ctaid",
    [PTX_SREG_NCTAID] = "%nctaid", [PTX_SREG_LANEID] = "%laneid",
    [PTX_SREG_WARPID] = "%warpid", [PTX_SREG_NWARPID] = "%nwarpid",
    [PTX_SREG_SMID] = "%smid", [PTX_SREG_NSMID] = "%nsmid", [PTX_SREG_GRIDID] = "%gridid",
    [PTX_SREG_LANEMASK_EQ] = "%lanemask_eq", [PTX_SREG_LANEMASK_LE] = "%lanemask_le",
    [PTX_SREG_LANEMASK_LT] = "%lanemask_lt", [PTX_SREG_LANEMASK_GE] = "%lanemask_ge",
    [PTX_SREG_LANEMASK_GT] = "%lanemask_gt",
    [PTX_SREG_CLOCK] = "%clock", [PTX_SREG_CLOCK_HI] = "%clock_hi",
    [PTX_SREG_CLOCK64] = "%clock64",
    [PTX_SREG_GLOBALTIMER] = "%globaltimer", [PTX_SREG_GLOBALTIMER_LO] = "%globaltimer_lo",
    [PTX_SREG_GLOBALTIMER_HI] = "%globaltimer_hi",
    [PTX_SREG_PM] = "%pm", [PTX_SREG_PM64] = "%pm", [PTX_SREG_ENVREG] = "%envreg",
    [PTX_SREG_DYNAMIC_SMEM_SIZE] = "%dynamic_smem_size",
    [PTX_SREG_TOTAL_SMEM_SIZE] = "%total_smem_size",
    [PTX_SREG_AGGR_SMEM_SIZE] = "%aggr_smem_size",
    [PTX_SREG_RESERVED_SMEM_OFFSET] = "%reserved_smem_offset_",
    [PTX_SREG_RESERVED_SMEM_OFFSET_BEGIN] = "%reserved_smem_offset_begin",
    [PTX_SREG_RESERVED_SMEM_OFFSET_END] = "%reserved_smem_offset_end",
    [PTX_SREG_RESERVED_SMEM_OFFSET_CAP] = "%reserved_smem_offset_cap",
    [PTX_SREG_CLUSTERID] = "%clusterid", [PTX_SREG_NCLUSTERID] = "%nclusterid",
    [PTX_SREG_CLUSTER_CTAID] = "%cluster_ctaid", [PTX_SREG_CLUSTER_NCTAID] = "%cluster_nctaid",
    [PTX_SREG_CLUSTER_CTARANK] = "%cluster_ctarank",
    [PTX_SREG_CLUSTER_NCTARANK] = "%cluster_nctarank",
    [PTX_SREG_IS_EXPLICIT_CLUSTER] = "%is_explicit_cluster",
    [PTX_SREG_CURRENT_GRAPH_EXEC] = "%current_graph_exec",
};

const char *ptx_sreg_name(ptx_sreg s)
{
    if ((unsigned)s < PTX_SREG_COUNT && sreg_names[s]) return sreg_names[s];
    return "?";
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

ptx_sreg ptx_sreg_from_name(const char *s, size_t n, int *index)
{
    *index = 0;
    if (n < 2 || s[0] != '%') return PTX_SREG_NONE;
    for (int i = 1; i < PTX_SREG_COUNT; i++) {
        if (i == PTX_SREG_PM || i == PTX_SREG_PM64 || i == PTX_SREG_ENVREG || i == PTX_SREG_RESERVED_SMEM_OFFSET)
            continue;
        const char *nm = sreg_names[i];
        if (nm && strlen(nm) == n && !memcmp(nm, s, n)) return (ptx_sreg)i;
    }
    /* %pmN, %pmN_64, %envregN */
    if (n > 3 && !memcmp(s, "%pm", 3)) {
        if (n > 6 && !memcmp(s + n - 3, "_64", 3) && all_digits(s + 3, n - 6)) {
            *index = s[3] - '0';
            return n == 7 && s[3] <= '7' ? PTX_SREG_PM64 : PTX_SREG_NONE;
        }
        if (n == 4 && s[3] >= '0' && s[3] <= '7') {
            *index = s[3] - '0';
            return PTX_SREG_PM;
        }
        return PTX_SREG_NONE;
    }
    if (n == 23 && !memcmp(s, "%reserved_smem_offset_", 22) && (s[22] == '0' || s[22] == '1')) {
        *index = s[22] - '0';
        return PTX_SREG_RESERVED_SMEM_OFFSET;
    }
    if (n > 7 && !memcmp(s, "%envreg", 7) && all_digits(s + 7, n - 7) && n <= 9) {
        int v = 0;
        for (size_t i = 7; i < n; i++) v = v * 10 + (s[i] - '0');
        if (v > 31) return PTX_SREG_NONE;
        *index = v;
        return PTX_SREG_ENVREG;
    }
    return PTX_SREG_NONE;
}

/*
 * ptx.h — PTX text -> IR: modules, functions, registers, instructions,
 * basic blocks, CFG, dominators, immediate post-dominators and loops.
 *
 * This is the one public header of ptx/.  The emulator (harness/sim) and the
 * symbolic executor (symexec/) are built on it, so it only ever grows.
 *
 * Ownership: `ptx_parse_file` / `ptx_parse_string` return a module that owns
 * every string and array reachable from it; `ptx_module_free` releases all
 * of it at once.  Nothing here is modified after parsing: every pointer is
 * stable and the structures are plain arrays with counts, meant to be walked
 * directly by an interpreter's inner loop.
 *
 * Threads: parsing keeps no global state (any number of modules may be
 * parsed at once); a parsed module is read-only and may be shared.
 *
 * Indices: registers, instructions, labels, blocks, loops, params and
 * variables are dense 0-based indices into the arrays of their function (or
 * module, for module-level variables and functions).  -1 means "none".
 *
 * Each instruction exists in two forms at once:
 *   - the generic form: opcode text, modifier strings in order, guard and
 *     operands.  Every syntactically valid instruction has it, including
 *     opcodes this library does not know (op == PTX_OP_UNKNOWN);
 *   - the decoded form: opcode enum, types, state space, rounding, compare
 *     and atomic operations, flags.  Modifiers that do not affect the value
 *     computed (cache operators, eviction hints, .L2::128B, ...) are left in
 *     the generic form only.
 */
#ifndef WH_PTX_PTX_H
#define WH_PTX_PTX_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/spec.h"

/* ------------------------------------------------------------------------ */
/* Enumerations                                                             */
/* ------------------------------------------------------------------------ */

/* Scalar types.  Vector width is kept apart (`vec` fields). */
typedef enum {
    PTX_T_NONE = 0,
    PTX_T_PRED,
    PTX_T_B8, PTX_T_B16, PTX_T_B32, PTX_T_B64, PTX_T_B128,
    PTX_T_U8, PTX_T_U16, PTX_T_U32, PTX_T_U64,
    PTX_T_S8, PTX_T_S16, PTX_T_S32, PTX_T_S64,
    PTX_T_F16, PTX_T_F16X2, PTX_T_BF16, PTX_T_BF16X2, PTX_T_TF32,
    PTX_T_F32, PTX_T_F64,
    PTX_T_COUNT
} ptx_type;

/* State spaces.  PTX_SPACE_GENERIC is "no space given" on ld/st/atom. */
typedef enum {
    PTX_SPACE_GENERIC = 0,
    PTX_SPACE_REG,
    PTX_SPACE_SREG,
    PTX_SPACE_CONST,
    PTX_SPACE_GLOBAL,
    PTX_SPACE_LOCAL,
    PTX_SPACE_PARAM,
    PTX_SPACE_SHARED,          /* .shared and .shared::cta */
    PTX_SPACE_SHARED_CLUSTER,  /* .shared::cluster */
    PTX_SPACE_TEX,
    PTX_SPACE_COUNT
} ptx_space;

typedef enum {
    PTX_RND_NONE = 0,
    PTX_RND_RN, PTX_RND_RZ, PTX_RND_RM, PTX_RND_RP, PTX_RND_RNA, PTX_RND_RS,
    PTX_RND_RNI, PTX_RND_RZI, PTX_RND_RMI, PTX_RND_RPI   /* integer rounding */
} ptx_rnd;

/* Comparison operators of setp/set (the U forms are float unordered). */
typedef enum {
    PTX_CMP_NONE = 0,
    PTX_CMP_EQ, PTX_CMP_NE, PTX_CMP_LT, PTX_CMP_LE, PTX_CMP_GT, PTX_CMP_GE,
    PTX_CMP_LO, PTX_CMP_LS, PTX_CMP_HI, PTX_CMP_HS,
    PTX_CMP_EQU, PTX_CMP_NEU, PTX_CMP_LTU, PTX_CMP_LEU, PTX_CMP_GTU, PTX_CMP_GEU,
    PTX_CMP_NUM, PTX_CMP_NAN
} ptx_cmp;

/* Boolean combination of setp/set/vote-like results with a third operand. */
typedef enum { PTX_BOOL_NONE = 0, PTX_BOOL_AND, PTX_BOOL_OR, PTX_BOOL_XOR } ptx_boolop;

/* Operation of atom / red / redux.sync / bar.red / multimem. */
typedef enum {
    PTX_AOP_NONE = 0,
    PTX_AOP_ADD, PTX_AOP_INC, PTX_AOP_DEC, PTX_AOP_MIN, PTX_AOP_MAX,
    PTX_AOP_AND, PTX_AOP_OR, PTX_AOP_XOR, PTX_AOP_EXCH, PTX_AOP_CAS,
    PTX_AOP_POPC   /* bar.red.popc */
} ptx_atomop;

/* Memory-consistency semantics and scope of ld/st/atom/red/fence. */
typedef enum {
    PTX_SEM_NONE = 0, PTX_SEM_WEAK, PTX_SEM_VOLATILE, PTX_SEM_RELAXED,
    PTX_SEM_ACQUIRE, PTX_SEM_RELEASE, PTX_SEM_ACQ_REL, PTX_SEM_SC
} ptx_sem;

typedef enum {
    PTX_SCOPE_NONE = 0, PTX_SCOPE_CTA, PTX_SCOPE_CLUSTER, PTX_SCOPE_GPU, PTX_SCOPE_SYS
} ptx_scope;

/* Per-opcode sub-modes, stored in ptx_instr.mode. */
typedef enum { PTX_SHFL_UP = 1, PTX_SHFL_DOWN, PTX_SHFL_BFLY, PTX_SHFL_IDX } ptx_shfl_mode;
typedef enum { PTX_VOTE_ALL = 1, PTX_VOTE_ANY, PTX_VOTE_UNI, PTX_VOTE_BALLOT } ptx_vote_mode;
typedef enum { PTX_MATCH_ANY = 1, PTX_MATCH_ALL } ptx_match_mode;
/* bar / barrier / bar.warp: sync, arrive, red (operation in ptx_instr.aop). */
/* bar / barrier.cta modes; barrier.cluster.arrive and .wait (a cluster of
 * one block here: ptx_one_block_clusters) take no operands. */
typedef enum { PTX_BAR_SYNC = 1, PTX_BAR_ARRIVE, PTX_BAR_RED, PTX_BAR_CLUSTER_ARRIVE, PTX_BAR_CLUSTER_WAIT } ptx_bar_mode;
typedef enum {
    PTX_TESTP_FINITE = 1, PTX_TESTP_INFINITE, PTX_TESTP_NUMBER,
    PTX_TESTP_NOTANUMBER, PTX_TESTP_NORMAL, PTX_TESTP_SUBNORMAL
} ptx_testp_mode;
/* prmt: default (0) or one of the named modes. */
typedef enum {
    PTX_PRMT_F4E = 1, PTX_PRMT_B4E, PTX_PRMT_RC8, PTX_PRMT_ECL, PTX_PRMT_ECR, PTX_PRMT_RC16
} ptx_prmt_mode;

/* Flags (bit set in ptx_instr.flags). */
enum {
    PTX_F_APPROX   = 1u << 0,
    PTX_F_FTZ      = 1u << 1,
    PTX_F_SAT      = 1u << 2,
    PTX_F_FULL     = 1u << 3,   /* div.full */
    PTX_F_WIDE     = 1u << 4,   /* mul.wide, mad.wide */
    PTX_F_HI       = 1u << 5,   /* mul.hi, mad.hi, dp2a.hi */
    PTX_F_LO       = 1u << 6,   /* mul.lo, mad.lo, dp2a.lo */
    PTX_F_UNI      = 1u << 7,   /* bra.uni, call.uni, ret.uni */
    PTX_F_SYNC     = 1u << 8,   /* .sync */
    PTX_F_ALIGNED  = 1u << 9,   /* .aligned (bar.* are implicitly aligned) */
    PTX_F_VOLATILE = 1u << 10,
    PTX_F_CC       = 1u << 11,  /* add.cc / sub.cc / mad.cc: write carry */
    PTX_F_NC       = 1u << 12,  /* ld.global.nc */
    PTX_F_TO       = 1u << 13,  /* cvta.to */
    PTX_F_PAIR     = 1u << 14,  /* a `d|p` pair destination: ops[1] is p */
    PTX_F_SHIFTAMT = 1u << 15,  /* bfind.shiftamt */
    PTX_F_NAN      = 1u << 16,  /* min.NaN / max.NaN */
    PTX_F_XORSIGN  = 1u << 17,  /* .xorsign */
    PTX_F_ABS      = 1u << 18,  /* .abs (as a modifier) */
    PTX_F_RELU     = 1u << 19,  /* .relu */
    PTX_F_CLAMP    = 1u << 20,  /* shf.clamp */
    PTX_F_WRAP     = 1u << 21,  /* shf.wrap */
    PTX_F_LEFT     = 1u << 22,  /* shf.l */
    PTX_F_RIGHT    = 1u << 23,  /* shf.r */
    PTX_F_NOFTZ    = 1u << 24,  /* .noftz */
    PTX_F_ZERO     = 1u << 25,  /* suld/sust .zero (out of bounds: 0, no store); .clamp is PTX_F_CLAMP */
    PTX_F_PARITY   = 1u << 26,  /* mbarrier.test_wait.parity / try_wait.parity */
    PTX_F_NOCOMPLETE = 1u << 27, /* mbarrier.arrive.noComplete */
    PTX_F_EXPECT_TX = 1u << 28, /* mbarrier.arrive.expect_tx / arrive_drop.expect_tx */
    PTX_F_FORMATTED = 1u << 29  /* sust.p / sured.p: x counts samples, values in the surface's format */
};

/* cp.async forms (ptx_instr.mode of PTX_OP_CP_ASYNC).  The bulk copies
 * (cp.async.bulk, sm_90) move SIZE bytes, a multiple of 16 at 16-byte
 * aligned addresses: global to shared (shared::cta or shared::cluster)
 * and shared::cta to shared::cluster complete SIZE transaction bytes on
 * an mbarrier (their fourth operand); shared::cta to global belongs to
 * a bulk async-group (cp.async.bulk.commit_group / wait_group, which
 * decode to PTX_CP_COMMIT_GROUP / PTX_CP_WAIT_GROUP).  The tiled tensor
 * forms move a box through a tensor map (README, "Tensor maps"); im2col
 * and gather/scatter tensor forms, multicast, masked and reducing forms
 * decode to mode 0, which no engine runs. */
typedef enum {
    PTX_CP_COPY = 1, PTX_CP_COMMIT_GROUP, PTX_CP_WAIT_GROUP, PTX_CP_WAIT_ALL,
    PTX_CP_BULK_TO_SHARED,      /* .shared::{cta,cluster}.global.mbarrier::complete_tx::bytes */
    PTX_CP_BULK_SHARED_CLUSTER, /* .shared::cluster.shared::cta.mbarrier::complete_tx::bytes */
    PTX_CP_BULK_TO_GLOBAL,      /* .global.shared::cta.bulk_group */
    PTX_CP_BULK_PREFETCH,       /* cp.async.bulk.prefetch.L2.global [src], size */
    /* the tensor forms (.tensor.Nd, tiled): a box of a tensor map's tensor
     * at the coordinates the operand [tmap, {c0, ...}] gives (N of them) */
    PTX_CP_TENSOR_TO_SHARED,    /* .shared::{cta,cluster}.global.mbarrier::complete_tx::bytes
                                   [dst], [tmap, {...}], [mbar] */
    PTX_CP_TENSOR_TO_GLOBAL,    /* .global.shared::cta.bulk_group [tmap, {...}], [src] */
    PTX_CP_TENSOR_PREFETCH      /* cp.async.bulk.prefetch.tensor.Nd.L2.global [tmap, {...}] */
} ptx_cp_mode;

/* A bulk copy's source space (the destination is ptx_instr.space), and
 * whether it completes transaction bytes on an mbarrier (operand 3). */
ptx_space ptx_cp_bulk_source(int mode);
bool ptx_cp_bulk_completes_tx(int mode);
bool ptx_cp_is_bulk_copy(int mode);
/* A tensor copy (PTX_CP_TENSOR_TO_SHARED / _TO_GLOBAL). */
bool ptx_cp_is_tensor_copy(int mode);
/* A tensor copy's or prefetch's tensor-map operand ([tmap, {c0, ...}],
 * its coordinates in elems[0]). */
int ptx_cp_tensor_operand(int mode);
/* mbarrier: the operation (an arrival with .expect_tx sets PTX_F_EXPECT_TX). */
typedef enum {
    PTX_MBAR_INIT = 1, PTX_MBAR_INVAL, PTX_MBAR_ARRIVE, PTX_MBAR_ARRIVE_DROP, PTX_MBAR_TEST_WAIT,
    PTX_MBAR_TRY_WAIT, PTX_MBAR_PENDING_COUNT, PTX_MBAR_EXPECT_TX, PTX_MBAR_COMPLETE_TX
} ptx_mbar_mode;
/* tex, suld, sust, sured: the geometry (`.1d` `.2d` `.3d`, the layered
 * `.a1d` `.a2d` (a cubemap surface's faces are an .a2d's layers) and for
 * tex the cubemap `.cube` `.acube`; the multisample forms and suld.p
 * decode to 0, which no engine runs; sust.p and sured.p set
 * PTX_F_FORMATTED). */
typedef enum {
    PTX_TEX_1D = 1, PTX_TEX_2D, PTX_TEX_3D, PTX_TEX_A1D, PTX_TEX_A2D, PTX_TEX_CUBE, PTX_TEX_ACUBE
} ptx_tex_geom;
#define PTX_TEX_GEOM_LAST PTX_TEX_ACUBE
/* tld4.COMP.2d: mode is PTX_TEX_2D plus the component (r g b a: 0..3)
 * times PTX_TLD4_COMP. */
#define PTX_TLD4_COMP 16
/* txq and suq: the attribute asked for (the rest of the ISA's queries, and
 * txq.level, decode to 0, which no engine runs). */
typedef enum {
    PTX_TXQ_WIDTH = 1, PTX_TXQ_HEIGHT, PTX_TXQ_DEPTH, PTX_TXQ_NORMALIZED_COORDS, PTX_TXQ_FILTER_MODE,
    PTX_TXQ_ADDR_MODE_0, PTX_TXQ_ADDR_MODE_1, PTX_TXQ_ADDR_MODE_2
} ptx_tex_query;

/* Decoded opcodes, generated from ptx/opcodes.def (the one list of them).
 * Unknown opcodes parse with PTX_OP_UNKNOWN. */
typedef enum {
    PTX_OP_UNKNOWN = 0,
#define PTX_OPCODE(id, ...) PTX_OP_##id,
#include "ptx/opcodes.def"
#undef PTX_OPCODE
    PTX_OP_COUNT
} ptx_opcode;

/* Which engines implement an opcode at all (ptx_opcode_engines). */
enum { PTX_IN_SIM = 1u << 0, PTX_IN_SYM = 1u << 1 };

/* Special registers (operands of kind PTX_OPD_SPECIAL). */
typedef enum {
    PTX_SREG_NONE = 0,
    PTX_SREG_TID, PTX_SREG_NTID, PTX_SREG_CTAID, PTX_SREG_NCTAID,
    PTX_SREG_LANEID, PTX_SREG_WARPID, PTX_SREG_NWARPID,
    PTX_SREG_SMID, PTX_SREG_NSMID, PTX_SREG_GRIDID,
    PTX_SREG_LANEMASK_EQ, PTX_SREG_LANEMASK_LE, PTX_SREG_LANEMASK_LT,
    PTX_SREG_LANEMASK_GE, PTX_SREG_LANEMASK_GT,
    PTX_SREG_CLOCK, PTX_SREG_CLOCK_HI, PTX_SREG_CLOCK64,
    PTX_SREG_GLOBALTIMER, PTX_SREG_GLOBALTIMER_LO, PTX_SREG_GLOBALTIMER_HI,
    PTX_SREG_PM,          /* %pm0..%pm7, %pm0_64..: index in sreg_index */
    PTX_SREG_PM64,
    PTX_SREG_ENVREG,      /* %envreg0..31: index in sreg_index */
    PTX_SREG_DYNAMIC_SMEM_SIZE, PTX_SREG_TOTAL_SMEM_SIZE,
    PTX_SREG_AGGR_SMEM_SIZE,
    PTX_SREG_RESERVED_SMEM_OFFSET, /* %reserved_smem_offset_0/_1: index in sreg_index */
    PTX_SREG_CLUSTERID, PTX_SREG_NCLUSTERID, PTX_SREG_CLUSTER_CTAID,
    PTX_SREG_CLUSTER_NCTAID, PTX_SREG_CLUSTER_CTARANK,
    PTX_SREG_CLUSTER_NCTARANK, PTX_SREG_IS_EXPLICIT_CLUSTER,
    PTX_SREG_CURRENT_GRAPH_EXEC,
    PTX_SREG_RESERVED_SMEM_OFFSET_BEGIN, PTX_SREG_RESERVED_SMEM_OFFSET_END,
    PTX_SREG_RESERVED_SMEM_OFFSET_CAP,
    PTX_SREG_COUNT
} ptx_sreg;

typedef enum { PTX_LINK_NONE = 0, PTX_LINK_VISIBLE, PTX_LINK_EXTERN, PTX_LINK_WEAK, PTX_LINK_COMMON } ptx_linkage;

/* ------------------------------------------------------------------------ */
/* Module-level and function-level declarations                             */
/* ------------------------------------------------------------------------ */

/* What a symbol name in an operand refers to. */
typedef enum {
    PTX_SYM_NONE = 0,
    PTX_SYM_MODULE_VAR,   /* index into ptx_module.vars */
    PTX_SYM_LOCAL_VAR,    /* index into ptx_function.vars (incl. call-site .param) */
    PTX_SYM_PARAM,        /* index into ptx_function.params */
    PTX_SYM_RET,          /* index into ptx_function.rets */
    PTX_SYM_FUNC,         /* index into ptx_module.funcs */
    PTX_SYM_BRANCHTARGETS /* index into ptx_function.btargets */
} ptx_sym_kind;

typedef struct {
    ptx_sym_kind kind;
    int index;
    const char *name;
} ptx_symref;

/* An address-valued word inside an initializer: `{generic(foo)+8, ...}`. */
typedef struct {
    uint64_t offset;      /* byte offset inside the variable's initializer */
    int size;             /* bytes of the word */
    ptx_symref sym;       /* module variable or function */
    int64_t addend;
    bool generic;         /* generic(sym) rather than sym */
} ptx_reloc;

/* A variable: .global/.const/.shared/.local (module or function scope), or a
 * call-site .param declared inside a `{ ... }` block of a function. */
typedef struct {
    const char *name;
    ptx_space space;
    ptx_type type;          /* element type */
    int vec;                /* 1, 2, 4 (.v2/.v4 variables) */
    int align;              /* bytes; natural alignment when not given */
    int elem_size;          /* bytes of one element (vec * type size) */
    uint64_t size;          /* bytes in all; 0 for `[]` (extern/dynamic) */
    uint64_t count;         /* elements (product of dimensions; 1 if scalar) */
    bool is_array;
    bool unsized;           /* `name[]` */
    ptx_linkage linkage;
    uint8_t *init;          /* `size` bytes (zero-filled past the initializer) or NULL */
    ptx_reloc *relocs;      /* address words in the initializer */
    int nrelocs;
    int line;
} ptx_var;

/* Kernel / function parameter (also return parameters of a .func). */
typedef struct {
    const char *name;
    ptx_space space;        /* PTX_SPACE_PARAM, or PTX_SPACE_REG for `.reg` params */
    int reg;                /* PTX_SPACE_REG: the register it is bound to, else -1 */
    ptx_type type;
    int vec;                /* 1, 2, 4 */
    int align;              /* bytes */
    uint64_t size;          /* bytes */
    uint64_t offset;        /* byte offset in the parameter space (aligned) */
    bool is_array;          /* `.b8 name[16]` (by-value structs) */
    bool is_ptr;            /* `.ptr` attribute */
    ptx_space ptr_space;    /* `.ptr.global` ...: GENERIC when not given */
    int ptr_align;          /* `.ptr ... .align N`: 0 when not given */
    int line;
} ptx_param;

/* A register.  `%r<10>` declares %r0..%r9 as ten registers. */
typedef struct {
    const char *name;
    ptx_type type;
    int vec;                /* 1 unless `.reg .v2 .f32 x` */
    int bits;               /* width of the type in bits (1 for .pred) */
    int line;
} ptx_reg;

/* A label: position = index of the next instruction (== ninstrs at end). */
typedef struct {
    const char *name;
    int instr;
    int block;              /* block beginning at `instr`, or -1 at the end */
    int line;
} ptx_label;

/* `.branchtargets` list used by brx.idx. */
typedef struct {
    const char *name;
    int *labels;            /* indices into ptx_function.labels */
    int nlabels;
    int line;
} ptx_btargets;

/* ------------------------------------------------------------------------ */
/* Operands and instructions                                                */
/* ------------------------------------------------------------------------ */

typedef enum {
    PTX_OPD_NONE = 0,
    PTX_OPD_REG,        /* reg */
    PTX_OPD_SPECIAL,    /* sreg, sreg_comp, sreg_index */
    PTX_OPD_IMM_INT,    /* ival */
    PTX_OPD_IMM_FLOAT,  /* fval, f32bits, f64bits, fwidth */
    PTX_OPD_ADDR,       /* [base + offset]: reg / sym / neither (absolute);
                           `[tex, {x, y}]` keeps the items after the first in elems */
    PTX_OPD_VEC,        /* {a, b, ...}: elems / nelems */
    PTX_OPD_LABEL,      /* label (and label_instr / label_block) */
    PTX_OPD_SYMBOL,     /* sym (+ ival as offset: `sym+4`) */
    PTX_OPD_SINK,       /* `_` */
    PTX_OPD_LIST        /* parenthesised list of a call: elems / nelems */
} ptx_operand_kind;

typedef struct ptx_operand ptx_operand;
struct ptx_operand {
    ptx_operand_kind kind;
    int col;              /* source column (1-based) */
    bool neg;             /* `!%p` (predicate operand negated) */
    bool pipe;            /* preceded by `|` (second destination of a pair) */
    int reg;              /* REG; ADDR base register or -1 */
    ptx_sreg sreg;        /* SPECIAL */
    int8_t sreg_comp;     /* 0..3 for .x .y .z .w, -1 if none */
    int8_t sreg_index;    /* %envreg3 -> 3, %pm2 -> 2; else 0 */
    int64_t ival;         /* IMM_INT value (bits as written), ADDR/SYMBOL offset */
    double fval;          /* IMM_FLOAT value */
    uint32_t f32bits;     /* IMM_FLOAT as binary32 (exact for 0f, rounded RN otherwise) */
    uint64_t f64bits;     /* IMM_FLOAT as binary64 (exact for 0d and 0f) */
    int fwidth;           /* 32 for 0fXXXXXXXX, 64 for 0dXXXX..., 0 for decimal */
    ptx_symref sym;       /* ADDR base symbol / SYMBOL */
    int label;            /* LABEL: index into ptx_function.labels (name in sym.name) */
    int label_instr;      /* LABEL: target instruction index */
    int label_block;      /* LABEL: target block index (-1 at end of code) */
    const ptx_operand *elems;  /* VEC / LIST elements */
    int nelems;
};

typedef struct {
    /* generic form */
    const char *opcode;       /* "setp" */
    const char **mods;        /* {"lt", "and", "s32"}: modifiers without dots */
    int nmods;
    int guard;                /* predicate register, or -1 */
    bool guard_neg;           /* `@!%p` */
    const ptx_operand *ops;
    int nops;
    int line, col;            /* position in the PTX source */
    int src_file, src_line;   /* last `.loc` before it (0 when none) */
    int call_file, call_line; /* its `inlined_at`: the call of the inlined code (0 when none) */

    /* decoded form */
    ptx_opcode op;
    ptx_type type;            /* first type modifier (cvt/set/slct/dp4a: destination/first) */
    ptx_type type2;           /* second type modifier (cvt source, slct/set source...) */
    int vec;                  /* 1, 2, 4 or 8 (.v2 ...) */
    ptx_space space;
    ptx_rnd rnd;
    ptx_cmp cmp;
    ptx_boolop boolop;
    ptx_atomop aop;
    ptx_sem sem;
    ptx_scope scope;
    int mode;                 /* ptx_shfl_mode, ptx_vote_mode, ptx_bar_mode, ... */
    uint32_t flags;           /* PTX_F_* */

    /* control flow (filled for bra / call / ret / exit) */
    int target_label;         /* bra: label index, else -1 */
    int target_instr;         /* bra: target instruction index, else -1 */
    int callee;               /* call: index into ptx_module.funcs, -1 if indirect/none */
    const ptx_operand *call_rets;  /* call: `(retval0)` list elements */
    int ncall_rets;
    const ptx_operand *call_args;  /* call: `(param0, ...)` list elements */
    int ncall_args;

    int block;                /* basic block holding this instruction */
} ptx_instr;

/* ------------------------------------------------------------------------ */
/* Control-flow graph                                                       */
/* ------------------------------------------------------------------------ */

/* The virtual exit node joining every block that ends in ret/exit (or falls
 * off the end of the code).  Used as a block index in ipdom. */
#define PTX_BLOCK_EXIT (-2)

typedef struct {
    int first;               /* first instruction */
    int count;               /* instructions in the block (>= 1) */
    int *succ; int nsucc;    /* successor blocks (no duplicates) */
    int *pred; int npred;    /* predecessor blocks */
    bool exits;              /* has an edge to the virtual exit (ret/exit/falls off) */
    bool reachable;          /* from the entry block */
    bool cond_branch;        /* ends in a guarded bra: a branch with two legs */
    int taken;               /* ends in bra: block when taken, else -1 */
    int fallthrough;         /* block reached by falling through (not taken), else -1 */
                             /* (either is PTX_BLOCK_EXIT when it leaves the code) */
    int idom;                /* immediate dominator; -1 for the entry and unreachable blocks */
    int ipdom;               /* immediate post-dominator; PTX_BLOCK_EXIT for the virtual exit */
    int loop;                /* innermost loop containing the block, or -1 */
    bool loop_header;
    int line_first, line_last;  /* PTX lines of first and last instruction */
} ptx_block;

/* A natural loop: header plus the blocks of all its back edges' bodies. */
typedef struct {
    int header;
    int *blocks; int nblocks;    /* sorted, includes the header */
    int *latches; int nlatches;  /* sources of back edges into the header */
    int parent;                  /* enclosing loop, or -1 */
    int depth;                   /* 1 for outermost */
} ptx_loop;

/* ------------------------------------------------------------------------ */
/* Functions and modules                                                    */
/* ------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    bool is_entry;              /* .entry (kernel) rather than .func */
    bool has_body;              /* false for prototypes / .extern declarations */
    ptx_linkage linkage;
    int line;

    ptx_param *params; int nparams;
    ptx_param *rets; int nrets;       /* .func return parameters */
    uint64_t param_bytes;             /* size of the parameter space */

    ptx_reg *regs; int nregs;
    ptx_var *vars; int nvars;         /* .local/.shared/.param declared inside */
    ptx_instr *instrs; int ninstrs;
    ptx_label *labels; int nlabels;
    ptx_btargets *btargets; int nbtargets;

    ptx_block *blocks; int nblocks;   /* block 0 is the entry (if ninstrs > 0) */
    ptx_loop *loops; int nloops;      /* outer loops before inner ones */
    int nbranches;                    /* blocks with cond_branch (reachable or not) */

    /* performance directives (0 when not given) */
    int maxntid[3], reqntid[3];
    int reqnctapercluster[3];   /* .reqnctapercluster (thread block clusters), 0s when absent */
    int minnctapersm, maxnctapersm, maxnreg;
    bool noreturn;
} ptx_function;

typedef struct ptx_module {
    const char *name;            /* file path or the name given to ptx_parse_string */
    int version_major, version_minor;
    const char *target;          /* "sm_80" (first target) */
    const char **targets; int ntargets;  /* all of .target, e.g. "sm_80", "debug" */
    int address_size;            /* 32 or 64 (64 when not given) */
    /* `.file N "path"`: src_files[N] (NULL where no .file named N) */
    const char **src_files; int nsrc_files;

    ptx_var *vars; int nvars;    /* module-level .global/.const/.shared/.local */
    ptx_function *funcs; int nfuncs;  /* .entry and .func, in source order */
    int *kernels; int nkernels;  /* indices into funcs of the .entry ones */

    struct ptx_arena *arena;     /* private: owns all memory */
} ptx_module;

/* ------------------------------------------------------------------------ */
/* API                                                                      */
/* ------------------------------------------------------------------------ */

/* "PATH:LINE" of the CUDA source an instruction came from (its last `.loc`,
 * the file a `.file` names), followed by " (inlined at PATH:LINE)" for code
 * inlined from a function such as CUDA's atomicAdd; false, buf "", when
 * the PTX does not say. */
bool ptx_source_of(const ptx_module *m, const ptx_instr *ins, char *buf, size_t size);
/* The instruction on PTX line `line` (the first, in module order), or NULL. */
const ptx_instr *ptx_instr_at_line(const ptx_module *m, int line);

/* Parse a PTX file / text.  Returns NULL and fills `err` (file:line:col and
 * the offending token) on malformed input.  The CFG, dominators,
 * post-dominators and loops of every function with a body are computed. */
ptx_module *ptx_parse_file(const char *path, wh_error *err);
ptx_module *ptx_parse_string(const char *text, const char *name, wh_error *err);
/* Same, with an explicit length (text need not be NUL-terminated; NUL bytes
 * inside are reported as errors). */
ptx_module *ptx_parse_buffer(const char *text, size_t len, const char *name, wh_error *err);
void ptx_module_free(ptx_module *m);

/* Lookups by name: NULL / -1 when absent. */
const ptx_function *ptx_find_function(const ptx_module *m, const char *name);
const ptx_function *ptx_find_kernel(const ptx_module *m, const char *name);  /* .entry only */
int ptx_function_index(const ptx_module *m, const char *name);
const ptx_var *ptx_find_var(const ptx_module *m, const char *name);
int ptx_find_reg(const ptx_function *f, const char *name);
int ptx_find_label(const ptx_function *f, const char *name);
int ptx_find_param(const ptx_function *f, const char *name);
int ptx_find_local_var(const ptx_function *f, const char *name);

/* Does the spec describe entry k (ptx/spec_match.c)?  Its kernel
 * parameters in number and size, and each of its globals a defined
 * .global or .const variable large enough for the buffer at `launch`;
 * errors name the spec's JSON path and the PTX line. */
bool ptx_spec_check(const ptx_module *m, const ptx_function *k, const wh_spec *spec, const wh_launch *launch,
                    const char *ptx_path, wh_error *err);
/* The module variable a spec global named `name` binds to, or -1. */
int ptx_spec_global_var(const ptx_module *m, const char *name);
/* The engines run thread block clusters of one block (a cluster's
 * special registers say so): false, naming the directive, for an entry
 * compiled for clusters of more (.reqnctapercluster, __cluster_dims__). */
bool ptx_one_block_clusters(const ptx_function *k, const char *ptx_path, wh_error *err);

/* Names and sizes. */
const char *ptx_type_name(ptx_type t);      /* "u32" */
int ptx_type_size(ptx_type t);              /* bytes; pred 1 (PTX_T_NONE 0) */
int ptx_type_bits(ptx_type t);              /* bits; pred 1 */
bool ptx_type_is_float(ptx_type t);         /* f16..f64 incl. x2 and bf16 */
bool ptx_type_is_signed(ptx_type t);        /* s8..s64 */
const char *ptx_space_name(ptx_space s);    /* "global", "" for generic */
const char *ptx_opcode_name(ptx_opcode op); /* "setp", "unknown" */
unsigned ptx_opcode_engines(ptx_opcode op); /* PTX_IN_SIM | PTX_IN_SYM */
const char *ptx_opcode_example(ptx_opcode op); /* an instance, or NULL */
/* The opcodes and the engines that implement them, as a Markdown table. */
void ptx_print_opcodes(FILE *out);
const char *ptx_cmp_name(ptx_cmp c);
const char *ptx_sreg_name(ptx_sreg s);      /* "%tid" */
const char *ptx_atomop_name(ptx_atomop a);

/* CFG queries. */
bool ptx_dominates(const ptx_function *f, int a, int b);      /* a dom b */
bool ptx_postdominates(const ptx_function *f, int a, int b);  /* a pdom b; a may be PTX_BLOCK_EXIT */
bool ptx_loop_contains(const ptx_function *f, int loop, int block);
/* First instruction where threads diverging at block `b` reconverge:
 * the first instruction of ipdom(b), or f->ninstrs for the virtual exit. */
int ptx_reconverge_instr(const ptx_function *f, int b);

/* The SIMT reconvergence model both engines use (simt.c says how): a
 * stack of {pc, rpc, mask}, the warp running the top entry. */
typedef struct {
    int pc, rpc;
    uint32_t mask;           /* threads of the warp, bit = lane */
} ptx_simt_entry;

typedef struct {
    ptx_simt_entry *e;
    int n, cap;
} ptx_simt_stack;

void ptx_simt_push(ptx_simt_stack *s, int pc, int rpc, uint32_t mask);
void ptx_simt_free(ptx_simt_stack *s);
/* The top entry's threads go to `ngroups` >= 2 places pcs[g] (threads
 * masks[g]) and reconverge at rpc; group 0 runs first. */
void ptx_simt_split(ptx_simt_stack *s, int rpc, const int *pcs, const uint32_t *masks, int ngroups);
/* The merge policy ("ipdom+merge"): siblings above `base` (the current
 * frame's bottom entry) ordered lowest pc first, equal pcs merged. */
void ptx_simt_merge_siblings(ptx_simt_stack *s, int base);
void ptx_simt_sift_top(ptx_simt_stack *s, int base);

/* Printing.  `ptx_format_instr` writes the instruction as PTX text
 * (e.g. "@!%p1 bra $L__BB0_2") into buf (always NUL-terminated). */
void ptx_format_instr(const ptx_module *m, const ptx_function *f, const ptx_instr *ins,
                      char *buf, size_t size);
void ptx_print_summary(FILE *out, const ptx_module *m);
void ptx_print_cfg(FILE *out, const ptx_module *m);
void ptx_print_dot(FILE *out, const ptx_module *m);
/* {"file", "version", "target", "address_size",
 *  "kernels": [{"name","params","registers","instructions","blocks","branches",...}],
 *  "functions": [...same for .func...]}.  Returns 0, or -1 on a write error. */
int ptx_print_json(FILE *out, const ptx_module *m);

/* ------------------------------------------------------------------------ */
/* Semantics contract (semantics.c)                                         */
/* ------------------------------------------------------------------------ */
/*
 * Where PTX leaves a result to the hardware, or where SMT-LIB and C disagree
 * with it, the value is decided here once: the emulator calls these helpers
 * and the symbolic executor builds the same function as a term.
 * tests/test_semantics.c checks the two engines against each other.
 */

/* The NaN a floating-point instruction produces (arithmetic, conversions,
 * min/max of two NaNs).  The bit instructions (mov, neg, abs, copysign)
 * copy their operand's payload instead. */
#define PTX_NAN_F16 0x7fffu
#define PTX_NAN_F32 0x7fffffffu
#define PTX_NAN_F64 0x7fffffffffffffffull
/* bf16 follows f16: every NaN an arithmetic instruction, min/max or a
 * conversion to bf16 produces is this one (believed to be the GPU's, as
 * 0x7fff is for f16; to be checked on a GPU like the f64 one). */
#define PTX_NAN_BF16 0x7fffu

/* div / rem on `bits`-wide operands (signed when `sgn`), result zero-extended:
 * x / 0 is all ones whatever the sign of x (as the GPU gives); x % 0 is x;
 * MIN / -1 is MIN and MIN % -1 is 0 (wrapping, not trapping). */
uint64_t ptx_int_divrem(uint64_t a, uint64_t b, int bits, bool sgn, bool rem);

/* fns: the position of the |offset|-th set bit of mask walking up (offset
 * > 0) or down (< 0) from base, base itself when offset is 0 and its bit is
 * set; 0xffffffff when there is none or base > 31. */
uint32_t ptx_fns(uint32_t mask, uint32_t base, int32_t offset);
/* What `set` writes for true into its destination type: 1.0 of a float
 * type (f32, f16, bf16), all ones of an integer one; false is 0. */
uint64_t ptx_set_true(ptx_type dtype);

/* The lane a `shfl` reads for lane `lane`, with b the lane operand and c the
 * packed clamp / segment mask operand; *in_range is false when the source
 * lies outside the segment, in which case the lane keeps its own value. */
int ptx_shfl_source(ptx_shfl_mode mode, int lane, uint32_t b, uint32_t c, bool *in_range);

/* What a thread of a launch sees in a special register that does not
 * depend on time: the engines fill the view from their launch (the
 * emulator from the spec and its device profile, the symbolic executor
 * from its one block of X threads). */
typedef struct {
    uint32_t tid[3], ntid[3], ctaid[3], nctaid[3];
    uint32_t warpid;        /* warp of the thread in its block */
    uint32_t nwarpid;       /* warp slots of an SM */
    uint32_t smid, nsmid;
    uint64_t gridid;
    uint64_t dynamic_smem, total_smem;
} ptx_thread_view;

/* The value of special register `s` (component `comp`, -1 when none);
 * false for the registers that depend on time (%clock*, %globaltimer*),
 * which each engine models on its own. */
bool ptx_sreg_value(const ptx_thread_view *v, ptx_sreg s, int comp, uint64_t *out);

/* Width of a special register: 64 for %gridid, %clock64 and %globaltimer, else 32. */
int ptx_sreg_bits(ptx_sreg s);

/* The generic address map: global region r (the spec's buffers in order,
 * then the module's .global variables) starts at PTX_ADDR_GLOBAL +
 * (r << PTX_ADDR_REGION_SHIFT); shared, local and const memory appear in
 * windows of PTX_ADDR_WINDOW bytes.  (The symbolic executor gives each of
 * its X threads its own local window, PTX_ADDR_LOCAL + t * PTX_ADDR_WINDOW,
 * so it can tell their memories apart; the sim, like the GPU, shows every
 * thread its own memory at the same addresses.) */
#define PTX_ADDR_SHARED 0x0000100000000000ull
#define PTX_ADDR_LOCAL  0x0000200000000000ull
#define PTX_ADDR_CONST  0x0000300000000000ull
#define PTX_ADDR_WINDOW 0x0000000100000000ull
#define PTX_ADDR_GLOBAL 0x00007f0000000000ull
#define PTX_ADDR_REGION_SHIFT 36
/* The address of function k (`mov.u64 %rd, f;`, a table of function
 * pointers), what an indirect call jumps through: PTX_ADDR_FUNC + 16 k. */
#define PTX_ADDR_FUNC   0x0000400000000000ull
#define PTX_ADDR_FUNC_STRIDE 16

/* The value a texture object parameter holds in both engines: the spec
 * parameter's index past PTX_ADDR_TEXTURE, an address no memory answers,
 * so only `tex` can use it (the GPU's handles are opaque too). */
#define PTX_ADDR_TEXTURE 0x0000500000000000ull

/* The generic addresses of the kernel's parameters (`cvta.param`, what a
 * __grid_constant__ parameter's address is): PTX_ADDR_PARAM + the
 * parameter's offset, read-only. */
#define PTX_ADDR_PARAM  0x0000600000000000ull

/* ---- Tensor maps (tensor_map.c): what a cp.async.bulk.tensor copy moves, for both engines */

/* A CUtensorMap parameter's bytes (passed by value). */
#define PTX_TMAP_BYTES 128
/* The shared-memory alignment of a tensor copy's box. */
#define PTX_TMAP_SMEM_ALIGN 128

/* A tensor map at one launch: the spec's description with its dimensions
 * evaluated (README, "Tensor maps"). */
typedef struct {
    int rank;
    int64_t dims[WH_TMAP_MAX_RANK];     /* unused dimensions are 1 */
    int box[WH_TMAP_MAX_RANK];          /* unused dimensions are 1 */
    int elem_bytes;
    int type;                           /* wh_type of the elements */
    int swizzle;                        /* wh_swizzle */
    bool oob_nan;
} ptx_tensor_map;

/* Tensor map parameter p of the spec at a launch (vars: wh_spec_vars);
 * false, with cuTensorMapEncodeTiled's reason, when the driver would
 * refuse it (a dimension out of 1..2^32, a row not a multiple of 16 bytes,
 * a stride past 2^40). */
bool ptx_tmap_make(const wh_spec *spec, int p, const int64_t *vars, ptx_tensor_map *t, wh_error *err);
/* The elements and bytes of one box. */
uint32_t ptx_tmap_box_elems(const ptx_tensor_map *t);
uint32_t ptx_tmap_box_bytes(const ptx_tensor_map *t);
/* Element k of the box at coordinates c (signed, one per dimension; box
 * order: dimension 0 fastest): its index in the tensor, or -1 outside it
 * (a load reads the fill, a store writes nothing). */
int64_t ptx_tmap_elem(const ptx_tensor_map *t, const int32_t *c, uint32_t k);
/* The shared-memory offset of element k of a box whose first byte is at
 * shared offset `base`: packed in box order, then swizzled (16-byte chunk
 * j of a 2^s x 16-byte span XORed with the span's row, address bits 7
 * and up, s = 1, 2, 3 for 32B, 64B, 128B; decided from CUTLASS's
 * layouts, not compared with a GPU). */
uint64_t ptx_tmap_smem(const ptx_tensor_map *t, uint64_t base, uint32_t k);
/* The bytes an element outside the tensor reads (0, or a quiet NaN). */
void ptx_tmap_fill(const ptx_tensor_map *t, uint8_t *out);

/* ---- mbarrier objects (mbarrier.c): their bytes and transitions, for both engines */

/* The object's operand is ops[0] for init, inval, expect_tx and
 * complete_tx, ops[1] otherwise (pending_count has none). */
int ptx_mbar_addr_operand(const ptx_instr *in);
/* The object mbarrier.init makes for `count` arrivals a phase. */
uint64_t ptx_mbar_init(uint64_t count);
/* mode and flags are the instruction's (ptx_instr's, or a decoded copy).
 * An arrival (arrive, arrive_drop: arg = the arrival count, or with
 * .expect_tx the transaction bytes and one arrival), expect_tx or
 * complete_tx (arg = the transaction bytes) applied to obj: *out the new
 * object, *completed whether a phase completed; NULL, or what makes it a
 * fault (more arrivals than the phase waits for, a transaction count out
 * of range). */
const char *ptx_mbar_apply(int mode, uint32_t flags, uint64_t obj, uint64_t arg, uint64_t *out, bool *completed);
/* test_wait / try_wait: has the phase of `token` (or with .parity, of
 * parity `token & 1`) completed on obj? */
bool ptx_mbar_phase_done(uint32_t flags, uint64_t obj, uint64_t token);
/* pending_count: the arrivals a state token's phase was still waiting for. */
uint32_t ptx_mbar_pending(uint64_t token);

/* ---- Textures (texture.c): what a `tex` fetch reads, for both engines -- */

/* A texture at one launch: the spec's description with its dimensions
 * evaluated, and its texel format. */
typedef struct {
    int ndims;                  /* of one layer (a cubemap's faces: 2) */
    int64_t dims[3];            /* unused dimensions are 1 */
    int64_t layers;             /* a layered texture's layers (of 6 faces for a cubemap), else 0 */
    bool cube;                  /* a cubemap: 6 faces of dims[0] x dims[1] (equal) texels */
    int address[3];             /* wh_tex_address */
    bool filter_linear, normalized_coords, read_normalized, linear_memory;
    bool surface;               /* a surface object (suld/sust), not a texture */
    bool gather;                /* a CUDA array made for tld4 (cudaArrayTextureGather) */
    int channels;               /* 1, 2 or 4 */
    int chan_bytes;             /* 1, 2 or 4 */
    bool chan_float, chan_signed;
    int texel_bytes;
    int levels;                 /* a mipmapped array's levels, else 1 */
    bool mip_linear;            /* mipmap filter: the two nearest levels, weighted, else the nearest */
    int64_t level_base[WH_TEX_MAX_LEVELS];   /* level k's first texel (the levels one after another) */
} ptx_texture;

/* Texture object parameter p of the spec at a launch (vars: wh_spec_vars);
 * false when p is no texture or a dimension is not positive. */
bool ptx_texture_make(const wh_spec *spec, int p, const int64_t *vars, ptx_texture *t, wh_error *err);

/* One texel a fetch reads: its index in the texel array (x fastest), or -1
 * for a place outside the texture that reads 0 (border), and its weight. */
typedef struct {
    int64_t index;
    float weight;
} ptx_tex_tap;
#define PTX_TEX_MAX_TAPS 16   /* trilinear filtering (8) at two mipmap levels */

/* The geometry a texture's fetches take (ptx_tex_geom): its dimensions,
 * .a1d/.a2d when layered, .cube/.acube for a cubemap (a cubemap surface's
 * accesses are .a2d, the face their layer); of a texture or surface of
 * ndims dimensions per layer, layered or not, a cubemap or not; and the
 * geometry's name ("1d" ... "acube"). */
int ptx_tex_geometry(const ptx_texture *t);
int ptx_tex_geometry_of(int ndims, bool layered, bool cube, bool surface);
const char *ptx_tex_geom_name(int g);
/* The dimensions per layer of geometry g (a cubemap's faces: 2). */
int ptx_tex_geom_dims(int g);
/* Is geometry g layered (.a1d, .a2d, .acube: its first coordinate the u32
 * layer)? */
bool ptx_tex_geom_layered(int g);
/* A texture's texels: its dimensions' product, times its layers, times 6
 * for a cubemap; of a mipmapped one, the sum over its levels. */
int64_t ptx_tex_texels(const ptx_texture *t);

/* Elements of the coordinate vector of geometry g (a .3d, .a2d or .cube
 * access passes four, the last ignored), and how many of them it uses. */
int ptx_tex_coord_elems(int g);
int ptx_tex_coords_used(int g);

/* The texels a fetch at coordinates `coord` reads, in the order the
 * geometry's vector gives them (f32 bits, or s32 with int_coords: a texel
 * index, never filtered; a layered fetch's first coordinate is its u32
 * layer, clamped to the layers there are; a cubemap's are a direction,
 * whose major axis picks the face, as in the CUDA guide's table), in the
 * order their weighted values are summed.  Point sampling reads one texel,
 * weight 1; linear filtering 2, 4 or 8, with the CUDA guide's weights
 * quantized to 1/256.  Returns the number of taps. */
int ptx_tex_taps(const ptx_texture *t, bool int_coords, const uint32_t coord[4], ptx_tex_tap *taps);

/* Make t (of its dims) a mipmapped texture of `levels` levels (1: none)
 * with a nearest-level or linear mipmap filter, its levels' texels one
 * after another; false when the largest dimension halves to 1 in fewer. */
bool ptx_tex_set_levels(ptx_texture *t, int levels, bool mip_linear);

/* Level k of a mipmapped texture alone: its dimensions max(1, dim >> k),
 * one level; its texels start at t->level_base[k]. */
void ptx_tex_level(const ptx_texture *t, int k, ptx_texture *level);

/* The same at level of detail `lod` (tex.level; a plain tex reads at 0):
 * of a mipmapped texture, the level nearest lod (floor(lod + 0.5),
 * clamped to the levels there are; NaN: level 0) or, with a linear
 * mipmap filter, the two levels around lod (clamped to [0, levels - 1])
 * weighted by its fraction in 1/256 steps, the lower level's taps first;
 * a texture of one level ignores lod.  Decided here after OpenGL's rules
 * (CUDA does not say), not compared with a GPU. */
int ptx_tex_taps_lod(const ptx_texture *t, bool int_coords, const uint32_t coord[4], float lod, ptx_tex_tap *taps);

/* tex.grad's level of detail: log2 of the longer of the two gradients
 * (ddx, ddy: n = the texture's dimensions each) measured in level-0
 * texels (each component times its dimension); -inf for zero gradients.
 * Decided here (OpenGL's isotropic rule), not compared with a GPU. */
float ptx_tex_grad_lod(const ptx_texture *t, const float *ddx, const float *ddy);
/* The level of detail of a tex with n extra f32 operands: none (a plain
 * tex) 0, one (tex.level) that one, more (tex.grad: ddx's n/2 elements,
 * then ddy's) ptx_tex_grad_lod's. */
float ptx_tex_lod(const ptx_texture *t, const float *v, int n);

/* Channel c of one texel as the 32-bit value a fetch returns: an integer
 * sign- or zero-extended, an f32's bits, or with read_normalized an 8/16-bit
 * integer as an f32 in [0, 1] (unsigned: v / max) or [-1, 1] (signed: v /
 * max, the most negative value -1).  A channel the format lacks reads 0. */
uint32_t ptx_tex_channel(const ptx_texture *t, const uint8_t *texel, int c);

/* Where a surface access of `bytes` at coord = (x in bytes, y, z) lands
 * (a layered surface's: (layer, x, y)), as the byte offset *off in the
 * surface's texels (x fastest, then y, z, layer): PTX_SURF_IN; outside the
 * surface PTX_SURF_OUT (with clamp: the nearest place inside instead, *off
 * set and PTX_SURF_IN; the layer is one more coordinate under the boundary
 * mode, decided here: the ISA does not say); x not a multiple of the
 * access size (at most 16): PTX_SURF_MISALIGNED. */
typedef enum { PTX_SURF_IN, PTX_SURF_OUT, PTX_SURF_MISALIGNED } ptx_surf_place;
ptx_surf_place ptx_surf_offset(const ptx_texture *t, const uint32_t coord[4], int bytes, bool clamp, uint64_t *off);
/* The same for sust.p and sured.p, whose x is a sample (texel) index, not
 * a byte offset: the access is one whole texel, never misaligned. */
ptx_surf_place ptx_surf_sample_offset(const ptx_texture *t, const uint32_t coord[4], bool clamp, uint64_t *off);

/* sust.p: the texel that n 32-bit values (R, G, B, A in that order) make
 * in the surface's format: an f32 channel takes the value's bits, an
 * integer channel the value read as .s32 (signed channels) or .u32
 * (unsigned) saturated to the channel's range; channels the values lack
 * are written 0 (the ISA: unpredictable), values the texel lacks are
 * ignored.  Decided here, not compared with a GPU: the saturation. */
void ptx_surf_format_texel(const ptx_texture *t, const uint32_t *v, int n, uint8_t *texel);

/* sured.p of type ty (.b32, .b64): the type the reduction runs in (.u32 or
 * .s32 as the surface's samples are unsigned or signed, as the ISA says),
 * or PTX_T_NONE when the surface's samples are no single integer of that
 * width (the spec's surfaces have no 64-bit channel; decided here: such a
 * reduction faults). */
ptx_type ptx_surf_reduce_type(const ptx_texture *t, ptx_type ty);

/* The four values of a fetch that reads taps[0..n) (ptx_tex_taps): with
 * one tap its channels, else each channel's weighted sum (f32: acc = acc +
 * w * v from +0, in tap order).  texels: the whole texel array. */
void ptx_tex_fetch(const ptx_texture *t, const uint8_t *texels, const ptx_tex_tap *taps, int n, uint32_t out[4]);

/* The four texels tld4 reads at f32 coordinates coord[0..1] of a 2-D
 * texture: the bilinear footprint of linear filtering, whatever the
 * texture's filter mode, in the ISA's order (counter-clockwise from the
 * lower left: (x0, y1), (x1, y1), (x1, y0), (x0, y0)), each weight 1. */
void ptx_tex_gather_taps(const ptx_texture *t, const uint32_t coord[2], ptx_tex_tap taps[4]);

/* tld4's four values: component comp (0..3) of each tap's texel, as
 * ptx_tex_channel reads it (0 outside the texture). */
void ptx_tex_gather(const ptx_texture *t, const uint8_t *texels, const ptx_tex_tap taps[4], int comp,
                    uint32_t out[4]);

/* What txq (or suq, on a surface) answers for query q (ptx_tex_query):
 * dimensions in texels (0 for a dimension the texture lacks, as a CUDA
 * array descriptor says), normalized_coords 1 or 0, and the filter and
 * address modes as CUDA's enums number them (point 0, linear 1; wrap 0,
 * clamp 1, mirror 2, border 3). */
uint32_t ptx_tex_query_value(const ptx_texture *t, int q);

/* The state space a generic address falls in (isspacep, generic ld/st):
 * PTX_SPACE_SHARED, _LOCAL or _CONST inside their windows, else _GLOBAL. */
ptx_space ptx_generic_space(uint64_t addr);

/* The module memory map of an entry (memmap.c): reachable functions, the
 * module variables reachable code names, and every variable's offset in
 * its space's window, so both engines place memory alike. */
typedef struct {
    int nfuncs, nvars;
    bool *reachable;            /* per function: the entry or called from it (an indirect
                                   call may call any function whose address is taken) */
    bool *address_taken;        /* per function with a body: its address is an operand or
                                   an initializer's word somewhere in the module */
    bool recursive;             /* a reachable function calls itself */
    bool *referenced;           /* per module variable: named by reachable code */
    uint64_t *var_off;          /* per module variable: offset in its window
                                   (shared, const, local); .global: its index
                                   among the module's .global variables */
    uint64_t **fvar_off;        /* [func][var]: .shared variables of reachable
                                   functions, offset in the shared window */
    uint64_t static_shared;     /* bytes of static shared memory */
    uint64_t dyn_shared_off;    /* where dynamic (extern) shared memory starts */
    uint64_t const_bytes;       /* the const bank */
    uint64_t module_local;      /* module .local bytes, 16-aligned */
    int nglobal;                /* .global module variables */
} ptx_memmap;

void ptx_memmap_build(const ptx_module *m, int entry, ptx_memmap *mm);
void ptx_memmap_free(ptx_memmap *mm);
/* A variable's bytes (0 for an unsized/dynamic array). */
uint64_t ptx_var_bytes(const ptx_var *v);

/* The launch identifier both engines report in %gridid, and the device
 * counts of the default profile (an A100-like part), which the
 * symbolic executor assumes for %nsmid and %nwarpid. */
#define PTX_GRIDID 1
#define PTX_DEFAULT_NSMID 108
#define PTX_DEFAULT_NWARPID 64

#endif

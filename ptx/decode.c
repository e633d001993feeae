/*
 * decode.c — the generic form of an instruction -> its decoded form.
 *
 * Maps the opcode text and modifiers to the opcode enum, types, state
 * space, rounding, comparison, boolean and atomic operations, memory
 * semantics and scope, per-opcode modes and flags; checks the operand count
 * and the operand kinds that an executor relies on (addresses of ld/st/atom,
 * vector widths, call lists).  Modifiers that do not change the value
 * computed (cache operators, eviction priorities, ...) are ignored here and
 * stay in the generic form.  Unknown opcodes decode to PTX_OP_UNKNOWN and are
 * not checked.
 */
#include "ptx/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    ptx_opcode op;
    signed char min_ops, max_ops;  /* top-level operands, pair member included */
    bool has_dest;                 /* ops[0] is written */
} op_info;

static const op_info op_table[] = {
    { "mov", PTX_OP_MOV, 2, 2, true },
    { "ld", PTX_OP_LD, 2, 3, true },
    { "ldu", PTX_OP_LDU, 2, 2, true },
    { "st", PTX_OP_ST, 2, 3, false },
    { "cvta", PTX_OP_CVTA, 2, 2, true },
    { "cvt", PTX_OP_CVT, 2, 4, true },
    { "prefetch", PTX_OP_PREFETCH, 1, 1, false },
    { "prefetchu", PTX_OP_PREFETCHU, 1, 1, false },
    { "isspacep", PTX_OP_ISSPACEP, 2, 2, true },
    { "mapa", PTX_OP_MAPA, 3, 3, true },
    { "alloca", PTX_OP_ALLOCA, 2, 3, true },
    { "stacksave", PTX_OP_STACKSAVE, 1, 1, true },
    { "stackrestore", PTX_OP_STACKRESTORE, 1, 1, false },
    { "add", PTX_OP_ADD, 3, 3, true },
    { "sub", PTX_OP_SUB, 3, 3, true },
    { "addc", PTX_OP_ADDC, 3, 3, true },
    { "subc", PTX_OP_SUBC, 3, 3, true },
    { "mul", PTX_OP_MUL, 3, 3, true },
    { "mad", PTX_OP_MAD, 4, 4, true },
    { "madc", PTX_OP_MADC, 4, 4, true },
    { "mul24", PTX_OP_MUL24, 3, 3, true },
    { "mad24", PTX_OP_MAD24, 4, 4, true },
    { "sad", PTX_OP_SAD, 4, 4, true },
    { "fma", PTX_OP_FMA, 4, 4, true },
    { "div", PTX_OP_DIV, 3, 3, true },
    { "rem", PTX_OP_REM, 3, 3, true },
    { "abs", PTX_OP_ABS, 2, 2, true },
    { "neg", PTX_OP_NEG, 2, 2, true },
    { "min", PTX_OP_MIN, 3, 4, true },
    { "max", PTX_OP_MAX, 3, 4, true },
    { "popc", PTX_OP_POPC, 2, 2, true },
    { "clz", PTX_OP_CLZ, 2, 2, true },
    { "bfind", PTX_OP_BFIND, 2, 2, true },
    { "fns", PTX_OP_FNS, 4, 4, true },
    { "brev", PTX_OP_BREV, 2, 2, true },
    { "bfe", PTX_OP_BFE, 4, 4, true },
    { "bfi", PTX_OP_BFI, 5, 5, true },
    { "bmsk", PTX_OP_BMSK, 3, 3, true },
    { "szext", PTX_OP_SZEXT, 3, 3, true },
    { "dp4a", PTX_OP_DP4A, 4, 4, true },
    { "dp2a", PTX_OP_DP2A, 4, 4, true },
    { "copysign", PTX_OP_COPYSIGN, 3, 3, true },
    { "rcp", PTX_OP_RCP, 2, 2, true },
    { "sqrt", PTX_OP_SQRT, 2, 2, true },
    { "rsqrt", PTX_OP_RSQRT, 2, 2, true },
    { "sin", PTX_OP_SIN, 2, 2, true },
    { "cos", PTX_OP_COS, 2, 2, true },
    { "lg2", PTX_OP_LG2, 2, 2, true },
    { "ex2", PTX_OP_EX2, 2, 2, true },
    { "tanh", PTX_OP_TANH, 2, 2, true },
    { "testp", PTX_OP_TESTP, 2, 2, true },
    { "and", PTX_OP_AND, 3, 3, true },
    { "or", PTX_OP_OR, 3, 3, true },
    { "xor", PTX_OP_XOR, 3, 3, true },
    { "not", PTX_OP_NOT, 2, 2, true },
    { "cnot", PTX_OP_CNOT, 2, 2, true },
    { "lop3", PTX_OP_LOP3, 5, 7, true },
    { "shl", PTX_OP_SHL, 3, 3, true },
    { "shr", PTX_OP_SHR, 3, 3, true },
    { "shf", PTX_OP_SHF, 4, 4, true },
    { "prmt", PTX_OP_PRMT, 4, 4, true },
    { "setp", PTX_OP_SETP, 3, 5, true },
    { "set", PTX_OP_SET, 3, 4, true },
    { "selp", PTX_OP_SELP, 4, 4, true },
    { "slct", PTX_OP_SLCT, 4, 4, true },
    { "bra", PTX_OP_BRA, 1, 1, false },
    { "brx", PTX_OP_BRX, 2, 2, false },
    { "call", PTX_OP_CALL, 1, 4, false },
    { "ret", PTX_OP_RET, 0, 0, false },
    { "exit", PTX_OP_EXIT, 0, 0, false },
    { "bar", PTX_OP_BAR, 0, 4, false },
    { "barrier", PTX_OP_BAR, 0, 4, false },
    { "membar", PTX_OP_MEMBAR, 0, 0, false },
    { "fence", PTX_OP_FENCE, 0, 0, false },
    { "atom", PTX_OP_ATOM, 3, 5, true },
    { "red", PTX_OP_RED, 2, 3, false },
    { "shfl", PTX_OP_SHFL, 4, 6, true },
    { "vote", PTX_OP_VOTE, 3, 4, true },
    { "match", PTX_OP_MATCH, 3, 4, true },
    { "activemask", PTX_OP_ACTIVEMASK, 1, 1, true },
    { "redux", PTX_OP_REDUX, 3, 3, true },
    { "elect", PTX_OP_ELECT, 2, 3, true },
    { "nanosleep", PTX_OP_NANOSLEEP, 1, 1, false },
    { "trap", PTX_OP_TRAP, 0, 0, false },
    { "brkpt", PTX_OP_BRKPT, 0, 0, false },
    { "pmevent", PTX_OP_PMEVENT, 1, 1, false },
    { "cp", PTX_OP_CP_ASYNC, 0, 6, false },
};

#define STREQ(a, b) (!strcmp((a), (b)))

/* ---- lookup tables (sorted once, searched by bisection) ---------------- */

/* Every meaning a modifier word can have; which one applies depends on the
 * opcode (`lo` is a comparison of setp but a mode of mul, `and` a boolean
 * operation of setp but an atomic operation of atom, ...). */
typedef struct {
    const char *name;
    unsigned char type, vec, space, rnd, cmp, boolop, aop, sem, scope;
    unsigned char shfl, vote, match, bar, testp, prmt, cp, shf;
    uint32_t flag;
} word;

static word words[] = {
    /* types */
    { "pred", .type = PTX_T_PRED }, { "b8", .type = PTX_T_B8 }, { "b16", .type = PTX_T_B16 },
    { "b32", .type = PTX_T_B32 }, { "b64", .type = PTX_T_B64 }, { "b128", .type = PTX_T_B128 },
    { "u8", .type = PTX_T_U8 }, { "u16", .type = PTX_T_U16 }, { "u32", .type = PTX_T_U32 },
    { "u64", .type = PTX_T_U64 }, { "s8", .type = PTX_T_S8 }, { "s16", .type = PTX_T_S16 },
    { "s32", .type = PTX_T_S32 }, { "s64", .type = PTX_T_S64 }, { "f16", .type = PTX_T_F16 },
    { "f16x2", .type = PTX_T_F16X2 }, { "bf16", .type = PTX_T_BF16 }, { "bf16x2", .type = PTX_T_BF16X2 },
    { "tf32", .type = PTX_T_TF32 }, { "f32", .type = PTX_T_F32 }, { "f64", .type = PTX_T_F64 },
    /* vectors */
    { "v2", .vec = 2 }, { "v4", .vec = 4 }, { "v8", .vec = 8 },
    /* state spaces */
    { "global", .space = PTX_SPACE_GLOBAL }, { "shared", .space = PTX_SPACE_SHARED },
    { "shared::cta", .space = PTX_SPACE_SHARED }, { "shared::cluster", .space = PTX_SPACE_SHARED_CLUSTER },
    { "local", .space = PTX_SPACE_LOCAL }, { "const", .space = PTX_SPACE_CONST },
    { "param", .space = PTX_SPACE_PARAM }, { "param::entry", .space = PTX_SPACE_PARAM },
    { "param::func", .space = PTX_SPACE_PARAM },
    /* rounding */
    { "rn", .rnd = PTX_RND_RN }, { "rz", .rnd = PTX_RND_RZ }, { "rm", .rnd = PTX_RND_RM },
    { "rp", .rnd = PTX_RND_RP }, { "rna", .rnd = PTX_RND_RNA }, { "rs", .rnd = PTX_RND_RS },
    { "rni", .rnd = PTX_RND_RNI }, { "rzi", .rnd = PTX_RND_RZI }, { "rmi", .rnd = PTX_RND_RMI },
    { "rpi", .rnd = PTX_RND_RPI },
    /* comparisons (lo / hi are also modes of mul/mad) */
    { "eq", .cmp = PTX_CMP_EQ }, { "ne", .cmp = PTX_CMP_NE }, { "lt", .cmp = PTX_CMP_LT },
    { "le", .cmp = PTX_CMP_LE }, { "gt", .cmp = PTX_CMP_GT }, { "ge", .cmp = PTX_CMP_GE },
    { "lo", .cmp = PTX_CMP_LO, .flag = PTX_F_LO }, { "ls", .cmp = PTX_CMP_LS },
    { "hi", .cmp = PTX_CMP_HI, .flag = PTX_F_HI }, { "hs", .cmp = PTX_CMP_HS },
    { "equ", .cmp = PTX_CMP_EQU }, { "neu", .cmp = PTX_CMP_NEU }, { "ltu", .cmp = PTX_CMP_LTU },
    { "leu", .cmp = PTX_CMP_LEU }, { "gtu", .cmp = PTX_CMP_GTU }, { "geu", .cmp = PTX_CMP_GEU },
    { "num", .cmp = PTX_CMP_NUM }, { "nan", .cmp = PTX_CMP_NAN },
    /* boolean / atomic operations */
    { "and", .boolop = PTX_BOOL_AND, .aop = PTX_AOP_AND }, { "or", .boolop = PTX_BOOL_OR, .aop = PTX_AOP_OR },
    { "xor", .boolop = PTX_BOOL_XOR, .aop = PTX_AOP_XOR }, { "add", .aop = PTX_AOP_ADD },
    { "inc", .aop = PTX_AOP_INC }, { "dec", .aop = PTX_AOP_DEC }, { "min", .aop = PTX_AOP_MIN },
    { "max", .aop = PTX_AOP_MAX }, { "exch", .aop = PTX_AOP_EXCH }, { "cas", .aop = PTX_AOP_CAS },
    { "popc", .aop = PTX_AOP_POPC },
    /* memory semantics and scopes */
    { "weak", .sem = PTX_SEM_WEAK }, { "volatile", .sem = PTX_SEM_VOLATILE, .flag = PTX_F_VOLATILE },
    { "relaxed", .sem = PTX_SEM_RELAXED }, { "acquire", .sem = PTX_SEM_ACQUIRE },
    { "release", .sem = PTX_SEM_RELEASE }, { "acq_rel", .sem = PTX_SEM_ACQ_REL }, { "sc", .sem = PTX_SEM_SC },
    { "cta", .scope = PTX_SCOPE_CTA }, { "cluster", .scope = PTX_SCOPE_CLUSTER },
    { "gpu", .scope = PTX_SCOPE_GPU }, { "gl", .scope = PTX_SCOPE_GPU }, { "sys", .scope = PTX_SCOPE_SYS },
    /* per-opcode modes */
    { "up", .shfl = PTX_SHFL_UP }, { "down", .shfl = PTX_SHFL_DOWN }, { "bfly", .shfl = PTX_SHFL_BFLY },
    { "idx", .shfl = PTX_SHFL_IDX },
    { "all", .vote = PTX_VOTE_ALL, .match = PTX_MATCH_ALL }, { "any", .vote = PTX_VOTE_ANY, .match = PTX_MATCH_ANY },
    { "uni", .vote = PTX_VOTE_UNI, .flag = PTX_F_UNI }, { "ballot", .vote = PTX_VOTE_BALLOT },
    { "sync", .bar = PTX_BAR_SYNC, .flag = PTX_F_SYNC }, { "arrive", .bar = PTX_BAR_ARRIVE },
    { "red", .bar = PTX_BAR_RED },
    { "finite", .testp = PTX_TESTP_FINITE }, { "infinite", .testp = PTX_TESTP_INFINITE },
    { "number", .testp = PTX_TESTP_NUMBER }, { "notanumber", .testp = PTX_TESTP_NOTANUMBER },
    { "normal", .testp = PTX_TESTP_NORMAL }, { "subnormal", .testp = PTX_TESTP_SUBNORMAL },
    { "f4e", .prmt = PTX_PRMT_F4E }, { "b4e", .prmt = PTX_PRMT_B4E }, { "rc8", .prmt = PTX_PRMT_RC8 },
    { "ecl", .prmt = PTX_PRMT_ECL }, { "ecr", .prmt = PTX_PRMT_ECR }, { "rc16", .prmt = PTX_PRMT_RC16 },
    { "commit_group", .cp = PTX_CP_COMMIT_GROUP }, { "wait_group", .cp = PTX_CP_WAIT_GROUP },
    { "wait_all", .cp = PTX_CP_WAIT_ALL },
    { "l", .shf = 1 }, { "r", .shf = 2 },
    /* flags */
    { "approx", .flag = PTX_F_APPROX }, { "ftz", .flag = PTX_F_FTZ }, { "sat", .flag = PTX_F_SAT },
    { "satfinite", .flag = PTX_F_SAT }, { "full", .flag = PTX_F_FULL }, { "wide", .flag = PTX_F_WIDE },
    { "aligned", .flag = PTX_F_ALIGNED }, { "cc", .flag = PTX_F_CC }, { "nc", .flag = PTX_F_NC },
    { "to", .flag = PTX_F_TO }, { "shiftamt", .flag = PTX_F_SHIFTAMT }, { "NaN", .flag = PTX_F_NAN },
    { "xorsign", .flag = PTX_F_XORSIGN }, { "abs", .flag = PTX_F_ABS }, { "relu", .flag = PTX_F_RELU },
    { "clamp", .flag = PTX_F_CLAMP }, { "wrap", .flag = PTX_F_WRAP }, { "noftz", .flag = PTX_F_NOFTZ },
};

static op_info ops_sorted[sizeof op_table / sizeof op_table[0]];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static int cmp_word(const void *a, const void *b)
{
    return strcmp(((const word *)a)->name, ((const word *)b)->name);
}

static int cmp_op(const void *a, const void *b)
{
    return strcmp(((const op_info *)a)->name, ((const op_info *)b)->name);
}

static void sort_tables(void)
{
    qsort(words, sizeof words / sizeof words[0], sizeof(word), cmp_word);
    memcpy(ops_sorted, op_table, sizeof op_table);
    qsort(ops_sorted, sizeof ops_sorted / sizeof ops_sorted[0], sizeof(op_info), cmp_op);
}

static const word *find_word(const char *name)
{
    word key = { .name = name };
    return bsearch(&key, words, sizeof words / sizeof words[0], sizeof(word), cmp_word);
}

static const op_info *find_op(const char *name)
{
    op_info key = { .name = name };
    return bsearch(&key, ops_sorted, sizeof ops_sorted / sizeof ops_sorted[0], sizeof(op_info), cmp_op);
}

/* Opcode-specific meaning of a modifier: returns true when it was used. */
static bool op_mode(ptx_instr *ins, const word *w)
{
    switch (ins->op) {
    case PTX_OP_SETP:
    case PTX_OP_SET:
        if (w->cmp && ins->cmp == PTX_CMP_NONE) {
            ins->cmp = (ptx_cmp)w->cmp;
            return true;
        }
        if (w->boolop) {
            ins->boolop = (ptx_boolop)w->boolop;
            return true;
        }
        return false;
    case PTX_OP_ATOM:
    case PTX_OP_RED:
    case PTX_OP_REDUX:
        if (w->aop && w->aop != PTX_AOP_POPC) {
            ins->aop = (ptx_atomop)w->aop;
            return true;
        }
        return false;
    case PTX_OP_BAR:
        if (w->bar) {
            ins->mode = w->bar;
            return true;
        }
        if (ins->mode == PTX_BAR_RED && (w->aop == PTX_AOP_POPC || w->aop == PTX_AOP_AND || w->aop == PTX_AOP_OR)) {
            ins->aop = (ptx_atomop)w->aop;
            return true;
        }
        return false;
    case PTX_OP_SHFL:
        if (w->shfl) ins->mode = w->shfl;
        return w->shfl != 0;
    case PTX_OP_VOTE:
        if (w->vote) ins->mode = w->vote;
        return w->vote != 0;
    case PTX_OP_MATCH:
        if (w->match) ins->mode = w->match;
        return w->match != 0;
    case PTX_OP_TESTP:
        if (w->testp) ins->mode = w->testp;
        return w->testp != 0;
    case PTX_OP_PRMT:
        if (w->prmt) ins->mode = w->prmt;
        return w->prmt != 0;
    case PTX_OP_SHF:
        if (w->shf) ins->flags |= w->shf == 1 ? PTX_F_LEFT : PTX_F_RIGHT;
        return w->shf != 0;
    case PTX_OP_CP_ASYNC:
        if (w->cp) ins->mode = w->cp;
        return w->cp != 0;
    default:
        return false;
    }
}

static bool fail(wh_error *err, const char *file, const ptx_instr *ins, int col, const char *fmt, const char *a,
                 long b, long c)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a, b, c);
    wh_error_set(err, WH_ERR_USER, file, ins->line, col ? col : ins->col, "%s", msg);
    return false;
}

static bool is_dest_kind(ptx_operand_kind k)
{
    return k == PTX_OPD_REG || k == PTX_OPD_VEC || k == PTX_OPD_SINK;
}

/* Operand k, a register, must be (want) or must not be a .pred register:
 * the engines keep predicates apart from other registers, so a mismatch
 * would make them read or write the wrong register file. */
static bool pred_operand(const ptx_function *f, const ptx_instr *ins, int k, bool want, const char *file,
                         wh_error *err)
{
    if (k < 0 || k >= ins->nops) return true;
    const ptx_operand *o = &ins->ops[k];
    if (o->kind != PTX_OPD_REG || o->reg < 0 || o->reg >= f->nregs) return true;
    const ptx_reg *r = &f->regs[o->reg];
    if ((r->type == PTX_T_PRED) == want) return true;
    char msg[256];
    snprintf(msg, sizeof msg, "operand %d of '%s' (%s) is a .%s register; expected %s", k + 1, ins->opcode, r->name,
             ptx_type_name(r->type), want ? "a .pred register" : "a register of a data type, not .pred");
    wh_error_set(err, WH_ERR_USER, file, ins->line, o->col ? o->col : ins->col, "%s", msg);
    return false;
}

/* Where predicates go: setp writes them (and takes one with a boolean
 * operation), selp and set take one, and the .pred forms of the logic
 * instructions and mov take nothing else. */
static bool check_predicates(const ptx_function *f, const ptx_instr *ins, const char *file, wh_error *err)
{
    int n = ins->nops;
    switch (ins->op) {
    case PTX_OP_SETP:
        return pred_operand(f, ins, 0, true, file, err) &&
               (!(ins->flags & PTX_F_PAIR) || pred_operand(f, ins, 1, true, file, err)) &&
               (ins->boolop == PTX_BOOL_NONE || pred_operand(f, ins, n - 1, true, file, err));
    case PTX_OP_SELP:
        return pred_operand(f, ins, 0, false, file, err) && pred_operand(f, ins, 3, true, file, err);
    case PTX_OP_SET:
        return pred_operand(f, ins, 0, false, file, err) &&
               (ins->boolop == PTX_BOOL_NONE || pred_operand(f, ins, n - 1, true, file, err));
    case PTX_OP_AND: case PTX_OP_OR: case PTX_OP_XOR: case PTX_OP_NOT: case PTX_OP_CNOT: case PTX_OP_MOV:
        for (int k = 0; k < n; k++)
            if (ins->type == PTX_T_PRED && !pred_operand(f, ins, k, true, file, err)) return false;
        return true;
    default:
        return true;
    }
}

bool ptx_decode_instr(const ptx_module *m, ptx_function *f, ptx_instr *ins, const char *file, wh_error *err)
{
    pthread_once(&tables_once, sort_tables);
    const op_info *oi = find_op(ins->opcode);
    ins->op = oi ? oi->op : PTX_OP_UNKNOWN;
    ins->vec = 1;
    int first_mod = 0;
    /* compound opcodes */
    if (ins->op == PTX_OP_BAR && ins->nmods > 0 && STREQ(ins->mods[0], "warp")) {
        ins->op = PTX_OP_BAR_WARP;
        ins->mode = PTX_BAR_SYNC;
        first_mod = 1;
    } else if (ins->op == PTX_OP_BAR) {
        for (int i = 0; i < ins->nmods; i++)
            if (STREQ(ins->mods[i], "cluster")) ins->op = PTX_OP_UNKNOWN; /* barrier.cluster */
        if (STREQ(ins->opcode, "bar")) ins->flags |= PTX_F_ALIGNED;
    } else if (ins->op == PTX_OP_CP_ASYNC) {
        if (ins->nmods > 0 && STREQ(ins->mods[0], "async") &&
            !(ins->nmods > 1 && (STREQ(ins->mods[1], "bulk") || STREQ(ins->mods[1], "mbarrier")))) {
            ins->mode = PTX_CP_COPY;
            first_mod = 1;
        } else {
            ins->op = PTX_OP_UNKNOWN;
        }
    } else if (ins->op == PTX_OP_BRX) {
        if (ins->nmods > 0 && STREQ(ins->mods[0], "idx")) first_mod = 1;
        else ins->op = PTX_OP_UNKNOWN;
    }
    if (ins->op == PTX_OP_UNKNOWN) return true; /* generic form only */

    int ntypes = 0;
    for (int i = first_mod; i < ins->nmods; i++) {
        const word *w = find_word(ins->mods[i]);
        if (!w) continue; /* cache operators, hints...: generic form only */
        if (op_mode(ins, w)) continue;
        if (w->type) {
            if (ntypes == 0) ins->type = (ptx_type)w->type;
            else if (ntypes == 1) ins->type2 = (ptx_type)w->type;
            ntypes++;
        } else if (w->vec) {
            ins->vec = w->vec;
        } else if (w->space) {
            if (ins->space == PTX_SPACE_GENERIC) ins->space = (ptx_space)w->space;
        } else if (w->rnd) {
            ins->rnd = (ptx_rnd)w->rnd;
        } else if (w->sem) {
            ins->sem = (ptx_sem)w->sem;
            ins->flags |= w->flag;
        } else if (w->scope) {
            if (ins->op != PTX_OP_BAR) ins->scope = (ptx_scope)w->scope;
        } else {
            ins->flags |= w->flag;
        }
    }

    /* operand checks */
    int nops = ins->nops;
    for (int i = 0; i < nops; i++) {
        if (ins->ops[i].pipe) {
            if (i != 1)
                return fail(err, file, ins, ins->ops[i].col, "bad operand list of '%s': '|' may only join the first two operands",
                            ins->opcode, 0, 0);
            ins->flags |= PTX_F_PAIR;
        }
    }
    if (nops < oi->min_ops || nops > oi->max_ops) {
        if (oi->min_ops == oi->max_ops)
            return fail(err, file, ins, 0, "wrong number of operands for '%s': expected %ld, got %ld", ins->opcode,
                        oi->min_ops, nops);
        return fail(err, file, ins, 0, "wrong number of operands for '%s': expected %ld or more, got %ld",
                    ins->opcode, oi->min_ops, nops);
    }
    if (oi->has_dest && nops > 0 && !is_dest_kind(ins->ops[0].kind) && ins->op != PTX_OP_CALL)
        return fail(err, file, ins, ins->ops[0].col, "bad destination operand of '%s': expected a register", ins->opcode, 0,
                    0);
    for (int i = 0; i < nops; i++) {
        const ptx_operand *o = &ins->ops[i];
        if (o->kind == PTX_OPD_LABEL && ins->op != PTX_OP_BRA && ins->op != PTX_OP_CALL && ins->op != PTX_OP_BRX)
            return fail(err, file, ins, o->col, "label '%s' used as an operand of '%s'", o->sym.name, 0, 0);
        if (o->kind == PTX_OPD_LIST && ins->op != PTX_OP_CALL)
            return fail(err, file, ins, o->col, "bad operand list of '%s': unexpected '('", ins->opcode, 0, 0);
    }

    switch (ins->op) {
    case PTX_OP_LD:
    case PTX_OP_LDU:
        if (ins->ops[1].kind != PTX_OPD_ADDR)
            return fail(err, file, ins, ins->ops[1].col, "'%s' needs an address [..] as its second operand", ins->opcode, 0, 0);
        if (ins->vec > 1 && (ins->ops[0].kind != PTX_OPD_VEC || ins->ops[0].nelems != ins->vec))
            return fail(err, file, ins, ins->ops[0].col, "bad vector operand of '%s': expected %ld elements", ins->opcode,
                        ins->vec, 0);
        break;
    case PTX_OP_ST:
        if (ins->ops[0].kind != PTX_OPD_ADDR)
            return fail(err, file, ins, ins->ops[0].col, "'%s' needs an address [..] as its first operand", ins->opcode, 0, 0);
        if (ins->vec > 1 && (ins->ops[1].kind != PTX_OPD_VEC || ins->ops[1].nelems != ins->vec))
            return fail(err, file, ins, ins->ops[1].col, "bad vector operand of '%s': expected %ld elements", ins->opcode,
                        ins->vec, 0);
        break;
    case PTX_OP_ATOM:
        if (ins->ops[1].kind != PTX_OPD_ADDR)
            return fail(err, file, ins, ins->ops[1].col, "'%s' needs an address [..] as its second operand", ins->opcode, 0, 0);
        break;
    case PTX_OP_RED:
        if (ins->ops[0].kind != PTX_OPD_ADDR)
            return fail(err, file, ins, ins->ops[0].col, "'%s' needs an address [..] as its first operand", ins->opcode, 0, 0);
        break;
    case PTX_OP_PREFETCH:
    case PTX_OP_PREFETCHU:
        if (ins->ops[0].kind != PTX_OPD_ADDR)
            return fail(err, file, ins, ins->ops[0].col, "'%s' needs an address [..]", ins->opcode, 0, 0);
        break;
    case PTX_OP_BRA:
        if (ins->ops[0].kind != PTX_OPD_LABEL)
            return fail(err, file, ins, ins->ops[0].col, "'%s' needs a label", ins->opcode, 0, 0);
        ins->target_label = ins->ops[0].label;
        ins->target_instr = ins->ops[0].label_instr;
        break;
    case PTX_OP_BRX:
        if (ins->ops[1].kind != PTX_OPD_SYMBOL || ins->ops[1].sym.kind != PTX_SYM_BRANCHTARGETS)
            return fail(err, file, ins, ins->ops[1].col, "'%s' needs a .branchtargets list as its second operand",
                        ins->opcode, 0, 0);
        break;
    case PTX_OP_CALL: {
        int k = 0;
        if (ins->ops[0].kind == PTX_OPD_LIST) {
            ins->call_rets = ins->ops[0].elems;
            ins->ncall_rets = ins->ops[0].nelems;
            k = 1;
        }
        if (k >= nops)
            return fail(err, file, ins, 0, "bad operand list of '%s': missing the function", ins->opcode, 0, 0);
        const ptx_operand *t = &ins->ops[k];
        if (t->kind == PTX_OPD_SYMBOL && t->sym.kind == PTX_SYM_FUNC) {
            ins->callee = t->sym.index;
        } else if (t->kind != PTX_OPD_REG) {
            return fail(err, file, ins, t->col, "call target '%s' is not a function",
                        t->sym.name ? t->sym.name : "?", 0, 0);
        }
        k++;
        if (k < nops && ins->ops[k].kind == PTX_OPD_LIST) {
            ins->call_args = ins->ops[k].elems;
            ins->ncall_args = ins->ops[k].nelems;
            k++;
        }
        if (k < nops && t->kind == PTX_OPD_REG &&
            (ins->ops[k].kind == PTX_OPD_LABEL || ins->ops[k].kind == PTX_OPD_SYMBOL))
            k++; /* prototype / call targets of an indirect call */
        if (k != nops)
            return fail(err, file, ins, ins->ops[k].col, "bad operand list of '%s': unexpected operand %ld", ins->opcode,
                        k + 1, 0);
        if (ins->callee >= 0) {
            const ptx_function *cf = &m->funcs[ins->callee];
            if (ins->ncall_args != cf->nparams || ins->ncall_rets != cf->nrets)
                return fail(err, file, ins, 0, "call of '%s' with %ld argument(s) and %ld return value(s) does not match its declaration",
                            cf->name, ins->ncall_args, ins->ncall_rets);
        }
        break;
    }
    case PTX_OP_SETP:
        if (ins->cmp == PTX_CMP_NONE)
            return fail(err, file, ins, 0, "'setp' without a comparison operator", NULL, 0, 0);
        break;
    default:
        break;
    }
    return check_predicates(f, ins, file, err);
}

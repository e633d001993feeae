/*
 * decode.c — the generic form of an instruction -> its decoded form.
 *
 * Maps the opcode text and modifiers to the opcode enum, types, state
 * space, rounding, comparison, boolean and atomic operations, memory
 * semantics and scope, per-opcode modes and flags; checks the operand count
 * and the operand kinds that an executor relies on (addresses of ld/st/atom,
 * vector widths, call lists) and each register operand's class, predicate or
 * data (the opcode table, opcodes.def); register widths and types are
 * typecheck.c's.  Modifiers that do not change the value computed (cache
 * operators, eviction priorities, ...) are ignored here and stay in the
 * generic form.  Unknown opcodes decode to PTX_OP_UNKNOWN and are
 * not checked.
 */
#include "ptx/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Keyword -> opcode row, sorted once and searched by bisection: the rows
 * of opcodes.def that have a keyword, plus the spellings that are not an
 * opcode's own name. */
typedef struct {
    const char *keyword;
    ptx_opcode op;
} op_key;

static const op_key aliases[] = {
    { "barrier", PTX_OP_BAR },
};

#define NKEYS (PTX_OP_COUNT + sizeof aliases / sizeof aliases[0])

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

static op_key keys[NKEYS];
static size_t nkeys;
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static int cmp_word(const void *a, const void *b)
{
    return strcmp(((const word *)a)->name, ((const word *)b)->name);
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(((const op_key *)a)->keyword, ((const op_key *)b)->keyword);
}

static void sort_tables(void)
{
    qsort(words, sizeof words / sizeof words[0], sizeof(word), cmp_word);
    for (int op = 1; op < PTX_OP_COUNT; op++) {
        const ptx_opcode_row *r = ptx_opcode_info((ptx_opcode)op);
        if (r->keyword)
            keys[nkeys++] = (op_key){ r->keyword, r->op };
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        keys[nkeys++] = aliases[i];
    qsort(keys, nkeys, sizeof(op_key), cmp_key);
}

static const word *find_word(const char *name)
{
    word key = { .name = name };
    return bsearch(&key, words, sizeof words / sizeof words[0], sizeof(word), cmp_word);
}

static const ptx_opcode_row *find_op(const char *name)
{
    op_key key = { .keyword = name };
    const op_key *k = bsearch(&key, keys, nkeys, sizeof(op_key), cmp_key);
    return k ? ptx_opcode_info(k->op) : NULL;
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
    case PTX_OP_SURED:
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

/* Operand k (a register, or each register of a vector) must be (want) or
 * must not be a .pred register: the engines keep predicates apart from
 * other registers, so a mismatch would make them read or write the wrong
 * register file. */
static bool pred_operand(const ptx_function *f, const ptx_instr *ins, int k, bool want, const char *file,
                         wh_error *err)
{
    if (k < 0 || k >= ins->nops) return true;
    const ptx_operand *o = &ins->ops[k];
    const ptx_operand *regs = o->kind == PTX_OPD_VEC ? o->elems : o;
    int nregs = o->kind == PTX_OPD_VEC ? o->nelems : 1;
    for (int i = 0; i < nregs; i++) {
        const ptx_operand *e = &regs[i];
        if (e->kind != PTX_OPD_REG || e->reg < 0 || e->reg >= f->nregs) continue;
        const ptx_reg *r = &f->regs[e->reg];
        if ((r->type == PTX_T_PRED) == want) continue;
        char msg[256];
        snprintf(msg, sizeof msg, "operand %d of '%s' (%s) is a .%s register; expected %s", k + 1, ins->opcode,
                 r->name, ptx_type_name(r->type), want ? "a .pred register" : "a register of a data type, not .pred");
        wh_error_set(err, WH_ERR_USER, file, ins->line, e->col ? e->col : ins->col, "%s", msg);
        return false;
    }
    return true;
}

/* Whether an operand of class c (opcodes.def) is a predicate; -1: not checked. */
static int wants_pred(char c, const ptx_instr *ins)
{
    switch (c) {
    case 'p': case 'q': return 1;
    case 'd': case 'v': return 0;
    case 'D': case 'V': return ins->type == PTX_T_PRED;
    default: return -1;
    }
}

/* The operand classes of the opcode's row: predicates where predicates go,
 * data registers elsewhere.  The member of a `d|p` pair is a predicate;
 * bar.red writes a value (a predicate for .pred) and takes a predicate last. */
static bool check_operands(const ptx_function *f, const ptx_instr *ins, const char *file, wh_error *err)
{
    const char *cls = ptx_opcode_info(ins->op)->operands;
    bool pair = ins->flags & PTX_F_PAIR;
    int n = ins->nops;
    if (pair && !pred_operand(f, ins, 1, true, file, err))
        return false;
    if (ins->op == PTX_OP_BAR && ins->mode == PTX_BAR_RED)
        return pred_operand(f, ins, 0, ins->type == PTX_T_PRED, file, err) &&
               pred_operand(f, ins, n - 1, true, file, err);
    size_t c = 0, nc = strlen(cls);
    for (int k = 0; k < n && c < nc; k++) {
        if (pair && k == 1)
            continue;
        int want = wants_pred(cls[c++], ins);
        if (want >= 0 && !pred_operand(f, ins, k, want == 1, file, err))
            return false;
    }
    return true;
}

/* cp.async.bulk[.tensor.Nd[.tile]].DST.SRC.COMPLETION...: the form
 * (ptx_cp_mode), or 0 for one no engine runs: im2col and gather/scatter
 * tensor copies, multicast, byte masks, out-of-bounds fills, CTA pairs,
 * and any pair of spaces the ISA does not pair with its completion
 * mechanism. */
static int bulk_mode(const ptx_instr *ins)
{
    const char *sp[2] = { NULL, NULL };
    bool tx = false, group = false, prefetch = false, tensor = false;
    int nsp = 0;
    for (int i = 2; i < ins->nmods; i++) {
        const char *m = ins->mods[i];
        if (STREQ(m, "multicast::cluster") || STREQ(m, "cp_mask") || STREQ(m, "ignore_oob") ||
            !strncmp(m, "im2col", 6) || !strncmp(m, "tile::", 6) || !strncmp(m, "cta_group", 9))
            return 0;
        if (STREQ(m, "commit_group")) return PTX_CP_COMMIT_GROUP;
        if (STREQ(m, "wait_group")) return PTX_CP_WAIT_GROUP;
        tx |= STREQ(m, "mbarrier::complete_tx::bytes");
        group |= STREQ(m, "bulk_group");
        prefetch |= STREQ(m, "prefetch");
        tensor |= STREQ(m, "tensor");
        if ((STREQ(m, "global") || STREQ(m, "shared::cta") || STREQ(m, "shared::cluster")) && nsp < 2)
            sp[nsp++] = m;
    }
    if (prefetch) {
        if (nsp != 1 || !STREQ(sp[0], "global")) return 0;
        return tensor ? PTX_CP_TENSOR_PREFETCH : PTX_CP_BULK_PREFETCH;
    }
    if (nsp != 2)
        return 0;
    bool shared_dst = STREQ(sp[0], "shared::cta") || STREQ(sp[0], "shared::cluster");
    if (tx && shared_dst && STREQ(sp[1], "global"))
        return tensor ? PTX_CP_TENSOR_TO_SHARED : PTX_CP_BULK_TO_SHARED;
    if (tx && STREQ(sp[0], "shared::cluster") && STREQ(sp[1], "shared::cta"))
        return tensor ? 0 : PTX_CP_BULK_SHARED_CLUSTER;
    if (group && STREQ(sp[0], "global") && STREQ(sp[1], "shared::cta"))
        return tensor ? PTX_CP_TENSOR_TO_GLOBAL : PTX_CP_BULK_TO_GLOBAL;
    return 0;
}

ptx_space ptx_cp_bulk_source(int mode)
{
    return mode == PTX_CP_BULK_TO_SHARED || mode == PTX_CP_BULK_PREFETCH ? PTX_SPACE_GLOBAL : PTX_SPACE_SHARED;
}

bool ptx_cp_bulk_completes_tx(int mode)
{
    return mode == PTX_CP_BULK_TO_SHARED || mode == PTX_CP_BULK_SHARED_CLUSTER;
}

bool ptx_cp_is_bulk_copy(int mode)
{
    return mode == PTX_CP_BULK_TO_SHARED || mode == PTX_CP_BULK_SHARED_CLUSTER || mode == PTX_CP_BULK_TO_GLOBAL;
}

bool ptx_cp_is_tensor_copy(int mode)
{
    return mode == PTX_CP_TENSOR_TO_SHARED || mode == PTX_CP_TENSOR_TO_GLOBAL;
}

int ptx_cp_tensor_operand(int mode)
{
    return mode == PTX_CP_TENSOR_TO_SHARED ? 1 : 0;
}

/* A tensor copy's operands: [dst], [tmap, {c0, ...}], [mbar] into shared
 * memory, [tmap, {c0, ...}], [src] out of it, [tmap, {c0, ...}] for the
 * prefetch; a cache policy after them with .L2::cache_hint.  The
 * coordinates are as many as the .Nd modifier says (1 to 5). */
static bool decode_cp_tensor(const ptx_instr *ins, const char *file, wh_error *err)
{
    bool hint = false;
    int rank = 0;
    for (int i = 0; i < ins->nmods; i++) {
        const char *m = ins->mods[i];
        hint |= STREQ(m, "L2::cache_hint");
        if (m[0] >= '1' && m[0] <= '5' && STREQ(m + 1, "d"))
            rank = m[0] - '0';
    }
    const char *form = ins->mode == PTX_CP_TENSOR_TO_SHARED ? "[dst], [tmap, {coordinates}], [mbarrier]"
                     : ins->mode == PTX_CP_TENSOR_TO_GLOBAL ? "[tmap, {coordinates}], [src]"
                                                            : "[tmap, {coordinates}]";
    int naddr = ins->mode == PTX_CP_TENSOR_PREFETCH ? 1 : 2 + (ins->mode == PTX_CP_TENSOR_TO_SHARED);
    if (!rank)
        return fail(err, file, ins, 0, "'cp.async.bulk.tensor' needs its dimensions (.1d to .5d)", NULL, 0, 0);
    char what[160];
    snprintf(what, sizeof what, "'cp.async.bulk.tensor' needs %s%s", form,
             hint ? " and the cache policy (.L2::cache_hint)" : "");
    if (ins->nops != naddr + hint)
        return fail(err, file, ins, 0, "%s: %ld operands, got %ld", what, naddr + hint, ins->nops);
    int t = ptx_cp_tensor_operand(ins->mode);
    for (int k = 0; k < naddr; k++)
        if (ins->ops[k].kind != PTX_OPD_ADDR || (k == t) != (ins->ops[k].nelems == 1))
            return fail(err, file, ins, ins->ops[k].col, k == t ? "%s: operand %ld is not [tmap, {coordinates}]"
                                                                  : "%s: operand %ld is not an address [...]",
                        what, k + 1, 0);
    const ptx_operand *c = &ins->ops[t].elems[0];
    if (c->kind != PTX_OPD_VEC || c->nelems != rank) {
        snprintf(what, sizeof what, "'cp.async.bulk.tensor.%dd' needs %d coordinates in {...}", rank, rank);
        return fail(err, file, ins, ins->ops[t].col, "%s", what, 0, 0);
    }
    return true;
}

/* barrier.cluster's form (arrive or wait, with the qualifiers the ISA
 * lets each take), or 0 for anything else. */
static int cluster_bar_mode(ptx_instr *ins)
{
    if (ins->nmods < 2) return 0;
    bool arrive = STREQ(ins->mods[1], "arrive"), wait = STREQ(ins->mods[1], "wait");
    for (int i = 2; i < ins->nmods; i++) {
        const char *m = ins->mods[i];
        if (STREQ(m, "aligned"))
            ins->flags |= PTX_F_ALIGNED;
        else if (!((arrive && (STREQ(m, "release") || STREQ(m, "relaxed"))) || (wait && STREQ(m, "acquire"))))
            return 0;
    }
    return arrive ? PTX_BAR_CLUSTER_ARRIVE : wait ? PTX_BAR_CLUSTER_WAIT : 0;
}

/* A bulk copy's operands: [dst], [src], size and, completing transaction
 * bytes, [mbar]; a cache policy after them with .L2::cache_hint.  The
 * prefetch: [src], size{, policy}. */
static bool decode_cp_bulk(const ptx_instr *ins, const char *file, wh_error *err)
{
    bool hint = false;
    for (int i = 0; i < ins->nmods; i++) hint |= STREQ(ins->mods[i], "L2::cache_hint");
    bool pre = ins->mode == PTX_CP_BULK_PREFETCH, tx = ptx_cp_bulk_completes_tx(ins->mode);
    int naddr = pre ? 1 : 2, need = naddr + 1 + tx + hint;
    const char *form = pre ? "'cp.async.bulk.prefetch' needs [src], size%s"
                     : tx  ? "'cp.async.bulk' into shared memory needs [dst], [src], size, [mbarrier]%s"
                           : "'cp.async.bulk' into global memory needs [dst], [src], size%s";
    char what[160];
    snprintf(what, sizeof what, form, hint ? " and the cache policy (.L2::cache_hint)" : "");
    if (ins->nops != need)
        return fail(err, file, ins, 0, "%s: %ld operands, got %ld", what, need, ins->nops);
    for (int k = 0; k < naddr + 1 + tx; k++) {
        bool addr = k < naddr || k == naddr + 1;
        if ((ins->ops[k].kind == PTX_OPD_ADDR) != addr) {
            char msg[300];
            snprintf(msg, sizeof msg, "%s: operand %d must be %s", what, k + 1,
                     addr ? "an address [...]" : "the size, a register or an integer");
            return fail(err, file, ins, ins->ops[k].col, "%s", msg, 0, 0);
        }
    }
    return true;
}

/* mbarrier.OP...: the operation in mode, .parity and .noComplete as flags;
 * the address operand where the operation has one. */
static bool decode_mbarrier(ptx_instr *ins, const char *file, wh_error *err)
{
    static const char *const ops[] = { NULL, "init", "inval", "arrive", "arrive_drop", "test_wait", "try_wait",
                                       "pending_count", "expect_tx", "complete_tx" };
    ins->mode = 0;
    for (int k = 1; ins->nmods > 0 && k <= PTX_MBAR_COMPLETE_TX; k++)
        if (STREQ(ins->mods[0], ops[k]))
            ins->mode = k;
    for (int i = 1; i < ins->nmods; i++) {
        if (STREQ(ins->mods[i], "parity"))
            ins->flags |= PTX_F_PARITY;
        else if (STREQ(ins->mods[i], "noComplete"))
            ins->flags |= PTX_F_NOCOMPLETE;
        else if (STREQ(ins->mods[i], "expect_tx") &&
                 (ins->mode == PTX_MBAR_ARRIVE || ins->mode == PTX_MBAR_ARRIVE_DROP))
            ins->flags |= PTX_F_EXPECT_TX;   /* arrive, and expect the transaction bytes */
    }
    int addr = ins->mode ? ptx_mbar_addr_operand(ins) : -1;
    if (addr >= 0 && (addr >= ins->nops || ins->ops[addr].kind != PTX_OPD_ADDR))
        return fail(err, file, ins, addr < ins->nops ? ins->ops[addr].col : 0,
                    "'%s' needs the barrier's address [..] as operand %ld", ops[ins->mode], addr + 1, 0);
    int tx = ins->mode == PTX_MBAR_EXPECT_TX || ins->mode == PTX_MBAR_COMPLETE_TX ? 1
           : ins->flags & PTX_F_EXPECT_TX ? 2 : -1;
    if (tx >= 0 && tx >= ins->nops)
        return fail(err, file, ins, 0, "'%s' needs the transaction count (bytes) as operand %ld",
                    ins->flags & PTX_F_EXPECT_TX ? "arrive.expect_tx" : ops[ins->mode], tx + 1, 0);
    /* operands each operation cannot do without: [addr] count; [addr]; state, [addr]; state, [addr];
     * done, [addr], state (twice); count, state; [addr] bytes (twice) */
    static const int min_ops[] = { 0, 2, 1, 2, 2, 3, 3, 2, 2, 2 };
    _Static_assert(sizeof min_ops / sizeof *min_ops == PTX_MBAR_COMPLETE_TX + 1, "one count per mbarrier operation");
    if (ins->mode && ins->nops < min_ops[ins->mode])
        return fail(err, file, ins, 0, "'mbarrier.%s' needs %ld operands, got %ld", ops[ins->mode], min_ops[ins->mode],
                    ins->nops);
    return true;
}

static int geometry_of(const ptx_instr *ins)
{
    static const char *const geoms[] = { NULL, "1d", "2d", "3d", "a1d", "a2d", "cube", "acube" };
    int mode = 0;
    for (int i = 0; i < ins->nmods; i++)
        for (int g = 1; g <= PTX_TEX_GEOM_LAST; g++)
            if (STREQ(ins->mods[i], geoms[g]))
                mode = g;
    return mode;
}

static bool check_coords(const ptx_instr *ins, const ptx_operand *a, const char *file, wh_error *err)
{
    if (a->kind != PTX_OPD_ADDR || a->nelems < 1 || a->elems[a->nelems - 1].kind != PTX_OPD_VEC)
        return fail(err, file, ins, a->col, "'%s' needs [handle, {coordinates}]", ins->opcode, 0, 0);
    long need = ptx_tex_coord_elems(ins->mode % PTX_TLD4_COMP);
    long got = a->elems[a->nelems - 1].nelems;
    if (ins->mode && got != need)
        return fail(err, file, ins, a->col, "'%s' needs %ld coordinate(s), got %ld", ins->opcode, need, got);
    return true;
}

/* sured.b.OP.GEOM.TYPE{.trap,.clamp,.zero} [surf, {x, y, z}], v: one
 * value (a register or an immediate) reduced into the element at the
 * coordinates; the operation goes to aop (add, min, max, and, or). */
static bool decode_sured(ptx_instr *ins, const char *file, wh_error *err)
{
    const ptx_operand *v = &ins->ops[1];
    if (v->kind != PTX_OPD_REG && v->kind != PTX_OPD_IMM_INT)
        return fail(err, file, ins, v->col, "'%s' needs one value (a register or an integer)", ins->opcode, 0, 0);
    bool op_ok = ins->aop == PTX_AOP_ADD || ins->aop == PTX_AOP_MIN || ins->aop == PTX_AOP_MAX ||
                 ins->aop == PTX_AOP_AND || ins->aop == PTX_AOP_OR;
    if (!op_ok)
        return fail(err, file, ins, 0, "'%s' needs an operation: .add, .min, .max, .and or .or", ins->opcode, 0, 0);
    if (ins->mode > PTX_TEX_3D)
        ins->mode = 0;   /* sured takes .1d, .2d and .3d only */
    return check_coords(ins, &ins->ops[0], file, err);
}

/* suld.b.GEOM{.v2,.v4}.bN{.trap,.clamp,.zero} d, [surf, {x, y, z}] and
 * sust.b... [surf, {x, y, z}], v: geometry in mode (0 for suld.p, which
 * the ISA no longer has, and the cubemap forms; .a1d and .a2d take
 * {layer, x} and {layer, x, y, unused}), .zero a flag (.clamp is one
 * already); sust.p and sured.p, formatted, set PTX_F_FORMATTED. */
static bool decode_surf(ptx_instr *ins, const char *file, wh_error *err)
{
    bool plain = false, formatted = false;
    for (int i = 0; i < ins->nmods; i++) {
        plain |= STREQ(ins->mods[i], "b");
        formatted |= STREQ(ins->mods[i], "p");
        if (STREQ(ins->mods[i], "zero"))
            ins->flags |= PTX_F_ZERO;
    }
    formatted &= ins->op != PTX_OP_SULD;
    if (formatted)
        ins->flags |= PTX_F_FORMATTED;
    ins->mode = plain || formatted ? geometry_of(ins) : 0;
    if (ins->mode > PTX_TEX_A2D)
        ins->mode = 0;   /* cubemap surfaces: not yet */
    if (ins->op == PTX_OP_SURED)
        return decode_sured(ins, file, err);
    bool load = ins->op == PTX_OP_SULD;
    const ptx_operand *v = &ins->ops[load ? 0 : 1];
    int n = v->kind == PTX_OPD_VEC ? v->nelems : 1;
    if (n != ins->vec || (v->kind != PTX_OPD_VEC && v->kind != PTX_OPD_REG && v->kind != PTX_OPD_SINK &&
                          (load || (v->kind != PTX_OPD_IMM_INT && v->kind != PTX_OPD_IMM_FLOAT))))
        return fail(err, file, ins, v->col, "'%s' needs %ld value(s), as its vector modifier says", ins->opcode,
                    ins->vec, 0);
    return check_coords(ins, &ins->ops[load ? 1 : 0], file, err);
}

/* A scalar or vector operand of f32 values: tex.level's level of detail,
 * tex.grad's gradients. */
static bool lod_operand(const ptx_operand *o)
{
    switch (o->kind) {
    case PTX_OPD_REG: case PTX_OPD_IMM_FLOAT: case PTX_OPD_IMM_INT: return true;
    case PTX_OPD_VEC:
        for (int k = 0; k < o->nelems; k++)
            if (!lod_operand(&o->elems[k])) return false;
        return o->nelems >= 1 && o->nelems <= 4;
    default: return false;
    }
}

/* tex.GEOM.v4.DTYPE.CTYPE {d0, d1, d2, d3}, [handle, {coordinates}]: the
 * geometry goes to mode, the coordinates are checked for their number
 * (.3d, .a2d and .cube take four, the last ignored).  tex.level (one more
 * operand, the level of detail) and tex.grad (two, the gradients) decode
 * the same, and tex.base (level 0) as a plain tex.  Mode is 0 for the
 * forms no engine runs: multisample, an offset or a depth compare (more
 * operands than that). */
static bool decode_tex(ptx_instr *ins, const char *file, wh_error *err)
{
    bool level = false, grad = false;
    for (int i = 0; i < ins->nmods; i++) {
        level |= STREQ(ins->mods[i], "level");
        grad |= STREQ(ins->mods[i], "grad");
    }
    int extra = level ? 1 : grad ? 2 : 0;
    bool plain = ins->nops == 2 + extra;
    for (int k = 2; plain && k < ins->nops; k++)
        plain = lod_operand(&ins->ops[k]);
    ins->mode = plain ? geometry_of(ins) : 0;
    if (ins->ops[0].kind != PTX_OPD_VEC || ins->ops[0].nelems != 4 || ins->vec != 4)
        return fail(err, file, ins, ins->ops[0].col, "'%s' needs .v4 and a vector of four destinations", ins->opcode, 0,
                    0);
    return check_coords(ins, &ins->ops[1], file, err);
}

/* tld4.COMP.2d.v4.DTYPE.f32 {d0, d1, d2, d3}, [handle, {x, y}]: the
 * component joins the geometry in mode (PTX_TLD4_COMP); the array and
 * cube forms, an explicit sampler, an offset and the depth compare decode
 * to 0. */
static bool decode_tld4(ptx_instr *ins, const char *file, wh_error *err)
{
    static const char *const comps[] = { "r", "g", "b", "a" };
    int comp = -1;
    for (int i = 0; i < ins->nmods; i++)
        for (int c = 0; c < 4; c++)
            if (STREQ(ins->mods[i], comps[c]))
                comp = c;
    int geom = geometry_of(ins);
    ins->mode = comp >= 0 && geom == PTX_TEX_2D && ins->nops == 2 && ins->ops[1].kind == PTX_OPD_ADDR &&
                        ins->ops[1].nelems == 1
                    ? PTX_TEX_2D : 0;
    if (ins->ops[0].kind != PTX_OPD_VEC || ins->ops[0].nelems != 4 || ins->vec != 4)
        return fail(err, file, ins, ins->ops[0].col, "'%s' needs .v4 and a vector of four destinations", ins->opcode, 0,
                    0);
    if (!check_coords(ins, &ins->ops[1], file, err))
        return false;
    if (ins->mode)
        ins->mode += comp * PTX_TLD4_COMP;
    return true;
}

/* txq.QUERY.b32 d, [handle] and suq.QUERY.b32 d, [handle]: the query in
 * mode (0 for the ones no engine answers, and txq.level). */
static void decode_query(ptx_instr *ins)
{
    static const char *const queries[] = { NULL, "width", "height", "depth", "normalized_coords", "filter_mode",
                                           "addr_mode_0", "addr_mode_1", "addr_mode_2" };
    bool level = false;
    ins->mode = 0;
    for (int i = 0; i < ins->nmods; i++) {
        level |= STREQ(ins->mods[i], "level");
        for (int q = PTX_TXQ_WIDTH; q <= PTX_TXQ_ADDR_MODE_2; q++)
            if (STREQ(ins->mods[i], queries[q]) && (ins->op == PTX_OP_TXQ || q <= PTX_TXQ_DEPTH))
                ins->mode = q;
    }
    if (level || ins->ops[1].kind != PTX_OPD_ADDR || ins->ops[1].nelems != 0)
        ins->mode = 0;
}

bool ptx_decode_instr(const ptx_module *m, ptx_function *f, ptx_instr *ins, const char *file, wh_error *err)
{
    pthread_once(&tables_once, sort_tables);
    const ptx_opcode_row *oi = find_op(ins->opcode);
    ins->op = oi ? oi->op : PTX_OP_UNKNOWN;
    ins->vec = 1;
    int first_mod = 0;
    /* compound opcodes */
    if (ins->op == PTX_OP_BAR && ins->nmods > 0 && STREQ(ins->mods[0], "warp")) {
        ins->op = PTX_OP_BAR_WARP;
        ins->mode = PTX_BAR_SYNC;
        first_mod = 1;
    } else if (ins->op == PTX_OP_BAR && ins->nmods > 0 && STREQ(ins->mods[0], "cluster")) {
        /* barrier.cluster.arrive{.release,.relaxed}{.aligned}, barrier.cluster.wait{.acquire}{.aligned} */
        ins->mode = cluster_bar_mode(ins);
        if (!ins->mode) ins->op = PTX_OP_UNKNOWN;
        first_mod = ins->nmods;
    } else if (ins->op == PTX_OP_BAR) {
        if (STREQ(ins->opcode, "bar")) ins->flags |= PTX_F_ALIGNED;
    } else if (ins->op == PTX_OP_CREATEPOLICY && (ins->nmods == 0 || !STREQ(ins->mods[0], "fractional"))) {
        ins->op = PTX_OP_UNKNOWN;   /* createpolicy.range / .cvt: not run */
    } else if ((ins->op == PTX_OP_ST || ins->op == PTX_OP_RED) && ins->nmods > 0 && STREQ(ins->mods[0], "async")) {
        ins->op = PTX_OP_UNKNOWN;   /* st.async / red.async: a store that completes an mbarrier's bytes, not run */
    } else if (ins->op == PTX_OP_CP_ASYNC) {
        bool async = ins->nmods > 0 && STREQ(ins->mods[0], "async");
        if (async && ins->nmods > 1 && STREQ(ins->mods[1], "bulk")) {
            ins->mode = bulk_mode(ins);
            first_mod = 2;
            if (!ins->mode) ins->op = PTX_OP_UNKNOWN;
        } else if (async && !(ins->nmods > 1 && STREQ(ins->mods[1], "mbarrier"))) {
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
    case PTX_OP_TEX:
        if (!decode_tex(ins, file, err))
            return false;
        break;
    case PTX_OP_TLD4:
        if (!decode_tld4(ins, file, err))
            return false;
        break;
    case PTX_OP_TXQ:
    case PTX_OP_SUQ:
        decode_query(ins);
        break;
    case PTX_OP_SULD:
    case PTX_OP_SUST:
    case PTX_OP_SURED:
        if (!decode_surf(ins, file, err))
            return false;
        break;
    case PTX_OP_MBARRIER:
        if (!decode_mbarrier(ins, file, err))
            return false;
        break;
    case PTX_OP_CP_ASYNC:
        if ((ptx_cp_is_bulk_copy(ins->mode) || ins->mode == PTX_CP_BULK_PREFETCH) && !decode_cp_bulk(ins, file, err))
            return false;
        if ((ptx_cp_is_tensor_copy(ins->mode) || ins->mode == PTX_CP_TENSOR_PREFETCH) &&
            !decode_cp_tensor(ins, file, err))
            return false;
        break;
    case PTX_OP_BAR:
        if ((ins->mode == PTX_BAR_CLUSTER_ARRIVE || ins->mode == PTX_BAR_CLUSTER_WAIT) && nops)
            return fail(err, file, ins, 0, "'barrier.cluster' takes no operands", NULL, 0, 0);
        break;
    case PTX_OP_SETMAXNREG: {
        bool inc = ins->nmods > 0 && STREQ(ins->mods[0], "inc"), dec = ins->nmods > 0 && STREQ(ins->mods[0], "dec");
        const ptx_operand *n = &ins->ops[0];
        if (!inc && !dec)
            return fail(err, file, ins, 0, "'setmaxnreg' is .inc or .dec", NULL, 0, 0);
        if (n->kind != PTX_OPD_IMM_INT || n->ival < 24 || n->ival > 256 || n->ival % 8)
            return fail(err, file, ins, n->col, "'setmaxnreg' takes a register count, a multiple of 8 from 24 to 256",
                        NULL, 0, 0);
        break;
    }
    case PTX_OP_DISCARD:
    case PTX_OP_APPLYPRIORITY:
        if (ins->ops[0].kind != PTX_OPD_ADDR || ins->ops[1].kind != PTX_OPD_IMM_INT || ins->ops[1].ival != 128)
            return fail(err, file, ins, 0, "'%s' takes [address], 128 (one 128-byte line)", ins->opcode, 0, 0);
        break;
    case PTX_OP_GRIDDEPCONTROL:
        if (ins->nmods != 1 || (!STREQ(ins->mods[0], "wait") && !STREQ(ins->mods[0], "launch_dependents")))
            return fail(err, file, ins, 0, "'griddepcontrol' is .wait or .launch_dependents", NULL, 0, 0);
        break;
    case PTX_OP_SETP:
        if (ins->cmp == PTX_CMP_NONE)
            return fail(err, file, ins, 0, "'setp' without a comparison operator", NULL, 0, 0);
        break;
    default:
        break;
    }
    return check_operands(f, ins, file, err) && ptx_check_types(f, ins, file, err);
}

/*
 * typecheck.c — register operands against the type their position takes,
 * as ptxas checks them: the PTX ISA's "Type Checking Rules" and the relaxed
 * rules of "Operand Size Exceeding Instruction-Type Size".  Which type each
 * position takes is the `types` column of opcodes.def.
 *
 * The rules, for a register used where type T of N bits goes:
 *   - the register is never narrower than N bits;
 *   - a bit-size register (.bM) fits any T;
 *   - a floating-point T takes a float register of exactly N bits;
 *   - an integer T refuses float registers (a .bN T takes them).
 * A register wider than T is accepted everywhere: the ISA grants it to
 * ld/st/cvt, and refusing it elsewhere could refuse PTX that ptxas takes.
 * Only registers are checked (not immediates, special registers, addresses,
 * symbols), predicates are decode.c's, and an instruction whose type
 * modifiers are not the plain ones of its row (a packed or 8-bit float type
 * this library does not know, mixed-precision forms such as fma.f32.f16,
 * cvt.pack's three types) is not checked at all: its operands may follow
 * other rules.
 */
#include "ptx/internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* What a position requires, and the words the message names it with. */
typedef struct {
    ptx_type type;    /* its kind: bit-size, integer or float */
    int bits;
    char instr[64];   /* "add.u64", "mul.wide.u32", "shl" */
    bool fixed;       /* a .u32 whatever the instruction type */
} want;

static bool is_bit_type(ptx_type t)
{
    return t >= PTX_T_B8 && t <= PTX_T_B128;
}

/* Whether `r` may stand where `w` goes (the rules in the header). */
static bool reg_fits(const want *w, const ptx_reg *r)
{
    if (r->bits < w->bits) return false;
    if (is_bit_type(r->type)) return true;
    if (ptx_type_is_float(w->type)) return ptx_type_is_float(r->type) && r->bits == w->bits;
    return !ptx_type_is_float(r->type) || is_bit_type(w->type);
}

/* A modifier that names a type this library does not decode (e4m3x2,
 * s16x2, f32x2, ue8m0...): the instruction is a form whose operands the
 * table does not describe. */
static bool unknown_type_word(const char *m)
{
    size_t n = strlen(m);
    if (ptx_type_from_name(m, n) != PTX_T_NONE) return false;
    static const char *const prefixes[] = { "bf", "tf", "ue", "b", "s", "u", "f", "e" };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t p = strlen(prefixes[i]);
        if (!strncmp(m, prefixes[i], p) && isdigit((unsigned char)m[p])) return true;
    }
    return false;
}

/* Number of type modifiers, or -1 when one is not a type we know. */
static int count_types(const ptx_instr *ins)
{
    int n = 0;
    for (int i = 0; i < ins->nmods; i++) {
        if (unknown_type_word(ins->mods[i])) return -1;
        n += ptx_type_from_name(ins->mods[i], strlen(ins->mods[i])) != PTX_T_NONE;
    }
    return n;
}

static bool is_value_type(ptx_type t)
{
    return t != PTX_T_NONE && t != PTX_T_PRED;
}

/* How the message names the instruction: its opcode and type modifiers
 * ("mul.wide.u32", "cvt.f64.f32"). */
static void instr_label(const ptx_instr *ins, bool wide, bool two, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s.%s%s%s", ins->opcode, wide ? ".wide" : "", ptx_type_name(ins->type), two ? "." : "",
             two ? ptx_type_name(ins->type2) : "");
}

/* The requirement of class c ('t', 'T', 'w', 'u'); false: not checked.
 * `typed`: the type modifiers are the row's (see ptx_check_types), `two`:
 * the row takes a second one. */
static bool want_of(char c, const ptx_instr *ins, bool typed, bool two, want *w)
{
    bool wide = ins->flags & PTX_F_WIDE;
    if (c == 'u') {
        *w = (want){ PTX_T_U32, 32, "", true };
        snprintf(w->instr, sizeof w->instr, "%s", ins->opcode);
        return true;
    }
    if ((c != 't' && c != 'w' && c != 'T') || !typed || !is_value_type(ins->type)) return false;
    if (two && !is_value_type(ins->type2)) return false;
    ptx_type t = c == 'T' ? ins->type2 : ins->type;
    *w = (want){ t, ptx_type_bits(t) * (c == 'w' && wide ? 2 : 1), "", false };
    instr_label(ins, wide, two, w->instr, sizeof w->instr);
    return true;
}

/* What the register should have been, for the message. */
static void need_text(const want *w, const ptx_reg *r, char *buf, size_t n)
{
    const char *fixed = w->fixed ? " (the operand is .u32)" : "";
    if (r->bits < w->bits)
        snprintf(buf, n, "a %d-bit register%s", w->bits, fixed);
    else if (ptx_type_is_float(w->type))
        snprintf(buf, n, "a .%s register or a bit-size one of at least %d bits", ptx_type_name(w->type), w->bits);
    else
        snprintf(buf, n, "an integer or bit-size register of at least %d bits%s", w->bits, fixed);
}

/* One register at operand k (element e of a vector, or -1). */
static bool check_reg(const ptx_function *f, const ptx_instr *ins, const ptx_operand *o, int k, int e,
                      const want *w, const char *file, wh_error *err)
{
    if (o->kind != PTX_OPD_REG || o->reg < 0 || o->reg >= f->nregs) return true;
    const ptx_reg *r = &f->regs[o->reg];
    /* predicates are decode.c's; `.reg .v2 .f32 x` registers are rare
     * enough that their rules are left unchecked */
    if (!is_value_type(r->type) || r->vec > 1 || reg_fits(w, r)) return true;
    char what[48], need[96];
    if (e >= 0)
        snprintf(what, sizeof what, "element %d of operand %d", e + 1, k + 1);
    else if (k == 0 && ptx_opcode_info(ins->op)->has_dest)
        snprintf(what, sizeof what, "destination");
    else
        snprintf(what, sizeof what, "operand %d", k + 1);
    need_text(w, r, need, sizeof need);
    wh_error_set(err, WH_ERR_USER, file, ins->line, o->col ? o->col : ins->col, "%s %s is .%s but %s needs %s",
                 what, r->name, ptx_type_name(r->type), w->instr, need);
    return false;
}

/* Operand k: a register, or each register of a .v2/.v4 list.  A brace list
 * without a vector modifier (mov.b64 %rd1, {%r1, %r2}) packs registers of
 * other widths and is left alone. */
static bool check_operand(const ptx_function *f, const ptx_instr *ins, int k, const want *w, const char *file,
                          wh_error *err)
{
    const ptx_operand *o = &ins->ops[k];
    if (o->kind != PTX_OPD_VEC)
        return check_reg(f, ins, o, k, -1, w, file, err);
    if (ins->vec <= 1) return true;
    for (int i = 0; i < o->nelems; i++)
        if (!check_reg(f, ins, &o->elems[i], k, i, w, file, err)) return false;
    return true;
}

bool ptx_check_types(const ptx_function *f, const ptx_instr *ins, const char *file, wh_error *err)
{
    const char *cls = ptx_opcode_info(ins->op)->types;
    int ntypes = count_types(ins);
    if (ntypes < 0) return true;
    /* rows with a 'T' take two type modifiers, the others one; more is a
     * form (fma.rn.f32.f16, add.f32.bf16...) whose sources differ */
    bool two = strchr(cls, 'T') != NULL;
    bool typed = ntypes <= (two ? 2 : 1);
    bool pair = ins->flags & PTX_F_PAIR;
    size_t c = 0, nc = strlen(cls);
    for (int k = 0; k < ins->nops && c < nc; k++) {
        if (pair && k == 1)
            continue;
        want w;
        if (want_of(cls[c++], ins, typed, two, &w) && !check_operand(f, ins, k, &w, file, err))
            return false;
    }
    return true;
}

/*
 * memmap.c — where a kernel's module memory lives, for both engines: the
 * functions an entry can reach, the module variables that reachable code
 * names, and the offset of every variable inside its state space's window
 * of the generic address map (PTX_ADDR_SHARED/CONST/LOCAL).
 *
 * Shared memory: referenced static module variables in declaration order,
 * then the static .shared variables of reachable functions, each at its
 * alignment; dynamic (extern, unsized) arrays all start after them,
 * aligned to the largest alignment any of them asks for (at least 16).
 * Const memory: every .const module variable in order.  Local memory: the
 * module's .local variables in order (call frames follow, each engine's
 * own).  .global variables are global regions after the spec's buffers;
 * here they only get their index among the module's .global variables.
 *
 * The emulator (harness/sim/layout.c) and the symbolic executor
 * (symexec/layout.c) both place memory from this map, so an address a
 * kernel computes, compares or branches on is the same in both.
 */
#include "ptx/internal.h"

#include <stdlib.h>

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return a <= 1 ? v : (v + a - 1) / a * a;
}

uint64_t ptx_var_bytes(const ptx_var *v)
{
    if (v->size)
        return v->size;
    return v->unsized ? 0 : (uint64_t)v->elem_size * (v->count ? v->count : 1);
}

static bool is_dynamic_shared(const ptx_var *v)
{
    return v->space == PTX_SPACE_SHARED &&
           (v->unsized || (v->linkage == PTX_LINK_EXTERN && ptx_var_bytes(v) == 0));
}

static uint64_t var_align(const ptx_var *v)
{
    return v->align > 0 ? (uint64_t)v->align : 1;
}

/* Mark the symbols of kind `kind` that operand o names (in vectors and
 * lists too). */
static void note_symbols(const ptx_operand *o, ptx_sym_kind kind, bool *marks)
{
    if ((o->kind == PTX_OPD_ADDR || o->kind == PTX_OPD_SYMBOL) && o->sym.kind == kind && o->sym.index >= 0)
        marks[o->sym.index] = true;
    if (o->kind == PTX_OPD_VEC || o->kind == PTX_OPD_LIST)
        for (int i = 0; i < o->nelems; i++)
            note_symbols(&o->elems[i], kind, marks);
}

/* Functions whose address the module takes (an operand, or an
 * initializer's word such as a table of function pointers): what an
 * indirect call may reach.  Only those with a body can be called. */
static void mark_address_taken(const ptx_module *m, ptx_memmap *mm)
{
    for (int fi = 0; fi < m->nfuncs; fi++) {
        const ptx_function *f = &m->funcs[fi];
        for (int i = 0; i < f->ninstrs; i++) {
            const ptx_instr *in = &f->instrs[i];
            bool target = in->op == PTX_OP_CALL;   /* a direct call's own target takes no address */
            for (int k = 0; k < in->nops; k++)
                if (!(target && in->ops[k].kind == PTX_OPD_SYMBOL && in->ops[k].sym.index == in->callee))
                    note_symbols(&in->ops[k], PTX_SYM_FUNC, mm->address_taken);
        }
    }
    for (int v = 0; v < m->nvars; v++)
        for (int r = 0; r < m->vars[v].nrelocs; r++)
            if (m->vars[v].relocs[r].sym.kind == PTX_SYM_FUNC && m->vars[v].relocs[r].sym.index >= 0)
                mm->address_taken[m->vars[v].relocs[r].sym.index] = true;
    for (int fi = 0; fi < m->nfuncs; fi++)
        mm->address_taken[fi] &= m->funcs[fi].has_body;
}

static void mark_reachable(const ptx_module *m, ptx_memmap *mm, int fi, bool *onstack)
{
    if (mm->reachable[fi]) {
        if (onstack[fi])
            mm->recursive = true;
        return;
    }
    mm->reachable[fi] = true;
    onstack[fi] = true;
    const ptx_function *f = &m->funcs[fi];
    for (int i = 0; i < f->ninstrs; i++) {
        const ptx_instr *in = &f->instrs[i];
        if (in->op == PTX_OP_CALL && in->callee >= 0 && in->callee < m->nfuncs && m->funcs[in->callee].has_body)
            mark_reachable(m, mm, in->callee, onstack);
        else if (in->op == PTX_OP_CALL && in->callee < 0)   /* indirect: any function whose address is taken */
            for (int ci = 0; ci < m->nfuncs; ci++)
                if (mm->address_taken[ci])
                    mark_reachable(m, mm, ci, onstack);
    }
    onstack[fi] = false;
}

/* Named by reachable code, or by the initializer of a variable that is. */
static void mark_referenced(const ptx_module *m, ptx_memmap *mm)
{
    for (int fi = 0; fi < m->nfuncs; fi++) {
        if (!mm->reachable[fi])
            continue;
        const ptx_function *f = &m->funcs[fi];
        for (int i = 0; i < f->ninstrs; i++) {
            const ptx_instr *in = &f->instrs[i];
            for (int k = 0; k < in->nops; k++)
                note_symbols(&in->ops[k], PTX_SYM_MODULE_VAR, mm->referenced);
            for (int k = 0; k < in->ncall_args; k++)
                note_symbols(&in->call_args[k], PTX_SYM_MODULE_VAR, mm->referenced);
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int v = 0; v < m->nvars; v++) {
            if (!mm->referenced[v])
                continue;
            for (int r = 0; r < m->vars[v].nrelocs; r++) {
                const ptx_symref *s = &m->vars[v].relocs[r].sym;
                if (s->kind == PTX_SYM_MODULE_VAR && s->index >= 0 && !mm->referenced[s->index]) {
                    mm->referenced[s->index] = true;
                    changed = true;
                }
            }
        }
    }
}

static void place_module_vars(const ptx_module *m, ptx_memmap *mm, uint64_t *dyn_align)
{
    uint64_t sh = 0, cb = 0, lo = 0;
    for (int v = 0; v < m->nvars; v++) {
        const ptx_var *var = &m->vars[v];
        uint64_t a = var_align(var);
        switch (var->space) {
        case PTX_SPACE_SHARED:
            if (is_dynamic_shared(var)) {
                if (a > *dyn_align)
                    *dyn_align = a;
            } else if (mm->referenced[v]) {
                sh = align_up(sh, a);
                mm->var_off[v] = sh;
                sh += ptx_var_bytes(var);
            }
            break;
        case PTX_SPACE_CONST:
            cb = align_up(cb, a);
            mm->var_off[v] = cb;
            cb += ptx_var_bytes(var);
            break;
        case PTX_SPACE_LOCAL:
            lo = align_up(lo, a);
            mm->var_off[v] = lo;
            lo += ptx_var_bytes(var);
            break;
        case PTX_SPACE_GLOBAL:
            mm->var_off[v] = (uint64_t)mm->nglobal++;
            break;
        default:
            break;
        }
    }
    mm->static_shared = sh;
    mm->const_bytes = cb;
    mm->module_local = align_up(lo, 16);
}

static void place_function_shared(const ptx_module *m, ptx_memmap *mm, uint64_t *dyn_align)
{
    for (int fi = 0; fi < m->nfuncs; fi++) {
        if (!mm->reachable[fi])
            continue;
        const ptx_function *f = &m->funcs[fi];
        for (int v = 0; v < f->nvars; v++) {
            const ptx_var *var = &f->vars[v];
            if (var->space != PTX_SPACE_SHARED)
                continue;
            uint64_t a = var_align(var);
            if (var->unsized) {
                if (a > *dyn_align)
                    *dyn_align = a;
                continue;
            }
            mm->static_shared = align_up(mm->static_shared, a);
            mm->fvar_off[fi][v] = mm->static_shared;
            mm->static_shared += ptx_var_bytes(var);
        }
    }
}

static void place_dynamic_shared(const ptx_module *m, ptx_memmap *mm)
{
    for (int v = 0; v < m->nvars; v++)
        if (is_dynamic_shared(&m->vars[v]))
            mm->var_off[v] = mm->dyn_shared_off;
    for (int fi = 0; fi < m->nfuncs; fi++) {
        if (!mm->reachable[fi])
            continue;
        const ptx_function *f = &m->funcs[fi];
        for (int v = 0; v < f->nvars; v++)
            if (f->vars[v].space == PTX_SPACE_SHARED && f->vars[v].unsized)
                mm->fvar_off[fi][v] = mm->dyn_shared_off;
    }
}

void ptx_memmap_build(const ptx_module *m, int entry, ptx_memmap *mm)
{
    *mm = (ptx_memmap){ .nfuncs = m->nfuncs, .nvars = m->nvars };
    mm->reachable = wh_xcalloc((size_t)m->nfuncs, sizeof *mm->reachable);
    mm->referenced = wh_xcalloc((size_t)m->nvars, sizeof *mm->referenced);
    mm->var_off = wh_xcalloc((size_t)m->nvars, sizeof *mm->var_off);
    mm->fvar_off = wh_xcalloc((size_t)m->nfuncs, sizeof *mm->fvar_off);
    for (int fi = 0; fi < m->nfuncs; fi++)
        mm->fvar_off[fi] = wh_xcalloc((size_t)m->funcs[fi].nvars, sizeof **mm->fvar_off);
    mm->address_taken = wh_xcalloc((size_t)(m->nfuncs ? m->nfuncs : 1), sizeof *mm->address_taken);
    mark_address_taken(m, mm);
    bool *onstack = wh_xcalloc((size_t)m->nfuncs, sizeof *onstack);
    if (entry >= 0 && entry < m->nfuncs)
        mark_reachable(m, mm, entry, onstack);
    free(onstack);
    mark_referenced(m, mm);
    uint64_t dyn_align = 16;
    place_module_vars(m, mm, &dyn_align);
    place_function_shared(m, mm, &dyn_align);
    mm->dyn_shared_off = align_up(mm->static_shared, dyn_align);
    place_dynamic_shared(m, mm);
}

void ptx_memmap_free(ptx_memmap *mm)
{
    if (mm->fvar_off)
        for (int fi = 0; fi < mm->nfuncs; fi++)
            free(mm->fvar_off[fi]);
    free(mm->fvar_off);
    free(mm->var_off);
    free(mm->referenced);
    free(mm->reachable);
    free(mm->address_taken);
    *mm = (ptx_memmap){ 0 };
}

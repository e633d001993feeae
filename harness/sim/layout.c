/*
 * layout.c — where a kernel's memory lives in the sim: which functions the
 * kernel can call, the module's shared, const, local and .global variables
 * (with their initializers) and the spec's buffers as global regions, each
 * function's .local frame and param area, and the local memory a thread
 * needs.  Addresses follow the semantics contract's map (PTX_ADDR_* in
 * ptx/ptx.h), which the symbolic executor shares.
 */
#include "harness/sim/sim.h"

#include <stdlib.h>
#include <string.h>

static uint64_t align_up(uint64_t v, uint64_t a)
{
    if (a <= 1)
        return v;
    return (v + a - 1) / a * a;
}

/* ------------------------------------------------------------------------ */
/* Reachability and memory layout                                           */
/* ------------------------------------------------------------------------ */

static void mark_reachable(sim_prog *P, int fi, int *onstack)
{
    const ptx_module *m = P->m;
    if (P->funcs[fi].used) {
        if (onstack[fi])
            P->recursive = true;
        return;
    }
    P->funcs[fi].used = true;
    onstack[fi] = 1;
    const ptx_function *f = &m->funcs[fi];
    for (int i = 0; i < f->ninstrs; i++) {
        const ptx_instr *in = &f->instrs[i];
        if (in->op == PTX_OP_CALL && in->callee >= 0 && in->callee < m->nfuncs &&
            m->funcs[in->callee].has_body)
            mark_reachable(P, in->callee, onstack);
    }
    onstack[fi] = 0;
}

static void note_sym(const ptx_symref *s, bool *mref)
{
    if (s->kind == PTX_SYM_MODULE_VAR && s->index >= 0)
        mref[s->index] = true;
}

static void note_operand(const ptx_operand *o, bool *mref)
{
    if (o->kind == PTX_OPD_ADDR || o->kind == PTX_OPD_SYMBOL)
        note_sym(&o->sym, mref);
    if (o->kind == PTX_OPD_VEC || o->kind == PTX_OPD_LIST)
        for (int i = 0; i < o->nelems; i++)
            note_operand(&o->elems[i], mref);
}

/* Module variables referenced by the reachable functions (and, through
 * initializer relocations, by those variables). */
static bool *referenced_vars(const sim_prog *P)
{
    const ptx_module *m = P->m;
    bool *mref = wh_xcalloc((size_t)m->nvars, sizeof *mref);
    for (int fi = 0; fi < m->nfuncs; fi++) {
        if (!P->funcs[fi].used)
            continue;
        const ptx_function *f = &m->funcs[fi];
        for (int i = 0; i < f->ninstrs; i++) {
            const ptx_instr *in = &f->instrs[i];
            for (int k = 0; k < in->nops; k++)
                note_operand(&in->ops[k], mref);
            for (int k = 0; k < in->ncall_args; k++)
                note_operand(&in->call_args[k], mref);
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int v = 0; v < m->nvars; v++) {
            if (!mref[v])
                continue;
            for (int r = 0; r < m->vars[v].nrelocs; r++) {
                const ptx_symref *s = &m->vars[v].relocs[r].sym;
                if (s->kind == PTX_SYM_MODULE_VAR && s->index >= 0 && !mref[s->index]) {
                    mref[s->index] = true;
                    changed = true;
                }
            }
        }
    }
    return mref;
}

static uint64_t var_bytes(const ptx_var *v)
{
    if (v->size)
        return v->size;
    return v->unsized ? 0 : (uint64_t)v->elem_size * (v->count ? v->count : 1);
}

static void layout_module(sim_prog *P)
{
    const ptx_module *m = P->m;
    bool *mref = referenced_vars(P);
    P->mvar_off = wh_xcalloc((size_t)m->nvars, sizeof *P->mvar_off);
    uint64_t sh = 0, cb = 0, lo = 0;
    uint64_t dyn_align = 16;
    int nglobal = 0;
    for (int v = 0; v < m->nvars; v++) {
        const ptx_var *var = &m->vars[v];
        uint64_t a = var->align > 0 ? (uint64_t)var->align : 1;
        switch (var->space) {
        case PTX_SPACE_SHARED:
            if (var->unsized || (var->linkage == PTX_LINK_EXTERN && var_bytes(var) == 0)) {
                if (a > dyn_align)
                    dyn_align = a;
                break;  /* dynamic: placed after the static area below */
            }
            if (!mref[v])
                break;
            sh = align_up(sh, a);
            P->mvar_off[v] = sh;
            sh += var_bytes(var);
            break;
        case PTX_SPACE_CONST:
            cb = align_up(cb, a);
            P->mvar_off[v] = cb;
            cb += var_bytes(var);
            break;
        case PTX_SPACE_LOCAL:
            lo = align_up(lo, a);
            P->mvar_off[v] = lo;
            lo += var_bytes(var);
            break;
        case PTX_SPACE_GLOBAL:
            nglobal++;
            break;
        default:
            break;
        }
    }
    /* function-level .shared variables of reachable functions */
    for (int fi = 0; fi < m->nfuncs; fi++) {
        if (!P->funcs[fi].used)
            continue;
        const ptx_function *f = &m->funcs[fi];
        for (int v = 0; v < f->nvars; v++) {
            const ptx_var *var = &f->vars[v];
            if (var->space != PTX_SPACE_SHARED)
                continue;
            uint64_t a = var->align > 0 ? (uint64_t)var->align : 1;
            if (var->unsized) {
                if (a > dyn_align)
                    dyn_align = a;
                continue;
            }
            sh = align_up(sh, a);
            P->funcs[fi].var_off[v] = (uint32_t)sh;
            sh += var_bytes(var);
        }
    }
    P->static_shared = sh;
    P->dyn_shared_off = align_up(sh, dyn_align);
    for (int v = 0; v < m->nvars; v++) {
        const ptx_var *var = &m->vars[v];
        if (var->space == PTX_SPACE_SHARED && (var->unsized || var_bytes(var) == 0))
            P->mvar_off[v] = P->dyn_shared_off;
    }
    for (int fi = 0; fi < m->nfuncs; fi++) {
        if (!P->funcs[fi].used)
            continue;
        const ptx_function *f = &m->funcs[fi];
        for (int v = 0; v < f->nvars; v++)
            if (f->vars[v].space == PTX_SPACE_SHARED && f->vars[v].unsized)
                P->funcs[fi].var_off[v] = (uint32_t)P->dyn_shared_off;
    }
    P->module_local = align_up(lo, 16);

    /* const bank with initializers */
    P->cbank_size = cb;
    P->cbank = wh_xcalloc((size_t)(cb ? cb : 1), 1);
    for (int v = 0; v < m->nvars; v++) {
        const ptx_var *var = &m->vars[v];
        if (var->space == PTX_SPACE_CONST && var->init)
            memcpy(P->cbank + P->mvar_off[v], var->init, (size_t)var_bytes(var));
    }

    /* global regions: spec buffers, then module .global variables */
    const wh_spec *S = P->spec;
    P->regions = wh_xcalloc((size_t)(S->nparams + nglobal), sizeof *P->regions);
    P->region_of_param = wh_xcalloc((size_t)S->nparams, sizeof *P->region_of_param);
    int r = 0;
    for (int i = 0; i < S->nparams; i++) {
        P->region_of_param[i] = -1;
        if (S->params[i].kind != WH_BUFFER)
            continue;
        P->regions[r].name = S->params[i].name;
        P->regions[r].base = PTX_ADDR_GLOBAL + ((uint64_t)r << PTX_ADDR_REGION_SHIFT);
        P->regions[r].param = i;
        P->regions[r].var = -1;
        P->region_of_param[i] = r;
        r++;
    }
    for (int v = 0; v < m->nvars; v++) {
        const ptx_var *var = &m->vars[v];
        if (var->space != PTX_SPACE_GLOBAL)
            continue;
        P->regions[r].name = var->name;
        P->regions[r].base = PTX_ADDR_GLOBAL + ((uint64_t)r << PTX_ADDR_REGION_SHIFT);
        P->regions[r].size = var_bytes(var);
        P->regions[r].param = -1;
        P->regions[r].var = v;
        P->mvar_off[v] = P->regions[r].base;
        r++;
    }
    P->nregions = r;
    P->mcache = wh_xcalloc((size_t)(r ? r : 1), sizeof *P->mcache);
    P->bcache = wh_xcalloc(1, sizeof *P->bcache);
    free(mref);
}

/* Address of a module variable in its own state space. */
uint64_t sim_mvar_addr(const sim_prog *P, int v)
{
    return P->mvar_off[v];
}

uint64_t sim_window_of(ptx_space s)
{
    switch (s) {
    case PTX_SPACE_SHARED: return PTX_ADDR_SHARED;
    case PTX_SPACE_LOCAL: return PTX_ADDR_LOCAL;
    case PTX_SPACE_CONST: return PTX_ADDR_CONST;
    default: return 0;
    }
}

/* Per function: .local frame, param area layout. */
void sim_layout_function(sim_prog *P, sim_func *F)
{
    const ptx_function *f = F->pf;
    uint64_t lo = 0, pv = 0;
    F->param_bytes = (uint32_t)align_up(f->param_bytes, 8);
    uint64_t rb = 0;
    for (int i = 0; i < f->nrets; i++) {
        uint64_t end = f->rets[i].offset + f->rets[i].size;
        if (end > rb)
            rb = end;
    }
    F->ret_off = F->param_bytes;
    F->vars_off = (uint32_t)align_up(F->ret_off + rb, 16);
    for (int v = 0; v < f->nvars; v++) {
        const ptx_var *var = &f->vars[v];
        uint64_t a = var->align > 0 ? (uint64_t)var->align : 1;
        if (var->space == PTX_SPACE_LOCAL) {
            lo = align_up(lo, a);
            F->var_off[v] = (uint32_t)lo;
            lo += var_bytes(var);
        } else if (var->space == PTX_SPACE_PARAM) {
            pv = align_up(pv, a);
            F->var_off[v] = (uint32_t)(F->vars_off + pv);
            pv += var_bytes(var);
        }
    }
    F->local_bytes = (uint32_t)align_up(lo, 16);
    F->area_bytes = (uint32_t)align_up(F->vars_off + pv, 8);
    (void)P;
}

/* Deepest local use along the call graph from fi (no recursion). */
static uint64_t stack_need(const sim_prog *P, int fi, int depth)
{
    const sim_func *F = &P->funcs[fi];
    uint64_t best = 0;
    if (depth > 64)
        return 0;
    const ptx_function *f = F->pf;
    for (int i = 0; i < f->ninstrs; i++) {
        const ptx_instr *in = &f->instrs[i];
        if (in->op == PTX_OP_CALL && in->callee >= 0 && P->funcs[in->callee].used) {
            uint64_t n = SIM_CALL_BYTES + stack_need(P, in->callee, depth + 1);
            if (n > best)
                best = n;
        }
    }
    return F->local_bytes + best;
}

/* Which functions the kernel reaches, then the module's memory layout. */
void sim_layout_program(sim_prog *P, int entry)
{
    int *onstack = wh_xcalloc((size_t)P->nfuncs, sizeof *onstack);
    mark_reachable(P, entry, onstack);
    free(onstack);
    layout_module(P);
}

/* Local memory per thread: module .local, then the deepest chain of call
 * frames (or the profile's stack for recursive kernels). */
uint64_t sim_local_size(const sim_prog *P, int entry)
{
    uint64_t n;
    if (P->recursive)
        n = P->module_local + P->funcs[entry].local_bytes + P->prof.stack_bytes;
    else
        n = P->module_local + stack_need(P, entry, 0);
    return align_up(n, 16);
}

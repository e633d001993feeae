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

/* Does a function the kernel can reach call the external function `name`? */
static bool calls_external(const sim_prog *P, const char *name)
{
    const ptx_module *m = P->m;
    for (int fi = 0; fi < m->nfuncs; fi++)
        for (int i = 0; P->funcs[fi].used && i < m->funcs[fi].ninstrs; i++) {
            const ptx_instr *in = &m->funcs[fi].instrs[i];
            if (in->op == PTX_OP_CALL && in->callee >= 0 && !m->funcs[in->callee].has_body &&
                !strcmp(m->funcs[in->callee].name, name))
                return true;
        }
    return false;
}

/* Shared, const and module-local offsets come from the module memory map
 * the symbolic executor uses too (ptx/memmap.c). */
static void layout_module(sim_prog *P, int entry)
{
    const ptx_module *m = P->m;
    ptx_memmap mm;
    ptx_memmap_build(m, entry, &mm);
    P->recursive = mm.recursive;
    P->address_taken = wh_xcalloc((size_t)(m->nfuncs ? m->nfuncs : 1), sizeof *P->address_taken);
    memcpy(P->address_taken, mm.address_taken, (size_t)m->nfuncs * sizeof *P->address_taken);
    P->mvar_off = wh_xcalloc((size_t)m->nvars, sizeof *P->mvar_off);
    for (int v = 0; v < m->nvars; v++)
        if (m->vars[v].space != PTX_SPACE_GLOBAL)
            P->mvar_off[v] = mm.var_off[v];
    for (int fi = 0; fi < m->nfuncs; fi++) {
        P->funcs[fi].used = mm.reachable[fi];
        const ptx_function *f = &m->funcs[fi];
        for (int v = 0; v < f->nvars && mm.reachable[fi]; v++)
            if (f->vars[v].space == PTX_SPACE_SHARED)
                P->funcs[fi].var_off[v] = (uint32_t)mm.fvar_off[fi][v];
    }
    P->static_shared = mm.static_shared;
    P->dyn_shared_off = mm.dyn_shared_off;
    P->module_local = mm.module_local;
    P->cbank_size = mm.const_bytes;
    int nglobal = mm.nglobal;
    ptx_memmap_free(&mm);

    /* const bank with initializers */
    P->cbank = wh_xcalloc((size_t)(P->cbank_size ? P->cbank_size : 1), 1);
    for (int v = 0; v < m->nvars; v++) {
        const ptx_var *var = &m->vars[v];
        if (var->space == PTX_SPACE_CONST && var->init)
            memcpy(P->cbank + P->mvar_off[v], var->init, (size_t)ptx_var_bytes(var));
    }

    /* global regions: spec buffers, then module .global variables */
    const wh_spec *S = P->spec;
    P->regions = wh_xcalloc((size_t)(S->nparams + nglobal + 1), sizeof *P->regions);
    P->region_of_param = wh_xcalloc((size_t)(S->nparams ? S->nparams : 1), sizeof *P->region_of_param);
    P->var_of_param = wh_xcalloc((size_t)(S->nparams ? S->nparams : 1), sizeof *P->var_of_param);
    int r = 0;
    for (int i = 0; i < S->nparams; i++) {
        P->region_of_param[i] = -1;
        P->var_of_param[i] = S->params[i].global ? ptx_spec_global_var(m, S->params[i].name) : -1;
        if (P->var_of_param[i] >= 0 && m->vars[P->var_of_param[i]].space == PTX_SPACE_CONST)
            P->cbank_from_image = true;
        if (S->params[i].kind != WH_BUFFER || S->params[i].global)
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
        P->regions[r].size = ptx_var_bytes(var);
        P->regions[r].param = -1;
        P->regions[r].var = v;
        for (int i = S->nkparams; i < S->nparams; i++)
            if (P->var_of_param[i] == v) {
                P->regions[r].param = i;
                P->region_of_param[i] = r;
            }
        P->mvar_off[v] = P->regions[r].base;
        r++;
    }
    P->heap_region = -1;
    if (calls_external(P, "malloc")) {
        P->regions[r].name = "the device heap (malloc)";
        P->regions[r].base = PTX_ADDR_GLOBAL + ((uint64_t)r << PTX_ADDR_REGION_SHIFT);
        P->regions[r].size = SIM_HEAP_BYTES;
        P->regions[r].param = P->regions[r].var = -1;
        P->heap_region = r++;
    }
    P->nregions = r;
    P->mcache = wh_xcalloc((size_t)(r ? r : 1), sizeof *P->mcache);
    P->caches = wh_xcalloc(2, sizeof *P->caches);
    P->bcache = wh_xcalloc(1, sizeof *P->bcache);
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
            lo += ptx_var_bytes(var);
        } else if (var->space == PTX_SPACE_PARAM) {
            pv = align_up(pv, a);
            F->var_off[v] = (uint32_t)(F->vars_off + pv);
            pv += ptx_var_bytes(var);
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
        } else if (in->op == PTX_OP_CALL && in->callee < 0) {   /* indirect: the deepest it may reach */
            for (int ci = 0; ci < P->m->nfuncs; ci++) {
                uint64_t n = P->address_taken[ci] ? SIM_CALL_BYTES + stack_need(P, ci, depth + 1) : 0;
                if (n > best)
                    best = n;
            }
        }
    }
    return F->local_bytes + best;
}

/* Which functions the kernel reaches, then the module's memory layout. */
void sim_layout_program(sim_prog *P, int entry)
{
    layout_module(P, entry);
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

/*
 * layout.c — the memory of an X-thread launch: one region per buffer
 * parameter, module variable, shared variable and per-thread local/param
 * storage, with concrete base addresses; the input symbols (one bit-vector
 * constant per element field of each input buffer) and their value-domain
 * assumptions; the bytes of the kernel parameter space.
 */
#include "core/alloc.h"
#include "symexec/internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t align_up(uint64_t v, uint64_t a)
{
    if (a < 1)
        a = 1;
    return (v + a - 1) / a * a;
}


static int add_region(sx_engine *e, const char *name, sx_region_kind kind, ptx_space space,
                      uint64_t base, uint64_t size, int thread)
{
    sx_region *r = realloc(e->regions, (size_t)(e->nregions + 1) * sizeof *r);
    if (!r)
        return -1;
    e->regions = r;
    sx_region *g = &r[e->nregions];
    memset(g, 0, sizeof *g);
    g->name = wh_xstrdup(name);
    g->kind = kind;
    g->space = space;
    g->base = base;
    g->size = size;
    g->thread = thread;
    g->param = -1;
    g->first_sym = -1;
    return e->nregions++;
}

/* ---- input symbols and their domains --------------------------------- */

/* lo <= x <= hi for an integer of w bits (NULL: the type's whole range). */
static Z3_ast int_range(sx_engine *e, Z3_ast x, int w, bool sgn, int64_t lo, int64_t hi)
{
    sx_z *z = &e->z;
    /* the whole range of the type needs no assumption */
    if (sgn) {
        int64_t tmin = w == 64 ? INT64_MIN : -(INT64_C(1) << (w - 1));
        int64_t tmax = w == 64 ? INT64_MAX : (INT64_C(1) << (w - 1)) - 1;
        if (lo <= tmin && hi >= tmax)
            return NULL;
    } else {
        uint64_t tmax = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
        if (lo <= 0 && (uint64_t)hi >= tmax)
            return NULL;
    }
    Z3_ast l = sx_z_num(z, (uint64_t)lo, w), h = sx_z_num(z, (uint64_t)hi, w);
    Z3_ast a = sx_zk(z, sgn ? Z3_mk_bvsle(z->c, l, x) : Z3_mk_bvule(z->c, l, x));
    Z3_ast b = sx_zk(z, sgn ? Z3_mk_bvsle(z->c, x, h) : Z3_mk_bvule(z->c, x, h));
    return sx_z_and2(z, a, b);
}

/* An integer symbol's domain: its range and its step (NULL: no constraint). */
static Z3_ast int_domain(sx_engine *e, Z3_ast x, wh_type t, const wh_bounds *bd)
{
    sx_z *z = &e->z;
    int w = (int)wh_type_size(t) * 8;
    bool sgn = wh_type_is_signed(t);
    int64_t lo = bd->lo, hi = bd->hi;
    Z3_ast range = int_range(e, x, w, sgn, lo, hi);
    if (bd->step == 1)
        return range;
    /* x - lo is at most hi - lo, which fits w bits unsigned, as the step does */
    Z3_ast off = sx_zk(z, Z3_mk_bvsub(z->c, x, sx_z_num(z, (uint64_t)lo, w)));
    Z3_ast rem = sx_zk(z, Z3_mk_bvurem(z->c, off, sx_z_num(z, (uint64_t)bd->step, w)));
    Z3_ast on_step = sx_z_eq(z, rem, sx_z_num(z, 0, w));
    return range ? sx_z_and2(z, range, on_step) : on_step;
}

/* lo <= x <= hi for the IEEE number with bit pattern x (w bits), as
 * bit-vector constraints on its sign and magnitude (much cheaper for the
 * solver than fp.leq): magnitudes of one sign are ordered like the numbers,
 * -0 equals +0, and NaNs lie outside any finite range. */
static Z3_ast float_domain_bits(sx_engine *e, Z3_ast x, int w, uint64_t blo, uint64_t bhi)
{
    sx_z *z = &e->z;
    uint64_t mmask = (1ull << (w - 1)) - 1;
    bool lneg = (blo >> (w - 1)) & 1, hneg = (bhi >> (w - 1)) & 1;
    uint64_t mlo = blo & mmask, mhi = bhi & mmask;
    Z3_ast sign = sx_z_eq(z, sx_z_extract(z, x, w - 1, w - 1), sx_z_num(z, 1, 1));
    Z3_ast mag = sx_z_extract(z, x, w - 2, 0);
    Z3_ast zero = sx_z_eq(z, mag, sx_z_num(z, 0, w - 1));
#define ULE(a, b) sx_zk(z, Z3_mk_bvule(z->c, (a), (b)))
#define NUM(v) sx_z_num(z, (v), w - 1)
    Z3_ast pos, neg;
    if (!lneg || mlo == 0) {          /* lo >= 0: positives from lo to hi */
        pos = hneg && mhi != 0 ? z->fls : sx_z_and2(z, ULE(NUM(lneg ? 0 : mlo), mag), ULE(mag, NUM(hneg ? 0 : mhi)));
        neg = (lneg || mlo == 0) ? zero : z->fls;   /* -0 when lo is 0 */
    } else if (hneg && mhi != 0) {    /* hi < 0: negatives from |hi| to |lo| */
        pos = z->fls;
        neg = sx_z_and2(z, ULE(NUM(mhi), mag), ULE(mag, NUM(mlo)));
    } else {                          /* lo < 0 <= hi */
        pos = ULE(mag, NUM(hneg ? 0 : mhi));
        neg = ULE(mag, NUM(mlo));
    }
#undef ULE
#undef NUM
    return sx_z_ite(z, sign, neg, pos);
}

static Z3_ast float_domain(sx_engine *e, Z3_ast x, wh_type t, double lo, double hi, uint64_t *low)
{
    int w = t == WH_F64 ? 64 : 32;
    uint64_t blo, bhi;
    if (w == 32) {
        /* round the bounds inward so every value allowed is in [lo, hi] */
        float fl = (float)lo, fh = (float)hi;
        if ((double)fl < lo)
            fl = nextafterf(fl, INFINITY);
        if ((double)fh > hi)
            fh = nextafterf(fh, -INFINITY);
        uint32_t a, b;
        memcpy(&a, &fl, 4);
        memcpy(&b, &fh, 4);
        blo = a;
        bhi = b;
    } else {
        memcpy(&blo, &lo, 8);
        memcpy(&bhi, &hi, 8);
    }
    *low = blo;
    return float_domain_bits(e, x, w, blo, bhi);
}

/* The symbols of input parameter p: one per field of each element of its
 * buffer (region reg), or the one of a searched scalar (reg -1). */
static bool add_symbols(sx_engine *e, int p, int reg, wh_error *err)
{
    const wh_param *prm = &e->spec->params[p];
    const wh_buffer *b = &e->img->bufs[p];
    if (reg >= 0) {
        sx_region *r = &e->regions[reg];
        r->input = true;
        r->input_bytes = b->bytes;
        r->first_sym = e->nsyms;
        r->nfields = prm->nfields;
        r->elem_size = prm->elem_size;
    } else {
        e->scalar_sym[p] = e->nsyms;
    }
    uint64_t n = b->count * (uint64_t)prm->nfields;
    if (n > 1000000) {
        wh_error_set(err, WH_ERR_UNSUPPORTED, e->spec->path, 0, 0,
                     "input buffer '%s' has %" PRIu64 " symbolic fields at %d threads (limit 1000000)",
                     prm->name, n, e->X);
        return false;
    }
    sx_symbol *v = realloc(e->syms, (size_t)(e->nsyms + n + 1) * sizeof *v);
    if (!v)
        return false;
    e->syms = v;
    for (uint64_t el = 0; el < b->count; el++) {
        for (int f = 0; f < prm->nfields; f++) {
            const wh_field *fd = &prm->fields[f];
            sx_symbol *s = &e->syms[e->nsyms];
            memset(s, 0, sizeof *s);
            char name[300];
            if (reg < 0)
                snprintf(name, sizeof name, "%s", prm->name);
            else if (prm->type == WH_STRUCT)
                snprintf(name, sizeof name, "%s[%" PRIu64 "].%s", prm->name, el, fd->name);
            else
                snprintf(name, sizeof name, "%s[%" PRIu64 "]", prm->name, el);
            s->name = wh_xstrdup(name);
            s->region = reg;
            s->param = p;
            s->field = f;
            s->elem = el;
            s->offset = el * prm->elem_size + fd->offset;
            s->bytes = (int)wh_type_size(fd->type);
            s->type = fd->type;
            e->nsyms++;
            wh_bounds bd;
            if (!wh_image_bounds(e->img, p, f, el, &bd, err))
                return false;
            if (!bd.is_float && bd.lo == bd.hi) {
                s->value = (uint64_t)bd.lo;   /* a one-value domain is a constant */
                continue;
            }
            sx_z *z = &e->z;
            Z3_ast c = Z3_mk_const(z->c, Z3_mk_string_symbol(z->c, name), sx_z_bvs(z, s->bytes * 8));
            if (!c) {
                wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "Z3 cannot declare '%s'", name);
                return false;
            }
            Z3_inc_ref(z->c, c);
            s->ast = c;
            s->low = (uint64_t)bd.lo;
            Z3_ast d = bd.is_float ? float_domain(e, c, fd->type, bd.flo, bd.fhi, &s->low)
                                   : int_domain(e, c, fd->type, &bd);
            if (d) {
                sx_z_inc(z, d);
                s->domain = d;
            }
            sx_z_release(z);
        }
    }
    return true;
}

/* ---- kernel parameters ------------------------------------------------- */

static bool build_params(sx_engine *e, const int *param_region)
{
    const ptx_function *f = e->entry;
    e->nparam_bytes = f->param_bytes;
    e->params = calloc(f->param_bytes ? f->param_bytes : 1, 1);
    if (!e->params)
        return false;
    for (int p = 0; p < f->nparams; p++) {
        const ptx_param *pp = &f->params[p];
        if (pp->offset + pp->size > f->param_bytes)
            continue;
        uint8_t *dst = e->params + pp->offset;
        if (e->spec->params[p].tex) {
            uint64_t a = PTX_ADDR_TEXTURE + (uint64_t)p;
            for (uint64_t k = 0; k < pp->size && k < 8; k++)
                dst[k] = (uint8_t)(a >> (8 * k));
        } else if (e->spec->params[p].kind == WH_BUFFER) {
            uint64_t a = sx_layout_generic(&e->regions[param_region[p]]);
            for (uint64_t k = 0; k < pp->size && k < 8; k++)
                dst[k] = (uint8_t)(a >> (8 * k));
        } else {
            const wh_buffer *b = &e->img->bufs[p];
            memcpy(dst, b->data, b->bytes < pp->size ? b->bytes : pp->size);
        }
    }
    return true;
}

/* Each texture and tensor map parameter at the X-thread launch, and its
 * texels' or tensor's region. */
static bool objects(sx_engine *e, const wh_launch *l, const int *param_region, wh_error *err)
{
    const wh_spec *S = e->spec;
    e->tex = wh_xcalloc((size_t)S->nparams + 1, sizeof *e->tex);
    e->tex_region = wh_xcalloc((size_t)S->nparams + 1, sizeof *e->tex_region);
    e->tmap = wh_xcalloc((size_t)S->nparams + 1, sizeof *e->tmap);
    e->tmap_region = wh_xcalloc((size_t)S->nparams + 1, sizeof *e->tmap_region);
    int64_t *vars = wh_xcalloc((size_t)S->nvars, sizeof *vars);
    bool ok = wh_spec_vars(S, l, vars, err);
    for (int p = 0; p < S->nparams; p++) {
        e->tex_region[p] = e->tmap_region[p] = -1;
        if (ok && S->params[p].tex) {
            ok = ptx_texture_make(S, p, vars, &e->tex[p], err);
            e->tex_region[p] = param_region[p];
        } else if (ok && S->params[p].tmap) {
            ok = ptx_tmap_make(S, p, vars, &e->tmap[p], err);
            e->tmap_region[p] = param_region[p];
        }
    }
    free(vars);
    return ok;
}

/* ---- variables --------------------------------------------------------- */

static uint64_t global_region_base(int n)
{
    return PTX_ADDR_GLOBAL + ((uint64_t)n << PTX_ADDR_REGION_SHIFT);
}

/* A spec global's region: the image's symbols (an input) or bytes (fixed)
 * over the variable's initializer; an output starts from the initializer. */
static bool bind_spec_global(sx_engine *e, int r, int v, wh_error *err)
{
    const wh_spec *S = e->spec;
    for (int p = S->nkparams; p < S->nparams; p++) {
        if (strcmp(S->params[p].name, e->mod->vars[v].name))
            continue;
        sx_region *g = &e->regions[r];
        const wh_buffer *b = &e->img->bufs[p];
        g->param = p;
        g->elem_size = S->params[p].elem_size;
        if (S->params[p].role == WH_ROLE_INPUT)
            return add_symbols(e, p, r, err);
        if (S->params[p].role == WH_ROLE_FIXED && b->data) {
            if (!g->init_own) {
                g->init_own = wh_xcalloc((size_t)(g->size ? g->size : 1), 1);
                if (g->init)
                    memcpy(g->init_own, g->init, (size_t)g->size);
            }
            memcpy(g->init_own, b->data, (size_t)(b->bytes < g->size ? b->bytes : g->size));
            g->init = g->init_own;
        }
        return true;
    }
    return true;
}

/* A variable's initializer with its address words filled in (a table of
 * function pointers, a pointer to another variable), as the sim fills
 * them (harness/sim/run.c): NULL when it has none.  first_global: the
 * global region of the module's first .global variable. */
static uint8_t *relocated_init(const sx_engine *e, const ptx_memmap *mm, const ptx_var *v, int first_global)
{
    if (!v->nrelocs)
        return NULL;
    uint8_t *bytes = wh_xcalloc((size_t)(v->size ? v->size : 1), 1);
    if (v->init)
        memcpy(bytes, v->init, (size_t)v->size);
    for (int k = 0; k < v->nrelocs; k++) {
        const ptx_reloc *rl = &v->relocs[k];
        uint64_t val = 0;
        if (rl->sym.kind == PTX_SYM_FUNC) {
            val = PTX_ADDR_FUNC + (uint64_t)rl->sym.index * PTX_ADDR_FUNC_STRIDE;
        } else if (rl->sym.kind == PTX_SYM_MODULE_VAR && rl->sym.index >= 0) {
            const ptx_var *t = &e->mod->vars[rl->sym.index];
            val = t->space == PTX_SPACE_GLOBAL ? global_region_base(first_global + (int)mm->var_off[rl->sym.index])
                                               : mm->var_off[rl->sym.index];
            if (rl->generic)
                val += t->space == PTX_SPACE_SHARED ? PTX_ADDR_SHARED : t->space == PTX_SPACE_CONST ? PTX_ADDR_CONST
                     : t->space == PTX_SPACE_LOCAL ? PTX_ADDR_LOCAL : 0;
        }
        val += (uint64_t)rl->addend;
        if (rl->offset + (uint64_t)rl->size <= v->size && rl->size <= 8)
            memcpy(bytes + rl->offset, &val, (size_t)rl->size);
    }
    return bytes;
}

/* Module variables where the module memory map (ptx/memmap.c) puts them,
 * as the sim does: .global ones take the next global regions, .const ones
 * sit in the const window, referenced static .shared ones in the shared
 * window; then the .shared variables of reachable functions, and the
 * dynamic (extern) shared arrays after all of them. */
static bool module_vars(sx_engine *e, const ptx_memmap *mm, int *global_regions, wh_error *err)
{
    int first_global = *global_regions;
    const ptx_module *m = e->mod;
    for (int i = 0; i < m->nvars; i++) {
        const ptx_var *v = &m->vars[i];
        int r = 0;
        if (v->space == PTX_SPACE_GLOBAL)
            r = add_region(e, v->name, SX_R_GLOBALVAR, PTX_SPACE_GLOBAL, global_region_base((*global_regions)++),
                           v->size, -1);
        else if (v->space == PTX_SPACE_CONST)
            r = add_region(e, v->name, SX_R_GLOBALVAR, PTX_SPACE_CONST, mm->var_off[i], v->size, -1);
        else if (v->space == PTX_SPACE_SHARED && !v->unsized && mm->referenced[i])
            r = add_region(e, v->name, SX_R_SHARED, PTX_SPACE_SHARED, mm->var_off[i], v->size, -1);
        else
            continue;
        if (r < 0)
            return false;
        e->regions[r].init_own = relocated_init(e, mm, v, first_global);
        e->regions[r].init = e->regions[r].init_own ? e->regions[r].init_own : v->init;
        if (ptx_spec_global_var(m, v->name) == i && !bind_spec_global(e, r, i, err))
            return false;
    }
    return true;
}

/* The device heap, when a function the kernel can reach calls malloc:
 * zeroed, SX_HEAP_BYTES (the sim's region of the same role is larger). */
static bool heap(sx_engine *e, const ptx_memmap *mm, int *global_regions)
{
    const ptx_module *m = e->mod;
    e->heap_region = -1;
    for (int fi = 0; fi < m->nfuncs; fi++)
        for (int i = 0; mm->reachable[fi] && i < m->funcs[fi].ninstrs; i++) {
            const ptx_instr *in = &m->funcs[fi].instrs[i];
            if (in->op != PTX_OP_CALL || in->callee < 0 || m->funcs[in->callee].has_body ||
                strcmp(m->funcs[in->callee].name, "malloc"))
                continue;
            e->heap_region = add_region(e, "the device heap (malloc)", SX_R_GLOBALVAR, PTX_SPACE_GLOBAL,
                                        global_region_base((*global_regions)++), SX_HEAP_BYTES, -1);
            return e->heap_region >= 0;
        }
    return true;
}

static bool function_shared(sx_engine *e, const ptx_memmap *mm)
{
    for (int fi = 0; fi < e->mod->nfuncs; fi++) {
        if (!mm->reachable[fi])
            continue;
        const ptx_function *f = &e->mod->funcs[fi];
        for (int v = 0; v < f->nvars; v++) {
            const ptx_var *var = &f->vars[v];
            if (var->space != PTX_SPACE_SHARED || var->unsized)
                continue;
            int r = add_region(e, var->name, SX_R_SHARED, PTX_SPACE_SHARED, mm->fvar_off[fi][v], var->size, -1);
            if (r < 0)
                return false;
            for (int t = 0; t < e->X; t++)
                e->fl[fi].var_region[v * e->X + t] = r;
        }
    }
    return true;
}

/* Dynamic (extern, unsized) shared arrays: one region at the map's offset,
 * as large as the image's dynamic shared memory. */
static bool extern_shared(sx_engine *e, const ptx_memmap *mm)
{
    uint64_t base = mm->dyn_shared_off;
    uint64_t size = e->img->shared_bytes;
    int r = -1;
    for (int i = 0; i < e->mod->nvars; i++) {
        const ptx_var *v = &e->mod->vars[i];
        if (v->space == PTX_SPACE_SHARED && v->unsized && r < 0)
            r = add_region(e, v->name, SX_R_SHARED, PTX_SPACE_SHARED, base, size, -1);
    }
    for (int fi = 0; fi < e->mod->nfuncs; fi++) {
        if (!mm->reachable[fi])
            continue;
        const ptx_function *f = &e->mod->funcs[fi];
        for (int v = 0; v < f->nvars; v++) {
            if (f->vars[v].space != PTX_SPACE_SHARED || !f->vars[v].unsized)
                continue;
            if (r < 0)
                r = add_region(e, f->vars[v].name, SX_R_SHARED, PTX_SPACE_SHARED, base, size, -1);
            for (int t = 0; t < e->X; t++)
                e->fl[fi].var_region[v * e->X + t] = r;
        }
    }
    /* %total_smem_size, as the sim reports it */
    e->shared_size = size ? base + size : mm->static_shared;
    return true;
}

/* Per-thread storage: module .local vars, function .local/.param vars and
 * the params/return values of non-entry functions. */
static int add_local(sx_engine *e, const char *fname, const char *name, uint64_t size, uint64_t off,
                     int *first)
{
    char buf[600];
    snprintf(buf, sizeof buf, "%s%s%s", fname ? fname : "", fname ? "." : "", name);
    for (int t = 0; t < e->X; t++) {
        int r = add_region(e, buf, SX_R_LOCAL, PTX_SPACE_LOCAL, off, size, t);
        if (r < 0)
            return -1;
        if (t == 0)
            *first = r;
    }
    return 0;
}

/* The next item of a function's local storage at `*top`. */
static int push_local(sx_engine *e, const char *fname, const char *name, uint64_t size, int align,
                      uint64_t *top, int *first)
{
    *top = align_up(*top, (uint64_t)(align > 0 ? align : 1));
    if (add_local(e, fname, name, size, *top, first) < 0)
        return -1;
    *top += size ? size : 1;
    return 0;
}

static bool function_locals(sx_engine *e, int fi, uint64_t *top)
{
    const ptx_function *f = &e->mod->funcs[fi];
    sx_func_layout *fl = &e->fl[fi];
    int first;
    /* .local variables first, as the sim's frame has them; then the
     * call-site .param variables (the sim keeps those in a param area) */
    for (int pass = 0; pass < 2; pass++) {
        ptx_space want = pass == 0 ? PTX_SPACE_LOCAL : PTX_SPACE_PARAM;
        for (int v = 0; v < f->nvars; v++) {
            const ptx_var *var = &f->vars[v];
            if (var->space != want)
                continue;
            if (push_local(e, f->name, var->name, ptx_var_bytes(var), var->align, top, &first) < 0)
                return false;
            for (int t = 0; t < e->X; t++)
                fl->var_region[v * e->X + t] = first + t;
        }
    }
    if (f->is_entry)
        return true;
    for (int k = 0; k < f->nparams; k++) {
        if (push_local(e, f->name, f->params[k].name, f->params[k].size, f->params[k].align, top, &first) < 0)
            return false;
        for (int t = 0; t < e->X; t++)
            fl->param_region[k * e->X + t] = first + t;
    }
    for (int k = 0; k < f->nrets; k++) {
        if (push_local(e, f->name, f->rets[k].name, f->rets[k].size, f->rets[k].align, top, &first) < 0)
            return false;
        for (int t = 0; t < e->X; t++)
            fl->ret_region[k * e->X + t] = first + t;
    }
    return true;
}

/* Module .local variables where the memory map puts them, then the
 * kernel's own locals as the sim lays out its first frame (in order, each
 * at its alignment), so their addresses agree; the locals of called
 * functions follow, each function in a place of its own (the sim stacks
 * frames by call depth instead, so those addresses differ). */
static bool locals(sx_engine *e, const ptx_memmap *mm)
{
    int first;
    for (int i = 0; i < e->mod->nvars; i++) {
        const ptx_var *v = &e->mod->vars[i];
        if (v->space == PTX_SPACE_LOCAL && add_local(e, NULL, v->name, v->size, mm->var_off[i], &first) < 0)
            return false;
    }
    uint64_t top = mm->module_local;
    if (!function_locals(e, e->entry_idx, &top))
        return false;
    top = align_up(top, 16);
    for (int fi = 0; fi < e->mod->nfuncs; fi++)
        if (fi != e->entry_idx && !function_locals(e, fi, &top))
            return false;
    e->local_size = top;
    return true;
}

static int *neg_ints(int n)
{
    int *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (v)
        for (int i = 0; i < n; i++)
            v[i] = -1;
    return v;
}

static bool alloc_func_layouts(sx_engine *e)
{
    e->fl = calloc((size_t)(e->mod->nfuncs > 0 ? e->mod->nfuncs : 1), sizeof *e->fl);
    if (!e->fl)
        return false;
    for (int fi = 0; fi < e->mod->nfuncs; fi++) {
        const ptx_function *f = &e->mod->funcs[fi];
        e->fl[fi].param_region = neg_ints(f->nparams * e->X);
        e->fl[fi].ret_region = neg_ints(f->nrets * e->X);
        e->fl[fi].var_region = neg_ints(f->nvars * e->X);
        if (!e->fl[fi].param_region || !e->fl[fi].ret_region || !e->fl[fi].var_region)
            return false;
    }
    return true;
}

static int symid_cmp(const void *a, const void *b)
{
    unsigned x = ((const sx_symid *)a)->id, y = ((const sx_symid *)b)->id;
    return x < y ? -1 : x > y;
}

static bool build_symids(sx_engine *e)
{
    e->symids = malloc((size_t)(e->nsyms + 1) * sizeof *e->symids);
    if (!e->symids)
        return false;
    for (int i = 0; i < e->nsyms; i++)
        if (e->syms[i].ast)
            e->symids[e->nsymids++] = (sx_symid){ Z3_get_ast_id(e->z.c, e->syms[i].ast), i };
    qsort(e->symids, (size_t)e->nsymids, sizeof *e->symids, symid_cmp);
    return true;
}

int sx_layout_symbol_of(const sx_engine *e, Z3_ast a)
{
    sx_symid key = { Z3_get_ast_id(e->z.c, a), -1 };
    const sx_symid *hit = bsearch(&key, e->symids, (size_t)e->nsymids, sizeof key, symid_cmp);
    return hit ? hit->sym : -1;
}

/* ---- structured buffers: their structure as an assumption ------------ */

/* Element el of input region r as a term: its constant, or the numeral of
 * a one-value domain. */
static Z3_ast elem_term(sx_engine *e, const sx_region *r, uint64_t el, int f)
{
    const sx_symbol *s = &e->syms[r->first_sym + (int)el * r->nfields + f];
    return s->ast ? s->ast : sx_z_num(&e->z, s->value, s->bytes * 8);
}

/* a <= b (a < b when strict) for elements of type t whose domain starts at
 * lo (floats: the bit patterns' magnitudes when lo >= 0, which order
 * non-negative numbers and -0 as the numbers; fp.leq otherwise). */
static Z3_ast elem_order(sx_engine *e, wh_type t, double flo, Z3_ast a, Z3_ast b, bool strict)
{
    sx_z *z = &e->z;
    if (wh_type_is_float(t)) {
        int w = (int)wh_type_size(t) * 8;
        if (flo >= 0)
            return sx_zk(z, Z3_mk_bvule(z->c, sx_z_extract(z, a, w - 2, 0), sx_z_extract(z, b, w - 2, 0)));
        Z3_sort fs = t == WH_F64 ? z->fp64 : z->fp32;
        return sx_zk(z, Z3_mk_fpa_leq(z->c, sx_zk(z, Z3_mk_fpa_to_fp_bv(z->c, a, fs)),
                                      sx_zk(z, Z3_mk_fpa_to_fp_bv(z->c, b, fs))));
    }
    if (wh_type_is_signed(t))
        return sx_zk(z, strict ? Z3_mk_bvslt(z->c, a, b) : Z3_mk_bvsle(z->c, a, b));
    return sx_zk(z, strict ? Z3_mk_bvult(z->c, a, b) : Z3_mk_bvule(z->c, a, b));
}

/* The structure over the buffer's elements that field f of region r's
 * parameter has: a buffer of one type, the buffer's; a struct's field of
 * one value, its own (an array field's is within each element: below). */
static wh_structure field_structure(const wh_param *p, int f)
{
    if (p->type != WH_STRUCT)
        return p->structure;
    return p->fields[f].array_len > 1 ? WH_STRUCTURE_NONE : p->fields[f].structure;
}

/* "neighbors": each thread's elements of field f of region r are distinct
 * and none is its own index (one distinct over the list and the index),
 * or where the range holds fewer other values than the list is long (the
 * few threads explored, fewer than the neighbours) none is its own index,
 * as the projection has it (core/image_structure.c); an element past the
 * threads' lists is only not its owner's index. */
static Z3_ast distinct_others(sx_engine *e, const sx_region *r, int f, wh_error *err)
{
    sx_z *z = &e->z;
    const wh_param *p = &e->spec->params[r->param];
    const wh_launch *l = &e->img->launch;
    uint64_t n = e->img->bufs[r->param].count, threads = wh_launch_threads_total(l);
    unsigned w = (unsigned)wh_type_size(p->fields[f].type) * 8;
    Z3_ast *v = malloc(((size_t)p->per_thread + 1) * sizeof *v);
    if (!v)
        return NULL;
    wh_bounds bd;
    if (!wh_image_bounds(e->img, r->param, f, 0, &bd, err)) {
        free(v);
        return NULL;
    }
    Z3_ast d = z->tru;
    for (uint64_t t = 0; d && t < threads; t++) {
        unsigned k = 0;
        v[k++] = sx_z_num(z, t, (int)w);
        for (uint64_t j = 0; j < (uint64_t)p->per_thread; j++) {
            uint64_t el = wh_owned_elem(p, l, t, j);
            if (el < n)
                v[k++] = elem_term(e, r, el, f);
        }
        uint64_t others = (uint64_t)bd.hi - (uint64_t)bd.lo + 1 - ((int64_t)t >= bd.lo && (int64_t)t <= bd.hi);
        if (others >= k - 1)
            d = sx_z_and2(z, d, sx_zk(z, Z3_mk_distinct(z->c, k, v)));
        for (unsigned i = 1; d && others < k - 1 && i < k; i++)
            d = sx_z_and2(z, d, sx_z_not(z, sx_z_eq(z, v[i], v[0])));
    }
    free(v);
    for (uint64_t el = 0, j; d && el < n; el++) {
        uint64_t own = wh_elem_owner(p, l, el, &j);
        if (own >= threads || j >= (uint64_t)p->per_thread)
            d = sx_z_and2(z, d, sx_z_not(z, sx_z_eq(z, elem_term(e, r, el, f), sx_z_num(z, own, (int)w))));
    }
    return d;
}

/* Field f of element el of input region r as a term, widened to 64 bits. */
static Z3_ast field_term64(sx_engine *e, const sx_region *r, uint64_t el, int f)
{
    const sx_symbol *s = &e->syms[r->first_sym + (int)el * r->nfields + f];
    Z3_ast t = s->ast ? s->ast : sx_z_num(&e->z, s->value, s->bytes * 8);
    return sx_z_resize(&e->z, t, 64, wh_type_is_signed(s->type));
}

/* A forest of parent links over field f of input region r (at most
 * SX_FOREST_NODES elements): every element that is not a root (its own
 * parent) has a parent of lower rank, ranks being constants of their own
 * ("rank!NAME!v"), so no chain of parents comes back to where it began. */
static Z3_ast forest_ranks(sx_engine *e, const sx_region *r, int f)
{
    sx_z *z = &e->z;
    uint64_t n = e->img->bufs[r->param].count;
    Z3_ast *rank = malloc(n * sizeof *rank), d = z->tru;
    if (!rank)
        return NULL;
    for (uint64_t v = 0; v < n; v++) {
        char name[96];
        snprintf(name, sizeof name, "rank!%s!%llu", e->spec->params[r->param].name, (unsigned long long)v);
        rank[v] = sx_zk(z, Z3_mk_const(z->c, Z3_mk_string_symbol(z->c, name), Z3_mk_bv_sort(z->c, 16)));
    }
    for (uint64_t v = 0; d && v < n; v++) {
        Z3_ast up = field_term64(e, r, v, f), below = z->fls;
        for (uint64_t u = 0; below && u < n; u++)
            if (u != v)
                below = sx_z_or2(z, below, sx_z_and2(z, sx_z_eq(z, up, sx_z_num(z, u, 64)),
                                                     sx_zk(z, Z3_mk_bvult(z->c, rank[u], rank[v]))));
        d = below ? sx_z_and2(z, d, sx_z_or2(z, sx_z_eq(z, up, sx_z_num(z, v, 64)), below)) : NULL;
    }
    free(rank);
    return d;
}

/* The structure of field f of input region r over its symbols (README,
 * "Structured inputs"): neighbours in order, or all distinct (a
 * permutation is distinct values in a range that holds exactly as many). */
static Z3_ast field_order(sx_engine *e, const sx_region *r, int f, wh_error *err)
{
    sx_z *z = &e->z;
    const wh_param *p = &e->spec->params[r->param];
    wh_structure st = field_structure(p, f);
    wh_type t = p->fields[f].type;
    uint64_t n = e->img->bufs[r->param].count;
    wh_bounds bd;
    if (st == WH_STRUCTURE_NONE)
        return z->tru;   /* running sums alone (region_sums) */
    if (st == WH_STRUCTURE_NEIGHBORS)
        return distinct_others(e, r, f, err);
    if (st == WH_STRUCTURE_FOREST)
        return n <= SX_FOREST_NODES ? forest_ranks(e, r, f) : z->tru;
    if (n < 2 || !wh_image_bounds(e->img, r->param, f, 0, &bd, err))
        return n < 2 ? z->tru : NULL;
    if (st == WH_STRUCTURE_DISTINCT || st == WH_STRUCTURE_PERMUTATION) {
        Z3_ast *v = malloc(n * sizeof *v);
        if (!v)
            return NULL;
        for (uint64_t el = 0; el < n; el++)
            v[el] = elem_term(e, r, el, f);
        Z3_ast d = sx_zk(z, Z3_mk_distinct(z->c, (unsigned)n, v));
        free(v);
        return d;
    }
    Z3_ast d = z->tru;
    for (uint64_t el = 1; d && el < n; el++)
        d = sx_z_and2(z, d, elem_order(e, t, bd.flo, elem_term(e, r, el - 1, f), elem_term(e, r, el, f),
                                       st == WH_STRUCTURE_STRICTLY_SORTED));
    if (d && st == WH_STRUCTURE_OFFSETS) {
        int w = (int)wh_type_size(t) * 8;
        d = sx_z_and2(z, d, sx_z_eq(z, elem_term(e, r, 0, f), sx_z_num(z, (uint64_t)bd.lo, w)));
        d = sx_z_and2(z, d, sx_z_eq(z, elem_term(e, r, n - 1, f), sx_z_num(z, (uint64_t)bd.hi, w)));
    }
    return d;
}

static Z3_ast region_structure(sx_engine *e, const sx_region *r, wh_error *err)
{
    Z3_ast d = e->z.tru;
    for (int f = 0; d && f < e->spec->params[r->param].nfields; f++)
        d = sx_z_and2(&e->z, d, field_order(e, r, f, err));
    return d;
}

bool sx_structure_assumed(const wh_image *img, int p)
{
    const wh_param *par = img->bufs[p].param;
    if (par->below_rows)
        return img->bufs[p].count <= SX_STRUCTURE_MAX &&
               img->bufs[p].count * wh_csr_nrows(img, par->below_rows - 1) <= SX_BELOW_ROW_PAIRS;
    uint64_t most = par->table ? SX_TABLE_SLOTS : par->structure == WH_STRUCTURE_FOREST ? SX_FOREST_NODES : SX_STRUCTURE_MAX;
    return wh_param_structured(par) && img->bufs[p].count <= most;
}

/* The array fields' structures of input region r (README, "Structured
 * inputs"): each element's array in order, or its values distinct. */
static Z3_ast region_arrays(sx_engine *e, const sx_region *r)
{
    sx_z *z = &e->z;
    const wh_param *p = &e->spec->params[r->param];
    uint64_t n = e->img->bufs[r->param].count;
    Z3_ast d = z->tru;
    for (int f = 0; d && f < p->nfields; f++) {
        const wh_field *fd = &p->fields[f];
        if (fd->array_len < 2 || fd->array_index != 0 || fd->structure == WH_STRUCTURE_NONE) continue;
        int len = fd->array_len;
        bool is_signed = wh_type_is_signed(fd->type), strict = fd->structure != WH_STRUCTURE_SORTED;
        Z3_ast *t = malloc((size_t)len * sizeof *t);
        if (!t)
            return NULL;
        for (uint64_t el = 0; d && el < n; el++) {
            for (int k = 0; k < len; k++)
                t[k] = field_term64(e, r, el, f + k);
            if (fd->structure == WH_STRUCTURE_DISTINCT) {
                d = sx_z_and2(z, d, sx_zk(z, Z3_mk_distinct(z->c, (unsigned)len, t)));
                continue;
            }
            for (int k = 1; d && k < len; k++) {
                Z3_ast o = is_signed ? (strict ? Z3_mk_bvslt(z->c, t[k - 1], t[k]) : Z3_mk_bvsle(z->c, t[k - 1], t[k]))
                                     : (strict ? Z3_mk_bvult(z->c, t[k - 1], t[k]) : Z3_mk_bvule(z->c, t[k - 1], t[k]));
                d = sx_z_and2(z, d, sx_zk(z, o));
            }
        }
        free(t);
    }
    return d;
}

/* A tree's links (wh_tree) as core/image_tree.c keeps them: an internal
 * node's children after it, within the buffer, and no node a child twice
 * nor the root one at all: each child field's target (a leaf's: a number
 * of its own past the buffer) and the root distinct. */
static Z3_ast region_tree(sx_engine *e, const sx_region *r)
{
    sx_z *z = &e->z;
    const wh_tree *t = e->spec->params[r->param].tree;
    uint64_t n = e->img->bufs[r->param].count;
    if (!t || n == 0)
        return z->tru;
    size_t m = (size_t)n * (size_t)t->nchildren + 1;
    Z3_ast *slot = malloc(m * sizeof *slot), d = z->tru, zero = sx_z_num(z, 0, 64), past = sx_z_num(z, n, 64);
    if (!slot)
        return NULL;
    slot[0] = zero;   /* the root */
    for (uint64_t el = 0; el < n; el++) {
        Z3_ast internal = sx_zk(z, Z3_mk_not(z->c, sx_zk(z, Z3_mk_bvsgt(z->c, field_term64(e, r, el, t->leaf), zero))));
        for (int k = 0; k < t->nchildren; k++) {
            Z3_ast c = field_term64(e, r, el, t->children[k]);
            Z3_ast ok = sx_z_and2(z, sx_zk(z, Z3_mk_bvugt(z->c, c, sx_z_num(z, el, 64))),
                                  sx_zk(z, Z3_mk_bvult(z->c, c, past)));
            d = sx_z_and2(z, d, sx_zk(z, Z3_mk_implies(z->c, internal, ok)));
            slot[1 + el * (uint64_t)t->nchildren + (uint64_t)k] =
                sx_z_ite(z, internal, c, sx_z_num(z, n + el * (uint64_t)t->nchildren + (uint64_t)k, 64));
        }
    }
    d = sx_z_and2(z, d, sx_zk(z, Z3_mk_distinct(z->c, (unsigned)m, slot)));
    free(slot);
    return d;
}

static Z3_ast xor_shift(sx_z *z, Z3_ast v, int by)
{
    return sx_zk(z, Z3_mk_bvxor(z->c, v, sx_zk(z, Z3_mk_bvlshr(z->c, v, sx_z_num(z, (uint64_t)by, 32)))));
}

/* The key whose hash is the 32-bit term v, as wh_key_unhash: fmix32's
 * steps undone in reverse order (an xor-shift by 13 undone by the shifts
 * by 13 and 26 of the input). */
static Z3_ast key_of_hash(sx_z *z, wh_key_hash h, Z3_ast v)
{
    if (h == WH_HASH_IDENTITY)
        return v;
    v = sx_zk(z, Z3_mk_bvmul(z->c, xor_shift(z, v, 16), sx_z_num(z, WH_FMIX32_INV2, 32)));
    Z3_ast by13 = sx_zk(z, Z3_mk_bvlshr(z->c, v, sx_z_num(z, 13, 32)));
    Z3_ast by26 = sx_zk(z, Z3_mk_bvlshr(z->c, v, sx_z_num(z, 26, 32)));
    v = sx_zk(z, Z3_mk_bvxor(z->c, v, sx_zk(z, Z3_mk_bvxor(z->c, by13, by26))));
    return xor_shift(z, sx_zk(z, Z3_mk_bvmul(z->c, v, sx_z_num(z, WH_FMIX32_INV1, 32))), 16);
}

/* A hash table's slots (wh_hash_table) as core/image_hash_table.c keeps
 * them: an occupied slot's key at most max_probes - 1 slots after its
 * home (d), the d slots before it occupied by other keys, and at most
 * max_keys keys.  Said of each key's hash, a fresh term the key is the
 * inverse hash of: the hash is a bijection, so this is the same
 * constraint, but the solver then computes keys from hashes (forward
 * through the multiplications) instead of searching keys for a hash. */
static Z3_ast region_hash_table(sx_engine *e, const sx_region *r, wh_error *err)
{
    sx_z *z = &e->z;
    const wh_hash_table *t = e->spec->params[r->param].table;
    uint64_t n = e->img->bufs[r->param].count, probes, max_keys;
    if (!t || n == 0)
        return z->tru;
    if (!wh_image_hash_table_limits(e->img, r->param, &probes, &max_keys, err))
        return NULL;
    Z3_ast *hash = malloc(n * sizeof *hash), *occ = malloc(n * sizeof *occ), d = z->tru, keys = sx_z_num(z, 0, 64);
    if (!hash || !occ) {
        free(hash);
        free(occ);
        return NULL;
    }
    Z3_ast empty = sx_z_num(z, wh_key_hash_of(t->hash, (uint32_t)t->empty), 32), slots = sx_z_num(z, n, 64);
    for (uint64_t i = 0; d && i < n; i++) {
        char name[96];
        snprintf(name, sizeof name, "hash!%s!%llu", e->spec->params[r->param].name, (unsigned long long)i);
        hash[i] = sx_zk(z, Z3_mk_const(z->c, Z3_mk_string_symbol(z->c, name), Z3_mk_bv_sort(z->c, 32)));
        Z3_ast key = sx_z_extract(z, field_term64(e, r, i, t->key), 31, 0);
        d = sx_z_and2(z, d, sx_z_eq(z, key, key_of_hash(z, t->hash, hash[i])));
        occ[i] = sx_z_not(z, sx_z_eq(z, hash[i], empty));
        keys = sx_zk(z, Z3_mk_bvadd(z->c, keys, sx_z_ite(z, occ[i], sx_z_num(z, 1, 64), sx_z_num(z, 0, 64))));
    }
    for (uint64_t i = 0; d && i < n; i++) {
        Z3_ast home = sx_z_resize(z, sx_zk(z, Z3_mk_bvurem(z->c, hash[i], sx_z_num(z, n, 32))), 64, false);
        Z3_ast dist = sx_zk(z, Z3_mk_bvurem(z->c, sx_zk(z, Z3_mk_bvsub(z->c, sx_z_num(z, i + n, 64), home)), slots));
        Z3_ast ok = sx_zk(z, Z3_mk_bvult(z->c, dist, sx_z_num(z, probes, 64)));
        for (uint64_t j = 1; ok && j < probes; j++) {
            uint64_t s = (i + n - j) % n;
            Z3_ast on_way = sx_zk(z, Z3_mk_bvuge(z->c, dist, sx_z_num(z, j, 64)));
            Z3_ast other = sx_z_and2(z, occ[s], sx_z_not(z, sx_z_eq(z, hash[s], hash[i])));
            ok = sx_z_and2(z, ok, sx_zk(z, Z3_mk_implies(z->c, on_way, other)));
        }
        d = ok ? sx_z_and2(z, d, sx_zk(z, Z3_mk_implies(z->c, occ[i], ok))) : NULL;
    }
    free(hash);
    free(occ);
    return d ? sx_z_and2(z, d, sx_zk(z, Z3_mk_bvule(z->c, keys, sx_z_num(z, max_keys, 64)))) : NULL;
}

static const sx_region *input_region(const sx_engine *e, int p)
{
    for (int i = 0; i < e->nregions; i++)
        if (e->regions[i].param == p && e->regions[i].input)
            return &e->regions[i];
    return NULL;
}

/* Field df of region dr the running sum of field sf of region sr (README,
 * "Running sums"), as image_structure.c keeps it: from the range's low
 * end, the total no higher than its high end. */
static Z3_ast running_sum(sx_engine *e, const sx_region *dr, int df, const sx_region *sr, int sf, wh_error *err)
{
    sx_z *z = &e->z;
    wh_bounds bd;
    if (!sr || !wh_image_bounds(e->img, dr->param, df, 0, &bd, err))
        return NULL;
    uint64_t n = e->img->bufs[dr->param].count;
    Z3_ast run = sx_z_num(z, (uint64_t)bd.lo, 64), d = z->tru;
    for (uint64_t el = 0; d && el < n; el++) {
        d = sx_z_and2(z, d, sx_z_eq(z, field_term64(e, dr, el, df), run));
        run = sx_zk(z, Z3_mk_bvadd(z->c, run, field_term64(e, sr, el, sf)));
    }
    return d ? sx_z_and2(z, d, sx_zk(z, Z3_mk_bvsle(z->c, run, sx_z_num(z, (uint64_t)bd.hi, 64)))) : NULL;
}

/* The running sums region r is the sum of (on the buffer or its fields). */
static Z3_ast region_sums(sx_engine *e, const sx_region *r, wh_error *err)
{
    const wh_param *p = &e->spec->params[r->param];
    Z3_ast d = e->z.tru;
    if (p->prefix_of)
        d = running_sum(e, r, 0, input_region(e, p->prefix_of - 1), 0, err);
    for (int f = 0; d && f < p->nfields; f++) {
        Z3_ast sum = p->fields[f].prefix_of ? running_sum(e, r, f, r, p->fields[f].prefix_of - 1, err) : e->z.tru;
        d = sum ? sx_z_and2(&e->z, d, sum) : NULL;
    }
    return d;
}

/* Element el of integer buffer p as a 64-bit term: its symbol's when p is
 * an input region, else its value in the image (a fixed row pointer). */
static Z3_ast int_term64(sx_engine *e, int p, uint64_t el)
{
    const sx_region *r = input_region(e, p);
    return r ? field_term64(e, r, el, 0) : sx_z_num(&e->z, (uint64_t)wh_image_int(e->img, p, el), 64);
}

/* Is v one of the level's rows (false without a level)? */
static Z3_ast in_level(sx_engine *e, int level, Z3_ast v)
{
    Z3_ast d = e->z.fls;
    for (uint64_t j = 0; level >= 0 && d && j < e->img->bufs[level].count; j++)
        d = sx_z_or2(&e->z, d, sx_z_eq(&e->z, int_term64(e, level, j), v));
    return d;
}

/* "below_row" (README, "Columns of a lower triangle"), as image_rows.c
 * keeps it: an entry of row k names a column below k, outside the level
 * when row k is in it; a row with no column below it (k at or under the
 * range's low end) names itself.  Stronger than the projection in two
 * cases, so that every atom keeps it: a level row all of whose lower rows
 * are in the level can hold no entry here (the projection would let it
 * name itself), and with "increasing" a row holds no more entries than
 * it has columns below it, row 0 none (the projection moves the rest to
 * other rows, naming the diagonal only when the rows cannot hold them). */
static Z3_ast region_below_rows(sx_engine *e, const sx_region *r, wh_error *err)
{
    sx_z *z = &e->z;
    const wh_param *p = &e->spec->params[r->param];
    if (!p->below_rows)
        return z->tru;
    int rows = p->below_rows - 1, level = p->below_level - 1, lens = e->spec->params[rows].prefix_of - 1;
    wh_bounds bd;
    if (!wh_image_bounds(e->img, r->param, 0, 0, &bd, err))
        return NULL;
    uint64_t ncols = e->img->bufs[r->param].count, nrows = wh_csr_nrows(e->img, rows);
    /* each slot's column, and whether it lies outside the level */
    Z3_ast *col = malloc((ncols ? ncols : 1) * sizeof *col), *outside = malloc((ncols ? ncols : 1) * sizeof *outside);
    Z3_ast d = col && outside ? z->tru : NULL;
    for (uint64_t el = 0; d && el < ncols; el++) {
        col[el] = field_term64(e, r, el, 0);
        outside[el] = sx_z_not(z, in_level(e, level, col[el]));
    }
    for (uint64_t k = 0; d && k < nrows; k++) {
        Z3_ast row = sx_z_num(z, k, 64), start = int_term64(e, rows, k);
        Z3_ast end = lens >= 0 ? sx_zk(z, Z3_mk_bvadd(z->c, start, int_term64(e, lens, k))) : int_term64(e, rows, k + 1);
        Z3_ast other_level = sx_z_not(z, in_level(e, level, row));
        Z3_ast none_below = (int64_t)k <= bd.lo && !p->below_increasing ? z->tru : z->fls;
        for (uint64_t el = 0; d && el < ncols; el++) {
            Z3_ast at = sx_z_num(z, el, 64);
            Z3_ast in_row = sx_z_and2(z, sx_zk(z, Z3_mk_bvsle(z->c, start, at)), sx_zk(z, Z3_mk_bvslt(z->c, at, end)));
            Z3_ast fits = sx_z_and2(z, sx_zk(z, Z3_mk_bvslt(z->c, col[el], row)), sx_z_or2(z, other_level, outside[el]));
            Z3_ast diagonal = sx_z_and2(z, none_below, sx_z_eq(z, col[el], row));
            d = sx_z_and2(z, d, sx_z_or2(z, sx_z_not(z, in_row), sx_z_or2(z, fits, diagonal)));
            /* "increasing": a slot and the next in the row increase (a row
             * has no more entries than columns below it here) */
            if (p->below_increasing && el + 1 < ncols) {
                Z3_ast next_in = sx_zk(z, Z3_mk_bvslt(z->c, sx_z_num(z, el + 1, 64), end));
                Z3_ast rises = sx_zk(z, Z3_mk_bvslt(z->c, col[el], col[el + 1]));
                d = sx_z_and2(z, d, sx_z_or2(z, sx_z_not(z, sx_z_and2(z, in_row, next_in)), rises));
            }
        }
    }
    if (!col || !outside)
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
    free(col);
    free(outside);
    return d;
}

static bool build_structure(sx_engine *e, wh_error *err)
{
    sx_z *z = &e->z;
    Z3_ast d = NULL;
    for (int i = 0; i < e->nregions; i++) {
        const sx_region *r = &e->regions[i];
        if (r->param < 0 || !r->input || !sx_structure_assumed(e->img, r->param))
            continue;
        Z3_ast rs = region_structure(e, r, err), sums = rs ? region_sums(e, r, err) : NULL;
        Z3_ast arrays = sums ? region_arrays(e, r) : NULL, tree = arrays ? region_tree(e, r) : NULL;
        Z3_ast table = tree ? region_hash_table(e, r, err) : NULL, below = table ? region_below_rows(e, r, err) : NULL;
        if (!rs || !sums || !arrays || !tree || !table || !below)
            return false;
        rs = sx_z_and2(z, sx_z_and2(z, sx_z_and2(z, sx_z_and2(z, sx_z_and2(z, rs, sums), arrays), tree), table), below);
        d = d ? sx_z_and2(z, d, rs) : rs;
    }
    if (d) {
        sx_z_inc(z, d);
        e->structure = d;
    }
    sx_z_release(z);
    return true;
}

static bool build_domains(sx_engine *e, wh_error *err)
{
    sx_z *z = &e->z;
    if (!build_structure(e, err))
        return false;
    Z3_ast d = e->structure ? e->structure : z->tru;
    for (int i = 0; i < e->nsyms; i++)
        if (e->syms[i].domain)
            d = sx_z_and2(z, d, e->syms[i].domain);
    if (!d)
        return false;
    sx_z_inc(z, d);
    e->domains = d;
    sx_z_release(z);
    return true;
}

bool sx_layout_build(sx_engine *e, wh_error *err)
{
    wh_launch l = wh_launch_threads((unsigned)e->X);
    e->img = wh_image_new(e->spec, &l, err);
    if (!e->img)
        return false;
    if (!ptx_one_block_clusters(e->entry, e->mod->name, err) ||
        !ptx_spec_check(e->mod, e->entry, e->spec, &l, e->mod->name, err) || !alloc_func_layouts(e))
        goto oom;
    int *param_region = neg_ints(e->spec->nparams);
    if (!param_region)
        goto oom;
    int nglobal = 0;   /* global regions so far */
    e->scalar_sym = malloc((size_t)(e->spec->nparams + 1) * sizeof *e->scalar_sym);
    if (!e->scalar_sym) {
        free(param_region);
        goto oom;
    }
    for (int p = 0; p < e->spec->nparams; p++) {
        const wh_param *sp = &e->spec->params[p];
        e->scalar_sym[p] = -1;
        if (sp->kind == WH_SCALAR && sp->role == WH_ROLE_INPUT && !add_symbols(e, p, -1, err)) {
            free(param_region);
            return false;
        }
        if (sp->kind != WH_BUFFER || sp->global)   /* globals: module_vars */
            continue;
        const wh_buffer *b = &e->img->bufs[p];
        int r = add_region(e, sp->name, SX_R_PARAMBUF, PTX_SPACE_GLOBAL, global_region_base(nglobal++), b->bytes, -1);
        if (r < 0) {
            free(param_region);
            goto oom;
        }
        param_region[p] = r;
        e->regions[r].param = p;
        e->regions[r].elem_size = sp->elem_size;
        if (sp->role == WH_ROLE_INPUT) {
            if (!add_symbols(e, p, r, err)) {
                free(param_region);
                return false;
            }
        } else {
            e->regions[r].init = b->data;
        }
    }
    ptx_memmap mm;
    ptx_memmap_build(e->mod, e->entry_idx, &mm);
    e->call_targets = wh_xcalloc((size_t)(e->mod->nfuncs ? e->mod->nfuncs : 1), sizeof *e->call_targets);
    for (int fi = 0; fi < e->mod->nfuncs; fi++)
        if (mm.address_taken[fi])
            e->call_targets[e->ncall_targets++] = fi;
    bool ok = build_params(e, param_region) && objects(e, &l, param_region, err) && module_vars(e, &mm, &nglobal, err) && heap(e, &mm, &nglobal) &&
              function_shared(e, &mm)
              && extern_shared(e, &mm) && locals(e, &mm) && build_domains(e, err) && build_symids(e);
    ptx_memmap_free(&mm);
    free(param_region);
    if (!ok)
        goto oom;
    return true;
oom:
    if (!wh_error_is_set(err))
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory laying out the launch");
    return false;
}

Z3_model sx_layout_input_model(sx_engine *e, const wh_image *img)
{
    sx_z *z = &e->z;
    Z3_model m = Z3_mk_model(z->c);
    if (!m)
        return NULL;
    Z3_model_inc_ref(z->c, m);
    for (int i = 0; i < e->nsyms; i++) {
        const sx_symbol *s = &e->syms[i];
        if (!s->ast)
            continue;
        uint64_t v = img ? sx_symbol_read(s, &e->spec->params[s->param], img) : s->low;
        Z3_func_decl d = Z3_get_app_decl(z->c, Z3_to_app(z->c, s->ast));
        Z3_add_const_interp(z->c, m, d, sx_z_num(z, v, s->bytes * 8));
    }
    sx_z_release(z);
    return m;
}

Z3_model sx_layout_low_model(sx_engine *e)
{
    sx_z *z = &e->z;
    Z3_model m = sx_layout_input_model(e, NULL);
    if (!m)
        return NULL;
    Z3_ast v = NULL;
    bool ok = Z3_model_eval(z->c, m, e->domains, true, &v) && v && sx_z_bool_value(z, v) == 1;
    sx_z_release(z);
    if (!ok) {
        Z3_model_dec_ref(z->c, m);
        return NULL;
    }
    return m;
}

void sx_layout_free(sx_engine *e)
{
    for (int i = 0; i < e->nregions; i++) {
        free(e->regions[i].name);
        free(e->regions[i].init_own);
    }
    free(e->regions);
    free(e->call_targets);
    for (int i = 0; i < e->nsyms; i++) {
        free(e->syms[i].name);
        sx_z_dec(&e->z, e->syms[i].ast);
        sx_z_dec(&e->z, e->syms[i].domain);
    }
    free(e->syms);
    free(e->symids);
    sx_z_dec(&e->z, e->domains);
    sx_z_dec(&e->z, e->structure);
    free(e->params);
    free(e->tex);
    free(e->tex_region);
    free(e->tmap);
    free(e->tmap_region);
    free(e->scalar_sym);
    if (e->fl) {
        for (int fi = 0; fi < e->mod->nfuncs; fi++) {
            free(e->fl[fi].param_region);
            free(e->fl[fi].ret_region);
            free(e->fl[fi].var_region);
        }
        free(e->fl);
    }
    wh_image_free(e->img);
}

static bool region_matches(const sx_region *r, ptx_space space, int thread)
{
    ptx_space rs = r->space;
    if (rs != space)
        return false;
    return rs != PTX_SPACE_LOCAL || r->thread == thread;
}

int sx_layout_find(const sx_engine *e, ptx_space space, int thread, uint64_t addr)
{
    for (int i = 0; i < e->nregions; i++) {
        const sx_region *r = &e->regions[i];
        if (region_matches(r, space, thread) && addr >= r->base && addr - r->base < r->size)
            return i;
    }
    return -1;
}

/* The region an address was most likely derived from: the one with the
 * highest base not above it (or the lowest one). */
int sx_layout_nearest(const sx_engine *e, ptx_space space, int thread, uint64_t addr)
{
    int best = -1, low = -1;
    for (int i = 0; i < e->nregions; i++) {
        const sx_region *r = &e->regions[i];
        if (!region_matches(r, space, thread))
            continue;
        if (r->base <= addr && (best < 0 || r->base > e->regions[best].base))
            best = i;
        if (low < 0 || r->base < e->regions[low].base)
            low = i;
    }
    return best >= 0 ? best : low;
}

/* A region's generic address (the semantics contract's map).  Local
 * memory is thread-private: every thread sees its own at the same
 * addresses, as on the GPU, and an access resolves by the thread making
 * it. */
uint64_t sx_layout_generic(const sx_region *r)
{
    switch (r->space) {
    case PTX_SPACE_SHARED: return PTX_ADDR_SHARED + r->base;
    case PTX_SPACE_CONST: return PTX_ADDR_CONST + r->base;
    case PTX_SPACE_LOCAL: return PTX_ADDR_LOCAL + r->base;
    default: return r->base;
    }
}

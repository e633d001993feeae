/*
 * init_infer.c — what a kernel's parameters are, guessed from its PTX, for
 * `warphunt init`'s draft spec.
 *
 * Two sources, the second filling what the first leaves open:
 *   - the mangled entry name (C++ kernels: `_Z10bfs_kernelP4NodePiPbS2_...`)
 *     gives each parameter's C++ type: pointer or not, const or not, the
 *     pointee's builtin type or struct name;
 *   - the code: a flow-insensitive pass over the entry's instructions
 *     follows each 64-bit parameter through moves, cvta and address
 *     arithmetic to the loads, stores and atomics it addresses.  Their
 *     widths and offsets give the element's type or a struct's fields,
 *     the index stride (`mul.wide x, 8` added to the base) the element's
 *     size, reads versus writes the role, and what the indices derive
 *     from (the thread's position, or only values loaded from memory: an
 *     array every thread reads, not a slice per thread).
 * Both are guesses, and the draft says which fields a user must check.
 */
#include "cli/init.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the mangled name ----------------------------------------------------- */

typedef struct {
    const char *at;
    char subs[16][64];      /* substitution candidates (S_, S0_, ...) */
    int nsubs;
} demangler;

static void add_sub(demangler *d, const char *text)
{
    if (d->nsubs < 16) snprintf(d->subs[d->nsubs++], sizeof d->subs[0], "%s", text);
}

static const char *builtin_name(char c)
{
    switch (c) {
    case 'v': return "void";
    case 'b': return "bool";
    case 'c': return "char";
    case 'a': return "signed char";
    case 'h': return "unsigned char";
    case 's': return "short";
    case 't': return "unsigned short";
    case 'i': return "int";
    case 'j': return "unsigned int";
    case 'l': return "long";
    case 'm': return "unsigned long";
    case 'x': return "long long";
    case 'y': return "unsigned long long";
    case 'f': return "float";
    case 'd': return "double";
    default: return NULL;
    }
}

/* One <type> into out ("const float*", "Node*"); false when it is a form
 * this small demangler does not read (templates, namespaces, arrays). */
static bool demangle_type(demangler *d, char *out, size_t n)
{
    char c = *d->at;
    if (!c) return false;
    const char *b = builtin_name(c);
    if (b) {
        d->at++;
        snprintf(out, n, "%s", b);
        return true;
    }
    if (c == 'P' || c == 'K') {
        d->at++;
        char inner[64];
        if (!demangle_type(d, inner, sizeof inner)) return false;
        if (c == 'P') snprintf(out, n, "%.62s*", inner);
        else snprintf(out, n, "const %.57s", inner);
        add_sub(d, out);
        return true;
    }
    if (c == 'S') {
        int k = 0;
        d->at++;
        if (*d->at != '_') {
            if (*d->at < '0' || *d->at > '9') return false;
            k = (*d->at - '0') + 1;
            d->at++;
        }
        if (*d->at != '_' || k >= d->nsubs) return false;
        d->at++;
        snprintf(out, n, "%s", d->subs[k]);
        return true;
    }
    if (c >= '1' && c <= '9') {
        char *end;
        long len = strtol(d->at, &end, 10);
        if (len <= 0 || len > 60 || (long)strlen(end) < len) return false;
        snprintf(out, n, "struct %.*s", (int)len, end);
        d->at = end + len;
        add_sub(d, out);
        return true;
    }
    return false;
}

/* The C++ parameter types of a mangled entry name; -1 when it is not one
 * this reads (the caller then goes by the code alone). */
static int demangle_params(const char *mangled, char types[][64], int max)
{
    if (strncmp(mangled, "_Z", 2)) return -1;
    char *end;
    long len = strtol(mangled + 2, &end, 10);
    if (len <= 0 || (long)strlen(end) < len) return -1;
    demangler d = { .at = end + len };
    int n = 0;
    while (*d.at && n < max)
        if (!demangle_type(&d, types[n++], 64)) return -1;
    return *d.at ? -1 : n;
}

/* ---- the code ------------------------------------------------------------- */

/* What a register holds, as far as the pass knows. */
typedef struct {
    int param;              /* a pointer derived from this parameter, or -1 */
    int64_t stride;         /* ... indexed by a product with this factor (0: none seen) */
    int64_t product;        /* the register is index * product (0: not a product) */
    int64_t offset;         /* ... plus these bytes added by immediates (nvcc points past a struct's
                               first fields and reaches them at negative offsets) */
    bool offset_varies;     /* ... by different amounts on different paths (a loop's pointer): unknown */
    unsigned taint;         /* the value derives from the thread's index (T_THREAD), from memory (T_LOADED) */
    unsigned index_taint;   /* a pointer: what the indices added to its parameter derive from */
    uint64_t rows_of;       /* the value derives from values read at the thread's position from these
                               parameters (bit p; parameters past 63 are not followed) */
    uint64_t stepped;       /* ... and was stepped by a loop (r = r + x): a walk from a loaded start */
    bool counted;           /* the value derives from a loop's step (r = r + x) */
    uint64_t index_rows_of; /* a pointer: its indices' rows_of */
    uint64_t index_stepped; /* ... their stepped, and its own walk's (p = p + x) */
    bool index_counted;     /* ... indexed by a loop's count, or walked itself */
    uint64_t picked_of;     /* the value is one read at the thread's position from these parameters, as
                               read (widened, or scaled by a constant): an index list's entry */
    uint64_t index_picked_of; /* a pointer: indexed by such values (x[index[t]]) */
} reg_info;

enum { T_THREAD = 1, T_LOADED = 2 };

/* The taint a source operand brings: its register's, or the thread's
 * position for %tid, %ctaid, %laneid and %warpid. */
static unsigned operand_taint(const ptx_operand *o, const reg_info *regs)
{
    if (o->kind == PTX_OPD_REG && o->reg >= 0) return regs[o->reg].taint;
    if (o->kind == PTX_OPD_SPECIAL && (o->sreg == PTX_SREG_TID || o->sreg == PTX_SREG_CTAID ||
                                       o->sreg == PTX_SREG_LANEID || o->sreg == PTX_SREG_WARPID))
        return T_THREAD;
    return 0;
}

static uint64_t param_bit(int p)
{
    return p >= 0 && p < 64 ? (uint64_t)1 << p : 0;
}

/* A loaded value is data, whatever its address derives from (and a row
 * start when read at the thread's position: a CSR row pointer's entry,
 * say); a computed one carries its operands' taints. */
static void flow_taint(const ptx_instr *in, reg_info *regs, reg_info *d)
{
    bool load = in->op == PTX_OP_LD || in->op == PTX_OP_LDU || in->op == PTX_OP_ATOM;
    if (load) {
        if (in->space != PTX_SPACE_PARAM) d->taint |= T_LOADED;
        const ptx_operand *a = &in->ops[1];
        if (in->op == PTX_OP_ATOM || a->kind != PTX_OPD_ADDR || a->reg < 0 || regs[a->reg].param < 0) return;
        const reg_info *at = &regs[a->reg];
        /* a row start: read at the thread's position, or at the position an
         * index list gives the thread (start[level[t]]) */
        if ((at->index_taint & T_THREAD) || at->index_picked_of) d->rows_of |= param_bit(at->param);
        if ((at->index_taint & T_THREAD) && !at->index_counted) d->picked_of |= param_bit(at->param);
        return;
    }
    for (int k = 1; k < in->nops; k++) {
        d->taint |= operand_taint(&in->ops[k], regs);
        if (in->ops[k].kind == PTX_OPD_REG && in->ops[k].reg >= 0) {
            d->rows_of |= regs[in->ops[k].reg].rows_of;
            d->stepped |= regs[in->ops[k].reg].stepped;
            d->counted |= regs[in->ops[k].reg].counted;
        }
    }
}

/* A pointer d takes its indices' row starts (base's and index's); an
 * index that a loop steps makes them a walk. */
static void flow_rows(reg_info *d, const reg_info *base, const reg_info *index)
{
    d->index_rows_of |= base->index_rows_of | (index ? index->rows_of : 0);
    d->index_stepped |= base->index_stepped | (index ? index->stepped : 0);
    d->index_counted |= base->index_counted || (index && index->counted);
    d->index_picked_of |= base->index_picked_of | (index ? index->picked_of : 0);
    if (index && index->counted) d->index_stepped |= d->index_rows_of;
}

static int param_named(const ptx_function *f, const ptx_operand *o)
{
    if (o->kind != PTX_OPD_ADDR && o->kind != PTX_OPD_SYMBOL) return -1;
    for (int p = 0; p < f->nparams; p++)
        if (o->sym.name && !strcmp(o->sym.name, f->params[p].name)) return p;
    return -1;
}

static bool is_reg(const ptx_operand *o)
{
    return o->kind == PTX_OPD_REG && o->reg >= 0;
}

/* d points `add` bytes past where base points. */
static void set_offset(reg_info *d, const reg_info *base, int64_t add)
{
    int64_t off = base->offset + add;
    bool varies = base->offset_varies || (d->param >= 0 && d->offset != off && (d->offset || d->offset_varies));
    d->offset_varies |= varies;
    d->offset = d->offset_varies ? 0 : off;
}

/* Apply one instruction to the registers; true when something changed. */
static bool flow(const ptx_function *f, const ptx_instr *in, reg_info *regs)
{
    if (in->nops < 2 || !is_reg(&in->ops[0])) return false;
    reg_info *d = &regs[in->ops[0].reg], before = *d;
    const ptx_operand *a = &in->ops[1], *b = in->nops > 2 ? &in->ops[2] : NULL;
    const reg_info *ra = is_reg(a) ? &regs[a->reg] : NULL, *rb = b && is_reg(b) ? &regs[b->reg] : NULL;
    flow_taint(in, regs, d);
    switch (in->op) {
    case PTX_OP_LD:
        if (in->space == PTX_SPACE_PARAM && ptx_type_size(in->type) == 8 && param_named(f, a) >= 0)
            d->param = param_named(f, a);
        break;
    case PTX_OP_MOV:
    case PTX_OP_CVTA:
    case PTX_OP_CVT:
        /* a by-value parameter's address (mov %rd, param; cvta.param), as
         * a __grid_constant__ tensor map is named */
        if (in->op == PTX_OP_MOV && param_named(f, a) >= 0 && f->params[param_named(f, a)].size == PTX_TMAP_BYTES)
            d->param = param_named(f, a);
        if (ra) {
            if (ra->param >= 0) d->param = ra->param, d->stride = ra->stride, set_offset(d, ra, 0);
            if (ra->product) d->product = ra->product;
            d->index_taint |= ra->index_taint;
            d->picked_of |= ra->picked_of;
            flow_rows(d, ra, NULL);
        }
        break;
    /* products compose: i * 5 then * 4 (mul.wide to bytes) is i * 20 */
    case PTX_OP_MUL:
        if (b && b->kind == PTX_OPD_IMM_INT && b->ival > 0 && b->ival < (1 << 20)) {
            d->product = (ra && ra->product && ra->product < (1 << 20) ? ra->product : 1) * b->ival;
            d->picked_of |= ra ? ra->picked_of : 0;   /* an element index scaled to bytes */
        }
        break;
    case PTX_OP_SHL:
        if (b && b->kind == PTX_OPD_IMM_INT && b->ival >= 0 && b->ival < 31) {
            d->product = (ra && ra->product && ra->product < (1 << 20) ? ra->product : 1) << b->ival;
            d->picked_of |= ra ? ra->picked_of : 0;
        }
        break;
    case PTX_OP_MAD: /* mad.wide d, x, C, base */
        if (in->nops >= 4 && is_reg(&in->ops[3]) && regs[in->ops[3].reg].param >= 0 && b &&
            b->kind == PTX_OPD_IMM_INT && b->ival > 0) {
            d->param = regs[in->ops[3].reg].param, d->stride = b->ival, set_offset(d, &regs[in->ops[3].reg], 0);
            d->index_taint |= regs[in->ops[3].reg].index_taint | operand_taint(a, regs);
            flow_rows(d, &regs[in->ops[3].reg], ra);
        }
        break;
    case PTX_OP_ADD:
    case PTX_OP_SUB: {
        const reg_info *base = ra && ra->param >= 0 ? ra : rb && rb->param >= 0 ? rb : NULL;
        const reg_info *index = base == ra ? rb : ra;
        bool self = ra == d || rb == d;   /* r = r + x: a loop's step */
        if (!base) {
            d->counted |= self;
            /* a loaded start plus a loop's count (start + j) */
            if (self || (ra && ra->counted) || (rb && rb->counted)) d->stepped |= d->rows_of;
            break;
        }
        d->param = base->param;
        d->stride = index && index->product ? index->product : base->stride;
        d->index_taint |= base->index_taint | (index ? index->taint : 0);
        flow_rows(d, base, index);
        if (base == d) {   /* a pointer's walk */
            d->index_stepped |= d->index_rows_of;
            d->index_counted = true;
        }
        const ptx_operand *other = base == ra ? b : a;
        int64_t imm = other && other->kind == PTX_OPD_IMM_INT ? other->ival : 0;
        set_offset(d, base, in->op == PTX_OP_SUB ? -imm : imm);
        break;
    }
    default: break;
    }
    return memcmp(d, &before, sizeof before) != 0;
}

static void note_access(init_param *p, const ptx_instr *in, const reg_info *base, int64_t off)
{
    bool atomic = in->op == PTX_OP_ATOM || in->op == PTX_OP_RED;
    p->read |= in->op == PTX_OP_LD || in->op == PTX_OP_LDU; /* an atomic's old value is not an input's */
    p->nloads += in->op == PTX_OP_LD || in->op == PTX_OP_LDU;
    p->written |= in->op == PTX_OP_ST || atomic;
    p->atomic |= atomic;
    if (base->index_taint & T_THREAD) p->thread_indexed = true;
    else if (base->index_taint & T_LOADED) p->data_indexed = true;
    if (base->stride > 0 && (p->stride == 0 || base->stride > p->stride)) p->stride = base->stride;
    int size = ptx_type_size(in->type), vec = in->vec > 0 ? in->vec : 1;
    for (int k = 0; k < vec && size > 0; k++) {
        /* offsets past the index stride are later elements (an unrolled
         * loop), not fields */
        int64_t at = off + (int64_t)k * size;
        if (base->stride > 0) at = ((at % base->stride) + base->stride) % base->stride;
        bool seen = false;
        for (int i = 0; i < p->naccesses; i++)
            if (p->access_off[i] == at) seen = true;
        if (!seen && p->naccesses < INIT_MAX_FIELDS) {
            p->access_off[p->naccesses] = at;
            p->access_type[p->naccesses++] = in->type;
        }
    }
}

/* A tensor copy's (or prefetch's) map operand, named in place or through
 * a register holding its address: the parameter it is, or -1. */
static int tensor_map_param(const ptx_function *f, const ptx_instr *in, const reg_info *regs)
{
    if (in->op != PTX_OP_CP_ASYNC || (!ptx_cp_is_tensor_copy(in->mode) && in->mode != PTX_CP_TENSOR_PREFETCH))
        return -1;
    const ptx_operand *o = &in->ops[ptx_cp_tensor_operand(in->mode)];
    return o->reg >= 0 ? regs[o->reg].param : param_named(f, o);
}

static void accesses(const ptx_function *f, const reg_info *regs, init_param *params)
{
    for (int i = 0; i < f->ninstrs; i++) {
        const ptx_instr *in = &f->instrs[i];
        if (in->op == PTX_OP_PREFETCH && in->nops >= 1 && in->ops[0].reg >= 0 && regs[in->ops[0].reg].param >= 0) {
            bool tensormap = false;
            for (int k = 0; k < in->nmods; k++) tensormap |= !strcmp(in->mods[k], "tensormap");
            params[regs[in->ops[0].reg].param].tmap_prefetched |= tensormap;
            if (tensormap) continue;
        }
        int tm = tensor_map_param(f, in, regs);
        if (tm >= 0) {
            params[tm].tmap_rank = in->ops[ptx_cp_tensor_operand(in->mode)].elems[0].nelems;
            params[tm].tmap_load |= in->mode == PTX_CP_TENSOR_TO_SHARED;
            params[tm].tmap_store |= in->mode == PTX_CP_TENSOR_TO_GLOBAL;
            continue;
        }
        bool writes = in->op == PTX_OP_SUST || in->op == PTX_OP_SURED;   /* sured reads too */
        bool surf = in->op == PTX_OP_SULD || writes || in->op == PTX_OP_SUQ;
        bool query = in->op == PTX_OP_TXQ || in->op == PTX_OP_SUQ;
        bool handle = surf || query || in->op == PTX_OP_TEX || in->op == PTX_OP_TLD4;
        const ptx_operand *h = handle && in->nops >= 2 ? &in->ops[writes ? 0 : 1] : NULL;
        if (h && h->reg >= 0 && regs[h->reg].param >= 0) {
            init_param *t = &params[regs[h->reg].param];   /* a texture or surface object */
            t->surface = surf;
            t->queried |= query;
            if (query)
                continue;
            t->tex_geom = in->mode % PTX_TLD4_COMP;
            t->gathers |= in->op == PTX_OP_TLD4;
            t->lod |= in->op == PTX_OP_TEX && in->nops > 2;   /* a level of detail or gradients */
            t->tex_type = in->type;
            t->tex_coord = in->type2;
            t->read |= in->op != PTX_OP_SUST;
            t->written |= writes;
            continue;
        }
        bool mem = in->op == PTX_OP_LD || in->op == PTX_OP_LDU || in->op == PTX_OP_ST || in->op == PTX_OP_ATOM ||
                   in->op == PTX_OP_RED;
        if (!mem || in->space == PTX_SPACE_PARAM || in->space == PTX_SPACE_SHARED || in->space == PTX_SPACE_LOCAL)
            continue;
        for (int k = 0; k < in->nops; k++) {
            const ptx_operand *o = &in->ops[k];
            if (o->kind == PTX_OPD_ADDR && o->reg >= 0 && regs[o->reg].param >= 0) {
                int p = regs[o->reg].param;
                note_access(&params[p], in, &regs[o->reg], o->ival + regs[o->reg].offset);
                params[p].rows_through |= regs[o->reg].index_stepped & ~param_bit(p);
                params[p].indexed_through |= regs[o->reg].index_picked_of & ~param_bit(p);
                break;
            }
        }
    }
}

int init_infer(const ptx_function *f, init_param *out, int max)
{
    if (f->nparams > max) return -1;
    char cpp[INIT_MAX_PARAMS][64];
    int ncpp = demangle_params(f->name, cpp, INIT_MAX_PARAMS);
    reg_info *regs = calloc((size_t)(f->nregs ? f->nregs : 1), sizeof *regs);
    if (!regs) return -1;
    for (int r = 0; r < f->nregs; r++) regs[r].param = -1;
    for (int pass = 0, changed = 1; changed && pass < 16; pass++) {
        changed = 0;
        for (int i = 0; i < f->ninstrs; i++) changed |= flow(f, &f->instrs[i], regs);
    }
    memset(out, 0, (size_t)f->nparams * sizeof *out);
    for (int p = 0; p < f->nparams; p++) {
        out[p].name = f->params[p].name;
        out[p].ptx = &f->params[p];
        if (ncpp == f->nparams) snprintf(out[p].cpp_type, sizeof out[p].cpp_type, "%s", cpp[p]);
    }
    accesses(f, regs, out);
    /* a pointer is what addresses memory, or what cvta converts (a 64-bit
     * integer scalar is loaded from the parameters just the same) */
    for (int i = 0; i < f->ninstrs; i++) {
        const ptx_instr *in = &f->instrs[i];
        if (in->op == PTX_OP_CVTA && in->nops >= 2 && is_reg(&in->ops[1]) && regs[in->ops[1].reg].param >= 0)
            out[regs[in->ops[1].reg].param].pointer = true;
    }
    for (int p = 0; p < f->nparams; p++) {
        out[p].pointer |= out[p].naccesses > 0;
        /* cvta.param of a by-value parameter (a tensor map, a struct whose
         * address is taken) makes no pointer of it */
        out[p].pointer &= !out[p].tmap_rank && !out[p].tmap_prefetched && !f->params[p].is_array;
    }
    free(regs);
    for (int p = 0; p < f->nparams; p++)
        if (out[p].cpp_type[0]) out[p].pointer = strchr(out[p].cpp_type, '*') != NULL;
    return f->nparams;
}

int init_rows_pointer(const init_param *params, int nparams, int p)
{
    for (int r = 0; r < nparams && r < 64; r++)
        if (params[p].rows_through >> r & 1) return params[r].naccesses == 1 ? r : -1;
    return -1;
}

int init_index_of(const init_param *params, int nparams, int p)
{
    if (params[p].rows_through) return -1;   /* a walk: rows, whatever the first row's start was read at */
    for (int q = 0; q < nparams && q < 64; q++)
        if (params[p].indexed_through >> q & 1) return params[q].nloads == 1 ? q : -1;
    return -1;
}

/*
 * exec_tex.c — tex, tld4, suld, sust, txq and suq: fetches from a texture
 * object parameter, loads and stores of a surface object parameter, and
 * queries of either, at the places and with the answers ptx/texture.c
 * defines (the emulator follows the same definition).
 *
 * The texels are the texture's buffer, a region like any other, so an
 * input texture's texels are its symbols and a fetch is loads through the
 * memory model.  Coordinates known at the fetch give the texels and
 * weights of ptx_tex_taps.  A symbolic integer coordinate of a 1-D texture
 * under clamp or border addressing -- tex1Dfetch at an index read from the
 * input, the common case -- becomes a symbolic texel index (clamped, or
 * guarded to read 0 out of range), loaded as a symbolic address is.  Any
 * other symbolic coordinate is pinned to the state's model, the equality
 * joining the path condition, as memory.c pins addresses (sound: the path's
 * atoms fetch there; other places are not explored).  Surface coordinates
 * are always pinned when symbolic, and so are tld4's.
 */
#include "symexec/internal.h"

#include <stdio.h>
#include <string.h>

#define C (cx->e->z.c)

static sx_z *ZZ(sx_cx *cx) { return &cx->e->z; }

static Z3_ast fold(sx_cx *cx, Z3_ast a) { return sx_z_fold(ZZ(cx), sx_zk(ZZ(cx), a)); }

static Z3_ast f32(sx_cx *cx, float v)
{
    return sx_zk(ZZ(cx), Z3_mk_fpa_numeral_float(C, v, ZZ(cx)->fp32));
}

static Z3_ast rne(sx_cx *cx) { return ZZ(cx)->rm[SX_RM_RNE]; }

/* Channel c of the texel at byte offset `off` (a bv64 term) of the
 * texture's region, as ptx_tex_channel returns it: a bv32 integer or an
 * fp32 float. */
static Z3_ast channel(sx_cx *cx, const ptx_texture *t, int region, Z3_ast off, int c)
{
    sx_z *z = ZZ(cx);
    if (c >= t->channels)
        return t->chan_float || t->read_normalized ? f32(cx, 0.0f) : sx_z_num(z, 0, 32);
    Z3_ast base = sx_z_num(z, sx_layout_generic(&cx->e->regions[region]) + (uint64_t)(c * t->chan_bytes), 64);
    Z3_ast addr = fold(cx, Z3_mk_bvadd(C, base, off));
    Z3_ast raw;
    if (!sx_mem_load(cx, PTX_SPACE_GLOBAL, addr, t->chan_bytes, &raw) || !raw)
        return NULL;
    int bits = 8 * t->chan_bytes;
    if (t->chan_float)
        return sx_fold_fp(cx, Z3_mk_fpa_to_fp_bv(C, raw, z->fp32));
    if (bits == 32)
        return raw;
    if (!t->read_normalized)
        return sx_z_resize(z, raw, 32, t->chan_signed);
    if (!t->chan_signed) {
        Z3_ast v = sx_fold_fp(cx, Z3_mk_fpa_to_fp_unsigned(C, rne(cx), raw, z->fp32));
        return sx_fold_fp(cx, Z3_mk_fpa_div(C, rne(cx), v, f32(cx, (float)((1u << bits) - 1))));
    }
    Z3_ast v = sx_fold_fp(cx, Z3_mk_fpa_to_fp_signed(C, rne(cx), raw, z->fp32));
    Z3_ast q = sx_fold_fp(cx, Z3_mk_fpa_div(C, rne(cx), v, f32(cx, (float)((1 << (bits - 1)) - 1))));
    Z3_ast most_negative = sx_z_eq(z, raw, sx_z_num(z, (uint64_t)1 << (bits - 1), bits));
    return sx_fold_fp(cx, sx_z_ite(z, most_negative, f32(cx, -1.0f), q));
}

static Z3_ast zero_like(sx_cx *cx, const ptx_texture *t)
{
    return t->chan_float || t->read_normalized ? f32(cx, 0.0f) : sx_z_num(ZZ(cx), 0, 32);
}

/* The four values of a fetch at concrete coordinates and level of detail. */
static bool fetch_taps(sx_cx *cx, const ptx_texture *t, int region, bool int_coords, const uint32_t coord[4],
                       float lod, Z3_ast out[4])
{
    sx_z *z = ZZ(cx);
    ptx_tex_tap taps[PTX_TEX_MAX_TAPS];
    int n = ptx_tex_taps_lod(t, int_coords, coord, lod, taps);
    for (int c = 0; c < 4; c++) {
        Z3_ast acc = n == 1 ? NULL : f32(cx, 0.0f);
        for (int k = 0; k < n; k++) {
            Z3_ast v = zero_like(cx, t);
            if (taps[k].index >= 0) {
                v = channel(cx, t, region, sx_z_num(z, (uint64_t)taps[k].index * (uint64_t)t->texel_bytes, 64), c);
                if (!v)
                    return false;
            }
            if (n == 1) {
                acc = v;
                break;
            }
            Z3_ast term = sx_fold_fp(cx, Z3_mk_fpa_mul(C, rne(cx), f32(cx, taps[k].weight), v));
            acc = sx_fold_fp(cx, Z3_mk_fpa_add(C, rne(cx), acc, term));
        }
        out[c] = acc;
    }
    return true;
}

/* tex1Dfetch-style: a symbolic s32 index into a 1-D texture, clamped or
 * reading 0 out of range. */
static bool fetch_symbolic_index(sx_cx *cx, const ptx_texture *t, int region, Z3_ast i32, Z3_ast out[4])
{
    sx_z *z = ZZ(cx);
    Z3_ast i = sx_z_resize(z, i32, 64, true);
    Z3_ast n = sx_z_num(z, (uint64_t)t->dims[0], 64), zero = sx_z_num(z, 0, 64);
    Z3_ast below = fold(cx, Z3_mk_bvslt(C, i, zero)), above = fold(cx, Z3_mk_bvsge(C, i, n));
    Z3_ast idx, inside = NULL;
    if (t->address[0] == WH_TEX_CLAMP) {
        idx = sx_z_ite(z, below, zero, sx_z_ite(z, above, sx_z_num(z, (uint64_t)t->dims[0] - 1, 64), i));
    } else {
        inside = sx_z_not(z, sx_z_or2(z, below, above));
        idx = sx_z_ite(z, inside, i, zero);
    }
    Z3_ast off = fold(cx, Z3_mk_bvmul(C, idx, sx_z_num(z, (uint64_t)t->texel_bytes, 64)));
    for (int c = 0; c < 4; c++) {
        Z3_ast v = channel(cx, t, region, off, c);
        if (!v)
            return false;
        out[c] = inside ? sx_z_ite(z, inside, v, zero_like(cx, t)) : v;
        if (inside && sx_z_is_fp(z, v))
            out[c] = sx_fold_fp(cx, out[c]);
    }
    return true;
}

/* A symbolic coordinate's value in the state's model, pinned. */
static bool pin(sx_cx *cx, Z3_ast bits, uint32_t *v)
{
    sx_engine *e = cx->e;
    uint64_t u;
    Z3_ast mv = cx->s->model ? sx_model_value(e, cx->s->model, bits) : NULL;
    if (!mv || !sx_z_get_u64(&e->z, mv, &u))
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "a symbolic texture coordinate the model cannot pin (line %d)",
                            cx->ins->line);
    sx_state_add_pc(e, cx->s, sx_z_eq(&e->z, bits, sx_z_num(&e->z, u, 32)));
    e->pinned++;
    *v = (uint32_t)u;
    return true;
}

/* A tex's level of detail (ptx_tex_lod) from its extra operands, each
 * pinned to the state's model when symbolic; 0 without reading them for a
 * texture of one level (which ignores it). */
static bool level_of_detail(sx_cx *cx, const ptx_texture *t, float *lod)
{
    const ptx_instr *ins = cx->ins;
    float v[8] = { 0 };
    int n = 0;
    *lod = 0.0f;
    if (t->levels <= 1)
        return true;
    bool int_level = ins->nops == 3 && ins->type2 == PTX_T_S32;   /* tex.level with .s32 coordinates */
    for (int k = 2; k < ins->nops; k++) {
        const ptx_operand *o = &ins->ops[k];
        for (int e = 0; e < (o->kind == PTX_OPD_VEC ? o->nelems : 1) && n < 8; e++) {
            Z3_ast x = sx_opd_value(cx, o->kind == PTX_OPD_VEC ? &o->elems[e] : o, int_level ? PTX_T_S32 : PTX_T_F32);
            if (!x)
                return false;
            Z3_ast bits = sx_z_as_bv(ZZ(cx), x, 32);
            uint64_t u;
            uint32_t b;
            if (sx_z_get_u64(ZZ(cx), bits, &u))
                b = (uint32_t)u;
            else if (!pin(cx, bits, &b))
                return false;
            if (int_level)
                v[n++] = (float)(int32_t)b;
            else
                memcpy(&v[n++], &b, sizeof b);
        }
    }
    *lod = ptx_tex_lod(t, v, n);
    return true;
}

static bool write_dest(sx_cx *cx, const ptx_operand *o, Z3_ast v)
{
    if (o->kind == PTX_OPD_SINK)
        return true;
    if (o->kind != PTX_OPD_REG)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported tex destination");
    return sx_reg_write(cx, o->reg, v);
}

/* The texture parameter a handle names; NULL after ending or failing the
 * state (then *param is -1 when the path ended with a fault). */
static const ptx_texture *texture_of(sx_cx *cx, int *param)
{
    const ptx_instr *ins = cx->ins;
    sx_engine *e = cx->e;
    Z3_ast h = sx_reg_get(e, cx->fr, ins->ops[ins->op == PTX_OP_SUST || ins->op == PTX_OP_SURED ? 0 : 1].reg);
    uint64_t hv;
    if (!h || !sx_z_get_u64(&e->z, h, &hv)) {
        sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "%s through a handle that depends on the input (line %d)", ins->opcode,
                     ins->line);
        return NULL;
    }
    uint64_t p = hv - PTX_ADDR_TEXTURE;
    char what[300];
    *param = -1;
    if (hv < PTX_ADDR_TEXTURE || p >= (uint64_t)e->spec->nkparams || !e->tex[p].ndims) {
        snprintf(what, sizeof what, "tex by thread %d with handle 0x%llx, no texture object parameter of the spec",
                 cx->t, (unsigned long long)hv);
        sx_fault_path(cx, what);
        return NULL;
    }
    bool surface = ins->op == PTX_OP_SULD || ins->op == PTX_OP_SUST || ins->op == PTX_OP_SURED || ins->op == PTX_OP_SUQ;
    int geom = ins->op == PTX_OP_TXQ || ins->op == PTX_OP_SUQ ? 0 : ins->mode % PTX_TLD4_COMP;
    if (e->tex[p].surface != surface) {
        snprintf(what, sizeof what, "%s by thread %d through the %s '%s'", ins->opcode, cx->t,
                 e->tex[p].surface ? "surface" : "texture", e->spec->params[p].name);
        sx_fault_path(cx, what);
        return NULL;
    }
    if (geom && ptx_tex_geometry(&e->tex[p]) != geom) {
        snprintf(what, sizeof what, "a .%s %s by thread %d from the .%s texture '%s'", ptx_tex_geom_name(geom),
                 ins->opcode, cx->t, ptx_tex_geom_name(ptx_tex_geometry(&e->tex[p])), e->spec->params[p].name);
        sx_fault_path(cx, what);
        return NULL;
    }
    if (ins->op == PTX_OP_TLD4 && !e->tex[p].gather) {
        snprintf(what, sizeof what, "tld4 by thread %d from the texture '%s', whose spec does not say \"gather\": "
                 "true", cx->t, e->spec->params[p].name);
        sx_fault_path(cx, what);
        return NULL;
    }
    *param = (int)p;
    return &e->tex[p];
}

/* How many coordinates the access takes (a .3d one's fourth is ignored). */
static int ncoords(const ptx_instr *ins)
{
    return ptx_tex_coords_used(ins->mode % PTX_TLD4_COMP);
}

/* The coordinates of a tex, tld4, suld or sust as bit-vectors (s32, or f32
 * bits; a layered access's first is its u32 layer); *symbolic when one is
 * not a constant. */
static bool coordinates(sx_cx *cx, const ptx_operand *a, ptx_type t, Z3_ast cbits[4], bool *symbolic)
{
    sx_z *z = ZZ(cx);
    int nc = ncoords(cx->ins), geom = cx->ins->mode % PTX_TLD4_COMP;
    bool layered = ptx_tex_geom_layered(geom);
    *symbolic = false;
    for (int k = 0; k < nc; k++) {
        Z3_ast v = sx_opd_value(cx, &a->elems[0].elems[k], layered && k == 0 ? PTX_T_U32 : t);
        if (!v)
            return false;
        cbits[k] = sx_z_to_bv(z, v);
        *symbolic |= !sx_z_is_value(z, cbits[k]);
    }
    return true;
}

/* Every coordinate as a constant, pinning the symbolic ones. */
static bool concrete_coordinates(sx_cx *cx, Z3_ast cbits[4], uint32_t coord[4])
{
    int nc = ncoords(cx->ins);
    coord[0] = coord[1] = coord[2] = coord[3] = 0;
    for (int k = 0; k < nc; k++) {
        uint64_t u;
        if (sx_z_get_u64(ZZ(cx), cbits[k], &u))
            coord[k] = (uint32_t)u;
        else if (!pin(cx, cbits[k], &coord[k]))
            return false;
    }
    return true;
}

/* The texture or surface an access names and its coordinates, symbolic
 * ones pinned; NULL with *ret the step's result (1: the path ended with a
 * fault, -1: the state failed). */
static const ptx_texture *pinned_access(sx_cx *cx, const ptx_operand *a, ptx_type ct, int *p, uint32_t coord[4],
                                        int *ret)
{
    const ptx_texture *t = texture_of(cx, p);
    *ret = -1;
    if (!t) {
        *ret = *p < 0 && cx->dead ? 1 : -1;
        return NULL;
    }
    Z3_ast cbits[4];
    bool symbolic;
    return coordinates(cx, a, ct, cbits, &symbolic) && concrete_coordinates(cx, cbits, coord) ? t : NULL;
}

/* The elements of a suld/sust at address `at` (a bv64 term), or, with at
 * NULL, outside the surface under .zero: loads read 0, stores are dropped. */
static bool surf_access(sx_cx *cx, Z3_ast at, const ptx_operand *v)
{
    const ptx_instr *ins = cx->ins;
    sx_z *z = ZZ(cx);
    int es = ptx_type_size(ins->type);
    for (int k = 0; k < ins->vec && !cx->dead; k++) {
        const ptx_operand *o = v->kind == PTX_OPD_VEC ? &v->elems[k] : v;
        Z3_ast addr = at ? fold(cx, Z3_mk_bvadd(C, at, sx_z_num(z, (uint64_t)(k * es), 64))) : NULL;
        if (ins->op == PTX_OP_SUST) {
            Z3_ast val = at ? sx_opd_value(cx, o, ins->type) : NULL;
            if (at && (!val || !sx_mem_store(cx, PTX_SPACE_GLOBAL, addr, es, sx_z_as_bv(z, val, 8 * es))))
                return false;
            continue;
        }
        Z3_ast val = sx_z_num(z, 0, 8 * es);
        if (at && !sx_mem_load(cx, PTX_SPACE_GLOBAL, addr, es, &val))
            return false;
        if (o->kind == PTX_OPD_REG && cx->f->regs[o->reg].bits > 8 * es)
            val = sx_z_resize(z, val, cx->f->regs[o->reg].bits, false);
        if (!write_dest(cx, o, val))
            return false;
    }
    return true;
}

/* Value v (bv32, an s32 or a u32) saturated to an integer channel of
 * `bytes` < 4, as ptx_surf_format_texel does. */
static Z3_ast saturate_channel(sx_cx *cx, Z3_ast v, int bytes, bool is_signed)
{
    sx_z *z = ZZ(cx);
    int bits = 8 * bytes;
    if (!is_signed) {
        Z3_ast max = sx_z_num(z, (1u << bits) - 1, 32);
        return sx_z_ite(z, sx_zk(z, Z3_mk_bvugt(C, v, max)), max, v);
    }
    Z3_ast hi = sx_z_num(z, (1u << (bits - 1)) - 1, 32), lo = sx_z_num(z, (uint32_t)-(1 << (bits - 1)), 32);
    return sx_z_ite(z, sx_zk(z, Z3_mk_bvsgt(C, v, hi)), hi, sx_z_ite(z, sx_zk(z, Z3_mk_bvslt(C, v, lo)), lo, v));
}

/* sust.p at address `at` (a bv64 term; NULL: dropped under .zero): the
 * values v as the texel of the surface's format (ptx_surf_format_texel). */
static bool surf_store_formatted(sx_cx *cx, Z3_ast at, const ptx_texture *t, const ptx_operand *v)
{
    const ptx_instr *ins = cx->ins;
    sx_z *z = ZZ(cx);
    for (int c = 0; at && c < t->channels && !cx->dead; c++) {
        const ptx_operand *o = v->kind == PTX_OPD_VEC ? &v->elems[c] : v;
        Z3_ast val = c < ins->vec ? sx_opd_value(cx, o, PTX_T_B32) : sx_z_num(z, 0, 32);
        if (!val)
            return false;
        val = sx_z_as_bv(z, val, 32);
        if (!t->chan_float && t->chan_bytes < 4)
            val = saturate_channel(cx, val, t->chan_bytes, t->chan_signed);
        Z3_ast addr = fold(cx, Z3_mk_bvadd(C, at, sx_z_num(z, (uint64_t)(c * t->chan_bytes), 64)));
        if (!sx_mem_store(cx, PTX_SPACE_GLOBAL, addr, t->chan_bytes, sx_z_as_bv(z, val, 8 * t->chan_bytes)))
            return false;
    }
    return true;
}

/* sured at address `at` (a bv64 term; NULL: outside the surface under
 * .zero, dropped) in type ty (sured.b: the instruction's; sured.p: its
 * samples'): the element read, reduced with the value, written back, as
 * red.global does (an atomic: exec.c runs a warp's in lane order). */
static bool surf_reduce(sx_cx *cx, Z3_ast at, ptx_type ty)
{
    const ptx_instr *ins = cx->ins;
    sx_z *z = ZZ(cx);
    int es = ptx_type_size(ty);
    Z3_ast v = at ? sx_opd_value(cx, &ins->ops[1], ty) : NULL, old = NULL;
    if (!at)
        return true;
    if (!v || !sx_mem_load(cx, PTX_SPACE_GLOBAL, at, es, &old))
        return false;
    if (cx->dead)
        return true;
    Z3_ast nv = sx_atom_value(cx, ins->aop, ty, old, sx_z_as_bv(z, v, 8 * es), NULL);
    return nv && sx_mem_store(cx, PTX_SPACE_GLOBAL, at, es, nv);
}

/* Is the surface access's form one this file runs? */
static bool surf_form_known(const ptx_instr *ins, const ptx_operand *a)
{
    ptx_type ty = ins->type;
    bool fmt = (ins->flags & PTX_F_FORMATTED) != 0, bits;
    if (ins->op == PTX_OP_SURED)
        bits = fmt ? ty == PTX_T_B32 || ty == PTX_T_B64
                   : ty == PTX_T_U32 || ty == PTX_T_S32 || ty == PTX_T_B32 || ty == PTX_T_U64 || ty == PTX_T_S64;
    else
        bits = fmt ? ty == PTX_T_B32 : ty == PTX_T_B8 || ty == PTX_T_B16 || ty == PTX_T_B32 || ty == PTX_T_B64;
    return ins->mode && a->reg >= 0 && a->nelems == 1 && ins->vec <= 4 && bits;
}

/* An access that faults: the path ends there. */
static int surf_fault(sx_cx *cx, const ptx_texture *t, int p, const uint32_t coord[4], const char *why, int bytes)
{
    bool st = cx->ins->op == PTX_OP_SUST || cx->ins->op == PTX_OP_SURED;
    char what[400];
    snprintf(what, sizeof what, "%s %s of %d bytes at (%d, %d, %d)%s of surface '%s' by thread %d", why,
             st ? "store" : "load", bytes, (int32_t)coord[0], (int32_t)coord[1], (int32_t)coord[2],
             t->layers || t->cube ? " (layer, x, y)" : "", cx->e->spec->params[p].name, cx->t);
    sx_fault_path(cx, what);
    return 1;
}

/* suld.b / sust.b / sured.b and the formatted sust.p / sured.p: the access
 * ptx_surf_offset (or ptx_surf_sample_offset) places, through the memory
 * model; symbolic coordinates pinned.  (Forking on the bounds and reading
 * at a symbolic offset instead was tried on surf_walk: the array reads of
 * its walk made the solver give up, 2 paths in 30 s against 12 paths, every
 * atom valid, in 0.2 s pinned.) */
static int exec_surf(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    sx_z *z = ZZ(cx);
    bool red = ins->op == PTX_OP_SURED, st = ins->op == PTX_OP_SUST || red;
    bool fmt = (ins->flags & PTX_F_FORMATTED) != 0, clamp = (ins->flags & PTX_F_CLAMP) != 0;
    const ptx_operand *a = &ins->ops[st ? 0 : 1], *v = &ins->ops[st ? 1 : 0];
    if (!surf_form_known(ins, a))
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported instruction '%s' form (line %d)", ins->opcode,
                            ins->line), -1;
    int p = 0, ret;
    uint32_t coord[4];
    const ptx_texture *t = pinned_access(cx, a, PTX_T_S32, &p, coord, &ret);
    if (!t)
        return ret;
    int bytes = fmt ? t->texel_bytes : ptx_type_size(ins->type) * ins->vec;
    uint64_t off = 0;
    ptx_surf_place place = fmt ? ptx_surf_sample_offset(t, coord, clamp, &off)
                               : ptx_surf_offset(t, coord, bytes, clamp, &off);
    if (place == PTX_SURF_MISALIGNED || (place == PTX_SURF_OUT && !(ins->flags & PTX_F_ZERO)))
        return surf_fault(cx, t, p, coord, place == PTX_SURF_MISALIGNED ? "misaligned" : "out-of-bounds (.trap)",
                          bytes);
    ptx_type red_type = red && fmt ? ptx_surf_reduce_type(t, ins->type) : ins->type;
    if (red_type == PTX_T_NONE)
        return surf_fault(cx, t, p, coord,
                          "formatted reduction (sured.p) whose type its samples do not hold (one 32-bit integer)",
                          ptx_type_size(ins->type));
    uint64_t base = sx_layout_generic(&cx->e->regions[cx->e->tex_region[p]]) + off;
    Z3_ast at = place == PTX_SURF_IN ? sx_z_num(z, base, 64) : NULL;
    bool ok = red ? surf_reduce(cx, at, red_type)
            : fmt ? surf_store_formatted(cx, at, t, v)
                  : surf_access(cx, at, v);
    return ok ? 1 : -1;
}

/* tld4: the bilinear footprint's texels (ptx_tex_gather_taps), component
 * comp of each; symbolic coordinates pinned. */
static int exec_tld4(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    sx_z *z = ZZ(cx);
    const ptx_operand *a = &ins->ops[1];
    if (!ins->mode || a->reg < 0 || a->nelems != 1 || ins->type2 != PTX_T_F32 ||
        (ins->type != PTX_T_F32 && ins->type != PTX_T_S32 && ins->type != PTX_T_U32))
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported instruction 'tld4' form (line %d)", ins->line), -1;
    int p = 0, ret;
    uint32_t coord[4];
    const ptx_texture *t = pinned_access(cx, a, PTX_T_F32, &p, coord, &ret);
    if (!t)
        return ret;
    ptx_tex_tap taps[4];
    ptx_tex_gather_taps(t, coord, taps);
    for (int k = 0; k < 4; k++) {
        Z3_ast v = zero_like(cx, t);
        if (taps[k].index >= 0)
            v = channel(cx, t, cx->e->tex_region[p], sx_z_num(z, (uint64_t)taps[k].index * (uint64_t)t->texel_bytes,
                                                                64), ins->mode / PTX_TLD4_COMP);
        if (!v || !write_dest(cx, &ins->ops[0].elems[k], v))
            return -1;
    }
    return 1;
}

/* txq, suq: the answer ptx_tex_query_value gives, a constant. */
static int exec_query(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    const ptx_operand *d = &ins->ops[0];
    if (!ins->mode || ins->ops[1].reg < 0 || d->kind != PTX_OPD_REG)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported instruction '%s' form (line %d)", ins->opcode,
                            ins->line), -1;
    int p = 0;
    const ptx_texture *t = texture_of(cx, &p);
    if (!t)
        return p < 0 && cx->dead ? 1 : -1;
    int bits = cx->f->regs[d->reg].bits;
    return write_dest(cx, d, sx_z_num(ZZ(cx), ptx_tex_query_value(t, ins->mode), bits > 32 ? bits : 32)) ? 1 : -1;
}

int sx_exec_tex(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    if (ins->op == PTX_OP_SULD || ins->op == PTX_OP_SUST || ins->op == PTX_OP_SURED)
        return exec_surf(cx);
    if (ins->op == PTX_OP_TLD4)
        return exec_tld4(cx);
    if (ins->op == PTX_OP_TXQ || ins->op == PTX_OP_SUQ)
        return exec_query(cx);
    if (ins->op != PTX_OP_TEX)
        return 0;
    const ptx_operand *a = &ins->ops[1];
    bool int_coords = ins->type2 == PTX_T_S32;
    if (!ins->mode || a->reg < 0 || a->nelems != 1 || (!int_coords && ins->type2 != PTX_T_F32) ||
        (ins->type != PTX_T_F32 && ins->type != PTX_T_S32 && ins->type != PTX_T_U32))
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported instruction 'tex' form (line %d)", ins->line), -1;
    int p = 0;
    const ptx_texture *t = texture_of(cx, &p);
    if (!t)
        return p < 0 && cx->dead ? 1 : -1;
    int region = cx->e->tex_region[p];
    Z3_ast cbits[4];
    bool symbolic;
    if (!coordinates(cx, a, int_coords ? PTX_T_S32 : PTX_T_F32, cbits, &symbolic))
        return -1;
    Z3_ast out[4];
    bool ok;
    if (symbolic && int_coords && ptx_tex_geometry(t) == PTX_TEX_1D && t->levels <= 1 &&
        (t->address[0] == WH_TEX_CLAMP || t->address[0] == WH_TEX_BORDER)) {
        ok = fetch_symbolic_index(cx, t, region, cbits[0], out);
    } else {
        uint32_t coord[4];
        float lod;
        ok = concrete_coordinates(cx, cbits, coord) && level_of_detail(cx, t, &lod) &&
             fetch_taps(cx, t, region, int_coords, coord, lod, out);
    }
    if (!ok)
        return -1;
    if (cx->dead)
        return 1;
    for (int c = 0; c < 4; c++)
        if (!write_dest(cx, &ins->ops[0].elems[c], out[c]))
            return -1;
    return 1;
}

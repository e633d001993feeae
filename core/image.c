/*
 * image.c — building input images and keeping them inside their domains.
 * Saving and loading are in image_io.c.
 */
#include "core/image.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t wh_value_get_int(wh_type t, const void *p)
{
    switch (t) {
    case WH_I8: { int8_t v; memcpy(&v, p, 1); return v; }
    case WH_U8: { uint8_t v; memcpy(&v, p, 1); return v; }
    case WH_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case WH_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case WH_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case WH_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case WH_I64:
    case WH_U64: { int64_t v; memcpy(&v, p, 8); return v; }
    case WH_F32: return (int64_t)wh_value_get_float(t, p);
    case WH_F64: return (int64_t)wh_value_get_float(t, p);
    default: return 0;
    }
}

void wh_value_set_int(wh_type t, void *p, int64_t v)
{
    size_t n = wh_type_size(t);
    if (wh_type_is_float(t)) { wh_value_set_float(t, p, (double)v); return; }
    uint64_t u = (uint64_t)v;
    unsigned char b[8];
    for (size_t i = 0; i < 8; i++) b[i] = (unsigned char)(u >> (8 * i)); /* little-endian, as the GPU */
    memcpy(p, b, n);
}

double wh_value_get_float(wh_type t, const void *p)
{
    if (t == WH_F32) { float f; memcpy(&f, p, 4); return f; }
    if (t == WH_F64) { double d; memcpy(&d, p, 8); return d; }
    return (double)wh_value_get_int(t, p);
}

void wh_value_set_float(wh_type t, void *p, double v)
{
    if (t == WH_F32) { float f = (float)v; memcpy(p, &f, 4); return; }
    if (t == WH_F64) { memcpy(p, &v, 8); return; }
    wh_value_set_int(t, p, (int64_t)v);
}

/* Floats without a range draw from this interval (documented in README). */
#define WH_DEFAULT_FLOAT_LO (-1000.0)
#define WH_DEFAULT_FLOAT_HI 1000.0

double wh_bounds_lerp(const wh_bounds *b, double t)
{
    return b->flo * (1.0 - t) + b->fhi * t;
}

/* A range's error at its JSON path ($.params[P].range, or the field's). */
static bool range_error(const wh_image *img, int p, int f, wh_error *err)
{
    const wh_param *par = &img->spec->params[p];
    char what[300], suffix[200];
    if (err) snprintf(err->file, sizeof err->file, "%s", img->spec->path);
    snprintf(suffix, sizeof suffix, "%s%s.range", f || par->type == WH_STRUCT ? ".fields." : "",
             par->fields[f].name);
    wh_param_jpath(img->spec, p, suffix, what, sizeof what);
    wh_error_set_path(err, what);
    return false;
}

/* One end of a float range: its number, or its expression at element
 * elem (a double holds every f32, and every f64 the expression can make
 * up to 2^53). */
static bool float_end(const wh_image *img, const wh_expr *e, double num, uint64_t elem, double *out, wh_error *err)
{
    int64_t v;
    if (!e) {
        *out = num;
        return true;
    }
    if (!wh_expr_eval_with(e, img->vars, WH_VAR_I, (int64_t)elem, &v, err)) return false;
    *out = (double)v;
    return true;
}

static bool float_bounds(const wh_image *img, int p, int f, uint64_t elem, wh_bounds *out, wh_error *err)
{
    const wh_field *fd = &img->spec->params[p].fields[f];
    out->is_float = true;
    out->flo = WH_DEFAULT_FLOAT_LO;
    out->fhi = WH_DEFAULT_FLOAT_HI;
    if (!fd->has_range) return true;
    if (!float_end(img, fd->lo, fd->flo, elem, &out->flo, err) || !float_end(img, fd->hi, fd->fhi, elem, &out->fhi, err))
        return range_error(img, p, f, err);
    bool fits = fd->type != WH_F32 || (fabs(out->flo) <= FLT_MAX && fabs(out->fhi) <= FLT_MAX);
    bool empty = out->flo > out->fhi;
    if (fits && !empty && fd->type == WH_F32) {
        /* the domain is the f32 values in it: ends rounded inwards, so
         * that a value written at an end is inside ("2^24+1" is no f32) */
        float lo = (float)out->flo, hi = (float)out->fhi;
        out->flo = lo < out->flo ? nextafterf(lo, INFINITY) : lo;
        out->fhi = hi > out->fhi ? nextafterf(hi, -INFINITY) : hi;
        empty = out->flo > out->fhi;
    }
    if (fits && !empty) return true;
    wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0, "for element %llu the range is [%.9g, %.9g], which %s",
                 (unsigned long long)elem, out->flo, out->fhi,
                 !fits ? "is outside f32's range" : "holds no value of its type");
    return range_error(img, p, f, err);
}

/* A step: its value (at least 1), and hi lowered to the range's last
 * multiple of it above lo. */
static bool step_bounds(const wh_image *img, int p, int f, wh_bounds *out, wh_error *err)
{
    const wh_field *fd = &img->spec->params[p].fields[f];
    if (!wh_expr_eval(fd->step, img->vars, &out->step, err)) return range_error(img, p, f, err);
    if (out->step < 1) {
        wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0, "the step of \"%s\" is %lld: it must be at least 1",
                     img->spec->params[p].name, (long long)out->step);
        return false;
    }
    uint64_t span = (uint64_t)out->hi - (uint64_t)out->lo;
    out->hi = (int64_t)((uint64_t)out->lo + span / (uint64_t)out->step * (uint64_t)out->step);
    return true;
}

/* v moved onto the domain of b: clamped to its ends, then down to a step. */
int64_t wh_bounds_snap(const wh_bounds *b, int64_t v)
{
    if (v <= b->lo) return b->lo;
    if (v >= b->hi) return b->hi;
    uint64_t span = (uint64_t)v - (uint64_t)b->lo;
    return (int64_t)((uint64_t)b->lo + span / (uint64_t)b->step * (uint64_t)b->step);
}

uint64_t wh_bounds_steps(const wh_bounds *b)
{
    return ((uint64_t)b->hi - (uint64_t)b->lo) / (uint64_t)b->step;
}

int64_t wh_bounds_draw(const wh_bounds *b, pcg32 *rng)
{
    if (b->step == 1) return pcg32_range_i64(rng, b->lo, b->hi);
    uint64_t steps = wh_bounds_steps(b);
    return (int64_t)((uint64_t)b->lo + (uint64_t)pcg32_range_i64(rng, 0, (int64_t)steps) * (uint64_t)b->step);
}

bool wh_image_bounds(const wh_image *img, int p, int f, uint64_t elem, wh_bounds *out, wh_error *err)
{
    const wh_param *par = &img->spec->params[p];
    const wh_field *fd = &par->fields[f];
    memset(out, 0, sizeof *out);
    out->step = 1;
    if (wh_type_is_float(fd->type)) return float_bounds(img, p, f, elem, out, err);
    int64_t tlo, thi;
    wh_type_limits(fd->type, &tlo, &thi);
    if (!fd->has_range) {
        out->lo = tlo;
        out->hi = thi;
        return true;
    }
    /* Called for every element of a random fill: the JSON path of the
     * range is formatted only when there is an error to report. */
    bool evaluated = wh_expr_eval_with(fd->lo, img->vars, WH_VAR_I, (int64_t)elem, &out->lo, err) &&
                     wh_expr_eval_with(fd->hi, img->vars, WH_VAR_I, (int64_t)elem, &out->hi, err);
    bool in_type = evaluated && out->lo <= out->hi && out->lo >= tlo && out->hi <= thi;
    if (in_type) return !fd->step || step_bounds(img, p, f, out, err);
    if (evaluated)
        wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0,
                     "for element %llu the range is [%lld, %lld], which is %s %s's [%lld, %lld]",
                     (unsigned long long)elem, (long long)out->lo, (long long)out->hi,
                     out->lo > out->hi ? "empty; the type is" : "outside", wh_type_name(fd->type),
                     (long long)tlo, (long long)thi);
    return range_error(img, p, f, err);
}

static void fill_fixed(wh_buffer *b)
{
    const wh_param *p = b->param;
    if (p->init == WH_INIT_ZERO || p->type == WH_STRUCT) return;
    for (uint64_t e = 0; e < b->count; e++) {
        void *at = b->data + e * p->elem_size;
        if (p->init == WH_INIT_IOTA) wh_value_set_int(p->type, at, (int64_t)e);
        else if (wh_type_is_float(p->type)) wh_value_set_float(p->type, at, p->init_value);
        else wh_value_set_int(p->type, at, (int64_t)p->init_value);
    }
}

static bool load_fixed_file(const wh_image *img, wh_buffer *b, wh_error *err)
{
    FILE *f = fopen(b->param->init_file, "rb");
    if (!f) {
        wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0, "cannot open %s for fixed buffer \"%s\"",
                     b->param->init_file, b->param->name);
        return false;
    }
    size_t got = fread(b->data, 1, b->bytes, f);
    int extra = fgetc(f);
    fclose(f);
    if (got != b->bytes || extra != EOF) {
        wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0,
                     "%s has %s bytes than fixed buffer \"%s\" needs (%zu)", b->param->init_file,
                     got != b->bytes ? "fewer" : "more", b->param->name, b->bytes);
        return false;
    }
    return true;
}

/* *total: bytes of the buffers sized so far, against WH_MAX_IMAGE_BYTES. */
static bool size_buffer(wh_image *img, int i, uint64_t *total, wh_error *err)
{
    const wh_param *p = &img->spec->params[i];
    wh_buffer *b = &img->bufs[i];
    b->param = p;
    b->count = 1;
    char what[96];
    wh_param_jpath(img->spec, i, p->kind == WH_BUFFER ? ".count" : "", what, sizeof what);
    if (p->kind == WH_BUFFER) {
        int64_t n;
        if (!wh_spec_eval(img->spec, p->count, img->vars, what, &n, err)) return false;
        if (n < 0 || (uint64_t)n > WH_MAX_IMAGE_BYTES / p->elem_size) {
            wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0,
                         "buffer \"%s\" would have %lld elements (%s); an input image is limited to %llu GiB",
                         p->name, (long long)n, n < 0 ? "negative" : "too many",
                         (unsigned long long)(WH_MAX_IMAGE_BYTES >> 30));
            wh_error_set_path(err, what);
            return false;
        }
        b->count = (uint64_t)n;
        if (p->per_thread > 0 && (uint64_t)p->per_thread > b->count) {
            wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0,
                         "buffer \"%s\": per_thread %lld is more than its %llu elements", p->name,
                         (long long)p->per_thread, (unsigned long long)b->count);
            wh_param_jpath(img->spec, i, ".per_thread", what, sizeof what);
            wh_error_set_path(err, what);
            return false;
        }
    }
    b->bytes = (size_t)b->count * p->elem_size;
    *total += b->bytes;
    if (*total > WH_MAX_IMAGE_BYTES) {
        wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0,
                     "the input image would take more than %llu GiB (at buffer \"%s\", %zu bytes)",
                     (unsigned long long)(WH_MAX_IMAGE_BYTES >> 30), p->name, b->bytes);
        wh_error_set_path(err, what);
        return false;
    }
    b->data = calloc(b->bytes ? b->bytes : 1, 1);
    if (!b->data) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for buffer \"%s\" (%zu bytes)",
                     p->name, b->bytes);
        return false;
    }
    return true;
}

/* A scalar's value must fit its type: no silent truncation or wrap. */
static bool fits_type(const wh_image *img, wh_type t, int64_t v, const char *what, wh_error *err)
{
    bool ok = wh_type_holds(t, v);
    if (!ok) {
        wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0, "value %lld does not fit a %s", (long long)v,
                     wh_type_name(t));
        wh_error_set_path(err, what);
    }
    return ok;
}

/* A struct passed by value: each field's value at its offset; the padding
 * stays zero. */
static bool init_struct_scalar(wh_image *img, int i, wh_error *err)
{
    const wh_param *p = &img->spec->params[i];
    unsigned char *data = img->bufs[i].data;
    for (int k = 0; k < p->nfields; k++) {
        const wh_field *f = &p->fields[k];
        if (wh_type_is_float(f->type)) {
            wh_value_set_float(f->type, data + f->offset, f->fvalue);
            continue;
        }
        char what[96];
        int64_t v;
        char suffix[48];
        snprintf(suffix, sizeof suffix, ".fields[%d].value", k);
        wh_param_jpath(img->spec, i, suffix, what, sizeof what);
        if (!wh_spec_eval(img->spec, f->value, img->vars, what, &v, err) || !fits_type(img, f->type, v, what, err))
            return false;
        wh_value_set_int(f->type, data + f->offset, v);
    }
    return true;
}

static bool init_buffer(wh_image *img, int i, wh_error *err)
{
    const wh_param *p = &img->spec->params[i];
    wh_buffer *b = &img->bufs[i];
    if (p->kind == WH_SCALAR && p->role == WH_ROLE_INPUT) return wh_image_fill_low(img, i, err);
    if (p->kind == WH_SCALAR) {
        if (p->type == WH_STRUCT) return init_struct_scalar(img, i, err);
        if (wh_type_is_float(p->type)) {
            wh_value_set_float(p->type, b->data, p->fvalue);
            return true;
        }
        char what[96];
        int64_t v;
        wh_param_jpath(img->spec, i, ".value", what, sizeof what);
        if (!wh_spec_eval(img->spec, p->value, img->vars, what, &v, err) || !fits_type(img, p->type, v, what, err))
            return false;
        wh_value_set_int(p->type, b->data, v);
        return true;
    }
    if (p->role == WH_ROLE_FIXED) {
        if (p->init == WH_INIT_FILE) return load_fixed_file(img, b, err);
        fill_fixed(b);
        return true;
    }
    return p->role == WH_ROLE_INPUT ? wh_image_structure_fits(img, i, err) && wh_image_fill_low(img, i, err) : true;
}

wh_image *wh_image_new(const wh_spec *spec, const wh_launch *launch, wh_error *err)
{
    wh_image *img = calloc(1, sizeof *img);
    if (!img) goto oom;
    img->spec = spec;
    img->launch = *launch;
    img->nbufs = spec->nparams;
    img->vars = calloc((size_t)spec->nvars, sizeof *img->vars);
    img->bufs = calloc(spec->nparams ? (size_t)spec->nparams : 1, sizeof *img->bufs);
    if (!img->vars || !img->bufs) goto oom;
    if (!wh_spec_vars(spec, launch, img->vars, err)) goto fail;
    if (spec->shared_bytes) {
        int64_t sb;
        if (!wh_spec_eval(spec, spec->shared_bytes, img->vars, "$.shared_bytes", &sb, err)) goto fail;
        if (sb < 0) {
            wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "shared_bytes is negative (%lld)", (long long)sb);
            goto fail;
        }
        img->shared_bytes = (uint64_t)sb;
    }
    uint64_t total = 0;
    for (int i = 0; i < spec->nparams; i++)
        if (!size_buffer(img, i, &total, err) || !init_buffer(img, i, err)) goto fail;
    return img;
oom:
    wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
fail:
    wh_image_free(img);
    return NULL;
}

wh_image *wh_image_clone(const wh_image *src, wh_error *err)
{
    wh_image *img = calloc(1, sizeof *img);
    if (!img) goto oom;
    *img = *src;
    img->vars = malloc((size_t)src->spec->nvars * sizeof *img->vars);
    img->bufs = calloc(src->nbufs ? (size_t)src->nbufs : 1, sizeof *img->bufs);
    if (!img->vars || !img->bufs) goto oom_free;
    memcpy(img->vars, src->vars, (size_t)src->spec->nvars * sizeof *img->vars);
    for (int i = 0; i < src->nbufs; i++) {
        img->bufs[i] = src->bufs[i];
        img->bufs[i].data = malloc(src->bufs[i].bytes ? src->bufs[i].bytes : 1);
        if (!img->bufs[i].data) goto oom_free;
        memcpy(img->bufs[i].data, src->bufs[i].data, src->bufs[i].bytes);
    }
    return img;
oom_free:
    for (int i = 0; img->bufs && i < src->nbufs; i++)
        if (img->bufs[i].data == src->bufs[i].data) img->bufs[i].data = NULL;
    wh_image_free(img);
oom:
    wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
    return NULL;
}

void wh_image_free(wh_image *img)
{
    if (!img) return;
    for (int i = 0; img->bufs && i < img->nbufs; i++) free(img->bufs[i].data);
    free(img->bufs);
    free(img->vars);
    free(img);
}

int wh_image_find(const wh_image *img, const char *name)
{
    for (int i = 0; i < img->nbufs; i++)
        if (!strcmp(img->spec->params[i].name, name)) return i;
    return -1;
}

void wh_image_zero_outputs(wh_image *img)
{
    for (int i = 0; i < img->nbufs; i++)
        if (img->bufs[i].param->role == WH_ROLE_OUTPUT) memset(img->bufs[i].data, 0, img->bufs[i].bytes);
}

/* Apply `set` to every field of every element of input buffer p. */
typedef void (*field_setter)(void *at, wh_type t, const wh_bounds *b, pcg32 *rng);

static bool for_each_field(wh_image *img, int p, field_setter set, pcg32 *rng, wh_error *err)
{
    wh_buffer *b = &img->bufs[p];
    const wh_param *par = b->param;
    for (int f = 0; f < par->nfields; f++) {
        const wh_field *fd = &par->fields[f];
        bool per_elem = wh_field_varies_by_index(fd);
        wh_bounds bd;
        if (!wh_image_bounds(img, p, f, 0, &bd, err)) return false;
        for (uint64_t e = 0; e < b->count; e++) {
            if (per_elem && e > 0 && !wh_image_bounds(img, p, f, e, &bd, err)) return false;
            set(b->data + e * par->elem_size + fd->offset, fd->type, &bd, rng);
        }
    }
    return true;
}

static void set_low(void *at, wh_type t, const wh_bounds *b, pcg32 *rng)
{
    (void)rng;
    if (b->is_float) wh_value_set_float(t, at, b->flo);
    else wh_value_set_int(t, at, b->lo);
}

static void set_random(void *at, wh_type t, const wh_bounds *b, pcg32 *rng)
{
    if (b->is_float) {
        double v = wh_bounds_lerp(b, pcg32_double(rng));
        if (t == WH_F32 && (float)v > (float)b->fhi) v = b->fhi; /* rounding up past hi */
        wh_value_set_float(t, at, v);
    } else {
        wh_value_set_int(t, at, wh_bounds_draw(b, rng));
    }
}

bool wh_image_fill_low(wh_image *img, int p, wh_error *err)
{
    return for_each_field(img, p, set_low, NULL, err) && wh_image_empty_hash_table(img, p, err) &&
           wh_image_restructure_buffer(img, p, err);
}

bool wh_image_fill_random(wh_image *img, pcg32 *rng, wh_error *err)
{
    for (int i = 0; i < img->nbufs; i++)
        if (img->bufs[i].param->role == WH_ROLE_INPUT &&
            !(for_each_field(img, i, set_random, rng, err) && wh_image_fill_hash_table(img, i, rng, err)))
            return false;
    return wh_image_restructure(img, err);
}

/* The error for element e of field f outside its domain. */
static bool domain_error(const wh_buffer *b, const wh_field *fd, uint64_t e, const void *at, const wh_bounds *bd,
                         wh_error *err)
{
    char val[96];
    if (bd->is_float)
        snprintf(val, sizeof val, "%g (domain [%g, %g])", wh_value_get_float(fd->type, at), bd->flo, bd->fhi);
    else if (bd->step > 1)
        snprintf(val, sizeof val, "%lld (domain [%lld, %lld] in steps of %lld from its low end)",
                 (long long)wh_value_get_int(fd->type, at), (long long)bd->lo, (long long)bd->hi, (long long)bd->step);
    else
        snprintf(val, sizeof val, "%lld (domain [%lld, %lld])", (long long)wh_value_get_int(fd->type, at),
                 (long long)bd->lo, (long long)bd->hi);
    wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "input \"%s\" element %llu%s%s is %s", b->param->name,
                 (unsigned long long)e, fd->name[0] ? " field " : "", fd->name, val);
    return false;
}

/* The message is formatted only for the element that fails: formatting
 * every element cost most of a check (bench/structure.md). */
static bool check_field(const wh_image *img, int p, int f, wh_error *err)
{
    const wh_buffer *b = &img->bufs[p];
    const wh_field *fd = &b->param->fields[f];
    bool per_elem = wh_field_varies_by_index(fd);
    wh_bounds bd;
    for (uint64_t e = 0; e < b->count; e++) {
        if ((e == 0 || per_elem) && !wh_image_bounds(img, p, f, e, &bd, err)) return false;
        const void *at = b->data + e * b->param->elem_size + fd->offset;
        bool ok;
        if (bd.is_float) {
            double v = wh_value_get_float(fd->type, at);
            ok = v >= bd.flo && v <= bd.fhi;
        } else {
            int64_t v = wh_value_get_int(fd->type, at);
            ok = v >= bd.lo && v <= bd.hi && ((uint64_t)v - (uint64_t)bd.lo) % (uint64_t)bd.step == 0;
        }
        if (!ok) return domain_error(b, fd, e, at, &bd, err);
    }
    return true;
}

bool wh_image_check_domains(const wh_image *img, wh_error *err)
{
    for (int i = 0; i < img->nbufs; i++) {
        if (img->bufs[i].param->role != WH_ROLE_INPUT) continue;
        for (int f = 0; f < img->bufs[i].param->nfields; f++)
            if (!check_field(img, i, f, err)) return false;
        if (!wh_image_check_structure(img, i, err)) return false;
    }
    return true;
}

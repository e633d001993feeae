/*
 * spec.c — loading and checking kernel specs (see spec.h, README.md).
 *
 * Every error names the spec file and the JSON path of the offending value
 * ("$.params[2].range[1]") and says what was expected.  Unknown keys are
 * errors too: a misspelt "rnage" must not silently drop a value domain.
 */
#include "core/hash.h"
#include "core/spec.h"
#include "core/spec_internal.h"

#include <ctype.h>
#include <float.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool spec_bad(spec_loader *ld, const char *jpath, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wh_error_setv(ld->err, WH_ERR_USER, ld->file, 0, 0, fmt, ap);
    va_end(ap);
    wh_error_set_path(ld->err, jpath);
    return false;
}

bool spec_check_keys(spec_loader *ld, json_t *obj, const char *jpath, const char *const *allowed)
{
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val) {
        bool ok = false;
        for (int i = 0; allowed[i]; i++) ok |= !strcmp(key, allowed[i]);
        if (!ok) {
            char list[512];
            int n = 0;
            for (int i = 0; allowed[i] && n < (int)sizeof list; i++)
                n += snprintf(list + n, sizeof list - (size_t)n, "%s%s", i ? ", " : "", allowed[i]);
            return spec_bad(ld, jpath, "unknown key \"%s\" (expected one of: %s)", key, list);
        }
    }
    return true;
}

static bool get_string(spec_loader *ld, json_t *obj, const char *key, const char *jpath,
                       bool required, char **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v) return required ? spec_bad(ld, jpath, "missing key \"%s\" (a string)", key) : true;
    if (!json_is_string(v) || !json_string_length(v))
        return spec_bad(ld, jpath, "\"%s\" must be a non-empty string", key);
    *out = strdup(json_string_value(v));
    return *out != NULL;
}

/* An integer expression: a JSON integer or a string over the spec's names. */
bool spec_get_expr(spec_loader *ld, json_t *v, const char *jpath, wh_expr **out)
{
    *out = NULL;
    if (json_is_integer(v)) {
        *out = wh_expr_const(json_integer_value(v));
        return *out != NULL;
    }
    if (!json_is_string(v))
        return spec_bad(ld, jpath, "expected an integer or an expression string such as \"threads*4\"");
    *out = wh_expr_parse(json_string_value(v), ld->spec->var_names, ld->spec->nvars, ld->err);
    if (!*out) {
        snprintf(ld->err->file, sizeof ld->err->file, "%s", ld->file);
        wh_error_set_path(ld->err, jpath);
        return false;
    }
    return true;
}

static bool parse_type(spec_loader *ld, json_t *v, const char *jpath, bool allow_struct, wh_type *out)
{
    static const char *const names[] = { "i8", "u8", "i16", "u16", "i32", "u32",
                                         "i64", "u64", "f32", "f64", "struct" };
    const char *s = json_string_value(v);
    for (int t = 0; s && t <= (allow_struct ? WH_STRUCT : WH_F64); t++)
        if (!strcmp(s, names[t])) { *out = (wh_type)t; return true; }
    return spec_bad(ld, jpath, "expected a type: i8 u8 i16 u16 i32 u32 i64 u64 f32 f64%s",
                    allow_struct ? " or struct (with \"fields\")" : "");
}

/* grid or block: 1 to 3 positive integers or expressions of constants,
 * kept in launch_expr (first: the slot of its x) until evaluate_launch. */
static bool parse_launch_dims(spec_loader *ld, json_t *root, const char *key, int first)
{
    char jpath[64];
    snprintf(jpath, sizeof jpath, "$.%s", key);
    json_t *v = json_object_get(root, key);
    if (!v) return spec_bad(ld, "$", "missing key \"%s\" (1 to 3 positive integers)", key);
    if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > 3)
        return spec_bad(ld, jpath, "expected an array of 1 to 3 positive integers or expressions of constants");
    for (size_t i = 0; i < 3; i++) {
        json_t *d = json_array_get(v, i);
        snprintf(jpath, sizeof jpath, "$.%s[%zu]", key, i);
        wh_expr **e = &ld->spec->launch_expr[first + (int)i];
        if (!d)
            *e = wh_expr_const(1);
        else if (!spec_get_expr(ld, d, jpath, e))
            return false;
        if (!*e) return spec_bad(ld, jpath, "out of memory");
    }
    return true;
}

/* Does constant k (or a constant it names) depend on the launch? */
static bool const_needs_launch(const wh_spec *s, int k)
{
    const wh_expr *e = s->const_exprs[k];
    if (wh_expr_uses(e, WH_VAR_THREADS) || wh_expr_uses(e, WH_VAR_BLOCKS) || wh_expr_uses(e, WH_VAR_BLOCK) ||
        wh_expr_uses(e, WH_VAR_I))
        return true;
    for (int j = 0; j < k; j++)
        if (wh_expr_uses(e, WH_VAR_CONST0 + j) && const_needs_launch(s, j))
            return true;
    return false;
}

/* The launch from its expressions (at load, and after a --set): the CUDA
 * limits (a grid's x up to 2^31 - 1, y and z up to 65535; a block of at
 * most 1024 threads) and ours (2^40 threads). */
static bool evaluate_launch(wh_spec *s, wh_error *err)
{
    static const char *const where[6] = { "$.grid[0]", "$.grid[1]", "$.grid[2]",
                                          "$.block[0]", "$.block[1]", "$.block[2]" };
    int64_t *vars = calloc((size_t)s->nvars + 1, sizeof *vars);
    if (!vars) {
        wh_error_set(err, WH_ERR_INTERNAL, s->path, 0, 0, "out of memory");
        return false;
    }
    bool ok = true;
    for (int k = 0; ok && k < s->nconsts; k++) {
        char what[300];
        snprintf(what, sizeof what, "$.constants.%s", s->const_names[k]);
        if (!const_needs_launch(s, k))
            ok = wh_spec_eval(s, s->const_exprs[k], vars, what, &vars[WH_VAR_CONST0 + k], err);
    }
    wh_launch l;
    for (int d = 0; ok && d < 6; d++) {
        const wh_expr *e = s->launch_expr[d];
        bool needs = wh_expr_uses(e, WH_VAR_THREADS) || wh_expr_uses(e, WH_VAR_BLOCKS) ||
                     wh_expr_uses(e, WH_VAR_BLOCK) || wh_expr_uses(e, WH_VAR_I);
        for (int k = 0; !needs && k < s->nconsts; k++)
            needs = wh_expr_uses(e, WH_VAR_CONST0 + k) && const_needs_launch(s, k);
        int64_t v = 0;
        if (needs) {
            wh_error_set(err, WH_ERR_USER, s->path, 0, 0, "%s: the launch cannot depend on itself (threads, blocks, "
                         "block, i, or a constant that names them)", where[d]);
            wh_error_set_path(err, where[d]);
            ok = false;
        } else if ((ok = wh_spec_eval(s, e, vars, where[d], &v, err))) {
            int64_t most = d == 0 ? 0x7fffffff : d < 3 ? 65535 : 1024;
            if (v < 1 || v > most) {
                wh_error_set(err, WH_ERR_USER, s->path, 0, 0, "%s = %lld: expected a positive integer of at most %lld",
                             where[d], (long long)v, (long long)most);
                wh_error_set_path(err, where[d]);
                ok = false;
            } else {
                (d < 3 ? l.grid : l.block)[d % 3] = (unsigned)v;
            }
        }
    }
    free(vars);
    if (!ok) return false;
    if ((uint64_t)l.block[0] * l.block[1] * l.block[2] > 1024) {
        wh_error_set(err, WH_ERR_USER, s->path, 0, 0, "a block has at most 1024 threads");
        wh_error_set_path(err, "$.block");
        return false;
    }
    if (wh_launch_blocks_total(&l) > WH_MAX_LAUNCH_THREADS ||   /* then the product fits */
        wh_launch_threads_total(&l) > WH_MAX_LAUNCH_THREADS) {
        wh_error_set(err, WH_ERR_USER, s->path, 0, 0, "a launch has at most 2^40 threads");
        wh_error_set_path(err, "$.grid");
        return false;
    }
    s->launch = l;
    return true;
}

static bool plain_name(const char *name)
{
    if (!name[0] || name[0] == '.')
        return false;
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-' && *c != '.')
            return false;
    return true;
}

static bool add_var_name(wh_spec *s, const char *name)
{
    const char **v = realloc(s->var_names, (size_t)(s->nvars + 1) * sizeof *v);
    if (!v) return false;
    s->var_names = v;
    s->var_names[s->nvars++] = name;
    return true;
}

static bool parse_constants(spec_loader *ld, json_t *root)
{
    wh_spec *s = ld->spec;
    json_t *obj = json_object_get(root, "constants");
    if (!obj) return true;
    if (!json_is_object(obj)) return spec_bad(ld, "$.constants", "expected an object of name: expression");
    size_t n = json_object_size(obj);
    s->const_names = calloc(n ? n : 1, sizeof *s->const_names);
    s->const_exprs = calloc(n ? n : 1, sizeof *s->const_exprs);
    if (!s->const_names || !s->const_exprs) return spec_bad(ld, "$.constants", "out of memory");
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val) {
        char jpath[300];
        snprintf(jpath, sizeof jpath, "$.constants.%s", key);
        bool ident = (key[0] == '_' || (key[0] >= 'a' && key[0] <= 'z') || (key[0] >= 'A' && key[0] <= 'Z'));
        for (const char *c = key; *c && ident; c++)
            ident = *c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9');
        if (!ident) return spec_bad(ld, jpath, "a constant's name must be an identifier");
        for (int k = 0; k < s->nvars; k++)
            if (!strcmp(s->var_names[k], key) || !strcmp(key, "min") || !strcmp(key, "max"))
                return spec_bad(ld, jpath, "\"%s\" is already a name", key);
        /* Parsed before its own name is added: a constant uses earlier ones only. */
        if (!spec_get_expr(ld, val, jpath, &s->const_exprs[s->nconsts])) return false;
        s->const_names[s->nconsts] = strdup(key);
        if (!s->const_names[s->nconsts] || !add_var_name(s, s->const_names[s->nconsts]))
            return spec_bad(ld, jpath, "out of memory");
        s->nconsts++;
    }
    return true;
}

/* "NAME=EXPR" with NAME a constant of s: its index, else -1. */
static int assigned_const(const wh_spec *s, const char *text)
{
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || !eq[1]) return -1;
    for (int k = 0; k < s->nconsts; k++)
        if (strlen(s->const_names[k]) == (size_t)(eq - text) && !strncmp(s->const_names[k], text, (size_t)(eq - text)))
            return k;
    return -1;
}

/* "sizes": {"large": ["G=423000", "slots=threads*2"]}: names and their
 * assignments are checked here, the expressions when a size is applied. */
static bool parse_size(spec_loader *ld, const char *key, json_t *list, char ***out)
{
    char jpath[300];
    snprintf(jpath, sizeof jpath, "$.sizes.%s", key);
    if (!plain_name(key)) return spec_bad(ld, jpath, "a size's name must be plain (letters, digits, '_', '-', '.')");
    if (!json_is_array(list) || json_array_size(list) == 0)
        return spec_bad(ld, jpath, "expected a non-empty array of \"NAME=EXPR\" assignments of constants");
    *out = calloc(json_array_size(list) + 1, sizeof **out);
    if (!*out) return spec_bad(ld, jpath, "out of memory");
    for (size_t i = 0; i < json_array_size(list); i++) {
        const char *text = json_string_value(json_array_get(list, i));
        snprintf(jpath, sizeof jpath, "$.sizes.%s[%zu]", key, i);
        if (!text || assigned_const(ld->spec, text) < 0)
            return spec_bad(ld, jpath, "expected \"NAME=EXPR\" with NAME one of the spec's constants");
        if (!((*out)[i] = strdup(text))) return spec_bad(ld, jpath, "out of memory");
    }
    return true;
}

static bool parse_sizes(spec_loader *ld, json_t *root)
{
    wh_spec *s = ld->spec;
    json_t *obj = json_object_get(root, "sizes");
    if (!obj) return true;
    if (!json_is_object(obj)) return spec_bad(ld, "$.sizes", "expected an object of name: [\"NAME=EXPR\", ...]");
    size_t n = json_object_size(obj);
    s->size_names = calloc(n ? n : 1, sizeof *s->size_names);
    s->size_sets = calloc(n ? n : 1, sizeof *s->size_sets);
    if (!s->size_names || !s->size_sets) return spec_bad(ld, "$.sizes", "out of memory");
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val) {
        int k = s->nsizes++;
        if (!(s->size_names[k] = strdup(key))) return spec_bad(ld, "$.sizes", "out of memory");
        if (!parse_size(ld, key, val, &s->size_sets[k])) return false;
    }
    return true;
}

static bool parse_symbolic(spec_loader *ld, json_t *root)
{
    static const char *const keys[] = { "threads", "max_iter", NULL };
    wh_spec *s = ld->spec;
    json_t *obj = json_object_get(root, "symbolic");
    json_t *th = obj ? json_object_get(obj, "threads") : NULL;
    if (obj && !json_is_object(obj)) return spec_bad(ld, "$.symbolic", "expected an object");
    if (obj && !spec_check_keys(ld, obj, "$.symbolic", keys)) return false;
    if (th && (!json_is_array(th) || json_array_size(th) == 0))
        return spec_bad(ld, "$.symbolic.threads", "expected a non-empty array of thread counts such as [2, 3, 4]");
    int n = th ? (int)json_array_size(th) : 3;
    s->sym_threads = calloc((size_t)n, sizeof *s->sym_threads);
    if (!s->sym_threads) return spec_bad(ld, "$.symbolic", "out of memory");
    s->nsym_threads = n;
    for (int i = 0; i < n; i++) {
        if (!th) { s->sym_threads[i] = i + 2; continue; }
        json_t *x = json_array_get(th, (size_t)i);
        char jpath[64];
        snprintf(jpath, sizeof jpath, "$.symbolic.threads[%d]", i);
        if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > 1024)
            return spec_bad(ld, jpath, "expected a thread count from 1 to 1024");
        s->sym_threads[i] = (int)json_integer_value(x);
        if (i && s->sym_threads[i] <= s->sym_threads[i - 1])
            return spec_bad(ld, jpath, "thread counts must increase");
    }
    json_t *mi = obj ? json_object_get(obj, "max_iter") : NULL;
    if (mi) {
        if (!json_is_integer(mi) || json_integer_value(mi) < 1 || json_integer_value(mi) > 1000000)
            return spec_bad(ld, "$.symbolic.max_iter", "expected a positive integer");
        s->max_iter = (int)json_integer_value(mi);
    }
    return true;
}

/* Can a value of type t hold number v (JSON numbers are doubles)?  Floats:
 * finite and, for f32, within its range (converting past it is undefined);
 * integers: a whole number in the type's range. */
static bool number_fits(wh_type t, double v)
{
    if (!isfinite(v)) return false;
    if (t == WH_F32) return fabs(v) <= FLT_MAX;
    if (wh_type_is_float(t)) return true;
    int64_t lo, hi;
    wh_type_limits(t, &lo, &hi);
    return v == floor(v) && v >= (double)lo && v <= (double)hi && v < 9223372036854775808.0;
}

static bool number_for(spec_loader *ld, json_t *v, wh_type t, const char *jpath, double *out)
{
    if (!json_is_number(v)) return spec_bad(ld, jpath, "expected a number");
    *out = json_number_value(v);
    if (number_fits(t, *out)) return true;
    return spec_bad(ld, jpath, "%g does not fit %s%s", *out, wh_type_name(t),
                    wh_type_is_float(t) ? "" : " (an integer in the type's range)");
}

/* One end of a float range: a number, or an integer expression string
 * (which may use i: "(i+1)/n" is 1 at the last of n elements and 0
 * before), evaluated per element when the image is made. */
static bool float_bound(spec_loader *ld, json_t *v, wh_type t, const char *jpath, double *num, wh_expr **expr)
{
    *expr = NULL;
    if (json_is_string(v)) return spec_get_expr(ld, v, jpath, expr);
    if (!json_is_number(v)) return spec_bad(ld, jpath, "expected a number or an integer expression string");
    return number_for(ld, v, t, jpath, num);
}

/* "step" beside an integer "range": the domain is lo, lo+step, ... up to
 * hi (a shift that is a multiple of 4, an aligned offset).  Checked
 * against the rest of the spec by check_steps, once relations are read. */
static bool parse_step(spec_loader *ld, json_t *pobj, const char *jpath, wh_field *f)
{
    json_t *v = json_object_get(pobj, "step");
    if (!v) return true;
    char sub[320];
    snprintf(sub, sizeof sub, "%s.step", jpath);
    if (!f->has_range) return spec_bad(ld, sub, "\"step\" goes with a \"range\" (its values are lo + k*step)");
    if (wh_type_is_float(f->type)) return spec_bad(ld, sub, "\"step\" is for integer values");
    if (!spec_get_expr(ld, v, sub, &f->step)) return false;
    if (wh_expr_uses(f->step, WH_VAR_I)) return spec_bad(ld, sub, "a step cannot use i (one step for every element)");
    return true;
}

static bool parse_range(spec_loader *ld, json_t *v, const char *jpath, wh_field *f)
{
    char ep[320];
    if (!json_is_array(v) || json_array_size(v) != 2)
        return spec_bad(ld, jpath, "expected [lo, hi] (inclusive bounds)");
    f->has_range = true;
    if (wh_type_is_float(f->type)) {
        json_t *lo = json_array_get(v, 0), *hi = json_array_get(v, 1);
        snprintf(ep, sizeof ep, "%s[0]", jpath);
        if (!float_bound(ld, lo, f->type, ep, &f->flo, &f->lo)) return false;
        snprintf(ep, sizeof ep, "%s[1]", jpath);
        if (!float_bound(ld, hi, f->type, ep, &f->fhi, &f->hi)) return false;
        if (!f->lo && !f->hi && f->flo > f->fhi) return spec_bad(ld, jpath, "empty range: lo > hi");
        return true;
    }
    snprintf(ep, sizeof ep, "%s[0]", jpath);
    if (!spec_get_expr(ld, json_array_get(v, 0), ep, &f->lo)) return false;
    snprintf(ep, sizeof ep, "%s[1]", jpath);
    return spec_get_expr(ld, json_array_get(v, 1), ep, &f->hi);
}

static size_t align_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

/* A struct scalar's field value: a number for floats, else an expression. */
static bool parse_field_value(spec_loader *ld, json_t *fo, const char *fp, wh_field *f)
{
    char vp[320];
    json_t *v = json_object_get(fo, "value");
    snprintf(vp, sizeof vp, "%s.value", fp);
    if (!v) return spec_bad(ld, fp, "a field of a struct scalar needs \"value\"");
    if (!wh_type_is_float(f->type)) return spec_get_expr(ld, v, vp, &f->value);
    if (!number_for(ld, v, f->type, vp, &f->fvalue)) return false;
    return true;
}

#define WH_MAX_FIELD_COUNT 4096

/* A buffer field's "count" (an array inside the struct, such as a tree
 * node's keys): 1 when absent (a struct scalar's fields have no such key). */
static bool field_count(spec_loader *ld, json_t *fo, const char *fp, int *out)
{
    char cp[320];
    json_t *c = json_object_get(fo, "count");
    *out = 1;
    if (!c) return true;
    snprintf(cp, sizeof cp, "%s.count", fp);
    if (!json_is_integer(c) || json_integer_value(c) < 1 || json_integer_value(c) > WH_MAX_FIELD_COUNT)
        return spec_bad(ld, cp, "expected an integer from 1 to %d (the field's elements)", WH_MAX_FIELD_COUNT);
    *out = (int)json_integer_value(c);
    return true;
}

/* One field (or element k of an array field, named "name[k]") at *off. */
static bool parse_field(spec_loader *ld, json_t *fo, const char *fp, bool scalar, const char *name, int k, int n,
                        wh_field *f, size_t *off, size_t *align)
{
    char tp[320];
    if (n > 1) {
        size_t len = strlen(name) + 16;
        if (!(f->name = malloc(len))) return spec_bad(ld, fp, "out of memory");
        snprintf(f->name, len, "%s[%d]", name, k);
    } else if (!(f->name = strdup(name))) {
        return spec_bad(ld, fp, "out of memory");
    }
    snprintf(tp, sizeof tp, "%s.type", fp);
    if (!parse_type(ld, json_object_get(fo, "type"), tp, false, &f->type)) return false;
    size_t sz = wh_type_size(f->type);
    *off = align_up(*off, sz);
    f->offset = *off;
    *off += sz;
    if (sz > *align) *align = sz;
    if (scalar) return parse_field_value(ld, fo, fp, f);
    json_t *r = json_object_get(fo, "range");
    snprintf(tp, sizeof tp, "%s.range", fp);
    f->array_index = n > 1 ? k : 0;
    f->array_len = n;
    return !r || parse_range(ld, r, tp, f);
}

bool spec_plain_int_range(spec_loader *ld, const wh_field *f, const char *where, const char *what)
{
    if (wh_type_is_float(f->type) || wh_type_size(f->type) > 8)
        return spec_bad(ld, where, "%s is an integer", what);
    if (wh_field_varies_by_index(f))
        return spec_bad(ld, where, "%s needs a range that does not depend on i", what);
    return true;
}

/* "prefix_sum_of" on field f of a struct: a sibling field (not an array). */
static bool field_prefix(spec_loader *ld, json_t *fo, const char *fp, wh_param *p, int f, int n)
{
    char sub[340];
    snprintf(sub, sizeof sub, "%s.prefix_sum_of", fp);
    const char *src = json_string_value(json_object_get(fo, "prefix_sum_of"));
    if (!src) return spec_bad(ld, sub, "expected the name of a sibling field");
    if (n != 1) return spec_bad(ld, sub, "an array field cannot be a running sum");
    int g = 0;
    while (g < p->nfields && strcmp(p->fields[g].name, src)) g++;
    if (g == p->nfields) return spec_bad(ld, sub, "no field \"%s\" in this struct (an array's elements are not "
            "summed)", src);
    if (g == f) return spec_bad(ld, sub, "a field cannot be its own running sum");
    if (!p->fields[f].has_range)
        return spec_bad(ld, sub, "a running sum needs a \"range\": its first value and the most the sum may reach");
    p->fields[f].prefix_of = g + 1;
    return spec_plain_int_range(ld, &p->fields[f], sub, "a running sum") &&
           spec_plain_int_range(ld, &p->fields[g], sub, "the summed field");
}

#define FIELD_STRUCTURES "\"sorted\", \"strictly_sorted\", \"distinct\", \"permutation\" or \"offsets\""
#define STRUCTURES "\"sorted\", \"strictly_sorted\", \"distinct\", \"permutation\", \"offsets\", \"neighbors\" " \
                   "or \"forest\""

/* "structure" on field f (n of them: an array field) of a struct buffer:
 * a field of one value is ordered across the buffer's elements (records
 * sorted by a key), as a buffer of one type is; an array field orders its
 * n elements within each element (a b+tree node's keys): sorted, strictly
 * sorted or distinct, integers.  The role is checked with the buffer's. */
static bool field_structure(spec_loader *ld, json_t *fo, const char *fp, wh_field *first, int n)
{
    char sub[340];
    snprintf(sub, sizeof sub, "%s.structure", fp);
    const char *name = json_string_value(json_object_get(fo, "structure"));
    int k = WH_STRUCTURE_SORTED, last = n > 1 ? WH_STRUCTURE_DISTINCT : WH_STRUCTURE_OFFSETS;
    while (name && k <= last && strcmp(name, wh_structure_name((wh_structure)k))) k++;
    if (!name || k > last)
        return spec_bad(ld, sub, n > 1 ? "expected \"sorted\", \"strictly_sorted\" or \"distinct\" (an array "
                "field's order "
                                    "within each element)"
                                  : "expected " FIELD_STRUCTURES);
    if (first->prefix_of) return spec_bad(ld, sub, "a running sum and what it sums take no other \"structure\"");
    if (wh_type_is_float(first->type) && (n > 1 || k != WH_STRUCTURE_SORTED))
        return spec_bad(ld, sub, "\"%s\" is for integer fields (a float field can only be \"sorted\", across elements)",
                        name);
    if (!first->has_range && (k == WH_STRUCTURE_PERMUTATION || k == WH_STRUCTURE_OFFSETS))
        return spec_bad(ld, sub, "\"%s\" needs a \"range\" (%s)", name,
                        k == WH_STRUCTURE_OFFSETS ? "the first and last offsets" : "the values permuted");
    if (k != WH_STRUCTURE_SORTED && wh_field_varies_by_index(first))
        return spec_bad(ld, sub, "a field with a structure other than \"sorted\" needs a range that does not "
                "depend on i");
    for (int j = 0; j < n; j++) first[j].structure = (wh_structure)k;
    return true;
}

/* A struct's fields, laid out as C does (each at a multiple of its size,
 * the whole padded to the largest); an array field is its elements, each
 * a field of its own.  Buffer fields take ranges, a struct scalar's fields
 * take values. */
static bool parse_fields(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p, bool scalar)
{
    static const char *const buffer_keys[] = { "name", "type", "count", "range", "prefix_sum_of", "structure",
                                               NULL };
    static const char *const scalar_keys[] = { "name", "type", "value", NULL };
    const char *const *keys = scalar ? scalar_keys : buffer_keys;
    const char *shape = scalar ? "{name, type, value}" : "{name, type, range} (and count, for an array)";
    char fp[300];
    json_t *fields = json_object_get(pobj, "fields");
    if (!json_is_array(fields) || json_array_size(fields) == 0)
        return spec_bad(ld, jpath, "a struct needs \"fields\": a non-empty list of %s", shape);
    size_t nentries = json_array_size(fields);
    long total = 0;
    for (size_t i = 0; i < nentries; i++) {
        json_t *fo = json_array_get(fields, i);
        snprintf(fp, sizeof fp, "%s.fields[%zu]", jpath, i);
        if (!json_is_object(fo)) return spec_bad(ld, fp, "expected an object %s", shape);
        int n;
        if (!spec_check_keys(ld, fo, fp, keys) || !field_count(ld, fo, fp, &n)) return false;
        const char *name = json_string_value(json_object_get(fo, "name"));
        for (size_t j = 0; name && j < i; j++) {
            const char *other = json_string_value(json_object_get(json_array_get(fields, j), "name"));
            if (other && !strcmp(other, name)) return spec_bad(ld, fp, "duplicate field \"%s\"", name);
        }
        total += n;
    }
    if (total > WH_MAX_FIELD_COUNT)
        return spec_bad(ld, jpath, "a struct of %ld fields (array elements counted); at most %d", total,
                        WH_MAX_FIELD_COUNT);
    p->fields = calloc((size_t)total, sizeof *p->fields);
    if (!p->fields) return spec_bad(ld, jpath, "out of memory");
    size_t off = 0, align = 1;
    for (size_t i = 0; i < nentries; i++) {
        json_t *fo = json_array_get(fields, i);
        snprintf(fp, sizeof fp, "%s.fields[%zu]", jpath, i);
        char *name = NULL;
        int n;
        if (!get_string(ld, fo, "name", fp, true, &name) || !field_count(ld, fo, fp, &n)) return false;
        bool ok = true;
        for (int k = 0; ok && k < n; k++)
            ok = parse_field(ld, fo, fp, scalar, name, k, n, &p->fields[p->nfields++], &off, &align);
        free(name);
        if (!ok) return false;
    }
    p->elem_align = align;
    p->elem_size = align_up(off, align);
    for (size_t i = 0, f = 0; !scalar && i < nentries; i++) {
        json_t *fo = json_array_get(fields, i);
        snprintf(fp, sizeof fp, "%s.fields[%zu]", jpath, i);
        int n;
        field_count(ld, fo, fp, &n);
        if (json_object_get(fo, "prefix_sum_of") && !field_prefix(ld, fo, fp, p, (int)f, n)) return false;
        if (json_object_get(fo, "structure") && !field_structure(ld, fo, fp, &p->fields[f], n)) return false;
        f += (size_t)n;
    }
    for (int f = 0; !scalar && f < p->nfields; f++)
        if (p->fields[f].prefix_of && p->fields[p->fields[f].prefix_of - 1].structure != WH_STRUCTURE_NONE)
            return spec_bad(ld, jpath, "field \"%s\" is summed by \"%s\": a running sum and what it sums take no other "
                            "\"structure\"", p->fields[p->fields[f].prefix_of - 1].name, p->fields[f].name);
    return true;
}

static bool parse_init(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    static const char *const keys[] = { "generator", "value", "file", NULL };
    char ip[300];
    snprintf(ip, sizeof ip, "%s.init", jpath);
    json_t *init = json_object_get(pobj, "init");
    if (p->role != WH_ROLE_FIXED) {
        if (init) return spec_bad(ld, ip, "\"init\" is only for buffers of role \"fixed\"");
        return true;
    }
    if (!json_is_object(init))
        return spec_bad(ld, jpath, "a fixed buffer needs \"init\": {\"generator\": \"zero\"|\"iota\"|\"const\", "
                "\"value\": V} or {\"file\": PATH}");
    if (!spec_check_keys(ld, init, ip, keys)) return false;
    json_t *file = json_object_get(init, "file");
    json_t *gen = json_object_get(init, "generator");
    if (file && gen) return spec_bad(ld, ip, "give either \"file\" or \"generator\", not both");
    if (file) {
        if (!json_is_string(file)) return spec_bad(ld, ip, "\"file\" must be a path string");
        const char *f = json_string_value(file);
        size_t n = strlen(ld->spec->dir) + strlen(f) + 2;
        p->init_file = malloc(n);
        if (!p->init_file) return spec_bad(ld, ip, "out of memory");
        if (f[0] == '/') snprintf(p->init_file, n, "%s", f);
        else snprintf(p->init_file, n, "%s/%s", ld->spec->dir, f);
        p->init = WH_INIT_FILE;
        return true;
    }
    const char *g = json_string_value(gen);
    if (!g) return spec_bad(ld, ip, "missing \"generator\" (zero, iota or const) or \"file\"");
    if (!strcmp(g, "zero")) p->init = WH_INIT_ZERO;
    else if (!strcmp(g, "iota")) p->init = WH_INIT_IOTA;
    else if (!strcmp(g, "const")) p->init = WH_INIT_CONST;
    else return spec_bad(ld, ip, "unknown generator \"%s\" (expected zero, iota or const)", g);
    json_t *val = json_object_get(init, "value");
    if (p->init == WH_INIT_CONST && !json_is_number(val))
        return spec_bad(ld, ip, "generator \"const\" needs a numeric \"value\"");
    if (p->init != WH_INIT_CONST && val)
        return spec_bad(ld, ip, "\"value\" goes with generator \"const\" only");
    if (p->type == WH_STRUCT && p->init != WH_INIT_ZERO)
        return spec_bad(ld, ip, "struct buffers can be initialised with \"zero\" or a \"file\" only");
    char vp[320];
    snprintf(vp, sizeof vp, "%s.value", ip);
    if (val && !number_for(ld, val, p->type, vp, &p->init_value)) return false;
    return true;
}

static bool parse_role(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    json_t *r = json_object_get(pobj, "role");
    const char *s = json_string_value(r);
    if (!s) return spec_bad(ld, jpath, "a buffer needs \"role\": input, output or fixed");
    if (!strcmp(s, "input")) p->role = WH_ROLE_INPUT;
    else if (!strcmp(s, "output")) p->role = WH_ROLE_OUTPUT;
    else if (!strcmp(s, "fixed")) p->role = WH_ROLE_FIXED;
    else return spec_bad(ld, jpath, "unknown role \"%s\" (expected input, output or fixed)", s);
    return true;
}

/* "structure": a whole-buffer constraint on an input buffer of one field
 * whose range is the same for every element (the constraint is over the
 * values, so a per-element range would make it a puzzle). */
static bool parse_structure(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    char sub[320];
    json_t *v = json_object_get(pobj, "structure");
    for (int f = 0; !v && p->role != WH_ROLE_INPUT && f < p->nfields; f++)
        if (p->fields[f].structure != WH_STRUCTURE_NONE)
            return spec_bad(ld, jpath, "field \"%s\" has a \"structure\": only input buffers take "
                    "one", p->fields[f].name);
    if (!v) return true;
    snprintf(sub, sizeof sub, "%s.structure", jpath);
    const char *name = json_string_value(v);
    int k = WH_STRUCTURE_SORTED;
    while (name && k <= WH_STRUCTURE_LAST && strcmp(name, wh_structure_name((wh_structure)k))) k++;
    if (!name) return spec_bad(ld, sub, "expected " STRUCTURES);
    if (k > WH_STRUCTURE_LAST) return spec_bad(ld, sub, "unknown structure \"%s\" (expected " STRUCTURES ")", name);
    p->structure = (wh_structure)k;
    const wh_field *f = &p->fields[0];
    if (p->role != WH_ROLE_INPUT) return spec_bad(ld, sub, "\"structure\" is only for input buffers");
    if (p->type == WH_STRUCT)
        return spec_bad(ld, sub, "a struct buffer's structure goes on one of its fields (a key field sorted across the "
                        "elements, an array field within each)");
    if (wh_type_is_float(p->type) && p->structure != WH_STRUCTURE_SORTED)
        return spec_bad(ld, sub, "\"%s\" is for integer elements (floats can only be \"sorted\")", name);
    if (!f->has_range && (p->structure == WH_STRUCTURE_PERMUTATION || p->structure == WH_STRUCTURE_OFFSETS ||
                          p->structure == WH_STRUCTURE_FOREST))
        return spec_bad(ld, sub, "\"%s\" needs a \"range\" (%s)", name,
                        p->structure == WH_STRUCTURE_OFFSETS  ? "the first and last offsets"
                        : p->structure == WH_STRUCTURE_FOREST ? "the elements a parent may name"
                                                              : "the values permuted");
    if (p->structure != WH_STRUCTURE_SORTED && wh_field_varies_by_index(f))
        return spec_bad(ld, sub, "a buffer with a structure other than \"sorted\" needs a range that does not "
                "depend on i");
    if (p->structure == WH_STRUCTURE_NEIGHBORS && (!p->per_thread || p->owner == WH_OWNER_WARP))
        return spec_bad(ld, sub, "\"neighbors\" says no element names the thread that owns it: it needs "
                "\"per_thread\"");
    return true;
}

/* A field of struct buffer p named by tree key `what` (a JSON string),
 * an integer field of one element; -1 after an error. */
static int tree_field(spec_loader *ld, json_t *v, const char *sub, const wh_param *p, const char *what)
{
    const char *name = json_string_value(v);
    if (!name) return spec_bad(ld, sub, "expected the name of a field (%s)", what), -1;
    int f = 0;
    while (f < p->nfields && strcmp(p->fields[f].name, name)) f++;
    if (f == p->nfields) return spec_bad(ld, sub, "no field \"%s\" in this struct (%s)", name, what), -1;
    if (wh_type_is_float(p->fields[f].type) || p->fields[f].array_len > 1 || !p->fields[f].has_range)
        return spec_bad(ld, sub, "field \"%s\" (%s) needs to be an integer field with a \"range\", not an array", name,
                        what), -1;
    return f;
}

/* "tree": { "children": [fields], "leaf": field } on a struct input buffer. */
static bool parse_tree(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    static const char *const keys[] = { "children", "leaf", NULL };
    char sub[320], fp[360];
    json_t *v = json_object_get(pobj, "tree");
    if (!v) return true;
    snprintf(sub, sizeof sub, "%s.tree", jpath);
    if (p->role != WH_ROLE_INPUT || p->type != WH_STRUCT)
        return spec_bad(ld, sub, "\"tree\" is for struct input buffers (a node per element)");
    if (!json_is_object(v) || !spec_check_keys(ld, v, sub, keys))
        return spec_bad(ld, sub, "expected { \"children\": [fields], \"leaf\": field }");
    json_t *ch = json_object_get(v, "children");
    snprintf(fp, sizeof fp, "%s.children", sub);
    if (!json_is_array(ch) || json_array_size(ch) < 1 || json_array_size(ch) > WH_TREE_MAX_CHILDREN)
        return spec_bad(ld, fp, "expected 1 to %d fields, each naming a child", WH_TREE_MAX_CHILDREN);
    if (!(p->tree = calloc(1, sizeof *p->tree))) return spec_bad(ld, sub, "out of memory");
    p->tree->nchildren = (int)json_array_size(ch);
    for (int k = 0; k < p->tree->nchildren; k++)
        if ((p->tree->children[k] = tree_field(ld, json_array_get(ch, (size_t)k), fp, p, "a child")) < 0)
            return false;
    snprintf(fp, sizeof fp, "%s.leaf", sub);
    if ((p->tree->leaf = tree_field(ld, json_object_get(v, "leaf"), fp, p, "a leaf above 0")) < 0) return false;
    for (int k = 0; k < p->tree->nchildren; k++)
        if (p->tree->children[k] == p->tree->leaf)
            return spec_bad(ld, sub, "field \"%s\" is both a child and the leaf field", p->fields[p->tree->leaf].name);
    return true;
}

/* The key field of a "hash_table": "key" names a field of a struct
 * buffer, a plain buffer's elements are the keys; a 32-bit integer field
 * with no array.  -1 after an error. */
static int table_key_field(spec_loader *ld, json_t *v, const char *sub, const wh_param *p)
{
    json_t *key = json_object_get(v, "key");
    int f = 0;
    if (p->type == WH_STRUCT) {
        const char *name = json_string_value(key);
        if (!name) return spec_bad(ld, sub, "a struct buffer's table names its key field (\"key\": field)"), -1;
        while (f < p->nfields && strcmp(p->fields[f].name, name)) f++;
        if (f == p->nfields) return spec_bad(ld, sub, "no field \"%s\" in this struct (the key)", name), -1;
        if (p->fields[f].array_len > 1) return spec_bad(ld, sub, "the key field \"%s\" is an array", name), -1;
    } else if (key) {
        return spec_bad(ld, sub, "\"key\" names a field of a struct buffer; this buffer's elements are the keys"), -1;
    }
    if (wh_type_size(p->fields[f].type) != 4 || wh_type_is_float(p->fields[f].type))
        return spec_bad(ld, sub, "keys are 32-bit integers (u32 or i32), not %s", wh_type_name(p->fields[f].type)), -1;
    return f;
}

static bool table_hash(spec_loader *ld, json_t *v, const char *sub, wh_hash_table *t)
{
    const char *name = json_string_value(json_object_get(v, "hash"));
    int k = 0;
    while (name && k <= WH_KEY_HASH_LAST && strcmp(name, wh_key_hash_name((wh_key_hash)k))) k++;
    if (!name || k > WH_KEY_HASH_LAST)
        return spec_bad(ld, sub, "\"hash\" is \"fmix32\" (Murmur3's finalizer) or \"identity\" (the key itself)");
    t->hash = (wh_key_hash)k;
    return true;
}

/* "hash_table": { "hash": h, "empty": v, "max_probes": e, "max_keys": e,
 * "key": field } on an input buffer. */
static bool parse_hash_table(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    static const char *const keys[] = { "hash", "empty", "max_probes", "max_keys", "key", NULL };
    char sub[320], fp[360];
    json_t *v = json_object_get(pobj, "hash_table");
    if (!v) return true;
    snprintf(sub, sizeof sub, "%s.hash_table", jpath);
    if (p->role != WH_ROLE_INPUT) return spec_bad(ld, sub, "\"hash_table\" is for input buffers (a slot per element)");
    if (!json_is_object(v))
        return spec_bad(ld, sub, "expected { \"hash\": \"fmix32\", \"empty\": 0, \"max_probes\": n, \"max_keys\": n }");
    if (!spec_check_keys(ld, v, sub, keys)) return false;
    if (p->structure != WH_STRUCTURE_NONE || p->tree)
        return spec_bad(ld, sub, "a hash table takes no other \"structure\" or \"tree\"");
    if (p->per_thread)
        return spec_bad(ld, sub, "a hash table is shared by every thread (no \"per_thread\": no thread owns a slot)");
    if (!(p->table = calloc(1, sizeof *p->table))) return spec_bad(ld, sub, "out of memory");
    wh_hash_table *t = p->table;
    if ((t->key = table_key_field(ld, v, sub, p)) < 0 || !table_hash(ld, v, sub, t)) return false;
    const wh_field *kf = &p->fields[t->key];
    if (wh_field_varies_by_index(kf) || kf->structure != WH_STRUCTURE_NONE || kf->prefix_of)
        return spec_bad(ld, sub, "the key field \"%s\" takes a range that does not depend on i, and no other structure",
                        kf->name);
    json_t *e = json_object_get(v, "empty");
    snprintf(fp, sizeof fp, "%s.empty", sub);
    if (e && !json_is_integer(e)) return spec_bad(ld, fp, "expected an integer (the key of an empty slot)");
    t->empty = e ? json_integer_value(e) : 0;
    if (!wh_type_holds(kf->type, t->empty))
        return spec_bad(ld, fp, "%lld is not a %s", (long long)t->empty, wh_type_name(kf->type));
    snprintf(fp, sizeof fp, "%s.max_probes", sub);
    json_t *mp = json_object_get(v, "max_probes");
    if (mp && !spec_get_expr(ld, mp, fp, &t->max_probes)) return false;
    snprintf(fp, sizeof fp, "%s.max_keys", sub);
    json_t *mk = json_object_get(v, "max_keys");
    return !mk || spec_get_expr(ld, mk, fp, &t->max_keys);
}

#define OWNERS "\"contiguous\" (the default), \"stride\", \"block_stride\", \"warp_stride\", { \"rows\": " \
               "row pointer, \"by\": \"thread\" or \"warp\", \"through\": index } or { \"index\": index }"

static bool parse_owner(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    static const char *const rows_keys[] = { "rows", "by", "through", NULL };
    static const char *const index_keys[] = { "index", NULL };
    char sub[320];
    json_t *v = json_object_get(pobj, "owner");
    if (!v) return true;
    snprintf(sub, sizeof sub, "%s.owner", jpath);
    if (!p->per_thread) return spec_bad(ld, sub, "\"owner\" says which elements a thread owns: it needs "
            "\"per_thread\"");
    if (json_is_object(v)) {   /* the buffers named are resolved with the other relations (spec_relations.c) */
        p->owner = json_object_get(v, "index") ? WH_OWNER_INDEX : WH_OWNER_ROWS;
        return spec_check_keys(ld, v, sub, p->owner == WH_OWNER_INDEX ? index_keys : rows_keys);
    }
    const char *name = json_string_value(v);
    int k = WH_OWNER_CONTIGUOUS;
    while (name && k <= WH_OWNER_LAST && strcmp(name, wh_owner_name((wh_owner)k))) k++;
    if (!name) return spec_bad(ld, sub, "expected " OWNERS);
    if (k > WH_OWNER_LAST) return spec_bad(ld, sub, "unknown owner \"%s\" (expected " OWNERS ")", name);
    p->owner = (wh_owner)k;
    return true;
}

/* "per_thread" (with an "owner") or "per_warp": the elements a thread, or
 * a warp, owns. */
static bool parse_owned(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    char sub[320];
    json_t *pt = json_object_get(pobj, "per_thread"), *pw = json_object_get(pobj, "per_warp");
    const char *key = pw ? "per_warp" : "per_thread";
    if (!pt && !pw) return parse_owner(ld, pobj, jpath, p);
    snprintf(sub, sizeof sub, "%s.%s", jpath, key);
    if (pt && pw) return spec_bad(ld, jpath, "\"per_thread\" and \"per_warp\": a buffer's elements are owned one way");
    if (p->role != WH_ROLE_INPUT) return spec_bad(ld, sub, "\"%s\" is only for input buffers", key);
    json_t *v = pw ? pw : pt;
    if (!json_is_integer(v) || json_integer_value(v) < 1)
        return spec_bad(ld, sub, "expected a positive integer (elements each %s owns)", pw ? "warp" : "thread");
    p->per_thread = json_integer_value(v);
    if (!pw) return parse_owner(ld, pobj, jpath, p);
    if (json_object_get(pobj, "owner"))
        return spec_bad(ld, jpath, "\"owner\" goes with \"per_thread\"; \"per_warp\" elements are their warp's");
    p->owner = WH_OWNER_WARP;
    return true;
}

static bool parse_buffer(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    char sub[320];
    if (!parse_role(ld, pobj, jpath, p)) return false;
    json_t *count = json_object_get(pobj, "count");
    if (!count && !p->tex && !p->tmap) return spec_bad(ld, jpath, "a buffer needs \"count\" (elements, an expression)");
    snprintf(sub, sizeof sub, "%s.count", jpath);
    if (count && !spec_get_expr(ld, count, sub, &p->count)) return false;
    if (!parse_owned(ld, pobj, jpath, p)) return false;
    json_t *range = json_object_get(pobj, "range");
    if (range) {
        snprintf(sub, sizeof sub, "%s.range", jpath);
        if (p->type == WH_STRUCT) return spec_bad(ld, sub, "a struct's ranges go on its fields");
        if (p->role == WH_ROLE_OUTPUT) return spec_bad(ld, sub, "an output buffer has no value domain");
        if (!parse_range(ld, range, sub, &p->fields[0])) return false;
    }
    if (!parse_step(ld, pobj, jpath, &p->fields[0])) return false;
    if (json_object_get(pobj, "value")) return spec_bad(ld, jpath, "\"value\" is for scalars; buffers take \"count\"");
    return parse_structure(ld, pobj, jpath, p) && parse_tree(ld, pobj, jpath, p) &&
           parse_hash_table(ld, pobj, jpath, p) && parse_init(ld, pobj, jpath, p);
}

#define CHECKS "\"exact\" (the default), \"multiset\" (the same elements in any order) or \"none\" (not compared)"

bool wh_param_returned(const wh_param *p)
{
    return p->kind == WH_BUFFER && (p->role == WH_ROLE_OUTPUT || p->in_place);
}

/* "in_place": true on an input buffer the kernel overwrites with its
 * result (role "output" would zero it before the run). */
static bool parse_in_place(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    json_t *v = json_object_get(pobj, "in_place");
    if (!v) return true;
    char sub[320];
    snprintf(sub, sizeof sub, "%s.in_place", jpath);
    if (!json_is_boolean(v)) return spec_bad(ld, sub, "expected true or false");
    if (json_is_true(v) && (p->kind != WH_BUFFER || p->role != WH_ROLE_INPUT || p->tex))
        return spec_bad(ld, sub, "\"in_place\" is for input buffers the kernel writes its result over (an "
                        "\"output\" is zeroed before the run, a texture is read-only)");
    p->in_place = json_is_true(v);
    return true;
}

/* "check" (how `measure --check` compares an output buffer) and its
 * optional reason "check_why". */
static bool parse_check(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    char cp[320], wp[320];
    snprintf(cp, sizeof cp, "%s.check", jpath);
    snprintf(wp, sizeof wp, "%s.check_why", jpath);
    json_t *c = json_object_get(pobj, "check");
    json_t *why = json_object_get(pobj, "check_why");
    p->check = WH_CHECK_EXACT;
    if ((c || why) && !wh_param_returned(p))
        return spec_bad(ld, c ? cp : wp, "\"%s\" is only for output buffers and in-place inputs (how `measure "
                        "--check` compares them)", c ? "check" : "check_why");
    if (c) {
        const char *s = json_string_value(c);
        int k = WH_CHECK_EXACT;
        while (s && k <= WH_CHECK_NONE && strcmp(s, wh_check_name((wh_check)k))) k++;
        if (!s) return spec_bad(ld, cp, "expected " CHECKS);
        if (k > WH_CHECK_NONE) return spec_bad(ld, cp, "unknown check \"%s\" (expected " CHECKS ")", s);
        p->check = (wh_check)k;
    }
    if (why && p->check == WH_CHECK_EXACT)
        return spec_bad(ld, wp, "\"check_why\" explains a \"check\" of \"multiset\" or \"none\"");
    return get_string(ld, pobj, "check_why", jpath, false, &p->check_why);
}

static bool parse_scalar(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    char sub[320];
    static const char *const forbidden[] = { "role", "count", "per_thread", "owner", "init", "structure", NULL };
    for (int i = 0; forbidden[i]; i++)
        if (json_object_get(pobj, forbidden[i]))
            return spec_bad(ld, jpath, "\"%s\" is for buffers; a scalar takes \"value\" (or \"range\", to be searched)",
                            forbidden[i]);
    json_t *v = json_object_get(pobj, "value"), *range = json_object_get(pobj, "range");
    if (p->type == WH_STRUCT) {  /* a struct passed by value: its fields carry the values */
        if (range) return spec_bad(ld, jpath, "a struct scalar cannot be searched (\"range\"); its fields take values");
        return v ? spec_bad(ld, jpath, "a struct scalar's values go on its fields") : true;
    }
    snprintf(sub, sizeof sub, "%s.value", jpath);
    if (range) {
        /* a searched scalar: part of the input, an element of one field */
        if (v) return spec_bad(ld, sub, "a searched scalar takes \"range\" (its domain) and no \"value\"");
        snprintf(sub, sizeof sub, "%s.range", jpath);
        p->role = WH_ROLE_INPUT;
        if (!parse_range(ld, range, sub, &p->fields[0])) return false;
        if (wh_field_varies_by_index(&p->fields[0]))
            return spec_bad(ld, sub, "a scalar is one element: its range cannot use i");
        return parse_step(ld, pobj, jpath, &p->fields[0]);
    }
    if (json_object_get(pobj, "step")) return spec_bad(ld, jpath, "\"step\" goes with a \"range\" (a searched scalar)");
    if (!v) return spec_bad(ld, jpath, "a scalar needs \"value\" (or \"range\", to be searched)");
    if (wh_type_is_float(p->type)) {
        if (!number_for(ld, v, p->type, sub, &p->fvalue)) return false;
        return true;
    }
    return spec_get_expr(ld, v, sub, &p->value);
}

/* One entry of "params" (global false) or "globals" (global true). */
static bool parse_param(spec_loader *ld, json_t *pobj, const char *list, int index, bool global, wh_param *p)
{
    static const char *const keys[] = { "name", "kind", "type", "fields", "count", "role", "init",
                                        "per_thread", "per_warp", "owner", "range", "step", "structure", "value", "check",
                                        "check_why", "texture", "surface", "tensor_map", "prefix_sum_of", "tree",
                                        "hash_table", "nearest_of", "below_row", "shortest_paths", "in_place", NULL };
    char jpath[64], sub[96];
    snprintf(jpath, sizeof jpath, "$.%s[%d]", list, index);
    if (!json_is_object(pobj)) return spec_bad(ld, jpath, "expected an object");
    if (!spec_check_keys(ld, pobj, jpath, keys) || !get_string(ld, pobj, "name", jpath, true, &p->name))
        return false;
    p->global = global;
    const char *kind = json_string_value(json_object_get(pobj, "kind"));
    if (global && !json_object_get(pobj, "kind"))
        kind = "buffer";   /* a module variable is memory: its count says how much of it is input */
    if (!kind) return spec_bad(ld, jpath, "missing \"kind\": buffer or scalar");
    bool texture = !strcmp(kind, "texture") && !global, surface = !strcmp(kind, "surface") && !global;
    bool tmap = !strcmp(kind, "tensor_map") && !global;
    if (!strcmp(kind, "buffer") || texture || surface || tmap) p->kind = WH_BUFFER;
    else if (!strcmp(kind, "scalar") && !global) p->kind = WH_SCALAR;
    else if (global) return spec_bad(ld, jpath, "a module variable is a \"buffer\" (count 1 for a single value)");
    else return spec_bad(ld, jpath, "unknown kind \"%s\" (expected buffer, scalar, texture, surface or "
            "tensor_map)", kind);
    if (!texture && json_object_get(pobj, "texture"))
        return spec_bad(ld, jpath, "\"texture\" goes with \"kind\": \"texture\"");
    if (!surface && json_object_get(pobj, "surface"))
        return spec_bad(ld, jpath, "\"surface\" goes with \"kind\": \"surface\"");
    if (!tmap && json_object_get(pobj, "tensor_map"))
        return spec_bad(ld, jpath, "\"tensor_map\" goes with \"kind\": \"tensor_map\"");
    snprintf(sub, sizeof sub, "%s.type", jpath);
    if (!parse_type(ld, json_object_get(pobj, "type"), sub, true, &p->type)) return false;
    if (p->type == WH_STRUCT) {
        if (!parse_fields(ld, pobj, jpath, p, p->kind == WH_SCALAR)) return false;
    } else {
        if (json_object_get(pobj, "fields")) return spec_bad(ld, jpath, "\"fields\" needs \"type\": \"struct\"");
        p->nfields = 1;
        p->fields = calloc(1, sizeof *p->fields);
        if (!p->fields || !(p->fields[0].name = strdup(""))) return spec_bad(ld, jpath, "out of memory");
        p->fields[0].type = p->type;
        p->elem_size = p->elem_align = wh_type_size(p->type);
    }
    if ((texture && !spec_parse_texture(ld, pobj, jpath, p)) || (surface && !spec_parse_surface(ld, pobj, jpath, p)) ||
        (tmap && !spec_parse_tensor_map(ld, pobj, jpath, p)))
        return false;
    if (!(p->kind == WH_BUFFER ? parse_buffer(ld, pobj, jpath, p) : parse_scalar(ld, pobj, jpath, p)))
        return false;
    if (texture && p->role == WH_ROLE_OUTPUT)
        return spec_bad(ld, jpath, "a texture is read-only: its role is \"input\" or \"fixed\"");
    return parse_in_place(ld, pobj, jpath, p) && parse_check(ld, pobj, jpath, p);
}

/* Does another parameter's relation name parameter p (as its lengths, its
 * positions, its rows or level, or its graph)? */
static bool related(const wh_spec *s, int p)
{
    for (int q = 0; q < s->nparams; q++) {
        const wh_param *o = &s->params[q];
        const wh_paths *g = &o->paths;
        int names[] = { o->prefix_of, o->nearest_of, o->below_rows, o->below_level,
                        g->rows, g->edges, g->weights, g->frontier };
        for (size_t k = 0; k < sizeof names / sizeof *names; k++)
            if (names[k] == p + 1) return true;
    }
    return false;
}

/* A step keeps a value's place in the range by rounding it down, which
 * keeps "sorted" but no structure that places values more tightly (a
 * permutation, strictly increasing keys, offsets ending at hi, a relation
 * to other buffers): those are refused rather than silently broken. */
static bool check_steps(spec_loader *ld)
{
    const wh_spec *s = ld->spec;
    for (int p = 0; p < s->nparams; p++) {
        const wh_param *par = &s->params[p];
        if (!par->fields[0].step) continue;
        bool global = p >= s->nkparams;
        char jpath[96];
        snprintf(jpath, sizeof jpath, "$.%s[%d].step", global ? "globals" : "params", global ? p - s->nkparams : p);
        bool plain = par->structure == WH_STRUCTURE_NONE || par->structure == WH_STRUCTURE_SORTED;
        if (!plain || par->tree || par->table || par->prefix_of || par->nearest_of || par->below_rows ||
            par->paths.rows || related(s, p))
            return spec_bad(ld, jpath, "\"step\" goes on a plain or \"sorted\" buffer or a searched scalar, not on "
                            "one with another structure or a relation to other buffers");
    }
    return true;
}

/* Parameter i's JSON object: the kernel's parameters, then the globals. */
static json_t *param_obj(const wh_spec *s, json_t *params, json_t *globals, int i)
{
    bool global = i >= s->nkparams;
    return json_array_get(global ? globals : params, (size_t)(global ? i - s->nkparams : i));
}

/* "params" (required: the kernel's, in order) and "globals" (optional:
 * module variables), into one list; names are unique across both. */
static bool parse_params(spec_loader *ld, json_t *root)
{
    wh_spec *s = ld->spec;
    json_t *params = json_object_get(root, "params"), *globals = json_object_get(root, "globals");
    if (!json_is_array(params))
        return spec_bad(ld, "$", "missing \"params\": the kernel's parameters in order");
    if (globals && !json_is_array(globals))
        return spec_bad(ld, "$.globals", "expected an array of module variables (buffers named as in the PTX)");
    s->nkparams = (int)json_array_size(params);
    s->nparams = s->nkparams + (int)json_array_size(globals);
    s->params = calloc(s->nparams ? (size_t)s->nparams : 1, sizeof *s->params);
    if (!s->params) return spec_bad(ld, "$.params", "out of memory");
    for (int i = 0; i < s->nparams; i++) {
        bool global = i >= s->nkparams;
        int k = global ? i - s->nkparams : i;
        const char *list = global ? "globals" : "params";
        if (!parse_param(ld, json_array_get(global ? globals : params, (size_t)k), list, k, global, &s->params[i]))
            return false;
        for (int j = 0; j < i; j++)
            if (!strcmp(s->params[j].name, s->params[i].name)) {
                char jpath[64];
                snprintf(jpath, sizeof jpath, "$.%s[%d].name", list, k);
                return spec_bad(ld, jpath, "duplicate name \"%s\" (parameters and globals share one name space)",
                                s->params[i].name);
            }
    }
    /* relations between parameters, once all are known: running sums
     * first (others check them), rows owners last (they check an index
     * owner on the lengths) */
    for (int i = 0; i < s->nparams; i++)
        if (json_object_get(param_obj(s, params, globals, i), "prefix_sum_of") &&
            !spec_buffer_prefix(ld, param_obj(s, params, globals, i), i))
            return false;
    for (int i = 0; i < s->nparams; i++) {
        json_t *pobj = param_obj(s, params, globals, i);
        if (json_object_get(pobj, "nearest_of") && !spec_buffer_nearest(ld, pobj, i)) return false;
        if (json_object_get(pobj, "below_row") && !spec_buffer_below_row(ld, pobj, i)) return false;
        if (json_object_get(pobj, "shortest_paths") && !spec_buffer_paths(ld, pobj, i)) return false;
        if (s->params[i].owner == WH_OWNER_INDEX && !spec_buffer_owner_index(ld, pobj, i)) return false;
    }
    for (int i = 0; i < s->nparams; i++)
        if (s->params[i].owner == WH_OWNER_ROWS && !spec_buffer_owner_rows(ld, param_obj(s, params, globals, i), i))
            return false;
    return check_steps(ld);
}

static bool parse_root(spec_loader *ld, json_t *root)
{
    static const char *const keys[] = { "name", "source", "ptx", "entry", "grid", "block",
                                        "shared_bytes", "constants", "symbolic", "params",
                                        "globals", "description", "sizes", NULL };
    wh_spec *s = ld->spec;
    if (!json_is_object(root)) return spec_bad(ld, "$", "a spec is a JSON object");
    if (!spec_check_keys(ld, root, "$", keys)) return false;
    if (!get_string(ld, root, "name", "$", true, &s->name) ||
        !get_string(ld, root, "source", "$", true, &s->source) ||
        !get_string(ld, root, "entry", "$", true, &s->entry) ||
        !get_string(ld, root, "ptx", "$", false, &s->ptx))
        return false;
    if (!plain_name(s->name))   /* it names the results directory */
        return spec_bad(ld, "$.name", "expected a plain name (letters, digits, '_', '-', '.'; not starting with '.')");
    if (s->ptx && s->ptx[0] != '/') {
        size_t n = strlen(s->dir) + strlen(s->ptx) + 2;
        char *p = malloc(n);
        if (!p) return spec_bad(ld, "$.ptx", "out of memory");
        snprintf(p, n, "%s/%s", s->dir, s->ptx);
        free(s->ptx);
        s->ptx = p;
    }
    static const char *const fixed_vars[] = { "threads", "blocks", "block", "i" };
    for (int i = 0; i < 4; i++)
        if (!add_var_name(s, fixed_vars[i])) return spec_bad(ld, "$", "out of memory");
    if (!parse_constants(ld, root) || !parse_sizes(ld, root) || !parse_launch_dims(ld, root, "grid", 0) ||
        !parse_launch_dims(ld, root, "block", 3) || !evaluate_launch(s, ld->err) || !parse_symbolic(ld, root))
        return false;
    uint64_t per_block = (uint64_t)s->launch.block[0] * s->launch.block[1] * s->launch.block[2];
    for (int i = 0; i < s->nsym_threads && json_object_get(root, "symbolic"); i++)
        if ((uint64_t)s->sym_threads[i] > per_block)
            return spec_bad(ld, "$.symbolic.threads", "%d symbolic threads do not fit in a block of %llu threads (the "
                            "symbolic stage runs the first X threads of block 0)", s->sym_threads[i],
                       (unsigned long long)per_block);
    json_t *sb = json_object_get(root, "shared_bytes");
    if (sb && !spec_get_expr(ld, sb, "$.shared_bytes", &s->shared_bytes)) return false;
    return parse_params(ld, root);
}

wh_spec *wh_spec_load(const char *path, wh_error *err)
{
    wh_spec *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "out of memory");
        return NULL;
    }
    const char *slash = strrchr(path, '/');
    s->dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
    if (slash == path) { free(s->dir); s->dir = strdup("/"); }
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        FILE *f = fopen(path, "rb");
        if (!f) wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot open the spec: %s", jerr.text);
        else wh_error_set(err, WH_ERR_USER, path, jerr.line > 0 ? jerr.line : 0,
                          jerr.column > 0 ? jerr.column : 0, "invalid JSON: %s", jerr.text);
        if (f) fclose(f);
        wh_spec_free(s);
        return NULL;
    }
    spec_loader ld = { path, s, err };
    wh_error scratch;
    if (!err) ld.err = &scratch;
    bool ok = s->dir && parse_root(&ld, root);
    json_decref(root);
    if (!ok) {
        wh_spec_free(s);
        return NULL;
    }
    wh_file_hash_hex(path, s->hash);
    return s;
}

/* "a, b, c" into buf, cut short when it does not fit. */
static void name_list(char *const *names, int n, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", names[i]);
}

bool wh_spec_set_const(wh_spec *s, const char *name, const char *text, wh_error *err)
{
    int k = -1;
    for (int i = 0; i < s->nconsts; i++)
        if (!strcmp(s->const_names[i], name)) k = i;
    if (k < 0) {
        char list[512];
        name_list(s->const_names, s->nconsts, list, sizeof list);
        wh_error_set(err, WH_ERR_USER, s->path, 0, 0, "--set %s: the spec has no constant of that name (constants: %s)",
                     name, s->nconsts ? list : "none");
        return false;
    }
    wh_expr *e = wh_expr_parse(text, s->var_names, WH_VAR_CONST0 + k, err);
    if (!e) {
        if (err) snprintf(err->file, sizeof err->file, "--set %s", name);
        return false;
    }
    size_t n = strlen(name) + strlen(text) + 2;
    char *set = malloc(n), **grown = realloc(s->sets, (size_t)(s->nsets + 1) * sizeof *grown);
    if (grown) s->sets = grown;
    if (!set || !grown) {
        free(set);
        wh_expr_free(e);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    snprintf(set, n, "%s=%s", name, text);
    s->sets[s->nsets++] = set;
    wh_expr *was = s->const_exprs[k];
    s->const_exprs[k] = e;
    if (!evaluate_launch(s, err)) {   /* a launch it sizes must still be one */
        s->const_exprs[k] = was;
        wh_expr_free(e);
        free(s->sets[--s->nsets]);
        if (err) snprintf(err->file, sizeof err->file, "--set %s", name);
        return false;
    }
    wh_expr_free(was);
    uint64_t per_block = (uint64_t)s->launch.block[0] * s->launch.block[1] * s->launch.block[2];
    for (int i = 0; i < s->nsym_threads; i++)
        if ((uint64_t)s->sym_threads[i] > per_block) {
            wh_error_set(err, WH_ERR_USER, s->path, 0, 0, "--set %s: a block of %llu threads cannot hold the %d "
                         "symbolic threads of $.symbolic.threads", name, (unsigned long long)per_block,
                         s->sym_threads[i]);
            return false;
        }
    uint64_t h = wh_fnv1a(WH_FNV_OFFSET, s->hash, strlen(s->hash));
    h = wh_fnv1a(h, "\n--set ", 7);
    wh_hash_hex(wh_fnv1a(h, set, strlen(set)), s->hash);
    return true;
}

bool wh_spec_assign(wh_spec *s, const char *assignment, wh_error *err)
{
    const char *eq = strchr(assignment, '=');
    char name[128];
    if (!eq || eq == assignment || (size_t)(eq - assignment) >= sizeof name) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--set %s: expected NAME=EXPR (a constant of the spec)", assignment);
        return false;
    }
    snprintf(name, sizeof name, "%.*s", (int)(eq - assignment), assignment);
    return wh_spec_set_const(s, name, eq + 1, err);
}

bool wh_spec_apply_size(wh_spec *s, const char *name, wh_error *err)
{
    for (int k = 0; k < s->nsizes; k++) {
        if (strcmp(s->size_names[k], name)) continue;
        for (char **a = s->size_sets[k]; *a; a++)
            if (!wh_spec_assign(s, *a, err)) {
                if (err) snprintf(err->file, sizeof err->file, "%s: $.sizes.%s", s->path, name);
                return false;
            }
        return true;
    }
    char list[512];
    name_list(s->size_names, s->nsizes, list, sizeof list);
    wh_error_set(err, WH_ERR_USER, s->path, 0, 0, "--size %s: the spec has no size of that name (sizes: %s)", name,
                 s->nsizes ? list : "none; \"sizes\" in a spec names them");
    return false;
}

static void free_param(wh_param *p)
{
    for (int f = 0; p->fields && f < p->nfields; f++) {
        free(p->fields[f].name);
        wh_expr_free(p->fields[f].lo);
        wh_expr_free(p->fields[f].hi);
        wh_expr_free(p->fields[f].step);
        wh_expr_free(p->fields[f].value);
    }
    free(p->fields);
    free(p->name);
    wh_expr_free(p->count);
    wh_expr_free(p->value);
    free(p->init_file);
    free(p->check_why);
    for (int d = 0; p->tex && d < p->tex->ndims; d++)
        wh_expr_free(p->tex->dims[d]);
    free(p->tree);
    if (p->table) {
        wh_expr_free(p->table->max_probes);
        wh_expr_free(p->table->max_keys);
    }
    free(p->table);
    if (p->tex) wh_expr_free(p->tex->layers);
    free(p->tex);
    for (int d = 0; p->tmap && d < p->tmap->rank; d++)
        wh_expr_free(p->tmap->dims[d]);
    free(p->tmap);
}

void wh_spec_free(wh_spec *s)
{
    if (!s) return;
    for (int i = 0; i < s->nparams; i++) free_param(&s->params[i]);
    free(s->params);
    for (int i = 0; i < s->nconsts; i++) {
        free(s->const_names[i]);
        wh_expr_free(s->const_exprs[i]);
    }
    for (int i = 0; i < s->nsets; i++) free(s->sets[i]);
    free(s->sets);
    for (int k = 0; k < s->nsizes; k++) {
        for (char **a = s->size_sets && s->size_sets[k] ? s->size_sets[k] : NULL; a && *a; a++) free(*a);
        if (s->size_sets) free(s->size_sets[k]);
        free(s->size_names[k]);
    }
    free(s->size_sets);
    free(s->size_names);
    for (int d = 0; d < 6; d++) wh_expr_free(s->launch_expr[d]);
    free(s->const_names);
    free(s->const_exprs);
    free((void *)s->var_names);
    free(s->sym_threads);
    wh_expr_free(s->shared_bytes);
    free(s->path);
    free(s->dir);
    free(s->name);
    free(s->source);
    free(s->entry);
    free(s->ptx);
    free(s);
}

void wh_param_jpath(const wh_spec *spec, int p, const char *suffix, char *buf, size_t size)
{
    bool global = p >= spec->nkparams;
    snprintf(buf, size, "$.%s[%d]%s", global ? "globals" : "params", global ? p - spec->nkparams : p, suffix);
}

wh_launch wh_spec_launch_full(const wh_spec *spec)
{
    return spec->launch;
}

wh_launch wh_launch_threads(unsigned x)
{
    wh_launch l = { { 1, 1, 1 }, { x, 1, 1 } };
    return l;
}

uint64_t wh_launch_block_threads(const wh_launch *l)
{
    return (uint64_t)l->block[0] * l->block[1] * l->block[2];
}

/* warp_stride: a block's k*b elements are its warps' in turn, k*32 each
 * (the last warp of a block not a multiple of 32 has fewer lanes, w), and
 * a warp's are its lanes' interleaved: lane l owns l, l + w, l + 2w, ...
 * (a warp-stride loop: `for (i = lane; i < k*32; i += 32)`). */
static uint64_t warp_owned_elem(uint64_t k, uint64_t b, uint64_t t, uint64_t j)
{
    uint64_t tl = t % b, warp = tl / 32, w = b - 32 * warp < 32 ? b - 32 * warp : 32;
    return t / b * k * b + 32 * k * warp + j * w + tl % 32;
}

static uint64_t warp_elem_owner(uint64_t k, uint64_t b, uint64_t e, uint64_t *j)
{
    uint64_t eb = e % (k * b), warp = eb / (32 * k), w = b - 32 * warp < 32 ? b - 32 * warp : 32;
    uint64_t off = eb - 32 * k * warp;
    *j = off / w;
    return e / (k * b) * b + 32 * warp + off % w;
}

/* warp: warps numbered across blocks (a block of b threads has
 * ceil(b / 32)); warp w owns w*k .. w*k+k-1, held by its lane 0. */
static uint64_t warp_owner_elem(uint64_t k, uint64_t b, uint64_t t, uint64_t j)
{
    uint64_t tl = t % b, wpb = (b + 31) / 32;
    return tl % 32 ? UINT64_MAX : (t / b * wpb + tl / 32) * k + j;
}

uint64_t wh_owned_elem(const wh_param *p, const wh_launch *l, uint64_t t, uint64_t j)
{
    uint64_t k = (uint64_t)p->per_thread, b = wh_launch_block_threads(l);
    switch (p->owner) {
    case WH_OWNER_WARP: return warp_owner_elem(k, b, t, j);
    case WH_OWNER_STRIDE: return j * wh_launch_threads_total(l) + t;
    case WH_OWNER_BLOCK_STRIDE: return t / b * k * b + j * b + t % b;
    case WH_OWNER_WARP_STRIDE: return warp_owned_elem(k, b, t, j);
    default: return t * k + j;
    }
}

uint64_t wh_elem_owner(const wh_param *p, const wh_launch *l, uint64_t e, uint64_t *j)
{
    uint64_t k = (uint64_t)p->per_thread, b = wh_launch_block_threads(l), n = wh_launch_threads_total(l);
    uint64_t wpb = (b + 31) / 32;
    switch (p->owner) {
    case WH_OWNER_WARP: *j = e % k; return e / k / wpb * b + e / k % wpb * 32;
    case WH_OWNER_STRIDE: *j = e / n; return e % n;
    case WH_OWNER_BLOCK_STRIDE: *j = e % (k * b) / b; return e / (k * b) * b + e % b;
    case WH_OWNER_WARP_STRIDE: return warp_elem_owner(k, b, e, j);
    default: *j = e % k; return e / k;
    }
}

uint64_t wh_owned_total(const wh_param *p, const wh_launch *l)
{
    uint64_t k = (uint64_t)p->per_thread;
    if (p->owner == WH_OWNER_WARP) return wh_launch_blocks_total(l) * ((wh_launch_block_threads(l) + 31) / 32) * k;
    return wh_launch_threads_total(l) * k;
}

uint64_t wh_launch_blocks_total(const wh_launch *l)
{
    return (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
}

uint64_t wh_launch_threads_total(const wh_launch *l)
{
    return wh_launch_blocks_total(l) * wh_launch_block_threads(l);
}

bool wh_param_ordered(const wh_param *p)
{
    bool fields = false;
    for (int f = 0; f < p->nfields; f++)
        fields |= p->fields[f].prefix_of != 0 || p->fields[f].structure != WH_STRUCTURE_NONE;
    return p->structure != WH_STRUCTURE_NONE || p->prefix_of || fields;
}

bool wh_param_structured(const wh_param *p)
{
    return wh_param_ordered(p) || p->tree || p->table;
}

bool wh_field_varies_by_index(const wh_field *f)
{
    return f->has_range && ((f->lo && wh_expr_uses(f->lo, WH_VAR_I)) || (f->hi && wh_expr_uses(f->hi, WH_VAR_I)));
}

bool wh_spec_eval(const wh_spec *spec, const wh_expr *e, const int64_t *vars,
                  const char *what, int64_t *out, wh_error *err)
{
    if (wh_expr_eval(e, vars, out, err)) return true;
    if (err) {
        snprintf(err->file, sizeof err->file, "%s", spec->path);
        wh_error_set_path(err, what);
    }
    return false;
}

bool wh_spec_vars(const wh_spec *spec, const wh_launch *l, int64_t *vars, wh_error *err)
{
    vars[WH_VAR_THREADS] = (int64_t)wh_launch_threads_total(l);
    vars[WH_VAR_BLOCKS] = (int64_t)wh_launch_blocks_total(l);
    vars[WH_VAR_BLOCK] = (int64_t)l->block[0] * l->block[1] * l->block[2];
    vars[WH_VAR_I] = 0;
    for (int k = 0; k < spec->nconsts; k++) {
        char what[300];
        snprintf(what, sizeof what, "$.constants.%s", spec->const_names[k]);
        if (!wh_spec_eval(spec, spec->const_exprs[k], vars, what, &vars[WH_VAR_CONST0 + k], err))
            return false;
    }
    return true;
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

bool wh_spec_ptx_path(const wh_spec *spec, char *buf, size_t size, wh_error *err)
{
    if (spec->ptx) {
        snprintf(buf, size, "%s", spec->ptx);
        if (is_file(buf)) return true;
        wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "the PTX file %s (key \"ptx\") does not exist", buf);
        return false;
    }
    char stem[256];
    const char *base = strrchr(spec->source, '/');
    snprintf(stem, sizeof stem, "%s", base ? base + 1 : spec->source);
    char *dot = strrchr(stem, '.');
    if (dot) *dot = '\0';
    char next_to[1024], found[PATH_MAX + 1300], dir[PATH_MAX];
    snprintf(next_to, sizeof next_to, "%s/%s.ptx", spec->dir, stem);
    if (is_file(next_to)) {
        snprintf(buf, size, "%s", next_to);
        return true;
    }
    /* `make ptx` puts DIR/NAME.cu's PTX at ROOT/build/ptx/DIR/NAME.ptx, DIR
     * relative to the repository's ROOT: try every directory above the
     * spec's as ROOT, so a spec is found from any working directory */
    if (!realpath(spec->dir, dir)) snprintf(dir, sizeof dir, "%s", spec->dir);
    for (char *cut = dir + strlen(dir); cut > dir; ) {
        while (cut > dir && *cut != '/') cut--;
        if (cut == dir && *cut != '/') break;
        snprintf(found, sizeof found, "%.*s/build/ptx/%s/%s.ptx", (int)(cut - dir), dir, cut + 1, stem);
        if (is_file(found) && strlen(found) < size) {
            snprintf(buf, size, "%s", found);
            return true;
        }
        if (cut > dir) cut--;
        else break;
    }
    wh_error_set(err, WH_ERR_USER, spec->path, 0, 0,
                 "no PTX for %s: looked for %s and for build/ptx/DIR/%s.ptx under every directory above %s; "
                 "in the repository run `make ptx`; elsewhere `nvcc -ptx` the source and name the result with "
                 "the spec's \"ptx\" key", spec->source, next_to, stem, dir);
    return false;
}

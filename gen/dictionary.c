/*
 * dictionary.c — the kernel's comparison constants, as candidate values
 * for element refinement.
 *
 * A value drawn uniformly in a domain rarely lands in the narrow classes
 * a kernel's branches test: a lexer's byte is one of ~15 character classes
 * ('/', '*', '"', '\\', the digits, 'e', ...), several of them a single
 * value out of 128.  Fuzzers answer this with a dictionary of the
 * program's own constants (AFL++'s auto-dictionary, libFuzzer's compare
 * tables); here it is read from the PTX: every integer and floating
 * immediate of every function with a body, with its neighbours (v - 1,
 * v + 1, for the two sides of a bound) and its negation (compilers turn
 * `c >= '0' && c <= '9'` into `(c - 48) <= 9` unsigned, so the class's
 * first value appears as -48).  Address offsets are not immediates of this
 * kind (they belong to the address operand) and are left out.
 */
#include "gen/explore.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t *v;
    int n, cap;
} int_list;

typedef struct {
    double *v;
    int n, cap;
} float_list;

/* Room for one more element in *v (n used of *cap). */
static bool room(void **v, int n, int *cap, size_t size)
{
    if (n < *cap) return true;
    int c = *cap ? 2 * *cap : 64;
    void *nv = realloc(*v, (size_t)c * size);
    if (!nv) return false;
    *v = nv;
    *cap = c;
    return true;
}

static bool push_int(int_list *l, int64_t x)
{
    if (!room((void **)&l->v, l->n, &l->cap, sizeof *l->v)) return false;
    l->v[l->n++] = x;
    return true;
}

static bool push_float(float_list *l, double x)
{
    if (!room((void **)&l->v, l->n, &l->cap, sizeof *l->v)) return false;
    l->v[l->n++] = x;
    return true;
}

/* v, its neighbours and its negation (none of them wrapping). */
static bool push_int_family(int_list *l, int64_t v)
{
    bool ok = push_int(l, v);
    if (v > INT64_MIN) ok = ok && push_int(l, v - 1) && push_int(l, -v);
    if (v < INT64_MAX) ok = ok && push_int(l, v + 1);
    return ok;
}

static bool instr_constants(const ptx_instr *in, int_list *ints, float_list *floats)
{
    if (in->op == PTX_OP_BRA || in->op == PTX_OP_CALL) return true;
    bool ok = true;
    for (int i = 0; i < in->nops && ok; i++) {
        const ptx_operand *o = &in->ops[i];
        if (o->kind == PTX_OPD_IMM_INT) ok = push_int_family(ints, o->ival);
        else if (o->kind == PTX_OPD_IMM_FLOAT) ok = push_float(floats, o->fval);
    }
    return ok;
}

static int cmp_int(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_float(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* v[0..n) sorted, each value once; the count kept. */
static int sort_unique(void *v, int n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n == 0) return 0;
    qsort(v, (size_t)n, size, cmp);
    char *b = v;
    int m = 1;
    for (int i = 1; i < n; i++)
        if (cmp(b + (size_t)i * size, b + (size_t)(m - 1) * size) != 0)
            memcpy(b + (size_t)m++ * size, b + (size_t)i * size, size);
    return m;
}

/* The same without NaN (no domain holds it). */
static int sort_unique_floats(double *v, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (v[i] == v[i]) v[m++] = v[i];
    return sort_unique(v, m, sizeof *v, cmp_float);
}

bool gen_dictionary_build(const ptx_module *mod, gen_dictionary *d, wh_error *err)
{
    memset(d, 0, sizeof *d);
    int_list ints = { 0 };
    float_list floats = { 0 };
    bool ok = true;
    for (int f = 0; f < mod->nfuncs && ok; f++) {
        const ptx_function *fn = &mod->funcs[f];
        for (int i = 0; fn->has_body && i < fn->ninstrs && ok; i++) ok = instr_constants(&fn->instrs[i], &ints, &floats);
    }
    if (!ok) {
        free(ints.v);
        free(floats.v);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    d->ints = ints.v;
    d->nints = sort_unique(ints.v, ints.n, sizeof *ints.v, cmp_int);
    d->floats = floats.v;
    d->nfloats = sort_unique_floats(floats.v, floats.n);
    return true;
}

bool gen_dictionary_for_spec(const wh_spec *spec, gen_dictionary *d, wh_error *err)
{
    memset(d, 0, sizeof *d);
    char path[1024];
    if (!wh_spec_ptx_path(spec, path, sizeof path, err)) return false;
    ptx_module *mod = ptx_parse_file(path, err);
    if (!mod) return false;
    bool ok = gen_dictionary_build(mod, d, err);
    ptx_module_free(mod);
    return ok;
}

void gen_dictionary_free(gen_dictionary *d)
{
    free(d->ints);
    free(d->floats);
    memset(d, 0, sizeof *d);
}

/* The first index of the sorted v[0..n) whose value is >= *key. */
static int lower_bound(const void *v, int n, size_t size, const void *key, int (*cmp)(const void *, const void *))
{
    int a = 0, b = n;
    while (a < b) {
        int m = a + (b - a) / 2;
        if (cmp((const char *)v + (size_t)m * size, key) < 0) a = m + 1;
        else b = m;
    }
    return a;
}

int gen_dictionary_ints_in(const gen_dictionary *d, int64_t lo, int64_t hi, int *first)
{
    int a = lower_bound(d->ints, d->nints, sizeof *d->ints, &lo, cmp_int), b = d->nints;
    if (hi < INT64_MAX) {
        int64_t above = hi + 1;
        b = lower_bound(d->ints, d->nints, sizeof *d->ints, &above, cmp_int);
    }
    *first = a;
    return b > a ? b - a : 0;
}

int gen_dictionary_floats_in(const gen_dictionary *d, double lo, double hi, int *first)
{
    int a = lower_bound(d->floats, d->nfloats, sizeof *d->floats, &lo, cmp_float), b = a;
    while (b < d->nfloats && d->floats[b] <= hi) b++;
    *first = a;
    return b - a;
}

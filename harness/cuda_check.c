/*
 * cuda_check.c — do two runs agree on their outputs?  (`measure --check`:
 * the sim and the GPU on the same input.)
 *
 * Integers compare bit for bit.  Floats compare by their distance in units
 * in the last place: the number of representable values between them, so
 * that the bound means the same at every magnitude; +0 and -0 are 0 ulp
 * apart, any NaN equals any NaN, a NaN against a number is a mismatch.
 * Only the fields of each element are compared (struct padding is not).
 */
#include "harness/cuda_backend.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SHOW_PER_BUFFER 5

typedef struct {
    char *buf;
    size_t n, len;
} report_t;

static void say(report_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(report_t *r, const char *fmt, ...)
{
    if (!r->buf || r->n == 0 || r->len >= r->n - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(r->buf + r->len, r->n - r->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        r->len = r->len + (size_t)k >= r->n ? r->n - 1 : r->len + (size_t)k;
}

/* Distance in ulps between two floats given by their bit patterns of
 * `bits` (32 or 64); +0/-0 are 0 apart. */
static double ulp_distance(uint64_t a, uint64_t b, int bits)
{
    uint64_t sign = (uint64_t)1 << (bits - 1);
    uint64_t ma = a & (sign - 1), mb = b & (sign - 1);
    bool na = (a & sign) != 0, nb = (b & sign) != 0;
    if (na == nb)
        return (double)(ma > mb ? ma - mb : mb - ma);
    return (double)ma + (double)mb;      /* across zero */
}

/* A float field's bit pattern, widened, for ulp_distance. */
static uint64_t float_bits(const unsigned char *p, int bits)
{
    if (bits == 32) {
        uint32_t u;
        memcpy(&u, p, 4);
        return u;
    }
    uint64_t u;
    memcpy(&u, p, 8);
    return u;
}

/* Compare one field; true when equal within the bound.  *ulps receives
 * the float distance (INFINITY for NaN against a number). */
static bool field_equal(wh_type t, const unsigned char *pa, const unsigned char *pb,
                        double float_ulps, double *ulps)
{
    *ulps = 0;
    if (t == WH_F32 || t == WH_F64) {
        /* widening an f32 to double keeps NaN a NaN */
        double a = wh_value_get_float(t, pa), b = wh_value_get_float(t, pb);
        if (isnan(a) || isnan(b)) {
            *ulps = isnan(a) && isnan(b) ? 0 : INFINITY;
            return isnan(a) && isnan(b);
        }
        int bits = t == WH_F32 ? 32 : 64;
        *ulps = ulp_distance(float_bits(pa, bits), float_bits(pb, bits), bits);
        return *ulps <= float_ulps;
    }
    return memcmp(pa, pb, wh_type_size(t)) == 0;
}

static void value_text(wh_type t, const unsigned char *p, char *buf, size_t n)
{
    if (t == WH_F32)
        snprintf(buf, n, "%.9g", wh_value_get_float(t, p));
    else if (t == WH_F64)
        snprintf(buf, n, "%.17g", wh_value_get_float(t, p));
    else if (t == WH_U64)
        snprintf(buf, n, "%llu", (unsigned long long)(uint64_t)wh_value_get_int(t, p));
    else
        snprintf(buf, n, "%lld", (long long)wh_value_get_int(t, p));
}

bool harness_compare_outputs(const wh_image *a, const wh_image *b, double float_ulps,
                             char *report, size_t n)
{
    report_t r = { report, n, 0 };
    if (report && n)
        report[0] = 0;
    if (a->nbufs != b->nbufs) {
        say(&r, "the images have %d and %d buffers", a->nbufs, b->nbufs);
        return false;
    }
    bool all_ok = true;
    int nout = 0;
    uint64_t elements = 0;
    double worst = 0;
    for (int i = 0; i < a->nbufs; i++) {
        const wh_buffer *ba = &a->bufs[i], *bb = &b->bufs[i];
        const wh_param *p = ba->param;
        if (!p || p->kind != WH_BUFFER || p->role != WH_ROLE_OUTPUT)
            continue;
        nout++;
        if (ba->bytes != bb->bytes || ba->count != bb->count) {
            say(&r, "%s: sizes differ (%llu and %llu elements)\n", p->name,
                (unsigned long long)ba->count, (unsigned long long)bb->count);
            all_ok = false;
            continue;
        }
        elements += ba->count;
        uint64_t bad = 0;
        double worst_here = 0;
        int shown = 0;
        for (uint64_t e = 0; e < ba->count; e++) {
            bool elem_bad = false;
            for (int f = 0; f < p->nfields; f++) {
                const wh_field *fd = &p->fields[f];
                size_t off = (size_t)e * p->elem_size + fd->offset;
                double ulps;
                bool eq = field_equal(fd->type, ba->data + off, bb->data + off, float_ulps, &ulps);
                if (wh_type_is_float(fd->type) && ulps > worst_here)
                    worst_here = ulps;
                if (eq)
                    continue;
                elem_bad = true;
                if (shown < SHOW_PER_BUFFER) {
                    char va[48], vb[48];
                    value_text(fd->type, ba->data + off, va, sizeof va);
                    value_text(fd->type, bb->data + off, vb, sizeof vb);
                    if (!shown)
                        say(&r, "%s:", p->name);
                    say(&r, " [%llu]%s%s %s vs %s", (unsigned long long)e, fd->name[0] ? "." : "",
                        fd->name, va, vb);
                    if (wh_type_is_float(fd->type)) {
                        if (isinf(ulps))
                            say(&r, " (NaN)");
                        else
                            say(&r, " (%.0f ulp)", ulps);
                    }
                    say(&r, ";");
                    shown++;
                }
            }
            if (elem_bad)
                bad++;
        }
        if (worst_here > worst)
            worst = worst_here;
        if (bad) {
            all_ok = false;
            say(&r, " %llu of %llu elements differ\n", (unsigned long long)bad,
                (unsigned long long)ba->count);
        }
    }
    if (all_ok) {
        if (worst > 0)
            say(&r, "outputs agree: %d buffer%s, %llu elements (floats within %.0f ulp; bound %.0f)",
                nout, nout == 1 ? "" : "s", (unsigned long long)elements, worst, float_ulps);
        else
            say(&r, "outputs agree: %d buffer%s, %llu elements, bit for bit", nout,
                nout == 1 ? "" : "s", (unsigned long long)elements);
    } else {
        /* drop the trailing newline */
        if (report && r.len && report[r.len - 1] == '\n')
            report[--r.len] = 0;
    }
    return all_ok;
}

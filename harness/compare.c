/*
 * compare.c — do two runs agree on their outputs?  (`measure --check`:
 * the sim and the GPU on the same input.)
 *
 * Integers compare bit for bit.  Floats compare by their distance in units
 * in the last place: the number of representable values between them, so
 * that the bound means the same at every magnitude; +0 and -0 are 0 ulp
 * apart, any NaN equals any NaN, a NaN against a number is a mismatch.
 * Only the fields of each element are compared (struct padding is not).
 *
 * A buffer's spec says how: "check": "exact" (the default) compares
 * element i with element i; "multiset" sorts both copies' elements (by
 * their fields in order: integers by value, floats by value with -0 as +0
 * and every NaN last) and pairs them up in that order, so the same values
 * at other places agree (a hash table filled in whatever order the GPU
 * serves the atomics); "none" compares nothing and says so.  Floats of a
 * multiset pair with the ulp bound after sorting: values a few ulps apart
 * that sort in a different order against their neighbours in the other
 * copy can fail to pair, so a multiset of floats is meant to agree bit for
 * bit (as correctly rounded arithmetic does).
 */
#include "harness/harness.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Compare two copies of an output buffer element by element; the number
 * of elements that differ (the first ones listed in the report). */
static uint64_t compare_exact(report_t *r, const wh_param *p, const wh_buffer *ba,
                              const wh_buffer *bb, double float_ulps, double *worst)
{
    uint64_t bad = 0;
    int shown = 0;
    for (uint64_t e = 0; e < ba->count; e++) {
        bool elem_bad = false;
        for (int f = 0; f < p->nfields; f++) {
            const wh_field *fd = &p->fields[f];
            size_t off = (size_t)e * p->elem_size + fd->offset;
            double ulps;
            bool eq = field_equal(fd->type, ba->data + off, bb->data + off, float_ulps, &ulps);
            if (wh_type_is_float(fd->type) && ulps > *worst)
                *worst = ulps;
            if (eq)
                continue;
            elem_bad = true;
            if (shown < SHOW_PER_BUFFER) {
                char va[48], vb[48];
                value_text(fd->type, ba->data + off, va, sizeof va);
                value_text(fd->type, bb->data + off, vb, sizeof vb);
                if (!shown)
                    say(r, "%s:", p->name);
                say(r, " [%llu]%s%s %s vs %s", (unsigned long long)e, fd->name[0] ? "." : "",
                    fd->name, va, vb);
                if (wh_type_is_float(fd->type)) {
                    if (isinf(ulps))
                        say(r, " (NaN)");
                    else
                        say(r, " (%.0f ulp)", ulps);
                }
                say(r, ";");
                shown++;
            }
        }
        if (elem_bad)
            bad++;
    }
    if (bad)
        say(r, " %llu of %llu elements differ\n", (unsigned long long)bad,
            (unsigned long long)ba->count);
    return bad;
}

/* ---- multisets ---------------------------------------------------------- */

/* A field as an unsigned key whose order is the order of its values:
 * integers by value, floats by value with -0 as +0 and every NaN last. */
static uint64_t order_key(wh_type t, const unsigned char *p)
{
    const uint64_t sign = (uint64_t)1 << 63;
    if (wh_type_is_float(t)) {
        double d = wh_value_get_float(t, p);   /* f32 widens exactly, in order */
        if (isnan(d))
            return UINT64_MAX;
        if (d == 0)
            d = 0;
        uint64_t u;
        memcpy(&u, &d, 8);
        return u & sign ? ~u : u | sign;
    }
    uint64_t u = (uint64_t)wh_value_get_int(t, p);
    return wh_type_is_signed(t) ? u ^ sign : u;
}

typedef struct {
    const uint64_t *key;    /* one per field */
    int nkeys;
    uint64_t index;         /* the element */
} sorted_elem;

static int cmp_sorted(const void *x, const void *y)
{
    const sorted_elem *a = x, *b = y;
    for (int k = 0; k < a->nkeys; k++)
        if (a->key[k] != b->key[k])
            return a->key[k] < b->key[k] ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The buffer's elements in sorted order; *keys holds their keys (free
 * both).  NULL when out of memory. */
static sorted_elem *sort_elements(const wh_param *p, const wh_buffer *b, uint64_t **keys)
{
    size_t n = (size_t)b->count, nf = (size_t)p->nfields;
    *keys = malloc((n ? n : 1) * nf * sizeof **keys);
    sorted_elem *s = malloc((n ? n : 1) * sizeof *s);
    if (!*keys || !s) {
        free(*keys);
        free(s);
        *keys = NULL;
        return NULL;
    }
    for (size_t e = 0; e < n; e++) {
        for (size_t f = 0; f < nf; f++)
            (*keys)[e * nf + f] = order_key(p->fields[f].type, b->data + e * p->elem_size + p->fields[f].offset);
        s[e] = (sorted_elem){ *keys + e * nf, p->nfields, e };
    }
    qsort(s, n, sizeof *s, cmp_sorted);
    return s;
}

/* An element's fields as text: "7" or "(tag 3, w 0.25)". */
static void elem_text(const wh_param *p, const unsigned char *elem, char *buf, size_t n)
{
    if (p->type != WH_STRUCT) {
        value_text(p->fields[0].type, elem, buf, n);
        return;
    }
    size_t len = 0;
    for (int f = 0; f < p->nfields && len < n; f++) {
        char v[48];
        value_text(p->fields[f].type, elem + p->fields[f].offset, v, sizeof v);
        len += (size_t)snprintf(buf + len, n - len, "%s%s %s%s", f ? ", " : "(", p->fields[f].name, v,
                                f == p->nfields - 1 ? ")" : "");
    }
}

static void free_sorted(sorted_elem *sa, uint64_t *ka, sorted_elem *sb, uint64_t *kb)
{
    free(sa);
    free(ka);
    free(sb);
    free(kb);
}

/* Up to SHOW_PER_BUFFER unmatched elements of one side, then "...". */
static void say_unmatched(report_t *r, const wh_param *p, const wh_buffer *b, const uint64_t *idx,
                          uint64_t count)
{
    say(r, "{");
    for (uint64_t k = 0; k < count && k < SHOW_PER_BUFFER; k++) {
        char v[256];
        elem_text(p, b->data + (size_t)idx[k] * p->elem_size, v, sizeof v);
        say(r, "%s%s", k ? ", " : "", v);
    }
    say(r, "%s}", count > SHOW_PER_BUFFER ? ", ..." : "");
}

/* Compare two copies of an output buffer as multisets: sort both, pair
 * equal elements up in order; the number of elements of each copy left
 * without a partner in the other (the first ones listed). */
static uint64_t compare_multiset(report_t *r, const wh_param *p, const wh_buffer *ba,
                                 const wh_buffer *bb, double float_ulps, double *worst)
{
    uint64_t *ka, *kb;
    sorted_elem *sa = sort_elements(p, ba, &ka), *sb = sort_elements(p, bb, &kb);
    if (!sa || !sb) {
        say(r, "%s: out of memory sorting %llu elements\n", p->name, (unsigned long long)ba->count);
        free_sorted(sa, ka, sb, kb);
        return ba->count ? ba->count : 1;
    }
    uint64_t only_a[SHOW_PER_BUFFER], only_b[SHOW_PER_BUFFER], na = 0, nb = 0;
    uint64_t i = 0, j = 0, n = ba->count;
    while (i < n || j < n) {
        bool take_a = j == n, take_b = i == n;
        if (!take_a && !take_b) {
            const unsigned char *ea = ba->data + (size_t)sa[i].index * p->elem_size;
            const unsigned char *eb = bb->data + (size_t)sb[j].index * p->elem_size;
            bool eq = true;
            double most = 0;
            for (int f = 0; f < p->nfields && eq; f++) {
                double ulps;
                eq = field_equal(p->fields[f].type, ea + p->fields[f].offset, eb + p->fields[f].offset,
                                 float_ulps, &ulps);
                most = ulps > most ? ulps : most;
            }
            if (eq) {
                *worst = most > *worst ? most : *worst;
                i++, j++;
                continue;
            }
            take_a = cmp_sorted(&sa[i], &sb[j]) < 0;
            take_b = !take_a;
        }
        if (take_a) {
            if (na < SHOW_PER_BUFFER)
                only_a[na] = sa[i].index;
            na++, i++;
        } else {
            if (nb < SHOW_PER_BUFFER)
                only_b[nb] = sb[j].index;
            nb++, j++;
        }
    }
    if (na) {
        say(r, "%s: as multisets, %llu of %llu elements differ: ", p->name, (unsigned long long)na,
            (unsigned long long)n);
        say_unmatched(r, p, ba, only_a, na);
        say(r, " vs ");
        say_unmatched(r, p, bb, only_b, nb);
        say(r, "\n");
    }
    free_sorted(sa, ka, sb, kb);
    return na;
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
    /* The details go after the summary line, which must not be cut off. */
    report_t d = { report && n ? malloc(n) : NULL, n, 0 };
    if (d.buf)
        d.buf[0] = 0;
    int by[3] = { 0 }, bad_bufs = 0;
    uint64_t elements = 0;
    double worst = 0;
    for (int i = 0; i < a->nbufs; i++) {
        const wh_buffer *ba = &a->bufs[i], *bb = &b->bufs[i];
        const wh_param *p = ba->param;
        if (!p || !wh_param_returned(p))
            continue;
        by[p->check]++;
        if (p->check == WH_CHECK_NONE) {
            say(&d, "%s: not compared (\"check\": \"none\" in the spec%s%s)\n", p->name,
                p->check_why ? ": " : "", p->check_why ? p->check_why : "");
            continue;
        }
        if (ba->bytes != bb->bytes || ba->count != bb->count) {
            say(&d, "%s: sizes differ (%llu and %llu elements)\n", p->name,
                (unsigned long long)ba->count, (unsigned long long)bb->count);
            bad_bufs++;
            continue;
        }
        elements += ba->count;
        uint64_t bad = p->check == WH_CHECK_MULTISET
                           ? compare_multiset(&d, p, ba, bb, float_ulps, &worst)
                           : compare_exact(&d, p, ba, bb, float_ulps, &worst);
        if (bad)
            bad_bufs++;
        else if (p->check == WH_CHECK_MULTISET)
            say(&d, "%s: agrees as a multiset (the order of its elements is not compared%s%s)\n",
                p->name, p->check_why ? ": " : "", p->check_why ? p->check_why : "");
    }
    int compared = by[WH_CHECK_EXACT] + by[WH_CHECK_MULTISET];
    if (bad_bufs)
        say(&r, "outputs differ in %d of %d buffer%s compared", bad_bufs, compared, compared == 1 ? "" : "s");
    else
        say(&r, "outputs agree: %d buffer%s compared", compared, compared == 1 ? "" : "s");
    say(&r, " (%d exactly, %d as %s), %d not compared", by[WH_CHECK_EXACT], by[WH_CHECK_MULTISET],
        by[WH_CHECK_MULTISET] == 1 ? "a multiset" : "multisets", by[WH_CHECK_NONE]);
    if (!bad_bufs && worst > 0)
        say(&r, "; %llu elements, floats within %.0f ulp (bound %.0f)", (unsigned long long)elements,
            worst, float_ulps);
    else if (!bad_bufs)
        say(&r, "; %llu elements, bit for bit", (unsigned long long)elements);
    if (d.buf && d.len) {
        if (d.buf[d.len - 1] == '\n')
            d.buf[--d.len] = 0;   /* no trailing newline */
        say(&r, "\n%s", d.buf);
    }
    free(d.buf);
    return !bad_bufs;
}

/*
 * image_table.c — one buffer of an input image as a table a user's tools
 * read and write: CSV (a header of field names, one row per element) or
 * NumPy's .npy (a 1-D array; a structured one for struct elements).
 *
 * Export writes every value exactly (integers in full, floats with enough
 * digits to read back the same bits).  Import is strict where a mistake
 * would be silent: the element count must be the buffer's, every value
 * must fit its field's type (no wrap, no truncation), a float may not go
 * into an integer field; value domains are the caller's check
 * (wh_image_check_domains), so the error names the element and domain.
 * An .npy of any plain numeric dtype loads into a non-struct buffer (the
 * values convert: np.arange gives int64); a struct buffer takes exactly the
 * structured dtype export writes.
 */
#include "core/image.h"
#include "core/results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- NumPy dtype strings ---------------------------------------------- */

/* "<i4", "|u1", "<f8": the plain dtype of a scalar type. */
static void npy_scalar_descr(wh_type t, char *out, size_t n)
{
    size_t size = wh_type_size(t);
    char kind = wh_type_is_float(t) ? 'f' : wh_type_is_signed(t) ? 'i' : 'u';
    snprintf(out, n, "%c%c%zu", size == 1 ? '|' : '<', kind, size);
}

/* The descr of a buffer's elements as numpy writes it: '<i4', or for a
 * struct a list of (name, dtype) with ('', '|Vn') for padding. */
static void npy_descr(const wh_param *p, char *out, size_t n)
{
    char d[8];
    if (p->type != WH_STRUCT) {
        npy_scalar_descr(p->type, d, sizeof d);
        snprintf(out, n, "'%s'", d);
        return;
    }
    size_t len = 0, at = 0;
    len += (size_t)snprintf(out + len, n - len, "[");
    for (int f = 0; f < p->nfields && len < n; f++) {
        const wh_field *fd = &p->fields[f];
        if (fd->offset > at) len += (size_t)snprintf(out + len, n - len, "('', '|V%zu'), ", fd->offset - at);
        if (len >= n) break;
        npy_scalar_descr(fd->type, d, sizeof d);
        len += (size_t)snprintf(out + len, n - len, "('%s', '%s')%s", fd->name, d,
                                f + 1 < p->nfields || fd->offset + wh_type_size(fd->type) < p->elem_size ? ", " : "");
        at = fd->offset + wh_type_size(fd->type);
    }
    if (len < n && at < p->elem_size) len += (size_t)snprintf(out + len, n - len, "('', '|V%zu')", p->elem_size - at);
    if (len < n) snprintf(out + len, n - len, "]");
}

/* ---- writing ------------------------------------------------------------ */

static void write_value(FILE *f, wh_type t, const unsigned char *at)
{
    if (t == WH_F32) fprintf(f, "%.9g", wh_value_get_float(t, at));
    else if (t == WH_F64) fprintf(f, "%.17g", wh_value_get_float(t, at));
    else if (t == WH_U64) fprintf(f, "%llu", (unsigned long long)(uint64_t)wh_value_get_int(t, at));
    else fprintf(f, "%lld", (long long)wh_value_get_int(t, at));
}

static void write_csv(FILE *f, const wh_buffer *b)
{
    const wh_param *p = b->param;
    for (int k = 0; k < p->nfields; k++)
        fprintf(f, "%s%s", k ? "," : "", p->type == WH_STRUCT ? p->fields[k].name : p->name);
    fputc('\n', f);
    for (uint64_t e = 0; e < b->count; e++) {
        const unsigned char *elem = b->data + e * p->elem_size;
        for (int k = 0; k < p->nfields; k++) {
            if (k) fputc(',', f);
            write_value(f, p->fields[k].type, elem + p->fields[k].offset);
        }
        fputc('\n', f);
    }
}

/* Version 1.0: magic, version, a little-endian u16 header length, then the
 * header dict padded with spaces to a multiple of 64 bytes, ending in '\n'. */
static void write_npy(FILE *f, const wh_buffer *b)
{
    char descr[4096], dict[4400];
    npy_descr(b->param, descr, sizeof descr);
    int len = snprintf(dict, sizeof dict, "{'descr': %s, 'fortran_order': False, 'shape': (%llu,), }", descr,
                       (unsigned long long)b->count);
    size_t total = 10 + (size_t)len + 1, padded = (total + 63) / 64 * 64;
    size_t hlen = padded - 10;
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc((int)(hlen & 0xff), f);
    fputc((int)(hlen >> 8), f);
    fputs(dict, f);
    for (size_t k = total; k < padded; k++) fputc(' ', f);
    fputc('\n', f);
    fwrite(b->data, 1, b->bytes, f);
}

bool wh_buffer_export(const wh_image *img, int p, wh_table_format fmt, const char *path, wh_error *err)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) {
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "out of memory");
        return false;
    }
    if (fmt == WH_TABLE_NPY) write_npy(f, &img->bufs[p]);
    else write_csv(f, &img->bufs[p]);
    bool ok = fclose(f) == 0;
    if (!ok) wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "out of memory");
    ok = ok && wh_write_file_atomic(path, text, size, err);
    free(text);
    return ok;
}

/* ---- reading: shared ----------------------------------------------------- */

typedef struct {
    const char *path;
    unsigned char *data;
    size_t size;
} file_bytes;

static bool read_all(const char *path, file_bytes *fb, wh_error *err)
{
    fb->path = path;
    fb->data = NULL;
    fb->size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot open: %s", strerror(errno));
        return false;
    }
    size_t cap = 0;
    for (;;) {
        if (fb->size + 65536 + 1 > cap) {
            cap = cap ? cap * 2 : 1 << 20;
            unsigned char *grown = realloc(fb->data, cap);
            if (!grown) {
                fclose(f);
                wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "out of memory");
                return false;
            }
            fb->data = grown;
        }
        size_t got = fread(fb->data + fb->size, 1, 65536, f);
        fb->size += got;
        if (got < 65536) break;
    }
    bool failed = ferror(f);
    fclose(f);
    fb->data[fb->size] = '\0'; /* room was kept: the CSV parser reads a C string */
    if (failed) wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot read: %s", strerror(errno));
    return !failed;
}

static bool count_matches(const wh_buffer *b, uint64_t got, const char *path, const char *what, wh_error *err)
{
    if (got == b->count) return true;
    wh_error_set(err, WH_ERR_USER, path, 0, 0, "%llu %s, but input \"%s\" has %llu elements for this launch",
                 (unsigned long long)got, what, b->param->name, (unsigned long long)b->count);
    return false;
}

/* ---- reading CSV ----------------------------------------------------------- */

typedef struct {
    const char *path;
    const char *at;
    int line;
} csv_reader;

/* The next cell of the current line into cell (trimmed, quotes removed);
 * *last says it ended the line.  False at the end of the text. */
static bool csv_cell(csv_reader *r, char *cell, size_t n, bool *last)
{
    if (!*r->at) return false;
    while (*r->at == ' ' || *r->at == '\t') r->at++;
    bool quoted = *r->at == '"';
    if (quoted) r->at++;
    size_t len = 0;
    while (*r->at && (quoted ? *r->at != '"' : (*r->at != ',' && *r->at != '\n' && *r->at != '\r'))) {
        if (len + 1 < n) cell[len++] = *r->at;
        r->at++;
    }
    if (quoted && *r->at == '"') r->at++;
    while (len && (cell[len - 1] == ' ' || cell[len - 1] == '\t')) len--;
    cell[len] = '\0';
    while (*r->at == ' ' || *r->at == '\t') r->at++;
    *last = *r->at != ',';
    if (*r->at == ',') r->at++;
    else {
        if (*r->at == '\r') r->at++;
        if (*r->at == '\n') r->at++;
    }
    return true;
}

/* Parse one cell into field fd of the element at `elem`. */
static bool csv_value(const csv_reader *r, const wh_field *fd, const char *cell, int col, unsigned char *elem,
                      wh_error *err)
{
    char *end;
    errno = 0;
    if (wh_type_is_float(fd->type)) {
        double v = strtod(cell, &end);
        if (end == cell || *end) goto bad;
        wh_value_set_float(fd->type, elem + fd->offset, v);
        return true;
    }
    if (fd->type == WH_U64 && cell[0] != '-') {
        unsigned long long u = strtoull(cell, &end, 0);
        if (end == cell || *end || errno) goto bad;
        wh_value_set_int(fd->type, elem + fd->offset, (int64_t)u);
        return true;
    }
    long long v = strtoll(cell, &end, 0);
    if (end == cell || *end || errno || !wh_type_holds(fd->type, v)) goto bad;
    wh_value_set_int(fd->type, elem + fd->offset, v);
    return true;
bad:
    wh_error_set(err, WH_ERR_USER, r->path, r->line, col, "\"%s\" is not %s %s", cell,
                 wh_type_is_float(fd->type) ? "a number for the" : "an integer that fits the", wh_type_name(fd->type));
    wh_error_set_path(err, fd->name[0] ? fd->name : NULL);
    return false;
}

static bool looks_numeric(const char *cell)
{
    char *end;
    strtod(cell, &end);
    return end != cell && !*end;
}

/* The header maps each column to a field: a struct's names the fields in
 * any order; a plain buffer's single column may have any name, or none
 * (the first row is then a value). */
static bool csv_header(csv_reader *r, const wh_param *p, int *field_of_col, wh_error *err)
{
    char cell[256];
    bool last = false;
    int ncols = 0;
    const char *start = r->at;
    bool seen[64] = { false };
    while (!last && csv_cell(r, cell, sizeof cell, &last)) {
        if (p->type != WH_STRUCT && ncols == 0 && looks_numeric(cell)) {
            r->at = start; /* no header: that row is the first element */
            field_of_col[0] = 0;
            return true;
        }
        int f = -1;
        for (int k = 0; k < p->nfields && p->type == WH_STRUCT; k++)
            if (!strcmp(p->fields[k].name, cell)) f = k;
        if (p->type != WH_STRUCT) f = ncols == 0 ? 0 : -1;
        if (f < 0 || ncols >= p->nfields || seen[f]) {
            wh_error_set(err, WH_ERR_USER, r->path, r->line, ncols + 1,
                         "header column \"%s\": input \"%s\" has %s", cell, p->name,
                         p->type == WH_STRUCT ? "no such field, or it is named twice" : "one column");
            return false;
        }
        seen[f] = true;
        field_of_col[ncols++] = f;
    }
    r->line++;
    if (ncols != p->nfields) {
        wh_error_set(err, WH_ERR_USER, r->path, 1, 0, "the header names %d of the %d fields of input \"%s\"", ncols,
                     p->nfields, p->name);
        return false;
    }
    return true;
}

static bool import_csv(wh_buffer *b, const file_bytes *fb, wh_error *err)
{
    const wh_param *p = b->param;
    if (p->nfields > 64) {
        wh_error_set(err, WH_ERR_UNSUPPORTED, fb->path, 0, 0, "input \"%s\" has over 64 fields", p->name);
        return false;
    }
    csv_reader r = { fb->path, (const char *)fb->data, 1 };
    int field_of_col[64];
    if (!csv_header(&r, p, field_of_col, err)) return false;
    uint64_t rows = 0;
    char cell[256];
    while (*r.at) {
        if (*r.at == '\n' || *r.at == '\r') { /* blank line */
            r.at += *r.at == '\r' && r.at[1] == '\n' ? 2 : 1;
            r.line++;
            continue;
        }
        unsigned char *elem = rows < b->count ? b->data + rows * p->elem_size : NULL;
        bool last = false;
        int col = 0;
        while (!last && csv_cell(&r, cell, sizeof cell, &last)) {
            if (col >= p->nfields) {
                wh_error_set(err, WH_ERR_USER, r.path, r.line, col + 1, "more than %d columns", p->nfields);
                return false;
            }
            if (elem && !csv_value(&r, &p->fields[field_of_col[col]], cell, col + 1, elem, err)) return false;
            col++;
        }
        if (col != p->nfields) {
            wh_error_set(err, WH_ERR_USER, r.path, r.line, 0, "%d columns, expected %d", col, p->nfields);
            return false;
        }
        rows++;
        r.line++;
    }
    return count_matches(b, rows, fb->path, "rows", err);
}

/* ---- reading .npy ------------------------------------------------------------- */

/* The value of 'key' in the header dict: its text up to the next top-level
 * comma or closing brace. */
static bool npy_header_value(const char *dict, const char *key, char *out, size_t n)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s':", key);
    const char *at = strstr(dict, pat);
    if (!at) return false;
    at += strlen(pat);
    while (*at == ' ') at++;
    int depth = 0;
    size_t len = 0;
    for (; *at && (depth > 0 || (*at != ',' && *at != '}')); at++) {
        if (*at == '[' || *at == '(') depth++;
        if (*at == ']' || *at == ')') depth--;
        if (len + 1 < n) out[len++] = *at;
    }
    out[len] = '\0';
    return true;
}

static void strip_spaces(char *s)
{
    char *w = s;
    for (char *c = s; *c; c++)
        if (*c != ' ') *w++ = *c;
    *w = '\0';
}

/* A plain dtype "'<i8'" as a scalar type, when it is one we convert from. */
static bool npy_plain_type(const char *descr, wh_type *out)
{
    static const wh_type all[] = { WH_I8, WH_U8, WH_I16, WH_U16, WH_I32, WH_U32, WH_I64, WH_U64, WH_F32, WH_F64 };
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        char d[8], quoted[12], alt[12];
        npy_scalar_descr(all[k], d, sizeof d);
        snprintf(quoted, sizeof quoted, "'%s'", d);
        snprintf(alt, sizeof alt, "'=%s'", d + 1); /* native order, as some writers say on little-endian hosts */
        if (!strcmp(descr, quoted) || !strcmp(descr, alt)) {
            *out = all[k];
            return true;
        }
    }
    return false;
}

/* Element e of a plain array of type `from` into field 0 of b's element e. */
static bool npy_convert(wh_buffer *b, wh_type from, const unsigned char *src, uint64_t e, const char *path,
                        wh_error *err)
{
    const wh_field *fd = &b->param->fields[0];
    unsigned char *dst = b->data + e * b->param->elem_size;
    const unsigned char *at = src + e * wh_type_size(from);
    if (wh_type_is_float(from)) {
        double v = wh_value_get_float(from, at);
        if (wh_type_is_float(fd->type)) {
            wh_value_set_float(fd->type, dst, v);
            return true;
        }
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "holds floats (%s), but input \"%s\" is %s: convert it "
                     "(numpy: .astype) first", wh_type_name(from), b->param->name, wh_type_name(fd->type));
        return false;
    }
    int64_t v = wh_value_get_int(from, at);
    bool above = from == WH_U64 && v < 0; /* past INT64_MAX */
    if (wh_type_is_float(fd->type)) {
        wh_value_set_float(fd->type, dst, above ? (double)(uint64_t)v : (double)v);
        return true;
    }
    if (above ? fd->type != WH_U64 : !wh_type_holds(fd->type, v)) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "element %llu is %s%lld, which does not fit input \"%s\" (%s)",
                     (unsigned long long)e, above ? "above " : "", above ? (long long)INT64_MAX : (long long)v,
                     b->param->name, wh_type_name(fd->type));
        return false;
    }
    wh_value_set_int(fd->type, dst, v);
    return true;
}

static bool npy_bad(const char *path, const char *what, wh_error *err)
{
    wh_error_set(err, WH_ERR_USER, path, 0, 0, "not a NumPy .npy file this tool reads: %s", what);
    return false;
}

static bool import_npy(wh_buffer *b, const file_bytes *fb, wh_error *err)
{
    const unsigned char *d = fb->data;
    if (fb->size < 10 || (d[6] != 1 && d[6] != 2)) return npy_bad(fb->path, "version 1 or 2 expected", err);
    size_t hlen = d[6] == 1 ? (size_t)d[8] | (size_t)d[9] << 8
                            : fb->size < 12 ? 0 : (size_t)d[8] | (size_t)d[9] << 8 | (size_t)d[10] << 16 | (size_t)d[11] << 24;
    size_t start = d[6] == 1 ? 10 : 12;
    if (start + hlen > fb->size || hlen > 65536) return npy_bad(fb->path, "the header is cut short", err);
    char dict[65537], descr[4096], shape[128], order[16], want[4096];
    memcpy(dict, d + start, hlen);
    dict[hlen] = '\0';
    if (!npy_header_value(dict, "descr", descr, sizeof descr) || !npy_header_value(dict, "shape", shape, sizeof shape) ||
        !npy_header_value(dict, "fortran_order", order, sizeof order))
        return npy_bad(fb->path, "no descr, shape or fortran_order in its header", err);
    strip_spaces(descr);
    strip_spaces(shape);
    unsigned long long n;
    char tail[4];
    if (sscanf(shape, "(%llu,%3s", &n, tail) != 2 || strcmp(tail, ")"))
        return npy_bad(fb->path, "a one-dimensional array (shape (N,)) expected", err);
    if (!count_matches(b, n, fb->path, "elements in the array", err)) return false;
    const unsigned char *src = d + start + hlen;
    size_t have = fb->size - start - hlen;
    wh_type from;
    if (b->param->type != WH_STRUCT && npy_plain_type(descr, &from)) {
        if (have != n * wh_type_size(from)) return npy_bad(fb->path, "the data is not shape x dtype bytes", err);
        for (uint64_t e = 0; e < n; e++)
            if (!npy_convert(b, from, src, e, fb->path, err)) return false;
        return true;
    }
    npy_descr(b->param, want, sizeof want);
    strip_spaces(want);
    if (strcmp(descr, want)) {
        npy_descr(b->param, want, sizeof want);
        wh_error_set(err, WH_ERR_USER, fb->path, 0, 0, "dtype %s: input \"%s\" takes %s", descr, b->param->name,
                     b->param->type == WH_STRUCT ? want : "a plain integer or float dtype");
        return false;
    }
    if (have != b->bytes) return npy_bad(fb->path, "the data is not shape x dtype bytes", err);
    memcpy(b->data, src, b->bytes);
    return true;
}

bool wh_buffer_import(wh_image *img, int p, const char *path, wh_error *err)
{
    file_bytes fb;
    if (!read_all(path, &fb, err)) {
        free(fb.data);
        return false;
    }
    bool npy = fb.size >= 6 && !memcmp(fb.data, "\x93NUMPY", 6);
    bool ok = npy ? import_npy(&img->bufs[p], &fb, err) : import_csv(&img->bufs[p], &fb, err);
    free(fb.data);
    return ok;
}

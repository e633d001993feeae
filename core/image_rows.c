/*
 * image_rows.c — column indices of a lower-triangular CSR matrix
 * ("below_row", core/spec.h): every entry of row r names a column below
 * r, as the off-diagonal entries of L in a triangular solve do, and, with
 * a level ("level": the rows a level-scheduled solve runs at once), every
 * entry of a row of the level names a column outside the level (its rows
 * depend only on earlier levels).
 *
 * Rows come from the row pointer the spec names: a running sum of row
 * lengths ("prefix_sum_of": row r's entries are start[r] .. start[r] +
 * len[r] - 1) or CSR offsets ("offsets": ptr[r] .. ptr[r + 1] - 1).
 * Entries no row holds are left as they are.
 *
 * As with image_structure.c the search builds inputs element by element
 * and every image is brought to the structure here, keeping what it can:
 * a column that already fits stays; one at or above its row moves to the
 * nearest fitting column below it, one in the level to the nearest
 * fitting column below it, else above it (still below the row).  A row
 * with no fitting column at all (row 0, or a level row all of whose
 * lower rows are in the level) names itself: the diagonal, the one place
 * left that reads no later row.
 */
#include "core/image.h"
#include "core/image_internal.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    uint64_t ncols;         /* the columns buffer's elements */
    int rows_p;             /* the row pointer */
    int64_t *level;         /* the level's rows, sorted, without repeats */
    uint64_t *run_first;    /* level[k]'s run of consecutive rows starts at level[run_first[k]] */
    uint64_t *run_last;     /* ... and ends at level[run_last[k]] */
    uint64_t nlevel;
    wh_bounds bd;           /* the columns' range */
} rows;

int64_t wh_image_int(const wh_image *img, int p, uint64_t e)
{
    const wh_buffer *b = &img->bufs[p];
    return wh_value_get_int(b->param->type, b->data + e * b->param->elem_size);
}

void wh_image_set_int(wh_image *img, int p, uint64_t e, int64_t v)
{
    wh_buffer *b = &img->bufs[p];
    wh_value_set_int(b->param->type, b->data + e * b->param->elem_size, v);
}

uint64_t wh_csr_nrows(const wh_image *img, int p)
{
    uint64_t n = img->bufs[p].count;
    return img->bufs[p].param->prefix_of ? n : n > 0 ? n - 1 : 0;
}

void wh_csr_row(const wh_image *img, int p, uint64_t k, uint64_t n, uint64_t *b, uint64_t *e)
{
    int lens = img->bufs[p].param->prefix_of - 1;
    int64_t start = wh_image_int(img, p, k);
    int64_t end = lens >= 0 ? start + wh_image_int(img, lens, k) : wh_image_int(img, p, k + 1);
    *b = start < 0 ? 0 : (uint64_t)start > n ? n : (uint64_t)start;
    *e = end < (int64_t)*b ? *b : (uint64_t)end > n ? n : (uint64_t)end;
}

/* The first of the level's rows at or above v (nlevel: none). */
static uint64_t level_from(const rows *r, int64_t v)
{
    uint64_t a = 0, b = r->nlevel;
    while (a < b) {
        uint64_t m = (a + b) / 2;
        if (r->level[m] < v) a = m + 1;
        else b = m;
    }
    return a;
}

/* How many of the level's rows lie in [lo, hi]. */
static uint64_t level_in(const rows *r, int64_t lo, int64_t hi)
{
    uint64_t a = level_from(r, lo), c = hi < INT64_MAX ? level_from(r, hi + 1) : r->nlevel;
    return c > a ? c - a : 0;
}

/* The level's index of row v, or nlevel when v is not in it. */
static uint64_t level_index(const rows *r, int64_t v)
{
    uint64_t k = level_from(r, v);
    return k < r->nlevel && r->level[k] == v ? k : r->nlevel;
}

static bool in_level(const rows *r, int64_t v)
{
    return level_index(r, v) < r->nlevel;
}

static void rows_close(rows *r)
{
    free(r->level);
    free(r->run_first);
    free(r->run_last);
}

static bool rows_open(const wh_image *img, int p, rows *r, wh_error *err)
{
    const wh_param *par = img->bufs[p].param;
    *r = (rows){ .ncols = img->bufs[p].count, .rows_p = par->below_rows - 1 };
    if (!wh_image_bounds(img, p, 0, 0, &r->bd, err)) return false;
    if (!par->below_level) return true;
    int lp = par->below_level - 1;
    uint64_t n = img->bufs[lp].count;
    r->level = malloc((n ? n : 1) * sizeof *r->level);
    if (!r->level) return wh_image_oom(err);
    for (uint64_t e = 0; e < n; e++) r->level[e] = wh_image_int(img, lp, e);
    qsort(r->level, n, sizeof *r->level, wh_cmp_i64);
    for (uint64_t e = 0; e < n; e++)
        if (r->nlevel == 0 || r->level[r->nlevel - 1] != r->level[e]) r->level[r->nlevel++] = r->level[e];
    r->run_first = malloc((r->nlevel ? r->nlevel : 1) * sizeof *r->run_first);
    r->run_last = malloc((r->nlevel ? r->nlevel : 1) * sizeof *r->run_last);
    if (!r->run_first || !r->run_last) {
        rows_close(r);
        return wh_image_oom(err);
    }
    for (uint64_t k = 0; k < r->nlevel; k++)
        r->run_first[k] = k > 0 && r->level[k - 1] == r->level[k] - 1 ? r->run_first[k - 1] : k;
    for (uint64_t k = r->nlevel; k-- > 0;)
        r->run_last[k] = k + 1 < r->nlevel && r->level[k + 1] == r->level[k] + 1 ? r->run_last[k + 1] : k;
    return true;
}

/* Does column c fit an entry of row k (below it, in the range, outside
 * the level when row k is in it)? */
static bool fits(const rows *r, int64_t k, bool level_row, int64_t c)
{
    return c >= r->bd.lo && c <= r->bd.hi && c < k && !(level_row && in_level(r, c));
}

/* The highest column an entry of row k may name, and whether any fits. */
static bool any_fits(const rows *r, int64_t k, bool level_row, int64_t *top)
{
    *top = k - 1 < r->bd.hi ? k - 1 : r->bd.hi;
    if (*top < r->bd.lo) return false;
    uint64_t width = (uint64_t)(*top - r->bd.lo) + 1;
    return !level_row || level_in(r, r->bd.lo, *top) < width;
}

/* Row k has no fitting column: its own (clamped into the range). */
static int64_t diagonal(const rows *r, int64_t k)
{
    return k < r->bd.lo ? r->bd.lo : k > r->bd.hi ? r->bd.hi : k;
}

/* The fitting column nearest below c (c clamped to [lo, top]), else the
 * nearest above it; a run of the level's rows is stepped over at once. */
static int64_t nearest_fit(const rows *r, int64_t k, bool level_row, int64_t c, int64_t top)
{
    int64_t from = c < top ? c : top;
    from = from < r->bd.lo ? r->bd.lo : from;
    uint64_t at = level_row ? level_index(r, from) : r->nlevel;
    if (at == r->nlevel) return from;
    int64_t below = r->level[r->run_first[at]] - 1, above = r->level[r->run_last[at]] + 1;
    return below >= r->bd.lo ? below : above <= top ? above : diagonal(r, k);
}

bool wh_image_restructure_rows(wh_image *img, int p, wh_error *err)
{
    rows r;
    if (!img->bufs[p].param->below_rows) return true;
    if (!rows_open(img, p, &r, err)) return false;
    for (uint64_t k = 0, n = wh_csr_nrows(img, r.rows_p); k < n; k++) {
        uint64_t b, e;
        int64_t top;
        wh_csr_row(img, r.rows_p, k, r.ncols, &b, &e);
        bool level_row = in_level(&r, (int64_t)k), some = b < e && any_fits(&r, (int64_t)k, level_row, &top);
        for (uint64_t i = b; i < e; i++) {
            int64_t c = wh_image_int(img, p, i);
            if (!some) wh_image_set_int(img, p, i, diagonal(&r, (int64_t)k));
            else if (!fits(&r, (int64_t)k, level_row, c))
                wh_image_set_int(img, p, i, nearest_fit(&r, (int64_t)k, level_row, c, top));
        }
    }
    rows_close(&r);
    return true;
}

static bool rows_error(const wh_image *img, int p, wh_error *err, const char *msg)
{
    char path[96];
    wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0, "input \"%s\" (\"below_row\"): %s",
                 img->bufs[p].param->name, msg);
    wh_param_jpath(img->spec, p, ".below_row", path, sizeof path);
    wh_error_set_path(err, path);
    return false;
}

bool wh_image_check_rows(const wh_image *img, int p, wh_error *err)
{
    rows r;
    if (!img->bufs[p].param->below_rows) return true;
    if (!rows_open(img, p, &r, err)) return false;
    bool ok = true;
    for (uint64_t k = 0, n = wh_csr_nrows(img, r.rows_p); ok && k < n; k++) {
        uint64_t b, e;
        int64_t top;
        wh_csr_row(img, r.rows_p, k, r.ncols, &b, &e);
        bool level_row = in_level(&r, (int64_t)k), some = b < e && any_fits(&r, (int64_t)k, level_row, &top);
        for (uint64_t i = b; ok && i < e; i++) {
            int64_t c = wh_image_int(img, p, i);
            if (some ? fits(&r, (int64_t)k, level_row, c) : c == diagonal(&r, (int64_t)k)) continue;
            char msg[240];
            const char *why = some               ? (c >= (int64_t)k ? ", not below its row" : ", a row of the level")
                              : level_row ? ": the row has no column below it outside the level, so it names itself"
                                          : ": the row has no column below it, so it names itself";
            snprintf(msg, sizeof msg, "element %llu, an entry of row %llu%s, names column %lld%s",
                     (unsigned long long)i, (unsigned long long)k, level_row ? " (a row of the level)" : "",
                     (long long)c, why);
            ok = rows_error(img, p, err, msg);
        }
    }
    rows_close(&r);
    return ok;
}

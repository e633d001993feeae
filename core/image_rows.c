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
 *
 * With "increasing" (no level) a row's columns also strictly increase, as
 * a sorted adjacency list's do (an edge once per row, in order): its
 * entries clamped below the row, sorted, and nudged apart, which keeps a
 * row that already increases.  A row holds no more entries than it has
 * columns below it (row k has k in a range from 0): the row pointer is
 * cut to that first, CSR offsets carrying the entries cut to the rows
 * after (the total stays), a running sum's lengths dropping them.  Only
 * where the rows cannot hold the total do entries past a row's room name
 * the diagonal (a repeated entry no graph has: triangle counting's merge
 * walked 8000 of them, 6x the longest real graph).
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
    bool increasing;        /* each row's columns strictly increase */
    int64_t *sorted;        /* increasing: room for a row's columns */
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
    free(r->sorted);
}

static bool rows_open(const wh_image *img, int p, rows *r, wh_error *err)
{
    const wh_param *par = img->bufs[p].param;
    *r = (rows){ .ncols = img->bufs[p].count, .rows_p = par->below_rows - 1, .increasing = par->below_increasing };
    if (!wh_image_bounds(img, p, 0, 0, &r->bd, err)) return false;
    if (r->increasing && !(r->sorted = malloc((r->ncols ? r->ncols : 1) * sizeof *r->sorted))) return wh_image_oom(err);
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

/* How many of row k's n entries can increase below it: the rest name
 * the diagonal. */
static uint64_t increasing_room(const rows *r, int64_t top, uint64_t n)
{
    uint64_t room = (uint64_t)(top - r->bd.lo) + 1;
    return n < room ? n : room;
}

/* Row k's entries [b, e) as increasing columns in [lo, top]: clamped,
 * sorted, pushed up past each other and then down under top (a row that
 * increases stays as it is), the diagonal past the row's room. */
static void increase(wh_image *img, int p, rows *r, int64_t k, uint64_t b, uint64_t e, int64_t top)
{
    uint64_t n = e - b, m = increasing_room(r, top, n);
    int64_t *v = r->sorted;
    for (uint64_t i = 0; i < n; i++) {
        int64_t c = wh_image_int(img, p, b + i);
        v[i] = c < r->bd.lo ? r->bd.lo : c > top ? top : c;
    }
    qsort(v, n, sizeof *v, wh_cmp_i64);
    for (uint64_t i = 1; i < m; i++)
        if (v[i] <= v[i - 1]) v[i] = v[i - 1] + 1;
    for (uint64_t i = m; i-- > 0;) {
        int64_t cap = i + 1 < m ? v[i + 1] - 1 : top;
        if (v[i] > cap) v[i] = cap;
    }
    for (uint64_t i = 0; i < n; i++) wh_image_set_int(img, p, b + i, i < m ? v[i] : diagonal(r, k));
}

/* Row k's room: how many increasing columns fit below it. */
static uint64_t row_room(const rows *r, uint64_t k)
{
    int64_t top = (int64_t)k - 1 < r->bd.hi ? (int64_t)k - 1 : r->bd.hi;
    return top < r->bd.lo ? 0 : (uint64_t)(top - r->bd.lo) + 1;
}

/* CSR offsets: each row cut to its room, what is cut carried to the rows
 * after it, and what the last row cannot take given to the rows with room
 * from the top down; the first and last offsets stay. */
static void fit_offsets(wh_image *img, const rows *r)
{
    uint64_t n = wh_csr_nrows(img, r->rows_p), carry = 0;
    if (n == 0) return;
    int64_t at = wh_image_int(img, r->rows_p, 0);
    for (uint64_t k = 0; k < n; k++) {
        int64_t next = wh_image_int(img, r->rows_p, k + 1);
        uint64_t len = (next > at ? (uint64_t)(next - at) : 0) + carry, room = row_room(r, k);
        carry = len > room ? len - room : 0;
        at += (int64_t)(len - carry);
        if (k + 1 < n) wh_image_set_int(img, r->rows_p, k + 1, at);
    }
    for (uint64_t k = n; carry > 0 && k-- > 0;) {   /* the top rows have the most room */
        int64_t b = wh_image_int(img, r->rows_p, k), e = k + 1 < n ? wh_image_int(img, r->rows_p, k + 1) : at;
        uint64_t len = (uint64_t)(e - b), room = row_room(r, k), add = room > len ? room - len : 0;
        add = add < carry ? add : carry;
        carry -= add;
        for (uint64_t j = k + 1; j < n && add; j++)
            wh_image_set_int(img, r->rows_p, j, wh_image_int(img, r->rows_p, j) + (int64_t)add);
        at += (int64_t)add;
    }
}

/* A running sum's lengths: each cut to its row's room (not below the
 * lengths' own range), then the sum again. */
static bool fit_lengths(wh_image *img, const rows *r, wh_error *err)
{
    int lens = img->spec->params[r->rows_p].prefix_of - 1;
    wh_bounds lb;
    if (!wh_image_bounds(img, lens, 0, 0, &lb, err)) return false;
    for (uint64_t k = 0, n = wh_csr_nrows(img, r->rows_p); k < n; k++) {
        int64_t len = wh_image_int(img, lens, k), room = (int64_t)row_room(r, k);
        if (len > room) wh_image_set_int(img, lens, k, room > lb.lo ? room : lb.lo);
    }
    return wh_image_restructure_buffer(img, r->rows_p, err);
}

bool wh_image_restructure_rows(wh_image *img, int p, wh_error *err)
{
    rows r;
    if (!img->bufs[p].param->below_rows) return true;
    if (!rows_open(img, p, &r, err)) return false;
    if (r.increasing && img->spec->params[r.rows_p].prefix_of && !fit_lengths(img, &r, err)) {
        rows_close(&r);
        return false;
    }
    if (r.increasing && !img->spec->params[r.rows_p].prefix_of) fit_offsets(img, &r);
    for (uint64_t k = 0, n = wh_csr_nrows(img, r.rows_p); k < n; k++) {
        uint64_t b, e;
        int64_t top;
        wh_csr_row(img, r.rows_p, k, r.ncols, &b, &e);
        bool level_row = in_level(&r, (int64_t)k), some = b < e && any_fits(&r, (int64_t)k, level_row, &top);
        if (some && r.increasing) {
            increase(img, p, &r, (int64_t)k, b, e, top);
            continue;
        }
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

/* Does entry i of row k (entries from b; room: how many increase) keep
 * the structure?  When not, msg says why. */
static bool entry_fits(const wh_image *img, int p, const rows *r, uint64_t k, uint64_t b, uint64_t i, bool some,
                       bool level_row, uint64_t room, char *msg, size_t n)
{
    int64_t c = wh_image_int(img, p, i), diag = diagonal(r, (int64_t)k);
    if (i - b >= room) {
        if (c == diag) return true;
        snprintf(msg, n, "element %llu, entry %llu of row %llu, names column %lld: the row has room for %llu "
                 "increasing columns below it, so its later entries name itself", (unsigned long long)i,
                 (unsigned long long)(i - b), (unsigned long long)k, (long long)c, (unsigned long long)room);
        return false;
    }
    if (some && r->increasing && i > b && c <= wh_image_int(img, p, i - 1)) {
        snprintf(msg, n, "element %llu, an entry of row %llu, names column %lld, not above the entry before it "
                 "(%lld): the row's columns increase", (unsigned long long)i, (unsigned long long)k, (long long)c,
                 (long long)wh_image_int(img, p, i - 1));
        return false;
    }
    if (some ? fits(r, (int64_t)k, level_row, c) : c == diag) return true;
    const char *why = some        ? (c >= (int64_t)k ? ", not below its row" : ", a row of the level")
                      : level_row ? ": the row has no column below it outside the level, so it names itself"
                                  : ": the row has no column below it, so it names itself";
    snprintf(msg, n, "element %llu, an entry of row %llu%s, names column %lld%s", (unsigned long long)i,
             (unsigned long long)k, level_row ? " (a row of the level)" : "", (long long)c, why);
    return false;
}

/* Can the rows hold all their entries increasing (each no more than its
 * room)?  When not, entries past a row's room name the diagonal. */
static bool rows_can_fit(const wh_image *img, const rows *r)
{
    uint64_t total = 0, room = 0;
    for (uint64_t k = 0, n = wh_csr_nrows(img, r->rows_p); k < n; k++) {
        uint64_t b, e;
        wh_csr_row(img, r->rows_p, k, r->ncols, &b, &e);
        total += e - b;
        room += row_room(r, k);
    }
    return total <= room;
}

bool wh_image_check_rows(const wh_image *img, int p, wh_error *err)
{
    rows r;
    if (!img->bufs[p].param->below_rows) return true;
    if (!rows_open(img, p, &r, err)) return false;
    bool ok = true, fit = r.increasing && rows_can_fit(img, &r);
    for (uint64_t k = 0, n = wh_csr_nrows(img, r.rows_p); ok && fit && k < n; k++) {
        uint64_t b, e;
        wh_csr_row(img, r.rows_p, k, r.ncols, &b, &e);
        if (e - b <= row_room(&r, k)) continue;
        char msg[240];
        snprintf(msg, sizeof msg, "row %llu holds %llu entries, more than the %llu increasing columns below it "
                 "(the row pointer moves the rest to other rows)", (unsigned long long)k,
                 (unsigned long long)(e - b), (unsigned long long)row_room(&r, k));
        ok = rows_error(img, p, err, msg);
    }
    for (uint64_t k = 0, n = wh_csr_nrows(img, r.rows_p); ok && k < n; k++) {
        uint64_t b, e;
        int64_t top;
        wh_csr_row(img, r.rows_p, k, r.ncols, &b, &e);
        bool level_row = in_level(&r, (int64_t)k), some = b < e && any_fits(&r, (int64_t)k, level_row, &top);
        uint64_t room = some && r.increasing ? increasing_room(&r, top, e - b) : e - b;
        char msg[240];
        for (uint64_t i = b; ok && i < e; i++)
            if (!entry_fits(img, p, &r, k, b, i, some, level_row, room, msg, sizeof msg)) ok = rows_error(img, p, err, msg);
    }
    rows_close(&r);
    return ok;
}

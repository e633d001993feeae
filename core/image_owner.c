/*
 * image_owner.c — which elements of a per-thread input each thread owns,
 * read from an image.  Every owner but one is a function of the launch
 * (wh_owned_elem, core/spec.c); an owner by rows (WH_OWNER_ROWS: CSR
 * columns, the runs of a segment) depends on the data, since thread t
 * owns the entries of row t of a running sum of row lengths: start[t] ..
 * start[t] + len[t] - 1, at most per_thread of them; or, by warp, lane l
 * of warp w owns entries l, l + 32, l + 64, ... of row w (a warp-stride
 * loop over the row), at most per_thread of them; or, through an index,
 * thread t owns row index[t].  An owner through an index (WH_OWNER_INDEX)
 * is the element the thread's element of the index names.  Their inverse
 * needs the slot of the index naming an element: a scan of the index, or
 * a map built once (wh_image_index_slots) for many lookups.
 */
#include "core/image.h"

#include <stdlib.h>

uint64_t wh_rows_offset(const wh_param *par, const wh_launch *l, uint64_t t, uint64_t j, uint64_t *row)
{
    if (!par->rows_by_warp) {
        *row = t;
        return j;
    }
    uint64_t b = wh_launch_block_threads(l), tl = t % b;
    *row = t / b * ((b + 31) / 32) + tl / 32;
    return tl % 32 + 32 * j;
}

uint64_t wh_rows_thread(const wh_param *par, const wh_launch *l, uint64_t row, uint64_t off, uint64_t *j)
{
    if (!par->rows_by_warp) {
        *j = off;
        return row;
    }
    uint64_t b = wh_launch_block_threads(l), wpb = (b + 31) / 32, tl = row % wpb * 32 + off % 32;
    *j = off / 32;
    return tl < b ? row / wpb * b + tl : UINT64_MAX;   /* a short warp's missing lanes own nothing */
}

/* What slot `slot` of index q names, one of n elements or rows
 * (UINT64_MAX: no such slot, or a value outside). */
static uint64_t indexed(const wh_image *img, int q, uint64_t slot, uint64_t n)
{
    if (slot >= img->bufs[q].count) return UINT64_MAX;
    int64_t v = wh_image_int(img, q, slot);
    return v >= 0 && (uint64_t)v < n ? (uint64_t)v : UINT64_MAX;
}

/* What the index of buffer p names: its elements, or its rows. */
static uint64_t index_targets(const wh_image *img, int p)
{
    const wh_param *par = img->bufs[p].param;
    return par->owner == WH_OWNER_ROWS ? wh_csr_nrows(img, par->owner_rows - 1) : img->bufs[p].count;
}

uint64_t wh_image_owned_elem(const wh_image *img, int p, uint64_t t, uint64_t j)
{
    const wh_param *par = img->bufs[p].param;
    int q = par->owner_index - 1;
    const wh_param *ip = q >= 0 ? &img->spec->params[q] : NULL;
    if (par->owner == WH_OWNER_INDEX)
        return indexed(img, q, wh_owned_elem(ip, &img->launch, t, j), img->bufs[p].count);
    if (par->owner != WH_OWNER_ROWS) return wh_owned_elem(par, &img->launch, t, j);
    int rows = par->owner_rows - 1;
    uint64_t r, off = wh_rows_offset(par, &img->launch, t, j, &r), b, e;
    if (ip) r = indexed(img, q, wh_owned_elem(ip, &img->launch, t, 0), wh_csr_nrows(img, rows));
    if (r >= img->bufs[rows].count || j >= (uint64_t)par->per_thread) return UINT64_MAX;
    wh_csr_row(img, rows, r, img->bufs[p].count, &b, &e);
    return off < e - b ? b + off : UINT64_MAX;
}

uint64_t *wh_image_index_slots(const wh_image *img, int p)
{
    int q = img->bufs[p].param->owner_index - 1;
    uint64_t n = index_targets(img, p);
    uint64_t *slots = malloc((n ? n : 1) * sizeof *slots);
    if (!slots) return NULL;
    for (uint64_t e = 0; e < n; e++) slots[e] = UINT64_MAX;
    for (uint64_t s = img->bufs[q].count; s-- > 0;) {   /* backwards: the first slot naming e wins */
        uint64_t e = indexed(img, q, s, n);
        if (e != UINT64_MAX) slots[e] = s;
    }
    return slots;
}

/* The first slot of buffer p's index naming element (row) e, from the map
 * when there is one. */
static uint64_t slot_naming(const wh_image *img, int p, uint64_t e, const uint64_t *slots)
{
    int q = img->bufs[p].param->owner_index - 1;
    if (slots) return slots[e];
    for (uint64_t s = 0; s < img->bufs[q].count; s++)
        if (indexed(img, q, s, UINT64_MAX) == e) return s;
    return UINT64_MAX;
}

/* The thread whose element *j slot s of buffer p's index is. */
static uint64_t slot_thread(const wh_image *img, int p, uint64_t s, uint64_t *j)
{
    const wh_param *ip = &img->spec->params[img->bufs[p].param->owner_index - 1];
    uint64_t t = s == UINT64_MAX ? UINT64_MAX : wh_elem_owner(ip, &img->launch, s, j);
    if (t >= wh_launch_threads_total(&img->launch) || *j >= (uint64_t)ip->per_thread) {
        *j = 0;
        return UINT64_MAX;
    }
    return t;
}

/* The last row that starts at or below element e (the starts rise: a
 * running sum of lengths), or UINT64_MAX. */
static uint64_t last_row_from(const wh_image *img, int rows, uint64_t e)
{
    uint64_t lo = 0, hi = img->bufs[rows].count;
    if (hi == 0 || wh_image_int(img, rows, 0) > (int64_t)e) return UINT64_MAX;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (wh_image_int(img, rows, mid) <= (int64_t)e) lo = mid;
        else hi = mid;
    }
    return lo;
}

uint64_t wh_image_elem_owner_in(const wh_image *img, int p, uint64_t e, uint64_t *j, const uint64_t *slots)
{
    const wh_param *par = img->bufs[p].param;
    *j = 0;
    if (par->owner == WH_OWNER_INDEX)
        return e < img->bufs[p].count ? slot_thread(img, p, slot_naming(img, p, e, slots), j) : UINT64_MAX;
    if (par->owner != WH_OWNER_ROWS) return wh_elem_owner(par, &img->launch, e, j);
    int rows = par->owner_rows - 1;
    uint64_t r = last_row_from(img, rows, e), b, end, t;
    if (r == UINT64_MAX) return UINT64_MAX;
    wh_csr_row(img, rows, r, img->bufs[p].count, &b, &end);
    if (e < b || e >= end) return UINT64_MAX;
    if (par->owner_index) {
        t = slot_thread(img, p, r < index_targets(img, p) ? slot_naming(img, p, r, slots) : UINT64_MAX, j);
        *j = e - b;
    } else {
        t = wh_rows_thread(par, &img->launch, r, e - b, j);
    }
    if (t == UINT64_MAX || *j >= (uint64_t)par->per_thread) {
        *j = 0;
        return UINT64_MAX;
    }
    return t;
}

uint64_t wh_image_elem_owner(const wh_image *img, int p, uint64_t e, uint64_t *j)
{
    return wh_image_elem_owner_in(img, p, e, j, NULL);
}

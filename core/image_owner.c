/*
 * image_owner.c — which elements of a per-thread input each thread owns,
 * read from an image.  Every owner but one is a function of the launch
 * (wh_owned_elem, core/spec.c); an owner by rows (WH_OWNER_ROWS: CSR
 * columns, the runs of a segment) depends on the data, since thread t
 * owns the entries of row t of a running sum of row lengths: start[t] ..
 * start[t] + len[t] - 1, at most per_thread of them; or, by warp, lane l
 * of warp w owns entries l, l + 32, l + 64, ... of row w (a warp-stride
 * loop over the row), at most per_thread of them.
 */
#include "core/image.h"

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

uint64_t wh_image_owned_elem(const wh_image *img, int p, uint64_t t, uint64_t j)
{
    const wh_param *par = img->bufs[p].param;
    if (par->owner != WH_OWNER_ROWS) return wh_owned_elem(par, &img->launch, t, j);
    int rows = par->owner_rows - 1;
    uint64_t r, off = wh_rows_offset(par, &img->launch, t, j, &r), b, e;
    if (r >= img->bufs[rows].count || j >= (uint64_t)par->per_thread) return UINT64_MAX;
    wh_csr_row(img, rows, r, img->bufs[p].count, &b, &e);
    return off < e - b ? b + off : UINT64_MAX;
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

uint64_t wh_image_elem_owner(const wh_image *img, int p, uint64_t e, uint64_t *j)
{
    const wh_param *par = img->bufs[p].param;
    if (par->owner != WH_OWNER_ROWS) return wh_elem_owner(par, &img->launch, e, j);
    int rows = par->owner_rows - 1;
    uint64_t r = last_row_from(img, rows, e), b, end;
    *j = 0;
    if (r == UINT64_MAX) return UINT64_MAX;
    wh_csr_row(img, rows, r, img->bufs[p].count, &b, &end);
    if (e < b || e >= end) return UINT64_MAX;
    uint64_t t = wh_rows_thread(par, &img->launch, r, e - b, j);
    if (t == UINT64_MAX || *j >= (uint64_t)par->per_thread) {
        *j = 0;
        return UINT64_MAX;
    }
    return t;
}

/*
 * image_owner.c — which elements of a per-thread input each thread owns,
 * read from an image.  Every owner but one is a function of the launch
 * (wh_owned_elem, core/spec.c); an owner by rows (WH_OWNER_ROWS: CSR
 * columns, the runs of a segment) depends on the data, since thread t
 * owns the entries of row t of a running sum of row lengths: start[t] ..
 * start[t] + len[t] - 1, at most per_thread of them.
 */
#include "core/image.h"

uint64_t wh_image_owned_elem(const wh_image *img, int p, uint64_t t, uint64_t j)
{
    const wh_param *par = img->bufs[p].param;
    if (par->owner != WH_OWNER_ROWS) return wh_owned_elem(par, &img->launch, t, j);
    int rows = par->owner_rows - 1;
    if (t >= img->bufs[rows].count || j >= (uint64_t)par->per_thread) return UINT64_MAX;
    uint64_t b, e;
    wh_csr_row(img, rows, t, img->bufs[p].count, &b, &e);
    return j < e - b ? b + j : UINT64_MAX;
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
    if (e < b || e >= end || e - b >= (uint64_t)par->per_thread) return UINT64_MAX;
    *j = e - b;
    return r;
}

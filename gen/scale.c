/*
 * scale.c — the scaler: from gene choices to a full-size input image.
 *
 * See gen.h for the tiling rule and why values travel as offsets from the
 * low end of their domain.
 */
#include "gen/gen.h"
#include "gen/internal.h"

#include <stdlib.h>
#include <string.h>

bool gen_layout_make(const wh_spec *spec, const wh_launch *full, int x, gen_layout *out, wh_error *err)
{
    if (x < 1) {
        wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "atoms need at least one thread (X = %d)", x);
        return false;
    }
    memset(out, 0, sizeof *out);
    out->x = x;
    out->threads = wh_launch_threads_total(full);
    out->thread_genes = (int)((out->threads + (uint64_t)x - 1) / (uint64_t)x);
    for (int p = 0; p < spec->nparams; p++)
        if (spec->params[p].role == WH_ROLE_INPUT && spec->params[p].per_thread == 0) out->has_shared = true;
    out->ngenes = out->thread_genes + (out->has_shared ? 1 : 0);
    out->tiling_gene = -1;
    out->ntilings = 1;
    return true;
}

uint64_t gen_tiling_stride(int tiling)
{
    return tiling <= 0 ? 0 : (uint64_t)1 << (tiling - 1);
}

/* Number of values a field of domain b can take (up to 2^64). */
static unsigned __int128 domain_width(const wh_bounds *b)
{
    return (unsigned __int128)((__int128)b->hi - b->lo) + 1;
}

int gen_layout_add_tiling(gen_layout *lay, const wh_image *full, wh_error *err)
{
    unsigned __int128 widest = 1;
    for (int p = 0; p < full->nbufs; p++) {
        const wh_param *par = &full->spec->params[p];
        if (par->role != WH_ROLE_INPUT || !par->per_thread || full->bufs[p].count == 0) continue;
        for (int f = 0; f < par->nfields; f++) {
            wh_bounds b;
            if (!wh_image_bounds(full, p, f, 0, &b, err)) return -1;
            if (!b.is_float && b.hi >= b.lo && domain_width(&b) > widest) widest = domain_width(&b);
        }
    }
    int n = 1; /* plain, then strides 2^0, 2^1, ... below the widest domain */
    while (n <= 64 && ((unsigned __int128)1 << (n - 1)) < widest) n++;
    if (n > 1 && lay->tiling_gene < 0) {
        lay->tiling_gene = lay->ngenes++;
        lay->ntilings = n;
    }
    return lay->ntilings;
}

static int64_t clamp_i64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Move one field value from src (domain sb) to dst (domain db), shifted
 * by tile * stride (wrapping inside db) when stride is not 0. */
static void move_value(wh_type t, const void *src, const wh_bounds *sb, void *dst, const wh_bounds *db,
                       uint64_t tile, uint64_t stride)
{
    if (db->is_float) {
        double v = wh_value_get_float(t, src);
        if (!(v >= db->flo)) v = db->flo; /* also replaces NaN */
        if (v > db->fhi) v = db->fhi;
        wh_value_set_float(t, dst, v);
        return;
    }
    int64_t v = wh_value_get_int(t, src);
    __int128 moved = (__int128)db->lo + ((__int128)v - sb->lo);
    int64_t out = moved > db->hi ? db->hi : moved < db->lo ? db->lo : (int64_t)moved;
    out = clamp_i64(out, db->lo, db->hi);
    if (stride && db->hi > db->lo) {
        unsigned __int128 w = domain_width(db), off = (unsigned __int128)((__int128)out - db->lo);
        off = (off + (tile % w) * (stride % w)) % w;
        out = (int64_t)((__int128)db->lo + (__int128)off);
    }
    wh_value_set_int(t, dst, out);
}

/* The reverse of move_value, for an input taken apart into atoms: the
 * offset from the low end of the full domain fb becomes the same offset
 * in the atom domain ab, kept even outside ab (gen_scale moves it back)
 * and clamped only to the type. */
static void unmove_value(wh_type t, const void *src, const wh_bounds *fb, void *dst, const wh_bounds *ab)
{
    if (fb->is_float) {
        wh_value_set_float(t, dst, wh_value_get_float(t, src));
        return;
    }
    int64_t tlo, thi;
    wh_type_limits(t, &tlo, &thi);
    __int128 v = (__int128)ab->lo + ((__int128)wh_value_get_int(t, src) - fb->lo);
    wh_value_set_int(t, dst, v < tlo ? tlo : v > thi ? thi : (int64_t)v);
}

/* Copies element es of an atom's buffer p into element ed of the full one
 * (or, with atom_out, element ed of the full one into element es of the
 * atom); `atom` is the pool's reference image (domains), `src` the atom's
 * bytes. */
typedef struct {
    const wh_image *atom;
    const unsigned char *src;
    unsigned char *atom_out;
    const wh_image *full;
    int p;
    uint64_t tile, stride;     /* the shift of stride tiling: tile * stride */
    wh_bounds *sb, *db;        /* per-field bounds when they do not depend on i */
    bool *by_index;
    uint64_t *atom_row;        /* owner by rows: the atom's row starts and its last row's end */
    const unsigned char *atom_index;   /* owner through an index: the atom's index bytes */
} mover;

static void mover_free(mover *m)
{
    free(m->sb);
    free(m->db);
    free(m->by_index);
    free(m->atom_row);
}

static bool mover_init(mover *m, const gen_pool *pool, const wh_image *full, int p, wh_error *err)
{
    const wh_image *atom = pool->ref;
    const wh_param *par = &full->spec->params[p];
    size_t n = (size_t)par->nfields;
    bool rows = par->owner == WH_OWNER_ROWS;
    m->sb = malloc(n * sizeof *m->sb);
    m->db = malloc(n * sizeof *m->db);
    m->by_index = malloc(n * sizeof *m->by_index);
    m->atom_row = rows ? malloc(((size_t)gen_atom_nrows(atom, p) + 1) * sizeof *m->atom_row) : NULL;
    if (!m->sb || !m->db || !m->by_index || (rows && !m->atom_row)) {
        mover_free(m);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    m->atom = atom;
    m->full = full;
    m->p = p;
    m->tile = m->stride = 0;
    m->atom_out = NULL;
    m->atom_index = NULL;
    for (int f = 0; f < par->nfields; f++) {
        m->by_index[f] = wh_field_varies_by_index(&par->fields[f]);
        if (!wh_image_bounds(atom, p, f, 0, &m->sb[f], err) || !wh_image_bounds(full, p, f, 0, &m->db[f], err)) {
            mover_free(m);
            return false;
        }
    }
    return true;
}

static bool mover_copy(mover *m, uint64_t es, uint64_t ed, wh_error *err)
{
    const wh_param *par = &m->full->spec->params[m->p];
    unsigned char *in_full = m->full->bufs[m->p].data + ed * par->elem_size;
    for (int f = 0; f < par->nfields; f++) {
        const wh_field *fd = &par->fields[f];
        wh_bounds sb = m->sb[f], db = m->db[f];
        if (m->by_index[f] && (!wh_image_bounds(m->atom, m->p, f, es, &sb, err) ||
                               !wh_image_bounds(m->full, m->p, f, ed, &db, err)))
            return false;
        size_t at = es * par->elem_size + fd->offset;
        if (m->atom_out) unmove_value(fd->type, in_full + fd->offset, &db, m->atom_out + at, &sb);
        else move_value(fd->type, m->src + at, &sb, in_full + fd->offset, &db, m->tile, m->stride);
    }
    return true;
}

/* The bytes of parameter p of allele a: a stored atom's, or a seeded
 * allele's drawn into scratch (NULL: none, or a failed draw in err). */
static const unsigned char *allele_data(const gen_pool *pool, int a, int p, unsigned char *scratch, wh_error *err)
{
    if (a >= 0) return gen_pool_atom_data(pool, a, p);
    return gen_pool_draw_seeded(pool, a, p, scratch, err) ? scratch : NULL;
}

/* Element j of atom thread t's elements: under WH_OWNER_WARP its warp's,
 * whichever lane t is (an atom's warp is whole or a part of one: the
 * full launch's lane 0 may fall on any thread of a tile). */
static uint64_t atom_elem(const wh_param *par, const wh_launch *atom, uint64_t t, uint64_t j)
{
    return wh_owned_elem(par, atom, par->owner == WH_OWNER_WARP ? t - t % 32 : t, j);
}

bool gen_rebuild_rows(wh_image *img, wh_error *err)
{
    for (int p = 0; p < img->nbufs; p++)
        if (img->spec->params[p].role == WH_ROLE_INPUT && img->spec->params[p].owner == WH_OWNER_ROWS &&
            !wh_image_restructure_buffer(img, img->spec->params[p].owner_rows - 1, err))
            return false;
    return true;
}

int gen_rows_lengths(const wh_spec *spec, int p)
{
    const wh_param *par = &spec->params[p];
    return par->owner == WH_OWNER_ROWS ? spec->params[par->owner_rows - 1].prefix_of - 1 : -1;
}

uint64_t gen_atom_nrows(const wh_image *ref, int p)
{
    const wh_param *par = &ref->spec->params[p];
    if (par->owner == WH_OWNER_ROWS && par->owner_index) return ref->bufs[gen_rows_lengths(ref->spec, p)].count;
    return wh_launch_threads_total(&ref->launch);
}

int gen_owner_pass(const wh_param *par)
{
    return par->owner == WH_OWNER_ROWS ? 2 : par->owner == WH_OWNER_INDEX;
}

static bool in_pass(const wh_param *par, int pass)
{
    return par->role == WH_ROLE_INPUT && gen_owner_pass(par) == pass;
}

/* The indices of img's buffers owned through one, brought to their
 * structure (a distinct list of rows) before what they own is placed. */
static bool restructure_indices(wh_image *img, wh_error *err)
{
    for (int q = 0; q < img->nbufs; q++) {
        bool index = false;   /* each once: a projection may sort the whole buffer */
        for (int p = 0; p < img->nbufs; p++)
            index |= img->spec->params[p].role == WH_ROLE_INPUT && img->spec->params[p].owner_index == q + 1;
        if (index && !wh_image_restructure_buffer(img, q, err)) return false;
    }
    return true;
}

/* An atom's rows are a running sum of its own row lengths, from the row
 * pointer's low end.  The atom's row pointer is not read: the scaler tiles
 * the lengths and the full image's row pointer is rebuilt from them, so
 * the lengths are what both sides share. */
bool gen_atom_rows(const wh_image *ref, int p, const unsigned char *lens, uint64_t *start, wh_error *err)
{
    const wh_spec *spec = ref->spec;
    int rows = spec->params[p].owner_rows - 1, nl = gen_rows_lengths(spec, p);
    const wh_param *lp = &spec->params[nl];
    wh_bounds bd;
    if (!wh_image_bounds(ref, rows, 0, 0, &bd, err)) return false;
    uint64_t n = gen_atom_nrows(ref, p), nlens = ref->bufs[nl].count;
    uint64_t at = bd.lo < 0 ? 0 : (uint64_t)bd.lo;
    for (uint64_t r = 0; r <= n; r++) {
        start[r] = at;
        int64_t len = r < n && r < nlens ? wh_value_get_int(lp->fields[0].type, lens + r * lp->elem_size) : 0;
        if (len > 0) at += (uint64_t)len;
    }
    return true;
}

static bool mover_atom_rows(mover *m, const unsigned char *lens, wh_error *err)
{
    return gen_atom_rows(m->atom, m->p, lens, m->atom_row, err);
}

/* Slot s of an atom's index (count slots of ip), or -1 past them. */
static int64_t atom_index_value(const wh_param *ip, const unsigned char *index, uint64_t count, uint64_t s)
{
    return s < count ? wh_value_get_int(ip->fields[0].type, index + s * ip->elem_size) : -1;
}

/* The k-th element of [0, n) (from 0) that no value of the atom's index
 * names: past k by as many named ones as lie at or below it. */
static uint64_t kth_unnamed(const wh_param *ip, const unsigned char *index, uint64_t count, uint64_t n, uint64_t k)
{
    int64_t *named = malloc((count ? count : 1) * sizeof *named);
    if (!named) return UINT64_MAX;
    uint64_t m = 0;
    for (uint64_t s = 0; s < count; s++) {
        int64_t v = atom_index_value(ip, index, count, s);
        if (v >= 0 && (uint64_t)v < n) named[m++] = v;
    }
    qsort(named, m, sizeof *named, wh_cmp_i64);
    uint64_t e = k;
    for (uint64_t i = 0; i < m; i++)
        if ((i == 0 || named[i] != named[i - 1]) && (uint64_t)named[i] <= e) e++;
    free(named);
    return e < n ? e : UINT64_MAX;
}

uint64_t gen_atom_indexed(const wh_image *ref, int p, const unsigned char *index, uint64_t t, uint64_t j)
{
    const wh_param *par = &ref->spec->params[p], *ip = &ref->spec->params[par->owner_index - 1];
    uint64_t slot = wh_owned_elem(ip, &ref->launch, t, j), count = ref->bufs[par->owner_index - 1].count;
    uint64_t n = par->owner == WH_OWNER_ROWS ? gen_atom_nrows(ref, p) : ref->bufs[p].count;
    if (!index || slot >= count) return UINT64_MAX;
    int64_t v = atom_index_value(ip, index, count, slot);
    if (v >= 0 && (uint64_t)v < n) return (uint64_t)v;
    uint64_t k = 0;   /* the k-th slot outside takes the k-th element no slot inside names */
    for (uint64_t s = 0; s < slot; s++) {
        int64_t w = atom_index_value(ip, index, count, s);
        k += w < 0 || (uint64_t)w >= n;
    }
    return kth_unnamed(ip, index, count, n, k);
}

uint64_t gen_atom_row_elem(const wh_image *ref, int p, const uint64_t *start, const unsigned char *index, uint64_t t,
                           uint64_t j)
{
    const wh_param *par = &ref->spec->params[p];
    uint64_t r, off = wh_rows_offset(par, &ref->launch, t, j, &r);
    if (par->owner_index) r = gen_atom_indexed(ref, p, index, t, 0);
    if (j >= (uint64_t)par->per_thread || r >= gen_atom_nrows(ref, p)) return UINT64_MAX;
    return off < start[r + 1] - start[r] ? start[r] + off : UINT64_MAX;
}

/* Element j of atom thread t's elements (UINT64_MAX: none). */
static uint64_t mover_atom_elem(const mover *m, uint64_t t, uint64_t j)
{
    const wh_param *par = &m->full->spec->params[m->p];
    if (m->atom_row) return gen_atom_row_elem(m->atom, m->p, m->atom_row, m->atom_index, t, j);
    if (par->owner == WH_OWNER_INDEX) return gen_atom_indexed(m->atom, m->p, m->atom_index, t, j);
    return atom_elem(par, &m->atom->launch, t, j);
}

/* The full-launch thread whose elements thread `thread` moves.  Read
 * back into an atom, a warp's elements (WH_OWNER_WARP) come from its lane
 * 0 whichever lane the tile or thread atom starts at: an atom inside a
 * warp takes its warp's (a row length beside the row it reads). */
static uint64_t mover_full_thread(const mover *m, const wh_param *par, uint64_t thread)
{
    if (!m->atom_out || par->owner != WH_OWNER_WARP) return thread;
    return thread - thread % wh_launch_block_threads(&m->full->launch) % 32;
}

/* Moves the per-thread elements of every thread t of an atom to or from
 * thread base + t of the full launch (thread base itself for every t when
 * `one`: a thread atom), as far as the launch and both buffers go. */
static bool mover_threads(mover *m, const gen_layout *lay, uint64_t base, bool one, wh_error *err)
{
    const wh_param *par = &m->full->spec->params[m->p];
    uint64_t k = (uint64_t)par->per_thread, natom = m->atom->bufs[m->p].count, nfull = m->full->bufs[m->p].count;
    bool ok = true;
    for (uint64_t t = 0; ok && t < (uint64_t)lay->x; t++) {
        uint64_t thread = one ? base : base + t;
        for (uint64_t j = 0; ok && thread < lay->threads && j < k; j++) {
            uint64_t es = mover_atom_elem(m, t, j), ed = wh_image_owned_elem(m->full, m->p,
                                                                             mover_full_thread(m, par, thread), j);
            if (es >= natom || ed >= nfull) break;
            ok = mover_copy(m, es, ed, err);
        }
    }
    return ok;
}

/* Whether buffer p holds the row lengths that place a buffer owned by
 * rows. */
static bool places_rows(const wh_spec *spec, int p)
{
    for (int q = 0; q < spec->nparams; q++)
        if (spec->params[q].role == WH_ROLE_INPUT && gen_rows_lengths(spec, q) == p) return true;
    return false;
}

/* Under an owner through an index, the elements no thread lists (the
 * rows outside a level) travel as a buffer without an owner would: full
 * element e is element e mod n of the atom of tile (e / n) mod tiles, n
 * the atom's count, as contiguous slices would place them.  To an atom
 * (atom_out), from the tile's own elements. */
static bool move_unlisted(mover *m, const gen_layout *lay, uint64_t g, wh_error *err)
{
    uint64_t natom = m->atom->bufs[m->p].count, nfull = m->full->bufs[m->p].count;
    uint64_t step = m->atom_out ? UINT64_MAX : natom * (uint64_t)lay->thread_genes;
    bool ok = true;
    for (uint64_t e = g * natom; ok && e < nfull; e = step > nfull - e ? nfull : e + step)
        for (uint64_t i = 0; ok && i < natom && e + i < nfull; i++)
            ok = mover_copy(m, i, e + i, err);
    return ok;
}

/* scratch[0] for the buffer's values, scratch[1] for an owner by rows'
 * lengths, scratch[2] for an owner through an index's index.  Stride
 * tiling shifts no row lengths that place rows: shifted, a tile's rows
 * would no longer be its atom's, and its columns, placed by them, would be
 * cut or padded. */
static bool scale_sliced(const gen_pool *pool, const gen_layout *lay, const int *genes, wh_image *full,
                         int p, unsigned char *scratch[3], wh_error *err)
{
    const wh_param *par = &full->spec->params[p];
    int nl = gen_rows_lengths(full->spec, p), q = par->owner_index - 1;
    mover m;
    if (!mover_init(&m, pool, full, p, err)) return false;
    m.stride = lay->tiling_gene >= 0 && !places_rows(full->spec, p) ? gen_tiling_stride(genes[lay->tiling_gene]) : 0;
    bool ok = nl < 0 || wh_image_fill_low(full, p, err);   /* entries past the rows: as a new image's */
    for (int g = 0; ok && par->owner == WH_OWNER_INDEX && g < lay->thread_genes; g++) {
        m.tile = (uint64_t)g;
        ok = (m.src = allele_data(pool, genes[g], p, scratch[0], err)) != NULL && move_unlisted(&m, lay, m.tile, err);
    }
    for (int g = 0; ok && g < lay->thread_genes; g++) {
        const unsigned char *lens = nl < 0 ? NULL : allele_data(pool, genes[g], nl, scratch[1], err);
        ok = (m.src = allele_data(pool, genes[g], p, scratch[0], err)) != NULL;
        ok = ok && (q < 0 || (m.atom_index = allele_data(pool, genes[g], q, scratch[2], err)) != NULL);
        ok = ok && (nl < 0 || (lens && mover_atom_rows(&m, lens, err)));
        m.tile = (uint64_t)g;
        ok = ok && mover_threads(&m, lay, (uint64_t)g * (uint64_t)lay->x, false, err);
    }
    mover_free(&m);
    return ok;
}

static bool scale_shared(const gen_pool *pool, const gen_layout *lay, const int *genes, wh_image *full,
                         int p, unsigned char *scratch, wh_error *err)
{
    uint64_t natom = pool->ref->bufs[p].count, nfull = full->bufs[p].count;
    if (natom == 0) return true;
    int a = genes[lay->thread_genes];
    const unsigned char *src = a < 0 ? allele_data(pool, a, p, scratch, err) : gen_pool_atom_data(pool, a, p);
    if (a < 0 && !src) return false;
    if (!src) return wh_image_fill_low(full, p, err);
    mover m;
    if (!mover_init(&m, pool, full, p, err)) return false;
    m.src = src;
    /* An atom's shared buffer is sized for X threads; repeat it cyclically. */
    bool ok = true;
    for (uint64_t e = 0; ok && e < nfull; e++)
        ok = mover_copy(&m, e % natom, e, err);
    mover_free(&m);
    return ok;
}

bool gen_scale(const gen_pool *pool, const gen_layout *lay, const int *genes, wh_image *full, wh_error *err)
{
    if (pool->x != lay->x || wh_launch_threads_total(&full->launch) != lay->threads) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "scaler: pool X = %d, layout X = %d for %llu threads, "
                     "image of %llu threads", pool->x, lay->x, (unsigned long long)lay->threads,
                     (unsigned long long)wh_launch_threads_total(&full->launch));
        return false;
    }
    for (int g = 0; g < lay->ngenes; g++) {
        int n = g == lay->tiling_gene ? lay->ntilings : pool->natoms;
        if ((g == lay->tiling_gene && genes[g] < 0) || genes[g] >= n) {
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "gene %d chooses %s %d of %d", g,
                         g == lay->tiling_gene ? "tiling" : "atom", genes[g], n);
            return false;
        }
    }
    /* an X-thread parameter's values of a seeded allele, and the row
     * lengths beside them for an owner by rows */
    size_t biggest = 0;
    bool rows = false;
    for (int p = 0; p < pool->ref->nbufs; p++) {
        if (pool->ref->bufs[p].bytes > biggest) biggest = pool->ref->bufs[p].bytes;
        rows |= in_pass(&full->spec->params[p], 2);
    }
    if (!biggest) biggest = 1;
    unsigned char *space = malloc(3 * biggest), *scratch[3] = { space, space + biggest, space + 2 * biggest };
    if (!space) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    bool ok = true;
    for (int pass = 0; ok && pass < 3; pass++) {
        for (int p = 0; ok && p < full->nbufs; p++) {
            const wh_param *par = &full->spec->params[p];
            if (!in_pass(par, pass)) continue;
            ok = par->per_thread ? scale_sliced(pool, lay, genes, full, p, scratch, err)
                                 : scale_shared(pool, lay, genes, full, p, scratch[0], err);
        }
        if (pass == 0) ok = ok && restructure_indices(full, err);
        if (pass == 1 && rows) ok = ok && gen_rebuild_rows(full, err);
    }
    free(space);
    /* tiles of sorted atoms are not sorted: the launch's structure is made here */
    return ok && wh_image_restructure(full, err);
}

/* A new seed atom holding the reference image's inputs (the low end of
 * every X-thread domain) for the caller to overwrite. */
static int reserve_seed_atom(gen_pool *pool, bool with_shared, wh_error *err)
{
    int a = gen_pool_reserve(pool, GEN_ATOM_SEED, -1, true, with_shared, err);
    for (int p = 0; a >= 0 && p < pool->ref->nbufs; p++) {
        unsigned char *at = (unsigned char *)gen_pool_atom_data(pool, a, p);
        if (at) memcpy(at, pool->ref->bufs[p].data, pool->ref->bufs[p].bytes);
    }
    return a;
}

/* Owner by rows or through an index: atom a's index and rows, from what
 * the earlier passes gave it. */
static bool mover_rows_of(mover *m, const gen_pool *pool, int a, wh_error *err)
{
    int nl = gen_rows_lengths(m->full->spec, m->p), q = m->full->spec->params[m->p].owner_index - 1;
    m->atom_index = q < 0 ? NULL : gen_pool_atom_data(pool, a, q);
    return nl < 0 || mover_atom_rows(m, gen_pool_atom_data(pool, a, nl), err);
}

/* To atom a from the tile of thread `thread`: its elements no thread
 * lists (an owner through an index), then what `thread` (with `one`, else
 * the tile's threads) owns. */
static bool unscale_tile(mover *m, gen_pool *pool, const gen_layout *lay, int a, uint64_t thread, bool one,
                         wh_error *err)
{
    m->atom_out = (unsigned char *)gen_pool_atom_data(pool, a, m->p);
    bool index = m->full->spec->params[m->p].owner == WH_OWNER_INDEX;
    return (!index || move_unlisted(m, lay, thread / (uint64_t)lay->x, err)) && mover_rows_of(m, pool, a, err) &&
           mover_threads(m, lay, thread, one, err);
}

static bool unscale_sliced(gen_pool *pool, const gen_layout *lay, const wh_image *full, int p, const int *genes,
                           wh_error *err)
{
    mover m;
    if (!mover_init(&m, pool, full, p, err)) return false;
    bool ok = true;
    for (int g = 0; ok && g < lay->thread_genes; g++)
        ok = unscale_tile(&m, pool, lay, genes[g], (uint64_t)g * (uint64_t)lay->x, false, err);
    mover_free(&m);
    return ok;
}

static bool unscale_shared(gen_pool *pool, const wh_image *full, int p, int atom, wh_error *err)
{
    uint64_t natom = pool->ref->bufs[p].count, nfull = full->bufs[p].count;
    mover m;
    if (!mover_init(&m, pool, full, p, err)) return false;
    m.atom_out = (unsigned char *)gen_pool_atom_data(pool, atom, p);
    bool ok = true;
    for (uint64_t e = 0; ok && e < natom && e < nfull; e++)
        ok = mover_copy(&m, e, e, err);
    mover_free(&m);
    return ok;
}

bool gen_unscale(gen_pool *pool, const gen_layout *lay, const wh_image *full, int *genes, wh_error *err)
{
    if (pool->x != lay->x || wh_launch_threads_total(&full->launch) != lay->threads) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "unscale: pool X = %d, layout X = %d for %llu threads",
                     pool->x, lay->x, (unsigned long long)lay->threads);
        return false;
    }
    for (int g = 0; g < lay->thread_genes; g++)
        if ((genes[g] = reserve_seed_atom(pool, false, err)) < 0) return false;
    if (lay->has_shared && (genes[lay->thread_genes] = reserve_seed_atom(pool, true, err)) < 0) return false;
    if (lay->tiling_gene >= 0) genes[lay->tiling_gene] = 0;
    for (int pass = 0; pass < 3; pass++)
        for (int p = 0; p < full->nbufs; p++) {
            const wh_param *par = &full->spec->params[p];
            if (!in_pass(par, pass)) continue;
            bool ok = par->per_thread ? unscale_sliced(pool, lay, full, p, genes, err)
                                      : unscale_shared(pool, full, p, genes[lay->thread_genes], err);
            if (!ok) return false;
        }
    return true;
}

/* Per-thread input p of `thread` in full into every thread of atom a. */
static bool thread_into_atom(gen_pool *pool, const gen_layout *lay, const wh_image *full, int p, uint64_t thread,
                             int a, wh_error *err)
{
    mover m;
    if (!mover_init(&m, pool, full, p, err)) return false;
    bool ok = unscale_tile(&m, pool, lay, a, thread, true, err);
    mover_free(&m);
    return ok;
}

int gen_thread_atom(gen_pool *pool, const gen_layout *lay, const wh_image *full, uint64_t thread, wh_error *err)
{
    if (pool->x != lay->x || wh_launch_threads_total(&full->launch) != lay->threads || thread >= lay->threads) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "thread atom: pool X = %d, layout X = %d for %llu threads, "
                     "thread %llu", pool->x, lay->x, (unsigned long long)lay->threads, (unsigned long long)thread);
        return -1;
    }
    int a = reserve_seed_atom(pool, false, err);
    for (int pass = 0; pass < 3; pass++)
        for (int p = 0; a >= 0 && p < full->nbufs; p++) {
            const wh_param *par = &full->spec->params[p];
            if (!in_pass(par, pass) || !par->per_thread) continue;
            if (!thread_into_atom(pool, lay, full, p, thread, a, err)) {
                gen_pool_drop_last(pool);
                return -1;
            }
        }
    return a;
}

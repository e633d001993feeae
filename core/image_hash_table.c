/*
 * image_hash_table.c — input buffers that hold an open-addressing hash
 * table with linear probing (core/spec.h, wh_hash_table): a slot per
 * element, each the empty marker or a key; a key's home is its hash
 * modulo the slots.  A table is what inserts build: each key at most
 * max_probes - 1 slots after its home (cyclically), every slot from its
 * home up to it occupied, no key twice, at most max_keys keys.
 *
 * The search builds inputs slot by slot, and the projection here keeps
 * what the time of a lookup depends on, which slots are occupied: when
 * there are more keys than max_keys, keys are emptied evenly over the
 * table; a key that breaks the table (too far from its home, an empty
 * slot on its way, or a copy of a key met earlier on its way) is replaced
 * by a key whose home is its own slot, the first upward from the old
 * key's hash that its range allows, so the slot stays occupied
 * (emptied when no such key is found within a few tries).  A table is
 * left as it is.  Random tables are built as inserts build them:
 * max_keys random keys inserted one after another.
 *
 * Both the projection and the check go over the table one cluster (a run
 * of occupied slots) at a time: a key's way from its home stays in its
 * cluster unless it crosses an empty slot, and copies of a key share a
 * home, so they meet in one cluster (sorted by key there).
 */
#include "core/image.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* A key replaced looks at this many hashes of its slot for one in range. */
#define REHOME_TRIES 64

typedef struct {
    unsigned char *data;     /* the slots */
    const wh_param *param;
    const wh_hash_table *t;
    const wh_field *key;
    uint64_t n;              /* slots */
    uint64_t probes;         /* max_probes, at most n */
    uint64_t max_keys;       /* at most n */
    wh_bounds bd;            /* the key field's range */
} table;

uint32_t wh_key_hash_of(wh_key_hash h, uint32_t k)
{
    if (h == WH_HASH_IDENTITY) return k;
    k ^= k >> 16;
    k *= WH_FMIX32_MUL1;
    k ^= k >> 13;
    k *= WH_FMIX32_MUL2;
    k ^= k >> 16;
    return k;
}

uint32_t wh_key_unhash(wh_key_hash h, uint32_t v)
{
    if (h == WH_HASH_IDENTITY) return v;
    /* fmix32's steps undone in reverse order: an xor-shift by s >= 16 is
     * its own inverse, by 13 it takes the shifts by 13 and 26 */
    v ^= v >> 16;
    v *= WH_FMIX32_INV2;
    v ^= (v >> 13) ^ (v >> 26);
    v *= WH_FMIX32_INV1;
    v ^= v >> 16;
    return v;
}

static int64_t key_at(const table *tb, uint64_t i)
{
    return wh_value_get_int(tb->key->type, tb->data + i * tb->param->elem_size + tb->key->offset);
}

static void set_key(table *tb, uint64_t i, int64_t v)
{
    wh_value_set_int(tb->key->type, tb->data + i * tb->param->elem_size + tb->key->offset, v);
}

static bool occupied(const table *tb, uint64_t i)
{
    return key_at(tb, i) != tb->t->empty;
}

static uint64_t home_of(const table *tb, int64_t key)
{
    return wh_key_hash_of(tb->t->hash, (uint32_t)key) % tb->n;
}

/* A 32-bit pattern as a value of the key's type (i32 keys are signed). */
static int64_t key_value(const table *tb, uint32_t bits)
{
    return wh_type_is_signed(tb->key->type) ? (int64_t)(int32_t)bits : (int64_t)bits;
}

static bool table_error(const wh_image *img, int p, wh_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool table_error(const wh_image *img, int p, wh_error *err, const char *fmt, ...)
{
    char msg[320], path[80];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0, "input \"%s\" (\"hash_table\"): %s",
                 img->bufs[p].param->name, msg);
    wh_param_jpath(img->spec, p, ".hash_table", path, sizeof path);
    wh_error_set_path(err, path);
    return false;
}

/* An evaluated bound of the table: e (NULL: n), clamped to [lo, n]. */
static bool table_bound(const wh_image *img, int p, const wh_expr *e, const char *what, int64_t lo, uint64_t *out,
                        wh_error *err)
{
    int64_t v = (int64_t)img->bufs[p].count;
    if (e && !wh_spec_eval(img->spec, e, img->vars, what, &v, err)) return false;
    if (v < lo) return table_error(img, p, err, "%s is %lld, below %lld", what, (long long)v, (long long)lo);
    *out = (uint64_t)v < img->bufs[p].count ? (uint64_t)v : img->bufs[p].count;
    return true;
}

/* Buffer p as a table, its slots at data (the buffer's own, or a copy's
 * of its size); tb->t is NULL when it holds none. */
static bool open_table_at(const wh_image *img, int p, unsigned char *data, table *tb, wh_error *err)
{
    const wh_buffer *b = &img->bufs[p];
    *tb = (table){ .data = data, .param = b->param, .t = b->param->table, .n = b->count };
    if (!tb->t || b->count == 0) {
        tb->t = NULL;
        return true;
    }
    tb->key = &b->param->fields[tb->t->key];
    if (b->count > (uint64_t)UINT32_MAX + 1)
        return table_error(img, p, err, "%llu slots: a 32-bit hash reaches 2^32 of them at most",
                           (unsigned long long)b->count);
    if (!table_bound(img, p, tb->t->max_probes, "max_probes", 1, &tb->probes, err) ||
        !table_bound(img, p, tb->t->max_keys, "max_keys", 0, &tb->max_keys, err) ||
        !wh_image_bounds(img, p, tb->t->key, 0, &tb->bd, err))
        return false;
    if (tb->t->empty < tb->bd.lo || tb->t->empty > tb->bd.hi)
        return table_error(img, p, err, "the empty marker %lld is outside the key's range [%lld, %lld]: an empty "
                           "slot would be out of its domain (widen the range to hold it)", (long long)tb->t->empty,
                           (long long)tb->bd.lo, (long long)tb->bd.hi);
    return true;
}

static bool open_table(wh_image *img, int p, table *tb, wh_error *err)
{
    return open_table_at(img, p, img->bufs[p].data, tb, err);
}

bool wh_image_hash_table_limits(const wh_image *img, int p, uint64_t *probes, uint64_t *max_keys, wh_error *err)
{
    table tb;
    if (!open_table_at(img, p, NULL, &tb, err)) return false;
    *probes = tb.probes;
    *max_keys = tb.max_keys;
    return true;
}

/* A key of a cluster (a run of occupied slots), for finding the keys that
 * break the table one cluster at a time: a key's way from its home lies
 * in its cluster or crosses an empty slot, and a second copy of a key
 * lies in the first's cluster, further from their home. */
typedef struct {
    int64_t key;
    uint64_t d;              /* slots after its home */
    uint64_t slot;
    char why;                /* 'f' past max_probes, 'g' an empty slot on its way, 't' twice, 0 */
} placed;

static int cmp_placed(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
    return (x->d > y->d) - (x->d < y->d);
}

/* Called for each key that breaks the table (why as in placed; at: the
 * slot of the copy nearer its home, for 't'); false stops the scan. */
typedef bool (*broken_fn)(table *tb, const placed *k, uint64_t at, void *ctx);

/* The c keys of the cluster from slot `start` (full: the whole table, no
 * empty slot) classified in buf and reported. */
static bool scan_cluster(table *tb, uint64_t start, uint64_t c, bool full, placed *buf, broken_fn fn, void *ctx)
{
    for (uint64_t k = 0; k < c; k++) {
        uint64_t i = (start + k) % tb->n;
        int64_t v = key_at(tb, i);
        uint64_t d = (i + tb->n - home_of(tb, v)) % tb->n;
        buf[k] = (placed){ v, d, i, d >= tb->probes ? 'f' : !full && d > k ? 'g' : 0 };
    }
    qsort(buf, c, sizeof *buf, cmp_placed);
    for (uint64_t k = 0, first = 0; k < c; k++) {
        if (k > 0 && buf[k].key != buf[k - 1].key) first = k;
        if (!buf[k].why && k != first) buf[k].why = 't';
        if (buf[k].why && !fn(tb, &buf[k], buf[first].slot, ctx)) return false;
    }
    return true;
}

/* Room in *buf for c keys (a cluster's; clusters are short at a real
 * table's load, so the buffer grows with the longest met, not the table). */
static bool room_for(placed **buf, uint64_t *cap, uint64_t c)
{
    if (c <= *cap) return true;
    placed *b = realloc(*buf, c * sizeof *b);
    if (!b) return false;
    *buf = b;
    *cap = c;
    return true;
}

/* Every key that breaks the table, cluster by cluster; 1 when all were
 * reported, 0 when fn stopped the scan, -1 out of memory. */
static int each_broken(table *tb, broken_fn fn, void *ctx)
{
    uint64_t e0 = 0, cap = 0;
    while (e0 < tb->n && occupied(tb, e0)) e0++;
    placed *buf = NULL;
    int r = 1;
    if (e0 == tb->n)   /* no empty slot: one cluster, the whole table */
        r = !room_for(&buf, &cap, tb->n) ? -1 : scan_cluster(tb, 0, tb->n, true, buf, fn, ctx);
    for (uint64_t k = 1, c = 0; e0 < tb->n && r == 1 && k <= tb->n; k++) {   /* after e0, around to e0 */
        uint64_t i = (e0 + k) % tb->n;
        if (occupied(tb, i)) {
            c++;
        } else {
            uint64_t start = (i + tb->n - c) % tb->n;
            if (c) r = !room_for(&buf, &cap, c) ? -1 : scan_cluster(tb, start, c, false, buf, fn, ctx);
            c = 0;
        }
    }
    free(buf);
    return r;
}

/* Slot i's key replaced by one whose home is slot i, in the key's range
 * and not the empty marker: the hashes congruent to i are tried upward
 * from the old key's; false when none of REHOME_TRIES is. */
static bool rehome(table *tb, uint64_t i)
{
    uint64_t per = ((uint64_t)UINT32_MAX - i) / tb->n + 1;   /* hashes of home i */
    uint64_t m0 = wh_key_hash_of(tb->t->hash, (uint32_t)key_at(tb, i)) / tb->n;
    for (uint64_t k = 0; k < REHOME_TRIES && k < per; k++) {
        uint64_t m = (m0 + k) % per;
        int64_t v = key_value(tb, wh_key_unhash(tb->t->hash, (uint32_t)(m * tb->n + i)));
        if (v != tb->t->empty && v >= tb->bd.lo && v <= tb->bd.hi) {
            set_key(tb, i, v);
            return true;
        }
    }
    return false;
}

/* Empty keys evenly over the table until max_keys are left. */
static void drop_excess(table *tb)
{
    uint64_t keys = 0;
    for (uint64_t i = 0; i < tb->n; i++) keys += occupied(tb, i);
    if (keys <= tb->max_keys) return;
    uint64_t acc = 0;   /* Bresenham: keep max_keys of the keys, spread out */
    for (uint64_t i = 0; i < tb->n; i++) {
        if (!occupied(tb, i)) continue;
        acc += tb->max_keys;
        if (acc >= keys)
            acc -= keys;
        else
            set_key(tb, i, tb->t->empty);
    }
}

/* A broken key rehomed at its slot, or its slot emptied. */
static bool repair(table *tb, const placed *k, uint64_t at, void *changed)
{
    (void)at;
    *(bool *)changed = true;
    if (!rehome(tb, k->slot)) set_key(tb, k->slot, tb->t->empty);
    return true;
}

bool wh_image_restructure_hash_table(wh_image *img, int p, wh_error *err)
{
    table tb;
    if (!open_table(img, p, &tb, err)) return false;
    if (!tb.t) return true;
    drop_excess(&tb);
    /* A replaced key sits at its home and keeps the table from then on,
     * but it may be a copy of a key further on, and an emptied slot breaks
     * the keys whose way crosses it: another pass until nothing changes. */
    for (bool changed = true; changed;) {
        changed = false;
        int r = each_broken(&tb, repair, &changed);
        if (r < 0) {
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
            return false;
        }
    }
    return true;
}

typedef struct {
    const wh_image *img;
    int p;
    wh_error *err;
} check_ctx;

/* The first broken key as an error (a gap: the first empty slot from its
 * home). */
static bool name_broken(table *tb, const placed *k, uint64_t at, void *ctx)
{
    const check_ctx *c = ctx;
    long long v = (long long)k->key;
    unsigned long long s = (unsigned long long)k->slot, h = (unsigned long long)home_of(tb, k->key);
    if (k->why == 'f')
        table_error(c->img, c->p, c->err, "slot %llu holds key %lld, whose home is slot %llu: more than "
                    "max_probes - 1 = %llu slots after it", s, v, h, (unsigned long long)tb->probes - 1);
    else if (k->why == 't')
        table_error(c->img, c->p, c->err, "key %lld is in slots %llu and %llu", v, (unsigned long long)at, s);
    else {
        uint64_t gap = h;
        while (occupied(tb, gap)) gap = (gap + 1) % tb->n;
        table_error(c->img, c->p, c->err, "slot %llu holds key %lld, whose home is slot %llu, but slot %llu on its "
                    "way is empty", s, v, h, (unsigned long long)gap);
    }
    return false;
}

bool wh_image_check_hash_table(const wh_image *img, int p, wh_error *err)
{
    table tb;
    if (!open_table_at(img, p, img->bufs[p].data, &tb, err)) return false;   /* read only */
    if (!tb.t) return true;
    check_ctx c = { img, p, err };
    int r = each_broken(&tb, name_broken, &c);
    if (r <= 0) {
        if (r < 0) wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    uint64_t keys = 0;
    for (uint64_t i = 0; i < tb.n; i++) keys += occupied(&tb, i);
    if (keys > tb.max_keys)
        return table_error(img, p, err, "%llu keys, more than max_keys %llu", (unsigned long long)keys,
                           (unsigned long long)tb.max_keys);
    return true;
}

void wh_hash_table_stats(const wh_buffer *b, uint64_t *keys, uint64_t *longest_run)
{
    const wh_hash_table *t = b->param->table;
    *keys = *longest_run = 0;
    if (!t) return;
    const wh_field *kf = &b->param->fields[t->key];
    uint64_t run = 0, first_run = 0;
    for (uint64_t i = 0; i < b->count; i++) {
        bool occ = wh_value_get_int(kf->type, b->data + i * b->param->elem_size + kf->offset) != t->empty;
        *keys += occ;
        run = occ ? run + 1 : 0;
        if (run == i + 1) first_run = run;   /* the run from slot 0, which a wrapping run continues */
        if (run > *longest_run) *longest_run = run;
    }
    if (run < b->count && run + first_run > *longest_run) *longest_run = run + first_run;
}

static void empty_all(table *tb)
{
    for (uint64_t i = 0; tb->t && i < tb->n; i++) set_key(tb, i, tb->t->empty);
}

bool wh_image_empty_hash_table(wh_image *img, int p, wh_error *err)
{
    table tb;
    if (!open_table(img, p, &tb, err)) return false;
    empty_all(&tb);
    return true;
}

/* Insert key v as an insert does: from its home, the first empty slot
 * within max_probes (nothing when v is there already or none is). */
static void insert_key(table *tb, int64_t v)
{
    uint64_t h = home_of(tb, v);
    for (uint64_t j = 0; j < tb->probes; j++) {
        uint64_t s = (h + j) % tb->n;
        if (key_at(tb, s) == v) return;
        if (!occupied(tb, s)) {
            set_key(tb, s, v);
            return;
        }
    }
}

bool wh_image_fill_hash_table_at(const wh_image *img, int p, unsigned char *data, pcg32 *rng, wh_error *err)
{
    table tb;
    if (!open_table_at(img, p, data, &tb, err)) return false;
    if (!tb.t) return true;
    empty_all(&tb);
    if (tb.bd.lo == tb.bd.hi) return true;   /* the range holds the empty marker alone */
    for (uint64_t k = 0; k < tb.max_keys; k++) {
        int64_t v = pcg32_range_i64(rng, tb.bd.lo, tb.bd.hi);
        if (v != tb.t->empty) insert_key(&tb, v);
    }
    return true;
}

bool wh_image_fill_hash_table(wh_image *img, int p, pcg32 *rng, wh_error *err)
{
    return wh_image_fill_hash_table_at(img, p, img->bufs[p].data, rng, err);
}

/*
 * memory.c — loads and stores on the regions of a state.
 *
 * A region's content is a byte array (copy on write, shared between forked
 * states) where each byte is concrete or "byte k of term t", so a word
 * stored and loaded back is the same term and untouched input words are
 * their symbols.  Concrete addresses take this fast path.  A symbolic
 * address goes through a Z3 array (bv64 -> bv8) of the region's content:
 * a symbolic store switches the region to array mode for good.  Every
 * access is bounds-checked: a concrete address outside every region ends
 * the path with an error; a symbolic one that may leave its region is
 * reported with the condition and a model, and the path goes on assuming
 * it stays inside.
 *
 * A chain of stores at symbolic offsets makes every later symbolic read a
 * case split over all of them, and Z3 can then spend minutes and
 * gigabytes inside one check without heeding its timeout (a shared-memory
 * histogram did).  So once a region of a state has taken
 * SX_SYMBOLIC_STORES_MAX such stores, further loads and stores at
 * symbolic offsets are concretized, as KLEE does: the offset is pinned to
 * the state's model's value and that equality joins the path condition
 * (sound: the path's atoms access that place; paths with other offsets
 * are not explored).  sx_result.pinned counts them.  A region larger than
 * SX_ARRAY_REGION_MAX is pinned from its first symbolic access, and as long
 * as it has never become an array the pinned access takes the concrete
 * fast path: the array alone would outweigh every other constraint.
 *
 * Most symbolic accesses need no array at all: a word at an offset that is
 * a multiple of its size, which can reach at most SX_WORD_CASES_MAX words
 * (its bounds and the region's), is a case split over those words ("word
 * cases", below); the region keeps its bytes.
 */
#include "symexec/internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int region;
    bool conc;
    uint64_t off;       /* when conc */
    Z3_ast soff;        /* bv64 offset in the region when !conc */
} sx_loc;

static sx_mem *mem_fresh(void)
{
    sx_mem *m = calloc(1, sizeof *m);
    if (m)
        m->rc = 1;
    return m;
}

static void bytes_free(sx_engine *e, sx_byte *b, uint64_t n)
{
    if (!b)
        return;
    for (uint64_t i = 0; i < n; i++)
        sx_z_dec(&e->z, b[i].t);
    free(b);
}

/* ---- initial content ----------------------------------------------------- */

static sx_byte init_byte(const sx_engine *e, const sx_region *r, uint64_t o)
{
    sx_byte b = { 0 };
    if (r->input && o < r->input_bytes) {
        uint64_t el = o / r->elem_size, in = o % r->elem_size;
        for (int f = 0; f < r->nfields; f++) {
            const sx_symbol *s = &e->syms[r->first_sym + el * (uint64_t)r->nfields + (uint64_t)f];
            uint64_t fo = s->offset - el * r->elem_size;
            if (in < fo || in >= fo + (uint64_t)s->bytes)
                continue;
            if (!s->ast) {
                b.conc = (uint8_t)(s->value >> (8 * (in - fo)));
            } else {
                b.t = s->ast;
                b.idx = (uint8_t)(in - fo);
                b.n = (uint8_t)s->bytes;
            }
            return b;
        }
        return b;   /* padding */
    }
    if (r->init)
        b.conc = r->init[o];
    return b;
}

static sx_byte cur_byte(const sx_engine *e, const sx_region *r, const sx_mem *m, uint64_t o)
{
    if (m && m->bytes)
        return m->bytes[o];
    return init_byte(e, r, o);
}

/* ---- ownership ------------------------------------------------------------ */

static sx_byte *bytes_dup(sx_engine *e, const sx_region *r, const sx_mem *m)
{
    uint64_t n = r->size;
    sx_byte *b = malloc((size_t)(n ? n : 1) * sizeof *b);
    if (!b)
        return NULL;
    for (uint64_t i = 0; i < n; i++) {
        b[i] = cur_byte(e, r, m, i);
        sx_z_inc(&e->z, b[i].t);
    }
    return b;
}

static void mem_drop(sx_engine *e, const sx_region *r, sx_mem *m)
{
    if (!m || --m->rc > 0)
        return;
    bytes_free(e, m->bytes, r->size);
    sx_z_dec(&e->z, m->arr);
    free(m);
}

void sx_mem_release(sx_engine *e, int ri, sx_mem *m)
{
    mem_drop(e, &e->regions[ri], m);
}

/* The state's own copy of region ri, with bytes materialized unless the
 * region is in array mode. */
static sx_mem *own(sx_engine *e, sx_state *s, int ri, bool need_bytes)
{
    const sx_region *r = &e->regions[ri];
    sx_mem *m = s->mem[ri];
    if (m && m->rc == 1 && (m->bytes || m->array_mode || !need_bytes))
        return m;
    sx_mem *n = mem_fresh();
    if (!n)
        return NULL;
    n->array_mode = m && m->array_mode;
    if (!n->array_mode && need_bytes) {
        n->bytes = bytes_dup(e, r, m);
        if (!n->bytes) {
            free(n);
            return NULL;
        }
    }
    n->arr = m ? m->arr : NULL;
    n->sym_stores = m ? m->sym_stores : 0;
    if (m) {
        memcpy(n->written, m->written, sizeof n->written);
        n->nwritten = m->nwritten;
    }
    sx_z_inc(&e->z, n->arr);
    mem_drop(e, r, m);
    s->mem[ri] = n;
    return n;
}

/* ---- array view ----------------------------------------------------------- */

static Z3_ast byte_ast(sx_z *z, sx_byte b)
{
    if (!b.t)
        return sx_z_num(z, b.conc, 8);
    Z3_ast bv = sx_z_to_bv(z, b.t);
    return sx_z_extract(z, bv, 8 * b.idx + 7, 8 * b.idx);
}

static Z3_ast region_array(sx_engine *e, sx_state *s, int ri)
{
    sx_z *z = &e->z;
    const sx_region *r = &e->regions[ri];
    sx_mem *m = s->mem[ri];
    if (m && m->arr)
        return m->arr;
    Z3_ast a = sx_zk(z, Z3_mk_const_array(z->c, z->idx_s, sx_z_num(z, 0, 8)));
    for (uint64_t o = 0; o < r->size && a; o++) {
        sx_byte b = cur_byte(e, r, m, o);
        if (!b.t && b.conc == 0)
            continue;
        a = sx_zk(z, Z3_mk_store(z->c, a, sx_z_num(z, o, 64), byte_ast(z, b)));
    }
    if (!a)
        return NULL;
    if (!m) {
        m = mem_fresh();
        if (!m)
            return a;
        s->mem[ri] = m;
    }
    sx_z_inc(z, a);
    m->arr = a;
    return a;
}

static Z3_ast array_read(sx_z *z, Z3_ast arr, Z3_ast off, int n)
{
    Z3_ast v = NULL;
    for (int k = 0; k < n; k++) {
        Z3_ast idx = k ? sx_z_fold(z, sx_zk(z, Z3_mk_bvadd(z->c, off, sx_z_num(z, (uint64_t)k, 64)))) : off;
        Z3_ast b = sx_zk(z, Z3_mk_select(z->c, arr, idx));
        v = v ? sx_z_concat(z, b, v) : b;
    }
    return v;
}

static Z3_ast array_write(sx_z *z, Z3_ast arr, Z3_ast off, int n, Z3_ast val)
{
    Z3_ast bv = sx_z_to_bv(z, val);
    for (int k = 0; k < n && arr; k++) {
        Z3_ast idx = k ? sx_z_fold(z, sx_zk(z, Z3_mk_bvadd(z->c, off, sx_z_num(z, (uint64_t)k, 64)))) : off;
        arr = sx_zk(z, Z3_mk_store(z->c, arr, idx, sx_z_extract(z, bv, 8 * k + 7, 8 * k)));
    }
    return arr;
}

/* ---- concrete offsets ----------------------------------------------------- */

static Z3_ast bytes_value(sx_z *z, const sx_byte *b, int n)
{
    bool conc = true;
    for (int k = 0; k < n; k++)
        conc = conc && !b[k].t;
    if (conc && n <= 8) {
        uint64_t v = 0;
        for (int k = n - 1; k >= 0; k--)
            v = v << 8 | b[k].conc;
        return sx_z_num(z, v, 8 * n);
    }
    bool whole = b[0].t && b[0].n == n;
    for (int k = 0; k < n && whole; k++)
        whole = b[k].t == b[0].t && b[k].idx == k;
    if (whole)
        return b[0].t;
    /* concat pieces, high byte first, merging runs of one term */
    Z3_ast v = NULL;
    int k = n - 1;
    while (k >= 0) {
        int j = k;
        Z3_ast piece;
        if (b[k].t) {
            while (j > 0 && b[j - 1].t == b[k].t && b[j - 1].idx + 1 == b[j].idx)
                j--;
            piece = sx_z_extract(z, sx_z_to_bv(z, b[k].t), 8 * b[k].idx + 7, 8 * b[j].idx);
        } else {
            uint64_t c = 0;
            while (j > 0 && !b[j - 1].t && k - j < 7)
                j--;
            for (int q = k; q >= j; q--)
                c = c << 8 | b[q].conc;
            piece = sx_z_num(z, c, 8 * (k - j + 1));
        }
        v = v ? sx_z_concat(z, v, piece) : piece;
        k = j - 1;
    }
    return v;
}

static Z3_ast read_conc(sx_engine *e, sx_state *s, int ri, uint64_t off, int n)
{
    sx_z *z = &e->z;
    const sx_region *r = &e->regions[ri];
    sx_mem *m = s->mem[ri];
    if (m && m->array_mode)
        return sx_z_simplify(z, array_read(z, m->arr, sx_z_num(z, off, 64), n));
    sx_byte b[16];
    for (int k = 0; k < n && k < 16; k++)
        b[k] = cur_byte(e, r, m, off + (uint64_t)k);
    return bytes_value(z, b, n);
}

/* Remember where a large region was written: the places a later access
 * at a symbolic offset may alias (resolve_pinned). */
static void note_written(const sx_engine *e, int ri, sx_mem *m, uint64_t off)
{
    if (e->regions[ri].size <= SX_ARRAY_REGION_MAX)
        return;
    for (int i = 0; i < m->nwritten; i++)
        if (m->written[i] == off)
            return;
    if (m->nwritten < SX_ALIAS_CANDIDATES)
        m->written[m->nwritten++] = off;
}

static bool write_conc(sx_engine *e, sx_state *s, int ri, uint64_t off, int n, Z3_ast val)
{
    sx_z *z = &e->z;
    sx_mem *m = own(e, s, ri, true);
    if (!m)
        return false;
    if (m->array_mode) {
        Z3_ast a = array_write(z, m->arr, sx_z_num(z, off, 64), n, val);
        if (!a)
            return false;
        sx_z_inc(z, a);
        sx_z_dec(z, m->arr);
        m->arr = a;
        return true;
    }
    sx_z_dec(z, m->arr);
    m->arr = NULL;
    note_written(e, ri, m, off);
    uint64_t cv = 0;
    bool conc = sx_z_is_bv(z, val) && sx_z_get_u64(z, val, &cv);
    bool fp = sx_z_is_fp(z, val);
    for (int k = 0; k < n; k++) {
        sx_byte *b = &m->bytes[off + (uint64_t)k];
        sx_z_dec(z, b->t);
        memset(b, 0, sizeof *b);
        if (conc) {
            b->conc = (uint8_t)(cv >> (8 * k));
        } else {
            b->t = val;
            sx_z_inc(z, val);
            b->idx = (uint8_t)k;
            b->n = (uint8_t)n;
            b->fp = fp;
        }
    }
    return true;
}

/* ---- word cases ------------------------------------------------------------
 *
 * A load at such an offset reads "the word at o1 if the offset is o1, else
 * the word at o2 if ..., else the last word" and a store writes every word
 * it may reach as "the value if the offset is there, else the old word".
 * Z3 then sees word-sized terms where an array gave it four byte selects
 * per word over a chain of byte stores, and the interval of a loaded word
 * is its words' (a pointer-chasing load bounds the next address without
 * the solver).  A union-find walk's halving store in a loop: every check
 * of its byte array gave up; as word cases its paths come in seconds
 * (tests/test_symexec.c). */

typedef struct {
    uint64_t first, last;   /* offsets of the first and last word it may reach */
} word_span;

/* Can this access at a symbolic offset be a case split over words? */
static bool word_cases(sx_cx *cx, const sx_loc *loc, int n, word_span *w)
{
    sx_engine *e = cx->e;
    const sx_mem *m = cx->s->mem[loc->region];
    uint64_t size = e->regions[loc->region].size, step = (uint64_t)n, lo, hi;
    if ((m && m->array_mode) || n <= 0 || (n & (n - 1)) || step > size)
        return false;
    if (sx_low_zero_bits(e, loc->soff) < __builtin_ctz((unsigned)n))
        return false;
    /* the path keeps the offset inside the region (resolve_symbolic) */
    w->first = 0;
    w->last = (size - step) / step * step;
    if (sx_interval_of(e, loc->soff, &lo, &hi)) {
        if (lo > w->last)
            return false;
        uint64_t up = (lo + step - 1) / step * step, down = hi / step * step;
        w->first = up;
        if (down < w->last)
            w->last = down;
    }
    return w->first <= w->last && (w->last - w->first) / step < SX_WORD_CASES_MAX;
}

static Z3_ast word_at(sx_engine *e, sx_state *s, int ri, uint64_t off, int n)
{
    Z3_ast v = read_conc(e, s, ri, off, n);
    return v ? sx_z_as_bv(&e->z, v, 8 * n) : NULL;
}

static Z3_ast word_cases_read(sx_engine *e, sx_state *s, const sx_loc *loc, int n, word_span w)
{
    sx_z *z = &e->z;
    e->word_cases++;
    Z3_ast v = word_at(e, s, loc->region, w.last, n);
    for (uint64_t o = w.last; o > w.first && v;) {
        o -= (uint64_t)n;
        Z3_ast word = word_at(e, s, loc->region, o, n);
        v = word ? sx_z_ite(z, sx_z_eq(z, loc->soff, sx_z_num(z, o, 64)), word, v) : NULL;
    }
    return v;
}

static bool word_cases_write(sx_cx *cx, const sx_loc *loc, int n, word_span w, Z3_ast val)
{
    sx_engine *e = cx->e;
    sx_z *z = &e->z;
    if (!val)
        return false;
    e->word_cases++;
    for (uint64_t o = w.first; o <= w.last; o += (uint64_t)n) {
        Z3_ast here = sx_z_eq(z, loc->soff, sx_z_num(z, o, 64));
        if (cx->guard)
            here = sx_z_and2(z, cx->guard, here);
        Z3_ast old = word_at(e, cx->s, loc->region, o, n);
        Z3_ast word = old ? sx_z_ite(z, here, val, old) : NULL;
        if (!word || !write_conc(e, cx->s, loc->region, o, n, word))
            return false;
    }
    cx->s->mem[loc->region]->sym_stores++;
    return !z->failed;
}

/* ---- address resolution --------------------------------------------------- */

static const char *space_label(ptx_space sp)
{
    return sp == PTX_SPACE_SHARED ? "shared" : sp == PTX_SPACE_LOCAL ? "local" : sp == PTX_SPACE_CONST ? "const"
                                                                                                   : "global";
}

void sx_fault_path(sx_cx *cx, const char *what)
{
    sx_issue_add(cx->e, SX_ISSUE_OOB, cx->ins->line, cx->t, NULL, NULL, "%s", what);
    sx_state_note(cx->s, "%s (line %d, thread %d)", what, cx->ins->line, cx->t);
    cx->s->end = SX_PATH_ERROR;
    cx->dead = true;
}

static int die(sx_cx *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int die(sx_cx *cx, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sx_fault_path(cx, buf);
    return 0;
}

/* Split a generic address into its space and the window's base
 * (ptx_generic_space); local addresses are the accessing thread's own. */
static void generic_split(uint64_t v, ptx_space *space, uint64_t *base)
{
    *space = ptx_generic_space(v);
    switch (*space) {
    case PTX_SPACE_SHARED: *base = PTX_ADDR_SHARED; break;
    case PTX_SPACE_LOCAL: *base = PTX_ADDR_LOCAL; break;
    case PTX_SPACE_CONST: *base = PTX_ADDR_CONST; break;
    default: *space = PTX_SPACE_GLOBAL; *base = 0; break;
    }
}

/* Is the symbolic offset forced to one value on this path? */
static bool unique_value(sx_cx *cx, Z3_ast a, uint64_t *v)
{
    sx_z *z = &cx->e->z;
    Z3_ast mv = sx_model_value(cx->e, cx->s->model, a);
    if (!mv || !sx_z_get_u64(z, mv, v))
        return false;
    Z3_ast eq = sx_z_eq(z, a, sx_z_num(z, *v, sx_z_width(z, a)));
    if (sx_solver_check(cx->e, cx->s, sx_z_not(z, eq), NULL) != 0)
        return false;
    sx_solver_implied(cx->e, cx->s, eq);
    return true;
}

static int resolve_symbolic(sx_cx *cx, ptx_space space, int thread, Z3_ast addr, uint64_t v,
                            int n, sx_loc *loc)
{
    sx_engine *e = cx->e;
    sx_z *z = &e->z;
    int ri = sx_layout_find(e, space, thread, v);
    if (ri < 0)
        ri = sx_layout_nearest(e, space, thread, v);
    if (ri < 0)
        return die(cx, "%s access at 0x%" PRIx64 " (%d bytes) with no buffer in that space",
                   space_label(space), v, n);
    const sx_region *r = &e->regions[ri];
    Z3_ast off = sx_z_simplify(z, sx_zk(z, Z3_mk_bvsub(z->c, addr, sx_z_num(z, r->base, 64))));
    loc->region = ri;
    loc->conc = false;
    loc->soff = off;
    uint64_t lo, hi;
    if ((uint64_t)n <= r->size && sx_interval_of(e, addr, &lo, &hi) && lo >= r->base
        && hi - r->base <= r->size - (uint64_t)n)
        return 1;   /* inside the buffer whatever the inputs */
    Z3_ast in = (uint64_t)n <= r->size
        ? sx_zk(z, Z3_mk_bvule(z->c, off, sx_z_num(z, r->size - (uint64_t)n, 64))) : z->fls;
    Z3_ast bad = sx_z_not(z, in);
    if (cx->guard)
        bad = sx_z_and2(z, cx->guard, bad);
    Z3_model bm = NULL;
    int sat = sx_solver_check(e, cx->s, bad, &bm);
    if (sat < 0)
        return -1;
    if (sat == 0)   /* always inside */
        sx_solver_implied(e, cx->s, sx_z_not(z, bad));
    if (sat == 1) {
        sx_issue_add(e, SX_ISSUE_OOB, cx->ins->line, cx->t, Z3_ast_to_string(z->c, bad), bm,
                  "%s access of %d bytes by thread %d may fall outside '%s' (%" PRIu64 " bytes)",
                  space_label(space), n, cx->t, r->name, r->size);
        Z3_model_dec_ref(z->c, bm);
        Z3_ast keep = cx->guard ? sx_z_or2(z, sx_z_not(z, cx->guard), in) : in;
        Z3_model gm = NULL;
        int ok = sx_solver_check(e, cx->s, keep, &gm);
        if (ok < 0)
            return -1;
        if (ok == 0)
            return die(cx, "%s access of '%s' at offset 0x%" PRIx64 " (%d bytes) is always out of bounds",
                       space_label(space), r->name, v - r->base, n);
        sx_state_add_pc(e, cx->s, keep);
        sx_state_set_model(e, cx->s, gm);
        Z3_model_dec_ref(z->c, gm);
    }
    return 1;
}

/* The solver gave up on a question an access needed answered: the state
 * turns concolic, as after a give-up on a branch (fork.c), and says where. */
static void gave_up(sx_cx *cx, const char *what)
{
    cx->e->giveups++;
    cx->s->concolic = true;
    sx_state_note(cx->s, "solver gave up on %s at line %d (thread %d); the path follows its model from there", what,
                  cx->ins->line, cx->t);
}

/* Does the state's model make c true? */
static bool model_says(sx_cx *cx, Z3_ast c)
{
    Z3_ast v = sx_model_value(cx->e, cx->s->model, c);
    return v && sx_z_bool_value(&cx->e->z, v) == 1;
}

/* A guarded access outside every buffer whose guard the solver could not
 * decide: the state's model decides, its side joining the path (sound: the
 * model satisfies it).  1: the access does not run; 0: it runs, and the
 * path ends with the error. */
static int guard_by_model(sx_cx *cx, ptx_space space, uint64_t v, int n)
{
    sx_z *z = &cx->e->z;
    gave_up(cx, "the guard of an access outside every buffer");
    if (model_says(cx, cx->guard)) {
        sx_state_add_pc(cx->e, cx->s, cx->guard);
        return die(cx, "%s access at 0x%" PRIx64 " (%d bytes) outside every buffer", space_label(space), v, n);
    }
    sx_state_add_pc(cx->e, cx->s, sx_z_not(z, cx->guard));
    return 1;
}

static int resolve(sx_cx *cx, ptx_space space, Z3_ast addr, int n, sx_loc *loc)
{
    sx_engine *e = cx->e;
    sx_z *z = &e->z;
    int thread = cx->t;
    uint64_t v;
    addr = sx_z_resize(z, sx_z_to_bv(z, addr), 64, false);
    bool conc = sx_z_get_u64(z, addr, &v);
    if (!conc) {
        Z3_ast mv = sx_model_value(e, cx->s->model, addr);
        if (!mv || !sx_z_get_u64(z, mv, &v))
            return -1;
    }
    if (space == PTX_SPACE_GENERIC) {
        uint64_t wbase = 0;
        generic_split(v, &space, &wbase);
        if (wbase) {
            v -= wbase;
            if (!conc)
                addr = sx_z_fold(z, sx_zk(z, Z3_mk_bvsub(z->c, addr, sx_z_num(z, wbase, 64))));
        }
    }
    if (!conc && cx->s->concolic) {
        /* a concolic state asks no more questions (fork.c): its model's
         * address, pinned */
        sx_state_add_pc(e, cx->s, sx_z_eq(z, addr, sx_z_num(z, v, 64)));
        e->pinned++;
        conc = true;
    }
    if (!conc && cx->s->fp && sx_cases_has_float(e, addr)) {
        /* an address made from floats (a particle's cell, floorf(x)) is
         * pinned to the model's value, as a concolic state's is: every
         * question about it goes to the FP solver at a second or more, and
         * pic_deposit's stage finished no path in 10 s asking them */
        sx_state_add_pc(e, cx->s, sx_z_eq(z, addr, sx_z_num(z, v, 64)));
        e->pinned++;
        conc = true;
    }
    /* an address that may take several values on this path is symbolic;
     * ask the solver only when its bounds cannot tell */
    uint64_t lo, hi;
    bool bounded = !conc && sx_interval_of(e, addr, &lo, &hi);
    if (bounded && lo == hi) {
        v = lo;
        conc = true;
    }
    if (!conc && !bounded && unique_value(cx, addr, &v))
        conc = true;
    if (!conc) {
        int r = resolve_symbolic(cx, space, thread, addr, v, n, loc);
        if (r >= 0 || z->failed || e->fatal)
            return r;
        /* the solver gave up on the address's bounds: it is pinned to the
         * model's value, the equality joining the path, and the state goes
         * on concolic (before: it ended as a cut path) */
        gave_up(cx, "the bounds of an address");
        sx_state_add_pc(e, cx->s, sx_z_eq(z, addr, sx_z_num(z, v, 64)));
        e->pinned++;
    }
    int ri = sx_layout_find(e, space, thread, v);
    if (ri < 0 || v - e->regions[ri].base + (uint64_t)n > e->regions[ri].size) {
        if (cx->guard) {
            /* only an error if the instruction can run */
            int g = sx_solver_check(e, cx->s, cx->guard, NULL);
            if (g < 0 && !z->failed && !e->fatal) {
                loc->region = -1;
                return guard_by_model(cx, space, v, n);
            }
            if (g < 0)
                return -1;
            if (g == 1) {
                sx_issue_add(e, SX_ISSUE_OOB, cx->ins->line, cx->t, Z3_ast_to_string(z->c, cx->guard), NULL,
                          "guarded %s access at 0x%" PRIx64 " (%d bytes) outside every buffer",
                          space_label(space), v, n);
            }
            Z3_ast ng = sx_z_not(z, cx->guard);
            Z3_model gm = NULL;
            int ok = sx_solver_check(e, cx->s, ng, &gm);
            if (ok < 0 && !z->failed && !e->fatal) {
                loc->region = -1;
                return guard_by_model(cx, space, v, n);
            }
            if (ok <= 0)
                return ok < 0 ? -1 : die(cx, "%s access at 0x%" PRIx64 " (%d bytes) outside every buffer",
                                         space_label(space), v, n);
            sx_state_add_pc(e, cx->s, ng);
            sx_state_set_model(e, cx->s, gm);
            Z3_model_dec_ref(z->c, gm);
            loc->region = -1;
            return 1;
        }
        return die(cx, "%s access at 0x%" PRIx64 " (%d bytes) outside every buffer",
                   space_label(space), v, n);
    }
    loc->region = ri;
    loc->conc = true;
    loc->off = v - e->regions[ri].base;
    return 1;
}

/* ---- public ---------------------------------------------------------------- */

/* One more access at a symbolic offset; false when the path has had
 * SX_ARRAY_OPS_MAX: it then ends as cut here. */
static bool count_array_op(sx_cx *cx)
{
    if (++cx->s->array_ops <= SX_ARRAY_OPS_MAX)
        return true;
    cx->s->end = SX_PATH_CUT;
    cx->dead = true;
    sx_state_note(cx->s, "more than %d loads and stores at symbolic offsets (line %d, thread %d)", SX_ARRAY_OPS_MAX,
               cx->ins->line, cx->t);
    return false;
}

/* Must an access at a symbolic offset into this region be pinned? */
static bool must_pin(const sx_cx *cx, int ri)
{
    const sx_mem *cur = cx->s->mem[ri];
    return (cur && cur->sym_stores >= SX_SYMBOLIC_STORES_MAX) || cx->e->regions[ri].size > SX_ARRAY_REGION_MAX;
}

/* Concretize a symbolic access's offset (see the head of this file); the
 * access becomes a concrete one unless the region already lives in an
 * array. */
static bool pin_offset(sx_cx *cx, sx_loc *loc)
{
    sx_engine *e = cx->e;
    sx_z *z = &e->z;
    uint64_t v;
    Z3_ast mv = sx_model_value(e, cx->s->model, loc->soff);
    if (!mv || !sx_z_get_u64(z, mv, &v))
        return false;
    Z3_ast c = sx_z_num(z, v, 64);
    sx_state_add_pc(e, cx->s, sx_z_eq(z, loc->soff, c));
    loc->soff = c;
    e->pinned++;
    const sx_mem *cur = cx->s->mem[loc->region];
    if (!cur || !cur->array_mode) {
        loc->conc = true;
        loc->off = v;
    }
    return true;
}

/* The copy that takes the other side of an alias fork runs the whole
 * instruction again (its program counter has not moved), now with the
 * offset decided: undo this run's count. */
static void rerun_apply(sx_cx *cx, bool side, void *arg)
{
    (void)side;
    (void)arg;
    cx->th->instrs--;
    cx->th->vis_count--;
}

/* An access at a symbolic offset that must be pinned: where its region is
 * large, the places this state wrote there are the ones whose content
 * differs from the initial one, so each feasible one gets a state of its
 * own (KLEE resolves an address over the objects it may point to; here
 * over the written places: two keys hashing to one slot, a probe meeting
 * an earlier insert); the access is then pinned to the model's value. */
static bool resolve_pinned(sx_cx *cx, sx_loc *loc)
{
    sx_z *z = &cx->e->z;
    const sx_mem *m = cx->s->mem[loc->region];
    int nw = m && !m->array_mode ? m->nwritten : 0;
    for (int i = 0; i < nw && !cx->s->concolic; i++) {
        uint64_t c = cx->s->mem[loc->region]->written[i];
        sx_fork fk = { .apply = rerun_apply, .prefer = 1, .leg = { -1, -1 } };
        int side = sx_fork_on(cx, sx_z_eq(z, loc->soff, sx_z_num(z, c, 64)), &fk);
        if (side < 0)
            return false;
        if (side == 1) {
            loc->conc = true;
            loc->off = c;
            return true;
        }
    }
    return pin_offset(cx, loc);
}

bool sx_mem_load(sx_cx *cx, ptx_space space, Z3_ast addr, int n, Z3_ast *out)
{
    sx_engine *e = cx->e;
    sx_z *z = &e->z;
    sx_loc loc;
    *out = NULL;
    int r = resolve(cx, space, addr, n, &loc);
    if (r < 0)
        return false;
    if (r == 0 || loc.region < 0) {
        *out = sx_z_num(z, 0, 8 * n);   /* the path ended, or the access never runs */
        return true;
    }
    if (!loc.conc) {
        if (!count_array_op(cx)) {
            *out = sx_z_num(z, 0, 8 * n);
            return true;
        }
        if (must_pin(cx, loc.region) && !resolve_pinned(cx, &loc))
            return false;
    }
    word_span w;
    if (loc.conc) {
        *out = read_conc(e, cx->s, loc.region, loc.off, n);
    } else if (word_cases(cx, &loc, n, &w)) {
        *out = word_cases_read(e, cx->s, &loc, n, w);
    } else {
        Z3_ast arr = region_array(e, cx->s, loc.region);
        *out = arr ? array_read(z, arr, loc.soff, n) : NULL;
    }
    return *out != NULL && !z->failed;
}

bool sx_mem_store(sx_cx *cx, ptx_space space, Z3_ast addr, int n, Z3_ast val)
{
    sx_engine *e = cx->e;
    sx_z *z = &e->z;
    sx_loc loc;
    int r = resolve(cx, space, addr, n, &loc);
    if (r < 0)
        return false;
    if (r == 0 || loc.region < 0)
        return true;
    if (sx_z_width(z, val) != 8 * n)
        val = sx_z_as_bv(z, val, 8 * n);
    bool pin = false;
    if (!loc.conc) {
        if (!count_array_op(cx))
            return true;
        pin = must_pin(cx, loc.region);
        if (pin && !resolve_pinned(cx, &loc))
            return false;
    }
    if (loc.conc) {
        if (cx->guard) {
            Z3_ast old = read_conc(e, cx->s, loc.region, loc.off, n);
            val = sx_z_ite(z, cx->guard, sx_z_as_bv(z, val, 8 * n), sx_z_as_bv(z, old, 8 * n));
        }
        return val && write_conc(e, cx->s, loc.region, loc.off, n, val) && !z->failed;
    }
    word_span w;
    if (word_cases(cx, &loc, n, &w))
        return word_cases_write(cx, &loc, n, w, sx_z_as_bv(z, val, 8 * n));
    Z3_ast arr = region_array(e, cx->s, loc.region);
    if (!arr)
        return false;
    sx_z_inc(z, arr);   /* own() may drop the cached array */
    sx_mem *m = own(e, cx->s, loc.region, false);
    Z3_ast na = m ? array_write(z, arr, loc.soff, n, val) : NULL;
    if (na && cx->guard)
        na = sx_z_ite(z, cx->guard, na, arr);
    sx_z_dec(z, arr);
    if (!na)
        return false;
    sx_z_inc(z, na);
    sx_z_dec(z, m->arr);
    m->arr = na;
    m->sym_stores += !pin;
    if (!m->array_mode) {
        bytes_free(e, m->bytes, e->regions[loc.region].size);
        m->bytes = NULL;
        m->array_mode = true;
    }
    return !z->failed;
}


Z3_ast sx_mem_read(sx_engine *e, sx_state *s, int region, uint64_t off, int n)
{
    return off + (uint64_t)n <= e->regions[region].size ? read_conc(e, s, region, off, n) : NULL;
}

bool sx_mem_write(sx_engine *e, sx_state *s, int region, uint64_t off, int n, Z3_ast val)
{
    return off + (uint64_t)n <= e->regions[region].size && write_conc(e, s, region, off, n, val);
}

bool sx_mem_zero(sx_engine *e, sx_state *s, int dst, uint64_t n)
{
    if (n > e->regions[dst].size)
        n = e->regions[dst].size;
    for (uint64_t off = 0; off < n; off += 8) {
        int chunk = n - off < 8 ? (int)(n - off) : 8;
        if (!write_conc(e, s, dst, off, chunk, sx_z_num(&e->z, 0, 8 * chunk)))
            return false;
    }
    return true;
}

bool sx_mem_copy(sx_engine *e, sx_state *s, int dst, int src, uint64_t n)
{
    const sx_region *rd = &e->regions[dst], *rs = &e->regions[src];
    if (n > rd->size)
        n = rd->size;
    if (n > rs->size)
        n = rs->size;
    for (uint64_t off = 0; off < n; off += 8) {
        int chunk = n - off < 8 ? (int)(n - off) : 8;
        Z3_ast v = read_conc(e, s, src, off, chunk);
        if (!v || !write_conc(e, s, dst, off, chunk, v))
            return false;
    }
    return true;
}

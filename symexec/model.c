/*
 * model.c — atoms: a model of a path formula written into an X-thread
 * input image.  Seed 0 gives the solver's own model; another seed first
 * tries to pin the input constants, in a random order, to random points of
 * their domains (the low end, the high end or uniform) -- or, when the
 * formula forbids that value, to one side of it -- keeping each pin that
 * leaves the formula satisfiable, so distinct seeds spread the atoms over
 * the inputs that follow the path.
 *
 * Most pins need no solver check: the values of a model of the formula and
 * the pins kept so far are screened first -- the formula's conjuncts that
 * mention the pinned symbol evaluated at them -- and a pin they satisfy,
 * as they are or with the pinned symbol moved to the pinned value, is kept
 * on that witness.  All tries
 * of a pin (the value, then either side) are screened before any check,
 * so a side the witness satisfies wins over an exact value that would need
 * one; only a pin the screen cannot confirm goes to the solver.  Every pin
 * kept is one a check would accept.
 *
 * Formulas over symbolic floats are solved from scratch with Z3's QF_BVFP
 * tactic at every check (much faster than the incremental core there);
 * the others use one incremental solver with push/pop.
 */
#include "core/clock.h"
#include "symexec/internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIN_CHECKS 256
#define PIN_CHECKS_FP 12
#define SX_ISOLATE_LEFT_MS 3000.0

typedef struct {
    sx_engine *e;
    bool fp;
    Z3_ast *a;            /* assertions above the domains (scratch references) */
    int n, cap;
    int synced;           /* a[0, synced) are in the incremental solver, one push each */
} msolve;

static bool ms_assert(msolve *ms, Z3_ast f)
{
    if (ms->n == ms->cap) {
        int cap = ms->cap ? ms->cap * 2 : 32;
        Z3_ast *v = realloc(ms->a, (size_t)cap * sizeof *v);
        if (!v)
            return false;
        ms->a = v;
        ms->cap = cap;
    }
    ms->a[ms->n++] = f;
    return true;
}

static void ms_retract(msolve *ms)
{
    ms->n--;
    if (ms->synced > ms->n) {
        Z3_solver_pop(ms->e->z.c, ms->e->msolver, 1);
        ms->synced--;
    }
}

/* The incremental solver gets the assertions only when a check needs them:
 * most atoms are made on the screen's witness without one, and asserting
 * a path formula (internalising it) was most of their cost. */
static void ms_sync(msolve *ms)
{
    for (; ms->synced < ms->n; ms->synced++) {
        Z3_solver_push(ms->e->z.c, ms->e->msolver);
        Z3_solver_assert(ms->e->z.c, ms->e->msolver, ms->a[ms->synced]);
    }
}

/* ms_sync under the watchdog: a push internalises what the scope below it
 * asserted, and on gcd_steps's nested remainders (bit-blasted dividers)
 * one family's pushes took 40 s past a 15 s stage, with no check running
 * for Z3's timeout to stop.  Cut, the solver's scopes are in no known
 * state: it starts again from the domains (later checks push ms's
 * assertions again), and false says no check may follow. */
static bool ms_sync_bounded(msolve *ms, unsigned ms_left)
{
    sx_engine *e = ms->e;
    bool watched = ms_left != UINT_MAX;
    if (watched)
        sx_watchdog_arm(e->dog, ms_left + (ms_left / 4 > 500 ? ms_left / 4 : 500));
    ms_sync(ms);
    sx_cut cut = watched ? sx_watchdog_disarm(e->dog) : SX_CUT_NONE;
    if (cut == SX_CUT_NONE && Z3_get_error_code(e->z.c) == Z3_OK)
        return true;
    Z3_solver_reset(e->z.c, e->msolver);
    Z3_solver_assert(e->z.c, e->msolver, e->domains);
    ms->synced = 0;
    e->distrust = true;
    e->interrupted++;
    e->memouts += cut == SX_CUT_MEMORY;
    if (e->res) {
        e->res->interrupted = e->interrupted;
        e->res->memouts = e->memouts;
    }
    return false;
}

/* The timeout of the next model check in ms (UINT_MAX: none); 0 when the
 * deadline has passed and no check may start. */
static unsigned check_ms(const sx_engine *e)
{
    double ms = e->model_query_ms ? (double)e->model_query_ms : 4e9;
    if (e->model_deadline > 0) {
        double left = (e->model_deadline - wh_clock_s()) * 1000.0;
        if (left < 1.0)
            return 0;
        ms = left < ms ? left : ms;
    }
    return ms >= 4e9 ? UINT_MAX : (unsigned)ms;
}

static void limit_model_check(sx_z *z, Z3_solver s, unsigned ms)
{
    Z3_params p = Z3_mk_params(z->c);
    Z3_params_inc_ref(z->c, p);
    Z3_params_set_uint(z->c, p, Z3_mk_string_symbol(z->c, "timeout"), ms);
    Z3_solver_set_params(z->c, s, p);
    Z3_params_dec_ref(z->c, p);
}

/* A check in this process: Z3's timeout, and the watchdog as a backstop. */
static Z3_lbool check_here(msolve *ms, Z3_solver s, unsigned ms_left)
{
    sx_z *z = &ms->e->z;
    if (ms_left != UINT_MAX || ms->e->model_query_ms || ms->e->model_deadline > 0)
        limit_model_check(z, s, ms_left);
    /* Z3's timeout does not always hold (watchdog.c): a hard bound too */
    bool watched = ms_left != UINT_MAX;
    if (watched)
        sx_watchdog_arm(ms->e->dog, ms_left + (ms_left / 4 > 500 ? ms_left / 4 : 500));
    Z3_lbool r = Z3_solver_check(z->c, s);
    ms->e->distrust |= r == Z3_L_UNDEF;   /* the context's next call may be cancelled: solver.c, "trust" */
    sx_cut cut = watched ? sx_watchdog_disarm(ms->e->dog) : SX_CUT_NONE;
    if (cut != SX_CUT_NONE) {
        ms->e->interrupted++;
        ms->e->memouts += cut == SX_CUT_MEMORY;
        if (ms->e->res) {   /* after the search: paths.json is written later */
            ms->e->res->interrupted = ms->e->interrupted;
            ms->e->res->memouts = ms->e->memouts;
        }
        r = Z3_L_UNDEF;
    }
    return r;
}

/* A check on floats runs in a child process (isolate.c) when it starts
 * within SX_ISOLATE_LEFT_MS of the stage's deadline: Z3 overran both its
 * timeout and the watchdog's interrupt by seconds there (md_cutoff: 4.4 s
 * on 1.4 s left).  Not earlier: a fork costs 7-40 ms where such checks
 * take 1-70 ms (bvh_traverse made 14 atoms in its last 2.5 s instead of
 * 19).  A trade, not a bound: an earlier check that overran its timeout
 * by as much as that one (3 s) could still end past the deadline; none
 * did in bench/symexec_budget_session22.md. */
static bool isolate(const msolve *ms, unsigned ms_left)
{
    const sx_engine *e = ms->e;
    if (!ms->fp || ms_left == UINT_MAX || e->model_deadline <= 0)
        return false;
    return (e->model_deadline - wh_clock_s()) * 1000.0 < SX_ISOLATE_LEFT_MS;
}

/* Check; with m, the model (referenced) when satisfiable.  Z3_L_UNDEF
 * when the solver gave up or the limits of sx_model_limits allow none.
 * A check on floats near the deadline runs in a child process (isolate()
 * above, isolate.c). */
static Z3_lbool ms_check(msolve *ms, Z3_model *m)
{
    sx_z *z = &ms->e->z;
    unsigned ms_left = check_ms(ms->e);
    if (ms_left == 0)
        return Z3_L_UNDEF;
    Z3_solver s = ms->e->msolver;
    if (!ms->fp && (!ms_sync_bounded(ms, ms_left) || (ms_left = check_ms(ms->e)) == 0))
        return Z3_L_UNDEF;   /* the sync was cut, or took the time left */
    if (ms->fp) {
        s = Z3_mk_solver_for_logic(z->c, Z3_mk_string_symbol(z->c, "QF_BVFP"));
        Z3_solver_inc_ref(z->c, s);
        Z3_solver_assert(z->c, s, ms->e->domains);
        for (int i = 0; i < ms->n; i++)
            Z3_solver_assert(z->c, s, ms->a[i]);
    }
    if (ms->e->res)
        ms->e->res->model_checks++;
    Z3_lbool r = Z3_L_UNDEF;
    Z3_model got = NULL;
    int isolated = 0;
    if (isolate(ms, ms_left))
        isolated = sx_isolated_check(ms->e, s, wh_clock_s() + ms_left / 1000.0, m ? &got : NULL, &r);
    if (isolated < 0) {
        ms->e->interrupted++;
        if (ms->e->res)
            ms->e->res->interrupted = ms->e->interrupted;
    } else if (isolated == 0) {
        r = check_here(ms, s, ms_left);
        if (r == Z3_L_TRUE && m) {
            got = Z3_solver_get_model(z->c, s);
            Z3_model_inc_ref(z->c, got);
        }
    }
    if (m)
        *m = r == Z3_L_TRUE ? got : NULL;
    else if (got)
        Z3_model_dec_ref(z->c, got);
    if (ms->fp)
        Z3_solver_dec_ref(z->c, s);
    return r;
}

static void ms_done(msolve *ms)
{
    if (ms->synced > 0)
        Z3_solver_pop(ms->e->z.c, ms->e->msolver, (unsigned)ms->synced);
    free(ms->a);
}

static uint64_t pick_int(pcg32 *rng, const wh_bounds *b)
{
    switch (pcg32_bounded(rng, 4)) {
    case 0: return (uint64_t)b->lo;
    case 1: return (uint64_t)b->hi;
    default: return (uint64_t)wh_bounds_draw(b, rng);
    }
}

static uint64_t pick_float(pcg32 *rng, const wh_bounds *b, wh_type t)
{
    double v;
    switch (pcg32_bounded(rng, 4)) {
    case 0: v = b->flo; break;
    case 1: v = b->fhi; break;
    default: v = wh_bounds_lerp(b, pcg32_double(rng)); break;
    }
    if (t == WH_F64) {
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        return bits;
    }
    float f = (float)v;
    if ((double)f < b->flo || (double)f > b->fhi)
        f = (float)b->flo;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

static void shuffle(pcg32 *rng, int *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)pcg32_bounded(rng, (uint32_t)(i + 1));
        int t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* ---- concrete screening ---------------------------------------------------- */

/* A formula's compiled program (ceval.c), made on its first question. */
typedef struct {
    sx_cprog *prog;
    bool tried;
} compiled;

typedef struct {
    int n;                /* the formula's symbols */
    int *pos;             /* pos[symbol index] = its place in from/to, or -1 */
    Z3_ast *from, *to;    /* symbol -> the numeral of its current value */
    uint64_t *val;        /* ... and that value */
    bool ok;              /* the values are a model of formula, domains and pins */
    Z3_ast *pending;      /* pins kept on the screen's witness, not yet asserted */
    int npending;
    /* The formula's top-level conjuncts and, per symbol (its place k), the
     * ones that mention it: con[con_of[at[k] .. at[k+1]-1]].  Moving one
     * symbol can only falsify those, so only they are screened. */
    Z3_ast *con;
    int ncon;
    int *at, *con_of;
    compiled *con_prog;   /* per conjunct */
    compiled *dom_prog;   /* per place: the symbol's domain */
} screen;

static bool screen_open(screen *sc, const sx_engine *e, const uint8_t *used)
{
    memset(sc, 0, sizeof *sc);
    sc->pos = malloc((size_t)(e->nsyms + 1) * sizeof *sc->pos);
    sc->from = malloc((size_t)(e->nsyms + 1) * sizeof *sc->from);
    sc->to = malloc((size_t)(e->nsyms + 1) * sizeof *sc->to);
    sc->pending = malloc((size_t)(e->nsyms + 1) * sizeof *sc->pending);
    sc->val = calloc((size_t)(e->nsyms + 1), sizeof *sc->val);
    sc->dom_prog = calloc((size_t)(e->nsyms + 1), sizeof *sc->dom_prog);
    if (!sc->pos || !sc->from || !sc->to || !sc->pending || !sc->val || !sc->dom_prog)
        return false;
    for (int i = 0; i < e->nsyms; i++) {
        sc->pos[i] = -1;
        if (used[i] && e->syms[i].ast) {
            sc->pos[i] = sc->n;
            sc->from[sc->n++] = e->syms[i].ast;
        }
    }
    return true;
}

static void free_compiled(compiled *c, int n)
{
    for (int i = 0; c && i < n; i++)
        sx_cprog_free(c[i].prog);
    free(c);
}

static void screen_close(screen *sc)
{
    free_compiled(sc->con_prog, sc->ncon);
    free_compiled(sc->dom_prog, sc->n);
    free(sc->val);
    free(sc->con);
    free(sc->at);
    free(sc->con_of);
    free(sc->pos);
    free(sc->from);
    free(sc->to);
    free(sc->pending);
}


/* Take the values of model m as the screen's witness. */
static void screen_load(screen *sc, sx_engine *e, Z3_model m)
{
    sc->ok = m != NULL;
    for (int k = 0; sc->ok && k < sc->n; k++) {
        sc->to[k] = sx_model_value(e, m, sc->from[k]);
        sc->ok = sc->to[k] && sx_z_get_u64(&e->z, sc->to[k], &sc->val[k]);
    }
}

/* The screen's values as a model.  A fresh one per question: a model
 * whose constants are given new values keeps answering from its
 * evaluator's cache (tried: 60 % of the atoms then left their path). */
static Z3_model witness_model(Z3_context c, const screen *sc)
{
    Z3_model wm = Z3_mk_model(c);
    Z3_model_inc_ref(c, wm);
    for (int i = 0; i < sc->n; i++)
        Z3_add_const_interp(c, wm, Z3_get_app_decl(c, Z3_to_app(c, sc->from[i])), sc->to[i]);
    return wm;
}

/* Is the Bool `f` true in wm?  Evaluated without model completion, so a
 * formula the values do not make ground (one with uninterpreted
 * functions) never screens true.  (Substituting the values and
 * simplifying answered the same at a higher cost: a simplifier is built
 * per call, and a pin may screen thousands of times.) */
static bool true_at(Z3_context c, Z3_model wm, Z3_ast f)
{
    Z3_ast v = NULL;
    if (!Z3_model_eval(c, wm, f, false, &v) || !v)
        return false;
    Z3_inc_ref(c, v);
    bool holds = Z3_get_bool_value(c, v) == Z3_L_TRUE;
    Z3_dec_ref(c, v);
    return holds;
}

/* Is f true at the screen's values?  Its compiled program answers when f
 * compiles; else Z3, in a model of the values (*wm: made on the first
 * such question about these values, released by the caller). */
static bool screen_true(screen *sc, sx_engine *e, Z3_ast f, compiled *cp, Z3_model *wm)
{
    if (!cp->tried) {
        cp->tried = true;
        cp->prog = sx_cprog_compile(e, f, sc->pos);
    }
    if (cp->prog)
        return sx_cprog_eval(cp->prog, sc->val);
    if (!*wm)
        *wm = witness_model(e->z.c, sc);
    return true_at(e->z.c, *wm, f);
}

/* Does the path formula hold with symbol s at v (num: its numeral) and
 * every other symbol at its witness value?  (A formula the substitution
 * does not make ground, such as one with uninterpreted functions, never
 * screens true.)  When it does, v becomes s's witness value. */
static bool screen_holds(screen *sc, sx_engine *e, int path, const sx_symbol *s, uint64_t v, Z3_ast num)
{
    int k = sc->pos[s - e->syms];
    Z3_ast old = sc->to[k];
    uint64_t oldv = sc->val[k];
    sc->to[k] = num;
    sc->val[k] = s->bytes >= 8 ? v : v & ((1ULL << (8 * s->bytes)) - 1);
    Z3_model wm = NULL;
    bool holds = !s->domain || screen_true(sc, e, s->domain, &sc->dom_prog[k], &wm);
    if (sc->at) {
        for (int j = sc->at[k]; holds && j < sc->at[k + 1]; j++)
            holds = screen_true(sc, e, sc->con[sc->con_of[j]], &sc->con_prog[sc->con_of[j]], &wm);
    } else {
        wm = witness_model(e->z.c, sc);
        holds = holds && true_at(e->z.c, wm, e->forms[path]);
    }
    if (wm)
        Z3_model_dec_ref(e->z.c, wm);
    if (!holds) {
        sc->to[k] = old;
        sc->val[k] = oldv;
    }
    return holds;
}

static int64_t sign_extend(uint64_t v, int bits)
{
    return bits >= 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* Does s's witness value already satisfy side `kind` (1: s >= v, 2: s <= v)? */
static bool screen_side_holds(screen *sc, sx_engine *e, const sx_symbol *s, uint64_t v, bool sgn, int kind)
{
    uint64_t w = sc->val[sc->pos[s - e->syms]];
    int bits = s->bytes * 8;
    int cmp = sgn ? (sign_extend(w, bits) > sign_extend(v, bits)) - (sign_extend(w, bits) < sign_extend(v, bits))
                  : (w > v) - (w < v);
    return kind == 1 ? cmp >= 0 : cmp <= 0;
}

/* Assert the pins kept on the witness, before a check that must see them. */
static bool screen_flush(screen *sc, msolve *ms)
{
    for (int i = 0; i < sc->npending; i++)
        if (!ms_assert(ms, sc->pending[i]))
            return false;
    sc->npending = 0;
    return true;
}

/* Can a pin of s to v (num: its numeral) be kept on the witness?  kind 0
 * pins s == v; kind 1 and 2 pin a side (s >= v, s <= v), which the
 * witness may satisfy as it is. */
static bool screen_try(screen *sc, sx_engine *e, int path, const sx_symbol *s, uint64_t v, Z3_ast num, int kind,
                       bool sgn)
{
    if (!sc->ok || sc->pos[s - e->syms] < 0)
        return false;
    if (kind != 0 && screen_side_holds(sc, e, s, v, sgn, kind))
        return true;
    return screen_holds(sc, e, path, s, v, num);
}

/* Pin symbol s to a random point of its domain, or to one side of it:
 * on the screen's witness when it confirms the pin, else by a check. */
static void pin_one(msolve *ms, screen *sc, int path, const sx_symbol *s, pcg32 *rng, int *checks, int max,
                    wh_error *err)
{
    sx_engine *e = ms->e;
    sx_z *z = &e->z;
    wh_bounds b;
    if (!wh_image_bounds(e->img, s->param, s->field, s->elem, &b, err))
        return;
    uint64_t v = b.is_float ? pick_float(rng, &b, s->type) : pick_int(rng, &b);
    Z3_ast num = sx_z_num(z, v, s->bytes * 8);
    Z3_ast tries[3] = { sx_z_eq(z, s->ast, num), NULL, NULL };
    int kinds[3] = { 0, 0, 0 };
    bool sgn = wh_type_is_signed(s->type);
    if (!b.is_float) {
        bool up = pcg32_bounded(rng, 2);
        Z3_ast ge = sx_zk(z, sgn ? Z3_mk_bvsge(z->c, s->ast, num) : Z3_mk_bvuge(z->c, s->ast, num));
        Z3_ast le = sx_zk(z, sgn ? Z3_mk_bvsle(z->c, s->ast, num) : Z3_mk_bvule(z->c, s->ast, num));
        tries[1] = up ? ge : le;
        tries[2] = up ? le : ge;
        kinds[1] = up ? 1 : 2;
        kinds[2] = up ? 2 : 1;
    }
    for (int k = 0; k < 3 && tries[k]; k++)
        if (screen_try(sc, e, path, s, v, num, kinds[k], sgn)) {
            sc->pending[sc->npending++] = tries[k];
            if (e->res)
                e->res->pins_screened++;
            return;
        }
    for (int k = 0; k < 3 && tries[k]; k++) {
        if (*checks >= max)
            return;
        if (!screen_flush(sc, ms) || !ms_assert(ms, tries[k]))
            return;
        (*checks)++;
        Z3_model m = NULL;
        if (ms_check(ms, &m) == Z3_L_TRUE) {
            screen_load(sc, e, m);
            Z3_model_dec_ref(z->c, m);
            return;
        }
        ms_retract(ms);
    }
}

/* ---- the symbols a formula mentions ---------------------------------------- */

typedef struct {
    unsigned *slot;          /* ast id + 1, 0 = empty */
    unsigned cap, n;         /* cap: a power of two */
} idset;

static bool idset_grow(idset *h)
{
    unsigned cap = h->cap ? h->cap * 2 : 1024;
    unsigned *v = calloc(cap, sizeof *v);
    if (!v)
        return false;
    for (unsigned i = 0; i < h->cap; i++) {
        if (!h->slot[i])
            continue;
        unsigned k = (h->slot[i] * 2654435761u) & (cap - 1);
        while (v[k])
            k = (k + 1) & (cap - 1);
        v[k] = h->slot[i];
    }
    free(h->slot);
    h->slot = v;
    h->cap = cap;
    return true;
}

/* 1 added, 0 already there, -1 out of memory. */
static int idset_add(idset *h, unsigned id)
{
    if ((h->n + 1) * 2 > h->cap && !idset_grow(h))
        return -1;
    unsigned key = id + 1, k = (key * 2654435761u) & (h->cap - 1);
    while (h->slot[k]) {
        if (h->slot[k] == key)
            return 0;
        k = (k + 1) & (h->cap - 1);
    }
    h->slot[k] = key;
    h->n++;
    return 1;
}

/* mark[i] = 1 when symbol i occurs in f (walks the DAG once); with list,
 * each symbol marked here that was not before is appended to it. */
static bool symbols_of(sx_engine *e, Z3_ast f, uint8_t *mark, int *list, int *nlist)
{
    Z3_context c = e->z.c;
    int n = 0, capst = 256;
    Z3_ast *st = malloc((size_t)capst * sizeof *st);
    idset seen = { NULL, 0, 0 };
    bool ok = st != NULL;
    if (ok)
        st[n++] = f;
    while (ok && n > 0) {
        Z3_ast a = st[--n];
        if (Z3_get_ast_kind(c, a) != Z3_APP_AST)
            continue;
        int added = idset_add(&seen, Z3_get_ast_id(c, a));
        ok = added >= 0;
        if (added <= 0)
            continue;
        Z3_app app = Z3_to_app(c, a);
        unsigned na = Z3_get_app_num_args(c, app);
        if (na == 0) {
            int si = sx_layout_symbol_of(e, a);
            if (si >= 0 && !mark[si]) {
                mark[si] = 1;
                if (list)
                    list[(*nlist)++] = si;
            }
            continue;
        }
        for (unsigned i = 0; i < na && ok; i++) {
            if (n == capst) {
                Z3_ast *v = realloc(st, (size_t)capst * 2 * sizeof *v);
                ok = v != NULL;
                if (ok) {
                    st = v;
                    capst *= 2;
                }
            }
            if (ok)
                st[n++] = Z3_get_app_arg(c, app, i);
        }
    }
    free(seen.slot);
    free(st);
    return ok;
}

static bool formula_symbols(sx_engine *e, Z3_ast f, uint8_t *mark)
{
    return symbols_of(e, f, mark, NULL, NULL);
}

/* The formula's top-level conjuncts (f itself when it is no conjunction). */
static int conjuncts(Z3_context c, Z3_ast f, Z3_ast **out)
{
    bool and = Z3_get_ast_kind(c, f) == Z3_APP_AST &&
               Z3_get_decl_kind(c, Z3_get_app_decl(c, Z3_to_app(c, f))) == Z3_OP_AND;
    int n = and ? (int)Z3_get_app_num_args(c, Z3_to_app(c, f)) : 1;
    *out = malloc((size_t)(n + 1) * sizeof **out);
    if (!*out)
        return -1;
    for (int i = 0; i < n; i++)
        (*out)[i] = and ? Z3_get_app_arg(c, Z3_to_app(c, f), (unsigned)i) : f;
    return n;
}

/* Index which conjuncts of f mention each of the screen's symbols (see
 * screen).  Without the index (out of memory) the whole formula is
 * screened. */
static void screen_index(screen *sc, sx_engine *e, Z3_ast f)
{
    int ncon = conjuncts(e->z.c, f, &sc->con);
    uint8_t *mark = calloc((size_t)(e->nsyms + 1), 1);
    int *list = malloc((size_t)(e->nsyms + 1) * sizeof *list);
    int *start = calloc((size_t)(ncon > 0 ? ncon : 0) + 1, sizeof *start);
    int *syms = NULL, nsyms = 0;
    bool ok = ncon >= 0 && mark && list && start;
    /* each conjunct's symbols, one after the other: syms[start[i] ..] */
    for (int i = 0; ok && i < ncon; i++) {
        int nl = 0;
        ok = symbols_of(e, sc->con[i], mark, list, &nl);
        int *v = ok ? realloc(syms, (size_t)(nsyms + nl + 1) * sizeof *v) : NULL;
        ok = v != NULL;
        if (ok) {
            syms = v;
            for (int j = 0; j < nl; j++) {
                mark[list[j]] = 0;
                syms[nsyms++] = list[j];
            }
        }
        start[i + 1] = nsyms;
    }
    /* turned around: per symbol place, its conjuncts */
    sc->at = ok ? calloc((size_t)sc->n + 2, sizeof *sc->at) : NULL;
    sc->con_of = ok ? malloc((size_t)(nsyms + 1) * sizeof *sc->con_of) : NULL;
    ok = ok && sc->at && sc->con_of;
    for (int j = 0; ok && j < nsyms; j++)
        if (sc->pos[syms[j]] >= 0)
            sc->at[sc->pos[syms[j]] + 2]++;
    for (int k = 0; ok && k < sc->n; k++)
        sc->at[k + 2] += sc->at[k + 1];
    for (int i = 0; ok && i < ncon; i++)
        for (int j = start[i]; j < start[i + 1]; j++)
            if (sc->pos[syms[j]] >= 0)
                sc->con_of[sc->at[sc->pos[syms[j]] + 1]++] = i;
    sc->ncon = ok ? ncon : 0;
    sc->con_prog = ok ? calloc((size_t)ncon + 1, sizeof *sc->con_prog) : NULL;
    ok = ok && sc->con_prog;
    if (!ok) {
        sc->ncon = 0;
        free(sc->at);
        free(sc->con_of);
        sc->at = sc->con_of = NULL;
    }
    free(mark);
    free(list);
    free(start);
    free(syms);
}

/* Pin the formula's symbols in a random order (sc: the screen, opened
 * here, closed by the caller); false when out of memory. */
static bool pin_symbols(msolve *ms, screen *sc, uint64_t seed, int path, uint64_t *forced, uint8_t *is_forced,
                        wh_error *err)
{
    sx_engine *e = ms->e;
    pcg32 rng;
    pcg32_seed(&rng, seed, (uint64_t)path * 2 + 1);
    int *order = malloc((size_t)(e->nsyms + 1) * sizeof *order);
    uint8_t *used = calloc((size_t)(e->nsyms + 1), 1);
    bool ok = order && used && formula_symbols(e, e->forms[path], used) && screen_open(sc, e, used);
    int checks = 0, max = ms->fp ? PIN_CHECKS_FP : PIN_CHECKS;
    if (ok) {
        screen_index(sc, e, e->forms[path]);
        /* the first witness: the path's seed-0 model, else a model of the
         * formula alone */
        Z3_model m = e->first_model ? e->first_model[path] : NULL;
        if (m) {
            screen_load(sc, e, m);
        } else {
            checks++;
            if (ms_check(ms, &m) == Z3_L_TRUE) {
                screen_load(sc, e, m);
                Z3_model_dec_ref(e->z.c, m);
            }
        }
        shuffle(&rng, order, e->nsyms);
    }
    for (int k = 0; ok && k < e->nsyms; k++) {
        const sx_symbol *s = &e->syms[order[k]];
        if (!s->ast)
            continue;
        if (!used[order[k]]) {
            /* not in the formula: any value of its domain will do */
            wh_bounds b;
            if (wh_image_bounds(e->img, s->param, s->field, s->elem, &b, err)) {
                forced[order[k]] = b.is_float ? pick_float(&rng, &b, s->type) : pick_int(&rng, &b);
                is_forced[order[k]] = 1;
            }
        } else {
            pin_one(ms, sc, path, s, &rng, &checks, max, err);
        }
    }
    free(order);
    free(used);
    return ok;
}

void sx_symbol_write(const sx_symbol *s, const wh_param *p, wh_image *img, uint64_t v)
{
    wh_buffer *b = &img->bufs[s->param];
    uint64_t off = s->elem * p->elem_size + p->fields[s->field].offset;
    if (off + (uint64_t)s->bytes > b->bytes)
        return;
    for (int k = 0; k < s->bytes; k++)
        b->data[off + (uint64_t)k] = (uint8_t)(v >> (8 * k));
}

static bool check_image(const sx_engine *e, const wh_image *img, wh_error *err)
{
    if (img->spec != e->spec || img->nbufs != e->spec->nparams
        || wh_launch_threads_total(&img->launch) != (uint64_t)e->X) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0,
                     "the image for an atom must be of spec '%s' with %d threads", e->spec->name, e->X);
        return false;
    }
    for (int p = 0; p < e->spec->nparams; p++)
        if (img->bufs[p].bytes != e->img->bufs[p].bytes) {
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "the image's buffer '%s' has the wrong size",
                         e->spec->params[p].name);
            return false;
        }
    return true;
}

/* Write the model m, or the screen's witness when sc holds one, into out. */
static bool write_model(sx_engine *e, Z3_model m, const screen *sc, wh_image *out, int path,
                        const uint64_t *forced, const uint8_t *is_forced, wh_error *err)
{
    for (int i = 0; i < e->nsyms; i++) {
        const sx_symbol *s = &e->syms[i];
        uint64_t v = s->value;
        if (is_forced && is_forced[i]) {
            v = forced[i];
        } else if (s->ast) {
            bool witnessed = sc && sc->ok && sc->pos[i] >= 0;
            Z3_ast mv = witnessed ? sc->to[sc->pos[i]] : sx_model_value(e, m, s->ast);
            if (!mv || !sx_z_get_u64(&e->z, mv, &v)) {
                wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "Z3 gave no value to '%s' on path %d",
                             s->name, path);
                return false;
            }
        }
        sx_symbol_write(s, &e->spec->params[s->param], out, v);
    }
    return true;
}

/* Keep the seed-0 model of a path: the first witness of its other seeds
 * (one solver check fewer per atom).  A path recorded by this engine
 * already has its final state's model (metrics.c); one read back from the
 * cache has none. */
static void keep_first_model(sx_engine *e, int path, uint64_t seed, Z3_model m)
{
    if (seed != 0 || !e->res)
        return;
    if (!e->first_model)
        e->first_model = calloc((size_t)e->res->npaths + 1, sizeof *e->first_model);
    if (!e->first_model || e->first_model[path])
        return;
    Z3_model_inc_ref(e->z.c, m);
    e->first_model[path] = m;
}

bool sx_path_model(const sx_result *r, int path, uint64_t seed, wh_image *out, wh_error *err)
{
    if (!r || !r->priv || path < 0 || path >= r->npaths) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "no path %d", path);
        return false;
    }
    sx_engine *e = r->priv;
    sx_z *z = &e->z;
    if (!check_image(e, out, err))
        return false;
    if (!e->msolver) {
        e->msolver = Z3_mk_simple_solver(z->c);
        Z3_solver_inc_ref(z->c, e->msolver);
        Z3_solver_assert(z->c, e->msolver, e->domains);
    }
    msolve ms = { .e = e, .fp = e->form_fp[path] };
    uint64_t *forced = calloc((size_t)(e->nsyms + 1), sizeof *forced);
    uint8_t *is_forced = calloc((size_t)(e->nsyms + 1), 1);
    /* seed 0: the path's final state's model when there is one */
    Z3_model known = seed == 0 && e->first_model ? e->first_model[path] : NULL;
    bool ok = forced && is_forced && (known || ms_assert(&ms, e->forms[path]));
    screen sc;
    memset(&sc, 0, sizeof sc);
    if (ok && seed != 0)
        ok = pin_symbols(&ms, &sc, seed, path, forced, is_forced, err);
    Z3_model m = NULL;
    if (ok && known) {
        ok = write_model(e, known, NULL, out, path, forced, is_forced, err);
    } else if (ok && sc.ok) {
        /* every pin was kept on a witness of the formula: it is the atom */
        ok = write_model(e, NULL, &sc, out, path, forced, is_forced, err);
    } else if (ok && screen_flush(&sc, &ms) && ms_check(&ms, &m) == Z3_L_TRUE) {
        ok = write_model(e, m, NULL, out, path, forced, is_forced, err);
        keep_first_model(e, path, seed, m);
        Z3_model_dec_ref(z->c, m);
    } else {
        ok = false;
        if (check_ms(e) == 0)
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "no model of path %d: the time budget is spent", path);
        else
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "the formula of path %d has no model (or the solver "
                         "gave up within %u ms)", path, e->model_query_ms);
    }
    ms_done(&ms);
    screen_close(&sc);
    free(forced);
    free(is_forced);
    sx_z_release(z);
    return ok;
}

bool sx_issue_image(const sx_result *r, int issue, wh_image *out, wh_error *err)
{
    if (!r || !r->priv || issue < 0 || issue >= r->nissues || !r->issues[issue].values) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "issue %d has no triggering input", issue);
        return false;
    }
    sx_engine *e = r->priv;
    if (!check_image(e, out, err))
        return false;
    for (int i = 0; i < e->nsyms; i++)
        sx_symbol_write(&e->syms[i], &e->spec->params[e->syms[i].param], out, r->issues[issue].values[i]);
    return true;
}

void sx_model_limits(sx_result *r, unsigned query_ms, double deadline)
{
    if (!r || !r->priv)
        return;
    sx_engine *e = r->priv;
    e->model_query_ms = query_ms;
    e->model_deadline = deadline;
}

/* ---- siblings: models that vary one thread's inputs only ------------------- */

uint64_t sx_symbol_read(const sx_symbol *s, const wh_param *p, const wh_image *img)
{
    const wh_buffer *b = &img->bufs[s->param];
    uint64_t off = s->elem * p->elem_size + p->fields[s->field].offset, v = 0;
    if (off + (uint64_t)s->bytes > b->bytes)
        return 0;
    for (int k = 0; k < s->bytes; k++)
        v |= (uint64_t)b->data[off + (uint64_t)k] << (8 * k);
    return v;
}

int sx_symbol_owner(const sx_engine *e, const sx_symbol *s, const wh_image *input)
{
    const wh_param *p = &e->spec->params[s->param];
    uint64_t j, t = p->per_thread > 0 ? wh_image_elem_owner(input, s->param, s->elem, &j) : UINT64_MAX;
    return t < wh_launch_threads_total(&e->img->launch) ? (int)t : -1;
}

typedef struct {
    msolve ms;
    uint64_t *forced;
    uint8_t *is_forced;
    int key;                 /* the thread's first symbol in the formula: the order */
} sibling_solver;

/* Pins every symbol but `thread`'s to base's value (in the formula: an
 * assertion; elsewhere: written as is). */
static bool pin_all_but(sibling_solver *ss, int path, const wh_image *base, int thread)
{
    sx_engine *e = ss->ms.e;
    uint8_t *used = calloc((size_t)(e->nsyms + 1), 1);
    bool ok = used && formula_symbols(e, e->forms[path], used) && ms_assert(&ss->ms, e->forms[path]);
    for (int i = 0; ok && i < e->nsyms; i++) {
        const sx_symbol *s = &e->syms[i];
        if (!s->ast)
            continue;
        uint64_t v = sx_symbol_read(s, &e->spec->params[s->param], base);
        bool own = sx_symbol_owner(e, s, base) == thread;
        if (used[i] && own && ss->key < 0)
            ss->key = i;
        else if (!used[i]) {
            ss->forced[i] = v;
            ss->is_forced[i] = 1;
        } else if (!own)
            ok = ms_assert(&ss->ms, sx_z_eq(&e->z, s->ast, sx_z_num(&e->z, v, s->bytes * 8)));
    }
    free(used);
    return ok;
}

/* Models whose key symbol keeps moving away from base's value in one
 * direction; each is written to `scratch` and handed to `take`. */
static int enumerate_siblings(sibling_solver *ss, int path, const wh_image *base, bool up, int n,
                              sx_sibling_fn take, void *ctx, wh_image *scratch, wh_error *err)
{
    sx_engine *e = ss->ms.e;
    sx_z *z = &e->z;
    const sx_symbol *s = &e->syms[ss->key];
    uint64_t last = sx_symbol_read(s, &e->spec->params[s->param], base);
    int made = 0, depth = 0;
    while (made < n) {
        Z3_ast num = sx_z_num(z, last, s->bytes * 8);
        if (!ms_assert(&ss->ms, sx_zk(z, up ? Z3_mk_bvugt(z->c, s->ast, num) : Z3_mk_bvult(z->c, s->ast, num))))
            break;
        depth++;
        Z3_model m = NULL;
        if (ms_check(&ss->ms, &m) != Z3_L_TRUE)
            break;
        Z3_ast mv = sx_model_value(e, m, s->ast);
        bool ok = mv && sx_z_get_u64(z, mv, &last) && write_model(e, m, NULL, scratch, path, ss->forced, ss->is_forced, err);
        Z3_model_dec_ref(z->c, m);
        if (!ok || !take(ctx, scratch, err)) {
            made = -1;
            break;
        }
        made++;
    }
    while (depth-- > 0)
        ms_retract(&ss->ms);
    return made;
}

int sx_path_siblings(const sx_result *r, int path, const wh_image *base, int thread, int n, sx_sibling_fn take,
                     void *ctx, wh_image *scratch, wh_error *err)
{
    if (!r || !r->priv || path < 0 || path >= r->npaths || thread < 0 || thread >= r->threads) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "no path %d or thread %d", path, thread);
        return -1;
    }
    sx_engine *e = r->priv;
    if (!check_image(e, base, err) || !check_image(e, scratch, err))
        return -1;
    if (!e->msolver) {
        e->msolver = Z3_mk_simple_solver(e->z.c);
        Z3_solver_inc_ref(e->z.c, e->msolver);
        Z3_solver_assert(e->z.c, e->msolver, e->domains);
    }
    sibling_solver ss = { .ms = { .e = e, .fp = e->form_fp[path] }, .key = -1 };
    ss.forced = calloc((size_t)(e->nsyms + 1), sizeof *ss.forced);
    ss.is_forced = calloc((size_t)(e->nsyms + 1), 1);
    int made = 0;
    if (!ss.forced || !ss.is_forced || !pin_all_but(&ss, path, base, thread)) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        made = -1;
    } else if (ss.key >= 0) {
        made = enumerate_siblings(&ss, path, base, true, n, take, ctx, scratch, err);
        int down = made >= 0 && made < n ? enumerate_siblings(&ss, path, base, false, n - made, take, ctx, scratch, err) : 0;
        made = made < 0 || down < 0 ? -1 : made + down;
    }
    ms_done(&ss.ms);
    free(ss.forced);
    free(ss.is_forced);
    sx_z_release(&e->z);
    return made;
}

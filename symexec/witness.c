/*
 * witness.c — a branch side shown feasible by a concrete input rather than
 * by the solver.
 *
 * A check the solver gives up on (a float-heavy condition: md_cutoff's
 * cutoff test, escape_time's escape test) leaves the other side of the
 * branch unexplored, and the state, concolic from then on, leaves every
 * later branch's other side unexplored too: one path per exploration.
 * Yet such sides are often easy to hit by hand: move one particle, pick
 * another point.  So before following its model, the state tries a few
 * inputs of its own: its model with the symbols of the condition redrawn
 * at random within their domains (PCG32, the engine's seeded stream).
 * An input under which the domains, the structure, every path constraint
 * and the other side all evaluate to true is a witness: that side is
 * feasible, and a copy of the state takes it with the witness as its
 * model (so its atoms replay).  Evaluating is cheap (no solving), so a
 * failed search costs little; a found witness is proof, so this stays
 * sound.  It cannot show a side infeasible: that is what gives up.
 */
#include "symexec/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tries per branch side, nodes of a condition walked for its symbols, and
 * the searches a state (with the states copied from it) may lose: each
 * try evaluates the whole path, so a concolic state in a long loop whose
 * exit side is truly infeasible must stop trying. */
#define WITNESS_TRIES 48
#define WITNESS_WALK_MAX 4096
#define WITNESS_MISSES_MAX 8

/* The input symbols a condition mentions (at most `max`, each once). */
static int condition_symbols(const sx_engine *e, Z3_ast cond, int *out, int max)
{
    Z3_context c = e->z.c;
    Z3_ast stack[256];
    int sp = 0, n = 0, walked = 0;
    stack[sp++] = cond;
    while (sp > 0 && walked++ < WITNESS_WALK_MAX) {
        Z3_ast a = stack[--sp];
        if (Z3_get_ast_kind(c, a) != Z3_APP_AST)
            continue;
        Z3_app app = Z3_to_app(c, a);
        unsigned nargs = Z3_get_app_num_args(c, app);
        if (nargs == 0) {
            int k = sx_layout_symbol_of(e, a);
            bool seen = false;
            for (int i = 0; i < n && !seen; i++)
                seen = out[i] == k;
            if (k >= 0 && !seen && n < max)
                out[n++] = k;
            continue;
        }
        for (unsigned i = 0; i < nargs && sp < (int)(sizeof stack / sizeof *stack); i++)
            stack[sp++] = Z3_get_app_arg(c, app, i);
    }
    return n;
}

/* A random value of symbol k within its domain, as its bits. */
static bool random_value(sx_engine *e, const sx_symbol *s, uint64_t *bits)
{
    wh_bounds b;
    if (!wh_image_bounds(e->img, s->param, s->field, s->elem, &b, NULL))
        return false;
    if (b.is_float) {
        double u = (double)pcg32_next(&e->rng) / 4294967296.0;
        double v = wh_bounds_lerp(&b, u);
        if (!isfinite(v))
            return false;
        if (s->bytes == 4) {
            float f = (float)v;
            uint32_t w;
            memcpy(&w, &f, 4);
            *bits = w;
        } else {
            memcpy(bits, &v, 8);
        }
        return true;
    }
    uint64_t steps = wh_bounds_steps(&b);
    uint64_t r = ((uint64_t)pcg32_next(&e->rng) << 32) | pcg32_next(&e->rng);
    *bits = (uint64_t)b.lo + (steps == UINT64_MAX ? r : r % (steps + 1)) * (uint64_t)b.step;
    return true;
}

/* A copy of the state's model (its function interpretations too: float
 * operations' unspecified cases live there) with the chosen symbols
 * redrawn, each with probability 1/2, at least one; NULL on failure.
 * Referenced. */
static Z3_model sample(sx_engine *e, const sx_state *s, const int *cs, int ncs)
{
    sx_z *z = &e->z;
    Z3_model m = Z3_model_translate(z->c, s->model, z->c);
    if (!m)
        return NULL;
    Z3_model_inc_ref(z->c, m);
    uint32_t pick = 0;
    while (!pick)
        pick = ncs >= 32 ? pcg32_next(&e->rng) : pcg32_next(&e->rng) & ((1u << ncs) - 1);
    for (int j = 0; j < ncs; j++) {
        const sx_symbol *sym = &e->syms[cs[j]];
        uint64_t bits;
        if (!sym->ast || !(pick >> (j % 32) & 1) || !random_value(e, sym, &bits))
            continue;
        Z3_func_decl d = Z3_get_app_decl(z->c, Z3_to_app(z->c, sym->ast));
        Z3_add_const_interp(z->c, m, d, sx_z_num(z, bits, sym->bytes * 8));
    }
    return m;
}

static bool holds(sx_engine *e, Z3_model m, Z3_ast a)
{
    Z3_ast v = NULL;
    return !a || (Z3_model_eval(e->z.c, m, a, true, &v) && v && sx_z_bool_value(&e->z, v) == 1);
}

/* Does m satisfy the domains, the structure, the path and `side`? */
static bool satisfies(sx_engine *e, const sx_state *s, Z3_model m, Z3_ast side)
{
    if (!holds(e, m, side) || !holds(e, m, e->domains) || !holds(e, m, e->structure))
        return false;
    for (const sx_node *n = s->pc; n; n = n->up)
        if (!holds(e, m, n->ast))
            return false;
    return true;
}

Z3_model sx_witness_find(sx_engine *e, sx_state *s, Z3_ast side)
{
    int cs[64];
    if (!s->model || s->witness_misses >= WITNESS_MISSES_MAX)
        return NULL;
    int ncs = condition_symbols(e, side, cs, (int)(sizeof cs / sizeof *cs));
    if (ncs == 0)
        return NULL;
    for (int t = 0; t < WITNESS_TRIES; t++) {
        Z3_model m = sample(e, s, cs, ncs);
        if (!m)
            return NULL;
        /* no sx_z_release here: the caller's terms (side among them) are
         * temporaries too, released when its step ends */
        bool ok = satisfies(e, s, m, side);
        if (ok) {
            e->witnesses++;
            return m;
        }
        Z3_model_dec_ref(e->z.c, m);
    }
    s->witness_misses++;
    return NULL;
}

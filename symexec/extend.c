/*
 * extend.c — concolic extension: a concrete input, its last branches flipped.
 *
 * The search finds inputs whose slowest thread runs long; the question a
 * solver can answer next is local: which input, close to this one, makes
 * that thread take the other side of its last branch (one more loop trip,
 * the other leg of its last if)?  Exploring from scratch cannot ask it: its paths are
 * cut at max_iter and a long loop's formula nests one more operation per
 * trip.  Here the input's own path is followed (a concolic state from the
 * start: every branch takes the input's side, its condition joins the path,
 * no solver call), the latest decisions are remembered, and then each,
 * latest first, is asked with its other side taken and the path before it
 * kept (SAGE's generational step, on the end of the path only); the first
 * answer is taken, and when only an earlier branch has one (the latest
 * being infeasible or out of time) it may be a shorter path: the caller
 * measures it.  Inputs
 * other than the deciding thread's own elements stay as they were, so the
 * answer is that lane's neighbour.
 *
 * An unsigned div or rem of symbolic operands keeps the quotient q the
 * input computes: r = a - q * b with q * b not wrapping and r < b joins the
 * path (r a fresh constant) and the result is q, or r.  Sound (every input
 * that keeps the path computes that quotient) and linear in the inputs:
 * the nested bvurem of a Euclid loop's 20 trips is out of the solver's
 * reach in seconds, the same trips with their quotients fixed were
 * answered in 0.1-2 s.  The flips run in a child process killed at their
 * deadline (isolate.c).
 */
#include "symexec/internal.h"

#include <limits.h>
#include <stdlib.h>

/* One decision of the followed state: the side it did not take. */
typedef struct {
    sx_node *pc;             /* the path before it (a reference) */
    Z3_ast other;            /* the side not taken (a reference) */
    int thread;
} sx_flip;

/* The latest `cap` decisions, a ring: head is the next slot. */
struct sx_follow {
    sx_flip *flips;
    int cap, n, head;
};

void sx_follow_note(sx_engine *e, const sx_state *s, int thread, Z3_ast other)
{
    struct sx_follow *f = e->follow;
    sx_flip *slot = &f->flips[f->head];
    if (f->n == f->cap) {
        sx_node_unref(&e->z, slot->pc);
        sx_z_dec(&e->z, slot->other);
    } else {
        f->n++;
    }
    slot->pc = sx_node_ref(s->pc);
    sx_z_inc(&e->z, other);
    slot->other = other;
    slot->thread = thread;
    f->head = (f->head + 1) % f->cap;
}

Z3_ast sx_follow_divrem(sx_cx *cx, Z3_ast a, Z3_ast b, int w, bool rem)
{
    sx_engine *e = cx->e;
    sx_z *z = &e->z;
    if (sx_z_is_value(z, a) && sx_z_is_value(z, b))
        return NULL;
    Z3_ast av = sx_model_value(e, cx->s->model, a), bv = sx_model_value(e, cx->s->model, b);
    uint64_t x, y;
    if (!av || !bv || !sx_z_get_u64(z, av, &x) || !sx_z_get_u64(z, bv, &y) || y == 0 || w > 64)
        return NULL;
    uint64_t q = x / y, max = w == 64 ? ~0ull : (1ull << w) - 1;
    /* r = a - q * b, with q * b not wrapping (b <= max / q) and r < b; r a
     * fresh constant, so that a loop's remainders do not nest */
    Z3_ast qw = sx_z_num(z, q, w), qb = sx_zk(z, Z3_mk_bvmul(z->c, qw, b));
    Z3_ast r = sx_zk(z, Z3_mk_fresh_const(z->c, "rem", sx_z_bvs(z, w)));
    Z3_ast keep = sx_z_eq(z, r, sx_zk(z, Z3_mk_bvsub(z->c, a, qb)));
    keep = sx_z_and2(z, keep, sx_zk(z, Z3_mk_bvule(z->c, qb, a)));
    keep = sx_z_and2(z, keep, sx_zk(z, Z3_mk_bvult(z->c, r, b)));
    if (q > 1)
        keep = sx_z_and2(z, keep, sx_zk(z, Z3_mk_bvule(z->c, b, sx_z_num(z, max / q, w))));
    sx_state_add_pc(e, cx->s, keep);
    /* the followed input's own value of r, for the branches that read it
     * (the model is the followed state's alone) */
    Z3_add_const_interp(z->c, cx->s->model, Z3_get_app_decl(z->c, Z3_to_app(z->c, r)), sx_z_num(z, x - q * y, w));
    return rem ? r : qw;
}

/* A copy of the input with the model's values of its symbols. */
static wh_image *model_image(sx_engine *e, Z3_model m, const wh_image *input, wh_error *err)
{
    wh_image *out = wh_image_clone(input, err);
    for (int i = 0; out && i < e->nsyms; i++) {
        const sx_symbol *s = &e->syms[i];
        uint64_t v = s->value;
        Z3_ast mv = s->ast ? sx_model_value(e, m, s->ast) : NULL;
        if (s->ast && (!mv || !sx_z_get_u64(&e->z, mv, &v))) {
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "Z3 gave no value to '%s'", s->name);
            wh_image_free(out);
            out = NULL;
            break;
        }
        sx_symbol_write(s, &e->spec->params[s->param], out, v);
    }
    sx_z_release(&e->z);
    return out;
}

/* Is the path before fl, with its other side and every input but its
 * thread's pinned, satisfiable before the deadline (wh_clock_s)?  1: *out
 * written, 0: no (or no answer), -1: error. */
static int try_flip(sx_engine *e, const sx_flip *fl, const wh_image *input, double deadline, wh_image **out,
                    wh_error *err)
{
    sx_z *z = &e->z;
    Z3_solver s = Z3_mk_simple_solver(z->c);
    Z3_solver_inc_ref(z->c, s);
    Z3_solver_assert(z->c, s, e->domains);
    int n = 0;
    sx_node **path = sx_node_array(fl->pc, &n);
    for (int i = 0; path && i < n; i++)
        Z3_solver_assert(z->c, s, path[i]->ast);
    free(path);
    Z3_solver_assert(z->c, s, fl->other);
    for (int i = 0; i < e->nsyms; i++) {
        const sx_symbol *sy = &e->syms[i];
        if (!sy->ast || sx_symbol_owner(e, sy, input) == fl->thread)
            continue;
        uint64_t v = sx_symbol_read(sy, &e->spec->params[sy->param], input);
        Z3_solver_assert(z->c, s, sx_z_eq(z, sy->ast, sx_z_num(z, v, sy->bytes * 8)));
    }
    sx_z_release(z);
    /* in a child killed at the deadline: Z3 heeds neither its timeout nor
     * an interrupt while it bit-blasts (one 2 s check of a collatz_steps
     * lane ran 336 s in process) */
    Z3_model m = NULL;
    Z3_lbool r = Z3_L_UNDEF;
    if (sx_isolated_check(e, s, deadline, &m, &r) == 0) {
        sx_watchdog_arm(e->dog, (unsigned)((deadline - wh_clock_s()) * 1000) + 1);
        r = Z3_solver_check(z->c, s);
        sx_watchdog_disarm(e->dog);
        if (r == Z3_L_TRUE && (m = Z3_solver_get_model(z->c, s)))
            Z3_model_inc_ref(z->c, m);
    }
    int found = 0;
    if (r == Z3_L_TRUE && m) {
        *out = model_image(e, m, input, err);
        found = *out ? 1 : -1;
    }
    if (m)
        Z3_model_dec_ref(z->c, m);
    Z3_solver_dec_ref(z->c, s);
    return found;
}

static void follow_free(sx_engine *e, struct sx_follow *f)
{
    for (int i = 0; i < f->n; i++) {
        sx_node_unref(&e->z, f->flips[i].pc);
        sx_z_dec(&e->z, f->flips[i].other);
    }
    free(f->flips);
}

void sx_extend_options_default(sx_extend_options *o)
{
    o->flips = 8;
    o->query_ms = 1000;
    o->time_s = 5;
    o->max_thread_instrs = 0;
}

/* Follow the input to the end of its path, noting its decisions; false
 * when it did not end within the budget or the engine failed (err). */
static bool follow(sx_engine *e, sx_result *r, const wh_image *input)
{
    sx_state *s0 = sx_state_new(e);
    Z3_model m0 = s0 ? sx_layout_input_model(e, input) : NULL;
    if (!m0) {
        sx_state_free(e, s0);
        return false;
    }
    sx_state_set_model(e, s0, m0);
    Z3_model_dec_ref(e->z.c, m0);
    s0->concolic = true;
    s0->witness_misses = INT_MAX;    /* its path only: no sampled forks */
    return sx_run_state(e, s0) && r->npaths == 1;
}

int sx_extend(const wh_spec *spec, const ptx_module *mod, const wh_image *input, const sx_extend_options *o,
              wh_image **out, int *thread, wh_error *err)
{
    *out = NULL;
    uint64_t X = wh_launch_threads_total(&input->launch);
    if (input->spec != spec || X < 1 || X > 1024) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "an input to extend must be an image of '%s' of 1..1024 threads",
                     spec->name);
        return -1;
    }
    sx_options so;
    sx_options_default(&so);
    so.threads = (int)X;
    so.max_iter = INT_MAX / 2;       /* the input's own trips, however many */
    so.time_budget_s = o->time_s;
    so.path_budget = 1;
    so.query_ms = o->query_ms;
    so.max_thread_instrs = o->max_thread_instrs;
    sx_result *r = calloc(1, sizeof *r);
    sx_engine *e = r ? sx_engine_new(spec, mod, &so, r, err) : NULL;
    if (!e) {
        if (!r)
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        free(r);
        return -1;
    }
    r->priv = e;
    struct sx_follow f = { calloc((size_t)(o->flips > 0 ? o->flips : 1), sizeof(sx_flip)), o->flips > 0 ? o->flips : 1,
                           0, 0 };
    e->follow = &f;
    e->t0 = wh_clock_s();
    int found = f.flips && follow(e, r, input) ? 0 : -1;
    if (found < 0 && !e->fatal && !e->z.failed && f.flips)
        found = 0;                   /* out of budget, or an input outside its own model: nothing */
    for (int k = 0; found == 0 && k < f.n && wh_clock_s() - e->t0 < o->time_s; k++) {
        const sx_flip *fl = &f.flips[(f.head - 1 - k + 2 * f.cap) % f.cap];
        double end = e->t0 + o->time_s, query_end = wh_clock_s() + o->query_ms / 1000.0;
        found = try_flip(e, fl, input, query_end < end ? query_end : end, out, err);
        if (found == 1)
            *thread = fl->thread;
    }
    if (found < 0 && !wh_error_is_set(err))
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "%s", e->z.failed ? e->z.errmsg : "concolic extension failed");
    follow_free(e, &f);
    e->follow = NULL;
    sx_result_free(r);
    return found;
}

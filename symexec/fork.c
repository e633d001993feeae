/*
 * fork.c — deciding a symbolic condition, forking when both sides are
 * feasible.
 *
 * The state's model tells which side is feasible for free; only the other
 * side costs a solver check (with the path constraints already asserted,
 * see solver.c, which also remembers the sides found infeasible).  A
 * condition over floats picked by input-dependent selects is first
 * rewritten without floats (cases.c), so that neither check nor path
 * constraint pays for float arithmetic.  When both are feasible, the current state follows the
 * side that reaches an uncovered branch leg (ties broken by the seeded
 * random generator), and a copy takes the other side.  A side that would
 * keep a thread in a loop it has already iterated max_iter times is not
 * explored: its copy is recorded as a cut path (with its formula).
 *
 * A state the solver has given up on once turns concolic: from then on it
 * follows its model's side of every branch, adding the side's condition
 * to its path without asking the solver (DART's fallback).  Its formula
 * stays satisfied by its model, so its atoms replay; what it gives up is
 * the other sides below that point.  Without it, one float-heavy or
 * array-heavy state spent the whole budget giving up check after check
 * (escape_time, md_cutoff: 0 paths in 10 s).  A concolic state (and one
 * the solver just gave up on) still forks where a sampled input shows the
 * other side feasible (witness.c): its copy takes that side with the
 * witness as its model.
 */
#include "symexec/internal.h"

#include <stdio.h>
#include <string.h>

static bool leg_new(const sx_engine *e, const sx_state *s, int leg)
{
    return leg >= 0 && !e->covered[leg] && !(s->legs[leg / 8] & (1u << (leg % 8)));
}

static int choose(sx_engine *e, const sx_state *s, const sx_fork *fk)
{
    if (fk->prefer >= 0)
        return fk->prefer;
    bool n0 = leg_new(e, s, fk->leg[0]), n1 = leg_new(e, s, fk->leg[1]);
    if (n0 != n1)
        return n1 ? 1 : 0;
    return (int)pcg32_bounded(&e->rng, 2);
}

static void end_cut(sx_state *s, const sx_fork *fk, int side)
{
    s->over = true;
    s->end = SX_PATH_CUT;
    sx_state_note(s, "%s", fk->cut_note[side] ? fk->cut_note[side] : "loop bound reached");
}

int sx_fork_on(sx_cx *cx, Z3_ast cond, const sx_fork *fk)
{
    sx_engine *e = cx->e;
    sx_z *z = &e->z;
    sx_state *s = cx->s;
    if (!cond)
        return -1;
    if (s->fp)
        cond = sx_cases_defloat(e, cond);
    int v = sx_z_bool_value(z, cond);
    if (v >= 0)
        return v;
    Z3_ast mv = sx_model_value(e, s->model, cond);
    int mside = mv ? sx_z_bool_value(z, mv) : -1;
    if (mside < 0)
        mside = 1;
    Z3_ast other = mside ? sx_z_not(z, cond) : cond;
    Z3_model om = NULL;
    if (s->concolic && !(om = sx_witness_find(e, s, other))) {
        if (e->follow)
            sx_follow_note(e, s, cx->t, other);
        sx_state_add_pc(e, s, mside ? cond : sx_z_not(z, cond));
        if (fk->cut[mside]) {
            end_cut(s, fk, mside);
            cx->dead = true;
        }
        return mside;
    }
    int r = om ? 1 : sx_solver_check(e, s, other, &om);
    if (r < 0 && z->failed)
        return -1;
    if (r < 0) {
        /* no answer: from now on the state follows its model (and says so
         * in the path condition, so that the path's atoms take its side),
         * but first a sampled input may show the other side feasible */
        e->giveups++;
        sx_state_note(s, "solver gave up on a branch at line %d; the path follows its model from there",
                   cx->ins->line);
        s->concolic = true;
        if (!(om = sx_witness_find(e, s, other))) {
            sx_state_add_pc(e, s, mside ? cond : sx_z_not(z, cond));
            return mside;
        }
        r = 1;
    }
    if (r == 0) {
        /* the other side is infeasible, so the model's side is implied
         * (and joins the path when the solver is not trusted: solver.c) */
        sx_solver_implied(e, s, mside ? cond : sx_z_not(z, cond));
        return mside;
    }
    e->forks++;
    int side = choose(e, s, fk);
    if (fk->cut[side] && !fk->cut[!side])
        side = !side;
    int cs = !side;
    sx_state *c = sx_state_clone(e, s);
    if (!c) {
        Z3_model_dec_ref(z->c, om);
        e->fatal = true;
        return -1;
    }
    /* the copy: the other side's constraint and model */
    sx_state_add_pc(e, c, cs ? cond : sx_z_not(z, cond));
    if (cs != mside)
        sx_state_set_model(e, c, om);
    /* the current state */
    sx_state_add_pc(e, s, side ? cond : sx_z_not(z, cond));
    if (side != mside)
        sx_state_set_model(e, s, om);
    Z3_model_dec_ref(z->c, om);
    int cleg = leg_new(e, c, fk->leg[cs]) ? fk->leg[cs] : -1;
    sx_cx ccx;
    sx_cx_init(&ccx, e, c, cx->t);
    if (fk->apply)
        fk->apply(&ccx, cs != 0, fk->arg);
    if (fk->cut[cs]) {
        end_cut(c, fk, cs);
        bool ok = sx_metrics_record(e, c);
        sx_state_free(e, c);
        if (!ok)
            return -1;
    } else {
        c->new_leg = cleg;
        sx_work_push(e, c);
    }
    if (fk->cut[side]) {
        end_cut(s, fk, side);
        cx->dead = true;
    }
    return side;
}

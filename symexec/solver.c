/*
 * solver.c — incremental feasibility checks.
 *
 * One Z3 solver holds the value-domain assumptions at its base level and,
 * above them, the path constraints of the state last checked, one scope per
 * constraint.  Checking another state pops down to the prefix the two
 * paths share and pushes the rest, so checks along one path (and after a
 * fork) only pay for the new constraint.
 */
#include "symexec/internal.h"

#include <limits.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sx_solver_reset_sync(sx_engine *e)
{
    if (e->nsync > 0)
        Z3_solver_pop(e->z.c, e->solver, (unsigned)e->nsync);
    for (int i = 0; i < e->nsync; i++)
        sx_node_unref(&e->z, e->sync[i]);
    e->nsync = 0;
}

static bool sync_grow(sx_engine *e, int n)
{
    if (n <= e->capsync)
        return true;
    int cap = e->capsync ? e->capsync : 64;
    while (cap < n)
        cap *= 2;
    sx_node **v = realloc(e->sync, (size_t)cap * sizeof *v);
    if (!v)
        return false;
    e->sync = v;
    e->capsync = cap;
    return true;
}

static bool sync_to(sx_engine *e, sx_node *pc)
{
    int depth = pc ? pc->len : 0;
    if (depth == e->nsync && (depth == 0 || e->sync[depth - 1] == pc))
        return true;
    /* nodes of pc above the shared prefix, deepest first */
    int cap = depth + 1, n = 0;
    sx_node **todo = malloc((size_t)cap * sizeof *todo);
    if (!todo)
        return false;
    sx_node *p = pc;
    while (p && p->len > e->nsync) {
        todo[n++] = p;
        p = p->up;
    }
    int keep = p ? p->len : 0;
    while (keep > 0 && e->sync[keep - 1] != p) {
        todo[n++] = p;
        p = p->up;
        keep--;
    }
    if (e->nsync > keep) {
        Z3_solver_pop(e->z.c, e->solver, (unsigned)(e->nsync - keep));
        for (int i = keep; i < e->nsync; i++)
            sx_node_unref(&e->z, e->sync[i]);
        e->nsync = keep;
    }
    bool ok = sync_grow(e, depth);
    for (int i = n - 1; i >= 0 && ok; i--) {
        Z3_solver_push(e->z.c, e->solver);
        Z3_solver_assert(e->z.c, e->solver, todo[i]->ast);
        e->sync[e->nsync++] = sx_node_ref(todo[i]);
    }
    free(todo);
    return ok;
}

/* No check may run past the time budget or the per-query limit: lower
 * the solver's timeout as the budget runs out (an unknown answer is a
 * give-up, see fork.c and search.c).  UINT_MAX: no limit at all. */
static unsigned left_ms(const sx_engine *e)
{
    double left = e->opt.time_budget_s > 0 ? (e->opt.time_budget_s - (wh_clock_s() - e->t0)) * 1000.0 : 4e9;
    if (left < 50.0)
        left = 50.0;   /* a check may still start when the budget is nearly spent */
    if (e->opt.query_ms && left > e->opt.query_ms)
        left = e->opt.query_ms;
    return left >= 4e9 ? UINT_MAX : (unsigned)left;
}

static void set_uint_param(sx_z *z, Z3_solver s, const char *name, unsigned v)
{
    Z3_params p = Z3_mk_params(z->c);
    Z3_params_inc_ref(z->c, p);
    Z3_params_set_uint(z->c, p, Z3_mk_string_symbol(z->c, name), v);
    Z3_solver_set_params(z->c, s, p);
    Z3_params_dec_ref(z->c, p);
}

/* Trust: Z3 4.8.12's timer can fire after the check it was set for has
 * returned, and the cancel it leaves behind hits whatever the context does
 * next: a loop of timed-out checks, each followed by an easy one, got
 * "unknown" for the easy one 3 % of the time; in the engine a path
 * constraint asserted right after a timed-out check became `false`, so
 * every later check of that state answered "infeasible" and the state
 * went on without the constraints of its branches (14 sssp_relax
 * explorations in 20 under 1 ms checks had a path whose atoms did not
 * replay).  The watchdog alone (Z3_interrupt acts only while its call
 * runs) is no cure: Z3 heeds it far later than its own timeout on
 * float-heavy paths (escape_time's 10 s stage took 60 s).  So once a check
 * has ended unknown, no "infeasible" is taken on trust any more: a side, a
 * value or a bound the solver says is forced joins the path all the same
 * (sx_solver_implied), and a path's formula holds for its atoms whatever
 * the solver answered; a wrong answer can only hide other paths.  Before
 * the first unknown no late cancel can exist, so explorations without one
 * pay nothing (adding every implied side always cost 15-55 % of the paths
 * of a 10 s stage on bfs1, nsichneu, fsm_lexer and binary_search). */
void sx_solver_implied(sx_engine *e, sx_state *s, Z3_ast c)
{
    if (e->distrust)
        sx_state_add_pc(e, s, c);
}

static void set_timeout(sx_z *z, Z3_solver s, unsigned ms)
{
    set_uint_param(z, s, "timeout", ms);
}

/* Relevancy propagation off: the checks are many small quantifier-free
 * bit-vector and array problems, where tracking which atoms matter costs
 * more than it saves.  Measured with bench_symexec (20 s): nsichneu 47-60
 * paths instead of 31-35, at the same or better coverage.  (Z3's qfbv
 * tactic and QF_BV logic solvers were slower still than the default.) */
void sx_solver_configure(sx_engine *e)
{
    set_uint_param(&e->z, e->solver, "relevancy", 0);
}

static void limit_check_time(sx_engine *e)
{
    unsigned ms = left_ms(e);
    if (ms == UINT_MAX)
        return;
    if (e->timeout_ms && ms >= e->timeout_ms * 4 / 5)
        return;
    set_timeout(&e->z, e->solver, ms);
    e->timeout_ms = ms;
}

/* Symbolic floating point: Z3's QF_BVFP tactic on a fresh solver is several
 * times faster than the incremental core on bit-blasted FP, so such states
 * are checked from scratch.  -2: the tactic gave up (use the core).
 *
 * Z3 heeds neither its timeout nor the watchdog's interrupt while it turns
 * such a formula into bits: one check of the held-out kd_nearest ran 40 s
 * past its 5 s limit (`explore --time 30` ended at 42.7 s).  So once an FP
 * check of this exploration has taken SX_FP_SLOW_MS, the later ones run in
 * a child process killed at their limit (isolate.c): a fork's 7-40 ms is
 * small beside checks that slow.  Not before: bvh_traverse's checks take
 * milliseconds, and forking each of them cut its 30 s stage from 50 paths
 * to 28.  A trade, not a bound: the first slow check runs in process. */
#define SX_FP_SLOW_MS 200.0

static int fp_check(sx_engine *e, const sx_state *s, Z3_ast extra, Z3_model *m)
{
    sx_z *z = &e->z;
    Z3_solver fs = Z3_mk_solver_for_logic(z->c, Z3_mk_string_symbol(z->c, "QF_BVFP"));
    if (!fs)
        return -2;
    Z3_solver_inc_ref(z->c, fs);
    unsigned limit = left_ms(e);
    /* a child sets no timeout: Z3's timer thread would not be in it */
    bool isolate = (e->fp_slow || e->opt.isolate_fp) && limit != UINT_MAX;
    if (limit != UINT_MAX && !isolate)
        set_timeout(z, fs, limit);
    Z3_solver_assert(z->c, fs, e->domains);
    for (const sx_node *n = s->pc; n; n = n->up)
        Z3_solver_assert(z->c, fs, n->ast);
    if (extra)
        Z3_solver_assert(z->c, fs, extra);
    double t0 = wh_clock_s();
    Z3_lbool r = Z3_L_UNDEF;
    int cut = isolate ? sx_isolated_check(e, fs, t0 + limit / 1000.0, m, &r) : 0;
    if (cut == 0) {
        r = Z3_solver_check(z->c, fs);
        if (r == Z3_L_TRUE && m) {
            *m = Z3_solver_get_model(z->c, fs);
            if (*m)
                Z3_model_inc_ref(z->c, *m);
        }
    }
    double took = wh_clock_s() - t0;
    e->solver_s += took;
    e->checks++;
    e->fp_slow |= took * 1000.0 >= SX_FP_SLOW_MS;
    Z3_solver_dec_ref(z->c, fs);
    e->distrust |= r == Z3_L_UNDEF;
    if (cut < 0) {
        /* killed at its limit: a give-up, as the watchdog's cut is */
        e->interrupted++;
        return -1;
    }
    if (Z3_get_error_code(z->c) != Z3_OK) {
        if (m && *m)
            Z3_model_dec_ref(z->c, *m);
        if (m)
            *m = NULL;
        return -2;
    }
    return r == Z3_L_TRUE ? 1 : r == Z3_L_FALSE ? 0 : -2;
}

/* The watchdog's deadline for a call: the check's own limit and a margin
 * for what Z3's timeout does not cover (scopes, preprocessing). */
static unsigned hard_ms(const sx_engine *e)
{
    unsigned ms = left_ms(e);
    if (ms == UINT_MAX)
        return 0;
    unsigned margin = ms / 4 > 500 ? ms / 4 : 500;
    return ms + margin;
}

/* After an interrupt the solver's scopes are in no known state: empty it
 * and start again from the domains (the next check re-pushes its pc). */
static void restart_solver(sx_engine *e)
{
    sx_z *z = &e->z;
    for (int i = 0; i < e->nsync; i++)
        sx_node_unref(z, e->sync[i]);
    e->nsync = 0;
    Z3_solver_reset(z->c, e->solver);
    sx_solver_configure(e);
    e->timeout_ms = 0;
    Z3_solver_assert(z->c, e->solver, e->domains);
    z->failed = false;
    z->errmsg[0] = 0;
}

/* Z3 holds more than its memory limit before a check: what the solver
 * kept (scopes, lemmas) goes first; still over, the check is not made (a
 * give-up, as if the watchdog had cut it at once). */
static bool memory_left(sx_engine *e)
{
    if (!sx_z3_memory_over(e->mem_limit))
        return true;
    restart_solver(e);
    if (!sx_z3_memory_over(e->mem_limit))
        return true;
    e->interrupted++;
    e->memouts++;
    return false;
}

static int check_bounded(sx_engine *e, const sx_state *s, Z3_ast extra, Z3_model *m);

static bool budget_spent(const sx_engine *e)
{
    return e->opt.time_budget_s > 0 && wh_clock_s() - e->t0 >= e->opt.time_budget_s;
}

static int check(sx_engine *e, const sx_state *s, Z3_ast extra, Z3_model *m)
{
    if (budget_spent(e))
        return -1;   /* a give-up: the search stops at its next step */
    if (!memory_left(e))
        return -1;
    unsigned ms = hard_ms(e);
    if (ms)
        sx_watchdog_arm(e->dog, ms);
    int r = check_bounded(e, s, extra, m);
    sx_cut cut = ms ? sx_watchdog_disarm(e->dog) : SX_CUT_NONE;
    if (cut != SX_CUT_NONE) {
        /* cut by the watchdog: a give-up, whatever the call returned */
        if (m && *m) {
            Z3_model_dec_ref(e->z.c, *m);
            *m = NULL;
        }
        restart_solver(e);
        e->interrupted++;
        e->memouts += cut == SX_CUT_MEMORY;
        return -1;
    }
    return r;
}

static int check_bounded(sx_engine *e, const sx_state *s, Z3_ast extra, Z3_model *m)
{
    sx_z *z = &e->z;
    if (s->fp && (sx_state_pc_float(s) || (extra && sx_cases_has_float(e, extra)))) {
        int r = fp_check(e, s, extra, m);
        if (r != -2)
            return r;
    }
    if (!sync_to(e, s->pc))
        return -1;
    if (extra) {
        Z3_solver_push(z->c, e->solver);
        Z3_solver_assert(z->c, e->solver, extra);
    }
    limit_check_time(e);
    double t0 = wh_clock_s();
    Z3_lbool r = Z3_solver_check(z->c, e->solver);
    e->solver_s += wh_clock_s() - t0;
    e->checks++;
    if (r == Z3_L_TRUE && m) {
        *m = Z3_solver_get_model(z->c, e->solver);
        if (*m)
            Z3_model_inc_ref(z->c, *m);
    }
    if (extra)
        Z3_solver_pop(z->c, e->solver, 1);
    e->distrust |= r == Z3_L_UNDEF;
    if (Z3_get_error_code(z->c) != Z3_OK) {
        snprintf(z->errmsg, sizeof z->errmsg, "Z3: %s", Z3_get_error_msg(z->c, Z3_get_error_code(z->c)));
        z->failed = true;
        return -1;
    }
    return r == Z3_L_TRUE ? 1 : r == Z3_L_FALSE ? 0 : -1;
}

/* ---- refutations ------------------------------------------------------------
 *
 * A query q found unsatisfiable under the path constraints pc (and the
 * domains) stays unsatisfiable under every longer pc, since a pc only
 * grows: states forked below pc, and pc itself further on, get the answer
 * without the solver -- the second round of a kernel re-testing what the
 * first decided, a loop spinning on a value the path fixed, an address
 * already known to be fixed.  Only refutations are kept: a satisfiable
 * answer needs a model of the asking state's whole pc, which another
 * state's model is not. */

typedef struct sx_refuted {
    Z3_ast q;                /* referenced */
    sx_node *pc;             /* referenced; NULL: no path constraint */
    int next;                /* next entry of the bucket, -1 */
} sx_refuted;

#define REFUTED_BUCKETS 4096u
/* The entries keep their pc nodes (and terms) alive: start over past this. */
#define REFUTED_MAX 65536
/* Entries of one query compared with a pc at most (each costs a walk up
 * the pc): a query refuted under many unrelated pcs is worth a check. */
#define REFUTED_SCAN 32

static unsigned bucket_of(sx_engine *e, Z3_ast q)
{
    return (Z3_get_ast_id(e->z.c, q) * 2654435761u) & (REFUTED_BUCKETS - 1);
}

void sx_solver_forget_refuted(sx_engine *e)
{
    for (int i = 0; i < e->nrefuted; i++) {
        sx_z_dec(&e->z, e->refuted[i].q);
        sx_node_unref(&e->z, e->refuted[i].pc);
    }
    free(e->refuted);
    free(e->refuted_head);
    e->refuted = NULL;
    e->refuted_head = NULL;
    e->nrefuted = e->caprefuted = 0;
}

/* Is `anc` pc itself or one of its prefixes? */
static bool extends(const sx_node *pc, const sx_node *anc)
{
    if (!anc)
        return true;
    while (pc && pc->len > anc->len)
        pc = pc->up;
    return pc == anc;
}

static bool refuted_find(sx_engine *e, const sx_node *pc, Z3_ast q)
{
    if (!e->refuted_head)
        return false;
    int scanned = 0;
    for (int i = e->refuted_head[bucket_of(e, q)]; i >= 0 && scanned < REFUTED_SCAN; i = e->refuted[i].next) {
        if (e->refuted[i].q != q) /* Z3 shares equal terms: same pointer */
            continue;
        scanned++;
        if (extends(pc, e->refuted[i].pc))
            return true;
    }
    return false;
}

/* A cache that cannot grow only costs checks: failures are not errors. */
static void refuted_add(sx_engine *e, sx_node *pc, Z3_ast q)
{
    if (e->nrefuted == REFUTED_MAX)
        sx_solver_forget_refuted(e);
    if (!e->refuted_head) {
        e->refuted_head = malloc(REFUTED_BUCKETS * sizeof *e->refuted_head);
        if (!e->refuted_head)
            return;
        memset(e->refuted_head, 0xff, REFUTED_BUCKETS * sizeof *e->refuted_head);
    }
    if (e->nrefuted == e->caprefuted) {
        int cap = e->caprefuted ? e->caprefuted * 2 : 1024;
        sx_refuted *v = realloc(e->refuted, (size_t)cap * sizeof *v);
        if (!v)
            return;
        e->refuted = v;
        e->caprefuted = cap;
    }
    unsigned b = bucket_of(e, q);
    sx_refuted *r = &e->refuted[e->nrefuted];
    sx_z_inc(&e->z, q);
    r->q = q;
    r->pc = sx_node_ref(pc);
    r->next = e->refuted_head[b];
    e->refuted_head[b] = e->nrefuted++;
}

int sx_solver_check(sx_engine *e, const sx_state *s, Z3_ast extra, Z3_model *m)
{
    if (m)
        *m = NULL;
    if (extra && sx_z_bool_value(&e->z, extra) == 0)
        return 0;
    if (extra && refuted_find(e, s->pc, extra))
        return 0;
    int r = check(e, s, extra, m);
    if (r == 0 && extra)
        refuted_add(e, s->pc, extra);
    return r;
}

Z3_ast sx_model_value(sx_engine *e, Z3_model m, Z3_ast a)
{
    Z3_ast out = NULL;
    if (!m || !a)
        return NULL;
    if (!Z3_model_eval(e->z.c, m, a, true, &out) || !out)
        return NULL;
    return sx_zk(&e->z, out);
}

/* "name=value" of one symbol in a model. */
static void sym_text(sx_engine *e, const sx_symbol *s, Z3_model m, char *buf, size_t size)
{
    uint64_t v = s->value;
    if (s->ast) {
        Z3_ast mv = sx_model_value(e, m, s->ast);
        if (!mv || !sx_z_get_u64(&e->z, mv, &v)) {
            snprintf(buf, size, "%s=?", s->name);
            return;
        }
    }
    if (s->type == WH_F32) {
        uint32_t b = (uint32_t)v;
        float f;
        memcpy(&f, &b, sizeof f);
        snprintf(buf, size, "%s=%.9g", s->name, (double)f);
    } else if (s->type == WH_F64) {
        double d;
        memcpy(&d, &v, sizeof d);
        snprintf(buf, size, "%s=%.17g", s->name, d);
    } else if (wh_type_is_signed(s->type)) {
        int w = s->bytes * 8;
        int64_t x = w == 64 ? (int64_t)v : (int64_t)(v << (64 - w)) >> (64 - w);
        snprintf(buf, size, "%s=%" PRId64, s->name, x);
    } else {
        snprintf(buf, size, "%s=%" PRIu64, s->name, v);
    }
}

char *sx_model_inputs_text(sx_engine *e, Z3_model m)
{
    size_t cap = 256, len = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    out[0] = 0;
    int shown = 0;
    for (int i = 0; i < e->nsyms && shown < 64; i++) {
        if (!e->syms[i].ast)
            continue;
        char item[400];
        sym_text(e, &e->syms[i], m, item, sizeof item);
        size_t n = strlen(item) + 2;
        if (len + n >= cap) {
            cap = (len + n) * 2;
            char *o = realloc(out, cap);
            if (!o)
                break;
            out = o;
        }
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? " " : "", item);
        shown++;
    }
    return out;
}

/*
 * search.c — the exploration: the engine for one spec and X, the canonical
 * thread schedule of a state (each thread to its next barrier or warp
 * collective, then the next thread; barriers released when every thread
 * waits or exited), the worklist of forked states and the order it is
 * searched in (states whose fork took a still-uncovered leg first, newest
 * first; otherwise a seeded random pick or, with SX_ORDER_TIME, three
 * times in four the state that has run longest), and the time/path
 * budgets.
 */
#include "symexec/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SX_MAX_WORK 200000

void sx_options_default(sx_options *o)
{
    memset(o, 0, sizeof *o);
    o->threads = 2;
    o->seed = 1;
    o->query_ms = SX_DEFAULT_QUERY_MS;
}

const char *sx_path_kind_name(sx_path_kind k)
{
    switch (k) {
    case SX_PATH_DONE: return "done";
    case SX_PATH_CUT: return "cut";
    default: return "error";
    }
}

static double progress_every(const sx_engine *e)
{
    return e->opt.progress_s > 0 ? e->opt.progress_s : 2.0;
}

static void report_progress(sx_engine *e)
{
    sx_progress p = {
        .threads = e->X, .elapsed_s = wh_clock_s() - e->t0, .solver_s = e->solver_s,
        .paths = e->res->npaths, .legs = e->nlegs, .legs_covered = e->res->nlegs_covered,
        .pending = e->nwork, .solver_calls = e->checks, .giveups = e->giveups, .interrupted = e->interrupted,
        .memouts = e->memouts,
    };
    e->opt.progress(e->opt.progress_ctx, &p);
}

bool sx_result_never_branched(const sx_result *r)
{
    return r->npaths > 0 && r->forks == 0 && r->giveups == 0 && r->nlegs > 0 && r->nlegs_covered < r->nlegs &&
           !sx_result_stopped_unsupported(r);
}

const char *sx_result_stopped_unsupported(const sx_result *r)
{
    if (r->ndone > 0 || r->nerror > 0)
        return NULL;
    for (int i = 0; i < r->nissues; i++)
        if (r->issues[i].kind == SX_ISSUE_UNSUPPORTED)
            return r->issues[i].message;
    return NULL;
}

double sx_result_coverage(const sx_result *r)
{
    if (!r || r->nlegs == 0)
        return 100.0;
    return 100.0 * (double)r->nlegs_covered / (double)r->nlegs;
}

/* ---- issues ------------------------------------------------------------------ */

/* One triggering model's value of every input symbol (fixed ones too). */
static uint64_t *model_values(sx_engine *e, Z3_model m)
{
    uint64_t *v = malloc((size_t)(e->nsyms + 1) * sizeof *v);
    for (int i = 0; v && i < e->nsyms; i++) {
        v[i] = e->syms[i].value;
        Z3_ast mv = e->syms[i].ast ? sx_model_value(e, m, e->syms[i].ast) : NULL;
        if (mv && !sx_z_get_u64(&e->z, mv, &v[i])) {
            free(v);
            return NULL;
        }
    }
    return v;
}

void sx_issue_add(sx_engine *e, sx_issue_kind kind, int line, int thread, const char *cond,
               Z3_model model, const char *fmt, ...)
{
    sx_result *r = e->res;
    for (int i = 0; i < r->nissues; i++)
        if (r->issues[i].kind == kind && r->issues[i].line == line)
            return;   /* one report per kind and line */
    sx_issue *v = realloc(r->issues, (size_t)(r->nissues + 1) * sizeof *v);
    if (!v)
        return;
    r->issues = v;
    sx_issue *is = &v[r->nissues++];
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    is->kind = kind;
    is->line = line;
    is->thread = thread;
    is->path = -1;
    is->message = strdup(msg);
    char src[600];
    is->source = ptx_source_of(e->mod, ptx_instr_at_line(e->mod, line), src, sizeof src) ? strdup(src) : NULL;
    is->condition = cond ? strdup(cond) : NULL;
    is->model = model ? sx_model_inputs_text(e, model) : NULL;
    is->values = model ? model_values(e, model) : NULL;
}

/* ---- worklist ------------------------------------------------------------------ */

void sx_work_push(sx_engine *e, sx_state *s)
{
    if (e->nwork >= SX_MAX_WORK) {
        e->abandoned++;
        sx_state_free(e, s);
        return;
    }
    if (e->nwork == e->capwork) {
        int cap = e->capwork ? e->capwork * 2 : 256;
        sx_state **v = realloc(e->work, (size_t)cap * sizeof *v);
        if (!v) {
            e->abandoned++;
            sx_state_free(e, s);
            return;
        }
        e->work = v;
        e->capwork = cap;
    }
    e->work[e->nwork++] = s;
}

/* The pending state whose threads have executed the most instructions:
 * the one most likely to finish as a long path (ties: the newest). */
static int longest_state(const sx_engine *e)
{
    int best = 0;
    uint64_t most = 0;
    for (int i = 0; i < e->nwork; i++) {
        const sx_state *s = e->work[i];
        uint64_t n = 0;
        for (int t = 0; t < s->X; t++)
            n += s->th[t].instrs;
        if (n > most || (n == most && s->seq > e->work[best]->seq)) {
            most = n;
            best = i;
        }
    }
    return best;
}

static sx_state *work_pick(sx_engine *e)
{
    if (e->nwork == 0)
        return NULL;
    int best = -1;
    for (int i = 0; i < e->nwork; i++) {
        const sx_state *s = e->work[i];
        if (s->new_leg >= 0 && !e->covered[s->new_leg] && (best < 0 || s->seq > e->work[best]->seq))
            best = i;
    }
    if (best < 0 && e->opt.order == SX_ORDER_TIME && pcg32_bounded(&e->rng, 4) != 0)
        best = longest_state(e);
    if (best < 0)
        best = (int)pcg32_bounded(&e->rng, (uint32_t)e->nwork);
    sx_state *s = e->work[best];
    e->work[best] = e->work[--e->nwork];
    return s;
}

/* ---- budgets ----------------------------------------------------------------- */

static bool out_of_time(const sx_engine *e)
{
    return e->opt.time_budget_s > 0 && wh_clock_s() - e->t0 >= e->opt.time_budget_s;
}

static bool out_of_paths(const sx_engine *e)
{
    return e->opt.path_budget > 0 && e->res->npaths >= e->opt.path_budget;
}

/* Paths recorded since the last look that cover a new leg or beat every
 * earlier one in warp instructions or divergence (the metrics atoms are
 * ranked by) move the time of the last gain. */
static void note_gains(sx_engine *e)
{
    const sx_result *r = e->res;
    bool gained = r->nlegs_covered > e->gain.legs;
    for (; e->gain.paths < r->npaths; e->gain.paths++) {
        const sx_path *p = &r->paths[e->gain.paths];
        if (p->warp_instr > e->gain.warp_instr) e->gain.warp_instr = p->warp_instr, gained = true;
        if (p->brdiv > e->gain.brdiv) e->gain.brdiv = p->brdiv, gained = true;
    }
    e->gain.legs = r->nlegs_covered;
    if (gained) e->gain.at = wh_clock_s();
}

/* Nothing new for as long as the last gain took to come (so a search that
 * is still finding things every few seconds goes on), and at least
 * saturation_s: more of the same paths add atoms, not coverage.  Not
 * before the first path unless a smaller X gave paths: "nothing new"
 * means nothing then, and a kernel whose first path takes longer than
 * saturation_s (a tree walk; any kernel on a loaded machine) gave no path
 * and no atom at all. */
static bool saturated(const sx_engine *e)
{
    if (e->opt.saturation_s <= 0 || (e->res->npaths == 0 && !e->opt.saturate_pathless)) return false;
    double since = wh_clock_s() - e->gain.at, before = e->gain.at - e->t0;
    return since >= (before > e->opt.saturation_s ? before : e->opt.saturation_s);
}

/* ---- running one state ----------------------------------------------------------- */

static int next_runnable(const sx_state *s)
{
    for (int t = s->cur + 1; t < s->X; t++)
        if (s->th[t].status == TS_RUN)
            return t;
    for (int t = 0; t <= s->cur && t < s->X; t++)
        if (s->th[t].status == TS_RUN)
            return t;
    return -1;
}

/* Atomics in lane order.  A thread stops at an atomic (exec.c) until no
 * thread can run; then the threads of one warp stopped at the same one
 * (function, pc, call depth) run it one after another in lane order, each
 * stopping right after it, and go on together once all have.  That is the
 * order in which the emulator applies a warp instruction's atomics, so a
 * path that turns on which thread wins a CAS (a hash slot, a lock) is one
 * the sim takes, and its atoms replay.  Returns the thread to run next, or
 * -1 when no thread waits at an atomic. */
static int release_atomics(sx_state *s)
{
    int first = -1;
    for (int t = 0; t < s->X; t++)
        if (s->th[t].status == TS_ATOM_DONE) {
            s->th[t].status = TS_RUN;
            if (first < 0)
                first = t;
        }
    if (first >= 0)
        return first;
    for (int t = 0; t < s->X; t++) {
        if (s->th[t].status != TS_ATOM)
            continue;
        int nfr = s->th[t].nfr, func = s->th[t].wait_func, pc = s->th[t].wait_pc;
        for (int u = t; u < s->X && u / 32 == t / 32; u++) {
            sx_thread *b = &s->th[u];
            if (b->status == TS_ATOM && b->nfr == nfr && b->wait_func == func && b->wait_pc == pc) {
                b->status = TS_RUN;
                b->atom_pass = true;
            }
        }
        return t;
    }
    return -1;
}

static bool any_status(const sx_state *s, sx_tstatus st)
{
    for (int t = 0; t < s->X; t++)
        if (s->th[t].status == st)
            return true;
    return false;
}

static bool finish(sx_engine *e, sx_state *s)
{
    bool ok = sx_metrics_record(e, s);
    sx_z_release(&e->z);
    sx_state_free(e, s);
    if (!ok && !wh_error_is_set(e->err))
        wh_error_set(e->err, WH_ERR_INTERNAL, NULL, 0, 0, "cannot record a path (out of memory)");
    return ok;
}

/* A step that failed without a fatal error (the solver gave up where the
 * instruction needed an answer, such as a symbolic address): the state
 * ends as a cut path saying where; the exploration goes on. */
static bool give_up_state(sx_engine *e, sx_state *s)
{
    sx_cx cx;
    sx_cx_init(&cx, e, s, s->cur);
    e->giveups++;
    s->end = SX_PATH_CUT;
    s->over = true;
    sx_state_note(s, "the solver gave up at line %d (thread %d); the path ends there", cx.ins ? cx.ins->line : 0,
               s->cur);
    return finish(e, s);
}

/* Runs until the state ends (recorded) or the time budget is spent (the
 * state goes back to the worklist).  false on a fatal error. */
bool sx_run_state(sx_engine *e, sx_state *s)
{
    for (;;) {
        if (e->fatal) {
            sx_state_free(e, s);
            return false;
        }
        if (s->over)
            return finish(e, s);
        if (out_of_time(e) || out_of_paths(e)) {
            sx_work_push(e, s);
            return true;
        }
        if (s->th[s->cur].status == TS_RUN) {
            if (sx_exec_step(e, s))
                continue;
            if (e->fatal || e->z.failed) {
                sx_state_free(e, s);
                return false;
            }
            return give_up_state(e, s);
        }
        int n = next_runnable(s);
        if (n < 0)
            n = release_atomics(s);
        if (n >= 0) {
            s->cur = n;
            continue;
        }
        if (any_status(s, TS_WARP)) {
            if (!sx_warp_collectives(e, s)) {
                sx_state_free(e, s);
                return false;
            }
        } else if (any_status(s, TS_MBAR)) {
            sx_mbarrier_deadlock(e, s);   /* no arrival can come */
            continue;
        } else if (any_status(s, TS_BARRIER)) {
            bool ok = sx_barrier_release(e, s);
            sx_z_release(&e->z);
            if (!ok) {
                sx_state_free(e, s);
                return false;
            }
        } else {
            /* a barrier some threads skipped makes the path an error (the
             * emulator faults there), though it ran to its end */
            s->end = s->barrier_div ? SX_PATH_ERROR : SX_PATH_DONE;
            s->over = true;
            continue;
        }
        s->cur = 0;
        if (s->th[0].status != TS_RUN) {
            int m = next_runnable(s);
            s->cur = m >= 0 ? m : 0;
        }
    }
}

/* ---- the engine ------------------------------------------------------------------ */

void sx_engine_free(sx_engine *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->nwork; i++)
        sx_state_free(e, e->work[i]);
    free(e->work);
    if (e->z.c) {
        sx_solver_reset_sync(e);
        sx_solver_forget_refuted(e);
        sx_watchdog_free(e->dog);
        if (e->solver)
            Z3_solver_dec_ref(e->z.c, e->solver);
        if (e->msolver)
            Z3_solver_dec_ref(e->z.c, e->msolver);
        for (int i = 0; e->first_model && e->res && i < e->res->npaths; i++)
            if (e->first_model[i])
                Z3_model_dec_ref(e->z.c, e->first_model[i]);
        free(e->first_model);
        if (e->forms && e->res)
            for (int i = 0; i < e->res->npaths; i++)
                sx_z_dec(&e->z, e->forms[i]);
        for (int i = 0; i < e->nufs; i++)
            Z3_dec_ref(e->z.c, Z3_func_decl_to_ast(e->z.c, e->ufs[i].decl));
        sx_layout_free(e);
        sx_z_release(&e->z);
    }
    free(e->forms);
    free(e->form_fp);
    free(e->sync);
    sx_coverage_free(e);
    sx_z_fini(&e->z);
    free(e);
}

static int find_entry(const ptx_module *m, const char *name)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].is_entry && m->funcs[i].has_body && !strcmp(m->funcs[i].name, name))
            return i;
    return -1;
}

sx_engine *sx_engine_new(const wh_spec *spec, const ptx_module *mod, const sx_options *opt,
                         sx_result *res, wh_error *err)
{
    if (opt->threads < 1 || opt->threads > 1024) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--threads must be in 1..1024 (got %d)", opt->threads);
        return NULL;
    }
    int ei = find_entry(mod, spec->entry);
    if (ei < 0) {
        wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "entry '%s' is not a kernel of %s",
                     spec->entry, mod->name);
        return NULL;
    }
    sx_engine *e = calloc(1, sizeof *e);
    if (!e) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return NULL;
    }
    e->spec = spec;
    e->mod = mod;
    e->entry_idx = ei;
    e->entry = &mod->funcs[ei];
    e->opt = *opt;
    if (e->opt.max_thread_instrs == 0)
        e->opt.max_thread_instrs = 1000000;
    e->X = opt->threads;
    e->max_iter = opt->max_iter > 0 ? opt->max_iter : spec->max_iter > 0 ? spec->max_iter : SX_DEFAULT_MAX_ITER;
    e->res = res;
    e->err = err;
    pcg32_seed(&e->rng, opt->seed, 0x5eedull);
    if (!sx_z_init(&e->z, err))
        goto fail;
    Z3_set_ast_print_mode(e->z.c, Z3_PRINT_SMTLIB2_COMPLIANT);
    e->solver = Z3_mk_simple_solver(e->z.c);
    Z3_solver_inc_ref(e->z.c, e->solver);
    sx_solver_configure(e);
    e->mem_limit = (uint64_t)(opt->solver_mb ? opt->solver_mb : SX_DEFAULT_SOLVER_MB) << 20;
    e->dog = sx_watchdog_new(e->z.c, e->mem_limit);
    if (!sx_layout_build(e, err) || !sx_coverage_build(e, err))
        goto fail;
    Z3_solver_assert(e->z.c, e->solver, e->domains);
    return e;
fail:
    sx_engine_free(e);
    return NULL;
}

static void result_fill(sx_engine *e, sx_result *r)
{
    r->kernel = strdup(e->spec->name);
    r->entry = strdup(e->entry->name);
    r->threads = e->X;
    r->max_iter = e->max_iter;
    r->legs = e->legs;
    r->nlegs = e->nlegs;
    r->covered = e->covered;
    r->npending = e->nwork + (int)e->abandoned;
    const char *d = Z3_benchmark_to_smtlib_string(e->z.c, "domains", "", "unknown", "", 0, NULL, e->domains);
    r->domains = strdup(d ? d : "");
    r->time_s = wh_clock_s() - e->t0;
    r->last_gain_s = e->gain.at - e->t0;
    r->solver_s = e->solver_s;
    r->solver_calls = e->checks;
    r->forks = e->forks;
    r->giveups = e->giveups;
    r->witnesses = e->witnesses;
    r->interrupted = e->interrupted;
    r->memouts = e->memouts;
    r->pinned = e->pinned;
    r->word_cases = e->word_cases;
}

sx_result *sx_explore(const wh_spec *spec, const ptx_module *mod, const sx_options *opt,
                      wh_error *err)
{
    sx_result *r = calloc(1, sizeof *r);
    if (!r) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return NULL;
    }
    sx_engine *e = sx_engine_new(spec, mod, opt, r, err);
    if (!e) {
        free(r);
        return NULL;
    }
    r->priv = e;
    e->t0 = wh_clock_s();
    sx_state *s0 = sx_state_new(e);
    Z3_model m0 = s0 ? sx_layout_low_model(e) : NULL;
    int sat = m0 ? 1 : s0 ? sx_solver_check(e, s0, NULL, &m0) : -1;
    if (sat < 0 && s0 && !e->z.failed && !e->fatal) {
        /* the budget ran out before a first input that keeps the domains
         * and structures was found (kd_nearest's tree in under 2 s): no
         * path, as a search the budget stopped, not a failure (spec check's
         * short probe reported "Z3 or memory failure") */
        sx_state_free(e, s0);
        r->budget_hit = true;
        result_fill(e, r);
        return r;
    }
    if (sat != 1) {
        wh_error_set(err, sat == 0 ? WH_ERR_USER : WH_ERR_INTERNAL, spec->path, 0, 0, "%s",
                     sat == 0 ? "the value domains of the spec's inputs cannot all hold"
                              : "cannot start the exploration (Z3 or memory failure)");
        sx_state_free(e, s0);
        sx_result_free(r);
        return NULL;
    }
    sx_state_set_model(e, s0, m0);
    Z3_model_dec_ref(e->z.c, m0);
    sx_work_push(e, s0);
    bool ok = true;
    double next_report = e->t0 + progress_every(e);
    e->gain.at = e->t0;
    for (;;) {
        if (out_of_time(e) || out_of_paths(e)) {
            r->budget_hit = e->nwork > 0;
            r->path_cap_hit = r->budget_hit && !out_of_time(e);
            break;
        }
        note_gains(e);
        if (e->nwork > 0 && saturated(e)) {
            r->budget_hit = r->saturated = true;
            break;
        }
        sx_state *s = work_pick(e);
        if (!s)
            break;
        if (!sx_run_state(e, s)) {
            ok = false;
            break;
        }
        if (e->opt.progress && wh_clock_s() >= next_report) {
            report_progress(e);
            next_report = wh_clock_s() + progress_every(e);
        }
    }
    if (e->abandoned) {
        r->budget_hit = true;
        r->path_cap_hit = false;
    }
    result_fill(e, r);
    if (!ok || e->fatal) {
        if (!wh_error_is_set(err))
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "%s",
                         e->z.failed ? e->z.errmsg : "symbolic execution failed");
        sx_result_free(r);
        return NULL;
    }
    /* free the pending states now: their memory is no longer needed */
    for (int i = 0; i < e->nwork; i++)
        sx_state_free(e, e->work[i]);
    e->nwork = 0;
    sx_solver_reset_sync(e);
    return r;
}

void sx_result_free(sx_result *r)
{
    if (!r)
        return;
    sx_engine *e = r->priv;
    if (e)
        sx_engine_free(e);
    for (int i = 0; i < r->npaths; i++)
        sx_path_free(&r->paths[i]);
    free(r->paths);
    for (int i = 0; i < r->nissues; i++) {
        free(r->issues[i].message);
        free(r->issues[i].source);
        free(r->issues[i].condition);
        free(r->issues[i].model);
        free(r->issues[i].values);
    }
    free(r->issues);
    free(r->kernel);
    free(r->entry);
    free(r->domains);
    free(r);
}

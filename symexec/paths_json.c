/*
 * paths_json.c — a result as JSON (the body of paths.json): the paths with
 * their formulas, metrics, decision traces and legs; the branch
 * legs with their PTX lines and which are covered; cut/error/pending
 * counts; issues (possible out-of-bounds accesses, barrier divergence);
 * timings and the value-domain assumptions.
 */
#include "symexec/symexec.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static json_t *decisions_json(const sx_path *p)
{
    json_t *all = json_array();
    for (int t = 0; all && t < p->nthreads; t++) {
        json_t *th = json_array();
        for (int k = 0; th && k < p->ndecisions[t]; k++) {
            const sx_decision *d = &p->decisions[t][k];
            char buf[48];
            if (d->interval > 0)
                snprintf(buf, sizeof buf, "%d:%c@%d", d->line, d->taken ? 'T' : 'F', d->interval);
            else
                snprintf(buf, sizeof buf, "%d:%c", d->line, d->taken ? 'T' : 'F');
            json_array_append_new(th, json_string(buf));
        }
        json_array_append_new(all, th);
    }
    return all;
}

static json_t *path_json(const sx_result *r, int i)
{
    const sx_path *p = &r->paths[i];
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "index", json_integer(i));
    json_object_set_new(o, "kind", json_string(sx_path_kind_name(p->kind)));
    json_object_set_new(o, "brdiv", json_real(p->brdiv));
    json_object_set_new(o, "instr", json_integer((json_int_t)p->instr));
    json_object_set_new(o, "warp_instr", json_integer((json_int_t)p->warp_instr));
    json_object_set_new(o, "intervals", json_integer(p->intervals));
    json_object_set_new(o, "uf", json_boolean(p->uf));
    if (p->note)
        json_object_set_new(o, "note", json_string(p->note));
    json_t *legs = json_array();
    for (int k = 0; legs && k < p->nlegs; k++)
        json_array_append_new(legs, json_integer(p->legs[k]));
    json_object_set_new(o, "legs", legs);
    json_object_set_new(o, "decisions", decisions_json(p));
    json_object_set_new(o, "formula", json_string(p->formula ? p->formula : ""));
    return o;
}

bool sx_leg_source(const ptx_module *m, const sx_leg *l, char *buf, size_t size)
{
    if (l->func < 0 || l->func >= m->nfuncs || l->block < 0 || l->block >= m->funcs[l->func].nblocks)
        return false;
    const ptx_function *f = &m->funcs[l->func];
    const ptx_block *b = &f->blocks[l->block];
    return ptx_source_of(m, &f->instrs[b->first + b->count - 1], buf, size);
}

static json_t *legs_json(const sx_result *r, const ptx_module *m)
{
    json_t *a = json_array();
    for (int k = 0; a && k < r->nlegs; k++) {
        const sx_leg *l = &r->legs[k];
        json_t *o = json_object();
        json_object_set_new(o, "index", json_integer(k));
        if (m && l->func >= 0 && l->func < m->nfuncs)
            json_object_set_new(o, "function", json_string(m->funcs[l->func].name));
        json_object_set_new(o, "line", json_integer(l->line));
        char src[600];
        if (m && sx_leg_source(m, l, src, sizeof src))
            json_object_set_new(o, "source", json_string(src));
        json_object_set_new(o, "leg", json_string(l->taken ? "taken" : "fallthrough"));
        json_object_set_new(o, "target_line", json_integer(l->target_line));
        json_object_set_new(o, "covered", json_boolean(r->covered[k]));
        json_array_append_new(a, o);
    }
    return a;
}

static const char *issue_kind(sx_issue_kind k)
{
    switch (k) {
    case SX_ISSUE_OOB: return "out-of-bounds";
    case SX_ISSUE_BARRIER: return "barrier-divergence";
    case SX_ISSUE_BRANCH: return "branch-index";
    case SX_ISSUE_ASSERT: return "assertion";
    default: return "unsupported";
    }
}

static json_t *issues_json(const sx_result *r)
{
    json_t *a = json_array();
    for (int i = 0; a && i < r->nissues; i++) {
        const sx_issue *is = &r->issues[i];
        json_t *o = json_object();
        json_object_set_new(o, "kind", json_string(issue_kind(is->kind)));
        json_object_set_new(o, "line", json_integer(is->line));
        json_object_set_new(o, "thread", json_integer(is->thread));
        json_object_set_new(o, "message", json_string(is->message ? is->message : ""));
        if (is->source)
            json_object_set_new(o, "source", json_string(is->source));
        if (is->condition)
            json_object_set_new(o, "condition", json_string(is->condition));
        if (is->model)
            json_object_set_new(o, "model", json_string(is->model));
        json_array_append_new(a, o);
    }
    return a;
}

json_t *sx_result_json(const sx_result *r, const ptx_module *m)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "kernel", json_string(r->kernel ? r->kernel : ""));
    json_object_set_new(o, "entry", json_string(r->entry ? r->entry : ""));
    json_object_set_new(o, "threads", json_integer(r->threads));
    json_object_set_new(o, "max_iter", json_integer(r->max_iter));
    json_object_set_new(o, "paths_total", json_integer(r->npaths));
    json_object_set_new(o, "paths_done", json_integer(r->ndone));
    json_object_set_new(o, "paths_cut", json_integer(r->ncut));
    json_object_set_new(o, "paths_error", json_integer(r->nerror));
    json_object_set_new(o, "pending", json_integer(r->npending));
    json_object_set_new(o, "budget_hit", json_boolean(r->budget_hit));
    json_object_set_new(o, "coverage", json_real(sx_result_coverage(r)));
    json_object_set_new(o, "legs_total", json_integer(r->nlegs));
    json_object_set_new(o, "legs_covered", json_integer(r->nlegs_covered));
    json_object_set_new(o, "time_s", json_real(r->time_s));
    json_object_set_new(o, "coverage_time_s", json_real(r->coverage_time_s));
    json_object_set_new(o, "solver_s", json_real(r->solver_s));
    json_object_set_new(o, "solver_calls", json_integer(r->solver_calls));
    json_object_set_new(o, "forks", json_integer(r->forks));
    json_object_set_new(o, "solver_giveups", json_integer(r->giveups));
    json_object_set_new(o, "witness_forks", json_integer(r->witnesses));
    json_object_set_new(o, "solver_interrupted", json_integer(r->interrupted));
    json_object_set_new(o, "solver_memouts", json_integer(r->memouts));
    json_object_set_new(o, "accesses_pinned", json_integer(r->pinned));
    json_object_set_new(o, "accesses_word_cases", json_integer(r->word_cases));
    json_object_set_new(o, "paths_concolic", json_integer(r->concolic));
    json_object_set_new(o, "legs", legs_json(r, m));
    json_object_set_new(o, "issues", issues_json(r));
    json_object_set_new(o, "domains", json_string(r->domains ? r->domains : ""));
    json_t *paths = json_array();
    for (int i = 0; paths && i < r->npaths; i++)
        json_array_append_new(paths, path_json(r, i));
    json_object_set_new(o, "paths", paths);
    return o;
}

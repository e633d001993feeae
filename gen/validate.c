/*
 * validate.c — replaying atoms on the sim backend with X threads and
 * checking that each thread takes the branch decisions of its path.
 */
#include "gen/internal.h"

#include <stdlib.h>
#include <string.h>

static void record_branch(void *ctx, uint64_t thread, int func, int block, bool taken)
{
    gen_trace *t = ctx;
    if (thread >= (uint64_t)t->nthreads) return;
    gen_trace_thread *th = &t->threads[thread];
    if (th->n >= t->keep) {
        th->n++; /* past every decision of the path: the count is enough */
        return;
    }
    if (th->n == th->cap) {
        int cap = th->cap ? th->cap * 2 : 64;
        gen_branch *b = realloc(th->b, (size_t)cap * sizeof *b);
        if (!b) {
            t->oom = true;
            return;
        }
        th->b = b;
        th->cap = cap;
    }
    th->b[th->n++] = (gen_branch){ func, block, taken };
}

bool gen_validator_open(gen_validator *v, const wh_spec *spec, int x, wh_error *err)
{
    memset(v, 0, sizeof *v);
    v->trace.nthreads = x;
    v->trace.threads = calloc((size_t)x, sizeof *v->trace.threads);
    if (!v->trace.threads) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.step_limit = GEN_VALIDATE_STEP_LIMIT;
    o.on_branch = record_branch;
    o.branch_ctx = &v->trace;
    v->h = harness_open(spec, HARNESS_SIM, &o, err);
    if (!v->h) {
        gen_validator_close(v);
        return false;
    }
    return true;
}

void gen_validator_close(gen_validator *v)
{
    if (v->h) harness_close(v->h);
    for (int t = 0; v->trace.threads && t < v->trace.nthreads; t++) free(v->trace.threads[t].b);
    free(v->trace.threads);
    memset(v, 0, sizeof *v);
}

/* A finished path's decisions must be replayed exactly; a cut path's are a
 * prefix of what the thread does once the loop is no longer cut. */
static bool same_decisions(const ptx_module *mod, const sx_path *p, const gen_trace *tr)
{
    bool prefix = p->kind == SX_PATH_CUT;
    for (int t = 0; t < tr->nthreads && t < p->nthreads; t++) {
        const gen_trace_thread *th = &tr->threads[t];
        if (prefix ? th->n < p->ndecisions[t] : th->n != p->ndecisions[t]) return false;
        for (int k = 0; k < p->ndecisions[t]; k++) {
            const sx_decision *d = &p->decisions[t][k];
            int block = mod->funcs[d->func].instrs[d->instr].block;
            if (th->b[k].func != d->func || th->b[k].block != block || th->b[k].taken != d->taken) return false;
        }
    }
    return true;
}

bool gen_validate_atom(gen_validator *v, const ptx_module *mod, const sx_path *p, wh_image *atom, bool *valid,
                       bool *hung, wh_error *err)
{
    v->trace.keep = 1;
    for (int t = 0; t < v->trace.nthreads; t++) {
        v->trace.threads[t].n = 0;
        if (t < p->nthreads && p->ndecisions[t] + 1 > v->trace.keep) v->trace.keep = p->ndecisions[t] + 1;
    }
    v->trace.oom = false;
    harness_result res;
    if (!harness_measure(v->h, atom, 1, &res, err)) return false;
    bool ok = res.status == HARNESS_OK;
    *hung = res.status == HARNESS_TIMEOUT;
    harness_result_free(&res);
    if (v->trace.oom) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory recording a branch trace");
        return false;
    }
    *valid = ok && same_decisions(mod, p, &v->trace);
    return true;
}

/*
 * metrics.c — turning an ended state into a path record: its formula
 * (SMT-LIB2), per-thread decision traces, covered legs, barrier intervals,
 * and the metrics:
 *
 *   instr       thread instructions, summed over the threads;
 *   brdiv       per barrier interval b, (D_b - 1) / (X - 1) * 100 where D_b
 *               is the number of distinct decision sequences among the
 *               threads that ran in b; averaged over the intervals;
 *   warp_instr  instructions issued per warp under SIMT serialization:
 *               the threads' block visits of each interval replayed
 *               through the emulator's reconvergence model (ptx/simt.c),
 *               splitting where their next blocks differ and reconverging
 *               at the immediate post-dominator of the block where they
 *               split (threads entering different functions from one
 *               indirect call reconverge after the call, which is issued
 *               once per target group, as the sim does); each merged visit
 *               issues its instructions once.
 */
#include "core/alloc.h"
#include "symexec/internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int depth, func, block, count;
} visit;

typedef struct {
    visit *v;
    int n, cap;
} vtrace;

/* ---- SIMT replay ------------------------------------------------------------ */

static bool same_key(const visit *a, const visit *b)
{
    return a->depth == b->depth && a->func == b->func && a->block == b->block;
}

/*
 * The threads' block visits of one barrier interval run through the SIMT
 * model of ptx/simt.c, the one the emulator runs warps with.  Positions
 * are numbered visit keys (depth, func, block); an entry's pc is the key
 * it issued last (-1: none yet), which is what its next divergence
 * reconverges after; an rpc is a key, RPC_NONE, or RPC_RETURN(d): "back
 * below call depth d" (the function's virtual exit).
 */
enum { RPC_NONE = -1 };
#define RPC_RETURN(depth) (-2 - (depth))

typedef struct {
    visit *k;
    int n, cap;
} keyset;

static int key_id(keyset *ks, const visit *v)
{
    for (int i = 0; i < ks->n; i++)
        if (same_key(&ks->k[i], v))
            return i;
    if (ks->n == ks->cap) {
        ks->cap = ks->cap ? 2 * ks->cap : 32;
        ks->k = wh_xrealloc(ks->k, (size_t)ks->cap * sizeof *ks->k);
    }
    ks->k[ks->n] = *v;
    return ks->n++;
}

static bool at_rpc(const keyset *ks, int rpc, const vtrace *tr, int pos)
{
    if (pos >= tr->n)
        return true;
    if (rpc == RPC_NONE)
        return false;
    const visit *v = &tr->v[pos];
    if (rpc <= RPC_RETURN(0))
        return v->depth < -2 - rpc;
    return same_key(v, &ks->k[rpc]);
}

/* Where the threads of a split reconverge: after the block the entry
 * issued last, its ipdom in the same frame (or the frame's return); before
 * it issued anything, where the entry itself reconverges. */
static int split_rpc(const sx_engine *e, keyset *ks, const ptx_simt_entry *en)
{
    if (en->pc < 0)
        return en->rpc;
    visit last = ks->k[en->pc];
    const ptx_function *f = &e->mod->funcs[last.func];
    int ip = f->blocks[last.block].ipdom;
    if (ip == PTX_BLOCK_EXIT)
        return RPC_RETURN(last.depth);
    visit r = { .depth = last.depth, .func = last.func, .block = ip };
    return key_id(ks, &r);
}

static uint64_t simt_issue(const sx_engine *e, const vtrace *tr, int n)
{
    int pos[32] = { 0 };
    uint64_t total = 0, plain = 0;
    uint32_t all = 0;
    long budget = 64;
    for (int i = 0; i < n; i++) {
        if (tr[i].n > 0)
            all |= 1u << i;
        budget += 4L * tr[i].n;
        for (int k = 0; k < tr[i].n; k++)
            plain += (uint64_t)tr[i].v[k].count;
    }
    keyset ks = { 0 };
    ptx_simt_stack st = { 0 };
    ptx_simt_push(&st, -1, RPC_NONE, all);
    while (st.n > 0) {
        if (--budget < 0) {
            total = plain;    /* cannot happen on a well-formed trace; stay safe */
            break;
        }
        ptx_simt_entry *en = &st.e[st.n - 1];
        int run[32], nrun = 0;
        for (int i = 0; i < n; i++)
            if ((en->mask >> i & 1) && !at_rpc(&ks, en->rpc, &tr[i], pos[i]))
                run[nrun++] = i;
        if (nrun == 0) {
            st.n--;
            continue;
        }
        const visit *k0 = &tr[run[0]].v[pos[run[0]]];
        bool one = true;
        for (int j = 1; j < nrun && one; j++)
            one = same_key(&tr[run[j]].v[pos[run[j]]], k0);
        if (one) {
            int cnt = 0;
            for (int j = 0; j < nrun; j++) {
                const visit *v = &tr[run[j]].v[pos[run[j]]];
                if (v->count > cnt)
                    cnt = v->count;
                pos[run[j]]++;
            }
            total += (uint64_t)cnt;
            en->pc = key_id(&ks, k0);
            continue;
        }
        /* divergence: one group per next block, in order of their first thread */
        int pcs[32];
        uint32_t masks[32];
        int ng = 0;
        uint32_t left = 0;
        for (int j = 0; j < nrun; j++)
            left |= 1u << run[j];
        while (left) {
            const visit *kf = &tr[__builtin_ctz(left)].v[pos[__builtin_ctz(left)]];
            masks[ng] = 0;
            for (int j = 0; j < nrun; j++) {
                if ((left >> run[j] & 1) && same_key(&tr[run[j]].v[pos[run[j]]], kf)) {
                    masks[ng] |= 1u << run[j];
                    left &= ~(1u << run[j]);
                }
            }
            pcs[ng++] = -1;   /* a group has issued nothing yet */
        }
        /* threads entering different functions from one call (an indirect
         * call): the sim calls them one group after another, issuing the
         * call again for each further group, and all meet after the call,
         * where the caller's block goes on (a visit of the same key) */
        bool call_split = en->pc >= 0;
        for (int j = 0; j < nrun && call_split; j++)
            call_split = tr[run[j]].v[pos[run[j]]].depth > ks.k[en->pc].depth;
        if (call_split)
            total += (uint64_t)(ng - 1);
        ptx_simt_split(&st, call_split ? en->pc : split_rpc(e, &ks, en), pcs, masks, ng);
    }
    ptx_simt_free(&st);
    free(ks.k);
    return total;
}

/* ---- traces from a state -------------------------------------------------- */

static bool thread_visits(const sx_thread *th, vtrace **per_interval, int nint)
{
    int n;
    sx_node **v = sx_node_array(th->vis, &n);
    if (!v)
        return false;
    for (int i = 0; i < n; i++) {
        int b = v[i]->d;
        if (b < 0 || b >= nint)
            continue;
        vtrace *tr = &(*per_interval)[b];
        if (tr->n == tr->cap) {
            int cap = tr->cap ? 2 * tr->cap : 64;
            visit *nv = realloc(tr->v, (size_t)cap * sizeof *nv);
            if (!nv) {
                free(v);
                return false;
            }
            tr->v = nv;
            tr->cap = cap;
        }
        tr->v[tr->n++] = (visit){ v[i]->a >> 16, v[i]->a & 0xffff, v[i]->b, v[i]->c };
    }
    free(v);
    return true;
}

static uint64_t warp_instructions(const sx_engine *e, const sx_state *s, int nint, bool *ok)
{
    int X = s->X;
    vtrace **tr = calloc((size_t)X, sizeof *tr);
    uint64_t total = 0;
    *ok = tr != NULL;
    for (int t = 0; t < X && *ok; t++) {
        tr[t] = calloc((size_t)nint, sizeof *tr[t]);
        *ok = tr[t] && thread_visits(&s->th[t], &tr[t], nint);
    }
    for (int b = 0; b < nint && *ok; b++) {
        for (int w0 = 0; w0 < X; w0 += 32) {
            vtrace warp[32];
            int n = X - w0 < 32 ? X - w0 : 32;
            for (int i = 0; i < n; i++)
                warp[i] = tr[w0 + i][b];
            total += simt_issue(e, warp, n);
        }
    }
    for (int t = 0; tr && t < X; t++) {
        if (tr[t])
            for (int b = 0; b < nint; b++)
                free(tr[t][b].v);
        free(tr[t]);
    }
    free(tr);
    return total;
}

static bool thread_ran_in(const sx_thread *th, int b)
{
    for (const sx_node *n = th->vis; n; n = n->up)
        if (n->d == b)
            return true;
    return false;
}

static bool same_decisions(const sx_decision *a, int na, const sx_decision *b, int nb, int interval)
{
    int i = 0, j = 0;
    for (;;) {
        while (i < na && a[i].interval != interval)
            i++;
        while (j < nb && b[j].interval != interval)
            j++;
        if (i >= na || j >= nb)
            return i >= na && j >= nb;
        if (a[i].func != b[j].func || a[i].instr != b[j].instr || a[i].taken != b[j].taken)
            return false;
        i++;
        j++;
    }
}

static double branch_divergence(const sx_state *s, const sx_path *p, int nint)
{
    if (s->X < 2)
        return 0.0;
    double sum = 0.0;
    for (int b = 0; b < nint; b++) {
        int distinct = 0;
        for (int t = 0; t < s->X; t++) {
            if (!thread_ran_in(&s->th[t], b))
                continue;
            bool seen = false;
            for (int u = 0; u < t && !seen; u++)
                seen = thread_ran_in(&s->th[u], b)
                       && same_decisions(p->decisions[t], p->ndecisions[t], p->decisions[u],
                                         p->ndecisions[u], b);
            if (!seen)
                distinct++;
        }
        if (distinct > 0)
            sum += (double)(distinct - 1) / (double)(s->X - 1) * 100.0;
    }
    return nint > 0 ? sum / nint : 0.0;
}

static bool decisions(const sx_engine *e, const sx_state *s, sx_path *p)
{
    p->nthreads = s->X;
    p->decisions = calloc((size_t)s->X, sizeof *p->decisions);
    p->ndecisions = calloc((size_t)s->X, sizeof *p->ndecisions);
    if (!p->decisions || !p->ndecisions)
        return false;
    for (int t = 0; t < s->X; t++) {
        int n;
        sx_node **v = sx_node_array(s->th[t].dec, &n);
        if (!v)
            return false;
        p->decisions[t] = calloc((size_t)(n + 1), sizeof *p->decisions[t]);
        if (!p->decisions[t]) {
            free(v);
            return false;
        }
        p->ndecisions[t] = n;
        for (int i = 0; i < n; i++) {
            sx_decision *d = &p->decisions[t][i];
            d->func = v[i]->a;
            d->instr = v[i]->b;
            d->taken = v[i]->c != 0;
            d->interval = v[i]->d;
            d->line = e->mod->funcs[d->func].instrs[d->instr].line;
        }
        free(v);
    }
    return true;
}

static bool path_legs(sx_engine *e, const sx_state *s, sx_path *p)
{
    p->legs = malloc((size_t)(e->nlegs + 1) * sizeof *p->legs);
    if (!p->legs)
        return false;
    for (int k = 0; k < e->nlegs; k++) {
        if (!(s->legs[k / 8] & (1u << (k % 8))))
            continue;
        p->legs[p->nlegs++] = k;
        if (!e->covered[k]) {
            e->covered[k] = true;
            e->res->nlegs_covered++;
            e->res->coverage_time_s = wh_clock_s() - e->t0;
        }
    }
    return true;
}

/* The conjunction of the path constraints (owned reference). */
static Z3_ast path_formula(sx_engine *e, const sx_state *s)
{
    sx_z *z = &e->z;
    int n;
    sx_node **v = sx_node_array(s->pc, &n);
    if (!v)
        return NULL;
    Z3_ast *args = malloc((size_t)(n + 1) * sizeof *args);
    Z3_ast f = NULL;
    if (args) {
        for (int i = 0; i < n; i++)
            args[i] = v[i]->ast;
        f = n == 0 ? z->tru : n == 1 ? args[0] : sx_zk(z, Z3_mk_and(z->c, (unsigned)n, args));
        sx_z_inc(z, f);
    }
    free(args);
    free(v);
    return f;
}

void sx_path_free(sx_path *p)
{
    free(p->formula);
    if (p->decisions)
        for (int t = 0; t < p->nthreads; t++)
            free(p->decisions[t]);
    free(p->decisions);
    free(p->ndecisions);
    free(p->legs);
    free(p->note);
}

/* The state's model when it satisfies the path's formula (it should, see
 * sx_state.model; checked, as it is cheap): the path's seed-0 atom
 * without a solver check, and the only one of a concolic path whose
 * formula the solver gives up on (model.c).  A reference is taken. */
static Z3_model model_of_formula(sx_engine *e, Z3_model m, Z3_ast f)
{
    Z3_context c = e->z.c;
    Z3_ast v = NULL;
    if (!m || !Z3_model_eval(c, m, f, true, &v) || !v)
        return NULL;
    Z3_inc_ref(c, v);
    bool holds = Z3_get_bool_value(c, v) == Z3_L_TRUE;
    Z3_dec_ref(c, v);
    if (!holds)
        return NULL;
    Z3_model_inc_ref(c, m);
    return m;
}

bool sx_metrics_record(sx_engine *e, sx_state *s)
{
    sx_result *r = e->res;
    sx_z *z = &e->z;
    sx_path *np = realloc(r->paths, (size_t)(r->npaths + 1) * sizeof *np);
    Z3_ast *nf = realloc(e->forms, (size_t)(r->npaths + 1) * sizeof *nf);
    if (nf)
        e->forms = nf;
    bool *nfp = realloc(e->form_fp, (size_t)(r->npaths + 1) * sizeof *nfp);
    if (nfp)
        e->form_fp = nfp;
    Z3_model *nfm = realloc(e->first_model, (size_t)(r->npaths + 1) * sizeof *nfm);
    if (nfm)
        e->first_model = nfm;
    if (!np || !nf || !nfp || !nfm) {
        if (np)
            r->paths = np;
        return false;
    }
    r->paths = np;
    sx_path *p = &r->paths[r->npaths];
    memset(p, 0, sizeof *p);
    p->kind = s->end;
    int nint = s->interval + 1;
    p->intervals = nint;
    p->uf = s->uf;
    p->note = s->note ? strdup(s->note) : NULL;
    for (int t = 0; t < s->X; t++)
        p->instr += s->th[t].instrs;
    Z3_ast f = path_formula(e, s);
    bool ok = f && decisions(e, s, p) && path_legs(e, s, p);
    if (ok) {
        const char *txt = Z3_benchmark_to_smtlib_string(z->c, "path", "", "unknown", "", 0, NULL, f);
        p->formula = strdup(txt ? txt : "");
        p->brdiv = branch_divergence(s, p, nint);
        p->warp_instr = warp_instructions(e, s, nint, &ok);
    }
    if (!ok || !p->formula) {
        sx_path_free(p);
        sx_z_dec(z, f);
        return false;
    }
    /* The structure is part of every path its atoms are solved for, not of
     * the text above (one constraint per element, the same on every path). */
    if (e->structure) {
        Z3_ast g = sx_z_and2(z, f, e->structure);
        sx_z_inc(z, g);
        sx_z_dec(z, f);
        f = g;
    }
    e->forms[r->npaths] = f;
    e->form_fp[r->npaths] = sx_state_pc_float(s);
    e->first_model[r->npaths] = model_of_formula(e, s->model, f);
    r->npaths++;
    r->concolic += s->concolic;
    if (p->kind == SX_PATH_DONE)
        r->ndone++;
    else if (p->kind == SX_PATH_CUT)
        r->ncut++;
    else
        r->nerror++;
    return true;
}

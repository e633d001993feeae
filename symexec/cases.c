/*
 * cases.c — branch conditions over floats that are a finite case split.
 *
 * When floats are computed from fixed data, inputs reach them only
 * through selects: `ite(flags[1] == 2, 0.05, 0.0)` (lbm's cell types
 * pick the populations and the inlet velocity).  Checking a condition
 * over such terms bit-blasts the float arithmetic, several milliseconds
 * per check, every time.  Yet once each select condition is fixed the
 * floats fold to numerals, so the condition is equivalent to the
 * disjunction, over the combinations of the select conditions, of that
 * combination and what the condition folds to under it: a term over
 * integers only, usually a constant (a guard no input can trigger) or a
 * small formula over the inputs, which the incremental bit-vector solver
 * answers in microseconds.  The rewrite is an equivalence, whatever the
 * path constraints: nothing is lost or assumed.
 */
#include "symexec/internal.h"

#include <stdlib.h>

/* Select conditions split on at most (2^MAX_ATOMS combinations). */
#define MAX_ATOMS 5
/* Nodes walked per term: past it the term is left alone. */
#define MAX_WALK 20000

static bool sort_is_float(Z3_context c, Z3_ast a)
{
    Z3_sort_kind k = Z3_get_sort_kind(c, Z3_get_sort(c, a));
    return k == Z3_FLOATING_POINT_SORT || k == Z3_ROUNDING_MODE_SORT;
}

typedef struct {
    Z3_ast *st;
    int n, cap;
    Z3_ast *seen;            /* visited nodes (linear probing on the pointer) */
    unsigned seen_cap;
} walk;

static bool walk_push(walk *w, Z3_ast a)
{
    if (w->n == w->cap) {
        int cap = w->cap ? w->cap * 2 : 256;
        Z3_ast *v = realloc(w->st, (size_t)cap * sizeof *v);
        if (!v)
            return false;
        w->st = v;
        w->cap = cap;
    }
    w->st[w->n++] = a;
    return true;
}

/* 1 first visit, 0 seen before. */
static int walk_visit(walk *w, Z3_ast a)
{
    unsigned k = (unsigned)(((uintptr_t)a >> 4) * 2654435761u) & (w->seen_cap - 1);
    while (w->seen[k]) {
        if (w->seen[k] == a)
            return 0;
        k = (k + 1) & (w->seen_cap - 1);
    }
    w->seen[k] = a;
    return 1;
}

static bool walk_init(walk *w, Z3_ast root)
{
    w->st = NULL;
    w->n = w->cap = 0;
    w->seen_cap = 2u * 32768u;   /* > 2 * MAX_WALK: probing always ends */
    w->seen = calloc(w->seen_cap, sizeof *w->seen);
    return w->seen && walk_push(w, root);
}

static void walk_fini(walk *w)
{
    free(w->st);
    free(w->seen);
}

/* Does `a` have a float subterm?  -1: too large to tell. */
static int has_float(sx_engine *e, Z3_ast a)
{
    Z3_context c = e->z.c;
    walk w;
    if (!walk_init(&w, a)) {
        walk_fini(&w);
        return -1;
    }
    int res = 0, budget = MAX_WALK;
    while (w.n > 0 && res == 0) {
        Z3_ast t = w.st[--w.n];
        if (!walk_visit(&w, t))
            continue;
        if (--budget < 0) {
            res = -1;
            break;
        }
        if (sort_is_float(c, t)) {
            res = 1;
            break;
        }
        if (Z3_get_ast_kind(c, t) != Z3_APP_AST)
            continue;
        Z3_app app = Z3_to_app(c, t);
        unsigned na = Z3_get_app_num_args(c, app);
        for (unsigned i = 0; i < na && res == 0; i++)
            if (!walk_push(&w, Z3_get_app_arg(c, app, i)))
                res = -1;
    }
    walk_fini(&w);
    return res;
}

bool sx_cases_has_float(sx_engine *e, Z3_ast a)
{
    return has_float(e, a) != 0;
}

/* The distinct non-constant conditions of the term's ite nodes whose
 * value is a float (at most MAX_ATOMS, none over floats itself), and
 * whether the term has float subterms at all.  false: the term is not a
 * case split of that kind. */
static bool collect_atoms(sx_engine *e, Z3_ast a, Z3_ast *atoms, int *natoms, bool *fp)
{
    Z3_context c = e->z.c;
    walk w;
    bool ok = walk_init(&w, a);
    int budget = MAX_WALK;
    *natoms = 0;
    *fp = false;
    while (ok && w.n > 0) {
        Z3_ast t = w.st[--w.n];
        if (!walk_visit(&w, t))
            continue;
        if (--budget < 0 || Z3_get_ast_kind(c, t) != Z3_APP_AST) {
            ok = budget >= 0;
            continue;
        }
        bool tf = sort_is_float(c, t);
        *fp = *fp || tf;
        Z3_app app = Z3_to_app(c, t);
        unsigned na = Z3_get_app_num_args(c, app);
        if (tf && Z3_get_decl_kind(c, Z3_get_app_decl(c, app)) == Z3_OP_ITE) {
            Z3_ast cond = Z3_get_app_arg(c, app, 0);
            bool known = sx_z_bool_value(&e->z, cond) >= 0;
            for (int i = 0; i < *natoms && !known; i++)
                known = atoms[i] == cond;
            if (!known) {
                if (*natoms == MAX_ATOMS || has_float(e, cond) != 0) {
                    ok = false;
                    break;
                }
                atoms[(*natoms)++] = cond;
            }
            ok = walk_push(&w, Z3_get_app_arg(c, app, 1)) && walk_push(&w, Z3_get_app_arg(c, app, 2));
            continue;
        }
        for (unsigned i = 0; i < na && ok; i++)
            ok = walk_push(&w, Z3_get_app_arg(c, app, i));
    }
    walk_fini(&w);
    return ok;
}

Z3_ast sx_cases_defloat(sx_engine *e, Z3_ast a)
{
    sx_z *z = &e->z;
    Z3_context c = z->c;
    Z3_ast atoms[MAX_ATOMS];
    int n = 0;
    bool fp = false;
    if (!a || !sx_z_is_bool(z, a) || sx_z_bool_value(z, a) >= 0 || !collect_atoms(e, a, atoms, &n, &fp) || !fp
        || n == 0)
        return a;
    Z3_ast out = z->fls;
    for (unsigned combo = 0; combo < (1u << n); combo++) {
        Z3_ast to[MAX_ATOMS], lits[MAX_ATOMS + 1];
        for (int i = 0; i < n; i++) {
            bool v = (combo >> i) & 1u;
            to[i] = sx_z_bool(z, v);
            lits[i] = v ? atoms[i] : sx_z_not(z, atoms[i]);
        }
        Z3_ast r = sx_zk(z, Z3_substitute(c, a, (unsigned)n, atoms, to));
        r = r ? sx_z_simplify(z, r) : NULL;
        if (!r || has_float(e, r) != 0)
            return a;
        int rv = sx_z_bool_value(z, r);
        if (rv == 0)
            continue;
        int nl = n;
        if (rv < 0)
            lits[nl++] = r;
        Z3_ast term = sx_zk(z, Z3_mk_and(c, (unsigned)nl, lits));
        out = sx_z_or2(z, out, term);
        if (!out)
            return a;
    }
    return sx_z_simplify(z, out);
}

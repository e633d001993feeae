/*
 * test_symexec_ceval.c — the compiled evaluator of path conjuncts
 * (symexec/ceval.c) answers as Z3's model evaluation does: operator by
 * operator at the edges of every width (the value Z3's simplifier computes
 * from numerals is the one the program must equal), and on every conjunct
 * of real path formulas (memory reads at symbolic offsets included) at
 * random, extreme and model points.  Atoms are made on its answers, so a
 * disagreement would put atoms off their paths.
 */
#include <criterion/criterion.h>

#include "core/pcg32.h"
#include "symexec/internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    wh_spec *spec;
    ptx_module *mod;
    sx_result *res;
    sx_engine *e;
    int *place;      /* identity over the symbols with a constant, -1 others */
    uint64_t *vals;
} fixture;

static void open_fixture(fixture *f, const char *spec_path, int paths)
{
    wh_error err;
    wh_error_clear(&err);
    memset(f, 0, sizeof *f);
    f->spec = wh_spec_load(spec_path, &err);
    cr_assert(f->spec, "%s: %s", spec_path, err.msg);
    char ptx[1024];
    cr_assert(wh_spec_ptx_path(f->spec, ptx, sizeof ptx, &err), "%s", err.msg);
    f->mod = ptx_parse_file(ptx, &err);
    cr_assert(f->mod, "%s: %s", ptx, err.msg);
    sx_options o;
    sx_options_default(&o);
    o.threads = 2;
    o.time_budget_s = 60;
    o.path_budget = paths;
    f->res = sx_explore(f->spec, f->mod, &o, &err);
    cr_assert(f->res, "%s: %s", spec_path, err.msg);
    f->e = f->res->priv;
    f->place = malloc((size_t)(f->e->nsyms + 1) * sizeof *f->place);
    f->vals = calloc((size_t)(f->e->nsyms + 1), sizeof *f->vals);
    for (int i = 0; i < f->e->nsyms; i++)
        f->place[i] = f->e->syms[i].ast ? i : -1;
}

static void close_fixture(fixture *f)
{
    free(f->place);
    free(f->vals);
    sx_result_free(f->res);
    ptx_module_free(f->mod);
    wh_spec_free(f->spec);
}

static uint64_t width_mask(int bytes)
{
    return bytes >= 8 ? ~0ULL : (1ULL << (8 * bytes)) - 1;
}

/* What Z3_model_eval says of Bool f in a model of the fixture's values
 * (no completion: a formula they do not make ground is not true). */
static bool z3_true(fixture *f, Z3_ast form)
{
    Z3_context c = f->e->z.c;
    Z3_model m = Z3_mk_model(c);
    Z3_model_inc_ref(c, m);
    for (int i = 0; i < f->e->nsyms; i++) {
        const sx_symbol *s = &f->e->syms[i];
        if (!s->ast)
            continue;
        Z3_ast v = sx_z_num(&f->e->z, f->vals[i] & width_mask(s->bytes), s->bytes * 8);
        Z3_add_const_interp(c, m, Z3_get_app_decl(c, Z3_to_app(c, s->ast)), v);
    }
    Z3_ast r = NULL;
    bool t = Z3_model_eval(c, m, form, false, &r) && r && Z3_get_bool_value(c, r) == Z3_L_TRUE;
    Z3_model_dec_ref(c, m);
    return t;
}

/* Compiles (it must) and compares with Z3 at the fixture's values. */
static void expect_agree(fixture *f, Z3_ast form, const char *what)
{
    sx_cprog *p = sx_cprog_compile(f->e, form, f->place);
    cr_assert(p, "%s did not compile: %s", what, Z3_ast_to_string(f->e->z.c, form));
    bool mine = sx_cprog_eval(p, f->vals), z3 = z3_true(f, form);
    cr_expect_eq(mine, z3, "%s: compiled %d, Z3 %d on %s", what, mine, z3, Z3_ast_to_string(f->e->z.c, form));
    sx_cprog_free(p);
}

/* ---- operator by operator ----------------------------------------------------- */

/* Six 32-bit symbols of bfs1 at X = 2 (node fields and edges). */
static void six_symbols(fixture *f, int *s)
{
    int k = 0;
    for (int i = 0; i < f->e->nsyms && k < 6; i++)
        if (f->e->syms[i].ast && f->e->syms[i].bytes == 4)
            s[k++] = i;
    cr_assert_eq(k, 6, "bfs1 has %d 32-bit symbols", k);
}

/* bfs1's fixture (20 paths) and six of its 32-bit symbols. */
static void open_bfs_six(fixture *f, int *s)
{
    open_fixture(f, "kernels/bfs1.json", 20);
    six_symbols(f, s);
}

/* Operand j (0: A, 1: B, 2: C) as a term of width w from the symbols,
 * and setting its value. */
static Z3_ast operand(fixture *f, const int *s, int j, int w)
{
    Z3_context c = f->e->z.c;
    Z3_ast lo = f->e->syms[s[j]].ast, hi = f->e->syms[s[j + 3]].ast;
    if (w == 8)
        return sx_zk(&f->e->z, Z3_mk_extract(c, 7, 0, lo));
    if (w == 64)
        return sx_zk(&f->e->z, Z3_mk_concat(c, hi, lo));
    return lo;
}

static void set_operand(fixture *f, const int *s, int j, int w, uint64_t v)
{
    if (w == 8)
        f->vals[s[j]] = (f->vals[s[j]] & ~0xffULL) | (v & 0xff);
    else if (w == 64) {
        f->vals[s[j]] = v & 0xffffffffULL;
        f->vals[s[j + 3]] = v >> 32;
    } else {
        f->vals[s[j]] = v & 0xffffffffULL;
    }
}

/* Operators over terms of the fixture's context; every term made is kept
 * (sx_zk) until sx_z_release, as the context counts references. */
typedef Z3_ast (*binop)(sx_z *, Z3_ast, Z3_ast);

#define WRAP2(name, mk) \
    static Z3_ast name(sx_z *z, Z3_ast a, Z3_ast b) { return sx_zk(z, mk(z->c, a, b)); }
WRAP2(add_, Z3_mk_bvadd)
WRAP2(sub_, Z3_mk_bvsub)
WRAP2(mul_, Z3_mk_bvmul)
WRAP2(udiv_, Z3_mk_bvudiv)
WRAP2(urem_, Z3_mk_bvurem)
WRAP2(sdiv_, Z3_mk_bvsdiv)
WRAP2(srem_, Z3_mk_bvsrem)
WRAP2(smod_, Z3_mk_bvsmod)
WRAP2(and_, Z3_mk_bvand)
WRAP2(or_, Z3_mk_bvor)
WRAP2(xor_, Z3_mk_bvxor)
WRAP2(nand_, Z3_mk_bvnand)
WRAP2(nor_, Z3_mk_bvnor)
WRAP2(xnor_, Z3_mk_bvxnor)
WRAP2(shl_, Z3_mk_bvshl)
WRAP2(lshr_, Z3_mk_bvlshr)
WRAP2(ashr_, Z3_mk_bvashr)
WRAP2(erotl_, Z3_mk_ext_rotate_left)
WRAP2(erotr_, Z3_mk_ext_rotate_right)
WRAP2(ult_, Z3_mk_bvult)
WRAP2(ule_, Z3_mk_bvule)
WRAP2(ugt_, Z3_mk_bvugt)
WRAP2(uge_, Z3_mk_bvuge)
WRAP2(slt_, Z3_mk_bvslt)
WRAP2(sle_, Z3_mk_bvsle)
WRAP2(sgt_, Z3_mk_bvsgt)
WRAP2(sge_, Z3_mk_bvsge)
WRAP2(eq_, Z3_mk_eq)

static Z3_ast rotl3(sx_z *z, Z3_ast a, Z3_ast b)
{
    (void)b;
    return sx_zk(z, Z3_mk_rotate_left(z->c, 3, a));
}

static Z3_ast rotr5(sx_z *z, Z3_ast a, Z3_ast b)
{
    (void)b;
    return sx_zk(z, Z3_mk_rotate_right(z->c, 5, a));
}

static Z3_ast neg_of(sx_z *z, Z3_ast a, Z3_ast b)
{
    (void)b;
    return sx_zk(z, Z3_mk_bvneg(z->c, a));
}

static Z3_ast not_of(sx_z *z, Z3_ast a, Z3_ast b)
{
    (void)b;
    return sx_zk(z, Z3_mk_bvnot(z->c, a));
}

static Z3_ast ite_ult(sx_z *z, Z3_ast a, Z3_ast b)
{
    return sx_zk(z, Z3_mk_ite(z->c, ult_(z, a, b), sub_(z, b, a), mul_(z, a, b)));
}

static unsigned width_of(sx_z *z, Z3_ast a)
{
    return Z3_get_bv_sort_size(z->c, Z3_get_sort(z->c, a));
}

/* the low half sign-extended back to full width, plus b's high half zero-extended */
static Z3_ast sext_back(sx_z *z, Z3_ast a, Z3_ast b)
{
    unsigned w = width_of(z, a);
    Z3_ast lo = sx_zk(z, Z3_mk_sign_ext(z->c, w / 2, sx_zk(z, Z3_mk_extract(z->c, w / 2 - 1, 0, a))));
    Z3_ast hi = sx_zk(z, Z3_mk_zero_ext(z->c, w / 2, sx_zk(z, Z3_mk_extract(z->c, w - 1, w / 2, b))));
    return add_(z, lo, hi);
}

static Z3_ast repeat_of(sx_z *z, Z3_ast a, Z3_ast b)
{
    unsigned w = width_of(z, a);
    return xor_(z, sx_zk(z, Z3_mk_repeat(z->c, 2, sx_zk(z, Z3_mk_extract(z->c, w / 2 - 1, 0, a)))), b);
}

static const struct {
    const char *name;
    binop op;
} ops[] = {
    { "bvadd", add_ }, { "bvsub", sub_ }, { "bvmul", mul_ }, { "bvudiv", udiv_ }, { "bvurem", urem_ },
    { "bvsdiv", sdiv_ }, { "bvsrem", srem_ }, { "bvsmod", smod_ }, { "bvand", and_ }, { "bvor", or_ },
    { "bvxor", xor_ }, { "bvnand", nand_ }, { "bvnor", nor_ }, { "bvxnor", xnor_ }, { "bvshl", shl_ },
    { "bvlshr", lshr_ }, { "bvashr", ashr_ }, { "ext_rotate_left", erotl_ }, { "ext_rotate_right", erotr_ },
    { "rotate_left 3", rotl3 }, { "rotate_right 5", rotr5 }, { "bvneg", neg_of }, { "bvnot", not_of },
    { "ite", ite_ult }, { "sign/zero_ext", sext_back }, { "repeat", repeat_of },
};

static const struct {
    const char *name;
    binop op;
} preds[] = {
    { "bvult", ult_ }, { "bvule", ule_ }, { "bvugt", ugt_ }, { "bvuge", uge_ }, { "bvslt", slt_ },
    { "bvsle", sle_ }, { "bvsgt", sgt_ }, { "bvsge", sge_ }, { "=", eq_ },
};

static uint64_t edge_value(pcg32 *rng, int k, int w)
{
    uint64_t m = w >= 64 ? ~0ULL : (1ULL << w) - 1, top = 1ULL << (w - 1);
    uint64_t r = ((uint64_t)pcg32_next(rng) << 32 | pcg32_next(rng)) & m;
    const uint64_t v[] = { 0, 1, 2, 3, m, m - 1, top, top - 1, top + 1, (uint64_t)w, (uint64_t)w - 1, r, r >> 3 };
    return v[k % (int)(sizeof v / sizeof *v)] & m;
}

/* op(A, B) == C with C set to what Z3's simplifier makes of op on the
 * numerals: both evaluators must say true; and every predicate of A, B
 * both ways. */
Test(symexec_ceval, every_operator_at_the_edges_of_every_width, .timeout = 120)
{
    fixture f;
    int s[6];
    open_bfs_six(&f, s);
    Z3_context c = f.e->z.c;
    pcg32 rng;
    pcg32_seed(&rng, 7, 1);
    const int widths[] = { 8, 32, 64 };
    long checked = 0;
    for (int wi = 0; wi < 3; wi++) {
        int w = widths[wi];
        /* held across the sx_z_release of every round */
        Z3_ast A = operand(&f, s, 0, w), B = operand(&f, s, 1, w), C = operand(&f, s, 2, w);
        sx_z_inc(&f.e->z, A);
        sx_z_inc(&f.e->z, B);
        sx_z_inc(&f.e->z, C);
        for (int i = 0; i < 13; i++)
            for (int j = 0; j < 13; j++) {
                uint64_t a = edge_value(&rng, i, w), b = edge_value(&rng, j, w);
                set_operand(&f, s, 0, w, a);
                set_operand(&f, s, 1, w, b);
                for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
                    Z3_ast on_nums = ops[k].op(&f.e->z, sx_z_num(&f.e->z, a, w), sx_z_num(&f.e->z, b, w));
                    Z3_ast expect = sx_zk(&f.e->z, Z3_simplify(c, on_nums));
                    uint64_t ev;
                    cr_assert(sx_z_get_u64(&f.e->z, expect, &ev), "%s: no numeral", ops[k].name);
                    set_operand(&f, s, 2, w, ev);
                    Z3_ast form = eq_(&f.e->z, ops[k].op(&f.e->z, A, B), C);
                    sx_cprog *p = sx_cprog_compile(f.e, form, f.place);
                    cr_assert(p, "%s at %d bits did not compile", ops[k].name, w);
                    cr_expect(sx_cprog_eval(p, f.vals), "%s(%#llx, %#llx) at %d bits is not %#llx", ops[k].name,
                              (unsigned long long)a, (unsigned long long)b, w, (unsigned long long)ev);
                    cr_expect(z3_true(&f, form), "Z3 disagrees with its simplifier on %s", ops[k].name);
                    sx_cprog_free(p);
                    checked++;
                }
                for (size_t k = 0; k < sizeof preds / sizeof *preds; k++) {
                    expect_agree(&f, preds[k].op(&f.e->z, A, B), preds[k].name);
                    expect_agree(&f, preds[k].op(&f.e->z, B, A), preds[k].name);
                    checked += 2;
                }
                sx_z_release(&f.e->z);
            }
        sx_z_dec(&f.e->z, A);
        sx_z_dec(&f.e->z, B);
        sx_z_dec(&f.e->z, C);
    }
    cr_expect_gt(checked, 10000);
    close_fixture(&f);
}

/* Booleans, distinct, reductions, and reads of a store chain on a
 * constant array at symbolic indices (the memory model's). */
Test(symexec_ceval, booleans_reductions_and_array_reads)
{
    fixture f;
    int s[6];
    open_bfs_six(&f, s);
    Z3_context c = f.e->z.c;
    sx_z *z = &f.e->z;
    Z3_ast a = f.e->syms[s[0]].ast, b = f.e->syms[s[1]].ast, d = f.e->syms[s[2]].ast;
    Z3_sort bv32 = sx_z_bvs(z, 32);
    Z3_ast arr = sx_zk(z, Z3_mk_const_array(c, bv32, sx_z_num(z, 0x5a, 8)));
    arr = sx_zk(z, Z3_mk_store(c, arr, a, sx_zk(z, Z3_mk_extract(c, 7, 0, b))));
    arr = sx_zk(z, Z3_mk_store(c, arr, b, sx_z_num(z, 0x11, 8)));
    Z3_ast rd = sx_zk(z, Z3_mk_select(c, arr, d));
    Z3_ast p = sx_zk(z, Z3_mk_bvult(c, a, b)), q = sx_zk(z, Z3_mk_eq(c, b, d));
    Z3_ast three[3] = { a, b, d };
    Z3_ast forms[] = {
        sx_zk(z, Z3_mk_eq(c, rd, sx_z_num(z, 0x5a, 8))),
        sx_zk(z, Z3_mk_eq(c, rd, sx_z_num(z, 0x11, 8))),
        sx_zk(z, Z3_mk_bvugt(c, rd, sx_zk(z, Z3_mk_extract(c, 7, 0, b)))),
        sx_zk(z, Z3_mk_distinct(c, 3, three)),
        sx_zk(z, Z3_mk_implies(c, p, q)),
        sx_zk(z, Z3_mk_xor(c, p, q)),
        sx_zk(z, Z3_mk_iff(c, p, q)),
        sx_zk(z, Z3_mk_not(c, sx_zk(z, Z3_mk_and(c, 2, (Z3_ast[]){ p, q })))),
        sx_zk(z, Z3_mk_or(c, 2, (Z3_ast[]){ p, q })),
        sx_zk(z, Z3_mk_eq(c, sx_zk(z, Z3_mk_bvredor(c, a)), sx_z_num(z, 1, 1))),
        sx_zk(z, Z3_mk_eq(c, sx_zk(z, Z3_mk_bvredand(c, a)), sx_z_num(z, 1, 1))),
        sx_zk(z, Z3_mk_eq(c, sx_zk(z, Z3_mk_extract(c, 3, 3, a)), sx_z_num(z, 1, 1))),
    };
    const uint64_t pts[][3] = { { 0, 0, 0 }, { 1, 2, 1 }, { 2, 1, 2 }, { 7, 7, 7 }, { 0xffffffff, 0x11, 0xffffffff },
                                { 5, 9, 4 }, { 0x80000000, 0x7fffffff, 0x7fffffff }, { 8, 0x5a, 9 } };
    for (size_t i = 0; i < sizeof pts / sizeof *pts; i++) {
        f.vals[s[0]] = pts[i][0];
        f.vals[s[1]] = pts[i][1];
        f.vals[s[2]] = pts[i][2];
        for (size_t k = 0; k < sizeof forms / sizeof *forms; k++)
            expect_agree(&f, forms[k], "formula");
    }
    sx_z_release(z);
    close_fixture(&f);
}

/* What cannot be evaluated exactly is refused (the caller asks Z3). */
Test(symexec_ceval, what_it_cannot_evaluate_does_not_compile)
{
    fixture f;
    int s[6];
    open_bfs_six(&f, s);
    Z3_context c = f.e->z.c;
    sx_z *z = &f.e->z;
    Z3_ast a = f.e->syms[s[0]].ast;
    /* a constant that is none of the caller's symbols */
    Z3_ast stranger = sx_zk(z, Z3_mk_const(c, Z3_mk_string_symbol(c, "stranger"), sx_z_bvs(z, 32)));
    cr_expect_null(sx_cprog_compile(f.e, sx_zk(z, Z3_mk_bvult(c, a, stranger)), f.place));
    /* a symbol the caller has no value for */
    f.place[s[0]] = -1;
    cr_expect_null(sx_cprog_compile(f.e, sx_zk(z, Z3_mk_bvult(c, a, sx_z_num(z, 3, 32))), f.place));
    f.place[s[0]] = s[0];
    /* wider than 64 bits */
    Z3_ast wide = sx_zk(z, Z3_mk_concat(c, a, sx_zk(z, Z3_mk_concat(c, a, a))));
    cr_expect_null(sx_cprog_compile(f.e, sx_zk(z, Z3_mk_eq(c, wide, wide)), f.place));
    /* an array that is not a store chain on a constant */
    Z3_ast mem = sx_zk(z, Z3_mk_const(c, Z3_mk_string_symbol(c, "mem"), Z3_mk_array_sort(c, sx_z_bvs(z, 32), sx_z_bvs(z, 8))));
    cr_expect_null(sx_cprog_compile(f.e, sx_zk(z, Z3_mk_eq(c, sx_zk(z, Z3_mk_select(c, mem, a)), sx_z_num(z, 0, 8))), f.place));
    sx_z_release(z);
    close_fixture(&f);
}

/* Every conjunct of every path formula (and every symbol's domain) of
 * kernels with memory reads at symbolic offsets, hashes and divisions: at
 * a model of the path (where every conjunct holds), next to it, at random
 * points and at the domains' ends, the program and Z3 agree; most
 * conjuncts compile. */
static void formulas_agree(const char *spec_path, int paths)
{
    fixture f;
    open_fixture(&f, spec_path, paths);
    sx_engine *e = f.e;
    Z3_context c = e->z.c;
    pcg32 rng;
    pcg32_seed(&rng, 3, 5);
    long compiled = 0, refused = 0, compared = 0, true_at_model = 0;
    uint64_t *model_vals = calloc((size_t)e->nsyms + 1, sizeof *model_vals);
    for (int pi = 0; pi < f.res->npaths; pi++) {
        Z3_ast form = e->forms[pi];
        /* a model of the path: a point where every conjunct holds */
        Z3_solver sv = Z3_mk_simple_solver(c);
        Z3_solver_inc_ref(c, sv);
        Z3_solver_assert(c, sv, e->domains);
        Z3_solver_assert(c, sv, form);
        bool has_model = Z3_solver_check(c, sv) == Z3_L_TRUE;
        if (has_model) {
            Z3_model m = Z3_solver_get_model(c, sv);
            Z3_model_inc_ref(c, m);
            for (int i = 0; i < e->nsyms; i++) {
                Z3_ast v = e->syms[i].ast ? sx_model_value(e, m, e->syms[i].ast) : NULL;
                if (!v || !sx_z_get_u64(&e->z, v, &model_vals[i]))
                    model_vals[i] = 0;
            }
            Z3_model_dec_ref(c, m);
        }
        Z3_solver_dec_ref(c, sv);
        bool and = Z3_get_ast_kind(c, form) == Z3_APP_AST &&
                   Z3_get_decl_kind(c, Z3_get_app_decl(c, Z3_to_app(c, form))) == Z3_OP_AND;
        unsigned n = and ? Z3_get_app_num_args(c, Z3_to_app(c, form)) : 1;
        for (unsigned ci = 0; ci < n; ci++) {
            Z3_ast con = and ? Z3_get_app_arg(c, Z3_to_app(c, form), ci) : form;
            sx_cprog *p = sx_cprog_compile(e, con, f.place);
            if (!p) {
                refused++;
                continue;
            }
            compiled++;
            for (int t = has_model ? 0 : 1; t < 7; t++) {
                for (int i = 0; i < e->nsyms; i++) {
                    uint64_t r = (uint64_t)pcg32_next(&rng) << 32 | pcg32_next(&rng);
                    f.vals[i] = t == 0 ? model_vals[i] : t == 1 ? 0 : t == 2 ? ~0ULL : t == 3 ? e->syms[i].low
                              : t == 4 ? r % 4 : t == 5 ? model_vals[i] + r % 3 - 1 : r;
                }
                bool mine = sx_cprog_eval(p, f.vals), z3 = z3_true(&f, con);
                true_at_model += t == 0 && mine;
                cr_expect_eq(mine, z3, "%s path %d conjunct %u point %d: compiled %d, Z3 %d", spec_path, pi, ci, t,
                             mine, z3);
                compared++;
            }
            sx_cprog_free(p);
        }
    }
    cr_expect_gt(compiled, 4 * refused, "%s: %ld conjuncts compiled, %ld refused", spec_path, compiled, refused);
    cr_expect_gt(compared, 100, "%s: %ld comparisons", spec_path, compared);
    cr_expect_gt(true_at_model, 0, "%s: no conjunct held at a model", spec_path);
    free(model_vals);
    close_fixture(&f);
}

Test(symexec_ceval, path_conjuncts_of_bfs_agree_with_z3, .timeout = 120)
{
    formulas_agree("kernels/bfs1.json", 150);
}

Test(symexec_ceval, path_conjuncts_of_hashes_and_searches_agree_with_z3, .timeout = 180)
{
    formulas_agree("kernels/gt_hash.json", 100);
    formulas_agree("kernels/corpus/hash_insert.json", 60);
    /* the corpus's keys are an input now: 65535 symbols, each drawn for
     * every conjunct; the search over a fixed table is what is checked */
    formulas_agree("tests/specs/binary_search_iota.json", 60);
    formulas_agree("kernels/corpus/fsm_lexer.json", 60);
}

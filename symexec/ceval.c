/*
 * ceval.c — Boolean path conjuncts compiled once into a flat program and
 * evaluated at concrete values of their symbols, answering as Z3's model
 * evaluation does (model.c's screen asks this thousands of times per path;
 * building a Z3 model and evaluating in it cost ~90 µs a question, three
 * quarters of `explore` on bfs1).
 *
 * What compiles: Booleans and bit-vectors of at most 64 bits, with the
 * core and bit-vector operators of SMT-LIB (total division: x / 0 is all
 * ones, x % 0 is x, as Z3 evaluates them).  Anything else -- arrays,
 * uninterpreted functions, floats, wider vectors, Z3's internal
 * division-by-nonzero variants, a constant that is none of the caller's
 * symbols -- makes the compile fail, and the caller asks Z3.
 *
 * A program is the formula's DAG in post-order: node i computes slot i
 * from earlier slots (its arguments, listed in `args`); the last node is
 * the formula's value.  Values are kept masked to their width.
 */
#include "symexec/internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint16_t kind;        /* Z3_decl_kind, or CV_SYM / CV_CONST */
    uint8_t bits;         /* width of the result (1 for Booleans) */
    uint8_t abits;        /* width of the first argument */
    uint32_t nargs, arg;  /* arguments: args[arg .. arg + nargs) */
    uint32_t p0, p1;      /* parameters (extract hi/lo, extension, rotation) */
    uint64_t k;           /* CV_CONST: the value; CV_SYM: the symbol's place */
} cv_node;

struct sx_cprog {
    cv_node *node;
    int n, cap;
    uint32_t *args;
    int nargs, capargs;
    uint64_t *slot;       /* one value per node, written by sx_cprog_eval */
};

enum { CV_SYM = 0x7ff0, CV_CONST };

static inline uint64_t mask_of(int bits)
{
    return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

static inline bool msb(uint64_t v, int bits)
{
    return (v >> (bits - 1)) & 1;
}

static inline uint64_t neg(uint64_t v, int bits)
{
    return (0 - v) & mask_of(bits);
}

/* ---- SMT-LIB division (total) ------------------------------------------------ */

static uint64_t udiv(uint64_t s, uint64_t t, int bits)
{
    return t == 0 ? mask_of(bits) : s / t;
}

static uint64_t urem(uint64_t s, uint64_t t)
{
    return t == 0 ? s : s % t;
}

static uint64_t sdiv(uint64_t s, uint64_t t, int bits)
{
    bool ns = msb(s, bits), nt = msb(t, bits);
    uint64_t as = ns ? neg(s, bits) : s, at = nt ? neg(t, bits) : t;
    uint64_t q = udiv(as, at, bits);
    return ns != nt ? neg(q, bits) : q;
}

static uint64_t srem(uint64_t s, uint64_t t, int bits)
{
    bool ns = msb(s, bits), nt = msb(t, bits);
    uint64_t r = urem(ns ? neg(s, bits) : s, nt ? neg(t, bits) : t);
    return ns ? neg(r, bits) : r;
}

static uint64_t smod(uint64_t s, uint64_t t, int bits)
{
    bool ns = msb(s, bits), nt = msb(t, bits);
    uint64_t u = urem(ns ? neg(s, bits) : s, nt ? neg(t, bits) : t);
    if (u == 0 || (!ns && !nt))
        return u;
    if (ns && !nt)
        return (neg(u, bits) + t) & mask_of(bits);
    if (!ns && nt)
        return (u + t) & mask_of(bits);
    return neg(u, bits);
}

static int64_t sext(uint64_t v, int bits)
{
    return bits >= 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static uint64_t rotl(uint64_t v, uint64_t r, int bits)
{
    r %= (uint64_t)bits;
    return r == 0 ? v : ((v << r) | (v >> (bits - (int)r))) & mask_of(bits);
}

/* ---- compiling -------------------------------------------------------------------- */

typedef struct {
    unsigned *key;        /* ast id + 1, 0 = empty */
    int *val;             /* its node */
    unsigned cap, n;
} cv_memo;

static bool memo_grow(cv_memo *h)
{
    unsigned cap = h->cap ? h->cap * 2 : 256;
    unsigned *k = calloc(cap, sizeof *k);
    int *v = malloc(cap * sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return false;
    }
    for (unsigned i = 0; i < h->cap; i++) {
        if (!h->key[i])
            continue;
        unsigned j = (h->key[i] * 2654435761u) & (cap - 1);
        while (k[j])
            j = (j + 1) & (cap - 1);
        k[j] = h->key[i];
        v[j] = h->val[i];
    }
    free(h->key);
    free(h->val);
    h->key = k;
    h->val = v;
    h->cap = cap;
    return true;
}

/* The node of ast id, or -1. */
static int memo_get(const cv_memo *h, unsigned id)
{
    if (!h->cap)
        return -1;
    unsigned key = id + 1, j = (key * 2654435761u) & (h->cap - 1);
    while (h->key[j]) {
        if (h->key[j] == key)
            return h->val[j];
        j = (j + 1) & (h->cap - 1);
    }
    return -1;
}

static bool memo_put(cv_memo *h, unsigned id, int node)
{
    if ((h->n + 1) * 2 > h->cap && !memo_grow(h))
        return false;
    unsigned key = id + 1, j = (key * 2654435761u) & (h->cap - 1);
    while (h->key[j])
        j = (j + 1) & (h->cap - 1);
    h->key[j] = key;
    h->val[j] = node;
    h->n++;
    return true;
}

/* Width of a Boolean (1) or bit-vector (<= 64) term; 0 for anything else. */
static int term_bits(Z3_context c, Z3_ast a)
{
    Z3_sort s = Z3_get_sort(c, a);
    switch (Z3_get_sort_kind(c, s)) {
    case Z3_BOOL_SORT:
        return 1;
    case Z3_BV_SORT: {
        unsigned w = Z3_get_bv_sort_size(c, s);
        return w >= 1 && w <= 64 ? (int)w : 0;
    }
    default:
        return 0;
    }
}

static bool known_kind(Z3_decl_kind k)
{
    switch (k) {
    case Z3_OP_TRUE: case Z3_OP_FALSE: case Z3_OP_EQ: case Z3_OP_DISTINCT: case Z3_OP_ITE: case Z3_OP_AND:
    case Z3_OP_OR: case Z3_OP_IFF: case Z3_OP_XOR: case Z3_OP_NOT: case Z3_OP_IMPLIES:
    case Z3_OP_BNEG: case Z3_OP_BADD: case Z3_OP_BSUB: case Z3_OP_BMUL:
    case Z3_OP_BSDIV: case Z3_OP_BUDIV: case Z3_OP_BSREM: case Z3_OP_BUREM: case Z3_OP_BSMOD:
    case Z3_OP_ULEQ: case Z3_OP_SLEQ: case Z3_OP_UGEQ: case Z3_OP_SGEQ:
    case Z3_OP_ULT: case Z3_OP_SLT: case Z3_OP_UGT: case Z3_OP_SGT:
    case Z3_OP_BAND: case Z3_OP_BOR: case Z3_OP_BNOT: case Z3_OP_BXOR: case Z3_OP_BNAND: case Z3_OP_BNOR:
    case Z3_OP_BXNOR: case Z3_OP_CONCAT: case Z3_OP_SIGN_EXT: case Z3_OP_ZERO_EXT: case Z3_OP_EXTRACT:
    case Z3_OP_REPEAT: case Z3_OP_BREDOR: case Z3_OP_BREDAND: case Z3_OP_BCOMP:
    case Z3_OP_BSHL: case Z3_OP_BLSHR: case Z3_OP_BASHR: case Z3_OP_ROTATE_LEFT: case Z3_OP_ROTATE_RIGHT:
    case Z3_OP_EXT_ROTATE_LEFT: case Z3_OP_EXT_ROTATE_RIGHT: case Z3_OP_SELECT:
        return true;
    default:
        return false;
    }
}

static int add_node(sx_cprog *p, const cv_node *nd)
{
    if (p->n == p->cap) {
        int cap = p->cap ? p->cap * 2 : 64;
        cv_node *v = realloc(p->node, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        p->node = v;
        p->cap = cap;
    }
    p->node[p->n] = *nd;
    return p->n++;
}

static bool add_arg(sx_cprog *p, uint32_t node)
{
    if (p->nargs == p->capargs) {
        int cap = p->capargs ? p->capargs * 2 : 128;
        uint32_t *v = realloc(p->args, (size_t)cap * sizeof *v);
        if (!v)
            return false;
        p->args = v;
        p->capargs = cap;
    }
    p->args[p->nargs++] = node;
    return true;
}

/* The node for a leaf (numeral or symbol); -1 when it cannot be one. */
static int leaf(sx_cprog *p, const sx_engine *e, const int *place, Z3_ast a, int bits)
{
    Z3_context c = e->z.c;
    cv_node nd = { .bits = (uint8_t)bits };
    if (Z3_get_ast_kind(c, a) == Z3_NUMERAL_AST) {
        if (!Z3_get_numeral_uint64(c, a, &nd.k))
            return -1;
        nd.kind = CV_CONST;
        return add_node(p, &nd);
    }
    Z3_decl_kind k = Z3_get_decl_kind(c, Z3_get_app_decl(c, Z3_to_app(c, a)));
    if (k == Z3_OP_TRUE || k == Z3_OP_FALSE) {
        nd.kind = CV_CONST;
        nd.k = k == Z3_OP_TRUE;
        return add_node(p, &nd);
    }
    int si = k == Z3_OP_UNINTERPRETED ? sx_layout_symbol_of(e, a) : -1;
    if (si < 0 || place[si] < 0)
        return -1;
    nd.kind = CV_SYM;
    nd.k = (uint64_t)place[si];
    return add_node(p, &nd);
}

typedef struct {
    Z3_ast *v;
    int n, cap;
} astvec;

static bool push_ast(astvec *x, Z3_ast a)
{
    if (x->n == x->cap) {
        int cap = x->cap ? x->cap * 2 : 64;
        Z3_ast *v = realloc(x->v, (size_t)cap * sizeof *v);
        if (!v)
            return false;
        x->v = v;
        x->cap = cap;
    }
    x->v[x->n++] = a;
    return true;
}

static Z3_decl_kind kind_of(Z3_context c, Z3_ast a)
{
    return Z3_get_decl_kind(c, Z3_get_app_decl(c, Z3_to_app(c, a)));
}

/* The terms application a is computed from, into out (emptied first): its
 * arguments; for select(A, j) over a chain of stores on a constant array,
 * j, then each store's index and value from the newest, then the constant
 * (the memory model's reads at symbolic offsets).  false when a is
 * nothing the program evaluates. */
static bool children(Z3_context c, Z3_ast a, astvec *out)
{
    out->n = 0;
    Z3_app app = Z3_to_app(c, a);
    unsigned na = Z3_get_app_num_args(c, app);
    if (kind_of(c, a) != Z3_OP_SELECT) {
        for (unsigned i = 0; i < na; i++)
            if (!push_ast(out, Z3_get_app_arg(c, app, i)))
                return false;
        return true;
    }
    if (na != 2 || !push_ast(out, Z3_get_app_arg(c, app, 1)))
        return false;
    Z3_ast arr = Z3_get_app_arg(c, app, 0);
    while (Z3_get_ast_kind(c, arr) == Z3_APP_AST && kind_of(c, arr) == Z3_OP_STORE) {
        Z3_app st = Z3_to_app(c, arr);
        if (Z3_get_app_num_args(c, st) != 3 || !push_ast(out, Z3_get_app_arg(c, st, 1)) ||
            !push_ast(out, Z3_get_app_arg(c, st, 2)))
            return false;
        arr = Z3_get_app_arg(c, st, 0);
    }
    if (Z3_get_ast_kind(c, arr) != Z3_APP_AST || kind_of(c, arr) != Z3_OP_CONST_ARRAY ||
        Z3_get_app_num_args(c, Z3_to_app(c, arr)) != 1)
        return false;
    return push_ast(out, Z3_get_app_arg(c, Z3_to_app(c, arr), 0));
}

/* The node of application a, whose children have their nodes already. */
static int inner(sx_cprog *p, const cv_memo *memo, Z3_context c, Z3_ast a, int bits, astvec *kids)
{
    Z3_func_decl d = Z3_get_app_decl(c, Z3_to_app(c, a));
    Z3_decl_kind k = Z3_get_decl_kind(c, d);
    if (!known_kind(k) || !children(c, a, kids) || kids->n == 0)
        return -1;
    cv_node nd = { .kind = (uint16_t)k, .bits = (uint8_t)bits, .nargs = (uint32_t)kids->n,
                   .arg = (uint32_t)p->nargs };
    for (int i = 0; i < kids->n; i++) {
        int xn = memo_get(memo, Z3_get_ast_id(c, kids->v[i]));
        if (xn < 0 || !add_arg(p, (uint32_t)xn))
            return -1;
        if (i == 0)
            nd.abits = p->node[xn].bits;
    }
    unsigned np = Z3_get_decl_num_parameters(c, d);
    if (np >= 1 && k != Z3_OP_SELECT)
        nd.p0 = (uint32_t)Z3_get_decl_int_parameter(c, d, 0);
    if (np >= 2 && k != Z3_OP_SELECT)
        nd.p1 = (uint32_t)Z3_get_decl_int_parameter(c, d, 1);
    return add_node(p, &nd);
}

void sx_cprog_free(sx_cprog *p)
{
    if (!p)
        return;
    free(p->node);
    free(p->args);
    free(p->slot);
    free(p);
}

sx_cprog *sx_cprog_compile(const sx_engine *e, Z3_ast f, const int *place)
{
    Z3_context c = e->z.c;
    sx_cprog *p = calloc(1, sizeof *p);
    cv_memo memo = { NULL, NULL, 0, 0 };
    astvec stack = { NULL, 0, 0 }, kids = { NULL, 0, 0 };
    /* the DFS: an AST is pushed again after its children (a NULL marks
     * "children done: make its node") */
    bool ok = p && push_ast(&stack, f);
    while (ok && stack.n > 0) {
        Z3_ast a = stack.v[stack.n - 1];
        bool done = a == NULL;
        if (done)
            a = stack.v[stack.n - 2];
        unsigned id = Z3_get_ast_id(c, a);
        if (!done && memo_get(&memo, id) >= 0) {
            stack.n--;
            continue;
        }
        int bits = term_bits(c, a);
        Z3_ast_kind ak = Z3_get_ast_kind(c, a);
        ok = bits > 0 && (ak == Z3_APP_AST || ak == Z3_NUMERAL_AST);
        if (!ok)
            break;
        if (ak == Z3_NUMERAL_AST || Z3_get_app_num_args(c, Z3_to_app(c, a)) == 0) {
            int node = leaf(p, e, place, a, bits);
            ok = node >= 0 && memo_put(&memo, id, node);
            stack.n--;
        } else if (!done) {
            ok = children(c, a, &kids) && push_ast(&stack, NULL);
            for (int i = kids.n - 1; ok && i >= 0; i--)
                ok = push_ast(&stack, kids.v[i]);
        } else {
            int node = inner(p, &memo, c, a, bits, &kids);
            ok = node >= 0 && memo_put(&memo, id, node);
            stack.n -= 2;
        }
    }
    ok = ok && p->n > 0 && Z3_get_sort_kind(c, Z3_get_sort(c, f)) == Z3_BOOL_SORT;
    ok = ok && (p->slot = malloc((size_t)p->n * sizeof *p->slot)) != NULL;
    free(stack.v);
    free(kids.v);
    free(memo.key);
    free(memo.val);
    if (!ok) {
        sx_cprog_free(p);
        return NULL;
    }
    return p;
}

/* ---- evaluating --------------------------------------------------------------------- */

static uint64_t fold(const cv_node *nd, const uint64_t *s, const uint32_t *arg, uint64_t m)
{
    uint64_t v = s[arg[0]];
    for (uint32_t i = 1; i < nd->nargs; i++) {
        uint64_t x = s[arg[i]];
        switch (nd->kind) {
        case Z3_OP_BADD: v = v + x; break;
        case Z3_OP_BMUL: v = v * x; break;
        case Z3_OP_BAND: case Z3_OP_AND: v = v & x; break;
        case Z3_OP_BOR: case Z3_OP_OR: v = v | x; break;
        case Z3_OP_BXOR: case Z3_OP_XOR: v = v ^ x; break;
        default: break;
        }
    }
    return v & m;
}

static uint64_t concat(const sx_cprog *p, const cv_node *nd, const uint64_t *s, const uint32_t *arg)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < nd->nargs; i++) {
        int w = p->node[arg[i]].bits;
        v = (w >= 64 ? 0 : v << w) | s[arg[i]];
    }
    return v & mask_of(nd->bits);
}

static uint64_t eval_node(const sx_cprog *p, const cv_node *nd, const uint64_t *s, const uint64_t *vals)
{
    const uint32_t *arg = p->args + nd->arg;
    int w = nd->bits, aw = nd->abits;
    uint64_t m = mask_of(w);
    uint64_t a = nd->nargs > 0 ? s[arg[0]] : 0, b = nd->nargs > 1 ? s[arg[1]] : 0;
    switch (nd->kind) {
    case CV_CONST: return nd->k & m;
    case CV_SYM: return vals[nd->k] & m;
    case Z3_OP_EQ: case Z3_OP_IFF: return a == b;
    case Z3_OP_DISTINCT:
        for (uint32_t i = 0; i < nd->nargs; i++)
            for (uint32_t j = i + 1; j < nd->nargs; j++)
                if (s[arg[i]] == s[arg[j]])
                    return 0;
        return 1;
    case Z3_OP_ITE: return a ? b : s[arg[2]];
    case Z3_OP_SELECT:   /* j, then (index, value) of each store from the newest, then the constant */
        for (uint32_t i = 1; i + 1 < nd->nargs; i += 2)
            if (s[arg[i]] == a)
                return s[arg[i + 1]];
        return s[arg[nd->nargs - 1]];
    case Z3_OP_NOT: return !a;
    case Z3_OP_IMPLIES: return !a || b;
    case Z3_OP_AND: case Z3_OP_OR: case Z3_OP_XOR: case Z3_OP_BADD: case Z3_OP_BMUL:
    case Z3_OP_BAND: case Z3_OP_BOR: case Z3_OP_BXOR:
        return fold(nd, s, arg, m);
    case Z3_OP_BNEG: return neg(a, w);
    case Z3_OP_BSUB: return (a - b) & m;
    case Z3_OP_BUDIV: return udiv(a, b, w);
    case Z3_OP_BUREM: return urem(a, b);
    case Z3_OP_BSDIV: return sdiv(a, b, w);
    case Z3_OP_BSREM: return srem(a, b, w);
    case Z3_OP_BSMOD: return smod(a, b, w);
    case Z3_OP_ULEQ: return a <= b;
    case Z3_OP_UGEQ: return a >= b;
    case Z3_OP_ULT: return a < b;
    case Z3_OP_UGT: return a > b;
    case Z3_OP_SLEQ: return sext(a, aw) <= sext(b, aw);
    case Z3_OP_SGEQ: return sext(a, aw) >= sext(b, aw);
    case Z3_OP_SLT: return sext(a, aw) < sext(b, aw);
    case Z3_OP_SGT: return sext(a, aw) > sext(b, aw);
    case Z3_OP_BNOT: return ~a & m;
    case Z3_OP_BNAND: return ~(a & b) & m;
    case Z3_OP_BNOR: return ~(a | b) & m;
    case Z3_OP_BXNOR: return ~(a ^ b) & m;
    case Z3_OP_CONCAT: return concat(p, nd, s, arg);
    case Z3_OP_SIGN_EXT: return (uint64_t)sext(a, aw) & m;
    case Z3_OP_ZERO_EXT: return a;
    case Z3_OP_EXTRACT: return (a >> nd->p1) & m;   /* p0 = high, p1 = low */
    case Z3_OP_REPEAT: {
        uint64_t v = 0;
        for (uint32_t i = 0; i < nd->p0; i++)
            v = (aw >= 64 ? 0 : v << aw) | a;
        return v & m;
    }
    case Z3_OP_BREDOR: return a != 0;
    case Z3_OP_BREDAND: return a == mask_of(aw);
    case Z3_OP_BCOMP: return a == b;
    case Z3_OP_BSHL: return b >= (uint64_t)w ? 0 : (a << b) & m;
    case Z3_OP_BLSHR: return b >= (uint64_t)w ? 0 : a >> b;
    case Z3_OP_BASHR: {
        int64_t x = sext(a, w);
        return (uint64_t)(b >= (uint64_t)w ? (x < 0 ? -1 : 0) : x >> b) & m;
    }
    case Z3_OP_ROTATE_LEFT: return rotl(a, nd->p0, w);
    case Z3_OP_ROTATE_RIGHT: return rotl(a, (uint64_t)w - nd->p0 % (uint64_t)w, w);
    case Z3_OP_EXT_ROTATE_LEFT: return rotl(a, b % (uint64_t)w, w);
    case Z3_OP_EXT_ROTATE_RIGHT: return rotl(a, (uint64_t)w - b % (uint64_t)w, w);
    default: return 0;   /* not compiled (known_kind) */
    }
}

bool sx_cprog_eval(sx_cprog *p, const uint64_t *vals)
{
    for (int i = 0; i < p->n; i++)
        p->slot[i] = eval_node(p, &p->node[i], p->slot, vals);
    return p->slot[p->n - 1] != 0;
}

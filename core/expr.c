/*
 * expr.c — recursive-descent parser and evaluator for spec expressions.
 *
 * The tree is stored as an array of nodes (children by index) so that a
 * parsed expression is one allocation plus its text.
 */
#include "core/expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    N_NUM, N_VAR, N_NEG, N_ADD, N_SUB, N_MUL, N_DIV, N_MOD, N_MIN, N_MAX,
    N_LT, N_LE, N_GT, N_GE, N_EQ, N_NE,   /* 1 when true, else 0 */
    N_IF                                  /* a ? b : c, only the branch taken evaluated */
} node_kind;

typedef struct {
    node_kind kind;
    int64_t value;   /* N_NUM: the number; N_VAR: variable index */
    int a, b, c;     /* children (c: N_IF's else) */
} node;

struct wh_expr {
    char *text;
    node *nodes;
    int nnodes, cap, root;
};

typedef struct {
    wh_expr *e;
    const char *s;
    size_t pos;
    const char *const *names;
    int nnames;
    wh_error *err;
    int depth;
} parser;

/* The expression as quoted in a message: long ones are cut. */
static const char *excerpt(const char *text, char *buf, size_t n)
{
    if (strlen(text) < n)
        return text;
    snprintf(buf, n, "%.*s...", (int)(n - 4), text);
    return buf;
}

static int fail(parser *p, const char *what)
{
    char q[80];
    wh_error_set(p->err, WH_ERR_USER, NULL, 0, 0, "in expression \"%s\" at column %zu: %s",
                 excerpt(p->s, q, sizeof q), p->pos + 1, what);
    return -1;
}

static int add_node(parser *p, node_kind k, int64_t v, int a, int b)
{
    wh_expr *e = p->e;
    /* evaluation recurses over the tree: a bound on its size bounds the stack */
    if (e->nnodes >= WH_EXPR_MAX_NODES) return fail(p, "more than 4096 numbers, names and operators");
    if (e->nnodes == e->cap) {
        int cap = e->cap ? e->cap * 2 : 8;
        node *n = realloc(e->nodes, (size_t)cap * sizeof *n);
        if (!n) return fail(p, "out of memory");
        e->nodes = n;
        e->cap = cap;
    }
    e->nodes[e->nnodes] = (node){ k, v, a, b, -1 };
    return e->nnodes++;
}

static void skip_space(parser *p)
{
    while (isspace((unsigned char)p->s[p->pos])) p->pos++;
}

static bool accept(parser *p, char c)
{
    skip_space(p);
    if (p->s[p->pos] != c) return false;
    p->pos++;
    return true;
}

static int parse_cond(parser *p);

static int parse_call(parser *p, node_kind k)
{
    if (!accept(p, '(')) return fail(p, "expected '(' after min/max");
    int a = parse_cond(p);
    if (a < 0) return -1;
    if (!accept(p, ',')) return fail(p, "expected ',' between the two arguments");
    int b = parse_cond(p);
    if (b < 0) return -1;
    if (!accept(p, ')')) return fail(p, "expected ')'");
    return add_node(p, k, 0, a, b);
}

static int parse_number(parser *p)
{
    const char *start = p->s + p->pos;
    char *end;
    errno = 0;
    long long v = strtoll(start, &end, 0);
    if (errno || isalnum((unsigned char)*end) || *end == '_')
        return fail(p, "bad integer literal");
    p->pos += (size_t)(end - start);
    return add_node(p, N_NUM, v, -1, -1);
}

static int parse_name(parser *p)
{
    size_t start = p->pos;
    while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_') p->pos++;
    size_t len = p->pos - start;
    const char *id = p->s + start;
    if (len == 3 && (!strncmp(id, "min", 3) || !strncmp(id, "max", 3)))
        return parse_call(p, id[1] == 'i' ? N_MIN : N_MAX);
    for (int k = 0; k < p->nnames; k++)
        if (strlen(p->names[k]) == len && !strncmp(p->names[k], id, len))
            return add_node(p, N_VAR, k, -1, -1);
    p->pos = start;
    char msg[256];
    int shown = len > 64 ? 64 : (int)len;
    size_t n = (size_t)snprintf(msg, sizeof msg, "unknown name '%.*s' (known:", shown, id);
    /* names are listed while they fit (a long constant name must not run
     * the message past its end), then an ellipsis */
    const size_t room = sizeof msg - 24;
    for (int k = 0; k < p->nnames; k++) {
        if (n + 1 + strlen(p->names[k]) > room) {
            n += (size_t)snprintf(msg + n, sizeof msg - n, " ...");
            break;
        }
        n += (size_t)snprintf(msg + n, sizeof msg - n, " %s", p->names[k]);
    }
    snprintf(msg + n, sizeof msg - n, ", min(), max())");
    return fail(p, msg);
}

static int parse_unary(parser *p)
{
    if (++p->depth > 200) return fail(p, "expression nested too deeply");
    skip_space(p);
    char c = p->s[p->pos];
    int r;
    if (c == '-') {
        p->pos++;
        int a = parse_unary(p);
        r = a < 0 ? -1 : add_node(p, N_NEG, 0, a, -1);
    } else if (c == '+') {
        p->pos++;
        r = parse_unary(p);
    } else if (c == '(') {
        p->pos++;
        r = parse_cond(p);
        if (r >= 0 && !accept(p, ')')) r = fail(p, "expected ')'");
    } else if (isdigit((unsigned char)c)) {
        r = parse_number(p);
    } else if (isalpha((unsigned char)c) || c == '_') {
        r = parse_name(p);
    } else {
        r = fail(p, c ? "expected a number, a name or '('" : "unexpected end of expression");
    }
    p->depth--;
    return r;
}

static int parse_product(parser *p)
{
    int a = parse_unary(p);
    while (a >= 0) {
        skip_space(p);
        char c = p->s[p->pos];
        node_kind k = c == '*' ? N_MUL : c == '/' ? N_DIV : c == '%' ? N_MOD : N_NUM;
        if (k == N_NUM) break;
        p->pos++;
        int b = parse_unary(p);
        a = b < 0 ? -1 : add_node(p, k, 0, a, b);
    }
    return a;
}

static int parse_sum(parser *p)
{
    int a = parse_product(p);
    while (a >= 0) {
        skip_space(p);
        char c = p->s[p->pos];
        if (c != '+' && c != '-') break;
        p->pos++;
        int b = parse_product(p);
        a = b < 0 ? -1 : add_node(p, c == '+' ? N_ADD : N_SUB, 0, a, b);
    }
    return a;
}

/* One comparison of two sums (not chained: "a < b < c" is refused). */
static int parse_compare(parser *p)
{
    static const struct { const char *op; node_kind k; } ops[] = {
        { "<=", N_LE }, { ">=", N_GE }, { "==", N_EQ }, { "!=", N_NE }, { "<", N_LT }, { ">", N_GT },
    };
    int a = parse_sum(p);
    if (a < 0) return -1;
    skip_space(p);
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        size_t n = strlen(ops[k].op);
        if (strncmp(p->s + p->pos, ops[k].op, n)) continue;
        p->pos += n;
        int b = parse_sum(p);
        if (b < 0) return -1;
        skip_space(p);
        if (strchr("<>=!", p->s[p->pos]) && p->s[p->pos]) return fail(p, "comparisons do not chain: use parentheses");
        return add_node(p, ops[k].k, 0, a, b);
    }
    return a;
}

/* cond ? then : else, nesting to the right as in C. */
static int parse_cond(parser *p)
{
    if (++p->depth > 200) return fail(p, "expression nested too deeply");
    int c = parse_compare(p);
    if (c >= 0 && accept(p, '?')) {
        int a = parse_cond(p);
        if (a >= 0 && !accept(p, ':')) a = fail(p, "expected ':' of a conditional");
        int b = a < 0 ? -1 : parse_cond(p);
        c = b < 0 ? -1 : add_node(p, N_IF, 0, c, a);
        if (c >= 0) p->e->nodes[c].c = b;
    }
    p->depth--;
    return c;
}

wh_expr *wh_expr_parse(const char *text, const char *const *names, int nnames, wh_error *err)
{
    wh_expr *e = calloc(1, sizeof *e);
    if (!e || !(e->text = strdup(text))) {
        free(e);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return NULL;
    }
    parser p = { e, e->text, 0, names, nnames, err, 0 };
    int root = parse_cond(&p);
    if (root >= 0) {
        skip_space(&p);
        if (p.s[p.pos]) root = fail(&p, "unexpected text after the expression");
    }
    if (root < 0) {
        wh_expr_free(e);
        return NULL;
    }
    e->root = root;
    return e;
}

wh_expr *wh_expr_const(int64_t value)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)value);
    wh_expr *e = wh_expr_parse(buf, NULL, 0, NULL);
    if (e && value == INT64_MIN) e->nodes[e->root] = (node){ N_NUM, value, -1, -1, -1 };
    return e;
}

void wh_expr_free(wh_expr *e)
{
    if (!e) return;
    free(e->text);
    free(e->nodes);
    free(e);
}

const char *wh_expr_text(const wh_expr *e)
{
    return e->text;
}

/* The variables' values, one of them possibly replaced (so that callers
 * evaluating per element need not write into a shared array). */
typedef struct {
    const int64_t *vars;
    int var;          /* replaced variable, -1 for none */
    int64_t value;
} env;

static bool eval_node(const wh_expr *e, int i, const env *en, int64_t *out, wh_error *err)
{
    const node *n = &e->nodes[i];
    int64_t a = 0, b = 0;
    if (n->kind == N_NUM) { *out = n->value; return true; }
    if (n->kind == N_VAR) { *out = n->value == en->var ? en->value : en->vars[n->value]; return true; }
    if (!eval_node(e, n->a, en, &a, err)) return false;
    if (n->kind == N_IF) return eval_node(e, a ? n->b : n->c, en, out, err);
    if (n->b >= 0 && !eval_node(e, n->b, en, &b, err)) return false;
    bool overflow = false;
    switch (n->kind) {
    case N_NEG: overflow = __builtin_sub_overflow((int64_t)0, a, out); break;
    case N_ADD: overflow = __builtin_add_overflow(a, b, out); break;
    case N_SUB: overflow = __builtin_sub_overflow(a, b, out); break;
    case N_MUL: overflow = __builtin_mul_overflow(a, b, out); break;
    case N_DIV:
    case N_MOD:
        if (b == 0) {
            char q[80];
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "in expression \"%s\": division by zero",
                         excerpt(e->text, q, sizeof q));
            return false;
        }
        if (a == INT64_MIN && b == -1) { overflow = true; break; }
        *out = n->kind == N_DIV ? a / b : a % b;
        break;
    case N_MIN: *out = a < b ? a : b; break;
    case N_MAX: *out = a > b ? a : b; break;
    case N_LT: *out = a < b; break;
    case N_LE: *out = a <= b; break;
    case N_GT: *out = a > b; break;
    case N_GE: *out = a >= b; break;
    case N_EQ: *out = a == b; break;
    case N_NE: *out = a != b; break;
    default: break;
    }
    if (overflow) {
        char q[80];
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "in expression \"%s\": 64-bit overflow", excerpt(e->text, q, sizeof q));
        return false;
    }
    return true;
}

bool wh_expr_eval(const wh_expr *e, const int64_t *vars, int64_t *out, wh_error *err)
{
    env en = { vars, -1, 0 };
    return eval_node(e, e->root, &en, out, err);
}

bool wh_expr_eval_with(const wh_expr *e, const int64_t *vars, int var, int64_t value, int64_t *out, wh_error *err)
{
    env en = { vars, var, value };
    return eval_node(e, e->root, &en, out, err);
}

bool wh_expr_uses(const wh_expr *e, int var)
{
    for (int i = 0; i < e->nnodes; i++)
        if (e->nodes[i].kind == N_VAR && e->nodes[i].value == var) return true;
    return false;
}

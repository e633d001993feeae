/*
 * parse.c — the PTX parser: directives, declarations, instruction statements.
 *
 * Recursive descent over the token stream of lex.c with a small lookahead
 * queue.  Names are resolved while parsing (PTX declares before use), with
 * scoped tables for `{ ... }` blocks; branch labels are resolved when the
 * function body ends.  Each instruction is decoded (decode.c) as soon as it
 * is read, and each function body gets its CFG and dominators (cfg.c,
 * dom.c).  Errors longjmp back to ptx_parse_buffer, which frees everything.
 */
#include "ptx/internal.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- hashed symbol tables with scopes ----------------------------------- */

enum { B_REG = 1, B_VAR, B_PARAM, B_RET, B_MVAR, B_FUNC, B_LABEL, B_BTARGETS };

typedef struct {
    const char *name;
    int len;
    uint32_t hash;
    int kind, index;
    int next;         /* next binding in the same bucket (older), or -1 */
} binding;

typedef struct {
    int *buckets;
    int nbuckets;     /* power of two */
    binding *b;
    int n, cap;
} symtab;

static uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static void symtab_free(symtab *t)
{
    free(t->buckets);
    free(t->b);
    memset(t, 0, sizeof *t);
}

static void symtab_rehash(symtab *t, int nb)
{
    free(t->buckets);
    t->buckets = wh_xrealloc(NULL, sizeof(int) * (size_t)nb);
    for (int i = 0; i < nb; i++) t->buckets[i] = -1;
    t->nbuckets = nb;
    for (int i = 0; i < t->n; i++) {
        int h = (int)(t->b[i].hash & (uint32_t)(nb - 1));
        t->b[i].next = t->buckets[h];
        t->buckets[h] = i;
    }
}

static int symtab_find(const symtab *t, const char *s, size_t n)
{
    if (!t->nbuckets) return -1;
    uint32_t h = hash_name(s, n);
    for (int i = t->buckets[h & (uint32_t)(t->nbuckets - 1)]; i >= 0; i = t->b[i].next)
        if (t->b[i].hash == h && (size_t)t->b[i].len == n && !memcmp(t->b[i].name, s, n)) return i;
    return -1;
}

static void symtab_push(symtab *t, const char *s, size_t n, int kind, int index)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->b = wh_xrealloc(t->b, sizeof(binding) * (size_t)t->cap);
    }
    if (t->n + 1 > t->nbuckets / 2) {
        int nbk = t->nbuckets ? t->nbuckets * 2 : 128;
        while (t->n + 1 > nbk / 2) nbk *= 2;
        symtab_rehash(t, nbk);
    }
    binding *b = &t->b[t->n];
    b->name = s;
    b->len = (int)n;
    b->hash = hash_name(s, n);
    b->kind = kind;
    b->index = index;
    int h = (int)(b->hash & (uint32_t)(t->nbuckets - 1));
    b->next = t->buckets[h];
    t->buckets[h] = t->n;
    t->n++;
}

/* Pop bindings back to `mark` (LIFO). */
static void symtab_pop_to(symtab *t, int mark)
{
    while (t->n > mark) {
        binding *b = &t->b[t->n - 1];
        int h = (int)(b->hash & (uint32_t)(t->nbuckets - 1));
        t->buckets[h] = b->next;
        t->n--;
    }
}

static void symtab_clear(symtab *t)
{
    t->n = 0;
    for (int i = 0; i < t->nbuckets; i++) t->buckets[i] = -1;
}

/* ---- parser state -------------------------------------------------------- */

/* A label named in `.branchtargets`, resolved when the body ends. */
struct pending_bt { int bt; const char *name; int line, col; };

#define LOOKAHEAD 4
#define MAX_INIT_BYTES ((uint64_t)256 << 20)

typedef struct {
    ptx_lexer lx;
    ptx_token la[LOOKAHEAD];
    int nla;
    ptx_token prev;
    const char *file;
    wh_error *err;
    jmp_buf jb;

    ptx_module *m;
    ptx_arena *A;
    int mvars_cap, funcs_cap, kernels_cap, targets_cap;
    symtab gsym;          /* module variables and functions */
    symtab lsym;          /* registers, local variables, params of a function */
    symtab labels;        /* labels of a function */
    symtab strings;       /* interned opcode and modifier strings (index unused) */

    /* function being parsed */
    ptx_function cur;
    int fi;
    int regs_cap, vars_cap, instrs_cap, labels_cap, params_cap, rets_cap, bt_cap;
    int *scopes; int nscopes, scopes_cap;

    /* scratch */
    ptx_operand *ops; int nops, ops_cap;
    const char **mods; int nmods, mods_cap;
    uint8_t *ibuf; size_t ibuf_len, ibuf_cap;
    ptx_reloc *rel; int nrel, rel_cap;
    struct pending_bt *pend; int npend, pend_cap;
    int loc_file, loc_line;
    int call_file, call_line;   /* the last .loc's inlined_at, 0 when none */
    bool seen_version;
} parser;

static void pfail(parser *p, int line, int col, wh_error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 5, 6), noreturn));

static void pfail(parser *p, int line, int col, wh_error_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wh_error_setv(p->err, kind, p->file, line, col, fmt, ap);
    va_end(ap);
    longjmp(p->jb, 1);
}

/* Printable description of a token for messages. */
static const char *tokdesc(const ptx_token *t, char *buf, size_t size)
{
    if (t->kind == TK_EOF) return "end of file";
    int n = t->len < 48 ? t->len : 48;
    size_t j = 0;
    buf[j++] = '\'';
    for (int i = 0; i < n && j + 4 < size; i++) {
        unsigned char c = (unsigned char)t->s[i];
        buf[j++] = (c >= 32 && c < 127) ? (char)c : '?';
    }
    if (t->len > n && j + 5 < size) {
        buf[j++] = '.';
        buf[j++] = '.';
        buf[j++] = '.';
    }
    buf[j++] = '\'';
    buf[j] = '\0';
    return buf;
}

static void fill(parser *p, int k)
{
    while (p->nla <= k) {
        ptx_token *t = &p->la[p->nla];
        ptx_lex_next(&p->lx, t);
        if (t->kind == TK_ERROR) pfail(p, t->line, t->col, WH_ERR_USER, "%s", p->lx.msg);
        p->nla++;
    }
}

static const ptx_token *peek(parser *p, int k)
{
    fill(p, k);
    return &p->la[k];
}

static ptx_token next(parser *p)
{
    fill(p, 0);
    p->prev = p->la[0];
    memmove(&p->la[0], &p->la[1], sizeof(ptx_token) * (size_t)(p->nla - 1));
    p->nla--;
    return p->prev;
}

static bool tok_is_punct(const ptx_token *t, char c)
{
    return t->kind == TK_PUNCT && t->punct == c;
}

static bool tok_is(const ptx_token *t, ptx_tok_kind k, const char *s)
{
    size_t n = strlen(s);
    return t->kind == k && (size_t)t->len == n && !memcmp(t->s, s, n);
}

static bool tok_is_dot(const ptx_token *t, const char *s) { return tok_is(t, TK_DOTWORD, s); }

static bool accept_punct(parser *p, char c)
{
    if (tok_is_punct(peek(p, 0), c)) {
        next(p);
        return true;
    }
    return false;
}

static void expect_punct(parser *p, char c, const char *context)
{
    const ptx_token *t = peek(p, 0);
    if (!tok_is_punct(t, c)) {
        char buf[80];
        pfail(p, t->line, t->col, WH_ERR_USER, "expected '%c' %s, got %s", c, context,
              tokdesc(t, buf, sizeof buf));
    }
    next(p);
}

static ptx_token expect_ident(parser *p, const char *what)
{
    const ptx_token *t = peek(p, 0);
    if (t->kind != TK_IDENT) {
        char buf[80];
        pfail(p, t->line, t->col, WH_ERR_USER, "expected %s, got %s", what, tokdesc(t, buf, sizeof buf));
    }
    return next(p);
}

static uint64_t expect_uint(parser *p, const char *what, uint64_t max)
{
    const ptx_token *t = peek(p, 0);
    char buf[80];
    if (t->kind != TK_INT)
        pfail(p, t->line, t->col, WH_ERR_USER, "expected %s, got %s", what, tokdesc(t, buf, sizeof buf));
    if (t->u > max)
        pfail(p, t->line, t->col, WH_ERR_USER, "%s %s is too large (at most %llu)", what,
              tokdesc(t, buf, sizeof buf), (unsigned long long)max);
    return next(p).u;
}

/* Skip the rest of the source line of the token just consumed. */
static void skip_line_of(parser *p, int line)
{
    for (;;) {
        const ptx_token *t = peek(p, 0);
        if (t->kind == TK_EOF || t->line != line) return;
        next(p);
    }
}

/* Skip tokens up to and including the next ';'. */
static void skip_statement(parser *p)
{
    for (;;) {
        ptx_token t = next(p);
        if (t.kind == TK_EOF)
            pfail(p, t.line, t.col, WH_ERR_USER, "expected ';', got end of file");
        if (tok_is_punct(&t, ';')) return;
    }
}

static const char *intern(parser *p, const char *s, size_t n)
{
    int i = symtab_find(&p->strings, s, n);
    if (i >= 0) return p->strings.b[i].name;
    char *c = ptx_arena_strndup(p->A, s, n);
    symtab_push(&p->strings, c, n, 0, 0);
    return c;
}

static char *tokdup(parser *p, const ptx_token *t)
{
    return ptx_arena_strndup(p->A, t->s, (size_t)t->len);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return a > 1 ? (v + a - 1) / a * a : v;
}

static bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* ---- small directives ----------------------------------------------------- */

/* .loc FILE LINE COL [, function_name LABEL, inlined_at FILE LINE COL]:
 * where the next instructions come from, and for code inlined from a
 * function (CUDA's own headers' atomicAdd among them) where it was called. */
static void parse_loc(parser *p)
{
    ptx_token d = next(p); /* .loc */
    const ptx_token *a = peek(p, 0);
    p->call_file = p->call_line = 0;
    if (a->kind == TK_INT && a->line == d.line) {
        p->loc_file = (int)(next(p).u & 0x7fffffff);
        const ptx_token *b = peek(p, 0);
        if (b->kind == TK_INT && b->line == d.line) p->loc_line = (int)(next(p).u & 0x7fffffff);
    }
    for (const ptx_token *t = peek(p, 0); t->kind != TK_EOF && t->line == d.line; t = peek(p, 0)) {
        ptx_token w = next(p);
        if (w.kind != TK_IDENT || w.len != 10 || memcmp(w.s, "inlined_at", 10)) continue;
        if (peek(p, 0)->kind == TK_INT && peek(p, 1)->kind == TK_INT && peek(p, 1)->line == d.line) {
            p->call_file = (int)(next(p).u & 0x7fffffff);
            p->call_line = (int)(next(p).u & 0x7fffffff);
        }
    }
}

/* .file N "path" {, timestamp, size}: the names .loc refers to. */
static void parse_file(parser *p)
{
    ptx_token d = next(p); /* .file */
    const ptx_token *n = peek(p, 0);
    if (n->kind == TK_INT && n->line == d.line && n->u < 100000) {
        int idx = (int)next(p).u;
        const ptx_token *s = peek(p, 0);
        if (s->kind == TK_STRING && s->line == d.line && s->len >= 2) {
            const char *path = ptx_arena_strndup(p->A, s->s + 1, (size_t)s->len - 2);
            next(p);
            if (idx >= p->m->nsrc_files) {
                const char **v = ptx_arena_alloc(p->A, (size_t)(idx + 1) * sizeof *v);
                for (int i = 0; i < p->m->nsrc_files; i++)
                    v[i] = p->m->src_files[i];
                for (int i = p->m->nsrc_files; i <= idx; i++)
                    v[i] = NULL;
                p->m->src_files = v;
                p->m->nsrc_files = idx + 1;
            }
            p->m->src_files[idx] = path;
        }
    }
    skip_line_of(p, d.line);
}

static void skip_section(parser *p)
{
    ptx_token d = next(p); /* .section */
    /* section name and attributes up to '{' */
    for (;;) {
        const ptx_token *t = peek(p, 0);
        if (t->kind == TK_EOF)
            pfail(p, d.line, d.col, WH_ERR_USER, "unterminated .section (expected '{')");
        if (tok_is_punct(t, '{')) break;
        next(p);
    }
    int depth = 0;
    for (;;) {
        ptx_token t = next(p);
        if (t.kind == TK_EOF)
            pfail(p, d.line, d.col, WH_ERR_USER, "unterminated .section (missing '}')");
        if (tok_is_punct(&t, '{')) depth++;
        if (tok_is_punct(&t, '}') && --depth == 0) return;
    }
}

static void parse_version(parser *p)
{
    ptx_token d = next(p);
    const ptx_token *t = peek(p, 0);
    char buf[80];
    if (t->kind != TK_FLOAT && t->kind != TK_INT)
        pfail(p, t->line, t->col, WH_ERR_USER, "expected a version number after .version, got %s",
              tokdesc(t, buf, sizeof buf));
    ptx_token v = next(p);
    int major = 0, minor = 0, i = 0;
    while (i < v.len && v.s[i] >= '0' && v.s[i] <= '9' && major < 1000) major = major * 10 + (v.s[i++] - '0');
    if (i < v.len && v.s[i] == '.') {
        i++;
        while (i < v.len && v.s[i] >= '0' && v.s[i] <= '9' && minor < 1000) minor = minor * 10 + (v.s[i++] - '0');
    }
    if (i != v.len || major < 1)
        pfail(p, v.line, v.col, WH_ERR_USER, "bad version number %s", tokdesc(&v, buf, sizeof buf));
    if (major > 9)
        pfail(p, v.line, v.col, WH_ERR_UNSUPPORTED, "PTX ISA version %d.%d is not supported (at most 9.x)",
              major, minor);
    p->m->version_major = major;
    p->m->version_minor = minor;
    p->seen_version = true;
    (void)d;
}

static void parse_target(parser *p)
{
    ptx_token d = next(p);
    do {
        ptx_token t = expect_ident(p, "a target name after .target");
        const char **slot = PTX_APUSH(p->A, p->m->targets, p->m->ntargets, p->targets_cap);
        *slot = tokdup(p, &t);
    } while (accept_punct(p, ','));
    p->m->target = p->m->targets[0];
    (void)d;
}

static void parse_address_size(parser *p)
{
    next(p);
    const ptx_token *t = peek(p, 0);
    uint64_t v = expect_uint(p, "an address size (32 or 64)", 1024);
    if (v != 32 && v != 64)
        pfail(p, p->prev.line, p->prev.col, WH_ERR_USER, "bad .address_size %llu (expected 32 or 64)",
              (unsigned long long)v);
    p->m->address_size = (int)v;
    (void)t;
}

/* ---- types and attributes ------------------------------------------------ */

static ptx_type dot_type(const ptx_token *t)
{
    if (t->kind != TK_DOTWORD) return PTX_T_NONE;
    return ptx_type_from_name(t->s + 1, (size_t)t->len - 1);
}

static bool is_opaque_type(const ptx_token *t)
{
    return tok_is_dot(t, ".texref") || tok_is_dot(t, ".samplerref") || tok_is_dot(t, ".surfref");
}

static ptx_space dot_space(const ptx_token *t)
{
    if (t->kind != TK_DOTWORD) return PTX_SPACE_COUNT;
    if (tok_is_dot(t, ".global")) return PTX_SPACE_GLOBAL;
    if (tok_is_dot(t, ".const")) return PTX_SPACE_CONST;
    if (tok_is_dot(t, ".shared") || tok_is_dot(t, ".shared::cta")) return PTX_SPACE_SHARED;
    if (tok_is_dot(t, ".shared::cluster")) return PTX_SPACE_SHARED_CLUSTER;
    if (tok_is_dot(t, ".local")) return PTX_SPACE_LOCAL;
    if (tok_is_dot(t, ".param")) return PTX_SPACE_PARAM;
    if (tok_is_dot(t, ".reg")) return PTX_SPACE_REG;
    if (tok_is_dot(t, ".tex")) return PTX_SPACE_TEX;
    return PTX_SPACE_COUNT;
}

static int parse_align(parser *p)
{
    next(p); /* .align */
    uint64_t a = expect_uint(p, "an alignment after .align", 1u << 20);
    if (!is_pow2(a))
        pfail(p, p->prev.line, p->prev.col, WH_ERR_USER, "alignment %llu is not a power of two",
              (unsigned long long)a);
    return (int)a;
}

static void skip_attribute(parser *p)
{
    ptx_token d = next(p); /* .attribute */
    expect_punct(p, '(', "after .attribute");
    int depth = 1;
    while (depth > 0) {
        ptx_token t = next(p);
        if (t.kind == TK_EOF) pfail(p, d.line, d.col, WH_ERR_USER, "unterminated .attribute(...)");
        if (tok_is_punct(&t, '(')) depth++;
        if (tok_is_punct(&t, ')')) depth--;
    }
}

typedef struct {
    ptx_space space;
    int align;
    int vec;
    ptx_type type;
    bool opaque;
    bool is_ptr;
    ptx_space ptr_space;
    int ptr_align;
    ptx_token type_tok;
} decl_attrs;

/* Attributes between the state space and the name: .align N, .v2/.v4/.v8,
 * the type, .ptr [.space] [.align N], .attribute(...). */
static void parse_decl_attrs(parser *p, decl_attrs *d, const char *what)
{
    char buf[80];
    for (;;) {
        const ptx_token *t = peek(p, 0);
        if (t->kind != TK_DOTWORD) break;
        if (tok_is_dot(t, ".align")) {
            int a = parse_align(p);
            if (d->is_ptr) d->ptr_align = a;
            else d->align = a;
        } else if (tok_is_dot(t, ".v2") || tok_is_dot(t, ".v4") || tok_is_dot(t, ".v8")) {
            d->vec = t->s[2] - '0';
            next(p);
        } else if (tok_is_dot(t, ".ptr")) {
            d->is_ptr = true;
            next(p);
        } else if (tok_is_dot(t, ".attribute")) {
            skip_attribute(p);
        } else if (d->is_ptr && dot_space(t) != PTX_SPACE_COUNT) {
            d->ptr_space = dot_space(t);
            next(p);
        } else if (dot_type(t) != PTX_T_NONE || is_opaque_type(t)) {
            if (d->type != PTX_T_NONE)
                pfail(p, t->line, t->col, WH_ERR_USER, "second type %s in %s", tokdesc(t, buf, sizeof buf), what);
            d->opaque = is_opaque_type(t);
            d->type = d->opaque ? PTX_T_B64 : dot_type(t);
            d->type_tok = *t;
            next(p);
        } else {
            pfail(p, t->line, t->col, WH_ERR_USER, "unexpected %s in %s", tokdesc(t, buf, sizeof buf), what);
        }
    }
    if (d->type == PTX_T_NONE) {
        const ptx_token *t = peek(p, 0);
        pfail(p, t->line, t->col, WH_ERR_USER, "expected a type in %s, got %s", what, tokdesc(t, buf, sizeof buf));
    }
    if (d->vec == 0) d->vec = 1;
}

/* Array dimensions `[N][M]...` or `[]`.  Returns the element count (0 for
 * unsized); sets *is_array / *unsized. */
static uint64_t parse_dims(parser *p, bool *is_array, bool *unsized)
{
    uint64_t count = 1;
    *is_array = false;
    *unsized = false;
    while (tok_is_punct(peek(p, 0), '[')) {
        ptx_token lb = next(p);
        *is_array = true;
        if (tok_is_punct(peek(p, 0), ']')) {
            if (*unsized || count != 1 || lb.kind != TK_PUNCT)
                pfail(p, lb.line, lb.col, WH_ERR_USER, "only the first array dimension may be '[]'");
            *unsized = true;
            next(p);
            continue;
        }
        uint64_t n = expect_uint(p, "an array size", (uint64_t)1 << 40);
        if (n == 0) pfail(p, p->prev.line, p->prev.col, WH_ERR_USER, "array size 0");
        if (n > ((uint64_t)1 << 40) / count)
            pfail(p, p->prev.line, p->prev.col, WH_ERR_USER, "array too large");
        count *= n;
        expect_punct(p, ']', "after array size");
    }
    return *unsized ? 0 : count;
}

/* ---- initializers -------------------------------------------------------- */

static void ibuf_put(parser *p, size_t off, const void *src, size_t n)
{
    if (off + n > p->ibuf_cap) {
        size_t nc = p->ibuf_cap ? p->ibuf_cap : 256;
        while (nc < off + n) nc *= 2;
        p->ibuf = wh_xrealloc(p->ibuf, nc);
        memset(p->ibuf + p->ibuf_cap, 0, nc - p->ibuf_cap);
        p->ibuf_cap = nc;
    }
    memcpy(p->ibuf + off, src, n);
    if (off + n > p->ibuf_len) p->ibuf_len = off + n;
}

static void put_scalar(parser *p, size_t off, ptx_type ty, int esz, const ptx_token *t, bool neg)
{
    uint8_t b[16] = { 0 };
    char buf[80];
    if (ty == PTX_T_F32 || ty == PTX_T_F64) {
        double d;
        if (t->kind == TK_INT) d = neg ? -(double)t->u : (double)t->u;
        else if (t->kind == TK_FLOAT) d = neg ? -t->d : t->d;
        else if (t->kind == TK_F32HEX && ty == PTX_T_F32) {
            uint32_t u = (uint32_t)t->u ^ (neg ? 0x80000000u : 0);
            memcpy(b, &u, 4);
            ibuf_put(p, off, b, 4);
            return;
        } else if (t->kind == TK_F64HEX && ty == PTX_T_F64) {
            uint64_t u = t->u ^ (neg ? (1ull << 63) : 0);
            memcpy(b, &u, 8);
            ibuf_put(p, off, b, 8);
            return;
        } else if (t->kind == TK_F32HEX) {
            uint32_t u = (uint32_t)t->u;
            float f;
            memcpy(&f, &u, 4);
            d = neg ? -(double)f : (double)f;
        } else {
            uint64_t u = t->u;
            memcpy(&d, &u, 8);
            if (neg) d = -d;
        }
        if (ty == PTX_T_F32) {
            float f = (float)d;
            memcpy(b, &f, 4);
        } else {
            memcpy(b, &d, 8);
        }
        ibuf_put(p, off, b, (size_t)esz);
        return;
    }
    if (t->kind == TK_FLOAT)
        pfail(p, t->line, t->col, WH_ERR_USER, "float initializer %s for a variable of type .%s",
              tokdesc(t, buf, sizeof buf), ptx_type_name(ty));
    uint64_t v = t->u;
    if (neg) v = (uint64_t)0 - v;
    for (int i = 0; i < esz && i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    ibuf_put(p, off, b, (size_t)esz);
}

static int lookup_global_sym(parser *p, const char *s, size_t n, ptx_symref *ref)
{
    int i = symtab_find(&p->gsym, s, n);
    if (i < 0) return -1;
    const binding *b = &p->gsym.b[i];
    ref->kind = b->kind == B_FUNC ? PTX_SYM_FUNC : PTX_SYM_MODULE_VAR;
    ref->index = b->index;
    ref->name = b->kind == B_FUNC ? p->m->funcs[b->index].name : p->m->vars[b->index].name;
    return 0;
}

/* One initializer item at element position *k. */
static void parse_init_item(parser *p, ptx_var *v, int csz, uint64_t *k)
{
    char buf[80];
    const ptx_token *t = peek(p, 0);
    size_t off = (size_t)(*k * (uint64_t)csz);
    if (off >= MAX_INIT_BYTES) pfail(p, t->line, t->col, WH_ERR_UNSUPPORTED, "initializer too large");
    bool generic = false;
    if (t->kind == TK_IDENT) {
        ptx_token name = next(p);
        if (tok_is(&name, TK_IDENT, "generic") && tok_is_punct(peek(p, 0), '(')) {
            next(p);
            name = expect_ident(p, "a symbol in generic(...)");
            expect_punct(p, ')', "after generic(symbol");
            generic = true;
        }
        ptx_reloc r = { 0 };
        if (lookup_global_sym(p, name.s, (size_t)name.len, &r.sym) < 0)
            pfail(p, name.line, name.col, WH_ERR_USER, "undefined symbol %s in initializer",
                  tokdesc(&name, buf, sizeof buf));
        if (csz != 4 && csz != 8)
            pfail(p, name.line, name.col, WH_ERR_USER,
                  "address initializer %s needs a 32- or 64-bit variable", tokdesc(&name, buf, sizeof buf));
        if (tok_is_punct(peek(p, 0), '+') || tok_is_punct(peek(p, 0), '-')) {
            bool neg = next(p).punct == '-';
            uint64_t a = expect_uint(p, "an offset", UINT64_MAX);
            r.addend = neg ? -(int64_t)a : (int64_t)a;
        }
        r.offset = off;
        r.size = csz;
        r.generic = generic;
        if (p->nrel == p->rel_cap) {
            p->rel_cap = p->rel_cap ? p->rel_cap * 2 : 8;
            p->rel = wh_xrealloc(p->rel, sizeof(ptx_reloc) * (size_t)p->rel_cap);
        }
        p->rel[p->nrel++] = r;
        uint8_t zero[8] = { 0 };
        ibuf_put(p, off, zero, (size_t)csz);
        (*k)++;
        return;
    }
    bool neg = false;
    if (tok_is_punct(t, '-')) {
        next(p);
        neg = true;
        t = peek(p, 0);
    }
    if (t->kind != TK_INT && t->kind != TK_FLOAT && t->kind != TK_F32HEX && t->kind != TK_F64HEX)
        pfail(p, t->line, t->col, WH_ERR_USER, "expected an initializer value, got %s", tokdesc(t, buf, sizeof buf));
    ptx_token vt = next(p);
    put_scalar(p, off, v->type, csz, &vt, neg);
    (*k)++;
}

static void parse_init_list(parser *p, ptx_var *v, int csz, uint64_t *k, int depth)
{
    if (depth > 16) pfail(p, p->prev.line, p->prev.col, WH_ERR_USER, "initializer nested too deeply");
    if (tok_is_punct(peek(p, 0), '{')) {
        next(p);
        if (tok_is_punct(peek(p, 0), '}')) {
            next(p);
            return;
        }
        do {
            parse_init_list(p, v, csz, k, depth + 1);
        } while (accept_punct(p, ','));
        expect_punct(p, '}', "at the end of an initializer list");
        return;
    }
    parse_init_item(p, v, csz, k);
}

static void skip_opaque_init(parser *p)
{
    int depth = 0;
    for (;;) {
        const ptx_token *t = peek(p, 0);
        if (t->kind == TK_EOF) pfail(p, t->line, t->col, WH_ERR_USER, "unterminated initializer");
        if (depth == 0 && (tok_is_punct(t, ';') || tok_is_punct(t, ','))) return;
        if (tok_is_punct(t, '{')) depth++;
        if (tok_is_punct(t, '}')) depth--;
        next(p);
    }
}

static void parse_initializer(parser *p, ptx_var *v, bool opaque)
{
    ptx_token eq = next(p); /* = */
    if (opaque) {
        skip_opaque_init(p);
        return;
    }
    if (v->linkage == PTX_LINK_EXTERN)
        pfail(p, eq.line, eq.col, WH_ERR_USER, "extern variable '%s' has an initializer", v->name);
    if (v->space != PTX_SPACE_GLOBAL && v->space != PTX_SPACE_CONST)
        pfail(p, eq.line, eq.col, WH_ERR_USER, "variable '%s' in .%s cannot have an initializer", v->name,
              ptx_space_name(v->space));
    int csz = ptx_type_size(v->type);
    if (v->size > MAX_INIT_BYTES)
        pfail(p, eq.line, eq.col, WH_ERR_UNSUPPORTED, "initialized variable '%s' is too large (%llu bytes)", v->name,
              (unsigned long long)v->size);
    if (p->ibuf) memset(p->ibuf, 0, p->ibuf_len); /* beyond ibuf_len it is still zero */
    p->ibuf_len = 0;
    p->nrel = 0;
    uint64_t k = 0;
    parse_init_list(p, v, csz, &k, 0);
    uint64_t comps = v->unsized ? k : v->count * (uint64_t)v->vec;
    if (v->unsized) {
        uint64_t per = (uint64_t)v->vec;
        v->count = (k + per - 1) / per;
        v->size = v->count * (uint64_t)v->elem_size;
        v->unsized = false;
        comps = v->count * per;
    }
    if (k > comps)
        pfail(p, eq.line, eq.col, WH_ERR_USER, "too many initializers for '%s' (%llu for %llu elements)", v->name,
              (unsigned long long)k, (unsigned long long)comps);
    v->init = ptx_arena_alloc(p->A, v->size ? v->size : 1);
    memcpy(v->init, p->ibuf, p->ibuf_len < v->size ? p->ibuf_len : v->size);
    if (p->nrel) {
        v->relocs = ptx_arena_dup(p->A, p->rel, sizeof(ptx_reloc) * (size_t)p->nrel);
        v->nrelocs = p->nrel;
    }
}

/* ---- variable declarations ------------------------------------------------ */

static int add_module_var(parser *p, const ptx_var *v, const ptx_token *name)
{
    int i = symtab_find(&p->gsym, name->s, (size_t)name->len);
    if (i >= 0) {
        const binding *b = &p->gsym.b[i];
        if (b->kind == B_MVAR) {
            ptx_var *old = &p->m->vars[b->index];
            /* an extern declaration may be repeated or completed */
            if (old->linkage == PTX_LINK_EXTERN || v->linkage == PTX_LINK_EXTERN) {
                if (v->linkage != PTX_LINK_EXTERN) *old = *v;
                return b->index;
            }
        }
        pfail(p, name->line, name->col, WH_ERR_USER, "duplicate definition of '%s' (first at line %d)", v->name,
              b->kind == B_MVAR ? p->m->vars[b->index].line : p->m->funcs[b->index].line);
    }
    ptx_var *slot = PTX_APUSH(p->A, p->m->vars, p->m->nvars, p->mvars_cap);
    *slot = *v;
    symtab_push(&p->gsym, v->name, (size_t)name->len, B_MVAR, p->m->nvars - 1);
    return p->m->nvars - 1;
}

static int add_local_var(parser *p, const ptx_var *v, const ptx_token *name)
{
    int mark = p->nscopes ? p->scopes[p->nscopes - 1] : 0;
    int i = symtab_find(&p->lsym, name->s, (size_t)name->len);
    if (i >= mark)
        pfail(p, name->line, name->col, WH_ERR_USER, "duplicate declaration of '%s' in this scope", v->name);
    ptx_var *slot = PTX_APUSH(p->A, p->cur.vars, p->cur.nvars, p->vars_cap);
    *slot = *v;
    symtab_push(&p->lsym, v->name, (size_t)name->len, B_VAR, p->cur.nvars - 1);
    return p->cur.nvars - 1;
}

/* `.space attrs name[dims] [= init] {, name ...} ;` at module or function
 * scope (the space token is next). */
static void parse_var_decl(parser *p, ptx_linkage link, bool in_function)
{
    ptx_token sp = next(p);
    decl_attrs d = { 0 };
    d.space = dot_space(&sp);
    parse_decl_attrs(p, &d, "variable declaration");
    if (d.space == PTX_SPACE_REG || d.space == PTX_SPACE_COUNT)
        pfail(p, sp.line, sp.col, WH_ERR_USER, "bad state space for a variable");
    if (d.space == PTX_SPACE_PARAM && !in_function)
        pfail(p, sp.line, sp.col, WH_ERR_USER, ".param variable outside a function");
    do {
        ptx_token name = expect_ident(p, "a variable name");
        ptx_var v = { 0 };
        v.name = tokdup(p, &name);
        v.space = d.space;
        v.type = d.type;
        v.vec = d.vec;
        v.elem_size = ptx_type_size(d.type) * d.vec;
        v.align = d.align ? d.align : v.elem_size;
        v.linkage = link;
        v.line = name.line;
        v.count = parse_dims(p, &v.is_array, &v.unsized);
        v.size = v.count * (uint64_t)v.elem_size;
        if (tok_is_punct(peek(p, 0), '=')) parse_initializer(p, &v, d.opaque);
        if (in_function) add_local_var(p, &v, &name);
        else add_module_var(p, &v, &name);
    } while (accept_punct(p, ','));
    expect_punct(p, ';', "after variable declaration");
}

/* ---- registers ------------------------------------------------------------ */

static int add_reg(parser *p, const char *name, size_t n, ptx_type ty, int vec, int line, int col)
{
    int mark = p->nscopes ? p->scopes[p->nscopes - 1] : 0;
    int i = symtab_find(&p->lsym, name, n);
    if (i >= mark)
        pfail(p, line, col, WH_ERR_USER, "duplicate declaration of register '%.*s'", (int)n, name);
    ptx_reg *r = PTX_APUSH(p->A, p->cur.regs, p->cur.nregs, p->regs_cap);
    r->name = name;
    r->type = ty;
    r->vec = vec;
    r->bits = ptx_type_bits(ty) * vec;
    r->line = line;
    symtab_push(&p->lsym, name, n, B_REG, p->cur.nregs - 1);
    return p->cur.nregs - 1;
}

static void parse_reg_decl(parser *p)
{
    ptx_token d0 = next(p); /* .reg */
    decl_attrs d = { 0 };
    parse_decl_attrs(p, &d, "register declaration");
    if (d.opaque) pfail(p, d0.line, d0.col, WH_ERR_USER, "bad register type");
    do {
        ptx_token name = expect_ident(p, "a register name");
        if (name.len == 1 && name.s[0] == '_')
            pfail(p, name.line, name.col, WH_ERR_USER, "'_' cannot be declared as a register");
        int sr_index;
        if (ptx_sreg_from_name(name.s, (size_t)name.len, &sr_index) != PTX_SREG_NONE)
            pfail(p, name.line, name.col, WH_ERR_USER, "'%.*s' is a special register", name.len, name.s);
        if (tok_is_punct(peek(p, 0), '<')) {
            next(p);
            uint64_t n = expect_uint(p, "a register count", 1u << 20);
            expect_punct(p, '>', "after register count");
            char tmp[300];
            if (name.len > 256) pfail(p, name.line, name.col, WH_ERR_USER, "register name too long");
            memcpy(tmp, name.s, (size_t)name.len);
            for (uint64_t k = 0; k < n; k++) {
                /* name followed by the decimal digits of k */
                char digits[24];
                int nd = 0;
                uint64_t v = k;
                do {
                    digits[nd++] = (char)('0' + v % 10);
                    v /= 10;
                } while (v);
                int len = name.len;
                while (nd) tmp[len++] = digits[--nd];
                const char *s = ptx_arena_strndup(p->A, tmp, (size_t)len);
                add_reg(p, s, (size_t)len, d.type, d.vec, name.line, name.col);
            }
        } else {
            add_reg(p, tokdup(p, &name), (size_t)name.len, d.type, d.vec, name.line, name.col);
        }
    } while (accept_punct(p, ','));
    expect_punct(p, ';', "after register declaration");
}

/* ---- function headers ------------------------------------------------------- */

static void parse_param(parser *p, ptx_param *out, uint64_t *bytes, bool is_ret)
{
    const ptx_token *t = peek(p, 0);
    char buf[80];
    ptx_space sp = dot_space(t);
    if (sp != PTX_SPACE_PARAM && sp != PTX_SPACE_REG)
        pfail(p, t->line, t->col, WH_ERR_USER, "expected '.param' or '.reg' in a parameter list, got %s",
              tokdesc(t, buf, sizeof buf));
    next(p);
    decl_attrs d = { 0 };
    parse_decl_attrs(p, &d, "parameter");
    ptx_token name = expect_ident(p, "a parameter name");
    memset(out, 0, sizeof *out);
    out->name = tokdup(p, &name);
    out->space = sp;
    out->reg = -1;
    out->type = d.type;
    out->vec = d.vec;
    out->is_ptr = d.is_ptr;
    out->ptr_space = d.is_ptr ? d.ptr_space : PTX_SPACE_GENERIC;
    out->ptr_align = d.ptr_align;
    out->line = name.line;
    bool unsized;
    uint64_t count = parse_dims(p, &out->is_array, &unsized);
    if (unsized) count = 0;
    int esz = ptx_type_size(d.type) * d.vec;
    out->size = count * (uint64_t)esz;
    out->align = d.align ? d.align : esz;
    if (out->align < 1) out->align = 1;
    out->offset = align_up(*bytes, (uint64_t)out->align);
    *bytes = out->offset + out->size;
    (void)is_ret;
}

static void check_param_unique(parser *p, const ptx_param *list, int n, const ptx_param *q)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(list[i].name, q->name))
            pfail(p, q->line, 0, WH_ERR_USER, "duplicate parameter '%s'", q->name);
}

static void parse_param_list(parser *p, ptx_param **arr, int *n, int *cap, uint64_t *bytes, bool is_ret)
{
    expect_punct(p, '(', is_ret ? "before return parameters" : "before parameters");
    if (accept_punct(p, ')')) return;
    do {
        ptx_param q;
        parse_param(p, &q, bytes, is_ret);
        check_param_unique(p, *arr, *n, &q);
        ptx_param *slot = PTX_APUSH(p->A, *arr, *n, *cap);
        *slot = q;
    } while (accept_punct(p, ','));
    expect_punct(p, ')', "after parameter list");
}

static void parse_dims3(parser *p, int out[3], const char *what)
{
    out[0] = (int)expect_uint(p, what, 1u << 30);
    out[1] = out[2] = 1;
    if (accept_punct(p, ',')) out[1] = (int)expect_uint(p, what, 1u << 30);
    if (accept_punct(p, ',')) out[2] = (int)expect_uint(p, what, 1u << 30);
}

static void parse_perf_directives(parser *p, ptx_function *f)
{
    for (;;) {
        const ptx_token *t = peek(p, 0);
        if (t->kind != TK_DOTWORD) return;
        if (tok_is_dot(t, ".maxntid")) {
            next(p);
            parse_dims3(p, f->maxntid, "a thread count");
        } else if (tok_is_dot(t, ".reqntid")) {
            next(p);
            parse_dims3(p, f->reqntid, "a thread count");
        } else if (tok_is_dot(t, ".minnctapersm")) {
            next(p);
            f->minnctapersm = (int)expect_uint(p, "a count", 1u << 30);
        } else if (tok_is_dot(t, ".maxnctapersm")) {
            next(p);
            f->maxnctapersm = (int)expect_uint(p, "a count", 1u << 30);
        } else if (tok_is_dot(t, ".maxnreg")) {
            next(p);
            f->maxnreg = (int)expect_uint(p, "a register count", 1u << 30);
        } else if (tok_is_dot(t, ".noreturn")) {
            next(p);
            f->noreturn = true;
        } else if (tok_is_dot(t, ".pragma")) {
            next(p);
            while (peek(p, 0)->kind == TK_STRING || tok_is_punct(peek(p, 0), ',')) next(p);
            accept_punct(p, ';');
        } else if (tok_is_dot(t, ".attribute")) {
            skip_attribute(p);
        } else if (tok_is_dot(t, ".reqnctapercluster")) {
            next(p);
            parse_dims3(p, f->reqnctapercluster, "a block count");
        } else if (tok_is_dot(t, ".explicitcluster") ||
                   tok_is_dot(t, ".maxclusterrank") || tok_is_dot(t, ".blocksareclusters") ||
                   tok_is_dot(t, ".abi_preserve") || tok_is_dot(t, ".abi_preserve_control")) {
            next(p);
            while (peek(p, 0)->kind == TK_INT || tok_is_punct(peek(p, 0), ',')) next(p);
        } else {
            return;
        }
    }
}

/* ---- instructions ------------------------------------------------------------ */

static void push_op(parser *p, const ptx_operand *o)
{
    if (p->nops == p->ops_cap) {
        p->ops_cap = p->ops_cap ? p->ops_cap * 2 : 32;
        p->ops = wh_xrealloc(p->ops, sizeof(ptx_operand) * (size_t)p->ops_cap);
    }
    p->ops[p->nops++] = *o;
}

static void init_operand(ptx_operand *o, ptx_operand_kind k, const ptx_token *t)
{
    memset(o, 0, sizeof *o);
    o->kind = k;
    o->col = t->col;
    o->reg = -1;
    o->sreg_comp = -1;
    o->label = -1;
    o->label_instr = -1;
    o->label_block = -1;
}

static void set_float_operand(ptx_operand *o, const ptx_token *t, bool neg)
{
    o->kind = PTX_OPD_IMM_FLOAT;
    if (t->kind == TK_F32HEX) {
        uint32_t u = (uint32_t)t->u ^ (neg ? 0x80000000u : 0);
        float f;
        memcpy(&f, &u, 4);
        o->f32bits = u;
        o->fval = (double)f;
        memcpy(&o->f64bits, &o->fval, 8);
        o->fwidth = 32;
    } else if (t->kind == TK_F64HEX) {
        uint64_t u = t->u ^ (neg ? (1ull << 63) : 0);
        memcpy(&o->fval, &u, 8);
        o->f64bits = u;
        float f = (float)o->fval;
        memcpy(&o->f32bits, &f, 4);
        o->fwidth = 64;
    } else {
        o->fval = neg ? -t->d : t->d;
        memcpy(&o->f64bits, &o->fval, 8);
        float f = (float)o->fval;
        memcpy(&o->f32bits, &f, 4);
        o->fwidth = 0;
    }
}

static void set_symbol(ptx_operand *o, ptx_sym_kind kind, int index, const char *name)
{
    o->kind = PTX_OPD_SYMBOL;
    o->sym = (ptx_symref){ kind, index, name };
}

/* Resolve a name in an operand: register, special register, variable,
 * parameter, function; otherwise a (yet unresolved) label. */
static void resolve_name(parser *p, ptx_operand *o, const ptx_token *t, bool in_address)
{
    char buf[80];
    int i = symtab_find(&p->lsym, t->s, (size_t)t->len);
    if (i >= 0) {
        const binding *b = &p->lsym.b[i];
        switch (b->kind) {
        case B_REG:
            o->kind = PTX_OPD_REG;
            o->reg = b->index;
            return;
        case B_VAR:
            set_symbol(o, PTX_SYM_LOCAL_VAR, b->index, p->cur.vars[b->index].name);
            return;
        case B_PARAM:
            set_symbol(o, PTX_SYM_PARAM, b->index, p->cur.params[b->index].name);
            return;
        case B_RET:
            set_symbol(o, PTX_SYM_RET, b->index, p->cur.rets[b->index].name);
            return;
        default:
            break;
        }
    }
    if (t->s[0] == '%') {
        int idx;
        ptx_sreg s = ptx_sreg_from_name(t->s, (size_t)t->len, &idx);
        if (s == PTX_SREG_NONE)
            pfail(p, t->line, t->col, WH_ERR_USER, "undeclared register %s", tokdesc(t, buf, sizeof buf));
        o->kind = PTX_OPD_SPECIAL;
        o->sreg = s;
        o->sreg_index = (int8_t)idx;
        /* component: %tid.x (the .x is glued to the name) */
        const ptx_token *c = peek(p, 0);
        if (c->kind == TK_DOTWORD && c->s == t->s + t->len) {
            int comp = -1;
            if (c->len == 2) {
                switch (c->s[1]) {
                case 'x': comp = 0; break;
                case 'y': comp = 1; break;
                case 'z': comp = 2; break;
                case 'w': comp = 3; break;
                default: break;
                }
            }
            if (comp < 0)
                pfail(p, c->line, c->col, WH_ERR_USER, "bad component %s of special register",
                      tokdesc(c, buf, sizeof buf));
            o->sreg_comp = (int8_t)comp;
            next(p);
        }
        return;
    }
    if (lookup_global_sym(p, t->s, (size_t)t->len, &o->sym) == 0) {
        o->kind = PTX_OPD_SYMBOL;
        return;
    }
    if (tok_is(t, TK_IDENT, "WARP_SZ")) { /* the predefined constant */
        o->kind = PTX_OPD_IMM_INT;
        o->ival = 32;
        return;
    }
    int bt = symtab_find(&p->labels, t->s, (size_t)t->len);
    if (bt >= 0 && p->labels.b[bt].kind == B_BTARGETS) {
        int targets = p->labels.b[bt].index;
        set_symbol(o, PTX_SYM_BRANCHTARGETS, targets, p->cur.btargets[targets].name);
        return;
    }
    if (in_address)
        pfail(p, t->line, t->col, WH_ERR_USER, "undefined symbol %s in address", tokdesc(t, buf, sizeof buf));
    /* a label, resolved at the end of the function */
    o->kind = PTX_OPD_LABEL;
    o->sym.name = intern(p, t->s, (size_t)t->len);
}

static void parse_operand(parser *p, int depth);

/* Parse `open items close` into elems (used for vectors and call lists). */
static void parse_group(parser *p, ptx_operand *o, char close, int depth, bool allow_empty, const char *what)
{
    char buf[80];
    int base = p->nops;
    if (!tok_is_punct(peek(p, 0), close)) {
        for (;;) {
            parse_operand(p, depth + 1);
            const ptx_token *t = peek(p, 0);
            if (tok_is_punct(t, ',')) {
                next(p);
                continue;
            }
            if (tok_is_punct(t, close)) break;
            pfail(p, t->line, t->col, WH_ERR_USER, "bad %s: expected ',' or '%c', got %s", what, close,
                  tokdesc(t, buf, sizeof buf));
        }
    }
    ptx_token c = next(p);
    int n = p->nops - base;
    if (n == 0 && !allow_empty) pfail(p, c.line, c.col, WH_ERR_USER, "bad %s: empty", what);
    o->elems = n ? ptx_arena_dup(p->A, &p->ops[base], sizeof(ptx_operand) * (size_t)n) : NULL;
    o->nelems = n;
    p->nops = base;
}

static void parse_address(parser *p, ptx_operand *o, int depth)
{
    char buf[80];
    next(p); /* [ */
    o->kind = PTX_OPD_ADDR;
    const ptx_token *t = peek(p, 0);
    if (t->kind == TK_IDENT) {
        ptx_token n = next(p);
        ptx_operand tmp;
        init_operand(&tmp, PTX_OPD_NONE, &n);
        resolve_name(p, &tmp, &n, true);
        if (tmp.kind == PTX_OPD_REG) {
            o->reg = tmp.reg;
        } else if (tmp.kind == PTX_OPD_SYMBOL) {
            o->sym = tmp.sym;
        } else {
            pfail(p, n.line, n.col, WH_ERR_USER, "%s cannot be used as an address", tokdesc(&n, buf, sizeof buf));
        }
    } else if (t->kind == TK_INT) {
        o->ival = (int64_t)next(p).u;
    } else if (tok_is_punct(t, '-') && peek(p, 1)->kind == TK_INT) {
        next(p);
        o->ival = -(int64_t)next(p).u;
    } else {
        pfail(p, t->line, t->col, WH_ERR_USER, "bad address: expected a register, symbol or number after '[', got %s",
              tokdesc(t, buf, sizeof buf));
    }
    t = peek(p, 0);
    if ((tok_is_punct(t, '+') || tok_is_punct(t, '-')) && (o->reg >= 0 || o->sym.kind != PTX_SYM_NONE)) {
        bool neg = next(p).punct == '-';
        if (tok_is_punct(peek(p, 0), '-')) {
            next(p);
            neg = !neg;
        }
        t = peek(p, 0);
        if (t->kind != TK_INT)
            pfail(p, t->line, t->col, WH_ERR_USER, "bad address: expected an offset, got %s", tokdesc(t, buf, sizeof buf));
        uint64_t v = next(p).u;
        o->ival = neg ? (int64_t)((uint64_t)0 - v) : (int64_t)v;
    }
    if (tok_is_punct(peek(p, 0), ',')) {
        /* texture / surface form: [tex, {coords}] */
        next(p);
        int base = p->nops;
        do {
            parse_operand(p, depth + 1);
        } while (accept_punct(p, ','));
        int n = p->nops - base;
        o->elems = ptx_arena_dup(p->A, &p->ops[base], sizeof(ptx_operand) * (size_t)n);
        o->nelems = n;
        p->nops = base;
    }
    expect_punct(p, ']', "at the end of an address");
}

static void parse_operand(parser *p, int depth)
{
    char buf[80];
    const ptx_token *t = peek(p, 0);
    ptx_operand o;
    init_operand(&o, PTX_OPD_NONE, t);
    if (depth > 3) pfail(p, t->line, t->col, WH_ERR_USER, "operand nested too deeply");
    if (tok_is_punct(t, '|')) {
        next(p);
        o.pipe = true;
        t = peek(p, 0);
    }
    if (tok_is_punct(t, '{')) {
        next(p);
        o.kind = PTX_OPD_VEC;
        parse_group(p, &o, '}', depth, false, "vector operand");
        for (int i = 0; i < o.nelems; i++) {
            ptx_operand_kind k = o.elems[i].kind;
            if (k == PTX_OPD_VEC || k == PTX_OPD_ADDR || k == PTX_OPD_LIST || k == PTX_OPD_LABEL)
                pfail(p, t->line, o.elems[i].col, WH_ERR_USER,
                      "bad vector operand: element %d must be a register, '_' or an immediate", i + 1);
        }
    } else if (tok_is_punct(t, '[')) {
        parse_address(p, &o, depth);
    } else if (tok_is_punct(t, '(')) {
        next(p);
        o.kind = PTX_OPD_LIST;
        parse_group(p, &o, ')', depth, true, "argument list");
    } else if (tok_is_punct(t, '!')) {
        next(p);
        ptx_token n = expect_ident(p, "a predicate register after '!'");
        resolve_name(p, &o, &n, false);
        if (o.kind != PTX_OPD_REG)
            pfail(p, n.line, n.col, WH_ERR_USER, "'!' needs a predicate register, got %s", tokdesc(&n, buf, sizeof buf));
        o.neg = true;
    } else if (tok_is_punct(t, '-') || tok_is_punct(t, '+')) {
        bool neg = next(p).punct == '-';
        const ptx_token *v = peek(p, 0);
        if (v->kind == TK_INT) {
            o.kind = PTX_OPD_IMM_INT;
            uint64_t u = next(p).u;
            o.ival = neg ? (int64_t)((uint64_t)0 - u) : (int64_t)u;
        } else if (v->kind == TK_FLOAT || v->kind == TK_F32HEX || v->kind == TK_F64HEX) {
            ptx_token ft = next(p);
            set_float_operand(&o, &ft, neg);
        } else {
            pfail(p, v->line, v->col, WH_ERR_USER, "expected a number after '%c', got %s", neg ? '-' : '+',
                  tokdesc(v, buf, sizeof buf));
        }
    } else if (t->kind == TK_INT) {
        o.kind = PTX_OPD_IMM_INT;
        o.ival = (int64_t)next(p).u;
    } else if (t->kind == TK_FLOAT || t->kind == TK_F32HEX || t->kind == TK_F64HEX) {
        ptx_token ft = next(p);
        set_float_operand(&o, &ft, false);
    } else if (t->kind == TK_IDENT) {
        ptx_token n = next(p);
        if (n.len == 1 && n.s[0] == '_') {
            o.kind = PTX_OPD_SINK;
        } else {
            resolve_name(p, &o, &n, false);
            if (o.kind == PTX_OPD_SYMBOL &&
                (tok_is_punct(peek(p, 0), '+') || tok_is_punct(peek(p, 0), '-')) && peek(p, 1)->kind == TK_INT) {
                bool neg = next(p).punct == '-';
                uint64_t u = next(p).u;
                o.ival = neg ? (int64_t)((uint64_t)0 - u) : (int64_t)u;
            }
        }
    } else {
        pfail(p, t->line, t->col, WH_ERR_USER, "expected an operand, got %s", tokdesc(t, buf, sizeof buf));
    }
    push_op(p, &o);
}

static void parse_instruction(parser *p)
{
    char buf[80];
    ptx_instr ins;
    memset(&ins, 0, sizeof ins);
    ins.guard = -1;
    ins.target_label = -1;
    ins.target_instr = -1;
    ins.callee = -1;
    ins.block = -1;
    const ptx_token *t = peek(p, 0);
    ins.line = t->line;
    ins.col = t->col;
    if (tok_is_punct(t, '@')) {
        next(p);
        if (accept_punct(p, '!')) ins.guard_neg = true;
        ptx_token g = expect_ident(p, "a predicate register after '@'");
        int i = symtab_find(&p->lsym, g.s, (size_t)g.len);
        if (i < 0 || p->lsym.b[i].kind != B_REG)
            pfail(p, g.line, g.col, WH_ERR_USER, "undeclared predicate register %s in guard", tokdesc(&g, buf, sizeof buf));
        ins.guard = p->lsym.b[i].index;
        if (p->cur.regs[ins.guard].type != PTX_T_PRED)
            pfail(p, g.line, g.col, WH_ERR_USER, "guard %s is not a .pred register", tokdesc(&g, buf, sizeof buf));
    }
    t = peek(p, 0);
    if (t->kind != TK_IDENT)
        pfail(p, t->line, t->col, WH_ERR_USER, "expected an instruction, got %s", tokdesc(t, buf, sizeof buf));
    ptx_token opc = next(p);
    ins.opcode = intern(p, opc.s, (size_t)opc.len);
    p->nmods = 0;
    while (peek(p, 0)->kind == TK_DOTWORD && peek(p, 0)->s == p->prev.s + p->prev.len) {
        ptx_token mt = next(p);
        if (p->nmods == p->mods_cap) {
            p->mods_cap = p->mods_cap ? p->mods_cap * 2 : 16;
            p->mods = wh_xrealloc(p->mods, sizeof(char *) * (size_t)p->mods_cap);
        }
        p->mods[p->nmods++] = intern(p, mt.s + 1, (size_t)mt.len - 1);
    }
    if (p->nmods) {
        ins.mods = ptx_arena_dup(p->A, p->mods, sizeof(char *) * (size_t)p->nmods);
        ins.nmods = p->nmods;
    }
    p->nops = 0;
    t = peek(p, 0);
    if (!tok_is_punct(t, ';')) {
        for (;;) {
            parse_operand(p, 0);
            t = peek(p, 0);
            if (tok_is_punct(t, ',')) {
                next(p);
                continue;
            }
            if (tok_is_punct(t, '|')) continue; /* d|p pair: parse_operand takes the '|' */
            break;
        }
    }
    t = peek(p, 0);
    if (!tok_is_punct(t, ';'))
        pfail(p, t->line, t->col, WH_ERR_USER, "expected ';' after instruction '%s', got %s", ins.opcode,
              tokdesc(t, buf, sizeof buf));
    next(p);
    if (p->nops) {
        ins.ops = ptx_arena_dup(p->A, p->ops, sizeof(ptx_operand) * (size_t)p->nops);
        ins.nops = p->nops;
    }
    ins.src_file = p->loc_file;
    ins.src_line = p->loc_line;
    ins.call_file = p->call_file;
    ins.call_line = p->call_line;
    ptx_instr *slot = PTX_APUSH(p->A, p->cur.instrs, p->cur.ninstrs, p->instrs_cap);
    *slot = ins;
}

/* ---- labels and label-like directives ---------------------------------------- */

static int add_label(parser *p, const ptx_token *name, int kind)
{
    int i = symtab_find(&p->labels, name->s, (size_t)name->len);
    if (i >= 0) {
        const binding *b = &p->labels.b[i];
        int line = b->kind == B_LABEL ? p->cur.labels[b->index].line : p->cur.btargets[b->index].line;
        pfail(p, name->line, name->col, WH_ERR_USER, "duplicate label '%.*s' (first defined at line %d)", name->len,
              name->s, line);
    }
    if (kind == B_LABEL) {
        ptx_label *l = PTX_APUSH(p->A, p->cur.labels, p->cur.nlabels, p->labels_cap);
        l->name = intern(p, name->s, (size_t)name->len);
        l->instr = p->cur.ninstrs;
        l->block = -1;
        l->line = name->line;
        symtab_push(&p->labels, l->name, (size_t)name->len, B_LABEL, p->cur.nlabels - 1);
        return p->cur.nlabels - 1;
    }
    ptx_btargets *b = PTX_APUSH(p->A, p->cur.btargets, p->cur.nbtargets, p->bt_cap);
    b->name = intern(p, name->s, (size_t)name->len);
    b->line = name->line;
    symtab_push(&p->labels, b->name, (size_t)name->len, B_BTARGETS, p->cur.nbtargets - 1);
    return p->cur.nbtargets - 1;
}

/* `name: .branchtargets L1, L2, ...;` — label names are resolved later; they
 * are kept as label operands in a scratch list. */
static void parse_branchtargets(parser *p, const ptx_token *name)
{
    int bt = add_label(p, name, B_BTARGETS);
    next(p); /* .branchtargets */
    do {
        ptx_token l = expect_ident(p, "a label in .branchtargets");
        if (p->npend == p->pend_cap) {
            p->pend_cap = p->pend_cap ? p->pend_cap * 2 : 16;
            p->pend = wh_xrealloc(p->pend, sizeof(struct pending_bt) * (size_t)p->pend_cap);
        }
        struct pending_bt *q = &p->pend[p->npend++];
        q->bt = bt;
        q->name = intern(p, l.s, (size_t)l.len);
        q->line = l.line;
        q->col = l.col;
    } while (accept_punct(p, ','));
    expect_punct(p, ';', "after .branchtargets");
}

/* ---- label resolution ------------------------------------------------------------ */

static void resolve_label_operand(parser *p, ptx_operand *o, const ptx_instr *ins)
{
    if (o->kind == PTX_OPD_LABEL && o->label < 0) {
        int i = symtab_find(&p->labels, o->sym.name, strlen(o->sym.name));
        if (i >= 0 && p->labels.b[i].kind == B_BTARGETS) {
            o->kind = PTX_OPD_SYMBOL;
            o->sym.kind = PTX_SYM_BRANCHTARGETS;
            o->sym.index = p->labels.b[i].index;
            return;
        }
        if (i < 0) {
            bool branch = !strcmp(ins->opcode, "bra") || !strcmp(ins->opcode, "brx");
            pfail(p, ins->line, o->col, WH_ERR_USER, "undefined %s '%s' in '%s' at line %d",
                  branch ? "label" : "symbol", o->sym.name, ins->opcode, ins->line);
        }
        o->label = p->labels.b[i].index;
        o->label_instr = p->cur.labels[o->label].instr;
    }
    for (int k = 0; k < o->nelems; k++) resolve_label_operand(p, (ptx_operand *)&o->elems[k], ins);
}

/* ---- function bodies -------------------------------------------------------------- */

static void push_scope(parser *p)
{
    if (p->nscopes == p->scopes_cap) {
        p->scopes_cap = p->scopes_cap ? p->scopes_cap * 2 : 16;
        p->scopes = wh_xrealloc(p->scopes, sizeof(int) * (size_t)p->scopes_cap);
    }
    p->scopes[p->nscopes++] = p->lsym.n;
}

static void pop_scope(parser *p)
{
    p->nscopes--;
    symtab_pop_to(&p->lsym, p->scopes[p->nscopes]);
}

static void parse_body(parser *p, const ptx_token *open)
{
    char buf[80];
    int depth = 0;
    p->npend = 0;
    push_scope(p); /* function scope (params are below it) */
    for (;;) {
        const ptx_token *t = peek(p, 0);
        if (t->kind == TK_EOF)
            pfail(p, t->line, t->col, WH_ERR_USER, "unexpected end of file in the body of '%s' (missing '}' for the '{' at line %d)",
                  p->cur.name, open->line);
        if (tok_is_punct(t, '}')) {
            next(p);
            pop_scope(p);
            if (depth == 0) break;
            depth--;
            continue;
        }
        if (tok_is_punct(t, '{')) {
            next(p);
            push_scope(p);
            depth++;
            continue;
        }
        if (tok_is_punct(t, ';')) { /* empty statement */
            next(p);
            continue;
        }
        if (t->kind == TK_DOTWORD) {
            if (tok_is_dot(t, ".reg")) {
                parse_reg_decl(p);
            } else if (tok_is_dot(t, ".local") || tok_is_dot(t, ".shared") || tok_is_dot(t, ".param") ||
                       tok_is_dot(t, ".const") || tok_is_dot(t, ".global") || tok_is_dot(t, ".shared::cta")) {
                parse_var_decl(p, PTX_LINK_NONE, true);
            } else if (tok_is_dot(t, ".loc")) {
                parse_loc(p);
            } else if (tok_is_dot(t, ".file")) {
                parse_file(p);
            } else if (tok_is_dot(t, ".pragma")) {
                skip_statement(p);
            } else {
                pfail(p, t->line, t->col, WH_ERR_USER, "unknown directive %s in a function body", tokdesc(t, buf, sizeof buf));
            }
            continue;
        }
        if (t->kind == TK_IDENT && tok_is_punct(peek(p, 1), ':')) {
            ptx_token name = next(p);
            next(p); /* : */
            const ptx_token *d = peek(p, 0);
            if (tok_is_dot(d, ".branchtargets")) {
                parse_branchtargets(p, &name);
            } else if (tok_is_dot(d, ".callprototype") || tok_is_dot(d, ".calltargets")) {
                add_label(p, &name, B_LABEL);
                skip_statement(p);
            } else {
                add_label(p, &name, B_LABEL);
            }
            continue;
        }
        parse_instruction(p);
    }
    /* resolve labels */
    for (int i = 0; i < p->cur.ninstrs; i++) {
        ptx_instr *ins = &p->cur.instrs[i];
        for (int k = 0; k < ins->nops; k++) {
            ptx_operand *o = (ptx_operand *)&ins->ops[k];
            if (o->kind == PTX_OPD_LABEL || o->nelems) resolve_label_operand(p, o, ins);
        }
    }
    /* branch target tables */
    for (int i = 0; i < p->npend; i++) {
        const struct pending_bt *q = &p->pend[i];
        int li = symtab_find(&p->labels, q->name, strlen(q->name));
        if (li < 0 || p->labels.b[li].kind != B_LABEL)
            pfail(p, q->line, q->col, WH_ERR_USER, "undefined label '%s' in .branchtargets", q->name);
        ptx_btargets *b = &p->cur.btargets[q->bt];
        b->labels = ptx_arena_grow(p->A, b->labels, sizeof(int) * (size_t)b->nlabels,
                                   sizeof(int) * (size_t)(b->nlabels + 1));
        b->labels[b->nlabels++] = p->labels.b[li].index;
    }
}

static void reset_function_state(parser *p)
{
    memset(&p->cur, 0, sizeof p->cur);
    p->regs_cap = p->vars_cap = p->instrs_cap = p->labels_cap = p->params_cap = p->rets_cap = p->bt_cap = 0;
    symtab_clear(&p->lsym);
    symtab_clear(&p->labels);
    p->nscopes = 0;
    p->loc_file = p->loc_line = p->call_file = p->call_line = 0;
}

static void parse_function(parser *p, ptx_linkage link)
{
    char buf[80];
    ptx_token kw = next(p);
    bool is_entry = tok_is_dot(&kw, ".entry");
    reset_function_state(p);
    p->cur.is_entry = is_entry;
    p->cur.linkage = link;
    p->cur.line = kw.line;
    uint64_t ret_bytes = 0;
    if (!is_entry && tok_is_punct(peek(p, 0), '('))
        parse_param_list(p, &p->cur.rets, &p->cur.nrets, &p->rets_cap, &ret_bytes, true);
    ptx_token name = expect_ident(p, is_entry ? "a kernel name after .entry" : "a function name after .func");
    p->cur.name = tokdup(p, &name);
    if (tok_is_punct(peek(p, 0), '('))
        parse_param_list(p, &p->cur.params, &p->cur.nparams, &p->params_cap, &p->cur.param_bytes, false);
    parse_perf_directives(p, &p->cur);

    /* declare (or find the prototype of) the function */
    int i = symtab_find(&p->gsym, name.s, (size_t)name.len);
    bool has_body = tok_is_punct(peek(p, 0), '{');
    if (i >= 0) {
        const binding *b = &p->gsym.b[i];
        if (b->kind != B_FUNC)
            pfail(p, name.line, name.col, WH_ERR_USER, "'%s' is already declared as a variable (line %d)",
                  p->cur.name, p->m->vars[b->index].line);
        p->fi = b->index;
        ptx_function *old = &p->m->funcs[p->fi];
        if (old->has_body && has_body)
            pfail(p, name.line, name.col, WH_ERR_USER, "duplicate definition of function '%s' (first at line %d)",
                  p->cur.name, old->line);
        if (old->is_entry != is_entry)
            pfail(p, name.line, name.col, WH_ERR_USER, "'%s' declared both as .entry and .func", p->cur.name);
        if (!has_body) {
            /* a repeated declaration: keep the first */
            accept_punct(p, ';');
            return;
        }
        if (old->nparams != p->cur.nparams || old->nrets != p->cur.nrets)
            pfail(p, name.line, name.col, WH_ERR_USER, "definition of '%s' does not match its declaration at line %d",
                  p->cur.name, old->line);
    } else {
        ptx_function *slot = PTX_APUSH(p->A, p->m->funcs, p->m->nfuncs, p->funcs_cap);
        p->fi = p->m->nfuncs - 1;
        symtab_push(&p->gsym, p->cur.name, (size_t)name.len, B_FUNC, p->fi);
        if (is_entry) {
            int *k = PTX_APUSH(p->A, p->m->kernels, p->m->nkernels, p->kernels_cap);
            *k = p->fi;
        }
        *slot = p->cur;
    }
    if (!has_body) {
        const ptx_token *t = peek(p, 0);
        if (!tok_is_punct(t, ';'))
            pfail(p, t->line, t->col, WH_ERR_USER, "expected '{' or ';' after the header of '%s', got %s",
                  p->cur.name, tokdesc(t, buf, sizeof buf));
        next(p);
        p->m->funcs[p->fi] = p->cur;
        return;
    }
    ptx_token open = next(p); /* { */
    /* params and rets are visible in the body */
    for (int k = 0; k < p->cur.nrets; k++) {
        ptx_param *q = &p->cur.rets[k];
        if (q->space == PTX_SPACE_REG) q->reg = add_reg(p, q->name, strlen(q->name), q->type, q->vec, q->line, 0);
        else symtab_push(&p->lsym, q->name, strlen(q->name), B_RET, k);
    }
    for (int k = 0; k < p->cur.nparams; k++) {
        ptx_param *q = &p->cur.params[k];
        if (q->space == PTX_SPACE_REG) q->reg = add_reg(p, q->name, strlen(q->name), q->type, q->vec, q->line, 0);
        else symtab_push(&p->lsym, q->name, strlen(q->name), B_PARAM, k);
    }
    p->cur.has_body = true;
    p->m->funcs[p->fi] = p->cur; /* visible (for recursion) while the body is parsed */
    parse_body(p, &open);
    for (int k = 0; k < p->cur.ninstrs; k++)
        if (!ptx_decode_instr(p->m, &p->cur, &p->cur.instrs[k], p->file, p->err)) longjmp(p->jb, 1);
    if (!ptx_build_cfg(p->m, &p->cur, p->file, p->err)) longjmp(p->jb, 1);
    ptx_build_dominators(p->m, &p->cur);
    p->m->funcs[p->fi] = p->cur;
}

/* ---- module -------------------------------------------------------------------------- */

static void parse_module(parser *p)
{
    char buf[80];
    for (;;) {
        const ptx_token *t = peek(p, 0);
        if (t->kind == TK_EOF) break;
        if (t->kind != TK_DOTWORD)
            pfail(p, t->line, t->col, WH_ERR_USER, "expected a directive, got %s", tokdesc(t, buf, sizeof buf));
        if (!p->seen_version && !tok_is_dot(t, ".version") && !tok_is_dot(t, ".file") && !tok_is_dot(t, ".loc"))
            pfail(p, t->line, t->col, WH_ERR_USER, "expected '.version' at the start of the PTX, got %s",
                  tokdesc(t, buf, sizeof buf));
        if (tok_is_dot(t, ".version")) {
            if (p->seen_version) pfail(p, t->line, t->col, WH_ERR_USER, "second .version directive");
            parse_version(p);
        } else if (tok_is_dot(t, ".target")) {
            parse_target(p);
        } else if (tok_is_dot(t, ".address_size")) {
            parse_address_size(p);
        } else if (tok_is_dot(t, ".file")) {
            parse_file(p);
        } else if (tok_is_dot(t, ".loc")) {
            parse_loc(p);
        } else if (tok_is_dot(t, ".section")) {
            skip_section(p);
        } else if (tok_is_dot(t, ".pragma") || tok_is_dot(t, ".alias")) {
            skip_statement(p);
        } else {
            ptx_linkage link = PTX_LINK_NONE;
            if (tok_is_dot(t, ".visible")) link = PTX_LINK_VISIBLE;
            else if (tok_is_dot(t, ".extern")) link = PTX_LINK_EXTERN;
            else if (tok_is_dot(t, ".weak")) link = PTX_LINK_WEAK;
            else if (tok_is_dot(t, ".common")) link = PTX_LINK_COMMON;
            if (link != PTX_LINK_NONE) {
                next(p);
                t = peek(p, 0);
            }
            if (tok_is_dot(t, ".entry") || tok_is_dot(t, ".func")) {
                parse_function(p, link);
            } else if (tok_is_dot(t, ".global") || tok_is_dot(t, ".const") || tok_is_dot(t, ".shared") ||
                       tok_is_dot(t, ".local") || tok_is_dot(t, ".tex") || tok_is_dot(t, ".shared::cta") ||
                       tok_is_dot(t, ".shared::cluster")) {
                parse_var_decl(p, link, false);
            } else {
                pfail(p, t->line, t->col, WH_ERR_USER, "unknown directive %s", tokdesc(t, buf, sizeof buf));
            }
        }
    }
    if (!p->seen_version) {
        const ptx_token *t = peek(p, 0);
        pfail(p, t->line, t->col, WH_ERR_USER, "empty PTX: no .version directive");
    }
}

static void parser_free_scratch(parser *p)
{
    symtab_free(&p->gsym);
    symtab_free(&p->lsym);
    symtab_free(&p->labels);
    symtab_free(&p->strings);
    free(p->scopes);
    free(p->ops);
    free(p->mods);
    free(p->ibuf);
    free(p->rel);
    free(p->pend);
}

ptx_module *ptx_parse_buffer(const char *text, size_t len, const char *name, wh_error *err)
{
    parser *p = calloc(1, sizeof *p);
    if (!p) {
        wh_error_set(err, WH_ERR_INTERNAL, name, 0, 0, "out of memory");
        return NULL;
    }
    p->file = name ? name : "<string>";
    if (!text) {
        text = "";
        len = 0;
    }
    p->err = err;
    p->A = ptx_arena_new();
    p->m = ptx_arena_alloc(p->A, sizeof *p->m);
    p->m->arena = p->A;
    p->m->name = ptx_arena_strndup(p->A, p->file, strlen(p->file));
    p->m->address_size = 64;
    p->m->target = "";
    ptx_lex_init(&p->lx, text, len);
    if (setjmp(p->jb) == 0) {
        parse_module(p);
        ptx_module *m = p->m;
        parser_free_scratch(p);
        free(p);
        return m;
    }
    ptx_arena_free(p->A);
    parser_free_scratch(p);
    free(p);
    return NULL;
}

ptx_module *ptx_parse_string(const char *text, const char *name, wh_error *err)
{
    if (!text) text = "";
    return ptx_parse_buffer(text, strlen(text), name, err);
}

/* A file that failed to parse and is named like C/C++/CUDA source or starts
 * with a preprocessor line: the user gave the .cu, not its PTX. */
static bool looks_like_source(const char *path, const char *buf, size_t len)
{
    const char *dot = strrchr(path, '.');
    static const char *const exts[] = { ".cu", ".cuh", ".c", ".cc", ".cpp", ".h", ".hpp", NULL };
    for (int i = 0; dot && exts[i]; i++)
        if (!strcmp(dot, exts[i])) return true;
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r')) i++;
    return i < len && buf[i] == '#';
}

ptx_module *ptx_parse_file(const char *path, wh_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "out of memory");
        return NULL;
    }
    for (;;) {
        if (len == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "out of memory");
                return NULL;
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    bool rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(buf);
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "read error");
        return NULL;
    }
    ptx_module *m = ptx_parse_buffer(buf, len, path, err);
    if (!m && looks_like_source(path, buf, len))
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "this is CUDA C++ source, not PTX: `nvcc -ptx %s` makes the "
                     "PTX (in the repository, `make ptx` does for the bundled kernels)", path);
    free(buf);
    return m;
}

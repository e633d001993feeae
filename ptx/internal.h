/*
 * internal.h — declarations shared by the files of ptx/ and nobody else:
 * the module arena, the lexer, name tables, decoding and CFG construction.
 */
#ifndef WH_PTX_INTERNAL_H
#define WH_PTX_INTERNAL_H

#include "core/alloc.h"
#include "ptx/ptx.h"

#include <stddef.h>
#include <stdint.h>

/* ---- arena (arena.c): all memory of a module, freed at once ------------ */

typedef struct ptx_arena ptx_arena;

ptx_arena *ptx_arena_new(void);
void ptx_arena_free(ptx_arena *a);
/* Zeroed, 16-byte aligned; aborts on out-of-memory. */
void *ptx_arena_alloc(ptx_arena *a, size_t size);
/* Grow an array previously returned by the arena (in place when it is the
 * last allocation); new bytes are zeroed. */
void *ptx_arena_grow(ptx_arena *a, void *old, size_t old_size, size_t new_size);
void *ptx_arena_dup(ptx_arena *a, const void *p, size_t size);
char *ptx_arena_strndup(ptx_arena *a, const char *s, size_t n);
size_t ptx_arena_bytes(const ptx_arena *a);

/* Make room for one more element in an arena-grown array of `n` elements
 * with capacity *cap (doubling); returns the (possibly moved) array. */
void *ptx_arena_reserve(ptx_arena *a, void *arr, int n, int *cap, size_t elem);
/* Push one element to an arena-grown array `arr` of `n` elements with
 * capacity `cap`; evaluates to a pointer to the new (zeroed) element. */
#define PTX_APUSH(arena, arr, n, cap) \
    ((arr) = ptx_arena_reserve((arena), (arr), (n), &(cap), sizeof *(arr)), &(arr)[(n)++])

/* ---- lexer (lex.c) ------------------------------------------------------ */

typedef enum {
    TK_EOF = 0,
    TK_IDENT,     /* foo, %r1, $L__BB0_1, %tid, _ */
    TK_DOTWORD,   /* .reg .b32 .shared::cta .L2::evict_last (text includes the dot) */
    TK_INT,       /* 12, 0x1F, 017, 0b101, 12U */
    TK_FLOAT,     /* 1.5, 2e3 (decimal) */
    TK_F32HEX,    /* 0f3F800000 */
    TK_F64HEX,    /* 0d3FF0000000000000 */
    TK_STRING,    /* "..." (text includes the quotes) */
    TK_PUNCT,     /* one of { } ( ) [ ] , ; : + - ! | @ < > = * / ~ & ^ % */
    TK_ERROR      /* lexical error: message in the lexer */
} ptx_tok_kind;

typedef struct {
    ptx_tok_kind kind;
    const char *s;    /* text in the source buffer */
    int len;
    int line, col;
    char punct;       /* TK_PUNCT */
    uint64_t u;       /* TK_INT, TK_F32HEX, TK_F64HEX: value / bit pattern */
    double d;         /* TK_FLOAT */
} ptx_token;

typedef struct {
    const char *src, *end, *p;
    int line;
    const char *line_start;
    char msg[256];    /* message of the last TK_ERROR */
} ptx_lexer;

void ptx_lex_init(ptx_lexer *lx, const char *src, size_t len);
/* Next token; never reads past `end`.  Comments and whitespace skipped,
 * `@@DWARF` lines skipped. */
void ptx_lex_next(ptx_lexer *lx, ptx_token *t);
/* Skip to the end of the current line (for .loc / .file). */
void ptx_lex_skip_line(ptx_lexer *lx);

/* ---- names (names.c) ---------------------------------------------------- */

/* Parse a type name without the dot ("u32"); PTX_T_NONE when not a type. */
ptx_type ptx_type_from_name(const char *s, size_t n);
ptx_sreg ptx_sreg_from_name(const char *s, size_t n, int *index);

/* ---- the opcode table (opcodes.c, from opcodes.def) ---------------------- */

typedef struct {
    ptx_opcode op;
    const char *keyword;        /* opcode word matched by the decoder, or NULL */
    const char *name;
    signed char min_ops, max_ops;
    bool has_dest;
    const char *operands;       /* operand classes (see opcodes.def) */
    const char *types;          /* operand types (see opcodes.def) */
    unsigned engines;
    const char *example;
} ptx_opcode_row;

const ptx_opcode_row *ptx_opcode_info(ptx_opcode op);

/* ---- decoding (decode.c) ------------------------------------------------ */

/* Fill the decoded form of `ins` from its generic form.  Returns false and
 * fills `err` when the operand list does not fit a known opcode. */
bool ptx_decode_instr(const ptx_module *m, ptx_function *f, ptx_instr *ins,
                      const char *file, wh_error *err);

/* ---- register types (typecheck.c) -------------------------------------- */

/* Each register operand of a decoded `ins` against the type its position
 * takes (the `types` column of opcodes.def).  Returns false and fills `err`
 * (file:line:col of the register) when a register is too narrow or of a
 * kind the PTX type-checking rules refuse there. */
bool ptx_check_types(const ptx_function *f, const ptx_instr *ins, const char *file, wh_error *err);

/* ---- CFG (cfg.c, dom.c) ------------------------------------------------- */

bool ptx_build_cfg(ptx_module *m, ptx_function *f, const char *file, wh_error *err);
void ptx_build_dominators(ptx_module *m, ptx_function *f);

#endif

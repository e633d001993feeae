/*
 * expr.h — the small integer expressions of kernel specs.
 *
 * `count`, `value`, `range` bounds and `constants` are written as text such
 * as "threads*8" or "max(blocks, 1024) - 1".  They are parsed once against
 * a list of variable names (threads, blocks, block, i, then the spec's
 * constants) and evaluated many times, for the full launch and for every
 * X-thread symbolic launch.  Integer arithmetic on int64 with + - * / %,
 * unary minus, parentheses, min(a,b) and max(a,b); overflow and division
 * by zero are errors, not wrap-around.
 */
#ifndef WH_CORE_EXPR_H
#define WH_CORE_EXPR_H

#include "core/error.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct wh_expr wh_expr;

/* Nodes of one expression (numbers, names, operators) at most. */
#define WH_EXPR_MAX_NODES 4096

/* Parse `text`; identifiers must be among names[0..nnames).  On error the
 * message quotes the expression and the column; file/path are the caller's. */
wh_expr *wh_expr_parse(const char *text, const char *const *names, int nnames, wh_error *err);
/* A constant expression (for JSON numbers). */
wh_expr *wh_expr_const(int64_t value);
void wh_expr_free(wh_expr *e);

/* Evaluate with vars[k] the value of names[k]. */
bool wh_expr_eval(const wh_expr *e, const int64_t *vars, int64_t *out, wh_error *err);
/* The same with variable `var` taking `value` instead of vars[var]. */
bool wh_expr_eval_with(const wh_expr *e, const int64_t *vars, int var, int64_t value, int64_t *out, wh_error *err);
/* Does the expression mention variable k? */
bool wh_expr_uses(const wh_expr *e, int var);
/* The source text ("42" for constants). */
const char *wh_expr_text(const wh_expr *e);

#endif

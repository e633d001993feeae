/*
 * error.h — errors that carry their context.
 *
 * Every fallible function in warphunt takes a `wh_error *` as its last
 * argument and returns a failure value (NULL, -1 or false) after filling it.
 * The error records where the problem is (file, line, column, JSON path),
 * what is wrong, and a class that the command line maps to an exit status.
 * A NULL `wh_error *` is allowed: the error is then dropped.
 */
#ifndef WH_CORE_ERROR_H
#define WH_CORE_ERROR_H

#include <stdarg.h>
#include <stdbool.h>

typedef enum {
    WH_ERR_NONE = 0,
    WH_ERR_USER,      /* bad input: file, spec, option (exit status 1) */
    WH_ERR_UNSUPPORTED, /* valid input we do not handle (exit status 1) */
    WH_ERR_INTERNAL,  /* a bug or a failed system call (exit status 2) */
    WH_ERR_DEVICE     /* GPU / driver failure (exit status 2) */
} wh_error_kind;

typedef struct wh_error {
    wh_error_kind kind;
    char file[512];   /* "" when not about a file */
    int line, col;    /* 1-based; 0 when unknown */
    char path[256];   /* JSON path such as "$.params[2].type", or "" */
    char msg[1024];   /* what is wrong and what was expected */
} wh_error;

void wh_error_clear(wh_error *e);
bool wh_error_is_set(const wh_error *e);

/* Fill `e` (if not NULL).  `file` may be NULL; line/col may be 0. */
void wh_error_set(wh_error *e, wh_error_kind kind, const char *file, int line,
                  int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
void wh_error_setv(wh_error *e, wh_error_kind kind, const char *file, int line,
                   int col, const char *fmt, va_list ap);
/* Set the JSON path of an error already filled. */
void wh_error_set_path(wh_error *e, const char *path);

/* "file:line:col: path: message" with empty parts left out. */
void wh_error_format(const wh_error *e, char *buf, int size);
/* Exit status for the command line: 1 user/unsupported, 2 internal/device. */
int wh_error_exit_status(const wh_error *e);

#endif

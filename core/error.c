/*
 * error.c — filling and formatting `wh_error` (see error.h).
 */
#include "core/error.h"

#include <stdio.h>
#include <string.h>

void wh_error_clear(wh_error *e)
{
    if (e) memset(e, 0, sizeof *e);
}

bool wh_error_is_set(const wh_error *e)
{
    return e && e->kind != WH_ERR_NONE;
}

void wh_error_setv(wh_error *e, wh_error_kind kind, const char *file, int line,
                   int col, const char *fmt, va_list ap)
{
    if (!e) return;
    memset(e, 0, sizeof *e);
    e->kind = kind;
    if (file) snprintf(e->file, sizeof e->file, "%s", file);
    e->line = line;
    e->col = col;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
}

void wh_error_set(wh_error *e, wh_error_kind kind, const char *file, int line,
                  int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wh_error_setv(e, kind, file, line, col, fmt, ap);
    va_end(ap);
}

void wh_error_set_path(wh_error *e, const char *path)
{
    if (e && path) snprintf(e->path, sizeof e->path, "%s", path);
}

void wh_error_format(const wh_error *e, char *buf, int size)
{
    int n = 0;
    if (size <= 0) return;
    buf[0] = '\0';
    if (!e) return;
#define APPEND(...) do { if (n < size) n += snprintf(buf + n, (size_t)(size - n), __VA_ARGS__); } while (0)
    if (e->file[0]) {
        APPEND("%s", e->file);
        if (e->line > 0) APPEND(":%d", e->line);
        if (e->line > 0 && e->col > 0) APPEND(":%d", e->col);
        APPEND(": ");
    }
    if (e->path[0]) APPEND("%s: ", e->path);
    APPEND("%s", e->msg);
#undef APPEND
}

int wh_error_exit_status(const wh_error *e)
{
    if (!e) return 0;
    switch (e->kind) {
    case WH_ERR_NONE: return 0;
    case WH_ERR_USER:
    case WH_ERR_UNSUPPORTED: return 1;
    default: return 2;
    }
}

/*
 * lex.c — the PTX lexer: bytes -> tokens with line and column.
 *
 * Works on a buffer with an explicit end and never reads past it.  Skips
 * whitespace, `//` and `/ * * /` comments and `@@DWARF` lines.  Numbers are
 * converted here (decimal, hex, octal, binary integers with an optional U
 * suffix; 0fXXXXXXXX and 0dXXXXXXXXXXXXXXXX float bit patterns; decimal
 * floats).  Lexical errors come back as TK_ERROR with a message.
 */
#include "ptx/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ptx_lex_init(ptx_lexer *lx, const char *src, size_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->src = lx->p = lx->line_start = src;
    lx->end = src + len;
    lx->line = 1;
}

static bool is_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%';
}

static bool is_ident_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$';
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void newline(ptx_lexer *lx)
{
    lx->line++;
    lx->line_start = lx->p;
}

void ptx_lex_skip_line(ptx_lexer *lx)
{
    while (lx->p < lx->end && *lx->p != '\n') lx->p++;
}

static void set_error(ptx_lexer *lx, ptx_token *t, const char *fmt, const char *arg, int arglen)
{
    t->kind = TK_ERROR;
    if (arg) {
        char tmp[64];
        int n = arglen < 40 ? arglen : 40;
        int j = 0;
        for (int i = 0; i < n; i++) {
            unsigned char c = (unsigned char)arg[i];
            tmp[j++] = (c >= 32 && c < 127) ? (char)c : '?';
        }
        tmp[j] = '\0';
        snprintf(lx->msg, sizeof lx->msg, fmt, tmp);
    } else {
        snprintf(lx->msg, sizeof lx->msg, "%s", fmt);
    }
}

/* Skip whitespace and comments.  Returns false (and fills t) on an
 * unterminated block comment. */
static bool skip_space(ptx_lexer *lx, ptx_token *t)
{
    for (;;) {
        if (lx->p >= lx->end) return true;
        char c = *lx->p;
        if (c == '\n') {
            lx->p++;
            newline(lx);
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
            ptx_lex_skip_line(lx);
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
            int line = lx->line, col = (int)(lx->p - lx->line_start) + 1;
            lx->p += 2;
            for (;;) {
                if (lx->p + 1 >= lx->end) {
                    lx->p = lx->end;
                    t->line = line;
                    t->col = col;
                    set_error(lx, t, "unterminated comment '/*'", NULL, 0);
                    return false;
                }
                if (lx->p[0] == '*' && lx->p[1] == '/') {
                    lx->p += 2;
                    break;
                }
                if (*lx->p == '\n') {
                    lx->p++;
                    newline(lx);
                } else {
                    lx->p++;
                }
            }
        } else if (c == '@' && lx->end - lx->p >= 7 && !memcmp(lx->p, "@@DWARF", 7)) {
            ptx_lex_skip_line(lx);
        } else {
            return true;
        }
    }
}

static void lex_number(ptx_lexer *lx, ptx_token *t)
{
    const char *s = lx->p, *e = lx->end, *q = s;
    /* 0f / 0d float bit patterns */
    if (q + 1 < e && q[0] == '0' && (q[1] == 'f' || q[1] == 'F' || q[1] == 'd' || q[1] == 'D')) {
        int want = (q[1] == 'f' || q[1] == 'F') ? 8 : 16;
        q += 2;
        uint64_t v = 0;
        int n = 0;
        while (q < e && hexval(*q) >= 0) {
            v = (v << 4) | (uint64_t)hexval(*q);
            q++;
            n++;
        }
        while (q < e && is_ident_char(*q)) q++;
        t->s = s;
        t->len = (int)(q - s);
        lx->p = q;
        if (n != want || t->len != want + 2) {
            set_error(lx, t, want == 8 ? "bad float immediate '%s' (0f needs 8 hex digits)"
                                       : "bad float immediate '%s' (0d needs 16 hex digits)",
                      s, t->len);
            return;
        }
        t->kind = want == 8 ? TK_F32HEX : TK_F64HEX;
        t->u = v;
        return;
    }
    /* decimal float? digits '.' digits, or digits with an exponent */
    const char *r = s;
    while (r < e && *r >= '0' && *r <= '9') r++;
    bool is_float = false;
    if (r < e && *r == '.' && r + 1 < e && r[1] >= '0' && r[1] <= '9') is_float = true;
    if (r < e && (*r == 'e' || *r == 'E') && r > s) {
        const char *x = r + 1;
        if (x < e && (*x == '+' || *x == '-')) x++;
        if (x < e && *x >= '0' && *x <= '9') is_float = true;
    }
    if (is_float && !(s[0] == '0' && r - s > 1 && (s[1] == 'x' || s[1] == 'X'))) {
        char buf[128];
        q = r;
        if (q < e && *q == '.') {
            q++;
            while (q < e && *q >= '0' && *q <= '9') q++;
        }
        if (q < e && (*q == 'e' || *q == 'E')) {
            const char *x = q + 1;
            if (x < e && (*x == '+' || *x == '-')) x++;
            if (x < e && *x >= '0' && *x <= '9') {
                q = x;
                while (q < e && *q >= '0' && *q <= '9') q++;
            }
        }
        const char *stop = q;
        while (q < e && is_ident_char(*q)) q++;
        t->s = s;
        t->len = (int)(q - s);
        lx->p = q;
        if (q != stop || stop - s >= (long)sizeof buf) {
            set_error(lx, t, "bad float immediate '%s'", s, t->len);
            return;
        }
        memcpy(buf, s, (size_t)(stop - s));
        buf[stop - s] = '\0';
        t->kind = TK_FLOAT;
        t->d = strtod(buf, NULL);
        return;
    }
    /* integers */
    int base = 10;
    q = s;
    if (q + 1 < e && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
        base = 16;
        q += 2;
    } else if (q + 1 < e && q[0] == '0' && (q[1] == 'b' || q[1] == 'B')) {
        base = 2;
        q += 2;
    } else if (q[0] == '0' && q + 1 < e && q[1] >= '0' && q[1] <= '9') {
        base = 8;
        q += 1;
    }
    const char *digits = q;
    uint64_t v = 0;
    bool overflow = false, bad = false;
    while (q < e) {
        int d = hexval(*q);
        if (d < 0 || d >= base) {
            if (is_ident_char(*q) && !((*q == 'U' || *q == 'u') && (q + 1 >= e || !is_ident_char(q[1]))))
                bad = true;
            break;
        }
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) overflow = true;
        v = v * (uint64_t)base + (uint64_t)d;
        q++;
    }
    if (q == digits && base != 8) bad = true;
    if (!bad && q < e && (*q == 'U' || *q == 'u')) q++;
    while (q < e && is_ident_char(*q)) {
        bad = true;
        q++;
    }
    t->s = s;
    t->len = (int)(q - s);
    lx->p = q;
    if (bad) {
        set_error(lx, t, "bad integer immediate '%s'", s, t->len);
        return;
    }
    if (overflow) {
        set_error(lx, t, "integer immediate '%s' does not fit in 64 bits", s, t->len);
        return;
    }
    t->kind = TK_INT;
    t->u = v;
}

void ptx_lex_next(ptx_lexer *lx, ptx_token *t)
{
    memset(t, 0, sizeof *t);
    if (!skip_space(lx, t)) return;
    t->line = lx->line;
    t->col = (int)(lx->p - lx->line_start) + 1;
    t->s = lx->p;
    if (lx->p >= lx->end) {
        t->kind = TK_EOF;
        return;
    }
    const char *s = lx->p, *e = lx->end;
    unsigned char c = (unsigned char)*s;
    if (is_ident_start(c)) {
        const char *q = s + 1;
        while (q < e && is_ident_char(*q)) q++;
        if ((c == '%' || c == '_' || c == '$') && q == s + 1 && c != '_') {
            lx->p = q;
            t->len = 1;
            /* a lone '%' or '$' */
            set_error(lx, t, "unexpected character '%s'", s, 1);
            return;
        }
        t->kind = TK_IDENT;
        t->len = (int)(q - s);
        lx->p = q;
        return;
    }
    if (c == '.') {
        const char *q = s + 1;
        for (;;) {
            if (q < e && is_ident_char(*q)) {
                q++;
            } else if (q + 2 < e && q[0] == ':' && q[1] == ':' && is_ident_char(q[2])) {
                q += 2;
            } else {
                break;
            }
        }
        lx->p = q;
        t->len = (int)(q - s);
        if (q == s + 1) {
            set_error(lx, t, "stray '.'", NULL, 0);
            return;
        }
        t->kind = TK_DOTWORD;
        return;
    }
    if (c >= '0' && c <= '9') {
        lex_number(lx, t);
        return;
    }
    if (c == '"') {
        const char *q = s + 1;
        while (q < e && *q != '"' && *q != '\n') {
            if (*q == '\\' && q + 1 < e && q[1] != '\n') q++;
            q++;
        }
        if (q >= e || *q != '"') {
            lx->p = q;
            t->len = (int)(q - s);
            set_error(lx, t, "unterminated string", NULL, 0);
            return;
        }
        q++;
        lx->p = q;
        t->kind = TK_STRING;
        t->len = (int)(q - s);
        return;
    }
    switch (c) {
    case '{': case '}': case '(': case ')': case '[': case ']': case ',': case ';':
    case ':': case '+': case '-': case '!': case '|': case '@': case '<': case '>':
    case '=': case '*': case '/': case '~': case '&': case '^':
        t->kind = TK_PUNCT;
        t->punct = (char)c;
        t->len = 1;
        lx->p++;
        return;
    default:
        break;
    }
    lx->p++;
    t->len = 1;
    if (c == 0)
        set_error(lx, t, "unexpected NUL byte", NULL, 0);
    else if (c < 32 || c >= 127) {
        char buf[8];
        snprintf(buf, sizeof buf, "\\x%02x", c);
        set_error(lx, t, "unexpected byte '%s'", buf, (int)strlen(buf));
    } else
        set_error(lx, t, "unexpected character '%s'", s, 1);
}

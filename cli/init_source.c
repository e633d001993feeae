/*
 * init_source.c — a kernel's parameters as its CUDA source declares them.
 *
 * An `extern "C"` entry's PTX name carries no C++ types, and no PTX
 * parameter carries its source name (nvcc names them ENTRY_param_N), so a
 * draft from the PTX alone names every parameter by number and guesses
 * every type from the code.  The source says both: this reads the
 * entry's `__global__` declaration (comments removed, the parameter list
 * split at its top-level commas) into names and types in the form the
 * demangler gives ("const float*", "unsigned int", "struct Particle*").
 * A form it does not read (templates, namespaces, function pointers)
 * leaves that parameter's type empty; its name is still taken.
 */
#include "cli/init.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file's text with comments blanked (strings kept: a declaration has
 * none), or NULL. */
static char *read_code(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && n < (64L << 20) && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) &&
        fread(text, 1, (size_t)n, f) == (size_t)n)
        text[n] = '\0';
    else
        free(text), text = NULL;
    fclose(f);
    for (char *p = text; p && *p; p++) {
        if (p[0] == '/' && p[1] == '/')
            for (; *p && *p != '\n'; p++) *p = ' ';
        else if (p[0] == '/' && p[1] == '*') {
            for (; *p && !(p[0] == '*' && p[1] == '/'); p++) *p = *p == '\n' ? '\n' : ' ';
            if (*p) p[0] = p[1] = ' ';
        }
        if (!*p) break;
    }
    return text;
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The '(' after `ident` in a `__global__` declaration, or NULL. */
static const char *find_declaration(const char *code, const char *ident)
{
    size_t len = strlen(ident);
    for (const char *p = strstr(code, ident); p; p = strstr(p + 1, ident)) {
        if ((p > code && ident_char(p[-1])) || ident_char(p[len])) continue;
        const char *open = p + len;
        while (isspace((unsigned char)*open)) open++;
        if (*open != '(') continue;
        /* the declaration's head: back to the statement before it */
        const char *head = p;
        while (head > code && head[-1] != ';' && head[-1] != '}' && head[-1] != '{') head--;
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(p - head < 511 ? p - head : 511), p - head < 511 ? head : p - 511);
        if (strstr(buf, "__global__")) return open;
    }
    return NULL;
}

/* A builtin spelling in the demangler's words ("unsigned" -> "unsigned
 * int", "int32_t" -> "int"), or NULL when it names no builtin. */
static const char *builtin_words(const char *words)
{
    static const struct { const char *src, *cpp; } map[] = {
        { "bool", "bool" }, { "char", "char" }, { "signed char", "signed char" },
        { "unsigned char", "unsigned char" }, { "uint8_t", "unsigned char" }, { "int8_t", "signed char" },
        { "short", "short" }, { "unsigned short", "unsigned short" }, { "int16_t", "short" },
        { "uint16_t", "unsigned short" }, { "int", "int" }, { "signed", "int" }, { "signed int", "int" },
        { "unsigned", "unsigned int" }, { "unsigned int", "unsigned int" }, { "int32_t", "int" },
        { "uint32_t", "unsigned int" }, { "long", "long" }, { "unsigned long", "unsigned long" },
        { "long long", "long long" }, { "unsigned long long", "unsigned long long" }, { "int64_t", "long" },
        { "uint64_t", "unsigned long" }, { "size_t", "unsigned long" }, { "float", "float" },
        { "double", "double" }, { "void", "void" },
    };
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
        if (!strcmp(words, map[k].src)) return map[k].cpp;
    return NULL;
}

/* Words that qualify a declaration without changing its type here. */
static bool ignored_word(const char *w)
{
    static const char *const words[] = { "__restrict__", "__restrict", "restrict", "volatile", "__grid_constant__",
                                          "struct", "class", "register" };
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        if (!strcmp(w, words[k])) return true;
    return false;
}

/* One parameter's declaration [from, to) into its name and type. */
static void read_param(const char *from, const char *to, char *name, char *type)
{
    char words[8][64], base[200] = "";
    int nwords = 0, stars = 0;
    bool konst = false, odd = false;
    name[0] = type[0] = '\0';
    for (const char *p = from; p < to;) {
        if (ident_char(*p)) {
            const char *s = p;
            while (p < to && ident_char(*p)) p++;
            char w[64];
            snprintf(w, sizeof w, "%.*s", (int)(p - s < 63 ? p - s : 63), s);
            if (!strcmp(w, "const")) konst |= stars == 0;
            else if (!ignored_word(w) && nwords < 8) snprintf(words[nwords++], 64, "%s", w);
            else odd |= nwords == 8;
            continue;
        }
        stars += *p == '*';
        odd |= *p == '<' || *p == ':' || *p == '(' || *p == '&' || *p == '[';
        p++;
    }
    /* the last word is the name when a type comes before it (and is no
     * keyword of a builtin: `unsigned int` unnamed) */
    static const char *const keywords[] = { "int", "long", "short", "char", "float", "double", "bool",
                                             "unsigned", "signed", "void" };
    bool keyword = false;
    for (size_t k = 0; nwords && k < sizeof keywords / sizeof *keywords; k++)
        keyword |= !strcmp(words[nwords - 1], keywords[k]);
    int ntype = nwords;
    if (nwords >= 2 && !keyword) snprintf(name, 64, "%s", words[--ntype]);
    if (odd || ntype == 0) return;
    for (int k = 0; k < ntype; k++)
        snprintf(base + strlen(base), sizeof base - strlen(base), "%s%s", k ? " " : "", words[k]);
    const char *b = builtin_words(base);
    char spelled[200];
    if (b) snprintf(spelled, sizeof spelled, "%s", b);
    else if (ntype == 1 && stars) snprintf(spelled, sizeof spelled, "struct %s", base);   /* a pointee type */
    else return;   /* a value of a type named elsewhere (a typedef, a struct by value): left to the code */
    /* top-level const is not part of a value parameter's type (as mangling drops it) */
    snprintf(type, 64, "%s%.50s%.*s", konst && stars ? "const " : "", spelled, stars < 4 ? stars : 4, "****");
}

int init_source_params(const char *path, const char *ident, char names[][64], char types[][64], int max)
{
    char *code = path ? read_code(path) : NULL;
    const char *open = code ? find_declaration(code, ident) : NULL;
    int n = -1;
    if (open) {
        n = 0;
        int depth = 0;
        const char *start = open + 1, *p = start;
        for (; *p && n <= max; p++) {
            if (*p == '(' || *p == '<' || *p == '[') depth++;
            else if ((*p == ')' || *p == '>' || *p == ']') && depth > 0) depth--;
            else if ((*p == ',' || *p == ')') && depth == 0) {
                bool blank = true;
                for (const char *q = start; q < p; q++) blank &= isspace((unsigned char)*q) != 0;
                if (*p == ')' && blank && n == 0) break;   /* f() or f(void) */
                if (n < max) read_param(start, p, names[n], types[n]);
                n++;
                start = p + 1;
                if (*p == ')') break;
            }
        }
        if (!*p || n > max) n = -1;                                                 /* not read to its end */
        else if (n == 1 && !strcmp(types[0], "void") && !names[0][0]) n = 0;        /* f(void) */
    }
    free(code);
    return n;
}

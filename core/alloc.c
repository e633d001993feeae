/*
 * alloc.c — allocations that cannot fail (see alloc.h for when to use them).
 */
#include "core/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void wh_out_of_memory(size_t bytes)
{
    fprintf(stderr, "warphunt: out of memory (allocating %zu bytes)\n", bytes);
    exit(2);
}

void *wh_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        wh_out_of_memory(size);
    return p;
}

void *wh_xcalloc(size_t n, size_t size)
{
    if (n && size > SIZE_MAX / n)
        wh_out_of_memory(SIZE_MAX);
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        wh_out_of_memory(n * size);
    return p;
}

void *wh_xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        wh_out_of_memory(size);
    return q;
}

char *wh_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(wh_xmalloc(n), s, n);
}

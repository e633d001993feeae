/*
 * arena.c — the bump allocator that owns all memory of a parsed module.
 *
 * A module is built once and freed once, so every string and array lives in
 * a list of large chunks; ptx_module_free releases the chunks.
 */
#include "ptx/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chunk {
    struct chunk *next;
    size_t size, used;
    /* data follows, 16-byte aligned */
} chunk;

struct ptx_arena {
    chunk *head;
    void *last;        /* last allocation, for in-place growth */
    size_t total;
};

#define CHUNK_HDR ((sizeof(chunk) + 15) & ~(size_t)15)
#define MIN_CHUNK (64 * 1024)

ptx_arena *ptx_arena_new(void)
{
    return wh_xcalloc(1, sizeof(ptx_arena));
}

void ptx_arena_free(ptx_arena *a)
{
    if (!a) return;
    chunk *c = a->head;
    while (c) {
        chunk *n = c->next;
        free(c);
        c = n;
    }
    free(a);
}

static unsigned char *chunk_data(chunk *c)
{
    return (unsigned char *)c + CHUNK_HDR;
}

void *ptx_arena_alloc(ptx_arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size == 0) size = 16;
    chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        size_t cs = size > MIN_CHUNK ? size : MIN_CHUNK;
        if (c && cs < c->size * 2 && c->size < (size_t)16 * 1024 * 1024)
            cs = c->size * 2 > size ? c->size * 2 : size;
        chunk *n = wh_xmalloc(CHUNK_HDR + cs);
        n->size = cs;
        n->used = 0;
        n->next = c;
        a->head = n;
        a->total += cs;
        c = n;
    }
    void *p = chunk_data(c) + c->used;
    c->used += size;
    memset(p, 0, size);
    a->last = p;
    return p;
}

void *ptx_arena_grow(ptx_arena *a, void *old, size_t old_size, size_t new_size)
{
    if (new_size <= old_size) return old;
    chunk *c = a->head;
    if (old && old == a->last && c) {
        size_t old_r = (old_size + 15) & ~(size_t)15;
        size_t new_r = (new_size + 15) & ~(size_t)15;
        unsigned char *base = (unsigned char *)old;
        if (base + old_r == chunk_data(c) + c->used && c->used - old_r + new_r <= c->size) {
            c->used = c->used - old_r + new_r;
            memset(base + old_size, 0, new_size - old_size);
            return old;
        }
    }
    void *p = ptx_arena_alloc(a, new_size);
    if (old && old_size) memcpy(p, old, old_size);
    return p;
}

void *ptx_arena_reserve(ptx_arena *a, void *arr, int n, int *cap, size_t elem)
{
    if (n < *cap) return arr;
    int nc = *cap ? *cap * 2 : 8;
    arr = ptx_arena_grow(a, arr, elem * (size_t)*cap, elem * (size_t)nc);
    *cap = nc;
    return arr;
}

void *ptx_arena_dup(ptx_arena *a, const void *p, size_t size)
{
    void *q = ptx_arena_alloc(a, size);
    if (size) memcpy(q, p, size);
    return q;
}

char *ptx_arena_strndup(ptx_arena *a, const char *s, size_t n)
{
    char *q = ptx_arena_alloc(a, n + 1);
    memcpy(q, s, n);
    q[n] = '\0';
    return q;
}

size_t ptx_arena_bytes(const ptx_arena *a)
{
    return a ? a->total : 0;
}

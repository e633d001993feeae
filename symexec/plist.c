/*
 * plist.c — persistent append-only lists with shared prefixes.
 *
 * Path constraints, branch decisions and block visits grow at the tail and
 * are shared by every state forked from a common ancestor: a fork copies a
 * pointer and bumps a count instead of copying the list.
 */
#include "symexec/internal.h"

#include <stdlib.h>

sx_node *sx_node_push(sx_node *up, Z3_ast ast, int32_t a, int32_t b, int32_t c, int32_t d)
{
    sx_node *n = malloc(sizeof *n);
    if (!n)
        return NULL;
    n->rc = 1;
    n->up = up;               /* takes over the caller's reference to up */
    n->len = up ? up->len + 1 : 1;
    n->ast = ast;             /* the caller passes an owned reference */
    n->a = a;
    n->b = b;
    n->c = c;
    n->d = d;
    return n;
}

sx_node *sx_node_ref(sx_node *n)
{
    if (n)
        n->rc++;
    return n;
}

void sx_node_unref(sx_z *z, sx_node *n)
{
    while (n && --n->rc == 0) {
        sx_node *up = n->up;
        if (n->ast)
            sx_z_dec(z, n->ast);
        free(n);
        n = up;
    }
}

sx_node **sx_node_array(sx_node *n, int *count)
{
    int len = n ? n->len : 0;
    *count = len;
    sx_node **v = malloc((size_t)(len ? len : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (int i = len - 1; i >= 0; i--, n = n->up)
        v[i] = n;
    return v;
}

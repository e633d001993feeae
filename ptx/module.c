/*
 * module.c — freeing a module and looking things up by name.
 */
#include "ptx/internal.h"

#include <string.h>

void ptx_module_free(ptx_module *m)
{
    if (m) ptx_arena_free(m->arena); /* the module itself lives in its arena */
}

int ptx_function_index(const ptx_module *m, const char *name)
{
    if (!m || !name) return -1;
    for (int i = 0; i < m->nfuncs; i++)
        if (!strcmp(m->funcs[i].name, name)) return i;
    return -1;
}

const ptx_function *ptx_find_function(const ptx_module *m, const char *name)
{
    int i = ptx_function_index(m, name);
    return i >= 0 ? &m->funcs[i] : NULL;
}

const ptx_function *ptx_find_kernel(const ptx_module *m, const char *name)
{
    const ptx_function *f = ptx_find_function(m, name);
    return f && f->is_entry ? f : NULL;
}

const ptx_var *ptx_find_var(const ptx_module *m, const char *name)
{
    if (!m || !name) return NULL;
    for (int i = 0; i < m->nvars; i++)
        if (!strcmp(m->vars[i].name, name)) return &m->vars[i];
    return NULL;
}

int ptx_find_reg(const ptx_function *f, const char *name)
{
    if (!f || !name) return -1;
    for (int i = 0; i < f->nregs; i++)
        if (!strcmp(f->regs[i].name, name)) return i;
    return -1;
}

int ptx_find_label(const ptx_function *f, const char *name)
{
    if (!f || !name) return -1;
    for (int i = 0; i < f->nlabels; i++)
        if (!strcmp(f->labels[i].name, name)) return i;
    return -1;
}

int ptx_find_param(const ptx_function *f, const char *name)
{
    if (!f || !name) return -1;
    for (int i = 0; i < f->nparams; i++)
        if (!strcmp(f->params[i].name, name)) return i;
    return -1;
}

int ptx_find_local_var(const ptx_function *f, const char *name)
{
    if (!f || !name) return -1;
    for (int i = 0; i < f->nvars; i++)
        if (!strcmp(f->vars[i].name, name)) return i;
    return -1;
}

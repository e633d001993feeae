/*
 * spec_match.c — does a spec describe this PTX entry?  The spec's
 * parameters against the entry's (number and sizes), and its globals
 * against the module's variables (a defined .global or .const variable of
 * that name, large enough for the buffer at a given launch).  The harness
 * (at open, for the full launch) and the symbolic executor (for its
 * X-thread launch) ask the same questions with the same words.
 */
#include "ptx/ptx.h"

#include <stdio.h>
#include <string.h>

static const char *param_type_text(const ptx_param *p, char *buf, size_t size)
{
    if (p->is_array)
        snprintf(buf, size, ".%s[%llu]", ptx_type_name(p->type),
                 (unsigned long long)(p->size / (uint64_t)(ptx_type_size(p->type) > 0 ? ptx_type_size(p->type) : 1)));
    else
        snprintf(buf, size, ".%s", ptx_type_name(p->type));
    return buf;
}

static bool check_kernel_params(const ptx_module *m, const ptx_function *k, const wh_spec *spec,
                                const char *ptx_path, wh_error *err)
{
    if (spec->nkparams != k->nparams) {
        wh_error_set(err, WH_ERR_USER, spec->path, 0, 0,
                     "the spec lists %d parameters but kernel '%s' in %s has %d", spec->nkparams, k->name,
                     ptx_path, k->nparams);
        wh_error_set_path(err, "$.params");
        return false;
    }
    uint64_t pointer = m->address_size > 0 ? (uint64_t)m->address_size / 8 : 8;
    for (int i = 0; i < spec->nkparams; i++) {
        const wh_param *sp = &spec->params[i];
        const ptx_param *pp = &k->params[i];
        uint64_t want = sp->tmap ? PTX_TMAP_BYTES : sp->kind == WH_BUFFER ? pointer : sp->elem_size;
        if (pp->size == want)
            continue;
        char tb[64], jp[64];
        wh_param_jpath(spec, i, "", jp, sizeof jp);
        wh_error_set(err, WH_ERR_USER, spec->path, 0, 0,
                     "parameter %d '%s' (%s %s, %llu bytes) does not match PTX parameter '%s' of kernel "
                     "'%s' in %s (%s, %llu bytes, line %d)%s",
                     i, sp->name, sp->tmap ? "tensor map of" : sp->kind == WH_BUFFER ? "buffer of" : "scalar",
                     wh_type_name(sp->type),
                     (unsigned long long)want, pp->name, k->name, ptx_path, param_type_text(pp, tb, sizeof tb),
                     (unsigned long long)pp->size, pp->line,
                     sp->tmap ? " (a CUtensorMap is passed by value, __grid_constant__)"
                     : sp->kind == WH_BUFFER ? " (a buffer is passed as a pointer)" : "");
        wh_error_set_path(err, jp);
        return false;
    }
    return true;
}

bool ptx_one_block_clusters(const ptx_function *k, const char *ptx_path, wh_error *err)
{
    const int *c = k->reqnctapercluster;
    long blocks = (long)(c[0] ? c[0] : 1) * (c[1] ? c[1] : 1) * (c[2] ? c[2] : 1);
    if (blocks <= 1)
        return true;
    wh_error_set(err, WH_ERR_UNSUPPORTED, ptx_path, k->line, 0,
                 "kernel '%s' runs in thread block clusters of %ld blocks (.reqnctapercluster %d, %d, %d): warphunt's "
                 "sim and symbolic stage run clusters of one block (barrier.cluster, mapa and distributed shared "
                 "memory across blocks are not modelled); the cuda backend does not refuse it", k->name, blocks, c[0], c[1], c[2]);
    return false;
}

int ptx_spec_global_var(const ptx_module *m, const char *name)
{
    for (int v = 0; v < m->nvars; v++) {
        const ptx_var *var = &m->vars[v];
        if (!strcmp(var->name, name) && (var->space == PTX_SPACE_GLOBAL || var->space == PTX_SPACE_CONST) &&
            !var->unsized && var->linkage != PTX_LINK_EXTERN)
            return v;
    }
    return -1;
}

/* The module's .global and .const variables, for an error message. */
static void list_globals(const ptx_module *m, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (int v = 0; v < m->nvars && n < size; v++)
        if (ptx_spec_global_var(m, m->vars[v].name) == v)
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", m->vars[v].name);
    if (!n)
        snprintf(buf, size, "none");
}

static bool check_globals(const ptx_module *m, const wh_spec *spec, const wh_launch *launch,
                          const char *ptx_path, wh_error *err)
{
    int64_t vars[256];
    if (spec->nvars > (int)(sizeof vars / sizeof *vars) || !wh_spec_vars(spec, launch, vars, err)) {
        if (!wh_error_is_set(err))
            wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "too many constants (at most %d)",
                         (int)(sizeof vars / sizeof *vars) - WH_VAR_CONST0);
        return false;
    }
    for (int i = spec->nkparams; i < spec->nparams; i++) {
        const wh_param *sp = &spec->params[i];
        char jp[64], list[512];
        wh_param_jpath(spec, i, "", jp, sizeof jp);
        int v = ptx_spec_global_var(m, sp->name);
        if (v < 0) {
            list_globals(m, list, sizeof list);
            wh_error_set(err, WH_ERR_USER, spec->path, 0, 0,
                         "global '%s': %s defines no .global or .const variable of that name (it has: %s)",
                         sp->name, ptx_path, list);
            wh_error_set_path(err, jp);
            return false;
        }
        if (m->vars[v].space == PTX_SPACE_CONST && sp->role == WH_ROLE_OUTPUT) {
            wh_param_jpath(spec, i, ".role", jp, sizeof jp);
            wh_error_set(err, WH_ERR_USER, spec->path, 0, 0,
                         "global '%s' is a .const variable (%s line %d): the kernel cannot write it, so it is "
                         "an input or fixed, not an output", sp->name, ptx_path, m->vars[v].line);
            wh_error_set_path(err, jp);
            return false;
        }
        int64_t count;
        wh_param_jpath(spec, i, ".count", jp, sizeof jp);
        if (!wh_spec_eval(spec, sp->count, vars, jp, &count, err))
            return false;
        uint64_t bytes = (uint64_t)(count < 0 ? 0 : count) * sp->elem_size;
        uint64_t have = ptx_var_bytes(&m->vars[v]);
        if (count < 0 || bytes > have) {
            wh_error_set(err, WH_ERR_USER, spec->path, 0, 0,
                         "global '%s': %lld elements of %llu bytes do not fit the .%s variable (%llu bytes, %s "
                         "line %d)", sp->name, (long long)count, (unsigned long long)sp->elem_size,
                         ptx_space_name(m->vars[v].space), (unsigned long long)have, ptx_path, m->vars[v].line);
            wh_error_set_path(err, jp);
            return false;
        }
    }
    return true;
}

bool ptx_spec_check(const ptx_module *m, const ptx_function *k, const wh_spec *spec, const wh_launch *launch,
                    const char *ptx_path, wh_error *err)
{
    return check_kernel_params(m, k, spec, ptx_path, err) && check_globals(m, spec, launch, ptx_path, err);
}

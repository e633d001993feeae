/*
 * state.c — one symbolic execution state: X threads (call frames with
 * copy-on-write register pages), copy-on-write memory regions, the path
 * constraint list, a model of it, the legs it covered.  Forking a state
 * copies pointers and bumps counts; pages and regions are copied only when
 * written.
 */
#include "symexec/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int npages(int nregs)
{
    return (nregs + SX_PAGE - 1) / SX_PAGE;
}

static void page_unref(sx_engine *e, sx_regpage *p)
{
    if (!p || --p->rc > 0)
        return;
    for (int i = 0; i < SX_PAGE; i++)
        sx_z_dec(&e->z, p->v[i]);
    free(p);
}

static bool frame_init(sx_engine *e, sx_frame *fr, int func, int call_instr)
{
    const ptx_function *f = &e->mod->funcs[func];
    memset(fr, 0, sizeof *fr);
    fr->func = func;
    fr->pc = 0;
    fr->block = f->ninstrs > 0 ? f->instrs[0].block : -1;
    fr->call_instr = call_instr;
    fr->nregs = f->nregs + 1;   /* + the carry flag */
    fr->pages = calloc((size_t)(npages(f->nregs) + 1), sizeof *fr->pages);
    fr->loop_iter = calloc((size_t)(f->nloops + 1), sizeof *fr->loop_iter);
    return fr->pages && fr->loop_iter;
}

static void frame_fini(sx_engine *e, sx_frame *fr)
{
    if (fr->pages)
        for (int i = 0; i < npages(fr->nregs); i++)
            page_unref(e, fr->pages[i]);
    free(fr->pages);
    free(fr->loop_iter);
    fr->pages = NULL;
    fr->loop_iter = NULL;
}

static bool frame_copy(sx_engine *e, sx_frame *dst, const sx_frame *src)
{
    const ptx_function *f = &e->mod->funcs[src->func];
    *dst = *src;
    int np = npages(src->nregs);
    dst->pages = malloc((size_t)(np + 1) * sizeof *dst->pages);
    dst->loop_iter = malloc((size_t)(f->nloops + 1) * sizeof *dst->loop_iter);
    if (!dst->pages || !dst->loop_iter) {
        free(dst->pages);
        free(dst->loop_iter);
        dst->pages = NULL;
        dst->loop_iter = NULL;
        return false;
    }
    for (int i = 0; i < np; i++) {
        dst->pages[i] = src->pages[i];
        if (dst->pages[i])
            dst->pages[i]->rc++;
    }
    memcpy(dst->loop_iter, src->loop_iter, (size_t)(f->nloops + 1) * sizeof *dst->loop_iter);
    return true;
}

bool sx_frame_push(sx_engine *e, sx_thread *th, int func, int call_instr)
{
    if (th->nfr == th->capfr) {
        int cap = th->capfr ? th->capfr * 2 : 4;
        sx_frame *v = realloc(th->fr, (size_t)cap * sizeof *v);
        if (!v)
            return false;
        th->fr = v;
        th->capfr = cap;
    }
    if (!frame_init(e, &th->fr[th->nfr], func, call_instr)) {
        frame_fini(e, &th->fr[th->nfr]);
        return false;
    }
    th->nfr++;
    return true;
}

void sx_frame_pop(sx_engine *e, sx_thread *th)
{
    if (th->nfr > 0)
        frame_fini(e, &th->fr[--th->nfr]);
}

Z3_ast sx_reg_get(sx_engine *e, const sx_frame *fr, int r)
{
    (void)e;
    if (r < 0 || r >= fr->nregs)
        return NULL;
    const sx_regpage *p = fr->pages[r / SX_PAGE];
    return p ? p->v[r % SX_PAGE] : NULL;
}

void sx_reg_set(sx_engine *e, sx_frame *fr, int r, Z3_ast v)
{
    if (r < 0 || r >= fr->nregs)
        return;
    sx_regpage **pp = &fr->pages[r / SX_PAGE];
    if (!*pp) {
        *pp = calloc(1, sizeof **pp);
        if (!*pp) {
            e->fatal = true;
            return;
        }
        (*pp)->rc = 1;
    } else if ((*pp)->rc > 1) {
        sx_regpage *n = malloc(sizeof *n);
        if (!n) {
            e->fatal = true;
            return;
        }
        n->rc = 1;
        for (int i = 0; i < SX_PAGE; i++) {
            n->v[i] = (*pp)->v[i];
            sx_z_inc(&e->z, n->v[i]);
        }
        (*pp)->rc--;
        *pp = n;
    }
    Z3_ast *slot = &(*pp)->v[r % SX_PAGE];
    sx_z_inc(&e->z, v);
    sx_z_dec(&e->z, *slot);
    *slot = v;
}

static size_t legs_bytes(const sx_engine *e)
{
    return (size_t)(e->nlegs + 7) / 8 + 1;
}

sx_state *sx_state_new(sx_engine *e)
{
    sx_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->X = e->X;
    s->new_leg = -1;
    s->seq = e->seq++;
    s->th = calloc((size_t)e->X, sizeof *s->th);
    s->nmem = e->nregions;
    s->mem = calloc((size_t)(e->nregions + 1), sizeof *s->mem);
    s->legs = calloc(legs_bytes(e), 1);
    if (!s->th || !s->mem || !s->legs)
        goto fail;
    for (int t = 0; t < e->X; t++) {
        if (!sx_frame_push(e, &s->th[t], e->entry_idx, -1))
            goto fail;
        s->th[t].status = e->entry->ninstrs > 0 ? TS_RUN : TS_EXITED;
    }
    return s;
fail:
    sx_state_free(e, s);
    return NULL;
}

static bool thread_copy(sx_engine *e, sx_thread *dst, const sx_thread *src)
{
    *dst = *src;
    dst->fr = calloc((size_t)(src->capfr ? src->capfr : 1), sizeof *dst->fr);
    dst->nfr = 0;
    if (!dst->fr)
        return false;
    for (int i = 0; i < src->nfr; i++) {
        if (!frame_copy(e, &dst->fr[i], &src->fr[i]))
            return false;
        dst->nfr++;
    }
    sx_node_ref(dst->dec);
    sx_node_ref(dst->vis);
    sx_z_inc(&e->z, dst->bar_val);
    return true;
}

sx_state *sx_state_clone(sx_engine *e, const sx_state *s)
{
    sx_state *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = *s;
    c->seq = e->seq++;
    c->note = s->note ? strdup(s->note) : NULL;
    c->th = calloc((size_t)s->X, sizeof *c->th);
    c->mem = calloc((size_t)(s->nmem + 1), sizeof *c->mem);
    c->legs = malloc(legs_bytes(e));
    c->pc = sx_node_ref(s->pc);
    if (c->model)
        Z3_model_inc_ref(e->z.c, c->model);
    if (!c->th || !c->mem || !c->legs) {
        free(c->th);
        c->th = NULL;
        sx_state_free(e, c);
        return NULL;
    }
    memcpy(c->legs, s->legs, legs_bytes(e));
    for (int i = 0; i < s->nmem; i++) {
        c->mem[i] = s->mem[i];
        if (c->mem[i])
            c->mem[i]->rc++;
    }
    for (int t = 0; t < s->X; t++) {
        if (!thread_copy(e, &c->th[t], &s->th[t])) {
            for (int u = t + 1; u < s->X; u++)
                memset(&c->th[u], 0, sizeof c->th[u]);
            sx_state_free(e, c);
            return NULL;
        }
    }
    return c;
}

void sx_state_free(sx_engine *e, sx_state *s)
{
    if (!s)
        return;
    if (s->th) {
        for (int t = 0; t < s->X; t++) {
            sx_thread *th = &s->th[t];
            while (th->nfr > 0)
                sx_frame_pop(e, th);
            free(th->fr);
            sx_node_unref(&e->z, th->dec);
            sx_node_unref(&e->z, th->vis);
            sx_z_dec(&e->z, th->bar_val);
        }
        free(s->th);
    }
    if (s->mem) {
        for (int i = 0; i < s->nmem; i++)
            sx_mem_release(e, i, s->mem[i]);
        free(s->mem);
    }
    sx_node_unref(&e->z, s->pc);
    if (s->model)
        Z3_model_dec_ref(e->z.c, s->model);
    free(s->legs);
    free(s->note);
    free(s);
}

void sx_state_note(sx_state *s, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (s->note) {
        size_t n = strlen(s->note) + strlen(buf) + 3;
        char *m = malloc(n);
        if (!m)
            return;
        snprintf(m, n, "%s; %s", s->note, buf);
        free(s->note);
        s->note = m;
    } else {
        s->note = strdup(buf);
    }
}

void sx_state_add_pc(sx_engine *e, sx_state *s, Z3_ast c)
{
    if (!c || sx_z_bool_value(&e->z, c) == 1)
        return;
    /* floats can only be there once the state computed a symbolic one */
    bool fl = (s->pc && s->pc->a) || (s->fp && sx_cases_has_float(e, c));
    sx_z_inc(&e->z, c);
    sx_node *n = sx_node_push(s->pc, c, fl, 0, 0, 0);
    if (!n) {
        sx_z_dec(&e->z, c);
        e->fatal = true;
        return;
    }
    s->pc = n;
}

bool sx_state_pc_float(const sx_state *s)
{
    return s->pc && s->pc->a;
}

void sx_state_set_model(sx_engine *e, sx_state *s, Z3_model m)
{
    if (m)
        Z3_model_inc_ref(e->z.c, m);
    if (s->model)
        Z3_model_dec_ref(e->z.c, s->model);
    s->model = m;
}

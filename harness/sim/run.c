/*
 * run.c — one launch on the sim backend: device memory from the
 * image, blocks scheduled onto SMs, warps interleaved by the SMs' warp
 * schedulers, and the result.
 *
 * Block scheduling: at launch, blocks go breadth-first over the SMs (block
 * b to SM b mod sms, then a second round, ...) up to the residency limit
 * (blocks per SM from the profile's thread, warp, block and shared-memory
 * limits).  A slot that frees up takes the next block at once, which starts
 * block_launch_cycles after the slot freed.  SMs advance in lockstep
 * windows of window_cycles: every SM runs its warps up to the window's end
 * before the next window; this keeps device-wide effects (atomics on one
 * address, L2 and DRAM bandwidth) close to time order while one SM is
 * simulated at a time.
 *
 * Warp scheduling on an SM: each scheduler picks greedy-then-oldest: the
 * warp it issued last if that warp can issue now, else the oldest warp
 * that can issue soonest.  The SM always advances the scheduler whose next
 * issue is earliest, so functional effects (shared memory, atomics,
 * barriers) happen in simulated time order.  Kernel time = the last block's
 * end (including its outstanding memory operations) + kernel_launch_cycles.
 */
#include "harness/sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- device memory ------------------------------------------------------------ */

static uint64_t reloc_value(const sim_prog *P, const ptx_reloc *r)
{
    uint64_t v = 0;
    if (r->sym.kind == PTX_SYM_MODULE_VAR && r->sym.index >= 0 && r->sym.index < P->m->nvars) {
        const ptx_var *var = &P->m->vars[r->sym.index];
        v = P->mvar_off[r->sym.index];
        if (r->generic) {
            if (var->space == PTX_SPACE_SHARED)
                v += PTX_ADDR_SHARED;
            else if (var->space == PTX_SPACE_CONST)
                v += PTX_ADDR_CONST;
            else if (var->space == PTX_SPACE_LOCAL)
                v += PTX_ADDR_LOCAL;
        }
    } else if (r->sym.kind == PTX_SYM_FUNC) {
        v = PTX_ADDR_FUNC + (uint64_t)r->sym.index * PTX_ADDR_FUNC_STRIDE;
    }
    return v + (uint64_t)r->addend;
}

/* The const bank a run reads: the program's, or a copy with the image's
 * .const globals written over their initializers. */
static void setup_cbank(sim_run *R, const wh_image *img)
{
    const sim_prog *P = R->prog;
    R->cbank = P->cbank;
    if (!P->cbank_from_image)
        return;
    if (!R->cbank_own)
        R->cbank_own = wh_xcalloc((size_t)(P->cbank_size ? P->cbank_size : 1), 1);
    memcpy(R->cbank_own, P->cbank, (size_t)P->cbank_size);
    for (int i = P->spec->nkparams; i < P->spec->nparams; i++) {
        int v = P->var_of_param[i];
        const wh_buffer *b = &img->bufs[i];
        if (v < 0 || P->m->vars[v].space != PTX_SPACE_CONST || !b->data)
            continue;
        uint64_t room = P->cbank_size - P->mvar_off[v];
        memcpy(R->cbank_own + P->mvar_off[v], b->data, (size_t)(b->bytes < room ? b->bytes : room));
    }
    R->cbank = R->cbank_own;
}

/* Each texture and tensor map parameter at this launch; a texture's
 * texels and a tensor map's tensor are its region's. */
static bool setup_objects(sim_run *R, wh_error *err)
{
    const wh_spec *S = R->prog->spec;
    bool any = false;
    for (int i = 0; i < S->nkparams; i++)
        any |= S->params[i].tex != NULL || S->params[i].tmap != NULL;
    if (!any)
        return true;
    int64_t *vars = wh_xcalloc((size_t)S->nvars, sizeof *vars);
    bool ok = wh_spec_vars(S, &R->launch, vars, err);
    R->tex = wh_xcalloc((size_t)S->nparams, sizeof *R->tex);
    R->tmap = wh_xcalloc((size_t)S->nparams, sizeof *R->tmap);
    for (int i = 0; ok && i < S->nkparams; i++) {
        if (S->params[i].tex)
            ok = ptx_texture_make(S, i, vars, &R->tex[i], err);
        else if (S->params[i].tmap)
            ok = ptx_tmap_make(S, i, vars, &R->tmap[i], err);
    }
    free(vars);
    return ok;
}

static bool setup_memory(sim_run *R, wh_error *err)
{
    const sim_prog *P = R->prog;
    const wh_image *img = R->img;
    const wh_spec *S = P->spec;
    if (img->nbufs != S->nparams) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "sim: the image has %d buffers, the spec %d parameters",
                     img->nbufs, S->nparams);
        return false;
    }
    R->regions = wh_xcalloc((size_t)P->nregions, sizeof *R->regions);
    for (int r = 0; r < P->nregions; r++) {
        const sim_region_decl *d = &P->regions[r];
        sim_region *g = &R->regions[r];
        /* memory of the previous run is reused (no page faults), then reset */
        if (P->mcache) {
            *g = P->mcache[r];
            memset(&P->mcache[r], 0, sizeof P->mcache[r]);
        }
        g->size = d->param >= 0 && d->var < 0 ? img->bufs[d->param].bytes : d->size;
        if (g->dcap < g->size || !g->data) {
            /* the input sets this size: running out is the user's error to
             * read, not a crash (core/alloc.h) */
            free(g->data);
            g->data = calloc(g->size ? g->size : 1, 1);
            g->dcap = g->data ? g->size : 0;
            if (!g->data) {
                wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory: the sim cannot allocate the %llu "
                             "bytes of %s", (unsigned long long)g->size, d->param >= 0 ?
                             S->params[d->param].name : d->var >= 0 ? "the module's .global variables" : d->name);
                return false;
            }
        }
        uint64_t tb = (g->size / (uint64_t)R->prof->sector_bytes + 1) / 8 + 1;
        if (g->tcap < tb || !g->touched) {
            free(g->touched);
            g->touched = wh_xcalloc(tb, 1);
            g->tcap = tb;
        } else {
            memset(g->touched, 0, tb);
        }
        if (g->afree)
            memset(g->afree, 0, g->acap);
        if (d->param >= 0 && d->var < 0) {
            const wh_buffer *b = &img->bufs[d->param];
            if (b->param->role != WH_ROLE_OUTPUT && b->data)
                memcpy(g->data, b->data, g->size);
            else
                memset(g->data, 0, g->size);
        } else if (d->var < 0) {
            memset(g->data, 0, g->size);   /* the device heap: every run starts empty */
        } else {
            const ptx_var *v = &P->m->vars[d->var];
            memset(g->data, 0, g->size);
            if (v->init)
                memcpy(g->data, v->init, g->size);
            for (int k = 0; k < v->nrelocs; k++) {
                const ptx_reloc *rl = &v->relocs[k];
                uint64_t val = reloc_value(P, rl);
                if (rl->offset + (uint64_t)rl->size <= g->size && rl->size <= 8)
                    memcpy(g->data + rl->offset, &val, (size_t)rl->size);
            }
            /* a spec global: the image's bytes over the initializer (an
             * output starts from the initializer, as a fresh module's) */
            const wh_buffer *b = d->param >= 0 ? &img->bufs[d->param] : NULL;
            if (b && b->param->role != WH_ROLE_OUTPUT && b->data)
                memcpy(g->data, b->data, b->bytes < g->size ? b->bytes : g->size);
        }
    }
    setup_cbank(R, img);
    if (!setup_objects(R, err))
        return false;
    R->kparam = wh_xcalloc(P->kparam_bytes, 1);
    const ptx_function *k = &P->m->funcs[P->entry];
    for (int i = 0; i < S->nparams && i < k->nparams; i++) {
        uint64_t off = P->kparam_off[i];
        uint64_t room = P->kparam_bytes - off;
        if (S->params[i].tex) {
            uint64_t handle = PTX_ADDR_TEXTURE + (uint64_t)i;
            memcpy(R->kparam + off, &handle, room < 8 ? room : 8);
        } else if (S->params[i].kind == WH_BUFFER) {
            uint64_t base = P->regions[P->region_of_param[i]].base;
            memcpy(R->kparam + off, &base, room < 8 ? room : 8);
        } else {
            size_t n = img->bufs[i].bytes;
            if (n > room)
                n = room;
            if (img->bufs[i].data)
                memcpy(R->kparam + off, img->bufs[i].data, n);
        }
    }
    return true;
}

/* ---- blocks and SMs ------------------------------------------------------------ */

static void sched_add(sim_sched *s, sim_warp *w)
{
    if (s->nwarps == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->warps = wh_xrealloc(s->warps, (size_t)s->cap * sizeof *s->warps);
    }
    s->warps[s->nwarps++] = w;
    s->dirty = true;
}

static void sched_remove_block(sim_sched *s, const sim_block *b)
{
    int k = 0;
    for (int i = 0; i < s->nwarps; i++)
        if (s->warps[i]->blk != b)
            s->warps[k++] = s->warps[i];
    s->nwarps = k;
    if (s->greedy && s->greedy->blk == b)
        s->greedy = NULL;
    s->dirty = true;
}

static bool dispatch_block(sim_run *R, sim_sm *sm, double t)
{
    const wh_launch *L = &R->launch;
    sim_block *b;
    if (R->npool) {
        /* reuse a retired block's memory: warps keep their frames */
        b = R->pool[--R->npool];
        sim_warp *warps = b->warps;
        uint8_t *shared = b->shared;
        memset(b, 0, sizeof *b);
        b->warps = warps;
        b->shared = shared;
        memset(b->shared, 0, R->shared_size ? R->shared_size : 1);
    } else {
        b = wh_xcalloc(1, sizeof *b);
        b->shared = wh_xcalloc(R->shared_size, 1);
        b->warps = wh_xcalloc((size_t)R->bwarps, sizeof *b->warps);
    }
    uint64_t lin = R->next_block++;
    b->linear = lin;
    b->ctaid[0] = (unsigned)(lin % L->grid[0]);
    b->ctaid[1] = (unsigned)((lin / L->grid[0]) % L->grid[1]);
    b->ctaid[2] = (unsigned)(lin / ((uint64_t)L->grid[0] * L->grid[1]));
    b->sm = sm->id;
    b->nthreads = R->bthreads;
    b->nwarps = R->bwarps;
    b->live_warps = b->nwarps;
    b->shared_size = R->shared_size;
    b->start = t + R->prof->block_launch_cycles;
    for (int i = 0; i < b->nwarps; i++) {
        if (!sim_warp_init(R, b, &b->warps[i], i))
            return false;
        b->warps[i].order = sm->order_next;
        b->warps[i].sched = sm->order_next % R->prof->schedulers;
        sm->order_next++;
        sim_warp_ready_next(R, &b->warps[i], b->start);
        sched_add(&sm->sched[b->warps[i].sched], &b->warps[i]);
    }
    if (sm->nblocks == sm->bcap) {
        sm->bcap = sm->bcap ? sm->bcap * 2 : 8;
        sm->blocks = wh_xrealloc(sm->blocks, (size_t)sm->bcap * sizeof *sm->blocks);
    }
    sm->blocks[sm->nblocks++] = b;
    return true;
}

void sim_block_free(sim_block *b)
{
    for (int i = 0; i < b->nwarps; i++)
        sim_warp_free(&b->warps[i]);
    free(b->warps);
    free(b->shared);
    free(b);
}

/* Blocks of the previous run of the same shape become this run's pool. */
static void take_block_cache(sim_run *R)
{
    sim_bcache *c = R->prog->bcache;
    if (!c)
        return;
    if (c->warps != R->bwarps || c->shared != R->shared_size || c->local != R->local_size) {
        for (int i = 0; i < c->n; i++)
            sim_block_free(c->b[i]);
        c->n = 0;
        return;
    }
    R->pool = c->b;
    R->npool = c->n;
    R->poolcap = c->cap;
    c->b = NULL;
    c->n = c->cap = 0;
}

static void give_block_cache(sim_run *R)
{
    sim_bcache *c = R->prog->bcache;
    if (!c || c->b) {
        for (int i = 0; i < R->npool; i++)
            sim_block_free(R->pool[i]);
        free(R->pool);
    } else {
        c->b = R->pool;
        c->n = R->npool;
        c->cap = R->poolcap;
        c->warps = R->bwarps;
        c->shared = R->shared_size;
        c->local = R->local_size;
    }
    R->pool = NULL;
    R->npool = R->poolcap = 0;
}


/* Returns the block's end time; the block goes back to the pool. */
static double retire_block(sim_run *R, sim_sm *sm, sim_block *b)
{
    double fin = b->start;
    for (int i = 0; i < b->nwarps; i++)
        fin = sim_dmax(fin, b->warps[i].finish);
    b->finish = fin;
    if (fin > R->end_time)
        R->end_time = fin;
    if (fin > sm->finish)
        sm->finish = fin;
    for (int k = 0; k < R->prof->schedulers; k++)
        sched_remove_block(&sm->sched[k], b);
    int j = 0;
    for (int i = 0; i < sm->nblocks; i++)
        if (sm->blocks[i] != b)
            sm->blocks[j++] = sm->blocks[i];
    sm->nblocks = j;
    if (R->npool == R->poolcap) {
        R->poolcap = R->poolcap ? R->poolcap * 2 : 16;
        R->pool = wh_xrealloc(R->pool, (size_t)R->poolcap * sizeof *R->pool);
    }
    R->pool[R->npool++] = b;
    return fin;
}

/* Greedy-then-oldest choice of one scheduler. */
static void sched_pick(sim_sched *s)
{
    s->dirty = false;
    sim_warp *g = s->greedy;
    if (g && g->state == SIM_W_READY && g->next_issue <= s->dispatch) {
        s->pick = g;
        s->cand = s->dispatch;
        return;
    }
    sim_warp *best = NULL;
    double bt = SIM_INF;
    for (int i = 0; i < s->nwarps; i++) {
        sim_warp *w = s->warps[i];
        if (w->state != SIM_W_READY)
            continue;
        double c = sim_dmax(w->next_issue, s->dispatch);
        if (c < bt) {
            bt = c;
            best = w;
            if (c <= s->dispatch)
                break;
        }
    }
    s->pick = best;
    s->cand = bt;
}

static void report_deadlock(sim_run *R, sim_sm *sm)
{
    for (int i = 0; i < sm->nblocks; i++) {
        sim_block *b = sm->blocks[i];
        if (b->live_warps == 0)
            continue;
        char detail[512] = "";
        size_t n = 0;
        for (int id = 0; id < SIM_MAX_BARRIERS && n < sizeof detail; id++) {
            sim_barrier *bar = &b->bars[id];
            if (!bar->arrived)
                continue;
            int expected = bar->expected ? bar->expected : b->live_warps;
            n += (size_t)snprintf(detail + n, sizeof detail - n, "%sbarrier %d: %d of %d warps arrived",
                                  n ? "; " : "", id, bar->arrived, expected);
        }
        int cluster_waits = 0;
        for (int k = 0; k < b->nwarps; k++)
            cluster_waits += b->warps[k].state == SIM_W_BARRIER && b->warps[k].bar_id == SIM_CLUSTER_BARRIER;
        if (cluster_waits && n < sizeof detail)
            n += (size_t)snprintf(detail + n, sizeof detail - n, "%sbarrier.cluster: %d warps wait, %d of %d "
                                  "arrived in this phase", n ? "; " : "", cluster_waits, b->cluster_arrived,
                                  b->live_warps);
        sim_stop(R, HARNESS_FAULT, "deadlock in block (%u,%u,%u) on SM %d: all %d live warps wait at "
                 "barriers that cannot complete (%s)", b->ctaid[0], b->ctaid[1], b->ctaid[2], sm->id,
                 b->live_warps, detail);
        return;
    }
    sim_stop(R, HARNESS_FAULT, "deadlock on SM %d: no warp can issue", sm->id);
}

/* Run one SM's warps up to time `wend`.  false when the run stops. */
static bool run_sm(sim_run *R, sim_sm *sm, double wend)
{
    int S = R->prof->schedulers;
    for (;;) {
        int best = -1;
        double bt = SIM_INF;
        for (int k = 0; k < S; k++) {
            sim_sched *s = &sm->sched[k];
            if (s->dirty)
                sched_pick(s);
            if (s->pick && s->cand < bt) {
                bt = s->cand;
                best = k;
            }
        }
        if (best < 0) {
            if (sm->nblocks > 0) {
                report_deadlock(R, sm);
                return false;
            }
            return true;
        }
        if (bt >= wend)
            return true;
        sim_sched *s = &sm->sched[best];
        sim_warp *w = s->pick;
        if (!sim_step(R, sm, w))
            return false;
        s->greedy = w;
        s->dirty = true;
        if (w->state == SIM_W_DONE && w->blk->live_warps == 0) {
            double fin = retire_block(R, sm, w->blk);   /* w and its block go back to the pool */
            /* the freed slot takes the next block at once */
            if (R->next_block < R->nblocks_total && !dispatch_block(R, sm, fin))
                return false;
        }
    }
}

static double sm_next_time(const sim_sm *sm, int S)
{
    double t = SIM_INF;
    for (int k = 0; k < S; k++) {
        const sim_sched *s = &sm->sched[k];
        for (int i = 0; i < s->nwarps; i++)
            if (s->warps[i]->state == SIM_W_READY)
                t = fmin(t, sim_dmax(s->warps[i]->next_issue, s->dispatch));
    }
    return t;
}

static int residency(const sim_run *R)
{
    const sim_profile *P = R->prof;
    int r = P->max_blocks_per_sm;
    int byt = P->max_threads_per_sm / (int)R->bthreads;
    int byw = P->max_warps_per_sm / R->bwarps;
    if (byt < r)
        r = byt;
    if (byw < r)
        r = byw;
    if (R->shared_size > 0) {
        uint64_t bys = P->shared_per_sm / R->shared_size;
        if (bys < (uint64_t)r)
            r = (int)bys;
    }
    return r;
}

static void free_run(sim_run *R)
{
    if (R->sms) {
        for (int i = 0; i < R->prof->sms; i++) {
            sim_sm *sm = &R->sms[i];
            for (int b = 0; b < sm->nblocks; b++)
                sim_block_free(sm->blocks[b]);
            free(sm->blocks);
            if (sm->sched)
                for (int k = 0; k < R->prof->schedulers; k++)
                    free(sm->sched[k].warps);
            free(sm->sched);
        }
    }
    free(R->sms);
    give_block_cache(R);
    if (R->regions) {
        for (int r = 0; r < R->prog->nregions; r++) {
            if (R->prog->mcache && !R->prog->mcache[r].data) {
                R->prog->mcache[r] = R->regions[r];   /* kept for the next run */
                continue;
            }
            free(R->regions[r].data);
            free(R->regions[r].touched);
            free(R->regions[r].afree);
        }
    }
    free(R->regions);
    free(R->kparam);
    free(R->tex);
    free(R->tmap);
    free(R->cbank_own);
    sim_bw_free(&R->l2);
    sim_bw_free(&R->dram);
    free(R);
}

static void copy_back(sim_run *R, wh_image *img, int what)
{
    const sim_prog *P = R->prog;
    for (int r = 0; r < P->nregions; r++) {
        int p = P->regions[r].param;
        if (p < 0 || !img->bufs[p].data)
            continue;
        if (what < 2 && !wh_param_returned(img->bufs[p].param))
            continue;
        memcpy(img->bufs[p].data, R->regions[r].data, img->bufs[p].bytes);
    }
}

/* The resident warps' local memory is host memory the sim holds at once
 * (a GPU reserves it the same way, for every thread an SM can hold): past
 * the cap the run is refused before it starts, not left to the OOM killer. */
static bool local_fits(sim_run *R)
{
    uint64_t slots = (uint64_t)R->prof->sms * (uint64_t)R->residency;
    uint64_t blocks = R->nblocks_total < slots ? R->nblocks_total : slots;
    uint64_t warps = blocks * (uint64_t)R->bwarps;
    long double need = (long double)warps * SIM_WARP * (long double)R->local_size;
    if (need <= (long double)R->prog->local_limit)
        return true;
    sim_stop(R, HARNESS_UNSUPPORTED, "the sim would hold %.0Lf MiB of local memory at once (%llu bytes per thread "
             "x 32 lanes x %llu resident warps), past its cap of %llu MiB (--sim-local-mb raises it)",
             need / (1024.0L * 1024.0L), (unsigned long long)R->local_size, (unsigned long long)warps,
             (unsigned long long)(R->prog->local_limit >> 20));
    return false;
}

static bool launch_check(sim_run *R)
{
    const sim_profile *P = R->prof;
    if (R->bthreads > 1024 || R->bthreads > (unsigned)P->max_threads_per_sm) {
        sim_stop(R, HARNESS_FAULT, "launch failed: %u threads per block (at most %d)", R->bthreads,
                 P->max_threads_per_sm < 1024 ? P->max_threads_per_sm : 1024);
        return false;
    }
    if (R->shared_size > P->shared_per_sm) {
        sim_stop(R, HARNESS_FAULT, "launch failed: a block needs %llu bytes of shared memory, an SM of "
                 "profile '%s' has %llu", (unsigned long long)R->shared_size, P->name,
                 (unsigned long long)P->shared_per_sm);
        return false;
    }
    R->residency = residency(R);
    if (R->residency < 1) {
        sim_stop(R, HARNESS_FAULT, "launch failed: a block of %u threads does not fit on an SM", R->bthreads);
        return false;
    }
    return local_fits(R);
}

static bool simulate(sim_run *R)
{
    const sim_profile *P = R->prof;
    int S = P->schedulers;
    take_block_cache(R);
    R->sms = wh_xcalloc((size_t)P->sms, sizeof *R->sms);
    for (int i = 0; i < P->sms; i++) {
        R->sms[i].id = i;
        R->sms[i].sched = wh_xcalloc((size_t)S, sizeof *R->sms[i].sched);
    }
    for (int round = 0; round < R->residency && R->next_block < R->nblocks_total; round++)
        for (int i = 0; i < P->sms && R->next_block < R->nblocks_total; i++)
            if (!dispatch_block(R, &R->sms[i], 0))
                return false;
    double W = P->window_cycles;
    double wend = W;
    for (;;) {
        bool any = false;
        for (int i = 0; i < P->sms; i++) {
            sim_sm *sm = &R->sms[i];
            if (sm->nblocks == 0)
                continue;
            any = true;
            if (!run_sm(R, sm, wend))
                return false;
        }
        if (!any)
            break;
        /* skip windows in which nothing can issue */
        double next = SIM_INF;
        for (int i = 0; i < P->sms; i++)
            if (R->sms[i].nblocks)
                next = fmin(next, sm_next_time(&R->sms[i], S));
        wend += W;
        if (next < SIM_INF && next >= wend)
            wend = (floor(next / W) + 1) * W;
    }
    return true;
}

bool sim_execute(const sim_prog *P, wh_image *img, int copy, struct sim_explain *ex, struct sim_locations *loc,
                 harness_run *out, wh_error *err)
{
    sim_run *R = wh_xcalloc(1, sizeof *R);
    R->prog = P;
    R->prof = &P->prof;
    R->img = img;
    R->launch = img->launch;
    const wh_launch *L = &R->launch;
    R->bthreads = L->block[0] * L->block[1] * L->block[2];
    R->bwarps = (int)((R->bthreads + SIM_WARP - 1) / SIM_WARP);
    R->nblocks_total = (uint64_t)L->grid[0] * L->grid[1] * L->grid[2];
    R->step_limit = P->step_limit;
    R->local_size = P->local_size;
    uint64_t dyn_end = P->dyn_shared_off + img->shared_bytes;
    R->shared_size = img->shared_bytes ? dyn_end : P->static_shared;
    sim_bw_init(&R->l2, 64, P->prof.l2_sectors_per_cycle);
    R->l1 = sim_cache_for_run(&P->caches[0], P->prof.l1_bytes, P->prof.l1_ways, P->prof.sector_bytes, P->prof.sms);
    R->l2c = sim_cache_for_run(&P->caches[1], P->prof.l2_bytes, P->prof.l2_ways, P->prof.sector_bytes, 1);
    sim_bw_init(&R->dram, 64, P->prof.dram_sectors_per_cycle);
    if (!setup_memory(R, err)) {
        free_run(R);
        return false;
    }
    memset(out, 0, sizeof *out);
    if (ex) {
        R->ex = ex;
        sim_explain_begin(ex, R);
    }
    R->loc = loc;
    if (launch_check(R) && !simulate(R) && R->sms) {
        /* stopped (fault, step limit): report how far simulated time got */
        for (int i = 0; i < P->prof.sms; i++)
            for (int k = 0; k < P->prof.schedulers; k++)
                if (R->sms[i].sched[k].dispatch > R->end_time)
                    R->end_time = R->sms[i].sched[k].dispatch;
    }
    double cycles = R->end_time + P->prof.kernel_launch_cycles;
    out->status = R->status;
    snprintf(out->message, sizeof out->message, "%s", R->message);
    out->cycles = (uint64_t)ceil(cycles);
    out->time = (double)out->cycles;
    out->us = (double)out->cycles / P->prof.clock_mhz;
    out->warp_instructions = R->warp_instr;
    out->lane_instructions = R->lane_instr;
    if (copy)
        copy_back(R, img, copy);
    if (ex)
        sim_explain_end(ex, R);
    free_run(R);
    return true;
}

/*
 * sim_support.c — helpers shared by the sim backend tests (see
 * sim_support.h).  No tests here.
 */
#include "tests/sim_support.h"

#include "core/pcg32.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc_load(simcase *c, const char *path, bool need_ptx)
{
    memset(c, 0, sizeof *c);
    wh_error_clear(&c->err);
    c->spec = wh_spec_load(path, &c->err);
    cr_assert(c->spec, "%s: %s", path, c->err.msg);
    char ptx[4096];
    if (need_ptx && !wh_spec_ptx_path(c->spec, ptx, sizeof ptx, &c->err)) {
        wh_spec_free(c->spec);
        c->spec = NULL;
        cr_skip_test("%s: PTX not built: run make ptx", path);
    }
    sc_new_image(c);
}

void sc_new_image(simcase *c)
{
    wh_image_free(c->img);
    wh_launch L = wh_spec_launch_full(c->spec);
    c->img = wh_image_new(c->spec, &L, &c->err);
    cr_assert(c->img, "%s", c->err.msg);
}

void sc_fill(simcase *c, uint64_t seed, uint64_t stream)
{
    pcg32 rng;
    pcg32_seed(&rng, seed, stream);
    cr_assert(wh_image_fill_random(c->img, &rng, &c->err), "%s", c->err.msg);
}

harness_options sc_options(bool want_outputs)
{
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.want_outputs = want_outputs;
    return o;
}

bool sc_attach(simcase *c, const harness_options *o)
{
    c->h = harness_open(c->spec, HARNESS_SIM, o, &c->err);
    return c->h != NULL;
}

void sc_measure(simcase *c, int reps)
{
    harness_result_free(&c->res);
    cr_assert(harness_measure(c->h, c->img, reps, &c->res, &c->err), "%s", c->err.msg);
}

void sc_open(simcase *c, const char *path, uint64_t seed, bool all_buffers)
{
    sc_load(c, path, true);
    c->seed = seed;
    sc_fill(c, seed, 17);
    harness_options o = sc_options(true);
    o.want_all_buffers = all_buffers;
    cr_assert(sc_attach(c, &o), "%s: %s", path, c->err.msg);
}

bool sc_seeds(simcase *c, const char *path, uint64_t nseeds, bool all_buffers)
{
    uint64_t next = c->seed + 1;
    sc_close(c);
    if (next > nseeds)
        return false;
    sc_open(c, path, next, all_buffers);
    return true;
}

void sc_run(simcase *c)
{
    sc_measure(c, 1);
    cr_assert_eq(c->res.status, HARNESS_OK, "%s: status %s: %s", c->spec->name,
                 harness_status_name(c->res.status), c->res.message);
    cr_assert_gt(c->res.cycles, 0);
}

void sc_close(simcase *c)
{
    harness_result_free(&c->res);
    harness_close(c->h);
    wh_image_free(c->img);
    wh_spec_free(c->spec);
    memset(c, 0, sizeof *c);
}

static int find_param(simcase *c, const char *what, const char *name)
{
    int i = wh_image_find(c->img, name);
    cr_assert(i >= 0, "no %s %s", what, name);
    return i;
}

void *sc_buf(simcase *c, const char *name)
{
    return c->img->bufs[find_param(c, "buffer", name)].data;
}

uint64_t sc_count(simcase *c, const char *name)
{
    return c->img->bufs[find_param(c, "buffer", name)].count;
}

int64_t sc_int(simcase *c, const char *name)
{
    int i = find_param(c, "scalar", name);
    return wh_value_get_int(c->img->spec->params[i].type, c->img->bufs[i].data);
}

uint64_t sc_threads(const simcase *c)
{
    return wh_launch_threads_total(&c->img->launch);
}

void tsim_mkdtemp(char *template_path)
{
    cr_assert(mkdtemp(template_path), "mkdtemp %s", template_path);
}

void tsim_write(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

harness_status tsim_run_once(const char *ptx, const char *spec, const char *buf, void *out, size_t out_bytes,
                             char *msg, size_t n)
{
    char dir[] = "/tmp/wh_once_XXXXXX", path[128];
    tsim_mkdtemp(dir);
    tsim_write(dir, "k.ptx", ptx);
    tsim_write(dir, "k.json", spec);
    snprintf(path, sizeof path, "%s/k.json", dir);
    simcase c;
    sc_load(&c, path, false);
    harness_options o = sc_options(true);
    cr_assert(sc_attach(&c, &o), "%s", c.err.msg);
    sc_measure(&c, 1);
    harness_status st = c.res.status;
    snprintf(msg, n, "%s", c.res.message);
    if (out)
        memcpy(out, sc_buf(&c, buf), out_bytes);
    sc_close(&c);
    ts_rmtree(dir);
    return st;
}

void tsim_load_pair(const char *dir, const char *stem, wh_spec **spec, ptx_module **mod)
{
    char path[512];
    wh_error err;
    wh_error_clear(&err);
    snprintf(path, sizeof path, "%s/%s.json", dir, stem);
    *spec = wh_spec_load(path, &err);
    cr_assert(*spec, "%s: %s", path, err.msg);
    snprintf(path, sizeof path, "%s/%s.ptx", dir, stem);
    *mod = ptx_parse_file(path, &err);
    cr_assert(*mod, "%s: %s", path, err.msg);
}

uint32_t tsim_brev32(uint32_t v)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i++)
        r |= ((v >> i) & 1u) << (31 - i);
    return r;
}

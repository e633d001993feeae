/*
 * support.c — see support.h.
 */
#include "tests/support.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void ts_rmtree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0, "cannot remove %s", dir);
}

json_t *ts_load_json(const char *path)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    cr_assert(doc, "%s: %s", path, je.text);
    return doc;
}

const char *ts_read_text(const char *path)
{
    static char buf[1 << 20];
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

void ts_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    cr_assert_geq(fputs(text, f), 0, "%s", path);
    cr_assert_eq(fclose(f), 0, "%s", path);
}

int ts_run_cmd(wh_command_fn cmd, const char *name, const char *const *args, int nargs, const char *out_path,
               const char *err_path)
{
    char *argv[64];
    cr_assert(nargs >= 0 && nargs < 63, "%d arguments: too many for ts_run_cmd", nargs);
    argv[0] = (char *)name;
    for (int i = 0; i < nargs; i++)
        argv[i + 1] = (char *)args[i];
    argv[nargs + 1] = NULL;
    const char *paths[2] = { out_path, err_path };
    int saved[2] = { -1, -1 };
    fflush(stdout);
    fflush(stderr);
    for (int k = 0; k < 2; k++) {
        if (!paths[k])
            continue;
        int fd = open(paths[k], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        cr_assert(fd >= 0, "cannot open %s", paths[k]);
        saved[k] = dup(k + 1);
        dup2(fd, k + 1);
        close(fd);
    }
    int rc = cmd(nargs + 1, argv);
    fflush(stdout);
    fflush(stderr);
    for (int k = 0; k < 2; k++)
        if (saved[k] >= 0) {
            dup2(saved[k], k + 1);
            close(saved[k]);
        }
    return rc;
}

wh_image *ts_pattern_image(const wh_spec *s, int64_t (*value)(uint64_t i))
{
    wh_error err;
    wh_launch full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(img, "%s", err.msg);
    const wh_param *p = &s->params[0];
    for (uint64_t i = 0; i < img->bufs[0].count; i++)
        wh_value_set_int(p->fields[0].type, img->bufs[0].data + p->elem_size * i, value(i));
    cr_assert(wh_image_check_domains(img, &err), "%s", err.msg);
    return img;
}

void ts_save_pattern_input(const char *spec_path, const char *dir, int64_t (*value)(uint64_t i))
{
    wh_error err;
    wh_spec *s = wh_spec_load(spec_path, &err);
    cr_assert(s, "%s", err.msg);
    wh_image *img = ts_pattern_image(s, value);
    cr_assert(wh_image_save(img, dir, &err), "%s", err.msg);
    wh_image_free(img);
    wh_spec_free(s);
}

void ts_need_ptx(const char *ptx)
{
    if (access(ptx, R_OK) != 0) cr_skip_test("PTX not built (%s): run `make ptx`", ptx);
}

void ts_beside_runner(const char *name, char *buf, size_t n)
{
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert(k > 0, "readlink /proc/self/exe: %s", strerror(errno));
    exe[k] = 0;
    snprintf(buf, n, "%s/%s", dirname(exe), name);
    if (access(buf, R_OK) != 0) cr_skip_test("%s is missing: the fakes are built by make test / make check", buf);
}

int64_t ts_value_zero(uint64_t i)
{
    (void)i;
    return 0;
}

int64_t ts_value_lane(uint64_t i)
{
    return (int64_t)(i % 32);
}

json_t *ts_explore_json(const char *spec, const char *time_s)
{
    char dir[] = "/tmp/wh_explore_XXXXXX", out[128], json[128];
    cr_assert(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(out, sizeof out, "%s/run", dir);
    snprintf(json, sizeof json, "%s/stdout", dir);
    /* saturation 0: a test's counts must not depend on how fast a loaded
     * machine finds the next path (--time still bounds it) */
    const char *args[] = { spec, "--time", time_s, "--saturation", "0", "--results", dir, "-o", out, "--json",
                           "--quiet" };
    cr_assert_eq(ts_run_cmd(cmd_explore, "explore", args, 11, json, NULL), 0, "explore %s", spec);
    json_t *doc = ts_load_json(json);
    ts_rmtree(dir);
    return doc;
}

wh_image *ts_hunt_best(const wh_spec *spec, const char *strategy, const char *evals)
{
    char dir[] = "/tmp/wh_hunt_best_XXXXXX", errp[128], best[1200];
    cr_assert(mkdtemp(dir));
    snprintf(errp, sizeof errp, "%s/err", dir);
    const char *args[] = { spec->path, "--evals", evals, "--strategy", strategy, "--results", dir, "--quiet" };
    cr_assert_eq(ts_run_cmd(cmd_hunt, "hunt", args, 8, NULL, errp), 0, "%s: %s", strategy, ts_read_text(errp));
    snprintf(best, sizeof best, "%s/%s/%s-s1/best", dir, spec->name, strategy);
    wh_error err;
    wh_image *img = wh_image_load(spec, best, &err);
    cr_assert(img, "%s's best: %s", strategy, err.msg);
    ts_rmtree(dir);
    return img;
}

gen_result *ts_explore_with(const wh_spec *spec, gen_explore_options *o, char *cache)
{
    strcpy(cache, "/tmp/wh_cache_XXXXXX");
    cr_assert(mkdtemp(cache));
    o->quiet = true;
    o->cache_dir = cache;
    wh_error err;
    gen_result *r = gen_explore_spec(spec, o, &err);
    cr_assert(r, "%s", err.msg);
    return r;
}

int ts_check_atoms(const char *path, const char *ptx, int paths, const char *param, ts_atom_check check, void *ctx)
{
    wh_error err;
    wh_spec *spec = wh_spec_load(path, &err);
    cr_assert(spec, "%s", err.msg);
    ts_need_ptx(ptx);
    char cache[64];
    gen_explore_options o;
    gen_explore_options_default(&o);
    o.threads = 2;
    o.path_budget = paths;
    o.models = 1;
    o.time_s = 120;
    gen_result *r = ts_explore_with(spec, &o, cache);
    cr_expect_null(r->unassumed);
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_image *img = wh_image_new(spec, &l, &err);
    cr_assert(img, "%s", err.msg);
    int p = wh_image_find(img, param), natoms = r->pool.natoms;
    cr_assert_geq(p, 0, "no input \"%s\"", param);
    cr_expect_gt(natoms, 0);
    for (int a = 0; a < natoms; a++) {
        gen_pool_atom_to_image(&r->pool, a, img);
        cr_expect(check(img, p, ctx, &err), "atom %d: %s", a, err.msg);
    }
    wh_image_free(img);
    gen_result_free(r);
    wh_spec_free(spec);
    ts_rmtree(cache);
    return natoms;
}

gen_result *ts_explore(const wh_spec *spec, double time_s, char *cache)
{
    gen_explore_options o;
    gen_explore_options_default(&o);
    o.time_s = time_s;
    return ts_explore_with(spec, &o, cache);
}

wh_spec *ts_temp_spec(const char *json, char *dir, wh_error *err)
{
    strcpy(dir, "/tmp/wh_spec_XXXXXX");
    cr_assert(mkdtemp(dir));
    char path[96];
    snprintf(path, sizeof path, "%s/k.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(json, f);
    fclose(f);
    return wh_spec_load(path, err);
}

bool ts_kernel_open(ts_kernel *k, int block, const char *params, wh_error *err)
{
    size_t n = strlen(params) + 200;
    char *json = malloc(n);
    cr_assert(json);
    snprintf(json, n, "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[%d],"
             "\"params\":[%s]}", block, params);
    k->img = NULL;
    k->spec = ts_temp_spec_image(json, k->dir, &k->img, err);
    free(json);
    return k->img != NULL;
}

void ts_kernel_close(ts_kernel *k)
{
    wh_image_free(k->img);
    if (k->spec) wh_spec_free(k->spec);
    ts_rmtree(k->dir);
}

wh_image *ts_full_image(const char *path, wh_spec **spec)
{
    wh_error err;
    *spec = wh_spec_load(path, &err);
    cr_assert(*spec, "%s", err.msg);
    wh_launch full = wh_spec_launch_full(*spec);
    wh_image *img = wh_image_new(*spec, &full, &err);
    cr_assert(img, "%s", err.msg);
    return img;
}

wh_spec *ts_temp_spec_image(const char *json, char *dir, wh_image **img, wh_error *err)
{
    *img = NULL;
    wh_spec *s = ts_temp_spec(json, dir, err);
    if (!s) return NULL;
    wh_launch l = wh_spec_launch_full(s);
    *img = wh_image_new(s, &l, err);
    return s;
}

double ts_sim_time(const wh_spec *s, wh_image *img)
{
    wh_error err;
    harness_options ho;
    harness_options_init(&ho);
    ho.quiet = true;
    harness *h = harness_open(s, HARNESS_SIM, &ho, &err);
    cr_assert(h, "%s", err.msg);
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
    double t = r.mean;
    harness_result_free(&r);
    harness_close(h);
    return t;
}

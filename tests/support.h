/*
 * support.h — helpers that tests of every stage share, no tests of its own:
 * removing a temporary tree, loading a JSON file, and calling a subcommand
 * in the test process with its output captured.  Each fails the calling
 * test through Criterion's asserts or expects.  (The sim tests' own
 * helpers are in sim_support.h.)
 */
#ifndef WH_TESTS_SUPPORT_H
#define WH_TESTS_SUPPORT_H

#include "cli/cli.h"
#include "core/image.h"
#include "gen/explore.h"

#include <jansson.h>

/* rm -rf DIR; a failure fails the test but lets its cleanup go on. */
void ts_rmtree(const char *dir);

/* The JSON document at path, asserted (json_decref it). */
json_t *ts_load_json(const char *path);
/* A text file's contents (up to 1 MiB), in a buffer the next call reuses;
 * asserts that it opens. */
const char *ts_read_text(const char *path);
/* Write text to path (a test failure when it cannot). */
void ts_write_text(const char *path, const char *text);

/* The full-size input of s whose first buffer holds value(i) at element i
 * (the other inputs at the low end of their domains), asserted to lie in
 * every domain (wh_image_free it). */
wh_image *ts_pattern_image(const wh_spec *s, int64_t (*value)(uint64_t i));

/* Patterns for ts_pattern_image: 0 at every element; the lane (i % 32).
 * On gt_paths32 (hunt_paths_small.json) every lane of a warp then takes
 * the same leaf (5 legs per warp), or a leaf of its own (all 62 legs:
 * the known worst). */
int64_t ts_value_zero(uint64_t i);
int64_t ts_value_lane(uint64_t i);

/* ts_pattern_image of the spec at spec_path, saved as an input in dir. */
void ts_save_pattern_input(const char *spec_path, const char *dir, int64_t (*value)(uint64_t i));

/* The exact sim time of an input (a fresh harness, no noise), asserted
 * to run without a fault. */
double ts_sim_time(const wh_spec *s, wh_image *img);

/* Skips the test, saying so, when the PTX file is not built. */
void ts_need_ptx(const char *ptx);

/* The path of NAME beside the test runner (the fake libraries the build
 * puts there), in buf; skips the test, saying so, when it is missing. */
void ts_beside_runner(const char *name, char *buf, size_t n);

/* cmd with argv = { name, args[0..nargs-1], NULL }; its stdout goes to
 * out_path and its stderr to err_path where these are not NULL (Criterion's
 * own redirection, if any, is left alone where they are). */
int ts_run_cmd(wh_command_fn cmd, const char *name, const char *const *args, int nargs, const char *out_path,
               const char *err_path);

/* `explore SPEC --time TIME --saturation 0 --json` in a temporary results directory,
 * asserted to succeed: its JSON summary (json_decref it). */
json_t *ts_explore_json(const char *spec, const char *time_s);

/* `hunt SPEC --strategy STRATEGY --evals EVALS --quiet` in a temporary
 * results directory, asserted to succeed; its best input, loaded (so its
 * domains and structures are checked) and asserted, for `spec` (the same
 * file, loaded by the caller; wh_image_free the result). */
wh_image *ts_hunt_best(const wh_spec *spec, const char *strategy, const char *evals);

/* The spec whose JSON text is `json`, written to a fresh temporary
 * directory (dir: 64 bytes, ts_rmtree it) as k.json and loaded: NULL, err
 * filled, when the loader refuses it. */
wh_spec *ts_temp_spec(const char *json, char *dir, wh_error *err);
/* The same and, when it loads, *img: an image of its full launch (NULL
 * when the spec or the image is refused, err filled). */
wh_spec *ts_temp_spec_image(const char *json, char *dir, wh_image **img, wh_error *err);
/* A one-block kernel spec made of `params` (the JSON inside "params": [])
 * with `block` threads, in a temporary directory, and an image of its
 * launch: false, err filled, when the spec or the image is refused
 * (ts_kernel_close it either way). */
typedef struct {
    char dir[64];
    wh_spec *spec;
    wh_image *img;
} ts_kernel;
bool ts_kernel_open(ts_kernel *k, int block, const char *params, wh_error *err);
void ts_kernel_close(ts_kernel *k);
/* The spec at path (asserted to load) and an image of its full launch. */
wh_image *ts_full_image(const char *path, wh_spec **spec);

/* gen_explore_spec of spec, quiet, for time_s seconds, its cache in a
 * fresh temporary directory written to cache (64 bytes; ts_rmtree it);
 * asserted (gen_result_free the result). */
gen_result *ts_explore(const wh_spec *spec, double time_s, char *cache);
/* The same with the caller's options (quiet and cache_dir are set here):
 * a test whose outcome must not depend on the machine's speed bounds the
 * stage by threads and paths, not time. */
gen_result *ts_explore_with(const wh_spec *spec, gen_explore_options *o, char *cache);

/* Every atom of a spec's symbolic stage checked: the spec at `path` (its
 * PTX at `ptx`: the test skips when it is not built) explored at X = 2 for
 * at most `paths` paths, one model each, asserting that the stage assumed
 * every structure; then check(img, p, ctx, err) asserted on an image of
 * each atom, p the input named `param`.  Returns the number of atoms
 * (asserted above 0). */
typedef bool (*ts_atom_check)(const wh_image *img, int p, void *ctx, wh_error *err);
int ts_check_atoms(const char *path, const char *ptx, int paths, const char *param, ts_atom_check check, void *ctx);

#endif

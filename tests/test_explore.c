/*
 * test_explore.c — the generator block's front half: deepening over X,
 * atoms replayed on the sim, invalid atoms never used, the result cache.
 */
#include <criterion/criterion.h>

#include "core/clock.h"
#include "gen/explore.h"
#include "tests/support.h"

#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    wh_spec *spec;
    ptx_module *mod;
    char cache[64];
} fixture;

static void open_fixture(fixture *f, const char *spec_path)
{
    wh_error err;
    f->spec = wh_spec_load(spec_path, &err);
    cr_assert(f->spec, "%s", err.msg);
    char ptx[1024];
    if (!wh_spec_ptx_path(f->spec, ptx, sizeof ptx, &err)) cr_skip_test("%s: run `make ptx`", err.msg);
    f->mod = ptx_parse_file(ptx, &err);
    cr_assert(f->mod, "%s", err.msg);
    strcpy(f->cache, "/tmp/wh_cache_XXXXXX");
    cr_assert(mkdtemp(f->cache));
}

static void close_fixture(fixture *f)
{
    ts_rmtree(f->cache);
    ptx_module_free(f->mod);
    wh_spec_free(f->spec);
}

static gen_explore_options quiet(const fixture *f)
{
    gen_explore_options o;
    gen_explore_options_default(&o);
    o.quiet = true;
    o.cache_dir = f->cache;
    o.time_s = 30;
    return o;
}

/* Open the fixture for `spec_path` and explore it with the quiet defaults. */
static gen_result *explore_default(fixture *f, const char *spec_path)
{
    open_fixture(f, spec_path);
    gen_explore_options o = quiet(f);
    wh_error err;
    gen_result *r = gen_explore(f->spec, f->mod, &o, &err);
    cr_assert(r, "%s", err.msg);
    return r;
}

Test(explore, listing1_atoms_are_valid_and_cover_both_legs)
{
    fixture f;
    gen_result *r = explore_default(&f, "kernels/artificial.json");
    wh_error err;
    cr_expect_eq(r->x, 2, "X = 2 already covers both legs");
    cr_expect_eq(r->nxs, 1);
    cr_expect_eq(r->npaths, 4);
    cr_expect_float_eq(gen_result_coverage(r), 100.0, 1e-9);
    cr_expect(r->validated);
    cr_expect_gt(r->atoms_valid, 4, "several models per path");
    cr_expect_eq(r->atoms_invalid, 0);
    /* The atoms of each path really take its decisions: a path whose two
     * threads both take the 8-atomic leg has atoms of two 7s. */
    wh_launch l = wh_launch_threads(2);
    wh_image *img = wh_image_new(f.spec, &l, &err);
    int both = 0;
    for (int a = 0; a < r->pool.natoms; a++) {
        gen_pool_atom_to_image(&r->pool, a, img);
        int32_t v0 = (int32_t)wh_value_get_int(WH_I32, img->bufs[0].data);
        int32_t v1 = (int32_t)wh_value_get_int(WH_I32, img->bufs[0].data + 4);
        both += v0 == 7 && v1 == 7;
    }
    cr_expect_geq(both, 1, "an atom puts both threads on the atomic leg");
    wh_image_free(img);
    gen_result_free(r);
    close_fixture(&f);
}

Test(explore, cache_hit_and_miss)
{
    fixture f;
    open_fixture(&f, "kernels/artificial.json");
    gen_explore_options o = quiet(&f);
    wh_error err;
    gen_result *a = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(a, "%s", err.msg);
    cr_expect_not(a->from_cache);
    gen_result *b = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(b, "%s", err.msg);
    cr_expect(b->from_cache, "same PTX, spec and options: reused");
    cr_expect_eq(b->npaths, a->npaths);
    cr_expect_eq(b->pool.natoms, a->pool.natoms);
    cr_expect_eq(memcmp(a->pool.data, b->pool.data, (size_t)a->pool.natoms * a->pool.thread_bytes), 0);
    cr_expect_eq(b->pool.nshared, a->pool.nshared);
    if (a->pool.nshared > 0)
        cr_expect_eq(memcmp(a->pool.sdata, b->pool.sdata, (size_t)a->pool.nshared * a->pool.shared_bytes), 0);
    cr_expect_eq(b->paths[0].instr, a->paths[0].instr);
    o.models = 2;
    gen_result *c = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(c, "%s", err.msg);
    cr_expect_not(c->from_cache, "other options: explored again");
    cr_expect_str_neq(c->cache_key, a->cache_key);
    o.models = 4;
    o.reuse = false;
    gen_result *d = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(d, "%s", err.msg);
    cr_expect_not(d->from_cache, "--no-cache");
    gen_result_free(a);
    gen_result_free(b);
    gen_result_free(c);
    gen_result_free(d);
    close_fixture(&f);
}

Test(explore, deepening_records_every_x)
{
    fixture f;
    gen_result *r = explore_default(&f, "tests/specs/hunt_paths_small.json");
    cr_assert_geq(r->nxs, 1);
    cr_expect_eq(r->xs[0].x, 2);
    for (int i = 1; i < r->nxs; i++) cr_expect_gt(r->xs[i].x, r->xs[i - 1].x);
    /* it stops deepening once everything is covered */
    for (int i = 0; i + 1 < r->nxs; i++) cr_expect_lt(r->xs[i].legs_covered, r->xs[i].legs_total);
    cr_expect_eq(r->x, r->xs[r->nxs - 1].x);
    /* the atoms' share of the stage is measured (explore prints it) */
    cr_expect(r->atoms_s > 0 && r->atoms_s < r->time_s, "atoms %g s of %g", r->atoms_s, r->time_s);
    gen_result_free(r);
    close_fixture(&f);
}

/* histogram_smem (X = 2, 3, 4 in its spec): every X finishes with the one
 * path and the same legs, so X = 4 is not tried; the paths kept are X = 3's. */
Test(explore, deepening_stops_when_a_larger_x_finds_nothing_more)
{
    fixture f;
    gen_result *r = explore_default(&f, "kernels/corpus/histogram_smem.json");
    cr_assert_eq(f.spec->nsym_threads, 3);
    cr_assert_eq(r->nxs, 2, "X tried: %d", r->nxs);
    cr_expect_eq(r->xs[0].paths, r->xs[1].paths);
    cr_expect_eq(r->xs[0].legs_covered, r->xs[1].legs_covered);
    cr_expect_not(r->xs[1].budget_hit);
    cr_expect_eq(r->x, 3);
    gen_result_free(r);
    close_fixture(&f);
}

/* lbm: X = 2 (49 paths) and X = 3 (343) finish at 88.9 % of the legs.
 * With a 400-path budget X = 4 stops at the budget covering 94.4 %: its
 * 400 whole paths are kept.  With 100, X = 3 stops at the budget covering
 * no more than X = 2: the finished X = 2 stays. */
Test(explore, a_larger_x_stopped_by_the_path_budget_is_kept_when_it_covers_more)
{
    fixture f;
    open_fixture(&f, "kernels/lbm.json");
    gen_explore_options o = quiet(&f);
    /* the path budget, not the clock, must stop X = 4: under the
     * sanitizers the three Xs take over 20 s of the default 30 */
    o.time_s = 600;
    o.path_budget = 400;
    o.models = 1;
    wh_error err;
    gen_result *r = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(r, "%s", err.msg);
    cr_assert_eq(r->nxs, 3, "deepening stops at the capped X");
    cr_expect(!r->xs[1].budget_hit && r->xs[2].path_cap && r->xs[2].budget_hit);
    cr_expect_gt(r->xs[2].legs_covered, r->xs[1].legs_covered);
    cr_expect_eq(r->x, 4);
    cr_expect_eq(r->npaths, 400);
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "grep -q '\"path_budget_hit\": true' '%s'", r->paths_json);
    cr_expect_eq(system(cmd), 0, "paths.json says which X the path budget stopped");
    gen_result_free(r);
    o.path_budget = 100;
    r = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(r, "%s", err.msg);
    cr_assert_eq(r->nxs, 2);
    cr_expect(r->xs[1].path_cap);
    cr_expect_eq(r->xs[1].legs_covered, r->xs[0].legs_covered);
    cr_expect_eq(r->x, 2, "equal coverage: the finished X stays");
    cr_expect_eq(r->npaths, 49);
    gen_result_free(r);
    close_fixture(&f);
}

/* Invalid atoms are never alleles and never in an arrangement. */
Test(explore, invalid_atoms_are_excluded)
{
    fixture f;
    gen_result *r = explore_default(&f, "kernels/artificial.json");
    wh_error err;
    /* Mark every atom of the path with the most instructions invalid, as a
     * failed replay would. */
    int worst = 0;
    for (int i = 1; i < r->npaths; i++)
        if (r->paths[i].instr > r->paths[worst].instr) worst = i;
    for (int k = 0; k < r->paths[worst].natoms; k++) r->pool.atoms[r->paths[worst].first_atom + k].valid = false;
    r->paths[worst].nvalid = 0;
    int *alleles;
    int n = gen_valid_alleles(r, &alleles);
    cr_assert_gt(n, 0);
    for (int i = 0; i < n; i++) cr_expect_neq(r->pool.atoms[alleles[i]].path, worst);
    free(alleles);
    wh_launch full = wh_spec_launch_full(f.spec);
    gen_layout lay;
    cr_assert(gen_layout_make(f.spec, &full, r->x, &lay, &err));
    int **arr;
    int na = gen_arrangements(r, &lay, &arr, &err);
    cr_assert_geq(na, 1);
    for (int i = 0; i < na; i++) {
        for (int g = 0; g < lay.ngenes; g++) cr_assert(r->pool.atoms[arr[i][g]].valid, "arrangement %d gene %d", i, g);
        free(arr[i]);
    }
    free(arr);
    gen_result_free(r);
    close_fixture(&f);
}

Test(explore, paths_json_is_written_and_copied)
{
    fixture f;
    gen_result *r = explore_default(&f, "kernels/artificial.json");
    wh_error err;
    char out[128];
    snprintf(out, sizeof out, "%s/copy.json", f.cache);
    cr_assert(gen_result_write_paths(r, out, &err), "%s", err.msg);
    json_error_t jerr;
    json_t *doc = json_load_file(out, 0, &jerr);
    cr_assert(doc, "%s", jerr.text);
    cr_expect_eq(json_array_size(json_object_get(doc, "paths")), 4);
    json_t *p0 = json_array_get(json_object_get(doc, "paths"), 0);
    cr_expect(json_string_length(json_object_get(p0, "formula")) > 0, "formulas in SMT-LIB2");
    cr_expect(json_is_array(json_object_get(p0, "atoms")));
    json_decref(doc);
    gen_result_free(r);
    close_fixture(&f);
}

/* With a tiling gene, the arrangements hold every stride of the
 * warp-richest path (its atoms unchanged), and plain tiling elsewhere. */
Test(explore, arrangements_try_every_stride)
{
    fixture f;
    gen_result *r = explore_default(&f, "tests/specs/hunt_paths_small.json");
    wh_error err;
    wh_launch full = wh_spec_launch_full(f.spec);
    wh_image *img = wh_image_new(f.spec, &full, &err);
    cr_assert(img, "%s", err.msg);
    gen_layout lay;
    cr_assert(gen_layout_make(f.spec, &full, r->x, &lay, &err));
    cr_assert_eq(gen_layout_add_tiling(&lay, img, &err), 9, "sel in [0, 255]: strides 1 .. 128");
    int **arr;
    int na = gen_arrangements(r, &lay, &arr, &err);
    cr_assert_geq(na, 3 + 8);
    bool seen[9] = { false };
    const int *warp_richest = NULL;
    for (int i = 0; i < na; i++) {
        int t = arr[i][lay.tiling_gene];
        cr_assert(t >= 0 && t < lay.ntilings, "arrangement %d: tiling %d", i, t);
        for (int g = 0; g < lay.thread_genes; g++) cr_assert(r->pool.atoms[arr[i][g]].valid);
        if (t == 0) continue;
        cr_expect_not(seen[t], "stride %d twice", t);
        seen[t] = true;
        if (!warp_richest) warp_richest = arr[i];
        cr_expect_arr_eq(arr[i], warp_richest, (size_t)lay.thread_genes * sizeof(int),
                         "every stride variant tiles the same atoms");
    }
    for (int t = 1; t < 9; t++) cr_expect(seen[t], "stride 2^%d missing", t - 1);
    for (int i = 0; i < na; i++) free(arr[i]);
    free(arr);
    wh_image_free(img);
    gen_result_free(r);
    close_fixture(&f);
}

/* An atom whose replay never ends (the input 1000002 spins forever) stops at
 * GEN_VALIDATE_STEP_LIMIT: invalid, counted as a hang candidate, and the
 * exploration goes on.  The stage gets 120 s: its atoms' share of the
 * default 30 s (a quarter) is less than the 2e7-step replay takes under
 * the sanitizers on a loaded machine, and the other atoms would then go
 * unvalidated. */
Test(explore, a_hanging_atom_is_bounded_and_reported, .timeout = 240)
{
    fixture f;
    open_fixture(&f, "tests/specs/hang_small.json");
    gen_explore_options o = quiet(&f);
    o.time_s = 120;
    wh_error err;
    gen_result *r = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(r, "%s", err.msg);
    cr_assert(r->validated);
    cr_expect_eq(r->x, 1);
    cr_expect_eq(r->atoms_hung, 1, "one input hangs: %d hung atoms", r->atoms_hung);
    int hung_path = -1;
    for (int i = 0; i < r->npaths; i++)
        for (int k = 0; k < r->paths[i].natoms; k++) {
            wh_launch one = wh_launch_threads(1);
            wh_image *img = wh_image_new(f.spec, &one, &err);
            cr_assert(img, "%s", err.msg);
            gen_pool_atom_to_image(&r->pool, r->paths[i].first_atom + k, img);
            if (wh_value_get_int(WH_U32, img->bufs[0].data) == 1000002) hung_path = i;
            wh_image_free(img);
        }
    cr_assert_geq(hung_path, 0, "an atom takes the spinning path");
    cr_expect_eq(r->paths[hung_path].nvalid, 0, "the hanging atom is invalid");
    cr_expect_gt(r->atoms_valid, 0, "the other paths' atoms are valid");
    gen_result_free(r);
    close_fixture(&f);
}

/* The budget bounds the whole stage: on a kernel whose atoms are slow to
 * solve (sssp_relax: the search fills its share; before, one model check
 * alone could run for minutes), the stage returns soon after the budget,
 * keeps what it found, and counts the paths left without an atom.  The
 * bound asserted is loose (twice the budget plus 3 s under a loaded
 * machine or sanitizers); the point is that the stage ends. */
Test(explore, the_budget_bounds_atom_solving_too, .timeout = 120)
{
    fixture f;
    open_fixture(&f, "kernels/corpus/sssp_relax.json");
    gen_explore_options o = quiet(&f);
    o.time_s = 4;
    o.threads = 2;
    wh_error err;
    wh_error_clear(&err);
    double t0 = wh_clock_s();
    gen_result *r = gen_explore(f.spec, f.mod, &o, &err);
    double took = wh_clock_s() - t0;
    cr_assert(r, "%s", err.msg);
    cr_expect_lt(took, 2 * o.time_s + 3, "the stage took %.1f s on a %.0f s budget", took, o.time_s);
    cr_expect_gt(r->npaths, 0);
    int with_atoms = 0, errors = 0;
    for (int i = 0; i < r->npaths; i++) {
        with_atoms += r->paths[i].natoms > 0;
        errors += r->paths[i].kind == 2 && r->paths[i].natoms == 0;
    }
    cr_expect_eq(with_atoms + r->paths_without_atoms + errors, r->npaths,
                 "every path has atoms, is an error path or is counted without");
    /* the count survives the cache */
    gen_result *again = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(again, "%s", err.msg);
    cr_expect(again->from_cache);
    cr_expect_eq(again->paths_without_atoms, r->paths_without_atoms);
    gen_result_free(again);
    gen_result_free(r);
    close_fixture(&f);
}

/* A search that spends the whole budget (0.02 s: its first path alone
 * takes longer) still leaves each path the atom its final state's model
 * is, with no solver check: before, such a stage gave paths and no atom
 * (the held-out kd_nearest's, 5 paths after a 43 s search of a 30 s
 * budget), and the hunt searched with random ones. */
Test(explore, paths_past_the_budget_keep_their_own_models_as_atoms, .timeout = 60)
{
    fixture f;
    open_fixture(&f, "tests/specs/sym_float.json");
    gen_explore_options o = quiet(&f);
    o.time_s = 0.02;
    o.families = 0;
    wh_error err;
    wh_error_clear(&err);
    gen_result *r = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(r, "%s", err.msg);
    if (r->npaths == 0) {   /* a sanitized build is slower: no path ended at all */
        gen_result_free(r);
        close_fixture(&f);
        cr_skip_test("no path ended within 0.02 s on this build: nothing past the deadline to test");
    }
    cr_expect_eq(r->atoms_valid, r->npaths, "%d paths, %d valid atoms", r->npaths, r->atoms_valid);
    gen_result_free(r);
    close_fixture(&f);
}

/* Families: siblings of the warp-richest paths' atoms that keep thread 0's
 * key and vary thread 1's (X = 2): distinct keys, each replaying its path,
 * alleles of the search, and laid out one per gene in an arrangement. */
Test(explore, families_vary_the_last_thread_only)
{
    fixture f;
    open_fixture(&f, "tests/specs/hunt_hash_small.json");
    gen_explore_options o = quiet(&f);
    o.threads = 2;
    o.time_s = 20;
    wh_error err;
    gen_result *r = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(r, "%s", err.msg);
    cr_assert_geq(r->families, 1);
    int *ids, n = gen_family_atoms(r, 0, &ids);
    cr_assert_gt(n, 8, "family 0 has %d valid siblings of %d", n, r->family_atoms);
    const gen_atom *first = &r->pool.atoms[ids[0]];
    const gen_path *path = &r->paths[first->path];
    const uint32_t *base = (const uint32_t *)gen_pool_atom_data(&r->pool, path->first_atom, 0);
    for (int k = 0; k < n; k++) {
        const uint32_t *key = (const uint32_t *)gen_pool_atom_data(&r->pool, ids[k], 0);
        cr_assert_eq(r->pool.atoms[ids[k]].origin, GEN_ATOM_FAMILY);
        cr_assert_eq(r->pool.atoms[ids[k]].path, first->path, "one family, one path");
        cr_assert_eq(key[0], base[0], "thread 0 keeps the atom's key");
        cr_assert_neq(key[1], base[1], "sibling %d repeats the atom", k);
        for (int j = 0; j < k; j++)
            cr_assert_neq(key[1], ((const uint32_t *)gen_pool_atom_data(&r->pool, ids[j], 0))[1]);
    }
    int *alleles, na = gen_valid_alleles(r, &alleles);
    bool listed = false;
    for (int a = 0; a < na; a++) listed |= alleles[a] == ids[n - 1];
    cr_expect(listed, "siblings are alleles");
    wh_launch full = wh_spec_launch_full(f.spec);
    gen_layout lay;
    cr_assert(gen_layout_make(f.spec, &full, r->x, &lay, &err));
    int **arr, narr = gen_arrangements(r, &lay, &arr, &err);
    bool laid_out = false;
    for (int i = 0; i < narr; i++) {
        bool cycles = true;
        for (int g = 0; g < lay.thread_genes; g++) cycles &= arr[i][g] == ids[g % n];
        laid_out |= cycles;
        free(arr[i]);
    }
    cr_expect(laid_out, "an arrangement lays the family out one sibling per gene");
    free(arr);
    free(alleles);
    free(ids);
    gen_result_free(r);
    o.families = 0;   /* another cache key: explored again, without families */
    r = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(r, "%s", err.msg);
    cr_expect_not(r->from_cache);
    cr_expect_eq(r->families, 0);
    for (int a = 0; a < r->pool.natoms; a++) cr_expect_neq(r->pool.atoms[a].origin, GEN_ATOM_FAMILY);
    gen_result_free(r);
    close_fixture(&f);
}

/* The atoms in paths.json at `path` that have "inputs"; *first gets the
 * first one's (a new reference), when asked. */
static int atoms_with_values(const char *path, json_t **first)
{
    json_t *doc = json_load_file(path, 0, NULL), *p;
    cr_assert(doc, "%s is JSON", path);
    size_t i, k;
    int n = 0;
    json_array_foreach(json_object_get(doc, "paths"), i, p) {
        json_t *atoms = json_object_get(p, "atoms");
        for (k = 0; k < json_array_size(atoms); k++) {
            json_t *in = json_object_get(json_array_get(atoms, k), "inputs");
            if (in && first && !n) *first = json_incref(in);
            n += in != NULL;
        }
    }
    json_decref(doc);
    return n;
}

/* The cache's paths.json names each atom and its validity but not its
 * values (atoms.bin has them; binary_search's values were 450 MB of
 * JSON); `explore`'s copy adds them from the pool, and a hunt reading the
 * entry back gets the same paths and atoms. */
Test(explore, the_cache_keeps_atom_values_in_atoms_bin_only)
{
    fixture f;
    gen_result *a = explore_default(&f, "kernels/artificial.json");
    gen_explore_options o = quiet(&f);
    wh_error err;
    char out[128];
    snprintf(out, sizeof out, "%s/explore.json", f.cache);
    cr_expect_eq(atoms_with_values(a->paths_json, NULL), 0);
    cr_assert(gen_result_write_paths_with_values(a, out, &err), "%s", err.msg);
    json_t *first = NULL;
    int path_atoms = 0;
    for (int i = 0; i < a->npaths; i++) path_atoms += a->paths[i].natoms;
    cr_expect_gt(path_atoms, 4);
    cr_expect_eq(atoms_with_values(out, &first), path_atoms, "every path atom has its values");
    /* the first atom's values are the pool's first atom */
    wh_launch l = wh_launch_threads((unsigned)a->x);
    wh_image *img = wh_image_new(f.spec, &l, &err);
    cr_assert(img, "%s", err.msg);
    gen_pool_atom_to_image(&a->pool, 0, img);
    json_t *want = wh_image_inputs_json(img);
    cr_expect(first && json_equal(first, want), "the first atom's values are atom 0's");
    json_decref(want);
    json_decref(first);
    wh_image_free(img);
    gen_result *b = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(b, "%s", err.msg);
    cr_expect(b->from_cache);
    cr_expect_eq(b->npaths, a->npaths);
    cr_expect_eq(b->atoms_valid, a->atoms_valid);
    for (int i = 0; i < a->npaths && i < b->npaths; i++) {
        cr_expect_eq(b->paths[i].natoms, a->paths[i].natoms);
        cr_expect_eq(b->paths[i].nvalid, a->paths[i].nvalid);
    }
    gen_result_free(a);
    gen_result_free(b);
    close_fixture(&f);
}

/* A cache entry whose atoms.bin holds fewer atoms than its paths.json
 * names (here: another entry's, one model per path, no families) is refused and
 * the kernel explored again; used, the search would read past the pool. */
Test(explore, an_entry_whose_files_disagree_is_not_reused)
{
    fixture f;
    open_fixture(&f, "kernels/artificial.json");
    gen_explore_options o = quiet(&f);
    o.families = 0;   /* the pool: the paths' atoms only */
    wh_error err;
    gen_result *a = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(a, "%s", err.msg);
    o.models = 1;
    gen_result *one = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(one, "%s", err.msg);
    cr_assert_lt(one->pool.natoms, a->pool.natoms);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp '%s/%s/atoms.bin' '%s/%s/atoms.bin'", f.cache, one->cache_key, f.cache, a->cache_key);
    cr_assert_eq(system(cmd), 0);
    o.models = 4;
    gen_result *b = gen_explore(f.spec, f.mod, &o, &err);
    cr_assert(b, "%s", err.msg);
    cr_expect_not(b->from_cache, "the damaged entry is explored again");
    cr_expect_eq(b->pool.natoms, a->pool.natoms);
    gen_result_free(a);
    gen_result_free(one);
    gen_result_free(b);
    close_fixture(&f);
}

/* Three processes start the same exploration at once: one computes the
 * cache entry, the others wait for it and reuse it (without the entry's
 * lock each computed it and they raced to write its two files). */
Test(explore, concurrent_runs_compute_an_entry_once)
{
    fixture f;
    open_fixture(&f, "kernels/artificial.json");
    gen_explore_options o = quiet(&f);
    pid_t kids[3];
    for (int k = 0; k < 3; k++) {
        kids[k] = fork();
        cr_assert_geq(kids[k], 0);
        if (kids[k] == 0) {
            wh_error err;
            gen_result *r = gen_explore(f.spec, f.mod, &o, &err);
            _exit(!r ? 1 : r->from_cache ? 10 : 20);
        }
    }
    int computed = 0, reused = 0;
    for (int k = 0; k < 3; k++) {
        int st;
        cr_assert_eq(waitpid(kids[k], &st, 0), kids[k]);
        cr_assert(WIFEXITED(st));
        computed += WEXITSTATUS(st) == 20;
        reused += WEXITSTATUS(st) == 10;
    }
    cr_expect_eq(computed, 1, "one process computed the entry (%d did)", computed);
    cr_expect_eq(reused, 2, "the others reused it (%d did)", reused);
    close_fixture(&f);
}

/*
 * test_symexec_sound.c — the symbolic executor against the emulator.
 *
 * For every bundled kernel (the specs in kernels/) and every spec of the
 * test corpus (tests/specs/sim_NAME.json, sym_NAME.json) that the executor
 * supports,
 * explore a few paths at X threads, solve atoms (models of each path's
 * formula), replay every atom on the sim backend with the same X-thread
 * launch, and check that each thread takes the same branch decisions as
 * the path says, that the thread instructions equal the path's `instr`,
 * and that the warp instructions the sim issued equal the path's
 * `warp_instr`.  Paths through uninterpreted functions (.approx) are not
 * checked (the emulator computes a value the formula does not pin), nor
 * are cut and error paths.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "harness/harness.h"
#include "symexec/symexec.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_X 64
#define MAX_DEC 4096

typedef struct {
    int n[MAX_X];
    int func[MAX_X][MAX_DEC], block[MAX_X][MAX_DEC];
    bool taken[MAX_X][MAX_DEC];
    bool overflow;
} trace;

static void on_branch(void *ctx, uint64_t thread, int func, int block, bool taken)
{
    trace *tr = ctx;
    if (thread >= MAX_X || tr->n[thread] >= MAX_DEC) {
        tr->overflow = true;
        return;
    }
    int k = tr->n[thread]++;
    tr->func[thread][k] = func;
    tr->block[thread][k] = block;
    tr->taken[thread][k] = taken;
}

typedef struct {
    unsigned query_ms;       /* the search's per-check limit; 0: the default */
    int path_budget;         /* paths per exploration; 0: 5 (or SX_SOUND_PATHS) */
    int specs, unsupported, skipped_specs;
    int checked, skipped_paths, mismatches;
    long giveups, pinned, witnesses;   /* summed over the explorations */
    long screened, model_checks;   /* seed-1 atoms: pins kept without a check, and checks */
    char first[2048];
} tally;

static void mismatch(tally *t, const char *fmt, const char *spec, int path, uint64_t seed, const char *what)
{
    char msg[2048];
    snprintf(msg, sizeof msg, fmt, spec, path, (unsigned long long)seed, what);
    cr_log_info("soundness mismatch: %s", msg);
    if (t->mismatches++ == 0)
        snprintf(t->first, sizeof t->first, "%s", msg);
}

/* Compare the sim's decisions with the path's, thread by thread. */
static bool same_trace(const ptx_module *m, const sx_path *p, const trace *tr, char *why, size_t n)
{
    for (int t = 0; t < p->nthreads; t++) {
        if (tr->n[t] != p->ndecisions[t]) {
            snprintf(why, n, "thread %d: %d decisions in the sim, %d in the path", t, tr->n[t],
                     p->ndecisions[t]);
            return false;
        }
        for (int k = 0; k < tr->n[t]; k++) {
            const sx_decision *d = &p->decisions[t][k];
            int block = m->funcs[d->func].instrs[d->instr].block;
            if (tr->func[t][k] != d->func || tr->block[t][k] != block || tr->taken[t][k] != d->taken) {
                snprintf(why, n, "thread %d decision %d: sim (f%d b%d %c), path (f%d b%d %c, line %d)", t, k,
                         tr->func[t][k], tr->block[t][k], tr->taken[t][k] ? 'T' : 'F', d->func, block,
                         d->taken ? 'T' : 'F', d->line);
                return false;
            }
        }
    }
    return true;
}

/* The atom's values lie in their ranges, and its structures hold where the
 * stage assumes them: past SX_STRUCTURE_MAX elements it does not (its
 * atoms may break them; the search sorts what it measures). */
static bool atom_in_domain(const wh_image *atom, wh_error *err)
{
    wh_image *c = wh_image_clone(atom, err);
    bool ok = c != NULL;
    for (int p = 0; ok && p < c->nbufs; p++)
        if (!sx_structure_assumed(c, p)) ok = wh_image_restructure_buffer(c, p, err);
    ok = ok && wh_image_check_domains(c, err);
    wh_image_free(c);
    return ok;
}

static void check_path(const wh_spec *spec, const ptx_module *m, const sx_result *r, int i, harness *h,
                       trace *tr, tally *t)
{
    const sx_path *p = &r->paths[i];
    wh_error err;
    wh_error_clear(&err);
    wh_launch l = wh_launch_threads((unsigned)r->threads);
    wh_image *img = wh_image_new(spec, &l, &err);
    cr_assert(img, "%s: %s", spec->name, err.msg);
    for (uint64_t seed = 0; seed < 2; seed++) {
        cr_assert(sx_path_model(r, i, seed, img, &err), "%s path %d: %s", spec->name, i, err.msg);
        cr_assert(atom_in_domain(img, &err), "%s path %d: %s", spec->name, i, err.msg);
        memset(tr, 0, sizeof *tr);
        harness_result res;
        cr_assert(harness_measure(h, img, 1, &res, &err), "%s: %s", spec->name, err.msg);
        char why[1400];
        if (res.status != HARNESS_OK) {
            snprintf(why, sizeof why, "sim status %s: %s", harness_status_name(res.status), res.message);
            mismatch(t, "%s path %d seed %llu: %s", spec->name, i, seed, why);
        } else if (tr->overflow) {
            t->skipped_paths++;
        } else if (!same_trace(m, p, tr, why, sizeof why)) {
            mismatch(t, "%s path %d seed %llu: %s", spec->name, i, seed, why);
        } else if (res.lane_instructions != p->instr) {
            snprintf(why, sizeof why, "thread instructions: sim %llu, path %llu",
                     (unsigned long long)res.lane_instructions, (unsigned long long)p->instr);
            mismatch(t, "%s path %d seed %llu: %s", spec->name, i, seed, why);
        } else if (res.warp_instructions != p->warp_instr) {
            snprintf(why, sizeof why, "warp instructions: sim %llu, path %llu",
                     (unsigned long long)res.warp_instructions, (unsigned long long)p->warp_instr);
            mismatch(t, "%s path %d seed %llu: %s", spec->name, i, seed, why);
        } else {
            t->checked++;
        }
        harness_result_free(&res);
    }
    wh_image_free(img);
}

static void check_spec(const char *path, tally *t, int x)
{
    if (getenv("SX_SOUND_TRACE"))
        fprintf(stderr, "soundness: %s\n", path);
    wh_error err;
    wh_error_clear(&err);
    wh_spec *spec = wh_spec_load(path, &err);
    cr_assert(spec, "%s: %s", path, err.msg);
    char ptx[1024];
    ptx_module *m = NULL;
    if (!wh_spec_ptx_path(spec, ptx, sizeof ptx, &err) || !(m = ptx_parse_file(ptx, &err))) {
        t->skipped_specs++;
        wh_spec_free(spec);
        return;
    }
    sx_options o;
    sx_options_default(&o);
    o.threads = x > 0 ? x : spec->nsym_threads > 0 ? spec->sym_threads[0] : 2;
    if (getenv("SX_SOUND_X"))          /* debugging: another X */
        o.threads = atoi(getenv("SX_SOUND_X"));
    if (o.threads > MAX_X)
        o.threads = MAX_X;
    /* A path budget decides which paths are explored; the clock only caps
     * a spec whose paths are slow to finish (a few here: 3000-iteration
     * loops).  A solver check that outlives its limit under load is a
     * give-up, which adds the side it took to the path (or ends the path
     * as cut), so the verdict does not depend on the machine's load. */
    o.time_budget_s = 10;
    o.path_budget = getenv("SX_SOUND_PATHS") ? atoi(getenv("SX_SOUND_PATHS")) : t->path_budget ? t->path_budget : 5;
    if (t->query_ms)
        o.query_ms = t->query_ms;
    sx_result *r = sx_explore(spec, m, &o, &err);
    t->specs++;
    if (!r) {
        /* unsupported instructions, or a spec without an X-thread launch */
        cr_log_info("soundness: %s: not explored: %s", spec->name, err.msg);
        t->unsupported++;
        ptx_module_free(m);
        wh_spec_free(spec);
        return;
    }
    t->giveups += r->giveups;
    t->pinned += r->pinned;
    t->witnesses += r->witnesses;
    trace *tr = malloc(sizeof *tr);
    cr_assert(tr);
    harness_options ho;
    harness_options_init(&ho);
    ho.quiet = true;
    ho.on_branch = on_branch;
    ho.branch_ctx = tr;
    harness *h = harness_open(spec, HARNESS_SIM, &ho, &err);
    cr_assert(h, "%s: %s", spec->name, err.msg);
    for (int i = 0; i < r->npaths; i++) {
        if (r->paths[i].uf || r->paths[i].kind != SX_PATH_DONE) {
            t->skipped_paths++;
            continue;
        }
        check_path(spec, m, r, i, h, tr, t);
    }
    t->screened += r->pins_screened;
    t->model_checks += r->model_checks;
    harness_close(h);
    free(tr);
    sx_result_free(r);
    ptx_module_free(m);
    wh_spec_free(spec);
}

static void check_glob(const char *pattern, tally *t, int x)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0)
        return;
    const char *only = getenv("SX_SOUND_SPEC");   /* debugging: one spec */
    for (size_t i = 0; i < g.gl_pathc; i++)
        if (!strstr(g.gl_pathv[i], "sym_unsupported") && (!only || strstr(g.gl_pathv[i], only)))
            check_spec(g.gl_pathv[i], t, x);
    globfree(&g);
}

static void report(const char *what, const tally *t)
{
    cr_log_info("soundness (%s): %d specs, %d not explored, %d atoms replayed identically, "
                "%d paths skipped (uf/cut/error), %d mismatches", what, t->specs, t->unsupported,
                t->checked, t->skipped_paths, t->mismatches);
    cr_expect_eq(t->mismatches, 0, "%s: %d mismatches; first: %s", what, t->mismatches, t->first);
}

Test(symexec_sound, bundled_kernels_replay_on_the_sim, .timeout = 300)
{
    tally t = { 0 };
    check_glob("kernels/*.json", &t, 0);
    report("bundled", &t);
    cr_expect_gt(t.checked, 20);
    /* the seed-1 atoms replayed above kept pins on a witness, no check each */
    cr_expect_gt(t.screened, 0, "no pin was kept by screening (%ld model checks)", t.model_checks);
}

Test(symexec_sound, corpus_replays_on_the_sim, .timeout = 300)
{
    tally t = { 0 };
    check_glob("tests/specs/sim_*.json", &t, 0);
    check_glob("tests/specs/sym_*.json", &t, 0);
    report("corpus", &t);
    cr_expect_gt(t.checked, 40);
}

/* Warp collectives and block-wide barriers with a full warp of threads:
 * shfl/vote/match/redux/activemask, shared-memory reductions and scans. */
Test(symexec_sound, full_warp_kernels_replay_on_the_sim, .timeout = 300)
{
    static const char *const specs[] = {
        "tests/specs/sim_warp_shuffle.json", "tests/specs/sim_warp_vote.json",
        "tests/specs/sim_warp_match_reduce.json", "tests/specs/sim_reduce_shared.json",
        "tests/specs/sim_scan_shared.json", "tests/specs/sim_sync_variants.json",
    };
    tally t = { 0 };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        check_spec(specs[i], &t, 32);
    report("32 threads", &t);
    cr_expect_geq(t.checked, 12);
}

/* Checks the solver cannot answer (1 ms each here, so most of them on a
 * hash with multiplications) are give-ups: the branch keeps the side the
 * model took and says so in the path, so every finished path's atoms still
 * replay it. */
Test(symexec_sound, solver_give_ups_keep_atoms_on_their_paths, .timeout = 120)
{
    tally t = { .query_ms = 1 };
    check_spec("kernels/corpus/hash_insert.json", &t, 2);
    report("1 ms checks", &t);
    cr_expect_gt(t.giveups, 0, "no check gave up");
    cr_expect_gt(t.checked, 0, "no finished path to replay");
}

/* 1 ms per check on sssp_relax: the solver gives up and the states turn
 * concolic, yet sampled inputs show other sides of their branches
 * feasible; the paths they fork replay exactly on the sim (their formula
 * holds under the witness that is their model).  Run several times: which
 * checks time out depends on the machine, and before the solver's answers
 * stopped being trusted after a timeout ("trust" in symexec/solver.c), 14
 * explorations in 20 had a path that lost its constraints. */
Test(symexec_sound, witness_forks_keep_atoms_on_their_paths, .timeout = 120)
{
    tally t = { .query_ms = 1 };
    for (int run = 0; run < 6; run++)
        check_spec("kernels/corpus/sssp_relax.json", &t, 2);
    report("witness forks", &t);
    cr_expect_gt(t.giveups, 0, "no check gave up");
    cr_expect_gt(t.witnesses, 0, "no side was shown feasible by a sampled input");
    cr_expect_gt(t.checked, 1, "paths beyond the one the model follows");
}

/* 1 ms per check on binary_search: the bound checks of its loads at
 * symbolic indices give up, and those loads are pinned to the model's
 * address (the equality joining the path) rather than ending their paths
 * as cut; every finished path's atoms replay. */
Test(symexec_sound, address_give_ups_pin_rather_than_cut, .timeout = 120)
{
    wh_error err;
    wh_error_clear(&err);
    wh_spec *spec = wh_spec_load("kernels/corpus/binary_search.json", &err);
    cr_assert(spec, "%s", err.msg);
    char ptx[1024];
    ptx_module *m = NULL;
    if (!wh_spec_ptx_path(spec, ptx, sizeof ptx, &err) || !(m = ptx_parse_file(ptx, &err))) {
        wh_spec_free(spec);
        cr_skip_test("binary_search's PTX is not built: %s", err.msg);
    }
    sx_options o;
    sx_options_default(&o);
    o.threads = 2;
    o.time_budget_s = 10;
    o.path_budget = 5;
    o.query_ms = 1;
    sx_result *r = sx_explore(spec, m, &o, &err);
    cr_assert(r, "%s", err.msg);
    int pinned = 0, cut = 0;
    for (int i = 0; i < r->npaths; i++) {
        const char *note = r->paths[i].note ? r->paths[i].note : "";
        pinned += strstr(note, "solver gave up on the bounds of an address") != NULL;
        cut += strstr(note, "the path ends there") != NULL;
    }
    /* which check gives up first depends on the machine: a branch's makes
     * the state concolic, which pins its addresses without asking */
    cr_log_info("address give-ups: %d of %d paths went on past one", pinned, r->npaths);
    cr_expect_gt(r->giveups, 0, "no check gave up");
    cr_expect_eq(cut, 0, "%d paths ended at a give-up", cut);
    sx_result_free(r);
    ptx_module_free(m);
    wh_spec_free(spec);
    tally t = { .query_ms = 1 };
    check_spec("kernels/corpus/binary_search.json", &t, 2);
    report("address give-ups", &t);
}

/* A loop of 1500 atomics at symbolic shared-memory offsets per thread: past
 * SX_SYMBOLIC_STORES_MAX per region the offsets are pinned to the model's
 * values, the exploration ends within its budget, and its atoms replay. */
Test(symexec_sound, pinned_store_offsets_keep_atoms_on_their_paths, .timeout = 120)
{
    tally t = { 0 };
    check_spec("tests/specs/sim_histogram_shared.json", &t, 2);
    report("pinned stores", &t);
    cr_expect_eq(t.unsupported, 0, "the exploration failed");
    cr_expect_gt(t.pinned, 0, "no store was pinned");
}

/* Tables larger than SX_ARRAY_REGION_MAX read at symbolic offsets (a
 * binary search's fixed keys, a hash table's probes) are pinned, not made
 * Z3 arrays: paths come within the budget (none in 10 s before) and their
 * atoms replay. */
Test(symexec_sound, large_tables_are_pinned_and_replay, .timeout = 120)
{
    tally t = { 0 };
    check_spec("kernels/corpus/binary_search.json", &t, 2);
    check_spec("kernels/corpus/hash_lookup.json", &t, 2);
    report("large tables", &t);
    cr_expect_eq(t.unsupported, 0, "an exploration failed");
    cr_expect_gt(t.pinned, 0, "no access was pinned");
    cr_expect_geq(t.checked, 8, "%d atoms replayed", t.checked);
}

/* Threads of one warp racing for hash slots with atomicCAS: which thread
 * wins a slot decides every later probe.  The emulator applies a warp
 * instruction's atomics in lane order; the executor runs each atomic for
 * the warp's threads stopped there in that order too, so the paths in
 * which a later thread loses a slot to an earlier one in the same round,
 * or wins one an earlier thread probes next, replay.  Before, the executor
 * ran thread 0's whole probe loop before thread 1's: of gt_hash's 13 paths
 * at X = 3, one had keys the sim sent another way. */
Test(symexec_sound, atomics_race_in_lane_order, .timeout = 120)
{
    tally t = { .path_budget = 40 };
    check_spec("kernels/gt_hash.json", &t, 3);
    check_spec("kernels/gt_hash.json", &t, 4);
    report("CAS races", &t);
    cr_expect_eq(t.unsupported, 0, "an exploration failed");
    cr_expect_geq(t.checked, 40, "%d atoms replayed", t.checked);
}

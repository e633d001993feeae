/*
 * test_locations.c — the sim's location counters (harness_options
 * .want_locations), the feedback of the GA's archive: on ground-truth
 * kernels the counters measure what their headers say (a loop body's
 * lanes follow the trip counts, same-address atomics wait, a scattered
 * gather costs a sector per lane), locations are named by their PTX line,
 * a measurement without them has none, they can be switched off and on
 * between runs (gdivan's scout), the busiest thread is the one
 * with the longest loop, and a hunt records its archive and its lane
 * amplification.
 */
#include <criterion/criterion.h>

#include "core/image.h"
#include "ga/hunt.h"
#include "harness/harness.h"
#include "tests/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void need_ptx(const char *ptx)
{
    if (access(ptx, R_OK) != 0) cr_skip_test("PTX not built (%s): run `make ptx`", ptx);
}

/* A sim harness of the spec at spec_path (in *s), counting locations
 * when `want`. */
static harness *open_sim(const char *spec_path, bool want, wh_spec **s)
{
    wh_error err;
    *s = wh_spec_load(spec_path, &err);
    cr_assert(*s, "%s", err.msg);
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.want_locations = want;
    harness *h = harness_open(*s, HARNESS_SIM, &o, &err);
    cr_assert(h, "%s", err.msg);
    return h;
}

/* One measurement with location counters of the spec's image of
 * pattern `value` (first input buffer); the caller frees res. */
static void measure(const char *spec_path, int64_t (*value)(uint64_t), bool want, harness_result *res, int *nloc)
{
    wh_error err;
    wh_spec *s;
    harness *h = open_sim(spec_path, want, &s);
    *nloc = harness_locations(h);
    wh_image *img = ts_pattern_image(s, value);
    cr_assert(harness_measure(h, img, 1, res, &err), "%s", err.msg);
    cr_assert_eq(res->status, HARNESS_OK, "%s", res->message);
    wh_image_free(img);
    harness_close(h);
    wh_spec_free(s);
}

/* The largest counter of one kind, and where. */
static double top(const harness_result *r, harness_location_kind kind, int *where)
{
    double best = -1;
    for (int l = kind; l < r->nlocations; l += HARNESS_LOCATION_KINDS)
        if (r->locations[l] > best) best = r->locations[l], *where = l;
    return best;
}

static int64_t trips_64(uint64_t i) { (void)i; return 64; }
static int64_t trips_32(uint64_t i) { (void)i; return 32; }

Test(locations, a_loop_body_counts_the_lanes_of_every_trip_on_gt_loop)
{
    need_ptx("build/ptx/kernels/gt_loop.ptx");
    harness_result a, b;
    int na, nb, where = -1;
    measure("tests/specs/hunt_loop_small.json", trips_64, true, &a, &na);
    measure("tests/specs/hunt_loop_small.json", trips_32, true, &b, &nb);
    cr_assert_gt(na, 0);
    cr_assert_eq(na % HARNESS_LOCATION_KINDS, 0);
    cr_assert_eq(a.nlocations, na);
    /* 256 threads: a body instruction runs 64 x 256 lanes, then 32 x 256 */
    bool body = false;
    for (int l = HARNESS_LOCATION_LANES; l < na; l += HARNESS_LOCATION_KINDS) {
        body |= a.locations[l] == 64 * 256 && b.locations[l] == 32 * 256;
        cr_expect_leq(a.locations[l], 65 * 256, "location %d: %g lanes", l, a.locations[l]);
    }
    cr_expect(body, "a loop-body instruction counts every lane of every trip");
    cr_expect_eq(top(&a, HARNESS_LOCATION_ATOMIC_WAIT, &where), 0, "no atomics");
    harness_result_free(&a);
    harness_result_free(&b);
}

static int64_t one_long_thread(uint64_t i) { return i == 137 ? 64 : 3; }

/* The busiest thread: gt_loop's trip count is its own n, so the thread
 * given 64 is active for the most instructions; with every thread alike, the
 * first one; without counters, none. */
Test(locations, the_busiest_thread_is_the_one_with_the_longest_loop_on_gt_loop)
{
    need_ptx("build/ptx/kernels/gt_loop.ptx");
    harness_result one, even, off;
    int n;
    measure("tests/specs/hunt_loop_small.json", one_long_thread, true, &one, &n);
    measure("tests/specs/hunt_loop_small.json", trips_32, true, &even, &n);
    measure("tests/specs/hunt_loop_small.json", trips_64, false, &off, &n);
    cr_expect_eq(one.busiest_thread, 137);
    cr_expect_eq(even.busiest_thread, 0, "ties: the first thread");
    /* 61 more trips than any other thread, a few instructions each */
    cr_expect_gt(one.busiest_work, even.busiest_work, "64 trips %llu, 32 trips %llu",
                 (unsigned long long)one.busiest_work, (unsigned long long)even.busiest_work);
    /* 256 threads alike: each does about 1/256 of the launch's lane work */
    double share = (double)even.busiest_work * 256 / (double)even.lane_instructions;
    cr_expect(share > 0.9 && share <= 1.0, "a thread's share of the lane work x 256: %g", share);
    cr_expect_eq(off.busiest_thread, -1);
    cr_expect_eq(off.busiest_work, 0);
    harness_result_free(&one);
    harness_result_free(&even);
    harness_result_free(&off);
}

static int64_t all_7(uint64_t i) { (void)i; return 7; }
static int64_t tid(uint64_t i) { return (int64_t)i; }
static int64_t tid_mod(uint64_t i) { return (int64_t)(i % 1000); }

Test(locations, same_address_atomics_wait_on_artificial)
{
    need_ptx("build/ptx/kernels/artificial.ptx");
    harness_result one, spread;
    int n, where = -1, where_spread = -1;
    measure("kernels/artificial.json", all_7, true, &one, &n);
    measure("kernels/artificial.json", tid_mod, true, &spread, &n);
    double wait = top(&one, HARNESS_LOCATION_ATOMIC_WAIT, &where);
    double spread_wait = top(&spread, HARNESS_LOCATION_ATOMIC_WAIT, &where_spread);
    cr_expect_gt(wait, 100 * spread_wait + 1, "atomic wait %g against %g", wait, spread_wait);
    /* the location is named by its line and instruction */
    wh_error err;
    wh_spec *s = wh_spec_load("kernels/artificial.json", &err);
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    harness *h = harness_open(s, HARNESS_SIM, &o, &err);
    cr_assert(h, "%s", err.msg);
    char name[256];
    cr_assert(harness_location_name(h, where, name, sizeof name));
    cr_expect(strstr(name, "artificial.ptx:") && strstr(name, "atom") && strstr(name, "(atomic wait)"), "%s", name);
    cr_expect_not(harness_location_name(h, harness_locations(h), name, sizeof name), "past the last");
    cr_expect_not(harness_location_name(h, -1, name, sizeof name));
    harness_close(h);
    wh_spec_free(s);
    harness_result_free(&one);
    harness_result_free(&spread);
}

static int64_t stride8(uint64_t i) { return (int64_t)(8 * i); }

Test(locations, a_scattered_gather_costs_a_sector_per_lane_on_gt_gather)
{
    need_ptx("build/ptx/kernels/gt_gather.ptx");
    harness_result far, near;
    int n, w1 = -1, w2 = -1;
    measure("tests/specs/hunt_gather_small.json", stride8, true, &far, &n);
    measure("tests/specs/hunt_gather_small.json", tid, true, &near, &n);
    double a = top(&far, HARNESS_LOCATION_MEMORY, &w1), b = top(&near, HARNESS_LOCATION_MEMORY, &w2);
    /* 32 sectors a request against 4 for consecutive indices */
    cr_expect_geq(a, 7 * b, "memory transactions %g against %g", a, b);
    harness_result_free(&far);
    harness_result_free(&near);
}

Test(locations, none_unless_asked)
{
    need_ptx("build/ptx/kernels/gt_loop.ptx");
    harness_result r;
    int n;
    measure("tests/specs/hunt_loop_small.json", trips_64, false, &r, &n);
    cr_expect_gt(n, 0, "the sim can count them");
    cr_expect_null(r.locations);
    cr_expect_eq(r.nlocations, 0);
    harness_result_free(&r);
}

/* gdivan's scout switches them off for its runs and back on for the
 * search's, on one harness: each run follows the latest setting. */
Test(locations, switched_off_and_on_between_runs)
{
    need_ptx("build/ptx/kernels/gt_loop.ptx");
    wh_error err;
    wh_spec *s;
    harness *h = open_sim("tests/specs/hunt_loop_small.json", true, &s);
    wh_image *img = ts_pattern_image(s, trips_64);
    harness_result on, off, again;
    cr_assert(harness_measure(h, img, 1, &on, &err), "%s", err.msg);
    cr_expect_eq(harness_set_want_locations(h, false), true, "gives the setting it replaces");
    cr_assert(harness_measure(h, img, 1, &off, &err), "%s", err.msg);
    cr_expect_eq(harness_set_want_locations(h, true), false);
    cr_assert(harness_measure(h, img, 1, &again, &err), "%s", err.msg);
    cr_expect_gt(on.nlocations, 0);
    cr_expect_null(off.locations, "switched off: no counters");
    cr_expect_eq(off.nlocations, 0);
    cr_expect_eq(again.nlocations, on.nlocations, "switched on again: counted");
    cr_expect_eq(off.cycles, on.cycles, "the counters do not change the time");
    harness_result_free(&on);
    harness_result_free(&off);
    harness_result_free(&again);
    wh_image_free(img);
    harness_close(h);
    wh_spec_free(s);
}

Test(locations, a_hunt_records_its_archive_and_lane_amplification)
{
    need_ptx("build/ptx/kernels/gt_paths32.ptx");
    wh_error err;
    wh_spec *s = wh_spec_load("tests/specs/hunt_paths_small.json", &err);
    cr_assert(s, "%s", err.msg);
    char base[64];
    snprintf(base, sizeof base, "/tmp/wh_loc_XXXXXX");
    cr_assert(mkdtemp(base));
    for (int on = 0; on < 2; on++) {
        hunt_options o;
        hunt_options_default(&o);
        cr_expect(o.location_feedback && o.lane_amplify && !o.lane_extend, "on by default, but the extension");
        o.location_feedback = on;
        o.lane_amplify = on;
        o.lane_extend = on;
        o.backend = HARNESS_SIM;
        o.strategy = GA_GDIVAN;
        o.ga.max_evals = 300;
        o.ga.patience = 0;
        o.quiet = true;
        o.explore.time_s = 5;
        o.results_base = base;
        hunt_summary r;
        cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
        char path[1200];
        snprintf(path, sizeof path, "%s/run.json", r.dir);
        json_t *doc = ts_load_json(path);
        json_t *arc = json_object_get(doc, "archive");
        cr_expect_eq(json_is_true(json_object_get(json_object_get(doc, "options"), "location_feedback")), on);
        long locations = (long)json_integer_value(json_object_get(arc, "locations"));
        long inputs = (long)json_integer_value(json_object_get(arc, "inputs"));
        long held = (long)json_integer_value(json_object_get(arc, "held"));
        cr_expect_eq(r.locations, locations, "the summary's counters %d, run.json's %ld", r.locations, locations);
        cr_expect_eq(r.archive_inputs, inputs);
        cr_expect_eq(r.locations_held, held);
        if (on) {
            cr_expect_gt(locations, 0);
            cr_expect(inputs >= 1 && held >= inputs && held <= locations, "%ld inputs hold %ld of %ld", inputs, held,
                      locations);
            cr_expect_gt(json_integer_value(json_object_get(arc, "children")), 0);
            /* lane amplification: at least the first record's child, and the record's busiest thread */
            json_t *lanes = json_object_get(doc, "lane_amplify"), *busiest = json_object_get(lanes, "busiest");
            long children = (long)json_integer_value(json_object_get(lanes, "children"));
            long thread = (long)json_integer_value(json_object_get(busiest, "thread"));
            cr_expect_geq(children, 1);
            cr_expect_eq(r.lanes_amplified, children);
            cr_expect(thread >= 0 && thread < 256, "busiest thread %ld", thread);
            cr_expect_gt(json_number_value(json_object_get(busiest, "instructions")), 0);
            /* its extension: asked for each child until it stops */
            json_t *ext = json_object_get(lanes, "extension");
            long tries = (long)json_integer_value(json_object_get(ext, "tries"));
            long extended = (long)json_integer_value(json_object_get(ext, "extended"));
            cr_expect(tries >= 1 && tries <= children, "%ld tries for %ld children", tries, children);
            cr_expect(extended >= 0 && extended <= tries);
            cr_expect_eq(r.lanes_extended, extended);
        } else {
            cr_expect_eq(locations + inputs + held, 0);
            cr_expect_null(json_object_get(doc, "lane_amplify"));
            cr_expect_eq(r.lanes_amplified, -1);
        }
        json_decref(doc);
    }
    ts_rmtree(base);
    wh_spec_free(s);
}

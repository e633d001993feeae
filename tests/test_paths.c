/*
 * test_paths.c — distances that are a state of shortest-path relaxation
 * ("shortest_paths", core/image_paths.c): every state a worklist run of
 * Bellman-Ford passes through passes the check and is left as it is by
 * the projection; the projection of any image is such a state; a worked
 * example; each broken invariant named; the spec's refusals; and
 * sssp_relax, whose hand-built inputs are states as built and whose sweep
 * on the sim takes a state to a state.
 */
#include "core/image.h"
#include "harness/harness.h"
#include "kernels/corpus/corpus.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODES 8
#define SLOTS 32
#define UNREACHED 1000

/* deg, start (their running sum), edges, weights, frontier, dist: the
 * parameters 0..5. */
enum { DEG, START, EDGES, WEIGHTS, FRONTIER, DIST };
#define GRAPH_PARAMS                                                                                              \
    "{\"name\":\"deg\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"input\",\"range\":[0,4]},"      \
    "{\"name\":\"start\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"input\",\"range\":[0,32],"   \
    "\"prefix_sum_of\":\"deg\"},"                                                                                 \
    "{\"name\":\"edges\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":32,\"role\":\"input\",\"range\":[0,7]},"   \
    "{\"name\":\"weights\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":32,\"role\":\"input\",\"range\":[0,5]}," \
    "{\"name\":\"frontier\",\"kind\":\"buffer\",\"type\":\"u8\",\"count\":8,\"role\":\"input\",\"range\":[0,1]},"
#define DIST_PARAM                                                                                                \
    "{\"name\":\"dist\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"input\",\"range\":[0,1000],"   \
    "\"shortest_paths\":{\"rows\":\"start\",\"edges\":\"edges\",\"weights\":\"weights\",\"frontier\":\"frontier\"}}"

typedef ts_kernel graph;

static bool open_graph(graph *g, const char *params, wh_error *err)
{
    return ts_kernel_open(g, 8, params, err);
}

static void set_all(graph *g, int p, const int64_t *v, uint64_t n)
{
    cr_assert_eq(g->img->bufs[p].count, n);
    for (uint64_t e = 0; e < n; e++) wh_image_set_int(g->img, p, e, v[e]);
}

static void expect_all(const graph *g, int p, const int64_t *want, uint64_t n, const char *what)
{
    for (uint64_t e = 0; e < n; e++) {
        int64_t v = wh_image_int(g->img, p, e);
        cr_expect_eq(v, want[e], "%s: %s[%llu] is %lld, not %lld", what, g->img->bufs[p].param->name,
                     (unsigned long long)e, (long long)v, (long long)want[e]);
    }
}

/* A random graph: degrees 0..4, targets anywhere, weights 0..5 (0 often:
 * ties and zero-weight cycles). */
static void random_graph(graph *g, pcg32 *rng)
{
    wh_error err;
    for (uint64_t u = 0; u < NODES; u++) wh_image_set_int(g->img, DEG, u, pcg32_range_i64(rng, 0, 4));
    for (uint64_t e = 0; e < SLOTS; e++) {
        wh_image_set_int(g->img, EDGES, e, pcg32_range_i64(rng, 0, NODES - 1));
        wh_image_set_int(g->img, WEIGHTS, e, pcg32_range_i64(rng, 0, 3) == 0 ? 0 : pcg32_range_i64(rng, 1, 5));
    }
    cr_assert(wh_image_restructure_buffer(g->img, START, &err), "%s", err.msg);
}

/* The image's distances and frontier as a state to compare. */
typedef struct {
    int64_t dist[NODES], frontier[NODES];
} state;

static state state_of(const graph *g)
{
    state s;
    for (uint64_t v = 0; v < NODES; v++) {
        s.dist[v] = wh_image_int(g->img, DIST, v);
        s.frontier[v] = wh_image_int(g->img, FRONTIER, v);
    }
    return s;
}

static void put_state(graph *g, const state *s)
{
    set_all(g, DIST, s->dist, NODES);
    set_all(g, FRONTIER, s->frontier, NODES);
}

/* The image holds a state: the check passes and the projection keeps it. */
static void expect_fixed_point(graph *g, const char *what)
{
    wh_error err;
    state before = state_of(g);
    cr_expect(wh_image_check_structure(g->img, DIST, &err), "%s: %s", what, err.msg);
    cr_assert(wh_image_restructure_buffer(g->img, DIST, &err), "%s: %s", what, err.msg);
    expect_all(g, DIST, before.dist, NODES, what);
    expect_all(g, FRONTIER, before.frontier, NODES, what);
}

/* Node u leaves the worklist and relaxes its out-edges. */
static void relax_node(graph *g, state *s, uint64_t u)
{
    s->frontier[u] = 0;
    int64_t b = wh_image_int(g->img, START, u), n = wh_image_int(g->img, DEG, u);
    for (int64_t i = b; i < b + n; i++) {
        int64_t t = wh_image_int(g->img, EDGES, (uint64_t)i);
        int64_t alt = s->dist[u] + wh_image_int(g->img, WEIGHTS, (uint64_t)i);
        if (alt < s->dist[t]) {
            s->dist[t] = alt;
            s->frontier[t] = 1;
        }
    }
}

/* Bellman-Ford with a worklist, nodes taken in a random order, from a
 * random source: every state on the way is one the check accepts and the
 * projection keeps (zero-weight edges and cycles included). */
Test(paths, every_state_of_a_worklist_run_is_a_fixed_point)
{
    graph g;
    wh_error err;
    cr_assert(open_graph(&g, GRAPH_PARAMS DIST_PARAM, &err), "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 36, 1);
    int states = 0;
    for (int run = 0; run < 200; run++) {
        random_graph(&g, &rng);
        state s;
        for (int v = 0; v < NODES; v++) s.dist[v] = UNREACHED, s.frontier[v] = 0;
        uint64_t source = (uint64_t)pcg32_range_i64(&rng, 0, NODES - 1);
        s.dist[source] = 0;
        s.frontier[source] = 1;
        for (int step = 0; step < 40; step++) {
            char what[64];
            snprintf(what, sizeof what, "run %d, step %d", run, step);
            put_state(&g, &s);
            expect_fixed_point(&g, what);
            states++;
            uint64_t pick[NODES], n = 0;
            for (uint64_t v = 0; v < NODES; v++)
                if (s.frontier[v]) pick[n++] = v;
            if (n == 0) break;
            relax_node(&g, &s, pick[pcg32_range_i64(&rng, 0, (int64_t)n - 1)]);
        }
    }
    cr_expect_gt(states, 1000, "only %d states", states);
    ts_kernel_close(&g);
}

/* Any distances and frontier, brought to a state: the check accepts it,
 * and projecting again changes nothing. */
Test(paths, the_projection_of_any_image_is_a_state)
{
    graph g;
    wh_error err;
    cr_assert(open_graph(&g, GRAPH_PARAMS DIST_PARAM, &err), "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 36, 2);
    int reached = 0;
    for (int run = 0; run < 500; run++) {
        random_graph(&g, &rng);
        for (uint64_t v = 0; v < NODES; v++) {
            int64_t d = pcg32_range_i64(&rng, 0, 3) == 0 ? UNREACHED : pcg32_range_i64(&rng, 0, 30);
            wh_image_set_int(g.img, DIST, v, d);
            wh_image_set_int(g.img, FRONTIER, v, pcg32_range_i64(&rng, 0, 1));
        }
        cr_assert(wh_image_restructure_buffer(g.img, DIST, &err), "%s", err.msg);
        char what[32];
        snprintf(what, sizeof what, "random %d", run);
        expect_fixed_point(&g, what);
        for (uint64_t v = 0; v < NODES; v++) reached += wh_image_int(g.img, DIST, v) < UNREACHED;
    }
    cr_expect_gt(reached, 500 * 2, "the projections reach %d nodes in all", reached);
    ts_kernel_close(&g);
}

/* Edges 0->1 (4), 0->2 (1), 1->3 (2), 2->1 (1), 2->6 (5); node 2 and 7 in
 * the frontier.  The source is node 2 (the least distance); node 1 keeps
 * its 2 (above its in-edge's 1, set from 2 in the frontier); node 3 is
 * lowered to 4 by node 1, outside the frontier; node 6 is raised to 5
 * (no edge could set it lower); nodes 0 and 7 are reached by nothing:
 * unreached, and 7 leaves the frontier. */
static void worked_example(graph *g)
{
    const int64_t deg[8] = { 2, 1, 2, 0, 0, 0, 0, 0 };
    const int64_t edges[5] = { 1, 2, 3, 1, 6 }, weights[5] = { 4, 1, 2, 1, 5 };
    const int64_t dist[8] = { 3, 2, 0, 9, 1000, 1000, 1, 5 }, frontier[8] = { 0, 0, 1, 0, 0, 0, 0, 1 };
    wh_error err;
    set_all(g, DEG, deg, 8);
    for (uint64_t e = 0; e < 5; e++) {
        wh_image_set_int(g->img, EDGES, e, edges[e]);
        wh_image_set_int(g->img, WEIGHTS, e, weights[e]);
    }
    cr_assert(wh_image_restructure_buffer(g->img, START, &err), "%s", err.msg);
    set_all(g, DIST, dist, 8);
    set_all(g, FRONTIER, frontier, 8);
}

Test(paths, a_worked_example)
{
    graph g;
    wh_error err;
    cr_assert(open_graph(&g, GRAPH_PARAMS DIST_PARAM, &err), "%s", err.msg);
    worked_example(&g);
    cr_expect_not(wh_image_check_structure(g.img, DIST, &err));
    cr_assert(wh_image_restructure_buffer(g.img, DIST, &err), "%s", err.msg);
    const int64_t want[8] = { 1000, 2, 0, 4, 1000, 1000, 5, 1000 }, want_frontier[8] = { 0, 0, 1, 0, 0, 0, 0, 0 };
    expect_all(&g, DIST, want, 8, "projected");
    expect_all(&g, FRONTIER, want_frontier, 8, "projected");
    cr_expect(wh_image_check_structure(g.img, DIST, &err), "%s", err.msg);
    ts_kernel_close(&g);
}

/* One broken invariant at a time, each named. */
static void expect_broken(graph *g, int p, uint64_t e, int64_t v, const char *msg)
{
    wh_error err;
    state keep = state_of(g);
    wh_image_set_int(g->img, p, e, v);
    cr_expect_not(wh_image_check_structure(g->img, DIST, &err), "%s[%llu] = %lld passes",
                  g->img->bufs[p].param->name, (unsigned long long)e, (long long)v);
    cr_expect(strstr(err.msg, msg), "%s", err.msg);
    cr_expect_str_eq(err.path, "$.params[5].shortest_paths");
    put_state(g, &keep);
}

Test(paths, the_check_names_what_is_broken)
{
    graph g;
    wh_error err;
    cr_assert(open_graph(&g, GRAPH_PARAMS DIST_PARAM, &err), "%s", err.msg);
    worked_example(&g);
    cr_assert(wh_image_restructure_buffer(g.img, DIST, &err), "%s", err.msg);
    expect_broken(&g, DIST, 3, 5, "node 1 (distance 2) is outside the frontier, yet its edge 2 to node 3 would "
                                  "lower that node's 5 to 4");
    expect_broken(&g, FRONTIER, 0, 1, "node 0 is in the frontier but not reached");
    expect_broken(&g, DIST, 6, 3, "node 6's distance 3 is reached from the source (node 2) through no edges");
    expect_broken(&g, DIST, 2, 1, "no node is at 0, the range's low end");
    cr_expect(wh_image_check_structure(g.img, DIST, &err), "%s", err.msg);
    ts_kernel_close(&g);
}

/* A BFS: no weights, every edge 1; and no frontier buffer: every reached
 * node has relaxed its edges (the converged distances). */
Test(paths, unit_weights_and_no_frontier_give_bfs_levels)
{
    graph g;
    wh_error err;
    cr_assert(open_graph(&g, GRAPH_PARAMS
                         "{\"name\":\"dist\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"input\","
                         "\"range\":[0,1000],\"shortest_paths\":{\"rows\":\"start\",\"edges\":\"edges\"}}",
                         &err), "%s", err.msg);
    worked_example(&g);
    cr_assert(wh_image_restructure_buffer(g.img, DIST, &err), "%s", err.msg);
    /* node 2 (source) -> 1, 6 at level 1; 1 -> 3 at level 2 */
    const int64_t want[8] = { 1000, 1, 0, 2, 1000, 1000, 1, 1000 };
    expect_all(&g, DIST, want, 8, "levels");
    cr_expect(wh_image_check_structure(g.img, DIST, &err), "%s", err.msg);
    ts_kernel_close(&g);
}

static void expect_refused(const char *dist_param, const char *msg, const char *path)
{
    graph g;
    wh_error err;
    char params[2000];
    snprintf(params, sizeof params, "%s%s", GRAPH_PARAMS, dist_param);
    cr_expect_not(open_graph(&g, params, &err), "accepted: %s", dist_param);
    cr_expect(strstr(err.msg, msg), "%s", err.msg);
    cr_expect_str_eq(err.path, path);
    ts_kernel_close(&g);
}

#define DIST_HEAD "{\"name\":\"dist\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"input\","

Test(paths, the_spec_refuses_what_is_no_graph)
{
    expect_refused(DIST_HEAD "\"range\":[0,9],\"shortest_paths\":{\"rows\":\"start\"}}",
                   "missing \"edges\"", "$.params[5].shortest_paths");
    expect_refused(DIST_HEAD "\"range\":[0,9],\"shortest_paths\":{\"rows\":\"deg\",\"edges\":\"edges\"}}",
                   "is a running sum of degrees", "$.params[5].shortest_paths");
    expect_refused(DIST_HEAD "\"range\":[0,9],\"shortest_paths\":{\"rows\":\"start\",\"edges\":\"later\"}},"
                   "{\"name\":\"later\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":32,\"role\":\"input\"}",
                   "must come before \"dist\"", "$.params[5].shortest_paths.edges");
    expect_refused(DIST_HEAD "\"shortest_paths\":{\"rows\":\"start\",\"edges\":\"edges\"}}",
                   "with a range", "$.params[5].shortest_paths");
    expect_refused(DIST_HEAD "\"range\":[0,9],\"structure\":\"sorted\","
                   "\"shortest_paths\":{\"rows\":\"start\",\"edges\":\"edges\"}}",
                   "take no other structure", "$.params[5].shortest_paths");
    expect_refused(DIST_HEAD "\"range\":[0,\"9+i\"],\"shortest_paths\":{\"rows\":\"start\",\"edges\":\"edges\"}}",
                   "does not depend on i", "$.params[5].shortest_paths");
    expect_refused(DIST_HEAD "\"range\":[0,9],\"shortest_paths\":{\"rows\":\"start\",\"edges\":\"edges\","
                   "\"source\":0}}", "unknown key \"source\"", "$.params[5].shortest_paths");
    expect_refused(DIST_HEAD "\"range\":[0,9],\"shortest_paths\":{\"rows\":\"start\",\"edges\":\"edges\","
                   "\"frontier\":\"edges\"}}", "the frontier \"edges\" is the projection's to write",
                   "$.params[5].shortest_paths");
    expect_refused(DIST_HEAD "\"range\":[0,9],\"shortest_paths\":{\"rows\":\"start\",\"edges\":\"edges\","
                   "\"frontier\":\"deg\"}}", "the frontier \"deg\" is the projection's to write",
                   "$.params[5].shortest_paths");
    expect_refused(DIST_PARAM ",{\"name\":\"dist2\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,"
                   "\"role\":\"input\",\"range\":[0,9],\"shortest_paths\":{\"rows\":\"start\",\"edges\":\"edges\","
                   "\"frontier\":\"frontier\"}}", "the frontier \"frontier\" is the projection's to write",
                   "$.params[6].shortest_paths");
}

/* Ranges the projection cannot work with, said when an image is made. */
Test(paths, ranges_without_room_are_errors)
{
    graph g;
    wh_error err;
    cr_expect_not(open_graph(&g, GRAPH_PARAMS DIST_HEAD "\"range\":[5,5],"
                             "\"shortest_paths\":{\"rows\":\"start\",\"edges\":\"edges\"}}", &err));
    cr_expect(strstr(err.msg, "the range [5, 5] needs room"), "%s", err.msg);
    ts_kernel_close(&g);
    cr_expect_not(open_graph(&g,
                             "{\"name\":\"deg\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,\"role\":\"input\","
                             "\"range\":[0,4]},{\"name\":\"start\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":8,"
                             "\"role\":\"input\",\"range\":[0,32],\"prefix_sum_of\":\"deg\"},{\"name\":\"edges\","
                             "\"kind\":\"buffer\",\"type\":\"i32\",\"count\":32,\"role\":\"input\",\"range\":[0,7]},"
                             "{\"name\":\"weights\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":32,"
                             "\"role\":\"input\",\"range\":[-1,5]},{\"name\":\"frontier\",\"kind\":\"buffer\","
                             "\"type\":\"u8\",\"count\":8,\"role\":\"input\",\"range\":[0,1]}," DIST_PARAM, &err));
    cr_expect(strstr(err.msg, "the weights \"weights\" need a range without negative values"), "%s", err.msg);
    ts_kernel_close(&g);
}

/* sssp_relax: a random input is a state, and one sweep of the kernel on
 * the sim (dist lowered in place, next the nodes it lowered) takes it to
 * another: the invariants are the kernel's own. */
Test(paths, a_sweep_of_sssp_relax_takes_a_state_to_a_state, .timeout = 240)
{
    wh_error err;
    char ptx[512];
    wh_spec *spec;
    wh_image *img = ts_full_image("kernels/corpus/sssp_relax.json", &spec);
    if (!wh_spec_ptx_path(spec, ptx, sizeof ptx, &err)) {
        wh_image_free(img);
        wh_spec_free(spec);
        cr_skip_test("%s: run `make ptx`", err.msg);
    }
    int dist = wh_image_find(img, "dist"), frontier = wh_image_find(img, "frontier");
    int next = wh_image_find(img, "next");
    cr_assert(dist >= 0 && frontier >= 0 && next >= 0);
    pcg32 rng;
    pcg32_seed(&rng, 36, 3);
    cr_assert(wh_image_fill_random(img, &rng, &err), "%s", err.msg);
    cr_assert(wh_image_check_structure(img, dist, &err), "random: %s", err.msg);
    uint64_t active = 0, lowered = 0, n = img->bufs[dist].count;
    for (uint64_t v = 0; v < n; v++) active += wh_image_int(img, frontier, v) != 0;
    harness_options ho;
    harness_options_init(&ho);
    ho.quiet = true;
    ho.want_all_buffers = true;
    harness *h = harness_open(spec, HARNESS_SIM, &ho, &err);
    cr_assert(h, "%s", err.msg);
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
    cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
    harness_result_free(&r);
    harness_close(h);
    for (uint64_t v = 0; v < n; v++) {
        int64_t lowered_v = wh_image_int(img, next, v);
        lowered += lowered_v != 0;
        wh_image_set_int(img, frontier, v, lowered_v);
    }
    cr_expect(wh_image_check_structure(img, dist, &err), "after a sweep: %s", err.msg);
    cr_expect_gt(active, 100, "the random state's frontier has %llu nodes", (unsigned long long)active);
    cr_expect_gt(lowered, 0, "the sweep lowered no node");
    wh_image_free(img);
    wh_spec_free(spec);
}

/* sssp_relax's hand-built inputs are states as their builders make them
 * (only the running sum of degrees is left to the projection), so the
 * projection does not turn them into other inputs. */
Test(paths, sssp_relax_hand_inputs_are_states_as_built)
{
    wh_error err;
    wh_spec *spec;
    wh_image *img = ts_full_image("kernels/corpus/sssp_relax.json", &spec);
    const corpus_kernel *k = corpus_find("sssp_relax");
    cr_assert(k);
    int dist = wh_image_find(img, "dist"), start = wh_image_find(img, "row_start");
    for (int c = 0; c <= CORPUS_MAX_WORST; c++) {
        const corpus_input *in = c < CORPUS_MAX_WORST ? &k->worst[c] : &k->best;
        if (!in->build) continue;
        pcg32 rng;
        pcg32_seed(&rng, 1, 1);
        for (int p = 0; p < img->nbufs; p++)
            if (img->bufs[p].param->role == WH_ROLE_INPUT) cr_assert(wh_image_fill_low(img, p, &err), "%s", err.msg);
        cr_assert(in->build(img, &rng, &err), "%s: %s", in->name, err.msg);
        cr_assert(wh_image_restructure_buffer(img, start, &err), "%s", err.msg);
        cr_expect(wh_image_check_structure(img, dist, &err), "%s: %s", in->name, err.msg);
    }
    wh_image_free(img);
    wh_spec_free(spec);
}

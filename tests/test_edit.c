/*
 * test_edit.c — value edits: each operator does what its name says on the
 * run it names and nowhere else, written values stay in their element's
 * domain (index-dependent ones included), and codes decode
 * deterministically to every operator and every editable field, never a
 * pinned one; the contend edits write a relaxation's contention worst case
 * through an index buffer, and only the screen names them.
 */
#include <criterion/criterion.h>

#include "gen/gen.h"
#include "tests/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    wh_spec *spec;
    wh_image *img;
} fixture;

static fixture open_random(const char *path, uint64_t seed)
{
    fixture f;
    wh_error err;
    f.spec = wh_spec_load(path, &err);
    cr_assert(f.spec, "%s: %s", path, err.msg);
    wh_launch full = wh_spec_launch_full(f.spec);
    f.img = wh_image_new(f.spec, &full, &err);
    cr_assert(f.img, "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, seed, 7);
    cr_assert(wh_image_fill_random(f.img, &rng, &err), "%s", err.msg);
    return f;
}

static void close_fixture(fixture *f)
{
    wh_image_free(f->img);
    wh_spec_free(f->spec);
}

static int64_t get(const fixture *f, int p, int field, uint64_t e)
{
    const wh_param *par = &f->spec->params[p];
    return wh_value_get_int(par->fields[field].type, f->img->bufs[p].data + e * par->elem_size +
                                                         par->fields[field].offset);
}

static void apply(fixture *f, const char *param, int field, gen_edit_kind kind, uint64_t first, uint64_t count)
{
    gen_edit e = { kind, wh_image_find(f->img, param), field, first, count, 0, 0, 0, 0 };
    cr_assert_geq(e.param, 0, "%s", param);
    wh_error err;
    cr_assert(gen_edit_apply(&e, f->img, &err), "%s", err.msg);
    /* as gen_edits_apply does: running sums follow their summands */
    cr_assert(wh_image_restructure(f->img, &err), "%s", err.msg);
    cr_assert(wh_image_check_domains(f->img, &err), "after %s: %s", gen_edit_kind_name(kind), err.msg);
}

/* A copy of buffer p's int32 values, to compare against. */
static int32_t *snapshot(const fixture *f, int p)
{
    int32_t *v = malloc(f->img->bufs[p].bytes);
    memcpy(v, f->img->bufs[p].data, f->img->bufs[p].bytes);
    return v;
}

/* A graph of 64 nodes whose distances ("best") are free values: up to 4
 * of 16 edge slots per node ("to", "cost" beside it). */
/* A graph of 64 nodes, up to 4 of 16 edge slots per node ("start" the
 * running sum of "len", targets "to"), then `rest`: the parameters after
 * them. */
static fixture open_graph_with(char *dir, const char *rest)
{
    wh_error err;
    char json[2400];
    snprintf(json, sizeof json,
             "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[64],"
             "\"constants\":{\"N\":\"threads\"},\"params\":["
             "{\"name\":\"start\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"N\",\"role\":\"input\","
             "\"per_thread\":1,\"range\":[0,\"N*16\"],\"prefix_sum_of\":\"len\"},"
             "{\"name\":\"len\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"N\",\"role\":\"input\","
             "\"per_thread\":1,\"range\":[0,4]},"
             "{\"name\":\"to\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"N*16\",\"role\":\"input\","
             "\"per_thread\":16,\"range\":[0,\"N-1\"]},%s]}",
             rest);
    wh_spec *s = ts_temp_spec(json, dir, &err);
    cr_assert(s, "%s", err.msg);
    fixture f = { s, NULL };
    wh_launch full = wh_spec_launch_full(s);
    f.img = wh_image_new(s, &full, &err);
    cr_assert(f.img, "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 10, 7);
    cr_assert(wh_image_fill_random(f.img, &rng, &err), "%s", err.msg);
    return f;
}

/* The graph with distances ("best") that are free values and a cost
 * beside each edge. */
static fixture open_small_graph(char *dir)
{
    return open_graph_with(dir,
                           "{\"name\":\"cost\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"N*16\","
                           "\"role\":\"input\",\"per_thread\":16,\"range\":[0,1600]},"
                           "{\"name\":\"best\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"N\","
                           "\"role\":\"input\",\"per_thread\":1,\"range\":[0,1000000]}");
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The small graph (open_small_graph): 64 nodes; "to" has 16 slots per node
 * in [0, 63]; "best" in [0, 10^6]. */
Test(edit, fills_set_the_run_and_nothing_else)
{
    char dir[64];
    fixture f = open_small_graph(dir);
    int to = wh_image_find(f.img, "to"), best = wh_image_find(f.img, "best");
    int32_t *before = snapshot(&f, best);
    apply(&f, "to", 0, GEN_EDIT_FILL_COPY, 0, f.img->bufs[to].count);
    for (uint64_t e = 1; e < f.img->bufs[to].count; e++) cr_assert_eq(get(&f, to, 0, e), get(&f, to, 0, 0));
    apply(&f, "best", 0, GEN_EDIT_FILL_HIGH, 10, 20);
    apply(&f, "best", 0, GEN_EDIT_FILL_LOW, 40, 1);
    for (uint64_t e = 0; e < 64; e++) {
        int64_t want = e >= 10 && e < 30 ? 1000000 : e == 40 ? 0 : before[e];
        cr_assert_eq(get(&f, best, 0, e), want, "best[%llu]", (unsigned long long)e);
    }
    free(before);
    close_fixture(&f);
    ts_rmtree(dir);
}

Test(edit, sorts_and_reversal_permute_the_run)
{
    fixture f = open_random("kernels/corpus/sssp_relax.json", 2);
    int w = wh_image_find(f.img, "weights");
    int32_t *before = snapshot(&f, w);
    uint64_t first = 1000, n = 777;
    apply(&f, "weights", 0, GEN_EDIT_REVERSE, first, n);
    for (uint64_t k = 0; k < n; k++) cr_assert_eq(get(&f, w, 0, first + k), before[first + n - 1 - k]);
    apply(&f, "weights", 0, GEN_EDIT_SORT_UP, first, n);
    int32_t *sorted = malloc(n * 4);
    memcpy(sorted, before + first, n * 4);
    qsort(sorted, n, 4, cmp_i32);
    for (uint64_t k = 0; k < n; k++) cr_assert_eq(get(&f, w, 0, first + k), sorted[k]);
    apply(&f, "weights", 0, GEN_EDIT_SORT_DOWN, first, n);
    for (uint64_t k = 0; k < n; k++) cr_assert_eq(get(&f, w, 0, first + k), sorted[n - 1 - k]);
    cr_expect_eq(get(&f, w, 0, first - 1), before[first - 1]);
    cr_expect_eq(get(&f, w, 0, first + n), before[first + n]);
    free(sorted);
    free(before);
    close_fixture(&f);
}

Test(edit, ramps_are_distinct_and_saturate_at_the_domain)
{
    char dir[64];
    fixture f = open_small_graph(dir);
    int best = wh_image_find(f.img, "best"), len = wh_image_find(f.img, "len");
    apply(&f, "best", 0, GEN_EDIT_RAMP_DOWN, 0, 64);
    for (uint64_t u = 0; u < 64; u++) cr_assert_eq(get(&f, best, 0, u), 1000000 - (int64_t)u);
    apply(&f, "len", 0, GEN_EDIT_RAMP_UP, 0, 64);
    for (uint64_t u = 0; u < 64; u++) cr_assert_eq(get(&f, len, 0, u), u < 4 ? (int64_t)u : 4);
    close_fixture(&f);
    ts_rmtree(dir);
}

Test(edit, float_ramp_spans_the_domain)
{
    fixture f = open_random("kernels/corpus/cdf_search.json", 4);
    int cdf = wh_image_find(f.img, "CDF");
    apply(&f, "CDF", 0, GEN_EDIT_RAMP_UP, 0, 512);
    const float *v = (const float *)f.img->bufs[cdf].data;
    cr_expect_eq(v[0], 0.0f);
    cr_expect_eq(v[511], 1.0f);
    for (int k = 1; k < 512; k++) cr_assert_gt(v[k], v[k - 1]);
    close_fixture(&f);
}

/* cdf_search's CDF ends at 1 (its last element's range is [1, 1]): an
 * edit to the low end leaves it there. */
Test(edit, an_edit_keeps_each_element_in_its_own_range)
{
    fixture f = open_random("kernels/corpus/cdf_search.json", 4);
    int cdf = wh_image_find(f.img, "CDF");
    gen_edit e = { GEN_EDIT_FILL_LOW, cdf, 0, 0, 512, 0, 0, 0, 0 };
    wh_error err;
    /* the edit alone, before the projection (which would clamp it too) */
    cr_assert(gen_edit_apply(&e, f.img, &err), "%s", err.msg);
    const float *v = (const float *)f.img->bufs[cdf].data;
    for (int k = 0; k < 511; k++) cr_assert_eq(v[k], 0.0f, "CDF[%d] %g", k, v[k]);
    cr_expect_eq(v[511], 1.0f, "the last element at its own low end, 1");
    cr_expect(wh_image_check_domains(f.img, &err), "%s", err.msg);
    close_fixture(&f);
}

/* edges: each node owns 16 elements, a warp 512. */
Test(edit, warp_copy_gives_every_lane_the_first_lanes_elements)
{
    /* 8 edges a node, contiguous (sssp_relax's are owned by rows since
     * session 50: test_owner_rows.c) */
    fixture f = open_random("tests/specs/csr_sssp.json", 5);
    int edges = wh_image_find(f.img, "edges");
    int32_t *before = snapshot(&f, edges);
    apply(&f, "edges", 0, GEN_EDIT_WARP_COPY, 300, 10); /* inside the second warp */
    for (uint64_t e = 0; e < f.img->bufs[edges].count; e++) {
        bool second_warp = e >= 256 && e < 512;
        int64_t want = second_warp ? before[256 + e % 8] : before[e];
        cr_assert_eq(get(&f, edges, 0, e), want, "edges[%llu]", (unsigned long long)e);
    }
    free(before);
    close_fixture(&f);
}

/* bvh_traverse's nodes.left lies in [min(i+1, 20), 20]: a copied value is
 * clamped into each element's own domain. */
Test(edit, index_dependent_domains_clamp_per_element)
{
    fixture f = open_random("kernels/corpus/bvh_traverse.json", 6);
    int nodes = wh_image_find(f.img, "nodes");
    apply(&f, "nodes", 2, GEN_EDIT_FILL_LOW, 0, 21);
    for (uint64_t i = 0; i < 21; i++) cr_assert_eq(get(&f, nodes, 2, i), i + 1 < 20 ? (int64_t)i + 1 : 20);
    apply(&f, "nodes", 2, GEN_EDIT_RAMP_DOWN, 0, 21);
    apply(&f, "nodes", 2, GEN_EDIT_FILL_COPY, 0, 21);
    close_fixture(&f);
}

/* bvh_traverse's nodes are a "tree": the screen names tree-chain once per
 * child field that can link the chain (left, right) and tree-complete
 * once, all on the first child field; tree-chain linked through right is
 * the header's chain (internal nodes 0, 2, ..., 18, each with the leaf
 * before the next internal node, every leaf full), tree-complete the heap
 * order; both are trees, every other node a full leaf. */
Test(edit, tree_edits_build_a_chain_and_a_complete_tree)
{
    fixture f = open_random("kernels/corpus/bvh_traverse.json", 4);
    int nodes = wh_image_find(f.img, "nodes"), codes[400], groups[400], chains = 0, completes = 0;
    int chain_code = 0, complete_code = 0;
    int n = gen_edit_screen(f.img, false, codes, groups, 400);
    for (int i = 0; i < n; i++) {
        gen_edit e;
        gen_edit_decode(f.img, (uint32_t)codes[i], &e);
        if (e.kind != GEN_EDIT_TREE_CHAIN && e.kind != GEN_EDIT_TREE_COMPLETE) continue;
        cr_expect_eq(e.param, nodes);
        cr_expect_eq(e.field, f.spec->params[nodes].tree->children[0], "named on the first child field");
        if (e.kind == GEN_EDIT_TREE_CHAIN && e.slot == 1) chain_code = codes[i];
        if (e.kind == GEN_EDIT_TREE_COMPLETE) complete_code = codes[i];
        chains += e.kind == GEN_EDIT_TREE_CHAIN;
        completes += e.kind == GEN_EDIT_TREE_COMPLETE;
    }
    cr_expect_eq(chains, 2, "a chain per child field");
    cr_expect_eq(completes, 1);
    wh_error err;
    cr_assert(gen_edits_apply(&chain_code, 1, f.img, &err), "%s", err.msg);
    cr_expect(wh_image_check_structure(f.img, nodes, &err), "%s", err.msg);
    for (uint64_t i = 0; i < 21; i++) {
        bool internal = i % 2 == 0 && i < 20;
        cr_expect_eq(get(&f, nodes, 4, i), internal ? 0 : 3, "chain: node %llu's nitems", (unsigned long long)i);
        if (internal) {
            cr_expect_eq(get(&f, nodes, 2, i), (int64_t)i + 1, "chain: node %llu's left, a leaf", (unsigned long long)i);
            cr_expect_eq(get(&f, nodes, 3, i), (int64_t)i + 2, "chain: node %llu's right", (unsigned long long)i);
        }
    }
    cr_assert(gen_edits_apply(&complete_code, 1, f.img, &err), "%s", err.msg);
    cr_expect(wh_image_check_structure(f.img, nodes, &err), "%s", err.msg);
    for (uint64_t i = 0; i < 21; i++) {
        bool internal = 2 * i + 2 < 21;
        cr_expect_eq(get(&f, nodes, 4, i), internal ? 0 : 3, "complete: node %llu's nitems", (unsigned long long)i);
        if (internal) cr_expect_eq(get(&f, nodes, 3, i), (int64_t)(2 * i + 2), "complete: node %llu's right",
                                   (unsigned long long)i);
    }
    close_fixture(&f);
}

/* Codes decode the same way every time, reach every operator and every
 * editable field, never row_start (the running sum of degree, which the
 * projection recomputes), and any sequence of them keeps the image inside
 * its domains. */
Test(edit, codes_decode_to_every_operator_and_editable_field)
{
    fixture f = open_random("kernels/corpus/sssp_relax.json", 7);
    gen_edit e;
    gen_edit_decode(f.img, 0, &e);
    cr_expect_eq(e.kind, GEN_EDIT_NONE);
    bool kind_seen[GEN_EDIT_KINDS] = { false };
    bool param_seen[16] = { false };
    int codes[300];
    for (int c = 0; c < 300; c++) {
        codes[c] = 1 + c * 7919;
        gen_edit_decode(f.img, (uint32_t)codes[c], &e);
        gen_edit again;
        gen_edit_decode(f.img, (uint32_t)codes[c], &again);
        cr_assert(!memcmp(&e, &again, sizeof e), "code %d decodes twice the same", codes[c]);
        cr_assert_neq(e.kind, GEN_EDIT_NONE);
        cr_assert_lt(e.param, f.spec->nparams);
        cr_assert_eq(f.spec->params[e.param].role, WH_ROLE_INPUT);
        cr_assert_gt(e.count, 0);
        cr_assert_leq(e.first + e.count, f.img->bufs[e.param].count);
        kind_seen[e.kind] = true;
        param_seen[e.param] = true;
    }
    for (int k = 1; k < GEN_EDIT_RUN_KINDS; k++) cr_expect(kind_seen[k], "%s never drawn", gen_edit_kind_name(k));
    for (int k = GEN_EDIT_RUN_KINDS; k < GEN_EDIT_KINDS; k++)
        cr_expect_not(kind_seen[k], "%s is the screen's only", gen_edit_kind_name(k));
    for (int p = 0; p < f.spec->nparams; p++) {
        bool want = f.spec->params[p].role == WH_ROLE_INPUT && strcmp(f.spec->params[p].name, "row_start");
        cr_expect_eq(param_seen[p], want, "%s drawn: %d", f.spec->params[p].name, param_seen[p]);
    }
    wh_error err;
    cr_assert(gen_edits_apply(codes, 300, f.img, &err), "%s", err.msg);
    cr_expect(wh_image_check_domains(f.img, &err), "%s", err.msg);
    char text[200];
    gen_edit fill = { GEN_EDIT_FILL_COPY, wh_image_find(f.img, "edges"), 0, 0, 8, 0, 0, 0, 0 };
    gen_edit_describe(&fill, f.img, text, sizeof text);
    cr_expect_str_eq(text, "fill-copy edges[0..8)");
    close_fixture(&f);
}

/* The screen's codes: each (editable field, operator) pair once, on the
 * whole buffer, the domain extremes of every field before any other
 * operator, a field's codes in its own group; the contend kinds once per
 * index buffer into a field (edges, in [0, N - 1], into the N-element
 * degree, frontier and dist; nothing points into edges or weights), in
 * groups of their own; they decode apart from the
 * random codes (which never set bit 31), and a code naming a field or
 * operator that does not exist is no edit. */
Test(edit, screen_codes_name_every_operator_on_every_whole_field)
{
    fixture f = open_random("kernels/corpus/sssp_relax.json", 3);
    int codes[200], groups[200];
    int n = gen_edit_screen(f.img, false, codes, groups, 200);
    int nfields = 5; /* degree, edges, weights, frontier, dist (row_start is degree's running sum) */
    int pointed_into = 3, contend_kinds = 2;   /* contend-min, contend-max; no tree here */
    int summands = 1;                          /* degree's high skew, a second shape */
    cr_assert_eq(n, nfields * (GEN_EDIT_RUN_KINDS - 1) + summands + pointed_into * contend_kinds);
    int edges = wh_image_find(f.img, "edges"), degree = wh_image_find(f.img, "degree");
    bool seen[16][GEN_EDIT_KINDS][2] = { { { false } } };
    int field_of_group[16];
    for (int i = 0; i < n; i++) {
        cr_assert((uint32_t)codes[i] & GEN_EDIT_SCREEN_BIT, "code %d", i);
        gen_edit e;
        gen_edit_decode(f.img, (uint32_t)codes[i], &e);
        cr_assert_neq(e.kind, GEN_EDIT_NONE);
        cr_assert_eq(e.first, 0);
        if (e.kind >= GEN_EDIT_RUN_KINDS) {
            cr_expect_eq(e.index_param, edges, "contend codes index through edges");
            cr_expect_eq(e.count, f.img->bufs[edges].count, "the whole index buffer");
            cr_expect(e.param != edges && e.param != wh_image_find(f.img, "weights"), "nothing points into %s",
                      f.spec->params[e.param].name);
            cr_expect_geq(groups[i], nfields, "a group apart from the field's own");
            cr_expect_not(seen[e.param][e.kind][0], "pair drawn twice");
            seen[e.param][e.kind][0] = true;
            continue;
        }
        cr_assert_eq(e.count, f.img->bufs[e.param].count, "the whole buffer");
        cr_assert_lt(groups[i], nfields);
        if (i < nfields) field_of_group[groups[i]] = e.param;
        cr_expect_eq(field_of_group[groups[i]], e.param, "group %d is one field", groups[i]);
        int variant = e.kind == GEN_EDIT_SHAPE ? e.slot : 0;
        cr_assert(variant == 0 || (variant == 1 && e.param == degree), "a second shape on %s",
                  f.spec->params[e.param].name);
        cr_expect_not(seen[e.param][e.kind][variant], "pair drawn twice");
        seen[e.param][e.kind][variant] = true;
        if (e.kind == GEN_EDIT_SHAPE) {
            gen_shape s;
            gen_shape_of(&e, &s);
            cr_expect(variant ? s.family == GEN_SHAPE_SKEW && s.alpha == 1.0 / 16
                              : s.family == GEN_SHAPE_HEAVY_LANES && s.lanes == 1,
                      "shape %d on %s", variant, f.spec->params[e.param].name);
        }
        if (i < 2 * nfields)
            cr_expect(e.kind == (i < nfields ? GEN_EDIT_FILL_HIGH : GEN_EDIT_FILL_LOW), "extremes first: %d is %s", i,
                      gen_edit_kind_name(e.kind));
        cr_expect_neq(e.param, wh_image_find(f.img, "row_start"));
    }
    cr_expect(seen[degree][GEN_EDIT_SHAPE][1], "degree's high skew");
    /* a short screen keeps the extremes */
    cr_expect_eq(gen_edit_screen(f.img, false, codes, groups, 7), 7);
    gen_edit e;
    gen_edit_decode(f.img, (uint32_t)codes[6], &e);
    cr_expect_eq(e.kind, GEN_EDIT_FILL_LOW);
    /* out of range: field 5 does not exist, operator 0 and 15 are none,
     * edges has no index buffer into it, dist no second one */
    gen_edit_decode(f.img, GEN_EDIT_SCREEN_BIT | 5u << 4 | GEN_EDIT_FILL_LOW, &e);
    cr_expect_eq(e.kind, GEN_EDIT_NONE);
    gen_edit_decode(f.img, GEN_EDIT_SCREEN_BIT | 1u << 4, &e);
    cr_expect_eq(e.kind, GEN_EDIT_NONE);
    gen_edit_decode(f.img, GEN_EDIT_SCREEN_BIT | (uint32_t)GEN_ENDS_VARIANTS << 16 | 1u << 4 | GEN_EDIT_ENDS, &e);
    cr_expect_eq(e.kind, GEN_EDIT_NONE, "no fifth ends variant");
    gen_edit_decode(f.img, GEN_EDIT_SCREEN_BIT | 1u << 4 | GEN_EDIT_CONTEND_MIN, &e);
    cr_expect_eq(e.kind, GEN_EDIT_NONE);
    gen_edit_decode(f.img, GEN_EDIT_SCREEN_BIT | 4u << 4 | GEN_EDIT_CONTEND_MIN, &e);
    cr_expect_eq(e.kind, GEN_EDIT_CONTEND_MIN, "dist through edges");
    gen_edit_decode(f.img, GEN_EDIT_SCREEN_BIT | 1u << 16 | 4u << 4 | GEN_EDIT_CONTEND_MIN, &e);
    cr_expect_eq(e.kind, GEN_EDIT_NONE);
    gen_edit_decode(f.img, GEN_EDIT_SCREEN_BIT | 1u << 16 | 1u << 4 | GEN_EDIT_SHAPE, &e);
    cr_expect_eq(e.kind, GEN_EDIT_NONE, "edges are no running sum's summands: one shape");
    /* degree's high skew: most nodes near the top of [0, 16], not all at it */
    wh_error err;
    gen_edit_decode(f.img, GEN_EDIT_SCREEN_BIT | 1u << 16 | 0u << 4 | GEN_EDIT_SHAPE, &e);
    cr_assert_eq(e.kind, GEN_EDIT_SHAPE);
    cr_assert(gen_edit_apply(&e, f.img, &err), "%s", err.msg);
    uint64_t nodes = f.img->bufs[degree].count, below_top = 0;
    double mean = 0;
    for (uint64_t k = 0; k < nodes; k++) {
        int64_t v = get(&f, degree, 0, k);
        mean += (double)v / 16.0 / (double)nodes;
        below_top += v < 16;
    }
    cr_expect(mean > 0.85, "mean %.3f of the domain", mean);
    cr_expect(below_top > nodes / 10 && below_top < nodes, "%llu of %llu below the top", (unsigned long long)below_top,
              (unsigned long long)nodes);
    /* and applied, they keep the image inside its domains */
    cr_assert(gen_edits_apply(codes, 7, f.img, &err), "%s", err.msg);
    cr_expect(wh_image_check_domains(f.img, &err), "%s", err.msg);
    close_fixture(&f);
}

/* A shape code whose family is `family` and whose shape `fits` (NULL:
 * any), the first of 1, 2, ... */
static uint32_t shape_code_where(gen_shape_family family, bool (*fits)(const gen_shape *), gen_shape *s)
{
    for (uint32_t code = 1; code < 100000; code++) {
        gen_edit e = { GEN_EDIT_SHAPE, 0, 0, 0, 1, code, 0, 0, 0 };
        gen_shape_of(&e, s);
        if (s->family == family && (family != GEN_SHAPE_HUBS || s->share > 0.05) && (!fits || fits(s))) return code;
    }
    cr_assert_fail("no shape code of family %d fits among the first 100000", (int)family);
    return 0;
}

static uint32_t shape_code(gen_shape_family family, gen_shape *s)
{
    return shape_code_where(family, NULL, s);
}

/* alpha well away from 1 (uniform) on either side */
static bool skewed_low(const gen_shape *s) { return s->alpha > 2; }
static bool skewed_high(const gen_shape *s) { return s->alpha < 0.5; }

/* Shape edits: the screen's puts one lane of every warp at the top of the
 * domain and the rest at the bottom, and row starts follow; a heavy-lanes
 * code puts its lanes (evenly spaced from its offset) at the top; a skew
 * to either end spreads values with the mean its exponent gives
 * (E[u^a] = 1/(a+1)); hubs
 * put about their share at the top; each stays inside its run. */
/* The ends edit, screened only when asked: four variants per input field,
 * after every other code (the screen without them is a prefix), none on a
 * searched scalar.  On union_find_roots, below-high makes parent[v] in
 * [0, v] the chain v - 1 (the root 0 at 0) and one-high puts queries[0] at
 * the chain's tail N - 1 with every other query at the root: its author's
 * worst input, 16.0 M cycles, where fill-high makes every node a root (the
 * fastest).  above-low and one-low mirror them; on floats one step is the
 * next representable value, and a run that starts inside the buffer
 * leaves the elements before it alone. */
Test(edit, ends_step_in_from_a_domain_end_or_set_one_element_apart)
{
    fixture f = open_random("kernels/holdout/union_find_roots.json", 5);
    int without[200], with[200], groups[200];
    int n0 = gen_edit_screen(f.img, false, without, groups, 200), n1 = gen_edit_screen(f.img, true, with, groups, 200);
    cr_assert_eq(n1, n0 + 2 * GEN_ENDS_VARIANTS, "parent and queries; nq is a value: %d, %d", n0, n1);
    cr_expect(!memcmp(with, without, (size_t)n0 * sizeof *with), "the screen without ends is a prefix");
    int parent = wh_image_find(f.img, "parent"), queries = wh_image_find(f.img, "queries");
    uint64_t nodes = f.img->bufs[parent].count, threads = f.img->bufs[queries].count;
    int code[2][GEN_ENDS_VARIANTS] = { { 0 } };
    for (int i = n0; i < n1; i++) {
        gen_edit e;
        gen_edit_decode(f.img, (uint32_t)with[i], &e);
        cr_assert_eq(e.kind, GEN_EDIT_ENDS);
        cr_assert(e.param == parent || e.param == queries);
        cr_assert(e.first == 0 && e.count == f.img->bufs[e.param].count, "the whole buffer");
        code[e.param == queries][e.slot] = with[i];
    }
    wh_error err;
    cr_assert(gen_edits_apply(&code[0][GEN_ENDS_BELOW_HIGH], 1, f.img, &err), "%s", err.msg);
    cr_assert(gen_edits_apply(&code[1][GEN_ENDS_ONE_HIGH], 1, f.img, &err), "%s", err.msg);
    for (uint64_t v = 0; v < nodes; v++)
        cr_assert_eq(get(&f, parent, 0, v), v == 0 ? 0 : (int64_t)v - 1, "parent[%llu]", (unsigned long long)v);
    for (uint64_t t = 0; t < threads; t++)
        cr_assert_eq(get(&f, queries, 0, t), t == 0 ? (int64_t)nodes - 1 : 0, "queries[%llu]", (unsigned long long)t);
    cr_assert(gen_edits_apply(&code[0][GEN_ENDS_ABOVE_LOW], 1, f.img, &err), "%s", err.msg);
    cr_assert(gen_edits_apply(&code[1][GEN_ENDS_ONE_LOW], 1, f.img, &err), "%s", err.msg);
    for (uint64_t v = 0; v < nodes; v++)
        cr_assert_eq(get(&f, parent, 0, v), v == 0 ? 0 : 1, "parent[%llu]", (unsigned long long)v);
    for (uint64_t t = 0; t < threads; t++)
        cr_assert_eq(get(&f, queries, 0, t), t == 0 ? 0 : (int64_t)nodes - 1, "queries[%llu]", (unsigned long long)t);
    char text[200];
    gen_edit e;
    gen_edit_decode(f.img, (uint32_t)code[1][GEN_ENDS_ONE_HIGH], &e);
    gen_edit_describe(&e, f.img, text, sizeof text);
    cr_expect_str_eq(text, "one-high queries[0..16384)");
    close_fixture(&f);

    f = open_random("tests/specs/scalar_trip.json", 2);
    n0 = gen_edit_screen(f.img, false, without, groups, 200);
    n1 = gen_edit_screen(f.img, true, with, groups, 200);
    int n = wh_image_find(f.img, "n");
    for (int i = n0; i < n1; i++) {
        gen_edit_decode(f.img, (uint32_t)with[i], &e);
        cr_expect_neq(e.param, n, "no ends on a searched scalar");
    }
    close_fixture(&f);

    f = open_random("kernels/corpus/bvh_traverse.json", 2);
    int q = wh_image_find(f.img, "queries");
    const float *qv = (const float *)f.img->bufs[q].data;
    gen_edit below = { GEN_EDIT_ENDS, q, 0, 0, 64, 0, 0, 0, GEN_ENDS_BELOW_HIGH };
    cr_assert(gen_edit_apply(&below, f.img, &err), "%s", err.msg);
    for (int k = 0; k < 64; k++) cr_expect_eq(qv[k], nextafterf(1000.0f, 0.0f), "queries[%d] %.9g", k, qv[k]);
    gen_edit above = { GEN_EDIT_ENDS, q, 0, 0, 64, 0, 0, 0, GEN_ENDS_ABOVE_LOW };
    cr_assert(gen_edit_apply(&above, f.img, &err), "%s", err.msg);
    for (int k = 0; k < 64; k++) cr_expect_eq(qv[k], nextafterf(0.0f, 1.0f), "queries[%d] %.9g", k, qv[k]);
    gen_edit one_low = { GEN_EDIT_ENDS, q, 0, 8, 56, 0, 0, 0, GEN_ENDS_ONE_LOW };
    cr_assert(gen_edit_apply(&one_low, f.img, &err), "%s", err.msg);
    for (int k = 0; k < 64; k++)
        cr_expect_eq(qv[k], k < 8 ? nextafterf(0.0f, 1.0f) : k == 8 ? 0.0f : 1000.0f, "queries[%d] %.9g", k, qv[k]);
    close_fixture(&f);
}

/* The ends codes join a screen only whole: with one place too few for all
 * of them the screen is the one without them (cut short they would be the
 * first fields' only, and take every place a round leaves the search). */
Test(edit, ends_codes_join_only_when_all_of_them_fit)
{
    fixture f = open_random("kernels/holdout/union_find_roots.json", 5);
    int without[200], with[200], groups[200];
    int n0 = gen_edit_screen(f.img, false, without, groups, 200);
    int all = n0 + 2 * GEN_ENDS_VARIANTS;
    cr_expect_eq(gen_edit_screen(f.img, true, with, groups, all), all);
    cr_expect_eq(gen_edit_screen(f.img, true, with, groups, all - 1), n0, "none of them when one does not fit");
    cr_expect(!memcmp(with, without, (size_t)n0 * sizeof *with));
    close_fixture(&f);
}

/* A searched scalar (a knob) is on the screen with its two ends only, and
 * its fill-high sets it to its range's top: scalar_trip's trip count n,
 * whose top is the kernel's longest run.  Before, no edit touched a
 * scalar: a held-out kernel's gdivan kept its threshold at 8 of 16. */
Test(edit, a_searched_scalar_is_screened_at_its_ends)
{
    fixture f = open_random("tests/specs/scalar_trip.json", 2);
    int n = wh_image_find(f.img, "n"), codes[64], groups[64], ncodes = gen_edit_screen(f.img, false, codes, groups, 64);
    int on_scalar = 0;
    for (int i = 0; i < ncodes; i++) {
        gen_edit e;
        gen_edit_decode(f.img, (uint32_t)codes[i], &e);
        if (e.param != n) continue;
        on_scalar++;
        cr_expect(e.kind == GEN_EDIT_FILL_HIGH || e.kind == GEN_EDIT_FILL_LOW, "%s", gen_edit_kind_name(e.kind));
        wh_error err;
        cr_assert(gen_edit_apply(&e, f.img, &err), "%s", err.msg);
        cr_expect_eq(get(&f, n, 0, 0), e.kind == GEN_EDIT_FILL_HIGH ? 40 : 0);
    }
    cr_expect_eq(on_scalar, 2, "fill-high and fill-low");
    close_fixture(&f);
}

Test(edit, shapes_spread_values_as_their_family_says)
{
    fixture f = open_random("kernels/corpus/sssp_relax.json", 11);
    int degree = wh_image_find(f.img, "degree"), row_start = wh_image_find(f.img, "row_start");
    uint64_t n = f.img->bufs[degree].count;
    gen_edit screen = { GEN_EDIT_SHAPE, degree, 0, 0, n, 0, 0, 0, 0 };
    wh_error err;
    cr_assert(gen_edit_apply(&screen, f.img, &err), "%s", err.msg);
    cr_assert(wh_image_restructure(f.img, &err), "%s", err.msg);
    for (uint64_t e = 0; e < n; e++) {
        cr_assert_eq(get(&f, degree, 0, e), e % 32 == 0 ? 16 : 0, "node %llu", (unsigned long long)e);
        cr_assert_eq(get(&f, row_start, 0, e), (int64_t)((e + 31) / 32) * 16, "row start %llu", (unsigned long long)e);
    }
    char text[200];
    gen_edit_describe(&screen, f.img, text, sizeof text);
    cr_expect_str_eq(text, "shape(heavy-lanes, 1 per warp from lane 0) degree[0..16384)");

    gen_shape s;
    gen_edit lanes = { GEN_EDIT_SHAPE, degree, 0, 0, n, shape_code(GEN_SHAPE_HEAVY_LANES, &s), 0, 0, 0 };
    cr_assert(gen_edit_apply(&lanes, f.img, &err), "%s", err.msg);
    uint64_t spacing = 32 / (uint64_t)s.lanes;
    for (uint64_t e = 0; e < n; e++)
        cr_assert_eq(get(&f, degree, 0, e), (e % 32 + 32 - (uint64_t)s.offset) % 32 % spacing == 0 ? 16 : 0,
                     "%d lanes from %d: node %llu", s.lanes, s.offset, (unsigned long long)e);

    int weights = wh_image_find(f.img, "weights");
    uint64_t nw = f.img->bufs[weights].count;
    int32_t *before = snapshot(&f, weights);
    /* skewed to either end: most rows short, or most rows long but unequal */
    bool (*const skews[2])(const gen_shape *) = { skewed_low, skewed_high };
    for (int k = 0; k < 2; k++) {
        gen_edit skew = { GEN_EDIT_SHAPE, weights, 0, 1000, nw - 2000, shape_code_where(GEN_SHAPE_SKEW, skews[k], &s),
                          0, 0, 0 };
        cr_assert(gen_edit_apply(&skew, f.img, &err), "%s", err.msg);
        double mean = 0;
        for (uint64_t e = 1000; e < nw - 1000; e++) mean += (double)get(&f, weights, 0, e) / 262144.0;
        mean /= (double)(nw - 2000);
        cr_expect(mean > 1.0 / (s.alpha + 1) - 0.01 && mean < 1.0 / (s.alpha + 1) + 0.01, "alpha %.2f: mean %.4f",
                  s.alpha, mean);
        cr_expect(!memcmp(before, f.img->bufs[weights].data, 1000 * 4), "the run's outside is left alone");
        cr_expect(!memcmp(before + nw - 1000, (int32_t *)f.img->bufs[weights].data + nw - 1000, 1000 * 4));
    }
    free(before);

    gen_edit hubs = { GEN_EDIT_SHAPE, weights, 0, 0, nw, shape_code(GEN_SHAPE_HUBS, &s), 0, 0, 0 };
    cr_assert(gen_edit_apply(&hubs, f.img, &err), "%s", err.msg);
    uint64_t top = 0;
    for (uint64_t e = 0; e < nw; e++) {
        int64_t v = get(&f, weights, 0, e);
        cr_assert(v == 0 || v == 262144, "hubs are at an end: %lld", (long long)v);
        top += v == 262144;
    }
    cr_expect(fabs((double)top / (double)nw - s.share) < 0.01, "share %.3f: %.3f at the top", s.share,
              (double)top / (double)nw);
    cr_assert(wh_image_restructure(f.img, &err), "%s", err.msg);
    cr_expect(wh_image_check_domains(f.img, &err), "%s", err.msg);
    close_fixture(&f);
}

/* A shape over a whole 64-bit domain lands on its ends exactly (an
 * integer domain's width is no exact double; a double one's overflows),
 * and ramps and random values over such a double domain stay in it. */
Test(edit, a_shape_reaches_the_ends_of_a_64_bit_domain)
{
    char dir[64];
    wh_error err;
    wh_spec *s = ts_temp_spec("{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[64],\"params\":["
                              "{\"name\":\"u\",\"kind\":\"buffer\",\"type\":\"u64\",\"count\":64,\"role\":\"input\","
                              "\"per_thread\":1},"
                              "{\"name\":\"v\",\"kind\":\"buffer\",\"type\":\"i64\",\"count\":64,\"role\":\"input\","
                              "\"per_thread\":1},"
                              "{\"name\":\"w\",\"kind\":\"buffer\",\"type\":\"f64\",\"count\":64,\"role\":\"input\","
                              "\"per_thread\":1,\"range\":[-1.5e308,1.5e308]}]}",
                              dir, &err);
    cr_assert(s, "%s", err.msg);
    wh_launch full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(img, "%s", err.msg);
    for (int p = 0; p < 3; p++) {
        gen_edit e = { GEN_EDIT_SHAPE, p, 0, 0, 64, 0, 0, 0, 0 };
        cr_assert(gen_edit_apply(&e, img, &err), "%s", err.msg);
    }
    const uint64_t *u = (const uint64_t *)img->bufs[0].data;
    const int64_t *v = (const int64_t *)img->bufs[1].data;
    const double *w = (const double *)img->bufs[2].data;
    wh_bounds bu, bw;
    cr_assert(wh_image_bounds(img, 0, 0, 0, &bu, &err), "%s", err.msg);
    cr_assert(wh_image_bounds(img, 2, 0, 0, &bw, &err), "%s", err.msg);
    for (int k = 0; k < 64; k++) {
        cr_expect(w[k] == (k % 32 == 0 ? bw.fhi : bw.flo), "w[%d] %g", k, w[k]);
        cr_expect_eq(u[k], k % 32 == 0 ? (uint64_t)bu.hi : (uint64_t)bu.lo, "u[%d] %llu", k, (unsigned long long)u[k]);
        cr_expect_eq(v[k], k % 32 == 0 ? INT64_MAX : INT64_MIN, "v[%d] %lld", k, (long long)v[k]);
    }
    gen_edit up = { GEN_EDIT_RAMP_UP, 2, 0, 0, 64, 0, 0, 0, 0 };
    cr_assert(gen_edit_apply(&up, img, &err), "%s", err.msg);
    cr_expect(w[0] == bw.flo && w[63] == bw.fhi, "a ramp spans the domain: %g .. %g", w[0], w[63]);
    for (int k = 1; k < 64; k++) cr_expect(w[k] > w[k - 1], "w[%d] %g after %g", k, w[k], w[k - 1]);
    pcg32 rng;
    pcg32_seed(&rng, 3, 3);
    cr_assert(wh_image_fill_random(img, &rng, &err), "%s", err.msg);
    for (int k = 0; k < 64; k++) cr_expect(isfinite(w[k]), "a random value of the domain: %g", w[k]);
    cr_expect(wh_image_check_domains(img, &err), "%s", err.msg);
    wh_image_free(img);
    wh_spec_free(s);
    ts_rmtree(dir);
}

/* The screen's contend code of `kind` on buffer `name` (through its one
 * index buffer). */
static void apply_contend(fixture *f, const char *name, gen_edit_kind kind)
{
    int codes[200], groups[200], n = gen_edit_screen(f->img, false, codes, groups, 200);
    for (int i = 0; i < n; i++) {
        gen_edit e;
        gen_edit_decode(f->img, (uint32_t)codes[i], &e);
        if (e.kind == kind && e.param == wh_image_find(f->img, name)) {
            wh_error err;
            cr_assert(gen_edits_apply(&codes[i], 1, f->img, &err), "%s", err.msg);
            cr_assert(wh_image_check_domains(f->img, &err), "%s", err.msg);
            return;
        }
    }
    cr_assert_fail("no %s code on %s", gen_edit_kind_name(kind), name);
}

/* contend-min on sssp_relax's dist through edges is the header's known
 * worst up to the target and the source: every row full (degree 16, so
 * row_start[u] = 16 u), every edge into node 0 but each row's last, which
 * names the previous node (a chain from the source, node 16383, at 0,
 * with weight 0: dist is a relaxation state, "shortest_paths"), dist
 * falling with the node but node 0's at the top (unreached), the other
 * weights falling with the slot by 2^18 / 16, more than the distances'
 * span; the frontier full but for node 0, which nothing reaches.  On the
 * sim it is the header's input up to the weights' offset (74361 cycles)
 * and over 2.5 times a random input's time. */
Test(edit, contend_min_writes_the_relaxation_worst_case)
{
    fixture f = open_random("kernels/corpus/sssp_relax.json", 8);
    int edges = wh_image_find(f.img, "edges"), degree = wh_image_find(f.img, "degree");
    int rs = wh_image_find(f.img, "row_start"), dist = wh_image_find(f.img, "dist");
    int w = wh_image_find(f.img, "weights"), frontier = wh_image_find(f.img, "frontier");
    double random_time = ts_sim_time(f.spec, f.img);
    apply_contend(&f, "dist", GEN_EDIT_CONTEND_MIN);
    for (uint64_t e = 0; e < 262144; e++) {
        bool chain = e % 16 == 15 && e >= 16;
        int64_t want_w = chain ? 0 : 262144 - (int64_t)(e % 16) * 16384;
        cr_assert_eq(get(&f, edges, 0, e), chain ? (int64_t)(e / 16) - 1 : 0, "edges[%llu]", (unsigned long long)e);
        cr_assert_eq(get(&f, w, 0, e), want_w, "weights[%llu]", (unsigned long long)e);
    }
    for (uint64_t u = 0; u < 16384; u++) {
        cr_assert_eq(get(&f, degree, 0, u), 16);
        cr_assert_eq(get(&f, rs, 0, u), 16 * (int64_t)u);
        cr_assert_eq(get(&f, dist, 0, u), u == 0 ? 16777216 : 16383 - (int64_t)u, "dist[%llu]", (unsigned long long)u);
        cr_assert_eq(get(&f, frontier, 0, u), u != 0, "frontier[%llu]", (unsigned long long)u);
    }
    double t = ts_sim_time(f.spec, f.img);
    cr_expect(t > 0.999 * 74361 && t < 1.001 * 74361, "%g cycles", t);
    cr_expect_gt(t, 2.5 * random_time, "%g against a random input's %g", t, random_time);
    close_fixture(&f);
}

/* On BFS levels (a shortest-path state with every edge of weight 1, no
 * buffer beside the edges) contend-min lays the chain too: rows full,
 * every edge into node 0 but each row's last, into the previous node;
 * levels falling to 0 at node 63, the source; node 0 at the top,
 * unreached, and out of the frontier, which holds every other node.  The
 * projection keeps all of it: it is a state. */
Test(edit, contend_min_chains_bfs_levels)
{
    char dir[64];
    wh_error err;
    fixture f = open_graph_with(dir,
                                "{\"name\":\"frontier\",\"kind\":\"buffer\",\"type\":\"u8\",\"count\":\"N\","
                                "\"role\":\"input\",\"per_thread\":1,\"range\":[0,1]},"
                                "{\"name\":\"level\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"N\","
                                "\"role\":\"input\",\"per_thread\":1,\"range\":[0,1000],"
                                "\"shortest_paths\":{\"rows\":\"start\",\"edges\":\"to\",\"frontier\":\"frontier\"}}");
    apply_contend(&f, "level", GEN_EDIT_CONTEND_MIN);
    for (uint64_t u = 0; u < 64; u++) {
        cr_assert_eq(get(&f, 1, 0, u), 4, "len[%llu]", (unsigned long long)u);
        cr_assert_eq(get(&f, 3, 0, u), u > 0, "frontier[%llu]", (unsigned long long)u);
        cr_assert_eq(get(&f, 4, 0, u), u == 0 ? 1000 : 63 - (int64_t)u, "level[%llu]", (unsigned long long)u);
        for (uint64_t j = 0; j < 4; j++)
            cr_assert_eq(get(&f, 2, 0, 4 * u + j), j == 3 && u > 0 ? (int64_t)u - 1 : 0, "to[%llu]",
                         (unsigned long long)(4 * u + j));
    }
    cr_expect(wh_image_check_structure(f.img, 4, &err), "%s", err.msg);
    close_fixture(&f);
    ts_rmtree(dir);
}

/* contend-max mirrors it where the distances are free values (no chain):
 * node 0 at the bottom, the rest rising to the top, the weights rising
 * with the place in the row. */
Test(edit, contend_max_mirrors_it)
{
    char dir[64];
    fixture f = open_small_graph(dir);
    apply_contend(&f, "best", GEN_EDIT_CONTEND_MAX);
    for (uint64_t u = 0; u < 64; u++) {
        cr_assert_eq(get(&f, 4, 0, u), u == 0 ? 0 : 1000000 - 63 + (int64_t)u, "best[%llu]", (unsigned long long)u);
        for (int64_t j = 0; j < 4; j++) {
            cr_assert_eq(get(&f, 2, 0, 4 * u + (uint64_t)j), 0, "to[%llu]", (unsigned long long)(4 * u + j));
            cr_assert_eq(get(&f, 3, 0, 4 * u + (uint64_t)j), j * 100, "cost[%llu]", (unsigned long long)(4 * u + j));
        }
    }
    close_fixture(&f);
    ts_rmtree(dir);
}

/* Where the longest row is shorter than a thread's share (degree at most
 * 4 of 16 slots), a buffer beside the index buffer falls with the place in
 * its row, not with the owned index: row u is elements 4u .. 4u + 3. */
Test(edit, contend_follows_the_rows_a_running_sum_cuts)
{
    char dir[64];
    fixture f = open_small_graph(dir);
    apply_contend(&f, "best", GEN_EDIT_CONTEND_MIN);
    for (uint64_t u = 0; u < 64; u++) {
        cr_assert_eq(get(&f, 1, 0, u), 4, "len[%llu]", (unsigned long long)u);
        cr_assert_eq(get(&f, 0, 0, u), 4 * (int64_t)u);
        for (int64_t j = 0; j < 4; j++)
            cr_assert_eq(get(&f, 3, 0, 4 * u + (uint64_t)j), 1600 - j * 100, "cost[%llu]", (unsigned long long)(4 * u + j));
    }
    close_fixture(&f);
    ts_rmtree(dir);
}

/*
 * test_tree.c — input buffers that hold a tree ("tree": a node per element
 * of a struct buffer, children named by fields, a leaf by a field above
 * 0): the spec refuses what cannot be one, the projection makes any nodes
 * a tree and leaves a tree as it is, a node without a free child becomes a
 * leaf, a broken tree is named node by node, and the symbolic stage solves
 * only trees (bvh_traverse).
 */
#include <criterion/criterion.h>

#include "core/image.h"
#include "core/pcg32.h"
#include "core/spec.h"
#include "gen/explore.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fields of the nodes: left, right, leaf. */
enum { LEFT, RIGHT, LEAF };

typedef struct {
    char dir[64];
    wh_spec *spec;
    wh_image *img;
} nodes;

/* A spec of one struct input buffer of n nodes whose "tree" member is
 * `tree` (empty: none) and the leaf field's range [0, leaf_hi]; an image
 * of it when it loads. */
static bool open_nodes(nodes *b, int n, const char *tree, int leaf_hi, wh_error *err)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],"
             "\"constants\":{\"N\":%d},\"params\":[{\"name\":\"nodes\",\"kind\":\"buffer\",\"type\":\"struct\","
             "\"count\":\"N\",\"role\":\"input\"%s%s,\"fields\":["
             "{\"name\":\"left\",\"type\":\"i32\",\"range\":[\"min(i+1, N-1)\",\"N-1\"]},"
             "{\"name\":\"right\",\"type\":\"i32\",\"range\":[\"min(i+1, N-1)\",\"N-1\"]},"
             "{\"name\":\"leaf\",\"type\":\"i32\",\"range\":[0,%d]},"
             "{\"name\":\"w\",\"type\":\"f32\",\"range\":[0,1]}]}]}",
             n, *tree ? ",\"tree\":" : "", tree, leaf_hi);
    b->spec = ts_temp_spec_image(json, b->dir, &b->img, err);
    return b->img != NULL;
}

static void close_nodes(nodes *b)
{
    wh_image_free(b->img);
    wh_spec_free(b->spec);
    ts_rmtree(b->dir);
}

static const char *TREE = "{\"children\":[\"left\",\"right\"],\"leaf\":\"leaf\"}";

static int64_t get(const nodes *b, uint64_t e, int f)
{
    const wh_param *p = &b->spec->params[0];
    return wh_value_get_int(p->fields[f].type, b->img->bufs[0].data + e * p->elem_size + p->fields[f].offset);
}

static void set(nodes *b, uint64_t e, int f, int64_t v)
{
    const wh_param *p = &b->spec->params[0];
    wh_value_set_int(p->fields[f].type, b->img->bufs[0].data + e * p->elem_size + p->fields[f].offset, v);
}

/* Node e's (left, right, leaf). */
static void set_node(nodes *b, uint64_t e, int64_t left, int64_t right, int64_t leaf)
{
    set(b, e, LEFT, left);
    set(b, e, RIGHT, right);
    set(b, e, LEAF, leaf);
}

/* Is the buffer a tree, counted independently of image_tree.c: every
 * internal node's children after it and nobody's child twice. */
static bool is_tree(const nodes *b)
{
    uint64_t n = b->img->bufs[0].count;
    char *seen = calloc(n, 1);
    bool ok = seen != NULL;
    for (uint64_t e = 0; ok && e < n; e++) {
        if (get(b, e, LEAF) > 0) continue;
        for (int f = LEFT; ok && f <= RIGHT; f++) {
            int64_t c = get(b, e, f);
            ok = c > (int64_t)e && c < (int64_t)n && !seen[c];
            if (ok) seen[c] = 1;
        }
    }
    free(seen);
    return ok;
}

static void expect_refused(const char *tree, const char *msg)
{
    nodes b;
    wh_error err;
    cr_expect_not(open_nodes(&b, 8, tree, 3, &err), "%s was accepted", tree);
    cr_expect(strstr(err.msg, msg), "%s: %s", tree, err.msg);
    if (b.spec) wh_spec_free(b.spec);
    ts_rmtree(b.dir);
}

Test(tree, the_spec_says_what_a_tree_may_be)
{
    expect_refused("{\"children\":[\"left\",\"nope\"],\"leaf\":\"leaf\"}", "no field \"nope\"");
    expect_refused("{\"children\":[\"left\",\"w\"],\"leaf\":\"leaf\"}", "needs to be an integer field");
    expect_refused("{\"children\":[\"left\",\"right\"],\"leaf\":\"left\"}", "both a child and the leaf field");
    expect_refused("{\"children\":[],\"leaf\":\"leaf\"}", "expected 1 to 8 fields");
    expect_refused("{\"children\":[\"left\"]}", "expected the name of a field (a leaf above 0)");
    expect_refused("[\"left\"]", "expected { \"children\"");
}

/* Random nodes (the image's own random fill, which projects them) are a
 * tree; projecting one again changes nothing; without "tree" the same
 * draws share children. */
Test(tree, random_nodes_are_brought_to_a_tree_and_a_tree_stays_as_it_is)
{
    nodes b, plain;
    wh_error err;
    cr_assert(open_nodes(&b, 40, TREE, 2, &err), "%s", err.msg);
    cr_assert(open_nodes(&plain, 40, "", 2, &err), "%s", err.msg);
    size_t bytes = b.img->bufs[0].count * b.spec->params[0].elem_size;
    unsigned char *before = malloc(bytes);
    cr_assert(before);
    int dags = 0, leaves = 0;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        pcg32 rng;
        pcg32_seed(&rng, seed, 5);
        cr_assert(wh_image_fill_random(b.img, &rng, &err), "%s", err.msg);
        cr_expect(is_tree(&b), "seed %llu: a tree", (unsigned long long)seed);
        cr_expect(wh_image_check_structure(b.img, 0, &err), "seed %llu: %s", (unsigned long long)seed, err.msg);
        cr_expect(wh_image_check_domains(b.img, &err), "seed %llu: %s", (unsigned long long)seed, err.msg);
        memcpy(before, b.img->bufs[0].data, bytes);
        cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
        cr_expect_eq(memcmp(before, b.img->bufs[0].data, bytes), 0, "seed %llu: a tree is left as it is",
                     (unsigned long long)seed);
        for (uint64_t e = 0; e < 40; e++) leaves += get(&b, e, LEAF) > 0;
        pcg32_seed(&rng, seed, 5);
        cr_assert(wh_image_fill_random(plain.img, &rng, &err), "%s", err.msg);
        dags += !is_tree(&plain);
    }
    cr_expect_gt(dags, 40, "random nodes without \"tree\" are rarely a tree (%d of 50 were not)", dags);
    cr_log_info("%d leaves in 50 random trees of 40 nodes", leaves);
    free(before);
    close_nodes(&b);
    close_nodes(&plain);
}

/* The projection keeps the children a node names where it can, moves a
 * shared one to the nearest free node above it, and makes a node with no
 * free node left for a child a leaf. */
Test(tree, the_projection_moves_shared_children_and_makes_leaves)
{
    nodes b;
    wh_error err;
    cr_assert(open_nodes(&b, 6, TREE, 3, &err), "%s", err.msg);
    set_node(&b, 0, 1, 2, 0);
    set_node(&b, 1, 2, 3, 0);   /* 2 is node 0's: moves to the next free, 4 */
    set_node(&b, 2, 5, 5, 0);   /* 5 twice: the second moves, but nothing is free above 5: to 3? taken: a leaf */
    set_node(&b, 3, 4, 5, 2);   /* a leaf: its children are left as they are */
    set_node(&b, 4, 5, 5, 0);   /* nothing free after 4 but 5, twice needed: a leaf */
    set_node(&b, 5, 5, 5, 0);   /* the last node has no child after it: a leaf */
    cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
    const int64_t want[6][3] = { { 1, 2, 0 }, { 4, 3, 0 }, { 5, 5, 1 }, { 4, 5, 2 }, { 5, 5, 1 }, { 5, 5, 1 } };
    for (int e = 0; e < 6; e++)
        for (int f = LEFT; f <= LEAF; f++)
            cr_expect_eq(get(&b, (uint64_t)e, f), want[e][f], "node %d field %d is %lld, not %lld", e, f,
                         (long long)get(&b, (uint64_t)e, f), (long long)want[e][f]);
    cr_expect(is_tree(&b));
    close_nodes(&b);
}

/* A node named twice, and a link back, are named by the check. */
Test(tree, a_broken_tree_is_named)
{
    nodes b;
    wh_error err;
    cr_assert(open_nodes(&b, 6, TREE, 3, &err), "%s", err.msg);
    set_node(&b, 0, 1, 2, 0);
    set_node(&b, 1, 3, 4, 0);
    set_node(&b, 2, 5, 4, 0);
    for (int e = 3; e < 6; e++) set_node(&b, (uint64_t)e, 5, 5, 1);
    cr_expect_not(wh_image_check_structure(b.img, 0, &err));
    cr_expect(strstr(err.msg, "input \"nodes\" (\"tree\"): node 4 is a child of node 1 and of node 2 (field \"right\")"),
              "%s", err.msg);
    cr_expect_str_eq(err.path, "$.params[0].tree");
    set_node(&b, 2, 5, 1, 0);
    cr_expect_not(wh_image_check_domains(b.img, &err), "a link back is out of its range too");
    set(&b, 2, RIGHT, 4);
    set(&b, 1, RIGHT, 2);   /* in range for node 1, but node 2 is node 0's child */
    cr_expect_not(wh_image_check_structure(b.img, 0, &err));
    cr_expect(strstr(err.msg, "node 2 is a child of node 0 and of node 1"), "%s", err.msg);
    set(&b, 1, RIGHT, 3);
    cr_expect_not(wh_image_check_structure(b.img, 0, &err));
    cr_expect(strstr(err.msg, "internal node 1 names node 3 twice (field \"right\" too)"), "%s", err.msg);
    close_nodes(&b);
}

/* The symbolic stage assumes the tree: every atom bvh_traverse's stage
 * solves is one (its solver would otherwise name any nodes in range). */
static bool atom_is_tree(const wh_image *img, int p, void *ctx, wh_error *err)
{
    (void)ctx;
    return wh_image_check_tree(img, p, err);
}

Test(tree, the_symbolic_stage_solves_only_trees, .timeout = 240)
{
    ts_check_atoms("kernels/corpus/bvh_traverse.json", "build/ptx/kernels/corpus/bvh_traverse.ptx", 6, "nodes",
                   atom_is_tree, NULL);
}

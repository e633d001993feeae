/*
 * bvh_traverse (corpus, tree): point queries against a 1-D bounding-volume
 * hierarchy (an interval tree) stored in an array, one query per thread,
 * with the stack-based traversal of ray-tracing and collision kernels
 * (pbrt's LinearBVHNode loop, Karras's "Thinking Parallel" traversal,
 * the CUDA samples' particle/BVH queries): pop a node, skip it when its
 * bounds miss the query, test a leaf's items, push an internal node's
 * two children (the far one first, so the near one is visited next).
 *
 * Launch: grid 64 x block 256 = 16384 threads (1-D), one query each; the
 * tree has NN = 21 nodes (at most 11 leaves, depth up to 10), a leaf at
 * most LEAF = 3 items; the traversal stack holds 32 entries in local
 * memory.  The tree is small to keep the sim cheap: the worst input pops
 * every node in every thread (about 0.1 s of sim time per evaluation).
 *
 * Inputs: nodes (bounds lo, hi; children left, right; nitems: 0 for an
 * internal node, else a leaf with items i*LEAF .. i*LEAF + nitems - 1),
 * items (intervals lo, hi) and queries (points), all bounds in
 * [0, 1000].  Output: hits (items containing the query, per thread).
 *
 * Where the time depends on the data: the loop runs once per node popped
 * (a warp issues the most any lane pops), a node whose bounds contain the
 * query costs a leaf's item loop (nitems iterations) or two pushes; the
 * order of the children depends on the query (left first when the query
 * lies in the node's lower half), so lanes of one warp with queries on
 * either side of a centre pop different kinds of node at the same step
 * and the warp issues both the leaf and the internal code.  The node
 * loads of a warp are one broadcast when the lanes pop the same node and
 * one sector per node otherwise.
 *
 * Known worst (expert): every bound [0, 1000] (every query overlaps every
 * node and item: all NN nodes visited, every leaf full), and lanes
 * disagreeing on the order: queries alternating below and above the
 * centre in each warp, in a degenerate tree (a chain: each internal node
 * has a leaf and an internal child, so a lane going leaf-first alternates
 * leaf / internal while a lane going internal-first runs the whole chain
 * and then the leaves).  Measured on the sim (bench_corpus
 * --inputs-only): the chain with every query 0 (all lanes in step) 27356
 * cycles, a complete tree with alternating queries 31540, the chain with
 * alternating queries 34243 (the reference, "chain-alternating"), the
 * chain with random queries 34243 too (random points fall on either side
 * of the centre, so every warp splits the same way).  The longest of 5
 * random inputs is 3448: a random node bound contains a random query
 * with probability about 1/3, so random traversals stop near the root.
 * Known best: a root whose bounds miss every query (one pop per thread):
 * 1869.
 *
 * Structure (session 32): a BVH is a tree, and the spec says so ("tree":
 * the child fields left and right of an internal node, nitems above 0 for
 * a leaf): every node but the root has one parent and comes after it, so
 * the search and the symbolic stage see only trees (before, the spec could
 * only bound each child index, [i + 1, NN - 1], and the best inputs found
 * were DAGs that share subtrees).  The last node is a leaf because no node
 * comes after it.  The kernel stops after NN pops, which never cuts a
 * tree's traversal (each node is visited at most once) and was there for
 * the DAGs; it stays, as a guard.  The stack holds at most NN + 1 = 22
 * entries (a pop pushes at most one more than it removes).  Items sit in a
 * fixed slot of LEAF per node (a padded layout) where a real BVH stores an
 * index range into a primitive array.  The tree is shared by all queries,
 * so nodes and items are shared buffers (no thread owns them).
 */
#define BVH_STACK 32

struct BvhNode {
    float lo, hi;
    int left, right;
    int nitems;
};

struct BvhItem {
    float lo, hi;
};

extern "C" __global__ void bvh_traverse(const BvhNode *nodes, const BvhItem *items, const float *queries,
                                        int *hits, int nqueries, int nnodes, int leaf_size)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nqueries)
        return;
    float q = queries[t];
    int stack[BVH_STACK];
    int sp = 0;
    stack[sp++] = 0;
    int count = 0;
    int pops = 0;
    while (sp > 0 && pops < nnodes) {
        int n = stack[--sp];
        pops++;
        BvhNode node = nodes[n];
        if (q < node.lo || q > node.hi)
            continue;
        if (node.nitems > 0) {
            const BvhItem *it = items + n * leaf_size;
            for (int k = 0; k < node.nitems; k++)
                if (q >= it[k].lo && q <= it[k].hi)
                    count++;
        } else if (q < 0.5f * (node.lo + node.hi)) {
            stack[sp++] = node.right;
            stack[sp++] = node.left;
        } else {
            stack[sp++] = node.left;
            stack[sp++] = node.right;
        }
    }
    hits[t] = count;
}

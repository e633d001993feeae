/*
 * kd_nearest (holdout): exact nearest-neighbour queries of 2-D points in a
 * k-d tree stored in arrays (one node per element: split dimension, split
 * value, left/right child indices, and for a leaf a range [start,
 * start + count) into the point array), one query per thread, with an
 * explicit per-thread stack of (node, lower bound of the squared distance
 * to that node's half-space) and pruning by the best distance so far, as
 * in FLANN/nanoflann's single-tree search and the GPU k-d tree kernels of
 * ray tracers and point-cloud registration (ICP) codes.
 *
 * Launch: grid G x block 128 (G = 64: 8192 queries), 1-D; the tree has
 * NN = 63 node slots (so at most 32 leaves) and a leaf at most LEAF = 8
 * points out of NP = 256.  The stack holds KD_STACK = 64 entries in
 * local memory, more than any tree of NN nodes can need (a pop pushes at
 * most one more entry than it removes, so at most NN + 1 entries).
 *
 * Inputs: nodes (dim: 0 = x, else y; split; left, right; start, count:
 * count 0 = internal node), points (x, y), queries (x, y, one per thread).
 * Outputs: best_idx and best_d2 per query.
 *
 * Where the time depends on the data: the loop runs once per stack entry
 * popped; an entry whose bound is not below the current best is dropped
 * (pruned) at once, an internal node costs two pushes, a leaf a loop of
 * `count` distance tests, each possibly updating the best.  How much
 * pruning fails depends on the query positions relative to the split
 * planes and on how far the points are from the queries (a far nearest
 * point keeps `best` large and prunes nothing).  The tree's shape decides
 * how many nodes there are to visit and the stack depth; the near-first
 * order depends on the query's side of each split, so lanes of a warp
 * with queries on different sides pop leaves and internal nodes at
 * different steps and the warp issues both bodies (divergence).
 *
 * Worst input an expert would build: no pruning at all and every leaf
 * full: every split value equal to the queries' coordinate on that
 * dimension (the plane distance is then 0 and never prunes), all points
 * far from every query (so `best` stays large; points in decreasing
 * distance along the visit order so that the best is updated at every
 * test), a tree with the most leaves (32 full leaves of LEAF points), and
 * lanes that disagree on the near-first order, so leaves and internal
 * nodes are popped at the same step by different lanes.  See
 * kd_nearest.worst.sh for the candidates measured.
 *
 * What the spec cannot state: that the leaves' point ranges partition
 * the point array (a real k-d tree's leaves are disjoint and cover every
 * point; here each leaf's start and count are searched independently, so
 * leaves may overlap); that a split value lies between the points of its
 * two subtrees (a real k-d tree is built from its points: the spec lets
 * the split planes, points and tree vary independently, a superset of
 * real trees, so the search may find inputs no build would make); and
 * that internal node dim values are 0/1 (stated by the range).
 */
#define KD_STACK 64

struct KdNode {
    int dim;
    float split;
    int left, right;
    int start, count;
};

struct Point2 {
    float x, y;
};

extern "C" __global__ void kd_nearest(const KdNode *nodes, const Point2 *points, const Point2 *queries,
                                      int *best_idx, float *best_d2, int nqueries)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nqueries)
        return;
    float qx = queries[t].x, qy = queries[t].y;

    int stack_node[KD_STACK];
    float stack_bound[KD_STACK];
    int sp = 0;
    stack_node[sp] = 0;
    stack_bound[sp] = 0.0f;
    sp++;

    float best = 3.0e38f;
    int bi = -1;
    while (sp > 0) {
        sp--;
        int n = stack_node[sp];
        if (stack_bound[sp] >= best)
            continue; /* pruned */
        KdNode nd = nodes[n];
        if (nd.count > 0) {
            for (int j = nd.start; j < nd.start + nd.count; j++) {
                float dx = points[j].x - qx;
                float dy = points[j].y - qy;
                float d2 = dx * dx + dy * dy;
                if (d2 < best) {
                    best = d2;
                    bi = j;
                }
            }
        } else {
            float qv = (nd.dim == 0) ? qx : qy;
            float diff = qv - nd.split;
            int near_c = (diff < 0.0f) ? nd.left : nd.right;
            int far_c = (diff < 0.0f) ? nd.right : nd.left;
            if (sp + 2 <= KD_STACK) {
                stack_node[sp] = far_c;
                stack_bound[sp] = diff * diff;
                sp++;
                stack_node[sp] = near_c;
                stack_bound[sp] = 0.0f;
                sp++;
            }
        }
    }
    best_idx[t] = bi;
    best_d2[t] = best;
}

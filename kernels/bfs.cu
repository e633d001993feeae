/*
 * bfs: one level of breadth-first search, Rodinia-style, as two kernels
 * (the host runs bfs_kernel1 then bfs_kernel2 until "over" stays 0).
 *
 * Graph in CSR-like form with a fixed maximum degree D = 8: node i is
 * { start, n_edges } and its neighbours are edges[start .. start+n_edges);
 * the spec pins start = 8*i, so node i's edges live in [8i, 8i + n_edges).
 * Masks are bytes (0 or 1).
 *
 * bfs_kernel1: every node in the frontier (mask[tid] == 1) leaves it and,
 *   for each neighbour not yet visited, sets cost[nb] = cost[tid] + 1 and
 *   updating[nb] = 1.  (Racy writes of equal values, as in Rodinia.)
 * bfs_kernel2: every node with updating[tid] == 1 joins the next frontier
 *   (mask = 1), is marked visited, sets *over = 1, and clears updating.
 *
 * Launch (both): grid 4 x block 256 = 1024 threads, one per node (1-D);
 * no_of_nodes = 1024.
 * Specs: bfs1.json (bfs_kernel1), bfs2.json (bfs_kernel2).
 *
 * Worst case, bfs_kernel1 (not proven, the reasoning): every node in the
 * frontier (mask all 1) with the maximum degree 8 (n_edges all 8), every
 * neighbour unvisited (visited all 0), so every lane runs 8 iterations and
 * writes cost and updating 8 times; the edges then decide the memory
 * traffic: neighbours scattered so the 32 lanes of a warp touch 32
 * different sectors of cost/updating/visited in every iteration (versus
 * the cheap case of a warp's neighbours sharing sectors), with many lanes
 * racing on the same few nodes also serializing their stores.  Divergence
 * among lanes (different degrees, partly visited neighbourhoods) only
 * lowers the work here.
 * Worst case, bfs_kernel2: every updating == 1 (every lane does the four
 * stores, all lanes storing to the single word *over).
 */

struct node {
    int start;
    int n_edges;
};

extern "C" __global__ void bfs_kernel1(const struct node *nodes,
                                       const int *edges,
                                       unsigned char *mask,
                                       unsigned char *updating,
                                       const unsigned char *visited,
                                       int *cost,
                                       int no_of_nodes)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;

    if (tid < no_of_nodes && mask[tid]) {
        mask[tid] = 0;
        int first = nodes[tid].start;
        int last = first + nodes[tid].n_edges;
        for (int e = first; e < last; e++) {
            int nb = edges[e];
            if (!visited[nb]) {
                cost[nb] = cost[tid] + 1;
                updating[nb] = 1;
            }
        }
    }
}

extern "C" __global__ void bfs_kernel2(unsigned char *mask,
                                       unsigned char *updating,
                                       unsigned char *visited,
                                       int *over,
                                       int no_of_nodes)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;

    if (tid < no_of_nodes && updating[tid]) {
        mask[tid] = 1;
        visited[tid] = 1;
        *over = 1;
        updating[tid] = 0;
    }
}

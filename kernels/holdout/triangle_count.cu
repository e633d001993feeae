/*
 * triangle_count (holdout): counts the triangles of an undirected graph
 * stored in CSR form with each edge kept once (the GAP / LonestarGPU
 * "ordered" scheme): row u lists, sorted ascending, only the neighbours
 * v < u (each edge {u, v} kept once, in the row of its larger end: GAP's
 * OrderedCount walks exactly these).  Each thread takes one edge slot e
 * (an edge-parallel kernel as in Lonestar's TC and the edge-centric
 * kernels of Green et al. / Fox et al.): it finds its row u by a binary
 * search of the row offsets, reads v = col[e], and intersects the sorted
 * lists of u and v with a merge loop; every common neighbour w (w < v < u)
 * is a triangle, counted once.  A thread with triangles adds its count to
 * one global counter with an atomicAdd.
 *
 * Launch: grid G x block 128 (G = 64), one thread per edge slot: E =
 * threads = 8192 edges, N = threads / 8 = 1024 nodes (average degree 16
 * counting both directions).  row_ptr has N + 1 offsets from 0 to E.
 *
 * Where the time depends on the data: the binary search is log2(N) steps
 * whatever the graph; the merge loop runs until either list is exhausted,
 * so its trip count is the number of elements of both lists consumed:
 * at most |N(u) below max N(v)| + |N(v)| and never more than v (both
 * lists hold distinct values below v once the shorter one is out).  A
 * warp runs as long as its longest lane (lanes with short lists wait:
 * divergence), and every lane that found a triangle does an atomicAdd to
 * the same address (contention).  Degree skew decides it: a random graph
 * of average degree 8 per row gives a few iterations per edge.
 *
 * Worst input an expert would build: hubs and a chain.  H hubs (the
 * highest node numbers) each list every other node l < N - H (so a hub
 * row is long and shared by all lanes of its warps), and every such l
 * lists l - 1 (a chain: row l has one entry).  The lane of edge (hub, l)
 * then consumes the hub's entries 0 .. l-1 before matching l-1 (a
 * triangle: atomicAdd) and exhausting the chain row: l iterations, the
 * most an edge with smaller end l can take; a warp of 32 consecutive l
 * runs ~l + 31 iterations.  With E = 8192 and N = 1024 that is H = 7 hubs
 * of ~1016 entries.  See triangle_count.worst.sh for the candidates
 * measured (a clique, random graphs, power-law-like hubs).
 *
 * What the spec could not state, as its author wrote it: that each
 * row's column indices are sorted ascending and distinct, so the smoke
 * hunt's best (1938060 cycles) repeated one column 7552 times in a row,
 * an input no CSR build gives.  Session 39 added "increasing" to
 * "below_row" for it (README, "Sorted adjacency lists"): each row's
 * columns strictly increase below the row, entries past the row's room
 * naming the row itself (the projection gives row 0's entries self-loops;
 * the kernel skips an edge with v >= u).  The row offsets are "offsets".
 */
extern "C" __global__ void triangle_count(const int *row_ptr, const int *col, int nnodes, int nedges,
                                          unsigned int *total)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nedges)
        return;
    /* the row u of edge slot e: the last u with row_ptr[u] <= e */
    int lo = 0, hi = nnodes;
    while (hi - lo > 1) {
        int mid = (lo + hi) >> 1;
        if (row_ptr[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    int u = lo;
    int v = col[e];
    if (v >= u)
        return;
    int i = row_ptr[u], ie = row_ptr[u + 1];
    int j = row_ptr[v], je = row_ptr[v + 1];
    unsigned int cnt = 0;
    while (i < ie && j < je) {
        int a = col[i];
        int b = col[j];
        if (a < b) {
            i++;
        } else if (a > b) {
            j++;
        } else {
            cnt++;
            i++;
            j++;
        }
    }
    if (cnt)
        atomicAdd(total, cnt);
}

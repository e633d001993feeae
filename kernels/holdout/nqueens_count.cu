// nqueens_count: count N-queens completions below a per-thread prefix.
//
// What it computes
//   Thread t reads a partial placement of k queens, prefix[t*k + r] = the
//   column of the queen in row r (r < k), checks it (a column outside
//   [0, n-1] or two queens attacking each other: the prefix is invalid and
//   counts 0), then counts, by iterative backtracking over bitmasks (columns,
//   left and right diagonals, an explicit stack in local memory), the ways
//   to place queens in rows k..n-1.  count[t] = that number.  Summing count
//   over all valid prefixes gives the n-queens total (92 for n = 8).
//
// Launch
//   1-D grid, one thread per prefix: G blocks of 128 threads (spec: G=32),
//   nprefix = threads.  n and k are the work decomposition's configuration
//   (fixed per deployment; the spec fixes n = 10, k = 4); the data is the
//   prefixes, which the host normally enumerates but which this kernel
//   accepts in any order and any value (invalid ones count 0).
//
// Where the time depends on the data
//   - an invalid prefix returns after the check (cheap), a valid one runs a
//     backtracking loop whose trip count is the number of nodes of the
//     search tree below it (plus one pop per node): it varies a lot with the
//     prefix (for n = 10, k = 4: from none to a few hundred nodes);
//   - divergence: lanes of a warp run the loop as long as the largest tree
//     among them, and in each iteration lanes split between "push" (place a
//     queen), "pop" (backtrack) and "solution found" sides.
//
// Expert worst input
//   Every thread takes a valid prefix with the largest subtree (for n = 10,
//   k = 4 the prefixes whose four queens leave the most freedom below); the
//   loop runs that tree's node count for every lane.  Mixing in a warp the
//   two or three largest trees, whose push/pop sequences differ, could make
//   both branch sides run in more iterations; candidates are compared in
//   nqueens_count.worst.sh.
//
// What the spec could not state
//   - that only valid prefixes (distinct columns, no diagonal attack) are
//     meaningful for the real application: the spec's domain [0, n-1] per
//     element lets invalid ones in (the kernel handles them: count 0), which
//     is fine for a worst-case search (they are cheap) but no structure
//     says "non-attacking queens" (distinct would say half of it).

#define MAXN 16

extern "C" __global__ void nqueens_count(const int *prefix, int n, int k,
                                         int nprefix, unsigned int *count)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nprefix)
        return;
    if (n > MAXN) n = MAXN;
    if (k > n) k = n;
    unsigned full = (1u << n) - 1u;
    unsigned cols = 0, ld = 0, rd = 0;
    // check the prefix, building the masks for row k
    for (int r = 0; r < k; r++) {
        int c = prefix[t * k + r];
        if (c < 0 || c >= n) { count[t] = 0; return; }
        unsigned bit = 1u << c;
        if ((cols | ld | rd) & bit) { count[t] = 0; return; }
        cols |= bit;
        ld = ((ld | bit) << 1) & full;
        rd = (rd | bit) >> 1;
    }
    if (k == n) { count[t] = 1; return; }

    unsigned s_cols[MAXN], s_ld[MAXN], s_rd[MAXN], s_av[MAXN];
    int d = 0;
    s_cols[0] = cols; s_ld[0] = ld; s_rd[0] = rd;
    s_av[0] = full & ~(cols | ld | rd);
    unsigned total = 0;
    int last = n - 1 - k;          // depth of the last row
    while (d >= 0) {
        unsigned av = s_av[d];
        if (av == 0) {             // pop
            d--;
            continue;
        }
        unsigned bit = av & (0u - av);
        s_av[d] = av ^ bit;
        if (d == last) {           // a full board
            total++;
            continue;
        }
        unsigned nc = s_cols[d] | bit;                 // push
        unsigned nl = ((s_ld[d] | bit) << 1) & full;
        unsigned nr = (s_rd[d] | bit) >> 1;
        d++;
        s_cols[d] = nc; s_ld[d] = nl; s_rd[d] = nr;
        s_av[d] = full & ~(nc | nl | nr);
    }
    count[t] = total;
}

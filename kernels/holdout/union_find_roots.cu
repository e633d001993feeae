// union_find_roots: root queries on a disjoint-set (union-find) forest, one
// query per thread, each walking to its root with path halving written back.
//
// What it computes: the forest is a parent array over N nodes (parent[v] =
// v for a root).  Thread i takes the query node queries[i], walks from it
// to its root, making every other node on the way point to its
// grandparent (path halving: parent[x] = parent[parent[x]], then x moves to
// that grandparent), and writes the root to roots[i].  This is the find of
// a concurrent GPU union-find (connected components: ECL-CC, Groute and
// Gunrock's CC use such finds with the compression written back).  The
// writes race between threads, and that is benign: each replaces a pointer
// by one to an ancestor of the same node, so every thread still reaches
// the one root, whatever order the GPU serves them in.  Write-back rather
// than read-only because that is what real union-find code does (a
// read-only walk would hang on a cyclic parent array; this one makes a
// cycle's node a root and ends, with a wrong answer).
//
// Launch: 1-D, 64 blocks x 256 threads (2^14 queries, nq = threads); N =
// 4 * threads = 2^16 nodes.  The forest is stated as union by index leaves
// it (link the larger root under the smaller, as ECL-CC's hooking does):
// parent[v] <= v, so the parent array has no cycle (the spec's range for
// parent[v] is [0, v]: cycles are impossible).  Path halving keeps
// parent[v] <= v.
//
// Where the time depends on the data: the loop runs once per two levels of
// the query's depth (ceil(depth / 2) trips), each trip two dependent loads
// and a store, so a walk costs about 490 sim cycles a trip (a sequential
// chain: a new 32-byte sector every 4 trips).  A warp runs as long as its
// deepest lane.  And the threads help each other: a walk that runs behind
// another one on the same path finds it halved, moves 4 levels a trip, and
// overtakes it, whose walk then finds the path halved again.  So the more
// walkers share a long path, the sooner all of them finish.
//
// Worst input an expert would build, first guess: one chain 0 <- 1 <- ... <-
// N-1 (parent[v] = v - 1), the deepest tree there is, with every query at
// its tail N-1: 1455076 cycles.  The sim says otherwise: the 512 warps
// leapfrog each other down the chain, about 3400 trips a warp on average,
// not 32768.  The worst is the same chain walked by ONE thread (queries[0]
// = N-1, every other query the root 0, which costs two loads): nobody
// halves the path ahead of it, so it takes all 32768 trips: 16033562
// cycles, 11x the first guess.  The whole of warp 0 on the tail ties it
// (its lanes run in lockstep on one address); a whole block there gives
// 14252873 (its 8 warps leapfrog a little).  Chains that skip sectors
// (parent[v] = v - s) miss in DRAM on every hop but are s times shorter:
// s = 8 gives 3790618.  Chains per warp (128 nodes each) 33217, queries
// spread along the one chain 7561 to 1111826, random forests (depth about
// ln N) 4927-5162, random forests with every query on one node 3797-4224,
// every node a root 2079 (the best).  Candidates and their cycles:
// union_find_roots.worst.sh.
//
// What the spec could not state: an acyclic forest in general.  The range
// [0, v] states every forest's shape (any forest can be relabelled so that
// parents come first) but not every layout in memory: a chain of N nodes
// must be 0, 1, ..., N-1 in order, so a real forest from union by rank or
// size, whose long paths jump about in memory (a DRAM miss per hop on a
// GPU), is not in the spec.  Nor can it state how deep real forests get:
// union by rank bounds the depth by log2 N = 16, union by index without
// compression does not; the spec allows chains of N - 1 (a superset).  The
// sim orders the racing writes one way; a GPU may order them otherwise,
// and the time of an input with many walkers on one path depends on that
// order (the result does not).
extern "C" __global__ void union_find_roots(int* __restrict__ parent,
                                            const int* __restrict__ queries,
                                            int* __restrict__ roots,
                                            int nq)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nq) return;

    int x = queries[i];
    int p = parent[x];
    while (p != x) {
        int gp = parent[p];
        parent[x] = gp;       // path halving: x skips its parent
        x = gp;
        p = parent[x];
    }
    roots[i] = x;
}

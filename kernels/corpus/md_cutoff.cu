/*
 * md_cutoff (corpus, physics): the Lennard-Jones force kernel of SHOC's MD
 * benchmark (compute_lj_force): one thread per atom loops over its
 * maxNeighbors neighbours, read from a column-major neighbour list
 * (neighList[j * inum + i]), gathers each neighbour's position (float4),
 * and adds the LJ force only when the squared distance is below the
 * cut-off (r^2 < cutsq = 16).
 *
 * Launch: grid 64 x block 256 = 16384 atoms (1-D; until session 22 16
 * blocks, 4096 atoms), MAXNEIGH = 32 neighbours each.  Fewer atoms and
 * neighbours than SHOC (which uses 73728 atoms x 128 neighbours) to keep
 * the sim cheap: the worst input issues ~30 warp instructions per
 * neighbour step.
 *
 * Inputs: position (float4 per atom, x, y, z in [0, 64], w unused) and
 * neighList (i32, MAXNEIGH per atom): since session 35 derived from the
 * positions as SHOC builds it on the host (buildNeighborListCPU: for each
 * atom the MAXNEIGH nearest other atoms, nearest first, the earlier index
 * on a tie), "nearest_of": "position" with "structure": "neighbors"; the
 * search varies the positions only.  Output: force.
 *
 * Where the time depends on the data: the force body (a reciprocal and
 * ~12 multiply-adds) runs for the lanes whose neighbour is within the
 * cut-off, so a warp issues it at step j when any lane's neighbour j is
 * near; and the gather position[jidx] touches one 32-byte sector per
 * distinct pair of atoms among the lanes (coalesced when neighbouring
 * atoms have neighbouring indices, 32 sectors when scattered).
 *
 * With the list the positions give, 16384 atoms in a 64^3 box are dense
 * enough (16 units of volume each) that an atom's 32 nearest reach about
 * 5 units: about half of them lie within the cut-off (4) for any
 * placement, so nearly every warp issues the force body at nearly every
 * step, and random positions (nearest atoms local in space, of random
 * indices) gather scattered sectors too.  Random inputs are therefore
 * within a fraction of a percent of the worst: the time left to choose is
 * the sector count and the rare step where no lane is within the cut-off.
 *
 * Known worst (expert): every atom in a small cluster (every pair within
 * the cut-off), nearest atoms of scattered indices.  Candidates
 * (kernels/corpus/md_cutoff.c): "cluster-scattered" (a 32 x 32 x 16
 * lattice in [0, 1.5]^3, site k holding atom 195 k mod 16384, so an
 * atom's lattice neighbours are 195, 6240, ... apart), "cluster-random"
 * (random points of [0, 1.5]^3) and "cluster-coalesced" (the lattice, site
 * k atom k).  Known best: the sparsest lattice the box holds (26 x 26 x
 * 25 sites 2.56 apart, atoms in site order: 18 of the 32 nearest within
 * the cut-off, coalesced gathers).  Measured on the sim (bench_corpus
 * --inputs-only, session 35): cluster-random 26731 cycles (the
 * reference), cluster-scattered 26535, cluster-coalesced 26425, best
 * 25656, the longest of 5 random inputs 26695 (99.9 % of the reference).
 * The spread is small (the best is 96 % of the worst): with 512 warps over
 * 108 SMs the kernel is bound by the latency of its dependent loads
 * (neighList, then position: ~450 cycles per neighbour), which the force
 * body (a 60-cycle IEEE reciprocal and a few FMAs) and the gather's
 * sector count barely add to.  The expert's lattice with scattered
 * indices is not the sim's worst: random points in the cluster are (a
 * lattice's equal distances make an atom's nearest a fixed stencil, so
 * lanes share more sectors than random points do; not established
 * further).
 *
 * Before session 35 the list was free (any other atoms: "neighbors"
 * alone, no atom its own neighbour since session 33), so an input could
 * list far atoms for a cluster or near ones for a spread placement: the
 * known worst was 26824 (a cluster with a list chosen apart from the
 * positions), the best 24238 (a spread lattice whose list named far
 * atoms), random inputs 24609-24678 (random positions, a random list of
 * far atoms: the force body rare).  Those rows of bench/corpus.md measured
 * inputs no real list makes.  Spec gap: none left.  The symbolic stage
 * assumes each thread's list names other threads (distinct ones where
 * there are enough: not with its 2-4 threads and 32 neighbours), not the
 * nearest order, which the projection then imposes on its atoms.
 *
 * The column-major list (atom i's neighbours at i, i + inum, ...)
 * is a grid-stride ownership ("owner": "stride", 32 per thread; until
 * session 27 neighList was a shared buffer, from before ownership maps).
 */
extern "C" __global__ void md_cutoff(float4 *force3, const float4 *position, const int neighCount,
                                     const int *neighList, const float cutsq, const float lj1, const float lj2,
                                     const int inum)
{
    unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (unsigned int)inum)
        return;

    float4 ipos = position[idx];
    float4 f = { 0.0f, 0.0f, 0.0f, 0.0f };

    int j = 0;
    while (j < neighCount) {
        int jidx = neighList[j * inum + idx];
        float4 jpos = position[jidx];

        float delx = ipos.x - jpos.x;
        float dely = ipos.y - jpos.y;
        float delz = ipos.z - jpos.z;
        float r2inv = delx * delx + dely * dely + delz * delz;

        if (r2inv < cutsq) {
            r2inv = 1.0f / r2inv;
            float r6inv = r2inv * r2inv * r2inv;
            float forceC = r2inv * r6inv * (lj1 * r6inv - lj2);
            f.x += delx * forceC;
            f.y += dely * forceC;
            f.z += delz * forceC;
        }
        j++;
    }
    force3[idx] = f;
}

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
 * neighList (i32, [0, atoms - 1], MAXNEIGH per atom).  Output: force.
 *
 * Where the time depends on the data: the force body (a reciprocal and
 * ~12 multiply-adds) runs for the lanes whose neighbour is within the
 * cut-off, so a warp issues it at step j when any lane's neighbour j is
 * near; and the gather position[jidx] touches one 32-byte sector per
 * distinct pair of atoms among the lanes (coalesced when neighbouring
 * atoms have neighbouring neighbours, 32 sectors when scattered).
 *
 * Known worst (expert): every neighbour within the cut-off (all atoms in
 * a small cluster) and every gather scattered over sectors:
 * "cluster-scattered" (atoms in [0, 1.5]^3, neighbour j of atom i =
 * 2 (i + 97 j) mod atoms: 32 distinct sectors per gather).  Candidates:
 * "cluster-random" (random neighbours) and "cluster-coalesced" (neighbour
 * j of atom i = i + j + 1: 4 sectors per gather).  Known best: atoms on
 * a lattice of spacing 4 (r^2 >= 16 for every pair, nothing within the
 * cut-off) with coalesced neighbours.  Measured on the sim (bench_corpus
 * --inputs-only, 64 blocks): cluster-scattered 26824 cycles (the reference),
 * cluster-random 26740, cluster-coalesced 26414, best 24238, and the
 * longest of 5 random inputs 24678 (at 16 blocks: 26632, 26631, 26211, 24039,
 * 24642).  The spread is small (the best is
 * 90 % of the worst): with 512 warps over 108 SMs the kernel is bound by
 * the latency of its dependent loads (neighList, then position: ~450
 * cycles per neighbour), which the force body (a 60-cycle IEEE reciprocal
 * and a few FMAs) and the gather's sector count barely add to.  Random
 * positions put ~0.1 % of the pairs within the cut-off (a ball of radius
 * 4 in a 64^3 box), so a warp rarely issues the force body: random is
 * near the best.
 *
 * Spec gap: SHOC builds the neighbour list from the positions (the
 * maxNeighbors nearest atoms, never the atom itself).  Since session 33
 * the list is "neighbors" (no atom its own neighbour: before, a search
 * could list an atom as its own, at distance 0, inside the cut-off
 * whatever the positions); the spec cannot tie the list to the positions
 * (the nearest atoms, each once), so it is any other atoms, and the
 * positions any points of the box.  The column-major list (atom i's neighbours at i, i + inum, ...)
 * is a grid-stride ownership ("owner": "stride", 32 per thread; until
 * session 27 neighList was a shared buffer, from before ownership maps),
 * so a thread's genes and a warp copy move the neighbours it reads.
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

/*
 * gt_paths32 (ground truth): a complete binary decision tree, 5 levels
 * deep, on the low 5 bits of one input value per thread: 32 leaf paths.
 *
 * Level L (L = 4, 3, 2, 1, 0) tests bit L of v = sel[tid]; each of the
 * 62 branch legs does its own chain of 8 dependent register operations
 * (different operations and constants on every leg, so the compiler can
 * neither merge the legs nor turn them into selects).  Every root-to-leaf
 * path therefore executes the same amount of work: 5 legs x 8 operations.
 * Bits above bit 4 are ignored.
 *
 * Launch: grid 128 x block 256 = 32768 threads (1-D).
 * Inputs: sel (u32, one per thread, range [0, 255]); seed (scalar).
 * Output: out (u32, one per thread).
 *
 * Known worst case: inside every warp (32 consecutive threads starting at
 * a multiple of 32) the 32 values sel & 31 are pairwise distinct, e.g.
 * sel[tid] = tid % 32.  Each warp then walks all 32 leaves one after the
 * other and issues all 62 legs (62 x 8 operations instead of 5 x 8 for a
 * non-divergent warp).  Which lane takes which path does not matter: a
 * warp issues every tree edge on the union of its lanes' root-to-leaf
 * paths once (5 edges for one distinct leaf, 62 for 32), so time grows
 * with the number of distinct values of sel & 31 per warp and is maximal
 * at 32.  Random inputs reach 32 distinct leaves in a warp with
 * probability 32!/32^32 (about 1e-13).
 */

/* Eight dependent steps; the shape depends on SHAPE (0..3), the constants
 * on CODE, so that two sibling legs (CODE 2c and 2c+1) always differ in
 * shape. */
template <int CODE>
__device__ __forceinline__ unsigned work(unsigned x)
{
    const unsigned k = 0x9E3779B9u * (unsigned)(CODE + 1);
    const int shape = CODE & 3;
    #pragma unroll
    for (int s = 0; s < 8; s++) {
        if (shape == 0)
            x = x * (k | 1u) + (unsigned)s;
        else if (shape == 1)
            x = (x ^ (x >> ((s % 7) + 3))) + k;
        else if (shape == 2)
            x = (x << 5) - x + (k >> s);
        else
            x = (x ^ k) * 0x85EBCA6Bu + (unsigned)(s * CODE);
    }
    return x;
}

/* Node CODE at depth LEVEL: test bit LEVEL of v, run the chosen leg's
 * work, descend.  CODE numbers the nodes of the tree (root = 1). */
template <int LEVEL, int CODE>
struct node {
    static __device__ __forceinline__ unsigned go(unsigned v, unsigned x)
    {
        if (v & (1u << LEVEL)) {
            x = work<2 * CODE + 1>(x);
            return node<LEVEL - 1, 2 * CODE + 1>::go(v, x);
        } else {
            x = work<2 * CODE>(x);
            return node<LEVEL - 1, 2 * CODE>::go(v, x);
        }
    }
};

template <int CODE>
struct node<-1, CODE> {
    static __device__ __forceinline__ unsigned go(unsigned v, unsigned x)
    {
        return x ^ (unsigned)CODE;
    }
};

extern "C" __global__ void gt_paths32(const unsigned *sel, unsigned *out,
                                      unsigned seed)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = sel[tid];
    unsigned x = seed ^ (unsigned)tid;
    out[tid] = node<4, 1>::go(v, x);
}

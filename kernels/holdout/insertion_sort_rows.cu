// insertion_sort_rows: each thread sorts its own row of 32 unsigned 32-bit
// keys, ascending, with insertion sort.
//
// What it computes: row t is keys[32*t .. 32*t+31] (rows stored one after
// another, as a host array of small records would be).  Thread t copies its
// row into a private array v[32], sorts it with the textbook insertion sort
//     for i in 1..31: x = v[i]; j = i-1;
//                     while (j >= 0 && v[j] > x) { v[j+1] = v[j]; --j; }
//                     v[j+1] = x;
// and writes it back in place.  Why a local copy rather than sorting in
// global memory: a user who writes a per-thread sort knows each shift in
// place is a global load and store; a private array is the usual first
// step (it lands in local memory, since the index is dynamic, but L1
// caches it).  nvcc (sm_80, CUDA 13) unrolls the inner loop fully (j is
// bounded by 31): 31 compare-and-shift steps, each a local load, a compare
// and a branch out, and keeps the outer loop.
//
// Launch: 1-D grid, 64 blocks of 256 threads (2^14 rows), one row per
// thread; nrows = threads.  Every u32 is a valid key (duplicates allowed).
//
// Where the time depends on the data: only the inner loop's trip count,
// the number of keys before v[i] greater than it (the row's inversions,
// up to 31*32/2 = 496).  A warp runs, for each i, as long as its lane
// that shifts most; lanes that leave the inner loop earlier wait
// (divergence).  The row loads and stores are uncoalesced (each lane's row
// 128 bytes from the next: 32 sectors a request) but do not depend on
// the values.  Sorted rows (or all-equal ones) cost 9872 sim cycles,
// random rows about 34400: with 32 lanes the warp's longest shift at each
// i is close to i already, so random inputs are near the top.
//
// Worst input an expert would build: reversed rows (strictly decreasing):
// every i shifts all the way to position 0, 496 shifts per lane, every
// lane of every warp alike, no divergence.  The sim does NOT rank it
// first: 34377 cycles, below random rows (34385-34497), although it
// issues more warp instructions (1,984,512 against 1,969,989).  In the
// sim, a warp whose lanes leave the unrolled inner loop at different
// steps stalls longer on the local loads (explain: the extra cycles are
// "memory" stalls on the ld.local of the compare chain), so rows that keep
// one lane per warp at the full 496 shifts while the other lanes leave at
// staggered points run longer.  The longest found: lane l's row is
// c = l mod 12 small increasing keys followed by decreasing large ones
// (its element i, i >= c, has exactly c smaller keys before it: it shifts
// i - c places), 35169 cycles, +2.3 % over reversed; other moduli give
// 34397-34894, and the landscape is irregular (m = 11: 34717, 12: 35169,
// 13: 34698).  With the H200 profile the order changes again (reversed
// 38890, random 38952-38998, m = 12 39040, m = 8 or 10 about 39140): the
// spread between the expert's guess, random and the worst is 1-2 %, which
// is the model's memory timing more than the sort's work.  Candidates and
// cycles: insertion_sort_rows.worst.sh.
//
// What the spec could not state: nothing about the inputs (any u32 row is
// valid).  It could not say that keys is also the kernel's output (sorted
// in place): role "input" was not compared by measure --check, and
// "output" would zero it.  Since session 46 "in_place": true says so
// (measure --outputs writes keys.out.bin, --check compares it).  That a
// row is the thread's is per_thread 32, contiguous.
#define ROW 32

extern "C" __global__ void insertion_sort_rows(unsigned int *keys, int nrows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;

    unsigned int *row = keys + (size_t)r * ROW;

    // Work on a private copy: 32 global round trips per shift would be
    // far slower than local memory (cached in L1).
    unsigned int v[ROW];
    for (int i = 0; i < ROW; ++i)
        v[i] = row[i];

    for (int i = 1; i < ROW; ++i) {
        unsigned int x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            --j;
        }
        v[j + 1] = x;
    }

    for (int i = 0; i < ROW; ++i)
        row[i] = v[i];
}

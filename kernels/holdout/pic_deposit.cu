// pic_deposit: particle-in-cell charge deposition (cloud-in-cell, 2-D, periodic).
//
// What it computes: every particle p (float x, y position, float charge q)
// lies in a periodic domain of nx x ny square cells of side dx (the domain
// is [0, nx*dx) x [0, ny*dx); a position outside is wrapped back in).  Its
// charge is shared among the 4 grid nodes around it with bilinear
// (cloud-in-cell) weights, and each share is added to the node's charge
// density rho[iy*nx + ix] with a float atomicAdd in global memory.
// rho must be zeroed before the launch (it is an output).
//
// Launch: one thread per particle, 1-D grid, e.g. 64 blocks of 256 threads
// (16384 particles) on a 64 x 64 grid; n = number of particles.
//
// Where the time is data-dependent: not in the control flow (every thread
// runs the same straight-line code, the wrap branches aside) but in the
// memory system: (1) atomic contention: particles of one warp (or of the
// whole grid) in the same cell add to the same 4 addresses, and same-address
// atomics serialize; (2) locality: particles of a warp spread over many
// cells touch many different 32-byte sectors/lines of rho (a scattered warp
// needs up to 4 x 32 sectors per atomic instruction group), while a
// clustered warp touches few.
//
// Worst input an expert would build: every particle in one single cell (or
// exactly on one node), so that every one of the 4 atomics of every thread
// of the whole grid hits the same 4 addresses: each warp-level atomic
// serializes 32 ways and all warps contend on the same 4 words.  A
// competing candidate is "maximally scattered" (each lane in a different
// row of the grid), which maximises sectors per instruction but has no
// contention; the sim decides (see pic_deposit.worst.sh).
//
// What the spec cannot state: nothing essential.  Positions are stated as
// [0, L] floats (the real domain is the half-open [0, L), L = nx*dx; the
// kernel wraps x == L back to 0 so the closed end is harmless).  The
// charges' values do not influence time.
struct Particle {
    float x;
    float y;
    float q;
};

extern "C" __global__ void pic_deposit(const Particle* __restrict__ parts,
                                       int n,
                                       float* __restrict__ rho,
                                       int nx, int ny, float dx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    Particle p = parts[i];
    float inv_dx = 1.0f / dx;
    float gx = p.x * inv_dx;
    float gy = p.y * inv_dx;

    // periodic wrap into [0, nx) x [0, ny)
    gx -= nx * floorf(gx / nx);
    gy -= ny * floorf(gy / ny);

    int ix = (int)floorf(gx);
    int iy = (int)floorf(gy);
    float fx = gx - (float)ix;
    float fy = gy - (float)iy;
    // rounding can leave gx == nx after the wrap
    if (ix >= nx) { ix -= nx; }
    if (iy >= ny) { iy -= ny; }
    if (ix < 0) { ix = 0; fx = 0.0f; }
    if (iy < 0) { iy = 0; fy = 0.0f; }
    int ix1 = ix + 1; if (ix1 == nx) ix1 = 0;
    int iy1 = iy + 1; if (iy1 == ny) iy1 = 0;

    float q = p.q;
    float w00 = (1.0f - fx) * (1.0f - fy);
    float w10 = fx * (1.0f - fy);
    float w01 = (1.0f - fx) * fy;
    float w11 = fx * fy;

    atomicAdd(&rho[iy  * nx + ix ], q * w00);
    atomicAdd(&rho[iy  * nx + ix1], q * w10);
    atomicAdd(&rho[iy1 * nx + ix ], q * w01);
    atomicAdd(&rho[iy1 * nx + ix1], q * w11);
}

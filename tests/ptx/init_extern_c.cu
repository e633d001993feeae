/* init_extern_c: an extern "C" kernel, whose PTX name carries no C++ types and whose PTX
 * parameters carry no names, for `warphunt init`'s reading of the source declaration:
 * comments, __restrict__, const, an unsigned pointer and a struct pointer across lines.
 * Thread i adds parts[i].q * dx to rho[cell] and counts the cell. */

struct Particle {
    float x, q;
};

extern "C" __global__ void
deposit(const Particle *__restrict__ parts, /* one per thread */
        int n,
        float *__restrict__ rho,             // an output: atomics only
        unsigned int *counts, const float dx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cell = (int)parts[i].x & 63;
    atomicAdd(&rho[cell], parts[i].q * dx);
    atomicAdd(&counts[cell], 1u);
}

/* poly: three coefficients per thread, c[3*i + j], in a plain float array (an index
 * stride of 3 elements: 3 per thread). */
extern "C" __global__ void poly(const float *coef, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = coef[3 * i] + coef[3 * i + 1] * coef[3 * i + 2];
}

/* constant_mem: a polynomial with coefficients in __constant__ memory (ld.const) and an
 * initialised constant table.  out[i] = sum_k coef[k] * x^k (Horner, 8 coefficients) + table[i & 7]. */

__constant__ float coef[8] = { 1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, -0.03125f, 0.015625f, -0.0078125f };
__constant__ int table[8] = { 3, 1, 4, 1, 5, 9, 2, 6 };

extern "C" __global__ void constant_mem(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float r = coef[7];
    for (int k = 6; k >= 0; k--)
        r = r * v + coef[k];
    out[i] = r + (float)table[i & 7];
}

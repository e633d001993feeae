/* float_branch: float decisions for the symbolic executor's tests.
 * Compiled by hand to float_branch.ptx (nvcc -ptx -arch=sm_80 -lineinfo).
 * float_branch: IEEE operations only (fma, abs, sqrt.rn) -> exact FPA paths.
 * float_approx: __fdividef is div.approx.f32 -> an uninterpreted function. */

extern "C" __global__ void float_branch(const float *x, int *out)
{
    int t = threadIdx.x;
    float v = x[t];
    float y = v * 0.5f + 1.0f;
    int r = (y < 0.75f) ? 1 : 2;
    if (y < 0.75f)
        out[t + 2 * blockDim.x] = t;
    if (sqrtf(fabsf(v)) > 1.5f)
        r += 10;
    out[t] = r;
}

extern "C" __global__ void float_approx(const float *x, int *out)
{
    int t = threadIdx.x;
    float v = x[t];
    if (__fdividef(v, 3.0f) > 1.0f)
        out[t] = 1;
    else
        out[t] = 2;
}

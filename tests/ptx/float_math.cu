/* float_math: IEEE single-precision arithmetic and libm-style functions.
 * out[i*10 + k] = a/b, sqrtf(|a|), fmaf(a,b,c), fminf, fmaxf, floorf, ceilf, truncf, rintf, copysignf(c,b)
 * for a = x[3i], b = x[3i+1] (never 0), c = x[3i+2]; exact against C (round-to-nearest). */

extern "C" __global__ void float_math(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = x[3 * i], b = x[3 * i + 1], c = x[3 * i + 2];
    float *o = out + i * 10;
    o[0] = a / b;
    o[1] = sqrtf(fabsf(a));
    o[2] = fmaf(a, b, c);
    o[3] = fminf(a, b);
    o[4] = fmaxf(a, b);
    o[5] = floorf(a);
    o[6] = ceilf(a);
    o[7] = truncf(a);
    o[8] = rintf(a);
    o[9] = copysignf(c, b);
}

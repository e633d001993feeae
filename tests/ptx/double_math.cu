/* double_math: double precision.  out[i*6 + k] = a/b, sqrt(|a|), fma(a,b,c), a*b - c,
 * (double)(float)a, floor(a) for a = x[3i], b = x[3i+1] (never 0), c = x[3i+2];
 * iout[i] = (long long)a (truncation, |a| < 2^62). */

extern "C" __global__ void double_math(const double *x, double *out, long long *iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double a = x[3 * i], b = x[3 * i + 1], c = x[3 * i + 2];
    double *o = out + i * 6;
    o[0] = a / b;
    o[1] = sqrt(fabs(a));
    o[2] = fma(a, b, c);
    o[3] = __dsub_rn(__dmul_rn(a, b), c);
    o[4] = (double)(float)a;
    o[5] = floor(a);
    iout[i] = (long long)a;
}

/* int64_ops: 64-bit integer arithmetic.  out[i*7 + k] = a*b, a+b, a-b, a<<(b&63), a>>(b&63) (arith),
 * (ua)>>(b&63) (logical), (a < b) + 2*(ua < ub); a = x[2i], b = x[2i+1] as signed/unsigned 64-bit. */

extern "C" __global__ void int64_ops(const long long *x, long long *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    long long a = x[2 * i], b = x[2 * i + 1];
    unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
    int s = (int)(b & 63);
    long long *o = out + i * 7;
    o[0] = (long long)(ua * ub);
    o[1] = (long long)(ua + ub);
    o[2] = (long long)(ua - ub);
    o[3] = (long long)(ua << s);
    o[4] = a >> s;
    o[5] = (long long)(ua >> s);
    o[6] = (a < b) + 2 * (ua < ub);
}

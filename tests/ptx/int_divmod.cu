/* int_divmod: signed/unsigned division and remainder by variables and by constants, 32 and 64 bit.
 * out[i*8 + k] = a/b, a%b, ua/ub, ua%ub, a/7, a%-3 (C truncation), (long long)a*a / b64, ua % 1000;
 * b != 0 and not (a == INT_MIN && b == -1). */

extern "C" __global__ void int_divmod(const int *a, const int *b, long long *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], y = b[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    long long *o = out + i * 8;
    o[0] = x / y;
    o[1] = x % y;
    o[2] = ux / uy;
    o[3] = ux % uy;
    o[4] = x / 7;
    o[5] = x % -3;
    o[6] = ((long long)x * x) / (long long)y;
    o[7] = ux % 1000u;
}

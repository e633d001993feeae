/* device_func_noinline: __noinline__ device functions (PTX .func + call), nested calls,
 * several return types and a pointer argument.  out[i] = gcd(a,b) * 1000 + isqrt(a*b % 10007) + sum3. */

__device__ __noinline__ unsigned gcd_u(unsigned a, unsigned b)
{
    while (b != 0u) {
        unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}

__device__ __noinline__ unsigned isqrt_u(unsigned v)
{
    unsigned r = 0u;
    while ((r + 1u) * (r + 1u) <= v)
        r++;
    return r;
}

__device__ __noinline__ void sum3(const unsigned *p, unsigned *dst)
{
    *dst = p[0] + p[1] + p[2];
}

__device__ __noinline__ unsigned combine(unsigned a, unsigned b, const unsigned *p)
{
    unsigned s;
    sum3(p, &s);
    return gcd_u(a, b) * 1000u + isqrt_u((a * b) % 10007u) + s;
}

extern "C" __global__ void device_func_noinline(const unsigned *a, const unsigned *b,
                                                const unsigned *triples, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = combine(a[i], b[i], triples + 3 * i);
}

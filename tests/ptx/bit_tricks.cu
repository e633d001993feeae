/* bit_tricks: integer bit intrinsics on a = x[2i], b = x[2i+1], s = b & 63.  out[i*12 + k] = __popc, __clz,
 * __ffs, __brev, __byte_perm(a,b,0x5140), __funnelshift_l(a,b,s), __funnelshift_r(a,b,s), __popcll, __clzll
 * of (a:b), __umulhi, __mulhi, __usad(a,b,s). */

extern "C" __global__ void bit_tricks(const unsigned *x, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned a = x[2 * i], b = x[2 * i + 1], s = b & 63u;
    unsigned long long ab = ((unsigned long long)a << 32) | b;
    unsigned *o = out + i * 12;
    o[0] = __popc(a);
    o[1] = __clz((int)a);
    o[2] = __ffs((int)a);
    o[3] = __brev(a);
    o[4] = __byte_perm(a, b, 0x5140u);
    o[5] = __funnelshift_l(a, b, s);
    o[6] = __funnelshift_r(a, b, s);
    o[7] = __popcll(ab);
    o[8] = __clzll((long long)ab);
    o[9] = __umulhi(a, b);
    o[10] = (unsigned)__mulhi((int)a, (int)b);
    o[11] = __usad(a, b, s);
}

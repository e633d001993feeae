/* switch_dense: a dense switch over op = ops[i] in [0, 9] (nvcc 13 lowers it to a compare tree, no brx.idx).
 * out[i] = result of the tiny opcode interpreter below applied to (a[i], b[i]); default -> -1. */

extern "C" __global__ void switch_dense(const int *ops, const int *a, const int *b, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], y = b[i], r;
    switch (ops[i]) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    case 3: r = y != 0 ? x / y : 0; break;
    case 4: r = x & y; break;
    case 5: r = x | y; break;
    case 6: r = x ^ y; break;
    case 7: r = x << (y & 31); break;
    case 8: r = x >> (y & 31); break;
    case 9: r = x < y ? x : y; break;
    default: r = -1; break;
    }
    out[i] = r;
}

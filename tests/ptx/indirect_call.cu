/* indirect_call: calls through a table of function pointers (__device__ op_fn table[3]) chosen by
 * an input, so a warp calls up to three functions one after another; op_mul loops b times. */
typedef int (*op_fn)(int, int);
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mul(int a, int b) { int r = 0; for (int k = 0; k < b; k++) r += a; return r; }
__device__ __noinline__ int op_max(int a, int b) { return a > b ? a : b; }
__device__ op_fn table[3] = { op_add, op_mul, op_max };

extern "C" __global__ void indirect_call(const int *which, const int *x, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    op_fn f = table[which[i] % 3];
    out[i] = f(x[i], i & 15);
}

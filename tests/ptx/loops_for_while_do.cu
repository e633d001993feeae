/* loops_for_while_do: three loop shapes with data-dependent trip counts.
 * sum_to: out[i] = 0 + 1 + ... + (n[i]-1) (for); collatz: steps to reach 1 from
 * v[i] capped at 1000 (while); digits: number of decimal digits of v[i], >= 1 (do-while). */

extern "C" __global__ void sum_to(const int *n, int *out, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    int s = 0;
    for (int k = 0; k < n[i]; k++)
        s += k;
    out[i] = s;
}

extern "C" __global__ void collatz(const unsigned *v, int *steps, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    unsigned x = v[i];
    int s = 0;
    while (x > 1u && s < 1000) {
        x = (x & 1u) ? 3u * x + 1u : x >> 1;
        s++;
    }
    steps[i] = s;
}

extern "C" __global__ void digits(const unsigned *v, int *out, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    unsigned x = v[i];
    int d = 0;
    do {
        d++;
        x /= 10u;
    } while (x != 0u);
    out[i] = d;
}

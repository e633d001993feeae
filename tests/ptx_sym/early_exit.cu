/* early_exit: threads below `first` do nothing, the others loop as many
 * times as their input says.  With `first` at least the symbolic thread
 * count, every thread of the symbolic stage exits at the guard and the
 * stage sees one path: the case `spec check` warns about
 * (tests/test_spec_check.c).  Compiled by hand to early_exit.ptx
 * (nvcc -ptx -arch=sm_80 -lineinfo). */

extern "C" __global__ void early_exit(const int *in, int *out, int first)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < first)
        return;
    int acc = 0;
    for (int k = 0; k < in[t]; k++)
        acc += k ^ t;
    out[t] = acc;
}

/* divergent_nested_if: nested data-dependent if/else chains that reconverge at different depths.
 * out[i] = the classification code computed below from v = in[i] (a C copy of the function is the reference). */

extern "C" __global__ void divergent_nested_if(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int code = 0;
    if (v > 100) {
        code = 1;
        if (v % 2 == 0) {
            code += 10;
            if (v > 1000)
                code += 100;
        } else {
            code += 20;
        }
    } else if (v < -100) {
        code = 2;
        if (v < -1000)
            code += 30;
    } else {
        for (int k = 0; k < (v & 7); k++)
            code += k * v;
    }
    if (code & 1)
        code = -code;
    out[i] = code;
}

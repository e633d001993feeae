/* struct_byval: a struct passed by value as a kernel parameter (a .param .align .b8 array).
 * out[i] = cfg.scale * in[i] + cfg.offset, clamped to [cfg.lo, cfg.hi]; flags[i] = cfg.tag + (out[i] == cfg.hi). */

struct config {
    float scale;
    float offset;
    int lo;
    int hi;
    double unused_pad;   /* forces 8-byte alignment of the struct */
    char tag;
};

extern "C" __global__ void struct_byval(const int *in, int *out, char *flags,
                                        struct config cfg, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = (int)(cfg.scale * (float)in[i] + cfg.offset);
    v = min(max(v, cfg.lo), cfg.hi);
    out[i] = v;
    flags[i] = (char)(cfg.tag + (v == cfg.hi));
}

/* char_short: 8- and 16-bit data.  gray[i] = (77 R + 150 G + 29 B) >> 8 of rgba[i] (uchar4),
 * hist16[i] = (short)(s[i] * 3 - 1000) saturated to [-32768, 32767], sb[i] = (signed char)c[i] / 2. */

extern "C" __global__ void char_short(const uchar4 *rgba, unsigned char *gray,
                                      const short *s, short *hist16,
                                      const signed char *c, signed char *sb, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uchar4 px = rgba[i];
    gray[i] = (unsigned char)((77u * px.x + 150u * px.y + 29u * px.z) >> 8);
    int v = s[i] * 3 - 1000;
    v = v < -32768 ? -32768 : (v > 32767 ? 32767 : v);
    hist16[i] = (short)v;
    sb[i] = (signed char)(c[i] / 2);
}

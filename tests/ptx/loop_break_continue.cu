/* loop_break_continue: a search loop with continue and break over row i (len ints): out[i] = index of the
 * first element == key (-1 if none; negative elements are skipped by `continue`), skipped[i] = number of
 * negative elements before the match (or in the whole row when there is none). */

extern "C" __global__ void loop_break_continue(const int *rows, int len, int key,
                                               int *out, int *skipped, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int *r = rows + (size_t)i * len;
    int found = -1, neg = 0;
    for (int k = 0; k < len; k++) {
        int v = r[k];
        if (v < 0) {
            neg++;
            continue;
        }
        if (v == key) {
            found = k;
            break;
        }
    }
    out[i] = found;
    skipped[i] = neg;
}

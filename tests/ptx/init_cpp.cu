/* init_cpp: a C++ kernel (a mangled entry name, unlike the rest of this corpus) for
 * `warphunt init`'s demangler.  For i < n: out[i] = pairs[i].weight * factors[pairs[i].key % n]
 * when flags[i], else 0.  Its parameters: a const struct pointer, a const and a plain builtin
 * pointer, a bool pointer and an int. */

struct pair {
    int key;
    float weight;
};

__global__ void weigh_pairs(const pair *pairs, const float *factors, float *out, bool *flags, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (flags[i]) out[i] = pairs[i].weight * factors[(pairs[i].key % n + n) % n];
    else out[i] = 0.0f;
}

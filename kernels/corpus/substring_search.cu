/*
 * substring_search (corpus, searching): naive (brute-force) substring
 * search, one thread per text position: the thread compares the pattern
 * with the text from its position character by character, leaves at the
 * first mismatch, and on a full match sets the position's flag and counts
 * the match with atomicAdd -- the baseline GPU string matcher of the
 * string-matching literature (e.g. the brute-force kernels set against
 * GPU Boyer-Moore/Aho-Corasick ports) and of grep-like CUDA exercises.
 *
 * Launch: grid 64 x block 256 = 16384 threads (1-D), one text position
 * each; the text has n = 16384 + M - 1 bytes (every thread has a full
 * window), the pattern M = 32 bytes.
 *
 * Inputs: text (u8, one byte per thread: the byte at its own position, and
 * the M - 1 bytes of the tail) and pattern (u8, M bytes, shared by every
 * thread).  Outputs: match (u8, one flag per position) and count (one
 * counter).
 *
 * Where the time depends on the data: the compare loop runs 1 + the length
 * of the prefix of the pattern that matches at the thread's position (M
 * for a match, then a store and an atomicAdd on one address); a warp
 * issues its longest lane, and the matches of a warp serialise on the
 * counter.
 *
 * Known worst (expert): every window a match (text all 'a', pattern all
 * 'a': "all-match"): M compares per thread, then 16384 atomicAdd on one
 * address.  Measured on the sim (bench_corpus --inputs-only): all-match
 * 24072 cycles (the reference); the text "aaa...ab" repeated with period M
 * (one match per warp, the other lanes failing after a staircase of
 * prefix lengths: "periodic") 8465; every window failing at the pattern's
 * last byte (text all 'a', pattern 'a'^31 'b': "fail-last", the textbook
 * worst of the naive matcher) 7942; random text over {a, b} with the
 * pattern all 'a' 4109; the longest of 5 random inputs 1636 (over 256
 * symbols a window almost always fails at its first or second byte):
 * random testing is far from the worst; the worst needs the text and the
 * shared pattern to agree on long prefixes at once.
 * Known best: a pattern whose first byte occurs nowhere in the text (one
 * compare per thread): 1177 cycles.
 *
 * Spec gap: thread t reads text[t .. t + M - 1], not only its own byte
 * text[t] (the spec's per_thread is the byte at its position): a
 * per-thread mutation changes the windows of M threads, and the tail's
 * M - 1 bytes belong to no thread.
 */
#define M 32

extern "C" __global__ void substring_search(const unsigned char *text, const unsigned char *pattern,
                                            unsigned char *match, unsigned *count, int n)
{
    int pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos > n - M)
        return;
    int j = 0;
    while (j < M && text[pos + j] == pattern[j])
        j++;
    if (j == M) {
        match[pos] = 1;
        atomicAdd(count, 1u);
    }
}

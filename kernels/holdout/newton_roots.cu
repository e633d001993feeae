// newton_roots: one Newton-Raphson root search per thread, on a cubic or
// quartic polynomial of its own.
//
// What it computes: thread i reads the 5 coefficients of
//     p(x) = c[5i+0] + c[5i+1] x + c[5i+2] x^2 + c[5i+3] x^3 + c[5i+4] x^4
// (a cubic when c[5i+4] == 0) and a starting point x0[i], and iterates
//     x <- x - p(x) / p'(x)
// until |p(x)| < tol, or the step is tiny relative to x, or max_iter
// iterations have run; a zero derivative stops the search (guard).  It
// writes the last iterate to root[i] and the iterations used to iters[i].
//
// Launch: one thread per polynomial, 1-D grid, e.g. 64 blocks of 256 threads;
// n = number of polynomials, max_iter = 64, tol = 1e-5.
//
// Where the time is data-dependent: the trip count of the Newton loop,
// from 0 (x0 already a root, or p'(x0) == 0) to max_iter, per thread.  A
// warp runs as long as its slowest lane (the others idle: divergence), so
// one slow lane per warp is nearly as bad as 32; the worst has every lane
// of every warp run all max_iter iterations on the loop's longest path
// (no early exit).
//
// Worst input an expert would build: Newton iterations that never converge:
// (a) the classic 2-cycle p(x) = x^3 - 2x + 2 from x0 = 0 (0 -> 1 -> 0 ...),
// (b) a polynomial without real roots, e.g. x^4 + 1 or x^2 + 1 (as a quartic
// with c4 = 0, c3 = 0: a "cubic" of degree 2), where the iterates wander,
// (c) iterates that overflow to inf/NaN (huge coefficients), after which
// every test is false and the loop runs to max_iter.
// Every one gives max_iter iterations on every lane; the script keeps the
// one the sim times longest.
//
// What the spec cannot state: nothing; the coefficient and starting-point
// ranges ([-10, 10]) are the user's choice of "realistic" polynomials.
extern "C" __global__ void newton_roots(const float* __restrict__ coef,
                                        const float* __restrict__ x0,
                                        float* __restrict__ root,
                                        int* __restrict__ iters,
                                        int n, int max_iter, float tol)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    float c0 = coef[5 * i + 0];
    float c1 = coef[5 * i + 1];
    float c2 = coef[5 * i + 2];
    float c3 = coef[5 * i + 3];
    float c4 = coef[5 * i + 4];
    float x = x0[i];

    int it = 0;
    while (it < max_iter) {
        float f  = (((c4 * x + c3) * x + c2) * x + c1) * x + c0;
        if (fabsf(f) < tol) break;
        float df = ((4.0f * c4 * x + 3.0f * c3) * x + 2.0f * c2) * x + c1;
        if (df == 0.0f) break;             // zero derivative: give up
        float step = f / df;
        x -= step;
        ++it;
        if (fabsf(step) <= 1e-7f * (1.0f + fabsf(x))) break;
    }
    root[i] = x;
    iters[i] = it;
}

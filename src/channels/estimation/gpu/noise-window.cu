// What the LMMSE fit leaves of each window of a launch's DM-RS pairs, for the noise variance
// (src/channels/estimation/lmmse.ts lmmseNoise and windowResidual): for a window of W pairs of
// DM-RS symbol d, layer j and antenna i, x = its W pairs despread with the layer's OCC then with
// the other, and out = |Pi_j x|^2 summed over Pi's rows in the CPU's operation order.
//   P, Q     chunks x (D x NT x NR x N) complex doubles (despread.cu), N = K / 4
//   Pi       NT x 2W x 2W complex doubles, row-major (LmmseFilter.residual)
//   out      chunks x D x NT x NR x per doubles, per = floor(N / W) windows a row of pairs
// OFDM_WINDOW_LANES lanes a window: lane a computes row a of Pi x (2W <= OFDM_WINDOW_LANES), and the
// group's first lane sums the rows' squares in order, so that a launch of a few thousand windows
// keeps the SMs busy (a thread a window runs 2W dependent row sums one after another). Wider
// windows are summed by the group's first lane alone. Launch: windows x OFDM_WINDOW_LANES threads,
// blocks of at most OFDM_BLOCK threads and a multiple of 32; every lane of a warp takes part in
// its shuffles.
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=4 -DNR=4

#include "dmrs.cuh"

#ifndef OFDM_BLOCK
#define OFDM_BLOCK 256
#endif
#ifndef OFDM_WINDOW_LANES
#define OFDM_WINDOW_LANES 16
#endif

// Row a of Pi_j x for the window at x (2W complex values: W of P, then W of Q, from `at`): |row|^2.
__device__ __forceinline__ double ofdm_window_row(const double* __restrict__ P, const double* __restrict__ Q,
                                                  const double* pa, long long at, int W) {
  const int W2 = 2 * W;
  double re = 0.0, im = 0.0;
  for (int b = 0; b < W2; b++) {
    const double* x = (b < W ? P : Q) + at + 2 * (b < W ? b : b - W);
    const double pr = pa[2 * b], pi = pa[2 * b + 1], xr = x[0], xi = x[1];
    re = __dadd_rn(re, __dsub_rn(__dmul_rn(pr, xr), __dmul_rn(pi, xi)));
    im = __dadd_rn(im, __dadd_rn(__dmul_rn(pr, xi), __dmul_rn(pi, xr)));
  }
  return __dadd_rn(__dmul_rn(re, re), __dmul_rn(im, im));
}

extern "C" __global__ void __launch_bounds__(OFDM_BLOCK) ofdm_noise_window(
    const double* __restrict__ P, const double* __restrict__ Q, const double* __restrict__ Pi, double* __restrict__ out,
    int chunks, int K, int D, int W, int per) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long g = t / OFDM_WINDOW_LANES;
  const int a = (int)(t % OFDM_WINDOW_LANES);
  const int first = (threadIdx.x & 31) - a;
  const bool live = g < (long long)chunks * D * NT * NR * per;
  const int N = K / 4, W2 = 2 * W;
  const bool lanes = W2 <= OFDM_WINDOW_LANES;
  long long at = 0;
  const double* pj = Pi;
  if (live) {
    const int w = (int)(g % per);
    const long long row = g / per;  // ((c D + d) NT + j) NR + i
    const int j = (int)((row / NR) % NT);
    at = 2 * (row * N + (long long)w * W);
    pj = Pi + 2 * (long long)j * W2 * W2;
  }
  if (lanes) {
    const double mine = live && a < W2 ? ofdm_window_row(P, Q, pj + 2 * a * W2, at, W) : 0.0;
    double s = 0.0;
    for (int r = 0; r < W2; r++) s = __dadd_rn(s, __shfl_sync(0xffffffffu, mine, first + r));
    if (live && a == 0) out[g] = s;
  } else if (live && a == 0) {
    double s = 0.0;
    for (int r = 0; r < W2; r++) s = __dadd_rn(s, ofdm_window_row(P, Q, pj + 2 * r * W2, at, W));
    out[g] = s;
  }
}

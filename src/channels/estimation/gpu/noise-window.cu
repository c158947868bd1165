// What the LMMSE fit leaves of each window of a launch's DM-RS pairs, for the noise variance
// (src/channels/estimation/lmmse.ts lmmseNoise and windowResidual): one thread a window of W pairs
// of DM-RS symbol d, layer j and antenna i, x = its W pairs despread with the layer's OCC then with
// the other, and out = |Pi_j x|^2 summed over Pi's rows in the CPU's operation order.
//   P, Q     chunks x (D x NT x NR x N) complex doubles (despread.cu), N = K / 4
//   Pi       NT x 2W x 2W complex doubles, row-major (LmmseFilter.residual)
//   out      chunks x D x NT x NR x per doubles, per = floor(N / W) windows a row of pairs
// A window's 2W values are read once into registers when W <= OFDM_REG_W (the default window is
// 8): neighbouring threads' windows lie W pairs apart, so reading them again for every row of Pi
// cost a cache line a lane per load. Launch: any block of at most OFDM_BLOCK threads.
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=4 -DNR=4

#include "dmrs.cuh"

#ifndef OFDM_BLOCK
#define OFDM_BLOCK 256
#endif
#define OFDM_REG_W 8

extern "C" __global__ void __launch_bounds__(OFDM_BLOCK) ofdm_noise_window(
    const double* __restrict__ P, const double* __restrict__ Q, const double* __restrict__ Pi, double* __restrict__ out,
    int chunks, int K, int D, int W, int per) {
  const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= (long long)chunks * D * NT * NR * per) return;
  const int N = K / 4, W2 = 2 * W;
  const int w = (int)(g % per);
  const long long row = g / per;  // ((c D + d) NT + j) NR + i
  const int j = (int)((row / NR) % NT);
  const long long at = 2 * (row * N + (long long)w * W);
  const double* pj = Pi + 2 * (long long)j * W2 * W2;
  double s = 0.0;
  if (W <= OFDM_REG_W) {
    double xr[2 * OFDM_REG_W], xi[2 * OFDM_REG_W];
#pragma unroll
    for (int b = 0; b < 2 * OFDM_REG_W; b++) {
      if (b < W2) {
        const double* x = (b < W ? P : Q) + at + 2 * (b < W ? b : b - W);
        xr[b] = x[0];
        xi[b] = x[1];
      }
    }
    for (int a = 0; a < W2; a++) {
      const double* pa = pj + 2 * a * W2;
      double re = 0.0, im = 0.0;
#pragma unroll
      for (int b = 0; b < 2 * OFDM_REG_W; b++) {
        if (b < W2) {
          const double pr = pa[2 * b], pi = pa[2 * b + 1];
          re = __dadd_rn(re, __dsub_rn(__dmul_rn(pr, xr[b]), __dmul_rn(pi, xi[b])));
          im = __dadd_rn(im, __dadd_rn(__dmul_rn(pr, xi[b]), __dmul_rn(pi, xr[b])));
        }
      }
      s = __dadd_rn(s, __dadd_rn(__dmul_rn(re, re), __dmul_rn(im, im)));
    }
  } else {
    for (int a = 0; a < W2; a++) {
      double re = 0.0, im = 0.0;
      for (int b = 0; b < W2; b++) {
        const double* x = (b < W ? P : Q) + at + 2 * (b < W ? b : b - W);
        const double pr = pj[2 * (a * W2 + b)], pi = pj[2 * (a * W2 + b) + 1], xr = x[0], xi = x[1];
        re = __dadd_rn(re, __dsub_rn(__dmul_rn(pr, xr), __dmul_rn(pi, xi)));
        im = __dadd_rn(im, __dadd_rn(__dmul_rn(pr, xi), __dmul_rn(pi, xr)));
      }
      s = __dadd_rn(s, __dadd_rn(__dmul_rn(re, re), __dmul_rn(im, im)));
    }
  }
  out[g] = s;
}

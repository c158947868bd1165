// The detectors' channels of a launch's data vectors with estimated CSI (src/sim/ofdm-link.ts),
// one thread a vector and channel entry (receive i, layer j): the estimate on the vector's
// subcarrier in the DM-RS symbols around its symbol, from the despread pairs (LS:
// src/channels/estimation/ls.ts lsEstimate, linear between pair centres, held at the ends; LMMSE:
// lmmse.ts lmmseEstimate, the host's window weights), then interpolateTime's value on the vector's
// symbol (linear between DM-RS symbols, held before the first and after the last), in the CPU's
// operation order, rounded to float32. Entry 0 also writes the vector's noise variance.
//   P        chunks x (D x NT x NR x N) complex doubles (ofdm-despread.cu)
//   Q        LMMSE: P's layout, the pairs despread with the other OCC (ofdm-despread.cu); LS: unread
//   starts   LMMSE: NT x K int32, subcarrier k's first pair for layer j (LmmseFilter.starts); null: LS
//   weights  LMMSE: NT x K x 2W complex doubles, W on P's pairs then W on Q's (LmmseFilter.weights)
//   noise    chunks doubles (ofdm-noise.cu)
//   H32      out, vectors x 2 NR NT floats (column-major nr x nt, the detectors' layout)
//   noiseIn  out, vectors floats: the vector's slot's noise variance (the normalize stage's noiseIn)
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=4 -DNR=4

#include "ofdm.cuh"

#ifndef OFDM_BLOCK
#define OFDM_BLOCK 256
#endif

// The frequency estimate of entry (i, j) on subcarrier k of DM-RS symbol d (P, Q: the chunk's pairs).
__device__ __forceinline__ void ofdm_freq(const double* P, const double* Q, const int* starts, const double* weights, int W,
                                          int K, int d, int i, int j, int k, double* hr, double* hi) {
  const int N = K / 4;
  const long long row = 2 * (((long long)d * NT + j) * NR + i) * N;
  const double* v = P + row;
  if (!starts) {
    const double x = (double)(k - ((j >> 1) + 1)) / 4.0;
    int n = (int)floor(x);
    double t = __dsub_rn(x, (double)n);
    if (n < 0) {
      n = 0;
      t = 0.0;
    } else if (n >= N - 1) {
      n = N - 1;
      t = 0.0;
    }
    if (t == 0.0) {
      *hr = v[2 * n];
      *hi = v[2 * n + 1];
    } else {
      const double u = __dsub_rn(1.0, t);
      *hr = __dadd_rn(__dmul_rn(u, v[2 * n]), __dmul_rn(t, v[2 * n + 2]));
      *hi = __dadd_rn(__dmul_rn(u, v[2 * n + 1]), __dmul_rn(t, v[2 * n + 3]));
    }
    return;
  }
  const double* x = v + 2 * starts[j * K + k];
  const double* o = Q + row + 2 * starts[j * K + k];
  const double* f = weights + 4 * ((long long)j * K + k) * W;
  double re = 0.0, im = 0.0;
  for (int w = 0; w < W; w++) {
    const double fr = f[2 * w], fi = f[2 * w + 1], xr = x[2 * w], xi = x[2 * w + 1];
    re = __dadd_rn(re, __dsub_rn(__dmul_rn(fr, xr), __dmul_rn(fi, xi)));
    im = __dadd_rn(im, __dadd_rn(__dmul_rn(fr, xi), __dmul_rn(fi, xr)));
  }
  f += 2 * W;
  for (int w = 0; w < W; w++) {
    const double fr = f[2 * w], fi = f[2 * w + 1], xr = o[2 * w], xi = o[2 * w + 1];
    re = __dadd_rn(re, __dsub_rn(__dmul_rn(fr, xr), __dmul_rn(fi, xi)));
    im = __dadd_rn(im, __dadd_rn(__dmul_rn(fr, xi), __dmul_rn(fi, xr)));
  }
  *hr = re;
  *hi = im;
}

extern "C" __global__ void __launch_bounds__(OFDM_BLOCK) ofdm_estimate(
    const double* __restrict__ P, const double* __restrict__ Q, const int* __restrict__ starts, const double* __restrict__ weights,
    const double* __restrict__ noise, float* __restrict__ H32, float* __restrict__ noiseIn, int chunkVectors, int vectors,
    int K, int D, int dmrsMask, int W) {
  const long long t = (long long)blockIdx.x * OFDM_BLOCK + threadIdx.x;
  if (t >= (long long)vectors * NR * NT) return;
  const int e = (int)(t % (NR * NT));
  const long long g = t / (NR * NT);
  const int i = e % NR, j = e / NR;
  const long long c = g / chunkVectors;
  const int v = (int)(g - c * chunkVectors);
  const int k = v % K;
  // the vector's symbol: the (v / K)-th without DM-RS
  int l = -1;
  for (int left = v / K; left >= 0;) {
    l++;
    if (!((dmrsMask >> l) & 1)) left--;
  }
  const long long chunkPairs = 2 * c * D * NT * NR * (K / 4);
  const double* Pc = P + chunkPairs;
  const double* Qc = Q ? Q + chunkPairs : nullptr;
  // the DM-RS symbols around l: d0 = d1 at the ends (held)
  int d1 = 0;
  while (d1 < D && ofdm_dmrs_symbol(dmrsMask, d1) < l) d1++;
  double hr, hi;
  if (d1 == 0 || d1 == D) {
    ofdm_freq(Pc, Qc, starts, weights, W, K, d1 == 0 ? 0 : D - 1, i, j, k, &hr, &hi);
  } else {
    const int a = ofdm_dmrs_symbol(dmrsMask, d1 - 1), b = ofdm_dmrs_symbol(dmrsMask, d1);
    const double tt = (double)(l - a) / (double)(b - a);
    double ar, ai, br, bi;
    ofdm_freq(Pc, Qc, starts, weights, W, K, d1 - 1, i, j, k, &ar, &ai);
    ofdm_freq(Pc, Qc, starts, weights, W, K, d1, i, j, k, &br, &bi);
    hr = __dadd_rn(ar, __dmul_rn(tt, __dsub_rn(br, ar)));
    hi = __dadd_rn(ai, __dmul_rn(tt, __dsub_rn(bi, ai)));
  }
  H32[2 * t] = (float)hr;
  H32[2 * t + 1] = (float)hi;
  if (e == 0) noiseIn[g] = (float)noise[c];
}

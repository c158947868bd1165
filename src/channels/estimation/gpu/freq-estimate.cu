// The frequency estimate of a launch's DM-RS symbols (src/channels/estimation/ls.ts lsEstimate,
// linear between pair centres, held at the ends; lmmse.ts lmmseEstimate, the host's window weights
// on the pairs despread both ways), in the CPU's operation order, one thread a DM-RS symbol d,
// subcarrier k and entry e = i + j NR: what time-interpolate.cu interpolates in time for each vector.
// Threads take the subcarrier fastest, so that a warp's lanes read neighbouring pairs and weights.
//   P        chunks x (D x NT x NR x N) complex doubles (despread.cu)
//   Q        LMMSE: P's layout, the pairs despread with the other OCC (despread.cu); LS: unread
//   starts   LMMSE: NT x K int32, subcarrier k's first pair for layer j (LmmseFilter.starts); null: LS
//   weights  LMMSE: NT x 2W x K complex doubles, weight w of layer j's subcarrier k at (j 2W + w) K + k:
//            W on P's pairs then W on Q's (LmmseFilter.weights, subcarrier innermost)
//   Hd       out, chunks x D x K x NR NT complex doubles, entry e of (d, k) at ((c D + d) K + k) NR NT + e
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=4 -DNR=4

#include "dmrs.cuh"

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
  const double* f = weights + 2 * ((long long)j * 2 * W * K + k);
  const long long fs = 2LL * K;  // from one weight of the subcarrier to the next
  double re = 0.0, im = 0.0;
  for (int w = 0; w < W; w++) {
    const double fr = f[w * fs], fi = f[w * fs + 1], xr = x[2 * w], xi = x[2 * w + 1];
    re = __dadd_rn(re, __dsub_rn(__dmul_rn(fr, xr), __dmul_rn(fi, xi)));
    im = __dadd_rn(im, __dadd_rn(__dmul_rn(fr, xi), __dmul_rn(fi, xr)));
  }
  f += W * fs;
  for (int w = 0; w < W; w++) {
    const double fr = f[w * fs], fi = f[w * fs + 1], xr = o[2 * w], xi = o[2 * w + 1];
    re = __dadd_rn(re, __dsub_rn(__dmul_rn(fr, xr), __dmul_rn(fi, xi)));
    im = __dadd_rn(im, __dadd_rn(__dmul_rn(fr, xi), __dmul_rn(fi, xr)));
  }
  *hr = re;
  *hi = im;
}

extern "C" __global__ void __launch_bounds__(OFDM_BLOCK) ofdm_freq_estimate(
    const double* __restrict__ P, const double* __restrict__ Q, const int* __restrict__ starts,
    const double* __restrict__ weights, double* __restrict__ Hd, int chunks, int K, int D, int W) {
  const long long t = (long long)blockIdx.x * OFDM_BLOCK + threadIdx.x;
  if (t >= (long long)chunks * D * K * NR * NT) return;
  // t = ((c D + d) NR NT + e) K + k
  const long long cde = t / K;
  const int k = (int)(t - cde * K);
  const int e = (int)(cde % (NR * NT));
  const long long cd = cde / (NR * NT);
  const int d = (int)(cd % D);
  const long long c = cd / D;
  const long long chunkPairs = 2 * c * D * NT * NR * (K / 4);
  double hr, hi;
  ofdm_freq(P + chunkPairs, Q ? Q + chunkPairs : nullptr, starts, weights, W, K, d, e % NR, e / NR, k, &hr, &hi);
  const long long out = (cd * K + k) * NR * NT + e;
  Hd[2 * out] = hr;
  Hd[2 * out + 1] = hi;
}

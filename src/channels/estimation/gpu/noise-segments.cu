// The noise variance's sums of a launch's slots, in segments (src/channels/estimation/noise.ts
// segmentedSum): one thread a slot's segment of OFDM_NOISE_SEGMENT terms, summed in order from 0,
// each term as the CPU computes it. The terms, by method:
//   0 'free' (noise.ts free): t < empty: |y|^2 on CDM group 1's empty comb, t = (d K/2 + m) NR + i
//     on subcarrier 2m + 1; then |z|^2 / 2 of the single-port group's unused OCC, t - empty =
//     (d K/4 + n) NR + i for pair n (freeTermCounts);
//   1 'residual' (noise.ts residual): |h^_{n-1} - 2 h^_n + h^_{n+1}|^2 of row q = (d NT + j) NR + i
//     of the despread pairs, t = q (N - 2) + n - 1;
//   2 LMMSE (lmmse.ts lmmseNoise): the windows' residuals (noise-window.cu), term t = windows[t].
//   Yp       chunks x D x K x NR complex doubles (the received DM-RS symbols; method 0)
//   P        chunks x (D x NT x NR x N) complex doubles (despread.cu; method 1)
//   seq      slotsPerFrame x D x K/2 complex doubles (ofdm.cuh; method 0)
//   windows  chunks x terms doubles (method 2)
//   segs     out, chunks x ceil(terms / OFDM_NOISE_SEGMENT) doubles
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=4 -DNR=4
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=3 -DNR=2

#include "dmrs.cuh"

#ifndef OFDM_BLOCK
#define OFDM_BLOCK 256
#endif
// noise.ts NOISE_SEGMENT
#define OFDM_NOISE_SEGMENT 64
// LMMSE's terms are loaded this many at a time (in flight together), then added in order
#define OFDM_NOISE_BATCH 16

__device__ __forceinline__ double ofdm_noise_term(const double* Yc, const double* Pc, const double* sq, const double* Wc,
                                                  int method, long long t, int K, int empty) {
  const int M = K / 2, N = K / 4;
  if (method == 2) return Wc[t];
  if (method == 1) {
    const long long q = t / (N - 2);
    const int n = 1 + (int)(t % (N - 2));
    const double* a = Pc + 2 * (q * N + n);
    const double er = __dadd_rn(__dsub_rn(a[-2], __dmul_rn(2.0, a[0])), a[2]);
    const double ei = __dadd_rn(__dsub_rn(a[-1], __dmul_rn(2.0, a[1])), a[3]);
    return __dadd_rn(__dmul_rn(er, er), __dmul_rn(ei, ei));
  }
  if (t < empty) {
    const int i = (int)(t % NR);
    const int m = (int)((t / NR) % M);
    const int d = (int)(t / ((long long)NR * M));
    const double* y = Yc + 2 * (((long long)d * K + 2 * m + 1) * NR + i);
    return __dadd_rn(__dmul_rn(y[0], y[0]), __dmul_rn(y[1], y[1]));
  }
  const long long u = t - empty;
  const int i = (int)(u % NR);
  const int n = (int)((u / NR) % N);
  const int d = (int)(u / ((long long)NR * N));
  const double* r = sq + 2 * (d * M + 2 * n);
  const double r0r = r[0], r0i = r[1], r1r = r[2], r1i = r[3];
  const double* y0 = Yc + 2 * (((long long)d * K + 4 * n + (NT >> 1)) * NR + i);
  const double* y1 = y0 + 2 * 2 * NR;  // subcarrier k0 + 2
  const double u0r = y0[0], u0i = y0[1], u1r = y1[0], u1i = y1[1];
  const double zr = __dsub_rn(__dadd_rn(__dmul_rn(r0r, u0r), __dmul_rn(r0i, u0i)), __dadd_rn(__dmul_rn(r1r, u1r), __dmul_rn(r1i, u1i)));
  const double zi = __dsub_rn(__dsub_rn(__dmul_rn(r0r, u0i), __dmul_rn(r0i, u0r)), __dsub_rn(__dmul_rn(r1r, u1i), __dmul_rn(r1i, u1r)));
  return __dadd_rn(__dmul_rn(zr, zr), __dmul_rn(zi, zi)) / 2.0;
}

extern "C" __global__ void __launch_bounds__(OFDM_BLOCK) ofdm_noise_segments(
    const double* __restrict__ Yp, const double* __restrict__ P, const double* __restrict__ seq,
    const double* __restrict__ windows, double* __restrict__ segs, unsigned long long chunk0, int chunks, int K, int D,
    int slotsPerFrame, int method, long long terms, int empty) {
  const long long S = (terms + OFDM_NOISE_SEGMENT - 1) / OFDM_NOISE_SEGMENT;
  const long long g = (long long)blockIdx.x * OFDM_BLOCK + threadIdx.x;
  if (g >= (long long)chunks * S) return;
  const long long c = g / S, s = g - c * S;
  const double* Yc = Yp + 2 * c * D * K * NR;
  const double* Pc = P + 2 * c * D * NT * NR * (K / 4);
  const double* Wc = windows ? windows + c * terms : nullptr;
  const double* sq = seq + 2 * (long long)((chunk0 + c) % slotsPerFrame) * D * (K / 2);
  const long long t1 = s * OFDM_NOISE_SEGMENT + OFDM_NOISE_SEGMENT < terms ? s * OFDM_NOISE_SEGMENT + OFDM_NOISE_SEGMENT : terms;
  double part = 0.0;
  if (method == 2) {
    for (long long t0 = s * OFDM_NOISE_SEGMENT; t0 < t1; t0 += OFDM_NOISE_BATCH) {
      double v[OFDM_NOISE_BATCH];
#pragma unroll
      for (int i = 0; i < OFDM_NOISE_BATCH; i++) v[i] = t0 + i < t1 ? Wc[t0 + i] : 0.0;
#pragma unroll
      for (int i = 0; i < OFDM_NOISE_BATCH; i++)
        if (t0 + i < t1) part = __dadd_rn(part, v[i]);
    }
  } else {
    for (long long t = s * OFDM_NOISE_SEGMENT; t < t1; t++)
      part = __dadd_rn(part, ofdm_noise_term(Yc, Pc, sq, Wc, method, t, K, empty));
  }
  segs[g] = part;
}

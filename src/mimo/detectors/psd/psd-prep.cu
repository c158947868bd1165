// psd_prep: per-channel preprocessing of the PSD, one thread a channel: the real model H_r of the
// channel (RVD, or the BPSK model) and its sorted QR, as triangularizeInto(model, H, 'ascending')
// in preprocess/real-system.ts (qrInto in preprocess/qr.ts): modified Gram-Schmidt in float64,
// operation for operation (the host compiles it with -fmad=false), taking at each step the remaining
// column of least residual norm (ties to the first), residual norms downdated. So the column order
// is the CPU engine's on the same (float32) input, and a channel is flagged RANK_DEFICIENT exactly
// where the CPU throws its RankDeficientError (the engine then redoes its vectors on the CPU, which
// raises that error). Q^T and R are stored rounded to float32 for the search.
//
// In:  H (channels x nr x nt complex, column-major, normalized by the engine).
// Out: fac (channels x PSD_FAC_WORDS floats, layout in psd-common.cuh).
//
// nvcc-variant: -DPSD_NT=4 -DPSD_NR=4 -DPSD_BPSK=0 -DPSD_Q=4 -DPSD_S=3 -DPSD_L0=9 -DPSD_L1=6 -DPSD_L2=4 -DPSD_L3=1 -DPSD_P0=1 -DPSD_P1=4 -DPSD_P2=1 -DPSD_LABELS=0x1023ull -fmad=false
// nvcc-variant: -DPSD_NT=2 -DPSD_NR=2 -DPSD_BPSK=1 -DPSD_Q=2 -DPSD_S=1 -DPSD_L0=3 -DPSD_L1=1 -DPSD_P0=1 -fmad=false

#include "psd-common.cuh"

extern "C" __global__ void psd_prep(const float* __restrict__ H, float* __restrict__ fac, int channels) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  const float* h = H + (size_t)c * 2 * PSD_NR * PSD_NT;
  float* out = fac + (size_t)c * PSD_FAC_WORDS;
  double Q[PSD_N][PSD_M];
  double R[PSD_N][PSD_N];
  double orig[PSD_N], res[PSD_N];
  int perm[PSD_N];
#pragma unroll
  for (int j = 0; j < PSD_NT; j++) {
#pragma unroll
    for (int i = 0; i < PSD_NR; i++) {
      const double hr = h[2 * (i + j * PSD_NR)], hi = h[2 * (i + j * PSD_NR) + 1];
#if PSD_BPSK
      const double a = 0.7071067811865476;
      Q[j][i] = a * (hr - hi);
      Q[j][PSD_NR + i] = a * (hr + hi);
#else
      Q[j][i] = hr;
      Q[j][PSD_NR + i] = hi;
      Q[PSD_NT + j][i] = -hi;
      Q[PSD_NT + j][PSD_NR + i] = hr;
#endif
    }
  }
#pragma unroll
  for (int k = 0; k < PSD_N; k++) {
    perm[k] = k;
    double nn = 0;
#pragma unroll
    for (int r = 0; r < PSD_M; r++) nn += Q[k][r] * Q[k][r];
    orig[k] = sqrt(nn);
#pragma unroll
    for (int i = 0; i < PSD_N; i++) R[i][k] = 0;
  }
#pragma unroll
  for (int k = 0; k < PSD_N; k++) res[k] = orig[k] * orig[k];
  int flags = 0;
  for (int i = 0; i < PSD_N; i++) {
    int best = i;
    double bestVal = res[i];
    for (int k = i + 1; k < PSD_N; k++) if (res[k] < bestVal) { bestVal = res[k]; best = k; }
    if (best != i) {
      for (int r = 0; r < PSD_M; r++) { const double t = Q[i][r]; Q[i][r] = Q[best][r]; Q[best][r] = t; }
      for (int r = 0; r < i; r++) { const double t = R[r][i]; R[r][i] = R[r][best]; R[r][best] = t; }
      { const int t = perm[i]; perm[i] = perm[best]; perm[best] = t; }
      { const double t = orig[i]; orig[i] = orig[best]; orig[best] = t; }
      { const double t = res[i]; res[i] = res[best]; res[best] = t; }
    }
    double nn = 0;
    for (int r = 0; r < PSD_M; r++) nn += Q[i][r] * Q[i][r];
    const double norm = sqrt(nn);
    // qr.ts's RANK_TOL: a column below 1e-12 of its norm is dependent (a zero column included).
    if (!(norm > 1e-12 * orig[i])) { flags |= PSD_ST_RANK_DEFICIENT; break; }
    R[i][i] = norm;
    const double s = 1 / norm;
    for (int r = 0; r < PSD_M; r++) Q[i][r] = Q[i][r] * s;
    for (int k = i + 1; k < PSD_N; k++) {
      double d = 0;
      for (int r = 0; r < PSD_M; r++) d += Q[i][r] * Q[k][r];
      R[i][k] = d;
      for (int r = 0; r < PSD_M; r++) Q[k][r] = Q[k][r] - d * Q[i][r];
      res[k] = res[k] - d * d;
    }
  }
  for (int k = 0; k < PSD_N; k++) {
    for (int r = 0; r < PSD_M; r++) out[PSD_FAC_QT + k * PSD_M + r] = (float)Q[k][r];
    for (int j = 0; j < PSD_N; j++) out[PSD_FAC_R + k * PSD_N + j] = (float)R[k][j];
    out[PSD_FAC_PERM + k] = __uint_as_float((unsigned)perm[k]);
  }
  out[PSD_FAC_FLAGS] = __uint_as_float((unsigned)flags);
}

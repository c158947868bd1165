// psd_prep: per-channel preprocessing of the PSD, one thread a channel: the real model H_r of the
// channel (RVD, or the BPSK model) and its sorted QR, as triangularizeInto(model, H, 'ascending')
// in preprocess/real-system.ts: modified Gram-Schmidt taking at each step the remaining column of
// least residual norm (ties to the first), residual norms downdated. In float32 each new column is
// orthogonalised a second time against the previous ones (so that Q^T Q = I to float32 rounding
// whatever the conditioning, and the metrics ||Q^T y_r - R x||^2 stay ||y_r - H_r x||^2 up to a
// constant). A column whose residual falls below 2^-16 of its norm (float32 cannot resolve it;
// singular channels included) flags the channel FLOAT32_UNSAFE: the engine redoes its vectors on
// the CPU in float64, which decides them or raises the CPU's RankDeficientError.
//
// In:  H (channels x nr x nt complex, column-major, normalized by the engine).
// Out: fac (channels x PSD_FAC_WORDS floats, layout in psd-common.cuh).
//
// nvcc-variant: -DPSD_NT=4 -DPSD_NR=4 -DPSD_BPSK=0 -DPSD_Q=4 -DPSD_S=3 -DPSD_L0=9 -DPSD_L1=6 -DPSD_L2=4 -DPSD_L3=1 -DPSD_P0=1 -DPSD_P1=4 -DPSD_P2=1 -DPSD_LABELS=0x1023ull
// nvcc-variant: -DPSD_NT=2 -DPSD_NR=2 -DPSD_BPSK=1 -DPSD_Q=2 -DPSD_S=1 -DPSD_L0=3 -DPSD_L1=1 -DPSD_P0=1

#include "psd-common.cuh"

extern "C" __global__ void psd_prep(const float* __restrict__ H, float* __restrict__ fac, int channels) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  const float* h = H + (size_t)c * 2 * PSD_NR * PSD_NT;
  float* out = fac + (size_t)c * PSD_FAC_WORDS;
  float Q[PSD_N][PSD_M];
  float R[PSD_N][PSD_N];
  float orig[PSD_N], res[PSD_N];
  int perm[PSD_N];
#pragma unroll
  for (int j = 0; j < PSD_NT; j++) {
#pragma unroll
    for (int i = 0; i < PSD_NR; i++) {
      const float hr = h[2 * (i + j * PSD_NR)], hi = h[2 * (i + j * PSD_NR) + 1];
#if PSD_BPSK
      const float a = 0.70710678118654752f;
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
    float nn = 0.f;
#pragma unroll
    for (int r = 0; r < PSD_M; r++) nn += Q[k][r] * Q[k][r];
    orig[k] = sqrtf(nn);
    res[k] = orig[k] * orig[k];
#pragma unroll
    for (int i = 0; i < PSD_N; i++) R[i][k] = 0.f;
  }
  int flags = 0;
  for (int i = 0; i < PSD_N; i++) {
    int best = i;
    float bestVal = res[i];
    for (int k = i + 1; k < PSD_N; k++) if (res[k] < bestVal) { bestVal = res[k]; best = k; }
    if (best != i) {
      for (int r = 0; r < PSD_M; r++) { const float t = Q[i][r]; Q[i][r] = Q[best][r]; Q[best][r] = t; }
      for (int r = 0; r < i; r++) { const float t = R[r][i]; R[r][i] = R[r][best]; R[r][best] = t; }
      { const int t = perm[i]; perm[i] = perm[best]; perm[best] = t; }
      { const float t = orig[i]; orig[i] = orig[best]; orig[best] = t; }
      { const float t = res[i]; res[i] = res[best]; res[best] = t; }
    }
    // Second orthogonalisation against the columns already taken.
    for (int j = 0; j < i; j++) {
      float d = 0.f;
      for (int r = 0; r < PSD_M; r++) d += Q[j][r] * Q[i][r];
      R[j][i] += d;
      for (int r = 0; r < PSD_M; r++) Q[i][r] -= d * Q[j][r];
    }
    float nn = 0.f;
    for (int r = 0; r < PSD_M; r++) nn += Q[i][r] * Q[i][r];
    const float norm = sqrtf(nn);
    if (!(norm > 1.52587890625e-5f * orig[i])) { flags |= PSD_ST_FLOAT32_UNSAFE; break; }
    R[i][i] = norm;
    const float s = 1.f / norm;
    for (int r = 0; r < PSD_M; r++) Q[i][r] *= s;
    for (int k = i + 1; k < PSD_N; k++) {
      float d = 0.f;
      for (int r = 0; r < PSD_M; r++) d += Q[i][r] * Q[k][r];
      R[i][k] = d;
      for (int r = 0; r < PSD_M; r++) Q[k][r] -= d * Q[i][r];
      res[k] -= d * d;
    }
  }
  for (int k = 0; k < PSD_N; k++) {
    for (int r = 0; r < PSD_M; r++) out[PSD_FAC_QT + k * PSD_M + r] = Q[k][r];
    for (int j = 0; j < PSD_N; j++) out[PSD_FAC_R + k * PSD_N + j] = R[k][j];
    out[PSD_FAC_PERM + k] = __uint_as_float((unsigned)perm[k]);
  }
  out[PSD_FAC_FLAGS] = __uint_as_float((unsigned)flags);
}

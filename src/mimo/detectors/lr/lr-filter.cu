// Lattice-aided detection, step 3 of 4: one thread per channel, in double with -fmad=false as
// prepareLr (lattice-aided.ts) computes it, from the unimodular Z the all-swap LLL found: the
// reduced basis B Z (B rebuilt in double), its QR (plain MGS, qr.ts), the reduced-domain filter
// P = Q_top^T and p0 = Q^T cst, and for ZF / MMSE both multiplied by R^-1. Stored as float32 for
// the per-vector step (lr-detect.cu), with Z; a basis the LLL could not reduce in float32, a
// dependent column, or numbers float32 cannot carry are flagged for the engine.
//
// The lattice part's status words (lllCudaPlan's status layout) come as LLL_STATS_WIDTH,
// LLL_STATUS_WORD, LLL_STATUS_OK and LLL_STATUS_DEPENDENT.
//
// nvcc-variant: -fmad=false -DLR_VARIANT=0 -DNR=4 -DNT=4 -DND=8 -DROWS=8 -DDPS=2 -DQL=4 -DMIMO_COMPILE_CHECK -DLLL_STATS_WIDTH=5 -DLLL_STATUS_WORD=3 -DLLL_STATUS_OK=0 -DLLL_STATUS_DEPENDENT=2
// nvcc-variant: -fmad=false -DLR_VARIANT=2 -DNR=8 -DNT=8 -DND=16 -DROWS=16 -DDPS=2 -DQL=4 -DMIMO_COMPILE_CHECK -DLLL_STATS_WIDTH=5 -DLLL_STATUS_WORD=3 -DLLL_STATUS_OK=0 -DLLL_STATUS_DEPENDENT=2

#include "lr-common.cuh"
#include "../qr-double.cuh"


// Per channel out: P (ND x ROWS), p0 (ND), R (ND x ND), Zf (ND x ND, float32 integers), flags (1 int).
extern "C" __global__ void lr_filter(const float* __restrict__ H, const float* __restrict__ noise, const double* __restrict__ Zin,
                                     const int* __restrict__ lllStats, float* __restrict__ Pout, float* __restrict__ p0out,
                                     float* __restrict__ Rout, float* __restrict__ Zout, int* __restrict__ flagsOut,
                                     int channels, int vpc, double scale) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  const int lll = lllStats[(size_t)c * LLL_STATS_WIDTH + LLL_STATUS_WORD];
  if (lll != LLL_STATUS_OK) {
    flagsOut[c] = lll == LLL_STATUS_DEPENDENT ? MIMO_RANK_DEFICIENT : MIMO_FLOAT32_UNSAFE;
    return;
  }
  const int n = NB;
  double B[NB * ND], cst[NB], Q[NB * ND], R[ND * ND], orig[ND];
  lr_basis_of(H + (size_t)c * 2 * NR * NT, scale, (double)noise[(size_t)c * vpc], B, cst);
  const double* Z = Zin + (size_t)c * ND * ND;
  int flags = 0;
  float* zf = Zout + (size_t)c * ND * ND;
  for (int e = 0; e < ND * ND; e++) {
    if (!(fabs(Z[e]) < 16777216.0)) flags = MIMO_FLOAT32_UNSAFE;  // 2^24: float32 integers
    zf[e] = (float)Z[e];
  }
  // B Z, each entry summed over k in order
  for (int j = 0; j < ND; j++) {
    for (int r = 0; r < n; r++) {
      double acc = 0;
      for (int k = 0; k < ND; k++) acc += B[r + k * n] * Z[k + j * ND];
      Q[r + j * n] = acc;
    }
  }
  // qrInto(..., 'none')
  for (int k = 0; k < ND; k++) {
    double nn = 0;
    for (int r = 0; r < n; r++) nn += Q[r + k * n] * Q[r + k * n];
    orig[k] = sqrt(nn);
    for (int i = 0; i < ND; i++) R[i + k * ND] = 0;
  }
  for (int i = 0; i < ND && !(flags & MIMO_RANK_DEFICIENT); i++) {
    const double norm = qr_double_norm(Q, n, i);
    if (!(norm > RANK_TOL * orig[i])) { flags = MIMO_RANK_DEFICIENT; break; }
    if (!(norm > FLOAT32_TOL * orig[i])) flags |= MIMO_FLOAT32_UNSAFE;
    qr_double_normalise(Q, n, R, norm, i);
    for (int k = i + 1; k < ND; k++) qr_double_project(Q, n, R, i, k);
  }
  if (flags & MIMO_RANK_DEFICIENT) {
    flagsOut[c] = MIMO_RANK_DEFICIENT;
    return;
  }
  float* P = Pout + (size_t)c * ND * ROWS;
  float* p0 = p0out + (size_t)c * ND;
  // P = Q_top^T, p0 = Q^T cst; for ZF / MMSE, R^-1 applied to each column (back substitution)
  double col[ND];
  for (int r = 0; r <= ROWS; r++) {
    for (int k = 0; k < ND; k++) {
      if (r < ROWS) col[k] = Q[r + k * n];
      else {
        double s = 0;
        for (int t = 0; t < n; t++) s += Q[t + k * n] * cst[t];
        col[k] = s;
      }
    }
    if (LR_VARIANT != 2) {
      for (int i = ND - 1; i >= 0; i--) {
        double s = col[i];
        for (int j = i + 1; j < ND; j++) s -= R[i + j * ND] * col[j];
        col[i] = s / R[i + i * ND];
      }
    }
    for (int k = 0; k < ND; k++) {
      if (r < ROWS) P[k + r * ND] = (float)col[k];
      else p0[k] = (float)col[k];
    }
  }
  float* rr = Rout + (size_t)c * ND * ND;
  for (int e = 0; e < ND * ND; e++) rr[e] = (float)R[e];
  flagsOut[c] = flags;
}

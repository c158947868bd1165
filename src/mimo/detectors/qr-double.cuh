// The modified Gram-Schmidt step of the per-channel QR in double that the K-best and lattice-aided
// preprocessing kernels (kbest/kbest-prep.cu, lr/lr-filter.cu) share: qrInto's step in
// src/mimo/preprocess/qr.ts, operation for operation (the kernels compile with -fmad=false, so the
// factors, and the decisions taken on them, are the CPU engine's bit for bit).
// Sizes: ND (real unknowns, the columns) from the including kernel's defines (real-model.cuh).

#ifndef MIMO_QR_DOUBLE_CUH
#define MIMO_QR_DOUBLE_CUH

#include "kbest/real-model.cuh"

// Relative residual below which the CPU calls a column dependent (qr.ts: RANK_TOL).
#define RANK_TOL 1e-12
// Relative residual below which float32 cannot carry the search (the engine redoes the channel's
// vectors on the CPU in float64).
#define FLOAT32_TOL 2.44140625e-4  // 2^-12

// |v_i|: the norm of column i of Q (rows x ND, column-major), summed over the rows in order.
__device__ __forceinline__ double qr_double_norm(const double* Q, int rows, int i) {
  double nn = 0;
  for (int r = 0; r < rows; r++) nn += Q[r + i * rows] * Q[r + i * rows];
  return sqrt(nn);
}

// The rest of step i of the QR of Q (rows x ND, column-major; columns 0 .. i-1 already
// orthonormal, column i the pivot, norm = qr_double_norm(Q, rows, i), which the caller checked
// against RANK_TOL and FLOAT32_TOL): R_ii = norm into R (ND x ND, column-major), q_i = v_i / R_ii,
// then for each later column k, R_ik = q_i . v_k and v_k -= R_ik q_i (and SQRD's residual downdate
// res[k] -= R_ik^2 when res is given).
__device__ __forceinline__ void qr_double_step(double* Q, int rows, double* R, double norm, double* res, int i) {
  R[i + i * ND] = norm;
  const double s = 1 / norm;
  for (int r = 0; r < rows; r++) Q[r + i * rows] = Q[r + i * rows] * s;
  for (int k = i + 1; k < ND; k++) {
    double d = 0;
    for (int r = 0; r < rows; r++) d += Q[r + i * rows] * Q[r + k * rows];
    R[i + k * ND] = d;
    for (int r = 0; r < rows; r++) Q[r + k * rows] = Q[r + k * rows] - d * Q[r + i * rows];
    if (res) res[k] = res[k] - d * d;
  }
}

#endif  // MIMO_QR_DOUBLE_CUH

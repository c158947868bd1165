// The modified Gram-Schmidt step of the per-channel QR in double of the lattice-aided preprocessing
// (lr/lr-filter.cu), and the tolerances kbest/kbest-prep.cu shares with it: qrInto's step in
// src/mimo/preprocess/qr.ts, operation for operation (the kernels compile with -fmad=false, so the
// factors, and the decisions taken on them, are the CPU engine's bit for bit). The kernels keep
// the loop over the later columns, where the sorted QR adds its residual downdate.
// Sizes: ND (real unknowns, the columns) from the including kernel's defines (real-model.cuh).

#ifndef MIMO_QR_DOUBLE_CUH
#define MIMO_QR_DOUBLE_CUH

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

// Step i of the QR of Q (rows x ND, column-major; columns 0 .. i-1 already orthonormal, column i
// the pivot), once the caller has checked norm = qr_double_norm(Q, rows, i) against RANK_TOL and
// FLOAT32_TOL: R_ii = norm into R (ND x ND, column-major) and q_i = v_i / R_ii; then
// qr_double_project for each later column k.
__device__ __forceinline__ void qr_double_normalise(double* Q, int rows, double* R, double norm, int i) {
  R[i + i * ND] = norm;
  const double s = 1 / norm;
  for (int r = 0; r < rows; r++) Q[r + i * rows] = Q[r + i * rows] * s;
}

// R_ik = q_i . v_k into R and v_k -= R_ik q_i; returns R_ik (for SQRD's residual downdate).
__device__ __forceinline__ double qr_double_project(double* Q, int rows, double* R, int i, int k) {
  double d = 0;
  for (int r = 0; r < rows; r++) d += Q[r + i * rows] * Q[r + k * rows];
  R[i + k * ND] = d;
  for (int r = 0; r < rows; r++) Q[r + k * rows] = Q[r + k * rows] - d * Q[r + i * rows];
  return d;
}

#endif  // MIMO_QR_DOUBLE_CUH

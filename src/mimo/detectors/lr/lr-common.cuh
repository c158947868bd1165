// What the lattice-aided kernels share (lattice-aided.ts is the reference): the variant
// (LR_VARIANT 0 zf, 1 mmse, 2 sic), the basis height NB (ROWS, or ROWS + ND for the MMSE-extended
// basis), and the shifted, scaled (and MMSE-extended) basis B = 2 [Ha; beta I] with its constant
// part cst = (Q-1) [Ha 1; beta 1], in double as prepareLr computes them.

#ifndef LR_COMMON_CUH
#define LR_COMMON_CUH

#include "../kbest/real-model.cuh"

#define LR_EXT (LR_VARIANT != 0)
#define NB (LR_EXT ? ROWS + ND : ROWS)

// B (NB x ND, column-major) and cst (NB) of the channel H with noise N0 (MMSE: beta^2 = N0/2 / E[p^2]).
__device__ __forceinline__ void lr_basis_of(const float* __restrict__ H, double scale, double noiseVar, double* B, double* cst) {
  double Ha[ROWS * ND];
  real_model_fill(H, scale, Ha);
  const double levelEnergy = (double)(QL * QL - 1) / 3;
  const double beta = LR_EXT ? sqrt(noiseVar / 2 / levelEnergy) : 0;
  for (int e = 0; e < NB * ND; e++) B[e] = 0;
  for (int r = 0; r < NB; r++) cst[r] = 0;
  for (int k = 0; k < ND; k++) {
    for (int r = 0; r < ROWS; r++) {
      const double h = Ha[r + k * ROWS];
      B[r + k * NB] = 2 * h;
      cst[r] += (QL - 1) * h;
    }
    if (LR_EXT) {
      B[ROWS + k + k * NB] = 2 * beta;
      cst[ROWS + k] = (QL - 1) * beta;
    }
  }
}

#endif  // LR_COMMON_CUH

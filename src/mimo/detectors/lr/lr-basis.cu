// Lattice-aided detection, step 1 of 4 (cuda.ts launches them): one thread per channel writes the
// shifted and scaled (MMSE: extended, with the N0 of the channel's first vector) real basis
// B = 2 [Ha; beta I] as float32, the input of the all-swap LLL (src/lattice/allswap/lane-kernel.cu).
//
// nvcc-variant: -fmad=false -DLR_VARIANT=0 -DNR=4 -DNT=4 -DND=8 -DROWS=8 -DDPS=2 -DQL=4 -DMIMO_COMPILE_CHECK
// nvcc-variant: -fmad=false -DLR_VARIANT=1 -DNR=8 -DNT=8 -DND=16 -DROWS=16 -DDPS=2 -DQL=4 -DMIMO_COMPILE_CHECK

#include "lr-common.cuh"

// Bout: channels x (NB x ND) float32, column-major.
extern "C" __global__ void lr_basis(const float* __restrict__ H, const float* __restrict__ noise, float* __restrict__ Bout,
                                    int channels, int vpc, double scale) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  double B[NB * ND], cst[NB];
  lr_basis_of(H + (size_t)c * 2 * NR * NT, scale, (double)noise[(size_t)c * vpc], B, cst);
  float* out = Bout + (size_t)c * NB * ND;
  for (int e = 0; e < NB * ND; e++) out[e] = (float)B[e];
}

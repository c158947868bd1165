// Lattice-aided detection, step 4 of 4: one thread per received vector, float32, as detectLr
// (lattice-aided.ts): t = p0 + P y; ZF / MMSE round t, SIC cancels and rounds from the last
// reduced dimension; u = Z v clipped to [0, Q-1] is the level index of each real dimension.
// MMSE and SIC were prepared with the N0 of the channel's first vector: a vector with another N0
// is flagged FLOAT32_UNSAFE, which the engine redoes on the CPU (prepared with its own N0).
//
// nvcc-variant: -DLR_VARIANT=0 -DNR=4 -DNT=4 -DND=8 -DROWS=8 -DDPS=2 -DQL=4 -DMIMO_COMPILE_CHECK
// nvcc-variant: -DLR_VARIANT=2 -DNR=8 -DNT=8 -DND=16 -DROWS=16 -DDPS=2 -DQL=4 -DMIMO_COMPILE_CHECK

#include "lr-common.cuh"

// Math.round: nearest, halves up (exact).
__device__ __forceinline__ float lr_round(float x) {
  const float f = floorf(x);
  return x - f >= 0.5f ? f + 1.0f : f;
}

extern "C" __global__ void lr_detect(const float* __restrict__ y, const float* __restrict__ noise, const float* __restrict__ Ps,
                                     const float* __restrict__ p0s, const float* __restrict__ Rs, const float* __restrict__ Zs,
                                     const int* __restrict__ chFlags, int* __restrict__ symbols, int* __restrict__ status,
                                     int vectors, int vpc) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vectors) return;
  if (status[2 * v] != 0) return;
  const int c = v / vpc;
  const int cf = chFlags[c];
  if (cf != 0) {
    status[2 * v] = cf;
    return;
  }
  if (LR_EXT && noise[v] != noise[(size_t)c * vpc]) {
    status[2 * v] = MIMO_FLOAT32_UNSAFE;
    return;
  }
  const float* P = Ps + (size_t)c * ND * ROWS;
  const float* p0 = p0s + (size_t)c * ND;
  const float* Z = Zs + (size_t)c * ND * ND;
  const float* yv = y + (size_t)v * ROWS;
  float t[ND], x[ND];
  for (int k = 0; k < ND; k++) t[k] = p0[k];
  for (int r = 0; r < ROWS; r++) {
    const float yr = yv[r];
    for (int k = 0; k < ND; k++) t[k] += P[k + r * ND] * yr;
  }
  if (LR_VARIANT == 2) {
    const float* R = Rs + (size_t)c * ND * ND;
    for (int i = ND - 1; i >= 0; i--) {
      float b = t[i];
      for (int j = i + 1; j < ND; j++) b -= R[i + j * ND] * x[j];
      x[i] = lr_round(b / R[i + i * ND]);
    }
  } else {
    for (int k = 0; k < ND; k++) x[k] = lr_round(t[k]);
  }
  unsigned char u[ND], dim[ND];
  for (int i = 0; i < ND; i++) {
    float a = 0;
    for (int k = 0; k < ND; k++) a += Z[i + k * ND] * x[k];
    u[i] = (unsigned char)(a < 0 ? 0 : a > QL - 1 ? QL - 1 : (int)a);
    dim[i] = (unsigned char)i;
  }
  real_model_symbols(u, dim, symbols + (size_t)v * NT);
  status[2 * v + 1] = 0;
}

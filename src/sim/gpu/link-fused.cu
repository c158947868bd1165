// The whole link of a launch with one channel a vector, one thread per vector: its channel
// (Philox pairs of the chunk's channel stream, as link-channels.cu draws them, kept in registers
// in float64 and written to H32 rounded to float32), then its symbols and received vector
// (link.cuh). What link-channels.cu and link-vectors.cu give for vpc = 1, without the float64
// channels' round trip through device memory. Layouts as in those files.
// nvcc-variant: -DLINK_BLOCK=128 -DNT=4 -DNR=4
// nvcc-variant: -DLINK_BLOCK=128 -DNT=8 -DNR=8

#include "link.cuh"

#ifndef LINK_BLOCK
#define LINK_BLOCK 128
#endif

extern "C" __global__ void __launch_bounds__(LINK_BLOCK) link_fused(
    const double* __restrict__ points, float* __restrict__ H32, int* __restrict__ tx, float* __restrict__ y32,
    unsigned long long seed, unsigned snrIndex, unsigned long long chunk0, unsigned long long v0, unsigned long long chunkVectors,
    int vectors, unsigned M, double sd) {
  const long long g = (long long)blockIdx.x * LINK_BLOCK + threadIdx.x;
  if (g >= vectors) return;
  const unsigned long long p = v0 + g;
  const unsigned long long chunk = chunk0 + p / chunkVectors, v = p % chunkVectors;
  const unsigned long long chStream = link_stream(snrIndex, chunk, LINK_PURPOSE_CHANNELS);
  double h[2 * NR * NT];
  float* out = H32 + g * (2 * NR * NT);
#pragma unroll
  for (int q = 0; q < NR * NT; q++) {
    philox_normal_pair(philox_block(seed, chStream, v * (NR * NT) + q), &h[2 * q], &h[2 * q + 1]);
    h[2 * q] = __dmul_rn(h[2 * q], 0.7071067811865476);  // Math.SQRT1_2
    h[2 * q + 1] = __dmul_rn(h[2 * q + 1], 0.7071067811865476);
    out[2 * q] = (float)h[2 * q];
    out[2 * q + 1] = (float)h[2 * q + 1];
  }
  link_vector(points, h, tx, y32, seed, snrIndex, chunk, v, g, M, sd);
}

// The data resource elements of a launch of OFDM slots (src/sim/ofdm-link.ts ofdmChunk), one
// thread a vector: vector v of a unit is data resource element v, data symbol v / K (the
// (v / K)-th symbol of the slot not in dmrsMask), subcarrier v % K; its symbols and y = H s + w as
// link.cuh makes them, the noise the pairs at the element's place in the slot's grid order
// (symbol, subcarrier, antenna), as ofdmChunk's addNoise draws them. A launch is whole chunks
// (slots) from unit unit0; unitVectors data vectors a unit (a coded slot fills only its first).
//   points  M x 2 doubles, the constellation
//   H64     the channel model's response, float64: units x 14 x K x 2 NR NT (flat 0), or units x
//           2 NR NT (flat 1: a flat model's drop, the same on every element)
//   H32     float32 out, vectors x 2 NR NT: each vector's channel for the detectors (perfect CSI;
//           null where an estimate takes its place)
//   tx      int32 out, vectors x NT symbol indices (LINK_CODED 1: in)
//   y32     float32 out, vectors x NR complex
// nvcc-variant: -DLINK_BLOCK=256 -DNT=4 -DNR=4
// nvcc-variant: -DLINK_BLOCK=256 -DNT=2 -DNR=4 -DLINK_CODED=1

#include "link.cuh"
#include "../../channels/estimation/gpu/dmrs.cuh"

#ifndef LINK_BLOCK
#define LINK_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(LINK_BLOCK) ofdm_data(
    const double* __restrict__ points, const double* __restrict__ H64, float* __restrict__ H32, int* __restrict__ tx,
    float* __restrict__ y32, unsigned long long seed, unsigned snrIndex, unsigned long long unit0, int unitVectors,
    int vectors, int K, int dmrsMask, int flat, unsigned M, double sd) {
  const long long g = (long long)blockIdx.x * LINK_BLOCK + threadIdx.x;
  if (g >= vectors) return;
  const long long c = g / unitVectors;
  const int v = (int)(g - c * unitVectors);
  const int k = v % K;
  // the (v / K)-th data symbol: skip the DM-RS symbols below it
  const int l = ofdm_data_symbol(dmrsMask, v / K);
  const long long re = (long long)l * K + k;
  const double* h = H64 + 2 * NR * NT * (flat ? c : c * 14 * K + re);
  link_vector(points, h, tx, y32, seed, snrIndex, unit0 + c, (unsigned long long)v, (unsigned long long)re, g, M, sd);
  if (H32) {
#pragma unroll
    for (int e = 0; e < 2 * NR * NT; e++) H32[g * 2 * NR * NT + e] = (float)h[e];
  }
}

// The transmitted symbols and received vectors of a launch of the link, one thread per vector
// (link.cuh), reading the channels the channel model's kernel made in float64 (several vectors a
// channel; src/channels). A launch covers `vectors` vectors from vector v0 of unit unit0:
//   points  M x 2 doubles, the constellation (modulation.ts constellation().points)
//   H64     the launch's channels in float64 (the model's kernel, e.g. channels/rayleigh/rayleigh.cu)
//   tx      int32 out, vectors x nt symbol indices (LINK_CODED 1: in, the coded frames' symbols)
//   y32     float32 out, vectors x nr complex (the CUDA detectors' layout)
// nvcc-variant: -DLINK_BLOCK=256 -DNT=4 -DNR=4
// nvcc-variant: -DLINK_BLOCK=256 -DNT=8 -DNR=8
// nvcc-variant: -DLINK_BLOCK=256 -DNT=4 -DNR=4 -DLINK_CODED=1

#include "link.cuh"

#ifndef LINK_BLOCK
#define LINK_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(LINK_BLOCK) link_vectors(
    const double* __restrict__ points, const double* __restrict__ H64, int* __restrict__ tx, float* __restrict__ y32,
    unsigned long long seed, unsigned snrIndex, unsigned long long unit0, unsigned long long v0, unsigned long long unitVectors,
    int vectors, int vpc, unsigned M, double sd) {
  const long long g = (long long)blockIdx.x * LINK_BLOCK + threadIdx.x;
  if (g >= vectors) return;
  const unsigned long long p = v0 + g, v = p % unitVectors;
  link_vector(points, H64 + (g / vpc) * (2 * NR * NT), tx, y32, seed, snrIndex, unit0 + p / unitVectors, v, v, g, M, sd);
}

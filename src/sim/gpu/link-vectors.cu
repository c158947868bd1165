// The transmitted symbols and received vectors of a launch of the link (src/sim/link.ts
// generateLinkChunk: channel.ts randomSymbols, transmit, addNoise), one thread per vector:
//   symbol j of vector v of a chunk = Philox.int(M) on word v nt + j of the chunk's symbol stream;
//   y_i = sum_j H_ij s_j in float64 in the CPU's order (re += hr sr - hi si, im += hr si + hi sr),
//   plus the noise pair v nr + i of the chunk's noise stream (cos to re, sin to im) times sd, then
//   rounded to float32 for the detector. With the channels of link-channels.cu equal to the CPU's,
//   y equals the CPU's y rounded to float32.
// Launch layout as link-channels.cu (vectors from vector v0 of chunk chunk0):
//   points  M x 2 doubles, the constellation (modulation.ts constellation().points)
//   H64     the launch's channels in float64 (link-channels.cu)
//   tx      int32 out, vectors x nt symbol indices
//   y32     float32 out, vectors x nr complex (the CUDA detectors' layout)
// nvcc-variant: -DLINK_BLOCK=256 -DNT=4 -DNR=4
// nvcc-variant: -DLINK_BLOCK=256 -DNT=8 -DNR=8

#include "philox.cuh"

#ifndef LINK_BLOCK
#define LINK_BLOCK 256
#endif
#ifndef NT
#define NT 4
#endif
#ifndef NR
#define NR 4
#endif

extern "C" __global__ void __launch_bounds__(LINK_BLOCK) link_vectors(
    const double* __restrict__ points, const double* __restrict__ H64, int* __restrict__ tx, float* __restrict__ y32,
    unsigned long long seed, unsigned snrIndex, unsigned long long chunk0, unsigned long long v0, unsigned long long chunkVectors,
    int vectors, int vpc, unsigned M, double sd) {
  const long long g = (long long)blockIdx.x * LINK_BLOCK + threadIdx.x;
  if (g >= vectors) return;
  const unsigned long long p = v0 + g;
  const unsigned long long chunk = chunk0 + p / chunkVectors;
  const unsigned long long v = p % chunkVectors;
  const unsigned long long symStream = link_stream(snrIndex, chunk, LINK_PURPOSE_SYMBOLS);
  const unsigned long long noiseStream = link_stream(snrIndex, chunk, LINK_PURPOSE_NOISE);
  double sr[NT], si[NT];
  // the symbol words v NT .. v NT + NT - 1, a Philox block at a time
  unsigned long long word = v * NT;
  philox_words w = philox_block(seed, symStream, word >> 2);
#pragma unroll
  for (int j = 0; j < NT; j++, word++) {
    if (j > 0 && (word & 3) == 0) w = philox_block(seed, symStream, word >> 2);
    const unsigned k = (unsigned)(word & 3);
    const unsigned x = k == 0 ? w.w0 : k == 1 ? w.w1 : k == 2 ? w.w2 : w.w3;
    const unsigned s = philox_int(x, M);
    tx[g * NT + j] = (int)s;
    sr[j] = points[2 * s];
    si[j] = points[2 * s + 1];
  }
  const double* h = H64 + (g / vpc) * (2 * NR * NT);
#pragma unroll
  for (int i = 0; i < NR; i++) {
    double re = 0.0, im = 0.0;
#pragma unroll
    for (int j = 0; j < NT; j++) {
      const double hr = h[2 * (i + j * NR)], hi = h[2 * (i + j * NR) + 1];
      re = __dadd_rn(re, __dsub_rn(__dmul_rn(hr, sr[j]), __dmul_rn(hi, si[j])));
      im = __dadd_rn(im, __dadd_rn(__dmul_rn(hr, si[j]), __dmul_rn(hi, sr[j])));
    }
    double nre, nim;
    philox_normal_pair(philox_block(seed, noiseStream, v * NR + i), &nre, &nim);
    y32[2 * (g * NR + i)] = (float)__dadd_rn(re, __dmul_rn(nre, sd));
    y32[2 * (g * NR + i) + 1] = (float)__dadd_rn(im, __dmul_rn(nim, sd));
  }
}

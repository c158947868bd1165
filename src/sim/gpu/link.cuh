// The received vectors of the link (src/sim/link.ts generateLinkChunk: channel.ts randomSymbols,
// transmit, addNoise), one vector a call:
//   symbol j of vector v of a unit = Philox.int(M) on word v NT + j of the unit's symbol stream;
//   y_i = sum_j H_ij s_j in float64 in the CPU's order (re += hr sr - hi si, im += hr si + hi sr),
//   plus the noise pair nv NR + i of the unit's noise stream (cos to re, sin to im) times sd, then
//   rounded to float32 for the detector. With H equal to the CPU's, y equals the CPU's y rounded
//   to float32. Layouts: tx int32 vectors x NT, y32 float32 vectors x NR complex.
// LINK_CODED 1: the symbols are the coded frames' (link-symbols.cu wrote them into tx), not drawn.
// nv is where the vector's noise stands: the flat link draws it at v; the OFDM link at the
// resource element's place in the slot's grid (ofdm-data.cu).

#pragma once
#include "link-stream.cuh"

#ifndef NT
#define NT 4
#endif
#ifndef NR
#define NR 4
#endif
#ifndef LINK_CODED
#define LINK_CODED 0
#endif

// The symbols and received vector of vector g of a launch (vector v of unit `unit`, its noise
// the pairs nv NR .. nv NR + NR - 1), given its channel h (2 NR NT doubles, column-major: global
// memory or a register array).
__device__ __forceinline__ void link_vector(const double* __restrict__ points, const double* h, int* __restrict__ tx, float* __restrict__ y32,
                                            unsigned long long seed, unsigned snrIndex, unsigned long long unit, unsigned long long v, unsigned long long nv, long long g,
                                            unsigned M, double sd) {
  const unsigned long long noiseStream = link_stream(snrIndex, unit, LINK_PURPOSE_NOISE);
  double sr[NT], si[NT];
#if LINK_CODED
#pragma unroll
  for (int j = 0; j < NT; j++) {
    const int s = tx[g * NT + j];
    sr[j] = points[2 * s];
    si[j] = points[2 * s + 1];
  }
#else
  const unsigned long long symStream = link_stream(snrIndex, unit, LINK_PURPOSE_SYMBOLS);
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
#endif
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
    philox_normal_pair(philox_block(seed, noiseStream, nv * NR + i), &nre, &nim);
    y32[2 * (g * NR + i)] = (float)__dadd_rn(re, __dmul_rn(nre, sd));
    y32[2 * (g * NR + i) + 1] = (float)__dadd_rn(im, __dmul_rn(nim, sd));
  }
}

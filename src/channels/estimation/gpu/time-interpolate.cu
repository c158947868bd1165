// The detectors' channels of a launch's data vectors with estimated CSI (estimation-plan.ts): the
// frequency estimate of the DM-RS symbols around each vector's symbol (freq-estimate.cu),
// interpolated as interpolateTime (src/channels/estimation/ls.ts) does on the vector's symbol
// (linear between DM-RS symbols, held before the first and after the last), in the CPU's
// operation order, rounded to float32. One thread a slot, subcarrier k and channel entry e
// (receive i, layer j): it reads the DM-RS symbols' estimates of (k, e) once and writes them
// interpolated onto the slot's data symbols in turn (vector u K + k of data symbol u; a warp's
// writes are contiguous). Entry 0 also writes the vector's noise variance.
//   Hd       chunks x D x K x NR NT complex doubles (freq-estimate.cu)
//   noise    chunks doubles (noise.cu)
//   H32      out, vectors x 2 NR NT floats (column-major nr x nt, the detectors' layout)
//   noiseIn  out, vectors floats: the vector's slot's noise variance (the normalize stage's noiseIn)
//   chunkVectors  data vectors a slot (slot c's vector v at c chunkVectors + v); vectors: those to
//            write, counted from the launch's first
// Launch: ceil(vectors / chunkVectors) K NR NT threads.
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=4 -DNR=4

#include "dmrs.cuh"

#ifndef OFDM_BLOCK
#define OFDM_BLOCK 256
#endif
// DM-RS symbols a slot at most (dmrs-AdditionalPosition 3)
#define OFDM_MAXD 4

extern "C" __global__ void __launch_bounds__(OFDM_BLOCK) ofdm_estimate(
    const double* __restrict__ Hd, const double* __restrict__ noise, float* __restrict__ H32, float* __restrict__ noiseIn,
    int chunkVectors, long long vectors, int K, int D, int dmrsMask) {
  const long long t = (long long)blockIdx.x * OFDM_BLOCK + threadIdx.x;
  const long long chunks = (vectors + chunkVectors - 1) / chunkVectors;
  if (t >= chunks * K * NR * NT) return;
  const int e = (int)(t % (NR * NT));
  const long long ck = t / (NR * NT);
  const long long c = ck / K;
  const int k = (int)(ck - c * K);
  const double* h = Hd + 2 * (((c * D) * K + k) * NR * NT + e);
  const long long dStep = 2LL * K * NR * NT;
  const float n0 = (float)noise[c];
  // the DM-RS symbols' indices, once (the walk below would find them again for every vector)
  int sym[OFDM_MAXD];
#pragma unroll
  for (int d = 0; d < OFDM_MAXD; d++) sym[d] = d < D ? ofdm_dmrs_symbol(dmrsMask, d) : 14;
  // l: the data symbol's index in the slot; d1: the first DM-RS symbol after l (D: none)
  int l = -1, d1 = 0;
  for (int v = k; v < chunkVectors; v += K) {
    const long long g = c * chunkVectors + v;
    if (g >= vectors) break;
    do l++;
    while ((dmrsMask >> l) & 1);
#pragma unroll
    for (int d = 0; d < OFDM_MAXD; d++)
      if (d1 == d && d1 < D && sym[d] < l) d1++;
    double hr, hi;
    if (d1 == 0 || d1 == D) {
      const double* x = h + (d1 == 0 ? 0 : D - 1) * dStep;
      hr = x[0];
      hi = x[1];
    } else {
      int a = 0, b = 0;
#pragma unroll
      for (int d = 1; d < OFDM_MAXD; d++)
        if (d == d1) {
          a = sym[d - 1];
          b = sym[d];
        }
      const double tt = (double)(l - a) / (double)(b - a);
      const double* x = h + (d1 - 1) * dStep;
      const double ar = x[0], ai = x[1], br = x[dStep], bi = x[dStep + 1];
      hr = __dadd_rn(ar, __dmul_rn(tt, __dsub_rn(br, ar)));
      hi = __dadd_rn(ai, __dmul_rn(tt, __dsub_rn(bi, ai)));
    }
    float2* out = reinterpret_cast<float2*>(H32) + g * NR * NT + e;
    *out = make_float2((float)hr, (float)hi);
    if (e == 0) noiseIn[g] = n0;
  }
}

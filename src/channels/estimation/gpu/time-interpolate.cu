// The detectors' channels of a launch's data vectors with estimated CSI (estimation-plan.ts),
// one thread a vector and channel entry (receive i, layer j): the frequency estimate of the DM-RS
// symbols around the vector's symbol (freq-estimate.cu), interpolated as interpolateTime
// (src/channels/estimation/ls.ts) does on the vector's symbol (linear between DM-RS symbols, held
// before the first and after the last), in the CPU's operation order, rounded to float32. Entry 0
// also writes the vector's noise variance.
//   Hd       chunks x D x K x NR NT complex doubles (freq-estimate.cu)
//   noise    chunks doubles (noise.cu)
//   H32      out, vectors x 2 NR NT floats (column-major nr x nt, the detectors' layout)
//   noiseIn  out, vectors floats: the vector's slot's noise variance (the normalize stage's noiseIn)
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=4 -DNR=4

#include "dmrs.cuh"

#ifndef OFDM_BLOCK
#define OFDM_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(OFDM_BLOCK) ofdm_estimate(
    const double* __restrict__ Hd, const double* __restrict__ noise, float* __restrict__ H32, float* __restrict__ noiseIn,
    int chunkVectors, int vectors, int K, int D, int dmrsMask) {
  const long long t = (long long)blockIdx.x * OFDM_BLOCK + threadIdx.x;
  if (t >= (long long)vectors * NR * NT) return;
  const int e = (int)(t % (NR * NT));
  const long long g = t / (NR * NT);
  const long long c = g / chunkVectors;
  const int v = (int)(g - c * chunkVectors);
  const int k = v % K;
  // the vector's symbol: the (v / K)-th without DM-RS
  const int l = ofdm_data_symbol(dmrsMask, v / K);
  // the DM-RS symbols around l: d0 = d1 at the ends (held)
  int d1 = 0;
  while (d1 < D && ofdm_dmrs_symbol(dmrsMask, d1) < l) d1++;
  const double* h = Hd + 2 * (((c * D) * K + k) * NR * NT + e);
  const long long dStep = 2LL * K * NR * NT;
  double hr, hi;
  if (d1 == 0 || d1 == D) {
    const double* x = h + (d1 == 0 ? 0 : D - 1) * dStep;
    hr = x[0];
    hi = x[1];
  } else {
    const int a = ofdm_dmrs_symbol(dmrsMask, d1 - 1), b = ofdm_dmrs_symbol(dmrsMask, d1);
    const double tt = (double)(l - a) / (double)(b - a);
    const double* x = h + (d1 - 1) * dStep;
    const double ar = x[0], ai = x[1], br = x[dStep], bi = x[dStep + 1];
    hr = __dadd_rn(ar, __dmul_rn(tt, __dsub_rn(br, ar)));
    hi = __dadd_rn(ai, __dmul_rn(tt, __dsub_rn(bi, ai)));
  }
  H32[2 * t] = (float)hr;
  H32[2 * t + 1] = (float)hi;
  if (e == 0) noiseIn[g] = (float)noise[c];
}

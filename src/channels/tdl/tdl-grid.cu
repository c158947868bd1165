// The TDL models' response on time-frequency points (src/channels/tdl/cpu.ts): for drop c, time ti,
// frequency k and entry e, H = sum_l A[c, ti, l, e] rot[k, l], rot[k, l] = sqrt(p_l)
// exp(-j 2 pi f_k tau_l) computed by the host as the CPU computes it, summed in tap order with the
// CPU's operation order; kept in float64 and rounded to float32. One thread TDL_GRID_ENTRIES
// consecutive entries of a (drop, time, frequency). The CDL models (src/channels/cdl/cuda.ts) use
// it too: their delay slots as taps, rot = exp(-j 2 pi f tau).
//   A    count x T x taps x E complex doubles (tdl-taps.cu)
//   rot  F x taps complex doubles
//   H64  count x T x F x E complex doubles (ChannelGenerator.response's layout); H32 the same as
//        floats, or null: none
// nvcc-variant: -DTDL_BLOCK=256

#ifndef TDL_BLOCK
#define TDL_BLOCK 256
#endif

// philox.cuh for the host shims of the _rn intrinsics (the CUDA emulator)
#include "../../core/philox.cuh"

// entries a thread sums: rot[k, l] is loaded once for all of them
#define TDL_GRID_ENTRIES 8

extern "C" __global__ void __launch_bounds__(TDL_BLOCK) tdl_grid(
    double* __restrict__ H64, float* __restrict__ H32, const double* __restrict__ A, const double* __restrict__ rot,
    int count, int T, int F, int taps, int E) {
  const int EB = (E + TDL_GRID_ENTRIES - 1) / TDL_GRID_ENTRIES;
  const long long g = (long long)blockIdx.x * TDL_BLOCK + threadIdx.x;
  if (g >= (long long)count * T * F * EB) return;
  const int e0 = (int)(g % EB) * TDL_GRID_ENTRIES;
  const int n = E - e0 < TDL_GRID_ENTRIES ? E - e0 : TDL_GRID_ENTRIES;
  const long long ctk = g / EB;
  const int k = (int)(ctk % F);
  const long long ct = ctk / F;
  const double* a = A + 2 * (ct * taps * E + e0);
  const double* r = rot + 2 * (long long)k * taps;
  double re[TDL_GRID_ENTRIES], im[TDL_GRID_ENTRIES];
#pragma unroll
  for (int q = 0; q < TDL_GRID_ENTRIES; q++) re[q] = im[q] = 0.0;
  for (int l = 0; l < taps; l++) {
    const double cr = r[2 * l], ci = r[2 * l + 1];
    const double* al = a + 2 * (long long)l * E;
#pragma unroll
    for (int q = 0; q < TDL_GRID_ENTRIES; q++)
      if (q < n) {
        const double ar = al[2 * q], ai = al[2 * q + 1];
        re[q] = __dadd_rn(re[q], __dsub_rn(__dmul_rn(ar, cr), __dmul_rn(ai, ci)));
        im[q] = __dadd_rn(im[q], __dadd_rn(__dmul_rn(ar, ci), __dmul_rn(ai, cr)));
      }
  }
  const long long o = ctk * E + e0;
#pragma unroll
  for (int q = 0; q < TDL_GRID_ENTRIES; q++)
    if (q < n) {
      H64[2 * (o + q)] = re[q];
      H64[2 * (o + q) + 1] = im[q];
      if (H32) {
        H32[2 * (o + q)] = (float)re[q];
        H32[2 * (o + q) + 1] = (float)im[q];
      }
    }
}

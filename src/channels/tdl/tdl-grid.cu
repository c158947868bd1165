// The TDL models' response on time-frequency points (src/channels/tdl/cpu.ts): for drop c, time ti,
// frequency k and entry e, H = sum_l A[c, ti, l, e] rot[k, l], rot[k, l] = sqrt(p_l)
// exp(-j 2 pi f_k tau_l) computed by the host as the CPU computes it, summed in tap order with the
// CPU's operation order; kept in float64 and rounded to float32. One thread an entry. The CDL
// models (src/channels/cdl/cuda.ts) use it too: their delay slots as taps, rot = exp(-j 2 pi f tau).
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

extern "C" __global__ void __launch_bounds__(TDL_BLOCK) tdl_grid(
    double* __restrict__ H64, float* __restrict__ H32, const double* __restrict__ A, const double* __restrict__ rot,
    int count, int T, int F, int taps, int E) {
  const long long g = (long long)blockIdx.x * TDL_BLOCK + threadIdx.x;
  if (g >= (long long)count * T * F * E) return;
  const int e = (int)(g % E);
  const long long ctk = g / E;
  const int k = (int)(ctk % F);
  const long long ct = ctk / F;
  const double* a = A + 2 * (ct * taps * E + e);
  const double* r = rot + 2 * (long long)k * taps;
  double re = 0, im = 0;
  for (int l = 0; l < taps; l++) {
    const double ar = a[2 * l * E], ai = a[2 * l * E + 1], cr = r[2 * l], ci = r[2 * l + 1];
    re = __dadd_rn(re, __dsub_rn(__dmul_rn(ar, cr), __dmul_rn(ai, ci)));
    im = __dadd_rn(im, __dadd_rn(__dmul_rn(ar, ci), __dmul_rn(ai, cr)));
  }
  H64[2 * g] = re;
  H64[2 * g + 1] = im;
  if (H32) {
    H32[2 * g] = (float)re;
    H32[2 * g + 1] = (float)im;
  }
}

// The TDL models' response on time-frequency points (src/channels/tdl/cpu.ts): for drop c, time ti,
// frequency k and entry e, H = sum_l A[c, ti, l, e] rot[k, l], rot[k, l] = sqrt(p_l)
// exp(-j 2 pi f_k tau_l) computed by the host as the CPU computes it, summed in tap order with the
// CPU's operation order (no fused multiply-adds: the CDL models' response is the CPU's bit for
// bit); kept in float64 and rounded to float32. A thread
// computes TDL_KB consecutive frequencies of one entry, so that each A value it loads serves
// TDL_KB outputs (a thread an output spends more time loading than multiplying); consecutive
// threads take consecutive entries, so a frequency's E entries are stored together. The CDL models
// (src/channels/cdl/cuda.ts) use it too: their delay slots as taps, rot = exp(-j 2 pi f tau).
//   A    count x T x taps x E complex doubles (tdl-taps.cu)
//   rot  F x taps complex doubles
//   H64  count x T x F x E complex doubles (ChannelGenerator.response's layout); H32 the same as
//        floats, or null: none
// Launch: count x T x ceil(F / TDL_KB) x E threads.
// nvcc-variant: -DTDL_BLOCK=256

#ifndef TDL_BLOCK
#define TDL_BLOCK 256
#endif
#define TDL_KB 4

// philox.cuh for the host shims of the _rn intrinsics (the CUDA emulator)
#include "../../core/philox.cuh"

extern "C" __global__ void __launch_bounds__(TDL_BLOCK) tdl_grid(
    double* __restrict__ H64, float* __restrict__ H32, const double* __restrict__ A, const double* __restrict__ rot,
    int count, int T, int F, int taps, int E) {
  const int FB = (F + TDL_KB - 1) / TDL_KB;
  const long long g = (long long)blockIdx.x * TDL_BLOCK + threadIdx.x;
  if (g >= (long long)count * T * FB * E) return;
  const int e = (int)(g % E);
  const long long r = g / E;
  const int k0 = (int)(r % FB) * TDL_KB;
  const long long ct = r / FB;
  const int kn = F - k0 < TDL_KB ? F - k0 : TDL_KB;
  const double2* a = reinterpret_cast<const double2*>(A) + ct * taps * E + e;
  const double2* c = reinterpret_cast<const double2*>(rot) + (long long)k0 * taps;
  double re[TDL_KB], im[TDL_KB];
#pragma unroll
  for (int j = 0; j < TDL_KB; j++) re[j] = im[j] = 0.0;
  for (int l = 0; l < taps; l++) {
    const double2 av = a[(long long)l * E];
#pragma unroll
    for (int j = 0; j < TDL_KB; j++) {
      if (j < kn) {
        const double2 cv = c[j * taps + l];
        re[j] = __dadd_rn(re[j], __dsub_rn(__dmul_rn(av.x, cv.x), __dmul_rn(av.y, cv.y)));
        im[j] = __dadd_rn(im[j], __dadd_rn(__dmul_rn(av.x, cv.y), __dmul_rn(av.y, cv.x)));
      }
    }
  }
#pragma unroll
  for (int j = 0; j < TDL_KB; j++) {
    if (j < kn) {
      const long long o = (ct * F + k0 + j) * E + e;
      reinterpret_cast<double2*>(H64)[o] = make_double2(re[j], im[j]);
      if (H32) reinterpret_cast<float2*>(H32)[o] = make_float2((float)re[j], (float)im[j]);
    }
  }
}

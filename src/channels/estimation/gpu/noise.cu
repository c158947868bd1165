// The detectors' noise variance of each slot of a launch with estimated CSI (estimation-plan.ts):
// N0^ from the DM-RS (LS: src/channels/estimation/noise.ts estimateNoise, method 'auto': 'free'
// below 4 layers, else 'residual'; LMMSE: lmmse.ts lmmseNoise), its sum the segments'
// (noise-segments.cu) added in order, then plus NT times the estimate's mean error variance on the
// data symbols (time-error.ts): N0^ / lsScale + doppler for LS (lsScale = 2 Ep / own), the host's
// constant errorVar for LMMSE (lsScale 0). One thread a slot.
//   segs    chunks x segments doubles (noise-segments.cu)
//   method  0 'free' (N0^ = sum / terms), 1 'residual' (Ep sum / terms / 3), 2 LMMSE (2 Ep sum / dofs)
//   noise   out, chunks doubles
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=4 -DNR=4

#include "dmrs.cuh"

#ifndef OFDM_BLOCK
#define OFDM_BLOCK 256
#endif
#define OFDM_NOISE_BATCH 16

extern "C" __global__ void __launch_bounds__(OFDM_BLOCK) ofdm_noise(
    const double* __restrict__ segs, double* __restrict__ noise, int chunks, int segments, int method, double terms,
    double dofs, double pilotPower, double lsScale, double errorVar, double doppler) {
  const long long c = (long long)blockIdx.x * OFDM_BLOCK + threadIdx.x;
  if (c >= chunks) return;
  const double* sc = segs + c * segments;
  // loads OFDM_NOISE_BATCH at a time, in flight together, then added in order
  double sum = 0.0;
  for (int s0 = 0; s0 < segments; s0 += OFDM_NOISE_BATCH) {
    double v[OFDM_NOISE_BATCH];
#pragma unroll
    for (int i = 0; i < OFDM_NOISE_BATCH; i++) v[i] = s0 + i < segments ? sc[s0 + i] : 0.0;
#pragma unroll
    for (int i = 0; i < OFDM_NOISE_BATCH; i++)
      if (s0 + i < segments) sum = __dadd_rn(sum, v[i]);
  }
  double n0;
  if (method == 0) n0 = sum / terms;
  else if (method == 1) n0 = __dmul_rn(pilotPower, sum) / terms / 3.0;
  else n0 = __dmul_rn(2.0 * pilotPower, sum) / dofs;
  const double ev = lsScale > 0.0 ? __dadd_rn(n0 / lsScale, doppler) : errorVar;
  noise[c] = __dadd_rn(n0, __dmul_rn((double)NT, ev));
}

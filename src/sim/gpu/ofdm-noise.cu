// The detectors' noise variance of each slot of a launch with estimated CSI (src/sim/ofdm-link.ts):
// N0^ from the DM-RS (LS: src/channels/estimation/noise.ts estimateNoise, method 'auto': 'free'
// below 4 layers, else 'residual'; LMMSE: lmmse.ts lmmseNoise, from the windows' residuals
// ofdm-noise-window.cu summed), plus NT times the estimate's error variance: N0^ / lsScale for LS
// (lsScale = 2 Ep), the host's constant errorVar for LMMSE (lsScale 0). One thread a slot, summing
// in the CPU's order so that N0^ is the CPU's bit for bit; a slot's sum is small next to the rest
// of the launch's work.
//   Yp     chunks x D x K x NR complex doubles (ofdm-pilots.cu)
//   P      chunks x (D x NT x NR x N) complex doubles (ofdm-despread.cu; read by 'residual')
//   seq    slotsPerFrame x D x K/2 complex doubles (ofdm.cuh; read by 'free' with an odd NT)
//   windows LMMSE: chunks x perSlot doubles, the windows' residuals (ofdm-noise-window.cu); null: LS
//   dofs   LMMSE: the residuals' noise dimensions summed over a slot's windows (the host's, in the CPU's order)
//   noise  out, chunks doubles
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=4 -DNR=4
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=3 -DNR=2

#include "ofdm.cuh"

#ifndef OFDM_BLOCK
#define OFDM_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(OFDM_BLOCK) ofdm_noise(
    const double* __restrict__ Yp, const double* __restrict__ P, const double* __restrict__ seq,
    const double* __restrict__ windows, double* __restrict__ noise, unsigned long long chunk0, int chunks, int K, int D,
    int slotsPerFrame, double pilotPower, double lsScale, double errorVar, int perSlot, double dofs) {
  const long long c = (long long)blockIdx.x * OFDM_BLOCK + threadIdx.x;
  if (c >= chunks) return;
  const int M = K / 2, N = K / 4;
  double sum = 0.0, count = 0.0, n0;
  if (windows) {
    const double* wc = windows + (long long)c * perSlot;
    for (int q = 0; q < perSlot; q++) sum = __dadd_rn(sum, wc[q]);
    n0 = __dmul_rn(2.0 * pilotPower, sum) / dofs;
  } else if (NT < 4) {
    const double* sq = seq + 2 * (long long)((chunk0 + c) % slotsPerFrame) * D * M;
    for (int d = 0; d < D; d++) {
      const double* row = Yp + 2 * (c * D + d) * K * NR;
      // CDM group 1's empty comb
      if (NT <= 2)
        for (int k = 1; k < K; k += 2)
          for (int i = 0; i < NR; i++) {
            const double yr = row[2 * (k * NR + i)], yi = row[2 * (k * NR + i) + 1];
            sum = __dadd_rn(sum, __dadd_rn(__dmul_rn(yr, yr), __dmul_rn(yi, yi)));
            count += 1.0;
          }
      // the unused odd OCC of the group with one port
      if (NT % 2 == 1) {
        const int delta = NT >> 1;
        for (int n = 0; n < M / 2; n++) {
          const double* r = sq + 2 * (d * M + 2 * n);
          const double r0r = r[0], r0i = r[1], r1r = r[2], r1i = r[3];
          const double* y0 = row + 2 * (4 * n + delta) * NR;
          const double* y1 = y0 + 2 * 2 * NR;  // subcarrier k0 + 2
          for (int i = 0; i < NR; i++) {
            const double u0r = y0[2 * i], u0i = y0[2 * i + 1], u1r = y1[2 * i], u1i = y1[2 * i + 1];
            const double zr = __dsub_rn(__dadd_rn(__dmul_rn(r0r, u0r), __dmul_rn(r0i, u0i)),
                                        __dadd_rn(__dmul_rn(r1r, u1r), __dmul_rn(r1i, u1i)));
            const double zi = __dsub_rn(__dsub_rn(__dmul_rn(r0r, u0i), __dmul_rn(r0i, u0r)),
                                        __dsub_rn(__dmul_rn(r1r, u1i), __dmul_rn(r1i, u1r)));
            sum = __dadd_rn(sum, __dadd_rn(__dmul_rn(zr, zr), __dmul_rn(zi, zi)) / 2.0);
            count += 1.0;
          }
        }
      }
    }
    n0 = sum / count;
  } else {
    const double* v = P + 2 * c * D * NT * NR * N;
    for (int q = 0; q < D * NT * NR; q++) {
      const double* b = v + 2 * q * N;
      for (int n = 1; n + 1 < N; n++) {
        const double* a = b + 2 * n;
        const double er = __dadd_rn(__dsub_rn(a[-2], __dmul_rn(2.0, a[0])), a[2]);
        const double ei = __dadd_rn(__dsub_rn(a[-1], __dmul_rn(2.0, a[1])), a[3]);
        sum = __dadd_rn(sum, __dadd_rn(__dmul_rn(er, er), __dmul_rn(ei, ei)));
        count += 1.0;
      }
    }
    n0 = __dmul_rn(pilotPower, sum) / count / 3.0;
  }
  const double ev = lsScale > 0.0 ? n0 / lsScale : errorVar;
  noise[c] = __dadd_rn(n0, __dmul_rn((double)NT, ev));
}

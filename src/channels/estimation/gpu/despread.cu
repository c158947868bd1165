// The despread LS estimates of a launch's pilot pairs (src/channels/estimation/ls.ts despread),
// one thread a pair, layer and receive antenna: pair n of layer j covers subcarriers
// k0 = 4 n + delta_j and k0 + 2, h^ = s (conj(a0) y(k0) + conj(a1) y(k0 + 2)), s = 1 / (2 Ep), in
// the CPU's operation order; and, for LMMSE, the same pair with the other OCC.
//   Yp    chunks x D x K x NR complex doubles (the received DM-RS symbols)
//   seq   slotsPerFrame x D x K/2 complex doubles (dmrs.cuh)
//   P     out, chunks x (D x NT x NR x N) complex doubles, N = K / 4: DM-RS symbol d, layer j,
//         antenna i, pair n at ((d NT + j) NR + i) N + n of its chunk (PilotEstimates.values)
//   Q     out, P's layout: the pairs despread with the other OCC, s (conj(a0) y(k0) - conj(a1) y(k0 + 2))
//         (PilotEstimates.opposite; LMMSE reads it), or null
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=4 -DNR=4

#include "dmrs.cuh"

#ifndef OFDM_BLOCK
#define OFDM_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(OFDM_BLOCK) ofdm_despread(
    const double* __restrict__ Yp, const double* __restrict__ seq, double* __restrict__ P, double* __restrict__ Q,
    unsigned long long chunk0,
    int chunks, int K, int D, int slotsPerFrame, double beta, double s) {
  const int N = K / 4, M = K / 2;
  const long long g = (long long)blockIdx.x * OFDM_BLOCK + threadIdx.x;
  if (g >= (long long)chunks * D * NT * NR * N) return;
  const int n = (int)(g % N);
  long long r = g / N;
  const int i = (int)(r % NR);
  r /= NR;
  const int j = (int)(r % NT);
  r /= NT;
  const int d = (int)(r % D);
  const long long c = r / D;
  const double* sq = seq + 2 * (long long)((chunk0 + c) % slotsPerFrame) * D * M;
  double a0r, a0i, a1r, a1i;
  ofdm_pilot(sq, M, j, d, 2 * n, beta, &a0r, &a0i);
  ofdm_pilot(sq, M, j, d, 2 * n + 1, beta, &a1r, &a1i);
  const double* y0 = Yp + 2 * (((c * D + d) * K + 4 * n + (j >> 1)) * NR + i);
  const double* y1 = y0 + 2 * 2 * NR;
  const double u0r = y0[0], u0i = y0[1], u1r = y1[0], u1i = y1[1];
  const double re = __dadd_rn(__dadd_rn(__dadd_rn(__dmul_rn(a0r, u0r), __dmul_rn(a0i, u0i)), __dmul_rn(a1r, u1r)), __dmul_rn(a1i, u1i));
  const double im = __dsub_rn(__dadd_rn(__dsub_rn(__dmul_rn(a0r, u0i), __dmul_rn(a0i, u0r)), __dmul_rn(a1r, u1i)), __dmul_rn(a1i, u1r));
  P[2 * g] = __dmul_rn(s, re);
  P[2 * g + 1] = __dmul_rn(s, im);
  if (Q) {
    const double ore = __dsub_rn(__dsub_rn(__dadd_rn(__dmul_rn(a0r, u0r), __dmul_rn(a0i, u0i)), __dmul_rn(a1r, u1r)), __dmul_rn(a1i, u1i));
    const double oim = __dadd_rn(__dsub_rn(__dsub_rn(__dmul_rn(a0r, u0i), __dmul_rn(a0i, u0r)), __dmul_rn(a1r, u1i)), __dmul_rn(a1i, u1r));
    Q[2 * g] = __dmul_rn(s, ore);
    Q[2 * g + 1] = __dmul_rn(s, oim);
  }
}

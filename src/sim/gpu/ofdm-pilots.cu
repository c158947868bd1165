// The received DM-RS symbols of a launch of OFDM slots (src/sim/ofdm-link.ts ofdmChunk), one thread
// an element and receive antenna: y = sum over the layers with a pilot there (in layer order, as the
// CPU adds them) of H x pilot, plus the noise pair at the element's place in the slot's grid order
// (symbol, subcarrier, antenna) times sd, in float64.
//   H64   the channel model's response: units x 14 x K x 2 NR NT doubles (flat 1: units x 2 NR NT)
//   seq   slotsPerFrame x D x K/2 complex doubles: each slot number's DM-RS sequence (dmrs.cuh, the estimation part's)
//   Yp    out, units x D x K x NR complex doubles (DM-RS symbol d, subcarrier k, antenna i)
// Slot numbers: chunk % slotsPerFrame, as ofdmChunk numbers them.
// nvcc-variant: -DOFDM_BLOCK=256 -DNT=4 -DNR=4

#include "link-stream.cuh"
#include "../../channels/estimation/gpu/dmrs.cuh"

#ifndef OFDM_BLOCK
#define OFDM_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(OFDM_BLOCK) ofdm_pilots(
    const double* __restrict__ H64, const double* __restrict__ seq, double* __restrict__ Yp, unsigned long long seed,
    unsigned snrIndex, unsigned long long unit0, int units, int K, int D, int dmrsMask, int slotsPerFrame, int flat,
    double beta, double sd) {
  const long long g = (long long)blockIdx.x * OFDM_BLOCK + threadIdx.x;
  if (g >= (long long)units * D * K * NR) return;
  const int i = (int)(g % NR);
  const long long r = g / NR;
  const int k = (int)(r % K);
  const long long cd = r / K;
  const int d = (int)(cd % D);
  const long long c = cd / D;
  const unsigned long long unit = unit0 + c;
  const int l = ofdm_dmrs_symbol(dmrsMask, d);
  const long long re = (long long)l * K + k;
  const double* h = H64 + 2 * NR * NT * (flat ? c : c * 14 * K + re);
  const double* s = seq + 2 * (long long)(unit % slotsPerFrame) * D * (K / 2);
  double yr = 0.0, yi = 0.0;
  for (int j = 0; j < NT; j++) {
    // layer j's comb: subcarriers of parity j >> 1
    if ((k & 1) != (j >> 1)) continue;
    double pr, pi;
    ofdm_pilot(s, K / 2, j, d, k >> 1, beta, &pr, &pi);
    const double hr = h[2 * (i + j * NR)], hi = h[2 * (i + j * NR) + 1];
    yr = __dadd_rn(yr, __dsub_rn(__dmul_rn(hr, pr), __dmul_rn(hi, pi)));
    yi = __dadd_rn(yi, __dadd_rn(__dmul_rn(hr, pi), __dmul_rn(hi, pr)));
  }
  double nre, nim;
  philox_normal_pair(philox_block(seed, link_stream(snrIndex, unit, LINK_PURPOSE_NOISE), re * NR + i), &nre, &nim);
  Yp[2 * g] = __dadd_rn(yr, __dmul_rn(nre, sd));
  Yp[2 * g + 1] = __dadd_rn(yi, __dmul_rn(nim, sd));
}

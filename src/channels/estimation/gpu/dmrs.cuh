// What the DM-RS kernels share (the estimation plan's, and any part's that writes DM-RS on a grid): the
// slot's DM-RS symbols as a 14-bit mask, and a port's pilot values, computed as dmrsPilots() does.
// Layer j sits on port j: CDM group / comb offset delta = j >> 1, OCC w_f(1) = -1 on odd ports. Its
// pilot m (subcarrier 2 m + delta) of DM-RS symbol d is w beta r_d(m), w = -1 for odd m on an odd
// port; r is the slot's sequence (dmrsPilots().sequence: D x M complex, M = K / 2).

#pragma once

#ifndef NT
#define NT 4
#endif
#ifndef NR
#define NR 4
#endif

// The d-th DM-RS symbol of the slot (bit l of mask set: symbol l carries DM-RS).
__device__ __forceinline__ int ofdm_dmrs_symbol(int mask, int d) {
  int l = -1;
  for (int left = d; left >= 0;) {
    l++;
    if ((mask >> l) & 1) left--;
  }
  return l;
}

// The u-th data symbol of the slot (the u-th symbol whose bit of mask is clear).
__device__ __forceinline__ int ofdm_data_symbol(int mask, int u) {
  int l = -1;
  for (int left = u; left >= 0;) {
    l++;
    if (!((mask >> l) & 1)) left--;
  }
  return l;
}

// Layer j's pilot m of DM-RS symbol d: seq is the slot's sequence.
__device__ __forceinline__ void ofdm_pilot(const double* seq, int M, int j, int d, int m, double beta, double* pr, double* pi) {
  const double w = (m & 1) && (j & 1) ? -beta : beta;
  *pr = __dmul_rn(w, seq[2 * (d * M + m)]);
  *pi = __dmul_rn(w, seq[2 * (d * M + m) + 1]);
}

// The constellations of modulation.ts on the device, computed from the symbol index so that no
// table has to be uploaded: 3GPP TS 38.211 Gray labels, unit average energy. A symbol index's bits,
// MSB first, are its label b0 b1 ..; square QAM puts the even bits (b0, b2, ..) on the real PAM
// dimension and the odd bits on the imaginary one; BPSK is (1 - 2 b0)(1 + j)/sqrt2.
#pragma once

// PAM amplitude (an odd integer in [-(q-1), q-1]) of a label of k bits, c0 = MSB: the nested form
// v = (1-2c0)(2^{k-1} - (1-2c1)(2^{k-2} - ... (2 - (1-2c_{k-1})))), as pamAmplitude in modulation.ts.
__device__ __forceinline__ int qam_pam_amplitude(int label, int k) {
  int t = 1 - 2 * (label & 1);
  for (int j = k - 2; j >= 0; j--) {
    const int c = (label >> (k - 1 - j)) & 1;
    t = (1 - 2 * c) * ((1 << (k - 1 - j)) - t);
  }
  return t;
}

// Half the spacing of the PAM levels of a square QAM with bps bits a symbol: 1/sqrt(2(q^2-1)/3).
__device__ __forceinline__ float qam_scale(int bps) {
  return bps == 2 ? 0.70710678118654752f : bps == 4 ? 0.31622776601683794f : bps == 6 ? 0.15430334996209191f : 0.076696498884737041f;
}

// The PAM labels (real, imaginary) of symbol a of a square QAM with bps bits a symbol.
__device__ __forceinline__ void qam_labels(int a, int bps, int& reLabel, int& imLabel) {
  reLabel = 0; imLabel = 0;
  for (int j = 0; j < bps / 2; j++) {
    reLabel = (reLabel << 1) | ((a >> (bps - 1 - 2 * j)) & 1);
    imLabel = (imLabel << 1) | ((a >> (bps - 2 - 2 * j)) & 1);
  }
}

// The point of symbol index a (bps = 1: BPSK).
__device__ __forceinline__ void qam_point(int a, int bps, float& re, float& im) {
  if (bps == 1) {
    re = a == 0 ? 0.70710678118654752f : -0.70710678118654752f;
    im = re;
    return;
  }
  int rl, il;
  qam_labels(a, bps, rl, il);
  const float s = qam_scale(bps);
  re = (float)qam_pam_amplitude(rl, bps / 2) * s;
  im = (float)qam_pam_amplitude(il, bps / 2) * s;
}

// The PAM label carried by level index i (amplitude 2i - (q-1)) of a PAM with k bits a dimension.
__device__ __forceinline__ int qam_label_of_level(int i, int k) {
  const int q = 1 << k, amp = 2 * i - (q - 1);
  int label = 0;
  for (int l = 0; l < q; l++) if (qam_pam_amplitude(l, k) == amp) label = l;
  return label;
}

// Symbol index of the square-QAM point with real level index ri and imaginary level index ii.
__device__ __forceinline__ int qam_symbol_of_levels(int ri, int ii, int bps) {
  const int k = bps / 2;
  const int rl = qam_label_of_level(ri, k), il = qam_label_of_level(ii, k);
  int a = 0;
  for (int j = 0; j < k; j++) {
    a = (a << 1) | ((rl >> (k - 1 - j)) & 1);
    a = (a << 1) | ((il >> (k - 1 - j)) & 1);
  }
  return a;
}

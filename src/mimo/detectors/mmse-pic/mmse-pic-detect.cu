// MMSE-PIC, per received vector (one thread a vector), the float32 mirror of mmse-pic/cpu.ts: soft
// symbols from the a-priori LLRs (prior, vectors x LIN_NT x bits; null: none), A = G diag(v) + N0 I
// inverted by Gauss-Jordan with partial pivoting, z_s = x^_s + [A^{-1} (H^H y - G x^)]_s / a_s with
// a_s = [A^{-1} G]_ss and nu_s^2 = N0 [A^{-1}]_ss / a_s, then the extrinsic LLRs over the
// constellation (max-log, or log-sum-exp with PIC_LOGMAP) and the a-posteriori MAP decision
// (nearest point for a stream without priors, as mmse slices). Without priors this is mmse with its
// soft output, computed through the same A (the CPU engine takes mmse's filter there; the two agree
// to float32 rounding). A pivot under LIN_PIVOT_TOL times the matrix's largest entry flags the
// vector FLOAT32_UNSAFE: the engine redoes it on the CPU.
//
// -D: LIN_NT, LIN_NR, PAM_Q, PAM_SCALE (../zf/linear.cuh), PIC_BPS (bits a symbol), PIC_ITER
// (self-iterations), PIC_LOGMAP (0: max-log), PIC_SOFT (1: write LLRs).
// nvcc-variant: -DLIN_NT=4 -DLIN_NR=4 -DPAM_Q=4 -DPAM_SCALE=0.31622776601683794f -DPIC_BPS=4 -DPIC_ITER=1 -DPIC_LOGMAP=0 -DPIC_SOFT=1
// nvcc-variant: -DLIN_NT=8 -DLIN_NR=8 -DPAM_Q=16 -DPAM_SCALE=0.07669649888473704f -DPIC_BPS=8 -DPIC_ITER=2 -DPIC_LOGMAP=1 -DPIC_SOFT=1
// nvcc-variant: -DLIN_NT=3 -DLIN_NR=2 -DPAM_Q=0 -DPAM_SCALE=1.f -DPIC_BPS=1 -DPIC_ITER=1 -DPIC_LOGMAP=0 -DPIC_SOFT=0

#include "../zf/linear.cuh"

#ifndef PIC_BPS
#define PIC_BPS 4
#endif
#ifndef PIC_ITER
#define PIC_ITER 1
#endif
#ifndef PIC_LOGMAP
#define PIC_LOGMAP 0
#endif
#ifndef PIC_SOFT
#define PIC_SOFT 1
#endif
#define PIC_M (1 << PIC_BPS)
#define INFINITY_F __uint_as_float(0x7f800000u)

// Point c of the constellation and bit b (b0 first) of its label, as modulation.ts numbers them.
__device__ inline Cf pic_point(int c) {
#if PAM_Q == 0
  const float a = c == 0 ? 0.70710678118654752f : -0.70710678118654752f;
  return Cf{a, a};
#else
  // the symbol index's bits at odd positions (from the top) are the real PAM label's, at even the imaginary's
  int lr = 0, li = 0;
  for (int p = 0; (1 << p) < PAM_Q; p++) { lr |= ((c >> (2 * p + 1)) & 1) << p; li |= ((c >> (2 * p)) & 1) << p; }
  // label -> level index: the inverse of pam_label (Gray decode of the complement)
  int gr = lr ^ (PAM_Q - 1), gi = li ^ (PAM_Q - 1), ir = 0, ii = 0;
  for (int x = gr; x; x >>= 1) ir ^= x;
  for (int x = gi; x; x >>= 1) ii ^= x;
  return Cf{pam_level(ir), pam_level(ii)};
#endif
}
__device__ inline int pic_bit(int c, int b) { return (c >> (PIC_BPS - 1 - b)) & 1; }
// Point c's log prior up to a constant: sum_b (+-L_b) / 2, + for a 0 bit.
__device__ inline float pic_term(const float* la, int c) {
  float t = 0.f;
  for (int b = 0; b < PIC_BPS; b++) t += pic_bit(c, b) ? -0.5f * la[b] : 0.5f * la[b];
  return t;
}

__device__ inline float pic_log_add(float a, float b) {
  if (a == -INFINITY_F) return b;
  if (b == -INFINITY_F) return a;
  return a > b ? a + log1pf(expf(b - a)) : b + log1pf(expf(a - b));
}

#if PAM_Q == 0
// The extrinsic max-log (or log-sum-exp) terms of bit b, a0[b] over the points with b = 0 and a1[b]
// over b = 1 (each point's metric -|z - x|^2 / nu2 plus its bits' log priors less bit b's own), and
// the MAP point, over the whole constellation.
__device__ inline void pic_demap(float zr, float zi, float nu2, const float* la, int* best, float* a0, float* a1) {
  float bestMetric = -INFINITY_F;
  for (int b = 0; b < PIC_BPS; b++) { a0[b] = -INFINITY_F; a1[b] = -INFINITY_F; }
  for (int c = 0; c < PIC_M; c++) {
    const Cf pt = pic_point(c);
    const float dr = zr - pt.r, di = zi - pt.i;
    const float full = pic_term(la, c) - (dr * dr + di * di) / nu2;
    if (full > bestMetric) { bestMetric = full; *best = c; }
    for (int b = 0; b < PIC_BPS; b++) {
      const int one = pic_bit(c, b);
      const float m = full - (one ? -0.5f : 0.5f) * la[b];
#if PIC_LOGMAP
      if (one) a1[b] = pic_log_add(a1[b], m); else a0[b] = pic_log_add(a0[b], m);
#else
      if (one) a1[b] = fmaxf(a1[b], m); else a0[b] = fmaxf(a0[b], m);
#endif
    }
  }
}
#else
#define PIC_PAM_BITS (PIC_BPS / 2)
// As above, for a square QAM: a point's metric and log prior split into the real PAM level's and
// the imaginary one's (the real label's bit p is symbol bit b = PIC_BPS - 2 - 2p, the imaginary's
// b = PIC_BPS - 1 - 2p), so each bit's terms are the maxima (sums) over its own dimension's PAM_Q
// levels, the other dimension's maximum (sum) cancelling in a0[b] - a1[b]: 2 PAM_Q metrics instead
// of PAM_Q^2. a0, a1 hold each bit's terms up to that common part.
__device__ inline void pic_demap(float zr, float zi, float nu2, const float* la, int* best, float* a0, float* a1) {
  float mr[PAM_Q], mi[PAM_Q];
  int labr = 0, labi = 0;
  float br = -INFINITY_F, bi = -INFINITY_F;
#pragma unroll
  for (int l = 0; l < PAM_Q; l++) {
    const float x = pam_level(l);
    const int lab = pam_label(l);
    float tr = -(zr - x) * (zr - x) / nu2, ti = -(zi - x) * (zi - x) / nu2;
#pragma unroll
    for (int p = 0; p < PIC_PAM_BITS; p++) {
      const float sgn = (lab >> p) & 1 ? -0.5f : 0.5f;
      tr += sgn * la[PIC_BPS - 2 - 2 * p];
      ti += sgn * la[PIC_BPS - 1 - 2 * p];
    }
    mr[l] = tr; mi[l] = ti;
    if (tr > br) { br = tr; labr = lab; }
    if (ti > bi) { bi = ti; labi = lab; }
  }
  *best = (spread_bits(labr) << 1) | spread_bits(labi);
#pragma unroll
  for (int p = 0; p < PIC_PAM_BITS; p++) {
    float r0 = -INFINITY_F, r1 = -INFINITY_F, i0 = -INFINITY_F, i1 = -INFINITY_F;
#pragma unroll
    for (int l = 0; l < PAM_Q; l++) {
      const bool one = (pam_label(l) >> p) & 1;
#if PIC_LOGMAP
      if (one) { r1 = pic_log_add(r1, mr[l]); i1 = pic_log_add(i1, mi[l]); } else { r0 = pic_log_add(r0, mr[l]); i0 = pic_log_add(i0, mi[l]); }
#else
      if (one) { r1 = fmaxf(r1, mr[l]); i1 = fmaxf(i1, mi[l]); } else { r0 = fmaxf(r0, mr[l]); i0 = fmaxf(i0, mi[l]); }
#endif
    }
    // less the bit's own prior term (+L/2 on its 0 side, -L/2 on its 1 side)
    const int br_ = PIC_BPS - 2 - 2 * p, bi_ = PIC_BPS - 1 - 2 * p;
    a0[br_] = r0 - 0.5f * la[br_]; a1[br_] = r1 + 0.5f * la[br_];
    a0[bi_] = i0 - 0.5f * la[bi_]; a1[bi_] = i1 + 0.5f * la[bi_];
  }
}
#endif

extern "C" __global__ void mmse_pic_detect(const float* __restrict__ H, const float* __restrict__ y, const float* __restrict__ noise,
                                           const float* __restrict__ prior, int* __restrict__ symbols, float* __restrict__ llr,
                                           int* __restrict__ status, int vectors, int vpc, float clip) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vectors || status[2 * v] != 0) return;
  const float* h = H + (size_t)(v / vpc) * 2 * LIN_NR * LIN_NT;
  const float n0 = noise[v];
  Cf yv[LIN_NR];
  load_row(y + (size_t)v * 2 * LIN_NR, yv);
  // G = H^H H and H^H y
  Cf G[LIN_NT * LIN_NT], ymf[LIN_NT];
  gram_masked(h, (1u << LIN_NT) - 1u, 0.f, G);
  for (int j = 0; j < LIN_NT; j++) {
    float re = 0.f, im = 0.f;
    for (int i = 0; i < LIN_NR; i++) {
      const float hr = h[2 * (i + j * LIN_NR)], hi = h[2 * (i + j * LIN_NR) + 1];
      re += hr * yv[i].r + hi * yv[i].i;
      im += hr * yv[i].i - hi * yv[i].r;
    }
    ymf[j] = Cf{re, im};
  }
  float la[LIN_NT * PIC_BPS], le[LIN_NT * PIC_BPS];
  for (int i = 0; i < LIN_NT * PIC_BPS; i++) la[i] = prior ? prior[(size_t)v * LIN_NT * PIC_BPS + i] : 0.f;
  for (int it = 0; it < PIC_ITER; it++) {
    Cf xh[LIN_NT];
    float vv[LIN_NT];
    bool zero[LIN_NT];
    for (int s = 0; s < LIN_NT; s++) {
      bool z = true;
      float top = 0.f;
      for (int b = 0; b < PIC_BPS; b++) { z = z && la[s * PIC_BPS + b] == 0.f; top += fabsf(la[s * PIC_BPS + b]) * 0.5f; }
      zero[s] = z;
      if (z) { xh[s] = Cf{0.f, 0.f}; vv[s] = 1.f; continue; }
      float w = 0.f, xr = 0.f, xi = 0.f, e = 0.f;
      for (int c = 0; c < PIC_M; c++) {
        const float p = expf(pic_term(la + s * PIC_BPS, c) - top);
        const Cf pt = pic_point(c);
        w += p; xr += p * pt.r; xi += p * pt.i;
      }
      xr /= w; xi /= w;
      // the variance about the mean (E|x|^2 - |x^|^2 cancels where a prior is nearly certain)
      for (int c = 0; c < PIC_M; c++) {
        const Cf pt = pic_point(c);
        e += expf(pic_term(la + s * PIC_BPS, c) - top) * ((pt.r - xr) * (pt.r - xr) + (pt.i - xi) * (pt.i - xi));
      }
      xh[s] = Cf{xr, xi};
      vv[s] = e / w;
    }
    // A = G diag(v) + N0 I and its inverse (Gauss-Jordan, partial pivoting)
    Cf A[LIN_NT * LIN_NT], inv[LIN_NT * LIN_NT];
    float scale = 0.f;
    for (int j = 0; j < LIN_NT; j++)
      for (int i = 0; i < LIN_NT; i++) {
        Cf a = G[i + j * LIN_NT];
        a.r = a.r * vv[j] + (i == j ? n0 : 0.f); a.i *= vv[j];
        A[i + j * LIN_NT] = a;
        inv[i + j * LIN_NT] = Cf{i == j ? 1.f : 0.f, 0.f};
        scale = fmaxf(scale, fmaxf(fabsf(a.r), fabsf(a.i)));
      }
    for (int c = 0; c < LIN_NT; c++) {
      int p = c; float best = -1.f;
      for (int r = c; r < LIN_NT; r++) { const float m = hypotf(A[r + c * LIN_NT].r, A[r + c * LIN_NT].i); if (m > best) { best = m; p = r; } }
      if (!(best > LIN_PIVOT_TOL * scale)) { status[2 * v] = ST_FLOAT32_UNSAFE; return; }
      if (p != c)
        for (int k = 0; k < LIN_NT; k++) {
          const Cf t = A[c + k * LIN_NT]; A[c + k * LIN_NT] = A[p + k * LIN_NT]; A[p + k * LIN_NT] = t;
          const Cf u = inv[c + k * LIN_NT]; inv[c + k * LIN_NT] = inv[p + k * LIN_NT]; inv[p + k * LIN_NT] = u;
        }
      const float pr = A[c + c * LIN_NT].r, pi = A[c + c * LIN_NT].i, d = pr * pr + pi * pi, qr = pr / d, qi = -pi / d;
      for (int k = 0; k < LIN_NT; k++) {
        Cf x = A[c + k * LIN_NT]; A[c + k * LIN_NT] = Cf{x.r * qr - x.i * qi, x.r * qi + x.i * qr};
        x = inv[c + k * LIN_NT]; inv[c + k * LIN_NT] = Cf{x.r * qr - x.i * qi, x.r * qi + x.i * qr};
      }
      for (int r = 0; r < LIN_NT; r++) {
        if (r == c) continue;
        const float fr = A[r + c * LIN_NT].r, fi = A[r + c * LIN_NT].i;
        for (int k = 0; k < LIN_NT; k++) {
          const Cf b = A[c + k * LIN_NT], u = inv[c + k * LIN_NT];
          A[r + k * LIN_NT].r -= fr * b.r - fi * b.i; A[r + k * LIN_NT].i -= fr * b.i + fi * b.r;
          inv[r + k * LIN_NT].r -= fr * u.r - fi * u.i; inv[r + k * LIN_NT].i -= fr * u.i + fi * u.r;
        }
      }
    }
    // t = H^H y - G x^
    Cf t[LIN_NT];
    for (int i = 0; i < LIN_NT; i++) {
      float re = ymf[i].r, im = ymf[i].i;
      for (int j = 0; j < LIN_NT; j++) {
        const Cf g = G[i + j * LIN_NT];
        re -= g.r * xh[j].r - g.i * xh[j].i; im -= g.r * xh[j].i + g.i * xh[j].r;
      }
      t[i] = Cf{re, im};
    }
    for (int s = 0; s < LIN_NT; s++) {
      float a = 0.f, er = 0.f, ei = 0.f;
      for (int j = 0; j < LIN_NT; j++) {
        const Cf w = inv[s + j * LIN_NT], g = G[j + s * LIN_NT];
        a += w.r * g.r - w.i * g.i;
        er += w.r * t[j].r - w.i * t[j].i; ei += w.r * t[j].i + w.i * t[j].r;
      }
      const float ia = a > 1e-12f ? 1.f / a : 1.f;
      const float zr = xh[s].r + er * ia, zi = xh[s].i + ei * ia;
      const float r = n0 * inv[s + s * LIN_NT].r * ia, nu2 = r > 0.f ? r : INFINITY_F;
      // log prior terms of the points, the MAP point, the extrinsic LLRs
      int best = 0;
      float a0[PIC_BPS], a1[PIC_BPS];
      pic_demap(zr, zi, nu2, la + s * PIC_BPS, &best, a0, a1);
      for (int b = 0; b < PIC_BPS; b++) { const float l = a0[b] - a1[b]; le[s * PIC_BPS + b] = l == l ? l : 0.f; }
      if (zero[s]) { Cf pt; best = slice_symbol(zr, zi, &pt); }
      if (it + 1 == PIC_ITER) symbols[(size_t)v * LIN_NT + s] = best;
    }
    if (it + 1 < PIC_ITER)
      for (int i = 0; i < LIN_NT * PIC_BPS; i++) la[i] += le[i];
  }
#if PIC_SOFT
  for (int i = 0; i < LIN_NT * PIC_BPS; i++) llr[(size_t)v * LIN_NT * PIC_BPS + i] = fminf(fmaxf(le[i], -clip), clip);
#endif
}

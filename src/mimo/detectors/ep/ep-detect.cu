// Expectation propagation, per received vector (one thread a vector), the float32 mirror of
// ep/cpu.ts: the real-valued model in amplitude units (dimension 2j = Re s_j, 2j + 1 = Im s_j;
// BPSK one dimension a stream along (1 + j)/sqrt2), Gaussian sites (lambda, gamma) from 1/Es and 0,
// EP_ITER iterations of: Cholesky of P = H_r^T H_r + s2 diag(lambda), mu = P^{-1} (H_r^T y + s2 gamma),
// S_i = s2 [P^{-1}]_ii, the cavity (x_obs, v_obs), moment matching against the PAM levels, damped
// site updates (beta keeps the old); then the last cavity's decisions and LLRs (max-log, or
// log-sum-exp with EP_LOGMAP), clipped to +-clip. A Cholesky pivot that is not positive (float32
// lost P's definiteness) flags the vector FLOAT32_UNSAFE: the engine redoes it on the CPU.
// A-priori LLRs (prior, vectors x EP_NT x bits; null: none), as ep/cpu.ts: a dimension whose bits
// have priors takes the log prior of its levels, the sum of its bits' +-L/2 (+ for a 0 bit), in
// place of the uniform one: its site starts at the prior's moments, the moment matching weighs the
// cavity by it, and the output is the cavity times it (the MAP level; the extrinsic LLRs, each
// bit's own term left out); a dimension whose priors are all 0 runs as without.
//
// -D: EP_NT, EP_NR, PAM_Q (levels a dimension; 0: BPSK), PAM_SCALE, EP_ITER, EP_BETA, EP_EPS
// (float literals), EP_LOGMAP, EP_SOFT (1: write LLRs).
// nvcc-variant: -DEP_NT=4 -DEP_NR=4 -DPAM_Q=4 -DPAM_SCALE=0.31622776601683794f -DEP_ITER=10 -DEP_BETA=0.9f -DEP_EPS=1e-6f -DEP_LOGMAP=0 -DEP_SOFT=1
// nvcc-variant: -DEP_NT=16 -DEP_NR=16 -DPAM_Q=16 -DPAM_SCALE=0.07669649888473704f -DEP_ITER=3 -DEP_BETA=0.5f -DEP_EPS=1e-4f -DEP_LOGMAP=1 -DEP_SOFT=1
// nvcc-variant: -DEP_NT=3 -DEP_NR=2 -DPAM_Q=0 -DPAM_SCALE=1.f -DEP_ITER=1 -DEP_BETA=0.f -DEP_EPS=1e-6f -DEP_LOGMAP=0 -DEP_SOFT=0

#ifndef EP_NT
#define EP_NT 4
#endif
#ifndef EP_NR
#define EP_NR 4
#endif
#ifndef PAM_Q
#define PAM_Q 4
#endif
#ifndef PAM_SCALE
#define PAM_SCALE 0.31622776601683794f
#endif
#ifndef EP_ITER
#define EP_ITER 10
#endif
#ifndef EP_BETA
#define EP_BETA 0.9f
#endif
#ifndef EP_EPS
#define EP_EPS 1e-6f
#endif
#ifndef EP_LOGMAP
#define EP_LOGMAP 0
#endif
#ifndef EP_SOFT
#define EP_SOFT 1
#endif

// MIMO_STATUS.FLOAT32_UNSAFE (src/mimo/gpu/status.ts)
#define EP_FLOAT32_UNSAFE 16
#define EP_INF __uint_as_float(0x7f800000u)

#if PAM_Q == 0
#define EP_DIMS 1
#define EP_Q 2
#define EP_K 1
#define EP_BPS 1
#else
#define EP_DIMS 2
#define EP_Q PAM_Q
#define EP_K (PAM_Q == 2 ? 1 : PAM_Q == 4 ? 2 : PAM_Q == 8 ? 3 : 4)
#define EP_BPS (2 * EP_K)
#endif
#define EP_ND (EP_DIMS * EP_NT)
#define EP_ROWS (2 * EP_NR)

// Level l of a dimension (ascending) and its PAM label (BPSK: x = +1 carries bit 0).
__device__ inline float ep_level(int l) {
#if PAM_Q == 0
  return l == 0 ? -1.f : 1.f;
#else
  return (float)(2 * l - (PAM_Q - 1)) * PAM_SCALE;
#endif
}
__device__ inline int ep_label(int l) {
#if PAM_Q == 0
  return 1 - l;
#else
  return (l ^ (l >> 1)) ^ (PAM_Q - 1);
#endif
}

// Entry (r, d) of the real matrix of channel h (nr x nt complex, column-major).
__device__ inline float ep_hr(const float* h, int r, int d) {
  const int i = r >> 1;
#if PAM_Q == 0
  const float hr = h[2 * (i + d * EP_NR)], hi = h[2 * (i + d * EP_NR) + 1];
  return (r & 1 ? hr + hi : hr - hi) * 0.70710678118654752f;
#else
  const int j = d >> 1;
  const float hr = h[2 * (i + j * EP_NR)], hi = h[2 * (i + j * EP_NR) + 1];
  if (d & 1) return r & 1 ? hr : -hi;
  return r & 1 ? hi : hr;
#endif
}

// Level l's log prior in dimension i (stream i / EP_DIMS, part i % EP_DIMS) of the vector's
// a-priori LLRs la: its bits' +-L/2, + for a 0 bit.
__device__ inline float ep_lp(const float* la, int i, int l) {
  const int j = i / EP_DIMS, part = i % EP_DIMS;
  float t = 0.f;
  for (int b = 0; b < EP_K; b++) {
    const float L = la[j * EP_BPS + (EP_DIMS == 1 ? 0 : 2 * b + part)];
    t += (ep_label(l) >> (EP_K - 1 - b)) & 1 ? -0.5f * L : 0.5f * L;
  }
  return t;
}

__device__ inline float ep_log_add(float a, float b) {
  if (a == -EP_INF) return b;
  if (b == -EP_INF) return a;
  return a > b ? a + log1pf(expf(b - a)) : b + log1pf(expf(a - b));
}

extern "C" __global__ void ep_detect(const float* __restrict__ H, const float* __restrict__ y, const float* __restrict__ noise,
                                     const float* __restrict__ prior, int* __restrict__ symbols, float* __restrict__ llr,
                                     int* __restrict__ status, int vectors, int vpc, float clip) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vectors || status[2 * v] != 0) return;
  const float* h = H + (size_t)(v / vpc) * 2 * EP_NR * EP_NT;
  const float* yv = y + (size_t)v * EP_ROWS;
  const float s2 = noise[v] * 0.5f;
  float HtH[EP_ND * EP_ND], L[EP_ND * EP_ND], hty[EP_ND];
  for (int a = 0; a < EP_ND; a++) {
    for (int c = a; c < EP_ND; c++) {
      float s = 0.f;
      for (int r = 0; r < EP_ROWS; r++) s += ep_hr(h, r, a) * ep_hr(h, r, c);
      HtH[a + c * EP_ND] = s;
      HtH[c + a * EP_ND] = s;
    }
    float s = 0.f;
    for (int r = 0; r < EP_ROWS; r++) s += ep_hr(h, r, a) * yv[r];
    hty[a] = s;
  }
  float es = 0.f;
  for (int l = 0; l < EP_Q; l++) es += ep_level(l) * ep_level(l);
  es /= (float)EP_Q;
  float lam[EP_ND], gam[EP_ND], xo[EP_ND], vo[EP_ND], mu[EP_ND], S[EP_ND];
  const float* la = prior ? prior + (size_t)v * EP_NT * EP_BPS : nullptr;
  bool act[EP_ND];
  for (int i = 0; i < EP_ND; i++) {
    act[i] = false;
    if (la)
      for (int b = 0; b < EP_K; b++) act[i] = act[i] || la[(i / EP_DIMS) * EP_BPS + (EP_DIMS == 1 ? 0 : 2 * b + i % EP_DIMS)] != 0.f;
    if (!act[i]) { lam[i] = 1.f / es; gam[i] = 0.f; continue; }
    // the prior's own moments, as 1/Es and 0 are the uniform prior's
    float lg[EP_Q], top = -EP_INF;
    for (int l = 0; l < EP_Q; l++) { lg[l] = ep_lp(la, i, l); top = fmaxf(top, lg[l]); }
    float w = 0.f, m1 = 0.f, m2 = 0.f;
    for (int l = 0; l < EP_Q; l++) { lg[l] = expf(lg[l] - top); w += lg[l]; m1 += lg[l] * ep_level(l); }
    const float mean = m1 / w;
    for (int l = 0; l < EP_Q; l++) { const float d = ep_level(l) - mean; m2 += lg[l] * d * d; }
    lam[i] = 1.f / fmaxf(m2 / w, EP_EPS);
    gam[i] = mean * lam[i];
  }
#pragma unroll 1
  for (int it = 0; it < EP_ITER; it++) {
    // Cholesky P = L L^T (lower)
    for (int j = 0; j < EP_ND; j++) {
      float d = HtH[j + j * EP_ND] + s2 * lam[j];
      for (int t = 0; t < j; t++) d -= L[j + t * EP_ND] * L[j + t * EP_ND];
      if (!(d > 0.f)) { status[2 * v] = EP_FLOAT32_UNSAFE; return; }
      const float ljj = sqrtf(d);
      L[j + j * EP_ND] = ljj;
      for (int i = j + 1; i < EP_ND; i++) {
        float s = HtH[i + j * EP_ND];
        for (int t = 0; t < j; t++) s -= L[i + t * EP_ND] * L[j + t * EP_ND];
        L[i + j * EP_ND] = s / ljj;
      }
    }
    // mu = P^{-1} (hty + s2 gamma)
    for (int i = 0; i < EP_ND; i++) {
      float s = hty[i] + s2 * gam[i];
      for (int t = 0; t < i; t++) s -= L[i + t * EP_ND] * mu[t];
      mu[i] = s / L[i + i * EP_ND];
    }
    for (int i = EP_ND - 1; i >= 0; i--) {
      float s = mu[i];
      for (int t = i + 1; t < EP_ND; t++) s -= L[t + i * EP_ND] * mu[t];
      mu[i] = s / L[i + i * EP_ND];
    }
    // S_i = s2 [P^{-1}]_ii: column c of L^{-1} solved in place of xo (scratch), its squares summed
    for (int i = 0; i < EP_ND; i++) S[i] = 0.f;
    for (int c = 0; c < EP_ND; c++) {
      float col[EP_ND];
      col[c] = 1.f / L[c + c * EP_ND];
      S[c] += col[c] * col[c];
      for (int r = c + 1; r < EP_ND; r++) {
        float s = 0.f;
        for (int t = c; t < r; t++) s -= L[r + t * EP_ND] * col[t];
        col[r] = s / L[r + r * EP_ND];
        S[c] += col[r] * col[r];
      }
    }
    for (int i = 0; i < EP_ND; i++) {
      const float si = s2 * S[i], d = 1.f - si * lam[i];
      if (d >= EP_EPS * si && d > 0.f) { vo[i] = fmaxf(si / d, EP_EPS); xo[i] = (mu[i] - si * gam[i]) / d; }
      else { vo[i] = 1.f / EP_EPS; xo[i] = mu[i]; }
    }
    if (it + 1 == EP_ITER) break;
    for (int i = 0; i < EP_ND; i++) {
      float lg[EP_Q], top = -EP_INF;
      for (int l = 0; l < EP_Q; l++) {
        const float d = xo[i] - ep_level(l);
        lg[l] = -(d * d) / (2.f * vo[i]);
        if (act[i]) lg[l] += ep_lp(la, i, l);
        top = fmaxf(top, lg[l]);
      }
      float w = 0.f, m1 = 0.f, m2 = 0.f;
      for (int l = 0; l < EP_Q; l++) { lg[l] = expf(lg[l] - top); w += lg[l]; m1 += lg[l] * ep_level(l); }
      const float mean = m1 / w;
      // the variance about the mean (E[a^2] - mean^2 cancels in float32 where it is far under Es)
      for (int l = 0; l < EP_Q; l++) { const float d = ep_level(l) - mean; m2 += lg[l] * d * d; }
      const float vi = fmaxf(m2 / w, EP_EPS);
      const float ln = 1.f / vi - 1.f / vo[i], gn = mean / vi - xo[i] / vo[i];
      if (ln >= 0.f) { lam[i] = EP_BETA * lam[i] + (1.f - EP_BETA) * ln; gam[i] = EP_BETA * gam[i] + (1.f - EP_BETA) * gn; }
    }
  }
  for (int j = 0; j < EP_NT; j++) {
    int lv[EP_DIMS];
    for (int part = 0; part < EP_DIMS; part++) {
      const int i = j * EP_DIMS + part;
      float lg[EP_Q];
      int best = 0;
      for (int l = 0; l < EP_Q; l++) {
        const float d = xo[i] - ep_level(l);
        // a posteriori: the cavity times the prior
        lg[l] = -(d * d) / (2.f * vo[i]);
        if (act[i]) lg[l] += ep_lp(la, i, l);
        if (lg[l] > lg[best]) best = l;
      }
      lv[part] = best;
#if EP_SOFT
      for (int b = 0; b < EP_K; b++) {
        float a0 = -EP_INF, a1 = -EP_INF;
        // extrinsic: the bit's own prior term out of every level's
        const float half = act[i] ? 0.5f * la[j * EP_BPS + (EP_DIMS == 1 ? 0 : 2 * b + part)] : 0.f;
        for (int l = 0; l < EP_Q; l++) {
          const int one = (ep_label(l) >> (EP_K - 1 - b)) & 1;
          const float t = lg[l] - (one ? -half : half);
#if EP_LOGMAP
          if (one) a1 = ep_log_add(a1, t); else a0 = ep_log_add(a0, t);
#else
          if (one) a1 = fmaxf(a1, t); else a0 = fmaxf(a0, t);
#endif
        }
        float l = a0 - a1;
        l = l == l ? fminf(fmaxf(l, -clip), clip) : 0.f;
        llr[(size_t)v * EP_NT * EP_BPS + j * EP_BPS + (EP_DIMS == 1 ? 0 : 2 * b + part)] = l;
      }
#endif
    }
#if PAM_Q == 0
    symbols[(size_t)v * EP_NT + j] = lv[0] == 1 ? 0 : 1;
#else
    // the symbol index: the real level's label at the odd bit positions, the imaginary's at the even
    int s = 0;
    const int lr = ep_label(lv[0]), li = ep_label(lv[1]);
    for (int p = 0; p < EP_K; p++) s |= (((lr >> p) & 1) << (2 * p + 1)) | (((li >> p) & 1) << (2 * p));
    symbols[(size_t)v * EP_NT + j] = s;
#endif
  }
}

// The sphere decoder's per-channel preprocessing (cpu.ts prepareSphere), one thread a channel, in
// double, stored as float into the layout of sphere.cuh:
//  - square QAM: the complex sorted QR (SQRD, preprocess/complex.ts complexSortedQrInto: at each
//    step the remaining column of least residual norm) expanded to the real R by MRVD (positions
//    2k, 2k+1 are Re and Im of stream perm_c[k]);
//  - BPSK: the real SQRD (preprocess/qr.ts qrInto 'ascending') of H_r = [Re H'; Im H'],
//    H' = H (1 + j)/sqrt2.
// A channel whose smallest residual is under 2^-20 of its largest column (squared) is flagged
// FLOAT32_UNSAFE: float32 cannot be trusted with it, and the engine redoes its vectors on the CPU
// in float64 (which also decides whether it is rank-deficient).
//
// nvcc-variant: -DSP_NT=4 -DSP_NR=4 -DSP_BPS=4
// nvcc-variant: -DSP_NT=3 -DSP_NR=2 -DSP_BPS=1

#include "sphere.cuh"

#define SP_UNSAFE_RATIO 9.5367431640625e-07  // 2^-20

// H: channels x (nr x nt complex, column-major); F, I: the scratch regions (sphere.cuh).
extern "C" __global__ void sphere_prep(const float* __restrict__ H, float* __restrict__ F, int* __restrict__ I, int channels) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  const float* h = H + (size_t)c * 2 * SP_NR * SP_NT;
  float* f = F + (size_t)c * SP_FLOATS;
  int* perm = I + (size_t)c * SP_INTS;
  double Q[2 * SP_NR * SP_NT];
  double R[SP_N * SP_N];
  double resid[SP_N];
  int p[SP_N];
  double big = 0.0, least = 1e300;
  for (int i = 0; i < SP_N * SP_N; i++) R[i] = 0.0;
#if SP_BPS == 1
  // H_r (m x n column-major) and its real SQRD.
  const double a = 0.70710678118654752;
  for (int j = 0; j < SP_N; j++) {
    double nn = 0.0;
    for (int i = 0; i < SP_NR; i++) {
      const double hr = h[2 * (i + j * SP_NR)], hi = h[2 * (i + j * SP_NR) + 1];
      Q[i + j * SP_M] = a * (hr - hi);
      Q[SP_NR + i + j * SP_M] = a * (hr + hi);
      nn += Q[i + j * SP_M] * Q[i + j * SP_M] + Q[SP_NR + i + j * SP_M] * Q[SP_NR + i + j * SP_M];
    }
    resid[j] = nn; p[j] = j;
    big = fmax(big, nn);
  }
  for (int i = 0; i < SP_N; i++) {
    int best = i;
    for (int k = i + 1; k < SP_N; k++) if (resid[k] < resid[best]) best = k;
    if (best != i) {
      for (int r = 0; r < SP_M; r++) { const double t = Q[r + i * SP_M]; Q[r + i * SP_M] = Q[r + best * SP_M]; Q[r + best * SP_M] = t; }
      for (int r = 0; r < i; r++) { const double t = R[r + i * SP_N]; R[r + i * SP_N] = R[r + best * SP_N]; R[r + best * SP_N] = t; }
      const int tp = p[i]; p[i] = p[best]; p[best] = tp;
      const double tr = resid[i]; resid[i] = resid[best]; resid[best] = tr;
    }
    double nn = 0.0;
    for (int r = 0; r < SP_M; r++) nn += Q[r + i * SP_M] * Q[r + i * SP_M];
    least = fmin(least, nn);
    const double norm = sqrt(nn), inv = nn > 0.0 ? 1.0 / norm : 0.0;
    R[i + i * SP_N] = norm;
    for (int r = 0; r < SP_M; r++) Q[r + i * SP_M] *= inv;
    for (int k = i + 1; k < SP_N; k++) {
      double d = 0.0;
      for (int r = 0; r < SP_M; r++) d += Q[r + i * SP_M] * Q[r + k * SP_M];
      R[i + k * SP_N] = d;
      for (int r = 0; r < SP_M; r++) Q[r + k * SP_M] -= d * Q[r + i * SP_M];
      resid[k] -= d * d;
    }
  }
  for (int k = 0; k < SP_N; k++) perm[k] = p[k];
#else
  // Complex SQRD: Q nr x nt, Rc nt x nt (both complex column-major), then the MRVD of Rc.
  double Rc[2 * SP_NT * SP_NT];
  for (int i = 0; i < 2 * SP_NT * SP_NT; i++) Rc[i] = 0.0;
  for (int k = 0; k < SP_NT; k++) {
    double nn = 0.0;
    for (int i = 0; i < 2 * SP_NR; i++) { const double v = h[2 * k * SP_NR + i]; Q[2 * k * SP_NR + i] = v; nn += v * v; }
    resid[k] = nn; p[k] = k;
    big = fmax(big, nn);
  }
  for (int i = 0; i < SP_NT; i++) {
    int best = i;
    for (int k = i + 1; k < SP_NT; k++) if (resid[k] < resid[best]) best = k;
    if (best != i) {
      for (int r = 0; r < 2 * SP_NR; r++) { const double t = Q[2 * i * SP_NR + r]; Q[2 * i * SP_NR + r] = Q[2 * best * SP_NR + r]; Q[2 * best * SP_NR + r] = t; }
      for (int r = 0; r < 2 * i; r++) { const double t = Rc[2 * i * SP_NT + r]; Rc[2 * i * SP_NT + r] = Rc[2 * best * SP_NT + r]; Rc[2 * best * SP_NT + r] = t; }
      const int tp = p[i]; p[i] = p[best]; p[best] = tp;
      const double tr = resid[i]; resid[i] = resid[best]; resid[best] = tr;
    }
    const int ci = 2 * i * SP_NR;
    double nn = 0.0;
    for (int r = 0; r < 2 * SP_NR; r++) nn += Q[ci + r] * Q[ci + r];
    least = fmin(least, nn);
    const double norm = sqrt(nn), inv = nn > 0.0 ? 1.0 / norm : 0.0;
    Rc[2 * (i + i * SP_NT)] = norm;
    for (int r = 0; r < 2 * SP_NR; r++) Q[ci + r] *= inv;
    for (int k = i + 1; k < SP_NT; k++) {
      const int ck = 2 * k * SP_NR;
      double dr = 0.0, di = 0.0;  // q_i^H q_k
      for (int r = 0; r < SP_NR; r++) {
        const double ar = Q[ci + 2 * r], ai = Q[ci + 2 * r + 1], br = Q[ck + 2 * r], bi = Q[ck + 2 * r + 1];
        dr += ar * br + ai * bi;
        di += ar * bi - ai * br;
      }
      Rc[2 * (i + k * SP_NT)] = dr; Rc[2 * (i + k * SP_NT) + 1] = di;
      for (int r = 0; r < SP_NR; r++) {
        const double ar = Q[ci + 2 * r], ai = Q[ci + 2 * r + 1];
        Q[ck + 2 * r] -= ar * dr - ai * di;
        Q[ck + 2 * r + 1] -= ar * di + ai * dr;
      }
      resid[k] -= dr * dr + di * di;
    }
  }
  for (int k = 0; k < SP_NT; k++) { perm[2 * k] = p[k]; perm[2 * k + 1] = SP_NT + p[k]; }
  for (int j = 0; j < SP_NT; j++) {
    for (int i = 0; i <= j; i++) {
      const double re = Rc[2 * (i + j * SP_NT)], im = Rc[2 * (i + j * SP_NT) + 1];
      R[2 * i + 2 * j * SP_N] = re; R[2 * i + (2 * j + 1) * SP_N] = -im;
      R[2 * i + 1 + 2 * j * SP_N] = im; R[2 * i + 1 + (2 * j + 1) * SP_N] = re;
    }
  }
#endif
  for (int i = 0; i < 2 * SP_NR * SP_NT; i++) f[SP_OFF_Q + i] = (float)Q[i];
  const double scale = sp_scale();
  for (int k = 0; k < SP_N; k++) {
    for (int j = 0; j < SP_N; j++) f[SP_OFF_ROWS + k * SP_N + j] = j >= k ? (float)R[k + j * SP_N] : 0.0f;
    const double d = R[k + k * SP_N];
    f[SP_OFF_INVDIAG + k] = d > 0.0 ? (float)(1.0 / d) : 0.0f;
    f[SP_OFF_WEIGHT + k] = (float)(4.0 * scale * scale * d * d);
  }
  perm[SP_N] = least > SP_UNSAFE_RATIO * big && big > 0.0 ? 0 : SP_STATUS_FLOAT32_UNSAFE;
}

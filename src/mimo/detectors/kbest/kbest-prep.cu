// K-best preprocessing, one thread per channel: the MRVD real matrix and its sorted QR (SQRD,
// weakest real dimension first, a stream's real part before its imaginary part where their
// residuals tie), computed in double with -fmad=false exactly as qrInto(..., 'ascending', pairs)
// in src/mimo/preprocess/qr.ts does it, so that the column order (which K-best's decisions depend
// on) is the CPU engine's; Q and R are then stored as float32 for the search. Launched by cuda.ts.
//
// nvcc-variant: -fmad=false -DNR=4 -DNT=4 -DND=8 -DROWS=8 -DDPS=2 -DQL=4 -DMIMO_COMPILE_CHECK
// nvcc-variant: -fmad=false -DNR=2 -DNT=2 -DND=2 -DROWS=4 -DDPS=1 -DQL=2 -DMIMO_COMPILE_CHECK

#include "real-model.cuh"
#include "../qr-double.cuh"

// Per channel: Qout ROWS x ND and Rout ND x ND (float32, column-major), info 1 + ND ints: the
// channel's status flags (0, or MIMO_RANK_DEFICIENT / MIMO_FLOAT32_UNSAFE) and perm (column k
// holds real dimension perm[k]).
extern "C" __global__ void kbest_prep(const float* __restrict__ H, float* __restrict__ Qout, float* __restrict__ Rout,
                                      int* __restrict__ info, int channels, double scale) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  const int m = ROWS, n = ND;
  double Q[ROWS * ND], R[ND * ND], orig[ND], res[ND];
  int perm[ND];
  real_model_fill(H + (size_t)c * 2 * NR * NT, scale, Q);
  for (int k = 0; k < n; k++) {
    perm[k] = k;
    double nn = 0;
    for (int r = 0; r < m; r++) nn += Q[r + k * m] * Q[r + k * m];
    orig[k] = sqrt(nn);
    for (int i = 0; i < n; i++) R[i + k * n] = 0;
  }
  for (int k = 0; k < n; k++) res[k] = orig[k] * orig[k];
  int flags = 0;
  for (int i = 0; i < n && flags == 0; i++) {
    // The least residual; with two dimensions a stream (DPS = 2) and the columns taken so far in
    // whole streams, a stream's real and imaginary columns tie in exact arithmetic: they count as
    // one column of the lesser of the two, and equal residuals go to the least dimension, the real
    // part first (qrInto's `pairs`, kbest/cpu.ts).
    int best = i;
    double bestVal = res[i];
    if (DPS == 2) {
      bool whole = true;
      for (int t = 0; t < i && whole; t++) {
        whole = false;
        for (int u = 0; u < i; u++) if (perm[u] == (perm[t] ^ 1)) whole = true;
      }
      for (int k = i; k < n; k++) {
        double v = res[k];
        if (whole) for (int t = i; t < n; t++) if (perm[t] == (perm[k] ^ 1) && res[t] < v) v = res[t];
        if (k == i || v < bestVal || (whole && v == bestVal && perm[k] < perm[best])) { bestVal = v; best = k; }
      }
    } else {
      for (int k = i + 1; k < n; k++) if (res[k] < bestVal) { bestVal = res[k]; best = k; }
    }
    if (best != i) {
      for (int r = 0; r < m; r++) { const double t = Q[r + i * m]; Q[r + i * m] = Q[r + best * m]; Q[r + best * m] = t; }
      for (int r = 0; r < i; r++) { const double t = R[r + i * n]; R[r + i * n] = R[r + best * n]; R[r + best * n] = t; }
      const int tp = perm[i]; perm[i] = perm[best]; perm[best] = tp;
      const double tn = orig[i]; orig[i] = orig[best]; orig[best] = tn;
      const double tr = res[i]; res[i] = res[best]; res[best] = tr;
    }
    const double norm = qr_double_norm(Q, m, i);
    if (!(norm > RANK_TOL * orig[i])) { flags = MIMO_RANK_DEFICIENT; break; }
    if (!(norm > FLOAT32_TOL * orig[i])) flags = MIMO_FLOAT32_UNSAFE;
    qr_double_normalise(Q, m, R, norm, i);
    for (int k = i + 1; k < n; k++) {
      const double d = qr_double_project(Q, m, R, i, k);
      res[k] = res[k] - d * d;
    }
  }
  float* q = Qout + (size_t)c * m * n;
  float* rr = Rout + (size_t)c * n * n;
  int* inf = info + (size_t)c * (1 + n);
  for (int e = 0; e < m * n; e++) q[e] = (float)Q[e];
  for (int e = 0; e < n * n; e++) rr[e] = (float)R[e];
  inf[0] = flags;
  for (int k = 0; k < n; k++) inf[1 + k] = perm[k];
}

// The TDL models' antenna correlation on the tap matrices tdl-taps.cu wrote (src/channels/tdl/cpu.ts:
// correlate() on every Rayleigh tap): A <- L_rx A L_tx^H in place, with the CPU's operation order
// (explicit _rn intrinsics), a null factor the identity. One thread a (drop, time, Rayleigh tap).
//   A       count x T x taps x (nr x nt complex, column-major) doubles; the LOS tap (first, when
//           `los`) is left alone
//   tmp     scratch of A's size (the intermediate product)
//   Lr, Lt  the lower Cholesky factors (nr x nr, nt x nt, row-major, interleaved) or null
// nvcc-variant: -DTDL_BLOCK=128

#include "../../core/philox.cuh"

#ifndef TDL_BLOCK
#define TDL_BLOCK 128
#endif

extern "C" __global__ void __launch_bounds__(TDL_BLOCK) tdl_correlate(
    double* __restrict__ A, double* __restrict__ tmp, const double* __restrict__ Lr, const double* __restrict__ Lt,
    int count, int T, int nt, int nr, int L, int los) {
  const long long g = (long long)blockIdx.x * TDL_BLOCK + threadIdx.x;
  if (g >= (long long)count * T * L) return;
  const int l = (int)(g % L);
  const long long ct = g / L;
  const int E = nr * nt, taps = L + los;
  double* a = A + 2 * (ct * taps + los + l) * E;
  double* s = tmp + 2 * (ct * taps + los + l) * E;
  if (Lr) {  // column j of Lr G: row i sums Lr_ik g_kj over k <= i
    for (int j = 0; j < nt; j++)
      for (int i = 0; i < nr; i++) {
        double re = 0, im = 0;
        for (int k = 0; k <= i; k++) {
          const double lr = Lr[2 * (i * nr + k)], li = Lr[2 * (i * nr + k) + 1];
          const double hr = a[2 * (k + j * nr)], hi = a[2 * (k + j * nr) + 1];
          re = __dadd_rn(re, __dsub_rn(__dmul_rn(lr, hr), __dmul_rn(li, hi)));
          im = __dadd_rn(im, __dadd_rn(__dmul_rn(lr, hi), __dmul_rn(li, hr)));
        }
        s[2 * (i + j * nr)] = re;
        s[2 * (i + j * nr) + 1] = im;
      }
    for (int e = 0; e < 2 * E; e++) a[e] = s[e];
  }
  if (Lt) {  // column j of H Lt^H: sums column k of H times conj(Lt_jk) over k <= j
    for (int j = 0; j < nt; j++)
      for (int i = 0; i < nr; i++) {
        double re = 0, im = 0;
        for (int k = 0; k <= j; k++) {
          const double lr = Lt[2 * (j * nt + k)], li = -Lt[2 * (j * nt + k) + 1];
          const double hr = a[2 * (i + k * nr)], hi = a[2 * (i + k * nr) + 1];
          re = __dadd_rn(re, __dsub_rn(__dmul_rn(hr, lr), __dmul_rn(hi, li)));
          im = __dadd_rn(im, __dadd_rn(__dmul_rn(hr, li), __dmul_rn(hi, lr)));
        }
        s[2 * (i + j * nr)] = re;
        s[2 * (i + j * nr) + 1] = im;
      }
    for (int e = 0; e < 2 * E; e++) a[e] = s[e];
  }
}

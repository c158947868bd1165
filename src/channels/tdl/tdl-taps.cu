// The TDL models' tap matrices at given times (src/channels/tdl/cpu.ts, the `A` of its response):
// for drop c of a ChannelSpan, time index ti and tap l, the nr x nt matrix
//   Rayleigh tap:  L_rx G(t) L_tx^H,  G_ij(t) = sum_m g_m exp(j 2 pi f_D cos(alpha_m) t)
//   the LOS tap (first, in TDL-D and -E): exp(j (2 pi 0.7 f_D t + phi)) on every entry
// drawn from the drop's Philox words as the CPU reads them (its file's header gives the layout), in
// float64 with the CPU's operation order (explicit _rn intrinsics; cos / sin / sincos may differ
// from V8's in the last ulp). One thread a (drop, time, tap).
//   A       count x T x taps x (nr x nt complex, column-major) doubles
//   Lr, Lt  the lower Cholesky factors (nr x nr, nt x nt, row-major, interleaved) or null
//   tmp     scratch of A's size (the correlation's intermediate product)
// nvcc-variant: -DTDL_BLOCK=128

#include "../../core/philox.cuh"

#ifndef TDL_BLOCK
#define TDL_BLOCK 128
#endif

extern "C" __global__ void __launch_bounds__(TDL_BLOCK) tdl_taps(
    double* __restrict__ A, double* __restrict__ tmp, const double* __restrict__ Lr, const double* __restrict__ Lt,
    const double* __restrict__ times, unsigned long long seed, unsigned long long stream0, unsigned long long streamStep,
    unsigned long long perStream, unsigned long long first, int count, int T, int nt, int nr, int L, int los, int M,
    double gScale, double twoPiFd, double losW) {
  const int taps = L + los;
  const long long g = (long long)blockIdx.x * TDL_BLOCK + threadIdx.x;
  if (g >= (long long)count * T * taps) return;
  const int tap = (int)(g % taps);
  const long long ct = g / taps;
  const int ti = (int)(ct % T);
  const long long c = ct / T;
  const int E = nr * nt;
  double* a = A + 2 * g * E;
  const unsigned long long q = first + c;
  const unsigned long long stream = stream0 + (q / perStream) * streamStep;
  const unsigned long long wordsPerDrop = 4ull * (1ull + 2ull * (unsigned long long)L * E * M);
  const unsigned long long b0 = (q % perStream) * (wordsPerDrop / 4);
  const double t = times[ti];
  if (los && tap == 0) {
    const philox_words w = philox_block(seed, stream, b0);
    const double phi = __dmul_rn(6.283185307179586, philox_uniform64(w.w0, w.w1));
    const double ph = __dadd_rn(__dmul_rn(losW, t), phi);
    const double cr = cos(ph), ci = sin(ph);
    for (int e = 0; e < E; e++) {
      a[2 * e] = cr;
      a[2 * e + 1] = ci;
    }
    return;
  }
  const int l = tap - los;
  const double w = __dmul_rn(twoPiFd, t);
  for (int e = 0; e < E; e++) {
    double re = 0, im = 0;
    unsigned long long blk = b0 + 1 + 2ull * (((unsigned long long)l * E + e) * M);
    for (int m = 0; m < M; m++, blk += 2) {
      double gr, gi;
      philox_normal_pair(philox_block(seed, stream, blk), &gr, &gi);
      gr = __dmul_rn(gr, gScale);
      gi = __dmul_rn(gi, gScale);
      const philox_words u = philox_block(seed, stream, blk + 1);
      const double ca = cos(__dmul_rn(6.283185307179586, philox_uniform64(u.w0, u.w1)));
      const double ph = __dmul_rn(w, ca);
      const double cs = cos(ph), sn = sin(ph);
      re = __dadd_rn(re, __dsub_rn(__dmul_rn(gr, cs), __dmul_rn(gi, sn)));
      im = __dadd_rn(im, __dadd_rn(__dmul_rn(gr, sn), __dmul_rn(gi, cs)));
    }
    a[2 * e] = re;
    a[2 * e + 1] = im;
  }
  double* s = tmp + 2 * g * E;
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

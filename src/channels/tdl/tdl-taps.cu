// The TDL models' tap gains at given times (src/channels/tdl/cpu.ts, the `A` of its response): for
// drop c of a ChannelSpan, time index ti, tap l and entry e = i + j nr of the nr x nt matrix
//   Rayleigh tap:  G_e(t) = sum_m g_m exp(j 2 pi f_D cos(alpha_m) t)  (uncorrelated: tdl-correlate.cu
//                  then makes it L_rx G L_tx^H where the model has correlation)
//   the LOS tap (first, in TDL-D and -E): exp(j (2 pi 0.7 f_D t + phi)) on every entry
// drawn from the drop's Philox words as the CPU reads them (its file's header gives the layout), in
// float64 with the CPU's operation order (explicit _rn intrinsics; cos / sin / sincos may differ
// from V8's in the last ulp). One thread an entry of a (drop, time, tap): each sums its own M
// sinusoids, so a slot has 14 taps E threads working at once.
//   A  count x T x taps x (nr x nt complex, column-major) doubles
// nvcc-variant: -DTDL_BLOCK=128

#include "../../core/philox.cuh"

#ifndef TDL_BLOCK
#define TDL_BLOCK 128
#endif

extern "C" __global__ void __launch_bounds__(TDL_BLOCK) tdl_taps(
    double* __restrict__ A, const double* __restrict__ times, unsigned long long seed, unsigned long long stream0,
    unsigned long long streamStep, unsigned long long perStream, unsigned long long first, int count, int T, int nt,
    int nr, int L, int los, int M, double gScale, double twoPiFd, double losW) {
  const int taps = L + los, E = nr * nt;
  const long long g = (long long)blockIdx.x * TDL_BLOCK + threadIdx.x;
  if (g >= (long long)count * T * taps * E) return;
  const int e = (int)(g % E);
  const long long ctl = g / E;
  const int tap = (int)(ctl % taps);
  const long long ct = ctl / taps;
  const int ti = (int)(ct % T);
  const long long c = ct / T;
  const unsigned long long q = first + c;
  const unsigned long long stream = stream0 + (q / perStream) * streamStep;
  const unsigned long long wordsPerDrop = 4ull * (1ull + 2ull * (unsigned long long)L * E * M);
  const unsigned long long b0 = (q % perStream) * (wordsPerDrop / 4);
  const double t = times[ti];
  if (los && tap == 0) {
    const philox_words w = philox_block(seed, stream, b0);
    const double phi = __dmul_rn(6.283185307179586, philox_uniform64(w.w0, w.w1));
    const double ph = __dadd_rn(__dmul_rn(losW, t), phi);
    A[2 * g] = cos(ph);
    A[2 * g + 1] = sin(ph);
    return;
  }
  const int l = tap - los;
  const double w = __dmul_rn(twoPiFd, t);
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
  A[2 * g] = re;
  A[2 * g + 1] = im;
}

// The CDL models' delay-slot matrices at given times (src/channels/cdl/cpu.ts, the `C` of its
// response): for drop c, time ti and slot n, entry (i, j) of
//   cluster n:  sum over its 20 rays r of g_ij(n, r) exp(j 2 pi nu t), in ray order
//   the specular slot (last, line-of-sight tables): losG_ij exp(j 2 pi nu_LOS t)
// with g_ij(n, r) the CPU's rayGains, operation for operation (explicit _rn intrinsics, no FMA
// contraction), from the ray's record (cdl-rays.cu) and the host's per-pairing arrays, and the
// Doppler turns computed by the host (cpu.ts dopplerTurns): every value the CPU's bit for bit. One
// thread a (drop, time, slot, entry).
//   A        count x T x slots x E complex doubles, E = nr nt in the channels' layout (i + j nr)
//   idx, M   the rays' records (cdl-rays.cu)
//   rxField  pairs doubles, rxSteer pairs x nr complex (pairs = clusters 400); txField, txSteer likewise
//   amp      clusters doubles: sqrt(P_n / 20) c
//   rxSlant  nr x (cos, sin) of the elements' slants; txSlant nt x (cos, sin)
//   losG     E complex: the specular ray's gains (null without a line of sight)
//   turns    T' x (pairs + los) complex: exp(j 2 pi nu t) per UE pairing, then the specular ray's;
//            T' = 1 when still (no Doppler: every time is the first)
// nvcc-variant: -DCDL_BLOCK=128

#include "../../core/philox.cuh"  // the host shims of the _rn intrinsics (the CUDA emulator)

#ifndef CDL_BLOCK
#define CDL_BLOCK 128
#endif

#define CDL_RAYS 20

extern "C" __global__ void __launch_bounds__(CDL_BLOCK) cdl_clusters(
    double* __restrict__ A, const int* __restrict__ idx, const double* __restrict__ M,
    const double* __restrict__ rxField, const double* __restrict__ rxSteer, const double* __restrict__ txField,
    const double* __restrict__ txSteer, const double* __restrict__ amp, const double* __restrict__ rxSlant,
    const double* __restrict__ txSlant, const double* __restrict__ losG, const double* __restrict__ turns, int count,
    int T, int clusters, int los, int nr, int nt, int single, int still) {
  const int E = nr * nt, slots = clusters + los;
  const long long g = (long long)blockIdx.x * CDL_BLOCK + threadIdx.x;
  if (g >= (long long)count * T * slots * E) return;
  const int e = (int)(g % E);
  const long long cts = g / E;
  const int n = (int)(cts % slots);
  const long long ct = cts / slots;
  const int ti = (int)(ct % T);
  const long long c = ct / T;
  const int pairs = clusters * CDL_RAYS * CDL_RAYS;
  const double* w = turns + 2 * (long long)(still ? 0 : ti) * (pairs + los);
  double re = 0, im = 0;
  if (n == clusters) {
    const double gr = losG[2 * e], gi = losG[2 * e + 1], wr = w[2 * pairs], wi = w[2 * pairs + 1];
    re = __dadd_rn(re, __dsub_rn(__dmul_rn(gr, wr), __dmul_rn(gi, wi)));
    im = __dadd_rn(im, __dadd_rn(__dmul_rn(gr, wi), __dmul_rn(gi, wr)));
  } else {
    const int i = e % nr, j = e / nr;
    const double rc = rxSlant[2 * i], rs = rxSlant[2 * i + 1], tc = txSlant[2 * j], ts = txSlant[2 * j + 1];
    const double a = amp[n];
    const long long ray0 = (c * clusters + n) * CDL_RAYS;
    for (int r = 0; r < CDL_RAYS; r++) {
      const int bs = idx[2 * (ray0 + r)], ue = idx[2 * (ray0 + r) + 1];
      const double* m = M + 8 * (ray0 + r);
      const double fr = __dmul_rn(rxField[bs], a), ft = txField[ue];
      const double ar = rxSteer[2 * ((long long)bs * nr + i)], ai = rxSteer[2 * ((long long)bs * nr + i) + 1];
      const double cr = txSteer[2 * ((long long)ue * nt + j)], ci = txSteer[2 * ((long long)ue * nt + j) + 1];
      const double ath = __dmul_rn(fr, rc), aph = __dmul_rn(fr, rs);
      const double th = __dmul_rn(ft, tc), phf = __dmul_rn(ft, ts);
      // M F_tx, then times the steering phase
      const double tr = __dadd_rn(__dmul_rn(m[0], th), __dmul_rn(m[2], phf));
      const double tim = __dadd_rn(__dmul_rn(m[1], th), __dmul_rn(m[3], phf));
      const double bthr = __dsub_rn(__dmul_rn(tr, cr), __dmul_rn(tim, ci));
      const double bthi = __dadd_rn(__dmul_rn(tr, ci), __dmul_rn(tim, cr));
      double gr, gi;
      if (single) {  // vertical elements: (F_theta,i a_i) (m00 F_theta,j b_j)
        const double xr = __dmul_rn(ath, ar), xi = __dmul_rn(ath, ai);
        gr = __dsub_rn(__dmul_rn(xr, bthr), __dmul_rn(xi, bthi));
        gi = __dadd_rn(__dmul_rn(xr, bthi), __dmul_rn(xi, bthr));
      } else {
        const double pr = __dadd_rn(__dmul_rn(m[4], th), __dmul_rn(m[6], phf));
        const double pim = __dadd_rn(__dmul_rn(m[5], th), __dmul_rn(m[7], phf));
        const double bphr = __dsub_rn(__dmul_rn(pr, cr), __dmul_rn(pim, ci));
        const double bphi = __dadd_rn(__dmul_rn(pr, ci), __dmul_rn(pim, cr));
        const double vr = __dadd_rn(__dmul_rn(ath, bthr), __dmul_rn(aph, bphr));
        const double vi = __dadd_rn(__dmul_rn(ath, bthi), __dmul_rn(aph, bphi));
        gr = __dsub_rn(__dmul_rn(vr, ar), __dmul_rn(vi, ai));
        gi = __dadd_rn(__dmul_rn(vr, ai), __dmul_rn(vi, ar));
      }
      const double wr = w[2 * ue], wi = w[2 * ue + 1];
      re = __dadd_rn(re, __dsub_rn(__dmul_rn(gr, wr), __dmul_rn(gi, wi)));
      im = __dadd_rn(im, __dadd_rn(__dmul_rn(gr, wi), __dmul_rn(gi, wr)));
    }
  }
  A[2 * g] = re;
  A[2 * g + 1] = im;
}

// Kronecker correlated Rayleigh fading (src/channels/kronecker/cpu.ts kroneckerGenerator, correlate):
// H = Lr Hw Lt^H, Hw rayleigh's channel of the same Philox blocks (rayleigh.cu), Lr and Lt the
// complex Cholesky factors the host computed (kroneckerFactors), so they are the CPU's numbers.
// Every sum runs over the CPU's terms in the CPU's order, from 0, each product, difference and sum
// one IEEE operation (explicit _rn intrinsics), so H equals the CPU's wherever Hw does; where a
// normal differs in its last ulp (log, sin, cos: philox.cuh) the difference goes through the sums.
//
// A group of `lanes` threads a channel (lanes = max(nr, nt), at most the block), working in the
// channel's own H64 entries:
//   1. the lanes draw Hw's entries (entry k from block (q mod perStream) nr nt + k, as rayleigh.cu);
//   2. with Lr, lane j turns column j into column j of Lr Hw in place, rows from the last up: row i
//      reads rows 0 .. i only, which are still Hw's;
//   3. with Lt, lane i turns row i into row i of (Lr Hw) Lt^H in place, columns from the last down:
//      column j reads columns 0 .. j only;
//   4. the lanes round the channel to float32.
// The phases meet at block barriers (every thread reaches them; hasRx and hasTx are the launch's).
//   factors  Lr (nr x nr) then Lt (nt x nt), complex, row-major, lower triangular (2 (nr^2 + nt^2) doubles)
//   H64      count x (nr x nt complex, column-major) doubles, in the CPU's draw order
//   H32      the same as floats (the CUDA detectors' layout)
// nvcc-variant: -DCHANNEL_BLOCK=128

#include "../../core/philox.cuh"

#ifndef CHANNEL_BLOCK
#define CHANNEL_BLOCK 128
#endif

extern "C" __global__ void __launch_bounds__(CHANNEL_BLOCK) kronecker_channels(
    double* __restrict__ H64, float* __restrict__ H32, const double* __restrict__ factors, int hasRx, int hasTx,
    unsigned long long seed, unsigned long long stream0, unsigned long long streamStep, unsigned long long perStream,
    unsigned long long first, int count, int nr, int nt, int lanes) {
  const int perBlock = CHANNEL_BLOCK / lanes;
  const int local = threadIdx.x / lanes, lane = threadIdx.x - local * lanes;
  const long long c = (long long)blockIdx.x * perBlock + local;  // channel of the launch
  const bool active = local < perBlock && c < count;
  const int pairs = nr * nt;
  double* H = active ? H64 + c * 2 * pairs : H64;
  if (active) {
    const unsigned long long q = first + c;  // channel of the run
    const unsigned long long stream = stream0 + (q / perStream) * streamStep;
    const unsigned long long block0 = (q % perStream) * pairs;
    for (int k = lane; k < pairs; k += lanes) {
      double a, b;
      philox_normal_pair(philox_block(seed, stream, block0 + k), &a, &b);
      H[2 * k] = __dmul_rn(a, 0.7071067811865476);  // Math.SQRT1_2: rayleigh's entry
      H[2 * k + 1] = __dmul_rn(b, 0.7071067811865476);
    }
  }
  __syncthreads();
  if (hasRx) {
    const double* Lr = factors;
    if (active)
      for (int j = lane; j < nt; j += lanes)
        for (int i = nr - 1; i >= 0; i--) {
          double re = 0.0, im = 0.0;
          for (int k = 0; k <= i; k++) {
            const double lr = Lr[2 * (i * nr + k)], li = Lr[2 * (i * nr + k) + 1];
            const double hr = H[2 * (k + j * nr)], hi = H[2 * (k + j * nr) + 1];
            re = __dadd_rn(re, __dsub_rn(__dmul_rn(lr, hr), __dmul_rn(li, hi)));
            im = __dadd_rn(im, __dadd_rn(__dmul_rn(lr, hi), __dmul_rn(li, hr)));
          }
          H[2 * (i + j * nr)] = re;
          H[2 * (i + j * nr) + 1] = im;
        }
    __syncthreads();
  }
  if (hasTx) {
    const double* Lt = factors + 2 * nr * nr;
    if (active)
      for (int i = lane; i < nr; i += lanes)
        for (int j = nt - 1; j >= 0; j--) {
          double re = 0.0, im = 0.0;
          for (int k = 0; k <= j; k++) {
            const double lr = Lt[2 * (j * nt + k)], li = -Lt[2 * (j * nt + k) + 1];  // conj(Lt_jk)
            const double hr = H[2 * (i + k * nr)], hi = H[2 * (i + k * nr) + 1];
            re = __dadd_rn(re, __dsub_rn(__dmul_rn(hr, lr), __dmul_rn(hi, li)));
            im = __dadd_rn(im, __dadd_rn(__dmul_rn(hr, li), __dmul_rn(hi, lr)));
          }
          H[2 * (i + j * nr)] = re;
          H[2 * (i + j * nr) + 1] = im;
        }
    __syncthreads();
  }
  if (active) {
    float* H32c = H32 + c * 2 * pairs;
    for (int k = lane; k < 2 * pairs; k += lanes) H32c[k] = (float)H[k];
  }
}

// psd_prep: per-channel preprocessing of the PSD: the real model H_r of the channel (RVD, or the
// BPSK model) and its sorted QR, as triangularizeInto(model, H, 'ascending') in
// preprocess/real-system.ts (qrInto in preprocess/qr.ts): modified Gram-Schmidt in float64 taking
// at each step the remaining column of least residual norm (ties to the first in qrInto's order of
// the columns left, which its swaps permute), residual norms downdated.
//
// A group of PSD_PREP_LANES lanes (n rounded up to a power of two) a channel, a lane a column of H_r:
// the lane keeps its column of Q and of R in registers; at step i the pivot's normalised column is
// broadcast by shuffles and each remaining lane takes its own dot product, update and downdate.
// Every sum runs in qrInto's order and the host compiles this with -fmad=false, so each lane does
// qrInto's operations on its column, rounding for rounding: the column order is the CPU engine's
// on the same (float32) input, and a channel is flagged RANK_DEFICIENT exactly where the CPU throws
// its RankDeficientError (the engine then redoes its vectors on the CPU, which raises that error).
// Q^T and R are stored rounded to float32 for the search.
//
// In:  H (channels x nr x nt complex, column-major, normalized by the engine).
// Out: fac (channels x PSD_FAC_WORDS floats, layout in psd-common.cuh).
// With `status` not null the kernel is also the engine's normalize stage (normalize.cuh): the
// block's channels (blockDim / PSD_PREP_LANES of them, whole) are normalized first, a full warp
// a channel, then factored; H is then written before it is read, so it is read by plain loads.
// The normalize arguments (y, noiseIn .. valid) are normalize.cuh's; y is read only when asked.
//
// nvcc-variant: -DPSD_NT=4 -DPSD_NR=4 -DPSD_BPSK=0 -DPSD_Q=4 -DPSD_S=3 -DPSD_L0=9 -DPSD_L1=6 -DPSD_L2=4 -DPSD_L3=1 -DPSD_P0=1 -DPSD_P1=4 -DPSD_P2=1 -DPSD_LABELS=0x1023ull -fmad=false
// nvcc-variant: -DPSD_NT=2 -DPSD_NR=2 -DPSD_BPSK=1 -DPSD_Q=2 -DPSD_S=1 -DPSD_L0=3 -DPSD_L1=1 -DPSD_P0=1 -fmad=false

#include "psd-common.cuh"
#include "../../gpu/normalize.cuh"

#define PSD_PREP_LANES (PSD_N <= 4 ? 4 : PSD_N <= 8 ? 8 : PSD_N <= 16 ? 16 : 32)

// Order-preserving integer image of a double (negative residuals from rounding included).
__device__ __forceinline__ unsigned long long psd_order_bits(double x) {
  const unsigned long long b = (unsigned long long)__double_as_longlong(x);
  return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

extern "C" __global__ void psd_prep(float* H, float* __restrict__ fac, int channels,
    float* __restrict__ y, const float* __restrict__ noiseIn, float noiseScalar, float* __restrict__ noiseOut, int* __restrict__ status,
    int* __restrict__ summary, int vpc, long long valid) {
  if (status != nullptr) {
    const int per = (int)(blockDim.x / PSD_PREP_LANES), c0 = blockIdx.x * per;
    mimo_normalize_block(c0, min(per, channels - c0), H, y, noiseIn, noiseScalar, noiseOut, status, summary, vpc, 2 * PSD_NR * PSD_NT, 2 * PSD_NR, valid);
    __syncthreads();
  }
  const int lane = threadIdx.x & 31, k = lane % PSD_PREP_LANES, base = lane - k;
  const int c = (int)((blockIdx.x * blockDim.x + threadIdx.x) / PSD_PREP_LANES);
  const bool live = c < channels && k < PSD_N;
  double q[PSD_M];
  double rcol[PSD_N];
#pragma unroll
  for (int r = 0; r < PSD_M; r++) q[r] = 0;
#pragma unroll
  for (int r = 0; r < PSD_N; r++) rcol[r] = 0;
  if (live) {
    const float* h = H + (size_t)c * 2 * PSD_NR * PSD_NT;
#if PSD_BPSK
#pragma unroll
    for (int i = 0; i < PSD_NR; i++) {
      const double hr = h[2 * (i + k * PSD_NR)], hi = h[2 * (i + k * PSD_NR) + 1];
      const double a = 0.7071067811865476;
      q[i] = a * (hr - hi);
      q[PSD_NR + i] = a * (hr + hi);
    }
#else
    const int j = k < PSD_NT ? k : k - PSD_NT;
#pragma unroll
    for (int i = 0; i < PSD_NR; i++) {
      const double hr = h[2 * (i + j * PSD_NR)], hi = h[2 * (i + j * PSD_NR) + 1];
      q[i] = k < PSD_NT ? hr : -hi;
      q[PSD_NR + i] = k < PSD_NT ? hi : hr;
    }
#endif
  }
  double nn = 0;
#pragma unroll
  for (int r = 0; r < PSD_M; r++) nn += q[r] * q[r];
  double orig = sqrt(nn);
  double res = orig * orig;
  // posOf: the lane's column's place in qrInto's arrays while it is left (they swap), then its
  // final position once taken (-1 on padding lanes).
  int posOf = live ? k : -1;
  bool taken = !live;
  int flags = 0;
#pragma unroll
  for (int i = 0; i < PSD_N; i++) {
    // Pivot: least residual, ties to the least place (qrInto's strict < from place i on).
    unsigned long long key = taken ? ~0ull : psd_order_bits(res);
    int place = taken ? 0x7fffffff : posOf;
#pragma unroll
    for (int o = PSD_PREP_LANES / 2; o > 0; o >>= 1) {
      const unsigned long long ok = __shfl_sync(0xffffffffu, key, lane ^ o);
      const int op = __shfl_sync(0xffffffffu, place, lane ^ o);
      if (ok < key || (ok == key && op < place)) { key = ok; place = op; }
    }
    const bool pivot = !taken && posOf == place;
    const int pivotLane = __ffs((unsigned)((__ballot_sync(0xffffffffu, pivot) >> base) & ((1ull << PSD_PREP_LANES) - 1))) - 1;
    // qrInto swaps place i with the pivot's place.
    if (!taken && !pivot && posOf == i) posOf = place;
    double s = 0;
    if (pivot) {
      double n2 = 0;
#pragma unroll
      for (int r = 0; r < PSD_M; r++) n2 += q[r] * q[r];
      const double norm = sqrt(n2);
      if (!(norm > 1e-12 * orig)) flags |= PSD_ST_RANK_DEFICIENT;
      rcol[i] = norm;
      s = 1 / norm;
#pragma unroll
      for (int r = 0; r < PSD_M; r++) q[r] = q[r] * s;
      posOf = i;
      taken = true;
    }
    flags |= __shfl_sync(0xffffffffu, flags, base + (pivotLane < 0 ? 0 : pivotLane));
    double d = 0;
    double qi[PSD_M];
#pragma unroll
    for (int r = 0; r < PSD_M; r++) {
      qi[r] = __shfl_sync(0xffffffffu, q[r], base + (pivotLane < 0 ? 0 : pivotLane));
    }
    if (!taken) {
#pragma unroll
      for (int r = 0; r < PSD_M; r++) d += qi[r] * q[r];
      rcol[i] = d;
#pragma unroll
      for (int r = 0; r < PSD_M; r++) q[r] = q[r] - d * qi[r];
      res = res - d * d;
    }
  }
  if (!live) return;
  float* out = fac + (size_t)c * PSD_FAC_WORDS;
  const int pos = posOf;
#pragma unroll
  for (int r = 0; r < PSD_M; r++) out[PSD_FAC_QT + pos * PSD_M + r] = (float)q[r];
#pragma unroll
  for (int r = 0; r < PSD_N; r++) out[PSD_FAC_R + r * PSD_N + pos] = r <= pos ? (float)rcol[r] : 0.f;
  out[PSD_FAC_PERM + pos] = __uint_as_float((unsigned)k);
  if (k == 0) out[PSD_FAC_FLAGS] = __uint_as_float((unsigned)flags);
}

// Shared device code of the LDPC decoders: the code's QC structure as compile-time tables, channel
// LLR loading (the CPU decoder's clip and fixed-point rounding) and the per-row syndrome.
//
// Defines (the host, src/coding/gpu/cuda-decoder.ts, sets them from the code and the options):
//   Z         lifting size; a block row (layer) is Z check rows, one thread each
//   NCOLS     block columns (the frame has NCOLS * Z LLRs, codeword order)
//   NLAYERS   block rows;  NEDGES  nonzero blocks;  MAXDEG  most nonzero blocks in a layer
//   QC_TABLE, QC_START   the parity check's blocks (qc-code.cuh)
//   K_INFO    information bits written out per frame (the first K_INFO columns)
//   FPB       frames per thread block (blockDim = Z x FPB)
//   ALGO      0 normalized min-sum, 1 offset min-sum (both in the CPU's fixed point), 2 sum-product
//             (float32, layered.cu), 3 flooding sum-product (float32, flooding.cu)
//   ALPHA_Q, BETA_Q, SAT_Q   the CPU's round(alpha 256), round(beta 16), round(saturation 16)
//   SAT       the saturation in LLR units (a double literal)
//   LLR_INT   0: float32 channel LLRs (clipped and rounded here); 1: int32 already in the CPU's fixed point
//   EARLY_STOP 1: stop a frame on a zero syndrome after any iteration
#pragma once

#define LDPC_NVARS (NCOLS * Z)
#define LDPC_SCALE 16.0

#include "qc-code.cuh"

// One constant copy that every unrolled use indexes by a constant (folded to an immediate);
// qc_start is also evaluated at compile time for the layer templates.
static __constant__ const QcTables kQc = qc_tables();
__device__ __forceinline__ int qc_col(int e) { return kQc.pairs[2 * e]; }
__device__ __forceinline__ int qc_shift(int e) { return kQc.pairs[2 * e + 1]; }
__device__ __forceinline__ constexpr int qc_start(int r) { constexpr QcTables q = qc_tables(); return q.start[r]; }
__device__ __forceinline__ int qc_start_rt(int r) { return kQc.start[r]; }

// Byte offset in the frame's shared posteriors of the variable that row t of block e touches:
// column blockCol Z + (t + shift) mod Z; t4 = 4 t < 4 Z. The wrap is an unsigned min (c - 4Z is huge
// when c < 4Z); none for shift 0 (e is a constant in the unrolled loops: the test folds away).
__device__ __forceinline__ unsigned ldpc_off(int e, unsigned t4) {
  if (qc_shift(e) == 0) return t4 + 4u * qc_col(e) * Z;
  const unsigned c = t4 + 4u * qc_shift(e);
  const unsigned w = c - 4u * Z;
  return (c < w ? c : w) + 4u * qc_col(e) * Z;
}
// A float the compiler must take as it is (no arithmetic moved across it); nothing in the CPU emulator.
#ifdef __CUDA_ARCH__
#define LDPC_OPAQUE(x) asm("" : "+f"(x))
#define LDPC_OPAQUE_U(x) asm volatile("" : "+r"(x))
#else
#define LDPC_OPAQUE(x) (void)(x)
#define LDPC_OPAQUE_U(x) (void)(x)
#endif
#define LDPC_AT(L, off) (*reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(L) + (off)))

#if LLR_INT
typedef int ldpc_llr_t;
// Already the CPU's round(clip(llr) 16): only a float copy (exact below 2^24).
__device__ __forceinline__ float ldpc_load(const ldpc_llr_t x, int& bad) { (void)bad; return (float)x; }
#else
typedef float ldpc_llr_t;
// The CPU's input step in float64: clip to +-SAT, then (min-sum) Math.round(v 16) = floor(v 16 + 0.5),
// exact for a float32 input; a non-finite LLR raises `bad` and counts as 0.
__device__ __forceinline__ float ldpc_load(const ldpc_llr_t x, int& bad) {
  double v = (double)x;
  if (!(v - v == 0.0)) { bad = 1; v = 0.0; }
  v = v > SAT ? SAT : v < -SAT ? -SAT : v;
#if ALGO >= 2
  return (float)v;
#else
  return (float)floor(v * LDPC_SCALE + 0.5) + 0.0f;
#endif
}
#endif

// 1 when row t (t4 = 4 t) of any layer has odd parity of the hard decisions (L < 0 is a one).
__device__ __forceinline__ int ldpc_row_syndrome(float* L, unsigned t4) {
  int s = 0;
#pragma unroll
  for (int r = 0; r < NLAYERS; r++) {
    int p = 0;
#pragma unroll
    for (int j = 0; j < MAXDEG; j++) {
      if (qc_start_rt(r) + j < qc_start_rt(r + 1)) p ^= LDPC_AT(L, ldpc_off(qc_start_rt(r) + j, t4)) < 0.f ? 1 : 0;
    }
    s |= p;
  }
  return s;
}

// The sum-product check node of degree d (the CPU decoder's checkNode, in float32): from the
// extrinsic inputs v, rn[j] = 2 atanh(prod over i != j of tanh(|v_i| / 2)), its sign the product of
// the other signs, clipped to +-SAT; the products without j from prefix and suffix products.
template <int d>
__device__ __forceinline__ void ldpc_spa_check(const float (&v)[d], float (&rn)[d]) {
  float th[d], suf[d];
  unsigned sgn = 0;
#pragma unroll
  for (int j = 0; j < d; j++) {
    th[j] = tanhf(fabsf(v[j]) * 0.5f);
    sgn ^= v[j] < 0.f ? 1u : 0u;
  }
  float acc = 1.f;
#pragma unroll
  for (int j = d - 1; j >= 0; j--) { suf[j] = acc; acc *= th[j]; }
  float pre = 1.f;
#pragma unroll
  for (int j = 0; j < d; j++) {
    float x = pre * suf[j];
    pre *= th[j];
    x = x > 1.f ? 1.f : x;
    float mag = 2.f * atanhf(x);
    mag = mag > (float)SAT ? (float)SAT : mag;
    rn[j] = (sgn ^ (v[j] < 0.f ? 1u : 0u)) ? -mag : mag;
  }
}

// Layer r's check rows by sum-product from the posteriors P: extrinsic inputs v = P - R, new
// messages R from ldpc_spa_check. Layered (FLOOD false, N = P): P = v + R. Flooding: N += R, the
// new posteriors gathering every layer's messages while P stays the last iteration's.
template <int r, bool FLOOD>
__device__ __forceinline__ void ldpc_spa_layer(float* P, float* N, float* R, unsigned t4) {
  constexpr int a = qc_start(r), d = qc_start(r + 1) - qc_start(r);
  float v[d], rn[d];
  unsigned at[d];
#pragma unroll
  for (int j = 0; j < d; j++) {
    at[j] = ldpc_off(a + j, t4);
    v[j] = LDPC_AT(P, at[j]) - R[a + j];
  }
  ldpc_spa_check<d>(v, rn);
#pragma unroll
  for (int j = 0; j < d; j++) {
    R[a + j] = rn[j];
    if (FLOOD) LDPC_AT(N, at[j]) += rn[j];
    else LDPC_AT(N, at[j]) = v[j] + rn[j];
  }
}

template <int r> struct LdpcLayer { static constexpr int index = r; };

// The thread's check-to-variable messages in full: one float per nonzero block of the base matrix
// (value-initialised: every message 0).
struct LdpcMessages {
  float R[NEDGES];
};

// One iteration: layer(LdpcLayer<r>{}) for the layers in order, a barrier after each (a later layer
// reads or adds to what this one wrote); inactive threads only meet the barriers. With one frame a
// block, `active` is the same in every thread of the block: one branch around all layers.
template <int r = 0, class Layer>
__device__ __forceinline__ void ldpc_layers(bool active, Layer layer) {
  if constexpr (r < NLAYERS) {
    if (active) layer(LdpcLayer<r>{});
    __syncthreads();
    ldpc_layers<r + 1>(active, layer);
  }
}
template <class Layer>
__device__ __forceinline__ void ldpc_each_layer(bool active, Layer layer) {
  if (FPB > 1) ldpc_layers(active, layer);
  else if (active) ldpc_layers(true, layer);
}

// The decoding loop every schedule shares, one thread a check row t of a layer, frame
// blockIdx.x FPB + fy (live when below `frames`): load the frame's channel LLRs, up to maxIter
// iterations of schedule.iterate (every thread of the block calls it; `active` false for a finished
// or absent frame), the syndrome checks, and the frame's decisions and status (see the kernels' Out).
// A Schedule has BUFFERS (float arrays of LDPC_NVARS a frame in shared memory, frame fy's first at
// base = shared + fy LDPC_NVARS, the next FPB LDPC_NVARS further), KEEP_CHANNEL, Messages (the
// thread's check-to-variable messages in registers, value-initialised to all messages 0), a
// constructor from base, posteriors() (where the LLRs are loaded and the decisions read), channel()
// (a copy of the channel LLRs, with KEEP_CHANNEL) and iterate(messages, t, active). After the buffers, the frames' flags:
// flag[p FPB + fy] the syndrome flag of iteration parity p (0, 1), flag[2 FPB + fy] non-finite input.
// post (null: not written): the frame's final posteriors in LLR units (min-sum's fixed point times
// 1 / 16, exact), frames x LDPC_NVARS float32, for iterative detection and decoding's extrinsic LLRs.
template <class Schedule>
__device__ __forceinline__ void ldpc_decode(unsigned char* shared, const ldpc_llr_t* __restrict__ llr, unsigned char* __restrict__ bits,
                                            int* __restrict__ status, int frames, int maxIter, float* __restrict__ post) {
  const int t = threadIdx.x, fy = FPB == 1 ? 0 : threadIdx.y;  // one frame a block: its posteriors at a constant address
  Schedule s(reinterpret_cast<float*>(shared) + fy * LDPC_NVARS);
  int* flag = reinterpret_cast<int*>(shared + Schedule::BUFFERS * FPB * LDPC_NVARS * 4);
  const int frame = blockIdx.x * FPB + fy;
  const bool live = frame < frames;
  int bad = 0;
  if (live) {
    const ldpc_llr_t* in = llr + (size_t)frame * LDPC_NVARS;
    float* L = s.posteriors();
    float* C = s.channel();
    for (int i = t; i < LDPC_NVARS; i += Z) {
      if (Schedule::KEEP_CHANNEL) L[i] = C[i] = ldpc_load(in[i], bad);
      else L[i] = ldpc_load(in[i], bad);
    }
  }
  if (t < 2) flag[t * FPB + fy] = 0;
  if (t == 0) flag[2 * FPB + fy] = 0;
  __syncthreads();
  if (bad) flag[2 * FPB + fy] = 1;
  typename Schedule::Messages R{};
  __syncthreads();

  bool done = !live;
  int iters = 0, ok = 0;
  for (int it = 1; it <= maxIter; it++) {
    s.iterate(R, t, !done);
    if (!done) iters = it;
    if (EARLY_STOP || it == maxIter) {
      int* f = flag + (it & 1) * FPB;
      if (!done && ldpc_row_syndrome(s.posteriors(), 4u * t)) f[fy] = 1;
      __syncthreads();
      if (!done) {
        ok = f[fy] == 0;
        if (EARLY_STOP && ok) done = true;
      }
      if (t == 0) flag[((it + 1) & 1) * FPB + fy] = 0;  // the other parity's flags, read last iteration
      if (EARLY_STOP && !__syncthreads_or(!done)) break;
    }
  }
  if (live) {
    unsigned char* out = bits + (size_t)frame * K_INFO;
    const float* L = s.posteriors();
    for (int i = t; i < K_INFO; i += Z) out[i] = L[i] < 0.f ? 1 : 0;
    if (t == 0) status[frame] = iters | ok << 16 | (flag[2 * FPB + fy] ? 1 << 17 : 0);
    if (post) {
      float* p = post + (size_t)frame * LDPC_NVARS;
#if ALGO >= 2
      for (int i = t; i < LDPC_NVARS; i += Z) p[i] = L[i];
#else
      for (int i = t; i < LDPC_NVARS; i += Z) p[i] = L[i] * (float)(1.0 / LDPC_SCALE);
#endif
    }
  }
}

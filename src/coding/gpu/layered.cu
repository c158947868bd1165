// Layered LDPC decoding of a batch of frames: one thread per check row of a layer (Z threads a
// frame), FPB frames per block, the frame's posteriors L in shared memory, each thread's
// check-to-variable messages R (one per nonzero block of the base matrix) in registers. Rows of a
// layer touch disjoint columns, so Z rows at once give the CPU's row-by-row layered schedule.
//
// Min-sum (ALGO 0 / 1) runs on integer values held in float32 (|values| < 2^24, checked by the
// host), so every sum, min and the alpha step floor(m alphaQ / 256) are exact: decisions,
// iteration counts and verdicts are the CPU decoder's (src/coding/decoder.ts) bit for bit.
// Sum-product (ALGO 2) is the CPU's check node (tanh products from prefix and suffix products) in float32.
//
// In:  llr    frames x NCOLS Z channel LLRs (ldpc_llr_t, codeword order; punctured bits 0)
// Out: bits   frames x K_INFO hard decisions (uint8 0/1) of the first K_INFO code bits
//      status frames int32: iterations run | ok << 16 (zero syndrome at the end) | non-finite input << 17
//      post   frames x NCOLS Z float32 posterior LLRs at the end (null: none; min-sum's in LLR units)
// Launch: grid ceil(frames / FPB), block (Z, FPB), dynamic shared FPB (NCOLS Z 4 + 12) bytes.
//
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=0 -DALPHA_Q=192 -DBETA_Q=0 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=0 -DEARLY_STOP=1
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=1 -DALPHA_Q=256 -DBETA_Q=8 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=1 -DEARLY_STOP=0
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=2 -DALPHA_Q=192 -DBETA_Q=0 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=0 -DEARLY_STOP=1
#include "ldpc.cuh"

#if ALGO == 2
// Layer r's check rows by sum-product, written into the posteriors in place.
template <int r>
__device__ __forceinline__ void ldpc_layer(float* L, float* R, unsigned t4) { ldpc_spa_layer<r, false>(L, L, R, t4); }
#else
// Layer r's check rows by min-sum, the CPU's minSumPass: min1, min2 of |v| (min1 starts at SAT_Q),
// magnitude floor(max(0, min - BETA_Q) ALPHA_Q / 256), the edge whose |v| equals min1 gets min2's.
template <int r>
__device__ __forceinline__ void ldpc_layer(float* L, float* R, unsigned t4) {
  constexpr int a = qc_start(r), d = qc_start(r + 1) - qc_start(r);
  float v[d];
  unsigned at[d];
  float min1 = (float)SAT_Q, min2 = (float)SAT_Q;
  unsigned sgn = 0;
#pragma unroll
  for (int j = 0; j < d; j++) {
    at[j] = ldpc_off(a + j, t4);
    v[j] = LDPC_AT(L, at[j]) - R[a + j];
    const float m = fabsf(v[j]);
    min2 = fminf(min2, fmaxf(min1, m));
    min1 = fminf(min1, m);
    sgn ^= __float_as_uint(v[j]);
  }
  sgn &= 0x80000000u;
  const float m1 = floorf(fmaxf(min1 - (float)BETA_Q, 0.f) * (float)ALPHA_Q * 0.00390625f);
  const float m2 = floorf(fmaxf(min2 - (float)BETA_Q, 0.f) * (float)ALPHA_Q * 0.00390625f);
  const unsigned m1s = __float_as_uint(m1) ^ sgn, m2s = __float_as_uint(m2) ^ sgn;
#pragma unroll
  for (int j = 0; j < d; j++) {
    const unsigned mag = fabsf(v[j]) == min1 ? m2s : m1s;
    const float rn = __uint_as_float(mag ^ (__float_as_uint(v[j]) & 0x80000000u));
    R[a + j] = rn;
    LDPC_AT(L, at[j]) = v[j] + rn;
  }
}
#endif

// One layer of the layered schedule, as ldpc_each_layer calls it (a functor: NVRTC's JIT mode takes a
// generic lambda's call operator for a host function).
struct LayeredLayer {
  float* L;
  float* R;
  unsigned t4;
  template <class Layer>
  __device__ __forceinline__ void operator()(Layer) const { ldpc_layer<Layer::index>(L, R, t4); }
};

// The frame's posteriors L, updated in place layer after layer.
struct LayeredSchedule {
  static constexpr int BUFFERS = 1;
  static constexpr bool KEEP_CHANNEL = false;
  float* L;
  __device__ explicit LayeredSchedule(float* base) : L(base) {}
  __device__ float* posteriors() const { return L; }
  __device__ float* channel() const { return nullptr; }
  __device__ __forceinline__ void iterate(float* R, int t, bool active) {
    unsigned t4 = 4u * t;
    ldpc_each_layer(active, LayeredLayer{L, R, t4});
  }
};

extern "C" __global__ void __launch_bounds__(Z * FPB)
ldpc_layered(const ldpc_llr_t* __restrict__ llr, unsigned char* __restrict__ bits, int* __restrict__ status, int frames, int maxIter,
             float* __restrict__ post) {
  extern __shared__ unsigned char smem[];
  ldpc_decode<LayeredSchedule>(smem, llr, bits, status, frames, maxIter, post);
}

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
// Launch: grid ceil(frames / FPB), block (Z, FPB), dynamic shared FPB (NCOLS Z 4 + 12) bytes.
//
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=0 -DALPHA_Q=192 -DBETA_Q=0 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=0 -DEARLY_STOP=1
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=1 -DALPHA_Q=256 -DBETA_Q=8 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=1 -DEARLY_STOP=0
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=2 -DALPHA_Q=192 -DBETA_Q=0 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=0 -DEARLY_STOP=1
#include "ldpc.cuh"

#if ALGO == 2
// Layer r's check rows by sum-product: extrinsic inputs v = L - R, R = 2 atanh(prod of the other
// tanh(|v| / 2)) with the other signs, clipped to +-SAT.
template <int r>
__device__ __forceinline__ void ldpc_layer(float* L, float* R, unsigned t4) {
  constexpr int a = qc_start(r), d = qc_start(r + 1) - qc_start(r);
  float v[d], rn[d];
  unsigned at[d];
#pragma unroll
  for (int j = 0; j < d; j++) {
    at[j] = ldpc_off(a + j, t4);
    v[j] = LDPC_AT(L, at[j]) - R[a + j];
  }
  ldpc_spa_check<d>(v, rn);
#pragma unroll
  for (int j = 0; j < d; j++) {
    R[a + j] = rn[j];
    LDPC_AT(L, at[j]) = v[j] + rn[j];
  }
}
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

// One iteration: the layers in order, a barrier after each (the next layer reads what this one wrote).
template <int r>
__device__ __forceinline__ void ldpc_iteration(float* L, float* R, unsigned t4, bool active) {
  if constexpr (r < NLAYERS) {
    if (active) ldpc_layer<r>(L, R, t4);
    __syncthreads();
    ldpc_iteration<r + 1>(L, R, t4, active);
  }
}

extern "C" __global__ void __launch_bounds__(Z * FPB)
ldpc_layered(const ldpc_llr_t* __restrict__ llr, unsigned char* __restrict__ bits, int* __restrict__ status, int frames, int maxIter) {
  extern __shared__ unsigned char smem[];
  const int t = threadIdx.x, fy = threadIdx.y;
  float* L = reinterpret_cast<float*>(smem) + fy * LDPC_NVARS;
  int* flag = reinterpret_cast<int*>(smem + FPB * LDPC_NVARS * 4);  // [2][FPB] syndrome flags, [FPB] bad input
  const int frame = blockIdx.x * FPB + fy;
  const bool live = frame < frames;
  int bad = 0;
  if (live) {
    const ldpc_llr_t* in = llr + (size_t)frame * LDPC_NVARS;
    for (int i = t; i < LDPC_NVARS; i += Z) L[i] = ldpc_load(in[i], bad);
  }
  if (t < 2) flag[t * FPB + fy] = 0;
  if (t == 0) flag[2 * FPB + fy] = 0;
  __syncthreads();
  if (bad) flag[2 * FPB + fy] = 1;
  float R[NEDGES];
#pragma unroll
  for (int e = 0; e < NEDGES; e++) R[e] = 0.f;
  __syncthreads();

  bool done = !live;
  int iters = 0, ok = 0;
  for (int it = 1; it <= maxIter; it++) {
    unsigned t4 = 4u * t;
    ldpc_iteration<0>(L, R, t4, !done);
    if (!done) iters = it;
    if (EARLY_STOP || it == maxIter) {
      int* f = flag + (it & 1) * FPB;
      if (!done && ldpc_row_syndrome(L, 4u * t)) f[fy] = 1;
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
    for (int i = t; i < K_INFO; i += Z) out[i] = L[i] < 0.f ? 1 : 0;
    if (t == 0) status[frame] = iters | ok << 16 | (flag[2 * FPB + fy] ? 1 << 17 : 0);
  }
}

// Flooding sum-product LLR decoding of a batch of frames (the reference schedule, the CPU decoder's
// floodingSpaPass in float32): in every iteration each check row takes the posteriors of the last
// iteration, and the new posteriors are the channel LLRs plus every check's new message. One thread
// per check row of a layer (Z threads a frame), FPB frames a block; per frame in shared memory the
// clipped channel LLRs C, the last iteration's posteriors and the new ones (two buffers that swap);
// each thread's check-to-variable messages R (one per nonzero block of the base matrix) in
// registers. Rows of a layer touch disjoint columns, and the layers add their messages in row order,
// as the CPU does.
//
// In:  llr    frames x NCOLS Z channel LLRs (float32, codeword order; punctured bits 0)
// Out: bits   frames x K_INFO hard decisions (uint8 0/1) of the first K_INFO code bits
//      status frames int32: iterations run | ok << 16 (zero syndrome at the end) | non-finite input << 17
// Launch: grid ceil(frames / FPB), block (Z, FPB), dynamic shared FPB (3 NCOLS Z 4 + 12) bytes.
//
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=3 -DALPHA_Q=256 -DBETA_Q=0 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=0 -DEARLY_STOP=1
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=1 -DALGO=3 -DALPHA_Q=256 -DBETA_Q=0 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=0 -DEARLY_STOP=0
#include "ldpc.cuh"

#if ALGO != 3 || LLR_INT
#error "flooding.cu is the flooding sum-product decoder: -DALGO=3 with float32 LLRs (-DLLR_INT=0)"
#endif

// Layer r's check rows: extrinsic inputs v = P - R from the last posteriors P, new messages R,
// added to the new posteriors N.
template <int r>
__device__ __forceinline__ void flood_layer(float* P, float* N, float* R, unsigned t4) {
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
    LDPC_AT(N, at[j]) += rn[j];
  }
}

// One iteration's layers in order, a barrier after each (a later layer adds to the same columns).
template <int r>
__device__ __forceinline__ void flood_iteration(float* P, float* N, float* R, unsigned t4, bool active) {
  if constexpr (r < NLAYERS) {
    if (active) flood_layer<r>(P, N, R, t4);
    __syncthreads();
    flood_iteration<r + 1>(P, N, R, t4, active);
  }
}

extern "C" __global__ void __launch_bounds__(Z * FPB)
ldpc_flooding(const ldpc_llr_t* __restrict__ llr, unsigned char* __restrict__ bits, int* __restrict__ status, int frames, int maxIter) {
  extern __shared__ unsigned char smem[];
  const int t = threadIdx.x, fy = threadIdx.y;
  float* C = reinterpret_cast<float*>(smem) + fy * LDPC_NVARS;
  float* P = C + FPB * LDPC_NVARS;      // the last iteration's posteriors
  float* N = P + FPB * LDPC_NVARS;      // the new ones
  int* flag = reinterpret_cast<int*>(smem + 3 * FPB * LDPC_NVARS * 4);  // [2][FPB] syndrome flags, [FPB] bad input
  const int frame = blockIdx.x * FPB + fy;
  const bool live = frame < frames;
  int bad = 0;
  if (live) {
    const ldpc_llr_t* in = llr + (size_t)frame * LDPC_NVARS;
    for (int i = t; i < LDPC_NVARS; i += Z) P[i] = C[i] = ldpc_load(in[i], bad);
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
    const unsigned t4 = 4u * t;
    if (!done) for (int i = t; i < LDPC_NVARS; i += Z) N[i] = C[i];
    __syncthreads();
    flood_iteration<0>(P, N, R, t4, !done);
    if (!done) {
      // the new posteriors become the last ones (each thread of the frame swaps its own pointers)
      float* s = P; P = N; N = s;
      iters = it;
    }
    if (EARLY_STOP || it == maxIter) {
      int* f = flag + (it & 1) * FPB;
      if (!done && ldpc_row_syndrome(P, 4u * t)) f[fy] = 1;
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
    for (int i = t; i < K_INFO; i += Z) out[i] = P[i] < 0.f ? 1 : 0;
    if (t == 0) status[frame] = iters | ok << 16 | (flag[2 * FPB + fy] ? 1 << 17 : 0);
  }
}

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
//      post   frames x NCOLS Z float32 posterior LLRs at the end (null: none; min-sum's in LLR units)
// Launch: grid ceil(frames / FPB), block (Z, FPB), dynamic shared FPB (3 NCOLS Z 4 + 12) bytes.
//
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=3 -DALPHA_Q=256 -DBETA_Q=0 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=0 -DEARLY_STOP=1
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=1 -DALGO=3 -DALPHA_Q=256 -DBETA_Q=0 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=0 -DEARLY_STOP=0
#include "ldpc.cuh"

#if ALGO != 3 || LLR_INT
#error "flooding.cu is the flooding sum-product decoder: -DALGO=3 with float32 LLRs (-DLLR_INT=0)"
#endif

// One layer of the flooding schedule, as ldpc_each_layer calls it (a functor: NVRTC's JIT mode takes
// a generic lambda's call operator for a host function).
struct FloodingLayer {
  float* P;
  float* N;
  float* R;
  unsigned t4;
  template <class Layer>
  __device__ __forceinline__ void operator()(Layer) const { ldpc_spa_layer<Layer::index, true>(P, N, R, t4); }
};

// The frame's channel LLRs C, the last iteration's posteriors P and the new ones N.
struct FloodingSchedule {
  static constexpr int BUFFERS = 3;
  static constexpr bool KEEP_CHANNEL = true;
  typedef LdpcMessages Messages;
  float *C, *N, *P;  // this order gives the register assignment of the measured build (bench/kernels/sass-snapshot.mjs)
  __device__ explicit FloodingSchedule(float* base) {
    C = base;
    P = C + FPB * LDPC_NVARS;
    N = P + FPB * LDPC_NVARS;
  }
  __device__ float* posteriors() const { return P; }
  __device__ float* channel() const { return C; }
  __device__ __forceinline__ void iterate(Messages& m, int t, bool active) {
    const unsigned t4 = 4u * t;
    if (active) for (int i = t; i < LDPC_NVARS; i += Z) N[i] = C[i];
    __syncthreads();
    ldpc_each_layer(active, FloodingLayer{P, N, m.R, t4});
    // the new posteriors become the last ones (each thread of the frame swaps its own pointers)
    if (active) { float* s = P; P = N; N = s; }
  }
};

extern "C" __global__ void __launch_bounds__(Z * FPB)
ldpc_flooding(const ldpc_llr_t* __restrict__ llr, unsigned char* __restrict__ bits, int* __restrict__ status, int frames, int maxIter,
              float* __restrict__ post) {
  extern __shared__ unsigned char smem[];
  ldpc_decode<FloodingSchedule>(smem, llr, bits, status, frames, maxIter, post);
}

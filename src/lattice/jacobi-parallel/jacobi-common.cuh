// Definitions shared by parallel Jacobi's kernels (jacobi-kernel.cu, gram-kernel.cu): the element type,
// status words, the reference's constants, the dynamic shared memory and block primitives.

#ifndef JACOBI_COMMON_CUH
#define JACOBI_COMMON_CUH

#ifndef REAL
#define REAL double
#endif

typedef REAL real;

#define MAX_STALLS 3
#define STATUS_OK 0
#define STATUS_NON_FINITE 1
#define STATUS_ZERO_VECTOR 2
#define STATUS_ITERATION_LIMIT 3

// stats per basis: [iterations (sweeps), swaps, size reductions, status, detail (the bad column)]
#define STATS_WIDTH 5

#define OUTCOME_CHANGED 0
#define OUTCOME_UNCHANGED 1
#define OUTCOME_DRIFT 2
#define OUTCOME_OVERFLOW 3

#define EXACT_INTEGER_LIMIT 9007199254740992.0  // 2^53

// Drift ratio (driver.ts, driftRatioFor) and the exact-integer Gram limit, per precision.
__device__ __forceinline__ double drift_ratio(float) { return 1.0 / 4096.0; }            // 2^-12
__device__ __forceinline__ double drift_ratio(double) { return 1.0 / 67108864.0; }       // 2^-26
__device__ __forceinline__ double exact_gram_limit(float) { return 4194304.0; }          // 2^22
__device__ __forceinline__ double exact_gram_limit(double) { return 2251799813685248.0; } // 2^51

// NaN without host headers (NVRTC has no NAN macro).
__device__ __forceinline__ double quiet_nan() { return __longlong_as_double(0x7ff8000000000000LL); }

// The size-reduction test |G(i,j)| > G(i,i) * bound, bound = 1/2 (1 + 2^-40) in float64 and
// 1/2 (1 + 2^-20) in float32, the product rounded to the working precision (reductionLimit in
// arith.ts: a slack above rounding noise, so that pairs tied at 1/2 are not flipped by noise).
__device__ __forceinline__ float reduction_limit(float gii) { return gii * (0.5f + 1.0f / 2097152.0f); }              // 2^-21
__device__ __forceinline__ double reduction_limit(double gii) { return gii * (0.5 + 1.0 / 2199023255552.0); }       // 2^-41

// Round halves away from zero (C's round; roundHalfAway in arith.ts).
__device__ __forceinline__ float round_half_away(float q) { return roundf(q); }
__device__ __forceinline__ double round_half_away(double q) { return round(q); }

// The dynamic shared memory (the host sizes it; see the layout in jacobi_parallel).
extern __shared__ __align__(16) unsigned char smem[];

// Block primitives. The warps outside the group wait at a block barrier that the group reaches
// from another place in the code (bar.sync counts threads, not code locations, on sm_70 and up;
// the CPU emulator's barrier likewise).
#ifdef __CUDA_ARCH__
__device__ __forceinline__ void block_sync() { asm volatile("bar.sync 0;" ::: "memory"); }
__device__ __forceinline__ void kernel_trap() { asm volatile("trap;"); }
#else
#define block_sync __syncthreads
#define kernel_trap __trap
#endif

// Lanes of the caller's warp that exist (the last warp of a block of, say, 8 threads has 8).
__device__ __forceinline__ unsigned warp_members() {
  const int w0 = (int)(threadIdx.x & ~31u), left = (int)blockDim.x - w0;
  return left >= 32 ? 0xffffffffu : (1u << left) - 1u;
}

#endif  // JACOBI_COMMON_CUH

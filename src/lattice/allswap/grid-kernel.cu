// CR-AS-LLL (Algorithm 1/2 of the CR-MB-LLL paper) on the whole GPU for one large basis at a time:
// a persistent cooperative kernel (every block resident, launched with cuLaunchCooperativeKernel)
// whose blocks share the basis and meet at grid-wide barriers between the algorithm's steps. The
// batched kernel (kernel.cu) gives a basis one thread block, which leaves 131 of the H100's 132
// multiprocessors idle on a single 1024 x 1024 basis; here every warp of the device works on it.
//
// Same algorithm and step order as the CPU reference (allswap/cpu.ts, phases.ts, lll/gso.ts), but
// not the same rounding: dot products here are summed over warps and blocks (FMA allowed), the
// working copies are double, and size reduction works on the GS coefficients (below) where the
// reference recomputes each mu from b*_j. So the output is not bit-identical to the reference; it
// is proven like any other output (float64 LLL check, exact unimodularity), and a float32 result
// that fails that check is redone in float64 by reduce(), as for every kernel.
//
// One round (at most MAX_ROUNDS, until one changes nothing):
//   0. from the second round on, non-integral input: B = B_in Z (warps over (column, 256 rows),
//      Z's zeros skipped)
//   1. Gram-Schmidt as a dataflow: column k is projected against b*_0 .. b*_{k-1} in that order
//      (the reference's left-looking loop), each b*_i once it is published. A block takes a panel
//      of GRID_P columns, held in registers by rows over its threads; it stages finished vectors
//      of earlier panels through shared memory in chunks of S (classical projection within a
//      chunk, whose vectors are orthogonal; modified across chunks; each staged value read once
//      per panel, each dot product a block sum), then finishes its own columns in order and
//      publishes them in two halves of GRID_P / 2 (a release of a flag each; half panels finish
//      in order, so a chunk waits on the flag of its last half panel). The panel just before a
//      block's own is taken half by half, so the next block starts on the first half while the
//      second is being finished: the chain of panels is the kernel's critical path. The
//      coefficients are kept: mu (m x m). The same stage takes max |Z| for the growth watch's
//      limit.
//   2. odd/even phases: a warp per pair (k-1, k) of the phase's parity: the three dot products,
//      SimpleSizeReduce, the Lovasz test, SimpleSwap of B, Z and B*, and the rows k-1, k of mu;
//      a grid barrier; then, if anything swapped, the columns k-1, k of mu below each swapped pair
//      (the LLL swap update) and another barrier. So mu stays the GS coefficients of the basis.
//   3. size reduction of every column k against the columns j < k as they were before this step,
//      j from k-1 down, on mu (a warp per column: X = round(mu_kj), row k -= X row j, b_k -= X b_j,
//      z_k -= X z_j); results go to the other buffer of B and Z (ping-pong), which is the
//      reference's snapshot semantics without copies.
//   Growth watch: when a phase's size reductions wrote an entry of Z past zLimit, step 3 and step 1
//   run right after that phase (allswap/phases.ts: growthFactor). Drift watch: likewise when a pair
//   step finds the tracked mu_{k,k-1} off the one its vectors give (pair_step: DRIFT_TOL).
//   A round that changed nothing started from a fresh Gram-Schmidt and found every condition
//   holding, so it ends the reduction.
//
// Grid-wide decisions (status, swaps, the growth watch, whether a round changed anything) are read
// from a stage slot right after a barrier: stage s writes slot s % 3, and resets slot (s + 1) % 3,
// which every block finished reading before it arrived at the previous barrier; so every block
// takes the same branch and calls the same barriers. Every wait (barrier, column flag) gives up
// after WAIT_LIMIT_NS and reports STATUS_TIMEOUT instead of hanging.
//
// Block mode (-DGRID_BLOCK, below): MB-LLL and CR-MB-LLL with the same Gram-Schmidt, phases and
// size reduction, the sub-bases reduced a thread block each.
//
// Arguments: Bin, Bout, Zout (count bases), ctlAll (count x CTL_BYTES, zeroed by the host), wsAll
// (count x wsBytes), stats, n, m, maxIterations, delta, bound, staged (S, vectors per staging
// chunk, = GRID_S), wsBytes, count. Blocks of GRID_T threads; dynamic shared memory S n + S doubles
// (allswapGridPlan in grid.ts sizes it).
//
// nvcc-variant: -DREAL=float -DGRID_N=1028
// nvcc-variant: -DREAL=double -DGRID_N=1028
// nvcc-variant: -DREAL=float -DGRID_N=130
// nvcc-variant: -DREAL=double -DGRID_N=131 -DGRID_BLOCK=2 -DGRID_BLOCK_SIZE=8
// nvcc-variant: -DREAL=float -DGRID_N=1028 -DGRID_BLOCK=1 -DGRID_BLOCK_SIZE=8
// nvcc-variant: -DREAL=double -DGRID_N=130 -DGRID_BLOCK=2 -DGRID_BLOCK_SIZE=64
// nvcc-variant: -DREAL=float -DGRID_N=2048

#include "../lll-common.cuh"

#define STATUS_TIMEOUT 7  // a wait passed WAIT_LIMIT_NS (lattice/gpu/batch.ts: KERNEL_TIMEOUT)
#define WAIT_LIMIT_NS 20000000000ull  // 20 s: no single wait of a correct run comes near it
#define NONE 0xffffffffffffffffull

// Control block of a basis (CTL_BYTES = 512, zeroed by the host): 64-bit words.
#define C_BAR_COUNT 0   // grid barrier (basis 0's block serves every basis of the launch)
#define C_BAR_GEN 1
#define C_ABORT 2       // a wait timed out: every block leaves
#define C_SLOTS 8       // three stage slots of SLOT_WORDS words
#define SLOT_WORDS 8
#define S_FAIL 0        // ~(column << 8 | status) of this stage's first failure (atomicMax of the
                        // complement: the smallest column wins), 0 if none
#define S_SWAPS 1       // swaps in this stage
#define S_CHANGES 2     // swaps + size reductions in this stage
#define S_ZPEAK 3       // bits of the largest |Z| written by a size reduction in this stage
#define S_ZMAX 4        // bits of max |Z| (taken by the Gram-Schmidt stage)
#define S_NONINT 5      // input not integral (the load stage)
#define S_DRIFT 7       // a pair step found the tracked GS coefficients drifted (pair_step: drift watch)

struct Grid {
  unsigned long long* bar;  // basis 0's control block
  unsigned long long* ctl;  // this basis' control block
  int stage;                // stages completed (the same in every block)
  int nblocks;
  unsigned long long t0;    // when this block started (the zero of a traced build's stage times)
};

// The kinds of stage each grid barrier ends (a traced build of this kernel, bench/kernels/traced,
// records them).
#define TRACE_LOAD 1
#define TRACE_GS 2
#define TRACE_PHASE 3
#define TRACE_REDUCE 5
#define TRACE_ANCHOR 6
#define TRACE_END 7
#define TRACE_COLUMNS 8
#define TRACE_LOCAL 9     // block mode: the sub-bases' local reductions
#define TRACE_DEFERRED 10 // block mode: their deferred column updates

// -DGRID_N=n: the module is specialised to the column length (the host builds one per n): a
// Gram-Schmidt panel lives in registers and every row loop unrolls.
#ifndef GRID_N
#define GRID_N 1028
#endif
// Threads per block (the host launches exactly this many) and columns per Gram-Schmidt panel.
#define GRID_T 256
#define GRID_P 8
// Rows per thread of a panel held in registers.
#define GRID_R ((GRID_N + GRID_T - 1) / GRID_T)

__device__ __forceinline__ unsigned long long ld_acquire(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release(unsigned long long* p, unsigned long long v) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned long long* slot(Grid& g, int s) { return g.ctl + C_SLOTS + SLOT_WORDS * (s % 3); }
__device__ __forceinline__ unsigned long long dbits(double x) { return (unsigned long long)__double_as_longlong(x); }

// True when the kernel must give up (another block timed out, or this wait did).
__device__ bool waited_too_long(Grid& g, unsigned long long t0, unsigned spins) {
  if ((spins & 255) != 255) return false;
  if (ld_acquire(g.bar + C_ABORT)) return true;
  if (now_ns() - t0 > WAIT_LIMIT_NS) {
    atomicExch(g.bar + C_ABORT, 1ull);
    return true;
  }
  return false;
}

// Grid-wide barrier (sense by generation). Also resets the slot the next stage will write.
// Returns false when the kernel aborts (a wait timed out somewhere).
__device__ bool grid_sync(Grid& g, int kind) {
  if (blockIdx.x == 0 && threadIdx.x < SLOT_WORDS) {
    unsigned long long* next = slot(g, g.stage + 1);
    next[threadIdx.x] = 0ull;
  }
  __syncthreads();
  __shared__ int aborted;
  if (threadIdx.x == 0) {
    aborted = 0;
    const unsigned long long gen = ld_acquire(g.bar + C_BAR_GEN);
    __threadfence();
    if (atomicAdd(g.bar + C_BAR_COUNT, 1ull) == (unsigned long long)(g.nblocks - 1)) {
      atomicExch(g.bar + C_BAR_COUNT, 0ull);
      __threadfence();
      st_release(g.bar + C_BAR_GEN, gen + 1);
    } else {
      const unsigned long long t0 = now_ns();
      unsigned spins = 0;
      while (ld_acquire(g.bar + C_BAR_GEN) == gen) {
        if (waited_too_long(g, t0, ++spins)) { aborted = 1; break; }
        __nanosleep(32);  // fewer polls of one hot line by up to a few hundred blocks
      }
    }
    if (ld_acquire(g.bar + C_ABORT)) aborted = 1;
    __threadfence();
  }
  __syncthreads();
  g.stage++;
  return !aborted;
}

// Sum over the warp; every lane gets the total.
__device__ __forceinline__ double warp_sum(double s) {
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  return s;
}
__device__ __forceinline__ double warp_max_double(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ unsigned long long warp_max(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long u = __shfl_xor_sync(0xffffffffu, v, o);
    v = u > v ? u : v;
  }
  return v;
}

// Vectors per staging chunk (-DGRID_S from the host, which passes the same value as `staged`).
#ifndef GRID_S
#define GRID_S 8
#endif
#define S_MAX GRID_S
#define S_HALF (S_MAX / 2 > 0 ? S_MAX / 2 : 1)
static_assert(GRID_T / 32 <= GRID_S, "size reduction gives each warp n doubles of the staging buffer");
// Gram-Schmidt panels are published in two halves (the next panel starts on the first while the
// second is finished)
#define GRID_HALF (GRID_P / 2)

// Global loads that bypass L1: other multiprocessors write these arrays inside the kernel.
__device__ __forceinline__ real ldg2(const real* p) { return __ldcg(p); }

// Copies columns [c0, c0 + cnt) of a global n-row array into shared memory, widened to double
// (all threads of the block; the working copies are double, so the loops that reuse them convert
// nothing). 16-byte loads, all of a thread's in flight before its first store (the compiler cannot
// move loads past stores to memory it cannot prove apart): two L2 round trips for a chunk of 8
// columns of 1028 floats. The source must be 16-byte aligned (Gram-Schmidt's chunks start at
// multiples of 8 columns of a 256-byte aligned array).
template <typename V, int PER>
__device__ __forceinline__ void stage_vec(double* dst, const real* s, int total) {
  constexpr int W = (int)(sizeof(V) / sizeof(real));  // reals per 16-byte load
  const int nvec = total / W, nt = blockDim.x;
  const V* sv = (const V*)s;
  for (int e0 = threadIdx.x; e0 < nvec; e0 += PER * nt) {
    V v[PER];
#pragma unroll
    for (int q = 0; q < PER; q++) {
      const int e = e0 + q * nt;
      if (e < nvec) v[q] = __ldcg(sv + e);
    }
#pragma unroll
    for (int q = 0; q < PER; q++) {
      const int e = e0 + q * nt;
      if (e < nvec) {
        const real* x = (const real*)&v[q];
#pragma unroll
        for (int u = 0; u < W; u++) dst[e * W + u] = (double)x[u];
      }
    }
  }
  for (int e = nvec * W + threadIdx.x; e < total; e += nt) dst[e] = (double)ldg2(s + e);
}
__device__ __forceinline__ void stage_columns(double* dst, const real* src, int n, int c0, int cnt) {
  const real* s = src + (size_t)c0 * n;
  if (is_float((real)0)) stage_vec<float4, 4>(dst, s, n * cnt);
  else stage_vec<double2, 8>(dst, s, n * cnt);
}

// The stage functions are not inlined (each gets the whole register file: Gram-Schmidt's panel
// needs it), so they take the kernel's Grid and Basis by reference; working on copies keeps their
// fields in registers, where reads through the references would be reloaded from the caller's
// stack after every asm with a memory clobber (the acquire loads of the flag waits).
#define LOCAL_COPIES() Grid g = gIn; Basis w = wIn

struct Basis {
  real *B[2], *Bs;     // B ping-pong (size reduction writes the other one), B*
  double *Z[2];        // Z ping-pong, m x m column-major
  double* r;           // ||b*_j||^2 as stored in the working precision (then widened)
  unsigned long long* ready;  // per panel, at its last column: the Gram-Schmidt epoch that published it
  double* mu;          // GS coefficients, row k = mu_{k,0..k-1} (m x m)
  double *pairMu, *pairMuNew;  // per pair (k-1, k) that swapped: mu_{k,k-1} before and after
  int* pairSwap;               // per pair: the id of the phase in which it last swapped (0: none)
  int cur;             // which of B[], Z[] is current
  int n, m;
};

// Reduce-scatter of 8 values over a warp: at each of three levels a lane keeps one half of its
// values and sends the other half to its partner (7 shuffles), then two plain shuffles finish the
// sum; returns value (lane >> 2) & 7's warp total (vals[] is consumed).
__device__ __forceinline__ double warp_reduce_scatter8(double* vals, int lane) {
#pragma unroll
  for (int c = 8, o = 16; c > 1; c >>= 1, o >>= 1) {
    const int h = c >> 1;
    const bool upper = (lane & o) != 0;
#pragma unroll
    for (int j = 0; j < h; j++) {
      const double mine = upper ? vals[j + h] : vals[j], theirs = upper ? vals[j] : vals[j + h];
      vals[j] = mine + __shfl_xor_sync(0xffffffffu, theirs, o);
    }
  }
  double v = vals[0];
  v += __shfl_xor_sync(0xffffffffu, v, 2);
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  return v;
}

// Sums K values (a multiple of 8) of every thread over the block (blockDim.x = GRID_T): reduce-
// scatters of 8 per warp (9 shuffles for 8 sums where plain warp sums take 40), then the warps'
// partial sums through shared memory. The totals land in tot[] (shared), visible to every thread on
// return. red: shared scratch of (GRID_T / 32) x K doubles.
template <int K>
__device__ __forceinline__ void block_sums(double* vals, double* red, double* tot) {
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
#pragma unroll
  for (int g = 0; g < K; g += 8) {
    const double v = warp_reduce_scatter8(vals + g, lane);
    if ((lane & 3) == 0) red[wid * K + g + (lane >> 2)] = v;
  }
  __syncthreads();
  if (threadIdx.x < K) {
    double s = 0;
    for (int u = 0; u < GRID_T / 32; u++) s += red[u * K + threadIdx.x];
    tot[threadIdx.x] = s;
  }
  __syncthreads();
}

// Projects the panel v (columns c0 .. c0 + cols - 1, in registers) on the finished vectors
// b*_i0 .. b*_{i0 + cnt - 1} (SC slots, cnt <= SC; SC a multiple of S_HALF) once their half panels
// are published: classical within the chunk, whose vectors are orthogonal. Records the
// coefficients in mu. False when the kernel aborts.
template <int SC>
__device__ __forceinline__ bool project_chunk(Grid& g, Basis& w, double (&v)[GRID_P][GRID_R], unsigned long long epoch,
                                              double* stage, double* stageR, double* red, double* tot,
                                              int c0, int cols, int i0, int cnt) {
  const int n = GRID_N, m = w.m;
  __shared__ int abortFlag;
    if (threadIdx.x == 0) {
      abortFlag = 0;
      const unsigned long long t0 = now_ns();
      unsigned spins = 0;
      // the half panel holding the chunk's last column: its last column carries the flag
      const int flag = min(m, ((i0 + cnt - 1) / GRID_HALF + 1) * GRID_HALF) - 1;
      while (ld_acquire(w.ready + flag) < epoch) {
        if (waited_too_long(g, t0, ++spins)) { abortFlag = 1; break; }
        __nanosleep(32);
      }
    }
    __syncthreads();
    if (abortFlag) return false;
    stage_columns(stage, w.Bs, n, i0, cnt);
    // a short chunk is padded with zero vectors (norm 1): the loops below always take SC
    for (int e = cnt * n + threadIdx.x; e < SC * n; e += blockDim.x) stage[e] = 0.0;
    if (threadIdx.x < SC) stageR[threadIdx.x] = threadIdx.x < cnt ? __ldcg(w.r + i0 + threadIdx.x) : 1.0;
    __syncthreads();
    // dots <v_c, b*_q> in two halves of the chunk (GRID_P x S_HALF partial sums per thread)
#pragma unroll
    for (int h = 0; h < SC; h += S_HALF) {
      double part[GRID_P * S_HALF];
#pragma unroll
      for (int e = 0; e < GRID_P * S_HALF; e++) part[e] = 0;
#pragma unroll
      for (int i = 0; i < GRID_R; i++) {
        const int t = threadIdx.x + GRID_T * i;
        if (t < n) {
#pragma unroll
          for (int q = 0; q < S_HALF; q++) {
            const double x = stage[(h + q) * GRID_N + t];
#pragma unroll
            for (int c = 0; c < GRID_P; c++) part[c * S_HALF + q] += v[c][i] * x;
          }
        }
      }
      block_sums<GRID_P * S_HALF>(part, red, tot + h * GRID_P);
    }
    // tot[h * P + c * S_HALF + q]: coefficient of column c on vector h + q (divide by r)
    if (threadIdx.x < GRID_P * SC) {
      const int h = (threadIdx.x / (GRID_P * S_HALF)) * S_HALF, rest = threadIdx.x % (GRID_P * S_HALF);
      const int c = rest / S_HALF, q = h + rest % S_HALF;
      const double coef = tot[threadIdx.x] / stageR[q];
      tot[threadIdx.x] = coef;
      if (c < cols && q < cnt) w.mu[(size_t)(c0 + c) * m + i0 + q] = coef;
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < SC; q++) {
      const int h = (q / S_HALF) * S_HALF;
      double cq[GRID_P];
#pragma unroll
      for (int c = 0; c < GRID_P; c++) cq[c] = tot[h * GRID_P + c * S_HALF + (q - h)];
#pragma unroll
      for (int i = 0; i < GRID_R; i++) {
        const int t = threadIdx.x + GRID_T * i;
        if (t < n) {
          const double x = stage[q * GRID_N + t];
#pragma unroll
          for (int c = 0; c < GRID_P; c++) v[c][i] -= cq[c] * x;
        }
      }
    }
    __syncthreads();  // stage[] and tot[] are rewritten by the next chunk
  return true;
}

// Step 1 (and max |Z|): dataflow Gram-Schmidt. A block takes a panel of GRID_P consecutive columns
// and holds them in registers spread over its threads by rows (thread t: rows t + GRID_T i, all
// GRID_P columns), so each staged value is read from shared memory once for the whole panel, and
// each dot product is a block sum. Failures go to the stage slot.
// A call, not inlined: inlined, its registers make the rest of the kernel spill, and the size
// reductions and B_in Z then lose more time than the Gram-Schmidt stage gains.
__device__ __noinline__ void gram_schmidt(const Grid& gIn, const Basis& wIn, unsigned long long epoch, double* stage, double* stageR) {
  LOCAL_COPIES();
  const int n = GRID_N, m = w.m;
  const int lane = threadIdx.x & 31;
  const real* B = w.B[w.cur];
  unsigned long long* sl = slot(g, g.stage);
  // max |Z| for the growth watch (Z does not change in this stage)
  {
    const double* Z = w.Z[w.cur];
    unsigned long long mine = 0ull;
    const size_t mm = (size_t)m * m;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < mm; e += (size_t)gridDim.x * blockDim.x) {
      const unsigned long long b = dbits(fabs(__ldcg(Z + e)));
      if (b > mine) mine = b;
    }
    mine = warp_max(mine);
    if (lane == 0 && mine) atomicMax(sl + S_ZMAX, mine);
  }
  __shared__ double red[(GRID_T / 32) * GRID_P * S_HALF];
  __shared__ double tot[GRID_P * S_MAX];
  const int panels = (m + GRID_P - 1) / GRID_P;
  for (int pnl = blockIdx.x; pnl < panels; pnl += gridDim.x) {
    const int c0 = pnl * GRID_P, cols = min(GRID_P, m - c0);
    // the panel in registers: v[c][i] = row threadIdx.x + GRID_T i of column c0 + c (0 past the end)
    double v[GRID_P][GRID_R];
#pragma unroll
    for (int c = 0; c < GRID_P; c++)
#pragma unroll
      for (int i = 0; i < GRID_R; i++) {
        const int t = threadIdx.x + GRID_T * i;
        v[c][i] = c < cols && t < n ? (double)ldg2(B + (size_t)(c0 + c) * n + t) : 0.0;
      }
    double norm0[GRID_P];
    {
      double part[GRID_P];
#pragma unroll
      for (int c = 0; c < GRID_P; c++) {
        part[c] = 0;
#pragma unroll
        for (int i = 0; i < GRID_R; i++) part[c] += v[c][i] * v[c][i];
      }
      block_sums<GRID_P>(part, red, tot);
#pragma unroll
      for (int c = 0; c < GRID_P; c++) norm0[c] = tot[c];
      __syncthreads();  // tot[] is rewritten below
    }
    // earlier panels, in chunks of S_MAX finished vectors; the panel just before this one in its
    // two halves, each as soon as it is published (the chain of panels runs through them)
    const int whole = c0 >= GRID_P ? c0 - GRID_P : 0;
    for (int i0 = 0; i0 < whole; i0 += S_MAX) {
      if (!project_chunk<S_MAX>(g, w, v, epoch, stage, stageR, red, tot, c0, cols, i0, min(S_MAX, whole - i0))) return;
    }
    if (c0 >= GRID_P) {
      if (!project_chunk<GRID_HALF>(g, w, v, epoch, stage, stageR, red, tot, c0, cols, whole, GRID_HALF)) return;
      if (!project_chunk<GRID_HALF>(g, w, v, epoch, stage, stageR, red, tot, c0, cols, whole + GRID_HALF, GRID_HALF)) return;
    }
    // this panel's columns in order: at step j, column j is final; one block sum gives <v_c, v_j>
    // for every c (c = j: r_j), column j is stored (B*, r), the later ones are projected on it
#pragma unroll
    for (int j = 0; j < GRID_P; j++) {
      if (j < cols) {
        double part[GRID_P];
#pragma unroll
        for (int c = 0; c < GRID_P; c++) {
          part[c] = 0;
#pragma unroll
          for (int i = 0; i < GRID_R; i++) part[c] += v[c][i] * v[j][i];
        }
        block_sums<GRID_P>(part, red, tot);
        const double rj = tot[j];
        const real rStored = (real)rj;
        const int k = c0 + j;
        if (threadIdx.x == 0) {
          if (GS_BREAKDOWN(rStored, rj, norm0[j])) {
            const int code = gs_breakdown_status(is_float((real)0), norm0[j]);
            atomicMax(sl + S_FAIL, ~(((unsigned long long)k << 8) | code));
          }
          w.r[k] = (double)rStored;
        }
        if (threadIdx.x > j && threadIdx.x < cols) w.mu[(size_t)(c0 + threadIdx.x) * m + k] = tot[threadIdx.x] / (double)rStored;
#pragma unroll
        for (int i = 0; i < GRID_R; i++) {
          const int t = threadIdx.x + GRID_T * i;
          if (t < n) w.Bs[(size_t)k * n + t] = (real)v[j][i];
        }
#pragma unroll
        for (int c = j + 1; c < GRID_P; c++) {
          const double cc = tot[c] / (double)rStored;
#pragma unroll
          for (int i = 0; i < GRID_R; i++) v[c][i] -= cc * v[j][i];
        }
        // No barrier between steps: the next step's block sum writes tot[] only after its first
        // barrier, which every thread reaches after its reads of tot[] here. Publishing a half
        // panel needs one: it orders every thread's stores before thread 0's release.
        if (j == GRID_HALF - 1 || j == cols - 1) {
          __syncthreads();
          if (threadIdx.x == 0) st_release(w.ready + k, epoch);
        }
      }
    }
  }
}

// What one warp's pair steps add up: swaps and size reductions (the same on every lane), the bits
// of the largest |Z| a reduction wrote, and whether one passed 2^53 (per lane).
struct PairCounts {
  int swaps, reds;
  unsigned long long zPeak;
  int overflow;
  int drift;  // a pair step met drifted coefficients (the same on every lane)
};

// Drift watch. B* and mu are not recomputed between fresh Gram-Schmidt stages: swaps update them
// (pair_step, swap_columns_update, the deferred G's), and on bases whose Gram-Schmidt norms span
// many orders (knapsack-like bases: r_0 = 2^38, the rest near 1) those updates lose every digit
// within a few dozen swaps of one sub-basis; the size reductions that follow then work on wrong
// coefficients and drove |Z| past 2^53 (bench/grid-race.ts: 1.5 % of random 131 x 130 knapsack
// bases in block mode, CPU MB-LLL alike). So a pair step whose coefficients changed since the last
// fresh Gram-Schmidt (watch) compares mu_{k,k-1} as tracked with the one it computes from the
// vectors, <b_k, b*_{k-1}> / r_{k-1}; past DRIFT_TOL |b_k| |b_{k-1}| / r_{k-1} (the rounding scale
// of both: b*_{k-1} carries the rounding of the columns it was projected from) it does nothing and
// reports drift, and the grid runs the closing size reduction and a fresh Gram-Schmidt before going
// on (as for the growth watch). DRIFT_TOL is 512 units of roundoff of the working vectors: a scale
// of |b_k| / |b*_{k-1}| alone (no |b_{k-1}|) flagged 20 % of those bases right after a fresh
// Gram-Schmidt, whose own rounding is that large.
#define DRIFT_TOL (is_float((real)0) ? 0x1p-15 : 0x1p-44)

// Step 2, one pair (k-1, k) by one warp: the three dot products, SimpleSizeReduce, the Lovasz test,
// SimpleSwap of B, Z and B*, and the rows k-1, k of mu. Returns true on every lane when the pair
// swapped, with the old and new mu_{k,k-1} in mu, muNew (the column update needs them).
__device__ bool pair_step(Basis& w, int k, double delta, double bound, bool watch, int lane, PairCounts& pc, double& mu, double& muNew) {
  const int n = w.n, m = w.m;
  real* B = w.B[w.cur];
  double* Z = w.Z[w.cur];
  real* Bs = w.Bs;
  real* bk = B + (size_t)k * n;
  real* bk1 = B + (size_t)(k - 1) * n;
  real* sk = Bs + (size_t)k * n;
  real* sk1 = Bs + (size_t)(k - 1) * n;
  double d0 = 0, r1 = 0, rk = 0, bb = 0, bb1 = 0;
  for (int t = lane; t < n; t += 32) {
    const double x = (double)ldg2(sk1 + t), y = (double)ldg2(sk + t), b = (double)ldg2(bk + t);
    d0 += b * x;
    r1 += x * x;
    rk += y * y;
    if (watch) {
      const double b1 = (double)ldg2(bk1 + t);
      bb += b * b;
      bb1 += b1 * b1;
    }
  }
  d0 = warp_sum(d0); r1 = warp_sum(r1); rk = warp_sum(rk);
  if (watch) {
    bb = warp_sum(bb); bb1 = warp_sum(bb1);
    const double muVec = d0 / r1, muTracked = __ldcg(w.mu + (size_t)k * m + k - 1);
    if (!(fabs(muVec - muTracked) <= DRIFT_TOL * (fabs(muVec) + sqrt(bb * bb1) / r1))) {
      pc.drift = 1;
      return false;
    }
  }
  mu = (double)(real)(d0 / r1);
  double X = 0;
  if (fabs(mu) > bound) {
    X = round_half_up(mu);
    mu = (double)(real)(mu - X);
    pc.reds++;
  }
  const bool swap = rk < (delta - mu * mu) * r1;
  double c = 0;
  muNew = 0;
  if (swap) {
    swap_coefficients(mu, r1, rk, muNew, c);
    pc.swaps++;
  }
  if (X == 0 && !swap) return false;
  // the GS coefficients follow (rows k-1, k here; the columns of a swap in pair_columns):
  // b_k -= X b_{k-1} is row k -= X row k-1; a swap exchanges rows k-1 and k left of column k-1
  // and sets mu_{k,k-1} to muNew (the LLL swap update, Cohen's Algorithm 2.6.3)
  double* muk = w.mu + (size_t)k * m;
  double* muk1 = w.mu + (size_t)(k - 1) * m;
  for (int i = lane; i < k - 1; i += 32) {
    const double a = muk1[i], b = muk[i] - X * a;
    if (swap) { muk1[i] = b; muk[i] = a; } else muk[i] = b;
  }
  if (lane == 0) muk[k - 1] = swap ? muNew : d0 / r1 - X;
  for (int t = lane; t < n; t += 32) pair_basis_entry(B, Bs, n, k, t, X, swap, mu, muNew, c);
  for (int u = lane; u < m; u += 32) pair_transform_entry(Z, m, k, u, X, swap, pc.zPeak, [&] { pc.overflow = 1; });
  return swap;
}

// The LLL swap update of two columns (kl - 1, kl) of a row-major matrix for rows [i0, i1) (row
// stride ld), lanes over rows: t = x_ik, x_ik = x_i,k-1 - mu t, x_i,k-1 = t + muNew x_ik.
__device__ __forceinline__ void swap_columns_update(double* x, int ld, int kl, int i0, int i1, double mu, double muNew, int lane) {
  for (int i = i0 + lane; i < i1; i += 32) {
    double* row = x + (size_t)i * ld;
    const double t = __ldcg(row + kl), a = __ldcg(row + kl - 1);
    const double b = a - mu * t;
    row[kl] = b;
    row[kl - 1] = t + muNew * b;
  }
}

// A warp's stage totals into the stage slot (lane 0 adds; zPeak and overflow taken over the warp).
__device__ __forceinline__ void add_counts(unsigned long long* sl, PairCounts& pc, int lane) {
  const unsigned long long zPeak = warp_max(pc.zPeak);
  const bool overflow = __any_sync(0xffffffffu, pc.overflow);
  if (lane != 0) return;
  if (pc.drift) atomicOr(sl + S_DRIFT, 1ull);
  if (pc.swaps) atomicAdd(sl + S_SWAPS, (unsigned long long)pc.swaps);
  if (pc.swaps | pc.reds) atomicAdd(sl + S_CHANGES, (unsigned long long)(pc.swaps + pc.reds));
  if (zPeak) atomicMax(sl + S_ZPEAK, zPeak);
  if (overflow) atomicMax(sl + S_FAIL, ~(unsigned long long)STATUS_TRANSFORM_OVERFLOW);
}

// Step 2, one phase over the grid: pairs (k-1, k), k = first + stride p < m, a warp each (stride 2:
// all-swap's odd or even pairs; block mode: the pairs across sub-basis boundaries, whose swaps
// flag both neighbouring sub-bases in `flags`). Counts go to *swaps, *reds and the stage slot.
__device__ __noinline__ void phase(const Grid& gIn, const Basis& wIn, int first, int stride, double delta, double bound, bool watch, int phaseId, int* swaps, int* reds, int* flags) {
  LOCAL_COPIES();
  const int m = w.m;
  const int lane = threadIdx.x & 31;
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, W = (gridDim.x * blockDim.x) >> 5;
  const int pairs = first < m ? (m - 1 - first) / stride + 1 : 0;
  PairCounts pc = {0, 0, 0ull, 0, 0};
  for (int p = gw; p < pairs; p += W) {
    const int k = first + stride * p;
    double mu, muNew;
    const bool swapped = pair_step(w, k, delta, bound, watch, lane, pc, mu, muNew);
    if (lane == 0) {
      if (swapped) {
        w.pairMu[k] = mu;
        w.pairMuNew[k] = muNew;
        if (flags) { flags[k / stride - 1] = 1; flags[k / stride] = 1; }
      }
      w.pairSwap[k] = swapped ? phaseId : 0;
    }
  }
  *swaps += pc.swaps;
  *reds += pc.reds;
  add_counts(slot(g, g.stage), pc, lane);
}

// Step 2, second half of a phase with swaps: the columns k-1, k of the GS coefficients below each
// swapped pair (rows i > k). Row exchanges (phase) and these column updates commute; the barrier
// between them keeps two pairs from writing one entry at once. A warp per swapped pair.
__device__ void phase_columns(Basis& w, int first, int stride, int phaseId) {
  const int m = w.m;
  const int lane = threadIdx.x & 31;
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, W = (gridDim.x * blockDim.x) >> 5;
  const int pairs = first < m ? (m - 1 - first) / stride + 1 : 0;
  for (int p = gw; p < pairs; p += W) {
    const int k = first + stride * p;
    if (__ldcg(w.pairSwap + k) != phaseId) continue;
    swap_columns_update(w.mu, m, k, k + 1, m, __ldcg(w.pairMu + k), __ldcg(w.pairMuNew + k), lane);
  }
}

// Step 3, in coefficient space (mu is kept current by Gram-Schmidt and the phases): for column k
// (a warp each), j from k-1 down, X = round(mu_kj) where |mu_kj| > bound, then mu_k,i -= X mu_j,i
// (i < j), b_k -= X b_j, z_k -= X z_j, all against the unreduced columns (B, Z go to the other
// buffers: the reference's snapshot semantics without copies). The reference's operations without
// its dot products: b_k's coefficients along b*_j are what mu holds, updated instead of recomputed.
// Only row k decides the next X, so it lives in shared memory (the warp's share of the staging
// buffer, n >= m doubles) and b_k, z_k accumulate in registers, rounded to the working precision
// once at the end: a reduction costs one pass of independent loads instead of three chains of
// loads and stores.
// The row is scratch: the next stage is a fresh Gram-Schmidt or the end of the reduction.
__device__ __noinline__ void size_reduce_mu(const Grid& gIn, const Basis& wIn, double bound, double* stage, int* reds) {
  LOCAL_COPIES();
  constexpr int NQ = (GRID_N + 31) / 32;  // entries of b_k (and of z_k, m <= n) per lane
  const int n = GRID_N, m = w.m;
  const int lane = threadIdx.x & 31;
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, W = (gridDim.x * blockDim.x) >> 5;
  double* srow = stage + (size_t)(threadIdx.x >> 5) * GRID_N;
  const real* B = w.B[w.cur];
  real* Bn = w.B[w.cur ^ 1];
  const double* Z = w.Z[w.cur];
  double* Zn = w.Z[w.cur ^ 1];
  unsigned long long* sl = slot(g, g.stage);
  double zMax = 0;
  for (int k = gw; k < m; k += W) {
    double accB[NQ], accZ[NQ];
#pragma unroll
    for (int q = 0; q < NQ; q++) {
      const int t = lane + 32 * q;
      accB[q] = t < n ? (double)ldg2(B + (size_t)k * n + t) : 0.0;
      accZ[q] = t < m ? __ldcg(Z + (size_t)k * m + t) : 0.0;
    }
    for (int i = lane; i < k; i += 32) srow[i] = __ldcg(w.mu + (size_t)k * m + i);
    __syncwarp();
    int j = k - 1;
    while (j >= 0) {
      // the highest i <= j in this 32-row window with |mu_ki| > bound
      const int lo = max(0, j - 31);
      const double x = lo + lane <= j ? srow[lo + lane] : 0.0;
      const unsigned hit = __ballot_sync(0xffffffffu, lo + lane <= j && fabs(x) > bound);
      if (!hit) { j = lo - 1; continue; }
      const int top = 31 - __clz(hit);
      j = lo + top;
      const double X = round_half_up(__shfl_sync(0xffffffffu, x, top));
      (*reds)++;
      const double* rowJ = w.mu + (size_t)j * m;
      for (int i0 = lane; i0 < j; i0 += 32 * 8) {
        double y[8];
#pragma unroll
        for (int u = 0; u < 8; u++) y[u] = i0 + 32 * u < j ? __ldcg(rowJ + i0 + 32 * u) : 0.0;
#pragma unroll
        for (int u = 0; u < 8; u++) if (i0 + 32 * u < j) srow[i0 + 32 * u] -= X * y[u];
      }
#pragma unroll
      for (int q = 0; q < NQ; q++) {
        const int t = lane + 32 * q;
        if (t < n) accB[q] -= X * (double)ldg2(B + (size_t)j * n + t);
        if (t < m) {
          accZ[q] -= X * __ldcg(Z + (size_t)j * m + t);
          zMax = fmax(zMax, fabs(accZ[q]));
        }
      }
      __syncwarp();
      j--;
    }
#pragma unroll
    for (int q = 0; q < NQ; q++) {
      const int t = lane + 32 * q;
      if (t < n) Bn[(size_t)k * n + t] = (real)accB[q];
      if (t < m) Zn[(size_t)k * m + t] = accZ[q];
    }
    __syncwarp();  // srow is rewritten by the warp's next column
  }
  zMax = warp_max_double(zMax);
  if (lane == 0 && zMax > 0) atomicMax(sl + S_ZPEAK, dbits(zMax));
  // |Z| past 2^53 (exact integers end there)
  if (lane == 0 && zMax >= EXACT_INTEGER_LIMIT) atomicMax(sl + S_FAIL, ~(unsigned long long)STATUS_TRANSFORM_OVERFLOW);
}

// Step 0: B = B_in Z (current buffers). Work items (column k, 256 rows) over the warps; each
// lane sums 8 rows over Z's nonzeros in column k, four nonzeros at a time (their loads in flight
// together).
__device__ void from_transform(Basis& w, const real* B0) {
  const int n = w.n, m = w.m;
  const int lane = threadIdx.x & 31;
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, W = (gridDim.x * blockDim.x) >> 5;
  real* B = w.B[w.cur];
  const double* Z = w.Z[w.cur];
  const int rowBlocks = (n + 255) / 256;
  for (int item = gw; item < m * rowBlocks; item += W) {
    const int k = item / rowBlocks, t0 = (item - k * rowBlocks) * 256;
    const double* zk = Z + (size_t)k * m;
    double acc[8];
#pragma unroll
    for (int q = 0; q < 8; q++) acc[q] = 0;
    for (int j0 = 0; j0 < m; j0 += 32) {
      const double zl = j0 + lane < m ? __ldcg(zk + j0 + lane) : 0.0;
      unsigned mask = __ballot_sync(0xffffffffu, zl != 0);
      while (mask) {
        int bs[4];
        double zs[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
          bs[q] = mask ? __ffs(mask) - 1 : -1;
          if (mask) mask &= mask - 1;
          zs[q] = __shfl_sync(0xffffffffu, zl, bs[q] < 0 ? 0 : bs[q]);
        }
#pragma unroll
        for (int r = 0; r < 8; r++) {
          const int t = t0 + lane + 32 * r;
          if (t >= n) continue;
          double a = acc[r];
#pragma unroll
          for (int q = 0; q < 4; q++) if (bs[q] >= 0) a += (double)B0[(size_t)(j0 + bs[q]) * n + t] * zs[q];
          acc[r] = a;
        }
      }
    }
#pragma unroll
    for (int r = 0; r < 8; r++) {
      const int t = t0 + lane + 32 * r;
      if (t < n) B[(size_t)k * n + t] = (real)acc[r];
    }
  }
}

#ifdef GRID_BLOCK
// Block mode: MB-LLL (GRID_BLOCK 2) and CR-MB-LLL (GRID_BLOCK 1) of the CR-MB-LLL paper (Section 3.2,
// block/cpu.ts) on the whole GPU. The basis is split into sub-bases of GRID_BLOCK_SIZE consecutive
// columns; a thread block takes a flagged sub-basis [lo, hi) and runs the all-swap phases inside it
// until neither parity swaps (a warp per pair, block barriers), then, for MB-LLL, size-reduces
// it (condition (1) within it); the pairs across sub-basis boundaries follow as one grid-wide
// phase. The GS coefficients mu stay current throughout, so MB-LLL's U is mu here and CR-MB-LLL
// differs only in leaving the inside of a sub-basis unreduced until the closing size reduction.
//
// A swap inside [lo, hi) changes the columns k-1, k of mu in every later row. Rows in [lo, hi)
// are the block's own and are updated at once; rows past hi belong to other sub-bases, whose
// blocks are updating those rows at the same time. Row operations (theirs) and column operations
// (these) commute, so the block only accumulates its column operations in G (s x s, mu[i, lo:hi]
// becomes mu[i, lo:hi] G) and a grid-wide stage applies every G after a barrier.
#define GB_SIZE GRID_BLOCK_SIZE
#define GB_MAX_SIZE 64  // the deferred stage holds a row's s entries in two registers a lane
static_assert(GB_SIZE >= 2 && GB_SIZE <= GB_MAX_SIZE, "sub-bases of 2 to GB_MAX_SIZE columns (grid.ts: GRID_BLOCK_MAX_SIZE)");
#define S_PENDING 6     // a sub-basis stopped early for the growth watch (its flag stays set)

struct Blocks {
  int count;       // sub-bases
  int* flag;       // per sub-basis: reduce it in the next local stage
  int* changed;    // per sub-basis: its last local stage swapped (its G is pending)
  double* G;       // per sub-basis: s x s row-major
};

// Size reduction of the columns k in (lo, hi) against j in [lo, k), k descending and j descending
// (block/coefficients.ts: sizeReduceWithU's order), by the whole block one reduction at a time:
// b_k -= X b_j, z_k -= X z_j, row k of mu -= X row j.
__device__ void block_size_reduce(Basis& w, int lo, int hi, double bound, PairCounts& pc) {
  const int n = w.n, m = w.m;
  real* B = w.B[w.cur];
  double* Z = w.Z[w.cur];
  __shared__ double xs;
  for (int k = hi - 1; k > lo; k--) {
    double* rowK = w.mu + (size_t)k * m;
    for (int j = k - 1; j >= lo; j--) {
      if (threadIdx.x == 0) xs = __ldcg(rowK + j);
      __syncthreads();
      const double x = xs;
      __syncthreads();  // xs is rewritten by the next step
      if (!(fabs(x) > bound)) continue;
      const double X = round_half_up(x);
      if (threadIdx.x == 0) { pc.reds++; rowK[j] = x - X; }
      const double* rowJ = w.mu + (size_t)j * m;
      for (int i = threadIdx.x; i < j; i += blockDim.x) rowK[i] = __ldcg(rowK + i) - X * __ldcg(rowJ + i);
      real* bk = B + (size_t)k * n;
      const real* bj = B + (size_t)j * n;
      for (int t = threadIdx.x; t < n; t += blockDim.x) bk[t] = (real)((double)bk[t] - X * (double)bj[t]);
      double* zk = Z + (size_t)k * m;
      const double* zj = Z + (size_t)j * m;
      for (int u = threadIdx.x; u < m; u += blockDim.x) {
        const double v = zk[u] - X * zj[u];
        zk[u] = v;
        const unsigned long long b = dbits(fabs(v));
        if (b > pc.zPeak) pc.zPeak = b;
        if (fabs(v) >= EXACT_INTEGER_LIMIT) pc.overflow = 1;
      }
      __syncthreads();
    }
  }
}

// The local stage: every flagged sub-basis, a thread block each. Counts, failures, the growth
// watch's early stops (S_PENDING) go to the stage slot.
__device__ __noinline__ void local_reductions(const Grid& gIn, const Basis& wIn, const Blocks& bkIn, double delta, double bound, bool watch, int maxIterations,
                                 double zLimit, int* swaps, int* reds) {
  LOCAL_COPIES();
  Blocks bk = bkIn;
  const int m = w.m;
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  unsigned long long* sl = slot(g, g.stage);
  __shared__ int anySwap, anyDrift;
  __shared__ unsigned long long blockPeak;
  PairCounts pc = {0, 0, 0ull, 0, 0};
  for (int sb = blockIdx.x; sb < bk.count; sb += gridDim.x) {
    if (!__ldcg(bk.flag + sb)) {
      // not reduced in this stage: its G from an earlier stage must not be applied again
      if (threadIdx.x == 0) bk.changed[sb] = 0;
      continue;
    }
    const int lo = sb * GB_SIZE, hi = min(m, lo + GB_SIZE), s = hi - lo;
    double* G = bk.G + (size_t)sb * GB_SIZE * GB_SIZE;
    for (int e = threadIdx.x; e < s * s; e += blockDim.x) G[e] = e % (s + 1) == 0 ? 1.0 : 0.0;
    if (threadIdx.x == 0) { blockPeak = 0ull; anyDrift = 0; }
    bool swappedAny = false, growth = false, limit = false;
    int localPhases = 0, parity = 1;
    bool oddDirty = true, evenDirty = true;
    while (oddDirty || evenDirty) {
      if (localPhases >= maxIterations) { limit = true; break; }
      localPhases++;
      if (threadIdx.x == 0) anySwap = 0;
      __syncthreads();
      const int first = lo + (parity == 1 ? 1 : 2);
      const int pairs = first < hi ? (hi - 1 - first) / 2 + 1 : 0;
      unsigned mine = 0;  // bit q: this warp's q-th pair of the phase swapped
      for (int p = wid, q = 0; p < pairs; p += nw, q++) {
        const int k = first + 2 * p;
        double mu, muNew;
        if (pair_step(w, k, delta, bound, watch || swappedAny, lane, pc, mu, muNew)) {
          mine |= 1u << q;
          if (lane == 0) { w.pairMu[k] = mu; w.pairMuNew[k] = muNew; anySwap = 1; }
        }
      }
      {
        const unsigned long long peak = warp_max(pc.zPeak);
        if (lane == 0 && peak) atomicMax(&blockPeak, peak);
        if (lane == 0 && pc.drift) anyDrift = 1;
      }
      __syncthreads();
      const bool swapped = anySwap != 0;
      if (swapped) {
        // the columns k-1, k below each swapped pair: the block's own rows now, G for the rest
        for (int p = wid, q = 0; p < pairs; p += nw, q++) {
          if (!((mine >> q) & 1u)) continue;
          const int k = first + 2 * p;
          const double mu = w.pairMu[k], muNew = w.pairMuNew[k];
          swap_columns_update(w.mu + lo, m, k - lo, k + 1, hi, mu, muNew, lane);
          swap_columns_update(G, s, k - lo, 0, s, mu, muNew, lane);
        }
        __syncthreads();
        swappedAny = true;
      }
      if (parity == 1) oddDirty = swapped; else evenDirty = swapped;
      parity ^= 1;
      // growth watch between phases (allswap/phases.ts), and the drift watch (pair_step): stop
      // here, the grid runs the closing size reduction and a fresh Gram-Schmidt, and this sub-basis
      // stays flagged
      if (__longlong_as_double((long long)blockPeak) > zLimit || anyDrift) { growth = true; break; }
    }
    if (limit && threadIdx.x == 0) atomicMax(sl + S_FAIL, ~(unsigned long long)STATUS_ITERATION_LIMIT);
#if GRID_BLOCK == 2
    if (!growth && !limit) block_size_reduce(w, lo, hi, bound, pc);
#endif
    if (threadIdx.x == 0) {
      if (growth) atomicOr(sl + S_PENDING, 1ull); else bk.flag[sb] = 0;
      bk.changed[sb] = swappedAny ? 1 : 0;
    }
    __syncthreads();  // blockPeak, anySwap and the shared scratch of the next sub-basis
  }
  *swaps += pc.swaps;
  *reds += pc.reds;
  add_counts(sl, pc, lane);
}

// The deferred stage: mu[i, lo:hi] = mu[i, lo:hi] G for every sub-basis whose local stage swapped
// and every row i >= hi, a warp per (sub-basis, row), lanes over the s outputs.
__device__ void apply_deferred(Basis& w, Blocks& bk) {
  const int m = w.m;
  const int lane = threadIdx.x & 31;
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, W = (gridDim.x * blockDim.x) >> 5;
  const size_t items = (size_t)bk.count * m;
  for (size_t item = gw; item < items; item += W) {
    const int sb = (int)(item / m), i = (int)(item % m);
    const int lo = sb * GB_SIZE, hi = min(m, lo + GB_SIZE), s = hi - lo;
    if (i < hi || !__ldcg(bk.changed + sb)) continue;
    const double* G = bk.G + (size_t)sb * GB_SIZE * GB_SIZE;
    double* row = w.mu + (size_t)i * m + lo;
    const double x0 = lane < s ? __ldcg(row + lane) : 0.0;
    const double x1 = lane + 32 < s ? __ldcg(row + lane + 32) : 0.0;
    double y0 = 0, y1 = 0;
    for (int a = 0; a < s; a++) {
      const double xa = __shfl_sync(0xffffffffu, a < 32 ? x0 : x1, a & 31);
      if (lane < s) y0 += xa * __ldcg(G + (size_t)a * s + lane);
      if (lane + 32 < s) y1 += xa * __ldcg(G + (size_t)a * s + lane + 32);
    }
    if (lane < s) row[lane] = y0;
    if (lane + 32 < s) row[lane + 32] = y1;
  }
}
#endif

// Blocks of up to 256 threads, one per multiprocessor (the plan's shared memory is sized for one:
// the working columns are double), so the registers need no cap below the hardware's.
extern "C" __global__ void __launch_bounds__(256, 1) allswap_grid(
    const real* __restrict__ Bin, real* __restrict__ Bout, double* __restrict__ Zout,
    unsigned char* ctlAll,     // count x CTL_BYTES, zeroed by the host
    unsigned char* wsAll,      // count x wsBytes
    int* __restrict__ stats,   // count x STATS_WIDTH
    int n, int m, int maxIterations, double delta, double bound, int S, long long wsBytes, int count) {
  extern __shared__ __align__(16) unsigned char smem[];
  n = GRID_N;  // the host launches a module specialised to its own n
  double* stage = (double*)smem;
  double* stageR = stage + (size_t)S * n;
  const double growth = growth_factor((real)0);
  const size_t nthreads = (size_t)gridDim.x * blockDim.x;
  const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long epoch = 0;
  __shared__ int blockReds;
  Grid g;
  g.bar = (unsigned long long*)ctlAll;
  g.nblocks = gridDim.x;
  g.stage = 0;
  g.t0 = now_ns();
  bool alive = true;

  for (int basis = 0; basis < count && alive; basis++) {
    g.ctl = (unsigned long long*)(ctlAll + (size_t)basis * 512);
    unsigned char* ws = wsAll + (size_t)basis * wsBytes;
    const size_t nm = (size_t)n * m, mm = (size_t)m * m;
    const size_t bBytes = (nm * sizeof(real) + 255) & ~(size_t)255;
    Basis w;
    w.n = n; w.m = m; w.cur = 0;
    w.Z[0] = (double*)ws; w.Z[1] = w.Z[0] + mm;
    unsigned char* p = ws + 2 * mm * 8;
    w.r = (double*)p; p += (((size_t)m * 8 + 255) & ~(size_t)255);
    w.ready = (unsigned long long*)p; p += (((size_t)m * 8 + 255) & ~(size_t)255);
    w.B[0] = (real*)p; p += bBytes;
    w.B[1] = (real*)p; p += bBytes;
    w.Bs = (real*)p; p += bBytes;
    w.mu = (double*)p; p += mm * 8;
    w.pairMu = (double*)p; p += (size_t)m * 8;
    w.pairMuNew = (double*)p; p += (size_t)m * 8;
    w.pairSwap = (int*)p;
#ifdef GRID_BLOCK
    // after the all-swap workspace (grid.ts: gridBlockWorkspaceBytes): flags, changed, the G's
    Blocks blk;
    blk.count = (m + GB_SIZE - 1) / GB_SIZE;
    p += ((size_t)m * 4 + 255) & ~(size_t)255;
    blk.flag = (int*)p;
    blk.changed = blk.flag + blk.count;
    p += ((size_t)blk.count * 8 + 255) & ~(size_t)255;
    blk.G = (double*)p;
    int boundaryPhases = 0;  // ids of the boundary phases (pairSwap[] was zeroed at the load)
#endif
    const real* B0 = Bin + (size_t)basis * nm;
    int* st = stats + (size_t)basis * STATS_WIDTH;

    // load: B = B_in, Z = I, ready = 0; non-finite entries (first column) and integrality
    {
      unsigned long long* sl = slot(g, g.stage);
      int nonInt = 0;
      unsigned long long bad = NONE;
      for (size_t e = gtid; e < nm; e += nthreads) {
        const real x = B0[e];
        w.B[0][e] = x;
        if (!isfinite(x)) { const unsigned long long c = e / n; if (c < bad) bad = c; }
        else if (x != floor(x)) nonInt = 1;
      }
      for (size_t e = gtid; e < mm; e += nthreads) w.Z[0][e] = (e % (m + 1) == 0) ? 1.0 : 0.0;
      for (size_t e = gtid; e < (size_t)m; e += nthreads) { w.ready[e] = 0ull; w.pairSwap[e] = 0; }
      if (bad != NONE) atomicMax(sl + S_FAIL, ~((bad << 8) | STATUS_NON_FINITE));
      if (nonInt) atomicOr(sl + S_NONINT, 1ull);
    }
    int stageAtLoad = g.stage;
    if (!grid_sync(g, TRACE_LOAD)) { alive = false; break; }
    const unsigned long long* loaded = slot(g, stageAtLoad);
    const unsigned long long fail = ~__ldcg(loaded + S_FAIL);
    const bool integral = __ldcg(loaded + S_NONINT) == 0;

    int phases = 0, swaps = 0, reds = 0, status = STATUS_OK, detail = 0;
    // reads a finished stage's slot: the first failure becomes the status
    auto failed = [&](const unsigned long long* sl) -> bool {
      const unsigned long long f = ~__ldcg(sl + S_FAIL);
      if (f == NONE) return false;
      status = (int)(f & 255);
      detail = (int)(f >> 8);
      return true;
    };
    if (fail != NONE) { status = (int)(fail & 255); detail = (int)(fail >> 8); }

    if (status == STATUS_OK && m >= 2) {
      double zLimit = 0, zPeakRun = 0;
      unsigned long long changesSinceGs = 0;  // swaps and size reductions since the last fresh Gram-Schmidt
      // Gram-Schmidt stage + barrier; sets zLimit. False: stop (status set or aborted).
      auto gs = [&]() -> bool {
        const int s = g.stage;
        epoch++;
        gram_schmidt(g, w, epoch, stage, stageR);
        if (!grid_sync(g, TRACE_GS)) { alive = false; return false; }
        const unsigned long long* sl = slot(g, s);
        if (failed(sl)) return false;
        zLimit = growth * __longlong_as_double((long long)__ldcg(sl + S_ZMAX));
        zPeakRun = 0;
        changesSinceGs = 0;
        return true;
      };
      // step 3 (two stages); counts changes into *changes
      auto reduceAll = [&](unsigned long long* changes) -> bool {
        const int s = g.stage;
        int mine = 0;
        size_reduce_mu(g, w, bound, stage, &mine);
        reds += mine;
        if (threadIdx.x == 0) blockReds = 0;
        __syncthreads();
        if (mine && (threadIdx.x & 31) == 0) atomicAdd(&blockReds, mine);
        __syncthreads();
        if (threadIdx.x == 0 && blockReds) atomicAdd(slot(g, s) + S_CHANGES, (unsigned long long)blockReds);
        if (!grid_sync(g, TRACE_REDUCE)) { alive = false; return false; }
        w.cur ^= 1;
        const unsigned long long* sl = slot(g, s);
        *changes += __ldcg(sl + S_CHANGES);
        return !failed(sl);
      };

      for (int round = 0; round < MAX_ROUNDS; round++) {
        unsigned long long changes = 0;
        if (round > 0 && !integral) {
          from_transform(w, B0);
          if (!grid_sync(g, TRACE_ANCHOR)) { alive = false; break; }
        }
#ifdef GRID_BLOCK
        for (size_t e = gtid; e < (size_t)blk.count; e += nthreads) blk.flag[e] = 1;  // before gs's barrier
#endif
        if (!gs()) break;
        bool stop = false;
        // after a stage of pair steps: the growth watch (|Z| past zLimit) and the drift watch
        // (pair_step) run the closing size reduction and a fresh Gram-Schmidt. False: stop.
        auto watch = [&](bool drift) -> bool {
          if (zPeakRun > zLimit || drift) return reduceAll(&changes) && gs();
          return true;
        };
        // a finished stage of pair steps (its slot): its changes and its |Z| peak into the tallies
        auto tally = [&](const unsigned long long* sl) {
          const unsigned long long c = __ldcg(sl + S_CHANGES);
          changes += c;
          changesSinceGs += c;
          const double peak = __longlong_as_double((long long)__ldcg(sl + S_ZPEAK));
          if (peak > zPeakRun) zPeakRun = peak;
        };
#ifdef GRID_BLOCK
        // block rounds (block/cpu.ts; iterations count them): the flagged sub-bases, their deferred
        // columns, the boundary pairs; until no boundary swaps and no sub-basis stopped early
        for (;;) {
          if (phases >= maxIterations) { status = STATUS_ITERATION_LIMIT; stop = true; break; }
          phases++;
          int s = g.stage;
          local_reductions(g, w, blk, delta, bound, changesSinceGs > 0, maxIterations, zLimit, &swaps, &reds);
          if (!grid_sync(g, TRACE_LOCAL)) { alive = false; stop = true; break; }
          const unsigned long long* sl = slot(g, s);
          if (failed(sl)) { stop = true; break; }
          tally(sl);
          const bool pending = __ldcg(sl + S_PENDING) != 0;
          const bool localDrift = __ldcg(sl + S_DRIFT) != 0;
          if (__ldcg(sl + S_SWAPS) != 0) {
            apply_deferred(w, blk);
            if (!grid_sync(g, TRACE_DEFERRED)) { alive = false; stop = true; break; }
          }
          if (!watch(localDrift)) { stop = true; break; }
          s = g.stage;
          boundaryPhases++;
          phase(g, w, GB_SIZE, GB_SIZE, delta, bound, changesSinceGs > 0, boundaryPhases, &swaps, &reds, blk.flag);
          if (!grid_sync(g, TRACE_PHASE)) { alive = false; stop = true; break; }
          sl = slot(g, s);
          if (failed(sl)) { stop = true; break; }
          tally(sl);
          const bool boundarySwap = __ldcg(sl + S_SWAPS) != 0;
          const bool boundaryDrift = __ldcg(sl + S_DRIFT) != 0;
          if (boundarySwap) {
            phase_columns(w, GB_SIZE, GB_SIZE, boundaryPhases);
            if (!grid_sync(g, TRACE_COLUMNS)) { alive = false; stop = true; break; }
          }
          if (!watch(boundaryDrift)) { stop = true; break; }
          // a pair skipped for drift is checked again (on fresh coefficients)
          if (!boundarySwap && !pending && !boundaryDrift) break;
        }
#else
        bool oddDirty = true, evenDirty = true;
        int parity = 1;
        while (oddDirty || evenDirty) {
          if (phases >= maxIterations) { status = STATUS_ITERATION_LIMIT; stop = true; break; }
          phases++;
          const int s = g.stage;
          const int phaseId = phases;  // >= 1; pairSwap[] was zeroed at the load
          phase(g, w, parity == 1 ? 1 : 2, 2, delta, bound, changesSinceGs > 0, phaseId, &swaps, &reds, nullptr);
          if (!grid_sync(g, TRACE_PHASE)) { alive = false; stop = true; break; }
          const unsigned long long* sl = slot(g, s);
          if (failed(sl)) { stop = true; break; }
          const bool swapped = __ldcg(sl + S_SWAPS) != 0;
          const bool drift = __ldcg(sl + S_DRIFT) != 0;
          tally(sl);
          if (swapped) {
            phase_columns(w, parity == 1 ? 1 : 2, 2, phaseId);
            if (!grid_sync(g, TRACE_COLUMNS)) { alive = false; stop = true; break; }
          }
          if (parity == 1) oddDirty = swapped; else evenDirty = swapped;
          parity ^= 1;
          if (!watch(drift)) { stop = true; break; }
          if (drift) oddDirty = evenDirty = true;  // the pairs skipped for drift are checked again
        }
#endif
        if (stop) break;
        if (!reduceAll(&changes)) break;
        if (changes == 0) break;
      }
    }

    // outputs and stats
    if (!alive) status = STATUS_TIMEOUT;
    if (status == STATUS_OK) {
      const real* B = w.B[w.cur];
      const double* Z = w.Z[w.cur];
      for (size_t e = gtid; e < nm; e += nthreads) Bout[(size_t)basis * nm + e] = ldg2(B + e);
      for (size_t e = gtid; e < mm; e += nthreads) Zout[(size_t)basis * mm + e] = __ldcg(Z + e);
    }
    // counts: per warp, so lane 0 of each warp adds its own (phases counted by every block alike)
    if ((threadIdx.x & 31) == 0) {
      if (swaps) atomicAdd(&st[1], swaps);
      if (reds) atomicAdd(&st[2], reds);
    }
    if (gtid == 0) { st[0] = phases; st[3] = status; st[4] = detail; }
    if (alive && basis + 1 < count && !grid_sync(g, TRACE_END)) alive = false;
  }
}

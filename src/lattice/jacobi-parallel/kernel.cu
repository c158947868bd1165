// Parallel Jacobi lattice reduction (Jeremic and Qiao, Algorithm 3), batched: one thread block per
// basis. It mirrors the CPU reference (jacobi-parallel/cpu.ts with jacobi/driver.ts and
// jacobi/arith.ts) step for step, so that with -fmad=false it gives the same Z and the same basis
// bit for bit, in float64 and in float32:
//
//   G = B^T B (entry (i,j) summed over t = 0..n-1 in order); stop on a zero or non-finite norm.
//   E = diag(G) (drift scales), potential = sum log G(j,j).
//   repeat sweeps of players - 1 chess-tournament rounds until a sweep changes nothing; a round:
//     phase a: thread k < half takes pair k of the round, (i, j) = (min, max), pi = perm[i],
//              pj = perm[j]; if |G(pi,pj)| > G(pi,pi)/2 (with a tiny slack, reduction_limit):
//              r_k = round(G(pi,pj) / G(pi,pi)), vetoed
//              (r_k = 0, overflow) when Z(:,pj) - r_k Z(:,pi) would leave the exact integers;
//              E[pj] = max(E[pj], r_k^2 E[pi])
//     phase b: G(:,pj) -= r_k G(:,pi), Z(:,pj) -= r_k Z(:,pi)     (a group of up to 32 lanes
//     phase c: G(pj,:) -= r_k G(pi,:)                              per pair, lanes along the vector)
//     phase d: drift if G(pj,pj) <= E[pj] * driftRatio; if G(pi,pi) > G(pj,pj) swap perm[i],
//              perm[j] (the paper's permutation array: swaps move indices, not data)
//   A round with drift or overflow ends the sweep. Within a phase each pair writes only its own
//   column / row pj and reads only columns / rows no pair writes, so the order of the pairs does
//   not matter.
//   Then Z is gathered into logical order and B = B_in Z (summed over k in order, zero entries of
//   Z skipped). Done on overflow, or when the sweeps converged with no size reduction since the
//   last refresh (or in exact integer arithmetic); otherwise G is recomputed from B (a refresh), E = diag(G), and the sweeps go on
//   unless the potential stopped falling MAX_STALLS times or the refreshes ran out.
//
// Mapping (speculation): a round without a size reduction leaves G as it is and only swaps perm
// entries where G(pi,pi) > G(pj,pj); all but a few rounds of a large basis are such. So the first
// warp runs the rest of the sweep as if no round had a reduction, with each pair's players, perm
// entries and norms in registers (the tournament turns by shuffles; no barrier, no shared
// memory), writing each pair's perm entries before the round to a history. Then the whole block
// checks every (round, pair) of the history for a size reduction in parallel. If none, the
// simulation stands; else the rounds before the first such round rs stand, the permutation is set
// back to the history's entry for rs, and the block runs round rs as the reference does (phases
// a-d with block barriers; b and c only when a pair has a multiplier), and the first warp goes on
// from rs + 1. The results are those of running every round in order. G = B^T B stages B through
// shared memory; the closing B_in Z takes a column per warp and only the nonzero entries of Z.
//
// The chess-tournament pairs are computed in closed form from the round number (the arrays of the
// paper turn one place round a circle each round, arr1[0] fixed; see chess-ordering.ts).
//
// -D parameters: REAL = float | double, the working precision of B and G (Z is always double);
// JQ: pairs per lane of the first warp in the simulation (JQ min(32, threads) >= half); GT: tile
// of G per thread; JT, JB: launch bounds.
// G and the working Z (in permuted column order) live in shared memory when the host found room
// (flags gInShared, zInShared), else in global scratch; generic pointers reach either.
//
// The variants the host compiles (cuda.ts), which scripts/nvcc-all.mjs also compiles in CI:
// nvcc-variant: -DREAL=float -fmad=false
// nvcc-variant: -DREAL=double -fmad=false

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

// Block primitives (bar.sync counts threads, not code locations, on sm_70 and up; the CPU
// emulator's barrier likewise).
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

// G = B^T B into g (leading dimension ldg), both triangles; entry (i, j) summed in order over t.
// B is staged through shared memory `stage` (rows t0..t0+R-1 of every column, row-major with
// leading dimension stage_ld(m), so that the loads of a warp fall in different banks) R rows at a
// time; each thread computes a GT x GT tile of entries (tiles on and above the diagonal) in
// registers across the chunks, so every entry's sum keeps the reference's order. The stage's
// columns past m (to whole tiles) hold whatever was there: their sums are never stored. Diagonal tiles compute (i, j) and (j, i)
// alike (same products, same order, same value). Every thread of the block calls it (it has
// barriers). `nonInteger` (when not null) collects whether an entry of B is not a finite integer.
#ifndef GT
#define GT (sizeof(real) == 4 ? 5 : 3)  // the host picks it (tiles for every thread, registers)
#endif
#define GRAM_PREFETCH 8
// The stage's leading dimension: whole tiles (the columns past m are read, never stored), odd.
__device__ __forceinline__ int stage_ld(int m) { return ((m + GT - 1) / GT * GT) | 1; }
__device__ __noinline__ void gram(const real* __restrict__ B, real* g, int ldg, int n, int m, real* stage, int R, int* nonInteger) {
  const int lds = stage_ld(m);
  const int T = (m + GT - 1) / GT;
  const int tiles = T * (T + 1) / 2;
  const int tid = threadIdx.x, nt = blockDim.x;
  for (int base = 0; base < tiles; base += nt) {
    const int e = base + tid;
    const bool active = e < tiles;
    // e enumerates tiles (I, J), I <= J, tile column by tile column
    int I = 0, J = 0;
    if (active) {
      J = (int)((sqrt(8.0 * e + 1.0) - 1.0) * 0.5);
      while ((J + 1) * (J + 2) / 2 <= e) J++;
      while (J * (J + 1) / 2 > e) J--;
      I = e - J * (J + 1) / 2;
    }
    const int oi = GT * I, oj = GT * J;
    real s[GT][GT];
#pragma unroll
    for (int a = 0; a < GT; a++)
#pragma unroll
      for (int b = 0; b < GT; b++) s[a][b] = 0;
    // the next chunk's first GRAM_PREFETCH nt elements are loaded into registers before the
    // current chunk is summed (their latency hidden behind the sums), the rest when stored
    real pre[GRAM_PREFETCH];
    {
      const int rows = n < R ? n : R;
#pragma unroll
      for (int u = 0; u < GRAM_PREFETCH; u++) {
        const int x = tid + u * nt;
        if (x < rows * m) { const int c = x / rows; pre[u] = B[(size_t)c * n + (x - c * rows)]; }
      }
    }
    for (int t0 = 0; t0 < n; t0 += R) {
      const int rows = n - t0 < R ? n - t0 : R;
      __syncthreads();  // the previous chunk is consumed
#pragma unroll
      for (int u = 0; u < GRAM_PREFETCH; u++) {
        const int x = tid + u * nt;
        if (x < rows * m) {
          const int c = x / rows, tt = x - c * rows;
          const real v = pre[u];
          stage[tt * lds + c] = v;
          if (nonInteger && base == 0 && !(isfinite(v) && v == floor(v))) *nonInteger = 1;
        }
      }
      for (int x = tid + GRAM_PREFETCH * nt; x < rows * m; x += nt) {
        const int c = x / rows, tt = x - c * rows;
        const real v = B[(size_t)c * n + t0 + tt];
        stage[tt * lds + c] = v;
        if (nonInteger && base == 0 && !(isfinite(v) && v == floor(v))) *nonInteger = 1;
      }
      __syncthreads();
      if (t0 + R < n) {
        const int t1 = t0 + R, rows1 = n - t1 < R ? n - t1 : R;
#pragma unroll
        for (int u = 0; u < GRAM_PREFETCH; u++) {
          const int x = tid + u * nt;
          if (x < rows1 * m) { const int c = x / rows1; pre[u] = B[(size_t)c * n + t1 + (x - c * rows1)]; }
        }
      }
      if (active) {
        for (int tt = 0; tt < rows; tt++) {
          const real* row = stage + tt * lds;
          real x[GT], y[GT];
#pragma unroll
          for (int q = 0; q < GT; q++) { x[q] = row[oi + q]; y[q] = row[oj + q]; }
#pragma unroll
          for (int a = 0; a < GT; a++)
#pragma unroll
            for (int b = 0; b < GT; b++) s[a][b] = s[a][b] + x[a] * y[b];
        }
      }
    }
    if (active) {
#pragma unroll
      for (int a = 0; a < GT; a++) {
        const int i = GT * I + a;
#pragma unroll
        for (int b = 0; b < GT; b++) {
          const int j = GT * J + b;
          if (i < m && j < m) {
            g[i + j * ldg] = s[a][b];
            g[j + i * ldg] = s[a][b];
          }
        }
      }
    }
  }
  __syncthreads();
}

// Zo(:, j) = Z(:, perm[j]) (the transform in logical order) and out = B_in Zo: column j sums
// B_in(:, k) Zo(k, j) over k in order, skipping zero entries of Zo. A warp takes a column: it
// gathers 32 entries of Zo at a time (four loads in flight), and a ballot lists the nonzero ones
// (Zo is mostly zeros, near a permutation); for each, in order, every lane adds the product for
// its rows (up to BZ_ROWS rows per lane: row blocks of 32 BZ_ROWS, the gather written once).
#define BZ_ROWS 8
__device__ __noinline__ void gather_times_z(const real* __restrict__ Bin, const double* Z, const int* perm, double* Zo, real* out, int n, int m) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  const unsigned mask = warp_members();
  const int wl = __popc(mask);
  for (int j = warp; j < m; j += nw) {
    const double* zj = Z + (size_t)perm[j] * m;
    double* zo = Zo + (size_t)j * m;
    for (int t0 = 0; t0 < n; t0 += BZ_ROWS * wl) {
      real acc[BZ_ROWS];
#pragma unroll
      for (int u = 0; u < BZ_ROWS; u++) acc[u] = 0;
      for (int k0 = 0; k0 < m; k0 += 4 * wl) {
        double z[4];
#pragma unroll
        for (int q = 0; q < 4; q++) { const int k = k0 + q * wl + lane; z[q] = k < m ? zj[k] : 0.0; }
#pragma unroll
        for (int q = 0; q < 4; q++) {
          const int kb = k0 + q * wl;
          if (t0 == 0 && kb + lane < m) zo[kb + lane] = z[q];
          unsigned bits = __ballot_sync(mask, z[q] != 0);
          while (bits) {
            const int b = __ffs(bits) - 1;
            bits &= bits - 1;
            const double zk = __shfl_sync(mask, z[q], b);
            const real* bk = Bin + (size_t)(kb + b) * n;
#pragma unroll
            for (int u = 0; u < BZ_ROWS; u++) {
              const int t = t0 + u * wl + lane;
              if (t < n) acc[u] = acc[u] + (real)((double)bk[t] * zk);
            }
          }
        }
      }
#pragma unroll
      for (int u = 0; u < BZ_ROWS; u++) {
        const int t = t0 + u * wl + lane;
        if (t < n) out[(size_t)j * n + t] = acc[u];
      }
    }
  }
}

// Does Z(:, cj) - r Z(:, ci) keep every entry an exact integer (transformUpdateFits in arith.ts)?
// zbound[c] bounds max |Z(:, c)| from above, so most calls answer without looking at Z.
__device__ bool transform_update_fits(const double* Z, const double* zbound, int m, int ci, int cj, double r) {
  const double ar = fabs(r);
  if (zbound[cj] + ar * zbound[ci] < 0.5 * EXACT_INTEGER_LIMIT) return true;
  for (int t = 0; t < m; t++) {
    if (!(fabs(Z[t + cj * m]) + ar * fabs(Z[t + ci * m]) < EXACT_INTEGER_LIMIT)) return false;
  }
  return true;
}

// Phases b and c of a round with multipliers, by every thread of the block (groups of `width`
// lanes per pair): columns pj of G and Z, barrier, rows pj of G, barrier.
__device__ __noinline__ void update_phases(real* G, double* Z, const real* mult, const int* lpi, const int* lpj, int ldg, int m, int half) {
  const int nt = blockDim.x, tid = threadIdx.x;
  int width = 1;
  while (width < 32 && width < m && 2 * width <= nt) width <<= 1;
  const int groups = nt / width, grp = tid / width, lane = tid - grp * width;
  if (grp < groups) {
    for (int k = grp; k < half; k += groups) {
      const real rk = mult[k];
      if (rk == 0) continue;
      const int pi = lpi[k], pj = lpj[k];
      const double rz = (double)rk;
      for (int t = lane; t < m; t += width) {
        G[t + pj * ldg] = G[t + pj * ldg] - rk * G[t + pi * ldg];
        Z[t + pj * m] = Z[t + pj * m] - rz * Z[t + pi * m];
      }
    }
  }
  block_sync();
  if (grp < groups) {
    for (int k = grp; k < half; k += groups) {
      const real rk = mult[k];
      if (rk == 0) continue;
      const int pi = lpi[k], pj = lpj[k];
      for (int c = lane; c < m; c += width) G[pj + c * ldg] = G[pj + c * ldg] - rk * G[pi + c * ldg];
    }
  }
  block_sync();
}

// Shared words at the start of the dynamic shared memory.
struct JacobiShared {
  int firstRed;  // the first round of the simulated ones with a size reduction (rounds: none)
  int flags;     // of a round run by the block: 1 overflow, 2 drift
  int decision;
};
#define JACOBI_SHARED_BYTES 128
static_assert(sizeof(JacobiShared) <= JACOBI_SHARED_BYTES, "JacobiShared outgrew its place");
__device__ __forceinline__ JacobiShared* jshared() { return (JacobiShared*)smem; }

// Player at position s of the tournament circle in round r (see chess-ordering.ts): the circle of
// players - 1 places holds arr1[1..half-1] then arr2[half-1..0] and turns one place per round.
// Both s and r lie in [0, players - 1), so one conditional add replaces the modulo.
__device__ __forceinline__ int circle_at(int s, int r, int players, int half) {
  const int len = players - 1;
  int s0 = s - r;
  if (s0 < 0) s0 += len;
  return s0 < half - 1 ? s0 + 1 : players + half - 2 - s0;
}

// The players of pair k in round r: a = arr1[k], b = arr2[k].
__device__ __forceinline__ void round_players(int k, int r, int players, int half, int& a, int& b) {
  a = k == 0 ? 0 : circle_at(k - 1, r, players, half);
  b = circle_at(k == 0 ? players - 2 : players - 2 - k, r, players, half);
}

// Slots per lane of the first warp in the simulation (the host compiles JQ >= half / 32).
#ifndef JQ
#define JQ 4
#endif

// A history entry (one per pair and round): the perm entries of the pair's arr1 and arr2 players
// before the round, and whether the round swapped them.
#define HIST_A(h) ((int)((h) & 0x7fffu))
#define HIST_B(h) ((int)(((h) >> 15) & 0x7fffu))
#define HIST_SWAP(h) ((int)(((h) >> 30) & 1u))

// A player's state in the simulation: (logical column << 16) | physical column (perm entry).
#define PLAYER(s) ((int)((s) >> 16))
#define PHYS(s) ((int)((s) & 0xffffu))

// The rounds r0 .. rounds - 1 of a sweep as they go when no pair of them has a size reduction, by
// the first warp alone (W = min(32, blockDim.x) lanes), from the permutation perm: then G does
// not change, and a round only swaps perm entries where G(pi,pi) > G(pj,pj). Lane l holds pairs
// l JQ .. l JQ + JQ - 1 in registers, each player as its logical column, its perm entry and its
// norm G(p,p); the tournament turns by shuffles; no memory access but the history (hist, global)
// on the way. The permutation after the last round goes to perm2. Whether the rounds had size
// reductions after all is checked afterwards by the whole block, from the history.
template <bool GS>
__device__ __noinline__ void simulate(const real* Gany, const int* perm, int* perm2, unsigned* hist, int r0, int m, int ldg) {
  const real* G = GS ? (const real*)(smem + JACOBI_SHARED_BYTES) : Gany;
  const int lane = threadIdx.x;
  const int nt = blockDim.x;
  const int W = nt < 32 ? nt : 32;
  const unsigned wmask = W == 32 ? 0xffffffffu : (1u << W) - 1u;
  const int players = m + (m & 1), half = players / 2, rounds = players - 1;
  const int lastLane = (half - 1) / JQ, lastQ = (half - 1) - lastLane * JQ;
  unsigned sa[JQ], sb[JQ];
  real da[JQ], db[JQ];
#pragma unroll
  for (int q = 0; q < JQ; q++) {
    const int k = lane * JQ + q;
    int a = 0, b = 0;
    if (k < half) round_players(k, r0, players, half, a, b);
    const int pa = a < m ? perm[a] : 0, pb = b < m ? perm[b] : 0;
    sa[q] = ((unsigned)a << 16) | (unsigned)pa;
    sb[q] = ((unsigned)b << 16) | (unsigned)pb;
    da[q] = G[pa + pa * ldg];
    db[q] = G[pb + pb * ldg];
  }
  for (int r = r0; r < rounds; r++) {
    unsigned* hr = hist + (size_t)r * half;
#pragma unroll
    for (int q = 0; q < JQ; q++) {
      const int k = lane * JQ + q;
      if (k < half) {
        const int ia = PLAYER(sa[q]), ib = PLAYER(sb[q]);
        const bool aFirst = ia < ib;  // (i, j) = (min, max) of the logical columns
        const real gi = aFirst ? da[q] : db[q], gj = aFirst ? db[q] : da[q];
        const bool sw = ia < m && ib < m && gi > gj;
        hr[k] = (sa[q] & 0xffffu) | ((sb[q] & 0xffffu) << 15) | ((unsigned)sw << 30);
        if (sw) {
          const unsigned x = sa[q];
          sa[q] = (sa[q] & 0xffff0000u) | (sb[q] & 0xffffu);
          sb[q] = (sb[q] & 0xffff0000u) | (x & 0xffffu);
          const real y = da[q]; da[q] = db[q]; db[q] = y;
        }
      }
    }
    // the tournament turns: arr2[0] -> arr1[1] -> ... -> arr1[half-1] -> arr2[half-1] -> ...
    // -> arr2[0], arr1[0] fixed
    if (half >= 2) {
      const int left = lane > 0 ? lane - 1 : 0, right = lane + 1 < W ? lane + 1 : W - 1;
      const unsigned prevA = __shfl_sync(wmask, sa[JQ - 1], left);
      const real prevDa = __shfl_sync(wmask, da[JQ - 1], left);
      const unsigned nextB = __shfl_sync(wmask, sb[0], right);
      const real nextDb = __shfl_sync(wmask, db[0], right);
      const unsigned b0 = __shfl_sync(wmask, sb[0], 0);
      const real db0 = __shfl_sync(wmask, db[0], 0);
      unsigned mine = 0;
      real mineD = 0;
#pragma unroll
      for (int q = 0; q < JQ; q++) if (q == lastQ) { mine = sa[q]; mineD = da[q]; }
      const unsigned aLast = __shfl_sync(wmask, mine, lastLane);
      const real daLast = __shfl_sync(wmask, mineD, lastLane);
      unsigned na[JQ], nb[JQ];
      real nda[JQ], ndb[JQ];
#pragma unroll
      for (int q = 0; q < JQ; q++) {
        const int k = lane * JQ + q;
        const unsigned before = q == 0 ? prevA : sa[q > 0 ? q - 1 : 0];
        const real beforeD = q == 0 ? prevDa : da[q > 0 ? q - 1 : 0];
        const unsigned after = q == JQ - 1 ? nextB : sb[q < JQ - 1 ? q + 1 : 0];
        const real afterD = q == JQ - 1 ? nextDb : db[q < JQ - 1 ? q + 1 : 0];
        na[q] = k == 0 ? sa[q] : k == 1 ? b0 : before;
        nda[q] = k == 0 ? da[q] : k == 1 ? db0 : beforeD;
        nb[q] = k == half - 1 ? aLast : after;
        ndb[q] = k == half - 1 ? daLast : afterD;
      }
#pragma unroll
      for (int q = 0; q < JQ; q++) { sa[q] = na[q]; sb[q] = nb[q]; da[q] = nda[q]; db[q] = ndb[q]; }
    }
  }
#pragma unroll
  for (int q = 0; q < JQ; q++) {
    if (lane * JQ + q < half) {
      if (PLAYER(sa[q]) < m) perm2[PLAYER(sa[q])] = PHYS(sa[q]);
      if (PLAYER(sb[q]) < m) perm2[PLAYER(sb[q])] = PHYS(sb[q]);
    }
  }
}

// Launch bounds (the host passes its block size and blocks per multiprocessor): a single basis
// runs JT = 512 threads with up to 128 registers each (no spills in the simulation), batches
// at most 64 registers per thread (JB blocks of JT threads).
#ifndef JT
#define JT 1024
#endif
#ifndef JB
#define JB 1
#endif
extern "C" __global__ void __launch_bounds__(JT, JB) jacobi_parallel(
    const real* __restrict__ Bin,   // batch x n x m, column-major bases
    real* __restrict__ Bout,        // batch x n x m, reduced bases
    double* __restrict__ Zout,      // batch x m x m, unimodular transforms (logical order)
    double* __restrict__ Zscratch,  // batch x m x m, used when Z is not in shared memory
    real* __restrict__ Gscratch,    // batch x m x (m|1), used when G is not in shared memory
    unsigned* __restrict__ Hscratch,  // batch x rounds x half, the simulated rounds' history
    int* __restrict__ stats,        // batch x STATS_WIDTH, zero on entry
    int n, int m, int maxIterations, int gInShared, int zInShared, int stageRows) {
  const int basis = blockIdx.x;
  const int tid = threadIdx.x;
  const int nt = blockDim.x;
  const int ldg = m | 1;  // odd leading dimension: a row's elements fall in different banks
  const int players = m + (m & 1);
  const int half = players / 2;
  const int rounds = players - 1;
  const int W = nt < 32 ? nt : 32;  // lanes of the first warp

  // shared layout (jacobiParallelPlan in cuda.ts sizes it): [JacobiShared (128 bytes)][G][Z]
  //   [stage (stageRows x stage_ld(m) reals)][E (m doubles)][zbound (m doubles)][lg (m doubles)]
  //   [mult (half reals)][perm (m)][perm2 (m)][lpi (half)][lpj (half)]
  JacobiShared* sh = jshared();
  unsigned char* p = smem + JACOBI_SHARED_BYTES;
  real* G;
  if (gInShared) { G = (real*)p; p += ((size_t)m * ldg * sizeof(real) + 15) & ~(size_t)15; }
  else G = Gscratch + (size_t)basis * m * ldg;
  double* Z;
  if (zInShared) { Z = (double*)p; p += (size_t)m * m * sizeof(double); }
  else Z = Zscratch + (size_t)basis * m * m;
  real* stage = (real*)p; p += ((size_t)stageRows * stage_ld(m) * sizeof(real) + 15) & ~(size_t)15;
  double* E = (double*)p; p += (size_t)m * sizeof(double);
  double* zbound = (double*)p; p += (size_t)m * sizeof(double);
  double* lg = (double*)p; p += (size_t)m * sizeof(double);
  real* mult = (real*)p; p += ((size_t)half * sizeof(real) + 15) & ~(size_t)15;
  int* perm = (int*)p; p += (size_t)m * sizeof(int);
  int* perm2 = (int*)p; p += (size_t)m * sizeof(int);
  int* lpi = (int*)p; p += (size_t)half * sizeof(int);
  int* lpj = (int*)p;
  unsigned* hist = Hscratch + (size_t)basis * rounds * half;

  const real* B0 = Bin + (size_t)basis * n * m;
  real* B1 = Bout + (size_t)basis * n * m;
  double* Zo = Zout + (size_t)basis * m * m;
  int* st = stats + (size_t)basis * STATS_WIDTH;

  for (int e = tid; e < m * m; e += nt) Z[e] = (e % (m + 1) == 0) ? 1.0 : 0.0;
  for (int c = tid; c < m; c += nt) { perm[c] = c; zbound[c] = 1.0; }

  if (m < 2) {
    for (int e = tid; e < n * m; e += nt) B1[e] = B0[e];
    for (int e = tid; e < m * m; e += nt) Zo[e] = Z[e];
    return;
  }
  if (JQ * W < half) kernel_trap();  // the host compiled too few slots per lane

  // integer input whose Gram entries stay small updates G exactly: no drift test then
  int nonInteger = 0;
  gram(B0, G, ldg, n, m, stage, stageRows, &nonInteger);
  const int anyNonInteger = __syncthreads_or(nonInteger);
  // the logs of the norms in parallel, their sum in column order by thread 0
  for (int c = tid; c < m; c += nt) {
    const double g = (double)G[c + c * ldg];
    E[c] = g;
    lg[c] = g > 0 ? log(g) : quiet_nan();
  }
  __syncthreads();
  double potential = 0, bestPotential = 0;
  if (tid == 0) {
    // the first zero or non-finite norm, in column order (as the CPU reference reports it)
    int bad = 0, small = 1;
    for (int c = 0; c < m && !bad; c++) {
      const real d = G[c + c * ldg];
      if (!isfinite(d)) bad = STATUS_NON_FINITE; else if (d == 0) bad = STATUS_ZERO_VECTOR;
      if (bad) { st[3] = bad; st[4] = c; }
      if (!((double)d < exact_gram_limit((real)0))) small = 0;
    }
    sh->decision = bad ? -1 : (!anyNonInteger && small);
    for (int c = 0; c < m; c++) potential += lg[c];
    bestPotential = potential;
  }
  __syncthreads();
  if (sh->decision < 0) return;
  const double driftRatio = sh->decision ? 0.0 : drift_ratio((real)0);

  int sweeps = 0, mySwaps = 0, myReductions = 0, status = STATUS_OK;
  int stalls = 0;
  for (int refresh = 0;; refresh++) {
    int passReductions = 0;  // this thread's size reductions since the last refresh
    int outcome;
    do {
      if (sweeps >= maxIterations) { status = STATUS_ITERATION_LIMIT; break; }
      sweeps++;
      int changed = 0;
      outcome = OUTCOME_UNCHANGED;
      for (int r0 = 0; r0 < rounds;) {
        // 1. the first warp runs rounds r0 .. rounds - 1 as if none had a size reduction
        if (tid == 0) sh->firstRed = rounds;
        if (tid < 32) {
          if (gInShared) simulate<true>(G, perm, perm2, hist, r0, m, ldg);
          else simulate<false>(G, perm, perm2, hist, r0, m, ldg);
        }
        __syncthreads();
        // 2. the block checks every pair of those rounds for a size reduction, from the history
        const int total = (rounds - r0) * half;
        int sw = 0;
        for (int e0 = tid; e0 < total; e0 += 4 * nt) {
          unsigned h[4];
          int rr[4], kk[4];
#pragma unroll
          for (int u = 0; u < 4; u++) {
            const int e = e0 + u * nt;
            rr[u] = e < total ? r0 + e / half : rounds;
            kk[u] = e < total ? e - (rr[u] - r0) * half : 0;
            h[u] = e < total ? hist[(size_t)rr[u] * half + kk[u]] : 0u;
          }
#pragma unroll
          for (int u = 0; u < 4; u++) {
            if (rr[u] >= rounds) continue;
            int a, b;
            round_players(kk[u], rr[u], players, half, a, b);
            if (a >= m || b >= m) continue;  // a bye
            const int pi = a < b ? HIST_A(h[u]) : HIST_B(h[u]), pj = a < b ? HIST_B(h[u]) : HIST_A(h[u]);
            const real gij = G[pi + pj * ldg], gii = G[pi + pi * ldg];
            if (fabs(gij) > reduction_limit(gii)) atomicMin(&sh->firstRed, rr[u]);
            sw += HIST_SWAP(h[u]);
          }
        }
        __syncthreads();
        const int rs = sh->firstRed;
        if (rs == rounds) {
          // none: the simulation stands
          mySwaps += sw;
          if (sw) changed = 1;
          for (int c = tid; c < m; c += nt) perm[c] = perm2[c];
          __syncthreads();
          break;
        }
        // 3. round rs has a size reduction: the simulated rounds before it stand (their swaps
        // counted), the permutation is set back to what it was before round rs, and the block
        // runs round rs as the reference does
        for (int e = tid; e < (rs - r0) * half; e += nt) {
          const int swp = HIST_SWAP(hist[(size_t)r0 * half + e]);
          mySwaps += swp;
          if (swp) changed = 1;
        }
        for (int k = tid; k < half; k += nt) {
          const unsigned hk = hist[(size_t)rs * half + k];
          int a, b;
          round_players(k, rs, players, half, a, b);
          if (a < m) perm[a] = HIST_A(hk);
          if (b < m) perm[b] = HIST_B(hk);
        }
        if (tid == 0) sh->flags = 0;
        __syncthreads();
        // phase a: thread k < half takes pair k of the round and decides its multiplier
        int anyMult = 0;
        for (int k = tid; k < half; k += nt) {
          int a, b;
          round_players(k, rs, players, half, a, b);
          real rk = 0;
          int pi = 0, pj = 0;
          if (a < m && b < m) {
            const int i = a < b ? a : b, j = a < b ? b : a;
            pi = perm[i]; pj = perm[j];
            const real gij = G[pi + pj * ldg], gii = G[pi + pi * ldg];
            if (fabs(gij) > reduction_limit(gii)) {
              const real q = round_half_away(gij / gii);
              const double rq = (double)q;
              if (!transform_update_fits(Z, zbound, m, pi, pj, rq)) {
                atomicOr(&sh->flags, 1);  // overflow: no update, the run ends after this round
              } else {
                rk = q;
                E[pj] = fmax(E[pj], rq * rq * E[pi]);
                zbound[pj] = (zbound[pj] + fabs(rq) * zbound[pi]) * (1.0 + 1.0 / 1125899906842624.0);
                myReductions++;
                passReductions++;
                changed = 1;
                anyMult = 1;
              }
            }
          }
          mult[k] = rk; lpi[k] = pi; lpj[k] = pj;
        }
        // phases b and c (with their barriers) only when some pair has a multiplier
        if (__syncthreads_or(anyMult)) update_phases(G, Z, mult, lpi, lpj, ldg, m, half);
        // phase d: drift test of the updated norms, then swaps through the permutation array
        for (int k = tid; k < half; k += nt) {
          int a, b;
          round_players(k, rs, players, half, a, b);
          if (a >= m || b >= m) continue;
          const int i = a < b ? a : b, j = a < b ? b : a;
          const int pi = lpi[k], pj = lpj[k];
          if (mult[k] != 0 && !((double)G[pj + pj * ldg] > E[pj] * driftRatio)) atomicOr(&sh->flags, 2);
          if (G[pi + pi * ldg] > G[pj + pj * ldg]) {
            perm[i] = pj; perm[j] = pi;
            mySwaps++;
            changed = 1;
          }
        }
        __syncthreads();
        const int f = sh->flags;
        if (f & 1) { outcome = OUTCOME_OVERFLOW; break; }
        if (f & 2) { outcome = OUTCOME_DRIFT; break; }
        r0 = rs + 1;
      }
      if (outcome == OUTCOME_UNCHANGED && __syncthreads_or(changed)) outcome = OUTCOME_CHANGED;
    } while (outcome == OUTCOME_CHANGED);
    if (status != STATUS_OK) { if (tid == 0) st[3] = status; break; }

    // Z in logical order and B = B_in Z
    gather_times_z(B0, Z, perm, Zo, B1, n, m);
    if (outcome == OUTCOME_OVERFLOW) break;
    // converged on a G that is exactly B's Gram matrix (only swaps since it was computed from a
    // basis, or exact integer arithmetic): the result is final
    if (!__syncthreads_or(passReductions) && outcome == OUTCOME_UNCHANGED) break;
    if (outcome == OUTCOME_UNCHANGED && driftRatio == 0) break;
    // refresh: G from the new basis, E = diag(G), working Z = logical Z, identity permutation,
    // and the bounds on |Z| recomputed from Z itself
    gram(B1, G, ldg, n, m, stage, stageRows, nullptr);
    for (int e = tid; e < m * m; e += nt) Z[e] = Zo[e];
    for (int c = tid; c < m; c += nt) {
      perm[c] = c;
      double mx = 0;
      for (int t = 0; t < m; t++) mx = fmax(mx, fabs(Zo[t + c * m]));
      zbound[c] = mx;
      const double g = (double)G[c + c * ldg];
      E[c] = g;
      lg[c] = g > 0 ? log(g) : quiet_nan();
    }
    __syncthreads();
    if (tid == 0) {
      potential = 0;
      for (int c = 0; c < m; c++) potential += lg[c];
      int stop = 0;
      if (potential < bestPotential) bestPotential = potential;
      else if (++stalls >= MAX_STALLS || !isfinite(potential)) stop = 1;  // precision exhausted
      if (refresh >= 100 + 10 * m) stop = 1;
      sh->decision = stop;
    }
    __syncthreads();
    if (sh->decision) break;
  }

  if (mySwaps) atomicAdd(&st[1], mySwaps);
  if (myReductions) atomicAdd(&st[2], myReductions);
  if (tid == 0) st[0] = sweeps;
}

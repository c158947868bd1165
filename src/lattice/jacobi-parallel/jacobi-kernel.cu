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
// Mapping: the rounds run apart from the rest of the block, in one of four modes (the ROUNDS_* define,
// the host picks by size). First-warp mode (up to 64 pairs): the first warp alone, lane l holding pairs
// l JQ .. l JQ + JQ - 1 in registers (each player as its logical column and its perm entry), the
// tournament turned by four shuffles: a round without a size reduction costs no barrier and no
// shared-memory store. Shared-permutation mode: a group of up to four warps at the start of the block (a warp per
// scheduler; JQ pairs per thread, pairs in closed form from the round number); phase a's test and
// phase d's swap decision (on the norms as they stand) are made together, the permutation written
// to a second perm array, and one barrier over the group (named barrier 1, which also ORs the
// tests) ends the round. In both, a round without a size reduction (all but a few of a large
// basis) needs no block barrier; a round with one is redone the reference's way: multipliers,
// phases b and c by the whole block (the other warps wait at a block barrier for that command,
// or for the end of the sweeps), then the drift test and the swaps on the updated norms. Register-players mode
// (where the group gives every pair a thread): as shared-permutation mode, but each thread carries its two players
// and their norms in registers and passes them to its neighbours through exchange slots in shared
// memory (no permutation array, one load of G per pair in a round without a size reduction).
// Halo mode (the host's choice for a single basis of 33 to 128 pairs): as register-players mode, but each warp also
// holds a halo of the neighbouring warps' pairs and runs up to JH rounds between group barriers
// (the tournament turned by shuffles, the tests checked at the barrier, a block with a reduction
// rolled back to its first such round; see halo_sweeps). G = B^T B stages B through shared memory; for a few large
// bases the host launches jacobi_gram (G by many blocks, same sums) before this kernel instead
// (preGram). The closing B_in Z takes a column per warp and only the nonzero entries of Z; while Z
// is still the identity it is a permuted copy of B_in.
//
// -D parameters: REAL = float | double, the working precision of B and G (Z is always double);
// ROUNDS_FIRST_WARP, ROUNDS_GROUP_REGISTER_PLAYERS or ROUNDS_GROUP_HALO = 1 (above; none of them:
// the shared-permutation mode); JG, JQ: threads of the group in the group modes and pairs per thread
// (JQ times the threads that run the rounds >= half); halo mode: JL pairs per lane, JOL owned and JHL
// halo lanes on either side per warp, JH rounds per barrier at most; GT: tile of G per thread; JT,
// JB: launch bounds.
// G and the working Z (in permuted column order) live in shared memory when the host found room
// (flags gInShared, zInShared), else in global scratch; generic pointers reach either.
//
// The variants the host compiles (cuda.ts), which scripts/nvcc-all.mjs also compiles in CI:
// nvcc-variant: -DREAL=float -fmad=false
// nvcc-variant: -DREAL=double -fmad=false
// nvcc-variant: -DREAL=float -fmad=false -DROUNDS_GROUP_REGISTER_PLAYERS=1 -DJQ=1 -DJG=128 -DJT=512
// nvcc-variant: -DREAL=float -fmad=false -DROUNDS_GROUP_HALO=1 -DJQ=1 -DJG=128 -DJL=2 -DJOL=13 -DJHL=9 -DJH=12 -DJT=512
// nvcc-variant: -DREAL=double -fmad=false -DROUNDS_GROUP_HALO=1 -DJQ=1 -DJG=128 -DJL=1 -DJOL=25 -DJHL=3 -DJH=3 -DJT=512

#include "jacobi-common.cuh"

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

// gather_times_z when Z is the identity (no size reduction yet): Zo(:, j) = e_perm[j] and
// out(:, j) = 0 + B_in(:, perm[j]) (what the sum gives: 0 + (real)((double)b * 1.0)). A warp takes
// a column of out and of Zo at a time (no division per element), eight loads in flight per lane.
__device__ __noinline__ void permuted_copy(const real* __restrict__ Bin, const int* perm, double* Zo, real* out, int n, int m) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  const int wl = __popc(warp_members());
  for (int j = warp; j < m; j += nw) {
    const int pj = perm[j];
    const real* src = Bin + (size_t)pj * n;
    real* dst = out + (size_t)j * n;
    for (int t0 = 0; t0 < n; t0 += 8 * wl) {
      real v[8];
#pragma unroll
      for (int u = 0; u < 8; u++) { const int t = t0 + u * wl + lane; v[u] = t < n ? src[t] : (real)0; }
#pragma unroll
      for (int u = 0; u < 8; u++) { const int t = t0 + u * wl + lane; if (t < n) dst[t] = (real)0 + v[u]; }
    }
    double* zo = Zo + (size_t)j * m;
    for (int t = lane; t < m; t += wl) zo[t] = t == pj ? 1.0 : 0.0;
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

// The rounds run on a group of NG = group_threads() threads at the start of the block (up to four
// warps, one per scheduler; JG from the host); each takes JQ pairs of a round (slot k = q NG + t).
#ifndef JQ
#define JQ 1
#endif
#ifndef JG
#define JG 128
#endif
// Who runs the rounds (above): the host passes one of ROUNDS_FIRST_WARP, ROUNDS_GROUP_REGISTER_PLAYERS,
// ROUNDS_GROUP_HALO as 1; none of them is the shared-permutation mode.
#ifndef ROUNDS_FIRST_WARP
#define ROUNDS_FIRST_WARP 0
#endif
#ifndef ROUNDS_GROUP_REGISTER_PLAYERS
#define ROUNDS_GROUP_REGISTER_PLAYERS 0
#endif
#ifndef ROUNDS_GROUP_HALO
#define ROUNDS_GROUP_HALO 0
#endif
// Halo mode's lanes (see halo_sweeps): JL pairs per lane, JOL owned and JHL halo lanes on either side
// per warp, JH rounds per group barrier at most.
#ifndef JL
#define JL 1
#endif
#ifndef JOL
#define JOL 25
#endif
#ifndef JHL
#define JHL 3
#endif
#ifndef JH
#define JH 3
#endif
__device__ __forceinline__ int group_threads() {
  const int nt = blockDim.x;
  if (nt < 32) return nt;
  const int whole = nt / 32 * 32;
  return whole < JG ? whole : JG;
}

// A barrier over the group that also ORs p over it. One warp (or less): __syncwarp orders its
// shared-memory accesses and a vote ORs; several warps: named barrier 1 with a reduction.
#ifdef __CUDA_ARCH__
__device__ __forceinline__ int group_sync_or(int p, int ng) {
  if (ng <= 32) {
    const unsigned mask = ng == 32 ? 0xffffffffu : (1u << ng) - 1u;
    __syncwarp(mask);
    return __any_sync(mask, p);
  }
  int r;
  asm volatile("{\n\t.reg .pred q, o;\n\tsetp.ne.s32 q, %1, 0;\n\tbar.red.or.pred o, 1, %2, q;\n\tselp.s32 %0, 1, 0, o;\n\t}"
               : "=r"(r) : "r"(p), "r"(ng) : "memory");
  return r;
}
#else
inline int group_sync_or(int p, int ng) { return emu_bar_red_or(1, ng, p); }
#endif

// Player at position s of the tournament circle in round r (see chess-ordering.ts): the circle of
// players - 1 places holds arr1[1..half-1] then arr2[half-1..0] and turns one place per round.
// Both s and r lie in [0, players - 1), so one conditional add replaces the modulo.
__device__ __forceinline__ int circle_at(int s, int r, int players, int half) {
  const int len = players - 1;
  int s0 = s - r;
  if (s0 < 0) s0 += len;
  return s0 < half - 1 ? s0 + 1 : players + half - 2 - s0;
}

// Pair k of round r: (i, j) = (min, max) of its players; false for a bye or an empty slot.
__device__ __forceinline__ bool round_pair(int k, int r, int m, int players, int half, int& i, int& j) {
  const int a = k == 0 ? 0 : circle_at(k - 1, r, players, half);
  const int b = circle_at(k == 0 ? players - 2 : players - 2 - k, r, players, half);
  i = a < b ? a : b;
  j = a < b ? b : a;
  return k < half && j < m;
}

#define CMD_UPDATE 1
#define CMD_DONE 2

// What the rounds share, at the start of the dynamic shared memory (the group's functions find it
// there instead of keeping the pointers in registers).
struct JacobiShared {
  real* G;
  double* Z;
  double* E;
  double* zbound;
  real* mult;
  int* perm;
  int* lpi;
  int* lpj;
  double driftRatio;
  int m, ldg, half, ng;
  int cmd, outcome, status, decision;
  int permOff, perm2Off;  // byte offsets of perm and perm2 in the shared memory
  int xchOff;             // byte offset of register-players mode's exchange slots
};
#define JACOBI_SHARED_BYTES 128
static_assert(sizeof(JacobiShared) <= JACOBI_SHARED_BYTES, "JacobiShared outgrew its place");
__device__ __forceinline__ JacobiShared* jshared() { return (JacobiShared*)smem; }

struct RoundOut { int swaps, reductions, end; };

// One pair's size-reduction multiplier as the reference computes it, shared by both round modes:
// round(g_ij / g_ii) where |g_ij| passes the reduction limit, then the transform's overflow check
// (overflow: ovf = 1, no update, the run ends after this round) and column pj's drift scale and Z
// bound. 0 when the pair needs no reduction.
__device__ __forceinline__ real pair_multiplier(JacobiShared* sh, const real* G, int ldg, int m, int pi, int pj,
                                                int& reductions, int& ovf, int& anyMult) {
  const real gij = G[pi + pj * ldg], gii = G[pi + pi * ldg];
  if (!(fabs(gij) > reduction_limit(gii))) return 0;
  const real qq = round_half_away(gij / gii);
  const double rq = (double)qq;
  if (!transform_update_fits(sh->Z, sh->zbound, m, pi, pj, rq)) {
    ovf = 1;
    return 0;
  }
  sh->E[pj] = fmax(sh->E[pj], rq * rq * sh->E[pi]);
  sh->zbound[pj] = (sh->zbound[pj] + fabs(rq) * sh->zbound[pi]) * (1.0 + 1.0 / 1125899906842624.0);
  reductions++;
  anyMult = 1;
  return qq;
}

// Posts pair k's multiplier and columns for phases b and c (slots k >= half hold no pair).
__device__ __forceinline__ void post_pair(JacobiShared* sh, int k, int half, real rk, int pi, int pj) {
  if (k < half) { sh->mult[k] = rk; sh->lpi[k] = pi; sh->lpj[k] = pj; }
}

// Phases b and c of a round in which a pair has a multiplier: the leader posts the command, the
// other warps (waiting at a block barrier) join, and the whole block updates G and Z.
__device__ __forceinline__ void call_in_update(JacobiShared* sh, real* G, int ldg, int m, int half, bool leader) {
  if (leader) sh->cmd = CMD_UPDATE;
  block_sync();  // the command: the other warps join phases b and c
  update_phases(G, sh->Z, sh->mult, sh->lpi, sh->lpj, ldg, m, half);
}

// A whole round with size reductions (rare on large bases), by the threads that run the rounds:
// multipliers, the transform's overflow check and the drift scales as the reference does them,
// phases b and c by the whole block (the other warps are called in), then the drift test and the
// swaps on the updated norms. end: OUTCOME_OVERFLOW / OUTCOME_DRIFT when the sweep ends after
// this round (the same in every thread). P (GroupPairs, WarpPairs) says where a thread's pairs
// are and how the threads meet:
//   begin(sh)                        reads what it needs from the shared header
//   slot(q)                          the slot k of the thread's pair q
//   pair(q, k, m, half, i, j, pi, pj)  whether slot k holds a pair, setting what the mode knows
//                                    of it then (logical columns i, j, or perm entries pi, pj;
//                                    pi = pj = 0 for no pair)
//   entries(i, j, pi, pj)            the rest of a live pair's perm entries
//   any(p), leader(), after_update() p ORed over the threads; who posts the update command; what
//                                    follows phases b and c
//   swap(q, i, j, pi, pj, sw)        phase d's swap where sw; returns sw
template <class P>
__device__ __forceinline__ RoundOut reduction_round_by(P& p) {
  JacobiShared* sh = jshared();
  real* G = sh->G;
  const int m = sh->m, ldg = sh->ldg, half = sh->half;
  p.begin(sh);
  RoundOut o;
  o.swaps = 0; o.reductions = 0; o.end = 0;
  int ovf = 0, anyMult = 0;
  real rk[JQ];
  int pi[JQ], pj[JQ], li[JQ], lj[JQ];
  bool live[JQ];
#pragma unroll
  for (int q = 0; q < JQ; q++) {
    const int k = p.slot(q);
    live[q] = p.pair(q, k, m, half, li[q], lj[q], pi[q], pj[q]);
    rk[q] = 0;
    if (live[q]) {
      p.entries(li[q], lj[q], pi[q], pj[q]);
      rk[q] = pair_multiplier(sh, G, ldg, m, pi[q], pj[q], o.reductions, ovf, anyMult);
    }
    post_pair(sh, k, half, rk[q], pi[q], pj[q]);
  }
  ovf = p.any(ovf);
  if (p.any(anyMult)) call_in_update(sh, G, ldg, m, half, p.leader());
  p.after_update();
  int drift = 0;
  const double driftRatio = sh->driftRatio;
#pragma unroll
  for (int q = 0; q < JQ; q++) {
    if (!live[q]) continue;
    const real gii = G[pi[q] + pi[q] * ldg], gjj = G[pj[q] + pj[q] * ldg];
    if (rk[q] != 0 && !((double)gjj > sh->E[pj[q]] * driftRatio)) drift = 1;
    // phase d: swaps through the permutation
    if (p.swap(q, li[q], lj[q], pi[q], pj[q], gii > gjj)) o.swaps++;
  }
  drift = p.any(drift);
  o.end = ovf ? OUTCOME_OVERFLOW : drift ? OUTCOME_DRIFT : 0;
  return o;
}

// The group's pairs in reduction_round_by: thread t's pair q in slot q ng + t, pair k of round r
// in closed form (round_pair), its perm entries from the permutation cur, the swaps written to next.
struct GroupPairs {
  int r;
  const int* cur;
  int* next;
  int ng, t;
  __device__ __forceinline__ void begin(const JacobiShared* sh) { ng = sh->ng; t = threadIdx.x; }
  __device__ __forceinline__ int slot(int q) const { return q * ng + t; }
  __device__ __forceinline__ bool pair(int, int k, int m, int half, int& i, int& j, int& pi, int& pj) const {
    pi = 0; pj = 0;
    return round_pair(k, r, m, 2 * half, half, i, j);
  }
  __device__ __forceinline__ void entries(int i, int j, int& pi, int& pj) const { pi = cur[i]; pj = cur[j]; }
  __device__ __forceinline__ int any(int p) const { return group_sync_or(p, ng); }
  __device__ __forceinline__ bool leader() const { return t == 0; }
  __device__ __forceinline__ void after_update() const {}
  __device__ __forceinline__ bool swap(int, int i, int j, int pi, int pj, bool sw) const {
    next[i] = sw ? pj : pi;
    next[j] = sw ? pi : pj;
    return sw;
  }
};

// A round with size reductions by the group, on the permutation cur (the swaps go to next).
__device__ __noinline__ RoundOut reduction_round(int r, const int* cur, int* next) {
  GroupPairs p;
  p.r = r; p.cur = cur; p.next = next;
  return reduction_round_by(p);
}

// Counts of one call of the sweeps (per thread).
struct MasterCounts { int sweeps, swaps, reductions; };

// The bookkeeping of one refresh's sweeps, alike in every round mode: the sweeps run so far
// (against maxIterations), this thread's swaps and size reductions, whether the current sweep
// changed anything, and the status and outcome the other warps are released with.
struct SweepTally {
  int sweeps, swaps = 0, reductions = 0, changed = 0, status = STATUS_OK, outcome = OUTCOME_UNCHANGED;
  // Whether maxIterations sweeps have run (status ITERATION_LIMIT then).
  __device__ __forceinline__ bool at_limit(int maxIterations) {
    if (sweeps < maxIterations) return false;
    status = STATUS_ITERATION_LIMIT;
    return true;
  }
  // Starts a sweep.
  __device__ __forceinline__ void start() {
    sweeps++;
    changed = 0;
    outcome = OUTCOME_UNCHANGED;
  }
  // n swaps in a round without size reductions.
  __device__ __forceinline__ void add_swaps(int n) {
    swaps += n;
    if (n) changed = 1;
  }
  // A round with size reductions (RoundOut, WarpRoundOut).
  template <class R>
  __device__ __forceinline__ void add(const R& o) {
    swaps += o.swaps;
    reductions += o.reductions;
    if (o.swaps || o.reductions) changed = 1;
  }
  // Posts the outcome and status (the leader), releases the other warps, returns the counts.
  __device__ __forceinline__ MasterCounts finish(JacobiShared* sh, bool leader) const {
    if (leader) { sh->cmd = CMD_DONE; sh->outcome = outcome; sh->status = status; }
    block_sync();
    return MasterCounts{sweeps, swaps, reductions};
  }
};

// A player of the register-resident modes: (logical column << 16) | physical column (perm entry).
#define PLAYER(s) ((int)((s) >> 16))
#define PHYS(s) ((int)((s) & 0xffffu))

// Writes two players' perm entries (a player past m, the dummy of odd m, has none).
__device__ __forceinline__ void put_players(int* perm, int m, unsigned a, unsigned b) {
  const int La = PLAYER(a), Lb = PLAYER(b);
  if (La < m) perm[La] = PHYS(a);
  if (Lb < m) perm[Lb] = PHYS(b);
}

// The sweeps of one refresh, by the group. The permutation is double-buffered (perm, perm2): a
// round reads cur and writes every player's entry, swapped or not, to next, and the barrier that
// ORs the reduction tests over the group also orders those writes before the next round's reads.
// On return the permutation is in perm and the outcome and status in the shared words, and the
// other warps are released. GS: G lies at the start of the shared memory after JacobiShared
// (derived from smem here, so that its loads are shared-memory loads with 32-bit addresses),
// else at Gglobal.
template <bool GS>
__device__ __noinline__ MasterCounts group_sweeps(const real* Gglobal, int maxIterations, int sweeps) {
  JacobiShared* sh = jshared();
  const real* G = GS ? (const real*)(smem + JACOBI_SHARED_BYTES) : Gglobal;
  const int t = threadIdx.x;
  const int m = sh->m, ldg = sh->ldg, half = sh->half, ng = sh->ng;
  const int players = 2 * half, rounds = players - 1;
  // the two perm arrays through offsets from smem: shared-memory accesses, 32-bit addresses
  int curOff = sh->permOff, nextOff = sh->perm2Off;
  SweepTally tally{sweeps};
  do {
    if (tally.at_limit(maxIterations)) break;
    tally.start();
    // the pairs of the next round are computed ahead (before the barrier that ends a round)
    int pairI[JQ], pairJ[JQ];
    bool plive[JQ];
#pragma unroll
    for (int q = 0; q < JQ; q++) plive[q] = round_pair(q * ng + t, 0, m, players, half, pairI[q], pairJ[q]);
    for (int r = 0; r < rounds; r++) {
      int* cur = (int*)(smem + curOff);
      int* next = (int*)(smem + nextOff);
      // phase a: the reduction test of every pair (no pair of the round shares a column), and
      // phase d's swap decision on the same (so far unchanged) norms, into next
      int anyRed = 0, swaps = 0;
#pragma unroll
      for (int q = 0; q < JQ; q++) {
        const int i = pairI[q], j = pairJ[q];
        const int k = q * ng + t;
        const bool live = plive[q];
        if (live) {
          const int pi = cur[i], pj = cur[j];
          const real gij = G[pi + pj * ldg], gii = G[pi + pi * ldg], gjj = G[pj + pj * ldg];
          anyRed |= fabs(gij) > reduction_limit(gii);
          const bool sw = gii > gjj;
          next[i] = sw ? pj : pi;
          next[j] = sw ? pi : pj;
          swaps += sw;
        } else if (k < half) {
          if (i < m) next[i] = cur[i];  // a bye: the real player keeps its entry
          if (j < m) next[j] = cur[j];
        }
      }
      if (r + 1 < rounds) {
#pragma unroll
        for (int q = 0; q < JQ; q++) plive[q] = round_pair(q * ng + t, r + 1, m, players, half, pairI[q], pairJ[q]);
      }
      if (!group_sync_or(anyRed, ng)) {
        tally.add_swaps(swaps);
      } else {
        // a round with size reductions: redone from cur
        const RoundOut o = reduction_round(r, cur, next);
        tally.add(o);
        if (o.end) { tally.outcome = o.end; const int x = curOff; curOff = nextOff; nextOff = x; break; }
      }
      const int x = curOff; curOff = nextOff; nextOff = x;
    }
    if (tally.outcome == OUTCOME_UNCHANGED && group_sync_or(tally.changed, ng)) tally.outcome = OUTCOME_CHANGED;
  } while (tally.outcome == OUTCOME_CHANGED);
  // the permutation into perm, then the other warps are released
  if (curOff != sh->permOff) {
    const int* cur = (const int*)(smem + curOff);
    int* perm = (int*)(smem + sh->permOff);
    for (int c = t; c < m; c += ng) perm[c] = cur[c];
  }
  return tally.finish(sh, t == 0);
}

// ---- register-players mode (ROUNDS_GROUP_REGISTER_PLAYERS, a group of up to JG threads, one pair per thread): the players in
// registers. Thread k holds pair k of the round: its two players as (logical column << 16) | perm
// entry, with their norms G(p, p) beside them (G's diagonal changes only in a round with a size
// reduction, after which every norm is reloaded). A round without a size reduction reads one entry
// of G per thread (G(pi, pj) for the test; the swap is decided on the carried norms) and no
// permutation array: each thread writes its two players after the swap to exchange slots in shared
// memory (double-buffered by the round's parity), the round's one group barrier (which also ORs the
// tests) orders them, and each thread reads its next players from its neighbours' slots. No
// shuffles and no divergent branches on that path. A round with a size reduction writes the
// permutation as it stands to perm and is redone by reduction_round (as in shared-permutation mode), whose result in
// perm2 gives the players' new entries. Exchange slots: [parity][arr1, arr2][JG] words, then as
// many reals (the host sizes them: 16 JG + 4 JG sizeof(real) bytes).
struct RegState { unsigned a, b; real da, db; };

// Phase a's test and phase d's swap for state s (the norms as carried): red = the reduction test,
// sw = the swap; returns the state after the swap. G(pi, pj) is read by every thread (the entries
// of a non-live slot are valid columns), so that the warp does not diverge.
__device__ __forceinline__ RegState reg_test(const RegState& s, const real* G, int ldg, int m, bool mine, int& red, bool& sw) {
  const int La = PLAYER(s.a), Lb = PLAYER(s.b);
  const bool aFirst = La < Lb;
  const int pi = PHYS(aFirst ? s.a : s.b), pj = PHYS(aFirst ? s.b : s.a);
  const real dii = aFirst ? s.da : s.db, djj = aFirst ? s.db : s.da;
  const bool live = mine && La < m && Lb < m;
  const real gij = G[pi + pj * ldg];
  red = live && fabs(gij) > reduction_limit(dii);
  sw = live && dii > djj;
  RegState n;
  n.a = sw ? (s.a & 0xffff0000u) | (s.b & 0xffffu) : s.a;
  n.b = sw ? (s.b & 0xffff0000u) | (s.a & 0xffffu) : s.b;
  n.da = sw ? s.db : s.da;
  n.db = sw ? s.da : s.db;
  return n;
}

// What both register-resident sweep loops (reg_sweeps, halo_sweeps) take from the block's shared
// header: G (in shared memory when GS, else global), the sizes, the two permutation arrays and the
// exchange slots (players, then their norms).
struct SweepView {
  const real* G;
  int m, ldg, half, ng, rounds;
  int* perm;
  int* perm2;
  unsigned* xu;
  real* xd;
};
template <bool GS>
__device__ __forceinline__ SweepView sweep_view(const JacobiShared* sh, const real* Gglobal) {
  return SweepView{GS ? (const real*)(smem + JACOBI_SHARED_BYTES) : Gglobal, sh->m, sh->ldg, sh->half, sh->ng, 2 * sh->half - 1,
                   (int*)(smem + sh->permOff), (int*)(smem + sh->perm2Off), (unsigned*)(smem + sh->xchOff),
                   (real*)(smem + sh->xchOff + 16 * JG)};
}

template <bool GS>
__device__ __noinline__ MasterCounts reg_sweeps(const real* Gglobal, int maxIterations, int sweeps) {
  JacobiShared* sh = jshared();
  const auto [G, m, ldg, half, ng, rounds, perm, perm2, xu, xd] = sweep_view<GS>(sh, Gglobal);
  const int t = threadIdx.x;
  const bool mine = t < half;
  // where the next players come from: thread k takes arr1 from k - 1 (thread 1: arr2 of thread
  // 0) and arr2 from k + 1; thread 0 keeps its arr1, thread half - 1 takes its own arr1 as arr2
  const int fromA = t == 1 ? JG : t > 0 ? t - 1 : 0;
  const int fromB = JG + (t + 1 < ng ? t + 1 : t);  // (slots past the group are never written)
  const bool keepA = t == 0 || half < 2, ownB = t == half - 1 || half < 2;
  // the players of the first round: arr1[k] = k, arr2[k] = k + half; threads past half hold none
  RegState s;
  {
    const int a = mine ? t : 0xffff, b = mine ? t + half : 0xffff;
    const int pa = a < m ? perm[a] : 0, pb = b < m ? perm[b] : 0;
    s.a = ((unsigned)a << 16) | (unsigned)pa;
    s.b = ((unsigned)b << 16) | (unsigned)pb;
    s.da = G[pa + pa * ldg];
    s.db = G[pb + pb * ldg];
  }
  SweepTally tally{sweeps};
  do {
    if (tally.at_limit(maxIterations)) break;
    tally.start();
    for (int r = 0; r < rounds; r++) {
      int red;
      bool sw;
      RegState post = reg_test(s, G, ldg, m, mine, red, sw);
      const int xo = (r & 1) * 2 * JG;
      xu[xo + t] = post.a; xd[xo + t] = post.da;
      xu[xo + JG + t] = post.b; xd[xo + JG + t] = post.db;
      if (!group_sync_or(red, ng)) {
        if (sw) tally.add_swaps(1);
      } else {
        // a round with size reductions: redone from the permutation before it
        const int La = PLAYER(s.a), Lb = PLAYER(s.b);
        const bool live = mine && La < m && Lb < m;
        if (mine) put_players(perm, m, s.a, s.b);
        const RoundOut o = reduction_round(r, perm, perm2);
        tally.add(o);
        // the players' entries after the round, every norm reloaded (G changed)
        const int pa = live ? perm2[La] : PHYS(s.a), pb = live ? perm2[Lb] : PHYS(s.b);
        post.a = (s.a & 0xffff0000u) | (unsigned)pa;
        post.b = (s.b & 0xffff0000u) | (unsigned)pb;
        post.da = G[pa + pa * ldg];
        post.db = G[pb + pb * ldg];
        if (o.end) { tally.outcome = o.end; s = post; break; }
        xu[xo + t] = post.a; xd[xo + t] = post.da;
        xu[xo + JG + t] = post.b; xd[xo + JG + t] = post.db;
        group_sync_or(0, ng);
      }
      // the tournament turns
      const unsigned ua = xu[xo + fromA], ub = xu[xo + fromB];
      const real da = xd[xo + fromA], db = xd[xo + fromB];
      s.a = keepA ? post.a : ua;
      s.da = keepA ? post.da : da;
      s.b = ownB ? (half < 2 ? post.b : post.a) : ub;
      s.db = ownB ? (half < 2 ? post.db : post.da) : db;
    }
    if (tally.outcome == OUTCOME_UNCHANGED && group_sync_or(tally.changed, ng)) tally.outcome = OUTCOME_CHANGED;
  } while (tally.outcome == OUTCOME_CHANGED);
  // the permutation into perm, then the other warps are released
  if (mine) put_players(perm, m, s.a, s.b);
  return tally.finish(sh, t == 0);
}

// ---- halo mode (ROUNDS_GROUP_HALO, a group of JG / 32 whole warps): several rounds per group barrier. Lane l
// of warp w holds JL consecutive pairs, p = w JP - JHL JL + l JL + j (j < JL): the warp owns the JP =
// JOL JL pairs of its lanes JHL .. JHL + JOL - 1 and holds, besides, the JHL JL pairs on either
// side of them (a halo). A round without a size reduction changes no norm, and its swaps are
// decided on the carried norms alone, so a warp can run up to JH <= JHL JL rounds in a row on its
// own: each pair swaps its players on their norms, then the tournament turns (arr1 from the pair
// before, arr2 from the pair after, across lanes by two shuffles each way; pair 0 keeps arr1[0]
// and hands its arr2 on as the next arr1[1], pair half - 1 takes its own arr1 as arr2). After q
// rounds a pair depends on the pairs within q of it, so the halo goes stale from its edges inward
// while the owned pairs stay exact for JHL JL rounds. Every owned pair loads its G(pi, pj) in every
// round and tests it in the next (the load's latency off the round's chain) into a bit per round;
// then the owners write their players to exchange slots, one group barrier ORs the tests, and
// every lane reloads its pairs (halo included) from the slots. A block of rounds with a reduction
// is redone: the first round with one is found (one barrier per bit), the rounds before it are
// run again from the block's start (kept in registers), the permutation is written as it stands
// and reduction_round (shared-permutation mode's) runs that round; its result goes through the slots, turned to the
// next round. Blocks do not cross a sweep's end. The dummy player of odd m carries an infinite
// norm (never swapped: it is always the pair's higher column). Slots as register-players mode: [parity][arr1,
// arr2][JG] words, then as many reals, indexed by pair. (JL, JOL, JHL, JH: with the group's defines above.)
#define JP (JOL * JL)

__device__ __forceinline__ real inf_norm() { return (real)__longlong_as_double(0x7ff0000000000000LL); }

// The players of a lane's JL pairs.
struct HaloState { unsigned a[JL], b[JL]; real da[JL], db[JL]; };

// One round of halo mode on a lane's pairs (s: their players at the round's start; p0: the lane's
// first pair). TEST: the owned pairs' G(pi, pj) loaded into g / lim / ok (tested by the caller
// in the next round); swaps: the owned pairs' swaps. Then the turn.
template <bool TEST>
__device__ __forceinline__ void halo_round(HaloState& s, const real* G, int ldg, int m, int p0, int half, int lane,
                                           unsigned ownMask, real (&g)[JL], real (&lim)[JL], unsigned& ok, int& swaps) {
  HaloState n;
#pragma unroll
  for (int j = 0; j < JL; j++) {
    const bool aFirst = s.a[j] < s.b[j];  // the logical columns are the high halves and differ
    const real dlo = aFirst ? s.da[j] : s.db[j], dhi = aFirst ? s.db[j] : s.da[j];
    const bool sw = dlo > dhi;  // (false for a bye: the dummy's norm is infinite)
    if (TEST) {
      const unsigned lo = aFirst ? s.a[j] : s.b[j], hi = aFirst ? s.b[j] : s.a[j];
      const bool mine = (ownMask >> j) & 1u;
      const int pi = PHYS(lo), pj = PHYS(hi);
      g[j] = mine ? G[pi + pj * ldg] : (real)0;
      lim[j] = reduction_limit(dlo);
      if (mine && PLAYER(hi) < m) ok |= 1u << j;
    }
    if (((ownMask >> j) & 1u) && sw) swaps++;
    n.a[j] = sw ? (s.a[j] & 0xffff0000u) | (s.b[j] & 0xffffu) : s.a[j];
    n.b[j] = sw ? (s.b[j] & 0xffff0000u) | (s.a[j] & 0xffffu) : s.b[j];
    n.da[j] = sw ? s.db[j] : s.da[j];
    n.db[j] = sw ? s.da[j] : s.db[j];
  }
  // the turn: arr1 moves to the next pair, arr2 to the pair before
  const bool first = JL == 1 && p0 == 0 && half >= 2;  // (JL > 1: pair 0 is a lane's j = 0, pair 1 its j = 1)
  const unsigned sendA = first ? n.b[0] : n.a[JL - 1];
  const real sendDa = first ? n.db[0] : n.da[JL - 1];
  const int up = lane > 0 ? lane - 1 : 0, down = lane < 31 ? lane + 1 : 31;
  const unsigned ua = __shfl_sync(0xffffffffu, sendA, up);
  const real uda = __shfl_sync(0xffffffffu, sendDa, up);
  const unsigned ub = __shfl_sync(0xffffffffu, n.b[0], down);
  const real udb = __shfl_sync(0xffffffffu, n.db[0], down);
#pragma unroll
  for (int j = 0; j < JL; j++) {
    const int p = p0 + j;
    if (half < 2) { s.a[j] = n.a[j]; s.da[j] = n.da[j]; s.b[j] = n.b[j]; s.db[j] = n.db[j]; continue; }
    const bool keepA = p == 0, fromB = JL > 1 && p == 1, ownB = p == half - 1;
    const unsigned pa = j == 0 ? ua : fromB ? n.b[j > 0 ? j - 1 : 0] : n.a[j > 0 ? j - 1 : 0];
    const real pda = j == 0 ? uda : fromB ? n.db[j > 0 ? j - 1 : 0] : n.da[j > 0 ? j - 1 : 0];
    s.a[j] = keepA ? n.a[j] : pa;
    s.da[j] = keepA ? n.da[j] : pda;
    const unsigned nb = j == JL - 1 ? ub : n.b[j < JL - 1 ? j + 1 : 0];
    const real ndb = j == JL - 1 ? udb : n.db[j < JL - 1 ? j + 1 : 0];
    s.b[j] = ownB ? n.a[j] : nb;
    s.db[j] = ownB ? n.da[j] : ndb;
  }
}

// The tests loaded in the previous round: bit q of red where an owned pair of round q reduces.
__device__ __forceinline__ void halo_test(const real (&g)[JL], const real (&lim)[JL], unsigned ok, int q, unsigned& red) {
#pragma unroll
  for (int j = 0; j < JL; j++)
    if (((ok >> j) & 1u) && fabs(g[j]) > lim[j]) red |= 1u << q;
}

// Slot writes and reads of a lane's pairs (o: the parity's offset).
__device__ __forceinline__ void halo_store(const HaloState& s, unsigned* xu, real* xd, int o, int p0, unsigned mask) {
#pragma unroll
  for (int j = 0; j < JL; j++)
    if ((mask >> j) & 1u) { const int p = p0 + j; xu[o + p] = s.a[j]; xd[o + p] = s.da[j]; xu[o + JG + p] = s.b[j]; xd[o + JG + p] = s.db[j]; }
}

template <bool GS>
__device__ __noinline__ MasterCounts halo_sweeps(const real* Gglobal, int maxIterations, int sweeps) {
  JacobiShared* sh = jshared();
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  const auto [G, m, ldg, half, ng, rounds, perm, perm2, xu, xd] = sweep_view<GS>(sh, Gglobal);
  const int p0 = w * JP - JHL * JL + lane * JL;  // this lane's first pair
  const bool ownLane = lane >= JHL && lane < JHL + JOL;
  unsigned validMask = 0, ownMask = 0;
#pragma unroll
  for (int j = 0; j < JL; j++) {
    if (p0 + j >= 0 && p0 + j < half) validMask |= 1u << j;
  }
  if (ownLane) ownMask = validMask;
  // the players of the first round: arr1[k] = k, arr2[k] = k + half; slots without a pair hold
  // players past every column (never live, physical column 0, infinite norms)
  HaloState s;
#pragma unroll
  for (int j = 0; j < JL; j++) {
    const bool v = (validMask >> j) & 1u;
    const int a = v ? p0 + j : 0xffff, b = v ? p0 + j + half : 0xffff;
    const int pa = a < m ? perm[a] : 0, pb = b < m ? perm[b] : 0;
    s.a[j] = ((unsigned)a << 16) | (unsigned)pa;
    s.b[j] = ((unsigned)b << 16) | (unsigned)pb;
    s.da[j] = a < m ? G[pa + pa * ldg] : inf_norm();
    s.db[j] = b < m ? G[pb + pb * ldg] : inf_norm();
  }
  SweepTally tally{sweeps};
  int par = 0;
  do {
    if (tally.at_limit(maxIterations)) break;
    tally.start();
    for (int r = 0; r < rounds;) {
      const int hb = rounds - r < JH ? rounds - r : JH;
      const HaloState s0 = s;
      unsigned red = 0, ok = 0;
      real g[JL], lim[JL];
#pragma unroll
      for (int j = 0; j < JL; j++) { g[j] = 0; lim[j] = 0; }
      int swaps = 0;
      for (int q = 0; q < hb; q++) {
        const unsigned okPrev = ok;
        real gPrev[JL], limPrev[JL];
#pragma unroll
        for (int j = 0; j < JL; j++) { gPrev[j] = g[j]; limPrev[j] = lim[j]; }
        ok = 0;
        halo_round<true>(s, G, ldg, m, p0, half, lane, ownMask, g, lim, ok, swaps);
        if (q > 0) halo_test(gPrev, limPrev, okPrev, q - 1, red);
      }
      halo_test(g, lim, ok, hb - 1, red);
      const int xo = par * 2 * JG;
      halo_store(s, xu, xd, xo, p0, ownMask);
      if (!group_sync_or(red != 0, ng)) {
#pragma unroll
        for (int j = 0; j < JL; j++) {
          if ((validMask >> j) & 1u) { const int p = p0 + j; s.a[j] = xu[xo + p]; s.da[j] = xd[xo + p]; s.b[j] = xu[xo + JG + p]; s.db[j] = xd[xo + JG + p]; }
        }
        tally.add_swaps(swaps);
        r += hb;
      } else {
        // the first round of the block with a reduction: r + r0
        int r0 = 0;
        while (!group_sync_or((red >> r0) & 1u, ng)) r0++;
        s = s0;
        swaps = 0;
        for (int q = 0; q < r0; q++) halo_round<false>(s, G, ldg, m, p0, half, lane, ownMask, g, lim, ok, swaps);
        tally.add_swaps(swaps);
#pragma unroll
        for (int j = 0; j < JL; j++)
          if ((ownMask >> j) & 1u) put_players(perm, m, s.a[j], s.b[j]);
        group_sync_or(0, ng);  // the permutation written before reduction_round reads it
        const RoundOut o = reduction_round(r + r0, perm, perm2);
        tally.add(o);
        // the owned pairs' players after the round, every norm reloaded (G changed)
#pragma unroll
        for (int j = 0; j < JL; j++) {
          if ((ownMask >> j) & 1u) {
            const int La = PLAYER(s.a[j]), Lb = PLAYER(s.b[j]);
            const bool live = La < m && Lb < m;
            const int pa = live ? perm2[La] : PHYS(s.a[j]), pb = live ? perm2[Lb] : PHYS(s.b[j]);
            s.a[j] = (s.a[j] & 0xffff0000u) | (unsigned)pa;
            s.b[j] = (s.b[j] & 0xffff0000u) | (unsigned)pb;
            s.da[j] = La < m ? G[pa + pa * ldg] : inf_norm();
            s.db[j] = Lb < m ? G[pb + pb * ldg] : inf_norm();
          }
        }
        if (o.end) { tally.outcome = o.end; break; }
        halo_store(s, xu, xd, xo, p0, ownMask);
        group_sync_or(0, ng);
        // the turn through the slots: arr1 from pair p - 1 (pair 1: pair 0's arr2; pair 0 keeps its
        // own), arr2 from pair p + 1 (pair half - 1: its own arr1)
#pragma unroll
        for (int j = 0; j < JL; j++) {
          if ((validMask >> j) & 1u) {
            const int p = p0 + j;
            const int ia = p == 0 || half < 2 ? xo + p : p == 1 ? xo + JG : xo + p - 1;
            const int ib = p == half - 1 || half < 2 ? (half < 2 ? xo + JG + p : xo + p) : xo + JG + p + 1;
            s.a[j] = xu[ia]; s.da[j] = xd[ia];
            s.b[j] = xu[ib]; s.db[j] = xd[ib];
          }
        }
        r += r0 + 1;
      }
      par ^= 1;
    }
    if (tally.outcome == OUTCOME_UNCHANGED && group_sync_or(tally.changed, ng)) tally.outcome = OUTCOME_CHANGED;
  } while (tally.outcome == OUTCOME_CHANGED);
  // the permutation into perm, then the other warps are released
#pragma unroll
  for (int j = 0; j < JL; j++)
    if ((ownMask >> j) & 1u) put_players(perm, m, s.a[j], s.b[j]);
  return tally.finish(sh, t == 0);
}

// ---- first-warp mode (ROUNDS_FIRST_WARP, for up to 64 pairs): the first warp alone runs the rounds, JQ pairs per
// lane in registers, the tournament turned by shuffles, no barrier in a round without a
// multiplier. (Shared-permutation mode, above, spreads a round over up to four warps at one barrier per round:
// faster from about 100 pairs on, where one warp's issue rate limits first-warp mode.)

// The pairs a lane of the first warp holds: slot k = lane JQ + q holds pair k of the round, its
// arr1 player in a[q], its arr2 player in b[q].
struct Slots { unsigned a[JQ], b[JQ]; };
struct WarpRoundOut { Slots s; int swaps, reductions, end; };

// The pair in slot (a, b): (i, j) = (min, max) of the logical columns, pi / pj their perm entries;
// false for a bye or an empty slot.
__device__ __forceinline__ bool slot_pair(unsigned a, unsigned b, int k, int half, int m, int& pi, int& pj) {
  const int ia = PLAYER(a), ib = PLAYER(b);
  const bool aFirst = ia < ib;
  pi = aFirst ? PHYS(a) : PHYS(b);
  pj = aFirst ? PHYS(b) : PHYS(a);
  const bool live = k < half && ia < m && ib < m;
  if (!live) { pi = 0; pj = 0; }
  return live;
}

// Exchanges the perm entries of the slot's two players (a swap through the permutation array).
__device__ __forceinline__ void slot_swap(unsigned& a, unsigned& b) {
  const unsigned x = a;
  a = (a & 0xffff0000u) | (b & 0xffffu);
  b = (b & 0xffff0000u) | (x & 0xffffu);
}

// The first warp's pairs in reduction_round_by: lane l's pair q in slot l JQ + q, held in s (the
// swaps exchange the slot's perm entries there).
struct WarpPairs {
  Slots s;
  int lane;
  unsigned wmask;
  __device__ __forceinline__ void begin(const JacobiShared*) {
    const int W = blockDim.x < 32 ? blockDim.x : 32;
    lane = threadIdx.x;
    wmask = W == 32 ? 0xffffffffu : (1u << W) - 1u;
  }
  __device__ __forceinline__ int slot(int q) const { return lane * JQ + q; }
  __device__ __forceinline__ bool pair(int q, int k, int m, int half, int&, int&, int& pi, int& pj) const {
    return slot_pair(s.a[q], s.b[q], k, half, m, pi, pj);
  }
  __device__ __forceinline__ void entries(int, int, int&, int&) const {}
  __device__ __forceinline__ int any(int p) const { return __any_sync(wmask, p); }
  __device__ __forceinline__ bool leader() const { return lane == 0; }
  __device__ __forceinline__ void after_update() const { __syncwarp(wmask); }
  __device__ __forceinline__ bool swap(int q, int, int, int, int, bool sw) {
    if (sw) slot_swap(s.a[q], s.b[q]);
    return sw;
  }
};

// A round with size reductions by the first warp (its W = min(32, blockDim.x) lanes), on the
// slots s; returns them after the round.
__device__ __noinline__ WarpRoundOut warp_reduction_round(Slots s) {
  WarpPairs p;
  p.s = s;
  const RoundOut o = reduction_round_by(p);
  return WarpRoundOut{p.s, o.swaps, o.reductions, o.end};
}


// The sweeps of one refresh, by the first warp (its W = min(32, blockDim.x) lanes); on return the
// permutation is back in perm and the outcome and status in the shared words, and the other warps
// are released.
// GS: G lies at the start of the shared memory after JacobiShared (derived from smem here, so
// that its loads are shared-memory loads with 32-bit addresses), else at Gglobal.
template <bool GS>
__device__ __noinline__ MasterCounts warp_sweeps(const real* Gglobal, int maxIterations, int sweeps) {
  JacobiShared* sh = jshared();
  const real* G = GS ? (const real*)(smem + JACOBI_SHARED_BYTES) : Gglobal;
  const int lane = threadIdx.x;
  const int m = sh->m, ldg = sh->ldg, half = sh->half, W = blockDim.x < 32 ? blockDim.x : 32;
  const int rounds = 2 * half - 1;
  const unsigned wmask = W == 32 ? 0xffffffffu : (1u << W) - 1u;
  const int lastLane = (half - 1) / JQ, lastQ = (half - 1) - lastLane * JQ;
  Slots s;
  {
    const int* perm = sh->perm;
#pragma unroll
    for (int q = 0; q < JQ; q++) {
      const int k = lane * JQ + q;
      const int a = k < half ? k : 0, b = k < half ? k + half : 0;
      s.a[q] = ((unsigned)a << 16) | (unsigned)(a < m ? perm[a] : 0);
      s.b[q] = ((unsigned)b << 16) | (unsigned)(b < m ? perm[b] : 0);
    }
  }
  SweepTally tally{sweeps};
  do {
    if (tally.at_limit(maxIterations)) break;
    tally.start();
    for (int r = 0; r < rounds; r++) {
      // phase a: the reduction test of every pair (no pair of the round shares a column)
      int anyRed = 0;
      bool sw[JQ];
#pragma unroll
      for (int q = 0; q < JQ; q++) {
        int pi, pj;
        const bool live = slot_pair(s.a[q], s.b[q], lane * JQ + q, half, m, pi, pj);
        const real gij = G[pi + pj * ldg], gii = G[pi + pi * ldg], gjj = G[pj + pj * ldg];
        anyRed |= live && fabs(gij) > reduction_limit(gii);
        sw[q] = live && gii > gjj;
      }
      if (__any_sync(wmask, anyRed)) {
        const WarpRoundOut o = warp_reduction_round(s);
        s = o.s;
        tally.add(o);
        if (o.end) { tally.outcome = o.end; break; }
      } else {
        // phase d: swaps through the permutation (G unchanged)
#pragma unroll
        for (int q = 0; q < JQ; q++) {
          if (sw[q]) { slot_swap(s.a[q], s.b[q]); tally.add_swaps(1); }
        }
      }
      // the tournament turns: arr2[0] -> arr1[1] -> ... -> arr1[half-1] -> arr2[half-1] -> ...
      // -> arr2[0], arr1[0] fixed
      if (half >= 2) {
        const unsigned prevA = __shfl_sync(wmask, s.a[JQ - 1], lane > 0 ? lane - 1 : 0);
        const unsigned nextB = __shfl_sync(wmask, s.b[0], lane + 1 < W ? lane + 1 : W - 1);
        const unsigned b0 = __shfl_sync(wmask, s.b[0], 0);
        unsigned mine = 0;
#pragma unroll
        for (int q = 0; q < JQ; q++) if (q == lastQ) mine = s.a[q];
        const unsigned aLast = __shfl_sync(wmask, mine, lastLane);
        Slots t;
#pragma unroll
        for (int q = 0; q < JQ; q++) {
          const int k = lane * JQ + q;
          const unsigned before = q == 0 ? prevA : s.a[q > 0 ? q - 1 : 0];
          const unsigned after = q == JQ - 1 ? nextB : s.b[q < JQ - 1 ? q + 1 : 0];
          t.a[q] = k == 0 ? s.a[q] : k == 1 ? b0 : before;
          t.b[q] = k == half - 1 ? aLast : after;
        }
        s = t;
      }
    }
    if (tally.outcome == OUTCOME_UNCHANGED && __any_sync(wmask, tally.changed)) tally.outcome = OUTCOME_CHANGED;
  } while (tally.outcome == OUTCOME_CHANGED);
  // the permutation back to shared memory, then the other warps are released
  int* perm = sh->perm;
#pragma unroll
  for (int q = 0; q < JQ; q++)
    if (lane * JQ + q < half) put_players(perm, m, s.a[q], s.b[q]);
  return tally.finish(sh, lane == 0);
}

// Launch bounds (the host passes its block size and blocks per multiprocessor): a single basis
// runs JT = 512 threads with up to 128 registers each (no spills in the rounds' code), batches
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
    int* __restrict__ stats,        // batch x STATS_WIDTH, zero on entry
    int n, int m, int maxIterations, int gInShared, int zInShared, int stageRows, int preGram) {
  const int basis = blockIdx.x;
  const int tid = threadIdx.x;
  const int nt = blockDim.x;
  const int ldg = m | 1;  // odd leading dimension: a row's elements fall in different banks
  const int players = m + (m & 1);
  const int half = players / 2;
  const int NG = ROUNDS_FIRST_WARP ? (nt < 32 ? nt : 32) : group_threads();  // the threads that run the rounds

  // shared layout (jacobiParallelPlan in cuda.ts sizes it): [JacobiShared (128 bytes)][G][Z]
  //   [stage (stageRows x stage_ld(m) reals)][E (m doubles)][zbound (m doubles)][lg (m doubles)]
  //   [mult (half reals)][perm (m)][perm2 (m)][lpi (half)][lpj (half)][xch (register-players mode's slots, 16-aligned)]
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
  int* lpj = (int*)p; p += (size_t)half * sizeof(int);
  unsigned char* xch = smem + (((size_t)(p - smem) + 15) & ~(size_t)15);

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
  if (JQ * NG < half) kernel_trap();  // the host compiled too few slots per thread
  if (ROUNDS_GROUP_REGISTER_PLAYERS && (JQ != 1 || NG > JG)) kernel_trap();  // register-players mode: one pair per thread, JG slots
  // halo mode: JG / 32 whole warps of JOL owned and 2 JHL halo lanes, JL pairs a lane, covering every
  // pair; at most as many rounds per barrier as the halo holds
  if (ROUNDS_GROUP_HALO && (JQ != 1 || NG != JG || JG % 32 != 0 || JP * (JG / 32) < half || JH < 1 || JH > 32 || JH > JHL * JL || JOL + 2 * JHL > 32)) kernel_trap();

  // integer input whose Gram entries stay small updates G exactly: no drift test then
  int nonInteger = 0;
  if (preGram) {
    // G came from jacobi_gram (same sums) in Gscratch: copied into shared memory where it lives
    // there; B scanned for non-integers (eight loads in flight per thread)
    // (both in one loop: sixteen loads in flight per thread)
    const real* Gp = Gscratch + (size_t)basis * m * ldg;
    const int ge = gInShared ? m * ldg : 0, be = n * m, top = ge > be ? ge : be;
    for (int e0 = 0; e0 < top; e0 += 8 * nt) {
      real v[8], b[8];
#pragma unroll
      for (int u = 0; u < 8; u++) {
        const int e = e0 + u * nt + tid;
        v[u] = e < ge ? Gp[e] : (real)0;
        b[u] = e < be ? B0[e] : (real)0;
      }
#pragma unroll
      for (int u = 0; u < 8; u++) {
        const int e = e0 + u * nt + tid;
        if (e < ge) G[e] = v[u];
        if (!(isfinite(b[u]) && b[u] == floor(b[u]))) nonInteger = 1;
      }
    }
  } else {
    gram(B0, G, ldg, n, m, stage, stageRows, &nonInteger);
  }
  const int anyNonInteger = __syncthreads_or(nonInteger);
  // the logs of the norms in parallel (their sum, the potential, is needed only at the first
  // refresh: thread 0 adds them in column order there); whether a norm is zero or not finite and
  // whether every norm is below the exact-integer limit, ORed over the block
  int badNorm = 0, bigNorm = 0;
  for (int c = tid; c < m; c += nt) {
    const real d = G[c + c * ldg];
    const double g = (double)d;
    E[c] = g;
    lg[c] = g > 0 ? log(g) : quiet_nan();
    if (!isfinite(d) || d == 0) badNorm = 1;
    if (!(g < exact_gram_limit((real)0))) bigNorm = 1;
  }
  const int anyBad = __syncthreads_or(badNorm);
  const int small = !__syncthreads_or(bigNorm);
  double potential = 0, bestPotential = 0;
  if (tid == 0) {
    // the first zero or non-finite norm, in column order (as the CPU reference reports it)
    int bad = 0;
    for (int c = 0; c < m && anyBad && !bad; c++) {
      const real d = G[c + c * ldg];
      if (!isfinite(d)) bad = STATUS_NON_FINITE; else if (d == 0) bad = STATUS_ZERO_VECTOR;
      if (bad) { st[3] = bad; st[4] = c; }
    }
    const int decision = bad ? -1 : (!anyNonInteger && small);
    sh->G = G; sh->Z = Z; sh->E = E; sh->zbound = zbound; sh->mult = mult; sh->perm = perm; sh->lpi = lpi; sh->lpj = lpj;
    sh->driftRatio = decision ? 0.0 : drift_ratio((real)0);
    sh->m = m; sh->ldg = ldg; sh->half = half; sh->ng = NG;
    sh->permOff = (int)((unsigned char*)perm - smem); sh->perm2Off = (int)((unsigned char*)perm2 - smem);
    sh->xchOff = (int)(xch - smem);
    sh->decision = decision;
  }
  __syncthreads();
  if (sh->decision < 0) return;
  const double driftRatio = sh->driftRatio;

  int sweeps = 0, mySwaps = 0, myReductions = 0;
  int stalls = 0;
  for (int refresh = 0;; refresh++) {
    int passReductions = 0;  // this thread's size reductions since the last refresh
    if (tid < NG) {
      // the group runs the sweeps
      const MasterCounts c = ROUNDS_FIRST_WARP
          ? (gInShared ? warp_sweeps<true>(G, maxIterations, sweeps) : warp_sweeps<false>(G, maxIterations, sweeps))
          : ROUNDS_GROUP_REGISTER_PLAYERS
          ? (gInShared ? reg_sweeps<true>(G, maxIterations, sweeps) : reg_sweeps<false>(G, maxIterations, sweeps))
          : ROUNDS_GROUP_HALO
          ? (gInShared ? halo_sweeps<true>(G, maxIterations, sweeps) : halo_sweeps<false>(G, maxIterations, sweeps))
          : (gInShared ? group_sweeps<true>(G, maxIterations, sweeps) : group_sweeps<false>(G, maxIterations, sweeps));
      sweeps = c.sweeps;
      mySwaps += c.swaps;
      myReductions += c.reductions;
      passReductions = c.reductions;
    } else {
      // the other warps: phases b and c of the rounds that have multipliers
      for (;;) {
        block_sync();
        if (sh->cmd == CMD_DONE) break;
        update_phases(G, Z, mult, lpi, lpj, ldg, m, half);
      }
    }
    const int outcome = sh->outcome, status = sh->status;
    if (status != STATUS_OK) { if (tid == 0) st[3] = status; break; }

    // Z in logical order and B = B_in Z; with no size reduction since the identity (the first
    // pass), Z is the identity and Zo its columns permuted: out(:, j) = 0 + B_in(:, perm[j])
    const int anyReductions = __syncthreads_or(passReductions);
    if (refresh == 0 && !anyReductions) permuted_copy(B0, perm, Zo, B1, n, m);
    else gather_times_z(B0, Z, perm, Zo, B1, n, m);
    __syncthreads();  // B1 and Zo written before a refresh reads them
    if (outcome == OUTCOME_OVERFLOW) break;
    // converged on a G that is exactly B's Gram matrix (only swaps since it was computed from a
    // basis, or exact integer arithmetic): the result is final
    if (!anyReductions && outcome == OUTCOME_UNCHANGED) break;
    if (outcome == OUTCOME_UNCHANGED && driftRatio == 0) break;
    // refresh: G from the new basis, E = diag(G), working Z = logical Z, identity permutation,
    // and the bounds on |Z| recomputed from Z itself (the first: the potential of the input's
    // norms first, from their logs)
    if (refresh == 0 && tid == 0) {
      for (int c = 0; c < m; c++) potential += lg[c];
      bestPotential = potential;
    }
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

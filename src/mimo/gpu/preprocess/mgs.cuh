// Modified Gram-Schmidt QR of small real matrices in shared memory (the N-way paper's Alg. 1), as
// device routines for any MIMO kernel: one thread per column, several QRs ("groups") per block so
// that warps are full. The CPU counterpart is src/mimo/preprocess/qr.ts (qrInto for the plain and
// the sorted QR, mgsInPlace for the extended matrix [H~ | y~]); it makes the same operations in the
// same order (column i scaled by 1/|v_i|, then for every later column d = q_i . v_k, v_k -= d q_i,
// SQRD's residual downdate res_k -= d^2), in float32.
//
// Thread mapping. A QR of a ROWS x NFACT matrix, with NCOLS - NFACT further columns (e.g. y~) that
// are only projected (E[:, k] = Q^T v_k, V[:, k] their residual), takes NCOLS threads: thread k of
// the group owns physical column k (it loaded it, it updates it). Group g of a block is threads
// [g NCOLS, (g + 1) NCOLS); a block of G groups has G * NCOLS threads (or more: the rest pass
// active = false). A thread keeps its column in registers; each step i is ONE __syncthreads (two
// with SORTED): the pivot's owner writes |v_p| and q_i = v_p / |v_p| (to its V column and Q), then
// the owners of the later columns read q_i (a shared-memory broadcast), take their dot products and
// update their columns. So EVERY thread of the block must call mgs_factor (uniform control flow),
// including threads without a column (active false).
//
// Shared-memory layout (floats; MgsLayout below computes it). For a block of G groups, region by
// region, group g's part of each region at g * (its size):
//   V      G x NCOLS x MGS_LD(ROWS): column-major, leading dimension ROWS | 1 (odd), so that the
//          32 threads of a warp, owning 32 consecutive columns across groups, hit 32 distinct
//          banks when they walk their columns row by row (the paper's odd row length);
//   E      G x NFACT x NCOLS: column-major by PHYSICAL column, E[i + k NFACT] = row i of column k
//          (row i = step i; R = E with its columns put in pivot order, see mgs_phys);
//   orig   G x NCOLS: each column's norm before the QR;
//   res    G x 2 NCOLS: SQRD residual squared norms, double-buffered by step parity;
//   colOf  G x 2 NFACT (int): SQRD position -> physical column, double-buffered by step parity.
// (res and colOf are only used with SORTED; the layout keeps them so that offsets do not depend on it.)
//
// Orders.
//   - Unsorted (SORTED = false): the columns in the order loaded, as qrInto(.., 'none'): position i
//     is physical column i. The N-way detector's passes load the MRVD channel with its streams
//     rotated (mgs_load_mrvd, rotation p: column pair (2c, 2c+1) = Re, Im of stream (c + p) mod nt;
//     one column per stream for BPSK), exactly search.ts's rotatedStreams + dimOrderOfStreams.
//   - Sorted (SORTED = true): qrInto(.., 'ascending'), SQRD: at step i the remaining column of least
//     residual squared norm goes to position i (ties: the first in position order, positions
//     permuted by the earlier swaps exactly as qrInto swaps them). mgs_phys(colOf, j) is the
//     physical column at position j after the QR, i.e. qrInto's perm[j] when the columns were
//     loaded in natural order.
//
// Flags: mgs_factor returns, in every active thread, MGS_RANK_DEFICIENT (= MIMO_STATUS.RANK_DEFICIENT)
// when a pivot's residual norm is zero or not finite, and MGS_FLOAT32_UNSAFE (= MIMO_STATUS.FLOAT32_UNSAFE)
// when it is at most MGS_UNSAFE_REL of the column's original norm (float32 cannot carry that
// channel's QR; the engine redoes it on the CPU in float64, whose own tolerance decides rank).
// A flagged QR still runs to the end (with 1/norm replaced by 0 where norm is 0), so no NaN spreads
// and every thread meets every barrier.

#ifndef MIMO_MGS_CUH
#define MIMO_MGS_CUH

#define MGS_RANK_DEFICIENT 8
#define MGS_FLOAT32_UNSAFE 16
#ifndef MGS_UNSAFE_REL
#define MGS_UNSAFE_REL 2.44140625e-4f  // 2^-12: condition numbers past ~4000 lose float32's decisions
#endif

#define MGS_LD(rows) ((rows) | 1)

// Offsets (in floats) of the regions for G groups, and of group g's part of each.
template <int ROWS, int NFACT, int NCOLS>
struct MgsLayout {
  static constexpr int LD = MGS_LD(ROWS);
  static constexpr int V_FLOATS = NCOLS * LD;
  static constexpr int E_FLOATS = NFACT * NCOLS;
  // floats per group, all regions together
  static constexpr int GROUP_FLOATS = V_FLOATS + E_FLOATS + NCOLS + 2 * NCOLS + 2 * NFACT;
  float* V;
  float* E;
  float* orig;
  float* res;
  int* colOf;
  __device__ MgsLayout(float* base, int groups, int g) {
    V = base + g * V_FLOATS;
    float* e = base + groups * V_FLOATS;
    E = e + g * E_FLOATS;
    float* o = e + groups * E_FLOATS;
    orig = o + g * NCOLS;
    float* r = o + groups * NCOLS;
    res = r + g * 2 * NCOLS;
    colOf = (int*)(r + groups * 2 * NCOLS) + g * 2 * NFACT;
  }
};

// The physical column at position j after a QR of NFACT steps (j itself when unsorted).
template <int NFACT, bool SORTED>
__device__ __forceinline__ int mgs_phys(const int* colOf, int j) {
  return SORTED ? colOf[(NFACT & 1) * NFACT + j] : j;
}

// Column k of the real MRVD matrix (search.ts's fillRealMatrix with dimOrderOfStreams(rotatedStreams(nt, rot)))
// of the complex NR x NT channel at H (column-major, interleaved re, im), into col (ROWS = 2 NR floats).
// DPS = 2 (square QAM: columns 2c, 2c+1 are Re, Im of stream (c + rot) mod NT, scaled by `scale`)
// or 1 (BPSK: column c is h_{(c + rot) mod NT} (1 + j) / sqrt2).
template <int NR, int NT, int DPS>
__device__ __forceinline__ void mgs_load_mrvd(float* col, const float* H, int k, int rot, float scale) {
  const int c = k / DPS, part = k - c * DPS;
  int j = c + rot;
  if (j >= NT) j -= NT;
  const float* h = H + 2 * j * NR;
#pragma unroll
  for (int i = 0; i < NR; i++) {
    const float hr0 = h[2 * i], hi0 = h[2 * i + 1];
    if (DPS == 1) {
      col[2 * i] = (hr0 - hi0) * 0.70710678118654752f;
      col[2 * i + 1] = (hr0 + hi0) * 0.70710678118654752f;
    } else {
      const float hr = hr0 * scale, hi = hi0 * scale;
      col[2 * i] = part ? -hi : hr;
      col[2 * i + 1] = part ? hr : hi;
    }
  }
}

// The QR of the group whose shared regions `L` points to (MgsLayout), thread k of the group owning
// physical column k (0 <= k < NCOLS; active = false for a thread without a column). Before the call
// each column must be in V, written by its owner (or followed by a barrier). Q (optional, may be
// null; shared or global, leading dimension qld) receives q_i in column i (position order). After the
// call (its last step ends with a barrier): E = [R | Q^T V_extra] by physical column (mgs_phys),
// V[:, NFACT ..) the extra columns' residuals (V's factored columns hold their q). Returns the flags
// (every active thread the same).
//
// Each thread keeps its column in registers. Step i: the pivot's owner normalizes it (norm into E,
// q_i into its V column and Q); a barrier; every later column reads q_i and the norm from shared
// memory, takes d = q_i . v_k and v_k -= d q_i. The other threads' values are the owner's, so the
// numbers are those of every thread normalizing the pivot itself. SORTED adds a barrier a step (the
// next pivot is chosen from the residuals the step wrote).
template <int ROWS, int NFACT, int NCOLS, bool SORTED>
__device__ int mgs_factor(const MgsLayout<ROWS, NFACT, NCOLS>& L, float* Q, int qld, int k, bool active) {
  static_assert(NFACT >= 1 && NCOLS >= NFACT && ROWS >= NFACT, "mgs_factor needs ROWS >= NFACT and NCOLS >= NFACT");
  constexpr int LD = MGS_LD(ROWS);
  float* V = L.V;
  float* mine = V + k * LD;
  float v[ROWS];
  int flags = 0;
  if (active) {
    float nn = 0.f;
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      v[r] = mine[r];
      nn += v[r] * v[r];
    }
    const float o = sqrtf(nn);
    L.orig[k] = o;
    if (SORTED && k < NFACT) {
      L.res[k] = o * o;
      L.colOf[k] = k;
    }
  }
  __syncthreads();
  bool done = false;
#pragma unroll 1
  for (int i = 0; i < NFACT; i++) {
    const int rb = (i & 1) * NCOLS, wb = ((i + 1) & 1) * NCOLS;
    int p = i;
    if (active) {
      if (SORTED) {
        const int* from = L.colOf + (i & 1) * NFACT;
        int best = i;
        float bestVal = L.res[rb + from[i]];
        for (int j = i + 1; j < NFACT; j++) {
          const float x = L.res[rb + from[j]];
          if (x < bestVal) { bestVal = x; best = j; }
        }
        p = from[best];
        if (k == 0) {
          int* to = L.colOf + ((i + 1) & 1) * NFACT;
          for (int j = 0; j < NFACT; j++) to[j] = from[j];
          to[best] = from[i];
          to[i] = p;
        }
      }
      if (k == p) {
        done = true;
        float nn = 0.f;
#pragma unroll
        for (int r = 0; r < ROWS; r++) nn += v[r] * v[r];
        const float norm = sqrtf(nn);
        const float s = norm > 0.f ? 1.f / norm : 0.f;
        L.E[i + k * NFACT] = norm;
#pragma unroll
        for (int r = 0; r < ROWS; r++) {
          const float q = v[r] * s;
          mine[r] = q;
          if (Q) Q[r + i * qld] = q;
        }
      }
    }
    __syncthreads();
    if (active) {
      const float norm = L.E[i + p * NFACT];
      if (!(norm > 0.f) || !(norm <= 3.0e38f)) flags |= MGS_RANK_DEFICIENT;
      else if (!(norm > MGS_UNSAFE_REL * L.orig[p])) flags |= MGS_FLOAT32_UNSAFE;
      if (!done) {
        const float* qp = V + p * LD;
        float q[ROWS];
        float d = 0.f;
#pragma unroll
        for (int r = 0; r < ROWS; r++) {
          q[r] = qp[r];
          d += q[r] * v[r];
        }
        L.E[i + k * NFACT] = d;
#pragma unroll
        for (int r = 0; r < ROWS; r++) v[r] = v[r] - d * q[r];
        if (SORTED && k < NFACT) L.res[wb + k] = L.res[rb + k] - d * d;
      }
    }
    if (SORTED) __syncthreads();
  }
  // the extra columns' residuals
  if (active && !done) {
#pragma unroll
    for (int r = 0; r < ROWS; r++) mine[r] = v[r];
  }
  __syncthreads();
  return flags;
}

#endif

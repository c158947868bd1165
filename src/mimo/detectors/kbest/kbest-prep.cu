// K-best preprocessing: the MRVD real matrix of each channel and its sorted QR (SQRD, weakest real
// dimension first, a stream's real part before its imaginary part where their residuals tie), in
// double with -fmad=false exactly as qrInto(..., 'ascending', pairs) in src/mimo/preprocess/qr.ts
// computes it, so that the column order (which K-best's decisions depend on) is the CPU engine's;
// Q and R are then stored as float32 for the search. Launched by cuda.ts (kbestPrepLaunch).
//
// PREP_LANES lanes of a warp a channel (a power of two >= ND): lane d holds real dimension d's column,
// its residual and its column of R in registers for the whole factorisation, and a pivot choice is
// a reduction over the group's lanes; a thread a channel would hold the whole matrix in local memory.
//
// nvcc-variant: -fmad=false -DNR=4 -DNT=4 -DND=8 -DROWS=8 -DDPS=2 -DQL=4 -DPREP_LANES=8 -DMIMO_COMPILE_CHECK
// nvcc-variant: -fmad=false -DNR=2 -DNT=2 -DND=2 -DROWS=4 -DDPS=1 -DQL=2 -DPREP_LANES=2 -DMIMO_COMPILE_CHECK

#include "real-model.cuh"
#include "../qr-double.cuh"

#define PREP_FULL 0xffffffffu

// Pivot candidates are ranked by (rank, value, tie): rank 0 is the pivot position's own NaN residual
// (the sequential scan keeps it), 1 a number, 2 a NaN elsewhere, 3 no candidate.
__device__ __forceinline__ bool prep_better(int rankA, double vA, int tieA, int rankB, double vB, int tieB) {
  if (rankA != rankB) return rankA < rankB;
  if (rankA == 1 && vA != vB) return vA < vB;
  return tieA < tieB;
}

// Per channel: Qout ROWS x ND and Rout ND x ND (float32, column-major), info 1 + ND ints: the
// channel's status flags (0, or MIMO_RANK_DEFICIENT / MIMO_FLOAT32_UNSAFE) and perm (column k
// holds real dimension perm[k]). Every lane of a warp takes part in every exchange (no early exit).
extern "C" __global__ void kbest_prep(const float* __restrict__ H, float* __restrict__ Qout, float* __restrict__ Rout,
                                      int* __restrict__ info, int channels, double scale) {
  const int lane = threadIdx.x & 31;
  const int dim = lane & (PREP_LANES - 1);
  const int base = lane - dim;
  const int c = (int)((blockIdx.x * blockDim.x + threadIdx.x) / PREP_LANES);
  const bool live = c < channels && dim < ND;
  double col[ROWS], rcol[ND];
  for (int r = 0; r < ROWS; r++) col[r] = 0;
  if (live) real_model_fill_column(H + (size_t)c * 2 * NR * NT, scale, dim, col);
  double nn = 0;
  for (int r = 0; r < ROWS; r++) nn += col[r] * col[r];
  const double orig = sqrt(nn);
  double res = orig * orig;
  for (int i = 0; i < ND; i++) rcol[i] = 0;
  int pos = dim, flags = 0;
  bool taken = false, stopped = false;
  unsigned chosen = 0;  // real dimensions taken so far (the same in every lane of the group)
#pragma unroll
  for (int i = 0; i < ND; i++) {
    // The least residual; with two dimensions a stream (DPS = 2) and the dimensions taken so far
    // whole streams, a stream's real and imaginary columns tie in exact arithmetic: they count as
    // one column of the lesser of the two, and equal residuals go to the least dimension (qrInto's
    // `pairs`); otherwise equal residuals go to the first position.
    const unsigned swapped = ((chosen & 0x55555555u) << 1) | ((chosen >> 1) & 0x55555555u);
    const bool whole = DPS == 2 && swapped == chosen;
    double v = res;
    if (DPS == 2) {
      const double partner = __shfl_sync(PREP_FULL, res, base + (dim ^ 1));
      if (whole && partner < v) v = partner;
    }
    int rank = !live || taken || stopped ? 3 : v == v ? 1 : pos == i ? 0 : 2;
    int tie = whole ? dim : pos, who = dim;
    for (int off = PREP_LANES / 2; off > 0; off >>= 1) {
      const int oRank = __shfl_xor_sync(PREP_FULL, rank, off), oTie = __shfl_xor_sync(PREP_FULL, tie, off);
      const int oWho = __shfl_xor_sync(PREP_FULL, who, off);
      const double oV = __shfl_xor_sync(PREP_FULL, v, off);
      if (prep_better(oRank, oV, oTie, rank, v, tie)) { rank = oRank; v = oV; tie = oTie; who = oWho; }
    }
    const int best = who, src = base + best;
    // the pivot moves to position i, the column there to the pivot's old position
    const int bestPos = __shfl_sync(PREP_FULL, pos, src);
    double pn = 0;
    for (int r = 0; r < ROWS; r++) pn += col[r] * col[r];
    const double norm = __shfl_sync(PREP_FULL, sqrt(pn), src), bestOrig = __shfl_sync(PREP_FULL, orig, src);
    if (!stopped) {
      if (pos == i) pos = bestPos;
      if (dim == best) pos = i;
      if (!(norm > RANK_TOL * bestOrig)) { flags = MIMO_RANK_DEFICIENT; stopped = true; }
      else if (!(norm > FLOAT32_TOL * bestOrig)) flags = MIMO_FLOAT32_UNSAFE;
    }
    if (!stopped && dim == best) {
      rcol[i] = norm;
      const double s = 1 / norm;
      for (int r = 0; r < ROWS; r++) col[r] = col[r] * s;
      taken = true;
    }
    double q[ROWS];
    for (int r = 0; r < ROWS; r++) q[r] = __shfl_sync(PREP_FULL, col[r], src);
    if (!stopped && live && !taken) {
      double d = 0;
      for (int r = 0; r < ROWS; r++) d += q[r] * col[r];
      rcol[i] = d;
      for (int r = 0; r < ROWS; r++) col[r] = col[r] - d * q[r];
      res = res - d * d;
    }
    chosen |= 1u << best;
    if (flags != 0) stopped = true;  // the sequential loop ends at the first flag
  }
  if (!live) return;
  float* q = Qout + (size_t)c * ROWS * ND + (size_t)pos * ROWS;
  float* rr = Rout + (size_t)c * ND * ND + (size_t)pos * ND;
  for (int r = 0; r < ROWS; r++) q[r] = (float)col[r];
  for (int i = 0; i < ND; i++) rr[i] = (float)rcol[i];
  int* inf = info + (size_t)c * (1 + ND);
  if (dim == 0) inf[0] = flags;
  inf[1 + pos] = dim;
}

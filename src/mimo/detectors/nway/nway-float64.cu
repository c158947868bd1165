// The N-way (and SSFE) detector in double: the GPU engine's redo of vectors whose channel float32
// cannot carry (FLOAT32_UNSAFE; or RANK_DEFICIENT in float32), in place of a round trip to the CPU
// engine. Operation for operation the CPU engine's nway (nway/cpu.ts, ssfe/search.ts,
// preprocess/qr.ts, soft/maxlog.ts) on the same scaled inputs, compiled with -fmad=false, so that
// symbols and LLRs are the CPU engine's bit for bit.
//
// Per vector (item v of the launch; the host scaled H, y and N0 by the CPU engine's power of two),
// NW64_G threads a pass (QL when ND >= 2, else 1), PASSES passes, VPB vectors a block:
//   1. the first thread of pass p (streams rotated by p) forms the MRVD real matrix in that column
//      order, its MGS QR (qrInto 'none'; a column whose residual is not above RANK_TOL of its norm:
//      the vector gets the status flag RANK_DEFICIENT and nothing else, the host hands it to the CPU
//      engine), 1 / R_ii and z = Q^T y, into shared memory;
//   2. thread g of the pass searches the QL paths whose first level is g (SSFE: first two levels
//      fully expanded, then round-and-clip), in path order; each candidate lowers the vector's
//      hypothesis / counter-hypothesis minima (BitMetricMinima: a min, so any order gives the same
//      numbers; atomicMin on the bits of metrics >= 0); the thread keeps its first least candidate;
//   3. the vector's first thread takes the first least of the threads' bests in (pass, path) order
//      (the CPU's strict < over passes, then paths) and writes its symbols, the clipped max-log LLRs
//      (writeLlr) and the node count.
//
// Inputs (double, per vector): H (NR x NT complex, column-major, interleaved), y (NR complex), N0.
// Outputs: symbols (NT int32), llr (NT x BPS double, stream-major; when SOFT), status (2 int32:
// flags, nodes visited as the CPU counts them).
// -D parameters: NR, NT, ND, ROWS, DPS, QL, BPS (real-model.cuh; labels MSB-first), PASSES, VPB,
// SOFT, MIMO_RANK_DEFICIENT, and SYM_OF_LEVELS in the source's first line (withSymbolTable).
// Dynamic shared memory: VPB x NW64_SHARED_BYTES (nwayFloat64Shape in cuda.ts computes the same).
//
// nvcc-variant: -fmad=false -DNR=4 -DNT=4 -DND=8 -DROWS=8 -DDPS=2 -DQL=8 -DBPS=6 -DPASSES=4 -DVPB=2 -DSOFT=1 -DMIMO_COMPILE_CHECK
// nvcc-variant: -fmad=false -DNR=2 -DNT=1 -DND=1 -DROWS=4 -DDPS=1 -DQL=2 -DBPS=1 -DPASSES=1 -DVPB=32 -DSOFT=0 -DMIMO_COMPILE_CHECK

#include "../kbest/real-model.cuh"
#include "../qr-double.cuh"

#define NW64_M (1 << BPS)
#define NW64_INF __longlong_as_double(0x7ff0000000000000LL)
#define NW64_PATHS (ND >= 2 ? QL * QL : QL)
// threads a pass: one per first-level point (each its QL paths), one when there is a single level
#define NW64_G (ND >= 2 ? QL : 1)
#define NW64_T (PASSES * NW64_G)
// shared memory of a vector (8-byte words): the minima's bits, each pass's R, 1/R_ii, z and flag,
// each thread's best metric and symbols
#define NW64_PASS_WORDS (ND * ND + 2 * ND + 1)
#define NW64_THREAD_WORDS (1 + (NT + 1) / 2)
#define NW64_WORDS (NT * NW64_M + PASSES * NW64_PASS_WORDS + NW64_T * NW64_THREAD_WORDS)
#define NW64_SHARED_BYTES (8 * NW64_WORDS)

// The symbol indices of a path's column levels, column c (pair) holding stream (c + pass) mod NT.
__device__ __forceinline__ void nw64_symbols(const int* lev, int pass, int* sym) {
  for (int c = 0; c < NT; c++) {
    const int s = (c + pass) % NT;
    sym[s] = DPS == 2 ? c_symbolOfLevels[lev[2 * c] * QL + lev[2 * c + 1]] : c_symbolOfLevels[lev[c]];
  }
}

// One candidate into the vector's minima (bits of metrics >= 0 order as the metrics) and the thread's best.
__device__ __forceinline__ void nw64_add(const int* sym, double d, unsigned long long* minBits, double& best, int* bestSym) {
  if (d < best) {
    best = d;
    for (int j = 0; j < NT; j++) bestSym[j] = sym[j];
  }
  const unsigned long long bits = (unsigned long long)__double_as_longlong(d);
  for (int j = 0; j < NT; j++) atomicMin(&minBits[j * NW64_M + sym[j]], bits);
}

extern "C" __global__ void nway_float64(const double* __restrict__ Hin, const double* __restrict__ yin, const double* __restrict__ noise,
                                        int* __restrict__ symbols, double* __restrict__ llr, int* __restrict__ status, int count, double scale, double clip) {
  extern __shared__ unsigned char smem[];
  const int t = threadIdx.x % NW64_T, slot = threadIdx.x / NW64_T;
  const int pass = t / NW64_G, g = t % NW64_G;
  const int v = blockIdx.x * VPB + slot;
  double* words = (double*)(smem + (size_t)slot * NW64_SHARED_BYTES);
  unsigned long long* minBits = (unsigned long long*)words;
  double* passWords = words + NT * NW64_M + pass * NW64_PASS_WORDS;
  double* R = passWords;
  double* invDiag = R + ND * ND;
  double* z = invDiag + ND;
  double* passFlag = z + ND;
  double* threadWords = words + NT * NW64_M + PASSES * NW64_PASS_WORDS;
  const int m = ROWS, n = ND, half = QL - 1;
  for (int i = t; i < NT * NW64_M; i += NW64_T) minBits[i] = 0x7ff0000000000000ULL;
  if (g == 0 && v < count) {
    // dimOrderOfStreams(rotatedStreams(NT, pass)), the real matrix in that order, qrInto 'none', applyQt
    const double* H = Hin + (size_t)v * 2 * NR * NT;
    const double* y = yin + (size_t)v * ROWS;
    double Q[ROWS * ND], orig[ND];
    int dimOf[ND];
    for (int c = 0; c < NT; c++) for (int part = 0; part < DPS; part++) dimOf[c * DPS + part] = ((c + pass) % NT) * DPS + part;
    real_model_fill_order(H, scale, dimOf, Q);
    for (int k = 0; k < n; k++) {
      double nn = 0;
      for (int r = 0; r < m; r++) nn += Q[r + k * m] * Q[r + k * m];
      orig[k] = sqrt(nn);
      for (int i = 0; i < n; i++) R[i + k * n] = 0;
    }
    int flag = 0;
    for (int i = 0; i < n && !flag; i++) {
      const double norm = qr_double_norm(Q, m, i);
      if (!(norm > RANK_TOL * orig[i])) { flag = MIMO_RANK_DEFICIENT; break; }
      qr_double_normalise(Q, m, R, norm, i);
      for (int k = i + 1; k < n; k++) qr_double_project(Q, m, R, i, k);
    }
    *passFlag = (double)flag;
    if (!flag) {
      for (int i = 0; i < n; i++) invDiag[i] = 1 / R[i + i * n];
      for (int k = 0; k < n; k++) {
        double d = 0;
        for (int r = 0; r < m; r++) d += Q[r + k * m] * y[r];
        z[k] = d;
      }
    }
  }
  __syncthreads();
  double best = NW64_INF;
  int bestSym[NT], sym[NT], lev[ND];
  for (int j = 0; j < NT; j++) bestSym[j] = 0;
  if (v < count && *passFlag == 0) {
    // ssfeSearch's paths i0 = g: k = g QL + i1 for i1 = 0 .. QL-1 (all QL paths when ND == 1)
    if (ND == 1) {
      for (int k = 0; k < QL; k++) {
        const double e = z[0] - R[0] * (double)(2 * k - half);
        lev[0] = k;
        nw64_symbols(lev, pass, sym);
        nw64_add(sym, e * e, minBits, best, bestSym);
      }
    } else {
      const int top = ND - 1, second = ND - 2, i0 = g;
      const double pa = (double)(2 * i0 - half);
      double zTop[ND], p[ND];
      for (int i = 0; i < top; i++) zTop[i] = z[i] - R[i + top * n] * pa;
      const double rTopTop = R[top + top * n], rSecSec = R[second + second * n];
      const double eTop = z[top] - rTopTop * (double)(2 * i0 - half);
      for (int i1 = 0; i1 < QL; i1++) {
        const double pb = (double)(2 * i1 - half);
        double d = eTop * eTop;
        double e = zTop[second] - rSecSec * (double)(2 * i1 - half);
        d += e * e;
        for (int i = second - 1; i >= 0; i--) {
          double b = zTop[i] - R[i + second * n] * pb;
          for (int j = i + 1; j < second; j++) b -= R[i + j * n] * p[j];
          // clipped in double: gamma can pass the int range on a nearly singular channel
          double gm = floor((b * invDiag[i] + (double)half) * 0.5 + 0.5);
          if (gm < 0) gm = 0; else if (gm > (double)half) gm = (double)half;
          const int li = (int)gm;
          const double pi = (double)(2 * li - half);
          p[i] = pi;
          lev[i] = li;
          e = b - R[i + i * n] * pi;
          d += e * e;
        }
        lev[second] = i1;
        lev[top] = i0;
        nw64_symbols(lev, pass, sym);
        nw64_add(sym, d, minBits, best, bestSym);
      }
    }
  }
  double* mine = threadWords + t * NW64_THREAD_WORDS;
  mine[0] = best;
  int* mineSym = (int*)(mine + 1);
  for (int j = 0; j < NT; j++) mineSym[j] = bestSym[j];
  __syncthreads();
  if (t != 0 || v >= count) return;
  int flag = 0;
  for (int q = 0; q < PASSES; q++) flag |= (int)words[NT * NW64_M + q * NW64_PASS_WORDS + ND * ND + 2 * ND];
  if (flag) {
    status[2 * v] = flag;
    status[2 * v + 1] = 0;
    return;
  }
  // the first least candidate in (pass, path) order: threads in (pass, first level) order
  int from = 0;
  for (int u = 1; u < NW64_T; u++) if (threadWords[u * NW64_THREAD_WORDS] < threadWords[from * NW64_THREAD_WORDS]) from = u;
  const int* winner = (const int*)(threadWords + from * NW64_THREAD_WORDS + 1);
  for (int j = 0; j < NT; j++) symbols[(size_t)v * NT + j] = winner[j];
  if (SOFT) {
    // writeLlr: (min over symbols whose bit b is 1 - min over those with 0) / N0, clipped
    const double inv = 1 / noise[v];
    for (int j = 0; j < NT; j++) {
      for (int b = 0; b < BPS; b++) {
        double d0 = NW64_INF, d1 = NW64_INF;
        for (int s = 0; s < NW64_M; s++) {
          const double x = __longlong_as_double((long long)minBits[j * NW64_M + s]);
          if ((s >> (BPS - 1 - b)) & 1) { if (x < d1) d1 = x; } else if (x < d0) d0 = x;
        }
        const double l = (d1 - d0) * inv;
        llr[((size_t)v * NT + j) * BPS + b] = l > clip ? clip : l < -clip ? -clip : l;
      }
    }
  }
  status[2 * v] = 0;
  status[2 * v + 1] = PASSES * (ND >= 2 ? QL + NW64_PATHS * (ND - 1) : NW64_PATHS * ND);
}

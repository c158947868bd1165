// The N-way (and SSFE) detector in double, a thread per pass of a received vector: the GPU engine's redo of
// vectors whose channel float32 cannot carry (FLOAT32_UNSAFE; or RANK_DEFICIENT in float32), in
// place of a round trip to the CPU engine. Operation for operation the CPU engine's nway
// (nway/cpu.ts, ssfe/search.ts, preprocess/qr.ts, soft/maxlog.ts) on the same scaled inputs, and
// compiled with -fmad=false, so that symbols and LLRs are the CPU engine's bit for bit.
//
// Per vector (item v of the launch; the host scaled H, y and N0 by the CPU engine's power of two),
// VPB vectors a block, PASSES threads a vector:
//   thread p (pass p, streams rotated by p): the MRVD real matrix in that column order, its MGS QR
//   (qrInto 'none'; a column whose residual is not above RANK_TOL of its norm: the vector gets the
//   status flag RANK_DEFICIENT and nothing else, the host hands it to the CPU engine), z = Q^T y,
//   and the SSFE search (first two levels fully expanded, then round-and-clip): its QL^2 candidates
//   go into the pass's hypothesis / counter-hypothesis minima (BitMetricMinima.add) in path order;
//   then the passes' minima are merged into shared memory in pass order (BitMetricMinima.merge),
//   and the first thread writes the best candidate's symbols and the clipped max-log LLRs (writeLlr).
//
// Inputs (double, per vector): H (NR x NT complex, column-major, interleaved), y (NR complex), N0.
// Outputs: symbols (NT int32), llr (NT x BPS double, stream-major; when SOFT), status (2 int32:
// flags, nodes visited as the CPU counts them).
// -D parameters: NR, NT, ND, ROWS, DPS, QL, BPS (real-model.cuh; labels MSB-first), PASSES, VPB,
// SOFT, MIMO_RANK_DEFICIENT, and SYM_OF_LEVELS in the source's first line (withSymbolTable).
// Dynamic shared memory: VPB x NW64_SHARED_BYTES.
//
// nvcc-variant: -fmad=false -DNR=4 -DNT=4 -DND=8 -DROWS=8 -DDPS=2 -DQL=8 -DBPS=6 -DPASSES=4 -DVPB=4 -DSOFT=1 -DMIMO_COMPILE_CHECK
// nvcc-variant: -fmad=false -DNR=2 -DNT=1 -DND=1 -DROWS=4 -DDPS=1 -DQL=2 -DBPS=1 -DPASSES=1 -DVPB=32 -DSOFT=0 -DMIMO_COMPILE_CHECK

#include "../kbest/real-model.cuh"
#include "../qr-double.cuh"

#define NW64_M (1 << BPS)
#define NW64_INF __longlong_as_double(0x7ff0000000000000LL)
#define NW64_PATHS (ND >= 2 ? QL * QL : QL)
// A vector's merged minima in shared memory: NT x M doubles, the best metric, NT symbols, a flag.
#define NW64_SHARED_BYTES (8 * (NT * NW64_M + 1) + 8 * ((NT + 2) / 2))

// One candidate (NT symbol indices, metric d) into the minima: BitMetricMinima.add.
__device__ __forceinline__ void nw64_add(const int* sym, double d, double* symbolMin, double& best, int* bestSym) {
  if (d < best) {
    best = d;
    for (int j = 0; j < NT; j++) bestSym[j] = sym[j];
  }
  for (int j = 0; j < NT; j++) {
    const int t = j * NW64_M + sym[j];
    if (d < symbolMin[t]) symbolMin[t] = d;
  }
}

// The symbol indices of a path's column levels, column c (pair) holding stream (c + pass) mod NT.
__device__ __forceinline__ void nw64_symbols(const int* lev, int pass, int* sym) {
  for (int c = 0; c < NT; c++) {
    const int s = (c + pass) % NT;
    sym[s] = DPS == 2 ? c_symbolOfLevels[lev[2 * c] * QL + lev[2 * c + 1]] : c_symbolOfLevels[lev[c]];
  }
}

extern "C" __global__ void nway_float64(const double* __restrict__ Hin, const double* __restrict__ yin, const double* __restrict__ noise,
                                        int* __restrict__ symbols, double* __restrict__ llr, int* __restrict__ status, int count, double scale, double clip) {
  extern __shared__ unsigned char smem[];
  const int pass = threadIdx.x % PASSES, slot = threadIdx.x / PASSES;
  const int v = blockIdx.x * VPB + slot;
  double* sMin = (double*)(smem + (size_t)slot * NW64_SHARED_BYTES);
  double* sBest = sMin + NT * NW64_M;
  int* sSym = (int*)(sBest + 1);
  int* sFlag = sSym + NT;
  if (pass == 0) {
    for (int t = 0; t < NT * NW64_M; t++) sMin[t] = NW64_INF;
    *sBest = NW64_INF;
    for (int j = 0; j < NT; j++) sSym[j] = 0;
    *sFlag = 0;
  }
  const int m = ROWS, n = ND, half = QL - 1;
  double symbolMin[NT * NW64_M];
  for (int t = 0; t < NT * NW64_M; t++) symbolMin[t] = NW64_INF;
  double best = NW64_INF;
  int bestSym[NT], sym[NT], lev[ND], dimOf[ND];
  for (int j = 0; j < NT; j++) bestSym[j] = 0;
  int flag = 0;
  if (v < count) {
    const double* H = Hin + (size_t)v * 2 * NR * NT;
    const double* y = yin + (size_t)v * ROWS;
    double Q[ROWS * ND], R[ND * ND], orig[ND], invDiag[ND], z[ND], p[ND];
    double zTop[ND * QL], rSecond[ND * QL];
    // dimOrderOfStreams(rotatedStreams(NT, pass)), the real matrix in that order, qrInto 'none'
    for (int c = 0; c < NT; c++) for (int part = 0; part < DPS; part++) dimOf[c * DPS + part] = ((c + pass) % NT) * DPS + part;
    real_model_fill_order(H, scale, dimOf, Q);
    for (int k = 0; k < n; k++) {
      double nn = 0;
      for (int r = 0; r < m; r++) nn += Q[r + k * m] * Q[r + k * m];
      orig[k] = sqrt(nn);
      for (int i = 0; i < n; i++) R[i + k * n] = 0;
    }
    for (int i = 0; i < n && !flag; i++) {
      const double norm = qr_double_norm(Q, m, i);
      if (!(norm > RANK_TOL * orig[i])) { flag = MIMO_RANK_DEFICIENT; break; }
      qr_double_normalise(Q, m, R, norm, i);
      for (int k = i + 1; k < n; k++) qr_double_project(Q, m, R, i, k);
    }
    if (!flag) {
      for (int i = 0; i < n; i++) invDiag[i] = 1 / R[i + i * n];
      // applyQt
      for (int k = 0; k < n; k++) {
        double d = 0;
        for (int r = 0; r < m; r++) d += Q[r + k * m] * y[r];
        z[k] = d;
      }
      // ssfeSearch, each path's candidate added as it is found (runSsfePass adds them in path order)
      if (ND == 1) {
        for (int k = 0; k < QL; k++) {
          const double e = z[0] - R[0] * (double)(2 * k - half);
          lev[0] = k;
          nw64_symbols(lev, pass, sym);
          nw64_add(sym, e * e, symbolMin, best, bestSym);
        }
      } else {
        const int top = ND - 1, second = ND - 2;
        for (int a = 0; a < QL; a++) {
          const double pa = (double)(2 * a - half);
          for (int i = 0; i < top; i++) zTop[i * QL + a] = z[i] - R[i + top * n] * pa;
          for (int i = 0; i < second; i++) rSecond[i * QL + a] = R[i + second * n] * pa;
        }
        const double rTopTop = R[top + top * n], rSecSec = R[second + second * n];
        for (int k = 0; k < QL * QL; k++) {
          const int i0 = k / QL, i1 = k - i0 * QL;
          double e = z[top] - rTopTop * (double)(2 * i0 - half);
          double d = e * e;
          e = zTop[second * QL + i0] - rSecSec * (double)(2 * i1 - half);
          d += e * e;
          for (int i = second - 1; i >= 0; i--) {
            double b = zTop[i * QL + i0] - rSecond[i * QL + i1];
            for (int j = i + 1; j < second; j++) b -= R[i + j * n] * p[j];
            // clipped in double: gamma can pass the int range on a nearly singular channel
            double g = floor((b * invDiag[i] + (double)half) * 0.5 + 0.5);
            if (g < 0) g = 0; else if (g > (double)half) g = (double)half;
            const int li = (int)g;
            const double pi = (double)(2 * li - half);
            p[i] = pi;
            lev[i] = li;
            e = b - R[i + i * n] * pi;
            d += e * e;
          }
          lev[second] = i1;
          lev[top] = i0;
          nw64_symbols(lev, pass, sym);
          nw64_add(sym, d, symbolMin, best, bestSym);
        }
      }
    }
  }
  // BitMetricMinima.merge, pass after pass: minima elementwise, the best only where strictly smaller
  for (int q = 0; q < PASSES; q++) {
    __syncthreads();
    if (pass == q && v < count) {
      if (flag) *sFlag = flag;
      for (int t = 0; t < NT * NW64_M; t++) if (symbolMin[t] < sMin[t]) sMin[t] = symbolMin[t];
      if (best < *sBest) {
        *sBest = best;
        for (int j = 0; j < NT; j++) sSym[j] = bestSym[j];
      }
    }
  }
  __syncthreads();
  if (pass != 0 || v >= count) return;
  if (*sFlag) {
    status[2 * v] = *sFlag;
    status[2 * v + 1] = 0;
    return;
  }
  for (int j = 0; j < NT; j++) symbols[(size_t)v * NT + j] = sSym[j];
  if (SOFT) {
    // writeLlr: (min over symbols whose bit b is 1 - min over those with 0) / N0, clipped
    const double inv = 1 / noise[v];
    for (int j = 0; j < NT; j++) {
      for (int b = 0; b < BPS; b++) {
        double d0 = NW64_INF, d1 = NW64_INF;
        for (int s = 0; s < NW64_M; s++) {
          const double x = sMin[j * NW64_M + s];
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

// The real-valued model of the tree searches and the lattice-aided detectors on the GPU, as
// src/mimo/soft/real-model.ts builds it on the CPU (MRVD for square QAM, one rotated dimension per
// stream for BPSK), in double so that a channel's real matrix, and what is computed from it in
// double with -fmad=false, is the CPU engine's, bit for bit, for float32 input.
// Sizes come from the including kernel's defines: NR, NT, ND (real unknowns), ROWS (2 NR), DPS
// (real dimensions per stream, 1 or 2), QL (PAM levels Q), and SYM_OF_LEVELS (the constellation's
// symbolOfLevels table as an initializer list, see below).

#ifndef MIMO_REAL_MODEL_CUH
#define MIMO_REAL_MODEL_CUH

// Status flag bits (src/mimo/gpu/status.ts: MIMO_STATUS; the host passes them as defines).
#ifndef MIMO_RANK_DEFICIENT
#define MIMO_RANK_DEFICIENT 8
#endif
#ifndef MIMO_FLOAT32_UNSAFE
#define MIMO_FLOAT32_UNSAFE 16
#endif

#define F32_INFINITY __uint_as_float(0x7f800000u)

// Math.SQRT1_2 as a double.
#define MIMO_SQRT1_2 0.70710678118654757

// Column `d` of the real matrix of the complex NR x NT channel H (column-major, interleaved; float32
// or double), scaled by `scale` (the PAM amplitude of p = 1): real dimension d's ROWS entries into
// out, as fillRealMatrix in real-model.ts builds them.
template <typename T>
__device__ __forceinline__ void real_model_fill_column(const T* __restrict__ H, double scale, int d, double* out) {
  if (DPS == 1) {
    const int base = 2 * d * NR;
    for (int i = 0; i < NR; i++) {
      const double hr = (double)H[base + 2 * i], hi = (double)H[base + 2 * i + 1];
      out[2 * i] = (hr - hi) * MIMO_SQRT1_2;
      out[2 * i + 1] = (hr + hi) * MIMO_SQRT1_2;
    }
  } else {
    const int j = d >> 1, imagPart = d & 1;
    const int base = 2 * j * NR;
    for (int i = 0; i < NR; i++) {
      const double hr = (double)H[base + 2 * i] * scale, hi = (double)H[base + 2 * i + 1] * scale;
      out[2 * i] = imagPart ? -hi : hr;
      out[2 * i + 1] = imagPart ? hr : hi;
    }
  }
}

// The whole real matrix into out (ROWS x ND, column-major), column k being real dimension dimOf[k]
// (natural order when dimOf is null).
template <typename T>
__device__ __forceinline__ void real_model_fill_order(const T* __restrict__ H, double scale, const int* dimOf, double* out) {
  for (int k = 0; k < ND; k++) real_model_fill_column(H, scale, dimOf ? dimOf[k] : k, out + k * ROWS);
}

// The real matrix in natural column order (column k is real dimension k).
__device__ __forceinline__ void real_model_fill(const float* __restrict__ H, double scale, double* out) {
  real_model_fill_order(H, scale, (const int*)nullptr, out);
}

// symbolsOfLevels: the NT symbol indices of one candidate whose column k holds level index
// lev[k], column k being real dimension dimOf[k].
// The host prepends "#define SYM_OF_LEVELS {...}" to the source (nvcc cannot take a list in -D);
// nvcc-all.mjs compiles with a placeholder table.
#ifndef SYM_OF_LEVELS
#ifdef MIMO_COMPILE_CHECK
#define SYM_OF_LEVELS {0}
#else
#error "SYM_OF_LEVELS (the constellation's symbolOfLevels table) must be defined"
#endif
#endif
__constant__ int c_symbolOfLevels[] = SYM_OF_LEVELS;

template <typename L, typename D, typename S>
__device__ __forceinline__ void real_model_symbols(const L* lev, const D* dimOf, S* out) {
  int acc[NT];
  for (int j = 0; j < NT; j++) acc[j] = 0;
  for (int k = 0; k < ND; k++) {
    const int d = dimOf[k];
    if (DPS == 1) acc[d] = lev[k];
    else acc[d >> 1] += (d & 1) ? (int)lev[k] : (int)lev[k] * QL;
  }
  for (int j = 0; j < NT; j++) out[j] = (S)c_symbolOfLevels[acc[j]];
}

#endif  // MIMO_REAL_MODEL_CUH

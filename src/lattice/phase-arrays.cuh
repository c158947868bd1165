// The per-pair and per-column arrays of an all-swap phase, carved the same way by the all-swap block
// kernels (allswap/allswap-kernel.cuh) and MB-LLL's (block/block-device.cuh); each Work struct has
// these fields, and the host's workspace sizes (allswap/cuda.ts, block/cuda.ts) count them.

#ifndef PHASE_ARRAYS_CUH
#define PHASE_ARRAYS_CUH

// From the byte pointer p on, advancing it: part (partsPerSlot * slots doubles), then norm0, dX, dMu,
// dMuNew, dC and cval (slots doubles each), then zstat (2 x 8 bytes). A macro, not a function: the
// column-owner kernel's shared-memory carving (COL_SMEM) compiles to other, spillier code when these
// steps pass through even an inlined function.
#define CARVE_PHASE_ARRAYS(w, p, partsPerSlot, slots) \
  do { \
    (w).part = (double*)(p); (p) += (size_t)(partsPerSlot) * (slots) * 8; \
    (w).norm0 = (double*)(p); (p) += (size_t)(slots) * 8; \
    (w).dX = (double*)(p); (p) += (size_t)(slots) * 8; \
    (w).dMu = (double*)(p); (p) += (size_t)(slots) * 8; \
    (w).dMuNew = (double*)(p); (p) += (size_t)(slots) * 8; \
    (w).dC = (double*)(p); (p) += (size_t)(slots) * 8; \
    (w).cval = (double*)(p); (p) += (size_t)(slots) * 8; \
    (w).zstat = (unsigned long long*)(p); (p) += 16; \
  } while (0)

#endif  // PHASE_ARRAYS_CUH

// The Philox streams of the simulated link: every unit of an SNR point draws its symbols, channels,
// noise and information bits from a stream of its own, numbered as src/sim/link.ts unitStream numbers
// them, so a kernel reads exactly what generateLinkChunk reads on the CPU.

#pragma once
#include "../../core/philox.cuh"

/** rng.ts's stream number of (snrIndex, unitIndex, purpose) (src/sim/link.ts unitStream). */
__device__ __forceinline__ unsigned long long link_stream(unsigned snrIndex, unsigned long long unitIndex, unsigned purpose) {
  return ((unsigned long long)snrIndex << 34) + (unitIndex << 2) + purpose;
}

// STREAM_PURPOSE of src/sim/link.ts
#define LINK_PURPOSE_SYMBOLS 0
#define LINK_PURPOSE_CHANNELS 1
#define LINK_PURPOSE_NOISE 2
#define LINK_PURPOSE_INFO 3

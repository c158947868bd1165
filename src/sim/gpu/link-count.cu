// Error counts of one detector over a launch of the link (src/sim/chunk.ts countErrors), reduced
// on the device per unit: only the counts (and the rare vectors to redo) go back to the host.
// A symbol index is its bit label (modulation.ts), so the bit errors of a symbol are
// popc(sent ^ detected) over its bitsPerSymbol bits.
//
// One thread per vector; a warp whose vectors all lie in one unit adds its sums with one atomic
// per count, a warp across a unit boundary adds lane by lane.
//   tx, rx   int32, vectors x nt: sent and detected symbol indices
//   status   int32, 2 a vector: [flags, nodes] (src/mimo/gpu/status.ts)
//   counts   u64 out, per unit of the launch (unit - unit0): [bit, symbol, frame errors]
//   list     int32 out, [count, then (vector, flags) pairs]: vectors whose flags meet listMask
//            (capacity listCap pairs; count goes on past it). Vectors whose flags meet skipMask
//            are left out of the counts (the host redoes them on the CPU).
// nvcc-variant: -DCOUNT_BLOCK=256

#ifndef COUNT_BLOCK
#define COUNT_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(COUNT_BLOCK) link_count(
    const int* __restrict__ tx, const int* __restrict__ rx, const int* __restrict__ status,
    unsigned long long* __restrict__ counts, int* __restrict__ list, int listCap, int listMask, int skipMask,
    int vectors, int nt, int bps, unsigned long long v0, unsigned long long unitVectors) {
  const long long g = (long long)blockIdx.x * COUNT_BLOCK + threadIdx.x;
  const bool live = g < vectors;
  unsigned long long bits = 0, syms = 0, frames = 0;
  long long slot = 0;
  if (live) {
    slot = (long long)((v0 + g) / unitVectors);
    const int flags = status[2 * g];
    if (flags & listMask) {
      const int at = atomicAdd(list, 1);
      if (at < listCap) { list[1 + 2 * at] = (int)g; list[2 + 2 * at] = flags; }
    }
    if (!(flags & skipMask)) {
      const unsigned mask = bps >= 32 ? 0xffffffffu : (1u << bps) - 1u;
      for (int j = 0; j < nt; j++) {
        const unsigned d = ((unsigned)tx[g * nt + j] ^ (unsigned)rx[g * nt + j]) & mask;
        syms += d != 0;
        bits += __popc(d);
      }
      frames = bits != 0;
    }
  }
  const long long slot0 = __shfl_sync(0xffffffffu, slot, 0);
  const bool one = __ballot_sync(0xffffffffu, live && slot != slot0) == 0;
  if (one) {
    for (int o = 16; o > 0; o >>= 1) {
      bits += __shfl_xor_sync(0xffffffffu, bits, o);
      syms += __shfl_xor_sync(0xffffffffu, syms, o);
      frames += __shfl_xor_sync(0xffffffffu, frames, o);
    }
    if ((threadIdx.x & 31) == 0 && bits + syms + frames > 0) {
      atomicAdd(counts + 3 * slot0, bits);
      atomicAdd(counts + 3 * slot0 + 1, syms);
      atomicAdd(counts + 3 * slot0 + 2, frames);
    }
  } else if (live && bits + syms + frames > 0) {
    atomicAdd(counts + 3 * slot, bits);
    atomicAdd(counts + 3 * slot + 1, syms);
    atomicAdd(counts + 3 * slot + 2, frames);
  }
}

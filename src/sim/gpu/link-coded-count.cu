// Error counts of one detector and the decoder over a coded launch (src/sim/coded.ts decodeRange
// and countDecoded), reduced on the device per unit: only counts (and the rare vectors to redo)
// go back to the host.
//
// One block of COUNT_BLOCK threads per frame (a launch holds a few hundred frames: a warp a frame
// would leave it waiting on its loads):
//   info, bits  uint8, frames x k: the information bits sent, the decoder's decisions
//   dec         int32, frames: the decoder's status (iterations in the low 16 bits)
//   tx, rx      int32, vectors x nt: sent and detected symbol indices
//   status      int32, 2 a vector: [flags, nodes] (src/mimo/gpu/status.ts)
//   llr         float32, frames x perFrame: the detector's LLRs
//   counts      u64 out, per unit of the launch: [bit errors, symbol errors, frame errors, iterations]
//   list        int32 out, [count, then (vector, flags) pairs] of vectors whose flags meet listMask
//               (capacity listCap pairs; count goes on past it).
// A vector whose flags meet skipMask is left out of the symbol errors, and its frame out of the
// other counts: the host redoes the vector on the CPU and decodes the frame again. For that the
// frame is listed in skipped [count, then frames] with its LLRs in side (frameCap frames of
// perFrame floats; the count goes on past the capacity).
// nvcc-variant: -DCOUNT_BLOCK=128

#ifndef COUNT_BLOCK
#define COUNT_BLOCK 128
#endif

extern "C" __global__ void __launch_bounds__(COUNT_BLOCK) link_coded_count(
    const unsigned char* __restrict__ info, const unsigned char* __restrict__ bits, const int* __restrict__ dec,
    const int* __restrict__ tx, const int* __restrict__ rx, const int* __restrict__ status, const float* __restrict__ llr,
    unsigned long long* __restrict__ counts, int* __restrict__ list, int listCap, int listMask, int skipMask,
    int* __restrict__ skipped, float* __restrict__ side, int frameCap, int perFrame,
    int frames, int vpf, int nt, int k, unsigned long long v0, unsigned long long unitVectors) {
  const long long f = blockIdx.x;
  const int t = threadIdx.x, lane = t & 31;
  if (f >= frames) return;  // the whole block leaves together
  const long long g0 = f * vpf;
  int skip = 0;
  unsigned syms = 0;
  for (int u = t; u < vpf; u += COUNT_BLOCK) {
    const int flags = status[2 * (g0 + u)];
    if (flags & listMask) {
      const int at = atomicAdd(list, 1);
      if (at < listCap) { list[1 + 2 * at] = (int)(g0 + u); list[2 + 2 * at] = flags; }
    }
    skip |= (flags & skipMask) != 0;
  }
  const bool frameSkipped = __syncthreads_or(skip);
  // symbols thread by thread (coalesced); a flagged vector's status word is read again from cache
  for (long long q = t; q < (long long)vpf * nt; q += COUNT_BLOCK) {
    const long long g = g0 + q / nt;
    if (!(status[2 * g] & skipMask)) syms += tx[g0 * nt + q] != rx[g0 * nt + q];
  }
  unsigned errs = 0;
  if (!frameSkipped) {
    const unsigned char* a = info + f * k;
    const unsigned char* b = bits + f * k;
    if ((k & 15) == 0) {
      // bits are bytes of 0 or 1: a word's differing bytes are the set bits of its XOR
      const uint4* a4 = reinterpret_cast<const uint4*>(a);
      const uint4* b4 = reinterpret_cast<const uint4*>(b);
      for (int i = t; i < k / 16; i += COUNT_BLOCK) {
        const uint4 x = a4[i], y = b4[i];
        errs += __popc(x.x ^ y.x) + __popc(x.y ^ y.y) + __popc(x.z ^ y.z) + __popc(x.w ^ y.w);
      }
    } else {
      for (int i = t; i < k; i += COUNT_BLOCK) errs += a[i] != b[i];
    }
  } else if (t < 32) {
    int at = 0;
    if (lane == 0) {
      at = atomicAdd(skipped, 1);
      if (at < frameCap) skipped[1 + at] = (int)f;
    }
    at = __shfl_sync(0xffffffffu, at, 0);
    if (at < frameCap) {
      for (int i = lane; i < perFrame; i += 32) side[(long long)at * perFrame + i] = llr[f * perFrame + i];
    }
  }
  const bool frameErr = __syncthreads_or(errs != 0);
  for (int o = 16; o > 0; o >>= 1) {
    syms += __shfl_xor_sync(0xffffffffu, syms, o);
    errs += __shfl_xor_sync(0xffffffffu, errs, o);
  }
  unsigned long long* c = counts + 4 * ((v0 + g0) / unitVectors);
  if (lane == 0) {
    if (syms) atomicAdd(c + 1, (unsigned long long)syms);
    if (errs) atomicAdd(c, (unsigned long long)errs);
  }
  if (t == 0 && !frameSkipped) {
    if (frameErr) atomicAdd(c + 2, 1ull);
    atomicAdd(c + 3, (unsigned long long)(dec[f] & 0xffff));
  }
}

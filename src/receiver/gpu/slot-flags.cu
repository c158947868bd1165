// The vectors of a launch whose detection status meets a mask, listed for the host to answer: one
// thread a vector, the list in no particular order (the host sorts it).
//   status  vectors x 2 int32 [flags, nodes] (the detection plan's status words)
//   list    int32 [count, then (vector, flags) pairs], count zeroed by the caller; pairs past cap are
//           not written (the count goes on)
// nvcc-variant: -DRX_BLOCK=256

#ifndef RX_BLOCK
#define RX_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(RX_BLOCK) slot_flags(
    const int* __restrict__ status, int* __restrict__ list, int cap, int mask, long long vectors) {
  const long long v = (long long)blockIdx.x * RX_BLOCK + threadIdx.x;
  if (v >= vectors) return;
  const int flags = status[2 * v];
  if (flags & mask) {
    const int at = atomicAdd(list, 1);
    if (at < cap) {
      list[1 + 2 * at] = (int)v;
      list[2 + 2 * at] = flags;
    }
  }
}

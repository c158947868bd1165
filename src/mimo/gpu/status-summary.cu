// The GPU engine's last stage of a detection chunk whose detector does not write the summaries
// itself: each channel's status in one summary (status-summary.cuh), so the host reads four words
// a channel instead of two a vector (and looks at a channel's vectors only when one is flagged).
// One warp a channel, its lanes over the channel's vectors (all of them at once up to 32 a
// channel), SUMMARY_WARPS channels a block.
//   status   per vector [flags, nodes] (STATUS_WORDS = 2), the chunk's channels x vpc vectors
//   summary  per channel MIMO_SUMMARY_WORDS words, written whole
//   valid    vectors of the chunk that are real (the batch's last channel may be padded)
// nvcc-variant: -DSUMMARY_WARPS=4

#include "status-summary.cuh"

#ifndef SUMMARY_WARPS
#define SUMMARY_WARPS 4
#endif

extern "C" __global__ void __launch_bounds__(32 * SUMMARY_WARPS) mimo_status_summary(
    const int* __restrict__ status, int* __restrict__ summary, int channels, int vpc, long long valid) {
  const int lane = threadIdx.x & 31;
  const int c = blockIdx.x * SUMMARY_WARPS + (threadIdx.x >> 5);
  if (c >= channels) return;  // the whole warp: c is the warp's
  const long long v0 = (long long)c * vpc;
  const int real = (int)min((long long)vpc, valid - v0);
  unsigned flags = 0;
  unsigned long long nodes = 0;
  for (int k = lane; k < real; k += 32) {
    const int2 s = reinterpret_cast<const int2*>(status)[v0 + k];
    flags |= (unsigned)s.x;
    nodes += (unsigned)s.y;
  }
  for (int o = 16; o > 0; o >>= 1) {
    flags |= __shfl_xor_sync(0xffffffffu, flags, o);
    nodes += __shfl_xor_sync(0xffffffffu, nodes, o);
  }
  if (lane == 0) {
    int4* s = reinterpret_cast<int4*>(summary + MIMO_SUMMARY_WORDS * (long long)c);
    *s = make_int4((int)flags, 0, (int)(unsigned)(nodes & 0xffffffffull), (int)(unsigned)(nodes >> 32));
  }
}

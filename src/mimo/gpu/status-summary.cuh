// A channel's status summary, the record the GPU engine reads back per channel (status.ts,
// detect-batch.ts): MIMO_SUMMARY_WORDS int32 at summary + MIMO_SUMMARY_WORDS c,
//   [0] the flags of its real vectors or-ed, [1] 0, [2..3] their nodes summed (uint64, little-endian),
// 16 bytes a channel so that the node sum is one aligned 64-bit word. Either status-summary.cu
// writes it whole after detection, or the stage that writes the vectors' first status words
// (normalize.cuh) writes its head and the detector's last kernel adds each vector's part to it.

#ifndef MIMO_STATUS_SUMMARY_CUH
#define MIMO_STATUS_SUMMARY_CUH

#define MIMO_SUMMARY_WORDS 4

// The summary's head: the flags the first stage found, no nodes yet.
__device__ __forceinline__ void mimo_summary_head(int* summary, long long c, int flags) {
  int4* s = reinterpret_cast<int4*>(summary + MIMO_SUMMARY_WORDS * c);
  *s = make_int4(flags, 0, 0, 0);
}

// Vector of channel c: its flags and nodes into the channel's summary (any thread, any order).
__device__ __forceinline__ void mimo_summary_add(int* summary, long long c, int flags, unsigned nodes) {
  int* s = summary + MIMO_SUMMARY_WORDS * c;
  if (flags != 0) atomicOr(s, flags);
  if (nodes != 0) atomicAdd(reinterpret_cast<unsigned long long*>(s + 2), (unsigned long long)nodes);
}

#endif

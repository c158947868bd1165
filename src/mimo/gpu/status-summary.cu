// The GPU engine's last stage of every detection chunk: each channel's status in three words, so
// the host reads a word triple a channel instead of two words a vector (and looks at a channel's
// vectors only when one of them is flagged).
//   status   per vector [flags, nodes] (STATUS_WORDS = 2), the chunk's channels x vpc vectors
//   summary  per channel [flags of its vectors or-ed, nodes summed: low 32 bits, high 32 bits]
//   valid    vectors of the chunk that are real (the batch's last channel may be padded)
// nvcc-variant: -DSUMMARY_THREADS=128

#ifndef SUMMARY_THREADS
#define SUMMARY_THREADS 128
#endif

extern "C" __global__ void __launch_bounds__(SUMMARY_THREADS) mimo_status_summary(
    const int* __restrict__ status, int* __restrict__ summary, int channels, int vpc, long long valid) {
  const int c = blockIdx.x * SUMMARY_THREADS + threadIdx.x;
  if (c >= channels) return;
  int flags = 0;
  unsigned long long nodes = 0;
  for (int k = 0; k < vpc; k++) {
    const long long v = (long long)c * vpc + k;
    if (v >= valid) break;
    flags |= status[2 * v];
    nodes += (unsigned)status[2 * v + 1];
  }
  summary[3 * c] = flags;
  summary[3 * c + 1] = (int)(unsigned)(nodes & 0xffffffffull);
  summary[3 * c + 2] = (int)(unsigned)(nodes >> 32);
}

// A stand-in for a part's chunk kernels, for bench/gpu/runner-overlap.ts: a memory-bound pass over
// each item's device scratch (so its time grows with the chunk, as a full-device kernel's does),
// then each item's output records from its input record.
//   in      count x inWords floats        out0 count x inWords floats   out1 count x out1Words floats
//   scratch count x scratchWords floats   status count x 1 int
extern "C" __global__ void runner_overlap(const float* __restrict__ in, float* __restrict__ out0, float* __restrict__ out1,
                                          float* __restrict__ scratch, int* __restrict__ status, int count, int inWords,
                                          int out1Words, int scratchWords, int passes) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long words = (long long)count * scratchWords;
  for (int p = 0; p < passes; p++)
    for (long long i = first; i < words; i += stride) scratch[i] = scratch[i] * 0.5f + 1.0f;
  for (long long i = first; i < (long long)count * inWords; i += stride) out0[i] = in[i];
  for (long long i = first; i < (long long)count * out1Words; i += stride) out1[i] = (float)(i % 7);
  for (long long i = first; i < count; i += stride) status[i] = 1;
}

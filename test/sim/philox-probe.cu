// Test probe of src/core/philox.cuh (not a production kernel): thread i reads Philox block
// blocks[i] of stream streams[i] under key seeds[i] and writes what rng.ts derives from it:
//   words[4i..4i+3]   the block's four words
//   uniforms[2i, 2i+1] Philox.uniform() twice from the block's start
//   normals[2i, 2i+1]  Philox.normal() twice from the block's start (float64)
//   ints[i]            Philox.int(M) on the block's first word
#include "../../src/core/philox.cuh"

extern "C" __global__ void philox_probe(const unsigned long long* seeds, const unsigned long long* streams, const unsigned long long* blocks,
                                        unsigned* words, double* uniforms, double* normals, unsigned* ints, int n, unsigned M) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const philox_words w = philox_block(seeds[i], streams[i], blocks[i]);
  words[4 * i] = w.w0; words[4 * i + 1] = w.w1; words[4 * i + 2] = w.w2; words[4 * i + 3] = w.w3;
  uniforms[2 * i] = philox_uniform64(w.w0, w.w1);
  uniforms[2 * i + 1] = philox_uniform64(w.w2, w.w3);
  philox_normal_pair(w, normals + 2 * i, normals + 2 * i + 1);
  ints[i] = philox_int(w.w0, M);
}

// A/B harness for allswap/column-kernel.cu (the column-owner layout) (measurement only, not a test; see run.sh):
// the kernel as the host plans it for 68 x 64 float32 (Z and step 3's lists in global scratch, the
// rest in shared memory, 256 threads, 3 blocks per multiprocessor), a batch read from a file, the
// kernel time per basis (CUDA events, median of --reps launches after two warm-ups), and the number of
// bases whose B, Z or counts differ from a saved run's.
//   nvcc -arch=sm_90 -fmad=false -std=c++17 -DREAL=float -DCOL_N=68 -DCOL_SMEM=1 -DALLSWAP_THREADS=256
//     -DALLSWAP_MIN_BLOCKS=3 [-D...] -I src/lattice/allswap bench/col-lab/harness.cu -o h
//   ./h input.bin [--save out.bin | --ref out.bin] [--reps R] [--pad BYTES (more shared memory per
//     block: fewer blocks per multiprocessor)]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include "column-kernel.cu"

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)
static size_t a16(size_t x) { return (x + 15) & ~(size_t)15; }

int main(int argc, char** argv) {
  const char* in = argv[1];
  const char* save = nullptr; const char* ref = nullptr; int reps = 10; size_t pad = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--save")) save = argv[++i];
    else if (!strcmp(argv[i], "--ref")) ref = argv[++i];
    else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--pad")) pad = atoi(argv[++i]);
  }
  FILE* f = fopen(in, "rb");
  int head[3]; fread(head, 4, 3, f);
  const int batch = head[0], n = head[1], m = head[2];
  std::vector<float> data((size_t)batch * n * m);
  fread(data.data(), 4, data.size(), f); fclose(f);
  const size_t elt = sizeof(REAL);
  std::vector<REAL> dataR(data.begin(), data.end());
  // allswapColumnBytes in allswap/cuda.ts: the global part (z) and the shared part (rest)
  const size_t slots = std::max(m, 2), ld = n | 1, bs = ld * m * sizeof(bs_t);
  const size_t z = 3 * (size_t)m * m * 8 + a16((size_t)m * m * 4);
  const size_t rest = 6 * slots * 8 + 6 * slots * 8 + 16 + a16(ld * m * elt) + a16(bs) + a16(slots * elt) + 2 * slots * 4 + 16;
  REAL *dBin, *dBout; double* dZ; unsigned char* dWs; int* dSt;
  CK(cudaMalloc(&dBin, dataR.size() * elt));
  CK(cudaMalloc(&dBout, dataR.size() * elt));
  CK(cudaMalloc(&dZ, (size_t)batch * m * m * 8));
  CK(cudaMalloc(&dWs, (size_t)batch * z));
  CK(cudaMalloc(&dSt, (size_t)batch * STATS_WIDTH * 4));
  CK(cudaMemcpy(dBin, dataR.data(), dataR.size() * elt, cudaMemcpyHostToDevice));
  CK(cudaFuncSetAttribute(allswap, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(rest + pad)));
  const int threads = std::max(32, (4 * m + 31) / 32 * 32);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<float> ms;
  for (int r = 0; r < reps + 2; r++) {
    CK(cudaMemset(dSt, 0, (size_t)batch * STATS_WIDTH * 4));
    cudaEventRecord(e0);
    allswap<<<batch, threads, rest + pad>>>(dBin, dBout, dZ, dWs, dSt, n, m, 100000, 0.75, 0.51, 2, (int)z);
    cudaEventRecord(e1);
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float t; cudaEventElapsedTime(&t, e0, e1);
    if (r >= 2) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  std::vector<REAL> B((size_t)batch * n * m); std::vector<double> Z((size_t)batch * m * m); std::vector<int> st((size_t)batch * STATS_WIDTH);
  CK(cudaMemcpy(B.data(), dBout, B.size() * elt, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(Z.data(), dZ, Z.size() * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(st.data(), dSt, st.size() * 4, cudaMemcpyDeviceToHost));
  long long ph = 0, sw = 0, rd = 0, bad = 0;
  for (int b = 0; b < batch; b++) { ph += st[b * 5]; sw += st[b * 5 + 1]; rd += st[b * 5 + 2]; if (st[b * 5 + 3]) bad++; }
  int diff = -1;
  if (ref) {
    FILE* g = fopen(ref, "rb");
    std::vector<REAL> B2(B.size()); std::vector<double> Z2(Z.size()); std::vector<int> st2(st.size());
    fread(B2.data(), elt, B2.size(), g); fread(Z2.data(), 8, Z2.size(), g); fread(st2.data(), 4, st2.size(), g); fclose(g);
    diff = 0;
    for (int b = 0; b < batch; b++) {
      const bool same = !memcmp(&B[(size_t)b * n * m], &B2[(size_t)b * n * m], (size_t)n * m * elt)
        && !memcmp(&Z[(size_t)b * m * m], &Z2[(size_t)b * m * m], (size_t)m * m * 8)
        && !memcmp(&st[b * 5], &st2[b * 5], 5 * 4);
      if (!same) diff++;
    }
  }
  if (save) {
    FILE* g = fopen(save, "wb");
    fwrite(B.data(), elt, B.size(), g); fwrite(Z.data(), 8, Z.size(), g); fwrite(st.data(), 4, st.size(), g); fclose(g);
  }
  printf("batch %d %dx%d threads %d shared %zu | median %.1f ns/basis (min %.1f, max %.1f) | phases %.2f swaps %.2f reductions %.1f per basis, %lld failed | differing from ref: %d\n",
         batch, n, m, threads, rest, 1e6 * ms[ms.size() / 2] / batch, 1e6 * ms[0] / batch, 1e6 * ms.back() / batch,
         (double)ph / batch, (double)sw / batch, (double)rd / batch, bad, diff);
  return 0;
}

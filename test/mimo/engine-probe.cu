// A probe detector for the GPU engine's tests (not a detector): it reports what the engine handed
// it. Per vector v: llr[v * W + k] = y[v * yLen + k] (the normalized y, k < yLen) and
// llr[v * W + yLen] = N0 (normalized); symbols[v * nt + j] = j % Msym. A vector whose first raw
// entry is exactly 0.5 (before scaling: the test only uses it on channels whose scale is 1) gets
// the flag PROBE_FLAG, and nodes = 3 for every vector.
extern "C" __global__ void engine_probe(const float* y, const float* noise, int* symbols, float* llr, int* status,
                                        int vectors, int nt, int yLen, int W, int Msym, int probeFlag) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vectors) return;
  if (status[2 * v] != 0) return;
  for (int k = 0; k < yLen; k++) llr[(long long)v * W + k] = y[(long long)v * yLen + k];
  llr[(long long)v * W + yLen] = noise[v];
  for (int j = 0; j < nt; j++) symbols[(long long)v * nt + j] = j % Msym;
  if (y[(long long)v * yLen] == 0.5f) status[2 * v] |= probeFlag;
  status[2 * v + 1] = 3;
}

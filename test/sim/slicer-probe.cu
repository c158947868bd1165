// Test probe (not a production kernel): zero forcing for nr = nt = 1, what zf decides there:
// x = y conj(h) / |h|^2, then the nearest of the M points (the first on a tie). Per vector v,
// channel v / vpc; layouts of src/mimo/gpu/cuda-detector.ts. A vector already flagged is skipped.
extern "C" __global__ void slicer_probe(const float* H, const float* y, int* symbols, const int* status, const float* points,
                                        int vectors, int vpc, int M) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vectors || status[2 * v] != 0) return;
  const int c = v / vpc;
  const float hr = H[2 * c], hi = H[2 * c + 1], yr = y[2 * v], yi = y[2 * v + 1];
  const float n = hr * hr + hi * hi;
  const float xr = (yr * hr + yi * hi) / n, xi = (yi * hr - yr * hi) / n;
  int best = 0;
  float bd = 3.0e38f;
  for (int k = 0; k < M; k++) {
    const float dr = xr - points[2 * k], di = xi - points[2 * k + 1];
    const float d = dr * dr + di * di;
    if (d < bd) { bd = d; best = k; }
  }
  symbols[v] = best;
}

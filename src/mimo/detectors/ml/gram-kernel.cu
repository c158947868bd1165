// Per-channel Gram matrix of the exhaustive ML detector (ml-kernel.cu): G = H^H H, nt x nt complex,
// column-major (entry (a, b) at 2 (a + b nt)), one thread per channel, accumulated in double and
// rounded once to float. Launched by cuda.ts before ml_detect.
//
// nvcc-variant: -DML_NT=2 -DML_NR=2
// nvcc-variant: -DML_NT=4 -DML_NR=4
// nvcc-variant: -DML_NT=8 -DML_NR=8

// H: channels x (nr x nt complex, column-major); G: channels x (nt x nt complex) out.
extern "C" __global__ void ml_gram(const float* __restrict__ H, float* __restrict__ G, int channels) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  const float* h = H + (size_t)c * 2 * ML_NR * ML_NT;
  float* g = G + (size_t)c * 2 * ML_NT * ML_NT;
  for (int a = 0; a < ML_NT; a++) {
    for (int b = a; b < ML_NT; b++) {
      double re = 0, im = 0;
      for (int i = 0; i < ML_NR; i++) {
        const double ar = h[2 * (i + a * ML_NR)], ai = h[2 * (i + a * ML_NR) + 1];
        const double br = h[2 * (i + b * ML_NR)], bi = h[2 * (i + b * ML_NR) + 1];
        re += ar * br + ai * bi;  // conj(h_a) h_b
        im += ar * bi - ai * br;
      }
      g[2 * (a + b * ML_NT)] = (float)re;
      g[2 * (a + b * ML_NT) + 1] = a == b ? 0.0f : (float)im;
      g[2 * (b + a * ML_NT)] = (float)re;
      g[2 * (b + a * ML_NT) + 1] = a == b ? 0.0f : (float)-im;
    }
  }
}

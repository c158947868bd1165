/** Zero-forcing on the GPU (cuda-linear.ts: a filter per channel, then per-vector filtering and slicing). */
import { linearCudaDetector } from './cuda-linear.js';

export const cudaDetector = linearCudaDetector('zf');

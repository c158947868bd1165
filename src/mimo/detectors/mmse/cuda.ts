/** Linear MMSE on the GPU (../zf/cuda-linear.ts: a filter per channel and N0, then per-vector filtering and slicing). */
import { linearCudaDetector } from '../zf/cuda-linear.js';

export const cudaDetector = linearCudaDetector('mmse');

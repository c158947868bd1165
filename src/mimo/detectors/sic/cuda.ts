/** Ordered MMSE-SIC on the GPU (../zf/cuda-linear.ts: order and filters per channel, then per-vector successive cancellation). */
import { linearCudaDetector } from '../zf/cuda-linear.js';

export const cudaDetector = linearCudaDetector('sic');

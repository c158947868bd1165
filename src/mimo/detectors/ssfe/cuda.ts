/**
 * SSFE on the GPU: the N-way kernels (nway/cuda.ts) with one pass, the channel's own stream order
 * (the CPU's ssfe is nway with passes = 1, exactly).
 */
import type { CudaDetector } from '../../gpu/cuda-detector.js';
import { createNwayFloat64, createNwayPlan } from '../nway/cuda.js';

export const cudaDetector: CudaDetector = {
  name: 'ssfe',
  soft: true,
  create: (ctx, setup) => createNwayPlan('ssfe', ctx, setup, 1),
  float64: (ctx, setup) => createNwayFloat64('ssfe', ctx, setup, 1),
};

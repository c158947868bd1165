import type { AlgorithmEntry } from '../registry.js';
import { jacobiParallelCpu } from './cpu.js';

/** Parallel Jacobi (chess-tournament ordering): proven by the pairwise Lagrange conditions. */
export const jacobiParallelEntry: AlgorithmEntry = {
  name: 'jacobi-parallel',
  traits: {
    proof: 'lagrange',
    cpuDriftWatch: false,
    gpuDriftWatch: false,
    // pairwise Lagrange reduction: no Lovasz condition, no size-reduction bound
    params: [],
    gpuTuning: ['jacobi'],
  },
  cpu: jacobiParallelCpu,
  cuda: async () => (await import('./cuda.js')).reduceBatchCuda,
};

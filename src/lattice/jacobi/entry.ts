import type { AlgorithmEntry } from '../registry.js';
import { jacobiCpu } from './cpu.js';

/** Serial cyclic-by-row Jacobi: its output is proven by the pairwise Lagrange conditions. */
export const jacobiEntry: AlgorithmEntry = {
  name: 'jacobi',
  traits: {
    proof: 'lagrange',
    cpuDriftWatch: false,
    gpuDriftWatch: false,
    // pairwise Lagrange reduction: no Lovasz condition, no size-reduction bound
    params: [],
    gpuTuning: [],
  },
  cpu: jacobiCpu,
};

import type { AlgorithmEntry } from '../registry.js';
import { allswapCpu } from './cpu.js';

/** CR-AS-LLL (all-swap): the per-basis kernels run the paper's algorithm without the CPU's drift watch. */
export const allswapEntry: AlgorithmEntry = {
  name: 'allswap',
  traits: {
    proof: 'lll',
    cpuDriftWatch: true,
    gpuDriftWatch: false,
    // float32Arithmetic: the column-owner kernel's (allswap/cuda.ts)
    params: ['delta', 'eta', 'float32Arithmetic'],
    gpuTuning: ['allswap'],
  },
  cpu: allswapCpu,
  cuda: async () => (await import('./cuda.js')).reduceBatchCuda,
};

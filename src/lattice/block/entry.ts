import type { AlgorithmEntry } from '../registry.js';
import { blockCpu, crBlockCpu } from './cpu.js';

/** MB-LLL: sub-bases reduced in parallel, boundary checks, a final Gram-Schmidt update. */
export const blockEntry: AlgorithmEntry = {
  name: 'block',
  traits: {
    proof: 'lll',
    cpuDriftWatch: true,
    gpuDriftWatch: false,
    params: ['delta', 'eta', 'blockSize'],
    gpuTuning: ['block'],
  },
  cpu: blockCpu,
  cuda: async () => (await import('./cuda.js')).reduceBatchCudaBlock,
};

/** CR-MB-LLL: MB-LLL with the all-swap reduction inside each sub-basis. */
export const crBlockEntry: AlgorithmEntry = {
  name: 'cr-block',
  traits: {
    proof: 'lll',
    cpuDriftWatch: true,
    gpuDriftWatch: false,
    params: ['delta', 'eta', 'blockSize'],
    gpuTuning: ['block'],
  },
  cpu: crBlockCpu,
  cuda: async () => (await import('./cuda.js')).reduceBatchCudaCrBlock,
};

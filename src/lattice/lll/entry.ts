import type { AlgorithmEntry } from '../registry.js';
import { lllCpu } from './cpu.js';

/** Sequential LLL, the reference: CPU only, with its own precision fallbacks (cpu.ts). */
export const lllEntry: AlgorithmEntry = {
  name: 'lll',
  traits: {
    proof: 'lll',
    cpuDriftWatch: false,
    gpuDriftWatch: false,
    params: ['delta', 'eta'],
    gpuTuning: [],
  },
  cpu: lllCpu,
};

import type { AlgorithmEntry } from '../registry.js';
import { lllCpu } from './cpu.js';
import { lllKernelCovers, lllWasm } from './wasm.js';

/**
 * Sequential LLL, the reference: CPU only, with its own precision fallbacks (cpu.ts); float64
 * bases on its WebAssembly kernel where the runtime has one (wasm.ts), the same results.
 */
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
  cpuWasm: { covers: lllKernelCovers, reduce: lllWasm },
};

import type { AlgorithmEntry } from '../registry.js';
import { recursiveCpu } from './cpu.js';
import { RECURSIVE_SCHEMA } from './options.js';

/**
 * Recursive reduction by iterated compression (Ryan and Heninger): large integer bases, proven by
 * the LLL finish at (delta, eta). CPU only for now; its own options (rhf, alpha, finish, threads,
 * guard) are recursiveReduce()'s and the reduce command's (`options`).
 */
export const recursiveEntry: AlgorithmEntry = {
  name: 'recursive',
  traits: {
    proof: 'lll',
    cpuDriftWatch: false,
    gpuDriftWatch: false,
    params: ['delta', 'eta'],
    gpuTuning: [],
  },
  cpu: recursiveCpu,
  options: RECURSIVE_SCHEMA,
};

import { integer, option } from '../../../core/index.js';
import type { DetectorEntry } from '../../registry.js';
import { DEFAULT_K, detector } from './cpu.js';

/** Options of the K-best detector. */
export interface KbestOptions {
  /** K: the paths kept per level (default DEFAULT_K = 16). */
  k?: number;
}

/**
 * K-best breadth-first search with max-log LLRs from the list (cpu.ts says how the detection order
 * and ties are fixed, and how far the GPU's float32 search may lie from it). A-priori LLRs on both
 * engines (their max-log costs in the search and the list; extrinsic LLRs out): the CUDA search's
 * a-priori build (kbest/cuda.ts).
 */
export const kbestEntry: DetectorEntry<'kbest', KbestOptions> = {
  name: 'kbest',
  description:
    'K-best breadth-first search on the sorted QR; max-log LLRs from its list (priorLlr: a-priori costs, extrinsic LLRs)',
  traits: {
    soft: true,
    exact: false,
    nodeBudget: 'size',
    model: 'real',
    wideChannels: 'no',
    priors: true,
    wasmKernel: true,
  },
  options: {
    k: option(integer(1, 1 << 16), 'K, the paths kept per level', {
      default: DEFAULT_K,
      cli: { flag: 'k', metavar: 'K' },
    }),
  },
  listArgument: { option: 'k', metavar: 'K' },
  label: (o) => (o.k !== undefined ? [`K=${o.k}`] : []),
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

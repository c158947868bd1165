import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/**
 * Selective spanning with fast enumeration (the N-way paper's Alg. 2): one pass. A-priori LLRs on
 * the CPU engine (their max-log costs in the search and the list; extrinsic LLRs out): its CUDA
 * kernel takes none.
 */
export const ssfeEntry: DetectorEntry<'ssfe'> = {
  name: 'ssfe',
  description: 'selective spanning with fast enumeration: one pass, max-log LLRs; priorLlr on the CPU engine',
  traits: { soft: true, exact: false, nodeBudget: 'none', model: 'real', wideChannels: 'no', priors: 'cpu' },
  options: {},
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

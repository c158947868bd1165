import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Selective spanning with fast enumeration (the N-way paper's Alg. 2): one pass. */
export const ssfeEntry: DetectorEntry<'ssfe'> = {
  name: 'ssfe',
  description: 'selective spanning with fast enumeration: one pass, max-log LLRs',
  traits: { soft: true, exact: false, nodeBudget: 'none', model: 'real', wideChannels: 'no' },
  options: {},
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

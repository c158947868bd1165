import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** K-best breadth-first search with max-log LLRs from the list. */
export const kbestEntry: DetectorEntry = {
  name: 'kbest',
  traits: { soft: true, exact: false, budgeted: false, model: 'real', wideChannels: false },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

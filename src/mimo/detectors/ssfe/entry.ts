import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Selective spanning with fast enumeration (the N-way paper's Alg. 2): one pass. */
export const ssfeEntry: DetectorEntry = {
  name: 'ssfe',
  traits: { soft: true, exact: false, budgeted: false, model: 'real', wideChannels: false },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

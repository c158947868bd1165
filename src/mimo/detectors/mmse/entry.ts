import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Linear MMSE filter, then per-stream slicing. */
export const mmseEntry: DetectorEntry = {
  name: 'mmse',
  traits: { soft: false, exact: false, budgeted: false, model: 'complex', wideChannels: true },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Ordered MMSE successive interference cancellation. */
export const sicEntry: DetectorEntry = {
  name: 'sic',
  traits: { soft: false, exact: false, budgeted: false, model: 'complex', wideChannels: true },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

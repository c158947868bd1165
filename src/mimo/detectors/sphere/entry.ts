import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Depth-first Schnorr-Euchner sphere decoder: exact ML within its node budget. */
export const sphereEntry: DetectorEntry = {
  name: 'sphere',
  traits: { soft: false, exact: true, budgeted: true, model: 'real', wideChannels: false },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

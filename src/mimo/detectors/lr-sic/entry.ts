import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Lattice-reduction-aided MMSE-SIC. */
export const lrSicEntry: DetectorEntry = {
  name: 'lr-sic',
  traits: { soft: false, exact: false, budgeted: false, model: 'real', wideChannels: false },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

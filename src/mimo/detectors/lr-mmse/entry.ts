import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Lattice-reduction-aided MMSE (LLL on the extended real channel). */
export const lrMmseEntry: DetectorEntry = {
  name: 'lr-mmse',
  traits: { soft: false, exact: false, budgeted: false, model: 'real', wideChannels: false },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Lattice-reduction-aided zero forcing (LLL on the real channel). */
export const lrZfEntry: DetectorEntry = {
  name: 'lr-zf',
  traits: { soft: false, exact: false, budgeted: false, model: 'real', wideChannels: false },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

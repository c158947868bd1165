import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** The N-way soft detector: N rotated SSFE passes merged (the N-way paper's Alg. 3). */
export const nwayEntry: DetectorEntry = {
  name: 'nway',
  traits: { soft: true, exact: false, budgeted: false, model: 'real', wideChannels: false },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

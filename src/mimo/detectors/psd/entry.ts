import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** The Parallel Sphere Detector (Jozsa et al.): exact ML within its node budget. */
export const psdEntry: DetectorEntry = {
  name: 'psd',
  traits: { soft: false, exact: true, budgeted: true, model: 'real', wideChannels: false },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

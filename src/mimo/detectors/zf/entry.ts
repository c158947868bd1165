import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Zero-forcing: the left inverse of H, then per-stream slicing. */
export const zfEntry: DetectorEntry = {
  name: 'zf',
  traits: { soft: false, exact: false, budgeted: false, model: 'complex', wideChannels: false },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

/** Zero-forcing detection: s~ = (H^H H)^{-1} H^H y, then per-stream slicing. */
import type { CpuDetector } from '../detector.js';
import { createLinear, type LinearPrep } from './linear.js';

export const detector: CpuDetector<LinearPrep> = {
  name: 'zf',
  soft: false,
  create: (setup) => createLinear(setup, 'zf'),
};

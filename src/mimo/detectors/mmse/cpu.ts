/** Linear MMSE detection: s~ = (H^H H + N0 I)^{-1} H^H y, unbiased, then per-stream slicing. */
import type { CpuDetector } from '../detector.js';
import { createLinear, type LinearPrep } from '../zf/linear.js';

export const detector: CpuDetector<LinearPrep> = {
  name: 'mmse',
  soft: false,
  create: (setup) => createLinear(setup, 'mmse'),
};

/** Linear MMSE detection: s~ = (H^H H + N0 I)^{-1} H^H y, unbiased, then per-stream slicing. */
import type { CpuDetector } from '../detector.js';
import { LinearLanes } from '../zf/linear-wasm.js';
import { createLinear, type LinearPrep } from '../zf/linear.js';

export const detector: CpuDetector<LinearPrep> = {
  name: 'mmse',
  soft: false,
  lanes: (setup) => new LinearLanes('mmse', setup.nr, setup.nt, setup.constellation),
  create: (setup) => createLinear(setup, 'mmse'),
};

/** Zero-forcing detection: s~ = (H^H H)^{-1} H^H y, then per-stream slicing. */
import type { CpuDetector } from '../detector.js';
import { LinearLanes } from './linear-wasm.js';
import { createLinear, type LinearPrep } from './linear.js';

export const detector: CpuDetector<LinearPrep> = {
  name: 'zf',
  soft: false,
  lanes: (setup) => new LinearLanes('zf', setup.nr, setup.nt, setup.constellation),
  create: (setup) => createLinear(setup, 'zf'),
};

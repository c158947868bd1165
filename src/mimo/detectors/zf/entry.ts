import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Zero-forcing: the left inverse of H, then per-stream slicing. */
export const zfEntry: DetectorEntry<'zf'> = {
  name: 'zf',
  description: 'zero forcing: the left inverse of H, then per-stream slicing',
  traits: { soft: false, exact: false, nodeBudget: 'none', model: 'complex', wideChannels: 'no', wasmKernel: true },
  options: {},
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

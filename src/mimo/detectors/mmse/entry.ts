import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Linear MMSE filter, then per-stream slicing. */
export const mmseEntry: DetectorEntry<'mmse'> = {
  name: 'mmse',
  description: 'linear MMSE filter (bias removed), then per-stream slicing',
  traits: {
    soft: false,
    exact: false,
    nodeBudget: 'none',
    model: 'complex',
    wideChannels: 'regularized',
    wasmKernel: true,
  },
  options: {},
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Ordered MMSE successive interference cancellation. */
export const sicEntry: DetectorEntry<'sic'> = {
  name: 'sic',
  description: 'ordered MMSE successive interference cancellation (V-BLAST order)',
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

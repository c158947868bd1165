import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Lattice-reduction-aided MMSE-SIC. */
export const lrSicEntry: DetectorEntry<'lr-sic'> = {
  name: 'lr-sic',
  description: 'lattice-reduction-aided MMSE-SIC',
  traits: { soft: false, exact: false, nodeBudget: 'none', model: 'real', wideChannels: 'no', wasmKernel: true },
  options: {},
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

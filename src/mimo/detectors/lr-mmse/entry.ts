import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Lattice-reduction-aided MMSE (LLL on the extended real channel). */
export const lrMmseEntry: DetectorEntry<'lr-mmse'> = {
  name: 'lr-mmse',
  description: 'lattice-reduction-aided MMSE (LLL on the extended real channel)',
  traits: { soft: false, exact: false, nodeBudget: 'none', model: 'real', wideChannels: 'no', wasmKernel: true },
  options: {},
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

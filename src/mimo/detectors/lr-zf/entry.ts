import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Lattice-reduction-aided zero forcing (LLL on the real channel). */
export const lrZfEntry: DetectorEntry<'lr-zf'> = {
  name: 'lr-zf',
  description: 'lattice-reduction-aided zero forcing (LLL on the real channel)',
  traits: { soft: false, exact: false, nodeBudget: 'none', model: 'real', wideChannels: 'no', wasmKernel: true },
  options: {},
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

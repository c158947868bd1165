import { choice, option } from '../../../core/index.js';
import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** The sphere decoder's initial radius: 'infinity' (the first leaf is the Babai point) or 'babai' (the sliced ZF distance). */
export type InitialRadius = 'infinity' | 'babai';

/** Options of the sphere decoder. */
export interface SphereOptions {
  /** Initial radius: 'infinity' (default) or 'babai'. */
  initialRadius?: InitialRadius;
}

/** Depth-first Schnorr-Euchner sphere decoder: exact ML within its node budget. */
export const sphereEntry: DetectorEntry<'sphere', SphereOptions> = {
  name: 'sphere',
  description: 'depth-first Schnorr-Euchner sphere decoder: exact ML within its node budget',
  traits: { soft: false, exact: true, nodeBudget: 'search', model: 'real', wideChannels: 'no', wasmKernel: true },
  options: {
    initialRadius: option(
      choice<InitialRadius>(['infinity', 'babai']),
      "initial radius: infinity (the first leaf is the Babai point) or babai (the sliced zero-forcing point's distance)",
      { default: 'infinity', cli: { flag: 'initial-radius', metavar: 'R' } },
    ),
  },
  label: (o) => (o.initialRadius === 'babai' ? ['babai'] : []),
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

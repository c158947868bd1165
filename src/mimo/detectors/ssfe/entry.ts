import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/**
 * Selective spanning with fast enumeration (the N-way paper's Alg. 2): one pass. A-priori LLRs on
 * both engines (their max-log costs in the search and the list; extrinsic LLRs out): on the GPU the
 * N-way kernel's a-priori build with one pass.
 */
export const ssfeEntry: DetectorEntry<'ssfe'> = {
  name: 'ssfe',
  description:
    'selective spanning with fast enumeration: one pass, max-log LLRs (priorLlr: a-priori costs, extrinsic LLRs)',
  traits: {
    soft: true,
    exact: false,
    nodeBudget: 'none',
    model: 'real',
    wideChannels: 'no',
    priors: true,
    wasmKernel: true,
  },
  options: {},
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

import { integer, option } from '../../../core/index.js';
import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Options of the N-way detector. */
export interface NwayOptions {
  /** Passes (rotated detection orders), 1 to nt (default nt); 1 equals SSFE. */
  passes?: number;
}

/**
 * The N-way soft detector: N rotated SSFE passes merged (the N-way paper's Alg. 3). A-priori LLRs
 * on both engines, as ssfe (their max-log costs in the searches and the merged list; extrinsic LLRs
 * out): the CUDA kernel's a-priori build (nway/cuda.ts).
 */
export const nwayEntry: DetectorEntry<'nway', NwayOptions> = {
  name: 'nway',
  description:
    'the N-way soft detector: N SSFE passes over rotated detection orders, max-log LLRs (priorLlr: a-priori costs, extrinsic LLRs)',
  traits: {
    soft: true,
    exact: false,
    nodeBudget: 'none',
    model: 'real',
    wideChannels: 'no',
    priors: true,
    wasmKernel: true,
  },
  options: {
    passes: option(integer(1, 64), 'passes (rotated detection orders), at most nt (default nt); 1 equals ssfe', {
      cli: { flag: 'passes', metavar: 'N' },
    }),
  },
  listArgument: { option: 'passes', metavar: 'N' },
  label: (o) => (o.passes !== undefined ? [`N=${o.passes}`] : []),
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

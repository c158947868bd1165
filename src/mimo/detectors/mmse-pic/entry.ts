import { integer, option } from '../../../core/index.js';
import type { DetectorEntry } from '../../registry.js';
import { detector, MAX_PIC_ITERATIONS } from './cpu.js';

/** Options of the MMSE-PIC detector. */
export interface MmsePicOptions {
  /**
   * Self-iterations (Sionna's num_iter), 1 to MAX_PIC_ITERATIONS (default 1): iteration t > 1 takes
   * iteration t - 1's a-posteriori LLRs as its priors; the output is the last one's extrinsic LLRs.
   */
  picIterations?: number;
}

/** Soft-input soft-output MMSE with parallel interference cancellation from a-priori LLRs. */
export const mmsePicEntry: DetectorEntry<'mmse-pic', MmsePicOptions> = {
  name: 'mmse-pic',
  description: 'MMSE with parallel interference cancellation of the a-priori soft symbols (priorLlr); extrinsic LLRs',
  traits: {
    soft: true,
    exact: false,
    nodeBudget: 'none',
    model: 'complex',
    wideChannels: 'regularized',
    priors: true,
    positiveNoise: true,
  },
  options: {
    picIterations: option(
      integer(1, MAX_PIC_ITERATIONS),
      "self-iterations: each after the first takes the previous one's a-posteriori LLRs as priors",
      { default: 1, cli: { flag: 'pic-iterations', metavar: 'N' } },
    ),
  },
  listArgument: { option: 'picIterations', metavar: 'N' },
  label: (o) => (o.picIterations !== undefined ? [`I=${o.picIterations}`] : []),
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

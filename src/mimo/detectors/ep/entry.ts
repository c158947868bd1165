import { integer, number, option } from '../../../core/index.js';
import type { DetectorEntry } from '../../registry.js';
import { DEFAULT_EP_BETA, DEFAULT_EP_EPSILON, DEFAULT_EP_ITERATIONS, detector, MAX_EP_ITERATIONS } from './cpu.js';

/** Options of the EP detector (docs/API.md, "ep and mmse-pic"). */
export interface EpOptions {
  /** Iterations, 1 to MAX_EP_ITERATIONS (default 10, Sionna's l). */
  iterations?: number;
  /**
   * Damping in [0, 1] (default 0.9, Sionna's beta): each iteration keeps beta of the previous site
   * parameters and takes 1 - beta of the new ones. The paper's beta weighs the new ones instead
   * (its beta is 1 - ours).
   */
  beta?: number;
  /** Least variance of a cavity or a posterior marginal, in symbol-energy units, > 0 and < 1 (default 1e-6). */
  epsilon?: number;
}

/**
 * Expectation propagation (Cespedes et al. 2014) on the real-valued model; a-priori LLRs on both
 * engines (the bits' prior in place of the uniform one; extrinsic LLRs out).
 */
export const epEntry: DetectorEntry<'ep', EpOptions> = {
  name: 'ep',
  description:
    "expectation propagation: Gaussian site approximations of the discrete prior (priorLlr: the bits' prior), damped moment matching",
  traits: {
    soft: true,
    exact: false,
    nodeBudget: 'none',
    model: 'real',
    wideChannels: 'no',
    priors: true,
    positiveNoise: true,
  },
  options: {
    iterations: option(integer(1, MAX_EP_ITERATIONS), 'EP iterations', {
      default: DEFAULT_EP_ITERATIONS,
      cli: { flag: 'ep-iterations', metavar: 'N' },
    }),
    beta: option(
      number({ min: 0, max: 1 }),
      "damping: the share of the previous site parameters each iteration keeps (Sionna's beta; the paper's is 1 - beta)",
      { default: DEFAULT_EP_BETA, cli: { flag: 'ep-beta', metavar: 'B' } },
    ),
    epsilon: option(
      number({ min: 0, max: 1, minOpen: true, maxOpen: true }),
      'least variance of a cavity or posterior marginal (symbol-energy units)',
      { default: DEFAULT_EP_EPSILON, cli: { flag: 'ep-epsilon', metavar: 'E' } },
    ),
  },
  listArgument: { option: 'iterations', metavar: 'N' },
  label: (o) => [
    ...(o.iterations !== undefined ? [`L=${o.iterations}`] : []),
    ...(o.beta !== undefined ? [`beta=${o.beta}`] : []),
    ...(o.epsilon !== undefined ? [`eps=${o.epsilon}`] : []),
  ],
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

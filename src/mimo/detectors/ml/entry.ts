import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/**
 * Exhaustive maximum likelihood over all M^nt hypotheses: the reference; max-log or log-MAP LLRs.
 * A-priori LLRs on both engines (their costs in every metric, so the MAP vector; extrinsic LLRs out):
 * the CUDA kernel's a-priori build (ml/cuda.ts).
 */
export const mlEntry: DetectorEntry<'ml'> = {
  name: 'ml',
  description: 'exhaustive ML over all M^nt hypotheses (the reference); max-log or exact log-MAP LLRs',
  traits: { soft: true, exact: true, nodeBudget: 'size', model: 'complex', wideChannels: 'yes', priors: true },
  options: {},
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

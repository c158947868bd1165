import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Exhaustive maximum likelihood over all M^nt hypotheses: the reference; max-log or log-MAP LLRs. */
export const mlEntry: DetectorEntry<'ml'> = {
  name: 'ml',
  description: 'exhaustive ML over all M^nt hypotheses (the reference); max-log or exact log-MAP LLRs',
  traits: { soft: true, exact: true, nodeBudget: 'size', model: 'complex', wideChannels: 'yes', priors: 'cpu' },
  options: {},
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

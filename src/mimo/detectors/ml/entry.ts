import type { DetectorEntry } from '../../registry.js';
import { detector } from './cpu.js';

/** Exhaustive maximum likelihood over all M^nt hypotheses: the reference; max-log or log-MAP LLRs. */
export const mlEntry: DetectorEntry = {
  name: 'ml',
  traits: { soft: true, exact: true, budgeted: false, model: 'complex', wideChannels: true },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};

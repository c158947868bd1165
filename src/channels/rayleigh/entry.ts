import type { ChannelEntry } from '../types.js';
import { rayleighGenerator } from './cpu.js';

/** iid Rayleigh flat fading: every entry of H is CN(0, 1), a new H for every channel group. */
export const rayleighEntry: ChannelEntry<'rayleigh'> = {
  name: 'rayleigh',
  description: 'iid Rayleigh flat fading: every entry of H CN(0, 1), a new H for every channel group',
  title: 'iid Rayleigh fading',
  options: {},
  checkShape: () => {},
  cpu: (shape) => rayleighGenerator(shape),
  cuda: () => import('./cuda.js').then((m) => m.rayleighCuda),
};

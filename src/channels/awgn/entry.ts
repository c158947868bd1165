import { InvalidArgumentError } from '../../core/index.js';
import type { ChannelEntry } from '../types.js';
import { identityGenerator } from './cpu.js';

/** The AWGN channel: H = I, no fading (a code's waterfall without the channel's; needs nr >= nt). */
export const awgnEntry: ChannelEntry<'awgn'> = {
  name: 'awgn',
  description: 'H = I: no fading, noise only (needs NR >= NT; code validation)',
  title: 'AWGN (H = I)',
  options: {},
  checkShape: ({ nt, nr }) => {
    if (nr < nt)
      throw new InvalidArgumentError(`the awgn channel (H = I) needs nr >= nt, got ${nt}x${nr}`, {
        option: 'channel',
        nt,
        nr,
      });
  },
  cpu: (shape) => identityGenerator(shape),
  cuda: () => import('./cuda.js').then((m) => m.identityCuda),
};

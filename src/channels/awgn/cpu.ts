/** The AWGN channel on the CPU: H = I (ones on the diagonal), no fading, no Philox words read. */
import { checkSpan } from '../span.js';
import type { ChannelGenerator, ChannelShape } from '../types.js';

/** `count` identity channels nr x nt (ones on the diagonal, nr >= nt), in the channels' layout. */
export function identityChannels(count: number, nt: number, nr: number): Float64Array {
  const H = new Float64Array(2 * count * nr * nt);
  for (let c = 0; c < count; c++) for (let j = 0; j < Math.min(nt, nr); j++) H[2 * (c * nr * nt + j + j * nr)] = 1;
  return H;
}

/** The model's CPU generator: every channel of a span is I. */
export function identityGenerator(shape: ChannelShape): ChannelGenerator {
  return {
    draw: (span) => {
      checkSpan(span);
      return identityChannels(span.count, shape.nt, shape.nr);
    },
  };
}

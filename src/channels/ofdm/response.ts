/**
 * A channel model's response on time and frequency points, for any model: a time-varying,
 * frequency-selective model evaluates its drops (ChannelGenerator.response); a flat model's drop is
 * its channel, the same at every time and frequency (block fading over the drop).
 */
import type { ChannelGenerator, ChannelShape, ChannelSpan, ResponsePoints } from '../types.js';

/**
 * The span's drops at every (time, frequency) pair of `at`: span.count x times x freqs x 2 nr nt
 * numbers, frequency fastest (ChannelGenerator.response's layout).
 */
export function channelResponse(
  generator: ChannelGenerator,
  shape: ChannelShape,
  span: ChannelSpan,
  at: ResponsePoints,
): Float64Array {
  if (generator.response) return generator.response(span, at);
  const per = 2 * shape.nr * shape.nt;
  const H = generator.draw(span);
  const points = at.times.length * at.freqs.length;
  const out = new Float64Array(span.count * points * per);
  for (let d = 0; d < span.count; d++) {
    const h = H.subarray(d * per, (d + 1) * per);
    for (let p = 0; p < points; p++) out.set(h, (d * points + p) * per);
  }
  return out;
}

/**
 * A span's channels drawn stream by stream: the CPU side of ChannelSpan, for the models whose
 * channels each read a fixed number of Philox words (so a channel's words start at its index times
 * that number in its stream).
 */
import { InvalidArgumentError, Philox } from '../core/index.js';
import type { ChannelSpan } from './types.js';

/** Throws unless the span's numbers are non-negative safe integers (perStream, streamStep positive). */
export function checkSpan(span: ChannelSpan): void {
  for (const [k, v] of Object.entries(span)) {
    const min = k === 'perStream' || k === 'streamStep' ? 1 : 0;
    if (!Number.isSafeInteger(v) || v < min)
      throw new InvalidArgumentError(`channel span ${k} must be an integer >= ${min}, got ${String(v)}`, {
        option: k,
      });
  }
}

/**
 * The span's channels, `reals` numbers each: `draw(rng, n)` draws n consecutive channels of a
 * stream from the reader it is given, which stands at the first one's words (`words` words a
 * channel).
 */
export function drawSpan(
  span: ChannelSpan,
  words: number,
  reals: number,
  draw: (rng: Philox, n: number) => Float64Array,
): Float64Array {
  checkSpan(span);
  const out = new Float64Array(span.count * reals);
  let q = span.first,
    done = 0;
  while (done < span.count) {
    const s = Math.floor(q / span.perStream),
      at = q % span.perStream;
    const n = Math.min(span.count - done, span.perStream - at);
    const rng = new Philox(span.seed, span.stream0 + s * span.streamStep);
    if (at > 0) rng.seek(at * words);
    out.set(draw(rng, n), done * reals);
    done += n;
    q += n;
  }
  return out;
}

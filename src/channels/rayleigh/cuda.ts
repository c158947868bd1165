/**
 * iid Rayleigh fading on the GPU (rayleigh.cu): the CPU generator's values (rayleighChannels on the
 * same Philox streams), a thread a pair of entries, in float64 and rounded to float32.
 */
import { loadModule, readKernelSource } from '../../gpu/index.js';
import { checkSpan } from '../span.js';
import type { ChannelCuda } from '../types.js';

/** Threads a block. */
const BLOCK = 256;

/** The model's CUDA side. */
export const rayleighCuda: ChannelCuda = {
  plan(ctx, shape) {
    const kernel = loadModule(ctx, {
      source: readKernelSource(new URL('./rayleigh.cu', import.meta.url)),
      name: 'channels/rayleigh/rayleigh.cu',
      defines: { CHANNEL_BLOCK: BLOCK },
    }).kernel('rayleigh_channels', ['ptr', 'ptr', 'i64', 'i64', 'i64', 'i64', 'i64', 'i32', 'i32']);
    const pairs = shape.nr * shape.nt;
    return {
      enqueue(stream, span, b) {
        checkSpan(span);
        if (span.count === 0) return;
        kernel.launch({ grid: Math.ceil((span.count * pairs) / BLOCK), block: BLOCK, stream }, [
          b.H64,
          b.H32,
          span.seed,
          span.stream0,
          span.streamStep,
          span.perStream,
          span.first,
          span.count,
          pairs,
        ]);
      },
    };
  },
};

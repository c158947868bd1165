/** The AWGN channel on the GPU (identity.cu): H = I in float64 and float32, no Philox words read. */
import { loadModule, readKernelSource } from '../../gpu/index.js';
import { checkSpan } from '../span.js';
import type { ChannelCuda } from '../types.js';

/** Threads a block. */
const BLOCK = 256;

/** The model's CUDA side. */
export const identityCuda: ChannelCuda = {
  plan(ctx, shape) {
    const kernel = loadModule(ctx, {
      source: readKernelSource(new URL('./identity.cu', import.meta.url)),
      name: 'channels/awgn/identity.cu',
      defines: { CHANNEL_BLOCK: BLOCK },
    }).kernel('identity_channels', ['ptr', 'ptr', 'i32', 'i32', 'i32']);
    const pairs = shape.nr * shape.nt;
    return {
      enqueue(stream, span, b) {
        checkSpan(span);
        if (span.count === 0) return;
        kernel.launch({ grid: Math.ceil((span.count * pairs) / BLOCK), block: BLOCK, stream }, [
          b.H64,
          b.H32,
          span.count,
          pairs,
          shape.nr,
        ]);
      },
    };
  },
};

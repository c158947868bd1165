/**
 * Flat Rician fading on the GPU (rician.cu): the CPU generator's values (ricianGenerator on the
 * same Philox streams), a thread a complex entry, in float64 and rounded to float32. H_LOS and the
 * gains come from ricianParts, the CPU's own numbers; H_LOS lives in a device buffer the plan holds
 * (2 nr nt doubles: up to 64 KiB at 64 x 64, past what kernel parameters take), freed by free().
 */
import { DeviceBuffer, loadModule, readKernelSource } from '../../gpu/index.js';
import { checkSpan } from '../span.js';
import type { ChannelCuda } from '../types.js';
import { type RicianParams, ricianParts } from './cpu.js';

/** Threads a block. */
const BLOCK = 256;

/** The model's CUDA side. */
export const ricianCuda: ChannelCuda<RicianParams> = {
  plan(ctx, shape, params) {
    const kernel = loadModule(ctx, {
      source: readKernelSource(new URL('./rician.cu', import.meta.url)),
      name: 'channels/rician/rician.cu',
      defines: { CHANNEL_BLOCK: BLOCK },
    }).kernel('rician_channels', ['ptr', 'ptr', 'ptr', 'f64', 'f64', 'i64', 'i64', 'i64', 'i64', 'i64', 'i32', 'i32']);
    const { los, scatter, L } = ricianParts(shape, params);
    const los64 = DeviceBuffer.alloc(ctx, L.byteLength);
    los64.upload(L);
    const pairs = shape.nr * shape.nt;
    return {
      enqueue(stream, span, b) {
        checkSpan(span);
        if (span.count === 0) return;
        kernel.launch({ grid: Math.ceil((span.count * pairs) / BLOCK), block: BLOCK, stream }, [
          b.H64,
          b.H32,
          los64.ptr,
          los,
          scatter,
          span.seed,
          span.stream0,
          span.streamStep,
          span.perStream,
          span.first,
          span.count,
          pairs,
        ]);
      },
      free: () => los64.free(),
    };
  },
};

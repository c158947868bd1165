/**
 * Kronecker correlated Rayleigh fading on the GPU (kronecker.cu): the CPU generator's values
 * (kroneckerGenerator on the same Philox streams), max(nr, nt) threads a channel, in float64 and
 * rounded to float32. The factors come from kroneckerFactors, the CPU's own numbers, in a device
 * buffer the plan holds (2 (nr^2 + nt^2) doubles: up to 128 KiB at 64 x 64), freed by free().
 */
import { DeviceBuffer, loadModule, readKernelSource } from '../../gpu/index.js';
import { checkSpan } from '../span.js';
import type { ChannelCuda } from '../types.js';
import { type KroneckerParams, kroneckerFactors } from './cpu.js';

/** Threads a block: whole channels of max(nr, nt) threads each (a channel of more than this many loops). */
const BLOCK = 128;

/** The model's CUDA side. */
export const kroneckerCuda: ChannelCuda<KroneckerParams> = {
  plan(ctx, shape, params) {
    const kernel = loadModule(ctx, {
      source: readKernelSource(new URL('./kronecker.cu', import.meta.url)),
      name: 'channels/kronecker/kronecker.cu',
      defines: { CHANNEL_BLOCK: BLOCK },
    }).kernel('kronecker_channels', [
      'ptr',
      'ptr',
      'ptr',
      'i32',
      'i32',
      'i64',
      'i64',
      'i64',
      'i64',
      'i64',
      'i32',
      'i32',
      'i32',
      'i32',
    ]);
    const { nt, nr } = shape;
    const { Lr, Lt } = kroneckerFactors(shape, params);
    // Lr then Lt; an identity side is skipped by the kernel and keeps its place zero-filled
    const host = new Float64Array(2 * (nr * nr + nt * nt));
    if (Lr) host.set(Lr, 0);
    if (Lt) host.set(Lt, 2 * nr * nr);
    const factors = DeviceBuffer.alloc(ctx, host.byteLength);
    factors.upload(host);
    const lanes = Math.min(Math.max(nr, nt), BLOCK);
    const perBlock = Math.floor(BLOCK / lanes);
    return {
      enqueue(stream, span, b) {
        checkSpan(span);
        if (span.count === 0) return;
        kernel.launch({ grid: Math.ceil(span.count / perBlock), block: BLOCK, stream }, [
          b.H64,
          b.H32,
          factors.ptr,
          Lr ? 1 : 0,
          Lt ? 1 : 0,
          span.seed,
          span.stream0,
          span.streamStep,
          span.perStream,
          span.first,
          span.count,
          nr,
          nt,
          lanes,
        ]);
      },
      free: () => factors.free(),
    };
  },
};

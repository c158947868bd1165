/**
 * The device's two ceilings, measured once per benchmark (the floors of every GPU figure divide
 * by them): device-memory bandwidth (a large device-to-device copy, bytes read plus bytes
 * written), the host link (pinned host-to-device and device-to-host copies), and the arithmetic
 * rate (ceilings.cu: independent multiply-add chains over a full grid), in float64 with separate
 * multiply and add instructions as the lattice kernels run them (-fmad=false), in float64 with
 * fused multiply-add, and in float32. Times are CUDA-event times, median of the repetitions.
 */
import { Stream, timeOnStream } from '../../src/gpu/stream.js';
import { DeviceBuffer, PinnedBuffer } from '../../src/gpu/memory.js';
import { loadModule, readKernelSource } from '../../src/gpu/module-cache.js';
import type { CudaContext } from '../../src/gpu/context.js';

const KERNEL_URL = new URL('./ceilings.cu', import.meta.url);

export interface DeviceCeilings {
  /** Device-to-device copy: (bytes read + bytes written) per second. */
  deviceBytesPerS: number;
  /** Pinned host memory to device, bytes per second. */
  hostToDeviceBytesPerS: number;
  /** Device to pinned host memory, bytes per second. */
  deviceToHostBytesPerS: number;
  /** float64 operations per second with each multiply and add its own instruction (how the lattice kernels compute). */
  fp64OpsPerS: number;
  /** float64 flops per second with fused multiply-add (2 per FMA). */
  fp64FmaFlopsPerS: number;
  /** float32 flops per second with fused multiply-add. */
  fp32FmaFlopsPerS: number;
  /** Sizes used, for the report. */
  copyBytes: number;
  hostCopyBytes: number;
}

const MiB = 2 ** 20;

/** Measures the ceilings (about a second of device time). */
export function measureCeilings(
  ctx: CudaContext,
  opts: { copyBytes?: number; hostCopyBytes?: number; reps?: number } = {},
): DeviceCeilings {
  const reps = opts.reps ?? 7;
  const copyBytes = opts.copyBytes ?? Math.min(1024 * MiB, Math.floor(ctx.memInfo().freeBytes / 8 / MiB) * MiB);
  const hostCopyBytes = opts.hostCopyBytes ?? 256 * MiB;
  ctx.makeCurrent();
  const stream = Stream.create(ctx);
  const bufs: Array<DeviceBuffer | PinnedBuffer> = [];
  try {
    // device-to-device copy, bytes read plus bytes written
    const a = DeviceBuffer.alloc(ctx, copyBytes);
    bufs.push(a);
    const b = DeviceBuffer.alloc(ctx, copyBytes);
    bufs.push(b);
    a.fill(0x3c);
    const d2dMs = timeOnStream(ctx, stream, () => b.copyFromAsync(a, stream, copyBytes), reps, 1).medianMs;
    const deviceBytesPerS = (2 * copyBytes) / (d2dMs / 1000);

    const h = PinnedBuffer.alloc(ctx, hostCopyBytes);
    bufs.push(h);
    h.u8().fill(0x5a);
    const h2d = timeOnStream(ctx, stream, () => a.uploadAsync(h, stream, hostCopyBytes), reps, 1).medianMs;
    const d2h = timeOnStream(ctx, stream, () => a.downloadAsync(h, stream, hostCopyBytes), reps, 1).medianMs;

    const rate = (real: 'float' | 'double', fmad: boolean): number => {
      const mod = loadModule(ctx, {
        source: readKernelSource(KERNEL_URL),
        name: 'bench/gpu/ceilings.cu',
        defines: { REAL: real },
        options: fmad ? [] : ['-fmad=false'],
      });
      const k = mod.kernel('mad_chains', [
        'ptr',
        real === 'float' ? 'f32' : 'f64',
        real === 'float' ? 'f32' : 'f64',
        'i32',
      ]);
      const threads = 256;
      const blocks =
        ctx.props.multiprocessors * Math.max(1, Math.floor(ctx.props.maxThreadsPerMultiprocessor / threads)) * 4;
      const iters = real === 'float' ? 8192 : 2048;
      const ms = timeOnStream(
        ctx,
        stream,
        () => k.launch({ grid: blocks, block: threads, stream }, [a.ptr, 0.999999, 1e-6, iters]),
        reps,
        1,
      ).medianMs;
      const ops = blocks * threads * iters * 8 /* CHAINS */ * 2;
      return ops / (ms / 1000);
    };
    return {
      deviceBytesPerS,
      hostToDeviceBytesPerS: hostCopyBytes / (h2d / 1000),
      deviceToHostBytesPerS: hostCopyBytes / (d2h / 1000),
      fp64OpsPerS: rate('double', false),
      fp64FmaFlopsPerS: rate('double', true),
      fp32FmaFlopsPerS: rate('float', true),
      copyBytes,
      hostCopyBytes,
    };
  } finally {
    for (const x of bufs) x.free();
    stream.destroy();
  }
}

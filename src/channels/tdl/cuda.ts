/**
 * The TDL models on the GPU: tdl-taps.cu draws each (drop, time, tap) matrix from the CPU's Philox
 * words (an entry a thread), tdl-correlate.cu applies the antenna correlation, tdl-grid.cu sums the
 * taps at each frequency with the host's rotations; the CPU generator's values (up to the last ulp
 * of the device's cos, sin and log), in float64 and float32. draw() is the response at time and
 * frequency 0, as on the CPU.
 */
import { type CudaContext, loadModule, readKernelSource, type Stream } from '../../gpu/index.js';
import { DeviceScratch } from '../device-scratch.js';
import { DeviceUploads, pointTables, selectivePlan, tapSumStage } from '../selective-plan.js';
import { checkSpan } from '../span.js';
import type {
  ChannelBuffers,
  ChannelCuda,
  ChannelCudaPlan,
  ChannelShape,
  ChannelSpan,
  ResponsePoints,
} from '../types.js';
import { losRate, type TdlParams, tapRotations, tdlSetup } from './cpu.js';
import type { TdlName } from './tables.js';

const TAPS_BLOCK = 128;

/** The CUDA side of one TDL model. */
export function tdlCuda(name: TdlName): ChannelCuda<TdlParams> {
  return {
    plan(ctx: CudaContext, shape: ChannelShape, params: TdlParams): ChannelCudaPlan {
      const { nt, nr } = shape;
      const E = nr * nt;
      const s = tdlSetup(name, shape, params);
      const los = s.taps.los ? 1 : 0;
      const taps = s.L + los;
      const tapsKernel = loadModule(ctx, {
        source: readKernelSource(new URL('./tdl-taps.cu', import.meta.url)),
        name: 'channels/tdl/tdl-taps.cu',
        defines: { TDL_BLOCK: TAPS_BLOCK },
      }).kernel('tdl_taps', [
        'ptr',
        'ptr',
        'i64',
        'i64',
        'i64',
        'i64',
        'i64',
        'i32',
        'i32',
        'i32',
        'i32',
        'i32',
        'i32',
        'i32',
        'f64',
        'f64',
        'f64',
      ]);
      const correlateKernel =
        s.Lr || s.Lt
          ? loadModule(ctx, {
              source: readKernelSource(new URL('./tdl-correlate.cu', import.meta.url)),
              name: 'channels/tdl/tdl-correlate.cu',
              defines: { TDL_BLOCK: TAPS_BLOCK },
            }).kernel('tdl_correlate', ['ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'])
          : null;
      const tapSum = tapSumStage(ctx);
      const uploads = new DeviceUploads(ctx);
      const upload = (a: Float64Array) => uploads.upload(a);
      const Lr = s.Lr ? upload(s.Lr) : null,
        Lt = s.Lt ? upload(s.Lt) : null;
      const A = new DeviceScratch(ctx),
        tmp = new DeviceScratch(ctx);
      const pointsOf = pointTables((at) => ({ times: upload(at.times), rot: upload(tapRotations(s.taps, at.freqs)) }));
      const response = (stream: Stream, span: ChannelSpan, at: ResponsePoints, b: ChannelBuffers): void => {
        checkSpan(span);
        if (span.count === 0) return;
        const T = at.times.length,
          F = at.freqs.length;
        const p = pointsOf(at);
        const bytes = span.count * T * taps * E * 16;
        const a = A.at(bytes);
        const threads = span.count * T * taps * E;
        tapsKernel.launch({ grid: Math.ceil(threads / TAPS_BLOCK), block: TAPS_BLOCK, stream }, [
          a,
          p.times.ptr,
          span.seed,
          span.stream0,
          span.streamStep,
          span.perStream,
          span.first,
          span.count,
          T,
          nt,
          nr,
          s.L,
          los,
          s.M,
          1 / Math.sqrt(2 * s.M),
          2 * Math.PI * s.fD,
          losRate(s.fD),
        ]);
        if (correlateKernel) {
          const mats = span.count * T * s.L;
          correlateKernel.launch({ grid: Math.ceil(mats / TAPS_BLOCK), block: TAPS_BLOCK, stream }, [
            a,
            tmp.at(bytes),
            Lr?.ptr ?? 0n,
            Lt?.ptr ?? 0n,
            span.count,
            T,
            nt,
            nr,
            s.L,
            los,
          ]);
        }
        tapSum.enqueue(stream, b, a, p.rot.ptr, { count: span.count, T, F, slots: taps, E });
      };
      return selectivePlan(response, () => {
        uploads.free();
        A.free();
        tmp.free();
      });
    },
  };
}

/**
 * Kernel-only timing of a CUDA detector with its data already on the device ("data on the GPU"):
 * the batch (float32) is uploaded once and normalized once (normalize.cu, untimed: idempotent),
 * then `reps` runs of the plan's kernels, each between two CUDA events, after a warm-up run that
 * also loads the modules; status words are zeroed before each run, outside the timed region. With
 * a plan that lists stages, each stage is timed on its own as well (same data, same order).
 *
 * The results of the last run are read back so a caller can check them against the CPU engine.
 */
import { requireCuda, type CudaContext } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { CudaEvent, Stream } from '../../src/gpu/stream.js';
import { validateDetection } from '../../src/mimo/detect.js';
import { cudaSetup, enqueueNormalize } from '../../src/mimo/gpu/detect-batch.js';
import type { CudaDetectorPlan, CudaDetectorSetup, DetectChunk } from '../../src/mimo/gpu/cuda-detector.js';
import { STATUS_WORDS } from '../../src/mimo/gpu/status.js';
import { DETECTOR_REGISTRY } from '../../src/mimo/registry.js';
import type { DetectionInput, DetectOptions } from '../../src/mimo/types.js';

export interface DetectorKernelTiming {
  /** Median event time of the plan's whole enqueue, ms. */
  medianMs: number;
  minMs: number;
  /** Median time of each stage run alone, ms (plans with stages). */
  stagesMs: Record<string, number>;
  symbols: Int32Array;
  llr: Float32Array | null;
  /** STATUS_WORDS ints a vector. */
  status: Int32Array;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const align = (x: number): number => Math.ceil(x / 256) * 256;

/**
 * Times `reps` runs of the detector's kernels on `input` (vectors = channels x vectorsPerChannel).
 * `create` makes the plan instead of the registry's CUDA detector (a tuning of its launch shape).
 */
export async function timeDetectorKernels(
  input: DetectionInput,
  opts: DetectOptions,
  reps: number,
  create?: (ctx: CudaContext, setup: CudaDetectorSetup) => CudaDetectorPlan,
): Promise<DetectorKernelTiming> {
  const ctx = requireCuda();
  ctx.makeCurrent();
  const val = validateDetection(input, opts);
  const entry = DETECTOR_REGISTRY[val.opts.detector];
  if (!entry.cuda) throw new Error(`${val.opts.detector} has no CUDA implementation`);
  const impl = await entry.cuda();
  const setup = cudaSetup(ctx, val, impl);
  const plan = create ? create(ctx, setup) : impl.create(ctx, setup);
  const { nr, nt, channels, vectorsPerChannel: vpc } = val;
  const vectors = channels * vpc;
  if (vectors !== val.vectors)
    throw new Error('timeDetectorKernels needs whole channels (vectors = channels x vectorsPerChannel)');
  const bps = setup.constellation.bitsPerSymbol;
  const H = Float32Array.from(input.H),
    y = Float32Array.from(input.y);
  const noise =
    typeof input.noiseVar === 'number'
      ? new Float32Array(vectors).fill(input.noiseVar)
      : Float32Array.from(input.noiseVar);
  // one arena: H, y, noise in, noise out, symbols, llr, status, scratch regions
  const sizes = [
    H.byteLength,
    y.byteLength,
    noise.byteLength,
    vectors * 4,
    vectors * nt * 4,
    setup.soft ? vectors * nt * bps * 4 : 0,
    vectors * STATUS_WORDS * 4,
    ...plan.scratchBytesPerChannel.map((b) => b * channels),
  ];
  const offsets: number[] = [];
  let total = 0;
  for (const b of sizes) {
    offsets.push(total);
    total += align(Math.max(b, 1));
  }
  const arena = DeviceBuffer.alloc(ctx, total);
  const stream = Stream.create(ctx);
  const at = (i: number): bigint => arena.ptr + BigInt(offsets[i]!);
  const events = Array.from({ length: 2 * reps }, () => CudaEvent.create(ctx));
  try {
    arena.upload(H, offsets[0]);
    arena.upload(y, offsets[1]);
    arena.upload(noise, offsets[2]);
    const statusBytes = vectors * STATUS_WORDS * 4;
    arena.fillRange(offsets[6]!, statusBytes, 0, stream);
    enqueueNormalize(
      ctx,
      stream,
      { H: at(0), y: at(1), noiseIn: at(2), noiseScalar: 0, noiseOut: at(3), status: at(6) },
      channels,
      vpc,
      nr,
      nt,
    );
    const chunk: DetectChunk = {
      channels,
      vectorsPerChannel: vpc,
      H: at(0),
      y: at(1),
      noise: at(3),
      symbols: at(4),
      llr: setup.soft ? at(5) : 0n,
      status: at(6),
      scratch: plan.scratchBytesPerChannel.map((_, k) => at(7 + k)),
    };
    const timeRuns = (work: () => void): number[] => {
      arena.fillRange(offsets[6]!, statusBytes, 0, stream);
      work();
      stream.synchronize(); // warm-up: modules loaded, first launch's errors raised
      for (let r = 0; r < reps; r++) {
        arena.fillRange(offsets[6]!, statusBytes, 0, stream);
        events[2 * r]!.record(stream);
        work();
        events[2 * r + 1]!.record(stream);
      }
      stream.synchronize();
      return Array.from({ length: reps }, (_, r) => events[2 * r + 1]!.elapsedSince(events[2 * r]!));
    };
    const stagesMs: Record<string, number> = {};
    for (const st of plan.stages ?? []) {
      // the stages before it run untimed first, so each stage sees its real input
      const before = plan.stages!.slice(0, plan.stages!.indexOf(st));
      for (const b of before) b.enqueue(stream, chunk);
      stagesMs[st.name] = median(timeRuns(() => st.enqueue(stream, chunk)));
    }
    const samples = timeRuns(() => plan.enqueue(stream, chunk));
    const symbols = new Int32Array(vectors * nt),
      status = new Int32Array(vectors * STATUS_WORDS);
    const llr = setup.soft ? new Float32Array(vectors * nt * bps) : null;
    arena.download(symbols, offsets[4]);
    if (llr) arena.download(llr, offsets[5]);
    arena.download(status, offsets[6]);
    return { medianMs: median(samples), minMs: Math.min(...samples), stagesMs, symbols, llr, status };
  } finally {
    for (const e of events) e.destroy();
    stream.destroy();
    arena.free();
  }
}

/**
 * The GPU engine of detection: a batch of channels, each with its vectorsPerChannel received
 * vectors, through one CUDA detector on the domain-free batch runner (src/gpu/batch-runner.ts).
 * A runner item is one channel: its H, its vectors' y (and N0 when given per vector) go up; its
 * vectors' symbols (and LLRs) come down into the caller's arrays; STATUS_WORDS int32 a vector say
 * what happened (status.ts), and SUMMARY_WORDS a channel sum them up for the host. Each chunk runs
 * normalize.cu, the detector's kernels, then status-summary.cu; a plan that fuses either stage
 * (CudaDetectorPlan.fuses) does it in its own first or last kernel instead.
 *
 * float32 input is uploaded as it is (pinned arrays, see allocPinned, without a staging copy) and
 * normalized on the device; float64 input is brought to float32 here, scaled per channel by the
 * same power of two on the way. The status words then go through the one fallback policy
 * (mimo/fallback.ts): typed errors as the CPU engine gives them, the unproven mask, or a redo of
 * the vector on the CPU engine in float64.
 */
import { InvalidInputError, LatticeMimoError, withContext } from '../../core/index.js';
import {
  runBatch,
  type HostRecords,
  requireCuda,
  type CudaContext,
  downloadFromAddress,
  type Kernel,
  type Stream,
  loadModule,
  readKernelSource,
} from '../../gpu/index.js';
import { maxNodesOf, nodeBudgetError, onBudgetOf } from '../budget.js';
import {
  channelShift,
  checkFinite,
  detectCpu,
  LLR_LIMIT,
  scaledNoise,
  scaleInto,
  validateDetection,
  yTooLarge,
  yTooLargeError,
  type ValidatedInput,
} from '../detect.js';
import { remedy } from '../fallback.js';
import { constellation, symbolsToBits } from '../modulation.js';
import { detectorEntry } from '../registry.js';
import type { DetectionInput, DetectionResult } from '../types.js';
import type { CudaDetector, CudaDetectorPlan, CudaDetectorSetup, Float64Kernel } from './cuda-detector.js';
import { STATUS_WORDS, SUMMARY_WORDS } from './status.js';

/**
 * |LLR| bound of the GPU engine's soft output (float32): LLRs past it (a tiny N0) are saturated
 * there, so they stay finite and sums of many stay below float32's largest number.
 */
export const GPU_LLR_LIMIT = 1e30;

/** N0 after scaling is held in [2^-100, 2^100] on the GPU (float32's range with room for metrics). */
const GPU_NOISE_FLOOR = 2 ** -100;
/** Upper end of the scaled N0's range on the GPU (2^100). */
export const GPU_NOISE_CEIL = 2 ** 100;

/** Arrays the GPU engine writes its results into (pinned ones, from allocPinned, are copied straight). */
export interface DetectOutputs {
  /** vectors x nt symbol indices. */
  readonly symbols?: Int32Array;
  /** vectors x nt x bitsPerSymbol LLRs (soft detectors). */
  readonly llr?: Float32Array;
}

/**
 * The normalize stage's launch for `channels` channels (engine and benchmarks): normalize.cu, or
 * normalize-single.cu for one vector a channel (a group of lanes a channel); with `summary`,
 * it writes the channels' summary heads too (of the first `realVectors` vectors, default all).
 */
export function enqueueNormalize(
  ctx: CudaContext,
  stream: Stream,
  a: {
    H: bigint;
    y: bigint;
    noiseIn: bigint;
    noiseScalar: number;
    noiseOut: bigint;
    status: bigint;
    summary?: bigint;
    realVectors?: number;
  },
  channels: number,
  vpc: number,
  nr: number,
  nt: number,
): void {
  const hLen = 2 * nr * nt,
    yLen = 2 * nr,
    realVectors = a.realVectors ?? channels * vpc;
  const head = [a.H, a.y, a.noiseIn, a.noiseScalar, a.noiseOut, a.status, a.summary ?? 0n, channels] as const;
  // one vector a channel (OFDM grids): a group of lanes a channel instead of a warp
  if (vpc === 1 && hLen <= 4 * NORMALIZE_LANES)
    normalizeKernels(ctx).single.launch(
      { grid: Math.ceil(channels / ((NORMALIZE_WARPS * 32) / NORMALIZE_LANES)), block: 32 * NORMALIZE_WARPS, stream },
      [...head, hLen, yLen, realVectors],
    );
  else
    normalizeKernels(ctx).warp.launch(
      { grid: Math.ceil(channels / NORMALIZE_WARPS), block: 32 * NORMALIZE_WARPS, stream },
      [...head, vpc, hLen, yLen, realVectors],
    );
}

let normalizeKernel: { ctx: CudaContext; warp: Kernel; single: Kernel } | null = null;
let summaryKernel: { ctx: CudaContext; kernel: Kernel } | null = null;

const SUMMARY_WARPS = 4;

/** status-summary.cu's launch: each of `channels` channels' vector status words in SUMMARY_WORDS (the first `valid` vectors). */
export function enqueueSummary(
  ctx: CudaContext,
  stream: Stream,
  status: bigint,
  summary: bigint,
  channels: number,
  vpc: number,
  valid: number,
): void {
  if (summaryKernel?.ctx !== ctx) {
    const kernel = loadModule(ctx, {
      source: readKernelSource(new URL('./status-summary.cu', import.meta.url)),
      name: 'mimo/gpu/status-summary.cu',
      defines: { SUMMARY_WARPS },
    }).kernel('mimo_status_summary', ['ptr', 'ptr', 'i32', 'i32', 'i64']);
    summaryKernel = { ctx, kernel };
  }
  summaryKernel.kernel.launch({ grid: Math.ceil(channels / SUMMARY_WARPS), block: 32 * SUMMARY_WARPS, stream }, [
    status,
    summary,
    channels,
    vpc,
    valid,
  ]);
}
const NORMALIZE_WARPS = 4;
/** Lanes a channel in normalize-single.cu. */
const NORMALIZE_LANES = 8;

function normalizeKernels(ctx: CudaContext): { warp: Kernel; single: Kernel } {
  if (normalizeKernel?.ctx === ctx) return normalizeKernel;
  const load = (file: string, defines: Record<string, number>) =>
    loadModule(ctx, {
      source: readKernelSource(new URL(`./${file}`, import.meta.url)),
      name: `mimo/gpu/${file}`,
      defines,
    });
  const head = ['ptr', 'ptr', 'ptr', 'f32', 'ptr', 'ptr', 'ptr', 'i32'] as const;
  const warp = load('normalize.cu', { WARPS: NORMALIZE_WARPS }).kernel('mimo_normalize', [
    ...head,
    'i32',
    'i32',
    'i32',
    'i64',
  ]);
  const single = load('normalize-single.cu', {
    WARPS: NORMALIZE_WARPS,
    NORM_LANES: NORMALIZE_LANES,
  }).kernel('mimo_normalize_single', [...head, 'i32', 'i32', 'i64']);
  normalizeKernel = { ctx, warp, single };
  return normalizeKernel;
}

/**
 * Nodes visited over `channels` channels' summaries, and the channels with a flagged vector. A
 * function of the module, not a closure of the call: it stays optimised from one batch to the next.
 */
function scanSummary(summary: Int32Array, channels: number): { nodes: number; flagged: number[] } {
  let nodes = 0;
  const flagged: number[] = [];
  for (let i = 0; i < channels; i++) {
    nodes += (summary[i * SUMMARY_WORDS + 2]! >>> 0) + (summary[i * SUMMARY_WORDS + 3]! >>> 0) * 2 ** 32;
    if (summary[i * SUMMARY_WORDS] !== 0) flagged.push(i);
  }
  return { nodes, flagged };
}

/** 0 or a normal float32 (an N0 the kernel can take as it is). */
const fitsFloat32 = (x: number): boolean => x === 0 || (x >= 2 ** -126 && x < 2 ** 127);

/** float32 copies of H, y and N0, each channel scaled by the power of two the CPU engine uses (float64 input). */
function toFloat32(
  input: DetectionInput,
  val: ValidatedInput,
  padded: number,
): { H: Float32Array; y: Float32Array; noise: Float32Array } {
  const { nr, nt, channels, vectors, vectorsPerChannel: vpc } = val;
  const hLen = 2 * nr * nt,
    yLen = 2 * nr;
  const H = new Float32Array(channels * hLen),
    y = new Float32Array(padded * yLen),
    noise = new Float32Array(padded).fill(1);
  for (let c = 0; c < channels; c++) {
    const p = channelShift(input.H, c, hLen);
    scaleInto(input.H, c * hLen, hLen, p, H, c * hLen);
    for (let v = c * vpc; v < Math.min(vectors, (c + 1) * vpc); v++) {
      if (yTooLarge(input.y, v, yLen, p)) throw yTooLargeError(input, val, v);
      scaleInto(input.y, v * yLen, yLen, p, y, v * yLen);
      noise[v] = scaledNoise(val.noiseAt(v), p, GPU_NOISE_FLOOR, GPU_NOISE_CEIL);
    }
  }
  return { H, y, noise };
}

/** The CPU engine's NON_FINITE error for vector v (found by the normalize kernel): names the element, and the vector in details. */
function nonFiniteError(input: DetectionInput, val: ValidatedInput, v: number): InvalidInputError {
  const { nr, nt, vectorsPerChannel: vpc } = val;
  const hLen = 2 * nr * nt,
    c = Math.floor(v / vpc);
  try {
    checkFinite(input.H.subarray(c * hLen, (c + 1) * hLen), 'H', c * hLen, { vector: v });
    checkFinite(input.y.subarray(v * 2 * nr, (v + 1) * 2 * nr), 'y', v * 2 * nr, { vector: v });
  } catch (e) {
    if (e instanceof InvalidInputError) return e;
    throw e;
  }
  return new InvalidInputError('NON_FINITE', `noiseVar[${v}] is not finite`, { vector: v });
}

/** What a CUDA detector is created with for a validated batch (shared with the benchmarks). */
export function cudaSetup(ctx: CudaContext, val: ValidatedInput, impl: CudaDetector): CudaDetectorSetup {
  const opts = val.opts,
    con = constellation(opts.modulation);
  return {
    nr: val.nr,
    nt: val.nt,
    modulation: opts.modulation,
    constellation: con,
    opts,
    soft: detectorEntry(opts.detector)!.traits.soft && impl.soft && opts.soft !== 'none',
    maxNodes: maxNodesOf(opts.maxNodes),
    llrClip: Math.min(opts.llrClip ?? GPU_LLR_LIMIT, GPU_LLR_LIMIT),
    vectorsPerChannel: val.vectorsPerChannel,
    device: ctx.props,
  };
}

/** Plans kept per detector implementation and context, by setup (a call per slot must not rebuild one). */
const plans = new WeakMap<CudaDetector, { ctx: CudaContext; byKey: Map<string, CudaDetectorPlan> }>();
const PLANS_KEPT = 16;

/**
 * impl.create(ctx, setup), or the plan made before for an equal setup: creating one validates the
 * options, derives the kernels' defines and looks their modules up, a tenth of a millisecond that a
 * batch of one 5G slot cannot spare. The key is everything a plan may read but the device and the
 * constellation (both functions of the context and the modulation).
 */
export function planFor(ctx: CudaContext, impl: CudaDetector, setup: CudaDetectorSetup): CudaDetectorPlan {
  let kept = plans.get(impl);
  if (kept?.ctx !== ctx) plans.set(impl, (kept = { ctx, byKey: new Map() }));
  const { device: _d, constellation: _c, opts, ...rest } = setup;
  const { gpuBatch: _g, engine: _e, onBudget: _o, ...planOpts } = opts;
  const key = JSON.stringify([rest, planOpts]);
  let plan = kept.byKey.get(key);
  if (!plan) {
    plan = impl.create(ctx, setup);
    if (kept.byKey.size >= PLANS_KEPT) kept.byKey.delete(kept.byKey.keys().next().value!);
    kept.byKey.set(key, plan);
  }
  return plan;
}

/**
 * Runs a validated batch on the GPU. `out` arrays (pinned ones are copied straight) receive the
 * results when they are long enough.
 */
export async function detectCuda(
  input: DetectionInput,
  val: ValidatedInput,
  impl: CudaDetector,
  t0: number,
  out?: DetectOutputs,
): Promise<DetectionResult> {
  const ctx = requireCuda();
  const { nr, nt, vectors, channels, vectorsPerChannel: vpc } = val;
  const opts = val.opts,
    mod = opts.modulation;
  const entry = detectorEntry(opts.detector)!;
  const setup = cudaSetup(ctx, val, impl);
  const { soft, constellation: con } = setup,
    bps = con.bitsPerSymbol;
  const plan = planFor(ctx, impl, setup);
  const fuses = plan.fuses ?? { normalize: false, summary: false };
  const hLen = 2 * nr * nt,
    yLen = 2 * nr,
    padded = channels * vpc;

  let H: Float32Array,
    y: Float32Array,
    noise: Float32Array | null = null,
    noiseScalar = 0;
  const nv = input.noiseVar;
  const f32Noise = typeof nv === 'number' ? fitsFloat32(nv) : nv instanceof Float32Array || nv.every(fitsFloat32);
  if (input.H instanceof Float32Array && input.y instanceof Float32Array && f32Noise) {
    // float32 as given: the normalize kernel scales each channel on the device
    H = input.H;
    y = input.y;
    if (padded > vectors) {
      y = new Float32Array(padded * yLen);
      y.set(input.y);
    }
    if (typeof nv === 'number') noiseScalar = nv;
    else if (nv instanceof Float32Array && padded === vectors) noise = nv;
    else {
      noise = new Float32Array(padded).fill(1);
      noise.set(nv);
    }
  } else {
    ({ H, y, noise } = toFloat32(input, val, padded));
  }

  const symbols = out?.symbols && out.symbols.length >= padded * nt ? out.symbols : new Int32Array(padded * nt);
  const llr = soft
    ? out?.llr && out.llr.length >= padded * nt * bps
      ? out.llr
      : new Float32Array(padded * nt * bps)
    : null;
  const flagged = new FlaggedVectors(input, val, impl);
  let nodes = 0;
  const vecStatusBytes = vpc * STATUS_WORDS * 4;

  // a-priori LLRs (validated: only detectors whose traits say priors get them), float32, padded
  const priorIn = input.priorLlr,
    pLen = nt * bps;
  let prior: Float32Array | null = null;
  if (priorIn) {
    if (priorIn instanceof Float32Array && padded === vectors) prior = priorIn;
    else {
      prior = new Float32Array(padded * pLen);
      prior.set(priorIn);
    }
  }
  const inputs: HostRecords[] = [
    { array: H, bytesPerItem: hLen * 4 },
    { array: y, bytesPerItem: vpc * yLen * 4 },
    ...(noise ? [{ array: noise, bytesPerItem: vpc * 4 }] : []),
    ...(prior ? [{ array: prior, bytesPerItem: vpc * pLen * 4 }] : []),
  ];
  const outputs: HostRecords[] = [
    { array: symbols, bytesPerItem: vpc * nt * 4 },
    ...(llr ? [{ array: llr, bytesPerItem: vpc * nt * bps * 4 }] : []),
  ];
  await runBatch(ctx, {
    name: `detect ${opts.detector}`,
    items: channels,
    inputs,
    outputs,
    // scratch: the vectors' N0 after scaling, their status words, then the detector's own; what
    // comes back is each channel's summary of its vectors' status (status-summary.cu)
    scratch: [
      { bytesPerItem: vpc * 4 },
      { bytesPerItem: vecStatusBytes },
      ...plan.scratchBytesPerChannel.map((b) => ({ bytesPerItem: b })),
    ],
    statusWords: SUMMARY_WORDS,
    // the summary stage (status-summary.cu, or the normalize stage's heads and the detector's
    // additions) writes every summary word; the call reports no kernel time
    kernelsWriteStatus: true,
    timed: false,
    // a chunk's kernels fill the device: chunk after chunk, so results go down while the next computes
    orderedKernels: true,
    options: opts.gpuBatch,
    enqueue(stream, chunk) {
      const [dH, dY, dNoiseIn] = chunk.inputs as [bigint, bigint, bigint?];
      const dPrior = prior ? chunk.inputs[noise ? 3 : 2]! : 0n;
      const [dNoise, dStatus] = chunk.scratch as [bigint, bigint];
      const noiseIn = noise ? dNoiseIn! : 0n,
        realVectors = Math.min(chunk.count * vpc, vectors - chunk.first * vpc);
      const summary = fuses.summary ? { address: chunk.status, realVectors } : undefined;
      if (!fuses.normalize) {
        enqueueNormalize(
          ctx,
          stream,
          {
            H: dH,
            y: dY,
            noiseIn,
            noiseScalar,
            noiseOut: dNoise,
            status: dStatus,
            summary: summary?.address,
            realVectors,
          },
          chunk.count,
          vpc,
          nr,
          nt,
        );
      }
      plan.enqueue(stream, {
        channels: chunk.count,
        vectorsPerChannel: vpc,
        H: dH,
        y: dY,
        noise: dNoise,
        symbols: chunk.outputs[0]!,
        llr: llr ? chunk.outputs[1]! : 0n,
        status: dStatus,
        scratch: chunk.scratch.slice(2),
        ...(prior ? { prior: dPrior } : {}),
        ...(fuses.normalize ? { normalize: { noiseIn, noiseScalar } } : {}),
        ...(summary ? { summary } : {}),
      });
      if (!fuses.summary) enqueueSummary(ctx, stream, dStatus, chunk.status, chunk.count, vpc, realVectors);
    },
    settle(first, count, summary, chunk) {
      const dStatus = chunk.scratch[1]!;
      const scan = scanSummary(summary, count);
      nodes += scan.nodes;
      for (const i of scan.flagged) {
        // a flagged channel: its vectors' words, still in the chunk's region until its lane runs again
        const words = new Int32Array(vpc * STATUS_WORDS);
        downloadFromAddress(ctx, dStatus + BigInt(i * vecStatusBytes), words);
        for (let k = 0; k < vpc; k++) {
          const v = (first + i) * vpc + k,
            flags = words[k * STATUS_WORDS]!;
          if (v >= vectors) break;
          if (flags !== 0) flagged.add(v, flags);
        }
      }
    },
  });
  const { redoneInFloat64, redoneOnCpu, budgetExceeded, unproven } = await flagged.settle(
    ctx,
    plan,
    setup,
    symbols,
    llr,
  );
  // an output array too short for the padded batch got a fresh one: the results still go into it
  const outSymbols = intoCallers(out?.symbols, symbols, vectors * nt);
  const outLlr = llr ? intoCallers(out?.llr, llr, vectors * nt * bps) : null;
  const stats: DetectionResult['stats'] = {
    detector: opts.detector,
    engine: 'cuda',
    vectors,
    timeMs: performance.now() - t0,
    ...(nodes > 0 ? { nodesVisited: nodes } : {}),
    ...(entry.traits.nodeBudget === 'search' ? { budgetExceeded } : {}),
    ...(redoneInFloat64 > 0 ? { redoneInFloat64 } : {}),
    ...(redoneOnCpu > 0 ? { redoneOnCpu } : {}),
  };
  let bits: Uint8Array | null = null;
  return {
    symbols: outSymbols,
    // hard bits are derived on first use: a caller who reads LLRs only does not pay for them
    get bits(): Uint8Array {
      return (bits ??= symbolsToBits(outSymbols, mod));
    },
    ...(outLlr ? { llr: outLlr } : {}),
    ...(budgetExceeded > 0 && unproven ? { unproven } : {}),
    stats,
  };
}

/**
 * The vectors of a batch that the GPU flagged, settled by the one fallback policy (fallback.ts):
 * add() takes each vector's flags as the device reports them (the CPU engine's NON_FINITE error
 * naming the element, the node-budget rule, or a redo queued); settle() then redoes the queued
 * vectors in float64, on the device where the detector has a float64 kernel and the batch no
 * a-priori LLRs (the CPU engine's answer bit for bit), else on the CPU engine with the vectors'
 * priors, a channel's vectors in one call, and writes their
 * symbols, LLRs and budget flags over the GPU's.
 */
export class FlaggedVectors {
  private readonly redo: number[] = [];
  private readonly redo64: number[] = [];
  // allocated at the first flagged vector: a typed array of a slot's size costs more than its kernels' launches
  private unprovenMask: Uint8Array | null = null;
  private budgetExceeded = 0;
  private readonly traits: { float64Kernel: boolean };

  constructor(
    private readonly input: DetectionInput,
    private readonly val: ValidatedInput,
    private readonly impl: CudaDetector,
  ) {
    // the float64 kernels take no a-priori LLRs: a batch with priors redoes its vectors on the CPU
    // engine, which takes them (redoOnCpu), rather than answer them without
    this.traits = { float64Kernel: impl.float64 !== undefined && input.priorLlr === undefined };
  }

  private unproven(): Uint8Array {
    this.unprovenMask ??= new Uint8Array(this.val.vectors);
    return this.unprovenMask;
  }

  /** Vector v's (non-zero) flags: throws the CPU engine's error, applies the budget rule, or queues a redo. */
  add(v: number, flags: number): void {
    const opts = this.val.opts;
    switch (remedy(flags, this.traits)) {
      case 'non-finite':
        throw nonFiniteError(this.input, this.val, v);
      case 'redo-float64':
        this.redo64.push(v);
        break;
      case 'redo-cpu':
        this.redo.push(v);
        break;
      case 'node-budget': {
        const maxNodes = maxNodesOf(opts.maxNodes);
        if (onBudgetOf(opts.onBudget) === 'error') {
          throw nodeBudgetError(maxNodes, { detector: opts.detector, vector: v });
        }
        this.unproven()[v] = 1;
        this.budgetExceeded++;
        break;
      }
    }
  }

  /**
   * Redoes the queued vectors into `symbols` and `llr` (vectors x nt, vectors x nt x bitsPerSymbol,
   * the batch's layout). Returns how many went to the float64 kernel and to the CPU engine, the
   * vectors whose search stopped at the budget, and their mask (null when none).
   */
  async settle(
    ctx: CudaContext,
    plan: CudaDetectorPlan,
    setup: CudaDetectorSetup,
    symbols: Int32Array,
    llr: Float32Array | null,
  ): Promise<{ redoneInFloat64: number; redoneOnCpu: number; budgetExceeded: number; unproven: Uint8Array | null }> {
    const { input, val } = this;
    const redo = this.redo;
    const mark = (w: number, flag: number): void => {
      if (flag !== 0 || this.unprovenMask) this.unproven()[w] = flag;
    };
    let redoneInFloat64 = 0;
    if (this.redo64.length > 0) {
      const kernel = float64KernelFor(ctx, this.impl, plan, setup);
      const left = kernel
        ? await redoFloat64(ctx, kernel, input, val, this.redo64, symbols, llr, mark, setup.llrClip)
        : this.redo64;
      redoneInFloat64 = this.redo64.length - left.length;
      redo.push(...left);
      redo.sort((a, b) => a - b);
    }
    // the redone vectors come in channel order: a channel's go to the CPU engine together
    const vpc = val.vectorsPerChannel;
    for (let i = 0; i < redo.length; ) {
      const c = Math.floor(redo[i]! / vpc);
      let j = i + 1;
      while (j < redo.length && Math.floor(redo[j]! / vpc) === c) j++;
      const group = redo.slice(i, j);
      for (const v of group) this.budgetExceeded -= this.unprovenMask?.[v] ?? 0;
      redoOnCpu(input, val, group, symbols, llr, mark, setup.llrClip);
      for (const v of group) this.budgetExceeded += this.unprovenMask?.[v] ?? 0;
      i = j;
    }
    return {
      redoneInFloat64,
      redoneOnCpu: redo.length,
      budgetExceeded: this.budgetExceeded,
      unproven: this.unprovenMask,
    };
  }
}

/** The first `length` results, in the caller's array where one was given (copied there if the engine used another). */
function intoCallers<A extends Int32Array | Float32Array>(caller: A | undefined, used: A, length: number): A {
  if (caller && caller !== used) caller.set(used.subarray(0, length));
  const a = caller ?? used;
  return (a.length === length ? a : a.subarray(0, length)) as A;
}

const float64Kernels = new WeakMap<CudaDetectorPlan, Float64Kernel | null>();

/** The detector's float64 kernel for a plan's setup (made once a plan), or null where it does not support the setup. */
function float64KernelFor(
  ctx: CudaContext,
  impl: CudaDetector,
  plan: CudaDetectorPlan,
  setup: CudaDetectorSetup,
): Float64Kernel | null {
  let k = float64Kernels.get(plan);
  if (k === undefined) {
    try {
      k = impl.float64!(ctx, setup);
    } catch (e) {
      if (!(e instanceof LatticeMimoError && e.code === 'UNSUPPORTED')) throw e;
      k = null;
    }
    float64Kernels.set(plan, k);
  }
  return k;
}

/**
 * The float64 kernel's inputs for vectors `vs` (Float64Redo's layouts): each vector's channel, the
 * vector and its N0, scaled as the CPU engine scales them (detectCpu). `todo`: the vectors in
 * the arrays' order; `left`: those the CPU engine's own checks refuse (a vector too large for its channel).
 */
export function float64RedoInputs(
  input: DetectionInput,
  val: ValidatedInput,
  vs: readonly number[],
): { todo: number[]; left: number[]; H: Float64Array; y: Float64Array; noise: Float64Array } {
  const { nr, nt, vectorsPerChannel: vpc } = val;
  const hLen = 2 * nr * nt,
    yLen = 2 * nr;
  const left: number[] = [],
    todo: number[] = [],
    shift: number[] = [];
  for (const v of vs) {
    const p = channelShift(input.H, Math.floor(v / vpc), hLen);
    if (yTooLarge(input.y, v, yLen, p)) left.push(v);
    else {
      todo.push(v);
      shift.push(p);
    }
  }
  const n = todo.length;
  const H = new Float64Array(n * hLen),
    y = new Float64Array(n * yLen),
    noise = new Float64Array(n);
  todo.forEach((v, i) => {
    const p = shift[i]!;
    scaleInto(input.H, Math.floor(v / vpc) * hLen, hLen, p, H, i * hLen);
    scaleInto(input.y, v * yLen, yLen, p, y, i * yLen);
    noise[i] = scaledNoise(val.noiseAt(v), p);
  });
  return { todo, left, H, y, noise };
}

/**
 * Vectors `vs` again in float64 on the device (the detector's float64 kernel, the CPU engine's
 * answer bit for bit): each with its channel, scaled as the CPU engine scales them. Their symbols
 * and LLRs (saturated as redoOnCpu saturates them) replace the GPU's. Returns the vectors the
 * kernel did not answer and those the CPU engine's own checks refuse, for the CPU engine.
 */
async function redoFloat64(
  ctx: CudaContext,
  kernel: Float64Kernel,
  input: DetectionInput,
  val: ValidatedInput,
  vs: readonly number[],
  symbols: Int32Array,
  llr: Float32Array | null,
  markUnproven: (v: number, flag: number) => void,
  llrLimit: number,
): Promise<number[]> {
  const { nr, nt } = val;
  // w: LLRs a vector (symbols and llr are sized alike: nt and nt x bitsPerSymbol a vector)
  const hLen = 2 * nr * nt,
    yLen = 2 * nr,
    w = llr ? nt * (llr.length / symbols.length) : 0;
  const { todo, left, H, y, noise } = float64RedoInputs(input, val, vs);
  const n = todo.length;
  if (n === 0) return left;
  const sym = new Int32Array(n * nt),
    l64 = llr ? new Float64Array(n * w) : null;
  // the CPU engine's clip (detectCpu), then redoOnCpu's saturation: one clamp at the smaller bound
  const clip = Math.min(val.opts.llrClip ?? LLR_LIMIT, LLR_LIMIT, llrLimit);
  await runBatch(ctx, {
    name: `detect ${val.opts.detector} (float64 redo)`,
    items: n,
    inputs: [
      { array: H, bytesPerItem: hLen * 8 },
      { array: y, bytesPerItem: yLen * 8 },
      { array: noise, bytesPerItem: 8 },
    ],
    outputs: [{ array: sym, bytesPerItem: nt * 4 }, ...(l64 ? [{ array: l64, bytesPerItem: w * 8 }] : [])],
    scratch: [],
    statusWords: STATUS_WORDS,
    kernelsWriteStatus: true,
    timed: false,
    enqueue(stream, chunk) {
      const [dH, dY, dNoise] = chunk.inputs as [bigint, bigint, bigint];
      kernel.enqueue(stream, {
        count: chunk.count,
        H: dH,
        y: dY,
        noise: dNoise,
        symbols: chunk.outputs[0]!,
        llr: l64 ? chunk.outputs[1]! : 0n,
        status: chunk.status,
      });
    },
    settle(first, count, status) {
      for (let i = first; i < first + count; i++) {
        const v = todo[i]!;
        if (status[(i - first) * STATUS_WORDS] !== 0 || l64?.subarray(i * w, (i + 1) * w).some(Number.isNaN)) {
          left.push(v);
          continue;
        }
        symbols.set(sym.subarray(i * nt, (i + 1) * nt), v * nt);
        if (llr && l64) for (let b = 0; b < w; b++) llr[v * w + b] = Math.min(Math.max(l64[i * w + b]!, -clip), clip);
        markUnproven(v, 0);
      }
    },
  });
  return left;
}

/**
 * Vectors `group` (all of one channel) again on the CPU engine in float64, in one call; their
 * symbols, LLRs (saturated at llrLimit) and budget flags (markUnproven) replace the GPU's. Should
 * the call fail, each vector is redone alone, so the error names the vector and its channel.
 */
function redoOnCpu(
  input: DetectionInput,
  val: ValidatedInput,
  group: readonly number[],
  symbols: Int32Array,
  llr: Float32Array | null,
  markUnproven: (v: number, flag: number) => void,
  llrLimit: number,
): void {
  const { nr, nt, vectorsPerChannel: vpc } = val;
  const hLen = 2 * nr * nt,
    yLen = 2 * nr,
    c = Math.floor(group[0]! / vpc);
  const H = Float64Array.from(input.H.subarray(c * hLen, (c + 1) * hLen));
  const detectGroup = (vs: readonly number[]): DetectionResult => {
    const y = new Float64Array(vs.length * yLen);
    vs.forEach((v, k) => {
      y.set(input.y.subarray(v * yLen, (v + 1) * yLen), k * yLen);
    });
    const prior = input.priorLlr,
      pLen = prior ? prior.length / val.vectors : 0;
    const batch: DetectionInput = {
      nt,
      nr,
      H,
      y,
      vectorsPerChannel: vs.length,
      noiseVar: Float64Array.from(vs, (v) => val.noiseAt(v)),
      ...(prior
        ? {
            priorLlr: Float64Array.from(
              { length: vs.length * pLen },
              (_, i) => prior[vs[Math.floor(i / pLen)]! * pLen + (i % pLen)]!,
            ),
          }
        : {}),
    };
    return detectCpu(batch, validateDetection(batch, { ...val.opts, engine: 'cpu' }));
  };
  let r: DetectionResult;
  try {
    r = detectGroup(group);
  } catch (e) {
    if (group.length > 1) {
      for (const v of group) redoOnCpu(input, val, [v], symbols, llr, markUnproven, llrLimit);
      return;
    }
    // the one-vector batch's channel 0 and vector 0 are channel c and vector group[0] of the caller's
    throw withContext(e, { channel: c, vector: group[0]! });
  }
  // LLRs a vector
  const w = r.llr ? r.llr.length / group.length : 0;
  group.forEach((v, k) => {
    symbols.set(r.symbols.subarray(k * nt, (k + 1) * nt), v * nt);
    if (llr && r.llr)
      for (let i = 0; i < w; i++) llr[v * w + i] = Math.min(Math.max(r.llr[k * w + i]!, -llrLimit), llrLimit);
    markUnproven(v, r.unproven?.[k] ?? 0);
  });
}

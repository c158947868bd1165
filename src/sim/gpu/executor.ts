/**
 * The GPU executor of simulation chunks: the whole link on the device. A chunk is whole units
 * (each drawn from its own Philox streams, link.ts); a launch is consecutive units of one SNR point,
 * from one chunk or several (or a piece of one unit larger than a launch), and for each the stream runs
 *   uncoded: link-channels.cu, link-vectors.cu   channels, symbols and y = H s + w from the CPU's streams
 *   OFDM:    in place of link-channels.cu and link-vectors.cu, the slots' responses and ofdm-data.cu,
 *            with estimated CSI then the DM-RS estimators' kernels (ofdm-kernels.ts): whole slots a launch
 *   coded:   link-info.cu, the CUDA encoder, link-symbols.cu, then link-channels.cu and
 *            link-vectors.cu (LINK_CODED): the frames' symbols (coded-kernels.ts)
 *   normalize.cu (the detection engine's)  per-channel power-of-two scaling the detectors assume
 *   per active detector: its plan's kernels, then
 *     uncoded: link-count.cu
 *     coded:   (soft output into an LLR buffer) rate recovery (src/coding/gpu/rate-recovery.cu) when
 *              needed, the layered decoder, link-coded-count.cu (errors of the decoded information
 *              bits); with iterative detection and decoding (idd N), N passes of detection and
 *              decoding, each after the first detecting with the last decoding's extrinsic LLRs as
 *              priors (idd-kernels.ts)
 * and only the counts per unit (and the rare vectors a detector flags: redone on the CPU, or past
 * the node budget: an error, or counted as unproven under onBudget 'flag') come back. Results are per
 * unit, as the CPU's runChunk gives them, so simulate() merges and stops exactly as with the CPU
 * executor: same unit order, same stop rules, same counts for a seed (up to float32 decisions and
 * float32 LLRs, which move the rare frame decoded near a tie).
 *
 * Launches go in order on one stream; two are in flight, so the host merges one while the device
 * computes the next. A launch's device buffers are shared (the stream orders them); its counts
 * and list live in its slot until the host has read them.
 */
import {
  CheckFailedError,
  EngineUnavailableError,
  errorRecord,
  LatticeMimoError,
  withContext,
  type ErrorRecord,
} from '../../core/index.js';
import { CudaEvent, DeviceBuffer, PinnedBuffer, requireCuda, Stream, type CudaContext } from '../../gpu/index.js';
import {
  constellation,
  cudaDetectors,
  detect,
  detectorEntry,
  detectionCudaPlan,
  nodeBudgetError,
  symbolsToBits,
  type DetectionCudaPlan,
  type DetectOptions,
  type Modulation,
  type RedoneVectors,
  type VectorsToRedo,
} from '../../mimo/index.js';
import {
  addCounts,
  COUNT,
  COUNT_FIELDS,
  countErrors,
  emptyChunkResult,
  failureAt,
  type ChunkResult,
  type ChunkTask,
} from '../chunk.js';
import type { FrameDecoder } from '../../coding/index.js';
import { channelEntry, DEFAULT_CHANNEL_MODEL, type ChannelCudaPlan, type ChannelModel } from '../../channels/index.js';
import { checkChunkVectors } from '../chunking.js';
import { codedUnit, codeOf, countDecoded, decodeRange, frameLlrs, type CodedCounts, type CodedSpec } from '../coded.js';
import type { ChunkExecutor } from '../worker-pool.js';
import { CODED_COUNT_WORDS, CodedLinkKernels, type CodedLaunch } from './coded-kernels.js';
import { codedFrameOnCpu, linkVectorOnCpu, ofdmVectorOnCpu } from './cpu-vector.js';
import { IddKernels, runIddPasses } from './idd-kernels.js';
import { LinkKernels } from './link-kernels.js';
import { OfdmLinkKernels } from './ofdm-kernels.js';
import type { LinkChunk } from '../link.js';
import type { OfdmLinkSpec } from '../ofdm-link.js';

/** Vectors a launch holds at most by default (a few hundred MB of device memory for 8x8). */
export const DEFAULT_LAUNCH_VECTORS = 1 << 18;
/** Launches in flight on the stream. */
const SLOTS = 2;
/** Flagged vectors a launch reports with its counts (the full list, on the device, is read back when there are more). */
const LIST_CAP = 64;
/** Coded frames left out for a redo whose LLRs a launch keeps (more are redone wholly on the CPU). */
const FRAME_CAP = 16;

/** What the GPU link runs: the simulation's link and detectors (every one with a CUDA implementation). */
export interface GpuLinkSetup {
  nt: number;
  nr: number;
  modulation: Modulation;
  vectorsPerChannel: number;
  unitVectors: number;
  seed: number;
  detectors: DetectOptions[];
  /** The CUDA device (default 0); this thread's only one (requireCuda). */
  device?: number;
  /** Most vectors per launch (rounded to whole units, or to channel groups and frames for larger units). */
  launchVectors?: number;
  /** The channel model (default 'rayleigh'), and its parameters as checkChannel() returned them. */
  channel?: ChannelModel;
  channelOptions?: Readonly<Record<string, unknown>>;
  /** Coded link: the code, decoder and IDD passes (unitVectors then holds whole frames). */
  coded?: CodedSpec;
  /** OFDM link (vectorsPerChannel 1, unitVectors a slot's data vectors): units are slots, launches whole slots. */
  ofdm?: OfdmLinkSpec;
}

/**
 * Why the GPU link cannot run these detectors on a coded link (null when it can): the CUDA
 * detectors give max-log LLRs, not 'logmap'.
 */
export function codedGpuUnsupported(
  detectors: readonly { detector: DetectOptions['detector']; soft?: DetectOptions['soft'] }[],
): string | null {
  const exact = detectors.find((d) => d.soft === 'logmap');
  return exact ? `the CUDA detectors give max-log LLRs, '${exact.detector}' asks for soft 'logmap'` : null;
}

/**
 * Why the GPU link cannot run iterative detection and decoding (`idd` passes) with these detectors
 * (null when it can, or for one pass): each detector's CUDA kernel must take a-priori LLRs (registry
 * trait `priors` true; 'cpu' means only its CPU implementation does). Names the option and the
 * first detector that cannot.
 */
export function iddGpuUnsupported(
  detectors: readonly { detector: DetectOptions['detector'] }[],
  idd: number | undefined,
): string | null {
  if ((idd ?? 1) <= 1) return null;
  const d = detectors.find((x) => detectorEntry(x.detector)?.traits.priors !== true);
  if (!d) return null;
  const onGpu = cudaDetectors().filter((n) => detectorEntry(n)?.traits.priors === true);
  return `option 'idd' (${idd}) needs detectors whose CUDA kernels take a-priori LLRs (${onGpu.length ? onGpu.join(', ') : 'none'}); the CUDA '${d.detector}' detector takes none`;
}

/** The detectors among `detectors` with no CUDA implementation (empty: the GPU link can run them all). */
export function detectorsWithoutCuda(detectors: readonly { detector: DetectOptions['detector'] }[]): string[] {
  const onGpu = cudaDetectors();
  return [...new Set(detectors.filter((d) => !onGpu.includes(d.detector)).map((d) => d.detector))];
}

interface Pending {
  task: ChunkTask;
  resolve: (r: ChunkResult) => void;
  reject: (e: Error) => void;
  /** The task's counts, filled in as launches settle. */
  result: ChunkResult;
  /** fails[i][d]: detector d's failure at its smallest vector of unit i (ChunkResult.failures). */
  fails: Map<number, ({ vector: number; record: ErrorRecord } | null)[]>;
  /** The task's vectors (its units' sum). */
  total: number;
  /** Vectors of the task already put into launches (whole units, or a piece of a unit larger than a launch). */
  launched: number;
  /** Launches holding part of the task, not yet settled. */
  open: number;
  failed: boolean;
}

interface Launch {
  link: CodedLaunch;
  /** Tasks of the launch in unit order (unit0 is in the first). */
  parts: Pending[];
  /** at[s]: the task and its unit i that the launch's count slot s (unit unit0 + s) belongs to. */
  at: { p: Pending; i: number }[];
  active: number[];
  noiseVar: number;
  slot: number;
}

interface Slot {
  device: DeviceBuffer;
  /** Every flagged vector of the launch, per detector: int32 [count, (vector, flags) x launch vectors]; the head is copied into `device`. */
  lists: DeviceBuffer;
  /** Coded: the LLRs of the frames each detector left out (FRAME_CAP x perFrame float32 a detector). */
  side: DeviceBuffer | null;
  host: PinnedBuffer;
  start: CudaEvent[];
  end: CudaEvent[];
  done: CudaEvent;
  busy: boolean;
}

/** Word i of 64-bit counts read as two 32-bit halves, low first (no BigInt a read: a launch reads four a unit); exact below 2^53. */
const u64 = (a: Uint32Array, i: number) => a[2 * i]! + a[2 * i + 1]! * 4294967296;

export class GpuLinkExecutor implements ChunkExecutor<ChunkTask, ChunkResult> {
  /** Units the executor computes at once (a launch's; simulate() keeps twice this in flight). */
  readonly parallelism: number;
  private readonly stream: Stream;
  private readonly kernels: LinkKernels;
  /** OFDM link: the generation stage that replaces link-vectors.cu. */
  private readonly ofdm: OfdmLinkKernels | null = null;
  private readonly bufs: DeviceBuffer[] = [];
  private readonly points: DeviceBuffer;
  private readonly H64: DeviceBuffer;
  private readonly H32: DeviceBuffer;
  private readonly tx: DeviceBuffer;
  private readonly y32: DeviceBuffer;
  private readonly n0: DeviceBuffer;
  private readonly statusBase: DeviceBuffer;
  private readonly status: DeviceBuffer;
  private readonly rx: DeviceBuffer;
  private readonly scratch: bigint[][];
  /** Coded link: its stages and their buffers (info, cw: frames x k, x nFull bytes; llr; decoder input and outputs). */
  private readonly coded: {
    kernels: CodedLinkKernels;
    info: DeviceBuffer;
    cw: DeviceBuffer;
    llr: DeviceBuffer;
    input: DeviceBuffer | null;
    bits: DeviceBuffer;
    dec: DeviceBuffer;
  } | null;
  /**
   * Iterative detection and decoding (coded, idd > 1): its kernels, the passes, the decoder's
   * posteriors (frames x nFull float32), the priors (vectors x nt x bitsPerSymbol float32) and the
   * symbols of the passes after the first (the first pass's are the ones counted).
   */
  private readonly idd: {
    kernels: IddKernels;
    passes: number;
    posteriors: DeviceBuffer;
    prior: DeviceBuffer;
    rx: DeviceBuffer;
  } | null = null;
  private readonly countWords: number;
  /** int32 status words a vector (the detection plans'). */
  private readonly statusWords: number;
  private readonly slots: Slot[] = [];
  private readonly launchVectors: number;
  private readonly maxUnits: number;
  private readonly slotBytes: { counts: number; list: number; skipped: number; perDetector: number };
  /** Bytes of one detector's full list of flagged vectors in a slot. */
  private readonly listBytes: number;
  private cpuDecoder: FrameDecoder | null = null;
  private readonly queue: Pending[] = [];
  private readonly settling = new Set<Promise<void>>();
  private scheduled = false;
  private closed = false;
  private broken: Error | null = null;

  private constructor(
    readonly ctx: CudaContext,
    readonly setup: GpuLinkSetup,
    private readonly plans: DetectionCudaPlan[],
    codedKernels: CodedLinkKernels | null,
    private readonly channelPlan: ChannelCudaPlan,
  ) {
    const { nt, nr, vectorsPerChannel: vpc, unitVectors } = setup;
    this.statusWords = plans[0]!.statusWords;
    const con = constellation(setup.modulation);
    const bps = con.bitsPerSymbol;
    const hLen = 2 * nr * nt;
    // launches hold whole channel groups, and (coded) whole frames; OFDM launches whole slots
    const unit = setup.ofdm ? unitVectors : codedKernels ? codedUnit(codedKernels.vpf, vpc) : vpc;
    const scratchPerVector = plans.reduce((t, p) => t + p.scratchBytesPerChannel.reduce((a, b) => a + b, 0), 0) / vpc;
    const passes = codedKernels ? (setup.coded?.idd ?? 1) : 1;
    const codedPerVector = codedKernels
      ? nt * bps * 4 +
        (2 * codedKernels.code.k + codedKernels.nFull + 4 + (codedKernels.compacts ? 4 * codedKernels.nFull : 0)) /
          codedKernels.vpf +
        (passes > 1 ? nt * bps * 4 + nt * 4 + (4 * codedKernels.nFull) / codedKernels.vpf : 0)
      : 0;
    // an OFDM slot's response covers every element of the grid: below twice its data vectors'
    const perVector =
      (hLen * 12 * (setup.ofdm ? 2 : 1)) / vpc +
      2 * nr * 4 +
      4 +
      2 * nt * 4 +
      2 * this.statusWords * 4 +
      scratchPerVector +
      codedPerVector +
      8 * SLOTS * plans.length;
    const byMemory = Math.floor(ctx.memInfo().freeBytes / 4 / perVector);
    let L = Math.max(unit, Math.min(setup.launchVectors ?? DEFAULT_LAUNCH_VECTORS, byMemory));
    L = unitVectors <= L ? Math.floor(L / unitVectors) * unitVectors : Math.floor(L / unit) * unit;
    this.launchVectors = L;
    this.parallelism = Math.max(1, Math.floor(L / unitVectors));
    this.maxUnits = unitVectors <= L ? L / unitVectors : 2;
    this.countWords = codedKernels ? CODED_COUNT_WORDS : 3;
    const channels = L / vpc;
    this.stream = Stream.create(ctx);
    this.kernels = new LinkKernels(ctx, nt, nr, { coded: codedKernels !== null, channels: channelPlan });
    const alloc = (bytes: number) => {
      const b = DeviceBuffer.alloc(ctx, bytes);
      this.bufs.push(b);
      return b;
    };
    this.points = alloc(con.points.byteLength);
    this.points.upload(con.points);
    this.H64 = alloc(setup.ofdm ? 8 : channels * hLen * 8);
    if (setup.ofdm) {
      this.ofdm = new OfdmLinkKernels(
        ctx,
        nt,
        nr,
        setup.ofdm,
        channelPlan,
        { channel: setup.channel ?? DEFAULT_CHANNEL_MODEL, params: setup.channelOptions ?? {} },
        this.maxUnits,
        codedKernels !== null,
      );
    }
    this.H32 = alloc(channels * hLen * 4);
    this.tx = alloc(L * nt * 4);
    this.y32 = alloc(L * 2 * nr * 4);
    this.n0 = alloc(L * 4);
    this.statusBase = alloc(L * this.statusWords * 4);
    this.status = alloc(L * this.statusWords * 4);
    this.rx = alloc(L * nt * 4);
    this.scratch = plans.map((p) => p.scratchBytesPerChannel.map((b) => alloc(Math.max(16, b * channels)).ptr));
    if (codedKernels) {
      const frames = L / codedKernels.vpf,
        k = codedKernels.code.k,
        nFull = codedKernels.nFull;
      this.coded = {
        kernels: codedKernels,
        info: alloc(frames * k),
        cw: alloc(frames * nFull),
        llr: alloc(L * nt * bps * 4),
        input: codedKernels.compacts ? alloc(frames * nFull * 4) : null,
        bits: alloc(frames * k),
        dec: alloc(frames * 4),
      };
      if (passes > 1) {
        this.idd = {
          kernels: new IddKernels(ctx, codedKernels.code, nFull, codedKernels.perFrame, codedKernels.decoder.options),
          passes,
          posteriors: alloc(frames * nFull * 4),
          prior: alloc(L * nt * bps * 4),
          rx: alloc(L * nt * 4),
        };
      }
    } else {
      this.coded = null;
    }
    // per detector: counts, the flagged vectors' list, (coded) the frames left out
    this.listBytes = (1 + 2 * L) * 4;
    const counts = this.maxUnits * this.countWords * 8,
      list = Math.ceil(((1 + 2 * LIST_CAP) * 4) / 8) * 8;
    const skipped = codedKernels ? Math.ceil(((1 + FRAME_CAP) * 4) / 8) * 8 : 0;
    const perDetector = counts + list + skipped;
    this.slotBytes = { counts, list, skipped, perDetector };
    for (let s = 0; s < SLOTS; s++) {
      const bytes = perDetector * plans.length;
      this.slots.push({
        device: alloc(bytes),
        host: PinnedBuffer.alloc(ctx, bytes),
        lists: alloc(plans.length * this.listBytes),
        side: codedKernels ? alloc(plans.length * FRAME_CAP * codedKernels.perFrame * 4) : null,
        start: plans.map(() => CudaEvent.create(ctx)),
        end: plans.map(() => CudaEvent.create(ctx)),
        done: CudaEvent.create(ctx),
        busy: false,
      });
    }
  }

  /**
   * The executor for `setup` on device 0: compiles the link kernels, each detector's plan (with
   * max-log soft output on a coded link) and the coded stages. EngineUnavailableError when no
   * device answers or a detector has no CUDA implementation (or no soft output a coded link needs).
   */
  static async create(setup: GpuLinkSetup): Promise<GpuLinkExecutor> {
    const missing = detectorsWithoutCuda(setup.detectors);
    if (missing.length > 0)
      throw new EngineUnavailableError(`the CUDA engine has no ${missing.join(', ')} detector; use engine cpu or auto`);
    const ctx = requireCuda(setup.device ?? 0);
    const { nt, nr, modulation, vectorsPerChannel: vpc } = setup;
    checkChunkVectors(setup.unitVectors, { vectorsPerChannel: vpc });
    if (setup.ofdm && vpc !== 1)
      throw new CheckFailedError(
        `internal: the OFDM link gives every vector its own channel, got vectorsPerChannel ${vpc}`,
      );
    const con = constellation(modulation);
    const soft = setup.coded !== undefined;
    if (soft) {
      const why = codedGpuUnsupported(setup.detectors) ?? iddGpuUnsupported(setup.detectors, setup.coded?.idd);
      if (why) throw new EngineUnavailableError(`${why}; use engine cpu`);
    }
    let coded: CodedLinkKernels | null = null;
    if (setup.coded) {
      coded = new CodedLinkKernels(
        ctx,
        codeOf(setup.coded.code, modulation, setup.coded.E),
        setup.coded.decoder,
        nt,
        con.bitsPerSymbol,
      );
      checkChunkVectors(setup.unitVectors, {
        vectorsPerChannel: vpc,
        vectorsPerFrame: coded.vpf,
        code: setup.coded.code,
      });
    }
    const plans: DetectionCudaPlan[] = [];
    for (const d of setup.detectors) {
      const plan = await detectionCudaPlan(ctx, { nt, nr, modulation, vectorsPerChannel: vpc, options: d, soft });
      if ((setup.coded?.idd ?? 1) > 1 && !plan.priors)
        throw new CheckFailedError(`internal: the CUDA ${plan.detector} plan takes no priors, idd ${setup.coded?.idd}`);
      plans.push(plan);
    }
    const channel = setup.channel ?? DEFAULT_CHANNEL_MODEL;
    const model = channelEntry(channel);
    if (!model?.cuda)
      throw new EngineUnavailableError(
        `the CUDA engine has no generator of the '${channel}' channel model; use engine cpu`,
        {
          channel,
        },
      );
    const channelPlan = (await model.cuda()).plan(ctx, { nt, nr }, setup.channelOptions ?? {});
    try {
      return new GpuLinkExecutor(ctx, setup, plans, coded, channelPlan);
    } catch (e) {
      channelPlan.free?.();
      throw e;
    }
  }

  run(task: ChunkTask): Promise<ChunkResult> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closed) return Promise.reject(new Error('GPU link executor is closed'));
    return new Promise<ChunkResult>((resolve, reject) => {
      this.queue.push({
        task,
        resolve,
        reject,
        result: emptyChunkResult(task),
        fails: new Map(),
        total: task.unitSizes.reduce((a, b) => a + b, 0),
        launched: 0,
        open: 0,
        failed: false,
      });
      this.schedule();
    });
  }

  /** Launches wait for the current turn's dispatches (setImmediate), so they fill whole launches. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (!this.closed && !this.broken && this.queue.length > 0) {
      const slot = this.slots.findIndex((s) => !s.busy);
      if (slot < 0) return;
      const launch = this.take(slot);
      this.slots[slot]!.busy = true;
      const p = this.settle(launch).finally(() => {
        this.settling.delete(p);
        this.slots[slot]!.busy = false;
        this.schedule();
      });
      this.settling.add(p);
    }
  }

  /**
   * The next launch from the queue: whole consecutive units of one point and detector set (from
   * one task or several), or a piece of one unit larger than a launch.
   */
  private take(slot: number): Launch {
    const L = this.launchVectors,
      uv = this.setup.unitVectors;
    const head = this.queue[0]!;
    const t = head.task;
    const link = { seed: this.setup.seed, snrIndex: t.snrIndex, unitVectors: uv, vpc: this.setup.vectorsPerChannel };
    if (uv > L) {
      const i = Math.floor(head.launched / uv),
        size = t.unitSizes[i]!,
        v0 = head.launched - i * uv,
        n = Math.min(L, size - v0);
      head.launched += n;
      head.open++;
      if (head.launched === head.total) this.queue.shift();
      return {
        link: { ...link, unit0: t.unit0 + i, v0, vectors: n, lastVectors: size },
        parts: [head],
        at: [{ p: head, i }],
        active: t.active,
        noiseVar: t.noiseVar,
        slot,
      };
    }
    const parts: Pending[] = [];
    const at: { p: Pending; i: number }[] = [];
    let vectors = 0,
      lastVectors = 0;
    const unit0 = t.unit0 + head.launched / uv;
    while (this.queue.length > 0) {
      const q = this.queue[0]!,
        a = t,
        b = q.task;
      let i = q.launched / uv;
      if (at.length > 0) {
        const same =
          b.snrIndex === a.snrIndex &&
          b.unit0 + i === unit0 + at.length &&
          b.noiseVar === a.noiseVar &&
          (b.active === a.active ||
            (b.active.length === a.active.length && b.active.every((d, j) => d === a.active[j])));
        if (!same) break;
      }
      const took = at.length;
      while (i < b.unitSizes.length && vectors + b.unitSizes[i]! <= L) {
        at.push({ p: q, i });
        vectors += lastVectors = b.unitSizes[i]!;
        q.launched += b.unitSizes[i]!;
        i++;
      }
      if (at.length > took) {
        q.open++;
        parts.push(q);
      }
      if (q.launched < q.total) break;
      this.queue.shift();
    }
    return {
      link: { ...link, unit0, v0: 0, vectors, lastVectors },
      parts,
      at,
      active: t.active,
      noiseVar: t.noiseVar,
      slot,
    };
  }

  /** Enqueues a launch, waits for it, and hands its counts to its tasks. */
  private async settle(launch: Launch): Promise<void> {
    try {
      this.enqueue(launch);
      const slot = this.slots[launch.slot]!;
      await slot.done.wait();
      await this.collect(launch);
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      if (!(e instanceof LatticeMimoError) || e.code === 'CUDA_ERROR' || e.code === 'OUT_OF_MEMORY')
        this.broken ??= err;
      for (const p of launch.parts) {
        if (!p.failed) {
          p.failed = true;
          p.reject(err);
        }
      }
      return;
    }
    for (const p of launch.parts) {
      p.open--;
      if (!p.failed && p.open === 0 && p.launched === p.total) {
        for (const [i, f] of p.fails) for (const [d, x] of f.entries()) if (x) failureAt(p.result, d, i, x.record);
        p.resolve(p.result);
      }
    }
  }

  private enqueue(launch: Launch): void {
    const { modulation } = this.setup;
    const con = constellation(modulation);
    const l = launch.link,
      stream = this.stream,
      slot = this.slots[launch.slot]!;
    const sb = this.slotBytes;
    slot.device.fill(0, stream);
    this.statusBase.fillRange(0, l.vectors * this.statusWords * 4, 0, stream);
    const cd = this.coded;
    if (cd) cd.kernels.enqueueFrames(stream, l, { info: cd.info.ptr, cw: cd.cw.ptr, tx: this.tx.ptr });
    const gen = { points: this.points.ptr, H64: this.H64.ptr, H32: this.H32.ptr, tx: this.tx.ptr, y32: this.y32.ptr };
    if (this.ofdm) this.ofdm.enqueueGenerate(stream, l, gen, con.size, launch.noiseVar);
    else this.kernels.enqueueGenerate(stream, l, gen, con.size, Math.sqrt(launch.noiseVar / 2));
    const channels = l.vectors / l.vpc;
    // the engine's normalize stage, the same for every detector: once a launch
    this.plans[0]!.enqueueNormalize(
      stream,
      {
        H: this.H32.ptr,
        y: this.y32.ptr,
        noiseScalar: launch.noiseVar,
        // estimated CSI: each slot's own noise variance, a vector each
        ...(this.ofdm?.noiseIn ? { noiseIn: this.ofdm.noiseIn } : {}),
        noiseOut: this.n0.ptr,
        status: this.statusBase.ptr,
      },
      channels,
    );
    const idd = this.idd;
    for (const d of launch.active) {
      this.status.copyFromAsync(this.statusBase, stream, l.vectors * this.statusWords * 4);
      slot.start[d]!.record(stream);
      // the status words stay from pass to pass: a vector flagged in any pass is skipped by the
      // later ones and listed, and its frame redone on the CPU with every pass
      const detect = (pass: number) =>
        this.plans[d]!.enqueue(stream, {
          channels,
          vectorsPerChannel: l.vpc,
          H: this.H32.ptr,
          y: this.y32.ptr,
          noise: this.n0.ptr,
          symbols: pass === 0 ? this.rx.ptr : idd!.rx.ptr,
          llr: cd ? cd.llr.ptr : 0n,
          status: this.status.ptr,
          scratch: this.scratch[d]!,
          ...(pass > 0 ? { prior: idd!.prior.ptr } : {}),
        });
      if (cd) {
        const frames = l.vectors / cd.kernels.vpf;
        runIddPasses(idd?.passes ?? 1, {
          detect,
          decode: (_pass, posteriors) =>
            cd.kernels.enqueueDecode(stream, frames, {
              llr: cd.llr.ptr,
              input: cd.input?.ptr ?? 0n,
              bits: cd.bits.ptr,
              dec: cd.dec.ptr,
              ...(posteriors ? { posteriors: idd!.posteriors.ptr } : {}),
            }),
          priors: () =>
            idd!.kernels.enqueuePriors(stream, frames, {
              posteriors: idd!.posteriors.ptr,
              // what the decoder read: the compacted copy, or the detector's LLRs as they are
              input: cd.input?.ptr ?? cd.llr.ptr,
              prior: idd!.prior.ptr,
            }),
        });
      } else {
        detect(0);
      }
      slot.end[d]!.record(stream);
      const base = slot.device.ptr + BigInt(d * sb.perDetector);
      // the full list on the device (its count zeroed); its head goes back with the counts
      const full = slot.lists.ptr + BigInt(d * this.listBytes),
        fullCap = l.vectors;
      slot.lists.fillRange(d * this.listBytes, 4, 0, stream);
      const listMask = this.plans[d]!.reportFlags,
        unanswered = this.plans[d]!.unanswered;
      if (cd) {
        cd.kernels.enqueueCount(
          stream,
          l,
          {
            info: cd.info.ptr,
            bits: cd.bits.ptr,
            dec: cd.dec.ptr,
            tx: this.tx.ptr,
            rx: this.rx.ptr,
            status: this.status.ptr,
            llr: cd.llr.ptr,
            counts: base,
            list: full,
            skipped: base + BigInt(sb.counts + sb.list),
            side: slot.side!.ptr + BigInt(d * FRAME_CAP * cd.kernels.perFrame * 4),
          },
          fullCap,
          listMask,
          unanswered,
          // IDD redoes a frame wholly on the CPU: no LLRs kept
          idd ? 0 : FRAME_CAP,
        );
      } else {
        this.kernels.enqueueCount(
          stream,
          l,
          { tx: this.tx.ptr, rx: this.rx.ptr, status: this.status.ptr, counts: base, list: full },
          con.bitsPerSymbol,
          fullCap,
          listMask,
          unanswered,
        );
      }
      slot.device.copyFromAsync(
        slot.lists,
        stream,
        (1 + 2 * LIST_CAP) * 4,
        d * this.listBytes,
        d * sb.perDetector + sb.counts,
      );
    }
    slot.device.downloadAsync(slot.host, stream);
    slot.done.record(stream);
  }

  /** Reads a finished launch's counts into its tasks; has its flagged vectors answered (the detection plan's redo). */
  private async collect(launch: Launch): Promise<void> {
    const l = launch.link,
      slot = this.slots[launch.slot]!,
      sb = this.slotBytes;
    const W = this.countWords,
      cd = this.coded;
    for (const d of launch.active) {
      const off = d * sb.perDetector;
      const c = new Uint32Array(slot.host.view(), off, 2 * launch.at.length * W);
      const list = new Int32Array(slot.host.view(), off + sb.counts, 1 + 2 * LIST_CAP);
      const ms = slot.end[d]!.elapsedSince(slot.start[d]!);
      // slot k counts unit at[k]; a piece of a unit larger than a launch counts into slot 0
      for (let k = 0; k < launch.at.length; k++) {
        const { p, i } = launch.at[k]!;
        const rows = p.result.counts[d]!,
          o = i * COUNT_FIELDS;
        rows[o + COUNT.bitErrors] += u64(c, W * k);
        rows[o + COUNT.symbolErrors] += u64(c, W * k + 1);
        rows[o + COUNT.frameErrors] += u64(c, W * k + 2);
        if (cd) rows[o + COUNT.iterations] += u64(c, W * k + 3);
        const share = launch.at.length === 1 ? l.vectors : p.task.unitSizes[i]!;
        rows[o + COUNT.timeMs] += (ms * share) / l.vectors;
      }
      const flagged = list[0]!;
      let entries = list.subarray(1, 1 + 2 * Math.min(flagged, LIST_CAP));
      if (flagged > LIST_CAP) {
        // more than the copy held: read the whole list from the slot's full list
        const all = new Int32Array(1 + 2 * Math.min(flagged, l.vectors));
        slot.lists.download(all, d * this.listBytes);
        entries = all.subarray(1);
      }
      if (!cd) {
        await this.flaggedVectors(launch, d, entries);
        continue;
      }
      // coded: the flagged vectors by frame; each frame is decoded again with their CPU LLRs
      const byFrame = new Map<number, Map<number, number>>();
      for (let i = 0; i < entries.length; i += 2) {
        if (this.pastBudget(launch, d, entries[i]!, entries[i + 1]!)) continue;
        const g = entries[i]!,
          f = Math.floor(g / cd.kernels.vpf);
        let vs = byFrame.get(f);
        if (!vs) byFrame.set(f, (vs = new Map()));
        vs.set(g, entries[i + 1]!);
      }
      if (byFrame.size === 0) continue;
      if (this.idd) {
        for (const [f, vs] of byFrame) this.redoFrameIdd(launch, d, f, vs);
        continue;
      }
      const sk = new Int32Array(slot.host.view(), off + sb.counts + sb.list, 1 + FRAME_CAP);
      const kept = Math.min(sk[0]!, FRAME_CAP),
        per = cd.kernels.perFrame;
      const side = new Float32Array(kept * per);
      if (kept > 0) slot.side!.download(side, d * FRAME_CAP * per * 4);
      const at = new Map<number, number>();
      for (let i = 0; i < kept; i++) at.set(sk[1 + i]!, i);
      for (const [f, vs] of byFrame) {
        const i = at.get(f);
        await this.redoFrame(launch, d, f, vs, i === undefined ? null : side.slice(i * per, (i + 1) * per));
      }
    }
  }

  /**
   * A listed vector the detection plan's redo need not answer, its only flag the node budget's (true;
   * false for a vector to redo): under onBudget 'error' the NodeBudgetError naming the SNR point, the
   * detector, the chunk and the vector of the chunk, recorded for its chunk (failAt); under 'flag' one
   * more unproven vector of its chunk (the device counted its best leaf).
   */
  private pastBudget(launch: Launch, d: number, g: number, flags: number): boolean {
    const plan = this.plans[d]!;
    if (plan.remedy(flags) !== 'node-budget') return false;
    const l = launch.link;
    const pos = l.v0 + g,
      k = Math.floor(pos / l.unitVectors);
    if (plan.onBudget === 'error') {
      const v = pos % l.unitVectors;
      const where = {
        snrIndex: l.snrIndex,
        detector: this.setup.detectors[d]!.detector,
        chunk: l.unit0 + k,
        vector: v,
      };
      this.failAt(launch, d, k, v, () => nodeBudgetError(plan.maxNodes, where, { detectorIndex: d }));
      return true;
    }
    const at = launch.at[k];
    if (!at) throw new CheckFailedError(`internal: flagged vector ${g} lies outside the launch's units`);
    addCounts(at.p.result, d, at.i, { unproven: 1 });
    return true;
  }

  /**
   * Records detector d's failure `err` at vector v of the launch's unit k (its count slot), keeping
   * the unit's smallest such vector: the one the CPU engine, detecting in order, stops at. The unit
   * resolves with it (ChunkResult.failures); simulate() raises it if d is still active there.
   * `err` is made only for a vector that is kept (a launch may list every one of its vectors).
   */
  private failAt(launch: Launch, d: number, k: number, v: number, err: () => unknown): void {
    const at = launch.at[k];
    if (!at) throw new CheckFailedError(`internal: failed vector ${v} lies outside the launch's units`);
    let failures = at.p.fails.get(at.i);
    if (!failures) at.p.fails.set(at.i, (failures = this.setup.detectors.map(() => null)));
    const was = failures[d];
    if (was && was.vector <= v) return;
    const e = err();
    if (!(e instanceof LatticeMimoError)) throw e;
    failures[d] = { vector: v, record: errorRecord(e) };
  }

  /** `err` of the CPU engine's detect() on vector v of chunk `unitIndex`, named there. */
  private atVector(err: unknown, launch: Launch, d: number, unitIndex: number, v: number): unknown {
    const where = { snrIndex: launch.link.snrIndex, detector: this.setup.detectors[d]!.detector, chunk: unitIndex };
    const channel = Math.floor(v / this.setup.vectorsPerChannel);
    return withContext(err, { ...where, channel, vector: v }, { detectorIndex: d });
  }

  /**
   * The plan's redo of `count` listed vectors, or null when it failed: its failure recorded at the
   * listed vector it names (its index in the redo's list, where(i) its chunk and vector), as the CPU
   * engine would have stopped there.
   */
  private async redoOrFail(
    launch: Launch,
    d: number,
    vectors: VectorsToRedo,
    where: (i: number) => { k: number; unitIndex: number; v: number },
  ): Promise<RedoneVectors | null> {
    try {
      return await this.plans[d]!.redo(vectors);
    } catch (e) {
      if (!(e instanceof LatticeMimoError)) throw e;
      const named = e.context.vector ?? e.details?.vector;
      const i = typeof named === 'number' && named >= 0 && named < vectors.flags.length ? named : 0;
      const w = where(i);
      this.failAt(launch, d, w.k, w.v, () => this.atVector(e, launch, d, w.unitIndex, w.v));
      return null;
    }
  }

  /**
   * Frame lf of a coded launch regenerated on the CPU (cpu-vector.ts): its unit (`unit`, the
   * launch's kc-th, index unitIndex at the point), its first vector v in the unit, its information
   * bits and symbols (`fr`), and vectorOf(u) the channel, received vector (and, OFDM, noise
   * variance) of its vector u.
   */
  private frameOnCpu(
    launch: Launch,
    lf: number,
  ): {
    at: { p: Pending; i: number };
    unitIndex: number;
    kc: number;
    v: number;
    fr: ReturnType<typeof codedFrameOnCpu>;
    vectorOf: (u: number) => { H: Float64Array; y: Float64Array; noiseVar?: number };
  } {
    const l = launch.link,
      s = this.setup,
      vpf = this.coded!.kernels.vpf;
    const pos = l.v0 + lf * vpf,
      kc = Math.floor(pos / l.unitVectors),
      v = pos % l.unitVectors;
    const at = launch.at[kc];
    if (!at) throw new CheckFailedError(`internal: flagged frame ${lf} lies outside the launch's units`);
    const unitIndex = l.unit0 + kc,
      size = at.p.task.unitSizes[at.i]!;
    const fr = codedFrameOnCpu(
      {
        ...s,
        snrIndex: l.snrIndex,
        unitIndex,
        noiseVar: launch.noiseVar,
        coded: s.coded!,
        unitVectors: size,
      },
      v / vpf,
    );
    // an OFDM frame's vectors are resource elements of its slot: their channels (true or
    // estimated) and noise variance come from the slot, generated whole
    const slots = new Map<number, LinkChunk>();
    const vectorOf = (u: number): { H: Float64Array; y: Float64Array; noiseVar?: number } =>
      s.ofdm
        ? ofdmVectorOnCpu(
            {
              ...s,
              snrIndex: l.snrIndex,
              unitIndex,
              noiseVar: launch.noiseVar,
              ofdm: s.ofdm,
              vectors: size,
            },
            v + u,
            slots,
          )
        : fr.vector(u);
    return { at, unitIndex, kc, v, fr, vectorOf };
  }

  /**
   * A coded frame of an IDD launch the device left out of its counts (a vector flagged in some
   * pass): the whole frame again on the CPU engine's code path, every pass (decodeRange on its
   * regenerated vectors, each with its own channel), counted into its chunk; its raw symbol errors
   * and unproven searches only for the flagged vectors (the device counted the others'). A typed
   * error of the CPU engine is the chunk's failure at the vector it names (else the first flagged).
   */
  private redoFrameIdd(launch: Launch, d: number, lf: number, flagged: Map<number, number>): void {
    const s = this.setup,
      vpf = this.coded!.kernels.vpf;
    const { nt, nr } = s,
      hLen = 2 * nr * nt,
      yLen = 2 * nr;
    const { at, unitIndex, kc, v, fr, vectorOf } = this.frameOnCpu(launch, lf);
    const H = new Float64Array(vpf * hLen),
      y = new Float64Array(vpf * yLen);
    // an OFDM frame lies in one slot: one noise variance
    let noiseVar = launch.noiseVar;
    for (let u = 0; u < vpf; u++) {
      const one = vectorOf(u);
      H.set(one.H, u * hLen);
      y.set(one.y, u * yLen);
      if (one.noiseVar !== undefined) noiseVar = one.noiseVar;
    }
    const us = new Set([...flagged.keys()].map((g) => g - lf * vpf));
    let got: CodedCounts;
    try {
      got = decodeRange(
        {
          nt,
          nr,
          modulation: s.modulation,
          vectorsPerChannel: 1,
          noiseVar,
          H,
          y,
          txIndices: fr.txIndices,
          info: fr.info,
        },
        s.coded!,
        { ...s.detectors[d]!, modulation: s.modulation, engine: 'cpu' },
        0,
        vpf,
        (u) => us.has(u),
      );
    } catch (e) {
      const named = e instanceof LatticeMimoError ? e.context.vector : undefined;
      const u = typeof named === 'number' && named >= 0 && named < vpf ? named : Math.min(...us);
      this.failAt(launch, d, kc, v + u, () => this.atVector(e, launch, d, unitIndex, v + u));
      return;
    }
    addCounts(at.p.result, d, at.i, {
      bitErrors: got.bitErrors,
      symbolErrors: got.symbolErrors,
      frameErrors: got.frameErrors,
      unproven: got.unproven,
      iterations: got.iterations,
    });
  }

  /**
   * A coded frame the device left out of its counts (a vector flagged float32 unsafe, singular, ...):
   * its flagged vectors answered by the detection plan's redo (their channel and received vector
   * regenerated alone, cpu-vector.ts), their LLRs put among the frame's device LLRs (`llr`, as the
   * count kernel kept them; null past its capacity: the frame's other vectors detected again by the
   * CPU engine), the frame decoded by the CPU decoder (the CUDA decoder's decisions for the same
   * float32 LLRs) and counted into its chunk.
   */
  private async redoFrame(
    launch: Launch,
    d: number,
    lf: number,
    flagged: Map<number, number>,
    llr: Float32Array | null,
  ): Promise<void> {
    const s = this.setup,
      cd = this.coded!.kernels,
      vpf = cd.vpf,
      per = cd.perFrame;
    const { nt, nr } = s,
      bps = per / (vpf * nt);
    const { at, unitIndex, kc, v, fr, vectorOf } = this.frameOnCpu(launch, lf);
    const opts = s.detectors[d]!;
    const frameLlr = llr ?? new Float32Array(per);
    // the flagged vectors: answered by the plan's redo, as detectAsync answers them
    const us = [...flagged.keys()].map((g) => g - lf * vpf).sort((a, b) => a - b);
    const redo = await this.redoOrFail(
      launch,
      d,
      this.vectorsToRedo(
        us.map((u) => vectorOf(u)),
        us.map((u) => flagged.get(lf * vpf + u)!),
        launch.noiseVar,
      ),
      (i) => ({ k: kc, unitIndex: unitIndex, v: v + us[i]! }),
    );
    if (!redo) return;
    if (!redo.llr) throw new CheckFailedError(`internal: detector '${opts.detector}' returned no LLRs`);
    let symbolErrors = 0,
      unproven = 0;
    us.forEach((u, k) => {
      frameLlr.set(redo.llr!.subarray(k * nt * bps, (k + 1) * nt * bps), u * nt * bps);
      for (let j = 0; j < nt; j++) if (redo.symbols[k * nt + j] !== fr.txIndices[u * nt + j]) symbolErrors++;
      unproven += redo.unproven?.[k] ?? 0;
    });
    if (!llr) {
      // past the count kernel's capacity the frame's device LLRs were not kept: its other vectors on the CPU engine
      const detectOpts: DetectOptions = {
        ...opts,
        modulation: s.modulation,
        soft: opts.soft ?? 'maxlog',
        engine: 'cpu',
      };
      for (let u = 0; u < vpf; u++) {
        if (flagged.has(lf * vpf + u)) continue;
        const one = vectorOf(u);
        let out: ReturnType<typeof detect>;
        try {
          out = detect({ nt, nr, H: one.H, y: one.y, noiseVar: one.noiseVar ?? launch.noiseVar }, detectOpts);
        } catch (e) {
          this.failAt(launch, d, kc, v + u, () => this.atVector(e, launch, d, unitIndex, v + u));
          return;
        }
        if (!out.llr) throw new CheckFailedError(`internal: detector '${opts.detector}' returned no LLRs`);
        frameLlr.set(out.llr, u * nt * bps);
      }
    }
    this.cpuDecoder ??= codeOf(s.coded!.code, s.modulation, s.coded!.E).decoder(s.coded!.decoder);
    const code = cd.code;
    const dec = this.cpuDecoder.decodeBatch(frameLlrs(frameLlr, 1, code.n, per, true), 1);
    const got = countDecoded(dec.bits, dec.iterations, fr.info, 0, 1, code.k);
    addCounts(at.p.result, d, at.i, {
      bitErrors: got.bitErrors,
      symbolErrors,
      frameErrors: got.frameErrors,
      unproven,
      iterations: got.iterations,
    });
  }

  /** The redo input of regenerated vectors (each with its channel, and its own noise variance where given) and their device flags. */
  private vectorsToRedo(
    vectors: readonly { H: Float64Array; y: Float64Array; noiseVar?: number }[],
    flags: readonly number[],
    noiseVar: number,
  ): VectorsToRedo {
    const { nt, nr } = this.setup,
      hLen = 2 * nr * nt,
      yLen = 2 * nr;
    const H = new Float64Array(vectors.length * hLen),
      y = new Float64Array(vectors.length * yLen);
    vectors.forEach((one, k) => {
      H.set(one.H, k * hLen);
      y.set(one.y, k * yLen);
    });
    const n0 = Float64Array.from(vectors, (one) => one.noiseVar ?? noiseVar);
    return { H, y, noiseVar: n0, flags: Int32Array.from(flags) };
  }

  /**
   * An uncoded launch's listed vectors (entries: (vector, flags) pairs): the node-budget rule (pastBudget), then
   * the answers of the others from the detection plan's redo (each vector's channel and received
   * vector regenerated alone, cpu-vector.ts), counted into their chunks.
   */
  private async flaggedVectors(launch: Launch, d: number, entries: Int32Array): Promise<void> {
    const l = launch.link,
      s = this.setup;
    const gs: number[] = [],
      flags: number[] = [];
    for (let i = 0; i < entries.length; i += 2) {
      if (this.pastBudget(launch, d, entries[i]!, entries[i + 1]!)) continue;
      gs.push(entries[i]!);
      flags.push(entries[i + 1]!);
    }
    if (gs.length === 0) return;
    const where = gs.map((g) => {
      const pos = l.v0 + g,
        k = Math.floor(pos / l.unitVectors);
      return { k, unitIndex: l.unit0 + k, v: pos % l.unitVectors };
    });
    const slots = new Map<number, LinkChunk>();
    const ones = where.map((w) => {
      const at = { ...s, snrIndex: l.snrIndex, unitIndex: w.unitIndex, noiseVar: launch.noiseVar };
      if (!s.ofdm) return linkVectorOnCpu(at, w.v);
      const u = launch.at[w.k]!;
      return ofdmVectorOnCpu({ ...at, ofdm: s.ofdm, vectors: u.p.task.unitSizes[u.i]! }, w.v, slots);
    });
    const redo = await this.redoOrFail(launch, d, this.vectorsToRedo(ones, flags, launch.noiseVar), (i) => where[i]!);
    if (!redo) return;
    where.forEach((w, i) => {
      const symbols = redo.symbols.subarray(i * s.nt, (i + 1) * s.nt);
      const e = countErrors(ones[i]!.txIndices, symbols, symbolsToBits(symbols, s.modulation), s.nt, s.modulation);
      const at = launch.at[w.k];
      if (!at) throw new CheckFailedError(`internal: flagged vector ${gs[i]} lies outside the launch's units`);
      addCounts(at.p.result, d, at.i, {
        bitErrors: e.bitErrors,
        symbolErrors: e.symbolErrors,
        frameErrors: e.frameErrors,
        unproven: redo.unproven?.[i] ?? 0,
      });
    });
  }

  /** Stops: queued chunks are refused, launches in flight finish, device memory is freed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const err = new Error('GPU link executor closed');
    for (const p of this.queue.splice(0)) p.reject(err);
    await Promise.allSettled([...this.settling]);
    await this.stream.wait().catch(() => {});
    for (const s of this.slots) {
      for (const e of [...s.start, ...s.end, s.done]) e.destroy();
      s.host.free();
    }
    for (const b of this.bufs) b.free();
    this.ofdm?.free();
    this.coded?.kernels.free();
    this.idd?.kernels.free();
    this.channelPlan.free?.();
    this.stream.destroy();
  }
}

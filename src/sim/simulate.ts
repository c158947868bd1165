/**
 * The Monte Carlo engine: BER / SER / FER against SNR for several detectors on the same data.
 *
 * Work is cut into chunks of vectors (the unit handed to a worker). At each SNR point the chunks
 * are merged strictly in chunk order, and each detector's stop rule (enough bit errors -- frame
 * errors for a coded run --, or the vector limit) is checked after each merged chunk, so the counts are those of chunks 0..c for
 * some c that depends only on the data: identical for a seed whatever the number of threads or
 * the order in which workers finish. Chunks computed past a detector's stop are thrown away.
 *
 * No finished point is lost: a run stopped by its signal resolves with the points finished before
 * (`interrupted`); a run stopped by an error (a node budget, a worker that died, a GPU error, a
 * failed check) rejects with that error, named at its SNR point, detector, chunk and vector, with
 * the same partial result in `details.partial` (its `error` the error as data).
 */
import { availableParallelism } from 'node:os';
import { chooseEngine, type EngineDecision } from '../gpu/index.js';
import {
  asLibraryError,
  EngineUnavailableError,
  checkOptions,
  errorFromRecord,
  errorRecord,
  inapplicable,
  InvalidArgumentError,
  type LatticeMimoError,
  option,
  string,
} from '../core/index.js';
import {
  snrToNoiseVar,
  bitsPerSymbolOf,
  checkDetectOptions,
  detectorOptionsLabel,
  type DetectOptions,
  type Detector,
  type DetectOptionsUse,
  type Modulation,
  detectorEntry,
  priorDetectors,
} from '../mimo/index.js';
import { resolveDecoderOptions, type DecoderOptions } from '../coding/index.js';
import { COUNT, COUNT_FIELDS, runChunkSliced, type ChunkResult, type ChunkTask } from './chunk.js';
import { checkSoftDetectors, codeOf, vectorsPerFrame, type CodedSpec } from './coded.js';
import { channelEntry, checkChannel, checkGrid, DEFAULT_CHANNEL_MODEL, type ChannelModel } from '../channels/index.js';
import { ofdmDataVectors, type OfdmLinkSpec } from './ofdm-link.js';
import { toEbN0Db, toEsN0Db } from './snr.js';
import { checkChunkBuffers, checkChunkVectors, chunkUnit } from './chunking.js';
import { checkCompletedPoints } from './completed-points.js';
import {
  checkShard,
  chunkOrder,
  chunksOf,
  ShardDir,
  shardQuota,
  unitCountAt,
  unitIndexOf,
  unitSize,
  walkUnits,
  type UnitRule,
} from './shards.js';
import { MAX_CHUNK_VECTORS, MAX_THREADS, SIMULATION_SCHEMA } from './simulation-options.js';
import type {
  OfdmOptions,
  ShardOptions,
  ShardUnits,
  SimDetector,
  SimPoint,
  SimulationOptions,
  SimulationResult,
  SnrType,
} from './types.js';
import { InThreadExecutor, WorkerPool, type ChunkExecutor } from './worker-pool.js';
import type { GpuLinkSetup } from './gpu/executor.js';

/** Default stop rule: bit errors per detector and SNR point. */
export const DEFAULT_MAX_ERRORS = 200;
/** Default stop rule: received vectors per detector and SNR point. */
export const DEFAULT_MAX_VECTORS = 1_000_000;
/** Default unit in vectors (rounded to whole channel groups and frames): the grain of the draw and of stop decisions. */
export const DEFAULT_UNIT_VECTORS = 1024;
/** The default chunk is one unit; kept for the callers that name it. */
export const DEFAULT_CHUNK_VECTORS = DEFAULT_UNIT_VECTORS;
/** The GPU link's default chunk (rounded to whole units): many units a launch. */
export const DEFAULT_GPU_CHUNK_VECTORS = 1 << 16;
/** Longest gap between two progress events while a point runs (the live row's refresh). */
export const PROGRESS_INTERVAL_MS = 500;
/** Units per SNR point at most: unit indices stay exact in the Philox stream numbers. */
const MAX_UNITS_PER_POINT = 2 ** 32;

/** The name a detector goes by in tables and plots: its algorithm and the parameters that matter (its entry's label). */
export function detectorLabel(d: SimDetector): string {
  return d.label ? d.label : detectorOptionsLabel(d);
}

/** How simulate() takes a detector's options: the run sets modulation and engine; a label may be added. */
const SIM_DETECTOR_USE: DetectOptionsUse = {
  refused: {
    modulation: "the simulation's modulation is every detector's",
    engine: "the simulation's engine runs every detector",
    gpuBatch: 'the simulation cuts the work itself (chunkVectors)',
  },
  extra: { label: option(string(), 'the name in tables, JSON and plots (default: the detector and its options)') },
};

/** Detector i of a simulation, checked as detect() checks its options; an uncoded run computes no LLRs to clip. */
function checkSimDetector(d: unknown, i: number, coded: boolean): SimDetector {
  const call = `simulate() detectors[${i}]`;
  const c = checkDetectOptions(d, call, SIM_DETECTOR_USE) as SimDetector;
  if (!coded && c.llrClip !== undefined) {
    throw new InvalidArgumentError(
      `${call}: option llrClip does not apply: an uncoded simulation counts hard decisions, no LLRs are computed (give a code)`,
      { option: 'llrClip', reason: 'uncoded' },
    );
  }
  return c;
}

/** Labels made unique ("mmse", "mmse #2") so every curve and table row can be told apart. */
function uniqueLabels(detectors: SimDetector[]): string[] {
  const seen = new Map<string, number>();
  return detectors.map((d) => {
    const base = detectorLabel(d);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base} #${n}`;
  });
}

/**
 * The engine a simulation of these detectors runs on, by the package's one chooser
 * (gpu/engine.ts): the GPU link can run it when every detector has a CUDA implementation, the
 * channel model a CUDA generator and, on a coded link, gives the LLRs asked for, takes a-priori
 * LLRs on the GPU where iterative detection and decoding asks for them (idd > 1), and the CUDA
 * decoder takes the code and decoder options.
 */
export async function resolveEngine(
  engine: SimulationOptions['engine'],
  detectors: readonly { detector: Detector }[],
  coded?: {
    code?: string;
    decoder?: DecoderOptions;
    modulation?: SimulationOptions['modulation'];
    channel?: SimulationOptions['channel'];
    ofdm?: SimulationOptions['ofdm'];
    idd?: number;
  },
): Promise<EngineDecision> {
  return chooseEngine({
    asked: engine,
    call: 'simulate',
    gpuGap: async () => {
      const { codedGpuUnsupported, detectorsWithoutCuda, iddGpuUnsupported } = await import('./gpu/executor.js');
      const missing = detectorsWithoutCuda(detectors);
      if (missing.length > 0) return `no CUDA ${missing.join(', ')} detector`;
      if (coded?.code !== undefined) {
        const idd = iddGpuUnsupported(detectors, coded.idd);
        if (idd !== null) return idd;
      }
      const channel = coded?.channel ?? DEFAULT_CHANNEL_MODEL;
      if (!channelEntry(channel)?.cuda) return `no CUDA generator of the '${channel}' channel model`;
      if (coded?.code === undefined) return null;
      const soft = codedGpuUnsupported(detectors);
      if (soft !== null) return soft;
      const { cudaDecoderUnsupported } = await import('../coding/index.js');
      const { codeOf } = await import('./coded.js');
      const why = cudaDecoderUnsupported(
        codeOf(coded.code, coded.modulation ?? 'qpsk'),
        resolveDecoderOptions(coded.decoder ?? {}),
      );
      return why === null ? null : `the CUDA decoder cannot decode this run: ${why}`;
    },
  });
}

export interface Plan {
  opts: SimulationOptions;
  /** OFDM link: its settings resolved; null for the flat link. */
  ofdm: OfdmLinkSpec | null;
  snrType: SnrType;
  maxErrors: number;
  maxVectors: number;
  vectorsPerChannel: number;
  /** Vectors per unit (the last unit of a point may hold fewer: maxVectors need not end on one). */
  unitVectors: number;
  /** Vectors per chunk: whole units. */
  chunkVectors: number;
  /** Units per point: ceil(maxVectors / unitVectors). */
  maxUnits: number;
  shard: ShardOptions | null;
  /** CUDA devices, one executor each; null: the one default device. */
  devices: readonly number[] | null;
  seed: number;
  threads: number;
  maxTimeSeconds: number | undefined;
  bitsPerSymbol: number;
  detectors: DetectOptions[];
  labels: string[];
  channel: ChannelModel;
  /** The channel model's parameters, checked. */
  channelOptions: Readonly<Record<string, unknown>>;
  /** Coded link: the code spec and decoder, its k, n, rate, vectors per frame; null when uncoded. */
  coded:
    | (CodedSpec & {
        k: number;
        n: number;
        rate: number;
        vectorsPerFrame: number;
        unit: number;
        /** The decoder's iteration limit, resolved (a point's meanIterations is at most this). */
        maxIterations: number;
      })
    | null;
  maxFrames: number | undefined;
}

/**
 * An NR code's blocks rate-matched onto a slot's `data` resource elements (38.212 5.4.2.1 with the
 * blocks' lengths equal): the slot carries C = floor(data / vectors of a block at the spec's rate)
 * code blocks, each E = nt Qm floor(data / C) channel bits (nt layers), so the blocks fill the slot
 * but for fewer than C resource elements (38.212 gives those to the last blocks, one each). Updates
 * `coded` in place (E, n, rate, vectorsPerFrame, unit); an 802.16e code keeps its length (whole
 * frames fill the slot). InvalidArgumentError where a block at the spec's rate does not fit.
 */
function slotRateMatch(coded: NonNullable<Plan['coded']>, data: number, nt: number, modulation: Modulation): void {
  if (!coded.code.trim().toLowerCase().startsWith('nr')) return;
  const blocks = Math.floor(data / coded.vectorsPerFrame);
  if (blocks === 0) return;
  const bps = bitsPerSymbolOf(modulation);
  const E = nt * bps * Math.floor(data / blocks);
  let code: ReturnType<typeof codeOf>;
  try {
    code = codeOf(coded.code, modulation, E);
  } catch (e) {
    throw new InvalidArgumentError(
      `code '${coded.code}': one code block fits the slot's ${data} data resource elements, and rate-matched onto all of them (E = ${E}) its rate falls outside 38.214's: ${(e as Error).message}; give fewer prbs or a higher rate`,
      { option: 'code', E, slotVectors: data },
    );
  }
  Object.assign(coded, { E, n: code.n, rate: code.rate, vectorsPerFrame: E / (nt * bps), unit: E / (nt * bps) });
}

/**
 * The OFDM link's settings resolved, and the vectors of its chunk (a slot's data resource elements;
 * coded, as many whole frames as they hold): null without `ofdm`. InvalidArgumentError for a grid
 * no numerology has, more than 4 transmit antennas, vectorsPerChannel or chunkVectors given (a slot
 * fixes both), or a frame longer than a slot.
 */
function ofdmPlan(
  o: { ofdm?: Partial<OfdmOptions>; vectorsPerChannel?: number; chunkVectors?: number },
  nt: number,
  modulation: Modulation,
  coded: Plan['coded'],
  call: string,
): { spec: OfdmLinkSpec; slotVectors: number } | null {
  if (o.ofdm === undefined) return null;
  const { scs, prbs } = o.ofdm as OfdmOptions;
  checkGrid({ scs, prbs }, `${call} option ofdm`);
  if (o.vectorsPerChannel !== undefined && o.vectorsPerChannel !== 1)
    throw inapplicable(call, 'vectorsPerChannel', 'the OFDM link gives every resource element its own channel');
  const spec: OfdmLinkSpec = {
    scs,
    prbs,
    csi: o.ofdm.csi ?? 'perfect',
    dmrsAdditional: o.ofdm.dmrsAdditional ?? 2,
  };
  const data = ofdmDataVectors(spec, nt);
  if (coded) slotRateMatch(coded, data, nt, modulation);
  const vectorsPerFrame = coded?.vectorsPerFrame;
  const slotVectors = vectorsPerFrame === undefined ? data : Math.floor(data / vectorsPerFrame) * vectorsPerFrame;
  if (slotVectors === 0)
    throw new InvalidArgumentError(
      `a frame spans ${vectorsPerFrame} vectors, more than the ${data} data resource elements of a slot of ${spec.prbs} resource blocks: give more prbs or a shorter code`,
      { option: 'ofdm.prbs', vectorsPerFrame, slotVectors: data },
    );
  if (o.chunkVectors !== undefined && o.chunkVectors !== slotVectors)
    throw inapplicable(
      call,
      'chunkVectors',
      `an OFDM chunk is a slot: its ${slotVectors} data vectors${vectorsPerFrame !== undefined ? ' (whole frames)' : ''}`,
    );
  return { spec, slotVectors };
}

export function plan(opts: SimulationOptions): Plan {
  const call = 'simulate()';
  const o = checkOptions(opts, SIMULATION_SCHEMA, call);
  const { nt, nr, modulation } = o as Required<typeof o>;
  const checkedDetectors = opts.detectors.map((d, i) => checkSimDetector(d, i, o.code !== undefined));
  const snrType = o.snrType ?? 'esn0';
  const maxErrors = o.maxErrors ?? DEFAULT_MAX_ERRORS;
  const vectorsPerChannel = o.vectorsPerChannel ?? 1;
  const { model: channel, params: channelOptions } = checkChannel(opts.channel, opts.channelOptions, { nt, nr }, call);
  let coded: Plan['coded'] = null;
  if (o.code !== undefined) {
    // before the soft check, so that idd > 1 with a detector taking no priors (a hard one too) is
    // refused naming idd and the detectors that take them
    checkIdd(o.idd, checkedDetectors, call);
    checkSoftDetectors(opts.detectors);
    const code = codeOf(o.code, modulation);
    const decoder: DecoderOptions = { ...(o.decoder ?? {}) };
    const { maxIterations } = resolveDecoderOptions(decoder, `${call} option decoder`);
    const vpf = vectorsPerFrame(code.n, nt, bitsPerSymbolOf(modulation));
    const unit = chunkUnit({ vectorsPerChannel, vectorsPerFrame: vpf });
    if (unit > MAX_CHUNK_VECTORS)
      throw new InvalidArgumentError(
        `a frame of ${vpf} vectors and channel groups of ${vectorsPerChannel} vectors need chunks of ${unit} vectors (at most 2^24)`,
        { option: 'vectorsPerChannel', unit, limit: MAX_CHUNK_VECTORS },
      );
    coded = {
      code: o.code,
      decoder,
      k: code.k,
      n: code.n,
      rate: code.rate,
      vectorsPerFrame: vpf,
      unit,
      maxIterations,
      ...(o.idd !== undefined ? { idd: o.idd } : {}),
    };
  } else if (o.idd !== undefined) {
    throw inapplicable(
      call,
      'idd',
      'iterative detection and decoding needs a code (an uncoded run decodes nothing to feed back)',
    );
  } else if (o.decoder !== undefined) {
    throw inapplicable(call, 'decoder', 'decoder options need a code (an uncoded run decodes nothing)');
  } else if (o.maxFrames !== undefined) {
    throw inapplicable(call, 'maxFrames', 'maxFrames needs a code (an uncoded run counts vectors: use maxVectors)');
  }
  const ofdm = ofdmPlan(o, nt, modulation, coded, call);
  // Units hold whole channel groups, and (coded) whole frames: the grain of both; an OFDM unit is a slot.
  const grain = coded
    ? { vectorsPerChannel, vectorsPerFrame: coded.vectorsPerFrame, code: coded.code }
    : { vectorsPerChannel };
  const grainVectors = ofdm ? ofdm.slotVectors : chunkUnit(grain);
  if (ofdm && o.unitVectors !== undefined && o.unitVectors !== ofdm.slotVectors)
    throw inapplicable(call, 'unitVectors', `an OFDM unit is a slot: its ${ofdm.slotVectors} data vectors`);
  const unitVectors =
    o.unitVectors ??
    (ofdm ? grainVectors : grainVectors * Math.max(1, Math.round(DEFAULT_UNIT_VECTORS / grainVectors)));
  checkChunkVectors(unitVectors, grain, 'unitVectors');
  const chunkVectors = o.chunkVectors ?? unitVectors;
  if (chunkVectors % unitVectors !== 0)
    throw new InvalidArgumentError(
      `chunkVectors (${chunkVectors}) must hold whole units: a multiple of unitVectors (${unitVectors})`,
      { option: 'chunkVectors', chunkVectors, unitVectors },
    );
  // the CPU engine generates a chunk unit by unit: a unit's arrays are the largest
  checkChunkBuffers(nt, nr, bitsPerSymbolOf(modulation), vectorsPerChannel, unitVectors, 'unitVectors');
  const maxFrames = o.maxFrames;
  // A channel group (and a frame) is never split: the vector limit is rounded up to whole grains;
  // a point's last unit may then be shorter than the others.
  const maxVectorsAsked = Math.min(
    o.maxVectors ?? DEFAULT_MAX_VECTORS,
    coded && maxFrames !== undefined ? maxFrames * coded.vectorsPerFrame : Infinity,
  );
  const maxVectors = Math.ceil(maxVectorsAsked / grainVectors) * grainVectors;
  if (maxVectors / unitVectors > MAX_UNITS_PER_POINT)
    throw new InvalidArgumentError(`maxVectors / unitVectors must be below 2^32`, { option: 'maxVectors' });
  const shard = (o.shard as ShardOptions | undefined) ?? null;
  if (shard) checkShard(shard, o.maxTimeSeconds, call);
  if (o.devices !== undefined && o.engine === 'cpu')
    throw inapplicable(call, 'devices', 'devices are CUDA devices: the CPU engine takes threads');
  const seed = o.seed ?? 1;
  const threads = o.threads ?? Math.min(MAX_THREADS, Math.max(1, availableParallelism()));
  const maxTimeSeconds = o.maxTimeSeconds;
  const detectors = checkedDetectors.map((d): DetectOptions => {
    const { label: _label, ...rest } = d;
    return { ...rest, modulation, engine: 'cpu' };
  });
  return {
    opts,
    ofdm: ofdm?.spec ?? null,
    snrType,
    maxErrors,
    maxVectors,
    vectorsPerChannel,
    unitVectors,
    chunkVectors,
    maxUnits: Math.ceil(maxVectors / unitVectors),
    shard,
    devices: o.devices ?? null,
    seed,
    threads,
    maxTimeSeconds,
    bitsPerSymbol: bitsPerSymbolOf(modulation),
    detectors,
    labels: uniqueLabels(opts.detectors),
    channel,
    channelOptions,
    coded,
    maxFrames,
  };
}

/**
 * idd > 1 needs detectors that take a-priori LLRs (their registry traits): InvalidArgumentError
 * naming option 'idd', the first detector that does not and those that do.
 */
function checkIdd(idd: number | undefined, detectors: readonly SimDetector[], call: string): void {
  if (idd === undefined || idd <= 1) return;
  for (const [i, d] of detectors.entries()) {
    if (!detectorEntry(d.detector)?.traits.priors) {
      const takers = priorDetectors();
      throw new InvalidArgumentError(
        `${call}: option 'idd' (${idd}) needs detectors that take a-priori LLRs (${takers.length ? takers.join(', ') : 'none'}); detectors[${i}] '${d.detector}' takes none`,
        { option: 'idd', detector: d.detector, detectorIndex: i, priorDetectors: takers },
      );
    }
  }
}

/** Running totals of one detector at one point. */
export interface Tally {
  bitErrors: number;
  symbolErrors: number;
  frameErrors: number;
  unproven: number;
  vectors: number;
  timeMs: number;
  iterations: number;
  stoppedBy: SimPoint['stoppedBy'] | null;
}

/** What the engines need of a coded plan: the spec, the decoder and the rate-matched length the link set. */
const codedSpecOf = (c: NonNullable<Plan['coded']>): CodedSpec => ({
  code: c.code,
  decoder: c.decoder,
  ...(c.E !== undefined ? { E: c.E } : {}),
  ...(c.idd !== undefined ? { idd: c.idd } : {}),
});

/** The errors the stop rule counts: bit errors, or frame errors for a coded run. */
const stopErrors = (p: Plan, t: Tally): number => (p.coded ? t.frameErrors : t.bitErrors);

/** The sums of a chunk's rows (ChunkResult.counts[d]: COUNT_FIELDS numbers a unit), one pass, to out[at ..]. */
function sumRows(rows: Float64Array, out: Float64Array, at: number): void {
  let bit = 0,
    sym = 0,
    frame = 0,
    unproven = 0,
    time = 0,
    iterations = 0;
  for (let o = 0; o < rows.length; o += COUNT_FIELDS) {
    bit += rows[o + COUNT.bitErrors]!;
    sym += rows[o + COUNT.symbolErrors]!;
    frame += rows[o + COUNT.frameErrors]!;
    unproven += rows[o + COUNT.unproven]!;
    time += rows[o + COUNT.timeMs]!;
    iterations += rows[o + COUNT.iterations]!;
  }
  out[at + COUNT.bitErrors] = bit;
  out[at + COUNT.symbolErrors] = sym;
  out[at + COUNT.frameErrors] = frame;
  out[at + COUNT.unproven] = unproven;
  out[at + COUNT.timeMs] = time;
  out[at + COUNT.iterations] = iterations;
}

/** Adds the counts at rows[o ..] (ChunkResult.counts: a unit's, or a chunk's summed) and their vectors to a tally. */
function addTally(t: Tally, rows: Float64Array, o: number, vectors: number): void {
  t.bitErrors += rows[o + COUNT.bitErrors]!;
  t.symbolErrors += rows[o + COUNT.symbolErrors]!;
  t.frameErrors += rows[o + COUNT.frameErrors]!;
  t.unproven += rows[o + COUNT.unproven]!;
  t.timeMs += rows[o + COUNT.timeMs]!;
  t.iterations += rows[o + COUNT.iterations]!;
  t.vectors += vectors;
}

export function toPoint(p: Plan, d: number, snrIndex: number, snr: number, noiseVar: number, t: Tally): SimPoint {
  const rate = p.coded?.rate ?? 1;
  const frames = p.coded ? t.vectors / p.coded.vectorsPerFrame : t.vectors;
  const bits = p.coded ? frames * p.coded.k : t.vectors * p.opts.nt * p.bitsPerSymbol;
  const symbols = t.vectors * p.opts.nt;
  return {
    detector: p.labels[d]!,
    algorithm: p.detectors[d]!.detector,
    snrIndex,
    snr,
    snrType: p.snrType,
    esn0Db: toEsN0Db(snr, p.snrType, p.bitsPerSymbol, rate),
    ebn0Db: toEbN0Db(snr, p.snrType, p.bitsPerSymbol, rate),
    noiseVar,
    ber: bits > 0 ? t.bitErrors / bits : 0,
    ser: symbols > 0 ? t.symbolErrors / symbols : 0,
    fer: frames > 0 ? t.frameErrors / frames : 0,
    bitErrors: t.bitErrors,
    symbolErrors: t.symbolErrors,
    frameErrors: t.frameErrors,
    bits,
    symbols,
    frames,
    vectors: t.vectors,
    unproven: t.unproven,
    timeMs: t.timeMs,
    ...(p.coded ? { code: p.coded.code, meanIterations: frames > 0 ? t.iterations / frames : 0 } : {}),
    stoppedBy: t.stoppedBy ?? 'vectors',
  };
}

/**
 * Makes the executor of chunks: the GPU link (engine cuda; with several devices one a device,
 * chunks dealt out in turn), else the worker pool, or this thread for threads = 1.
 */
async function makeExecutor(p: Plan, engine: 'cpu' | 'cuda'): Promise<ChunkExecutor<ChunkTask, ChunkResult>> {
  if (engine === 'cuda') {
    const { GpuLinkExecutor } = await import('./gpu/executor.js');
    const setup: GpuLinkSetup = {
      nt: p.opts.nt,
      nr: p.opts.nr,
      modulation: p.opts.modulation,
      vectorsPerChannel: p.vectorsPerChannel,
      unitVectors: p.unitVectors,
      seed: p.seed,
      detectors: p.detectors,
      channel: p.channel,
      channelOptions: p.channelOptions,
      ...(p.coded ? { coded: codedSpecOf(p.coded) } : {}),
      ...(p.ofdm ? { ofdm: p.ofdm } : {}),
    };
    const devices = p.devices ?? [0];
    if (devices.length === 1) return GpuLinkExecutor.create({ ...setup, device: devices[0]! });
    // the first device in this thread, the others each in a worker thread
    const { DealingExecutor, DeviceWorkerExecutor } = await import('./devices.js');
    const made = await Promise.allSettled([
      GpuLinkExecutor.create({ ...setup, device: devices[0]! }),
      ...devices.slice(1).map((device) => DeviceWorkerExecutor.start({ ...setup, device })),
    ]);
    const failed = made.find((m) => m.status === 'rejected');
    if (failed) {
      await Promise.all(made.map((m) => (m.status === 'fulfilled' ? m.value.close() : undefined)));
      throw failed.reason;
    }
    return new DealingExecutor(
      made.map((m) => (m as PromiseFulfilledResult<ChunkExecutor<ChunkTask, ChunkResult>>).value),
    );
  }
  return p.threads === 1
    ? new InThreadExecutor(runChunkSliced)
    : new WorkerPool<ChunkTask, ChunkResult>(new URL('./worker.js', import.meta.url), p.threads);
}

/** The executor of a run; replaced when a point stops by time with chunks still running. */
interface Runner {
  exec: ChunkExecutor<ChunkTask, ChunkResult>;
  /** Makes the run's executor (again). */
  make: () => Promise<ChunkExecutor<ChunkTask, ChunkResult>>;
  aborted: Promise<'abort'>;
}

/** What makes a run's executor once its plan and engine are known (simulateWith). */
export type ExecutorMaker = (p: Plan, engine: 'cpu' | 'cuda') => Promise<ChunkExecutor<ChunkTask, ChunkResult>>;

/** A point's outcome: its points (one per detector), and a shard's units of it. */
interface PointResult {
  points: SimPoint[];
  shardUnits: ShardUnits[];
}

/** How often a shard with a shared directory writes its units and reads its siblings'. */
const SHARD_DIR_INTERVAL_MS = 1000;

/**
 * One SNR point's counts, or null when the run's signal fired before it finished. Chunks are handed
 * out ahead (as many as the executor computes at once, twice over) and merged strictly in order,
 * unit by unit: after each unit every active detector's stop rule is checked, so the counts are
 * those of units 0..u for a u that depends only on the data. A shard merges its own chunks in order
 * and keeps each unit's counts; it stops a detector at its quota (shards.ts), or once the shared
 * directory shows the run's stop within units computed.
 */
async function simulatePoint(
  p: Plan,
  runner: Runner,
  snrIndex: number,
  shardDir: { dir: ShardDir; earlier: ShardUnits[] } | null,
): Promise<PointResult | null> {
  const snr = p.opts.snrs[snrIndex]!;
  const noiseVar = snrToNoiseVar(snr, p.snrType, p.bitsPerSymbol, p.coded?.rate ?? 1);
  const start = performance.now();
  const nDet = p.detectors.length;
  const tallies: Tally[] = p.detectors.map(() => ({
    bitErrors: 0,
    symbolErrors: 0,
    frameErrors: 0,
    unproven: 0,
    vectors: 0,
    timeMs: 0,
    iterations: 0,
    stoppedBy: null,
  }));
  const isActive = (d: number) => tallies[d]!.stoppedBy === null;
  const perChunk = p.chunkVectors / p.unitVectors;
  const maxChunks = Math.ceil(p.maxUnits / perChunk);
  const shard = p.shard;
  const chunkAt = chunkOrder(shard);
  const chunks = chunksOf(maxChunks, shard);
  const quota = shard ? shardQuota(p.maxErrors, shard.count) : p.maxErrors;
  const minUnit = shard?.minUnit ?? -1;
  const rule = unitRule(p);
  const shardUnits: ShardUnits[] = shard
    ? p.labels.map((detector) => ({
        snrIndex,
        detector,
        units: [],
        bitErrors: [],
        symbolErrors: [],
        frameErrors: [],
        unproven: [],
        iterations: [],
        timeMs: 0,
      }))
    : [];
  // chunks the executor computes at once: its threads, or the GPU's units per launch in chunks
  const parallel = Math.max(1, Math.floor((runner.exec.parallelism ?? p.threads * perChunk) / perChunk));
  const window = 2 * parallel;
  // `result` is set as soon as the chunk is done: the chunks of a GPU launch finish together and
  // are then merged without a turn of the event loop each
  const inflight = new Map<number, { promise: Promise<ChunkResult>; vectors: number; result?: ChunkResult }>();
  let inflightVectors = 0;
  let nextPos = 0;
  let mergedVectors = 0;

  // More chunks are worth handing out while some active detector is not expected to reach its
  // error limit within the chunks already in flight (at its error rate so far). This only decides
  // how much work is done ahead, never which units are counted, so it cannot change the results.
  const worthDispatching = (): boolean => {
    if (inflight.size === 0) return true;
    if (mergedVectors === 0) return inflight.size < parallel;
    for (let d = 0; d < nDet; d++) {
      if (!isActive(d)) continue;
      const t = tallies[d]!;
      const e = stopErrors(p, t);
      if (e + (e / mergedVectors) * inflightVectors < quota) return true;
    }
    return false;
  };

  // the active detectors, one array while the set is unchanged (chunks share it)
  let active: number[] = [];
  const activeList = (): number[] => {
    let n = 0;
    for (let d = 0; d < nDet; d++) if (isActive(d)) n++;
    if (n !== active.length) active = p.detectors.map((_, d) => d).filter(isActive);
    return active;
  };

  const dispatch = (): void => {
    while (nextPos < chunks && inflight.size < window && worthDispatching()) {
      const pos = nextPos++;
      const c = chunkAt(pos);
      const unit0 = c * perChunk;
      // every unit is whole but a point's last (maxVectors need not end on one)
      const n = Math.min(p.maxUnits, unit0 + perChunk) - unit0;
      const unitSizes = new Array<number>(n).fill(p.unitVectors);
      unitSizes[n - 1] = unitSize(rule, unit0 + n - 1);
      const vectors = (n - 1) * p.unitVectors + unitSizes[n - 1]!;
      const task: ChunkTask = {
        nt: p.opts.nt,
        nr: p.opts.nr,
        modulation: p.opts.modulation,
        vectorsPerChannel: p.vectorsPerChannel,
        seed: p.seed,
        detectors: p.detectors,
        active: activeList(),
        snrIndex,
        unit0,
        unitSizes,
        noiseVar,
        ...(p.channel !== DEFAULT_CHANNEL_MODEL ? { channel: p.channel } : {}),
        ...(Object.keys(p.channelOptions).length > 0 ? { channelOptions: p.channelOptions } : {}),
        ...(p.coded ? { coded: codedSpecOf(p.coded), sliceVectors: p.coded.unit } : {}),
        ...(p.ofdm ? { ofdm: p.ofdm } : {}),
      };
      const promise = runner.exec.run(task);
      const entry: { promise: Promise<ChunkResult>; vectors: number; result?: ChunkResult } = { promise, vectors };
      // a chunk past every stop may fail unobserved; merged chunks rethrow below
      promise.then(
        (r) => {
          entry.result = r;
        },
        () => {},
      );
      inflight.set(pos, entry);
      inflightVectors += vectors;
    }
  };

  const emit = (type: 'update' | 'point') =>
    p.opts.onProgress?.({
      type,
      snrIndex,
      snr,
      snrType: p.snrType,
      points: tallies.map((t, d) => toPoint(p, d, snrIndex, snr, noiseVar, t)),
      finished: tallies.map((t) => t.stoppedBy !== null),
      pointWallMs: performance.now() - start,
    });

  // a shard's last merged unit (shareAndCheck)
  let lastMerged = -1;
  // A chunk's rows of an active detector (every detector active now was active when it was handed out).
  const rowsOf = (result: ChunkResult, d: number): Float64Array => {
    const rows = result.counts[d];
    if (!rows)
      throw new Error(`internal: chunk at unit ${result.unit0} lacks counts of active detector ${p.labels[d]}`);
    return rows;
  };

  // The whole chunk at once, where no active detector can reach a stop (or a failure) inside it:
  // the counts are then those of the unit walk, summed in another order (exact for the counts).
  const chunkSums = new Float64Array(nDet * COUNT_FIELDS);
  const mergeWhole = (result: ChunkResult): boolean => {
    let vectors = 0;
    for (const v of result.vectors) vectors += v;
    const errorField = p.coded ? COUNT.frameErrors : COUNT.bitErrors;
    const active = activeList();
    for (const d of active) {
      if (result.failures?.[d]) return false;
      const t = tallies[d]!;
      if (t.vectors + vectors >= p.maxVectors) return false;
      sumRows(rowsOf(result, d), chunkSums, d * COUNT_FIELDS);
      if (stopErrors(p, t) + chunkSums[d * COUNT_FIELDS + errorField]! >= p.maxErrors) return false;
    }
    mergedVectors += vectors;
    for (const d of active) addTally(tallies[d]!, chunkSums, d * COUNT_FIELDS, vectors);
    return true;
  };

  // The chunk unit by unit, the stop rules checked after each.
  const mergeUnits = (result: ChunkResult): void => {
    const n = result.vectors.length;
    for (let i = 0; i < n; i++) {
      const u = result.unit0 + i;
      const vectors = result.vectors[i]!;
      mergedVectors += vectors;
      let left = 0;
      for (let d = 0; d < nDet; d++) {
        if (!isActive(d)) continue;
        const failed = result.failures?.[d];
        if (failed && failed.unit <= i) throw errorFromRecord(failed.error);
        const rows = rowsOf(result, d);
        const o = i * COUNT_FIELDS;
        const t = tallies[d]!;
        addTally(t, rows, o, vectors);
        if (shard) {
          const r = shardUnits[d]!;
          r.units.push(u);
          r.bitErrors.push(rows[o + COUNT.bitErrors]!);
          r.symbolErrors.push(rows[o + COUNT.symbolErrors]!);
          r.frameErrors.push(rows[o + COUNT.frameErrors]!);
          r.unproven.push(rows[o + COUNT.unproven]!);
          r.iterations.push(rows[o + COUNT.iterations]!);
          r.timeMs += rows[o + COUNT.timeMs]!;
          if (stopErrors(p, t) >= quota && u >= minUnit) t.stoppedBy = 'errors';
        } else if (stopErrors(p, t) >= p.maxErrors) t.stoppedBy = 'errors';
        else if (t.vectors >= p.maxVectors) t.stoppedBy = 'vectors';
        if (t.stoppedBy === null) left++;
      }
      lastMerged = u;
      if (left === 0) break;
    }
  };

  // A shard with a shared directory: its units go there, and a detector stops once the units of
  // every shard there reach the run's stop and this shard has computed its own units up to it.
  let dirDue = 0;
  const shareAndCheck = (force: boolean): void => {
    if (!shardDir || (!force && performance.now() < dirDue)) return;
    dirDue = performance.now() + SHARD_DIR_INTERVAL_MS;
    shardDir.dir.write([...shardDir.earlier, ...shardUnits]);
    const others = shardDir.dir.readOthers();
    for (let d = 0; d < nDet; d++) {
      if (!isActive(d)) continue;
      const recs = [
        shardUnits[d]!,
        ...others.flatMap((f) => f.units.filter((r) => r.snrIndex === snrIndex && r.detector === p.labels[d])),
      ];
      const index = recs.map(unitIndexOf);
      const walk = walkUnits(rule, (u) => {
        for (const [i, rec] of recs.entries()) {
          const at = index[i]!.get(u);
          if (at !== undefined) return unitCountAt(rec, at);
        }
        return undefined;
      });
      // the run's stop is known: every unit up to it is there, this shard's own among them
      if (walk.stoppedBy !== null && lastMerged >= minUnit) tallies[d]!.stoppedBy = walk.stoppedBy;
    }
  };

  // The abort signal and the time limit wake the one waiting merge (a race per chunk against
  // long-lived promises would leave a reaction on them per chunk: memory and GC at GPU rates).
  let interrupt: 'abort' | 'time' | null = null;
  let wake: ((why: 'abort' | 'time') => void) | null = null;
  const stop = (why: 'abort' | 'time') => {
    interrupt ??= why;
    wake?.(interrupt);
  };
  void runner.aborted.then(() => stop('abort'));
  const deadlineTimer =
    p.maxTimeSeconds !== undefined ? setTimeout(() => stop('time'), p.maxTimeSeconds * 1000) : undefined;
  // The live row moves inside a long point too (its wall time), not only when a chunk merges.
  const ticker = p.opts.onProgress ? setInterval(() => emit('update'), PROGRESS_INTERVAL_MS) : undefined;
  try {
    for (let merged = 0; merged < chunks && tallies.some((t) => t.stoppedBy === null); merged++) {
      dispatch();
      const entry = inflight.get(merged)!;
      const result =
        interrupt ??
        entry.result ??
        (await new Promise<ChunkResult | 'abort' | 'time'>((resolve, reject) => {
          wake = resolve;
          entry.promise.then(resolve, (err: unknown) => reject(atChunk(err, chunkAt(merged) * perChunk)));
        }));
      wake = null;
      if (result === 'abort') return null;
      if (result === 'time') {
        for (const t of tallies) if (t.stoppedBy === null) t.stoppedBy = 'time';
        break;
      }
      inflight.delete(merged);
      inflightVectors -= entry.vectors;
      // a shard keeps each unit's counts: always unit by unit
      if (shard || !mergeWhole(result)) mergeUnits(result);
      shareAndCheck(false);
      emit('update');
    }
  } finally {
    clearTimeout(deadlineTimer);
    clearInterval(ticker);
  }
  // a shard's detectors still running when its units ran out stopped by the vector limit
  for (const t of tallies) t.stoppedBy ??= 'vectors';
  if (tallies.some((t) => t.stoppedBy === 'time') && inflight.size > 0) {
    // Chunks past a time limit would keep the workers busy into the next point: start afresh.
    await runner.exec.close();
    runner.exec = await runner.make();
  }
  if (shardDir) shardDir.dir.write([...shardDir.earlier, ...shardUnits]);
  emit('point');
  return { points: tallies.map((t, d) => toPoint(p, d, snrIndex, snr, noiseVar, t)), shardUnits };
}

/** The unit-ordered stop rule of a plan (shards.ts walkUnits). */
export function unitRule(p: Plan): UnitRule {
  return {
    maxUnits: p.maxUnits,
    unitVectors: p.unitVectors,
    maxVectors: p.maxVectors,
    maxErrors: p.maxErrors,
    coded: p.coded !== null,
  };
}

/**
 * A chunk's failure as a library error (an InternalError for anything else, such as a worker that
 * died) that names the chunk, unless the executor named one already (a GPU launch of several
 * chunks fails in the one whose vector failed).
 */
function atChunk(err: unknown, chunk: number): LatticeMimoError {
  const e = asLibraryError(err);
  return e.context.chunk === undefined ? e.withContext({ chunk }) : e;
}

/**
 * The error that stopped a run, at its SNR point (index and dB) and detector (its label, from the
 * chunk's details.detectorIndex) where it came from a point, carrying the finished points:
 * `details.partial` is `partial` with `error` set to it as data.
 */
function runFailure(p: Plan, err: unknown, snrIndex: number | null, partial: SimulationResult): LatticeMimoError {
  let e = asLibraryError(err);
  if (snrIndex !== null) {
    const d = e.details?.detectorIndex;
    const label = typeof d === 'number' ? p.labels[d] : undefined;
    e = e.withContext({ snrIndex, snr: p.opts.snrs[snrIndex]!, ...(label !== undefined ? { detector: label } : {}) });
  }
  partial.error = errorRecord(e);
  return e.withContext({}, { partial });
}

/**
 * The completed points of SNR index i (one per detector, in detector order) among `points`
 * (checked by checkCompletedPoints), or null when the run has none of that SNR index.
 */
function completedAt(p: Plan, points: readonly SimPoint[], i: number): SimPoint[] | null {
  const found: SimPoint[] = [];
  for (const label of p.labels) {
    const q = points.find((x) => x.snrIndex === i && x.detector === label);
    if (!q) return null;
    // points of runs before the unproven count: none counted
    found.push(q.unproven === undefined ? { ...q, unproven: 0 } : q);
  }
  return found;
}

/**
 * simulate()'s checks of `opts` without running it: the settings resolved as simulate() resolves
 * them, then `completedPoints` against them. Throws what simulate() would throw before any work
 * (the engine's availability aside).
 */
export function checkSimulationOptions(opts: SimulationOptions): void {
  checkCompletedPoints(opts.completedPoints ?? [], plan(opts));
}

/**
 * The settings that fix a run's counts, as one string (shards of one run share it): everything
 * but how the work is cut and run (chunkVectors, threads, engine, devices, shard) and callbacks.
 */
export function runKey(p: Plan): string {
  const o = p.opts;
  return JSON.stringify({
    nt: o.nt,
    nr: o.nr,
    modulation: o.modulation,
    detectors: o.detectors,
    snrs: o.snrs,
    snrType: p.snrType,
    code: p.coded ? { code: p.coded.code, decoder: p.coded.decoder, idd: p.coded.idd ?? 1 } : null,
    channel: p.channel,
    channelOptions: p.channelOptions,
    ofdm: p.ofdm,
    maxErrors: p.maxErrors,
    maxVectors: p.maxVectors,
    vectorsPerChannel: p.vectorsPerChannel,
    unitVectors: p.unitVectors,
    seed: p.seed,
  });
}

/** Runs the whole simulation: every SNR point in order, every detector on the same data. */
export async function simulate(opts: SimulationOptions): Promise<SimulationResult> {
  return simulateWith(opts, makeExecutor);
}

/**
 * simulate() with its executors made by `makeExec` (the engine still chosen as simulate() chooses
 * it): how the tests put a fake device beside a real one. Not part of the public API.
 */
export async function simulateWith(opts: SimulationOptions, makeExec: ExecutorMaker): Promise<SimulationResult> {
  const p = plan(opts);
  // a resumed run's points are checked before any work (the engine probe included)
  const completed = opts.completedPoints ?? [];
  checkCompletedPoints(completed, p);
  if (p.shard && completed.length > 0)
    throw new InvalidArgumentError(
      'simulate(): a shard computes units, not whole points: completedPoints cannot go with shard (merge the shards, then resume the merged run)',
      { option: 'completedPoints' },
    );
  const decision = await resolveEngine(opts.engine, p.detectors, {
    code: opts.code,
    decoder: p.coded?.decoder,
    modulation: opts.modulation,
    channel: p.channel,
    ofdm: opts.ofdm,
    ...(p.coded?.idd !== undefined ? { idd: p.coded.idd } : {}),
  });
  const { engine } = decision;
  if (p.devices && engine !== 'cuda')
    throw new EngineUnavailableError(
      `simulate(): devices ${p.devices.join(',')} asked for, but the run takes the CPU engine (${decision.reason})`,
      { option: 'devices' },
    );
  // the GPU link runs fastest on big chunks; counts do not depend on them
  if (engine === 'cuda' && opts.chunkVectors === undefined && !p.ofdm)
    p.chunkVectors = p.unitVectors * Math.max(1, Math.round(DEFAULT_GPU_CHUNK_VECTORS / p.unitVectors));
  const start = performance.now();
  const signal = opts.signal;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<'abort'>((resolve) => {
    onAbort = () => resolve('abort');
    if (signal?.aborted) resolve('abort');
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  const points: SimPoint[] = [];
  const shardUnits: ShardUnits[] = [];
  const shardDir =
    p.shard?.dir !== undefined
      ? new ShardDir(p.shard.dir, runKey(p), {
          index: p.shard.index,
          count: p.shard.count,
          unitsPerChunk: p.chunkVectors / p.unitVectors,
        })
      : null;
  let interrupted = false;
  let runner: Runner | undefined;
  // what stopped the run, and at which point (null: before any point ran, making the executor)
  let failure: { err: unknown; snrIndex: number | null } | null = null;
  try {
    for (let i = 0; i < opts.snrs.length && !interrupted; i++) {
      const done = completedAt(p, completed, i);
      if (done) {
        points.push(...done);
        continue;
      }
      if (signal?.aborted) {
        interrupted = true;
        break;
      }
      try {
        const make = () => makeExec(p, engine);
        runner ??= { exec: await make(), make, aborted };
      } catch (err) {
        failure = { err, snrIndex: null };
        break;
      }
      try {
        const got = await simulatePoint(p, runner, i, shardDir ? { dir: shardDir, earlier: shardUnits } : null);
        if (got === null) interrupted = true;
        else {
          points.push(...got.points);
          shardUnits.push(...got.shardUnits);
        }
      } catch (err) {
        failure = { err, snrIndex: i };
        break;
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort!);
    await runner?.exec.close();
  }
  const result: SimulationResult = {
    nt: opts.nt,
    nr: opts.nr,
    modulation: opts.modulation,
    snrType: p.snrType,
    seed: p.seed,
    threads: engine === 'cuda' ? 1 : p.threads,
    engine,
    channel: p.channel,
    ...(Object.keys(p.channelOptions).length > 0 ? { channelOptions: { ...p.channelOptions } } : {}),
    ...(p.ofdm ? { ofdm: { ...p.ofdm } } : {}),
    ...(p.coded ? { code: p.coded.code, decoder: p.coded.decoder, codeRate: p.coded.rate } : {}),
    ...(p.coded?.idd !== undefined ? { idd: p.coded.idd } : {}),
    ...(p.coded?.E !== undefined ? { rateMatchedLength: p.coded.E } : {}),
    ...(p.maxFrames !== undefined ? { maxFrames: p.maxFrames } : {}),
    maxErrors: p.maxErrors,
    maxVectors: p.maxVectors,
    vectorsPerChannel: p.vectorsPerChannel,
    unitVectors: p.unitVectors,
    chunkVectors: p.chunkVectors,
    ...(p.shard
      ? {
          shard: {
            index: p.shard.index,
            count: p.shard.count,
            unitsPerChunk: p.chunkVectors / p.unitVectors,
            units: shardUnits,
          },
        }
      : {}),
    detectors: opts.detectors.map(({ ...d }) => d),
    snrs: [...opts.snrs],
    ...(p.maxTimeSeconds !== undefined ? { maxTimeSeconds: p.maxTimeSeconds } : {}),
    interrupted: interrupted || failure !== null,
    wallMs: performance.now() - start,
    points,
  };
  if (failure) throw runFailure(p, failure.err, failure.snrIndex, result);
  return result;
}

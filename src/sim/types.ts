/**
 * Types of the Monte Carlo simulation: what to simulate, what comes back, and the progress events
 * the live table listens to.
 */
import type { ChannelModel } from '../channels/index.js';
import type { ErrorRecord } from '../core/index.js';
import type { DecoderOptions } from '../coding/index.js';
import type { DetectOptions, Detector, Modulation, SnrType } from '../mimo/index.js';

export type { SnrType } from '../mimo/index.js';

/** One detector to simulate: DetectOptions without the modulation (the simulation fixes it). */
export interface SimDetector extends Omit<DetectOptions, 'modulation' | 'engine'> {
  /** Name shown in tables, JSON and plots; defaults to the detector and its parameters ("kbest K=8"). */
  label?: string;
}

/** What simulate() runs: one link (antennas, modulation), several detectors, a list of SNR points. */
export interface SimulationOptions {
  /** Transmit antennas. */
  nt: number;
  /** Receive antennas. */
  nr: number;
  /** The constellation every stream sends. */
  modulation: Modulation;
  /** The detectors, all run on the same channels, symbols and noise. */
  detectors: SimDetector[];
  /** SNR points in dB, of the kind `snrType` names. */
  snrs: number[];
  /** Es/N0 (default) or Eb/N0 = Es/N0 - 10 log10(bitsPerSymbol * code rate) (uncoded: rate 1). */
  snrType?: SnrType;
  /**
   * Coded link: an ldpcCode() spec ('wimax:2304:1/2', 'nr:bg1:K:R'); every detector must be soft
   * (its max-log LLRs feed the decoder). Absent: uncoded, a frame is one received vector.
   */
  code?: string;
  /** Coded link: the decoder (default nms, 20 iterations, early stop). */
  decoder?: DecoderOptions;
  /**
   * Coded link: iterative detection and decoding (IDD), N outer passes (1 to 32; default 1, one
   * detection and one decoding, as without it). Pass t > 1 detects again with the previous
   * decoding's extrinsic LLRs on the frame's code bits as the detector's a-priori LLRs (pad bits
   * 0), and decodes its extrinsic LLRs afresh; the counts are the last pass's decoded bits
   * (symbolErrors stay the first, prior-free detection's; meanIterations the last decoding's). With
   * N > 1 every detector must take priors (its registry traits: mmse-pic, ep, ml, kbest, nway, ssfe).
   * Both engines run it: the CUDA engine keeps every pass on the device for detectors whose CUDA
   * kernels take priors (mmse-pic, ep, ml, kbest, nway, ssfe: all of them); with one whose kernel took none 'auto'
   * picks the CPU and 'cuda' is refused. Cost: N detections and N decodings per frame.
   */
  idd?: number;
  /**
   * The channel model (src/channels' registry): 'rayleigh' (default), iid Rayleigh fading; 'awgn',
   * H = I, no fading (needs nr >= nt).
   */
  channel?: ChannelModel;
  /** The channel model's parameters, checked by its schema (none of the models so far takes any). */
  channelOptions?: Readonly<Record<string, unknown>>;
  /**
   * OFDM link (docs/CHANNELS.md): every chunk is one slot of 14 symbols on 12 prbs subcarriers at
   * subcarrier spacing scs (Hz), its channel the model's response on every resource element (a drop
   * a slot), the PUSCH DM-RS (type 1, one port a layer: nt <= 4) on dmrsAdditional + 1 symbols,
   * data on the others; a vector is a data resource element. csi: the detectors get the true
   * channel ('perfect', default) or its 'ls' / 'lmmse' estimate with the estimated noise variance.
   * chunkVectors is then the slot's data vectors and vectorsPerChannel 1; coded, an NR code's
   * blocks are rate-matched onto the slot (rateMatchedLength), an 802.16e code's whole codewords
   * fill it. Absent: the flat link.
   */
  ofdm?: OfdmOptions;
  /** Stop a detector at a point once it has this many errors: bit errors, or frame errors for a coded run (default 200). */
  maxErrors?: number;
  /** Stop a detector at a point after this many vectors (default 1,000,000). */
  maxVectors?: number;
  /** Coded link: stop a detector at a point after this many frames (rounded up to whole chunk units); default no limit beyond maxVectors. */
  maxFrames?: number;
  /** One channel matrix serves this many consecutive vectors (default 1). */
  vectorsPerChannel?: number;
  /**
   * Vectors per unit: the link is drawn unit by unit, each from its own Philox streams numbered by
   * (seed, SNR index, unit index), and the stop rules are applied after each unit in unit order, so
   * the counts of a seed depend on the unit, never on chunkVectors, threads, engine, devices or
   * shards. Whole channel groups and (coded) frames; default: 1024 rounded to a multiple of those
   * (an OFDM unit is a slot).
   */
  unitVectors?: number;
  /** Vectors per chunk, the work handed to a worker or a GPU launch at once: a multiple of unitVectors (default unitVectors). */
  chunkVectors?: number;
  /**
   * Shard `index` of `count` (0 <= index < count): this run computes the chunks index, index +
   * count, ... of every point and keeps each unit's counts (SimulationResult.shard); mergeShards()
   * then gives the counts of one unsharded run. A shard stops a detector once its own errors reach
   * its share (shardQuota) or, with `dir`, once the shards' files there show the run's stop reached;
   * `minUnit` makes it compute its units up to that unit at least (what merge asks for where it
   * found units missing).
   */
  shard?: ShardOptions;
  /**
   * CUDA devices to run on: one GPU link executor per device, chunks dealt out in order, counts
   * merged by unit as with one (default: device 0 alone). Engine cuda only.
   */
  devices?: readonly number[];
  /** Philox key (default 1). Same seed -> same counts, whatever the number of threads. */
  seed?: number;
  /** Worker threads (default: all cores); 1 runs in this thread. */
  threads?: number;
  /**
   * Engine: 'cpu'; 'cuda', the whole link on the GPU (every detector needs a CUDA implementation,
   * else EngineUnavailableError); 'auto' (default) the GPU where that holds, else the CPU.
   */
  engine?: 'auto' | 'cpu' | 'cuda';
  /**
   * Wall-clock limit per SNR point, in seconds: past it the point's active detectors stop with the
   * counts merged so far, flagged stoppedBy 'time' (counts then depend on the machine's speed).
   */
  maxTimeSeconds?: number;
  /**
   * Stops the run: the result holds the points finished before it fired, with `interrupted` true
   * (the point in progress is dropped; its counts would not be those of an uninterrupted run).
   * An error stops the run the same way: simulate() rejects with it, and its `details.partial` is
   * this result (the finished points, `interrupted` true, `error` the error as data).
   */
  signal?: AbortSignal;
  /**
   * Points of an earlier run of the same settings (its JSON's `points`): SNR points for which every
   * detector is present are taken as they are and not recomputed. Chunk order makes the counts those
   * of an uninterrupted run. Checked before any work against the settings, as `simulate --resume`
   * checks a file: a point inconsistent with them or with itself is an InvalidInputError
   * (INVALID_INPUT) naming `completedPoints[i]` and the field (`details.point`, `details.field`).
   */
  completedPoints?: readonly SimPoint[];
  /**
   * Called after every merged chunk, at least every PROGRESS_INTERVAL_MS while a point runs, and
   * after every finished point.
   */
  onProgress?: (event: SimProgressEvent) => void;
}

/** Which shard a run is (SimulationOptions.shard). */
export interface ShardOptions {
  /** This shard, 0 to count - 1. */
  index: number;
  /** Shards of the run. */
  count: number;
  /** A directory every shard can read and write: they stop together once the run's stop is reached. */
  dir?: string;
  /** Compute this shard's units up to this unit index at least (every point, every detector). */
  minUnit?: number;
}

/** One detector's units at one point of a shard, in unit order; the counts are columns, unit by unit. */
export interface ShardUnits {
  /** The SNR point's index. */
  snrIndex: number;
  /** The detector's label (SimPoint.detector). */
  detector: string;
  /** Unit indices (at the point) whose counts follow. */
  units: number[];
  /** Bit errors of each unit (coded: of its decoded information bits). */
  bitErrors: number[];
  /** Symbol errors of each unit. */
  symbolErrors: number[];
  /** Frame errors of each unit. */
  frameErrors: number[];
  /** Vectors of each unit whose search stopped at the node budget (onBudget 'flag'). */
  unproven: number[];
  /** Coded: decoder iterations summed over the unit's frames (0 uncoded). */
  iterations: number[];
  /** Detection time over these units. */
  timeMs: number;
}

/** SimulationResult.shard: a shard's place and its units. */
export interface ShardRecord {
  /** This shard (ShardOptions.index). */
  index: number;
  /** Shards of the run. */
  count: number;
  /** Units per chunk of this shard's run: it computed chunks index, index + count, ... */
  unitsPerChunk: number;
  /** Every (SNR point, detector) the shard computed units of. */
  units: ShardUnits[];
}

/** The OFDM link's settings (SimulationOptions.ofdm). */
export interface OfdmOptions {
  /** Subcarrier spacing in Hz: 15e3, 30e3, 60e3 or 120e3. */
  scs: number;
  /** Resource blocks, 1 to 273. */
  prbs: number;
  /** What the detectors are told of the channel (default 'perfect'). */
  csi?: 'perfect' | 'ls' | 'lmmse';
  /** DM-RS symbols after the first, 0 to 3 (dmrs-AdditionalPosition; default 2). */
  dmrsAdditional?: number;
}

/** Counts for one detector at one SNR point. */
export interface SimPoint {
  /** The detector's label (e.g. "mmse", "kbest K=8"). */
  detector: string;
  /** The detector's algorithm name. */
  algorithm: Detector;
  /** Index of this point's SNR in the run's `snrs` (the key of its random stream). */
  snrIndex: number;
  /** The SNR in dB, of the kind snrType names. */
  snr: number;
  /** Whether snr is Es/N0 or Eb/N0. */
  snrType: SnrType;
  /** The point as Es/N0 in dB. */
  esn0Db: number;
  /** The point as Eb/N0 in dB. */
  ebn0Db: number;
  /** N0, the complex noise variance per receive antenna. */
  noiseVar: number;
  /** bitErrors / bits. */
  ber: number;
  /** symbolErrors / symbols. */
  ser: number;
  /** frameErrors / frames. */
  fer: number;
  /** Wrong bits counted. */
  bitErrors: number;
  /** Wrong symbols counted. */
  symbolErrors: number;
  /** Vectors with at least one wrong bit. */
  frameErrors: number;
  /** Bits sent. */
  bits: number;
  /** Symbols sent. */
  symbols: number;
  /** Frames: uncoded, a frame is one received vector; coded, one codeword (bits, ber and fer are then on its information bits after decoding). */
  frames: number;
  /** Coded link: the code (absent for an uncoded point). */
  code?: string;
  /** Coded link: mean decoder iterations per frame. */
  meanIterations?: number;
  /** Received vectors detected. */
  vectors: number;
  /**
   * Vectors whose search (sphere, psd) stopped at the node budget under onBudget 'flag': their best
   * leaf was counted as the decision, not proven ML. 0 for the other detectors, and under onBudget
   * 'error' (a budget stop is then an error). The CPU and GPU engines count the same for a seed.
   */
  unproven: number;
  /** Detection time summed over the chunks (CPU milliseconds across workers, or the GPU's kernel time; generation excluded). */
  timeMs: number;
  /** Why this point stopped: enough errors (bit errors; frame errors when coded), the vector (or frame) limit, or the time limit (maxTimeSeconds). */
  stoppedBy: 'errors' | 'vectors' | 'time';
}

/** What simulate() returns: the settings it ran with (defaults filled in) and one point per detector and SNR. */
export interface SimulationResult {
  /** Transmit antennas. */
  nt: number;
  /** Receive antennas. */
  nr: number;
  /** The constellation. */
  modulation: Modulation;
  /** Whether the SNR points are Es/N0 or Eb/N0. */
  snrType: SnrType;
  /** The Philox seed. */
  seed: number;
  /** Worker threads used. */
  threads: number;
  /** The engine that ran (the GPU link: threads is 1, the host thread). */
  engine: 'cpu' | 'cuda';
  /** Coded link: the code spec. */
  code?: string;
  /** Coded link: the decoder settings. */
  decoder?: DecoderOptions;
  /** Coded link: outer passes of iterative detection and decoding, when given (SimulationOptions.idd). */
  idd?: number;
  /** Coded link: the code rate k / n, which enters Eb/N0. */
  codeRate?: number;
  /** Coded OFDM link with an NR code: each code block's rate-matched length E (the slot's data shared among its blocks). */
  rateMatchedLength?: number;
  /** The channel model (absent in results of older versions: rayleigh). */
  channel?: ChannelModel;
  /** The channel model's parameters, when it was given any. */
  channelOptions?: Readonly<Record<string, unknown>>;
  /** OFDM link: its settings, defaults filled in. */
  ofdm?: Required<OfdmOptions>;
  /** Stop rule: bit errors (frame errors when coded) per detector and point. */
  maxErrors: number;
  /** Stop rule, coded link: frames per detector and point, when set. */
  maxFrames?: number;
  /** Stop rule: vectors per detector and point. */
  maxVectors: number;
  /** Consecutive vectors per channel matrix. */
  vectorsPerChannel: number;
  /** Vectors per unit: the draw and the stop rules go unit by unit (SimulationOptions.unitVectors). */
  unitVectors: number;
  /** Vectors per chunk. */
  chunkVectors: number;
  /** A shard's run: which shard, and every unit's counts it computed (mergeShards() reads them). */
  shard?: ShardRecord;
  /** The detectors asked for (with the settings above and `snrs`: enough to resume the run). */
  detectors: SimDetector[];
  /** The SNR points asked for, in dB of the kind `snrType` names. */
  snrs: number[];
  /** The per-point time limit, when one was set. */
  maxTimeSeconds?: number;
  /**
   * True when the run stopped before its last point, by `signal` or by an error: `points` then
   * holds the finished SNR points only (every detector's, in order).
   */
  interrupted: boolean;
  /**
   * The error that stopped the run (code, words, place: SNR point, detector, chunk, vector), as
   * data; absent when none did. A result with `error` comes from the rejected error's
   * `details.partial`: simulate() never resolves with one.
   */
  error?: ErrorRecord;
  /** Wall time of the whole run. */
  wallMs: number;
  /** Points in SNR order, then detector order. */
  points: SimPoint[];
}

/** Progress: 'update' after each merged chunk, 'point' when every detector at a point has stopped. */
export interface SimProgressEvent {
  /** 'update' after a merged chunk, 'point' when the point is done. */
  type: 'update' | 'point';
  /** Index of the point in `snrs`. */
  snrIndex: number;
  /** The point's SNR in dB. */
  snr: number;
  /** Whether snr is Es/N0 or Eb/N0. */
  snrType: SnrType;
  /** One entry per detector, in the order of `detectors` (partial counts for 'update'). */
  points: SimPoint[];
  /** Which detectors have stopped at this point. */
  finished: boolean[];
  /** Wall time spent on this point so far. */
  pointWallMs: number;
}

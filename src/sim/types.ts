/**
 * Types of the Monte Carlo simulation: what to simulate, what comes back, and the progress events
 * the live table listens to.
 */
import type { DetectOptions, Detector, Modulation } from '../mimo/types.js';

export type { SnrType } from '../mimo/channel.js';
import type { SnrType } from '../mimo/channel.js';

/** One detector to simulate: DetectOptions without the modulation (the simulation fixes it). */
export interface SimDetector extends Omit<DetectOptions, 'modulation' | 'engine'> {
  /** Name shown in tables, JSON and plots; defaults to the detector and its parameters ("kbest K=8"). */
  label?: string;
}

export interface SimulationOptions {
  nt: number;
  nr: number;
  modulation: Modulation;
  detectors: SimDetector[];
  /** SNR points in dB, of the kind `snrType` names. */
  snrs: number[];
  /** Es/N0 (default) or Eb/N0, as in DESIGN.md's SNR convention (uncoded: code rate 1). */
  snrType?: SnrType;
  /** Stop a detector at a point once it has this many bit errors (default 200). */
  maxErrors?: number;
  /** Stop a detector at a point after this many vectors (default 1,000,000). */
  maxVectors?: number;
  /** One channel matrix serves this many consecutive vectors (default 1). */
  vectorsPerChannel?: number;
  /** Vectors per chunk, the unit of work and of stop decisions (default 1024, a multiple of vectorsPerChannel). */
  chunkVectors?: number;
  /** Philox key (default 1). Same seed -> same counts, whatever the number of threads. */
  seed?: number;
  /** Worker threads (default: all cores); 1 runs in this thread. */
  threads?: number;
  /** Detection engine; 'cuda' has no MIMO simulation engine yet (EngineUnavailableError). */
  engine?: 'auto' | 'cpu' | 'cuda';
  /**
   * Wall-clock limit per SNR point, in seconds: past it the point's active detectors stop with the
   * counts merged so far, flagged stoppedBy 'time' (counts then depend on the machine's speed).
   */
  maxTimeSeconds?: number;
  /**
   * Stops the run: the result holds the points finished before it fired, with `interrupted` true
   * (the point in progress is dropped; its counts would not be those of an uninterrupted run).
   */
  signal?: AbortSignal;
  /**
   * Points of an earlier run of the same settings (its JSON's `points`): SNR points for which every
   * detector is present are taken as they are and not recomputed. Chunk order makes the counts those
   * of an uninterrupted run.
   */
  completedPoints?: readonly SimPoint[];
  /**
   * Called after every merged chunk, at least every PROGRESS_INTERVAL_MS while a point runs, and
   * after every finished point.
   */
  onProgress?: (event: SimProgressEvent) => void;
}

/** Counts for one detector at one SNR point. */
export interface SimPoint {
  /** The detector's label (e.g. "mmse", "kbest K=8"). */
  detector: string;
  /** The detector's algorithm name. */
  algorithm: Detector;
  /** Index of this point's SNR in the run's `snrs` (the key of its random stream). */
  snrIndex: number;
  snr: number;
  snrType: SnrType;
  esn0Db: number;
  ebn0Db: number;
  /** N0, the complex noise variance per receive antenna. */
  noiseVar: number;
  ber: number;
  ser: number;
  fer: number;
  bitErrors: number;
  symbolErrors: number;
  frameErrors: number;
  bits: number;
  symbols: number;
  /** Frames = vectors (uncoded: a frame is one received vector). */
  frames: number;
  vectors: number;
  /** Detection time summed over the chunks (CPU milliseconds across workers, generation excluded). */
  timeMs: number;
  /** Why this point stopped: enough bit errors, the vector limit, or the time limit (maxTimeSeconds). */
  stoppedBy: 'errors' | 'vectors' | 'time';
}

export interface SimulationResult {
  nt: number;
  nr: number;
  modulation: Modulation;
  snrType: SnrType;
  seed: number;
  threads: number;
  engine: 'cpu';
  maxErrors: number;
  maxVectors: number;
  vectorsPerChannel: number;
  chunkVectors: number;
  /** The detectors and SNR points asked for (with the settings above: enough to resume the run). */
  detectors: SimDetector[];
  snrs: number[];
  /** The per-point time limit, when one was set. */
  maxTimeSeconds?: number;
  /** True when `signal` stopped the run: `points` then holds the finished SNR points only. */
  interrupted: boolean;
  /** Wall time of the whole run. */
  wallMs: number;
  points: SimPoint[];
}

/** Progress: 'update' after each merged chunk, 'point' when every detector at a point has stopped. */
export interface SimProgressEvent {
  type: 'update' | 'point';
  snrIndex: number;
  snr: number;
  snrType: SnrType;
  /** One entry per detector, in the order of `detectors` (partial counts for 'update'). */
  points: SimPoint[];
  /** Which detectors have stopped at this point. */
  finished: boolean[];
  /** Wall time spent on this point so far. */
  pointWallMs: number;
}

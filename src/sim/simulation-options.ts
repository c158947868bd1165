/**
 * simulate()'s options, declared once: each top-level key's check, its doc line and its
 * command-line flag. The detectors' own options and the channel model are checked by their
 * registries (simulate.ts plan()); here a detector list must be a non-empty array.
 */
import {
  arrayOf,
  callback,
  choice,
  instanceOf,
  integer,
  number,
  object,
  option,
  satisfying,
  string,
} from '../core/index.js';
import { DECODER_SCHEMA } from '../coding/index.js';
import { ENGINE_REQUESTS } from '../gpu/index.js';
import { MODULATIONS } from '../mimo/index.js';
import { MAX_SNR_POINTS } from './snr.js';
import { CSI_MODES } from './ofdm-link.js';
import { MAX_PRBS } from '../channels/index.js';
import type { SimPoint, SimProgressEvent } from './types.js';

/** Limits that keep every loop bounded and every stream number exact. */
export const MAX_ANTENNAS = 64;
export const MAX_THREADS = 256;
/** Longest per-point time limit (a week), a bound that keeps timers exact. */
export const MAX_TIME_SECONDS = 7 * 86400;
/** Most vectors a channel matrix may serve, and most vectors a chunk may hold. */
export const MAX_VECTORS_PER_CHANNEL = 1 << 20;
export const MAX_CHUNK_VECTORS = 1 << 24;
/** Most shards of a run, and most CUDA devices of a host one run takes. */
export const MAX_SHARDS = 1 << 16;
export const MAX_DEVICES = 64;
/** Most outer iterations of iterative detection and decoding (SimulationOptions.idd). */
export const MAX_IDD_ITERATIONS = 32;

/** Every top-level option of simulate(). */
export const SIMULATION_SCHEMA = {
  nt: option(integer(1, MAX_ANTENNAS), 'transmit antennas', { required: true }),
  nr: option(integer(1, MAX_ANTENNAS), 'receive antennas', { required: true }),
  modulation: option(choice(MODULATIONS), 'the constellation every stream sends', {
    required: true,
    cli: { flag: 'mod', metavar: 'MOD' },
  }),
  detectors: option(
    satisfying<unknown[]>('a non-empty array of detectors', (v) => Array.isArray(v) && v.length > 0),
    'the detectors, all run on the same channels, symbols and noise',
    { required: true, cli: { flag: 'detector', metavar: 'LIST' } },
  ),
  snrs: option(arrayOf(number(), 1, MAX_SNR_POINTS), 'the SNR points in dB', {
    required: true,
    cli: { flag: 'snr', metavar: 'LIST' },
  }),
  snrType: option(choice(['esn0', 'ebn0'] as const), 'what the SNR points are: Es/N0 or Eb/N0', {
    default: 'esn0',
    cli: { flag: 'snr-type', metavar: 'T' },
  }),
  code: option(string(), "coded link: an ldpcCode() spec ('wimax:2304:1/2', 'nr:bg1:K:R')", {
    cli: { flag: 'code', metavar: 'SPEC' },
  }),
  decoder: option(object(DECODER_SCHEMA), 'coded link: the decoder'),
  idd: option(
    integer(1, MAX_IDD_ITERATIONS),
    "coded link: iterative detection and decoding, N passes of detect and decode, each detection taking the previous decoding's extrinsic LLRs as priors (N > 1: detectors that take priors; both engines: mmse-pic, ep, ml, kbest, nway, ssfe)",
    { cli: { flag: 'idd', metavar: 'N' } },
  ),
  channel: option(
    satisfying<unknown>('a channel model', () => true),
    'the channel model (checked by the channel registry)',
    { cli: { flag: 'channel', metavar: 'C' } },
  ),
  channelOptions: option(
    satisfying<Record<string, unknown>>(
      'an object',
      (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
      'object',
    ),
    "the channel model's parameters (their keys checked by its registry entry's schema)",
  ),
  ofdm: option(
    object({
      scs: option(number({ min: 0, minOpen: true }), 'subcarrier spacing in Hz (15e3, 30e3, 60e3, 120e3)', {
        required: true,
        cli: { flag: 'scs', metavar: 'HZ' },
      }),
      prbs: option(integer(1, MAX_PRBS), 'resource blocks, 1 to 273', {
        required: true,
        cli: { flag: 'prbs', metavar: 'N' },
      }),
      csi: option(
        choice(CSI_MODES),
        "what the detectors are told of the channel: 'perfect', or its 'ls' / 'lmmse' estimate from the DM-RS",
        {
          default: 'perfect',
          cli: { flag: 'csi', metavar: 'MODE' },
        },
      ),
      dmrsAdditional: option(integer(0, 3), 'DM-RS symbols after the first (dmrs-AdditionalPosition)', {
        default: 2,
        cli: { flag: 'dmrs-additional', metavar: 'N' },
      }),
    }),
    'OFDM link: a chunk is a slot, the channel evaluated on every resource element',
  ),
  maxErrors: option(integer(1), 'stop a detector at a point after this many bit (coded: frame) errors', {
    cli: { flag: 'max-errors', metavar: 'N' },
  }),
  maxVectors: option(integer(1), 'stop a detector at a point after this many vectors', {
    cli: { flag: 'max-vectors', metavar: 'N' },
  }),
  maxFrames: option(integer(1), 'coded link: stop a detector at a point after this many frames', {
    cli: { flag: 'max-frames', metavar: 'N' },
  }),
  vectorsPerChannel: option(integer(1, MAX_VECTORS_PER_CHANNEL), 'consecutive vectors one channel matrix serves', {
    default: 1,
    cli: { flag: 'vectors-per-channel', metavar: 'N' },
  }),
  unitVectors: option(
    integer(1, MAX_CHUNK_VECTORS),
    'vectors per unit, the grain of the draw and of the stop rules (counts depend on it, never on chunkVectors)',
    { cli: { flag: 'unit-vectors', metavar: 'N' } },
  ),
  chunkVectors: option(integer(1, MAX_CHUNK_VECTORS), 'vectors per chunk, the work handed out at once (whole units)', {
    cli: { flag: 'chunk-vectors', metavar: 'N' },
  }),
  shard: option(
    object({
      index: option(integer(0, MAX_SHARDS - 1), 'this shard, 0 to count - 1', { required: true }),
      count: option(integer(1, MAX_SHARDS), 'shards of the run', { required: true }),
      dir: option(string(), 'a directory the shards share: they stop together once the run is done'),
      minUnit: option(integer(0), "compute this shard's units up to this unit at least"),
    }),
    'run one shard of the units (merge the shards with mergeShards)',
    { cli: { flag: 'shard', metavar: 'K/N' } },
  ),
  devices: option(arrayOf(integer(0, MAX_DEVICES - 1), 1, MAX_DEVICES), 'CUDA devices, one GPU link each', {
    cli: { flag: 'devices', metavar: 'LIST' },
  }),
  seed: option(integer(0), 'the Philox key: same seed, same counts', {
    default: 1,
    cli: { flag: 'seed', metavar: 'S' },
  }),
  threads: option(integer(1, MAX_THREADS), 'worker threads (default: all cores); 1 runs in this thread', {
    cli: { flag: 'threads', metavar: 'N' },
  }),
  engine: option(choice(ENGINE_REQUESTS), "the engine: 'cuda' runs the whole link on the GPU", {
    default: 'auto',
    cli: { flag: 'engine', metavar: 'E' },
  }),
  maxTimeSeconds: option(
    number({ min: 0, max: MAX_TIME_SECONDS, minOpen: true }),
    'wall-clock limit per SNR point, in seconds',
    { cli: { flag: 'max-time', metavar: 'SECONDS' } },
  ),
  signal: option(instanceOf(AbortSignal), 'stops the run; the finished points are kept'),
  completedPoints: option(
    satisfying<readonly SimPoint[]>('an array of points', (v) => Array.isArray(v)),
    'points of an earlier run of the same settings (resume)',
  ),
  onProgress: option(
    callback<(event: SimProgressEvent) => void>(),
    'called after every merged chunk and every finished point',
  ),
};

/**
 * What a channel model is to the rest of the package: a registry entry (its name, description,
 * parameters, shape rule and generators) and the shapes its generators fill. Channels are flat
 * nr x nt complex matrices, column-major, interleaved re/im, one after another: channel c's entry
 * (i, j) at 2 * (c * nr * nt + i + j * nr) (re) and + 1 (im), as DetectionInput.H holds them.
 */
import type { SchemaOf } from '../core/index.js';
import type { CudaContext, Stream } from '../gpu/index.js';
import type { TimeCorrelation } from './time-correlation.js';

/** The antennas a model generates channels for: nt transmit, nr receive. */
export interface ChannelShape {
  readonly nt: number;
  readonly nr: number;
}

/**
 * Which channels to draw and from which Philox streams. Channels come in runs of `perStream`, a
 * stream each: channel q (counted from the start of stream0's run) is the (q mod perStream)-th of
 * stream stream0 + floor(q / perStream) * streamStep. A draw covers channels first .. first +
 * count - 1, so the CPU and the GPU can draw any piece alone, with the values the whole run has.
 * (The simulated link: a stream per chunk, numbered by src/sim/link.ts chunkStream, streamStep 4.)
 */
export interface ChannelSpan {
  /** The Philox key. */
  readonly seed: number;
  /** The stream of the run's first channels. */
  readonly stream0: number;
  /** How far apart the run's streams are numbered. */
  readonly streamStep: number;
  /** Channels a stream holds. */
  readonly perStream: number;
  /** The first channel drawn, counted from the start of stream0's run. */
  readonly first: number;
  /** How many channels are drawn. */
  readonly count: number;
}

/**
 * Where a time-varying, frequency-selective channel is evaluated: every (time, frequency) pair of
 * the two lists (an OFDM grid's symbol times and subcarrier frequencies, src/channels/ofdm).
 */
export interface ResponsePoints {
  /** Seconds from the start of the drop (the realisation's time origin). */
  readonly times: Float64Array;
  /** Hz, offsets from the carrier frequency. */
  readonly freqs: Float64Array;
}

/** A model's CPU generator for one shape and parameter set. */
export interface ChannelGenerator {
  /**
   * The span's channels in float64: 2 nr nt count numbers. For a model with `response`, channel c
   * is drop c's response at time 0 and frequency 0 (so such a model also serves the flat link).
   */
  draw(span: ChannelSpan): Float64Array;
  /**
   * Time-varying, frequency-selective models: the response of each of the span's drops (a drop is
   * one realisation of the model's random process, its words where draw() reads its channel) at
   * every pair of `at`: span.count x times x freqs x 2 nr nt numbers, frequency fastest, then
   * time, then drop; each block an nr x nt matrix in the channels' layout. Absent on flat models:
   * their drop is draw()'s channel at every time and frequency (block fading, ofdm/response.ts).
   */
  response?(span: ChannelSpan, at: ResponsePoints): Float64Array;
}

/** Device buffers a CUDA generator fills. */
export interface ChannelBuffers {
  /** span.count x 2 nr nt doubles: the CPU generator's values (up to the last-ulp differences of log, sin, cos). */
  readonly H64: bigint;
  /** The same rounded to float32 (the CUDA detectors' H); enqueueResponse takes 0n: no float32 copy. */
  readonly H32: bigint;
}

/** A model's compiled CUDA generator for one shape and parameter set: kernels on device buffers. */
export interface ChannelCudaPlan {
  /** Enqueues the kernels that write the span's channels into `buffers`. */
  enqueue(stream: Stream, span: ChannelSpan, buffers: ChannelBuffers): void;
  /**
   * Time-varying, frequency-selective models: enqueues the kernels that write the span's drops at
   * every pair of `at` into `buffers` (span.count x times x freqs x 2 nr nt numbers each,
   * ChannelGenerator.response's layout and values). The lists are uploaded once per distinct object.
   */
  enqueueResponse?(stream: Stream, span: ChannelSpan, at: ResponsePoints, buffers: ChannelBuffers): void;
  /**
   * Releases the device memory the plan holds (a model's tables: rician's H_LOS, kronecker's
   * factors), after the work enqueued with it is done; absent where the plan holds none.
   */
  free?(): void;
}

/** A model's CUDA side (loaded lazily, so that the CPU engine never loads the CUDA bindings). */
export interface ChannelCuda<P extends object = Record<never, never>> {
  /** Compiles (or takes from the module cache) the model's kernels for `ctx`. */
  plan(ctx: CudaContext, shape: ChannelShape, params: P): ChannelCudaPlan;
}

/**
 * One channel model. `P` is the interface of its parameters (documented there; checked by
 * `options`, passed as SimulationOptions.channelOptions).
 */
export interface ChannelEntry<N extends string = string, P extends object = Record<never, never>> {
  /** Its name (SimulationOptions.channel, results, `--channel`). */
  readonly name: N;
  /** One line for help: what it draws. */
  readonly description: string;
  /** A few words for plot subtitles and the run's first line ("iid Rayleigh fading"). */
  readonly title: string;
  /** Its parameters. */
  readonly options: SchemaOf<P>;
  /** Throws InvalidArgumentError when the model cannot serve this shape with these parameters. */
  checkShape(shape: ChannelShape, params: P): void;
  /** The CPU generator (float64). */
  cpu(shape: ChannelShape, params: P): ChannelGenerator;
  /** The CUDA generator, drawing the CPU's streams. */
  readonly cuda?: () => Promise<ChannelCuda<P>>;
  /**
   * Frequency-selective models: the mean power delay profile of the parameters (what an LMMSE
   * channel estimator assumes). Absent: one path at delay 0 (flat fading).
   */
  powerDelayProfile?(params: P): PowerDelayProfile;
  /**
   * Time-varying models: the entries' mean time correlation under the parameters (what an estimator
   * that interpolates between pilot symbols assumes of the channel). Absent: the channel does not
   * change within a drop (1 at every lag).
   */
  timeCorrelation?(params: P): TimeCorrelation;
}

/** Paths' delays and mean powers. */
export interface PowerDelayProfile {
  /** Delays in seconds. */
  readonly delays: Float64Array;
  /** Mean powers, linear, summing to 1. */
  readonly powers: Float64Array;
}

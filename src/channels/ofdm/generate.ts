/**
 * Channel realisations on their own: a model's response on every resource element of consecutive
 * slots of one drop, for users' own work and for checks (`lattice-mimo channels`).
 */
import { checkOptions, InvalidArgumentError, integer, number, option, type SchemaOf } from '../../core/index.js';
import { checkChannel, type ChannelModel } from '../registry.js';
import { checkGrid, MAX_PRBS, SYMBOLS_PER_SLOT, subcarrierCount, subcarrierFrequencies, symbolTimes } from './grid.js';
import { channelResponse } from './response.js';

/** What generateChannels() draws. */
export interface GenerateChannelsOptions {
  /** The channel model (default 'rayleigh'). */
  model?: ChannelModel;
  /** The model's parameters (its schema's). */
  channelOptions?: Readonly<Record<string, unknown>>;
  /** Transmit antennas. */
  nt: number;
  /** Receive antennas. */
  nr: number;
  /** Subcarrier spacing, Hz (15e3, 30e3, 60e3, 120e3). */
  scs: number;
  /** Physical resource blocks, 1 to 273. */
  prbs: number;
  /** Consecutive slots of the drop, from its time origin (default 1). */
  slots?: number;
  /** Philox key (default 1). */
  seed?: number;
  /** Which drop (realisation) of the seed: its Philox stream (default 0). */
  drop?: number;
}

/** generateChannels()'s result. */
export interface ChannelRealisations {
  /** The model drawn. */
  readonly model: ChannelModel;
  /** Its parameters as checked (defaults left out). */
  readonly channelOptions: Readonly<Record<string, unknown>>;
  /** Transmit antennas. */
  readonly nt: number;
  /** Receive antennas. */
  readonly nr: number;
  /** Subcarrier spacing, Hz. */
  readonly scs: number;
  /** Resource blocks. */
  readonly prbs: number;
  /** Symbols a slot (14). */
  readonly symbols: number;
  /** Consecutive slots of the drop. */
  readonly slots: number;
  /** Subcarriers (12 prbs). */
  readonly subcarriers: number;
  /** The Philox key. */
  readonly seed: number;
  /** The drop: its Philox stream. */
  readonly drop: number;
  /**
   * slots x symbols x subcarriers x (nr x nt complex matrix, column-major, interleaved re/im):
   * entry (rx i, tx j) of resource element (slot s, symbol l, subcarrier k) at
   * 2 (((s symbols + l) subcarriers + k) nr nt + i + j nr).
   */
  readonly H: Float64Array;
}

const limits: SchemaOf<Omit<GenerateChannelsOptions, 'model' | 'channelOptions'>> = {
  nt: option(integer(1, 64), 'transmit antennas', { required: true }),
  nr: option(integer(1, 64), 'receive antennas', { required: true }),
  scs: option(number({ min: 0, minOpen: true }), 'subcarrier spacing in Hz', { required: true }),
  prbs: option(integer(1, MAX_PRBS), 'physical resource blocks', { required: true }),
  slots: option(integer(1, 10_000), 'slots', { default: 1 }),
  seed: option(integer(0), 'Philox key', { default: 1 }),
  drop: option(integer(0), 'drop (Philox stream)', { default: 0 }),
};

/** The most numbers one call returns (2^28 doubles, 2 GiB): more slots go in several calls. */
const MAX_NUMBERS = 2 ** 28;

/**
 * A drop's channel on every resource element of `slots` slots: InvalidArgumentError for an unknown
 * model, a parameter it does not take or a value out of range, a grid no numerology has, or more
 * numbers than one call returns.
 */
export function generateChannels(options: GenerateChannelsOptions): ChannelRealisations {
  const call = 'generateChannels()';
  if (options === null || typeof options !== 'object')
    throw new InvalidArgumentError(`${call} takes an options object`, { option: 'options' });
  const { model, channelOptions, ...rest } = options;
  const checkedLimits = checkOptions(rest, limits, call);
  const { nt, nr, scs, prbs } = checkedLimits as Required<typeof checkedLimits>;
  const slots = checkedLimits.slots ?? 1,
    seed = checkedLimits.seed ?? 1,
    drop = checkedLimits.drop ?? 0;
  const grid = { scs, prbs };
  checkGrid(grid, call);
  const shape = { nt, nr };
  const checked = checkChannel(model, channelOptions, shape, call);
  const K = subcarrierCount(grid);
  const per = 2 * nr * nt;
  if (slots * SYMBOLS_PER_SLOT * K * per > MAX_NUMBERS)
    throw new InvalidArgumentError(
      `${call}: ${slots} slots of ${K} subcarriers and ${nr}x${nt} antennas exceed ${MAX_NUMBERS} numbers: draw fewer slots or resource blocks`,
      { option: 'slots', value: slots },
    );
  const generator = checked.entry.cpu(shape, checked.params);
  const freqs = subcarrierFrequencies(grid);
  const span = { seed, stream0: drop, streamStep: 1, perStream: 1, first: 0, count: 1 };
  const H = new Float64Array(slots * SYMBOLS_PER_SLOT * K * per);
  for (let s = 0; s < slots; s++)
    H.set(
      channelResponse(generator, shape, span, { times: symbolTimes(grid, s, 1), freqs }),
      s * SYMBOLS_PER_SLOT * K * per,
    );
  return {
    model: checked.model,
    channelOptions: checked.params,
    nt,
    nr,
    scs,
    prbs,
    symbols: SYMBOLS_PER_SLOT,
    slots,
    subcarriers: K,
    seed,
    drop,
    H,
  };
}

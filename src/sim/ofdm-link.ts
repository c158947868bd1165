/**
 * One unit of the OFDM link: a slot of 14 symbols on K = 12 prbs subcarriers, its channel the
 * model's response on every resource element (one drop a unit, from the unit's channel stream),
 * the PUSCH DM-RS on its DM-RS symbols (one port a layer, nt layers), data on every other symbol,
 * noise on every resource element. Vector v of the unit is data resource element v in the order
 * data symbol, then subcarrier (frequency first, as NR maps a code block); a unit may use only the
 * first `vectors` of them (a coded slot holds whole code blocks; the rest stay empty). The detectors get
 * the true channel (csi 'perfect') or its LS / LMMSE estimate from the DM-RS, with the noise
 * variance estimated from the DM-RS plus the estimate's error variance on the data symbols times nt
 * (the power the channel error leaks in as noise, unit-energy symbols; the interpolation in time
 * under the model's time correlation included).
 *
 * Streams (unitStream purposes, as the flat link): symbols / info bits as generateLinkChunk draws
 * them; channels: the drop; noise: every resource element's nr complex normals in grid order
 * (symbol, subcarrier, antenna).
 */
import {
  type ChannelModel,
  channelEntry,
  channelResponse,
  DEFAULT_CHANNEL_MODEL,
  type DmrsConfig,
  dmrsConfig,
  dmrsPilots,
  estimateSlot,
  type LmmseFilter,
  lmmseFilter,
  pilotGrid,
  SYMBOLS_PER_SLOT,
  slotsPerFrame,
  subcarrierFrequencies,
  symbolTimes,
  type TimeInterpolationTerms,
  timeInterpolationTerms,
} from '../channels/index.js';
import { InvalidArgumentError, type Philox } from '../core/index.js';
import { addNoise } from '../mimo/index.js';

/** Channel state information the detectors get. */
export type CsiMode = 'perfect' | 'ls' | 'lmmse';
/** The CSI modes. */
export const CSI_MODES: readonly CsiMode[] = ['perfect', 'ls', 'lmmse'];

/** The OFDM link's settings (SimulationOptions.ofdm, resolved). */
export interface OfdmLinkSpec {
  /** Subcarrier spacing, Hz. */
  readonly scs: number;
  /** Resource blocks. */
  readonly prbs: number;
  /** What the detectors are told of the channel. */
  readonly csi: CsiMode;
  /** dmrs-AdditionalPosition, 0 to 3. */
  readonly dmrsAdditional: number;
}

/** The most layers of a type-1 single-symbol DM-RS (ports 0 to 3). */
export const MAX_OFDM_LAYERS = 4;

const configs = new Map<string, DmrsConfig>();

/** The DM-RS configuration of a link (cached per thread). */
export function ofdmDmrs(ofdm: OfdmLinkSpec, nt: number): DmrsConfig {
  const key = `${ofdm.scs}|${ofdm.prbs}|${ofdm.dmrsAdditional}|${nt}`;
  let c = configs.get(key);
  if (!c) {
    if (nt > MAX_OFDM_LAYERS)
      throw new InvalidArgumentError(
        `the OFDM link sends a layer per transmit antenna on DM-RS ports 0 to 3: at most ${MAX_OFDM_LAYERS} transmit antennas, got ${nt}`,
        { option: 'nt', value: nt },
      );
    c = dmrsConfig({ scs: ofdm.scs, prbs: ofdm.prbs, layers: nt, additionalPosition: ofdm.dmrsAdditional });
    configs.set(key, c);
  }
  return c;
}

/** Data resource elements of a slot: the data symbols times the subcarriers. */
export function ofdmDataVectors(ofdm: OfdmLinkSpec, nt: number): number {
  const c = ofdmDmrs(ofdm, nt);
  return c.dataSymbols.length * c.subcarriers;
}

/** A per-thread cache of at most 64 entries by key (emptied when full): one object per key while it lasts. */
function boundedCache<T>(): (key: string, make: () => T) => T {
  const m = new Map<string, T>();
  return (key, make) => {
    let v = m.get(key);
    if (v === undefined) {
      v = make();
      if (m.size > 64) m.clear();
      m.set(key, v);
    }
    return v;
  };
}

const filters = boundedCache<LmmseFilter>();

/** The LMMSE filter of a model's mean profile and the point's N0 (cached per thread; the GPU link uploads it). */
export function ofdmLmmseFilter(
  config: DmrsConfig,
  channel: ChannelModel,
  params: Readonly<Record<string, unknown>>,
  noiseVar: number,
): LmmseFilter {
  const key = `${config.scs}|${config.prbs}|${config.additionalPosition}|${config.layers}|${channel}|${JSON.stringify(params)}|${noiseVar}`;
  return filters(key, () => {
    const pdp = channelEntry(channel)!.powerDelayProfile?.(params) ?? { delays: [0], powers: [1] };
    return lmmseFilter(config, { pdp, noiseVariance: noiseVar });
  });
}

const terms = boundedCache<TimeInterpolationTerms>();

/**
 * The time interpolation's error terms of a configuration under a model's time correlation (cached
 * per thread, one object per key: the LMMSE error variance is memoised on it; the GPU link uses them too).
 */
export function ofdmTimeTerms(
  config: DmrsConfig,
  channel: ChannelModel,
  params: Readonly<Record<string, unknown>>,
): TimeInterpolationTerms {
  const key = `${config.scs}|${config.symbols.join(',')}|${channel}|${JSON.stringify(params)}`;
  return terms(key, () => timeInterpolationTerms(config, channelEntry(channel)!.timeCorrelation?.(params)));
}

/** What the OFDM unit needs of the link's spec. */
export interface OfdmChunkSpec {
  nt: number;
  nr: number;
  seed: number;
  unitIndex: number;
  vectors: number;
  noiseVar: number;
  channel?: ChannelModel;
  channelOptions?: Readonly<Record<string, unknown>>;
  ofdm: OfdmLinkSpec;
}

/**
 * The slot's received data vectors and the detectors' channels and noise variance, for the data
 * symbols `symbols` (vectors x nt complex). `rngFor(purpose)` gives the unit's streams.
 */
export function ofdmChunk(
  spec: OfdmChunkSpec,
  symbols: Float64Array,
  channelStream: number,
  noiseRng: Philox,
): { H: Float64Array; y: Float64Array; noiseVar: number } {
  const { nt, nr, vectors, ofdm } = spec;
  const config = ofdmDmrs(ofdm, nt);
  const K = config.subcarriers;
  const grid = { scs: ofdm.scs, prbs: ofdm.prbs };
  if (vectors > config.dataSymbols.length * K)
    throw new InvalidArgumentError(`a slot holds ${config.dataSymbols.length * K} data vectors, asked for ${vectors}`);
  const name = spec.channel ?? DEFAULT_CHANNEL_MODEL;
  const entry = channelEntry(name);
  if (!entry) throw new InvalidArgumentError(`unknown channel model '${name}'`, { option: 'channel' });
  const shape = { nt, nr };
  const params = spec.channelOptions ?? {};
  const Hgrid = channelResponse(
    entry.cpu(shape, params),
    shape,
    { seed: spec.seed, stream0: channelStream, streamStep: 1, perStream: 1, first: 0, count: 1 },
    { times: symbolTimes(grid, 0, 1), freqs: subcarrierFrequencies(grid) },
  );
  const E = nr * nt;
  // the received grid: data on data REs (the first `vectors`), pilots on DM-RS symbols
  const Y = new Float64Array(2 * SYMBOLS_PER_SLOT * K * nr);
  let v = 0;
  for (const l of config.dataSymbols) {
    for (let k = 0; k < K && v < vectors; k++, v++) {
      const h = (l * K + k) * E,
        o = (l * K + k) * nr;
      for (let j = 0; j < nt; j++) {
        const sr = symbols[2 * (v * nt + j)]!,
          si = symbols[2 * (v * nt + j) + 1]!;
        for (let i = 0; i < nr; i++) {
          const hr = Hgrid[2 * (h + i + j * nr)]!,
            hi = Hgrid[2 * (h + i + j * nr) + 1]!;
          Y[2 * (o + i)]! += hr * sr - hi * si;
          Y[2 * (o + i) + 1]! += hr * si + hi * sr;
        }
      }
    }
  }
  const pilots = dmrsPilots(config, spec.unitIndex % slotsPerFrame(ofdm.scs));
  const X = pilotGrid(pilots);
  for (const l of config.symbols) {
    for (let k = 0; k < K; k++) {
      const h = (l * K + k) * E,
        o = (l * K + k) * nr,
        x = (l * K + k) * nt;
      for (let j = 0; j < nt; j++) {
        const pr = X[2 * (x + j)]!,
          pi = X[2 * (x + j) + 1]!;
        if (pr === 0 && pi === 0) continue;
        for (let i = 0; i < nr; i++) {
          const hr = Hgrid[2 * (h + i + j * nr)]!,
            hi = Hgrid[2 * (h + i + j * nr) + 1]!;
          Y[2 * (o + i)]! += hr * pr - hi * pi;
          Y[2 * (o + i) + 1]! += hr * pi + hi * pr;
        }
      }
    }
  }
  addNoise(noiseRng, Y, spec.noiseVar);
  let Hest = Hgrid,
    noiseVar = spec.noiseVar;
  if (ofdm.csi !== 'perfect') {
    const est = estimateSlot(
      pilots,
      Y,
      nr,
      ofdm.csi === 'ls'
        ? { csi: 'ls', time: ofdmTimeTerms(config, name, params) }
        : {
            csi: 'lmmse',
            filter: ofdmLmmseFilter(config, name, params, spec.noiseVar),
            time: ofdmTimeTerms(config, name, params),
          },
    );
    Hest = est.H;
    noiseVar = est.noiseVar;
  }
  // the detectors' vectors: data REs in order
  const H = new Float64Array(2 * vectors * E);
  const y = new Float64Array(2 * vectors * nr);
  v = 0;
  for (const l of config.dataSymbols) {
    const n = Math.min(K, vectors - v);
    if (n <= 0) break;
    H.set(Hest.subarray(2 * l * K * E, 2 * (l * K + n) * E), 2 * v * E);
    y.set(Y.subarray(2 * l * K * nr, 2 * (l * K + n) * nr), 2 * v * nr);
    v += n;
  }
  return { H, y, noiseVar };
}

/**
 * PUSCH DM-RS of configuration type 1 with transform precoding disabled (3GPP TS 38.211 6.4.1.1):
 * single-symbol DM-RS, mapping type A over the whole 14-symbol slot, one antenna port a layer
 * (layers 1..4 on ports 0..3). Port p sits in CDM group lambda = p >> 1 on the comb k = 4n + 2k' +
 * delta (delta = lambda, k' = 0, 1) with the frequency OCC w_f(k') = (+1, +1) on even ports and
 * (+1, -1) on odd ones; its value is a(k, l) = beta w_f(k') r_l(2n + k'), r the QPSK Gold sequence
 * of 38.211 5.2.1 scrambled per slot and symbol (6.4.1.1.1.1). DM-RS symbols carry no data ("CDM
 * groups without data" = 2, as 38.214 assumes for more than two layers): the comb of an unused CDM
 * group stays empty, and its 3 dB go to the pilots (beta^2 = 2, 38.214 Table 6.2.2-1).
 * Simplifications: the PUSCH fills the grid (every PRB, symbols 0..13), the grid's PRB 0 is common
 * resource block 0 (the sequence's reference point), no double-symbol DM-RS, no type 2, no PTRS.
 */
import { checkOptions, InvalidArgumentError, integer, number, option, type SchemaOf, show } from '../../core/index.js';
import { checkGrid, SYMBOLS_PER_SLOT, subcarrierCount } from '../ofdm/grid.js';

/** What dmrsConfig() takes. */
export interface DmrsOptions {
  /** Subcarrier spacing, Hz (15e3, 30e3, 60e3, 120e3). */
  scs: number;
  /** Physical resource blocks, 1 to 273; the PUSCH occupies all of them. */
  prbs: number;
  /** Transmission layers, 1 to 4: layer j on DM-RS port j. */
  layers: number;
  /** dmrs-TypeA-Position: the first DM-RS symbol l0, 2 or 3 (default 2). */
  typeAPosition?: number;
  /** dmrs-AdditionalPosition, 0 to 3 (pos0..pos3; default 2, 38.331's value when the field is absent). */
  additionalPosition?: number;
  /** N_ID, the scrambling identity of the sequence, 0 to 65535 (default 0). */
  scramblingId?: number;
  /** n_SCID, 0 or 1 (default 0). */
  nScid?: number;
  /** beta^2, the energy of a pilot RE per port over a data RE's (default 2: 38.214's 3 dB for 2 CDM groups without data). */
  pilotPower?: number;
}

/** One layer's DM-RS port (38.211 Table 6.4.1.1.3-1). */
export interface DmrsPort {
  /** The antenna port p~, 0 to 3. */
  readonly port: number;
  /** Its CDM group lambda = p >> 1. */
  readonly cdmGroup: number;
  /** Its comb offset delta (= lambda for type 1): its pilots sit on subcarriers 4n + 2k' + delta. */
  readonly delta: number;
  /** w_f(1): +1 on even ports, -1 on odd ones (w_f(0) = +1). */
  readonly occ: 1 | -1;
  /** Whether the other port of its CDM group carries a layer too (the group is then full). */
  readonly shared: boolean;
}

/** A checked DM-RS configuration with what follows from it. */
export interface DmrsConfig {
  /** Subcarrier spacing, Hz. */
  readonly scs: number;
  /** Physical resource blocks. */
  readonly prbs: number;
  /** K = 12 prbs subcarriers. */
  readonly subcarriers: number;
  /** Layers L, 1 to 4 (layer j on port j). */
  readonly layers: number;
  /** l0, the first DM-RS symbol: 2 or 3. */
  readonly typeAPosition: number;
  /** dmrs-AdditionalPosition, 0 to 3. */
  readonly additionalPosition: number;
  /** N_ID. */
  readonly scramblingId: number;
  /** n_SCID. */
  readonly nScid: number;
  /** Ep = beta^2: a pilot RE's energy per port (|r| = 1). */
  readonly pilotPower: number;
  /** The DM-RS symbols of the slot, ascending (Table 6.4.1.1.3-3, 14-symbol PUSCH, type A). */
  readonly symbols: readonly number[];
  /** The symbols carrying data: every other symbol of the slot, on all K subcarriers. */
  readonly dataSymbols: readonly number[];
  /** One port a layer: layer j on port j. */
  readonly ports: readonly DmrsPort[];
}

/** The pilots of one slot. */
export interface DmrsPilots {
  /** The configuration they are of. */
  readonly config: DmrsConfig;
  /** The slot number in the frame, n_s,f (0 to 10 * 2^mu - 1). */
  readonly slot: number;
  /**
   * For each layer, its K/2 pilot subcarriers, ascending: pilot m = 2n + k' on subcarrier
   * 4n + 2k' + delta (the same in every DM-RS symbol).
   */
  readonly subcarriers: readonly Int32Array[];
  /**
   * For each layer, symbols.length x K/2 complex pilot values a = beta w_f(k') r_l(m), interleaved
   * re/im: DM-RS symbol d's pilot m at 2 (d K/2 + m).
   */
  readonly values: readonly Float64Array[];
  /** r_l(m) without beta and OCC: symbols.length x K/2 complex, as `values` (both CDM groups use it). */
  readonly sequence: Float64Array;
}

const SCHEMA: SchemaOf<Omit<DmrsOptions, 'scs' | 'prbs'>> = {
  layers: option(integer(1, 4), 'transmission layers (one DM-RS port each)', { required: true }),
  typeAPosition: option(integer(2, 3), 'first DM-RS symbol l0 (dmrs-TypeA-Position)', { default: 2 }),
  additionalPosition: option(integer(0, 3), 'additional DM-RS positions (dmrs-AdditionalPosition)', { default: 2 }),
  scramblingId: option(integer(0, 65535), 'scrambling identity N_ID', { default: 0 }),
  nScid: option(integer(0, 1), 'n_SCID', { default: 0 }),
  pilotPower: option(number({ min: 0, minOpen: true }), 'pilot energy a port over a data RE', { default: 2 }),
};

/** Table 6.4.1.1.3-3, l_d = 14, mapping type A: the symbols after l0 of pos1..pos3. */
const ADDITIONAL: readonly (readonly number[])[] = [[], [11], [7, 11], [5, 8, 11]];

/** The checked configuration: InvalidArgumentError naming the option for a bad value. */
export function dmrsConfig(options: DmrsOptions): DmrsConfig {
  const call = 'dmrsConfig()';
  if (options === null || typeof options !== 'object')
    throw new InvalidArgumentError(`${call} takes an options object`, { option: 'options' });
  const { scs, prbs, ...rest } = options;
  checkGrid({ scs, prbs }, call);
  const o = checkOptions(rest, SCHEMA, call);
  const layers = o.layers!;
  const typeAPosition = o.typeAPosition ?? 2;
  const additionalPosition = o.additionalPosition ?? 2;
  // 38.211 6.4.1.1.3: pos3 is supported only with dmrs-TypeA-Position pos2
  if (additionalPosition === 3 && typeAPosition !== 2)
    throw new InvalidArgumentError(`${call}: additional position 3 needs typeAPosition 2, got ${typeAPosition}`, {
      option: 'additionalPosition',
      value: additionalPosition,
    });
  const symbols = [typeAPosition, ...ADDITIONAL[additionalPosition]!];
  const dataSymbols: number[] = [];
  for (let l = 0; l < SYMBOLS_PER_SLOT; l++) if (!symbols.includes(l)) dataSymbols.push(l);
  const ports: DmrsPort[] = [];
  for (let p = 0; p < layers; p++)
    ports.push({ port: p, cdmGroup: p >> 1, delta: p >> 1, occ: p & 1 ? -1 : 1, shared: (p ^ 1) < layers });
  return Object.freeze({
    scs,
    prbs,
    subcarriers: subcarrierCount({ scs, prbs }),
    layers,
    typeAPosition,
    additionalPosition,
    scramblingId: o.scramblingId ?? 0,
    nScid: o.nScid ?? 0,
    pilotPower: o.pilotPower ?? 2,
    symbols: Object.freeze(symbols),
    dataSymbols: Object.freeze(dataSymbols),
    ports: Object.freeze(ports.map((p) => Object.freeze(p))),
  });
}

/**
 * The length-`length` Gold sequence c(n) of 38.211 5.2.1 (N_C = 1600) for c_init, one bit a byte:
 * x1 starts at 1, 0, ..., 0, x2 at the bits of c_init (x2(i) = bit i).
 */
export function goldSequence(cInit: number, length: number): Uint8Array {
  if (!Number.isInteger(cInit) || cInit < 0 || cInit >= 2 ** 31)
    throw new InvalidArgumentError(`goldSequence(): c_init must be an integer in [0, 2^31), got ${show(cInit)}`, {
      option: 'cInit',
      value: show(cInit),
    });
  if (!Number.isInteger(length) || length < 0 || length > 2 ** 28)
    throw new InvalidArgumentError(`goldSequence(): the length must be an integer in [0, 2^28], got ${show(length)}`, {
      option: 'length',
      value: show(length),
    });
  // bit i of a register is x(n + i): a step shifts in x(n + 31) at bit 30
  let x1 = 1,
    x2 = cInit;
  for (let n = 0; n < 1600; n++) {
    x1 = (x1 >>> 1) | (((x1 ^ (x1 >>> 3)) & 1) << 30);
    x2 = (x2 >>> 1) | (((x2 ^ (x2 >>> 1) ^ (x2 >>> 2) ^ (x2 >>> 3)) & 1) << 30);
  }
  const c = new Uint8Array(length);
  for (let n = 0; n < length; n++) {
    c[n] = (x1 ^ x2) & 1;
    x1 = (x1 >>> 1) | (((x1 ^ (x1 >>> 3)) & 1) << 30);
    x2 = (x2 >>> 1) | (((x2 ^ (x2 >>> 1) ^ (x2 >>> 2) ^ (x2 >>> 3)) & 1) << 30);
  }
  return c;
}

/**
 * c_init of 38.211 6.4.1.1.1.1 for slot n_s,f and symbol l (CDM groups 0 and 1, where Rel-16's
 * lambda-bar terms vanish): (2^17 (14 n_s,f + l + 1)(2 N_ID + 1) + 2 N_ID + n_SCID) mod 2^31.
 */
export function dmrsCinit(scramblingId: number, nScid: number, slot: number, symbol: number): number {
  // below 2^17 * 1121 * 131071 < 2^53: exact in doubles
  return (
    (2 ** 17 * (SYMBOLS_PER_SLOT * slot + symbol + 1) * (2 * scramblingId + 1) + 2 * scramblingId + nScid) % 2 ** 31
  );
}

/** The slots of a frame: 10 * 2^mu. */
export function slotsPerFrame(scs: number): number {
  return 10 * (scs / 15e3);
}

/** The pilots of slot `slot` (n_s,f, 0 to 10 * 2^mu - 1) of the configuration. */
export function dmrsPilots(config: DmrsConfig, slot: number): DmrsPilots {
  const frame = slotsPerFrame(config.scs);
  if (!Number.isInteger(slot) || slot < 0 || slot >= frame)
    throw new InvalidArgumentError(
      `dmrsPilots(): the slot must be an integer in [0, ${frame - 1}], got ${show(slot)}`,
      {
        option: 'slot',
        value: show(slot),
      },
    );
  const M = config.subcarriers / 2;
  const D = config.symbols.length;
  const sequence = new Float64Array(2 * D * M);
  const h = Math.SQRT1_2;
  for (let d = 0; d < D; d++) {
    const c = goldSequence(dmrsCinit(config.scramblingId, config.nScid, slot, config.symbols[d]!), 2 * M);
    for (let m = 0; m < M; m++) {
      sequence[2 * (d * M + m)] = h * (1 - 2 * c[2 * m]!);
      sequence[2 * (d * M + m) + 1] = h * (1 - 2 * c[2 * m + 1]!);
    }
  }
  const beta = Math.sqrt(config.pilotPower);
  const subcarriers: Int32Array[] = [];
  const values: Float64Array[] = [];
  for (const port of config.ports) {
    const k = new Int32Array(M);
    for (let m = 0; m < M; m++) k[m] = 2 * m + port.delta; // 4n + 2k' + delta, m = 2n + k'
    const v = new Float64Array(2 * D * M);
    for (let i = 0; i < D * M; i++) {
      const w = i & 1 && port.occ < 0 ? -beta : beta; // k' = m & 1, and M is even
      v[2 * i] = w * sequence[2 * i]!;
      v[2 * i + 1] = w * sequence[2 * i + 1]!;
    }
    subcarriers.push(k);
    values.push(v);
  }
  return { config, slot, subcarriers, values, sequence };
}

/**
 * The transmitted pilots on the slot's grid: 14 x K x layers complex, layer j's value on
 * (symbol l, subcarrier k) at 2 ((l K + k) layers + j), zero off its pilots (and on data REs,
 * which this grid leaves to the caller).
 */
export function pilotGrid(pilots: DmrsPilots): Float64Array {
  const { config } = pilots;
  const K = config.subcarriers,
    L = config.layers,
    M = K / 2;
  const x = new Float64Array(2 * SYMBOLS_PER_SLOT * K * L);
  config.symbols.forEach((l, d) => {
    for (let j = 0; j < L; j++) {
      const k = pilots.subcarriers[j]!,
        v = pilots.values[j]!;
      for (let m = 0; m < M; m++) {
        const at = 2 * ((l * K + k[m]!) * L + j);
        x[at] = v[2 * (d * M + m)]!;
        x[at + 1] = v[2 * (d * M + m) + 1]!;
      }
    }
  });
  return x;
}

/**
 * Which resource elements of the slot carry data: 14 x K, 1 at l K + k for data, 0 on the DM-RS
 * symbols (all of whose REs carry pilots or nothing: CDM groups without data = 2).
 */
export function dataMask(config: DmrsConfig): Uint8Array {
  const K = config.subcarriers;
  const mask = new Uint8Array(SYMBOLS_PER_SLOT * K);
  for (const l of config.dataSymbols) mask.fill(1, l * K, (l + 1) * K);
  return mask;
}

/**
 * The slot receiver's options, declared once (check, doc line), and what they resolve to: the
 * DM-RS configuration, the code blocks the slot carries and the transport block they make.
 *
 * The slot: 14 symbols on K = 12 prbs subcarriers, PUSCH DM-RS type 1 (single symbol, mapping type
 * A, one port a layer), the data on every other resource element in the order data symbol, then
 * subcarrier; a resource element's vector carries `layers` symbols (38.211 layer mapping: codeword
 * symbol d on layer d mod layers). The transport block: the largest A (a multiple of 8) with
 * A + its CRC at most rate x G (G = data REs x layers x Qm channel bits) that 38.212 5.2.2 cuts into
 * C equal code blocks of K' bits (CRC24A, or CRC16 for A <= 3824, on the transport block; CRC24B
 * on each block when C > 1); the base graph by 38.212 7.2.2 unless given. Each block is
 * rate-matched (38.212 5.4.2, redundancy version 0) onto E = layers Qm floor(data REs / C) bits,
 * block c on bits c E .. (c + 1) E - 1 of the slot (fewer than C resource elements stay empty);
 * the bits are scrambled (38.211 6.3.1.1, c_init = rnti 2^15 + dataScramblingId).
 */
import {
  checkOptions,
  choice,
  integer,
  InvalidArgumentError,
  number,
  object,
  option,
  satisfying,
  string,
} from '../core/index.js';
import {
  channelEntry,
  checkChannel,
  checkGrid,
  type DmrsConfig,
  dmrsConfig,
  type PowerDelayProfile,
  type TimeInterpolationTerms,
  timeInterpolationTerms,
} from '../channels/index.js';
import {
  DECODER_SCHEMA,
  type DecoderOptions,
  type LdpcCode,
  ldpcCode,
  NR_MAX_K,
  NR_MAX_RATE,
  NR_TB_CRC16_MAX_A,
  type TransportBlockSegmentation,
  transportBlockSegmentation,
} from '../coding/index.js';
import { ENGINE_REQUESTS } from '../gpu/index.js';
import {
  bitsPerSymbolOf,
  checkDetectOptions,
  detectorEntry,
  type DetectOptions,
  MODULATIONS,
  type Modulation,
} from '../mimo/index.js';

/** The most layers: DM-RS ports 0 to 3 of type 1, single symbol. */
export const MAX_RECEIVER_LAYERS = 4;
/** The most receive antennas. */
export const MAX_RECEIVER_ANTENNAS = 16;

/** What receiveSlots() and slotReceiverCudaPlan() take (see the file comment for the slot). */
export interface SlotReceiverOptions {
  /** Layers (DM-RS ports 0 .. layers - 1), 1 to 4. */
  layers: number;
  /** Receive antennas, 1 to 16. */
  nr: number;
  /** Subcarrier spacing, Hz (15e3, 30e3, 60e3, 120e3). */
  scs: number;
  /** Resource blocks, 1 to 273. */
  prbs: number;
  /** dmrs-AdditionalPosition, 0 to 3 (default 1). */
  dmrsAdditional?: number;
  /** The constellation every layer sends. */
  modulation: Modulation;
  /** The target code rate, above 0 and at most 0.95: the transport block fills the slot at it (see the file comment). */
  rate: number;
  /** The LDPC base graph, 1 or 2 (default: 38.212 7.2.2's choice from A and the rate). */
  baseGraph?: 1 | 2;
  /** The estimator: 'lmmse' (default) or 'ls'. */
  csi?: 'ls' | 'lmmse';
  /**
   * The channel model the estimator assumes (default 'tdl-c'): its power delay profile (LMMSE's
   * filter) and its time correlation (the noise variance counts the error of interpolating in time).
   */
  channel?: string;
  /** The channel model's parameters (its registry entry's schema checks them; speed and carrier set its Doppler). */
  channelOptions?: Readonly<Record<string, unknown>>;
  /** LMMSE: the N0 the filter assumes (default 0.1: a 10 dB design point). */
  n0?: number;
  /**
   * The detector (a soft one: ep, mmse-pic, nway, kbest, ssfe, ml) and its options, as detect() takes
   * them without the modulation; 'mmse' stands for mmse-pic without priors (mmse's soft output).
   */
  detector: Omit<DetectOptions, 'modulation'>;
  /** The LDPC decoder (default: layered, 10 iterations). */
  decoder?: DecoderOptions;
  /** n_RNTI of the scrambling, 0 to 65535 (default 0). */
  rnti?: number;
  /** n_ID of the scrambling, 0 to 1023 (default 0). */
  dataScramblingId?: number;
  /** 'auto' (default): the GPU where one answers, else the CPU; 'cpu'; 'cuda'. */
  engine?: 'auto' | 'cpu' | 'cuda';
}

const SCHEMA = {
  layers: option(integer(1, MAX_RECEIVER_LAYERS), 'layers (DM-RS ports)', { required: true }),
  nr: option(integer(1, MAX_RECEIVER_ANTENNAS), 'receive antennas', { required: true }),
  scs: option(number(), 'subcarrier spacing, Hz', { required: true }),
  prbs: option(integer(1), 'resource blocks', { required: true }),
  dmrsAdditional: option(integer(0, 3), 'dmrs-AdditionalPosition', { default: 1 }),
  modulation: option(choice(MODULATIONS), 'the constellation', { required: true }),
  rate: option(number({ min: 0, minOpen: true, max: NR_MAX_RATE }), 'the target code rate', { required: true }),
  baseGraph: option(integer(1, 2), "the LDPC base graph (default: 38.212 7.2.2's choice)"),
  csi: option(choice(['ls', 'lmmse'] as const), 'the channel estimator', { default: 'lmmse' }),
  channel: option(string(), 'the channel model the estimator assumes (delay profile, Doppler)', {
    default: 'tdl-c',
  }),
  channelOptions: option(
    satisfying<Record<string, unknown>>('an object', (v) => typeof v === 'object' && v !== null && !Array.isArray(v)),
    "the channel model's parameters",
  ),
  n0: option(number({ min: 0, minOpen: true }), 'LMMSE: the N0 the filter assumes', { default: 0.1 }),
  detector: option(
    satisfying<Record<string, unknown>>('a detector object', (v) => typeof v === 'object' && v !== null),
    'the detector and its options',
    { required: true },
  ),
  decoder: option(object(DECODER_SCHEMA), 'the LDPC decoder'),
  rnti: option(integer(0, 65535), 'n_RNTI of the scrambling', { default: 0 }),
  dataScramblingId: option(integer(0, 1023), 'n_ID of the scrambling', { default: 0 }),
  engine: option(choice(ENGINE_REQUESTS), 'the engine', { default: 'auto' }),
} as const;

/** The options resolved: every shape the receivers need. */
export interface ResolvedReceiver {
  /** The options with their defaults (the base graph is the code's). */
  readonly options: Readonly<Required<Omit<SlotReceiverOptions, 'channelOptions' | 'decoder' | 'baseGraph'>>> & {
    /** The channel model's parameters as given ({} when none). */
    readonly channelOptions: Readonly<Record<string, unknown>>;
    /** The decoder's options, 10 iterations unless given. */
    readonly decoder: DecoderOptions;
  };
  /** The slot's DM-RS configuration. */
  readonly config: DmrsConfig;
  /** Subcarriers K. */
  readonly K: number;
  /** Data resource elements of a slot (the detectors' vectors). */
  readonly dataRes: number;
  /** Bits a modulation symbol, Qm. */
  readonly qm: number;
  /** The slot's channel bits: dataRes x layers x Qm (the last G - C E stay unused). */
  readonly G: number;
  /** Code blocks a slot. */
  readonly C: number;
  /** Rate-matched bits a block. */
  readonly E: number;
  /** Each block's code (k = K', n = E). */
  readonly code: LdpcCode;
  /** The transport block's bits a slot. */
  readonly A: number;
  /** The detector's options (soft max-log, the modulation). */
  readonly detect: DetectOptions;
  /** LMMSE: the profile the filter assumes. */
  readonly pdp: PowerDelayProfile | null;
  /** The time interpolation's error terms under the model's time correlation (the noise variance counts them). */
  readonly time: TimeInterpolationTerms;
}

/** Iterations of the search for a transport block that splits evenly (each step 8 bits smaller). */
const TB_SEARCH = 4096;

/**
 * The transport block of a slot of G channel bits at `rate`: the largest A (a multiple of 8) with
 * A + its CRC <= rate G whose 38.212 segmentation cuts it into equal blocks.
 */
function transportBlockFor(G: number, rate: number, bg: 1 | 2 | undefined, call: string): TransportBlockSegmentation {
  const A0 = 8 * Math.floor((rate * G - 24) / 8);
  if (A0 < 8)
    throw new InvalidArgumentError(
      `${call}: the slot's ${G} channel bits at rate ${rate} leave no room for a transport block and its CRC: give more prbs, layers or a higher rate`,
      { option: 'rate', value: rate, slotBits: G },
    );
  for (let A = A0, i = 0; A >= 8 && i < TB_SEARCH; A -= 8, i++) {
    // 38.212 7.2.2's base graph for this A
    const g = bg ?? (A <= 292 || (A <= 3824 && rate <= 0.67) || rate <= 0.25 ? 2 : 1);
    if (!splitsEvenly(A, g)) continue;
    return transportBlockSegmentation(A, g);
  }
  throw new InvalidArgumentError(`${call}: no transport block below ${A0} bits splits evenly into code blocks`, {
    option: 'rate',
    value: rate,
  });
}

/** Whether 38.212 5.2.2 cuts A bits (with their CRC) into equal code blocks on base graph bg. */
function splitsEvenly(A: number, bg: 1 | 2): boolean {
  const B = A + (A > NR_TB_CRC16_MAX_A ? 24 : 16);
  const Kcb = NR_MAX_K[bg];
  return B <= Kcb || B % Math.ceil(B / (Kcb - 24)) === 0;
}

/**
 * The options checked and resolved. InvalidArgumentError naming the option: unknown keys, values
 * out of range, a grid no numerology has, a rate that leaves no transport block or gives blocks
 * above rate 0.95, a detector without soft output, a channel model without a delay profile under LMMSE.
 */
export function resolveReceiver(options: SlotReceiverOptions, call = 'slot receiver'): ResolvedReceiver {
  const checked = checkOptions(options, SCHEMA, call);
  // the schema's defaults, then the values given
  const o = {
    ...Object.fromEntries(
      Object.entries(SCHEMA).flatMap(([k, s]) => (s.default === undefined ? [] : [[k, s.default]])),
    ),
    ...Object.fromEntries(Object.entries(checked).filter(([, v]) => v !== undefined)),
  } as ResolvedReceiver['options'];
  checkGrid({ scs: o.scs, prbs: o.prbs }, `${call} options`);
  // mmse's soft output is mmse-pic's without priors (mmse itself gives hard decisions)
  const asked =
    (o.detector as { detector?: unknown }).detector === 'mmse' ? { ...o.detector, detector: 'mmse-pic' } : o.detector;
  const detect = checkDetectOptions({ ...asked, modulation: o.modulation }, `${call} option detector`);
  if (!detectorEntry(detect.detector)!.traits.soft)
    throw new InvalidArgumentError(
      `${call}: detector '${detect.detector}' gives no soft output, and the decoder needs LLRs`,
      { option: 'detector', detector: detect.detector },
    );
  const config = dmrsConfig({ scs: o.scs, prbs: o.prbs, layers: o.layers, additionalPosition: o.dmrsAdditional });
  const K = config.subcarriers,
    dataRes = config.dataSymbols.length * K,
    qm = bitsPerSymbolOf(o.modulation),
    perRe = o.layers * qm;
  const G = dataRes * perRe;
  const seg = transportBlockFor(G, o.rate, (o as { baseGraph?: 1 | 2 }).baseGraph, call);
  const C = seg.C,
    E = perRe * Math.floor(dataRes / C);
  if (seg.Kprime / E > NR_MAX_RATE)
    throw new InvalidArgumentError(
      `${call}: ${C} code blocks of K' = ${seg.Kprime} bits on E = ${E} channel bits each is rate ${(seg.Kprime / E).toFixed(3)}, above 38.212's ${NR_MAX_RATE}: give a lower rate`,
      { option: 'rate', value: o.rate },
    );
  const code = ldpcCode(`nr:bg${seg.bg}:${seg.Kprime}:${o.rate}`, { Qm: qm, E });
  const A = seg.A;
  let pdp: PowerDelayProfile | null = null;
  const channelOptions = o.channelOptions ?? {};
  const model = checkChannel(o.channel, channelOptions, { nt: o.layers, nr: o.nr }, call);
  const entry = channelEntry(model.model)!;
  if (o.csi === 'lmmse') {
    const profile = entry.powerDelayProfile;
    if (!profile)
      throw new InvalidArgumentError(
        `${call}: channel model '${model.model}' has no power delay profile for the LMMSE filter: give a TDL or CDL model, or csi 'ls'`,
        { option: 'channel', value: model.model },
      );
    pdp = profile(model.params);
  }
  return {
    options: { ...o, channelOptions, decoder: { maxIterations: 10, ...o.decoder } },
    config,
    K,
    dataRes,
    qm,
    G,
    C,
    E,
    code,
    A,
    detect: { ...detect, soft: 'maxlog' },
    pdp,
    time: timeInterpolationTerms(config, entry.timeCorrelation?.(model.params)),
  };
}

/**
 * The CDL models of 3GPP TR 38.901 section 7.7.1 on the CPU: a table's clusters (tables.ts), their
 * delays scaled by the delay spread, 20 rays a cluster at the cluster angles plus the cluster
 * spreads times the offsets of Table 7.5-3, the rays' angles coupled at random within a cluster, a
 * fixed cross-polarisation ratio and random initial phases per ray (7.5 steps 10 and 11, every
 * cluster a "weaker" one: no sub-clusters), and in CDL-D and CDL-E a specular line-of-sight ray.
 *
 * Link direction: the tables are written for the downlink (departure at the base station). The
 * link here is the uplink of a MIMO detector: the receive array (nr elements) is the base station
 * and sees the rays at the tables' departure angles (AOD, ZOD, spreads cASD, cZSD); the transmit
 * array (nt elements) is the UE at the arrival angles (AOA, ZOA, cASA, cZSA), by reciprocity. The
 * UE moves: ray (n, m)'s Doppler is v . r_UE(n, m) / lambda (7.5-22), r_UE its unit vector at the
 * UE. Both arrays are in the y-z plane of their own frame, boresight along x; the base station's
 * frame is the global one, the UE's is turned by 180 degrees in azimuth so that each end's
 * boresight points at the other (the tables' line of sight leaves at AOD 0 and arrives at AOA 180).
 *
 * Channel coefficient of entry (i, j) at time t and frequency f (offset from the carrier):
 *   H_ij(t, f) = sum_n sum_m g_ij(n, m) exp(j 2 pi nu_nm t) exp(-j 2 pi f tau_n),
 *   g_ij(n, m) = sqrt(P_n / 20) c [F_rx,i]^T M_nm [F_tx,j] exp(j 2 pi r_rx . d_i) exp(j 2 pi r_tx . d_j)
 * with F the element's field (theta, phi) at the ray's direction, M_nm = [[e^{j a}, e^{j b} /
 * sqrt(kappa)], [e^{j c} / sqrt(kappa), e^{j d}]] (a .. d the ray's phases, kappa = 10^(XPR/10)),
 * d the element positions in wavelengths, and c = 1 for vertically polarised elements at both ends,
 * 1 / sqrt((1 + 1/kappa) / 2) when either end is slanted (so that E|h_ij|^2 = sum P_n = 1 with omni
 * elements whatever the polarisation). The line-of-sight ray has M = diag(1, -1), no random phase
 * and c = 1 (its power on an entry then depends on the pair of slants, 7.5-29).
 *
 * Philox words of a drop (a fixed number, W = 104 N for N non-specular clusters, so drop q of a
 * stream starts at word q W and any drop can be drawn alone): cluster by cluster in table order (the
 * specular row has no words), 104 words (26 blocks) each:
 *   words 0 .. 20: three Fisher-Yates shuffles of the 20 ray indices, 7 words each (shuffle(): three
 *     swaps a word): the AOA, ZOD and ZOA offsets of ray m are those of rays pAOA(m), pZOD(m),
 *     pZOA(m), the AOD offset ray m's own (7.7.1 step 2's random coupling); 21 .. 23 unused;
 *   words 24 .. 103: the rays' initial phases, theta-theta of rays 0 .. 19, then theta-phi,
 *     phi-theta, phi-phi, each pi (2 u - 1) with u = Philox.uniform32() of one word (24 bits).
 * Vertically polarised elements at both ends use only theta-theta: the generator then skips the
 * other 60 words (Philox is counter-based, so skipping costs nothing and changes no other value).
 */
import { allocArray, InvalidArgumentError, Philox } from '../../core/index.js';
import { checkSpan } from '../span.js';
import { STATIC_CHANNEL, type TimeCorrelation } from '../time-correlation.js';
import type { ChannelGenerator, ChannelShape, ChannelSpan, PowerDelayProfile, ResponsePoints } from '../types.js';
import { type CdlTable, RAY_OFFSETS } from './tables.js';

/** An array's layout: a horizontal uniform linear array, or a uniform planar array of rows. */
export type ArrayKind = 'ula' | 'upa';
/** An element's pattern: isotropic, or the sector element of TR 38.901 Table 7.3-1. */
export type ElementPattern = 'omni' | '38.901';
/** Vertically polarised elements, or pairs of +-45-degree slanted ones at each position. */
export type Polarization = 'single' | 'cross';

/** The parameters of every CDL model (SimulationOptions.channelOptions). */
export interface CdlParams {
  /** The delay spread in seconds that scales the table's normalised delays (default 300e-9). */
  delaySpread?: number;
  /** The UE's speed in m/s (default 0: no Doppler). */
  speed?: number;
  /** The carrier frequency in Hz (default 3.5e9): the wavelength of the Doppler shifts. */
  carrier?: number;
  /** The UE's direction of travel: azimuth in degrees (default 0). */
  travelAzimuthDeg?: number;
  /** The UE's direction of travel: zenith in degrees (default 90: horizontal). */
  travelZenithDeg?: number;
  /** The receive (base station) array: 'ula' (default) or 'upa'. */
  rxArray?: ArrayKind;
  /** Rows of a receive UPA (default: the squarest layout of the positions). */
  rxRows?: number;
  /** Receive element spacing in wavelengths, horizontal and vertical (default 0.5). */
  rxSpacing?: number;
  /** Receive element pattern (default 'omni'). */
  rxPattern?: ElementPattern;
  /** Receive polarisation (default 'single': vertical). */
  rxPolarization?: Polarization;
  /** The transmit (UE) array: 'ula' (default) or 'upa'. */
  txArray?: ArrayKind;
  /** Rows of a transmit UPA (default: the squarest layout of the positions). */
  txRows?: number;
  /** Transmit element spacing in wavelengths (default 0.5). */
  txSpacing?: number;
  /** Transmit element pattern (default 'omni'). */
  txPattern?: ElementPattern;
  /** Transmit polarisation (default 'single': vertical). */
  txPolarization?: Polarization;
}

/** The parameters of the line-of-sight models (CDL-D, CDL-E). */
export interface CdlLosParams extends CdlParams {
  /** The K-factor in dB: the specular path's power over the first Laplacian cluster's (default the table's). */
  kFactorDb?: number;
}

/** The default delay spread, seconds: the "long" delay spread of TR 38.901 Table 7.7.3-1. */
export const DEFAULT_DELAY_SPREAD = 300e-9;
/** The default carrier frequency, Hz. */
export const DEFAULT_CARRIER = 3.5e9;
/** The default element spacing, wavelengths. */
export const DEFAULT_SPACING = 0.5;

const SPEED_OF_LIGHT = 299_792_458;
/** Rays a non-specular cluster has. */
export const RAYS = RAY_OFFSETS.length;
/** Swaps of a shuffle drawn from one word: 20 x 19 x 18 choices fit 32 bits with a bias under 2e-6. */
const SWAPS_PER_WORD = 3;
/** Words of a cluster's three shuffles (21), rounded up to a Philox block, where its phases start. */
const PERM_BLOCK = 4 * Math.ceil((3 * Math.ceil((RAYS - 1) / SWAPS_PER_WORD)) / 4);
const CLUSTER_WORDS = PERM_BLOCK + 4 * RAYS;
const DEG = Math.PI / 180;
/** The azimuth of each end's boresight, degrees (see the header). */
const RX_BEARING = 0;
const TX_BEARING = 180;

/** Philox words a drop of the table reads (the header's layout). */
export function cdlDropWords(table: CdlTable): number {
  return (table.rows.length - (table.los ? 1 : 0)) * CLUSTER_WORDS;
}

/**
 * The rows' powers, linear, summing to 1: the table's, with the specular row (line-of-sight tables)
 * set to K times the first Laplacian cluster's power. Finite for any finite K in dB.
 */
export function clusterPowers(table: CdlTable, kFactorDb?: number): Float64Array {
  const P = new Float64Array(table.rows.length);
  for (let n = 0; n < P.length; n++) P[n] = 10 ** (table.rows[n]![1] / 10);
  if (!table.los) {
    const sum = P.reduce((a, x) => a + x, 0);
    return P.map((x) => x / sum);
  }
  const kDb = kFactorDb ?? table.kFactorDb!;
  let scattered = 0;
  for (let n = 1; n < P.length; n++) scattered += P[n]!;
  const first = P[1]!;
  // specular = K first; each side divided by what keeps it at most 1, so no overflow
  if (kDb >= 0) {
    const t = 10 ** (-kDb / 10),
      total = first + t * scattered;
    P[0] = first / total;
    for (let n = 1; n < P.length; n++) P[n] = (t * P[n]!) / total;
  } else {
    const k = 10 ** (kDb / 10),
      total = k * first + scattered;
    P[0] = (k * first) / total;
    for (let n = 1; n < P.length; n++) P[n] = P[n]! / total;
  }
  return P;
}

/** The clusters' delays (seconds) and powers (linear, sum 1), table order. */
export function powerDelayProfile(table: CdlTable, params: CdlLosParams): PowerDelayProfile {
  const ds = params.delaySpread ?? DEFAULT_DELAY_SPREAD;
  return {
    delays: Float64Array.from(table.rows, (r) => r[0] * ds),
    powers: clusterPowers(table, params.kFactorDb),
  };
}

/** One end's array, as the parameters give it. */
interface ArraySpec {
  readonly kind: ArrayKind;
  readonly rows: number | undefined;
  readonly spacing: number;
  readonly pattern: ElementPattern;
  readonly cross: boolean;
}

function specOf(params: CdlParams, side: 'rx' | 'tx'): ArraySpec {
  const p = params as Record<string, unknown>;
  return {
    kind: (p[`${side}Array`] as ArrayKind | undefined) ?? 'ula',
    rows: p[`${side}Rows`] as number | undefined,
    spacing: (p[`${side}Spacing`] as number | undefined) ?? DEFAULT_SPACING,
    pattern: (p[`${side}Pattern`] as ElementPattern | undefined) ?? 'omni',
    cross: p[`${side}Polarization`] === 'cross',
  };
}

/**
 * The rows and columns of positions that give `n` elements, or InvalidArgumentError naming the
 * option at fault: cross polarisation needs an even n; a UPA's rows must divide the positions; a
 * ULA has one row.
 */
function layoutOf(n: number, spec: ArraySpec, side: 'rx' | 'tx'): { rows: number; cols: number } {
  const what = side === 'rx' ? `nr = ${n} receive` : `nt = ${n} transmit`;
  if (spec.cross && n % 2 !== 0)
    throw new InvalidArgumentError(`cdl: cross-polarised elements come in pairs, so ${what} elements must be even`, {
      option: `channelOptions.${side}Polarization`,
      elements: n,
    });
  const positions = spec.cross ? n / 2 : n;
  if (spec.kind === 'ula') {
    if (spec.rows !== undefined && spec.rows !== 1)
      throw new InvalidArgumentError(`cdl: ${side}Rows applies to a UPA (${side}Array 'upa'); a ULA has one row`, {
        option: `channelOptions.${side}Rows`,
        value: spec.rows,
      });
    return { rows: 1, cols: positions };
  }
  let rows = spec.rows;
  if (rows === undefined) {
    rows = 1;
    for (let r = 1; r * r <= positions; r++) if (positions % r === 0) rows = r;
  }
  if (positions % rows !== 0)
    throw new InvalidArgumentError(
      `cdl: ${side}Rows ${rows} does not divide the ${positions} element positions of ${what} elements`,
      { option: `channelOptions.${side}Rows`, value: rows, elements: n },
    );
  return { rows, cols: positions / rows };
}

/** Throws InvalidArgumentError unless both arrays can have the shape's nr and nt elements. */
export function checkCdlShape(shape: ChannelShape, params: CdlParams): void {
  layoutOf(shape.nr, specOf(params, 'rx'), 'rx');
  layoutOf(shape.nt, specOf(params, 'tx'), 'tx');
}

/** An array in the global frame. */
export interface ArrayGeometry {
  readonly n: number;
  readonly rows: number;
  readonly cols: number;
  /** Each element's column and row. */
  readonly col: Int32Array;
  readonly row: Int32Array;
  /** The direction of a row (horizontal, unit, global frame); the columns run along z. */
  readonly axisX: number;
  readonly axisY: number;
  /** Element spacing, wavelengths. */
  readonly spacing: number;
  /** cos and sin of each element's slant angle. */
  readonly cosSlant: Float64Array;
  readonly sinSlant: Float64Array;
  readonly pattern: ElementPattern;
  /** Boresight azimuth, degrees. */
  readonly bearing: number;
}

/**
 * Elements position by position (row by row, along the row: y in the array's frame, rows up z),
 * a cross-polarised position's two elements next to each other (+45 degrees first). The array's
 * frame is the global one turned by its bearing about z, so its rows run along (-sin b, cos b, 0).
 */
function geometryOf(n: number, spec: ArraySpec, side: 'rx' | 'tx'): ArrayGeometry {
  const { rows, cols } = layoutOf(n, spec, side);
  const bearing = side === 'rx' ? RX_BEARING : TX_BEARING;
  const col = new Int32Array(n),
    row = new Int32Array(n),
    cosSlant = new Float64Array(n),
    sinSlant = new Float64Array(n);
  const per = spec.cross ? 2 : 1;
  for (let e = 0; e < n; e++) {
    const p = Math.floor(e / per);
    col[e] = p % cols;
    row[e] = Math.floor(p / cols);
    const slant = spec.cross ? (e % 2 === 0 ? 45 : -45) * DEG : 0;
    cosSlant[e] = Math.cos(slant);
    sinSlant[e] = Math.sin(slant);
  }
  return {
    n,
    rows,
    cols,
    col,
    row,
    axisX: -Math.sin(bearing * DEG),
    axisY: Math.cos(bearing * DEG),
    spacing: spec.spacing,
    cosSlant,
    sinSlant,
    pattern: spec.pattern,
    bearing,
  };
}

/** Numbers a direction's entry holds: the element's field amplitude, exp(j h), exp(j v). */
export const DIR = 5;

/**
 * An end's entry for the direction (zenith, azimuth), degrees, into out[at ..]: the element's field
 * amplitude and the steering phase steps exp(j h) along a row and exp(j v) along a column
 * (h = 2 pi spacing r . row axis, v = 2 pi spacing r_z, r the direction's unit vector).
 */
function direction(a: ArrayGeometry, zenith: number, azimuth: number, out: Float64Array, at: number): void {
  const z = zenith * DEG,
    p = azimuth * DEG;
  const st = Math.sin(z);
  const h = 2 * Math.PI * a.spacing * st * (Math.cos(p) * a.axisX + Math.sin(p) * a.axisY),
    v = 2 * Math.PI * a.spacing * Math.cos(z);
  out[at] = elementField(a.pattern, zenith, azimuth, a.bearing);
  out[at + 1] = Math.cos(h);
  out[at + 2] = Math.sin(h);
  out[at + 3] = Math.cos(v);
  out[at + 4] = Math.sin(v);
}

/** The Doppler shift (Hz) of a ray reaching the UE from (zenith, azimuth), degrees: vel . r. */
function dopplerOf(vel: readonly [number, number, number], zenith: number, azimuth: number): number {
  const z = zenith * DEG,
    p = azimuth * DEG;
  return Math.sin(z) * (vel[0] * Math.cos(p) + vel[1] * Math.sin(p)) + vel[2] * Math.cos(z);
}

/**
 * The steering phases exp(j 2 pi r . d_e) of every element into (re, im), from a direction's entry:
 * powers of the row and column steps (no sine or cosine a ray). `pow` is scratch of 2 (rows + cols).
 */
function steer(
  a: ArrayGeometry,
  dir: Float64Array,
  at: number,
  re: Float64Array,
  im: Float64Array,
  pow: Float64Array,
): void {
  powers(dir[at + 1]!, dir[at + 2]!, a.cols, pow, 0);
  powers(dir[at + 3]!, dir[at + 4]!, a.rows, pow, 2 * a.cols);
  for (let e = 0; e < a.n; e++) {
    const c = 2 * a.col[e]!,
      r = 2 * (a.cols + a.row[e]!);
    const cr = pow[c]!,
      ci = pow[c + 1]!,
      vr = pow[r]!,
      vi = pow[r + 1]!;
    re[e] = cr * vr - ci * vi;
    im[e] = cr * vi + ci * vr;
  }
}

/** (sr + j si)^k for k = 0 .. n - 1 into out from `at`, interleaved. */
function powers(sr: number, si: number, n: number, out: Float64Array, at: number): void {
  let pr = 1,
    pi = 0;
  for (let k = 0; k < n; k++) {
    out[at + 2 * k] = pr;
    out[at + 2 * k + 1] = pi;
    const t = pr * sr - pi * si;
    pi = pr * si + pi * sr;
    pr = t;
  }
}

/**
 * The element's field amplitude toward (zenith, azimuth) in degrees: 1 for omni; for 38.901, the
 * square root of the power pattern 8 dBi - min(12 ((theta - 90) / 65)^2 + 12 (phi / 65)^2 capped at
 * 30 each, 30) (Table 7.3-1), phi taken from the boresight.
 */
export function elementField(pattern: ElementPattern, zenithDeg: number, azimuthDeg: number, bearing = 0): number {
  if (pattern === 'omni') return 1;
  let phi = azimuthDeg - bearing;
  phi -= 360 * Math.floor((phi + 180) / 360);
  const av = Math.min(12 * ((zenithDeg - 90) / 65) ** 2, 30),
    ah = Math.min(12 * (phi / 65) ** 2, 30);
  return 10 ** ((8 - Math.min(av + ah, 30)) / 20);
}

/** A zenith angle folded into [0, 180] degrees (7.5-16: theta in [180, 360] becomes 360 - theta). */
function foldZenith(deg: number): number {
  const z = deg - 360 * Math.floor(deg / 360);
  return z > 180 ? 360 - z : z;
}

/**
 * Everything fixed for one generator: the clusters, the arrays, the Doppler, the line of sight
 * (shared by the CPU generator and the CUDA one, so both use the same numbers).
 */
export interface CdlSetup {
  readonly nr: number;
  readonly nt: number;
  readonly table: CdlTable;
  /** Non-specular clusters. */
  readonly clusters: number;
  /** Rays in all: 20 a cluster, plus the specular one. */
  readonly rays: number;
  /** Delay slots: the clusters', then the specular ray's. */
  readonly delays: Float64Array;
  /** Per non-specular cluster: sqrt(P_n / 20) c. */
  readonly amp: Float64Array;
  readonly rx: ArrayGeometry;
  readonly tx: ArrayGeometry;
  /**
   * Direction entries (DIR numbers) of every pairing a cluster's rays can take: the base station's
   * at ((n 20 + AOD offset) 20 + ZOD offset) DIR, the UE's likewise by AOA and ZOA offsets, and the
   * UE's Doppler at (n 20 + AOA offset) 20 + ZOA offset.
   */
  readonly bsDir: Float64Array;
  readonly ueDir: Float64Array;
  readonly ueNu: Float64Array;
  /** 1 / sqrt(kappa). */
  readonly cross: number;
  /** Both ends vertically polarised: only the theta-theta phases matter (the others are not drawn). */
  readonly single: boolean;
  /** The specular ray's gains (nr x nt, channels' layout) and Doppler: the same every drop. */
  readonly losG: Float64Array;
  readonly losNu: number;
  readonly words: number;
  /** No Doppler (speed 0): every time's response is the first's. */
  readonly still: boolean;
}

/**
 * The entries' time correlation (time-correlation.ts) with omni elements: sum over rays of the
 * ray's power times cos(2 pi nu lag), nu its Doppler shift; a cluster's rays pair AOA and ZOA offsets
 * by a random permutation, so its share is the mean over all 400 pairings. The element patterns'
 * and polarisations' weighting of the rays is left out.
 */
export function cdlTimeCorrelation(table: CdlTable, params: CdlLosParams): TimeCorrelation {
  if ((params.speed ?? 0) === 0) return STATIC_CHANNEL;
  const vel = velocityOf(params);
  const P = clusterPowers(table, params.kFactorDb);
  const first = table.los ? 1 : 0;
  const clusters = table.rows.length - first;
  const nu = pairingDopplers(table, vel);
  const losNu = table.los ? dopplerOf(vel, table.rows[0]![5], table.rows[0]![3]) : 0;
  return (lag) => {
    let r = table.los ? P[0]! * Math.cos(2 * Math.PI * losNu * lag) : 0;
    for (let n = 0; n < clusters; n++) {
      let c = 0;
      for (let k = n * RAYS * RAYS; k < (n + 1) * RAYS * RAYS; k++) c += Math.cos(2 * Math.PI * nu[k]! * lag);
      r += (P[n + first]! * c) / (RAYS * RAYS);
    }
    return r;
  };
}

/**
 * The UE's Doppler shift (Hz) of every pairing of a non-specular cluster's AOA and ZOA offsets, at
 * (n 20 + AOA offset) 20 + ZOA offset (CdlSetup.ueNu).
 */
function pairingDopplers(table: CdlTable, vel: readonly [number, number, number]): Float64Array {
  const first = table.los ? 1 : 0;
  const clusters = table.rows.length - first;
  const nu = new Float64Array(clusters * RAYS * RAYS);
  for (let n = 0; n < clusters; n++) {
    const row = table.rows[n + first]!;
    for (let a = 0; a < RAYS; a++)
      for (let z = 0; z < RAYS; z++)
        nu[(n * RAYS + a) * RAYS + z] = dopplerOf(
          vel,
          foldZenith(row[5] + table.cZSA * RAY_OFFSETS[z]!),
          row[3] + table.cASA * RAY_OFFSETS[a]!,
        );
  }
  return nu;
}

/** The UE's velocity over the wavelength (Hz a unit direction): its Doppler vector. */
function velocityOf(params: CdlLosParams): readonly [number, number, number] {
  const fd = ((params.speed ?? 0) * (params.carrier ?? DEFAULT_CARRIER)) / SPEED_OF_LIGHT;
  const vz = (params.travelZenithDeg ?? 90) * DEG,
    va = (params.travelAzimuthDeg ?? 0) * DEG;
  return [fd * Math.sin(vz) * Math.cos(va), fd * Math.sin(vz) * Math.sin(va), fd * Math.cos(vz)];
}

/** The generator's fixed part for one shape, table and parameter set. */
export function cdlSetup(shape: ChannelShape, table: CdlTable, params: CdlLosParams): CdlSetup {
  const { nr, nt } = shape;
  const rxSpec = specOf(params, 'rx'),
    txSpec = specOf(params, 'tx');
  const rx = geometryOf(nr, rxSpec, 'rx'),
    tx = geometryOf(nt, txSpec, 'tx');
  const { delays, powers } = powerDelayProfile(table, params);
  const kappa = 10 ** (table.xprDb / 10);
  const single = !rxSpec.cross && !txSpec.cross;
  const c = single ? 1 : 1 / Math.sqrt((1 + 1 / kappa) / 2);
  const first = table.los ? 1 : 0;
  const clusters = table.rows.length - first;
  const slots = new Float64Array(clusters + first);
  const amp = new Float64Array(clusters);
  for (let n = 0; n < clusters; n++) {
    slots[n] = delays[n + first]!;
    amp[n] = Math.sqrt(powers[n + first]! / RAYS) * c;
  }
  if (table.los) slots[clusters] = delays[0]!;
  const vel = velocityOf(params);
  const pairs = RAYS * RAYS;
  const bsDir = new Float64Array(clusters * pairs * DIR),
    ueDir = new Float64Array(clusters * pairs * DIR),
    ueNu = pairingDopplers(table, vel);
  for (let n = 0; n < clusters; n++) {
    const row = table.rows[n + first]!;
    for (let a = 0; a < RAYS; a++)
      for (let z = 0; z < RAYS; z++) {
        const k = (n * RAYS + a) * RAYS + z;
        direction(
          rx,
          foldZenith(row[4] + table.cZSD * RAY_OFFSETS[z]!),
          row[2] + table.cASD * RAY_OFFSETS[a]!,
          bsDir,
          k * DIR,
        );
        const zoa = foldZenith(row[5] + table.cZSA * RAY_OFFSETS[z]!),
          aoa = row[3] + table.cASA * RAY_OFFSETS[a]!;
        direction(tx, zoa, aoa, ueDir, k * DIR);
      }
  }
  const model: CdlSetup = {
    nr,
    nt,
    table,
    clusters,
    rays: clusters * RAYS + first,
    delays: slots,
    amp,
    rx,
    tx,
    bsDir,
    ueDir,
    ueNu,
    cross: 1 / Math.sqrt(kappa),
    single,
    losG: new Float64Array(2 * nr * nt),
    losNu: 0,
    words: clusters * CLUSTER_WORDS,
    still: (params.speed ?? 0) === 0,
  };
  if (!table.los) return model;
  // the specular ray: M = diag(1, -1), no random phase (7.5-29)
  const row = table.rows[0]!;
  const bs = new Float64Array(DIR),
    ue = new Float64Array(DIR);
  direction(rx, row[4], row[2], bs, 0);
  direction(tx, row[5], row[3], ue, 0);
  const M = new Float64Array([1, 0, 0, 0, 0, 0, -1, 0]);
  rayGains(model, scratchOf(model), model.losG, 0, Math.sqrt(powers[0]!), M, bs, 0, ue, 0);
  return { ...model, losNu: dopplerOf(vel, row[5], row[3]) };
}

/** One drop: each ray's nr x nt gains (channels' layout) and Doppler shift. */
interface Drop {
  readonly g: Float64Array;
  readonly nu: Float64Array;
}

/** Scratch of one ray's computation. */
interface Scratch {
  readonly perm: Int32Array;
  /** The drawn phases' unit complex numbers: 4 a ray, interleaved. */
  readonly phase: Float64Array;
  readonly pow: Float64Array;
  readonly ar: Float64Array;
  readonly ai: Float64Array;
  readonly br: Float64Array;
  readonly bi: Float64Array;
  readonly ath: Float64Array;
  readonly aph: Float64Array;
  readonly bthr: Float64Array;
  readonly bthi: Float64Array;
  readonly bphr: Float64Array;
  readonly bphi: Float64Array;
  /** The ray's polarisation matrix [m00, m01, m10, m11], re and im each. */
  readonly M: Float64Array;
}

function scratchOf(m: CdlSetup): Scratch {
  return {
    perm: new Int32Array(3 * RAYS),
    phase: new Float64Array(8 * RAYS),
    pow: new Float64Array(2 * Math.max(m.rx.rows + m.rx.cols, m.tx.rows + m.tx.cols)),
    ar: new Float64Array(m.nr),
    ai: new Float64Array(m.nr),
    br: new Float64Array(m.nt),
    bi: new Float64Array(m.nt),
    ath: new Float64Array(m.nr),
    aph: new Float64Array(m.nr),
    bthr: new Float64Array(m.nt),
    bthi: new Float64Array(m.nt),
    bphr: new Float64Array(m.nt),
    bphi: new Float64Array(m.nt),
    M: new Float64Array(8),
  };
}

/**
 * Writes a ray's gains at g[2 r nr nt ..]: amp [F_rx]^T M [F_tx] times the steering phases, the
 * base station's direction entry bs[bsAt ..], the UE's ue[ueAt ..].
 */
function rayGains(
  m: CdlSetup,
  s: Scratch,
  g: Float64Array,
  r: number,
  amp: number,
  M: Float64Array,
  bs: Float64Array,
  bsAt: number,
  ue: Float64Array,
  ueAt: number,
): void {
  const { rx, tx, nr, nt } = m;
  const fr = bs[bsAt]! * amp,
    ft = ue[ueAt]!;
  steer(rx, bs, bsAt, s.ar, s.ai, s.pow);
  steer(tx, ue, ueAt, s.br, s.bi, s.pow);
  for (let i = 0; i < nr; i++) {
    s.ath[i] = fr * rx.cosSlant[i]!;
    s.aph[i] = fr * rx.sinSlant[i]!;
  }
  for (let j = 0; j < nt; j++) {
    const cr = s.br[j]!,
      ci = s.bi[j]!;
    const th = ft * tx.cosSlant[j]!,
      phf = ft * tx.sinSlant[j]!;
    // M F_tx, then times the steering phase
    const tr = M[0]! * th + M[2]! * phf,
      ti = M[1]! * th + M[3]! * phf,
      pr = M[4]! * th + M[6]! * phf,
      pi = M[5]! * th + M[7]! * phf;
    s.bthr[j] = tr * cr - ti * ci;
    s.bthi[j] = tr * ci + ti * cr;
    s.bphr[j] = pr * cr - pi * ci;
    s.bphi[j] = pr * ci + pi * cr;
  }
  const base = 2 * r * nr * nt;
  if (m.single) {
    // vertical elements: F_phi = 0, so g_ij = (F_theta,i a_i) (m00 F_theta,j b_j)
    for (let i = 0; i < nr; i++) {
      s.ar[i] = s.ath[i]! * s.ar[i]!;
      s.ai[i] = s.ath[i]! * s.ai[i]!;
    }
    for (let j = 0; j < nt; j++) {
      const br = s.bthr[j]!,
        bi = s.bthi[j]!;
      for (let i = 0, o = base + 2 * j * nr; i < nr; i++, o += 2) {
        g[o] = s.ar[i]! * br - s.ai[i]! * bi;
        g[o + 1] = s.ar[i]! * bi + s.ai[i]! * br;
      }
    }
    return;
  }
  for (let j = 0; j < nt; j++)
    for (let i = 0; i < nr; i++) {
      const vr = s.ath[i]! * s.bthr[j]! + s.aph[i]! * s.bphr[j]!,
        vi = s.ath[i]! * s.bthi[j]! + s.aph[i]! * s.bphi[j]!;
      const o = base + 2 * (i + j * nr);
      g[o] = vr * s.ar[i]! - vi * s.ai[i]!;
      g[o + 1] = vr * s.ai[i]! + vi * s.ar[i]!;
    }
}

/**
 * A uniform random permutation of 0 .. 19 into p[at ..]: Fisher-Yates, i from 19 down to 1 swapped
 * with j uniform in [0, i], three consecutive j from one word w: x = floor(w (i + 1) i (i - 1) / 2^32)
 * read as mixed-radix digits, x mod (i + 1) first (7 words).
 */
function shuffle(rng: Philox, p: Int32Array, at: number): void {
  for (let i = 0; i < RAYS; i++) p[at + i] = i;
  for (let i = RAYS - 1; i >= 1; ) {
    const k = Math.min(SWAPS_PER_WORD, i);
    let choices = 1;
    for (let q = 0; q < k; q++) choices *= i + 1 - q;
    // w choices < 2^45: the product and the division by 2^32 are exact
    let x = Math.floor((rng.nextUint32() * choices) / 4294967296);
    for (let q = 0; q < k; q++, i--) {
      const j = x % (i + 1);
      x = Math.floor(x / (i + 1));
      const y = p[at + i]!;
      p[at + i] = p[at + j]!;
      p[at + j] = y;
    }
  }
}

/** The phase tables of a phase word's two halves (readPhases), each 4096 complex numbers interleaved. */
export interface PhaseTables {
  /** exp(j 2 pi k / 4096). */
  readonly coarse: Float64Array;
  /** exp(j 2 pi (k + 0.5) / 2^24). */
  readonly fine: Float64Array;
}

let cachedPhaseTables: PhaseTables | undefined;

/** The phase tables, computed once. */
export function phaseTables(): PhaseTables {
  if (cachedPhaseTables) return cachedPhaseTables;
  const coarse = new Float64Array(2 * 4096),
    fine = new Float64Array(2 * 4096);
  for (let k = 0; k < 4096; k++) {
    coarse[2 * k] = Math.cos((2 * Math.PI * k) / 4096);
    coarse[2 * k + 1] = Math.sin((2 * Math.PI * k) / 4096);
    fine[2 * k] = Math.cos((2 * Math.PI * (k + 0.5)) / 2 ** 24);
    fine[2 * k + 1] = Math.sin((2 * Math.PI * (k + 0.5)) / 2 ** 24);
  }
  cachedPhaseTables = { coarse, fine };
  return cachedPhaseTables;
}

/**
 * `count` phase words into unit complex numbers at out[2 at ..] with stride 8 (a ray's four):
 * exp(j pi (2 u - 1)), u = uniform32() = (k + 0.5) 2^-24 with k = w >>> 8, as -exp(j 2 pi (k >>> 12)
 * / 4096) exp(j 2 pi ((k & 4095) + 0.5) / 2^24): a product of two table entries, no sine or cosine.
 */
function readPhases(rng: Philox, out: Float64Array, at: number, count: number): void {
  const { coarse, fine } = phaseTables();
  for (let r = 0; r < count; r++) {
    const k = rng.nextUint32() >>> 8;
    const c = 2 * (k >>> 12),
      f = 2 * (k & 4095);
    const cr = coarse[c]!,
      ci = coarse[c + 1]!,
      fr = fine[f]!,
      fi = fine[f + 1]!;
    out[2 * at + 8 * r] = -(cr * fr - ci * fi);
    out[2 * at + 8 * r + 1] = -(cr * fi + ci * fr);
  }
}

/** Reads one drop's words (its first at word `base` of the stream) and fills its rays. */
function drawDrop(rng: Philox, base: number, m: CdlSetup, s: Scratch, drop: Drop): void {
  const M = s.M;
  M.fill(0);
  for (let n = 0; n < m.clusters; n++) {
    const perm = s.perm;
    rng.seek(base + n * CLUSTER_WORDS);
    for (let k = 0; k < 3; k++) shuffle(rng, perm, k * RAYS);
    rng.seek(base + n * CLUSTER_WORDS + PERM_BLOCK);
    // theta-theta of every ray, then theta-phi, phi-theta, phi-phi (skipped: unused by vertical elements)
    for (let q = 0; q < (m.single ? 1 : 4); q++) readPhases(rng, s.phase, q, RAYS);
    for (let r = 0; r < RAYS; r++) {
      for (let q = 0; q < (m.single ? 1 : 4); q++) {
        const w = q === 1 || q === 2 ? m.cross : 1;
        M[2 * q] = w * s.phase[8 * r + 2 * q]!;
        M[2 * q + 1] = w * s.phase[8 * r + 2 * q + 1]!;
      }
      const bs = ((n * RAYS + r) * RAYS + perm[RAYS + r]!) * DIR,
        ue = (n * RAYS + perm[r]!) * RAYS + perm[2 * RAYS + r]!;
      rayGains(m, s, drop.g, n * RAYS + r, m.amp[n]!, M, m.bsDir, bs, m.ueDir, ue * DIR);
      drop.nu[n * RAYS + r] = m.ueNu[ue]!;
    }
  }
  if (m.table.los) {
    drop.g.set(m.losG, 2 * m.clusters * RAYS * m.nr * m.nt);
    drop.nu[m.clusters * RAYS] = m.losNu;
  }
}

/**
 * Runs `fn` on each of the span's drops in order with its stream's reader and the drop's first word
 * there (drawSpan's mapping of drops to streams).
 */
function forEachDrop(span: ChannelSpan, words: number, fn: (rng: Philox, base: number, d: number) => void): void {
  checkSpan(span);
  let q = span.first,
    done = 0;
  while (done < span.count) {
    const s = Math.floor(q / span.perStream),
      at = q % span.perStream;
    const n = Math.min(span.count - done, span.perStream - at);
    const rng = new Philox(span.seed, span.stream0 + s * span.streamStep);
    for (let k = 0; k < n; k++) fn(rng, (at + k) * words, done + k);
    done += n;
    q += n;
  }
}

/** exp(j 2 pi nu t) into out[at], out[at + 1]: a ray's Doppler turn (nu Hz, t s); exactly 1 at phase 0. */
function turn(nu: number, t: number, out: Float64Array, at: number): void {
  const ph = 2 * Math.PI * nu * t;
  out[at] = ph === 0 ? 1 : Math.cos(ph);
  out[at + 1] = ph === 0 ? 0 : Math.sin(ph);
}

/**
 * exp(-j 2 pi f_k tau_n) of every frequency and delay slot (the clusters', then the specular
 * ray's), the same for every drop: F x slots complex numbers, interleaved, slot fastest.
 */
export function slotRotations(m: CdlSetup, freqs: Float64Array): Float64Array {
  const slots = m.delays.length;
  const E = new Float64Array(2 * slots * freqs.length);
  for (let k = 0; k < freqs.length; k++)
    for (let n = 0; n < slots; n++) {
      const ph = -2 * Math.PI * freqs[k]! * m.delays[n]!;
      E[2 * (k * slots + n)] = Math.cos(ph);
      E[2 * (k * slots + n) + 1] = Math.sin(ph);
    }
  return E;
}

/**
 * The Doppler turns exp(j 2 pi nu t) of every UE pairing of a cluster's offsets (the index of
 * CdlSetup.ueNu), then of the specular ray (line-of-sight tables), at each time: times x (clusters
 * 400 + los) complex numbers, interleaved, pairing fastest. A ray of a drop turns as its pairing.
 */
export function dopplerTurns(m: CdlSetup, times: Float64Array): Float64Array {
  const pairs = m.ueNu.length,
    n = pairs + (m.table.los ? 1 : 0);
  const out = new Float64Array(2 * n * times.length);
  for (let ti = 0; ti < times.length; ti++) {
    for (let k = 0; k < pairs; k++) turn(m.ueNu[k]!, times[ti]!, out, 2 * (ti * n + k));
    if (m.table.los) turn(m.losNu, times[ti]!, out, 2 * (ti * n + pairs));
  }
  return out;
}

/** What rayGains reads of each end for every pairing of a cluster's offsets (CdlSetup.bsDir's and ueDir's order). */
export interface PairingArrays {
  /** clusters 400: the base station element's field amplitude. */
  readonly rxField: Float64Array;
  /** clusters 400 x nr complex, interleaved: its elements' steering phases. */
  readonly rxSteer: Float64Array;
  /** clusters 400: the UE element's field amplitude. */
  readonly txField: Float64Array;
  /** clusters 400 x nt complex, interleaved: its elements' steering phases. */
  readonly txSteer: Float64Array;
}

/** Each end's field and steering phases for every pairing, by the functions rayGains calls. */
export function pairingArrays(m: CdlSetup): PairingArrays {
  const pairs = m.ueNu.length;
  const side = (a: ArrayGeometry, dir: Float64Array) => {
    const field = new Float64Array(pairs),
      steering = new Float64Array(2 * pairs * a.n);
    const re = new Float64Array(a.n),
      im = new Float64Array(a.n),
      pow = new Float64Array(2 * (a.rows + a.cols));
    for (let k = 0; k < pairs; k++) {
      field[k] = dir[k * DIR]!;
      steer(a, dir, k * DIR, re, im, pow);
      for (let e = 0; e < a.n; e++) {
        steering[2 * (k * a.n + e)] = re[e]!;
        steering[2 * (k * a.n + e) + 1] = im[e]!;
      }
    }
    return { field, steering };
  };
  const rx = side(m.rx, m.bsDir),
    tx = side(m.tx, m.ueDir);
  return { rxField: rx.field, rxSteer: rx.steering, txField: tx.field, txSteer: tx.steering };
}

/** Throws InvalidArgumentError unless both lists of `at` are Float64Arrays of finite numbers. */
export function checkPoints(at: ResponsePoints): void {
  for (const key of ['times', 'freqs'] as const) {
    const v = at?.[key];
    if (!(v instanceof Float64Array) || !v.every(Number.isFinite))
      throw new InvalidArgumentError(`cdl response: ${key} must be a Float64Array of finite numbers`, {
        option: key,
      });
  }
}

/**
 * The model's CPU generator for one table: `response` evaluates the drops on (time, frequency)
 * points per cluster (the rays' Doppler sums at each time, then the clusters' delays at each
 * frequency); `draw` is the response at time 0 and frequency 0.
 */
export function cdlGenerator(shape: ChannelShape, table: CdlTable, params: CdlLosParams): ChannelGenerator {
  const m = cdlSetup(shape, table, params);
  const per = 2 * m.nr * m.nt;
  const slots = m.delays.length;
  const response = (span: ChannelSpan, at: ResponsePoints): Float64Array => {
    checkPoints(at);
    checkSpan(span);
    const T = at.times.length,
      F = at.freqs.length;
    const reals = T * F * per;
    const out = allocArray(Float64Array, span.count * reals, 'cdl channel response');
    const E = slotRotations(m, at.freqs);
    const drop: Drop = { g: new Float64Array(m.rays * per), nu: new Float64Array(m.rays) };
    const s = scratchOf(m);
    const C = new Float64Array(slots * per);
    const w = new Float64Array(2);
    forEachDrop(span, m.words, (rng, base, d) => {
      drawDrop(rng, base, m, s, drop);
      for (let ti = 0; ti < T; ti++) {
        if (m.still && ti > 0) {
          // no Doppler: every time is the first
          out.copyWithin(d * reals + ti * F * per, d * reals, d * reals + F * per);
          continue;
        }
        // each slot's matrix at this time: its rays' gains turned by their Doppler phases
        C.fill(0);
        const t = at.times[ti]!;
        for (let r = 0; r < m.rays; r++) {
          const slot = r < m.clusters * RAYS ? Math.floor(r / RAYS) : m.clusters;
          turn(drop.nu[r]!, t, w, 0);
          const wr = w[0]!,
            wi = w[1]!;
          const g = r * per,
            c = slot * per;
          for (let e = 0; e < per; e += 2) {
            const gr = drop.g[g + e]!,
              gi = drop.g[g + e + 1]!;
            C[c + e] += gr * wr - gi * wi;
            C[c + e + 1] += gr * wi + gi * wr;
          }
        }
        let o = d * reals + ti * F * per;
        for (let k = 0; k < F; k++, o += per) {
          for (let n = 0; n < slots; n++) {
            const er = E[2 * (k * slots + n)]!,
              ei = E[2 * (k * slots + n) + 1]!;
            const c = n * per;
            for (let e = 0; e < per; e += 2) {
              const cr = C[c + e]!,
                ci = C[c + e + 1]!;
              out[o + e] += cr * er - ci * ei;
              out[o + e + 1] += cr * ei + ci * er;
            }
          }
        }
      }
    });
    return out;
  };
  const origin: ResponsePoints = { times: new Float64Array(1), freqs: new Float64Array(1) };
  return { draw: (span) => response(span, origin), response };
}

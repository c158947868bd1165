/**
 * The flat link's generator on its WebAssembly kernel (wasm/link-lanes.as.ts): Philox words eight
 * blocks at a time in lanes, Box-Muller with fdlibm's log, sin and cos (those V8 runs for Math) in
 * f64x2 lanes, symbols, y = H s + w, each equal to the TypeScript's (randomSymbols,
 * rayleighChannels, transmit, addNoise) bit for bit, so a unit's data and the simulation's counts do not depend on
 * the kernel. A unit is generated in pieces of about PIECE_BYTES of kernel memory each (the kernel's
 * data stays in the second-level cache), copied out into the arrays generateLinkChunk returns.
 *
 * Before its first use in a thread the kernel's math is checked against this runtime's Math on a
 * sample (edges of every branch of fdlibm's log, sin and cos, and Philox normals of a stream):
 * where one value differs (a V8 built on another libm) the kernel is not used, and
 * linkKernelUnavailable() says why.
 */
import {
  type CpuKernelRequest,
  EngineUnavailableError,
  Philox,
  philoxWords,
  pickCpuKernel,
  sharedWasmKernel,
  type WasmKernelInstance,
} from '../core/index.js';
import { constellation, type Modulation } from '../mimo/index.js';

const KERNEL_URL = new URL('./wasm/link-lanes.wasm', import.meta.url);

/** The kernel's exports (pointers are byte offsets into its memory). */
interface LinkKernelExports {
  normals(
    k0: number,
    k1: number,
    s0: number,
    s1: number,
    block: number,
    pairs: number,
    scale: number,
    out: number,
    scratch: number,
  ): void;
  symbols(
    k0: number,
    k1: number,
    s0: number,
    s1: number,
    word: number,
    count: number,
    shift: number,
    points: number,
    idx: number,
    sym: number,
    scratch: number,
  ): void;
  transmitNoise(
    H: number,
    s: number,
    nt: number,
    nr: number,
    vpc: number,
    vectors: number,
    noise: number,
    y: number,
  ): void;
  math(op: number, x: number, n: number, out: number, scratch: number): void;
}

/** Memory: scratch (Philox words, uniforms, the math's constants), the constellation's points (256 at most), then a piece's data. */
const SCRATCH = 0;
const POINTS = 2048;
const DATA = POINTS + 256 * 16;
/** A piece's data: about this many bytes. */
const PIECE_BYTES = 256 * 1024;
/** Philox blocks (or words) a unit may use: the kernel's counters stay below 2^32. */
const MAX_COUNTER = 2 ** 31;

/** A stream's key and counter words (philoxWords). */
type StreamWords = readonly [number, number, number, number];

let checked: string | null | undefined;

/** The kernel instance with at least `bytes` bytes of memory. */
function instance(bytes: number): WasmKernelInstance<LinkKernelExports> {
  return sharedWasmKernel<LinkKernelExports>(KERNEL_URL, DATA + bytes);
}

/** Sample inputs of the startup check (each function takes all of them): Philox's uniforms and angles, and every branch's edges. */
function sampleInputs(): Float64Array {
  const xs: number[] = [];
  const rng = new Philox(0x5eed, 1);
  for (let i = 0; i < 512; i++) xs.push(rng.uniform(), 2 * Math.PI * rng.uniform());
  // log: the smallest uniform, 1 - 2^-53, the |f| < 2^-20 branch, both polynomial branches, powers of two
  for (const e of [2 ** -54, 1 - 2 ** -53, 1 - 2 ** -22, 0.5, Math.SQRT1_2, 0.6, 0.75, 0.9999, 2 ** -30, 0.7072])
    for (let d = -3; d <= 3; d++) xs.push(e * (1 + d * 2 ** -52));
  // sin, cos: tiny, |x| < 0.3 and the qx branches of the kernels, pi / 4, 3 pi / 4 and n pi / 2 (2nd and 3rd reductions)
  for (const e of [1e-9, 0.29, 0.31, 0.7, 0.79, Math.PI / 4, (3 * Math.PI) / 4])
    for (let d = -3; d <= 3; d++) xs.push(e * (1 + d * 2 ** -52));
  for (let n = 1; n <= 4; n++) for (let d = -3; d <= 3; d++) xs.push(((n * Math.PI) / 2) * (1 + d * 2 ** -52));
  return new Float64Array(xs.filter((x) => x > 0 && x <= 2 * Math.PI));
}

/** The math functions the kernel has, as its `math` export numbers them. */
const MATH = { log: 0, sin: 1, cos: 2 } as const;

/**
 * The kernel's log, sin or cos of each of xs (sin and cos: |x| <= 2^19 pi / 2), in f64x2 lanes as
 * the generator runs them (or by the scalar functions, which the lanes hand their rare cases), for
 * the startup check and for tests that compare it with Math.
 */
export function linkKernelMath(fn: keyof typeof MATH, xs: Float64Array, lanes = true): Float64Array {
  const out = new Float64Array(xs.length);
  const piece = Math.floor(PIECE_BYTES / 16);
  const { exports: k, buffer } = instance(16 * piece);
  const mem = new Float64Array(buffer, DATA, 2 * piece);
  for (let at = 0; at < xs.length; at += piece) {
    const n = Math.min(piece, xs.length - at);
    mem.set(xs.subarray(at, at + n));
    k.math(MATH[fn] + (lanes ? 0 : 3), DATA, n, DATA + 8 * n, SCRATCH);
    out.set(mem.subarray(n, 2 * n), at);
  }
  return out;
}

/** Why the kernel's math differs from this runtime's Math on the sample, or null where it agrees throughout. */
function selfCheck(): string | null {
  const xs = sampleInputs();
  for (const fn of ['log', 'sin', 'cos'] as const) {
    for (const lanes of [true, false]) {
      const got = linkKernelMath(fn, xs, lanes);
      for (let i = 0; i < xs.length; i++) {
        const want = Math[fn](xs[i]!);
        if (!Object.is(got[i], want)) return `its ${fn}(${xs[i]}) is ${got[i]}, this runtime's Math gives ${want}`;
      }
    }
  }
  const pairs = 64;
  const ref = new Philox(7, 11).fillNormal(new Float64Array(2 * pairs), 0.5);
  const got = new Float64Array(2 * pairs);
  normalsInto(philoxWords(7, 11), pairs, 0.5, got);
  for (let i = 0; i < 2 * pairs; i++)
    if (!Object.is(got[i], ref[i])) return `its normal ${i} is ${got[i]}, Philox's ${ref[i]}`;
  return null;
}

/** Why the link kernel does not run in this thread (its startup check), or null where it does. Checked once. */
export function linkKernelUnavailable(): string | null {
  if (checked === undefined) {
    try {
      checked = selfCheck();
    } catch (err) {
      checked = `it failed to load: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (checked !== null) checked = `the link kernel's startup check failed (${checked})`;
  }
  return checked;
}

/**
 * Whether a request runs the link kernel: pickCpuKernel's policy ('auto' where the runtime has
 * WebAssembly SIMD and LATTICE_MIMO_WASM does not turn it off), and the startup check; 'wasm'
 * where the check fails is an EngineUnavailableError naming it.
 */
export function useLinkKernel(request: CpuKernelRequest): boolean {
  if (pickCpuKernel(request, 'generateLinkChunk') !== 'wasm-simd') return false;
  const why = linkKernelUnavailable();
  if (why === null) return true;
  if (request === 'wasm')
    throw new EngineUnavailableError(`generateLinkChunk: cpuKernel 'wasm' asked for, and ${why}`, { cause: why });
  return false;
}

/** `count` symbols of the stream from word 0, as randomSymbols (null: beyond the kernel's counters). */
export function symbolsOnKernel(
  seed: number,
  stream: number,
  count: number,
  modulation: Modulation,
): { indices: Int32Array; symbols: Float64Array } | null {
  const c = constellation(modulation);
  const bits = Math.log2(c.size);
  if (count > MAX_COUNTER || !Number.isInteger(bits) || bits < 1 || bits > 8) return null;
  const [k0, k1, s0, s1] = philoxWords(seed, stream);
  const piece = Math.max(4, Math.floor(PIECE_BYTES / 20 / 4) * 4);
  const { exports: k, buffer } = instance(20 * piece);
  new Float64Array(buffer, POINTS, 2 * c.size).set(c.points);
  const indices = new Int32Array(count);
  const symbols = new Float64Array(2 * count);
  const idx = new Int32Array(buffer, DATA, piece);
  const sym = new Float64Array(buffer, DATA + 4 * piece, 2 * piece);
  for (let at = 0; at < count; at += piece) {
    const n = Math.min(piece, count - at);
    k.symbols(k0, k1, s0, s1, at, n, 32 - bits, POINTS, DATA, DATA + 4 * piece, SCRATCH);
    indices.set(idx.subarray(0, n), at);
    symbols.set(sym.subarray(0, 2 * n), 2 * at);
  }
  return { indices, symbols };
}

/** `pairs` normal pairs of the stream from block 0, each times scale, into out. */
function normalsInto(words: StreamWords, pairs: number, scale: number, out: Float64Array): void {
  const piece = Math.floor(PIECE_BYTES / 16);
  const { exports: k, buffer } = instance(16 * piece);
  const view = new Float64Array(buffer, DATA, 2 * piece);
  for (let at = 0; at < pairs; at += piece) {
    const n = Math.min(piece, pairs - at);
    k.normals(words[0], words[1], words[2], words[3], at, n, scale, DATA, SCRATCH);
    out.set(view.subarray(0, 2 * n), 2 * at);
  }
}

/**
 * `channels` iid Rayleigh channels nr x nt of the stream from word 0, as rayleighChannels draws
 * them (every entry normal() sqrt(1/2), real then imaginary, column-major: a normal pair an entry)
 * (null: beyond the kernel's counters).
 */
export function rayleighOnKernel(
  seed: number,
  stream: number,
  channels: number,
  nt: number,
  nr: number,
): Float64Array | null {
  const pairs = channels * nr * nt;
  if (pairs > MAX_COUNTER) return null;
  const H = new Float64Array(2 * pairs);
  normalsInto(philoxWords(seed, stream), pairs, Math.SQRT1_2, H);
  return H;
}

/**
 * y = H s + w as transmit and addNoise: s vectors x nt complex, H (vectors / vpc) x nr x nt, w
 * CN(0, noiseVar) from the noise stream (from word 0, a normal pair a complex sample, times
 * sqrt(noiseVar / 2)) (null: beyond the kernel's counters; the caller checks noiseVar as addNoise).
 */
export function receivedOnKernel(
  H: Float64Array,
  symbols: Float64Array,
  nt: number,
  nr: number,
  vpc: number,
  seed: number,
  stream: number,
  noiseVar: number,
): Float64Array | null {
  const vectors = symbols.length / (2 * nt);
  if (vectors * nr > MAX_COUNTER) return null;
  const [k0, k1, s0, s1] = philoxWords(seed, stream);
  const sd = Math.sqrt(noiseVar / 2);
  const hReals = 2 * nr * nt;
  const groupBytes = 8 * (hReals + vpc * 2 * (nt + nr));
  const groups = Math.max(1, Math.floor(PIECE_BYTES / groupBytes));
  const { exports: k, buffer } = instance(groups * groupBytes);
  const hAt = DATA;
  const sAt = hAt + 8 * groups * hReals;
  const yAt = sAt + 8 * groups * vpc * 2 * nt;
  const mem = new Float64Array(buffer);
  const y = new Float64Array(2 * vectors * nr);
  for (let g0 = 0; g0 * vpc < vectors; g0 += groups) {
    const g = Math.min(groups, vectors / vpc - g0);
    const v0 = g0 * vpc;
    const n = g * vpc;
    mem.set(H.subarray(g0 * hReals, (g0 + g) * hReals), hAt / 8);
    mem.set(symbols.subarray(2 * nt * v0, 2 * nt * (v0 + n)), sAt / 8);
    k.normals(k0, k1, s0, s1, v0 * nr, n * nr, sd, yAt, SCRATCH);
    k.transmitNoise(hAt, sAt, nt, nr, vpc, n, yAt, yAt);
    y.set(mem.subarray(yAt / 8, yAt / 8 + 2 * n * nr), 2 * nr * v0);
  }
  return y;
}

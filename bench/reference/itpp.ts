/**
 * IT++ as an external reference (Debian's libitpp-dev): soft MIMO demodulation by full enumeration
 * (Modulator_NCD, FULL_ENUM_MAXLOG / FULL_ENUM_LOGMAP) and IT++'s Schnorr-Euchner sphere decoder
 * (ND_UPAM::sphere_decoding), run by the C++ harness bench/itpp/itpp-harness.cpp. The harness is
 * compiled on demand with g++ and cached under os.tmpdir(), keyed by a hash of its source.
 *
 * The harness gives IT++ our constellation and bit labels (and checks them), so its LLRs come back
 * in our bit order and sign convention. IT++ computes in fixed point (QLLR = round(2^dint1 x),
 * saturating at 2^(27 - dint1)), and not only the LLRs: every point's metric |y - H s|^2 / N0 goes
 * through QLLR too, so the LLRs are exact to one step 2^-dint1 only while every metric stays below
 * the saturation value (measured: with dint1 = 16, 4x4 QPSK at 25 dB already breaks; dint1 = 12
 * holds to metrics of 32768).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExternalToolError, InvalidArgumentError, InvalidInputError, UnsupportedError } from '../../src/core/errors.js';
import { CppRunner, ITPP_MISSING } from './cpp-runner.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { DetectionInput, Modulation } from '../../src/mimo/types.js';

const HARNESS_RELATIVE = join('bench', 'itpp', 'itpp-harness.cpp');
/** Environment variable naming the harness source explicitly (when not run from the repository). */
export const ITPP_HARNESS_ENV = 'LATTICE_MIMO_ITPP_HARNESS';
/** Environment variable naming a prebuilt harness binary (for machines without g++ or IT++ headers). */
export const ITPP_BINARY_ENV = 'LATTICE_MIMO_ITPP_BIN';

export interface ItppRunOptions {
  /** Kill the harness after this long (default 120 s). */
  timeoutMs?: number;
}

export interface ItppSoftOptions extends ItppRunOptions {
  /** QLLR resolution bits: LLRs are multiples of 2^-dint1, metrics saturate at 2^(27 - dint1). Default 12 (IT++'s own). */
  dint1?: number;
}

export interface ItppSoftResult {
  /** vectors x nt x bitsPerSymbol LLRs, ln P(b=0|y)/P(b=1|y), our bit order. */
  readonly llr: Float64Array;
  /** Time inside IT++'s demodulate_soft_bits calls, seconds. */
  readonly seconds: number;
  /** The QLLR step 2^-dint1, and the saturation value 2^(27 - dint1) that no |y - H s|^2 / N0 may reach. */
  readonly resolution: number;
  readonly saturation: number;
}

export interface ItppSphereOptions extends ItppRunOptions {
  /** Initial radius = rminFactor * sqrt(nr * N0) (the expected noise norm); default 1. */
  rminFactor?: number;
  /** Factor by which IT++ enlarges the radius after a failed search; default 2. */
  stepup?: number;
  /** Largest radius tried; default 1000. */
  rmax?: number;
}

export interface ItppSphereResult {
  /** vectors x nt symbol indices (-1 where IT++'s search failed up to rmax). */
  readonly symbols: Int32Array;
  readonly failures: number;
  /** Time inside IT++'s sphere_decoding calls (which include its own per-call factorisation), seconds. */
  readonly seconds: number;
}

const HARNESS = new CppRunner({
  what: 'the IT++ harness',
  source: HARNESS_RELATIVE,
  cacheDir: 'lattice-mimo-itpp',
  binaryName: 'itpp-harness',
  libs: ['-litpp'],
  missing: ITPP_MISSING,
  sourceEnv: ITPP_HARNESS_ENV,
  binaryEnv: ITPP_BINARY_ENV,
});

/**
 * Path of the compiled harness ($LATTICE_MIMO_ITPP_BIN if set), compiling it first if needed
 * (g++ -O2 ... -litpp). Throws ExternalToolError when g++ or IT++ is missing or the compilation fails.
 */
export function itppHarnessBinary(timeoutMs = 180_000): string {
  return HARNESS.binaryPath(timeoutMs);
}

/** Whether the IT++ harness can be built here; the reason when not. */
export function itppAvailability(): { ok: true } | { ok: false; reason: string } {
  return HARNESS.availability();
}

function checkInput(
  input: DetectionInput,
  mod: Modulation,
): { vectors: number; vpc: number; channels: number; bps: number } {
  const { nt, nr } = input;
  if (!Number.isInteger(nt) || !Number.isInteger(nr) || nt < 1 || nr < 1)
    throw new InvalidArgumentError(`nt and nr must be positive integers, got ${nt}, ${nr}`);
  const bps = constellation(mod).bitsPerSymbol;
  if (bps < 2) throw new UnsupportedError(`the IT++ harness handles square QAM only, not ${mod}`);
  if (input.y.length % (2 * nr) !== 0)
    throw new InvalidInputError('SHAPE_MISMATCH', `y has ${input.y.length} reals, not a multiple of 2 nr = ${2 * nr}`);
  const vectors = input.y.length / (2 * nr);
  const vpc = input.vectorsPerChannel ?? vectors;
  if (!Number.isInteger(vpc) || vpc < 1 || vectors % vpc !== 0)
    throw new InvalidArgumentError(`vectorsPerChannel ${vpc} does not divide ${vectors} vectors`);
  const channels = vectors / vpc;
  if (input.H.length !== 2 * channels * nr * nt)
    throw new InvalidInputError('SHAPE_MISMATCH', `H has ${input.H.length} reals, expected ${2 * channels * nr * nt}`);
  for (const [name, a] of [
    ['H', input.H],
    ['y', input.y],
  ] as const) {
    for (let i = 0; i < a.length; i++)
      if (!Number.isFinite(a[i])) throw new InvalidInputError('NON_FINITE', `${name}[${i}] is ${a[i]}`);
  }
  return { vectors, vpc, channels, bps };
}

function encodeInput(input: DetectionInput, mod: Modulation, dint1: number): Buffer {
  const { vectors, vpc, channels, bps } = checkInput(input, mod);
  const points = constellation(mod).points;
  const noise = new Float64Array(vectors);
  for (let v = 0; v < vectors; v++) {
    const n0 = typeof input.noiseVar === 'number' ? input.noiseVar : input.noiseVar[v]!;
    if (!(n0 > 0) || !Number.isFinite(n0))
      throw new InvalidArgumentError(`noise variance of vector ${v} must be finite and > 0, got ${n0}`);
    noise[v] = n0;
  }
  const header = Buffer.alloc(8 + 6 * 4);
  header.write('LMITPP01', 0, 'latin1');
  [input.nt, input.nr, channels, vpc, bps, dint1].forEach((v, i) => {
    header.writeInt32LE(v, 8 + 4 * i);
  });
  const f64 = (x: Float64Array | Float32Array) => {
    const a = x instanceof Float64Array ? x : Float64Array.from(x);
    return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  };
  return Buffer.concat([header, f64(points), f64(input.H), f64(input.y), f64(noise)]);
}

interface HarnessReport {
  mode: string;
  vectors: number;
  seconds: number;
  failures: number;
  dint1: number;
}

function runHarness(
  mode: string,
  payload: Buffer,
  extraArgs: string[],
  timeoutMs: number,
): { report: HarnessReport; output: Buffer } {
  const bin = itppHarnessBinary();
  const dir = mkdtempSync(join(tmpdir(), 'lattice-mimo-itpp-run-'));
  try {
    const inPath = join(dir, 'in.bin'),
      outPath = join(dir, 'out.bin');
    writeFileSync(inPath, payload);
    const r = spawnSync(bin, [mode, inPath, outPath, ...extraArgs], { encoding: 'utf8', timeout: timeoutMs });
    if (r.error) throw new ExternalToolError(`IT++ harness did not run: ${r.error.message}`);
    if (r.signal) throw new ExternalToolError(`IT++ harness stopped by ${r.signal} (timeout ${timeoutMs} ms?)`);
    if (r.status !== 0)
      throw new ExternalToolError(`IT++ harness failed (exit ${r.status}): ${r.stderr.trim().slice(0, 2000)}`);
    const line = r.stdout.trim().split('\n').pop() ?? '';
    let report: HarnessReport;
    try {
      report = JSON.parse(line) as HarnessReport;
    } catch {
      throw new ExternalToolError(`IT++ harness printed no report: ${r.stdout.slice(0, 500)}`);
    }
    return { report, output: readFileSync(outPath) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** IT++'s soft demodulation by full enumeration (max-log or exact log-MAP) of every vector. */
export function itppSoftDemod(
  input: DetectionInput,
  mod: Modulation,
  method: 'maxlog' | 'logmap',
  opts: ItppSoftOptions = {},
): ItppSoftResult {
  const dint1 = opts.dint1 ?? 12;
  if (!Number.isInteger(dint1) || dint1 < 1 || dint1 > 24)
    throw new InvalidArgumentError(`dint1 must be an integer in [1, 24], got ${dint1}`);
  const { report, output } = runHarness(method, encodeInput(input, mod, dint1), [], opts.timeoutMs ?? 120_000);
  const llr = new Float64Array(output.buffer.slice(output.byteOffset, output.byteOffset + output.byteLength));
  const expected = (input.y.length / (2 * input.nr)) * input.nt * constellation(mod).bitsPerSymbol;
  if (llr.length !== expected)
    throw new ExternalToolError(`IT++ harness returned ${llr.length} LLRs, expected ${expected}`);
  return { llr, seconds: report.seconds, resolution: 2 ** -dint1, saturation: 2 ** (27 - dint1) };
}

/** IT++'s sphere decoder (hard decisions) on the real-valued system of every vector. */
export function itppSphere(input: DetectionInput, mod: Modulation, opts: ItppSphereOptions = {}): ItppSphereResult {
  const rminFactor = opts.rminFactor ?? 1,
    stepup = opts.stepup ?? 2,
    rmax = opts.rmax ?? 1000;
  if (!(rminFactor > 0) || !(stepup > 1) || !(rmax > 0))
    throw new InvalidArgumentError('need rminFactor > 0, stepup > 1, rmax > 0');
  const payload = encodeInput(input, mod, 12);
  const { report, output } = runHarness(
    'sphere',
    payload,
    [String(rminFactor), String(stepup), String(rmax)],
    opts.timeoutMs ?? 120_000,
  );
  const c = constellation(mod);
  const q = c.pam!.size,
    nt = input.nt;
  const levels = new Int32Array(output.buffer.slice(output.byteOffset, output.byteOffset + output.byteLength));
  const vectors = input.y.length / (2 * input.nr);
  if (levels.length !== vectors * 2 * nt)
    throw new ExternalToolError(`IT++ harness returned ${levels.length} levels, expected ${vectors * 2 * nt}`);
  const symbols = new Int32Array(vectors * nt);
  for (let v = 0; v < vectors; v++) {
    for (let j = 0; j < nt; j++) {
      const re = levels[v * 2 * nt + j]!,
        im = levels[v * 2 * nt + nt + j]!;
      symbols[v * nt + j] = re < 0 || im < 0 ? -1 : c.symbolOfLevels![re * q + im]!;
    }
  }
  return { symbols, failures: report.failures, seconds: report.seconds };
}

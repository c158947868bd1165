/**
 * The fixed-point min-sum decoders ('int16', 'int8') on fresh random inputs (Philox seed printed on
 * failure):
 *  - the WebAssembly SIMD kernel equals the TypeScript reference of the same arithmetic bit for bit
 *    (decisions, iterations, verdicts, extrinsic LLRs): WiMAX and NR codes (paired rows and not),
 *    a plain sparse code and one with every row degree from 1 to 16, nms (alpha 3/4, 1 and any)
 *    and oms, early stop on and off, LLRs past the clip and exact zeros;
 *    and whole groups of lanes without early stop (the transposed loads and decisions), code
 *    lengths a multiple of the transpose blocks and not; two vectors a column (32 int8 / 16 int16
 *    frames): whole groups, partial ones (the second vector empty or part full), early stop on
 *    and off;
 *  - 'int16' gives the 'float' decoder's decisions, iterations and extrinsic LLRs;
 *  - at high SNR every frame decodes to what was sent with a zero syndrome, on every family;
 *  - 'int8''s FER equals 'float''s within statistical error at a moderate SNR, same iterations;
 *  - the fallback: cpuKernel 'typescript', LATTICE_MIMO_WASM=off, and 'wasm' refused when off;
 *  - a rate-matched (NR) code's recovery in the kernel equals the host's: fillers, repeated bits,
 *    and a non-finite channel LLR refused with the host's error;
 *  - the kernel's quantization equals the reference's on rounding ties, at and past the clip and on
 *    huge magnitudes (the clip in the lanes and on the doubles);
 *  - bad options and non-finite LLRs (NaN, +-Infinity, anywhere in a frame) get typed errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { EngineUnavailableError, InvalidArgumentError, InvalidInputError } from '../../src/core/errors.js';
import { WASM_ENV, wasmUnavailableReason } from '../../src/core/wasm-kernels.js';
import { ldpcCode, sparseCode, type LdpcCode } from '../../src/coding/code.js';
import { syndromeWeight } from '../../src/coding/parity.js';
import type { DecodeBatchResult, DecoderOptions } from '../../src/coding/types.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
// Where the WebAssembly kernels cannot run (no SIMD, or LATTICE_MIMO_WASM=off), only the reference runs.
const simd = wasmUnavailableReason() === null;

/** BPSK over AWGN at Eb/N0 (dB): channel LLRs and the information bits. */
function awgn(code: LdpcCode, frames: number, ebn0Db: number, rng: Philox): { llr: Float64Array; info: Uint8Array } {
  const sigma2 = 1 / (2 * code.rate * 10 ** (ebn0Db / 10));
  const info = new Uint8Array(frames * code.k).map(() => rng.nextUint32() & 1);
  const cw = code.encodeBatch(info, frames);
  const llr = new Float64Array(frames * code.n);
  for (let i = 0; i < llr.length; i++) llr[i] = (2 * (1 - 2 * cw[i]! + Math.sqrt(sigma2) * rng.normal())) / sigma2;
  return { llr, info };
}

function frameErrors(bits: Uint8Array, info: Uint8Array, k: number): number {
  let bad = 0;
  for (let f = 0; f < info.length / k; f++) {
    for (let i = 0; i < k; i++)
      if (bits[f * k + i] !== info[f * k + i]) {
        bad++;
        break;
      }
  }
  return bad;
}

function decodeWith(
  code: LdpcCode,
  llr: Float64Array,
  frames: number,
  o: DecoderOptions,
): { r: DecodeBatchResult; ext: Float64Array } {
  const ext = new Float64Array(frames * code.n);
  const r = code.decoder(o).decodeBatch(llr, frames, undefined, ext);
  return { r, ext };
}

function assertSame(
  a: { r: DecodeBatchResult; ext: Float64Array },
  b: { r: DecodeBatchResult; ext: Float64Array },
  what: string,
): void {
  assert.deepEqual(a.r.bits, b.r.bits, msg(`${what}: decisions`));
  assert.deepEqual(a.r.iterations, b.r.iterations, msg(`${what}: iterations`));
  assert.deepEqual(a.r.ok, b.r.ok, msg(`${what}: verdicts`));
  assert.deepEqual(a.ext, b.ext, msg(`${what}: extrinsic LLRs`));
}

/** A small (3, 6)-regular-ish random parity check whose rows do not pair up (odd m). */
function randomSparseCode(rng: Philox): LdpcCode {
  const n = 60,
    m = 27;
  const rowStart = new Int32Array(m + 1);
  const col: number[] = [];
  for (let r = 0; r < m; r++) {
    const cols = new Set<number>();
    const d = 5 + (rng.nextUint32() % 3);
    while (cols.size < d) cols.add(rng.nextUint32() % n);
    col.push(...[...cols].sort((x, y) => x - y));
    rowStart[r + 1] = col.length;
  }
  return sparseCode({ m, n, rowStart, col: Int32Array.from(col) }, 'random');
}

/** A random parity check whose rows take every degree from 1 to 16, in a random order. */
function everyDegreeCode(rng: Philox): LdpcCode {
  const n = 48;
  const degrees = Array.from({ length: 16 }, (_, i) => i + 1).sort(() => rng.uniform() - 0.5);
  const rowStart = new Int32Array(degrees.length + 1);
  const col: number[] = [];
  degrees.forEach((d, r) => {
    const cols = new Set<number>();
    while (cols.size < d) cols.add(rng.nextUint32() % n);
    col.push(...[...cols].sort((x, y) => x - y));
    rowStart[r + 1] = col.length;
  });
  return sparseCode({ m: degrees.length, n, rowStart, col: Int32Array.from(col) }, 'every-degree');
}

const CODES = ['wimax:576:1/2', 'wimax:1056:1/2', 'nr:bg1:500:1/2', 'nr:bg2:100:1/3'];

test('the WebAssembly kernel equals the TypeScript reference of its arithmetic bit for bit', { skip: !simd }, () => {
  const rng = new Philox(seed, 1);
  const codes = [...CODES.map((s) => ldpcCode(s)), randomSparseCode(rng), everyDegreeCode(rng)];
  for (const code of codes) {
    for (const arithmetic of ['int8', 'int16'] as const) {
      const frames = 1 + (rng.nextUint32() % 21);
      const eb = 0.5 + rng.uniform() * 3;
      const { llr } = awgn(code, frames, eb, rng);
      // Past the clip, exact zeros and values on the rounding grid.
      for (let t = 0; t < 20; t++) {
        const i = rng.nextUint32() % llr.length;
        llr[i] = [0, 40, -40, 1e6, -0.125, 0.375][t % 6]!;
      }
      // The kernel's normalizations: alpha 3/4 (the default), alpha 1 and any offset, any other alpha.
      const pick = rng.nextUint32() % 4;
      const o: DecoderOptions =
        pick < 3
          ? { algorithm: 'nms', alpha: [0.75, 1, 0.5 + rng.uniform() * 0.5][pick]! }
          : { algorithm: 'oms', beta: rng.uniform() };
      const common = {
        ...o,
        arithmetic,
        maxIterations: 1 + (rng.nextUint32() % 12),
        earlyStop: !!(rng.nextUint32() & 1),
      };
      const wasm = decodeWith(code, llr, frames, { ...common, cpuKernel: 'wasm' });
      const ts = decodeWith(code, llr, frames, { ...common, cpuKernel: 'typescript' });
      assert.equal(wasm.r.kernel, 'wasm-simd');
      assert.equal(ts.r.kernel, 'typescript');
      assertSame(wasm, ts, `${code.name} ${JSON.stringify(common)}`);
    }
  }
});

test('whole groups of lanes (transposed loads and decisions) equal the reference', {
  skip: !simd,
}, () => {
  const rng = new Philox(seed, 6);
  // n a multiple of 32 (whole transpose blocks) and not (the column-at-a-time rest); paired rows and not.
  const codes = [ldpcCode('wimax:576:1/2'), ldpcCode('nr:bg2:100:1/3'), randomSparseCode(rng)];
  for (const code of codes) {
    for (const arithmetic of ['int8', 'int16'] as const) {
      const frames = 16 + (rng.nextUint32() % 20);
      const { llr } = awgn(code, frames, 0.5 + rng.uniform() * 2.5, rng);
      const common = { arithmetic, maxIterations: 1 + (rng.nextUint32() % 10), earlyStop: false };
      const wasm = decodeWith(code, llr, frames, { ...common, cpuKernel: 'wasm' });
      assertSame(
        wasm,
        decodeWith(code, llr, frames, { ...common, cpuKernel: 'typescript' }),
        `${code.name} ${arithmetic}`,
      );
    }
  }
});

test('two vectors a column: whole and partial groups of 32 (int8) / 16 (int16) frames equal the reference', {
  skip: !simd,
}, () => {
  const rng = new Philox(seed, 8);
  const codes = [ldpcCode('wimax:576:1/2'), ldpcCode('nr:bg2:100:1/3'), randomSparseCode(rng)];
  for (const code of codes) {
    for (const arithmetic of ['int8', 'int16'] as const) {
      // v frames a vector, 2 v a group: whole groups, the second vector empty, the second partial,
      // and a whole group plus a rest (early stop then refills lanes of both vectors).
      const v = arithmetic === 'int8' ? 16 : 8;
      const r = 1 + (rng.nextUint32() % (v - 1));
      for (const frames of [2 * v * (1 + (rng.nextUint32() % 2)), v - r, v + r, 2 * v + r]) {
        const { llr } = awgn(code, frames, 0.5 + rng.uniform() * 3, rng);
        for (const earlyStop of [false, true]) {
          const common = { arithmetic, maxIterations: 1 + (rng.nextUint32() % 10), earlyStop };
          assertSame(
            decodeWith(code, llr, frames, { ...common, cpuKernel: 'wasm' }),
            decodeWith(code, llr, frames, { ...common, cpuKernel: 'typescript' }),
            `${code.name} ${frames} frames ${JSON.stringify(common)}`,
          );
        }
      }
    }
  }
});

test('a non-finite LLR anywhere in a frame is refused by both kernels', () => {
  const rng = new Philox(seed, 7);
  for (const code of [ldpcCode('wimax:576:1/2'), randomSparseCode(rng)]) {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const frames = 1 + (rng.nextUint32() % 18);
      const llr = new Float64Array(code.n * frames).map(() => rng.normal());
      llr[rng.nextUint32() % llr.length] = bad;
      for (const cpuKernel of simd ? (['wasm', 'typescript'] as const) : (['typescript'] as const))
        assert.throws(
          () => code.decoder({ arithmetic: 'int8', cpuKernel }).decodeBatch(llr, frames),
          (e: unknown) => e instanceof InvalidInputError && e.code === 'NON_FINITE',
          msg(`${code.name} ${bad} ${cpuKernel}`),
        );
    }
  }
});

test("a rate-matched code's recovery in the kernel equals the host's: fillers, repeated bits, non-finite LLRs", {
  skip: !simd,
}, () => {
  const rng = new Philox(seed, 10);
  // Fillers (K < Kldpc) and, past the circular buffer's N, channel bits sent twice (summed); the
  // map as runs of consecutive columns (Qm = 1; an odd E: a run of odd length) and bit-interleaved
  // (Qm 2, 4: runs of one column).
  const codes = [
    ldpcCode('nr:bg1:500:1/2'),
    ldpcCode('nr:bg2:100:1/3', { E: 901 + 2 * (rng.nextUint32() % 300) }),
    ldpcCode('nr:bg2:100:1/3', { Qm: 4 }),
    ldpcCode('nr:bg2:100:1/3', { Qm: 2, E: 900 + 2 * (rng.nextUint32() % 300) }),
  ];
  for (const code of codes) {
    for (const arithmetic of ['int8', 'int16'] as const) {
      const frames = 1 + (rng.nextUint32() % 40);
      const { llr } = awgn(code, frames, 0.5 + rng.uniform() * 3, rng);
      for (const earlyStop of [false, true]) {
        const common = { arithmetic, maxIterations: 1 + (rng.nextUint32() % 8), earlyStop };
        assertSame(
          decodeWith(code, llr, frames, { ...common, cpuKernel: 'wasm' }),
          decodeWith(code, llr, frames, { ...common, cpuKernel: 'typescript' }),
          `${code.name} E = ${code.n} ${frames} frames ${JSON.stringify(common)}`,
        );
      }
      // A non-finite channel LLR is refused with the host's error (the channel bit's index).
      const bad = llr.slice();
      const at = rng.nextUint32() % bad.length;
      bad[at] = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY][at % 3]!;
      const errorOf = (cpuKernel: 'wasm' | 'typescript'): unknown => {
        try {
          code.decoder({ arithmetic, cpuKernel }).decodeBatch(bad, frames);
        } catch (e) {
          return e;
        }
        return undefined;
      };
      const w = errorOf('wasm');
      assert.ok(w instanceof InvalidInputError && w.code === 'NON_FINITE', msg(`${code.name}: ${String(w)}`));
      assert.equal(w.message, (errorOf('typescript') as Error).message, msg(code.name));
    }
  }
});

test('the kernel quantizes every LLR as the reference does: rounding ties, the clip, huge magnitudes', {
  skip: !simd,
}, () => {
  const rng = new Philox(seed, 9);
  // One check on columns 0 and 1: every other column's posterior is its quantized LLR, so its
  // extrinsic LLR (posterior less the host's quantization) is 0 exactly where the two agree. n
  // leaves a rest past whole vectors of 16 (int8) and 8 (int16).
  const n = 16 * 4 + 5 + (rng.nextUint32() % 11);
  const code = sparseCode({ m: 1, n, rowStart: Int32Array.from([0, 2]), col: Int32Array.from([0, 1]) }, 'one-check');
  const frames = 40;
  const llr = new Float64Array(frames * n);
  for (let f = 0; f < frames; f++) {
    const kind = f % 4;
    for (let i = 0; i < n; i++) {
      const j = (rng.nextUint32() % 400) - 200;
      // Ties of floor(v scale + 0.5) for scale 4 and 16 (v = (2 j - 1) / 32), a ulp either side, the
      // double just below 1/2 of a unit, the clips and past them, signed zeros, subnormals.
      const tie = (2 * j - 1) / 32;
      const near = [tie, tie + Number.EPSILON * Math.abs(tie), tie - Number.EPSILON * Math.abs(tie)];
      const special = [0.49999999999999994 / 4, 0.49999999999999994 / 16, -0, 5e-324, -5e-324, 31.75, -31.75, 64, -64];
      let v = kind === 3 ? rng.normal() * 8 : rng.nextUint32() & 1 ? near[i % 3]! : special[i % special.length]!;
      // Huge magnitudes: some frames past the lanes' sum bound (2^24), others just within it.
      if (kind === 1 && i % 7 === 0) v = [1e12, -1e300, Number.MAX_VALUE, -3e9][i % 4]!;
      if (kind === 2 && i < 15) v = (i & 1 ? 1 : -1) * 1.1e6;
      llr[f * n + i] = v;
    }
  }
  for (const arithmetic of ['int8', 'int16'] as const) {
    for (const saturation of [64, 10, 31.75, 1000]) {
      const common = { arithmetic, saturation, maxIterations: 1, earlyStop: false };
      const wasm = decodeWith(code, llr, frames, { ...common, cpuKernel: 'wasm' });
      for (let f = 0; f < frames; f++)
        for (let i = 2; i < n; i++)
          assert.equal(
            wasm.ext[f * n + i],
            0,
            msg(`${arithmetic} saturation ${saturation}: frame ${f} LLR ${i} = ${llr[f * n + i]}`),
          );
      assertSame(
        wasm,
        decodeWith(code, llr, frames, { ...common, cpuKernel: 'typescript' }),
        `one check, ${arithmetic}, saturation ${saturation}`,
      );
    }
  }
});

test("'int16' gives the 'float' decoder's decisions, iterations and extrinsic LLRs", () => {
  const rng = new Philox(seed, 2);
  for (const spec of CODES) {
    const code = ldpcCode(spec);
    const frames = 12;
    const { llr } = awgn(code, frames, 1 + rng.uniform() * 2, rng);
    for (const earlyStop of [false, true]) {
      const o = { maxIterations: 8, earlyStop };
      assertSame(
        decodeWith(code, llr, frames, { ...o, arithmetic: 'int16' }),
        decodeWith(code, llr, frames, o),
        `${spec} earlyStop ${earlyStop}`,
      );
    }
  }
});

test('at high SNR every frame decodes to what was sent, with a zero syndrome (int8 and int16)', () => {
  const rng = new Philox(seed, 3);
  for (const spec of [...CODES, 'wimax:2304:1/2', 'nr:bg1:8448:1/3']) {
    const code = ldpcCode(spec);
    const frames = spec.includes('8448') ? 3 : 20;
    const { llr, info } = awgn(code, frames, 4, rng);
    for (const arithmetic of ['int8', 'int16'] as const) {
      const dec = code.decoder({ arithmetic, maxIterations: 20 });
      const r = dec.decodeBatch(llr, frames);
      assert.equal(frameErrors(r.bits, info, code.k), 0, msg(`${spec} ${arithmetic}`));
      assert.ok(
        r.ok.every((v) => v === 1),
        msg(`${spec} ${arithmetic}: verdicts`),
      );
      if (code.n === code.H.n) {
        for (let f = 0; f < frames; f++) {
          const cw = code.encode(r.bits.subarray(f * code.k, (f + 1) * code.k));
          assert.equal(syndromeWeight(code.H, cw), 0);
        }
      }
    }
  }
});

test("'int8''s FER equals 'float''s within statistical error at the same iterations", () => {
  const rng = new Philox(seed, 4);
  const code = ldpcCode('wimax:576:1/2');
  const frames = 1600;
  const { llr, info } = awgn(code, frames, 2, rng);
  const o = { maxIterations: 10, earlyStop: false };
  const fFloat = frameErrors(code.decoder(o).decodeBatch(llr, frames).bits, info, code.k) / frames;
  const fInt8 =
    frameErrors(code.decoder({ ...o, arithmetic: 'int8' }).decodeBatch(llr, frames).bits, info, code.k) / frames;
  // The same frames: the difference's spread is at most that of two independent proportions.
  const p = (fFloat + fInt8) / 2;
  const sd = Math.sqrt((2 * p * (1 - p)) / frames);
  assert.ok(p > 0.02, msg(`the SNR gives errors to compare (FER ${p})`));
  assert.ok(Math.abs(fInt8 - fFloat) < 4 * sd, msg(`FER int8 ${fInt8} vs float ${fFloat} (sd ${sd.toFixed(4)})`));
});

test('the fallback: cpuKernel typescript, LATTICE_MIMO_WASM=off, and wasm refused when off', () => {
  const code = ldpcCode('wimax:576:1/2');
  const { llr } = awgn(code, 5, 2, new Philox(seed, 5));
  const ts = code.decoder({ arithmetic: 'int8', cpuKernel: 'typescript' });
  assert.equal(ts.kernel, 'typescript');
  const before = process.env[WASM_ENV];
  process.env[WASM_ENV] = 'off';
  try {
    const auto = code.decoder({ arithmetic: 'int8' });
    assert.equal(auto.kernel, 'typescript');
    assert.equal(auto.decodeBatch(llr, 5).kernel, 'typescript');
    assert.deepEqual(auto.decodeBatch(llr, 5).bits, ts.decodeBatch(llr, 5).bits);
    assert.throws(() => code.decoder({ arithmetic: 'int8', cpuKernel: 'wasm' }), EngineUnavailableError);
  } finally {
    if (before === undefined) delete process.env[WASM_ENV];
    else process.env[WASM_ENV] = before;
  }
  assert.equal(code.decoder({ arithmetic: 'int8' }).kernel, simd ? 'wasm-simd' : 'typescript');
  assert.equal(code.decoder({}).kernel, 'typescript');
});

test('bad options and non-finite LLRs get typed errors', () => {
  const code = ldpcCode('wimax:576:1/2');
  assert.throws(() => code.decoder({ algorithm: 'spa', arithmetic: 'int8' }), InvalidArgumentError);
  assert.throws(() => code.decoder({ cpuKernel: 'wasm' }), InvalidArgumentError);
  assert.throws(() => code.decoder({ arithmetic: 'int4' as never }), InvalidArgumentError);
  const llr = new Float64Array(code.n * 3).fill(1);
  llr[code.n + 7] = Number.NaN;
  for (const cpuKernel of simd ? (['wasm', 'typescript'] as const) : (['typescript'] as const))
    assert.throws(
      () => code.decoder({ arithmetic: 'int8', cpuKernel }).decodeBatch(llr, 3),
      (e: unknown) => e instanceof InvalidInputError && e.code === 'NON_FINITE',
    );
});

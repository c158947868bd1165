/**
 * CPU decoders over fresh random codewords and noise (fast-check, Philox seeds printed on failure):
 *  - a noiseless codeword (any length, any LLR magnitude) decodes to itself in one iteration, ok;
 *  - lightly noisy frames (4 dB Eb/N0) are corrected by every algorithm; min-sum and sum-product agree
 *    bit for bit on easy frames (3 dB);
 *  - the verdict `ok` is exactly "the decided word has a zero syndrome"; iterations stay within the
 *    maximum and equal it without early stop; a batch equals frame-by-frame decoding;
 *  - one check node: sum-product messages equal the boxplus recursion, min-sum messages alpha x the
 *    other inputs' minimum (offset: minimum - beta), with the product of the other signs;
 *  - the same matrix read from an alist file decodes identically;
 *  - saturation: huge LLRs give finite, correct decisions; bad input and options get typed errors;
 *  - the n = 2304 rate-1/2 waterfall: most frames fail at 1 dB, almost none at 2 dB (NMS, 20 iterations).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import { Philox } from '../../src/core/rng.js';
import { InvalidArgumentError, InvalidInputError } from '../../src/core/errors.js';
import { ldpcCode, wimaxCode, type LdpcCode } from '../../src/coding/code.js';
import { LdpcDecoder } from '../../src/coding/decoder.js';
import { formatAlist, parseAlist, syndromeWeight } from '../../src/coding/parity.js';
import { LDPC_DECODER_ALGORITHMS } from '../../src/coding/types.js';
import { WIMAX_LENGTHS } from '../../src/coding/wimax.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

/** frames of BPSK over AWGN at Eb/N0 (dB): channel LLRs 2 y / sigma^2 and the information bits. */
function awgn(
  code: LdpcCode,
  frames: number,
  ebn0Db: number,
  rng: Philox,
): { llr: Float64Array; info: Uint8Array; cw: Uint8Array } {
  const sigma2 = 1 / (2 * code.rate * 10 ** (ebn0Db / 10));
  const info = new Uint8Array(frames * code.k).map(() => rng.nextUint32() & 1);
  const cw = code.encodeBatch(info, frames);
  const llr = new Float64Array(frames * code.n);
  for (let i = 0; i < llr.length; i++) llr[i] = (2 * (1 - 2 * cw[i]! + Math.sqrt(sigma2) * rng.normal())) / sigma2;
  return { llr, info, cw };
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

test('a noiseless codeword decodes to itself in one iteration, with every algorithm', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...WIMAX_LENGTHS),
      fc.constantFrom(...LDPC_DECODER_ALGORITHMS),
      fc.double({ min: 0.05, max: 1e4, noNaN: true }),
      fc.nat(),
      (n, alg, mag, s) => {
        const code = wimaxCode(n);
        const rng = new Philox(seed, s);
        const info = new Uint8Array(code.k).map(() => rng.nextUint32() & 1);
        const cw = code.encode(info);
        const llr = Float64Array.from(cw, (b) => (b ? -mag : mag));
        const r = code.decoder({ algorithm: alg }).decode(llr);
        assert.deepEqual(r.bits, info, msg(`n ${n} ${alg} |LLR| ${mag}`));
        assert.equal(r.iterations, 1);
        assert.equal(r.ok, true);
      },
    ),
    { numRuns: 20 },
  );
});

test('lightly noisy frames (4 dB) are corrected; min-sum and sum-product agree on easy frames (3 dB)', () => {
  fc.assert(
    fc.property(fc.constantFrom(...WIMAX_LENGTHS), fc.nat(), (n, s) => {
      const code = wimaxCode(n);
      const light = awgn(code, 4, 4, new Philox(seed, 2 * s));
      for (const alg of LDPC_DECODER_ALGORITHMS) {
        const r = code.decoder({ algorithm: alg, maxIterations: 30 }).decodeBatch(light.llr, 4);
        assert.equal(frameErrors(r.bits, light.info, code.k), 0, msg(`n ${n} ${alg}: a 4 dB frame was not corrected`));
        assert.ok(r.ok.every((v) => v === 1));
      }
      const easy = awgn(code, 3, 3, new Philox(seed, 2 * s + 1));
      const ref = code.decoder({ algorithm: 'spa', maxIterations: 30 }).decodeBatch(easy.llr, 3);
      for (const alg of ['nms', 'oms', 'flooding-spa'] as const) {
        const r = code.decoder({ algorithm: alg, maxIterations: 30 }).decodeBatch(easy.llr, 3);
        for (let f = 0; f < 3; f++) {
          if (ref.ok[f] && r.ok[f])
            assert.deepEqual(
              r.bits.subarray(f * code.k, (f + 1) * code.k),
              ref.bits.subarray(f * code.k, (f + 1) * code.k),
              msg(`n ${n}: ${alg} and spa disagree on a converged frame`),
            );
        }
        assert.ok(
          frameErrors(r.bits, easy.info, code.k) <= 1,
          msg(`n ${n} ${alg}: more than one of 3 frames lost at 3 dB`),
        );
      }
    }),
    { numRuns: 8 },
  );
});

test('ok means a zero syndrome; iteration counts follow maxIterations and earlyStop; batch = frame by frame', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(576, 1152, 2304),
      fc.constantFrom(...LDPC_DECODER_ALGORITHMS),
      fc.integer({ min: 1, max: 12 }),
      fc.boolean(),
      fc.double({ min: 0, max: 2.5, noNaN: true }),
      fc.nat(),
      (n, alg, maxIterations, earlyStop, eb, s) => {
        const code = wimaxCode(n);
        const frames = 3;
        const { llr } = awgn(code, frames, eb, new Philox(seed, s));
        const dec = new LdpcDecoder(code.H, { algorithm: alg, maxIterations, earlyStop });
        const batch = code.decoder({ algorithm: alg, maxIterations, earlyStop }).decodeBatch(llr, frames);
        assert.deepEqual(
          code.decodeBatch(llr, frames, { algorithm: alg, maxIterations, earlyStop }),
          batch,
          msg('code.decodeBatch differs from its decoder'),
        );
        for (let f = 0; f < frames; f++) {
          const r = dec.decode(llr.subarray(f * n, (f + 1) * n));
          assert.equal(r.ok, syndromeWeight(code.H, r.bits) === 0, msg('ok disagrees with the syndrome'));
          assert.ok(r.iterations >= 1 && r.iterations <= maxIterations);
          if (!earlyStop || !r.ok) assert.equal(r.iterations, maxIterations, msg('stopped before maxIterations'));
          assert.deepEqual(
            batch.bits.subarray(f * code.k, (f + 1) * code.k),
            r.bits.subarray(0, code.k),
            msg('batch differs from frame-by-frame'),
          );
          assert.deepEqual(
            code.decode(llr.subarray(f * n, (f + 1) * n), { algorithm: alg, maxIterations, earlyStop }).bits,
            r.bits.subarray(0, code.k),
          );
          assert.equal(batch.iterations[f], r.iterations);
          assert.equal(batch.ok[f], r.ok ? 1 : 0);
        }
      },
    ),
    { numRuns: 25 },
  );
});

/** a [+] b by the stable formula sign(a) sign(b) min(|a|, |b|) + ln(1 + e^-|a+b|) - ln(1 + e^-|a-b|). */
function boxplus(a: number, b: number): number {
  return (
    Math.sign(a) * Math.sign(b) * Math.min(Math.abs(a), Math.abs(b)) +
    Math.log1p(Math.exp(-Math.abs(a + b))) -
    Math.log1p(Math.exp(-Math.abs(a - b)))
  );
}

test('one check node: sum-product and min-sum messages follow their formulas', () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: -15, max: 15, noNaN: true }), { minLength: 2, maxLength: 20 }),
      fc.double({ min: 0.3, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 2, noNaN: true }),
      (x, alpha, beta) => {
        const d = x.length;
        const H = { m: 1, n: d, rowStart: Int32Array.from([0, d]), col: Int32Array.from(x.keys()) };
        const llr = Float64Array.from(x);
        for (const alg of ['spa', 'flooding-spa'] as const) {
          const dec = new LdpcDecoder(H, { algorithm: alg, maxIterations: 1, earlyStop: false });
          dec.decode(llr);
          const post = dec.posteriors();
          for (let j = 0; j < d; j++) {
            let r = NaN;
            for (let i = 0; i < d; i++) if (i !== j) r = Number.isNaN(r) ? x[i]! : boxplus(r, x[i]!);
            assert.ok(
              Math.abs(post[j]! - (x[j]! + r)) < 1e-8 * (1 + Math.abs(r)),
              `${alg} edge ${j}: ${post[j]! - x[j]!} vs boxplus ${r}`,
            );
          }
        }
        for (const alg of ['nms', 'oms'] as const) {
          // alpha is nms's, beta oms's: each decoder takes its own
          const own = alg === 'nms' ? { alpha } : { beta };
          const dec = new LdpcDecoder(H, { algorithm: alg, maxIterations: 1, earlyStop: false, ...own });
          dec.decode(llr);
          const post = dec.posteriors();
          for (let j = 0; j < d; j++) {
            const others = x.filter((_, i) => i !== j);
            const sign = others.reduce((s, v) => (v < 0 ? -s : s), 1);
            const min = Math.min(...others.map(Math.abs));
            const mag = alg === 'nms' ? alpha * min : Math.max(0, min - beta);
            assert.ok(
              Math.abs(post[j]! - (x[j]! + sign * mag)) <= 0.2,
              `${alg} edge ${j}: ${post[j]! - x[j]!} vs ${sign * mag}`,
            );
          }
        }
      },
    ),
    { numRuns: 100 },
  );
});

test('the same matrix read from an alist file decodes identically', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...WIMAX_LENGTHS),
      fc.constantFrom(...LDPC_DECODER_ALGORITHMS),
      fc.nat(),
      (n, alg, s) => {
        const code = wimaxCode(n);
        const H2 = parseAlist(formatAlist(code.H));
        const { llr } = awgn(code, 1, 1.5, new Philox(seed, s));
        const a = new LdpcDecoder(code.H, { algorithm: alg, maxIterations: 8 }).decode(llr);
        const b = new LdpcDecoder(H2, { algorithm: alg, maxIterations: 8 }).decode(llr);
        assert.deepEqual(b, a, msg(`n ${n} ${alg}`));
      },
    ),
    { numRuns: 8 },
  );
});

test('NR code blocks decode noiseless and lightly noisy frames through rate recovery', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('bg1', 'bg2', ''),
      fc.integer({ min: 24, max: 1500 }),
      fc.constantFrom('1/5', '1/3', '1/2', '2/3', '5/6'),
      fc.constantFrom(1, 2, 4, 6),
      fc.nat(),
      (bg, K, R, Qm, s) => {
        const code = ldpcCode(bg ? `nr:${bg}:${K}:${R}` : `nr:${K}:${R}`, { Qm });
        const rng = new Philox(seed, s);
        const info = new Uint8Array(code.k).map(() => rng.nextUint32() & 1);
        const tx = code.encode(info);
        assert.equal(tx.length, code.n);
        const clean = Float64Array.from(tx, (b) => (b ? -20 : 20));
        for (const alg of ['nms', 'spa'] as const) {
          const r = code.decoder({ algorithm: alg }).decode(clean);
          assert.deepEqual(r.bits, info, msg(`${code.name} Qm ${Qm} ${alg}: noiseless frame not recovered`));
          assert.equal(r.ok, true);
        }
        // Eb/N0 10 dB: light noise even for the shortest rate-5/6 blocks (measured: no error in 5000
        // frames of K = 24; about 1% lost at 6 dB).
        const sigma2 = 1 / (2 * code.rate * 10 ** (10 / 10));
        const noisy = Float64Array.from(tx, (b) => (2 * (1 - 2 * b + Math.sqrt(sigma2) * rng.normal())) / sigma2);
        const r = code.decoder({ algorithm: 'nms', maxIterations: 30 }).decode(noisy);
        assert.deepEqual(r.bits, info, msg(`${code.name} Qm ${Qm}: lightly noisy frame not corrected`));
      },
    ),
    { numRuns: 20 },
  );
});

test('saturation: huge and tiny LLRs give finite, correct decisions', () => {
  const code = wimaxCode(576);
  const rng = new Philox(seed, 99);
  const info = new Uint8Array(code.k).map(() => rng.nextUint32() & 1);
  const cw = code.encode(info);
  for (const alg of LDPC_DECODER_ALGORITHMS) {
    for (const mag of [1e300, 1e-300]) {
      const llr = Float64Array.from(cw, (b, i) => (i % 7 === 0 ? (b ? 0.5 : -0.5) : b ? -mag : mag)); // every 7th bit weakly wrong
      const r = code.decoder({ algorithm: alg, saturation: 8, maxIterations: 40 }).decode(llr);
      if (mag > 1)
        assert.deepEqual(r.bits, info, msg(`${alg}: saturated LLRs with a few weak wrong bits not corrected`));
      assert.ok(r.iterations >= 1 && r.bits.every((v) => v === 0 || v === 1));
    }
  }
});

test('bad decoder input and options get typed errors naming the problem', () => {
  const code = wimaxCode(576);
  const dec = code.decoder();
  const llr = new Float64Array(576);
  assert.throws(
    () => dec.decode(new Float64Array(575)),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH' && /575/.test(e.message),
  );
  fc.assert(
    fc.property(fc.nat(575), fc.constantFrom(NaN, Infinity, -Infinity), (i, bad) => {
      const x = llr.slice();
      x[i] = bad;
      assert.throws(
        () => dec.decode(x),
        (e: unknown) => e instanceof InvalidInputError && e.code === 'NON_FINITE' && e.message.includes(`LLR ${i} `),
      );
    }),
    { numRuns: 10 },
  );
  assert.throws(
    () => dec.decodeBatch(new Float64Array(576 * 2 + 1), 2),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH',
  );
  const badOptions: [object, RegExp][] = [
    [{ algorithm: 'bcjr' }, /option algorithm must be one of nms, oms, spa, flooding-spa, got 'bcjr'/],
    [{ maxIterations: 0 }, /maxIterations/],
    [{ maxIterations: 2.5 }, /maxIterations/],
    [{ alpha: 0 }, /alpha/],
    [{ alpha: 1.5 }, /alpha/],
    [{ algorithm: 'oms', beta: -1 }, /beta/],
    [{ saturation: 0 }, /saturation/],
    [{ saturation: NaN }, /saturation/],
    [{ earlyStop: 'yes' }, /earlyStop/],
  ];
  for (const [o, re] of badOptions) {
    assert.throws(
      () => code.decoder(o as never),
      (e: unknown) => e instanceof InvalidArgumentError && re.test(e.message),
      re.source,
    );
  }
  assert.throws(
    () => new LdpcDecoder({ m: 1, n: 2, rowStart: Int32Array.from([0, 2]), col: Int32Array.from([0, 5]) }),
    (e: unknown) => e instanceof InvalidArgumentError && /column 5/.test(e.message),
  );
});

test('waterfall of the n = 2304 rate-1/2 code: most frames fail at 1 dB, almost none at 2 dB (NMS, 20 iterations)', () => {
  const code = wimaxCode(2304);
  const dec = code.decoder({ algorithm: 'nms', maxIterations: 20 });
  const low = awgn(code, 60, 1.0, new Philox(seed, 1000));
  const fLow = frameErrors(dec.decodeBatch(low.llr, 60).bits, low.info, code.k) / 60;
  const high = awgn(code, 150, 2.0, new Philox(seed, 2000));
  const fHigh = frameErrors(dec.decodeBatch(high.llr, 150).bits, high.info, code.k) / 150;
  // Measured: FER about 0.65 at 1 dB and 0.005 at 2 dB.
  assert.ok(fLow >= 0.3, msg(`FER ${fLow} at 1 dB: the waterfall starts too early`));
  assert.ok(fHigh <= 0.04, msg(`FER ${fHigh} at 2 dB: no waterfall by 2 dB`));
});

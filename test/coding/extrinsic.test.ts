/**
 * The decoders' extrinsic output (LdpcDecoder.extrinsic, FrameDecoder.decodeBatch's `extrinsic`),
 * what iterative detection and decoding feeds back to the detector, on fresh random codewords:
 *  - a noiseless frame with large correct channel LLRs: every extrinsic LLR has its code bit's sign
 *    (0: positive), with every algorithm, on 802.16e codes and on NR channel bits (after one
 *    iteration and an early stop, an NR extrinsic may be 0 where a row met a punctured column not
 *    yet filled, never of the wrong sign);
 *  - extrinsic = a-posteriori - input, exactly (inputs inside the saturation, on the min-sum grid),
 *    on noisy frames; a batch's channel-bit extrinsic is the frame decoder's, through NR's rate
 *    matching map; a short output array is a typed error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import { Philox } from '../../src/core/rng.js';
import { InvalidInputError } from '../../src/core/errors.js';
import { ldpcCode, wimaxCode, type LdpcCode } from '../../src/coding/code.js';
import { LDPC_MIN_SUM_SCALE } from '../../src/coding/decoder.js';
import { LDPC_DECODER_ALGORITHMS } from '../../src/coding/types.js';
import { WIMAX_LENGTHS } from '../../src/coding/wimax.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

function codeword(code: LdpcCode, rng: Philox): Uint8Array {
  return code.encode(new Uint8Array(code.k).map(() => rng.nextUint32() & 1));
}

test('noiseless frames with large correct LLRs: the extrinsic signs are the codeword bits', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(
        ...WIMAX_LENGTHS.map((n) => `wimax:${n}`),
        'nr:bg2:200:1/3',
        'nr:bg1:1000:1/2',
        'nr:bg1:3000:2/3',
      ),
      fc.constantFrom(...LDPC_DECODER_ALGORITHMS),
      fc.double({ min: 8, max: 1e4, noNaN: true }),
      fc.nat(),
      (spec, alg, mag, s) => {
        const code = ldpcCode(spec, spec.startsWith('nr') ? { Qm: 2 } : {});
        const cw = codeword(code, new Philox(seed, s));
        const llr = Float64Array.from(cw, (b) => (b ? -mag : mag));
        // three full iterations: every bit's extrinsic has its sign
        const ext = new Float64Array(code.n);
        const r = code
          .decoder({ algorithm: alg, earlyStop: false, maxIterations: 3 })
          .decodeBatch(llr, 1, undefined, ext);
        assert.equal(r.ok[0], 1);
        for (let j = 0; j < code.n; j++)
          assert.ok(
            cw[j] ? ext[j]! < 0 : ext[j]! > 0,
            msg(`${spec} ${alg} |LLR| ${mag}: bit ${j} = ${cw[j]}, extrinsic ${ext[j]}`),
          );
        // early stop after one iteration: none has the wrong sign (NR: 0 where a row met a punctured
        // column before any message had filled it; 802.16e codes puncture nothing: none is 0)
        code.decoder({ algorithm: alg }).decodeBatch(llr, 1, undefined, ext);
        for (let j = 0; j < code.n; j++)
          assert.ok(
            cw[j] ? ext[j]! <= 0 : ext[j]! >= 0,
            msg(`${spec} ${alg} early stop: bit ${j} = ${cw[j]}, extrinsic ${ext[j]}`),
          );
        if (!spec.startsWith('nr'))
          for (let j = 0; j < code.n; j++) assert.notEqual(ext[j], 0, msg(`${spec} ${alg} early stop: bit ${j}`));
      },
    ),
    { numRuns: 40 },
  );
});

test('extrinsic = a-posteriori - input, exactly; through NR rate matching in a batch', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('wimax:576', 'wimax:1152', 'nr:bg2:300:1/2', 'nr:bg1:800:1/3'),
      fc.constantFrom(...LDPC_DECODER_ALGORITHMS),
      fc.double({ min: 0.5, max: 4, noNaN: true }),
      fc.nat(),
      (spec, alg, sigma, s) => {
        const code = ldpcCode(spec, spec.startsWith('nr') ? { Qm: 4 } : {});
        const rng = new Philox(seed, s);
        const frames = 3;
        const cws = [0, 1, 2].map(() => codeword(code, rng));
        const sat = 64;
        // noisy LLRs on the min-sum grid (multiples of 1/16), inside the saturation
        const llr = new Float64Array(frames * code.n);
        cws.forEach((cw, f) => {
          for (let j = 0; j < code.n; j++) {
            const v = (2 * (1 - 2 * cw[j]! + sigma * rng.normal())) / (sigma * sigma);
            llr[f * code.n + j] = Math.max(
              -sat + 1,
              Math.min(sat - 1, Math.round(v * LDPC_MIN_SUM_SCALE) / LDPC_MIN_SUM_SCALE),
            );
          }
        });
        const dec = code.decoder({ algorithm: alg, maxIterations: 1 + (s % 8), saturation: sat });
        const ext = new Float64Array(frames * code.n);
        const batch = dec.decodeBatch(llr, frames, undefined, ext);
        const single = code.decoder({ algorithm: alg, maxIterations: 1 + (s % 8), saturation: sat });
        const map = (code as unknown as { map?: Int32Array }).map;
        for (let f = 0; f < frames; f++) {
          const r = single.decode(llr.subarray(f * code.n, (f + 1) * code.n));
          assert.deepEqual(r.bits, batch.bits.subarray(f * code.k, (f + 1) * code.k));
          const post = single.core!.posteriors();
          const e = single.core!.extrinsic();
          if (!map) {
            // a code sent whole: the decoder's input is the channel LLR itself
            for (let j = 0; j < code.n; j++) {
              assert.equal(e[j], post[j]! - llr[f * code.n + j]!, msg(`${spec} ${alg} frame ${f} bit ${j}`));
              assert.equal(ext[f * code.n + j], e[j], msg(`${spec} batch`));
            }
          } else {
            // NR: a code bit's input sums its channel copies; each channel bit gets its code bit's extrinsic
            const input = new Float64Array(post.length);
            for (let j = 0; j < code.n; j++) input[map[j]!] += llr[f * code.n + j]!;
            for (let j = 0; j < code.n; j++) {
              const c: number = map[j]!;
              if (Math.abs(input[c]!) < sat)
                assert.equal(e[c], post[c]! - input[c]!, msg(`${spec} ${alg} column ${c}`));
              assert.equal(ext[f * code.n + j], e[c], msg(`${spec} batch channel bit ${j}`));
            }
          }
        }
      },
    ),
    { numRuns: 60 },
  );
  const code = wimaxCode(576);
  assert.throws(
    () => code.decoder().decodeBatch(new Float64Array(2 * 576), 2, undefined, new Float64Array(576)),
    InvalidInputError,
  );
});

/**
 * Agreement with IT++ (Debian libitpp-dev):
 *  - its BLDPC_Parity expansion and BLDPC_Generator encoder give, for all 19 802.16e lengths and
 *    random information bits, exactly our codewords (the shift orientation and our encoder checked
 *    against an independent implementation);
 *  - its LDPC decoder (LDPC_Code::bp_decode, flooding sum-product) on the same parity check and the
 *    same LLRs: our flooding sum-product loses the same frames (IT++ computes in 1/4096 fixed point,
 *    so a frame on the edge may differ), and layered NMS loses no more frames.
 * Fresh random inputs per run; skipped, saying why, without IT++.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { wimaxCode } from '../../src/coding/code.js';
import { itppLdpcAvailability, itppLdpcDecode, itppQcEncode } from '../../bench/coding/itpp-ldpc.js';
import { WIMAX_LENGTHS, wimaxBaseMatrix } from '../../src/coding/wimax.js';
import { awgnFrames } from '../../bench/coding/ldpc-itpp.js';

const seed = randomInt(2 ** 31);
const avail = itppLdpcAvailability();
const skip = avail.ok ? false : `IT++ unavailable: ${avail.ok ? '' : avail.reason}`;

test('IT++ BLDPC_Generator on its own expansion gives our 802.16e codewords, all 19 lengths', { skip }, () => {
  for (const n of WIMAX_LENGTHS) {
    const code = wimaxCode(n);
    const frames = 2;
    const rng = new Philox(seed, n);
    const info = new Uint8Array(frames * code.k).map(() => rng.nextUint32() & 1);
    const theirs = itppQcEncode(wimaxBaseMatrix(n), n / 24, info, frames);
    assert.deepEqual(code.encodeBatch(info, frames), theirs, `seed ${seed}: n = ${n} codewords differ from IT++'s`);
  }
});

test('flooding sum-product matches IT++ bp_decode frame for frame; FERs agree within statistical error', {
  skip,
}, () => {
  const code = wimaxCode(2304);
  const frames = 120,
    iterations = 10;
  const { llr, info } = awgnFrames(code, frames, 1.9, new Philox(seed, 1));
  const ref = itppLdpcDecode(code.H, llr, frames, { maxIterations: iterations, earlyStop: true });
  const ours = code.decoder({ algorithm: 'flooding-spa', maxIterations: iterations }).decodeBatch(llr, frames);
  const nms = code.decoder({ algorithm: 'nms', maxIterations: iterations }).decodeBatch(llr, frames);
  let refErr = 0,
    ourErr = 0,
    nmsErr = 0,
    differ = 0,
    slower = 0;
  for (let f = 0; f < frames; f++) {
    const wrong = (bits: Uint8Array, stride: number) => {
      for (let i = 0; i < code.k; i++) if (bits[f * stride + i] !== info[f * code.k + i]) return 1;
      return 0;
    };
    const a = wrong(ref.bits, code.n),
      b = wrong(ours.bits, code.k);
    refErr += a;
    ourErr += b;
    nmsErr += wrong(nms.bits, code.k);
    if (a !== b) differ++;
    if (ref.ok[f] && ours.ok[f]) {
      // IT++'s 1/4096 fixed point moves an edge frame's convergence by an iteration, rarely two
      // (2 frames of 1,920 over 16 seeds): at most two such frames a run, none further apart
      const d = Math.abs(ref.iterations[f]! - ours.iterations[f]!);
      assert.ok(
        d <= 3,
        `seed ${seed}: frame ${f} converged after ${ref.iterations[f]} IT++ vs ${ours.iterations[f]} iterations`,
      );
      if (d > 1) slower++;
    }
  }
  assert.ok(slower <= 2, `seed ${seed}: ${slower} frames converged more than one iteration apart from IT++`);
  // Both errors counted on the same frames: the paired difference, not two independent FERs.
  assert.ok(
    differ <= 4,
    `seed ${seed}: ${differ} of ${frames} frames decoded differently by IT++ (${refErr} lost) and flooding-spa (${ourErr} lost)`,
  );
  assert.ok(
    refErr >= 1,
    `seed ${seed}: IT++ lost no frame at 1.9 dB with ${iterations} flooding iterations: the point is too easy to compare`,
  );
  assert.ok(nmsErr <= refErr, `seed ${seed}: layered NMS lost ${nmsErr} frames, IT++'s flooding BP ${refErr}`);
});

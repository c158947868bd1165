/**
 * What the detection kernels' tests share (wasm-detect, wasm-kbest, wasm-linear): random problems,
 * the kernel against the reference output for output, and rank-deficient channels planted at random.
 */
import assert from 'node:assert/strict';
import { rayleighChannels } from '../../src/channels/index.js';
import type { Philox } from '../../src/core/rng.js';
import { wasmUnavailableReason } from '../../src/core/wasm-kernels.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { detect } from '../../src/mimo/detect.js';
import { bitsPerSymbolOf } from '../../src/mimo/modulation.js';
import type { DetectionInput, DetectOptions, Modulation } from '../../src/mimo/types.js';

/** Whether the kernels run here (no SIMD, or LATTICE_MIMO_WASM=off: 'auto' runs the reference). */
export const simd = wasmUnavailableReason() === null;

/**
 * A random problem: `vectors` vectors, `vpc` a channel, at Es/N0 `snrDb`; H Rayleigh unless given;
 * with `perVector`, one N0 a vector (in runs of equal values, as the reference prepares again where
 * N0 changes).
 */
export function problem(
  rng: Philox,
  nt: number,
  nr: number,
  mod: Modulation,
  vectors: number,
  vpc: number,
  snrDb: number,
  perVector = false,
  H = rayleighChannels(rng, Math.ceil(vectors / vpc), nt, nr),
): DetectionInput {
  const { symbols } = randomSymbols(rng, vectors * nt, mod);
  const n0 = snrToNoiseVar(snrDb, 'esn0', bitsPerSymbolOf(mod));
  const y = addNoise(rng, transmit(H, symbols, nt, nr, vpc), n0);
  if (!perVector) return { nt, nr, H, y, vectorsPerChannel: vpc, noiseVar: n0 };
  const noise = new Float64Array(vectors);
  for (let v = 0; v < vectors; v++)
    noise[v] = v > 0 && rng.uniform() < 0.6 ? noise[v - 1]! : n0 * (0.5 + rng.uniform());
  return { nt, nr, H, y, vectorsPerChannel: vpc, noiseVar: noise };
}

/**
 * The reference ('typescript') and the kernel ('auto': the reference too where the kernels are
 * off) on one input: the same symbols, bits and nodes, and LLRs bit for bit (the kernels repeat the
 * reference's float64 arithmetic operation for operation). `msg` adds the seed to a message.
 */
export function sameAsReference(
  input: DetectionInput,
  opts: DetectOptions,
  what: string,
  msg: (s: string) => string,
): void {
  const ts = detect(input, { ...opts, cpuKernel: 'typescript' });
  const k = detect(input, { ...opts, cpuKernel: 'auto' });
  assert.equal(ts.stats.kernel, 'typescript');
  assert.equal(k.stats.kernel, simd ? 'wasm-simd' : 'typescript', msg(what));
  assert.deepEqual(k.symbols, ts.symbols, msg(`${what}: symbols`));
  assert.deepEqual(k.bits, ts.bits, msg(`${what}: bits`));
  assert.equal(k.stats.nodesVisited, ts.stats.nodesVisited, msg(`${what}: nodes`));
  if (ts.llr === undefined) assert.equal(k.llr, undefined, msg(what));
  else {
    const a = ts.llr,
      b = k.llr!;
    assert.equal(b.length, a.length);
    for (let i = 0; i < a.length; i++)
      if (!Object.is(a[i], b[i])) assert.fail(msg(`${what}: LLR ${i} is ${b[i]}, the reference's ${a[i]}`));
  }
}

/**
 * Makes some of H's `channels` channels (nr x nt, column-major) rank deficient, in place: a third
 * of them at random and at least one past the first, each a zero channel or one column repeated.
 * Returns which channels are.
 */
export function plantDeficient(rng: Philox, H: Float64Array, channels: number, nt: number, nr: number): boolean[] {
  const hLen = 2 * nr * nt;
  const bad = Array.from({ length: channels }, () => rng.nextUint32() % 3 === 0);
  bad[1 + (rng.nextUint32() % (channels - 1))] = true;
  for (let c = 0; c < channels; c++) {
    if (!bad[c]) continue;
    if (rng.nextUint32() % 4 === 0) H.fill(0, c * hLen, (c + 1) * hLen);
    else {
      const a = rng.nextUint32() % nt,
        b = (a + 1 + (rng.nextUint32() % (nt - 1))) % nt;
      for (let i = 0; i < 2 * nr; i++) H[c * hLen + b * 2 * nr + i] = H[c * hLen + a * 2 * nr + i]!;
    }
  }
  return bad;
}

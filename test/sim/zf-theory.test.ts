/**
 * Uncoded ZF over iid Rayleigh fading against its closed form.
 *
 * Derivation. y = H s + w, H is nr x nt with iid CN(0, 1) entries, E|s_k|^2 = Es = 1, w ~ CN(0, N0 I).
 * ZF gives z = (H^H H)^{-1} H^H y = s + n with n_k ~ CN(0, N0 [(H^H H)^{-1}]_kk). And
 * 1 / [(H^H H)^{-1}]_kk = |P_k h_k|^2, P_k the projection onto the orthogonal complement of the
 * other nt - 1 columns: the squared norm of a CN(0, I) vector in an L = nr - nt + 1 dimensional
 * space, so X_k = 1 / [(H^H H)^{-1}]_kk ~ Gamma(L, 1) (diversity order L; L = 1 when nt = nr).
 * The post-ZF SNR of stream k is X_k Es / N0.
 *  - Gray QPSK: each real dimension carries one bit at amplitude 1/sqrt2 with noise variance
 *    N0 / (2 X): P(bit error | X) = Q(sqrt(X / N0)) = Q(sqrt(2 X Eb/N0)) with Eb = Es / 2.
 *  - BPSK (38.211: on the diagonal, (1 - 2b)(1 + j)/sqrt2): the decision is on the projection onto
 *    (1 + j)/sqrt2, distance 1 to the boundary, projected noise variance N0 / (2 X):
 *    P(bit error | X) = Q(sqrt(2 X / N0)) = Q(sqrt(2 X Eb/N0)) with Eb = Es.
 * So with g = Eb/N0 (linear) in both cases, averaging Q(sqrt(2 g X)) over X ~ Gamma(L, 1) gives
 * (Proakis, Digital Communications, eq. 14.4-15):
 *   BER = ((1 - mu) / 2)^L sum_{k=0}^{L-1} C(L - 1 + k, k) ((1 + mu) / 2)^k,   mu = sqrt(g / (1 + g)),
 * which for nt = nr (L = 1) is BER = (1 - sqrt(g / (1 + g))) / 2.
 *
 * Statistical error: bits within a vector share the channel, so they are not independent; the
 * vectors are (one channel per vector). With e_v in [0, B] the bit errors of vector v (B bits per
 * vector) and p the BER, Var(e_v) <= E[e_v^2] <= B E[e_v] = B^2 p, so the BER estimated from N
 * vectors has standard deviation <= sqrt(p / N), whatever the correlation. We accept within 4 of
 * these (conservative) sigmas; N is chosen so that an SNR error of 1 dB falls well outside.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { simulate } from '../../src/sim/simulate.js';
import type { Modulation } from '../../src/mimo/types.js';

const seed = randomInt(2 ** 31);

function binomial(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** Closed-form ZF BER over iid Rayleigh for Gray QPSK / BPSK, g = Eb/N0 linear, L = nr - nt + 1. */
function zfRayleighBer(ebn0Linear: number, L: number): number {
  const mu = Math.sqrt(ebn0Linear / (1 + ebn0Linear));
  let sum = 0;
  for (let k = 0; k < L; k++) sum += binomial(L - 1 + k, k) * ((1 + mu) / 2) ** k;
  return ((1 - mu) / 2) ** L * sum;
}

interface Case {
  nt: number;
  nr: number;
  modulation: Modulation;
  snrType: 'esn0' | 'ebn0';
  snrRange: [number, number];
  vectors: number;
  threads: number;
}

const CASES: Case[] = [
  { nt: 2, nr: 2, modulation: 'bpsk', snrType: 'esn0', snrRange: [0, 10], vectors: 40_000, threads: 1 },
  { nt: 2, nr: 2, modulation: 'qpsk', snrType: 'ebn0', snrRange: [0, 10], vectors: 40_000, threads: 2 },
  { nt: 4, nr: 4, modulation: 'qpsk', snrType: 'esn0', snrRange: [2, 12], vectors: 30_000, threads: 1 },
  { nt: 2, nr: 4, modulation: 'qpsk', snrType: 'esn0', snrRange: [0, 4], vectors: 40_000, threads: 1 },
];

test('uncoded ZF BER matches the Rayleigh closed form (nt = nr: diversity 1; nr > nt: diversity nr - nt + 1)', async () => {
  for (const c of CASES) {
    // A fresh SNR per run (rounded to 0.1 dB) as well as a fresh seed.
    const snr = Math.round((c.snrRange[0] + Math.random() * (c.snrRange[1] - c.snrRange[0])) * 10) / 10;
    const result = await simulate({
      nt: c.nt,
      nr: c.nr,
      modulation: c.modulation,
      detectors: [{ detector: 'zf' }],
      snrs: [snr],
      snrType: c.snrType,
      maxErrors: Number.MAX_SAFE_INTEGER,
      maxVectors: c.vectors,
      seed,
      threads: c.threads,
    });
    const p = result.points[0]!;
    const bps = c.modulation === 'bpsk' ? 1 : 2;
    const ebn0Db = c.snrType === 'ebn0' ? snr : snr - 10 * Math.log10(bps);
    assert.ok(Math.abs(p.ebn0Db - ebn0Db) < 1e-12, `Eb/N0 reported ${p.ebn0Db}, expected ${ebn0Db}`);
    const theory = zfRayleighBer(10 ** (ebn0Db / 10), c.nr - c.nt + 1);
    const sigma = Math.sqrt(theory / p.vectors);
    const what =
      `${c.nt}x${c.nr} ${c.modulation} at ${c.snrType} ${snr} dB: BER ${p.ber.toExponential(3)} vs theory ` +
      `${theory.toExponential(3)} (sigma bound ${sigma.toExponential(2)}, ${p.vectors} vectors, seed ${seed})`;
    assert.equal(p.vectors, c.vectors, what);
    assert.ok(Math.abs(p.ber - theory) <= 4 * sigma, what);
  }
});

test('the closed form itself: L = 1 equals the textbook expression, more diversity means fewer errors', () => {
  for (let t = 0; t < 50; t++) {
    const g = 10 ** ((Math.random() * 40 - 10) / 10);
    assert.ok(Math.abs(zfRayleighBer(g, 1) - 0.5 * (1 - Math.sqrt(g / (1 + g)))) < 1e-15);
    assert.ok(zfRayleighBer(g, 2) < zfRayleighBer(g, 1));
    assert.ok(zfRayleighBer(g, 3) < zfRayleighBer(g, 2));
  }
  // High-SNR asymptote: BER ~ C(2L-1, L) / (4g)^L.
  const g = 1e5;
  for (const L of [1, 2, 3]) {
    const asym = binomial(2 * L - 1, L) / (4 * g) ** L;
    assert.ok(Math.abs(zfRayleighBer(g, L) / asym - 1) < 1e-3, `L = ${L}`);
  }
});

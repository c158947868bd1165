/**
 * Bounded work, finite numbers, true messages, one shape rule (fast-check properties over detect()):
 *  - node budget: a vector is flagged exactly when its unbounded sphere search needs more nodes than
 *    maxNodes; flagged answers are never better than ML, unflagged ones are ML; 'error' throws a
 *    NodeBudgetError naming the first flagged vector; ml and kbest refuse sizes past the budget;
 *  - scale: (H, y, N0) -> (2^k H, 2^k y, 4^k N0) gives bit-identical symbols and LLRs for every
 *    detector; extreme scales and noise variances give finite, saturated LLRs or a typed refusal;
 *  - PSD configuration and option fuzzing: a LatticeMimoError, never a TypeError;
 *  - nr < nt: every detector follows checkDetectorShape's rule, with a typed error naming it;
 *  - argument order: transmit / rvd take nt before nr.
 * Fresh random seeds (fast-check's, and a Philox seed printed on failure).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import { Philox } from '../../src/core/rng.js';
import {
  InvalidArgumentError,
  InvalidInputError,
  LatticeMimoError,
  NodeBudgetError,
  UnsupportedError,
} from '../../src/core/errors.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { checkDetectorShape, detect, LLR_LIMIT } from '../../src/mimo/detect.js';
import { constellation } from '../../src/mimo/modulation.js';
import { realVector, rvd } from '../../src/mimo/preprocess/rvd.js';
import { DEFAULT_MAX_NODES } from '../../src/mimo/budget.js';
import { kbestNodes } from '../../src/mimo/detectors/kbest/cpu.js';
import { DETECTORS, detectorEntry, SOFT_DETECTORS } from '../../src/mimo/registry.js';
import {
  MODULATIONS,
  type DetectionInput,
  type DetectOptions,
  type Detector,
  type Modulation,
} from '../../src/mimo/types.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

/** A random link: `vectors` vectors, one channel each (vectorsPerChannel 1). */
function link(rng: Philox, vectors: number, nt: number, nr: number, mod: Modulation, snrDb: number): DetectionInput {
  const H = rayleighChannels(rng, vectors, nt, nr);
  const { symbols } = randomSymbols(rng, vectors * nt, mod);
  const noiseVar = snrToNoiseVar(snrDb, 'esn0', 1);
  return { nt, nr, H, y: addNoise(rng, transmit(H, symbols, nt, nr, 1), noiseVar), noiseVar };
}

/** ||y_v - H_v s||^2 on the complex model (independent of the detectors). */
function metric(inp: DetectionInput, mod: Modulation, sym: ArrayLike<number>, v: number): number {
  const { nt, nr, H, y } = inp,
    pts = constellation(mod).points;
  let d = 0;
  for (let i = 0; i < nr; i++) {
    let re = y[2 * (v * nr + i)]!,
      im = y[2 * (v * nr + i) + 1]!;
    for (let j = 0; j < nt; j++) {
      const hb = 2 * (v * nr * nt + i + j * nr),
        a = sym[j]!;
      const hr = H[hb]!,
        hi = H[hb + 1]!,
        sr = pts[2 * a]!,
        si = pts[2 * a + 1]!;
      re -= hr * sr - hi * si;
      im -= hr * si + hi * sr;
    }
    d += re * re + im * im;
  }
  return d;
}

function single(inp: DetectionInput, v: number): DetectionInput {
  const { nt, nr } = inp,
    hl = 2 * nr * nt,
    yl = 2 * nr;
  return { nt, nr, H: inp.H.slice(v * hl, (v + 1) * hl), y: inp.y.slice(v * yl, (v + 1) * yl), noiseVar: inp.noiseVar };
}

test('node budget: sphere flags a vector exactly when its search needs more than maxNodes; flagged answers are no better than ML, the others are ML', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2 ** 30 }),
      fc.integer({ min: 1, max: 120 }),
      fc.constantFrom(0, 3, 6),
      (s, maxNodes, snr) => {
        const rng = new Philox(seed, s);
        const vectors = 12,
          inp = link(rng, vectors, 4, 4, '16qam', snr);
        const ml = detect(inp, { detector: 'ml', modulation: '16qam', soft: 'none' });
        const r = detect(inp, { detector: 'sphere', modulation: '16qam', maxNodes, onBudget: 'flag' });
        let flagged = 0;
        for (let v = 0; v < vectors; v++) {
          const need = detect(single(inp, v), { detector: 'sphere', modulation: '16qam' }).stats.nodesVisited!;
          const isFlagged = r.unproven?.[v] === 1;
          assert.equal(
            isFlagged,
            need > maxNodes,
            msg(`vector ${v}: unbounded search needs ${need} nodes, budget ${maxNodes}, flagged ${isFlagged}`),
          );
          const got = metric(inp, '16qam', r.symbols.subarray(4 * v, 4 * v + 4), v),
            best = metric(inp, '16qam', ml.symbols.subarray(4 * v, 4 * v + 4), v);
          if (isFlagged) {
            flagged++;
            assert.ok(got >= best * (1 - 1e-12), msg(`flagged vector ${v} beats ML: ${got} < ${best}`));
          } else
            assert.ok(
              Math.abs(got - best) <= 1e-9 * (1 + best),
              msg(`unflagged vector ${v} is not ML: ${got} vs ${best}`),
            );
        }
        assert.equal(r.stats.budgetExceeded, flagged, msg('stats.budgetExceeded counts the flagged vectors'));
        assert.equal(
          r.unproven === undefined,
          flagged === 0,
          msg('unproven is present exactly when a vector is flagged'),
        );
        assert.ok(
          r.stats.nodesVisited! <= vectors * maxNodes,
          msg(`nodes ${r.stats.nodesVisited} within ${vectors} x ${maxNodes}`),
        );
        if (flagged > 0) {
          // The default policy throws, naming the first flagged vector and the budget.
          const first = r.unproven!.indexOf(1);
          assert.throws(
            () => detect(inp, { detector: 'sphere', modulation: '16qam', maxNodes }),
            (e) =>
              e instanceof NodeBudgetError &&
              e.code === 'NODE_BUDGET' &&
              e.details?.vector === first &&
              e.details?.maxNodes === maxNodes &&
              e.context.detector === 'sphere' &&
              e.message.startsWith(
                `detector sphere, vector ${first}: the search reached the node budget maxNodes = ${maxNodes} before`,
              ),
          );
        }
      },
    ),
    { numRuns: 25 },
  );
});

test('node budget: PSD stops after a budget (flagged answers no better than ML); an ample budget gives exhaustive ML on both exact searches', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 30 }), fc.integer({ min: 1, max: 400 }), (s, maxNodes) => {
      const rng = new Philox(seed, s);
      const vectors = 10,
        inp = link(rng, vectors, 4, 4, '16qam', 2);
      const ml = detect(inp, { detector: 'ml', modulation: '16qam', soft: 'none' });
      const tight = detect(inp, { detector: 'psd', modulation: '16qam', maxNodes, onBudget: 'flag' });
      const ample = [
        detect(inp, { detector: 'psd', modulation: '16qam', onBudget: 'flag' }),
        detect(inp, {
          detector: 'sphere',
          modulation: '16qam',
          initialRadius: 'babai',
          maxNodes: 1e6,
          onBudget: 'flag',
        }),
      ];
      let flagged = 0;
      for (let v = 0; v < vectors; v++) {
        const best = metric(inp, '16qam', ml.symbols.subarray(4 * v, 4 * v + 4), v);
        const got = metric(inp, '16qam', tight.symbols.subarray(4 * v, 4 * v + 4), v);
        if (tight.unproven?.[v]) {
          flagged++;
          assert.ok(got >= best * (1 - 1e-12), msg(`psd flagged vector ${v} beats ML`));
        } else assert.ok(Math.abs(got - best) <= 1e-9 * (1 + best), msg(`psd unflagged vector ${v} is not ML`));
        for (const r of ample) {
          const m = metric(inp, '16qam', r.symbols.subarray(4 * v, 4 * v + 4), v);
          assert.ok(
            Math.abs(m - best) <= 1e-9 * (1 + best),
            msg(`${r.stats.detector} with an ample budget: vector ${v} not ML`),
          );
        }
      }
      assert.equal(tight.stats.budgetExceeded, flagged);
      for (const r of ample) assert.equal(r.stats.budgetExceeded, 0);
    }),
    { numRuns: 15 },
  );
});

test('node budget: 16x16 256-QAM at 0 dB ends within its budget (flagged, or a NodeBudgetError by default)', () => {
  const rng = new Philox(seed, 3);
  const inp = link(rng, 2, 16, 16, '256qam', 0);
  const t0 = performance.now();
  for (const d of ['sphere', 'psd'] as const) {
    const r = detect(inp, { detector: d, modulation: '256qam', maxNodes: 20_000, onBudget: 'flag' });
    assert.equal(r.stats.budgetExceeded, 2, msg(`${d}: both vectors stop at the budget`));
    assert.ok(r.symbols.every((x) => x >= 0 && x < 256));
    assert.throws(
      () => detect(inp, { detector: d, modulation: '256qam', maxNodes: 20_000 }),
      (e) => e instanceof NodeBudgetError && /vector 0/.test(e.message),
    );
  }
  assert.ok(performance.now() - t0 < 20_000, 'bounded time');
});

test('node budget: ml and kbest refuse sizes whose fixed work exceeds maxNodes; bad maxNodes / onBudget are typed errors', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 3 }),
      fc.constantFrom<Modulation>('bpsk', 'qpsk', '16qam'),
      fc.integer({ min: 1, max: 5000 }),
      fc.integer({ min: 1, max: 8 }),
      (nt, mod, maxNodes, k) => {
        const inp = link(new Philox(seed, nt * 100 + k), 2, nt, nt, mod, 10);
        const M = constellation(mod).size;
        const mlRun = () => detect(inp, { detector: 'ml', modulation: mod, maxNodes });
        if (M ** nt > maxNodes)
          assert.throws(mlRun, (e) => e instanceof NodeBudgetError && e.message.includes(`maxNodes = ${maxNodes}`));
        else assert.doesNotThrow(mlRun);
        const q = mod === 'bpsk' ? 2 : Math.sqrt(M),
          nd = mod === 'bpsk' ? nt : 2 * nt;
        const kRun = () => detect(inp, { detector: 'kbest', modulation: mod, k, maxNodes });
        const need = kbestNodes(Math.min(k, q ** nd), nd, q);
        if (need > maxNodes) assert.throws(kRun, (e) => e instanceof NodeBudgetError);
        else
          assert.equal(
            detect(inp, { detector: 'kbest', modulation: mod, k, maxNodes }).stats.nodesVisited,
            2 * need,
            'kbest visits exactly kbestNodes per vector',
          );
      },
    ),
    { numRuns: 60 },
  );
  const inp = link(new Philox(seed, 9), 1, 2, 2, 'qpsk', 10);
  for (const bad of [0, -3, 1.5, NaN, Infinity, '100', null]) {
    assert.throws(
      () => detect(inp, { detector: 'sphere', modulation: 'qpsk', maxNodes: bad as number }),
      (e) => e instanceof InvalidArgumentError && /maxNodes/.test(e.message),
    );
  }
  assert.throws(
    () => detect(inp, { detector: 'sphere', modulation: 'qpsk', onBudget: 'warn' as 'flag' }),
    (e) => e instanceof InvalidArgumentError && /onBudget/.test(e.message),
  );
  assert.ok(DEFAULT_MAX_NODES === 2 ** 24);
});

/** Every (detector, modulation) pair valid on square channels, with the options it needs. */
const PAIRS: [Detector, Modulation][] = DETECTORS.flatMap((d) =>
  MODULATIONS.filter((m) => m !== '256qam').map((m): [Detector, Modulation] => [d, m]),
);

test('scale: (2^k H, 2^k y, 4^k N0) gives bit-identical symbols and LLRs for every detector, all finite', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2 ** 30 }),
      fc.constantFrom(...PAIRS),
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 0, max: 1 }),
      fc.integer({ min: -480, max: 480 }),
      (s, [d, mod], nt, extra, k) => {
        const nr = nt + extra;
        const inp = link(new Philox(seed, s), 6, nt, nr, mod, 8);
        // onBudget applies to the searches that stop at the node budget only
        const search = detectorEntry(d)!.traits.nodeBudget === 'search';
        const opts: DetectOptions = { detector: d, modulation: mod, ...(search ? { onBudget: 'flag' as const } : {}) };
        const a = 2 ** k;
        const scaled: DetectionInput = {
          ...inp,
          H: inp.H.map((x) => x * a),
          y: inp.y.map((x) => x * a),
          noiseVar: (inp.noiseVar as number) * a * a,
        };
        const r0 = detect(inp, opts),
          r1 = detect(scaled, opts);
        assert.deepEqual(r1.symbols, r0.symbols, msg(`${d} ${mod} ${nt}x${nr} at scale 2^${k}: symbols differ`));
        if (SOFT_DETECTORS.includes(d)) {
          assert.deepEqual(r1.llr, r0.llr, msg(`${d} ${mod} at scale 2^${k}: LLRs differ`));
          assert.ok(r1.llr!.every((x) => Number.isFinite(x) && Math.abs(x) <= LLR_LIMIT));
        }
      },
    ),
    { numRuns: 150 },
  );
});

/** Detectors whose hard decisions depend on N0 (MMSE filtering, MMSE-SIC, EP's Gaussian sites, MMSE-PIC). */
const NOISE_DEPENDENT: readonly Detector[] = ['mmse', 'sic', 'lr-mmse', 'lr-sic', 'ep', 'mmse-pic'];

test('scale: 1e+-150 and 1e+-200 inputs and extreme noise variances give finite outputs (saturated LLRs) or a typed refusal', () => {
  const rng = new Philox(seed, 11);
  for (const [d, mod] of PAIRS) {
    const inp = link(rng, 8, 2, 3, mod, 10);
    const base = detect(inp, { detector: d, modulation: mod });
    for (const a of [1e150, 1e-150, 1e200, 1e-200]) {
      // N0 a^2 overflows or underflows at 1e+-200: N0 then stays as it was (1e200) or becomes the
      // smallest double (1e-200), so only decisions that ignore N0 must stay.
      const n0 = (inp.noiseVar as number) * a * a;
      const noiseVar = n0 === Infinity ? (inp.noiseVar as number) : Math.max(n0, Number.MIN_VALUE);
      const r = detect(
        { ...inp, H: inp.H.map((x) => x * a), y: inp.y.map((x) => x * a), noiseVar },
        { detector: d, modulation: mod },
      );
      if (Math.abs(Math.log10(a)) < 160 || !NOISE_DEPENDENT.includes(d))
        assert.deepEqual(r.symbols, base.symbols, msg(`${d} ${mod} at scale ${a}`));
      if (r.llr)
        assert.ok(
          r.llr.every((x) => Number.isFinite(x) && Math.abs(x) <= LLR_LIMIT),
          msg(`${d} ${mod} LLRs finite at scale ${a}`),
        );
    }
    for (const nv of [Number.MIN_VALUE, 1e-300, 1e300, Number.MAX_VALUE, ...(SOFT_DETECTORS.includes(d) ? [] : [0])]) {
      const r = detect({ ...inp, noiseVar: nv }, { detector: d, modulation: mod });
      assert.ok(r.symbols.every((x) => x >= 0 && x < constellation(mod).size));
      if (r.llr)
        assert.ok(
          r.llr.every((x) => Number.isFinite(x) && Math.abs(x) <= LLR_LIMIT),
          msg(`${d} ${mod} LLRs finite at N0 = ${nv}`),
        );
    }
    // y alone far past its channel: refused, naming the vector.
    const y = inp.y.slice();
    y[2 * 3 * 3] = 1e200;
    assert.throws(
      () => detect({ ...inp, y }, { detector: d, modulation: mod }),
      (e) => e instanceof InvalidInputError && /vector 3/.test(e.message),
    );
  }
});

test('PSD configuration and option fuzzing: typed errors (LatticeMimoError), never a TypeError', () => {
  const inp = link(new Philox(seed, 12), 2, 2, 2, 'qpsk', 10);
  const listish = fc.oneof(
    fc.anything(),
    fc.array(fc.integer({ min: -3, max: 7 }), { maxLength: 6 }),
    fc.array(fc.oneof(fc.integer(), fc.double(), fc.string()), { maxLength: 4 }),
  );
  const psdOpt = fc.oneof(fc.anything(), fc.record({ levels: listish, paths: listish }, { requiredKeys: [] }));
  fc.assert(
    fc.property(psdOpt, (psd) => {
      try {
        const r = detect(inp, { detector: 'psd', modulation: 'qpsk', psd: psd as DetectOptions['psd'] });
        assert.equal(r.symbols.length, 4);
      } catch (e) {
        assert.ok(e instanceof LatticeMimoError, msg(`psd ${JSON.stringify(psd)} threw ${String(e)}`));
        assert.ok(e instanceof InvalidArgumentError || e instanceof UnsupportedError);
        assert.match(e.message, /psd|paths|levels|PSD/);
      }
    }),
    { numRuns: 400 },
  );
  const anyOpts = fc.record(
    {
      k: fc.anything(),
      passes: fc.anything(),
      llrClip: fc.anything(),
      maxNodes: fc.anything(),
      onBudget: fc.anything(),
      initialRadius: fc.anything(),
      soft: fc.anything(),
    },
    { requiredKeys: [] },
  );
  fc.assert(
    fc.property(fc.constantFrom(...DETECTORS), anyOpts, (d, o) => {
      try {
        detect(inp, { ...(o as object), detector: d, modulation: 'qpsk' });
      } catch (e) {
        assert.ok(e instanceof LatticeMimoError, msg(`${d} ${JSON.stringify(o)} threw ${String(e)}`));
      }
    }),
    { numRuns: 300 },
  );
});

test('nr < nt: every detector follows one rule (wide ones, ml, mmse, sic, mmse-pic, always; zf never; real-model detectors when 2 nr >= real unknowns), with a typed error naming it', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...DETECTORS),
      fc.constantFrom<Modulation>('bpsk', 'qpsk', '16qam'),
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 0, max: 2 ** 30 }),
      (d, mod, nt, nr, s) => {
        const inp = link(new Philox(seed, s), 3, nt, nr, mod, 10);
        const unknowns = mod === 'bpsk' ? nt : 2 * nt;
        // the rule read from the traits: wide detectors always, the other real-model ones at 2 nr >= unknowns
        const traits = detectorEntry(d)!.traits;
        const ok = nr >= nt || traits.wideChannels !== 'no' || (traits.model === 'real' && 2 * nr >= unknowns);
        const run = () => detect(inp, { detector: d, modulation: mod });
        if (ok) {
          const r = run();
          assert.equal(r.symbols.length, 3 * nt);
          assert.doesNotThrow(() => checkDetectorShape(d, mod, nt, nr));
        } else {
          assert.throws(
            run,
            (e) =>
              e instanceof UnsupportedError && e.message.startsWith(d) && e.message.includes(`nt = ${nt}, nr = ${nr}`),
            msg(`${d} ${mod} nt=${nt} nr=${nr}`),
          );
        }
        if (nr < nt && traits.wideChannels === 'regularized') {
          assert.throws(
            () => detect({ ...inp, noiseVar: 0 }, { detector: d, modulation: mod }),
            (e) => e instanceof InvalidArgumentError && /noiseVar.* > 0/.test(e.message),
          );
        }
      },
    ),
    { numRuns: 200 },
  );
});

test('argument order: transmit and rvd take nt before nr (y = H s on an nr x nt channel)', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 0, max: 2 ** 30 }),
      (nt, nr, s) => {
        const rng = new Philox(seed, s);
        const H = rayleighChannels(rng, 1, nt, nr);
        const x = new Float64Array(2 * nt).map(() => rng.normal());
        const y = transmit(H, x, nt, nr);
        assert.equal(y.length, 2 * nr);
        for (let i = 0; i < nr; i++) {
          let re = 0,
            im = 0;
          for (let j = 0; j < nt; j++) {
            const hr = H[2 * (i + j * nr)]!,
              hi = H[2 * (i + j * nr) + 1]!;
            re += hr * x[2 * j]! - hi * x[2 * j + 1]!;
            im += hr * x[2 * j + 1]! + hi * x[2 * j]!;
          }
          assert.ok(Math.abs(re - y[2 * i]!) < 1e-12 && Math.abs(im - y[2 * i + 1]!) < 1e-12);
        }
        // RVD: H_r [Re x; Im x] = [Re y; Im y], H_r being 2nr x 2nt column-major.
        const Hr = rvd(H, 1, nt, nr),
          xr = realVector('rvd', x, 0, nt, new Float64Array(2 * nt)),
          yr = realVector('rvd', y, 0, nr, new Float64Array(2 * nr));
        for (let i = 0; i < 2 * nr; i++) {
          let acc = 0;
          for (let j = 0; j < 2 * nt; j++) acc += Hr[i + j * 2 * nr]! * xr[j]!;
          assert.ok(Math.abs(acc - yr[i]!) < 1e-12);
        }
      },
    ),
    { numRuns: 100 },
  );
});

/**
 * The link generator's WebAssembly kernel (src/sim/wasm/link-lanes.as.ts, host link-wasm.ts)
 * against the TypeScript generator on fresh random inputs (seed printed on failure):
 *  - its log, sin and cos (in lanes, and the scalar functions the lanes hand their rare cases)
 *    equal this runtime's Math.log, Math.sin, Math.cos bit for bit on random
 *    inputs over the ranges Box-Muller uses (uniforms down to 2^-54, angles in (0, 2 pi)), the
 *    edges of fdlibm's branches, and uniforms and angles from Philox words as the generator makes them;
 *  - generateLinkChunk's symbols, channels and received vectors equal the TypeScript's bit for bit
 *    over random shapes, modulations, channel reuse, seeds, SNR and unit indices (a unit's streams),
 *    noise variances and channel models (rayleigh and awgn, and kronecker, whose channels stay
 *    TypeScript and whose y the kernel makes), units of several kernel pieces, and a coded unit;
 *  - the fallback: LATTICE_MIMO_WASM=off makes 'auto' run TypeScript and 'wasm' an
 *    EngineUnavailableError; an invalid noise variance gets addNoise's error on either path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { EngineUnavailableError, InvalidArgumentError } from '../../src/core/errors.js';
import { WASM_ENV, wasmUnavailableReason } from '../../src/core/wasm-kernels.js';
import { generateLinkChunk, type LinkChunk, type LinkChunkSpec } from '../../src/sim/link.js';
import { linkKernelMath, linkKernelUnavailable, useLinkKernel } from '../../src/sim/link-wasm.js';
import type { Modulation } from '../../src/mimo/types.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
// Where the kernels cannot run (no SIMD, or LATTICE_MIMO_WASM=off), 'auto' runs the reference.
const simd = wasmUnavailableReason() === null;

/** The first index where two arrays differ (Object.is), or -1. */
function firstDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

function assertSameChunk(a: LinkChunk, b: LinkChunk, what: string): void {
  for (const k of ['txIndices', 'H', 'y', 'info'] as const) {
    const x = a[k],
      y = b[k];
    if (x === undefined || y === undefined) {
      assert.equal(x, y, msg(`${what}: ${k}`));
      continue;
    }
    const i = firstDiff(x, y);
    assert.equal(i, -1, msg(`${what}: ${k}[${i}] ${x[i]} against ${y[i]}`));
  }
}

function assertMathEqual(xs: Float64Array, what: string): void {
  for (const fn of ['log', 'sin', 'cos'] as const) {
    if (fn !== 'log' && what === 'uniforms') continue;
    if (fn === 'log' && what === 'angles') continue;
    for (const lanes of [true, false]) {
      const got = linkKernelMath(fn, xs, lanes);
      for (let i = 0; i < xs.length; i++) {
        const want = Math[fn](xs[i]!);
        if (!Object.is(got[i], want))
          assert.fail(msg(`${what}: ${fn}(${xs[i]}) = ${got[i]} (${lanes ? 'lanes' : 'scalar'}), Math gives ${want}`));
      }
    }
  }
}

test('the kernel is checked and runs here', { skip: !simd && 'no WebAssembly SIMD or LATTICE_MIMO_WASM=off' }, () => {
  assert.equal(linkKernelUnavailable(), null);
  assert.equal(useLinkKernel('auto'), true);
  assert.equal(useLinkKernel('typescript'), false);
});

test("log, sin, cos equal this runtime's Math bit for bit", { skip: !simd && 'no kernel' }, () => {
  const rng = new Philox(seed, 1);
  const n = 1 << 20;
  // uniforms at every scale down to 2^-54 (log), angles over (0, 2 pi] and small ones (sin, cos)
  const u = new Float64Array(n),
    t = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    u[i] = rng.uniform() * 2 ** -(i & 1 ? rng.int(54) : 0);
    t[i] = 2 * Math.PI * rng.uniform() * 2 ** -(i % 4 === 3 ? rng.int(40) : 0);
  }
  assertMathEqual(u, 'uniforms');
  assertMathEqual(t, 'angles');
  // Philox's own: a uniform and an angle a pair, as Box-Muller takes them
  const p = new Philox(seed, 2);
  const pu = new Float64Array(n),
    pt = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    pu[i] = p.uniform();
    pt[i] = 2 * Math.PI * p.uniform();
  }
  assertMathEqual(pu, 'uniforms');
  assertMathEqual(pt, 'angles');
  // edges: each branch's boundaries, a few ulps either side
  const edges: number[] = [];
  const around = (e: number) => {
    for (let d = -64; d <= 64; d++) edges.push(e * (1 + d * 2 ** -52));
  };
  for (const e of [2 ** -54, 1 - 2 ** -53, 0.5, Math.SQRT1_2, 1 - 2 ** -20, 1 - 2 ** -21, 0.25, 2 ** -1022]) around(e);
  for (const e of [2 ** -27, 0.3, 0.78125, Math.PI / 4, (3 * Math.PI) / 4, Math.PI, 1.5 * Math.PI, 2 * Math.PI])
    around(e);
  for (let k = 1; k <= 8; k++) around((k * Math.PI) / 4);
  const xs = new Float64Array(edges.filter((x) => x > 0));
  assertMathEqual(xs, 'edges');
  // an odd count's last value, and inputs outside Box-Muller's ranges (the scalar path of the lanes)
  assert.deepEqual([...linkKernelMath('log', new Float64Array([1, 2, 0.5]))], [0, Math.log(2), Math.log(0.5)]);
  const odd = new Float64Array([0, -0, -1, Infinity, Number.NaN, 5e-324, 1e300, -3, 1e6, 1e5 + 0.5, 40, -2]);
  assertMathEqual(odd.subarray(0, 7), 'uniforms');
  assertMathEqual(odd.subarray(7), 'angles');
});

const MODS: Modulation[] = ['bpsk', 'qpsk', '16qam', '64qam', '256qam'];

function randomSpec(rng: Philox, channel: string): LinkChunkSpec {
  const nt = 1 + rng.int(8);
  const nr = channel === 'awgn' ? nt + rng.int(3) : 1 + rng.int(8);
  const vpc = 1 + rng.int(5);
  return {
    nt,
    nr,
    modulation: MODS[rng.int(MODS.length)]!,
    vectorsPerChannel: vpc,
    seed: rng.int(2 ** 32) * 2 ** 20 + rng.int(2 ** 20),
    snrIndex: rng.int(2 ** 19),
    unitIndex: rng.int(2 ** 32),
    vectors: vpc * (1 + rng.int(60)),
    noiseVar: rng.uniform() * 4 * 10 ** -rng.int(4),
    channel: channel as LinkChunkSpec['channel'],
    ...(channel === 'kronecker' ? { channelOptions: { rhoTx: 0.5, rhoRx: 0.3 } } : {}),
  };
}

test('chunks equal the TypeScript generator bit for bit', { skip: !simd && 'no kernel' }, () => {
  const rng = new Philox(seed, 3);
  for (let rep = 0; rep < 60; rep++) {
    const channel = ['rayleigh', 'rayleigh', 'awgn', 'kronecker'][rep % 4]!;
    const spec = randomSpec(rng, channel);
    const what = JSON.stringify(spec);
    const ts = generateLinkChunk({ ...spec, cpuKernel: 'typescript' });
    assertSameChunk(generateLinkChunk({ ...spec, cpuKernel: 'wasm' }), ts, what);
    assertSameChunk(generateLinkChunk(spec), ts, what);
  }
});

test('a unit of several kernel pieces, and channel reuse across them', { skip: !simd && 'no kernel' }, () => {
  const rng = new Philox(seed, 4);
  for (const [nt, nr, vpc, vectors] of [
    [8, 8, 1, 2048],
    [4, 4, 14, 14 * 300],
    [2, 2, 1000, 5000],
  ] as const) {
    const spec: LinkChunkSpec = {
      nt,
      nr,
      modulation: '16qam',
      vectorsPerChannel: vpc,
      seed: rng.int(2 ** 32),
      snrIndex: rng.int(100),
      unitIndex: rng.int(2 ** 20),
      vectors,
      noiseVar: 0.1,
    };
    const ts = generateLinkChunk({ ...spec, cpuKernel: 'typescript' });
    assertSameChunk(generateLinkChunk({ ...spec, cpuKernel: 'wasm' }), ts, JSON.stringify(spec));
  }
});

test('a coded unit: channels and received vectors equal', { skip: !simd && 'no kernel' }, () => {
  const rng = new Philox(seed, 5);
  for (const [code, nt, mod] of [
    ['wimax:576:1/2', 4, '16qam'],
    ['nr:bg2:120:1/3', 2, 'qpsk'],
  ] as const) {
    const spec: LinkChunkSpec = {
      nt,
      nr: nt,
      modulation: mod,
      vectorsPerChannel: 1,
      seed: rng.int(2 ** 32),
      snrIndex: rng.int(100),
      unitIndex: rng.int(2 ** 20),
      vectors: 0,
      noiseVar: 0.2,
      coded: { code, decoder: {} },
    };
    const bps = mod === 'qpsk' ? 2 : 4;
    const n = code.startsWith('wimax') ? 576 : 360;
    spec.vectors = Math.ceil(n / (bps * nt)) * 6;
    const ts = generateLinkChunk({ ...spec, cpuKernel: 'typescript' });
    assertSameChunk(generateLinkChunk({ ...spec, cpuKernel: 'wasm' }), ts, code);
  }
});

test('the fallback: LATTICE_MIMO_WASM=off, and invalid noise', () => {
  const spec: LinkChunkSpec = {
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    vectorsPerChannel: 1,
    seed,
    snrIndex: 0,
    unitIndex: 1,
    vectors: 64,
    noiseVar: 0.5,
  };
  const ts = generateLinkChunk({ ...spec, cpuKernel: 'typescript' });
  const saved = process.env[WASM_ENV];
  process.env[WASM_ENV] = 'off';
  try {
    assert.equal(useLinkKernel('auto'), false);
    assert.throws(() => generateLinkChunk({ ...spec, cpuKernel: 'wasm' }), EngineUnavailableError);
    assertSameChunk(generateLinkChunk(spec), ts, 'LATTICE_MIMO_WASM=off');
  } finally {
    if (saved === undefined) delete process.env[WASM_ENV];
    else process.env[WASM_ENV] = saved;
  }
  for (const k of ['auto', 'typescript'] as const)
    assert.throws(() => generateLinkChunk({ ...spec, noiseVar: -1, cpuKernel: k }), InvalidArgumentError);
});

/**
 * The flat link's generator (generateLinkChunk: symbols, channels, y = H s + w) on its WebAssembly
 * kernel against the TypeScript generator, in one process on the same units (one thread): CPU time
 * a vector, median of `reps` alternating calls after two warm-up calls of each, the speed-up as the
 * ratio of the medians and, in parentheses, the median of neighbouring calls' ratios (a pair sees
 * the same load on a shared machine); every pair's chunks compared bit for bit.
 *
 * `--math N` instead compares the kernel's log, sin and cos with Math on N random inputs each
 * (uniforms at every scale down to 2^-54 and angles in (0, 2 pi], as Box-Muller takes them) and
 * prints the count of differing values.
 *
 * Usage: node dist/bench/sim/link-lanes.js [--cases 4x4:16qam:1,8x8:64qam:1,4x4:16qam:14,4x4:qpsk:1:awgn]
 *        [--vectors 1024] [--units 32] [--reps 9] [--seed 1] [--math N]
 */
import { Philox } from '../../src/core/rng.js';
import { generateLinkChunk, type LinkChunk, type LinkChunkSpec } from '../../src/sim/link.js';
import { linkKernelMath, linkKernelUnavailable } from '../../src/sim/link-wasm.js';
import type { Modulation } from '../../src/mimo/types.js';
import { BenchArgs } from '../args.js';
import { cpuDescription, gitCommit, median } from '../report.js';

const args = BenchArgs.parse(
  'link-lanes',
  'node dist/bench/sim/link-lanes.js [--cases NTxNR:MOD:VPC[:CHANNEL],...] [--vectors N] [--units U] [--reps R] [--seed S] [--math N]',
  ['cases', 'vectors', 'units', 'reps', 'seed', 'math'],
);
const seed = args.int('seed', 0, 2 ** 31, 1);
const why = linkKernelUnavailable();
if (why !== null) args.fail(`the kernel does not run here: ${why}`);

function cpuMs(f: () => void): number {
  const t = process.cpuUsage();
  f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
}

function same(a: LinkChunk, b: LinkChunk): boolean {
  for (const k of ['txIndices', 'H', 'y'] as const) {
    const x = a[k],
      y = b[k];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
  }
  return true;
}

const mathN = args.int('math', 0, 2 ** 30, 0);
if (mathN > 0) {
  const rng = new Philox(seed, 99);
  const piece = 1 << 20;
  let bad = 0;
  const t0 = performance.now();
  for (let done = 0; done < mathN; done += piece) {
    const n = Math.min(piece, mathN - done);
    const u = new Float64Array(n),
      t = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      u[i] = rng.uniform() * 2 ** -(i & 1 ? rng.int(54) : 0);
      t[i] = 2 * Math.PI * rng.uniform();
    }
    const lu = linkKernelMath('log', u),
      st = linkKernelMath('sin', t),
      ct = linkKernelMath('cos', t);
    for (let i = 0; i < n; i++) {
      if (!Object.is(lu[i], Math.log(u[i]!))) bad++;
      if (!Object.is(st[i], Math.sin(t[i]!))) bad++;
      if (!Object.is(ct[i], Math.cos(t[i]!))) bad++;
    }
  }
  console.log(
    `math: ${mathN} inputs each of log, sin, cos: ${bad} values differ from Math (${((performance.now() - t0) / 1000).toFixed(1)} s; seed ${seed})`,
  );
  process.exit(bad === 0 ? 0 : 1);
}

const vectors = args.int('vectors', 1, 2 ** 20, 1024);
const units = args.int('units', 1, 4096, 32);
const reps = args.int('reps', 1, 999, 9);
const cases = args.text('cases', '4x4:16qam:1,8x8:64qam:1,4x4:16qam:14,4x4:qpsk:1:awgn').split(',');

console.log(`link generator, kernel against TypeScript: ${cpuDescription()}, commit ${gitCommit()}`);
console.log(`${units} units of ${vectors} vectors a call, CPU time, median of ${reps} alternating calls`);
console.log('| case | TypeScript ns/vector | kernel ns/vector | speed-up | equal |');
console.log('|---|---|---|---|---|');
for (const c of cases) {
  const [mimo, mod, vpcText, channel] = c.split(':');
  const [nt, nr] = (mimo ?? '').split('x').map(Number) as [number, number];
  const vpc = Number(vpcText ?? 1);
  const n = Math.ceil(vectors / vpc) * vpc;
  const spec = (unitIndex: number, k: 'typescript' | 'wasm'): LinkChunkSpec => ({
    nt,
    nr,
    modulation: mod as Modulation,
    vectorsPerChannel: vpc,
    seed,
    snrIndex: 0,
    unitIndex,
    vectors: n,
    noiseVar: 0.1,
    ...(channel ? { channel: channel as LinkChunkSpec['channel'] } : {}),
    cpuKernel: k,
  });
  const run = (k: 'typescript' | 'wasm', rep: number) => {
    const out: LinkChunk[] = [];
    const ms = cpuMs(() => {
      for (let u = 0; u < units; u++) out.push(generateLinkChunk(spec(rep * units + u, k)));
    });
    return { ms, out };
  };
  let equal = true;
  const ts: number[] = [],
    wa: number[] = [],
    ratio: number[] = [];
  for (let rep = -2; rep < reps; rep++) {
    const a = run('typescript', rep + 2);
    const b = run('wasm', rep + 2);
    equal &&= a.out.every((x, i) => same(x, b.out[i]!));
    if (rep < 0) continue;
    ts.push(a.ms);
    wa.push(b.ms);
    ratio.push(a.ms / b.ms);
  }
  const per = (ms: number) => ((ms * 1e6) / (units * n)).toFixed(0);
  console.log(
    `| ${c} | ${per(median(ts))} | ${per(median(wa))} | ${(median(ts) / median(wa)).toFixed(2)}x (${median(ratio).toFixed(2)}x) | ${equal ? 'yes' : 'NO'} |`,
  );
}

/**
 * Where a SIMD min-sum decode's time goes, for one or more builds of the project in one process
 * (A/B on a shared machine): per build, alternating rep by rep, the CPU time of
 *  - `decodeBatch` on `--frames` distinct frames (float64 LLRs streaming from memory, as a caller
 *    hands them over: the figure of ldpc-itpp.js);
 *  - `decodeBatch` on the first group of frames again and again, as many frames in all (the input
 *    in cache: no stream of the caller's LLRs);
 *  - the layered pass alone (the kernel's `pass()` on a decoder's memory, random posteriors), in us
 *    a pass and as Mbps of the passes a decode runs (10 iterations: 10 passes a group).
 *
 *   node dist/bench/coding/ldpc-simd-split.js [--code wimax:2304:1/2] [--arithmetic int8]
 *        [--frames 320] [--iterations 10] [--reps 15] [--builds /path/a,/path/b] [--seed S]
 *        [--extrinsic 0|1]
 *
 * `--extrinsic 1` has every `decodeBatch` also write the frames' extrinsic LLRs (an iterative
 * receiver's call). `--builds` names repository roots whose `dist/` is built (default: this build); each row is one
 * build. Speeds are the median (and best) of the reps, Mbps of information bits per CPU second.
 */
import { cpuUsage } from 'node:process';
import { fileURLToPath } from 'node:url';
import { Philox } from '../../src/core/rng.js';
import { BenchArgs } from '../args.js';

const USAGE =
  'node dist/bench/coding/ldpc-simd-split.js [--code wimax:2304:1/2] [--arithmetic int8|int16] [--frames 320] [--iterations 10] [--reps 15] [--builds /path/a,/path/b] [--seed S] [--extrinsic 0|1]';

/** What the bench uses of a build's coding modules (loaded by path: each build its own copy). */
interface Build {
  root: string;
  code: {
    k: number;
    n: number;
    H: unknown;
    encodeBatch(info: Uint8Array, frames: number): Uint8Array;
    decoder(o: object): {
      decodeBatch(
        llr: Float64Array,
        frames: number,
        out?: undefined,
        extrinsic?: Float64Array,
      ): { bits: Uint8Array; kernel?: string };
    };
  };
  /** One layered pass on a decoder's memory, and the frames it holds. */
  pass: () => void;
  lanes: number;
}

async function loadBuild(root: string, a: { code: string; arithmetic: 'int8' | 'int16' }): Promise<Build> {
  const at = (m: string) => `${root}/dist/src/coding/${m}`;
  const { ldpcCode } = await import(at('code.js'));
  const { SimdMinSumDecoder } = await import(at('simd-min-sum.js'));
  const { fixedPointFormat } = await import(at('fixed-point-min-sum.js'));
  const { resolveDecoderOptions } = await import(at('decoder.js'));
  const code = ldpcCode(a.code);
  const options = resolveDecoderOptions({ algorithm: 'nms', earlyStop: false, arithmetic: a.arithmetic });
  // The pass is private to the decoder: the bench reaches it to time the kernel alone.
  const dec = new SimdMinSumDecoder(code.H, options, fixedPointFormat(a.arithmetic)) as {
    pass(): void;
    lanes: number;
    buffer: ArrayBuffer;
    at: { L: number };
    lBytes: number;
  };
  const L = new Int8Array(dec.buffer, dec.at.L, dec.lBytes);
  const rng = new Philox(7, 1);
  for (let i = 0; i < L.length; i++) L[i] = (rng.nextUint32() % 61) - 20;
  return { root, code, pass: () => dec.pass(), lanes: dec.lanes };
}

function main(): Promise<number> | number {
  const cl = BenchArgs.parse(
    'ldpc-simd-split',
    USAGE,
    ['code', 'arithmetic', 'frames', 'iterations', 'reps', 'builds', 'seed', 'extrinsic'],
    process.argv.slice(2),
  );
  const arithmetic = cl.text('arithmetic', 'int8');
  if (arithmetic !== 'int8' && arithmetic !== 'int16') {
    process.stderr.write(`ldpc-simd-split: --arithmetic must be int8 or int16, got ${arithmetic}\n${USAGE}\n`);
    return 2;
  }
  const a = {
    code: cl.text('code', 'wimax:2304:1/2'),
    arithmetic: arithmetic as 'int8' | 'int16',
    frames: cl.int('frames', 1, 100_000, 320),
    iterations: cl.int('iterations', 1, 1000, 10),
    reps: cl.int('reps', 1, 1000, 15),
    seed: cl.int('seed', 0, 2 ** 47, 21),
    extrinsic: cl.int('extrinsic', 0, 1, 0) === 1,
  };
  const here = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');
  const roots = cl.text('builds', here).split(',');
  return run(a, roots);
}

async function run(
  a: {
    code: string;
    arithmetic: 'int8' | 'int16';
    frames: number;
    iterations: number;
    reps: number;
    seed: number;
    extrinsic: boolean;
  },
  roots: string[],
): Promise<number> {
  const builds = [];
  for (const root of roots) builds.push(await loadBuild(root, a));
  const cpu = (f: () => void): number => {
    const c0 = cpuUsage();
    f();
    const c = cpuUsage(c0);
    return (c.user + c.system) / 1e6;
  };
  const rows = builds.map((b) => {
    const { code } = b;
    // BPSK over AWGN at 2 dB, LLR = 2 y / sigma^2 (ldpc-itpp.js's frames).
    const rng = new Philox(a.seed, 0);
    const sigma2 = 1 / (2 * (code.k / code.n) * 10 ** 0.2);
    const info = new Uint8Array(a.frames * code.k).map(() => rng.nextUint32() & 1);
    const x = code.encodeBatch(info, a.frames);
    const llr = new Float64Array(a.frames * code.n);
    for (let i = 0; i < llr.length; i++) llr[i] = (2 * (1 - 2 * x[i]! + Math.sqrt(sigma2) * rng.normal())) / sigma2;
    const dec = code.decoder({
      algorithm: 'nms',
      maxIterations: a.iterations,
      earlyStop: false,
      arithmetic: a.arithmetic,
    });
    const group = Math.min(a.frames, b.lanes);
    const first = llr.subarray(0, group * code.n);
    const ext = a.extrinsic ? new Float64Array(llr.length) : undefined;
    const decodeBatch = (x: Float64Array, frames: number) => dec.decodeBatch(x, frames, undefined, ext);
    for (let w = 0; w < 3; w++) decodeBatch(llr, a.frames);
    for (let w = 0; w < 200; w++) b.pass();
    return {
      b,
      decodeBatch,
      llr,
      first,
      group,
      whole: [] as number[],
      cached: [] as number[],
      pass: [] as number[],
      kernel: '',
    };
  });
  for (let r = 0; r < a.reps; r++) {
    for (const row of rows) {
      row.whole.push(cpu(() => (row.kernel = row.decodeBatch(row.llr, a.frames).kernel ?? 'typescript')));
      row.cached.push(
        cpu(() => {
          for (let f = 0; f < a.frames; f += row.group) row.decodeBatch(row.first, row.group);
        }),
      );
      row.pass.push(
        cpu(() => {
          for (let i = 0; i < 100; i++) row.b.pass();
        }) / 100,
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[xs.length >> 1]!;
  const best = (xs: number[]) => Math.min(...xs);
  console.log(
    `${a.code} ${a.arithmetic}, ${a.frames} frames, ${a.iterations} iterations, no early stop${a.extrinsic ? ', with extrinsic LLRs' : ''}, ${a.reps} alternating reps, Mbps of information bits per CPU second, median (best)\n`,
  );
  console.log('| build | kernel | decodeBatch | decodeBatch, input in cache | us a pass | the passes alone |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) {
    const bits = a.frames * row.b.code.k;
    const mbps = (s: number) => (bits / s / 1e6).toFixed(1);
    // A decode runs `iterations` passes a group of lanes.
    const passes = Math.ceil(a.frames / row.b.lanes) * a.iterations;
    console.log(
      `| ${row.b.root} | ${row.kernel} | ${mbps(median(row.whole))} (${mbps(best(row.whole))}) | ${mbps(median(row.cached))} (${mbps(best(row.cached))}) | ${(median(row.pass) * 1e6).toFixed(1)} (${(best(row.pass) * 1e6).toFixed(1)}) | ${mbps(median(row.pass) * passes)} (${mbps(best(row.pass) * passes)}) |`,
    );
  }
  return 0;
}

if (process.argv[1] && /ldpc-simd-split\.js$/.test(process.argv[1])) {
  Promise.resolve(main()).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`ldpc-simd-split: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}

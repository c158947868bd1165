/**
 * The sequential LLL on the CPU engine: its WebAssembly kernel against the TypeScript reference, in
 * one process on the same batches (one thread, float64, delta 0.75, eta 0.51): CPU microseconds a
 * basis, median of `reps` alternating calls after one warm-up call of each, for the engine alone
 * (the chunk reducer reduce() runs in each thread) and for reduceSync() with the check off (the
 * output B_in Z and the counts too); the speed-up as the ratio of the medians and, in parentheses,
 * the median of the ratios of neighbouring calls (on a shared machine the two calls of a pair see
 * the same load); and whether the two agree (transforms and counts bit for bit).
 *
 * Batches: `g<n>` n x n Gaussian, `t<n>` block-Toeplitz (complex 1x1 taps, 3 taps, 'full': (n + 4) x n),
 * `i<n>` n x n Gaussian scaled by 2^20 and rounded (integral), each with its batch size after ':'.
 *
 * Run it without --expose-gc: gc() before each call lets process.cpuUsage count V8's background
 * collector threads, unevenly between the kernels.
 *
 * Usage: node dist/bench/lattice/wasm-lll.js [--cases g8:16384,g16:16384,t64:1024] [--reps 5] [--seed 1]
 */
import { parseArgs } from 'node:util';
import type { MatrixBatch } from '../../src/core/index.js';
import { reduceChunk } from '../../src/lattice/cpu-batch.js';
import { blockToeplitzBases, gaussianBases, integerScale } from '../../src/lattice/generators.js';
import { reduceSync } from '../../src/lattice/reduce.js';
import type { AlgoParams } from '../../src/lattice/types.js';
import { defaultMaxIterations } from '../../src/lattice/validate.js';
import { cpuDescription, gitCommit, median } from '../report.js';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: 'g8:16384,g16:16384,t64:1024' },
    reps: { type: 'string', default: '5' },
    seed: { type: 'string', default: '1' },
  },
});
const reps = Number(values.reps),
  seed = Number(values.seed);

function bases(spec: string): { what: string; b: MatrixBatch } {
  const [name, count] = spec.split(':') as [string, string];
  const batch = Number(count),
    n = Number(name.slice(1));
  if (name[0] === 't') {
    const b = blockToeplitzBases({ batch, blocks: n / 2, blockSize: 1, complex: true, taps: 3, shape: 'full', seed });
    return { what: `${batch} block-Toeplitz ${b.rows}x${b.cols}`, b };
  }
  const g = gaussianBases({ batch, n, seed });
  if (name[0] === 'i') return { what: `${batch} integral ${n}x${n} (Gaussian x 2^20)`, b: integerScale(g, 2 ** 20) };
  return { what: `${batch} Gaussian ${n}x${n}`, b: g };
}

const gc = (globalThis as { gc?: () => void }).gc;

/** CPU microseconds of one call a basis, and the transforms and counts it gave. */
function timed(
  b: MatrixBatch,
  kernel: 'typescript' | 'wasm',
  level: 'engine' | 'reduceSync',
): { us: number; Z: Float64Array; counts: string } {
  const p: AlgoParams = {
    delta: 0.75,
    eta: 0.51,
    blockSize: 8,
    maxIterations: defaultMaxIterations(b.cols),
    cpuKernel: kernel,
  };
  const work = Float64Array.from(b.data);
  gc?.();
  const c = process.cpuUsage();
  let Z: Float64Array, counts: string;
  if (level === 'engine') {
    const r = reduceChunk({
      algorithm: 'lll',
      params: p,
      n: b.rows,
      m: b.cols,
      work,
      count: b.batch,
      offset: 0,
      batch: b.batch,
    });
    Z = r.Z;
    counts = JSON.stringify(r.stats);
  } else {
    const r = reduceSync(b, { check: false, cpuKernel: kernel });
    Z = r.transform.data;
    counts = JSON.stringify(r.stats.perBasis);
  }
  const u = process.cpuUsage(c);
  return { us: (u.user + u.system) / b.batch, Z, counts };
}

console.log(`# ${cpuDescription()}, commit ${gitCommit()}, ${new Date().toISOString()}`);
console.log(
  `# lll float64 (delta 0.75, eta 0.51), CPU us a basis, median of ${reps} alternating calls after a warm-up of each, one thread`,
);
console.log('| batch | level | TypeScript | WebAssembly | speed-up | agreement |');
console.log('|---|---|---|---|---|---|');
for (const spec of values.cases.split(',')) {
  const { what, b } = bases(spec);
  for (const level of ['engine', 'reduceSync'] as const) {
    const ts: number[] = [],
      wa: number[] = [];
    let same = true;
    for (let rep = -1; rep < reps; rep++) {
      const x = timed(b, 'typescript', level);
      const y = timed(b, 'wasm', level);
      if (rep >= 0) {
        ts.push(x.us);
        wa.push(y.us);
      }
      if (x.counts !== y.counts || x.Z.some((v, i) => !Object.is(v, y.Z[i]))) same = false;
    }
    const mt = median(ts),
      mw = median(wa);
    console.log(
      `| ${what} | ${level} | ${mt.toFixed(2)} us | ${mw.toFixed(2)} us | ${(mt / mw).toFixed(2)}x (pairs ${median(ts.map((t, i) => t / wa[i]!)).toFixed(2)}x) | ${same ? 'transforms and counts equal' : 'DIFFER'} |`,
    );
  }
}

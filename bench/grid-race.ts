/**
 * Looks for timing-dependent results of the whole-device kernel's block mode (allswap/grid-kernel.cu,
 * MB-LLL and CR-MB-LLL), on the device machine (not a test). The kernel is deterministic by design
 * (no floating-point atomics, fixed sums), so the same basis must give the same counts at every
 * stage, the same outputs and the same status however the blocks are timed; run several copies of
 * this at once (or beside other GPU work) and compare their records with the ones of a run alone.
 *
 *   node dist/bench/grid-race.js --out FILE [--seeds 20] [--first 1] [--m 130] [--block-size 8]
 *     [--algo block|cr-block] [--reps 2]
 *     knapsack-like bases (test/gpu/grid-cases.ts) reduced one at a time with the kernel built with
 *     its per-stage trace of (stage kind, swaps, changes) (-DGRID_TRACE_COUNTS); one JSON record per
 *     run: seed, status, counts, a hash of B and Z, the trace
 *   node dist/bench/grid-race.js --compare REFERENCE FILE...
 *     for every run in the FILEs, whether it equals the reference's first run of its seed, and where
 *     the traces part (the first stage that differs, with the kinds of the stages before it)
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { requireCuda } from '../src/gpu/context.js';
import { DeviceBuffer } from '../src/gpu/memory.js';
import { Stream } from '../src/gpu/stream.js';
import {
  chunkDeviceBytes,
  chunkPointers,
  enqueueLattice,
  prepareLattice,
  STATS_WIDTH,
  type LatticeKernelSpec,
} from '../src/lattice/gpu/batch.js';
import { allswapGridPlan, GRID_CTL_BYTES } from '../src/lattice/allswap/grid.js';
import { tracedGridKernel, tracedGridPlan } from './kernels/traced.js';
import { Philox } from '../src/core/rng.js';
import { knapsackBasis } from '../test/gpu/grid-cases.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const KINDS = [
  '',
  'load',
  'gram-schmidt',
  'phase',
  '',
  'size-reduce',
  'B_in Z',
  'end',
  'phase columns',
  'local',
  'deferred',
];

interface RunRecord {
  seed: number;
  rep: number;
  status: number;
  stats: number[];
  hash: string;
  ms: number;
  trace: string[];
}

function compare(): void {
  const i = process.argv.indexOf('--compare');
  const [refFile, ...files] = process.argv.slice(i + 1);
  const load = (f: string): RunRecord[] =>
    readFileSync(f, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as RunRecord);
  const ref = new Map<number, RunRecord>();
  for (const r of load(refFile!)) if (!ref.has(r.seed)) ref.set(r.seed, r);
  let same = 0,
    differ = 0;
  for (const f of [refFile!, ...files]) {
    for (const r of load(f)) {
      const a = ref.get(r.seed)!;
      if (a.hash === r.hash && a.status === r.status && a.trace.join() === r.trace.join()) {
        same++;
        continue;
      }
      differ++;
      let at = 0;
      while (at < a.trace.length && a.trace[at] === r.trace[at]) at++;
      console.log(
        `${f}: seed ${r.seed} rep ${r.rep}: status ${r.status} (reference ${a.status}), stats ${r.stats} (reference ${a.stats}); traces part at stage ${at} of ${a.trace.length}/${r.trace.length}: reference ${a.trace[at]}, this ${r.trace[at]}; before: ${a.trace.slice(Math.max(0, at - 6), at).join(' | ')}`,
      );
    }
  }
  console.log(`${same} runs equal to the reference, ${differ} differ`);
}

function probe(): void {
  const out = arg('out', '');
  const seeds = Number(arg('seeds', '20')),
    first = Number(arg('first', '1')),
    reps = Number(arg('reps', '2'));
  const m = Number(arg('m', '130')),
    blockSize = Number(arg('block-size', '8'));
  const algorithm = arg('algo', 'block') as 'block' | 'cr-block';
  const n = m + 1,
    precision = 'float64' as const;
  const TRACE = 8192;
  const params = { delta: 0.75, eta: 0.51, blockSize, maxIterations: 100_000 };
  const spec: LatticeKernelSpec = {
    name: algorithm,
    kernel: tracedGridKernel,
    plan: (nn, mm, prec, p, device) => {
      const plan = allswapGridPlan(nn, mm, prec, p, device, { algorithm, size: blockSize });
      if (!plan) throw new Error('the block mode does not take this basis');
      return tracedGridPlan(plan, TRACE, { GRID_TRACE_COUNTS: 1 });
    },
  };
  const ctx = requireCuda();
  ctx.makeCurrent();
  const p = prepareLattice(ctx, spec, precision, 1, n, m, params);
  const arena = DeviceBuffer.alloc(ctx, chunkDeviceBytes(p, 1));
  const stream = Stream.create(ctx);
  const ptr = chunkPointers(p, arena.ptr, 1);
  const off = (x: bigint): number => Number(x - arena.ptr);
  const lines: string[] = [];
  for (let seed = first; seed < first + seeds; seed++) {
    const { B } = knapsackBasis(new Philox(seed, 32), m);
    for (let rep = 0; rep < reps; rep++) {
      arena.upload(B, off(ptr.bin));
      arena.fillRange(off(ptr.stats), STATS_WIDTH * 4, 0, stream);
      const t0 = performance.now();
      enqueueLattice(p, stream, ptr, 1);
      stream.synchronize();
      const ms = performance.now() - t0;
      const ctl = new BigUint64Array((GRID_CTL_BYTES + 8 * TRACE) / 8);
      arena.download(ctl, off(ptr.scratch[0]!));
      const stats = new Int32Array(STATS_WIDTH);
      arena.download(stats, off(ptr.stats));
      const Bo = new Float64Array(n * m),
        Zo = new Float64Array(m * m);
      arena.download(Bo, off(ptr.bout));
      arena.download(Zo, off(ptr.zout));
      const hash = createHash('sha256')
        .update(new Uint8Array(Bo.buffer))
        .update(new Uint8Array(Zo.buffer))
        .digest('hex')
        .slice(0, 16);
      const count = Math.min(Number(ctl[63]), TRACE - 4);
      const trace: string[] = [];
      for (let i = 0; i < count; i++) {
        const e = ctl[64 + i]!;
        trace.push(`${KINDS[Number(e >> 56n)] ?? '?'} ${(e >> 28n) & 0xfffffffn}/${e & 0xfffffffn}`);
      }
      const rec: RunRecord = {
        seed,
        rep,
        status: stats[3]!,
        stats: Array.from(stats),
        hash,
        ms: Math.round(ms * 100) / 100,
        trace,
      };
      lines.push(JSON.stringify(rec));
      console.error(
        `seed ${seed} rep ${rep}: status ${rec.status}, stats ${rec.stats}, ${trace.length} stages, ${rec.ms} ms, ${hash}`,
      );
    }
  }
  if (out) writeFileSync(out, `${lines.join('\n')}\n`);
  const byStatus = new Map<number, number>();
  let gsStages = 0,
    ms = 0;
  for (const l of lines) {
    const r = JSON.parse(l) as RunRecord;
    byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
    gsStages += r.trace.filter((t) => t.startsWith('gram-schmidt')).length;
    ms += r.ms;
  }
  console.log(
    `${algorithm}, m = ${m}, sub-bases of ${blockSize}: ${lines.length} runs; by status (0 = OK): ${[...byStatus].map(([st, c]) => `${st}: ${c}`).join(', ')}; ` +
      `${(gsStages / lines.length).toFixed(2)} Gram-Schmidt stages and ${(ms / lines.length).toFixed(2)} ms (host wall) a run`,
  );
  arena.free();
  stream.destroy();
}

if (process.argv.includes('--compare')) compare();
else probe();

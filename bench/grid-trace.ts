/**
 * Where the whole-device all-swap kernel (allswap/grid-kernel.cu) spends its time, on the device
 * machine (not a test): builds the kernel with its stage trace, reduces one basis of the bench's
 * inputs (seed 1 as in `bench lattice`) and prints the time of every kind of stage.
 *   node dist/bench/grid-trace.js [--n 1024] [--family toeplitz|gaussian] [--precision float32|float64]
 *     [--seed S] [--define NAME=VALUE] (a -D define of the kernel's module, for A/B measurements)
 */
import { requireCuda } from '../src/gpu/context.js';
import { DeviceBuffer } from '../src/gpu/memory.js';
import { Stream } from '../src/gpu/stream.js';
import {
  chunkDeviceBytes,
  chunkPointers,
  enqueueLattice,
  prepareLattice,
  STATS_WIDTH,
} from '../src/lattice/gpu/batch.js';
import type { LatticeKernelSpec } from '../src/lattice/gpu/batch.js';
import { allswapGridPlan, GRID_CTL_BYTES } from '../src/lattice/allswap/grid.js';
import { tracedGridKernel, tracedGridPlan } from './kernels/traced.js';
import { blockToeplitzBases, gaussianBases } from '../src/lattice/generators.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const n = Number(arg('n', '1024'));
const family = arg('family', 'toeplitz');
const precision = arg('precision', 'float32') as 'float32' | 'float64';
const seed = Number(arg('seed', '1'));
const TRACE = 4096;
const KINDS = ['', 'load', 'gram-schmidt', 'phase', '', 'size-reduce', 'B_in Z', 'end', 'phase columns'];

const input =
  family === 'gaussian'
    ? { data: gaussianBases({ batch: 1, n, seed, precision }).data, rows: n, cols: n }
    : (() => {
        const t = blockToeplitzBases({
          batch: 1,
          blocks: n / 2,
          blockSize: 1,
          complex: true,
          taps: 3,
          shape: 'full',
          seed,
          precision,
        });
        return { data: t.data, rows: t.rows, cols: t.cols };
      })();
const params = { delta: 0.75, eta: 0.51, blockSize: 8, maxIterations: 100_000 };

const define = arg('define', '');
const [defName, defValue] = define.split('=');
const spec: LatticeKernelSpec = {
  name: 'allswap',
  kernel: tracedGridKernel,
  plan: (nn, mm, prec, p, device) => {
    const plan = allswapGridPlan(nn, mm, prec, p, device);
    if (!plan) throw new Error('the whole-device kernel does not take this basis');
    return tracedGridPlan(plan, TRACE, define ? { [defName!]: Number(defValue ?? 1) } : {});
  },
};
const ctx = requireCuda();
ctx.makeCurrent();
const p = prepareLattice(ctx, spec, precision, 1, input.rows, input.cols, params);
const arena = DeviceBuffer.alloc(ctx, chunkDeviceBytes(p, 1));
const stream = Stream.create(ctx);
const ptr = chunkPointers(p, arena.ptr, 1);
const off = (x: bigint): number => Number(x - arena.ptr);
arena.upload(input.data, off(ptr.bin));
for (let rep = 0; rep < 3; rep++) {
  arena.fillRange(off(ptr.stats), STATS_WIDTH * 4, 0, stream);
  enqueueLattice(p, stream, ptr, 1);
  stream.synchronize();
}
const ctl = new BigUint64Array((GRID_CTL_BYTES + 8 * TRACE) / 8);
arena.download(ctl, off(ptr.scratch[0]!));
const stats = new Int32Array(STATS_WIDTH);
arena.download(stats, off(ptr.stats));
const count = Math.min(Number(ctl[63]), TRACE);
const total = new Map<string, { ms: number; times: number }>();
const sequence: string[] = [];
let prev = 0;
for (let i = 0; i < count; i++) {
  const e = ctl[64 + i]!;
  const kind = KINDS[Number(e >> 56n)] ?? '?';
  const at = Number(e & ((1n << 56n) - 1n)) / 1e6;
  const t = total.get(kind) ?? { ms: 0, times: 0 };
  t.ms += at - prev;
  t.times++;
  total.set(kind, t);
  if (sequence.length < 60) sequence.push(`${kind} ${(at - prev).toFixed(3)}`);
  prev = at;
}
console.log(
  `${family} ${input.rows}x${input.cols} ${precision}: grid ${p.grid} blocks x ${p.plan.threads} threads, shared ${p.plan.sharedBytes} B; stats [phases, swaps, reductions, status, detail] = ${Array.from(stats).join(', ')}`,
);
console.log(`last launch: ${prev.toFixed(3)} ms over ${count} stages`);
for (const [kind, t] of total) console.log(`  ${kind.padEnd(13)} ${t.ms.toFixed(3)} ms in ${t.times} stage(s)`);
console.log(`sequence (ms): ${sequence.join(' | ')}`);
// the block with the last panel, summed over the Gram-Schmidt stages of the last basis (clock64)
const parts = ['waiting for flags', 'staging', 'earlier panels', 'own columns'];
const khz = ctx.props.clockKHz;
console.log(
  `last panel's block in Gram-Schmidt (all GS stages): ${parts.map((name, i) => `${name} ${(Number(ctl[64 + TRACE - 4 + i]!) / khz).toFixed(3)} ms`).join(', ')}`,
);
arena.free();
stream.destroy();

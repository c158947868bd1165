/**
 * The exact GPU detectors, ml and sphere: (1) throughput with the data on the GPU (kernel-only:
 * plan.enqueue on device buffers between CUDA events after a warm-up, status words zeroed outside
 * the timed region), vectors/s and Gbps of detected bits, for sphere 4x4 QPSK / 16-QAM at 20 dB
 * (both search kernels) and ml 2x2 / 4x4 QPSK / 16-QAM (hard and max-log); (2) the issue's
 * correctness check: per configuration (2x2, 4x4, 8x8; QPSK, 16-, 64-QAM; low, middle, high SNR)
 * fresh vectors through detectAsync on the CUDA engine (and the other sphere kernel on the same
 * data), against float64 ML on the CPU engine on all cores (exhaustive ml where M^nt <= 2^16, else
 * the float64 sphere decoder, exact ML), near-ties counted and each proven (gpu-exact-check.ts).
 * Where the float64 reference would take too long (deep searches at low SNR), the check covers the
 * first vectors the CPU budget allows, and says how many.
 *
 * Usage: node dist/bench/mimo/gpu-ml-sphere.js [--vectors 100000] [--no-check] [--no-time] [--sweep] [--sweep-from 2] [--cpu-seconds 3] [--seed S]
 * --sweep first times both sphere kernels (the warp one at 4, 8, 16, 32 lanes) over 2x2 .. 8x8, QPSK ..
 * 64-QAM, two SNRs each (what defaultSphereVariant is chosen from).
 * Exits 1 when a GPU decision is not ML and no near-tie.
 */
import { availableParallelism } from 'node:os';
import { requireCuda } from '../../src/gpu/context.js';
import { CudaEvent, Stream } from '../../src/gpu/stream.js';
import { WorkerPool } from '../../src/core/worker-pool.js';
import { constellation } from '../../src/mimo/modulation.js';
import { detectAsync } from '../../src/mimo/detect-async.js';
import { cudaDetector as mlCuda } from '../../src/mimo/detectors/ml/cuda.js';
import { sphereCudaDetector, defaultSphereKernel, type SphereVariant } from '../../src/mimo/detectors/sphere/cuda.js';
import type { CudaDetector } from '../../src/mimo/gpu/cuda-detector.js';
import { MIMO_STATUS, STATUS_WORDS } from '../../src/mimo/gpu/status.js';
import type { DetectionInput, DetectOptions } from '../../src/mimo/types.js';
import { BenchArgs } from '../args.js';
import {
  checkAgainstMl,
  DeviceProblem,
  gpuRun,
  gpuSetup,
  makeProblem,
  Philox,
  type Problem,
} from '../../test/mimo/gpu-exact-check.js';

const cl = BenchArgs.parse(
  'gpu-ml-sphere',
  'node dist/bench/mimo/gpu-ml-sphere.js [--vectors 100000] [--no-check] [--no-time] [--sweep] [--sweep-from 2] [--cpu-seconds 3] [--seed S]',
  ['vectors', 'cpu-seconds', 'seed', 'sweep-from'],
  process.argv.slice(2),
  ['sweep', 'no-time', 'no-check'],
);
const VECTORS = cl.int('vectors', 1, 10_000_000, 100_000);
const CPU_SECONDS = cl.number('cpu-seconds', 0, 86400, 3);
const seed = cl.int('seed', 0, 2 ** 47, Date.now() % 2 ** 31);
const SWEEP_FROM = cl.int('sweep-from', 2, 8, 2);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Median kernel time (ms) of `reps` runs of the detector's plan on the problem, data on the GPU. */
function timePlan(
  det: CudaDetector,
  p: Problem,
  opts: Partial<DetectOptions>,
  soft: boolean,
  reps = 20,
): { ms: number; nodes: number; flagged: number } {
  const ctx = requireCuda();
  const setup = gpuSetup(ctx, p, { detector: det.name, ...opts }, soft);
  const plan = det.create(ctx, setup);
  const dp = new DeviceProblem(ctx, p, setup.constellation.bitsPerSymbol, soft, plan.scratchBytesPerChannel);
  const stream = Stream.create(ctx);
  const ev = Array.from({ length: 2 * reps }, () => CudaEvent.create(ctx));
  const statusBytes = p.vectors * STATUS_WORDS * 4;
  try {
    dp.status.fillRange(0, statusBytes, 0, stream);
    plan.enqueue(stream, dp.chunk());
    stream.synchronize();
    for (let r = 0; r < reps; r++) {
      dp.status.fillRange(0, statusBytes, 0, stream);
      ev[2 * r]!.record(stream);
      plan.enqueue(stream, dp.chunk());
      ev[2 * r + 1]!.record(stream);
    }
    stream.synchronize();
    const out = dp.read();
    let nodes = 0,
      flagged = 0;
    for (let v = 0; v < p.vectors; v++) {
      nodes += out.status[STATUS_WORDS * v + 1]!;
      if (out.status[STATUS_WORDS * v]) flagged++;
    }
    return {
      ms: median(Array.from({ length: reps }, (_, r) => ev[2 * r + 1]!.elapsedSince(ev[2 * r]!))),
      nodes: nodes / p.vectors,
      flagged,
    };
  } finally {
    for (const e of ev) e.destroy();
    stream.destroy();
    dp.free();
  }
}

function throughput(): void {
  const dev = requireCuda().props;
  console.log(
    `# throughput, data on the GPU (${dev.name}, ${dev.multiprocessors} SMs), kernel-only incl. per-channel preprocessing, 16 vectors a channel`,
  );
  console.log('detector  config            kernel        vectors    ms        Mvec/s    Gbps   nodes/vec');
  const row = (d: string, cfg: string, variant: string, vectors: number, ms: number, bits: number, nodes: string) =>
    console.log(
      `${d.padEnd(9)} ${cfg.padEnd(17)} ${variant.padEnd(13)} ${String(vectors).padEnd(10)} ${ms.toFixed(3).padStart(8)}  ${(vectors / ms / 1e3).toFixed(1).padStart(8)}  ${((vectors * bits) / ms / 1e6).toFixed(2).padStart(7)}   ${nodes}`,
    );
  for (const mod of ['qpsk', '16qam'] as const) {
    const p = makeProblem(new Philox(seed, 1), 65536, 16, 4, 4, mod, 20);
    const bits = 4 * constellation(mod).bitsPerSymbol;
    for (const variant of ['thread', 'warp', 'auto'] as const) {
      const t = timePlan(sphereCudaDetector(variant), p, {}, false);
      const label =
        variant === 'auto'
          ? `auto:${defaultSphereKernel(4, bits / 4).variant}${defaultSphereKernel(4, bits / 4).lanes}`
          : variant === 'warp'
            ? 'warp8'
            : variant;
      row(
        'sphere',
        `4x4 ${mod} 20dB`,
        label,
        p.vectors,
        t.ms,
        bits,
        `${t.nodes.toFixed(1)}${t.flagged ? ` (${t.flagged} flagged)` : ''}`,
      );
    }
  }
  for (const [n, mod, chans] of [
    [2, 'qpsk', 65536],
    [2, '16qam', 65536],
    [4, 'qpsk', 65536],
    [4, '16qam', 4096],
  ] as const) {
    const p = makeProblem(new Philox(seed, 2), chans, 16, n, n, mod, 20);
    const bits = n * constellation(mod).bitsPerSymbol;
    for (const soft of [false, true]) {
      const t = timePlan(mlCuda, p, { soft: soft ? 'maxlog' : 'none' }, soft);
      row(
        'ml',
        `${n}x${n} ${mod} 20dB`,
        soft ? 'max-log' : 'hard',
        p.vectors,
        t.ms,
        bits,
        `${constellation(mod).size ** n} hyp`,
      );
    }
  }
}

type Reply = { symbols: Int32Array; ms: number };

/** The CPU engine (float64) on all cores over whole channels of the problem's first `vectors` vectors. */
async function cpuReference(
  pool: WorkerPool<{ input: DetectionInput; opts: DetectOptions }, Reply>,
  p: Problem,
  vectors: number,
  opts: DetectOptions,
): Promise<Int32Array> {
  const threads = availableParallelism(),
    channels = Math.ceil(vectors / p.vpc),
    per = Math.ceil(channels / threads);
  const hLen = 2 * p.nr * p.nt,
    yLen = 2 * p.nr;
  const tasks = [];
  for (let c = 0; c < channels; c += per) {
    const c1 = Math.min(channels, c + per);
    tasks.push(
      pool.run({
        input: {
          nr: p.nr,
          nt: p.nt,
          vectorsPerChannel: p.vpc,
          H: p.H.slice(c * hLen, c1 * hLen),
          y: p.y.slice(c * p.vpc * yLen, c1 * p.vpc * yLen),
          noiseVar: p.noiseVar,
        },
        opts: { ...opts, engine: 'cpu' },
      }),
    );
  }
  const out = new Int32Array(channels * p.vpc * p.nt);
  let o = 0;
  for (const r of await Promise.all(tasks)) {
    out.set(r.symbols, o);
    o += r.symbols.length;
  }
  return out;
}

/** Low, middle and high Es/N0 (dB) per modulation; 8x8 starts higher, where its deep searches stay affordable. */
const snrs = (n: number, mod: 'qpsk' | '16qam' | '64qam'): number[] =>
  mod === 'qpsk'
    ? [0, 10, 20]
    : mod === '16qam'
      ? n === 8
        ? [10, 17, 25]
        : [5, 15, 25]
      : n === 8
        ? [18, 24, 30]
        : [10, 20, 30];

async function bigCheck(): Promise<boolean> {
  const ctx = requireCuda();
  const pool = new WorkerPool<{ input: DetectionInput; opts: DetectOptions }, Reply>(
    new URL('./detect-worker.js', import.meta.url),
    availableParallelism(),
  );
  console.log(
    `\n# correctness: ${VECTORS} fresh vectors a configuration (10 a channel), GPU float32 against float64 ML on the CPU (seed ${seed})`,
  );
  console.log(
    'config              snr  reference   checked  | ml: near-ties (worst gap/tol)     | sphere (detectAsync, its default kernel): near-ties, redone on CPU, nodes/vec | the other kernel: near-ties',
  );
  let ok = true;
  try {
    for (const n of [2, 4, 8]) {
      for (const mod of ['qpsk', '16qam', '64qam'] as const) {
        for (const snr of snrs(n, mod)) {
          const p = makeProblem(new Philox(seed, n * 1000 + snr * 10 + mod.length), VECTORS / 10, 10, n, n, mod, snr);
          const input: DetectionInput = {
            nr: n,
            nt: n,
            H: p.H,
            y: p.y,
            vectorsPerChannel: p.vpc,
            noiseVar: p.noiseVar,
          };
          const hyp = constellation(mod).size ** n;
          const mlOk = hyp <= 1 << 24;
          const gpuMl = mlOk
            ? (await detectAsync(input, { detector: 'ml', modulation: mod, engine: 'cuda', soft: 'none' })).symbols
            : null;
          const sph = await detectAsync(input, {
            detector: 'sphere',
            modulation: mod,
            engine: 'cuda',
            onBudget: 'flag',
          });
          const nodesPerVec = (sph.stats.nodesVisited ?? 0) / p.vectors;
          const other: SphereVariant =
            defaultSphereKernel(n, constellation(mod).bitsPerSymbol).variant === 'thread' ? 'warp' : 'thread';
          const sphOther = gpuRun(ctx, sphereCudaDetector(other), p, { onBudget: 'flag' }, false);
          // the float64 reference: exhaustive ML where cheap, else the sphere decoder (exact ML)
          const refDet = hyp <= 1 << 16 ? 'ml' : 'sphere';
          const costPerVec = refDet === 'ml' ? hyp : Math.max(nodesPerVec, 1) * 4;
          const rate = 1.5e7 * availableParallelism(); // hypotheses or nodes a second, all cores (rough)
          const checked = Math.min(
            p.vectors,
            Math.max(p.vpc, Math.floor((CPU_SECONDS * rate) / costPerVec / p.vpc) * p.vpc),
          );
          const ref = await cpuReference(pool, p, checked, {
            detector: refDet,
            modulation: mod,
            // ml gives LLRs unless asked not to; sphere's search may stop at the node budget
            ...(refDet === 'ml' ? { soft: 'none' as const } : { onBudget: 'flag' as const }),
          });
          const sub: Problem = { ...p, channels: checked / p.vpc, vectors: checked };
          const unproven = (s: Uint8Array | undefined) => (v: number) => s?.[v] === 1;
          const cm = gpuMl ? checkAgainstMl(sub, ref, gpuMl) : null;
          const cs = checkAgainstMl(sub, ref, sph.symbols, unproven(sph.unproven));
          const co = checkAgainstMl(sub, ref, sphOther.symbols, (v) => sphOther.status[STATUS_WORDS * v]! !== 0);
          let otherFlagged = 0;
          for (let v = 0; v < checked; v++)
            if (sphOther.status[STATUS_WORDS * v]! & ~MIMO_STATUS.FLOAT32_UNSAFE) otherFlagged++;
          for (const [what, c] of [
            ['ml', cm],
            ['sphere', cs],
            [`sphere ${other}`, co],
          ] as const) {
            if (c?.failure) {
              ok = false;
              console.log(`FAIL ${n}x${n} ${mod} ${snr} dB ${what}: ${c.failure}`);
            }
          }
          const f = (c: typeof cs | null) =>
            c ? `${c.nearTies}${c.nearTies ? ` (${c.worstRatio.toFixed(2)})` : ''}` : 'refused (M^nt > 2^24)';
          console.log(
            `${`${n}x${n} ${mod}`.padEnd(18)} ${String(snr).padStart(4)}  ${refDet.padEnd(10)} ${String(checked).padStart(8)}  | ${f(cm).padEnd(32)} | ${f(cs)}, ${sph.stats.redoneOnCpu ?? 0}, ${nodesPerVec.toFixed(1)}${sph.stats.budgetExceeded ? `, ${sph.stats.budgetExceeded} over budget` : ''} | ${other} ${f(co)}${otherFlagged ? `, ${otherFlagged} over budget` : ''}`,
          );
        }
      }
    }
  } finally {
    await pool.close();
  }
  return ok;
}

/** Both search kernels (the warp kernel at 4 to 32 lanes a vector) over sizes and SNRs (--sweep-from n: from n x n on): Gbps, nodes a vector. */
function sweep(): void {
  console.log('\n# sphere kernels, data on the GPU: Gbps (nodes/vector)');
  const kernels: Array<[string, SphereVariant, number]> = [
    ['thread', 'thread', 8],
    ['warp4', 'warp', 4],
    ['warp8', 'warp', 8],
    ['warp16', 'warp', 16],
    ['warp32', 'warp', 32],
  ];
  console.log(`config               ${kernels.map((k) => k[0].padEnd(18)).join('')}`);
  for (const n of [2, 4, 8].filter((x) => x >= SWEEP_FROM)) {
    for (const mod of ['qpsk', '16qam', '64qam'] as const) {
      for (const snr of n === 8 && mod === '64qam' ? [20, 28] : [10, 20]) {
        const vectors = n === 8 ? (mod === '64qam' ? 1 << 16 : 1 << 18) : 1 << 20;
        const p = makeProblem(new Philox(seed, 9), vectors / 16, 16, n, n, mod, snr);
        const bits = n * constellation(mod).bitsPerSymbol;
        const cells = kernels.map(([, v, lanes]) => {
          const t = timePlan(sphereCudaDetector(v, lanes), p, { onBudget: 'flag' }, false, 3);
          return `${((p.vectors * bits) / t.ms / 1e6).toFixed(2)} (${t.nodes.toFixed(0)})`.padEnd(18);
        });
        console.log(`${`${n}x${n} ${mod} ${snr}dB`.padEnd(20)} ${cells.join('')}`);
      }
    }
  }
}

async function main(): Promise<void> {
  if (cl.flag('sweep')) sweep();
  if (!cl.flag('no-time')) throughput();
  const ok = cl.flag('no-check') ? true : await bigCheck();
  if (!ok) process.exitCode = 1;
}

await main();

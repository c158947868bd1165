/**
 * Timing of the CUDA engine on the device machine (not a test; run by hand there):
 *   node dist/bench/gpu-timing.js [--quick] [--out file.json] [--algos jacobi-parallel,allswap]
 * Prints a table and writes every figure as JSON. Kernel times are CUDA-event times (median of
 * repeated calls after a warm-up call that compiles and loads the module); total times are wall
 * times of the whole reduceBatchCuda call (staging, copies, kernel, results).
 */
import { writeFileSync } from 'node:fs';
import { CudaContext, Stream, cudaAvailable, describeCuda, loadModule, timeOnStream } from '../src/gpu/index.js';
import { gaussianBases, blockToeplitzBases } from '../src/lattice/generators.js';
import type { AlgoParams, CpuReducer } from '../src/lattice/types.js';
import type { GpuTuning } from '../src/lattice/gpu-tuning.js';
import type { RealArray } from '../src/core/matrix.js';
import { reduceBatchCuda as jacobiParallelCuda } from '../src/lattice/jacobi-parallel/cuda.js';
import { jacobiParallelCpu } from '../src/lattice/jacobi-parallel/cpu.js';
import { reduceBatchCuda as allswapCuda } from '../src/lattice/allswap/cuda.js';
import { allswapCpu } from '../src/lattice/allswap/cpu.js';

type Gpu = (
  d: RealArray,
  batch: number,
  n: number,
  m: number,
  p: AlgoParams,
) => Promise<{ stats: { kernelMs: number; totalMs: number; iterations: Int32Array; threadsPerBlock: number } }>;
interface AlgoEntry {
  gpu: Gpu;
  cpu: CpuReducer;
  threads?: (t: number) => GpuTuning;
}

const ALGOS: Record<string, AlgoEntry> = {
  'jacobi-parallel': { gpu: jacobiParallelCuda, cpu: jacobiParallelCpu, threads: (t) => ({ jacobi: { threads: t } }) },
  allswap: { gpu: allswapCuda, cpu: allswapCpu, threads: (t) => ({ allswap: { threads: t } }) },
};

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const outIdx = args.indexOf('--out');
const outFile = outIdx >= 0 ? args[outIdx + 1] : undefined;
const algosIdx = args.indexOf('--algos');
const PARAMS: AlgoParams = { delta: 0.75, eta: 0.51, blockSize: 8, maxIterations: 1_000_000 };
let params = PARAMS; // (with a threads-per-block choice while those are timed)
const rows: Record<string, unknown>[] = [];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function timeGpu(
  algo: string,
  e: AlgoEntry,
  family: string,
  data: RealArray,
  batch: number,
  n: number,
  m: number,
  reps: number,
): Promise<void> {
  try {
    await timeGpuOnce(algo, e, family, data, batch, n, m, reps);
  } catch (err) {
    // an ill-conditioned basis in a large random batch can stop a run (typed error): note it, go on
    console.log(`${algo} ${family} n=${n} m=${m} batch=${batch}: ${(err as Error).name}: ${(err as Error).message}`);
    rows.push({ algo, family, n, m, batch, error: (err as Error).message });
  }
}

async function timeGpuOnce(
  algo: string,
  e: AlgoEntry,
  family: string,
  data: RealArray,
  batch: number,
  n: number,
  m: number,
  reps: number,
): Promise<void> {
  await e.gpu(data, batch, n, m, params); // warm-up: compile / load
  const kernel: number[] = [],
    total: number[] = [];
  let iters = 0,
    threads = 0;
  for (let r = 0; r < reps; r++) {
    const res = await e.gpu(data, batch, n, m, params);
    kernel.push(res.stats.kernelMs);
    total.push(res.stats.totalMs);
    iters = res.stats.iterations.reduce((a, b) => a + b, 0) / batch;
    threads = res.stats.threadsPerBlock;
  }
  const precision = data instanceof Float32Array ? 'float32' : 'float64';
  const row = {
    algo,
    family,
    precision,
    n,
    m,
    batch,
    threads,
    reps,
    kernelMs: median(kernel),
    totalMs: median(total),
    kernelUsPerBasis: (1000 * median(kernel)) / batch,
    totalUsPerBasis: (1000 * median(total)) / batch,
    meanIterations: iters,
  };
  rows.push(row);
  console.log(
    `${algo.padEnd(16)} ${family.padEnd(9)} ${precision} n=${String(n).padStart(3)} m=${String(m).padStart(3)} batch=${String(batch).padStart(6)} thr=${String(threads).padStart(4)} ` +
      `kernel ${row.kernelMs.toFixed(3)} ms (${row.kernelUsPerBasis.toFixed(2)} us/basis)  total ${row.totalMs.toFixed(3)} ms (${row.totalUsPerBasis.toFixed(2)} us/basis)  iter ${iters.toFixed(1)}`,
  );
}

function timeCpu(
  algo: string,
  e: AlgoEntry,
  family: string,
  data: RealArray,
  batch: number,
  n: number,
  m: number,
): void {
  const t0 = performance.now();
  for (let k = 0; k < batch; k++) {
    const B = data.slice(k * n * m, (k + 1) * n * m) as RealArray;
    const Z = new Float64Array(m * m);
    for (let i = 0; i < m; i++) Z[i + i * m] = 1;
    try {
      e.cpu(B, Z, n, m, params);
    } catch {
      /* counted in the time; the GPU run reports it */
    }
  }
  const ms = performance.now() - t0;
  const precision = data instanceof Float32Array ? 'float32' : 'float64';
  rows.push({ algo: `${algo}-cpu`, family, precision, n, m, batch, totalMs: ms, totalUsPerBasis: (1000 * ms) / batch });
  console.log(
    `${(`${algo}-cpu`).padEnd(16)} ${family.padEnd(9)} ${precision} n=${String(n).padStart(3)} m=${String(m).padStart(3)} batch=${String(batch).padStart(6)} one thread: ${((1000 * ms) / batch).toFixed(1)} us/basis`,
  );
}

async function main(): Promise<void> {
  const a = cudaAvailable();
  for (const l of await describeCuda()) console.log(l);
  if (!a.ok) return;
  const ctx = CudaContext.get();

  // launch overhead through koffi: empty kernel, host clock per launch, and event time per launch
  const mod = loadModule(ctx, { source: 'extern "C" __global__ void empty(int x) {}', name: 'empty.cu' });
  const k = mod.kernel('empty', ['i32']);
  const stream = Stream.create(ctx);
  for (let i = 0; i < 100; i++) k.launch({ grid: 1, block: 32, stream }, [i]);
  stream.synchronize();
  const N = 20000;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) k.launch({ grid: 1, block: 32, stream }, [i]);
  const hostUs = ((performance.now() - t0) * 1000) / N;
  stream.synchronize();
  const ev = timeOnStream(
    ctx,
    stream,
    () => {
      for (let i = 0; i < 1000; i++) k.launch({ grid: 1, block: 32, stream }, [i]);
    },
    5,
    1,
  );
  console.log(
    `launch: ${hostUs.toFixed(2)} us host time per cuLaunchKernel through koffi; ${(ev.medianMs).toFixed(3)} ms device time per 1000 empty launches`,
  );
  rows.push({ what: 'launch', hostUsPerLaunch: hostUs, deviceMsPer1000: ev.medianMs });
  stream.destroy();

  const names = algosIdx >= 0 ? args[algosIdx + 1]!.split(',') : Object.keys(ALGOS);
  const seed = Date.now();
  for (const name of names) {
    const e = ALGOS[name];
    if (!e) {
      console.log(`no such algorithm: ${name}`);
      continue;
    }
    // the papers' sizes: one basis per call (latency) and a large batch (throughput)
    const sizes = quick
      ? [8, 16, 32, 64]
      : name === 'allswap'
        ? [4, 8, 16, 32, 64, 128]
        : [8, 10, 16, 20, 32, 40, 50, 64, 100, 200];
    for (const precision of ['float32', 'float64'] as const) {
      for (const n of sizes) {
        const g1 = gaussianBases({ batch: 1, n, seed: seed + n, precision });
        await timeGpu(name, e, 'gaussian', g1.data, 1, n, n, 10);
        const big = n <= 16 ? 16384 : n <= 64 ? 2048 : n <= 100 ? 264 : 132;
        const gb = gaussianBases({ batch: big, n, seed: seed + 7 * n, precision });
        await timeGpu(name, e, 'gaussian', gb.data, big, n, n, 5);
        if (n <= 64) timeCpu(name, e, 'gaussian', gb.data, Math.min(big, n <= 16 ? 200 : 10), n, n);
      }
      // block-Toeplitz, the CR-MB-LLL paper's family: 2x2 blocks, 3 taps, square as in the paper
      for (const blocks of quick ? [4, 32] : [4, 8, 16, 32]) {
        const t = blockToeplitzBases({ batch: 1024, blocks, blockSize: 2, taps: 3, shape: 'full', seed, precision });
        await timeGpu(name, e, 'toeplitz', t.data, 1024, t.rows, t.cols, 5);
      }
    }
    // threads per block for one size, when the algorithm lets us choose
    if (e.threads) {
      for (const n of [16, 64]) {
        const gb = gaussianBases({ batch: 2048, n, seed: seed + 3 * n, precision: 'float32' });
        for (const t of [32, 64, 128, 256, 384, 512, 1024]) {
          params = { ...PARAMS, gpuTuning: e.threads(t) };
          await timeGpu(name, e, 'gaussian', gb.data, 2048, n, n, 3);
        }
        params = PARAMS;
      }
    }
  }
  if (outFile)
    writeFileSync(outFile, JSON.stringify({ device: a.device, date: new Date().toISOString(), rows }, null, 1));
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});

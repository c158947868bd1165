/**
 * The CPU engine on every core, for the GPU tables' "CPU engine" column: a batch is split by whole
 * channels into one slice per worker thread (bench/mimo/detect-worker.ts), each slice detected with
 * detect(); the wall time of the slowest slice, after a warm-up round, is the batch's time.
 */
import { availableParallelism } from 'node:os';
import { WorkerPool } from '../../src/core/worker-pool.js';
import type { DetectionInput, DetectOptions } from '../../src/mimo/types.js';

type Task = { input: DetectionInput; opts: DetectOptions };
type Reply = { symbols: Int32Array; ms: number };

/** Slices of whole channels, one per thread. */
function slices(input: DetectionInput, threads: number): DetectionInput[] {
  const vpc = input.vectorsPerChannel ?? 1,
    hLen = 2 * input.nr * input.nt,
    yLen = 2 * input.nr;
  const channels = input.H.length / hLen,
    per = Math.ceil(channels / threads);
  const out: DetectionInput[] = [];
  for (let c = 0; c < channels; c += per) {
    const c1 = Math.min(channels, c + per);
    const nv = input.noiseVar;
    out.push({
      nt: input.nt,
      nr: input.nr,
      vectorsPerChannel: vpc,
      H: input.H.slice(c * hLen, c1 * hLen),
      y: input.y.slice(c * vpc * yLen, c1 * vpc * yLen),
      noiseVar: typeof nv === 'number' ? nv : nv.slice(c * vpc, c1 * vpc),
    });
  }
  return out;
}

/** Median wall time (ms) of `reps` all-core runs of the batch, and the symbols of the last. */
export async function cpuAllCores(
  input: DetectionInput,
  opts: DetectOptions,
  reps: number,
  threads = availableParallelism(),
): Promise<{ ms: number; threads: number; symbols: Int32Array }> {
  const pool = new WorkerPool<Task, Reply>(new URL('./detect-worker.js', import.meta.url), threads);
  try {
    const parts = slices(input, threads);
    const round = async (): Promise<{ ms: number; symbols: Int32Array }> => {
      const t = performance.now();
      const replies = await Promise.all(parts.map((p) => pool.run({ input: p, opts: { ...opts, engine: 'cpu' } })));
      const ms = performance.now() - t;
      const symbols = new Int32Array(replies.reduce((n, r) => n + r.symbols.length, 0));
      let o = 0;
      for (const r of replies) {
        symbols.set(r.symbols, o);
        o += r.symbols.length;
      }
      return { ms, symbols };
    };
    await round();
    const runs: number[] = [];
    let last = await round();
    runs.push(last.ms);
    for (let r = 1; r < reps; r++) {
      last = await round();
      runs.push(last.ms);
    }
    runs.sort((a, b) => a - b);
    return { ms: runs[runs.length >> 1]!, threads, symbols: last.symbols };
  } finally {
    await pool.close();
  }
}

/**
 * Coded chunks with detection and decoding on the GPU, through the two device-tested batch entries:
 * detectAsync() (the soft detector's float32 max-log LLRs) and decodeBatchAsync() (the layered
 * CUDA decoder). The chunk's bits, symbols, channels and noise are made on the host by the CPU
 * engine's generator (the same streams, so the same data as a CPU run), and the LLRs make a round
 * trip through the host between the two stages; the fused link (generation, detection, decoding and
 * counting in one stream, only counts back) is what executor.ts describes. Counts agree with the
 * CPU engine's within statistical error: float32 LLRs move frames that decode near a tie.
 *
 * `engine: 'cpu'` runs the same sequence on the CPU entries of both stages (the counts then equal
 * runChunk's): how the sequence is tested without a device.
 */
import { InvalidArgumentError } from '../../core/errors.js';
import { decodeBatchAsync } from '../../coding/index.js';
import { detectAsync } from '../../mimo/detect-async.js';
import { constellation } from '../../mimo/modulation.js';
import type { ChunkResult, ChunkTask, DetectorCounts } from '../chunk.js';
import { codeOf, countDecoded, frameLlrs, vectorsPerFrame } from '../coded.js';
import { generateLinkChunk } from '../link.js';
import type { ChunkExecutor } from '../worker-pool.js';

export class GpuCodedExecutor implements ChunkExecutor<ChunkTask, ChunkResult> {
  /** One chunk at a time: each stage already fills the device with the chunk's vectors or frames. */
  readonly parallelism = 1;
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly engine: 'cuda' | 'cpu') {}

  run(task: ChunkTask): Promise<ChunkResult> {
    const result = this.tail.then(() => {
      if (this.closed) throw new Error('coded GPU executor is closed');
      return this.chunk(task);
    });
    this.tail = result.catch(() => {});
    return result;
  }

  private async chunk(task: ChunkTask): Promise<ChunkResult> {
    if (!task.coded) throw new InvalidArgumentError('the coded GPU executor runs coded chunks only');
    const { nt, nr, modulation, vectorsPerChannel, noiseVar } = task;
    const link = generateLinkChunk(task);
    const code = codeOf(task.coded.code, modulation);
    const bps = constellation(modulation).bitsPerSymbol;
    const vpf = vectorsPerFrame(code.n, nt, bps);
    const frames = task.vectors / vpf;
    const counts: (DetectorCounts | null)[] = task.detectors.map(() => null);
    for (const d of task.active) {
      const t0 = performance.now();
      const opts = task.detectors[d]!;
      const out = await detectAsync({ nt, nr, H: link.H, y: link.y, vectorsPerChannel, noiseVar }, { ...opts, soft: opts.soft ?? 'maxlog', engine: this.engine });
      if (!out.llr) throw new InvalidArgumentError(`detector '${opts.detector}' returned no LLRs`);
      let symbolErrors = 0;
      for (let s = 0; s < out.symbols.length; s++) if (out.symbols[s] !== link.txIndices[s]) symbolErrors++;
      const llr = frameLlrs(out.llr, frames, code.n, vpf * nt * bps, this.engine === 'cuda');
      const dec = await decodeBatchAsync(code, llr, frames, { ...task.coded.decoder, engine: this.engine });
      counts[d] = { ...countDecoded(dec.bits, dec.iterations, link.info!, 0, frames, code.k), symbolErrors, frames, timeMs: performance.now() - t0 };
    }
    return { snrIndex: task.snrIndex, chunkIndex: task.chunkIndex, vectors: task.vectors, counts };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.tail;
  }
}

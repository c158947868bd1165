/**
 * Chunk sequences replayed as CUDA graphs. A chunk of a small batch is about ten driver calls
 * (copies and launches, 3 to 5 us each on the host), more than its device time; captured once into
 * a graph, the same sequence is one cuGraphLaunch. A sequence is named by a key that must fix every
 * operation and every argument of it (the batch runner builds it from the job's own key, the chunk
 * and every address it copies from or to): equal keys replay the same graph.
 */
import { check, outHandle, type DriverApi } from './driver.js';
import type { CudaContext } from './context.js';
import type { Stream } from './stream.js';

/** CU_STREAM_CAPTURE_MODE_RELAXED: other threads' CUDA calls stay legal while a stream captures. */
const CAPTURE_RELAXED = 2;
/** Graphs kept per context (least recently used dropped first). */
const GRAPHS_KEPT = 64;

type GraphApi = Required<{ [K in 'cuStreamBeginCapture' | 'cuStreamEndCapture' | 'cuGraphInstantiate' | 'cuGraphLaunch' | 'cuGraphExecDestroy' | 'cuGraphDestroy']: NonNullable<DriverApi[K]> }>;

function graphApi(d: DriverApi): GraphApi | null {
  const { cuStreamBeginCapture, cuStreamEndCapture, cuGraphInstantiate, cuGraphLaunch, cuGraphExecDestroy, cuGraphDestroy } = d;
  if (!cuStreamBeginCapture || !cuStreamEndCapture || !cuGraphInstantiate || !cuGraphLaunch || !cuGraphExecDestroy || !cuGraphDestroy) return null;
  return { cuStreamBeginCapture, cuStreamEndCapture, cuGraphInstantiate, cuGraphLaunch, cuGraphExecDestroy, cuGraphDestroy };
}

interface Captured { graph: bigint; exec: bigint }

/** The graphs of one context, by key. */
export class ChunkGraphs {
  private static readonly byContext = new Map<CudaContext, ChunkGraphs>();
  private readonly api: GraphApi | null;
  private readonly graphs = new Map<string, Captured>();
  /** Keys run once directly: a key is captured the second time it is seen (a one-off batch never pays for a capture). */
  private readonly seen = new Set<string>();

  private constructor(private readonly ctx: CudaContext) {
    this.api = graphApi(ctx.driver);
  }

  static of(ctx: CudaContext): ChunkGraphs {
    let g = ChunkGraphs.byContext.get(ctx);
    if (!g) ChunkGraphs.byContext.set(ctx, (g = new ChunkGraphs(ctx)));
    return g;
  }

  /**
   * Enqueues on `stream` what `enqueue` enqueues: by replaying the graph kept for `key`, by
   * capturing `enqueue` into one (the second time `key` is seen) and launching it, or by calling it.
   * `enqueue` must enqueue device work only, on `stream` only, the same for the same key; it is told
   * whether the stream is capturing (events it records or waits for then become graph nodes).
   */
  run(key: string, stream: Stream, enqueue: (capturing: boolean) => void): void {
    const api = this.api;
    const have = this.graphs.get(key);
    if (api && have) {
      // most recently used last, so that eviction takes the oldest
      this.graphs.delete(key);
      this.graphs.set(key, have);
      check(api.cuGraphLaunch(have.exec, stream.handle), 'cuGraphLaunch');
      return;
    }
    if (!api || !this.seen.has(key)) {
      if (this.seen.size >= 4 * GRAPHS_KEPT) this.seen.clear();
      this.seen.add(key);
      enqueue(false);
      return;
    }
    check(api.cuStreamBeginCapture(stream.handle, CAPTURE_RELAXED), 'cuStreamBeginCapture');
    const out = [0];
    let failure: unknown = null;
    try {
      enqueue(true);
    } catch (e) {
      failure = e;
    }
    // the capture ends whatever happened, so that the stream is usable again
    const ended = api.cuStreamEndCapture(stream.handle, out);
    if (failure !== null) {
      if (ended === 0 && out[0]) api.cuGraphDestroy(outHandle(out));
      throw failure;
    }
    check(ended, 'cuStreamEndCapture');
    const graph = outHandle(out);
    const ex = [0];
    const r = api.cuGraphInstantiate(ex, graph, 0n);
    if (r !== 0) {
      api.cuGraphDestroy(graph);
      check(r, 'cuGraphInstantiateWithFlags');
    }
    const captured = { graph, exec: outHandle(ex) };
    if (this.graphs.size >= GRAPHS_KEPT) {
      const [oldest, g] = this.graphs.entries().next().value as [string, Captured];
      this.graphs.delete(oldest);
      this.destroy(g);
    }
    this.graphs.set(key, captured);
    check(api.cuGraphLaunch(captured.exec, stream.handle), 'cuGraphLaunch');
  }

  /**
   * Drops every graph when the memory they copy to or from may have moved (`generation`, the
   * workspace's count of freed or replaced lane memory, differs from the last call's): a graph must
   * never replay into memory that was freed, even where an address comes back.
   */
  validate(generation: number): void {
    if (generation !== this.generation) {
      this.release();
      this.generation = generation;
    }
  }
  private generation = -1;

  /** Graphs kept (for tests). */
  get size(): number { return this.graphs.size; }

  /** Drops every graph (after the device work that uses them is done). */
  release(): void {
    for (const g of this.graphs.values()) this.destroy(g);
    this.graphs.clear();
    this.seen.clear();
  }

  private destroy(g: Captured): void {
    this.api?.cuGraphExecDestroy(g.exec);
    this.api?.cuGraphDestroy(g.graph);
  }
}

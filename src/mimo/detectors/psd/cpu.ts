/**
 * The Parallel Sphere Detector (Jozsa et al., ICCS 2013, Alg. 1), executed sequentially as the
 * deterministic reference of the GPU kernel. Exact ML.
 *
 * Hybrid breadth/depth-first search with stages x = 1 .. S (levels lvl_x, paths paths_lvl_x, see
 * config.ts). Stage x takes the next paths_lvl_{x-1} nodes (the "chunk" at offset of_{x-1}) of the
 * sorted buffer buf_{x-1}, expands every one whose path metric is below the shared squared radius
 * d^2 into all its children at level lvl_x (a parent at or beyond the radius gives children of
 * metric infinity), and then
 *  - below the leaf level: sorts buf_x by path metric (ties by buffer slot, so a GPU bitonic sort
 *    on (metric, slot) pairs gives the same order) and descends to stage x + 1 at offset 0;
 *  - at the leaf level: takes the best leaf (minimum reduction, ties to the lowest slot); if it
 *    beats the best so far, it becomes s_ML and d^2 shrinks to its metric.
 * When a buffer's chunks are used up, the search backtracks to the previous stage and continues
 * with that buffer's next chunk (PROCESS in the paper). Since a buffer is sorted and d^2 only
 * shrinks, once the next chunk's first node is at or beyond d^2 the whole buffer is done: we go up
 * at once (same result, less work). Every node of the tree is thus either expanded or cut by a
 * valid bound, which makes the result the ML solution.
 *
 * Nodes visited = children whose path metric was computed (the GPU's expanded nodes).
 */
import { UnsupportedError } from '../../../core/index.js';
import type { CpuDetector, DetectorInstance, DetectorOutput, DetectorSetup } from '../detector.js';
import {
  allocTriangular,
  realModel,
  rotateReceived,
  symbolsFromLevels,
  triangularizeInto,
  type RealModel,
  type TriangularChannel,
} from '../../preprocess/real-system.js';
import { psdConfig, type PsdConfig } from './config.js';

export interface PsdPrep {
  readonly tri: TriangularChannel;
  /** R row-major. */
  readonly rows: Float64Array;
}

/** Buffers of one PSD search, allocated once per batch. */
export class PsdSearch {
  readonly yr: Float64Array;
  readonly yHat: Float64Array;
  /** syms[x][slot * n + k]: level index at tree position k of node `slot` of buf_x. */
  readonly syms: Int32Array[];
  /** metric[x][slot]: the path metric (bufPM_x). */
  readonly metric: Float64Array[];
  /** order[x][i]: slot of the i-th node of buf_x after sorting. */
  readonly order: Int32Array[];
  readonly count: Int32Array;
  readonly offset: Int32Array;
  readonly amp: Float64Array;
  /** Residual of rows being fixed at a stage after the parent's positions. */
  readonly base: Float64Array;
  readonly levelAmp: Float64Array;
  readonly best: Int32Array;
  readonly scratch: Int32Array;
  nodes = 0;
  /** Whether the last search stopped at its node budget (its answer is then not proven ML). */
  stopped = false;

  constructor(
    readonly model: RealModel,
    readonly config: PsdConfig,
  ) {
    const { m, n, q, scale } = model;
    const stages = config.levels.length - 1;
    this.yr = new Float64Array(m);
    this.yHat = new Float64Array(n);
    this.syms = config.expanded.map((e) => new Int32Array(e * n));
    this.metric = config.expanded.map((e) => new Float64Array(e));
    this.order = config.expanded.map((e) => new Int32Array(e));
    this.count = new Int32Array(stages + 1);
    this.offset = new Int32Array(stages + 1);
    this.amp = new Float64Array(n);
    this.base = new Float64Array(n);
    this.levelAmp = new Float64Array(q);
    for (let i = 0; i < q; i++) this.levelAmp[i] = (2 * i - (q - 1)) * scale;
    this.best = new Int32Array(n);
    this.scratch = new Int32Array(n);
  }

  /**
   * EXPAND AND EVALUATE for stage x: the chunk buf_{x-1}[order from `from`, `parents` nodes] into
   * buf_x. Children of a parent are enumerated with the top new position as the most significant
   * digit; returns the number of children written.
   */
  private expand(p: PsdPrep, x: number, from: number, parents: number, d2: number): number {
    const { n, q } = this.model;
    const hiPos = this.config.levels[x - 1]! - 2; // first position fixed at this stage (top)
    const loPos = this.config.levels[x]! - 1; // last position fixed at this stage
    const width = hiPos - loPos + 1;
    const perParent = q ** width;
    const srcSyms = this.syms[x - 1]!,
      srcMetric = this.metric[x - 1]!,
      srcOrder = this.order[x - 1]!;
    const dstSyms = this.syms[x]!,
      dstMetric = this.metric[x]!;
    const rows = p.rows;
    const { yHat, amp, levelAmp } = this;
    const base = this.base;
    const qMask = q - 1,
      qBits = Math.log2(q);
    let slot = 0;
    for (let t = 0; t < parents; t++) {
      const ps = srcOrder[from + t]!;
      const pm = srcMetric[ps]!;
      const alive = pm < d2;
      // Amplitudes of the parent's fixed positions, and each new row's residual after them.
      for (let k = hiPos + 1; k < n; k++) amp[k] = levelAmp[srcSyms[ps * n + k]!]!;
      if (alive) {
        for (let k = loPos; k <= hiPos; k++) {
          let e = yHat[k]!;
          for (let j = hiPos + 1; j < n; j++) e -= rows[k * n + j]! * amp[j]!;
          base[k] = e;
        }
      }
      for (let c = 0; c < perParent; c++, slot++) {
        const sb = slot * n;
        for (let k = hiPos + 1; k < n; k++) dstSyms[sb + k] = srcSyms[ps * n + k]!;
        // Digits of c in base q (a power of two), most significant = position hiPos.
        let rest = c;
        for (let k = loPos; k <= hiPos; k++) {
          dstSyms[sb + k] = rest & qMask;
          rest >>>= qBits;
        }
        if (!alive) {
          dstMetric[slot] = Infinity;
          continue;
        }
        let metricValue = pm;
        for (let k = hiPos; k >= loPos; k--) {
          amp[k] = levelAmp[dstSyms[sb + k]!]!;
          let e = base[k]!;
          const rb = k * n;
          for (let j = k; j <= hiPos; j++) e -= rows[rb + j]! * amp[j]!;
          metricValue += e * e;
        }
        dstMetric[slot] = metricValue;
        this.nodes++;
      }
    }
    return slot;
  }

  /** Sorts buf_x's slots 0..count-1 by (metric, slot) into order[x]. */
  private sortStage(x: number, count: number): void {
    const ord = this.order[x]!,
      met = this.metric[x]!;
    for (let i = 0; i < count; i++) ord[i] = i;
    if (count <= 64) {
      for (let i = 1; i < count; i++) {
        const s = ord[i]!,
          ms = met[s]!;
        let j = i - 1;
        while (j >= 0 && met[ord[j]!]! > ms) {
          ord[j + 1] = ord[j]!;
          j--;
        }
        ord[j + 1] = s;
      }
    } else {
      ord.subarray(0, count).sort((a, b) => met[a]! - met[b]! || a - b);
    }
  }

  /**
   * ML search for this.yHat; the solution's level indices go to this.best; returns its metric.
   * Once it holds a leaf and has visited maxNodes nodes, it stops (this.stopped) with the best leaf.
   */
  search(p: PsdPrep, maxNodes = Infinity): number {
    const { n } = this.model;
    const { levels, paths } = this.config;
    const S = levels.length - 1;
    const { count, offset, metric, order, syms, best } = this;
    this.nodes = 0;
    this.stopped = false;
    let d2 = Infinity;
    // buf_0 = the root.
    metric[0]![0] = 0;
    order[0]![0] = 0;
    count[0] = 1;
    offset[0] = 0;
    let x = 1;
    // Bounded: each pass consumes a chunk of some buffer or moves up; buffers are finite.
    for (;;) {
      const o = offset[x - 1]!;
      if (o < count[x - 1]! && metric[x - 1]![order[x - 1]![o]!]! < d2) {
        const parents = Math.min(paths[x - 1]!, count[x - 1]! - o);
        const written = this.expand(p, x, o, parents, d2);
        offset[x - 1] = o + parents;
        if (x === S) {
          // Leaf level: minimum reduction, then the shared radius update.
          const met = metric[x]!;
          let bi = -1,
            bm = Infinity;
          for (let s = 0; s < written; s++)
            if (met[s]! < bm) {
              bm = met[s]!;
              bi = s;
            }
          if (bi >= 0 && bm < d2) {
            d2 = bm;
            for (let k = 0; k < n; k++) best[k] = syms[x]![bi * n + k]!;
          }
        } else {
          count[x] = written;
          this.sortStage(x, written);
          offset[x] = 0;
          x++;
        }
        if (this.nodes >= maxNodes && d2 < Infinity) {
          // A leaf is held (the first descent always reaches one): stop with it.
          this.stopped = true;
          break;
        }
      } else {
        if (x === 1) break;
        x--;
      }
    }
    return d2;
  }
}

export const detector: CpuDetector<PsdPrep> = {
  name: 'psd',
  soft: false,
  create(setup: DetectorSetup): DetectorInstance<PsdPrep> & { readonly searcher: PsdSearch } {
    const { nr, nt, constellation: con, opts } = setup;
    const model = realModel(con, nt, nr);
    // detect() checks this first (checkDetectorShape); kept for direct users of the detector.
    if (model.m < model.n)
      throw new UnsupportedError(
        `psd needs as many real receive dimensions as real unknowns (got nt = ${nt}, nr = ${nr})`,
      );
    const config = psdConfig(model.n, model.q, opts.psd);
    const searcher = new PsdSearch(model, config);
    const prep: PsdPrep = { tri: allocTriangular(model), rows: new Float64Array(model.n * model.n) };
    return {
      searcher,
      prepare(H: Float64Array, hOff: number): PsdPrep {
        const { tri, rows } = prep,
          n = model.n;
        triangularizeInto(model, H, hOff, 'ascending', tri);
        for (let k = 0; k < n; k++) for (let j = k; j < n; j++) rows[k * n + j] = tri.R[k + j * n]!;
        return prep;
      },
      detect(p: PsdPrep, y: Float64Array, yOff: number, _noiseVar: number, out: DetectorOutput, v: number): number {
        rotateReceived(model, p.tri, y, yOff, searcher.yr, searcher.yHat);
        searcher.search(p, setup.maxNodes);
        if (searcher.stopped) out.unproven[v] = 1;
        symbolsFromLevels(model, p.tri.perm, searcher.best, out.symbols, v * nt, searcher.scratch);
        return searcher.nodes;
      },
    };
  },
};

/**
 * K-best breadth-first tree search on a real-valued upper-triangular system |z - R p|^2, p_i odd
 * integers in [-(Q-1), Q-1]: from the last level up, every surviving path is extended by all Q
 * children and the K children of least partial metric survive. With K >= Q^nd nothing is pruned
 * and the search is exhaustive (ML).
 */

/** Buffers for one search, sized for K survivors and Q children each. */
export class KBestScratch {
  /** Surviving paths' level indices (column order), K x nd, and their partial metrics. */
  levels: Int32Array;
  metric: Float64Array;
  /** The next level's survivors (swapped with levels / metric after each level). */
  private nextLevels: Int32Array;
  private nextMetric: Float64Array;
  /** All children of one level: metric, and a selection index array. */
  private readonly childMetric: Float64Array;
  private readonly childIndex: Int32Array;
  /** b_i of each surviving path at the current level. */
  private readonly partial: Float64Array;
  /** After search(): the number of survivors, and of children evaluated (tree nodes visited). */
  count = 0;
  nodes = 0;

  constructor(
    readonly k: number,
    readonly nd: number,
    readonly q: number,
  ) {
    this.levels = new Int32Array(k * nd);
    this.nextLevels = new Int32Array(k * nd);
    this.metric = new Float64Array(k);
    this.nextMetric = new Float64Array(k);
    this.childMetric = new Float64Array(k * q);
    this.childIndex = new Int32Array(k * q);
    this.partial = new Float64Array(k);
  }

  /**
   * Searches R (nd x nd, column-major) and z. Afterwards levels / metric hold the `count`
   * survivors (in no particular order).
   */
  search(R: Float64Array, z: Float64Array): void {
    const { k, nd, q } = this;
    const half = q - 1;
    let count = 1;
    this.metric[0] = 0;
    let nodes = 0;
    for (let i = nd - 1; i >= 0; i--) {
      const rii = R[i + i * nd]!;
      // Interference-cancelled observation of every survivor at level i.
      for (let s = 0; s < count; s++) {
        let b = z[i]!;
        const base = s * nd;
        for (let j = i + 1; j < nd; j++) b -= R[i + j * nd]! * (2 * this.levels[base + j]! - half);
        this.partial[s] = b;
      }
      const children = count * q;
      for (let s = 0; s < count; s++) {
        const b = this.partial[s]!,
          d = this.metric[s]!;
        for (let c = 0; c < q; c++) {
          const e = b - rii * (2 * c - half);
          this.childMetric[s * q + c] = d + e * e;
        }
      }
      nodes += children;
      const keep = children < k ? children : k;
      for (let c = 0; c < children; c++) this.childIndex[c] = c;
      if (keep < children) selectSmallest(this.childIndex, this.childMetric, children, keep);
      for (let t = 0; t < keep; t++) {
        const child = this.childIndex[t]!;
        const parent = (child / q) | 0;
        const dst = t * nd,
          src = parent * nd;
        for (let j = i + 1; j < nd; j++) this.nextLevels[dst + j] = this.levels[src + j]!;
        this.nextLevels[dst + i] = child - parent * q;
        this.nextMetric[t] = this.childMetric[child]!;
      }
      const tl = this.levels;
      this.levels = this.nextLevels;
      this.nextLevels = tl;
      const tm = this.metric;
      this.metric = this.nextMetric;
      this.nextMetric = tm;
      count = keep;
    }
    this.count = count;
    this.nodes = nodes;
  }
}

/**
 * Reorders idx[0 .. n) so that its first k entries index the k smallest keys (quickselect with a
 * median-of-three pivot; ties broken by index so the result is deterministic).
 */
export function selectSmallest(idx: Int32Array, keys: Float64Array, n: number, k: number): void {
  let lo = 0,
    hi = n - 1;
  // Each round shrinks [lo, hi] by at least one element, so at most n rounds.
  for (let round = 0; round < n && lo < hi; round++) {
    const mid = (lo + hi) >>> 1;
    // Median of three into idx[hi] as the pivot.
    if (less(keys, idx[mid]!, idx[lo]!)) swap(idx, mid, lo);
    if (less(keys, idx[hi]!, idx[lo]!)) swap(idx, hi, lo);
    if (less(keys, idx[mid]!, idx[hi]!)) swap(idx, mid, hi);
    const pivot = idx[hi]!;
    let store = lo;
    for (let t = lo; t < hi; t++) if (less(keys, idx[t]!, pivot)) swap(idx, t, store++);
    swap(idx, store, hi);
    if (store === k - 1 || store === k) return;
    if (store < k) lo = store + 1;
    else hi = store - 1;
  }
}

function less(keys: Float64Array, a: number, b: number): boolean {
  return keys[a]! < keys[b]! || (keys[a] === keys[b] && a < b);
}

function swap(a: Int32Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

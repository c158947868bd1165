/**
 * K-best breadth-first tree search on a real-valued upper-triangular system |z - R p|^2, p_i odd
 * integers in [-(Q-1), Q-1]: from the last level up, every surviving path is extended by all Q
 * children and the K children of least partial metric survive. With K >= Q^nd nothing is pruned
 * and the search is exhaustive (ML).
 *
 * Ties (the GPU kernel, kbest-search.cu, breaks them alike): child c of the survivor in slot s has
 * index s Q + c; a pruned level keeps the K least children by (metric, index), in that order; a
 * level whose children all survive keeps them in index order; the best survivor is the least by
 * (metric, slot). Selecting without sorting finds the same list unless two metrics tie exactly at
 * a cut or at the best (y = 0 makes x and -x tie), so search() sorts only then, in a second pass.
 *
 * A-priori LLRs (IDD): each child's metric gains its level's cost (colCost, N0 sum over the bits
 * of its real dimension of max(0, -s_b L_a(b)); cpu.ts fills it), so the K survivors are ranked,
 * and ties broken, on distance plus cost; every level still evaluates all Q children, so the node
 * count is unchanged. A column whose bits have no priors adds nothing: all-zero priors search
 * exactly as without.
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
  /** A-priori costs by column: colCost[i * Q + l] of level l in column i, used where colActive[i] is 1. */
  readonly colCost: Float64Array;
  /** colActive[i] = 1 where column i's bits have priors. */
  readonly colActive: Uint8Array;
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
    this.colCost = new Float64Array(nd * q);
    this.colActive = new Uint8Array(nd);
  }

  /**
   * Searches R (nd x nd, column-major) and z; `withPrior`: the metrics include colCost of the
   * columns whose colActive is 1. Afterwards levels / metric hold the `count` survivors, in slots
   * as the file comment says wherever their order decides a tie.
   */
  search(R: Float64Array, z: Float64Array, withPrior = false): void {
    if (!this.pass(R, z, false, withPrior)) this.pass(R, z, true, withPrior);
  }

  /**
   * One search; `ordered` sorts every pruned level's survivors. Unordered, it returns false when
   * an exact tie lies at a cut or at the best survivor (the slots' order would decide it).
   */
  private pass(R: Float64Array, z: Float64Array, ordered: boolean, withPrior: boolean): boolean {
    const { k, nd, q, colCost } = this;
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
      if (withPrior && this.colActive[i] === 1) {
        const at = i * q;
        for (let s = 0; s < count; s++) {
          const b = this.partial[s]!,
            d = this.metric[s]!;
          for (let c = 0; c < q; c++) {
            const e = b - rii * (2 * c - half);
            this.childMetric[s * q + c] = d + e * e + colCost[at + c]!;
          }
        }
      } else {
        for (let s = 0; s < count; s++) {
          const b = this.partial[s]!,
            d = this.metric[s]!;
          for (let c = 0; c < q; c++) {
            const e = b - rii * (2 * c - half);
            this.childMetric[s * q + c] = d + e * e;
          }
        }
      }
      nodes += children;
      const keep = children < k ? children : k;
      for (let c = 0; c < children; c++) this.childIndex[c] = c;
      if (keep < children) {
        if (ordered) sortSmallest(this.childIndex, this.childMetric, children, keep);
        else {
          const at = selectSmallest(this.childIndex, this.childMetric, children, keep);
          if (tiedAtCut(this.childIndex, this.childMetric, children, keep, at)) return false;
        }
      }
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
    if (ordered) return true;
    let best = Infinity,
      ties = 0;
    for (let t = 0; t < count; t++) {
      const m = this.metric[t]!;
      if (m < best) {
        best = m;
        ties = 0;
      } else if (m === best) ties++;
    }
    return ties === 0;
  }
}

/**
 * After selectSmallest(idx, keys, n, k) returned `at`: whether the largest of keys[idx[0 .. k)]
 * equals the least of keys[idx[k .. n)]. idx[at] is the k-th or the (k+1)-th smallest, so one side
 * is scanned.
 */
function tiedAtCut(idx: Int32Array, keys: Float64Array, n: number, k: number, at: number): boolean {
  const edge = keys[idx[at]!]!;
  if (at === k) {
    for (let t = 0; t < k; t++) if (keys[idx[t]!] === edge) return true;
  } else {
    for (let t = k; t < n; t++) if (keys[idx[t]!] === edge) return true;
  }
  return false;
}

/**
 * One quicksort partition of idx[lo .. hi] (lo < hi) by (key, index) around the median of three:
 * the pivot's final place, smaller entries before it and the others after.
 */
function partition(idx: Int32Array, keys: Float64Array, lo: number, hi: number): number {
  const mid = (lo + hi) >>> 1;
  if (less(keys, idx[mid]!, idx[lo]!)) swap(idx, mid, lo);
  if (less(keys, idx[hi]!, idx[lo]!)) swap(idx, hi, lo);
  if (less(keys, idx[mid]!, idx[hi]!)) swap(idx, mid, hi);
  const pivot = idx[hi]!;
  let store = lo;
  for (let t = lo; t < hi; t++) if (less(keys, idx[t]!, pivot)) swap(idx, t, store++);
  swap(idx, store, hi);
  return store;
}

/**
 * Reorders idx[0 .. n) (0 < k < n) so that its first k entries index the k smallest keys
 * (quickselect with a median-of-three pivot; ties broken by index so the result is deterministic).
 * Returns the position, k - 1 or k, of its last pivot: the k-th or the (k+1)-th smallest.
 */
export function selectSmallest(idx: Int32Array, keys: Float64Array, n: number, k: number): number {
  let lo = 0,
    hi = n - 1;
  // lo <= k - 1 < k <= hi throughout; each round shrinks [lo, hi], so it ends at a pivot in k - 1 or k.
  for (;;) {
    const store = partition(idx, keys, lo, hi);
    if (store === k - 1 || store === k) return store;
    if (store < k) lo = store + 1;
    else hi = store - 1;
  }
}

/**
 * Reorders idx[0 .. n) so that its first k entries index the k smallest keys, sorted by (key,
 * index): a quicksort (median-of-three pivots) that leaves unsorted what lies past the first k.
 */
export function sortSmallest(idx: Int32Array, keys: Float64Array, n: number, k: number): void {
  sortRange(idx, keys, 0, n - 1, k);
}

/** Sorts the part of idx[lo .. hi] that can reach the first k places (recursing on the smaller side: depth log n). */
function sortRange(idx: Int32Array, keys: Float64Array, lo: number, hi: number, k: number): void {
  while (lo < hi && lo < k) {
    if (hi - lo < 16) {
      for (let t = lo + 1; t <= hi; t++) {
        const v = idx[t]!;
        let u = t;
        for (; u > lo && less(keys, v, idx[u - 1]!); u--) idx[u] = idx[u - 1]!;
        idx[u] = v;
      }
      return;
    }
    const store = partition(idx, keys, lo, hi);
    if (store - lo < hi - store) {
      sortRange(idx, keys, lo, store - 1, k);
      lo = store + 1;
    } else {
      sortRange(idx, keys, store + 1, hi, k);
      hi = store - 1;
    }
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

/**
 * Depth-first Schnorr-Euchner sphere decoder (exact ML) on the real-valued model.
 *
 * Per channel: sorted QR (SQRD) of the complex channel, expanded to the real model by MRVD (Re and
 * Im of a stream at neighbouring tree levels), so the tree's top levels are the strongest layers.
 * Per vector: yHat = Q^T y_r, then a depth-first search from position n-1 down to 0; at each
 * level the candidates are visited in increasing distance from the level's centre (zig-zag, clamped
 * to the alphabet), a branch is cut as soon as its partial metric reaches the squared radius, and
 * the radius shrinks to every leaf found. Initial radius: infinity (the first leaf is the Babai /
 * SIC point) or 'babai': the distance of the sliced unconstrained least-squares point (the PSD
 * paper's "ZF radius").
 *
 * Everything runs on preallocated Float64Array / Int32Array buffers: nothing is allocated per vector.
 * Nodes visited = tree nodes whose partial metric was computed.
 */
import { InvalidArgumentError, UnsupportedError, show } from '../../../core/index.js';
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
import { SphereKernel, sphereKernelRefusal } from './wasm.js';

export interface SpherePrep {
  readonly tri: TriangularChannel;
  /** R row-major (rows[k * n + j] = R_kj). */
  readonly rows: Float64Array;
  /** 1 / R_kk. */
  readonly invDiag: Float64Array;
  /** (2 scale R_kk)^2: metric per squared level-index distance at position k. */
  readonly weight: Float64Array;
}

export function allocSpherePrep(model: RealModel): SpherePrep {
  const n = model.n;
  return {
    tri: allocTriangular(model),
    rows: new Float64Array(n * n),
    invDiag: new Float64Array(n),
    weight: new Float64Array(n),
  };
}

/** Per-channel preprocessing into p (reused buffers): RVD, SQRD, R by rows, 1 / R_kk, weights. */
export function prepareSphere(model: RealModel, H: Float64Array, hOff: number, p: SpherePrep): SpherePrep {
  const n = model.n;
  const { tri, rows, invDiag, weight } = p;
  triangularizeInto(model, H, hOff, 'ascending', tri, 'complex');
  for (let k = 0; k < n; k++) {
    for (let j = k; j < n; j++) rows[k * n + j] = tri.R[k + j * n]!;
    const d = tri.R[k + k * n]!;
    invDiag[k] = 1 / d;
    weight[k] = 4 * model.scale * model.scale * d * d;
  }
  return p;
}

/** Scratch buffers of one search (allocated once per batch). */
export class SphereSearch {
  readonly yr: Float64Array;
  readonly yHat: Float64Array;
  readonly amp: Float64Array; // amplitude of the chosen level at each position
  readonly pd: Float64Array; // pd[k] = partial metric of positions k..n-1 (pd[n] = 0)
  readonly centre: Float64Array; // centre of position k in level-index units
  readonly idx: Int32Array;
  readonly lo: Int32Array; // next candidate below the centre
  readonly hi: Int32Array; // next candidate above the centre
  readonly best: Int32Array;
  readonly scratch: Int32Array;
  nodes = 0;
  /** Whether the last search stopped at its node budget (its answer is then not proven ML). */
  stopped = false;

  constructor(readonly model: RealModel) {
    const { m, n } = model;
    this.yr = new Float64Array(m);
    this.yHat = new Float64Array(n);
    this.amp = new Float64Array(n);
    this.pd = new Float64Array(n + 1);
    this.centre = new Float64Array(n);
    this.idx = new Int32Array(n);
    this.lo = new Int32Array(n);
    this.hi = new Int32Array(n);
    this.best = new Int32Array(n);
    this.scratch = new Int32Array(n);
  }

  /** Squared distance of the sliced unconstrained LS point (back substitution, then rounding). */
  zfRadius(p: SpherePrep): number {
    const { n, q, scale } = this.model;
    const { yHat, amp, idx } = this;
    const rows = p.rows,
      half = (q - 1) / 2;
    for (let k = n - 1; k >= 0; k--) {
      let s = yHat[k]!;
      for (let j = k + 1; j < n; j++) s -= rows[k * n + j]! * amp[j]!; // unconstrained, uses unsliced amp
      amp[k] = s * p.invDiag[k]!;
    }
    for (let k = 0; k < n; k++) {
      let i = Math.round(amp[k]! / (2 * scale) + half);
      if (i < 0) i = 0;
      else if (i > q - 1) i = q - 1;
      idx[k] = i;
    }
    for (let k = 0; k < n; k++) amp[k] = (2 * idx[k]! - (q - 1)) * scale;
    let d = 0;
    for (let k = 0; k < n; k++) {
      let s = yHat[k]!;
      for (let j = k; j < n; j++) s -= rows[k * n + j]! * amp[j]!;
      d += s * s;
    }
    this.best.set(idx);
    return d;
  }

  /**
   * ML search for the rotated vector in this.yHat; the solution's level indices go to this.best.
   * Returns the ML metric ||yHat - R x||^2. Past maxNodes nodes it stops (this.stopped) with the
   * best leaf so far, or the sliced ZF point when it has none.
   */
  search(p: SpherePrep, initialRadius2: number, maxNodes = Infinity): number {
    const { n, q, scale } = this.model;
    const { yHat, amp, pd, centre, idx, lo, hi, best } = this;
    const rows = p.rows,
      invDiag = p.invDiag,
      weight = p.weight;
    const half = (q - 1) / 2,
      toIndex = 1 / (2 * scale),
      qMax = q - 1;
    let r2 = initialRadius2;
    let found = false;
    let nodes = 0;
    let k = n - 1;
    this.stopped = false;
    pd[n] = 0;
    // Centre of the top level, nearest level first.
    {
      const u = yHat[k]! * invDiag[k]! * toIndex + half;
      let i0 = Math.round(u);
      if (i0 < 0) i0 = 0;
      else if (i0 > qMax) i0 = qMax;
      centre[k] = u;
      idx[k] = i0;
      lo[k] = i0 - 1;
      hi[k] = i0 + 1;
    }
    // Bounded: every iteration either descends (at most n times per candidate) or consumes a
    // candidate; the tree is finite.
    for (;;) {
      const dlt = idx[k]! - centre[k]!;
      const m = pd[k + 1]! + weight[k]! * dlt * dlt;
      if (++nodes > maxNodes) {
        this.nodes = nodes - 1;
        this.stopped = true;
        return found ? r2 : this.fallback(p);
      }
      if (m < r2) {
        if (k === 0) {
          r2 = m;
          found = true;
          best.set(idx);
          // Siblings at the leaf level are farther: go up.
          k = 1;
        } else {
          amp[k] = (2 * idx[k]! - qMax) * scale;
          pd[k] = m;
          k--;
          let s = yHat[k]!;
          const rb = k * n;
          for (let j = k + 1; j < n; j++) s -= rows[rb + j]! * amp[j]!;
          const u = s * invDiag[k]! * toIndex + half;
          let i0 = Math.round(u);
          if (i0 < 0) i0 = 0;
          else if (i0 > qMax) i0 = qMax;
          centre[k] = u;
          idx[k] = i0;
          lo[k] = i0 - 1;
          hi[k] = i0 + 1;
          continue;
        }
      } else {
        k++;
      }
      // Next candidate at level k (going further up while a level is exhausted).
      for (;;) {
        if (k >= n) {
          this.nodes = nodes;
          if (!found) return this.fallback(p);
          return r2;
        }
        const l = lo[k]!,
          h = hi[k]!,
          u = centre[k]!;
        const lOk = l >= 0,
          hOk = h <= qMax;
        if (lOk && (!hOk || u - l <= h - u)) {
          idx[k] = l;
          lo[k] = l - 1;
          break;
        }
        if (hOk) {
          idx[k] = h;
          hi[k] = h + 1;
          break;
        }
        k++;
      }
    }
  }

  /**
   * Nothing inside the initial radius (only when it was finite): the ZF point stored in best is ML.
   * Also the answer of a search stopped at its budget before its first leaf.
   */
  private fallback(p: SpherePrep): number {
    return this.zfRadius(p);
  }
}

export interface SphereInstance extends DetectorInstance<SpherePrep> {
  readonly searcher: SphereSearch;
}

/** opts.initialRadius validated (default 'infinity'). */
function initialRadiusOf(r: unknown): 'infinity' | 'babai' {
  const initial = r ?? 'infinity';
  if (initial !== 'infinity' && initial !== 'babai')
    throw new InvalidArgumentError(`initialRadius must be 'infinity' or 'babai', got ${show(initial)}`);
  return initial;
}

export const detector: CpuDetector<SpherePrep> = {
  name: 'sphere',
  soft: false,
  lanes(setup) {
    const model = realModel(setup.constellation, setup.nt, setup.nr);
    const babai = initialRadiusOf(setup.opts.initialRadius) === 'babai';
    return sphereKernelRefusal(model) ?? new SphereKernel(model, babai, setup.maxNodes);
  },
  create(setup: DetectorSetup): SphereInstance {
    const { nr, nt, constellation: con, opts } = setup;
    const initial = initialRadiusOf(opts.initialRadius);
    const model = realModel(con, nt, nr);
    // detect() checks this first (checkDetectorShape); kept for direct users of the detector.
    if (model.m < model.n)
      throw new UnsupportedError(
        `sphere needs as many real receive dimensions as real unknowns (got nt = ${nt}, nr = ${nr})`,
      );
    const searcher = new SphereSearch(model);
    const prep = allocSpherePrep(model);
    return {
      searcher,
      prepare: (H, hOff) => prepareSphere(model, H, hOff, prep),
      detect(p: SpherePrep, y: Float64Array, yOff: number, _noiseVar: number, out: DetectorOutput, v: number): number {
        rotateReceived(model, p.tri, y, yOff, searcher.yr, searcher.yHat);
        // Inflate the ZF radius slightly so that rounding cannot exclude the ZF point itself.
        const r0 = initial === 'babai' ? searcher.zfRadius(p) * (1 + 1e-9) + 1e-300 : Infinity;
        searcher.search(p, r0, setup.maxNodes);
        if (searcher.stopped) out.unproven[v] = 1;
        symbolsFromLevels(model, p.tri.perm, searcher.best, out.symbols, v * nt, searcher.scratch);
        return searcher.nodes;
      },
    };
  },
};

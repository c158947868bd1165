/**
 * Independent float64 references of the ep and mmse-pic detectors, transcribed from the equations
 * (Cespedes et al. 2014 for EP, its (28)-(38) as Sionna's EPDetector writes them; the per-stream
 * MMSE-PIC filter w_s = (H D_s H^H + N0 I)^{-1} h_s of Sionna's MMSEPICDetector documentation) with
 * no code shared with src/: explicit inverses (Gauss-Jordan) where src factors or uses the matrix
 * inversion lemma, and the bit priors as probabilities where src uses half-LLR terms. Only the
 * constellation (points and labels, the system model) comes from src. Shared by ep-pic.test.ts and
 * the GPU tests.
 */
import type { Constellation } from '../../src/mimo/modulation.js';

/** Inverse of an n x n real matrix (column-major) by Gauss-Jordan with partial pivoting. */
export function invertReal(A: Float64Array, n: number): Float64Array {
  const a = Float64Array.from(A),
    inv = new Float64Array(n * n);
  for (let i = 0; i < n; i++) inv[i + i * n] = 1;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r + c * n]!) > Math.abs(a[p + c * n]!)) p = r;
    for (let k = 0; k < n; k++) {
      [a[c + k * n], a[p + k * n]] = [a[p + k * n]!, a[c + k * n]!];
      [inv[c + k * n], inv[p + k * n]] = [inv[p + k * n]!, inv[c + k * n]!];
    }
    const d = a[c + c * n]!;
    for (let k = 0; k < n; k++) {
      a[c + k * n] = a[c + k * n]! / d;
      inv[c + k * n] = inv[c + k * n]! / d;
    }
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = a[r + c * n]!;
      for (let k = 0; k < n; k++) {
        a[r + k * n] = a[r + k * n]! - f * a[c + k * n]!;
        inv[r + k * n] = inv[r + k * n]! - f * inv[c + k * n]!;
      }
    }
  }
  return inv;
}

/** Solves the complex n x n system C w = h (C column-major interleaved) through its 2n x 2n real form. */
export function solveComplex(C: Float64Array, h: Float64Array, n: number): Float64Array {
  const R = new Float64Array(4 * n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const re = C[2 * (i + j * n)]!,
        im = C[2 * (i + j * n) + 1]!;
      R[i + j * 2 * n] = re;
      R[i + n + (j + n) * 2 * n] = re;
      R[i + n + j * 2 * n] = im;
      R[i + (j + n) * 2 * n] = -im;
    }
  const Ri = invertReal(R, 2 * n);
  const w = new Float64Array(2 * n);
  for (let i = 0; i < 2 * n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += Ri[i + j * 2 * n]! * h[2 * j]! + Ri[i + (j + n) * 2 * n]! * h[2 * j + 1]!;
    if (i < n) w[2 * i] = s;
    else w[2 * (i - n) + 1] = s;
  }
  return w;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** ln P(bit = value) of an LLR ln P(0)/P(1). */
const logBitProb = (l: number, bit: number) => Math.log(bit === 0 ? sigmoid(l) : sigmoid(-l));

function lse(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  const m = Math.max(a, b);
  return m + Math.log(Math.exp(a - m) + Math.exp(b - m));
}

export interface RefOut {
  symbols: Int32Array;
  llr: Float64Array;
}

/**
 * MMSE-PIC of one vector: H nr x nt (complex column-major), y, N0, prior LLRs (nt x bps), and
 * iterations (each after the first takes the previous a-posteriori LLRs as priors).
 */
export function mmsePicRef(
  con: Constellation,
  H: Float64Array,
  y: Float64Array,
  nr: number,
  nt: number,
  n0: number,
  prior: Float64Array,
  iterations = 1,
  logmap = false,
): RefOut {
  const bps = con.bitsPerSymbol,
    m = con.size;
  const pt = (c: number) => [con.points[2 * c]!, con.points[2 * c + 1]!] as const;
  const bit = (c: number, b: number) => con.bitTable[c * bps + b]!;
  let la = Float64Array.from(prior);
  const symbols = new Int32Array(nt),
    le = new Float64Array(nt * bps);
  for (let it = 0; it < iterations; it++) {
    const xr = new Float64Array(nt),
      xi = new Float64Array(nt),
      vv = new Float64Array(nt);
    for (let j = 0; j < nt; j++) {
      let sr = 0,
        si = 0;
      const P = new Float64Array(m);
      for (let c = 0; c < m; c++) {
        let lp = 0;
        for (let b = 0; b < bps; b++) lp += logBitProb(la[j * bps + b]!, bit(c, b));
        P[c] = Math.exp(lp);
        sr += P[c]! * pt(c)[0];
        si += P[c]! * pt(c)[1];
      }
      let v = 0;
      for (let c = 0; c < m; c++) v += P[c]! * ((pt(c)[0] - sr) ** 2 + (pt(c)[1] - si) ** 2);
      xr[j] = sr;
      xi[j] = si;
      vv[j] = v;
    }
    for (let s = 0; s < nt; s++) {
      // C_s = sum_{j != s} v_j h_j h_j^H + h_s h_s^H + N0 I
      const C = new Float64Array(2 * nr * nr);
      for (let j = 0; j < nt; j++) {
        const d = j === s ? 1 : vv[j]!;
        for (let a = 0; a < nr; a++)
          for (let b = 0; b < nr; b++) {
            const ar = H[2 * (a + j * nr)]!,
              ai = H[2 * (a + j * nr) + 1]!,
              br = H[2 * (b + j * nr)]!,
              bi = H[2 * (b + j * nr) + 1]!;
            C[2 * (a + b * nr)] = C[2 * (a + b * nr)]! + d * (ar * br + ai * bi);
            C[2 * (a + b * nr) + 1] = C[2 * (a + b * nr) + 1]! + d * (ai * br - ar * bi);
          }
      }
      for (let a = 0; a < nr; a++) C[2 * (a + a * nr)] = C[2 * (a + a * nr)]! + n0;
      const hs = H.subarray(2 * s * nr, 2 * (s + 1) * nr);
      const w = solveComplex(C, hs, nr);
      // w^H x
      const dot = (x: Float64Array): [number, number] => {
        let re = 0,
          im = 0;
        for (let a = 0; a < nr; a++) {
          re += w[2 * a]! * x[2 * a]! + w[2 * a + 1]! * x[2 * a + 1]!;
          im += w[2 * a]! * x[2 * a + 1]! - w[2 * a + 1]! * x[2 * a]!;
        }
        return [re, im];
      };
      const yh = Float64Array.from(y);
      for (let j = 0; j < nt; j++) {
        if (j === s) continue;
        for (let a = 0; a < nr; a++) {
          const hr = H[2 * (a + j * nr)]!,
            hi = H[2 * (a + j * nr) + 1]!;
          yh[2 * a] = yh[2 * a]! - (hr * xr[j]! - hi * xi[j]!);
          yh[2 * a + 1] = yh[2 * a + 1]! - (hr * xi[j]! + hi * xr[j]!);
        }
      }
      const g = dot(hs)[0];
      const [zr0, zi0] = dot(yh);
      const zr = zr0 / g,
        zi = zi0 / g;
      // nu^2 = w^H (sum_{j != s} v_j h_j h_j^H + N0 I) w / g^2, the quadratic form written out
      let quad = n0 * dot(w)[0];
      for (let j = 0; j < nt; j++) {
        if (j === s) continue;
        const [pr, pi] = dot(H.subarray(2 * j * nr, 2 * (j + 1) * nr));
        quad += vv[j]! * (pr * pr + pi * pi);
      }
      const nu2 = quad / (g * g);
      const metric = (c: number, skip: number) => {
        let t = -((zr - pt(c)[0]) ** 2 + (zi - pt(c)[1]) ** 2) / nu2;
        for (let b = 0; b < bps; b++) if (b !== skip) t += logBitProb(la[s * bps + b]!, bit(c, b));
        return t;
      };
      let best = 0;
      for (let c = 1; c < m; c++) if (metric(c, -1) > metric(best, -1)) best = c;
      symbols[s] = best;
      for (let b = 0; b < bps; b++) {
        let a0 = -Infinity,
          a1 = -Infinity;
        for (let c = 0; c < m; c++) {
          const t = metric(c, b);
          if (bit(c, b)) a1 = logmap ? lse(a1, t) : Math.max(a1, t);
          else a0 = logmap ? lse(a0, t) : Math.max(a0, t);
        }
        le[s * bps + b] = a0 - a1;
      }
    }
    if (it + 1 < iterations) la = la.map((l, i) => l + le[i]!);
  }
  return { symbols, llr: le };
}

/**
 * EP of one vector (float64, the paper's form: Sigma = (H^T H / s2 + Lambda)^{-1} by an explicit
 * inverse). With a-priori LLRs `prior` (nt x bps), each dimension's level probabilities are the
 * product of its bits' probabilities (uniform where they are 0): the sites start at that prior's
 * moments, the moment matching weighs the cavity by it, the decision is the cavity times it, and
 * the LLRs are extrinsic (each bit's max-log or log-sum-exp over levels of the cavity and the
 * other bits' log probabilities).
 */
export function epRef(
  con: Constellation,
  H: Float64Array,
  y: Float64Array,
  nr: number,
  nt: number,
  n0: number,
  o: { iterations: number; beta: number; epsilon: number; logmap?: boolean },
  prior: Float64Array | null = null,
): RefOut {
  const bpsk = con.pam === null;
  const levels = bpsk ? [-1, 1] : [...con.pam!.levels];
  const k = bpsk ? 1 : con.pam!.bitsPerDim;
  const labels = bpsk ? [1, 0] : [...con.pam!.labels];
  const dims = bpsk ? 1 : 2,
    n = dims * nt,
    rows = 2 * nr;
  // the real model, amplitude units
  const Hr = new Float64Array(rows * n);
  for (let j = 0; j < nt; j++)
    for (let i = 0; i < nr; i++) {
      const hr = H[2 * (i + j * nr)]!,
        hi = H[2 * (i + j * nr) + 1]!;
      if (bpsk) {
        Hr[j * rows + 2 * i] = (hr - hi) / Math.sqrt(2);
        Hr[j * rows + 2 * i + 1] = (hr + hi) / Math.sqrt(2);
      } else {
        Hr[2 * j * rows + 2 * i] = hr;
        Hr[2 * j * rows + 2 * i + 1] = hi;
        Hr[(2 * j + 1) * rows + 2 * i] = -hi;
        Hr[(2 * j + 1) * rows + 2 * i + 1] = hr;
      }
    }
  const s2 = n0 / 2,
    eps = o.epsilon;
  const bps = con.bitsPerSymbol;
  // ln P(bit b of level l's label) in dimension i, and the level's log prior without bit `skip`
  const llrIndex = (i: number, b: number) => Math.floor(i / dims) * bps + (bpsk ? 0 : 2 * b + (i % dims));
  const labelBit = (l: number, b: number) => (labels[l]! >> (k - 1 - b)) & 1;
  const logPrior = (i: number, l: number, skip = -1) => {
    let t = 0;
    for (let b = 0; b < k; b++) if (b !== skip) t += logBitProb(prior ? prior[llrIndex(i, b)]! : 0, labelBit(l, b));
    return t;
  };
  /** Normalised weights of the levels from their log weights. */
  const normalise = (lw: number[]) => {
    const top = Math.max(...lw);
    const w = lw.map((t) => Math.exp(t - top));
    const z = w.reduce((a, b) => a + b, 0);
    return w.map((x) => x / z);
  };
  const lam = new Array<number>(n),
    gam = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const p = normalise(levels.map((_, l) => logPrior(i, l)));
    const mean = p.reduce((acc, w, l) => acc + w * levels[l]!, 0);
    const v = Math.max(
      p.reduce((acc, w, l) => acc + w * (levels[l]! - mean) ** 2, 0),
      eps,
    );
    lam[i] = 1 / v;
    gam[i] = mean / v;
  }
  let xo = new Array<number>(n).fill(0),
    vo = new Array<number>(n).fill(0);
  for (let it = 0; it < o.iterations; it++) {
    const Pm = new Float64Array(n * n);
    for (let a = 0; a < n; a++)
      for (let b = 0; b < n; b++) {
        let s = 0;
        for (let r = 0; r < rows; r++) s += Hr[a * rows + r]! * Hr[b * rows + r]!;
        Pm[a + b * n] = s / s2 + (a === b ? lam[a]! : 0);
      }
    const Sig = invertReal(Pm, n);
    const rhs = new Array<number>(n);
    for (let a = 0; a < n; a++) {
      let s = 0;
      for (let r = 0; r < rows; r++) s += Hr[a * rows + r]! * y[r]!;
      rhs[a] = s / s2 + gam[a]!;
    }
    const mu = rhs.map((_, a) => rhs.reduce((acc, r, b) => acc + Sig[a + b * n]! * r, 0));
    xo = new Array<number>(n);
    vo = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const S = Sig[i + i * n]!,
        d = 1 - S * lam[i]!;
      if (d >= eps * S && d > 0) {
        vo[i] = Math.max(S / d, eps);
        xo[i] = (mu[i]! - S * gam[i]!) / d;
      } else {
        vo[i] = 1 / eps;
        xo[i] = mu[i]!;
      }
    }
    if (it + 1 === o.iterations) break;
    for (let i = 0; i < n; i++) {
      const p = normalise(levels.map((a, l) => -((xo[i]! - a) ** 2) / (2 * vo[i]!) + logPrior(i, l)));
      const mean = p.reduce((acc, w, l) => acc + w * levels[l]!, 0);
      const v = Math.max(
        p.reduce((acc, w, l) => acc + w * (levels[l]! - mean) ** 2, 0),
        eps,
      );
      const ln = 1 / v - 1 / vo[i]!,
        gn = mean / v - xo[i]! / vo[i]!;
      if (ln >= 0) {
        lam[i] = o.beta * lam[i]! + (1 - o.beta) * ln;
        gam[i] = o.beta * gam[i]! + (1 - o.beta) * gn;
      }
    }
  }
  const symbols = new Int32Array(nt),
    llr = new Float64Array(nt * bps);
  for (let j = 0; j < nt; j++) {
    const idx: number[] = [];
    for (let part = 0; part < dims; part++) {
      const i = j * dims + part;
      const lg = levels.map((a) => -((xo[i]! - a) ** 2) / (2 * vo[i]!));
      const post = lg.map((t, l) => t + logPrior(i, l));
      let best = 0;
      for (let l = 1; l < post.length; l++) if (post[l]! > post[best]!) best = l;
      idx.push(best);
      for (let b = 0; b < k; b++) {
        let a0 = -Infinity,
          a1 = -Infinity;
        lg.forEach((c, l) => {
          const t = c + logPrior(i, l, b);
          const one = labelBit(l, b);
          if (one) a1 = o.logmap ? lse(a1, t) : Math.max(a1, t);
          else a0 = o.logmap ? lse(a0, t) : Math.max(a0, t);
        });
        llr[j * bps + (bpsk ? 0 : 2 * b + part)] = a0 - a1;
      }
    }
    if (bpsk) symbols[j] = idx[0] === 1 ? 0 : 1;
    else {
      // the point whose real level is idx[0] and imaginary level idx[1]
      const want = [levels[idx[0]!]!, levels[idx[1]!]!];
      for (let c = 0; c < con.size; c++)
        if (con.points[2 * c] === want[0] && con.points[2 * c + 1] === want[1]) symbols[j] = c;
    }
  }
  return { symbols, llr };
}

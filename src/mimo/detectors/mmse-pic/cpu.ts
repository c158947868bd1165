/**
 * MMSE with parallel interference cancellation (MMSE-PIC, the soft-input soft-output detector of
 * Sionna's MMSEPICDetector and the classic soft-IC MMSE of turbo equalisation), float64.
 *
 * Per received vector, from the a-priori LLRs L_a (DetectionInput.priorLlr, 0 where absent):
 *  1. soft symbols: P(c) = prod_b P(b = c_b) over the constellation, x^_j = E[x_j], v_j = E|x_j - x^_j|^2;
 *     a stream whose L_a are all 0 gets x^ = 0 and v = 1 exactly (uniform prior, unit energy);
 *  2. with G = H^H H, A = G diag(v) + N0 I (nt x nt) and a_s = [A^{-1} G]_ss, the unbiased estimate
 *     of stream s after cancelling the others' soft symbols, y - sum_{j != s} h_j x^_j, through the
 *     MMSE filter of its residual interference, is
 *        z_s = x^_s + [A^{-1} (H^H y - G x^)]_s / a_s,
 *     with the Gaussian noise-plus-interference variance nu_s^2 = 1/a_s - v_s = N0 [A^{-1}]_ss / a_s
 *     (both by the matrix inversion lemma from w_s = (H D_s H^H + N0 I)^{-1} h_s, D_s = diag(v)
 *     with 1 at s; the last form has no cancellation at high SINR);
 *  3. extrinsic LLRs of z_s = x_s + CN(0, nu_s^2): for bit b, max-log (or log-sum-exp with soft
 *     'logmap') over the points c with b = 0 and with b = 1 of -|z_s - c|^2 / nu_s^2 plus the prior
 *     of c's other bits, sum_{b' != b} (+-L_a(b')) / 2; the decision is the a-posteriori MAP
 *     symbol (own bits' priors included).
 * With no priors (or all-zero ones) A = H^H H + N0 I: z_s is mmse's unbiased estimate, its decision
 * mmse's (the same filter and slicing, zf/linear.ts), and its LLRs are softDemapSymbol(z_s, nu_s^2)
 * with nu_s^2 = N0 [(H^H H + N0 I)^{-1}]_ss / mu_s = 1/mu_s - 1, mu_s = 1 - N0 [(H^H H + N0 I)^{-1}]_ss.
 *
 * Self-iterations (picIterations > 1): each takes the previous one's a-posteriori LLRs (extrinsic
 * plus its priors) as priors, as Sionna's num_iter; the output is the last one's extrinsic LLRs.
 * Work per vector: the Gram matrix and filter once per channel; with priors an nt x nt complex
 * inversion per vector and iteration (O(nt^3)) and M bitsPerSymbol per stream for the demapping.
 */
import { UnsupportedError } from '../../../core/index.js';
import { type Constellation, logAdd, sliceSymbol, softDemapSymbol } from '../../modulation.js';
import { filterInto, gramInto, invertInPlace } from '../../preprocess/complex.js';
import type { CpuDetector, DetectorInstance, DetectorOutput, DetectorSetup } from '../detector.js';
import { filterStream } from '../zf/linear.js';

/** Most self-iterations. */
export const MAX_PIC_ITERATIONS = 16;

/** A filter gain a_s (or mmse's mu_s) at or under this is taken as 1 in the unbiasing (as zf/linear.ts does with mu). */
export const PIC_GAIN_FLOOR = 1e-12;

/** Per channel: H, its Gram matrix, and the prior-free (mmse) filter. */
export interface PicPrep {
  H: Float64Array;
  hOff: number;
  /** G = H^H H, nt x nt complex column-major. */
  readonly G: Float64Array;
  /** The mmse filter W = (G + N0 I)^{-1} H^H, nt x nr complex column-major. */
  readonly W: Float64Array;
  /** 1 / mu_s (1 where mu_s <= PIC_GAIN_FLOOR). */
  readonly unbias: Float64Array;
  /** nu_s^2 of the prior-free filter: N0 [(G + N0 I)^{-1}]_ss / mu_s. */
  readonly nu2: Float64Array;
}

/**
 * Soft symbol of one stream from its bits' LLRs `la` (bps of them at la[off ..]): writes the mean to
 * out[0], out[1] and returns the variance E|x - x^|^2 (>= 0). `term` (M scratch) receives each
 * point's log prior up to a constant, sum_b (+-L_b) / 2 (+ for a 0 bit).
 */
export function softSymbol(
  con: Constellation,
  la: Float64Array,
  off: number,
  term: Float64Array,
  out: Float64Array,
): number {
  const { size: m, bitsPerSymbol: bps, bitTable, points } = con;
  let top = 0;
  for (let b = 0; b < bps; b++) top += Math.abs(la[off + b]!) / 2;
  let w = 0,
    xr = 0,
    xi = 0;
  for (let c = 0; c < m; c++) {
    let t = 0;
    for (let b = 0; b < bps; b++) t += bitTable[c * bps + b] ? -la[off + b]! / 2 : la[off + b]! / 2;
    term[c] = t;
    const p = Math.exp(t - top);
    w += p;
    xr += p * points[2 * c]!;
    xi += p * points[2 * c + 1]!;
  }
  xr /= w;
  xi /= w;
  out[0] = xr;
  out[1] = xi;
  // the variance about the mean (E|x|^2 - |x^|^2 cancels where a prior is nearly certain)
  let e = 0;
  for (let c = 0; c < m; c++)
    e += Math.exp(term[c]! - top) * ((points[2 * c]! - xr) ** 2 + (points[2 * c + 1]! - xi) ** 2);
  return e / w;
}

/**
 * Extrinsic LLRs of one stream's z = x + CN(0, nu2) with the bits' priors la[lOff ..] (their
 * log-prior terms in `term`, from softSymbol): le[eOff + b] for each bit; returns the a-posteriori
 * MAP point (the first best).
 */
export function demapWithPrior(
  con: Constellation,
  zr: number,
  zi: number,
  nu2: number,
  la: Float64Array,
  lOff: number,
  term: Float64Array,
  logmap: boolean,
  le: Float64Array,
  eOff: number,
): number {
  const { size: m, bitsPerSymbol: bps, bitTable, points } = con;
  let best = 0,
    bestMetric = -Infinity;
  for (let c = 0; c < m; c++) {
    const dr = zr - points[2 * c]!,
      di = zi - points[2 * c + 1]!;
    const full = term[c]! - (dr * dr + di * di) / nu2;
    if (full > bestMetric) {
      bestMetric = full;
      best = c;
    }
  }
  for (let b = 0; b < bps; b++) {
    let a0 = -Infinity,
      a1 = -Infinity;
    const half = la[lOff + b]! / 2;
    for (let c = 0; c < m; c++) {
      const dr = zr - points[2 * c]!,
        di = zi - points[2 * c + 1]!;
      const one = bitTable[c * bps + b] === 1;
      const t = term[c]! - (one ? -half : half) - (dr * dr + di * di) / nu2;
      if (logmap) {
        if (one) a1 = logAdd(a1, t);
        else a0 = logAdd(a0, t);
      } else if (one) {
        if (t > a1) a1 = t;
      } else if (t > a0) a0 = t;
    }
    le[eOff + b] = a0 - a1;
  }
  return best;
}

function createPic(setup: DetectorSetup): DetectorInstance<PicPrep> {
  const { nr, nt, constellation: con } = setup;
  const bps = con.bitsPerSymbol,
    m = con.size,
    nb = nt * bps;
  const iterations = setup.opts.picIterations ?? 1;
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_PIC_ITERATIONS)
    throw new UnsupportedError(`mmse-pic takes 1 to ${MAX_PIC_ITERATIONS} picIterations, got ${iterations}`);
  const logmap = setup.opts.soft === 'logmap';
  const prior = setup.priorLlr ?? null;
  const cols = Int32Array.from({ length: nt }, (_, j) => j);
  const prep: PicPrep = {
    H: new Float64Array(0),
    hOff: 0,
    G: new Float64Array(2 * nt * nt),
    W: new Float64Array(2 * nt * nr),
    unbias: new Float64Array(nt),
    nu2: new Float64Array(nt),
  };
  const Ginv = new Float64Array(2 * nt * nt),
    A = new Float64Array(2 * nt * nt),
    work = new Float64Array(2 * nt * nt);
  const ymf = new Float64Array(2 * nt),
    xh = new Float64Array(2 * nt),
    vv = new Float64Array(nt),
    t = new Float64Array(2 * nt),
    z = new Float64Array(2 * nt),
    nu2 = new Float64Array(nt),
    zeroStream = new Uint8Array(nt),
    terms = new Float64Array(nt * m),
    la = new Float64Array(nb),
    le = new Float64Array(nb),
    pair = new Float64Array(2);
  return {
    prepare(H: Float64Array, hOff: number, noiseVar: number): PicPrep {
      prep.H = H;
      prep.hOff = hOff;
      gramInto(H, hOff, nr, cols, 0, prep.G);
      gramInto(H, hOff, nr, cols, noiseVar, Ginv);
      invertInPlace(Ginv, nt, work);
      filterInto(Ginv, H, hOff, nr, cols, prep.W);
      for (let k = 0; k < nt; k++) {
        const g = Ginv[2 * (k + k * nt)]!,
          mu = 1 - noiseVar * g;
        prep.unbias[k] = mu > PIC_GAIN_FLOOR ? 1 / mu : 1;
        // 0 only where the inversion lost G + N0 I to overflow (N0 past 1e150 times the channel's
        // power): the estimate is then 0 and carries nothing, its LLRs 0
        const nu2 = noiseVar * g * prep.unbias[k]!;
        prep.nu2[k] = nu2 > 0 ? nu2 : Infinity;
      }
      return prep;
    },
    detect(p: PicPrep, y: Float64Array, yOff: number, noiseVar: number, out: DetectorOutput, v: number): number {
      if (prior) la.set(prior.subarray(v * nb, (v + 1) * nb));
      else la.fill(0);
      const { H, hOff, G } = p;
      for (let it = 0; it < iterations; it++) {
        let anyPrior = false;
        for (let s = 0; s < nt; s++) {
          let zero = true;
          for (let b = 0; b < bps; b++) if (la[s * bps + b] !== 0) zero = false;
          zeroStream[s] = zero ? 1 : 0;
          if (zero) {
            xh[2 * s] = 0;
            xh[2 * s + 1] = 0;
            vv[s] = 1;
          } else {
            anyPrior = true;
            vv[s] = softSymbol(con, la, s * bps, terms.subarray(s * m, (s + 1) * m), pair);
            xh[2 * s] = pair[0]!;
            xh[2 * s + 1] = pair[1]!;
          }
        }
        if (!anyPrior) {
          // the mmse filter and unbiasing, as linearDetect applies them
          for (let k = 0; k < nt; k++) {
            filterStream(p, k, nt, nr, y, yOff, z, 2 * k);
            nu2[k] = p.nu2[k]!;
          }
        } else {
          picEstimates(H, hOff, G, y, yOff, noiseVar);
        }
        // demapping: extrinsic LLRs (le), the MAP decision; la becomes the a-posteriori LLRs
        for (let s = 0; s < nt; s++) {
          const zr = z[2 * s]!,
            zi = z[2 * s + 1]!;
          if (zeroStream[s]) {
            softDemapSymbol(zr, zi, nu2[s]!, con, logmap ? 'logmap' : 'maxlog', le, s * bps);
            out.symbols[v * nt + s] = sliceSymbol(zr, zi, con);
          } else {
            out.symbols[v * nt + s] = demapWithPrior(
              con,
              zr,
              zi,
              nu2[s]!,
              la,
              s * bps,
              terms.subarray(s * m, (s + 1) * m),
              logmap,
              le,
              s * bps,
            );
          }
        }
        if (it + 1 < iterations) for (let i = 0; i < nb; i++) la[i] = la[i]! + le[i]!;
      }
      if (out.llr) out.llr.set(le, v * nb);
      return 0;
    },
  };

  /** Step 2 with priors: z and nu2 of every stream from xh, vv. */
  function picEstimates(
    H: Float64Array,
    hOff: number,
    G: Float64Array,
    y: Float64Array,
    yOff: number,
    n0: number,
  ): void {
    // ymf = H^H y, t = ymf - G x^
    for (let j = 0; j < nt; j++) {
      let re = 0,
        im = 0;
      for (let i = 0; i < nr; i++) {
        const hr = H[hOff + 2 * (i + j * nr)]!,
          hi = H[hOff + 2 * (i + j * nr) + 1]!;
        const yr = y[yOff + 2 * i]!,
          yi = y[yOff + 2 * i + 1]!;
        re += hr * yr + hi * yi;
        im += hr * yi - hi * yr;
      }
      ymf[2 * j] = re;
      ymf[2 * j + 1] = im;
    }
    for (let i = 0; i < nt; i++) {
      let re = ymf[2 * i]!,
        im = ymf[2 * i + 1]!;
      for (let j = 0; j < nt; j++) {
        const gr = G[2 * (i + j * nt)]!,
          gi = G[2 * (i + j * nt) + 1]!,
          xr = xh[2 * j]!,
          xi = xh[2 * j + 1]!;
        re -= gr * xr - gi * xi;
        im -= gr * xi + gi * xr;
      }
      t[2 * i] = re;
      t[2 * i + 1] = im;
    }
    // A = G diag(v) + N0 I, inverted in place
    for (let j = 0; j < nt; j++) {
      for (let i = 0; i < nt; i++) {
        A[2 * (i + j * nt)] = G[2 * (i + j * nt)]! * vv[j]! + (i === j ? n0 : 0);
        A[2 * (i + j * nt) + 1] = G[2 * (i + j * nt) + 1]! * vv[j]!;
      }
    }
    invertInPlace(A, nt, work);
    for (let s = 0; s < nt; s++) {
      let a = 0,
        er = 0,
        ei = 0;
      for (let j = 0; j < nt; j++) {
        const ar = A[2 * (s + j * nt)]!,
          ai = A[2 * (s + j * nt) + 1]!;
        // a_s = Re sum_j Ainv_sj G_js; e = sum_j Ainv_sj t_j
        a += ar * G[2 * (j + s * nt)]! - ai * G[2 * (j + s * nt) + 1]!;
        er += ar * t[2 * j]! - ai * t[2 * j + 1]!;
        ei += ar * t[2 * j + 1]! + ai * t[2 * j]!;
      }
      const inv = a > PIC_GAIN_FLOOR ? 1 / a : 1;
      z[2 * s] = xh[2 * s]! + er * inv;
      z[2 * s + 1] = xh[2 * s + 1]! + ei * inv;
      // 1 - v_s a_s = N0 [A^{-1}]_ss (A^{-1} A = I), without the cancellation at high SINR
      const r = n0 * A[2 * (s + s * nt)]! * inv;
      nu2[s] = r > 0 ? r : Infinity;
    }
  }
}

export const detector: CpuDetector<PicPrep> = {
  name: 'mmse-pic',
  soft: true,
  create: createPic,
};

/**
 * Expectation propagation (EP) MIMO detection (J. Cespedes, P. M. Olmos, M. Sanchez-Fernandez,
 * F. Perez-Cruz, "Expectation Propagation Detection for High-Order High-Dimensional MIMO Systems",
 * IEEE Trans. Commun. 62(8), 2014), float64, on the real-valued model as the paper works:
 *
 *   y_r = H_r x + n,  n ~ N(0, s2 I), s2 = N0 / 2,
 * with real dimension 2j = Re s_j and 2j + 1 = Im s_j (BPSK: one dimension a stream, s_j = x_j (1+j)/sqrt2,
 * x_j = +-1), real row 2i = Re y_i and 2i + 1 = Im y_i (our interleaved y), and x in amplitude
 * units: each dimension is a PAM of the constellation's levels (energy Es = 1/2 a dimension, BPSK 1).
 *
 * The discrete prior of each dimension is replaced by a Gaussian site exp(-lambda_i x^2 / 2 + gamma_i x),
 * starting at lambda = 1/Es, gamma = 0. Each iteration:
 *   P = H_r^T H_r + s2 diag(lambda),  mu = P^{-1} (H_r^T y + s2 gamma),  S_i = s2 [P^{-1}]_ii;
 *   cavity (the posterior without site i): d = 1 - S_i lambda_i, v_obs = max(S_i / d, eps),
 *     x_obs = (mu_i - S_i gamma_i) / d; a cavity with d < eps S_i (precision under eps) is taken as
 *     uninformative: v_obs = 1/eps, x_obs = mu_i;
 *   moment matching against the true prior: p_i(a) ∝ exp(-(x_obs - a)^2 / (2 v_obs)) over the
 *     levels a, its mean x^_i and variance v_i = max(Var, eps);
 *   new sites lambda' = 1/v_i - 1/v_obs, gamma' = x^_i/v_i - x_obs/v_obs, kept only where
 *     lambda' >= 0 (else the old site stays), then damped: site = beta old + (1 - beta) new.
 * After the last iteration's cavity the sites are not updated again: the output is that cavity.
 *
 * Output: per dimension the logits -(x_obs - a)^2 / (2 v_obs) of its levels; the decision is the
 * level of the largest (the first of equals), the LLRs are max-log over the levels of each PAM bit
 * (soft 'logmap': log-sum-exp, the cavity's exact bit marginals), LLR = ln P(b=0)/P(b=1).
 *
 * A-priori LLRs L_a (DetectionInput.priorLlr, IDD): dimension i's levels get the prior
 * P_i(a) ∝ prod over its bits P(b), ln P_i(a) = lp_i(a) = sum_b (+-L_a(b)) / 2 up to a constant (+
 * for a 0 bit; a square-QAM bit belongs to one dimension, its Gray PAM label); it replaces the
 * uniform prior everywhere: the sites start at its moments (lambda = 1/v_p, gamma = m_p/v_p, v_p
 * floored at eps; the uniform prior's are 1/Es and 0), the moment matching takes the cavity times
 * P_i, and the output is the a-posteriori cavity x P_i: the decision is its MAP level and the LLRs
 * the extrinsic ones, as mmse-pic's, logits -(x_obs - a)^2 / (2 v_obs) plus the prior terms of the
 * dimension's other bits (the cavity excludes the dimension's own site, so nothing else of its own
 * prior is in it). A dimension whose L_a are all 0 runs exactly as without priors.
 *
 * Conventions beside Sionna's EPDetector (which follows the same equations): beta and the default
 * 10 iterations and 0.9 are Sionna's (its beta keeps the previous sites; the paper's beta weighs the
 * new ones); x_obs is computed from the unclamped cavity, where Sionna multiplies by the clamped
 * v_obs (which overstates x_obs when the true cavity variance is under eps, at very high SNR).
 * Work per vector: iterations x (an nd x nd Cholesky factorisation and the diagonal of its inverse,
 * O(nd^3), nd = 2 nt) plus nd x Q for the moments.
 */
import { RankDeficientError } from '../../../core/index.js';
import { type Constellation, logAdd } from '../../modulation.js';
import type { CpuDetector, DetectorInstance, DetectorOutput, DetectorSetup } from '../detector.js';

export const DEFAULT_EP_ITERATIONS = 10;
export const MAX_EP_ITERATIONS = 100;
export const DEFAULT_EP_BETA = 0.9;
export const DEFAULT_EP_EPSILON = 1e-6;

/** The real-valued PAM of one dimension: levels (ascending), their bit labels, bits per dimension, Es. */
export interface EpPam {
  readonly levels: Float64Array;
  readonly labels: Int32Array;
  readonly bitsPerDim: number;
  /** Mean of the squared levels (1/2 for square QAM, 1 for BPSK). */
  readonly energy: number;
  /** Real dimensions per stream (2, or 1 for BPSK). */
  readonly dims: 1 | 2;
}

/** The per-dimension PAM of a constellation (BPSK: x = +1 carries bit 0). */
export function epPam(con: Constellation): EpPam {
  if (con.pam === null)
    return { levels: Float64Array.of(-1, 1), labels: Int32Array.of(1, 0), bitsPerDim: 1, energy: 1, dims: 1 };
  const { levels, labels, bitsPerDim } = con.pam;
  let e = 0;
  for (const a of levels) e += a * a;
  return { levels, labels, bitsPerDim, energy: e / levels.length, dims: 2 };
}

/**
 * Writes the rows x nd real matrix (column-major, amplitude units) of the complex nr x nt channel at
 * H[hOff ..]: column 2j is (Re h_j, Im h_j) interleaved by row, column 2j + 1 is (-Im h_j, Re h_j);
 * BPSK: column j is h_j (1 + j)/sqrt2.
 */
export function epRealMatrix(
  H: Float64Array,
  hOff: number,
  nr: number,
  nt: number,
  dims: 1 | 2,
  out: Float64Array,
): void {
  const rows = 2 * nr;
  for (let j = 0; j < nt; j++) {
    const base = hOff + 2 * j * nr;
    for (let i = 0; i < nr; i++) {
      const hr = H[base + 2 * i]!,
        hi = H[base + 2 * i + 1]!;
      if (dims === 1) {
        out[j * rows + 2 * i] = (hr - hi) * Math.SQRT1_2;
        out[j * rows + 2 * i + 1] = (hr + hi) * Math.SQRT1_2;
      } else {
        out[2 * j * rows + 2 * i] = hr;
        out[2 * j * rows + 2 * i + 1] = hi;
        out[(2 * j + 1) * rows + 2 * i] = -hi;
        out[(2 * j + 1) * rows + 2 * i + 1] = hr;
      }
    }
  }
}

/** Per channel: the real matrix and its Gram matrix. */
export interface EpPrep {
  readonly Hr: Float64Array;
  /** H_r^T H_r, nd x nd. */
  readonly HtH: Float64Array;
}

function createEp(setup: DetectorSetup): DetectorInstance<EpPrep> {
  const { nr, nt, constellation: con, opts } = setup;
  const pam = epPam(con);
  const nd = pam.dims * nt,
    rows = 2 * nr,
    q = pam.levels.length,
    k = pam.bitsPerDim,
    bps = con.bitsPerSymbol;
  const iterations = opts.iterations ?? DEFAULT_EP_ITERATIONS,
    beta = opts.beta ?? DEFAULT_EP_BETA,
    eps = opts.epsilon ?? DEFAULT_EP_EPSILON;
  const logmap = opts.soft === 'logmap';
  const prior = setup.priorLlr ?? null;
  const prep: EpPrep = { Hr: new Float64Array(rows * nd), HtH: new Float64Array(nd * nd) };
  // per dimension with priors: lp[i * q + l] its levels' log prior, the bits' own half-LLRs
  const lp = new Float64Array(nd * q),
    active = new Uint8Array(nd);
  const L = new Float64Array(nd * nd),
    Linv = new Float64Array(nd * nd);
  const hty = new Float64Array(nd),
    b = new Float64Array(nd),
    mu = new Float64Array(nd),
    S = new Float64Array(nd),
    lam = new Float64Array(nd),
    gam = new Float64Array(nd),
    xObs = new Float64Array(nd),
    vObs = new Float64Array(nd),
    logits = new Float64Array(q);
  return {
    prepare(H: Float64Array, hOff: number): EpPrep {
      const { Hr, HtH } = prep;
      epRealMatrix(H, hOff, nr, nt, pam.dims, Hr);
      for (let a = 0; a < nd; a++) {
        for (let c = a; c < nd; c++) {
          let s = 0;
          for (let r = 0; r < rows; r++) s += Hr[a * rows + r]! * Hr[c * rows + r]!;
          HtH[a + c * nd] = s;
          HtH[c + a * nd] = s;
        }
      }
      return prep;
    },
    detect(p: EpPrep, y: Float64Array, yOff: number, noiseVar: number, out: DetectorOutput, v: number): number {
      const { Hr, HtH } = p;
      const s2 = noiseVar / 2;
      if (prior) levelPriors(prior, v * nt * bps);
      for (let a = 0; a < nd; a++) {
        let s = 0;
        for (let r = 0; r < rows; r++) s += Hr[a * rows + r]! * y[yOff + r]!;
        hty[a] = s;
        if (active[a]) {
          // the prior's own moments, as 1/Es and 0 are the uniform prior's
          const [m, vp] = moments(0, Infinity, a);
          lam[a] = 1 / Math.max(vp, eps);
          gam[a] = m * lam[a]!;
        } else {
          lam[a] = 1 / pam.energy;
          gam[a] = 0;
        }
      }
      for (let it = 0; it < iterations; it++) {
        // P = HtH + s2 diag(lambda) = L L^T
        cholesky(HtH, s2, lam, nd, L);
        for (let i = 0; i < nd; i++) b[i] = hty[i]! + s2 * gam[i]!;
        cholSolve(L, nd, b, mu);
        invDiag(L, nd, Linv, S);
        for (let i = 0; i < nd; i++) {
          const si = s2 * S[i]!,
            d = 1 - si * lam[i]!;
          if (d >= eps * si && d > 0) {
            vObs[i] = Math.max(si / d, eps);
            xObs[i] = (mu[i]! - si * gam[i]!) / d;
          } else {
            vObs[i] = 1 / eps;
            xObs[i] = mu[i]!;
          }
        }
        if (it + 1 === iterations) break;
        for (let i = 0; i < nd; i++) {
          const [xh, vh] = moments(xObs[i]!, vObs[i]!, i);
          const vi = Math.max(vh, eps);
          const ln = 1 / vi - 1 / vObs[i]!,
            gn = xh / vi - xObs[i]! / vObs[i]!;
          if (ln >= 0) {
            lam[i] = beta * lam[i]! + (1 - beta) * ln;
            gam[i] = beta * gam[i]! + (1 - beta) * gn;
          }
        }
      }
      // decisions and LLRs from the last cavity
      const llr = out.llr;
      for (let j = 0; j < nt; j++) {
        let sym = 0;
        for (let part = 0; part < pam.dims; part++) {
          const i = j * pam.dims + part;
          const act = active[i] === 1;
          let best = 0;
          for (let l = 0; l < q; l++) {
            const d = xObs[i]! - pam.levels[l]!;
            // a posteriori: the cavity times the prior
            logits[l] = act ? lp[i * q + l]! - (d * d) / (2 * vObs[i]!) : -(d * d) / (2 * vObs[i]!);
            if (logits[l]! > logits[best]!) best = l;
          }
          if (pam.dims === 1) sym = best === 1 ? 0 : 1;
          else sym = part === 0 ? best * q : sym + best;
          if (llr) {
            for (let bit = 0; bit < k; bit++) {
              let a0 = -Infinity,
                a1 = -Infinity;
              // extrinsic: the bit's own prior term out of every level's
              const half = act ? prior![v * nt * bps + j * bps + (pam.dims === 1 ? 0 : 2 * bit + part)]! / 2 : 0;
              for (let l = 0; l < q; l++) {
                const one = ((pam.labels[l]! >> (k - 1 - bit)) & 1) === 1,
                  t = act ? logits[l]! - (one ? -half : half) : logits[l]!;
                if (logmap) {
                  if (one) a1 = logAdd(a1, t);
                  else a0 = logAdd(a0, t);
                } else if (one) {
                  if (t > a1) a1 = t;
                } else if (t > a0) a0 = t;
              }
              llr[v * nt * bps + j * bps + (pam.dims === 1 ? 0 : 2 * bit + part)] = a0 - a1;
            }
          }
        }
        out.symbols[v * nt + j] = pam.dims === 1 ? sym : con.symbolOfLevels![sym]!;
      }
      return 0;
    },
  };

  /**
   * Mean and variance of the levels under exp(-(x - a)^2 / (2 v)) times dimension i's prior (with
   * priors; v = Infinity: the prior alone), normalised.
   */
  function moments(x: number, vo: number, i: number): [number, number] {
    let top = -Infinity;
    const act = active[i] === 1;
    for (let l = 0; l < q; l++) {
      const d = x - pam.levels[l]!;
      logits[l] = act ? lp[i * q + l]! - (d * d) / (2 * vo) : -(d * d) / (2 * vo);
      if (logits[l]! > top) top = logits[l]!;
    }
    let w = 0,
      m1 = 0;
    for (let l = 0; l < q; l++) {
      logits[l] = Math.exp(logits[l]! - top);
      w += logits[l]!;
      m1 += logits[l]! * pam.levels[l]!;
    }
    const mean = m1 / w;
    // the variance about the mean (not E[a^2] - mean^2, which cancels where it is far under Es)
    let m2 = 0;
    for (let l = 0; l < q; l++) m2 += logits[l]! * (pam.levels[l]! - mean) ** 2;
    return [mean, m2 / w];
  }

  /** lp and active of the a-priori LLRs la[off ..] (nt x bitsPerSymbol, stream-major). */
  function levelPriors(la: Float64Array, off: number): void {
    for (let i = 0; i < nd; i++) {
      const j = Math.floor(i / pam.dims),
        part = i - j * pam.dims;
      let any = false;
      for (let l = 0; l < q; l++) lp[i * q + l] = 0;
      for (let bit = 0; bit < k; bit++) {
        const L = la[off + j * bps + (pam.dims === 1 ? 0 : 2 * bit + part)]!;
        if (L === 0) continue;
        any = true;
        for (let l = 0; l < q; l++)
          lp[i * q + l] = lp[i * q + l]! + ((pam.labels[l]! >> (k - 1 - bit)) & 1 ? -L / 2 : L / 2);
      }
      active[i] = any ? 1 : 0;
    }
  }
}

/** L L^T = A + s2 diag(lam) (n x n, column-major; L lower). RankDeficientError for a pivot that is not positive. */
function cholesky(A: Float64Array, s2: number, lam: Float64Array, n: number, L: Float64Array): void {
  for (let j = 0; j < n; j++) {
    let d = A[j + j * n]! + s2 * lam[j]!;
    for (let t = 0; t < j; t++) d -= L[j + t * n]! * L[j + t * n]!;
    if (!(d > 0))
      throw new RankDeficientError('RANK_DEFICIENT', 'ep: H^T H + s2 diag(lambda) is not positive definite');
    const ljj = Math.sqrt(d);
    L[j + j * n] = ljj;
    for (let i = j + 1; i < n; i++) {
      let s = A[i + j * n]!;
      for (let t = 0; t < j; t++) s -= L[i + t * n]! * L[j + t * n]!;
      L[i + j * n] = s / ljj;
    }
  }
}

/** x = (L L^T)^{-1} b. */
function cholSolve(L: Float64Array, n: number, b: Float64Array, x: Float64Array): void {
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let t = 0; t < i; t++) s -= L[i + t * n]! * x[t]!;
    x[i] = s / L[i + i * n]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = x[i]!;
    for (let t = i + 1; t < n; t++) s -= L[t + i * n]! * x[t]!;
    x[i] = s / L[i + i * n]!;
  }
}

/** diag[i] = [(L L^T)^{-1}]_ii = sum_{r >= i} (L^{-1})_ri^2; Linv receives L^{-1} (lower). */
function invDiag(L: Float64Array, n: number, Linv: Float64Array, diag: Float64Array): void {
  for (let c = 0; c < n; c++) {
    for (let r = 0; r < c; r++) Linv[r + c * n] = 0;
    Linv[c + c * n] = 1 / L[c + c * n]!;
    for (let r = c + 1; r < n; r++) {
      let s = 0;
      for (let t = c; t < r; t++) s -= L[r + t * n]! * Linv[t + c * n]!;
      Linv[r + c * n] = s / L[r + r * n]!;
    }
  }
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let r = i; r < n; r++) s += Linv[r + i * n]! * Linv[r + i * n]!;
    diag[i] = s;
  }
}

export const detector: CpuDetector<EpPrep> = {
  name: 'ep',
  soft: true,
  create: createEp,
};

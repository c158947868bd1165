/**
 * K-best detector (K = opts.k, default 16) on the sorted-QR real-valued system: the MRVD channel is
 * factored once per channel by SQRD (weakest real dimension first, so the strongest are detected
 * first at the root), each vector is searched breadth-first keeping K paths per level, the best of
 * the final list is the hard decision, and the list gives max-log LLRs (a bit without a
 * counter-hypothesis in the list gets +-opts.llrClip, default 8).
 *
 * The list depends on the detection order, so rounding does not choose it: where a stream's real
 * and imaginary dimensions tie in the SQRD (equal residuals in exact arithmetic, while the
 * dimensions taken form whole streams) they count as one and the real part goes first (qrInto's
 * `pairs`); exact metric ties go by child index (search.ts). The
 * CUDA engine (cuda.ts) keeps the same list wherever no cut of the search lies within float32
 * rounding, its LLRs then within a proven bound (docs/API.md, "kbest: detection order, ties, and
 * the GPU against the CPU engine").
 *
 * A-priori LLRs (DetectionInput.priorLlr, IDD; both engines, the CUDA search's KB_PRIOR build): as
 * ssfe (ssfe/cpu.ts), every candidate's metric gains N0 sum_b max(0, -s_b L_a(b)) over its bits
 * (s_b = +1 for a 0 bit), split into per-level costs of the real dimensions (LevelPriors), added
 * to each child where the search ranks and prunes (search.ts) and so to every leaf of the list's
 * max-log; the decision is the list's MAP candidate, the LLRs the extrinsic ones, the max-log
 * a-posteriori LLR minus L_a, clipped after the subtraction. All-zero priors change nothing
 * (output and node count).
 */
import { InvalidArgumentError, NodeBudgetError, UnsupportedError } from '../../../core/index.js';
import { applyQt, qrInto } from '../../preprocess/qr.js';
import { BitMetricMinima, llrClipOf } from '../../soft/maxlog.js';
import { fillRealMatrix, naturalDimOrder, detectorRealModel, symbolsOfLevels } from '../../soft/real-model.js';
import type { CpuDetector, DetectorInstance } from '../detector.js';
import { LevelPriors } from '../ssfe/search.js';
import { KBestScratch } from './search.js';
import { KBestLanes, kbestLanesRefusal } from './wasm.js';

/** Paths K-best keeps per level when DetectOptions.k is not given. */
export const DEFAULT_K = 16;
/** Largest K x Q x nd the search buffers may hold. */
const MAX_WORK = 1 << 26;

/** Tree nodes one K-best search visits on nd levels of q: every survivor's q children, per level. */
export function kbestNodes(k: number, nd: number, q: number): number {
  let nodes = 0,
    survivors = 1;
  for (let i = 0; i < nd; i++) {
    nodes += survivors * q;
    survivors = Math.min(k, survivors * q);
  }
  return nodes;
}

/** opts.k validated: a positive integer (default 16). */
export function kOf(k: number | undefined): number {
  if (k === undefined) return DEFAULT_K;
  if (!Number.isInteger(k) || k < 1)
    throw new InvalidArgumentError(`k (K-best list size) must be a positive integer, got ${k}`);
  return k;
}

interface KBestPrep {
  readonly Q: Float64Array;
  readonly R: Float64Array;
  /** perm[k]: the real dimension in column k. */
  readonly perm: Int32Array;
}

export const detector: CpuDetector<KBestPrep> = {
  name: 'kbest',
  soft: true,
  lanes(setup) {
    const model = detectorRealModel('kbest', setup.constellation, setup.nt, setup.nr);
    const { nd, q } = model;
    const k = Math.min(kOf(setup.opts.k), q ** nd);
    return (
      kbestLanesRefusal(model, setup, k) ??
      new KBestLanes(model, k, kbestNodes(k, nd, q), llrClipOf(setup.opts.llrClip), setup.soft)
    );
  },
  create(setup): DetectorInstance<KBestPrep> {
    const model = detectorRealModel('kbest', setup.constellation, setup.nt, setup.nr);
    const { rows, nd, q } = model;
    // More survivors than the tree has leaves changes nothing: cap K at Q^nd.
    const k = Math.min(kOf(setup.opts.k), q ** nd);
    if (k * q * nd > MAX_WORK)
      throw new UnsupportedError(
        `kbest with K = ${k} on ${nd} real levels of ${q} needs too much memory (K x Q x levels > ${MAX_WORK})`,
      );
    const work = kbestNodes(k, nd, q);
    if (work > setup.maxNodes) {
      throw new NodeBudgetError(
        `kbest with K = ${k} visits ${work} nodes per vector, over the node budget maxNodes = ${setup.maxNodes}; lower k or raise maxNodes`,
        { detector: 'kbest', maxNodes: setup.maxNodes, nodes: work },
      );
    }
    const clip = llrClipOf(setup.opts.llrClip);
    const search = new KBestScratch(k, nd, q);
    const realH = new Float64Array(rows * nd);
    const natural = naturalDimOrder(model);
    const z = new Float64Array(nd);
    const symbols = new Int32Array(model.nt);
    const minima = new BitMetricMinima(model.nt, model.bitsPerSymbol, model.bitTable);
    const prior = setup.priorLlr ?? null;
    const costs = prior ? new LevelPriors(model) : null;
    return {
      prepare(H, hOff) {
        fillRealMatrix(model, H, hOff, natural, realH);
        const prep = { Q: new Float64Array(rows * nd), R: new Float64Array(nd * nd), perm: new Int32Array(nd) };
        // A stream's real and imaginary parts tie in the sorted QR: taken by rule, not by rounding
        // (the list, unlike ML, depends on the order).
        qrInto(
          realH,
          0,
          rows,
          nd,
          'ascending',
          prep.Q,
          prep.R,
          prep.perm,
          undefined,
          undefined,
          model.dimsPerStream === 2,
        );
        return prep;
      },
      detect(prep, y, yOff, noiseVar, out, v) {
        applyQt(prep.Q, rows, nd, y, yOff, z);
        const off = v * minima.nbits;
        const withPrior = costs?.set(prior!, off, noiseVar) === true;
        if (withPrior) {
          // the costs by dimension, reordered into the sorted QR's columns
          for (let i = 0; i < nd; i++) {
            const d = prep.perm[i]!;
            search.colActive[i] = costs.active[d]!;
            search.colCost.set(costs.cost.subarray(d * q, (d + 1) * q), i * q);
          }
        }
        search.search(prep.R, z, withPrior);
        minima.reset();
        for (let c = 0; c < search.count; c++) {
          symbolsOfLevels(model, search.levels, c * nd, prep.perm, symbols, 0);
          minima.add(symbols, 0, search.metric[c]!);
        }
        out.symbols.set(minima.bestSymbols, v * model.nt);
        if (out.llr) minima.writeLlr(noiseVar, clip, out.llr, off, withPrior ? prior : null, off);
        return search.nodes;
      },
    };
  },
};

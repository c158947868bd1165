/**
 * SSFE soft detector (selective spanning with fast enumeration, as the N-way paper uses it): one
 * search pass over the channel's own detection order, M candidate paths, max-log LLRs from them
 * with clipping (opts.llrClip, default 8). Preprocessing (MGS QR of the MRVD channel) runs once
 * per channel. The N-way detector with one pass is exactly this.
 *
 * A-priori LLRs (DetectionInput.priorLlr, IDD): every candidate's metric gains N0 sum_b
 * max(0, -s_b L_a(b)) over its bits, in the search's choice of children and in the list's max-log
 * (search.ts); the decision is the list's MAP candidate and the LLRs the extrinsic ones, the list's
 * max-log a-posteriori LLR minus L_a, then clipped. All-zero priors change nothing.
 */
import { BitMetricMinima, llrClipOf } from '../../soft/maxlog.js';
import { detectorRealModel } from '../../soft/real-model.js';
import type { CpuDetector, DetectorInstance } from '../detector.js';
import { SsfeLanes, ssfeLanesRefusal } from './wasm.js';
import { LevelPriors, prepareSsfePass, rotatedStreams, runSsfePass, SsfeScratch, type SsfePass } from './search.js';

export const detector: CpuDetector<SsfePass> = {
  name: 'ssfe',
  soft: true,
  lanes(setup) {
    const model = detectorRealModel('ssfe', setup.constellation, setup.nt, setup.nr);
    return ssfeLanesRefusal(model, setup) ?? new SsfeLanes(model, 1, llrClipOf(setup.opts.llrClip), setup.soft);
  },
  create(setup): DetectorInstance<SsfePass> {
    const model = detectorRealModel('ssfe', setup.constellation, setup.nt, setup.nr);
    const clip = llrClipOf(setup.opts.llrClip);
    const scratch = new SsfeScratch(model);
    const realH = new Float64Array(model.rows * model.nd),
      perm = new Int32Array(model.nd);
    const order = rotatedStreams(model.nt, 0);
    const minima = new BitMetricMinima(model.nt, model.bitsPerSymbol, model.bitTable);
    const prior = setup.priorLlr ?? null;
    const costs = prior ? new LevelPriors(model) : null;
    return {
      prepare: (H, hOff) => prepareSsfePass(model, H, hOff, order, realH, perm),
      detect(pass, y, yOff, noiseVar, out, v) {
        const off = v * minima.nbits;
        const withPrior = costs?.set(prior!, off, noiseVar) === true;
        minima.reset();
        const nodes = runSsfePass(pass, y, yOff, scratch, minima, withPrior ? costs : null);
        out.symbols.set(minima.bestSymbols, v * model.nt);
        if (out.llr) minima.writeLlr(noiseVar, clip, out.llr, off, withPrior ? prior : null, off);
        return nodes;
      },
    };
  },
};

/**
 * SSFE soft detector (selective spanning with fast enumeration, as the N-way paper uses it): one
 * search pass over the channel's own detection order, M candidate paths, max-log LLRs from them
 * with clipping (opts.llrClip, default 8). Preprocessing (MGS QR of the MRVD channel) runs once
 * per channel. The N-way detector with one pass is exactly this.
 */
import { BitMetricMinima, llrClipOf } from '../../soft/maxlog.js';
import { detectorRealModel } from '../../soft/real-model.js';
import type { CpuDetector, DetectorInstance } from '../detector.js';
import { prepareSsfePass, rotatedStreams, runSsfePass, SsfeScratch, type SsfePass } from './search.js';

export const detector: CpuDetector<SsfePass> = {
  name: 'ssfe',
  soft: true,
  create(setup): DetectorInstance<SsfePass> {
    const model = detectorRealModel('ssfe', setup.constellation, setup.nt, setup.nr);
    const clip = llrClipOf(setup.opts.llrClip);
    const scratch = new SsfeScratch(model);
    const realH = new Float64Array(model.rows * model.nd),
      perm = new Int32Array(model.nd);
    const order = rotatedStreams(model.nt, 0);
    const minima = new BitMetricMinima(model.nt, model.bitsPerSymbol, model.bitTable);
    return {
      prepare: (H, hOff) => prepareSsfePass(model, H, hOff, order, realH, perm),
      detect(pass, y, yOff, noiseVar, out, v) {
        minima.reset();
        const nodes = runSsfePass(pass, y, yOff, scratch, minima);
        out.symbols.set(minima.bestSymbols, v * model.nt);
        if (out.llr) minima.writeLlr(noiseVar, clip, out.llr, v * minima.nbits);
        return nodes;
      },
    };
  },
};

/**
 * The N-way soft detector (the N-way paper, section IV-C/D): N = opts.passes search passes, pass p
 * detecting the streams in the channel's column order rotated by p (its own MGS QR of the permuted
 * MRVD channel, computed once per channel), each an SSFE search with M candidate paths. Every pass
 * yields a hypothesis and a counter-hypothesis per bit; the minimum across passes of each is taken
 * and the max-log LLR clipped at opts.llrClip (default 8). N = 1 is SSFE exactly; N = nt gives
 * every stream the fully expanded root once. Default N = nt.
 *
 * A-priori LLRs (DetectionInput.priorLlr, IDD): as ssfe (ssfe/cpu.ts), in every pass: each
 * candidate's metric gains N0 sum_b max(0, -s_b L_a(b)), in the searches and in the merged max-log;
 * the output is the extrinsic LLRs, clipped. All-zero priors change nothing.
 */
import { InvalidArgumentError } from '../../../core/index.js';
import { BitMetricMinima, llrClipOf } from '../../soft/maxlog.js';
import { detectorRealModel } from '../../soft/real-model.js';
import type { CpuDetector, DetectorInstance } from '../detector.js';
import {
  LevelPriors,
  prepareSsfePass,
  rotatedStreams,
  runSsfePass,
  SsfeScratch,
  type SsfePass,
} from '../ssfe/search.js';
import { SsfeLanes, ssfeLanesRefusal } from '../ssfe/wasm.js';

/** opts.passes validated: an integer in [1, nt] (rotations repeat after nt); default nt. */
export function passesOf(passes: number | undefined, nt: number): number {
  if (passes === undefined) return nt;
  if (!Number.isInteger(passes) || passes < 1 || passes > nt) {
    throw new InvalidArgumentError(
      `passes must be an integer in [1, nt = ${nt}] (distinct rotations of the detection order), got ${passes}`,
    );
  }
  return passes;
}

export const detector: CpuDetector<SsfePass[]> = {
  name: 'nway',
  soft: true,
  lanes(setup) {
    const model = detectorRealModel('nway', setup.constellation, setup.nt, setup.nr);
    const passes = passesOf(setup.opts.passes, setup.nt);
    return ssfeLanesRefusal(model, setup) ?? new SsfeLanes(model, passes, llrClipOf(setup.opts.llrClip), setup.soft);
  },
  create(setup): DetectorInstance<SsfePass[]> {
    const model = detectorRealModel('nway', setup.constellation, setup.nt, setup.nr);
    const passes = passesOf(setup.opts.passes, setup.nt);
    const clip = llrClipOf(setup.opts.llrClip);
    const scratch = new SsfeScratch(model);
    const realH = new Float64Array(model.rows * model.nd),
      perm = new Int32Array(model.nd);
    const orders: Int32Array[] = [];
    for (let p = 0; p < passes; p++) orders.push(rotatedStreams(model.nt, p));
    const merged = new BitMetricMinima(model.nt, model.bitsPerSymbol, model.bitTable);
    const perPass = new BitMetricMinima(model.nt, model.bitsPerSymbol, model.bitTable);
    const prior = setup.priorLlr ?? null;
    const costs = prior ? new LevelPriors(model) : null;
    return {
      prepare(H, hOff) {
        const list: SsfePass[] = [];
        for (const order of orders) list.push(prepareSsfePass(model, H, hOff, order, realH, perm));
        return list;
      },
      detect(list, y, yOff, noiseVar, out, v) {
        const off = v * merged.nbits;
        const withPrior = costs?.set(prior!, off, noiseVar) === true;
        merged.reset();
        let nodes = 0;
        for (const pass of list) {
          perPass.reset();
          nodes += runSsfePass(pass, y, yOff, scratch, perPass, withPrior ? costs : null);
          merged.merge(perPass);
        }
        out.symbols.set(merged.bestSymbols, v * model.nt);
        if (out.llr) merged.writeLlr(noiseVar, clip, out.llr, off, withPrior ? prior : null, off);
        return nodes;
      },
    };
  },
};

/**
 * The three LR-aided detectors as one factory: LLL (the lattice part's) on the shifted and scaled
 * real lattice basis once per channel, then per vector the variant's estimate in the reduced domain
 * (see lattice-aided.ts), back-transformation with Z and quantisation to the constellation. Hard
 * output only. The reference reduces a channel at a time with the TypeScript LLL; lanes() (detect()'s
 * WebAssembly path, lanes.ts) reduces a run's channels in one call of the lattice part's WebAssembly
 * LLL kernel, with the same bases, transforms and decisions.
 */
import type { Detector } from '../../types.js';
import { detectorRealModel } from '../../soft/real-model.js';
import type { CpuDetector, DetectorInstance } from '../detector.js';
import { LrLanes, lrLanesRefusal } from './lanes.js';
import { detectLr, LrPrepScratch, LrScratch, prepareLr, type LrPrep, type LrVariant } from './lattice-aided.js';

export function lrDetector(variant: LrVariant): CpuDetector<LrPrep> {
  const name = `lr-${variant}` as Detector;
  return {
    name,
    soft: false,
    lanes(setup) {
      const model = detectorRealModel(name, setup.constellation, setup.nt, setup.nr);
      return lrLanesRefusal(model, variant) ?? new LrLanes(model, variant);
    },
    create(setup): DetectorInstance<LrPrep> {
      const model = detectorRealModel(name, setup.constellation, setup.nt, setup.nr);
      const scratch = new LrScratch(model);
      const prepScratch = new LrPrepScratch(model, variant);
      return {
        prepare: (H, hOff, noiseVar) => prepareLr(prepScratch, H, hOff, noiseVar),
        detect(prep, y, yOff, _noiseVar, out, v) {
          detectLr(prep, variant, y, yOff, scratch, out.symbols, v * model.nt);
          return 0;
        },
      };
    },
  };
}

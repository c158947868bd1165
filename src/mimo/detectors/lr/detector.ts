/**
 * The three LR-aided detectors as one factory: LLL (src/lattice/lll/cpu.ts) on the shifted and
 * scaled real lattice basis once per channel, then per vector the variant's estimate in the reduced
 * domain (see lattice-aided.ts), back-transformation with Z and quantisation to the constellation.
 * Hard output only.
 */
import type { Detector } from '../../types.js';
import { detectorRealModel } from '../../soft/real-model.js';
import type { CpuDetector, DetectorInstance } from '../detector.js';
import { detectLr, LrPrepScratch, LrScratch, prepareLr, type LrPrep, type LrVariant } from './lattice-aided.js';

export function lrDetector(variant: LrVariant): CpuDetector<LrPrep> {
  const name = `lr-${variant}` as Detector;
  return {
    name,
    soft: false,
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

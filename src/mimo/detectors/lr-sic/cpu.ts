/**
 * LR-aided MMSE-SIC: LLL on the MMSE-extended shifted and scaled basis, successive cancellation with rounding on its QR,
 * back-transformation with Z and quantisation to the constellation (../lr/lattice-aided.ts). LLL
 * (src/lattice/lll/cpu.ts) runs once per channel; hard output only.
 */
import { UnsupportedError } from '../../../core/errors.js';
import { realModel } from '../../soft/real-model.js';
import type { CpuDetector, DetectorInstance } from '../detector.js';
import { detectLr, LrPrepScratch, LrScratch, prepareLr, type LrPrep } from '../lr/lattice-aided.js';

export const detector: CpuDetector<LrPrep> = {
  name: 'lr-sic',
  soft: false,
  create(setup): DetectorInstance<LrPrep> {
    const model = realModel(setup.constellation, setup.nr, setup.nt);
    if (model.rows < model.nd) throw new UnsupportedError(`lr-sic needs at least as many real receive dimensions (2 nr = ${model.rows}) as real unknowns (${model.nd})`);
    const scratch = new LrScratch(model);
    const prepScratch = new LrPrepScratch(model, 'sic');
    return {
      prepare: (H, hOff, noiseVar) => prepareLr(prepScratch, H, hOff, noiseVar),
      detect(prep, y, yOff, _noiseVar, out, v) {
        detectLr(prep, 'sic', y, yOff, scratch, out.symbols, v * model.nt);
        return 0;
      },
    };
  },
};

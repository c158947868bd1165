/**
 * LR-aided zero forcing: LLL on the shifted and scaled real lattice basis, rounding of the ZF estimate in the reduced domain,
 * back-transformation with Z and quantisation to the constellation (../lr/lattice-aided.ts). LLL
 * (src/lattice/lll/cpu.ts) runs once per channel; hard output only.
 */
import { UnsupportedError } from '../../../core/errors.js';
import { realModel } from '../../soft/real-model.js';
import type { CpuDetector, DetectorInstance } from '../detector.js';
import { detectLr, LrPrepScratch, LrScratch, prepareLr, type LrPrep } from '../lr/lattice-aided.js';

export const detector: CpuDetector<LrPrep> = {
  name: 'lr-zf',
  soft: false,
  create(setup): DetectorInstance<LrPrep> {
    const model = realModel(setup.constellation, setup.nr, setup.nt);
    if (model.rows < model.nd) throw new UnsupportedError(`lr-zf needs at least as many real receive dimensions (2 nr = ${model.rows}) as real unknowns (${model.nd})`);
    const scratch = new LrScratch(model);
    const prepScratch = new LrPrepScratch(model, 'zf');
    return {
      prepare: (H, hOff, noiseVar) => prepareLr(prepScratch, H, hOff, noiseVar),
      detect(prep, y, yOff, _noiseVar, out, v) {
        detectLr(prep, 'zf', y, yOff, scratch, out.symbols, v * model.nt);
        return 0;
      },
    };
  },
};

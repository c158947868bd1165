/**
 * LR-aided zero forcing: LLL on the shifted and scaled real lattice basis, rounding of the ZF estimate in the reduced domain;
 * the shared factory is ../lr/detector.ts.
 */
import { lrDetector } from '../lr/detector.js';

export const detector = lrDetector('zf');

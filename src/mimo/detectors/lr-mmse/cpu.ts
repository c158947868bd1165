/**
 * LR-aided MMSE: LLL on the MMSE-extended shifted and scaled basis, rounding of the MMSE estimate in the reduced domain;
 * the shared factory is ../lr/detector.ts.
 */
import { lrDetector } from '../lr/detector.js';

export const detector = lrDetector('mmse');

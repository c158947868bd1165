/**
 * LR-aided MMSE-SIC: LLL on the MMSE-extended shifted and scaled basis, successive cancellation with rounding on its QR;
 * the shared factory is ../lr/detector.ts.
 */
import { lrDetector } from '../lr/detector.js';

export const detector = lrDetector('sic');

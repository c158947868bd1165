/** LR-aided MMSE-SIC on the GPU; the shared factory is ../lr/cuda.ts. */
import { lrCudaDetector } from '../lr/cuda.js';

export const cudaDetector = lrCudaDetector('sic');

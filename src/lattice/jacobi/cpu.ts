import { UnsupportedError } from '../../core/errors.js';
import type { CpuReducer } from '../types.js';

// Placeholder until the implementation lands.
export const jacobiCpu: CpuReducer = () => { throw new UnsupportedError('jacobi is not implemented yet'); };

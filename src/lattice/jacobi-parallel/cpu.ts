import { UnsupportedError } from '../../core/errors.js';
import type { CpuReducer } from '../types.js';

// Placeholder until the implementation lands.
export const jacobiParallelCpu: CpuReducer = () => { throw new UnsupportedError('jacobi-parallel is not implemented yet'); };

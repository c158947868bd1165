import { UnsupportedError } from '../../core/errors.js';
import type { CpuReducer } from '../types.js';

// Placeholder until the implementation lands.
export const allswapCpu: CpuReducer = () => { throw new UnsupportedError('allswap is not implemented yet'); };
